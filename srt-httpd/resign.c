/*
 * SigV4 re-signing of requests signed with a masked AWS key pair (credentials.awsPairs and
 * the AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN trio, issue #14).
 *
 * The command signs with the sentinel secret, which no server accepts. When the access
 * key id in the request's credential scope is, exactly, the sentinel of a pair whose key
 * id may go to this destination, the request is signed again here with the real pair:
 * the same signed fields (their forwarded values, after substitution), the same scope
 * and x-amz-date, the real key id and secret, the real session token added. A signature
 * over a literal payload hash needs the body as it will leave: such a body is collected
 * (up to RESIGN_BODY_MAX), hashed, and sent behind the new head with a Content-Length.
 * Shapes that cannot be re-signed (aws-chunked streaming, presigned URLs, SigV4A) are
 * refused or passed on unchanged as credentials.sigv4 says; a refusal is a 403 and a
 * "deny http-request" violation. Anything else (another key id, a host outside the
 * pair's injectHosts) is left alone: its signature stays the useless one.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "httpd.h"
#include "sigv4.h"
#include "util.h"

static const char resign_deny_headers[] = "Content-Type: text/plain\r\n"
					  "X-Proxy-Error: blocked-by-sandbox-runtime\r\n";

static const char *const kind_names[] = {
	[SIGV4_STREAMING] = "streaming",
	[SIGV4_PRESIGNED] = "presigned",
	[SIGV4_SIGV4A] = "sigv4a",
};

/* The body and head held here may carry real values: scrubbed before they go. */
static void
resign_buf_wipe(struct buf *b)
{
	if (b->p != NULL)
		explicit_bzero(b->p, b->cap);
	buf_free(b);
}

void
resign_free(struct resign *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	sigv4_auth_free(&rs->auth);
	free(rs->amz_date);
	free(rs->method);
	free(rs->target);
	free(rs->host);
	free(rs->url);
	for (i = 0; i < rs->nf; i++) {
		free(rs->fname[i]);
		if (rs->fval[i] != NULL)
			explicit_bzero(rs->fval[i], rs->fvlen[i]);
		free(rs->fval[i]);
	}
	free(rs->fname);
	free(rs->fval);
	free(rs->fvlen);
	resign_buf_wipe(&rs->head);
	resign_buf_wipe(&rs->body);
	free(rs);
}

/* The value of the one field called name, or NULL (absent, or more than one). */
static const struct http_str *
resign_field(const struct http_head *h, const char *name)
{
	size_t idx;

	if (http_field_count(h, name, &idx) != 1)
		return NULL;
	return &h->fields[idx].value;
}

/*
 * Refuse the request: 403 with why, the record a denial of this one request (the
 * launcher's "deny http-request METHOD URL (why)"), the URL cut at its query (a presigned
 * URL's signature stays out of the log), as the reference does.
 */
void
resign_refuse(struct conn *c, const char *method, const char *url, size_t ulen, const char *why)
{
	const char *q = memchr(url, '?', ulen);
	char *body;

	if (q != NULL)
		ulen = (size_t)(q - url) + 1;
	free(c->rq->request);
	c->rq->request = xasprintf("%s %.*s%s", method, (int)ulen, url, q != NULL ? "…" : "");
	c->rq->verdict = VERDICT_DENY;
	proxy_request_set_reason(c->rq, why, strlen(why));
	log_debug("%s: %s: %s", c->client, c->rq->request, why);
	body = xasprintf("%s\n", why);
	conn_reply(c, 403, "Forbidden", resign_deny_headers, body, true);
	free(body);
}

static char *
resign_large_why(void)
{
	return xasprintf(
	    "AWS SigV4 request uses a masked credential and signs a literal "
	    "body hash, so the proxy must buffer the body to re-sign it, but the body "
	    "exceeds the %u-byte buffering limit; denied. Sign the payload as "
	    "UNSIGNED-PAYLOAD to stream it without buffering, or use an unmasked credential "
	    "to have the request forwarded untouched.",
	    (unsigned)RESIGN_BODY_MAX);
}

void
resign_refuse_large(struct conn *c)
{
	char *why = resign_large_why(), *method = xstrdup(c->rs->method),
	     *url = xstrdup(c->rs->url);

	resign_refuse(c, method, url, strlen(url), why);
	free(method);
	free(url);
	free(why);
}

/* A pair whose key id sentinel is akid, exactly, or NULL. */
static const struct cred_aws *
resign_pair(const struct cred_store *cs, const char *akid)
{
	size_t i;

	for (i = 0; i < cs->naws; i++)
		if (strcmp(cs->v[cs->aws[i].key_id].sentinel, akid) == 0)
			return &cs->aws[i];
	return NULL;
}

/* "Credential=AKID/" of an AWS4-HMAC-SHA256 field that did not parse, or NULL. */
static char *
resign_loose_akid(const struct http_str *a)
{
	const char *c, *end = a->p + a->n;
	size_t i;

	if (a->n < sizeof(SIGV4_ALGORITHM) - 1 ||
	    memcmp(a->p, SIGV4_ALGORITHM, sizeof(SIGV4_ALGORITHM) - 1) != 0 ||
	    (c = memmem(a->p, a->n, "Credential=", 11)) == NULL)
		return NULL;
	c += 11;
	for (i = 0; c + i < end && c[i] != '/' && c[i] != ',' && c[i] != ' ' && c[i] != '\t';
	     i++)
		;
	return i > 0 && c + i < end && c[i] == '/' ? xstrndup(c, i) : NULL;
}

/*
 * Which masked key pair a request signed with SigV4 uses, if it is to be re-signed here:
 * NULL with *why NULL to pass the request on as it is, NULL with *why set to refuse it.
 */
static const struct cred_aws *
resign_pair_for(struct conn *c, const struct cred_store *cs, const struct http_str *auth,
    enum sigv4_kind kind, char *akid, char **why)
{
	const struct cred_aws *pair;
	enum cred_sigv4_policy pol;

	*why = NULL;
	if ((kind == SIGV4_NONE || kind == SIGV4_PRESIGNED) && auth != NULL) {
		/* An Authorization field that names a masked key id but does not parse
		 * cannot be re-signed: refused rather than sent with a bad signature. */
		char *loose = resign_loose_akid(auth);

		if (loose != NULL && (pair = resign_pair(cs, loose)) != NULL &&
		    cred_injectable(
			&cs->v[pair->key_id], c->rq->host, c->rq->kind, c->rq->port)) {
			free(loose);
			free(akid);
			*why = xstrdup(
			    "AWS SigV4 request uses a masked credential but its "
			    "Authorization header is malformed; the proxy cannot re-sign it.");
			return NULL;
		}
		free(loose);
	}
	if (kind == SIGV4_NONE) {
		free(akid);
		return NULL;
	}
	pair = resign_pair(cs, akid);
	free(akid);
	if (pair == NULL ||
	    !cred_injectable(&cs->v[pair->key_id], c->rq->host, c->rq->kind, c->rq->port))
		return NULL; /* another key (maybe a real one), or not to be sent here */
	if (kind == SIGV4_HEADER)
		return pair;
	pol = kind == SIGV4_STREAMING ? cs->streaming
	    : kind == SIGV4_PRESIGNED ? cs->presigned
				      : cs->sigv4a;
	if (pol == CRED_SIGV4_PASSTHROUGH) {
		log_debug("%s: %s request with a masked credential passed on "
			  "unsigned again (credentials.sigv4.%s)",
		    c->client, kind_names[kind], kind_names[kind]);
		return NULL;
	}
	*why = xasprintf("AWS SigV4 %s request uses a masked credential but cannot be "
			 "re-signed by the sandbox proxy; denied by policy. Set "
			 "credentials.sigv4.%s to \"passthrough\" to forward it unmodified (it "
			 "will fail upstream: the signature covers the masked placeholder).",
	    kind_names[kind], kind_names[kind]);
	return NULL;
}

/*
 * Checks the header fields the client signed (each present, none the proxy rewrites)
 * and adds the pair's session token to them: NULL, or why the request is refused.
 */
static char *
resign_check_signed(struct resign *rs, const struct http_head *h, const struct cred_aws *pair)
{
	size_t i;

	for (i = 0; i < rs->auth.nsigned; i++) {
		const char *n = rs->auth.signed_names[i];

		if (strcmp(n, "host") == 0 ||
		    (strcmp(n, "x-amz-security-token") == 0 && pair->token >= 0))
			continue;
		if (http_field_count(h, n, NULL) == 0 ||
		    http_field_is_hop(h, (struct http_str){ n, strlen(n) }) ||
		    strcmp(n, "content-length") == 0 || strcmp(n, "transfer-encoding") == 0)
			return xasprintf(
			    "AWS SigV4 request uses a masked credential but signed "
			    "header \"%s\" is missing; the proxy cannot re-sign it.",
			    n);
	}
	/* A session token the pair carries is signed whether or not the client did. */
	if (pair->token < 0)
		return NULL;
	for (i = 0; i < rs->auth.nsigned; i++)
		if (strcmp(rs->auth.signed_names[i], "x-amz-security-token") == 0)
			return NULL;
	if (rs->auth.nsigned == SIGV4_FIELD_MAX)
		return xstrdup("AWS SigV4 request uses a masked credential but "
			       "signs too many header fields; the proxy cannot re-sign it.");
	rs->auth.signed_names[rs->auth.nsigned++] = xstrdup("x-amz-security-token");
	return NULL;
}

int
resign_plan(struct conn *c, const struct http_head *h, const char *target, size_t tlen,
    const char *url, size_t ulen, bool inject_ok)
{
	const struct cred_store *cs = proxy_creds(c->px);
	const struct http_str *auth, *sha, *date = NULL, *e;
	const struct cred_aws *pair;
	struct resign *rs;
	enum sigv4_kind kind;
	char *akid = NULL, *method, *why = NULL;

	if (cs->naws == 0 || !inject_ok)
		return 0;
	auth = resign_field(h, "authorization");
	sha = resign_field(h, "x-amz-content-sha256");
	kind = sigv4_detect(auth ? auth->p : NULL, auth ? auth->n : 0, sha ? sha->p : NULL,
	    sha ? sha->n : 0, target, tlen, &akid);
	if ((pair = resign_pair_for(c, cs, auth, kind, akid, &why)) == NULL) {
		if (why == NULL)
			return 0;
		goto refuse;
	}
	rs = xcalloc(1, sizeof(*rs));
	if (sigv4_parse_auth(auth->p, auth->n, &rs->auth) == -1)
		why = xstrdup(
		    "AWS SigV4 request uses a masked credential but its "
		    "Authorization header is malformed; the proxy cannot re-sign it.");
	else if ((date = resign_field(h, "x-amz-date")) == NULL)
		why = xstrdup("AWS SigV4 request uses a masked credential but carries no "
			      "x-amz-date header; the proxy cannot re-sign it.");
	else
		why = resign_check_signed(rs, h, pair);
	if (why != NULL) {
		resign_free(rs);
		goto refuse;
	}
	rs->pair = pair;
	rs->amz_date = xstrndup(date->p, date->n);
	rs->unsigned_payload = sha != NULL && sha->n == sizeof(SIGV4_UNSIGNED) - 1 &&
	    memcmp(sha->p, SIGV4_UNSIGNED, sha->n) == 0;
	rs->had_sha = sha != NULL;
	rs->hold = !rs->unsigned_payload && h->framing != HTTP_BODY_NONE;
	rs->method = xstrndup(h->method.p, h->method.n);
	rs->target = xstrndup(target, tlen);
	rs->url = xstrndup(url, ulen);
	if (rs->hold && h->framing == HTTP_BODY_LENGTH && h->content_length > RESIGN_BODY_MAX) {
		resign_free(rs);
		why = resign_large_why();
		goto refuse;
	}
	c->rs = rs;
	/* The head waits for the body: a client waiting for "100 Continue" gets it here. */
	if (rs->hold && (e = resign_field(h, "expect")) != NULL && e->n == 12 &&
	    strncasecmp(e->p, "100-continue", 12) == 0)
		buf_adds(&c->cout, "HTTP/1.1 100 Continue\r\n\r\n");
	log_debug("%s: SigV4 request with a masked key pair: re-signed for %s port %u%s",
	    c->client, c->rq->host, c->rq->port, rs->hold ? " (the body is collected)" : "");
	return 0;
refuse:
	method = xstrndup(h->method.p, h->method.n);
	resign_refuse(c, method, url, ulen, why);
	free(method);
	free(why);
	return -1;
}

/* Is this field of the client's written anew by resign_head_end? */
bool
resign_replaces(const struct resign *rs, struct http_str name)
{
	size_t i;

	if (http_str_eq(name, "authorization"))
		return true;
	if (http_str_eq(name, "x-amz-content-sha256") && !rs->unsigned_payload)
		return true;
	if (http_str_eq(name, "x-amz-security-token") && rs->pair->token >= 0)
		return true;
	/* The body is collected before the head goes: the client's Expect is answered
	 * here (resign_expect), and goes on only when it is signed. */
	if (rs->hold && http_str_eq(name, "expect")) {
		for (i = 0; i < rs->auth.nsigned; i++)
			if (strcmp(rs->auth.signed_names[i], "expect") == 0)
				return false;
		return true;
	}
	return false;
}

/* A field as it goes upstream (value after substitution): kept for the signature. */
void
resign_note(struct resign *rs, struct http_str name, const char *v, size_t vlen)
{
	size_t i;

	for (i = 0; i < rs->auth.nsigned; i++)
		if (http_str_eq(name, rs->auth.signed_names[i]))
			break;
	if (i == rs->auth.nsigned)
		return;
	rs->fname = xreallocarray(rs->fname, rs->nf + 1, sizeof(*rs->fname));
	rs->fval = xreallocarray(rs->fval, rs->nf + 1, sizeof(*rs->fval));
	rs->fvlen = xreallocarray(rs->fvlen, rs->nf + 1, sizeof(*rs->fvlen));
	rs->fname[rs->nf] = xstrndup(name.p, name.n);
	rs->fval[rs->nf] = xstrndup(v, vlen);
	rs->fvlen[rs->nf] = vlen;
	rs->nf++;
}

/*
 * The fields written anew, the signature last, onto q: payload is the hex payload hash
 * (or UNSIGNED-PAYLOAD), host the Host value sent. -1 when a signed field is missing
 * (cannot happen after resign_plan's check, but a signer must not half-rewrite).
 */
int
resign_head_end(struct conn *c, const char *host, const char *payload, struct buf *q)
{
	const struct cred_store *cs = proxy_creds(c->px);
	const struct cred_aws *pair = c->rs->pair;
	struct resign *rs = c->rs;
	struct sigv4_field *f;
	struct sigv4_sign_in in;
	char *auth;
	size_t i, n = rs->nf;

	f = xcalloc(n + 2, sizeof(*f));
	for (i = 0; i < rs->nf; i++)
		f[i] = (struct sigv4_field){ rs->fname[i], rs->fval[i], strlen(rs->fname[i]),
			rs->fvlen[i] };
	if (rs->had_sha && !rs->unsigned_payload) {
		f[n++] = (struct sigv4_field){ "x-amz-content-sha256", payload, 20,
			strlen(payload) };
		buf_addf(q, "x-amz-content-sha256: %s\r\n", payload);
	}
	if (pair->token >= 0) {
		const struct cred_secret *t = &cs->v[pair->token];

		f[n++] = (struct sigv4_field){ "x-amz-security-token", t->real, 20, t->rlen };
		buf_adds(q, "X-Amz-Security-Token: ");
		buf_add(q, t->real, t->rlen);
		buf_add(q, "\r\n", 2);
	}
	memset(&in, 0, sizeof(in));
	in.method = rs->method;
	in.target = rs->target;
	in.tlen = strlen(rs->target);
	in.fields = f;
	in.nfields = n;
	in.host = host;
	in.signed_names = rs->auth.signed_names;
	in.nsigned = rs->auth.nsigned;
	in.payload_hash = payload;
	in.amz_date = rs->amz_date;
	in.date = rs->auth.date;
	in.region = rs->auth.region;
	in.service = rs->auth.service;
	in.akid = cs->v[pair->key_id].real;
	in.secret = cs->v[pair->secret].real;
	in.secret_len = cs->v[pair->secret].rlen;
	auth = sigv4_sign(&in, NULL);
	free(f);
	if (auth == NULL)
		return -1;
	buf_addf(q, "Authorization: %s\r\n", auth);
	explicit_bzero(auth, strlen(auth));
	free(auth);
	return 0;
}

/* The hex SHA-256 of p (65 bytes with the NUL). */
void
resign_hash(const char *p, size_t n, char out[SHA256_HEX_LEN + 1])
{
	uint8_t h[SHA256_LEN];

	sha256(p, n, h);
	hex_lower(h, SHA256_LEN, out);
}
