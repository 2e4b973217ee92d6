/*
 * Absolute-form requests: target parsing, the checks, the upstream request head (origin-
 * form, or absolute-form to a parent or inspection proxy, with the parent's credentials;
 * Host rewritten, hop-by-hop fields removed), the request body (framed by a field
 * written here: the Content-Length parsed, or chunked decoded and re-framed), and the
 * response (hop-by-hop fields and stripResponseHeaders removed, never its
 * Content-Length; a chunked or close-delimited body re-framed as chunked for an HTTP/1.1
 * client so its connection can stay open). The upstream connection comes from the pool
 * of idle ones when it may (pool.c), and goes back to it after a clean exchange.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "httpd.h"
#include "util.h"

static const char deny_headers[] = "Content-Type: text/plain\r\n"
				   "X-Proxy-Error: blocked-by-allowlist\r\n";
static const char guard_headers[] = "Content-Type: text/plain\r\n"
				    "X-Proxy-Error: blocked-by-sandbox-runtime\r\n";

struct target {
	const char *host;
	size_t hostlen;
	uint16_t port;
	const char *path; /* origin-form: path and query */
	size_t pathlen;
	bool path_needs_slash; /* "http://h?q": the path is empty */
};

/* "http://host[:port][/path][?query]": 0 or -1 (400). */
static int
forward_parse_target(struct http_str t, struct target *out)
{
	const char *p = t.p, *end = t.p + t.n, *a, *ae, *hp;

	memset(out, 0, sizeof(*out));
	if (t.n < 8 || strncasecmp(p, "http://", 7) != 0)
		return -1;
	if (memchr(p, '#', t.n) != NULL)
		return -1;
	a = p + 7;
	for (ae = a; ae < end && *ae != '/' && *ae != '?'; ae++)
		if (*ae == '@' || *ae == '\\')
			return -1; /* userinfo or a backslash: two readings of the host */
	if (ae == a)
		return -1;
	if (*a == '[') {
		const char *rb = memchr(a, ']', (size_t)(ae - a));

		if (rb == NULL)
			return -1;
		out->host = a;
		out->hostlen = (size_t)(rb + 1 - a);
		hp = rb + 1;
		if (hp < ae && *hp != ':')
			return -1;
	} else {
		for (hp = a; hp < ae && *hp != ':'; hp++)
			;
		out->host = a;
		out->hostlen = (size_t)(hp - a);
	}
	if (out->hostlen == 0)
		return -1;
	out->port = 80;
	if (hp < ae && port_parse(hp + 1, (size_t)(ae - hp - 1), &out->port) == -1)
		return -1;
	out->path = ae;
	out->pathlen = (size_t)(end - ae);
	out->path_needs_slash = out->pathlen == 0 || *ae == '?';
	return 0;
}

/* "host[:port]" for Host and logs: IPv6 bracketed, port 80 left out. */
static void
forward_authority(const struct proxy_request *rq, char *out, size_t outlen)
{
	int n = rq->kind == HOST_IPV6 ? snprintf(out, outlen, "[%s]", rq->host)
				      : snprintf(out, outlen, "%s", rq->host);

	if (rq->port != 80 && n > 0 && (size_t)n < outlen)
		snprintf(out + n, outlen - (size_t)n, ":%u", rq->port);
}

/* Why the Host field names another authority than the target (requireHostMatch), or
 * NULL when it agrees. An empty value, a trailing colon, brackets around a name: no. */
const char *
forward_host_mismatch(
    const struct http_head *h, const struct proxy_request *rq, uint16_t default_port)
{
	size_t idx, hl;
	struct http_str v, host, port = { NULL, 0 };
	char pbuf[8];

	if (http_field_count(h, "host", &idx) == 0)
		return NULL;
	v = h->fields[idx].value;
	host = v;
	if (v.n > 0 && v.p[0] == '[') {
		const char *rb = memchr(v.p, ']', v.n);

		if (rb == NULL)
			return "Host header does not match the request target";
		host.p = v.p + 1;
		host.n = (size_t)(rb - host.p);
		hl = (size_t)(rb + 1 - v.p);
		if (hl < v.n) {
			if (v.p[hl] != ':')
				return "Host header does not match the request target";
			port.p = v.p + hl + 1;
			port.n = v.n - hl - 1;
			if (port.n == 0)
				return "Host header does not match the request target";
		}
	} else {
		const char *colon = memchr(v.p, ':', v.n);

		if (colon != NULL) {
			host.n = (size_t)(colon - v.p);
			port.p = colon + 1;
			port.n = v.n - host.n - 1;
			if (port.n == 0 || memchr(port.p, ':', port.n) != NULL)
				return "Host header does not match the request target";
		}
		if (memchr(host.p, '[', host.n) || memchr(host.p, ']', host.n))
			return "Host header does not match the request target";
	}
	if (!http_str_eq(host, rq->host))
		return "Host header does not match the request target";
	if (port.p == NULL)
		return rq->port == default_port
		    ? NULL
		    : "Host header does not match the request target";
	snprintf(pbuf, sizeof(pbuf), "%u", rq->port);
	return http_str_eq(port, pbuf) ? NULL : "Host header does not match the request target";
}

/*
 * The client's fields onto q, as they go upstream: hop-by-hop ones, Host and
 * Content-Length left out (written by the caller), a masked credential's sentinel
 * replaced by its real value where it may go, the fields a re-signing writes anew left
 * out and the signed ones noted for it. To a host that may receive a masked value, the
 * response is asked for unencoded (so that it can be scrubbed of the value) and whole
 * (a Range would let the value come back in pieces no scrub recognises; a request
 * re-signed with SigV4 keeps its Range, which it may sign). Then the body's treatment is
 * settled.
 */
/*
 * The syntax a body's fields are found in, by its one Content-Type: a form
 * (application/x-www-form-urlencoded) or JSON (application/json, or a type ending in
 * +json); 0 for anything else (multipart, none, several). A field is looked for only in
 * the syntax the body is read in by the upstream: "&t=" inside a JSON string, or
 * "t":" inside a form value, is another field's value.
 */
/*
 * The parameters after a Content-Type's ";": false when one is a charset other than
 * UTF-8 or US-ASCII, or a "," joins another type. The body is matched as bytes: in
 * another charset they read otherwise (UTF-7's +AFw- is a backslash before a key's
 * quote), so such a body gets no value.
 */
static bool
forward_charset_plain(const char *p, size_t n)
{
	const char *end = p + n, *v;
	size_t vn;

	if (memchr(p, ',', n) != NULL)
		return false;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t' || *p == ';'))
			p++;
		if ((size_t)(end - p) >= 7 && strncasecmp(p, "charset", 7) == 0) {
			for (v = p + 7; v < end && (*v == ' ' || *v == '\t' || *v == '='); v++)
				;
			if (v < end && *v == '"')
				v++;
			for (vn = 0; v + vn < end && v[vn] != ';' && v[vn] != '"' &&
			     v[vn] != ' ' && v[vn] != '\t';
			     vn++)
				;
			if (!((vn == 5 && strncasecmp(v, "utf-8", 5) == 0) ||
				(vn == 8 && strncasecmp(v, "us-ascii", 8) == 0)))
				return false;
		}
		while (p < end && *p != ';')
			p++;
	}
	return true;
}

static unsigned
forward_body_syntax(const struct http_head *h)
{
	size_t idx, n, i;
	const char *p, *semi;

	if (http_field_count(h, "content-type", &idx) != 1)
		return 0;
	p = h->fields[idx].value.p;
	n = h->fields[idx].value.n;
	if ((semi = memchr(p, ';', n)) != NULL) {
		if (!forward_charset_plain(semi + 1, (size_t)(p + n - (semi + 1))))
			return 0;
		n = (size_t)(semi - p);
	}
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	while (n > 0 && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	/* One media type: "a, b+json" or "a b+json" is two, which readers cut apart
	 * differently (one may read a form where this would read JSON). */
	for (i = 0; i < n; i++)
		if (p[i] == ',' || p[i] == ' ' || p[i] == '\t')
			return 0;
	if (n == 33 && strncasecmp(p, "application/x-www-form-urlencoded", 33) == 0)
		return CRED_BODY_FORM;
	if ((n == 16 && strncasecmp(p, "application/json", 16) == 0) ||
	    (n > 17 && strncasecmp(p, "application/", 12) == 0 &&
		strncasecmp(p + n - 5, "+json", 5) == 0))
		return CRED_BODY_JSON;
	return 0;
}

void
forward_head_fields(struct conn *c, const struct http_head *h, struct buf *q)
{
	size_t i, at;
	bool ae = false;
	unsigned syntax;

	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_field_is_hop(h, f->name) || http_str_eq(f->name, "host") ||
		    http_str_eq(f->name, "content-length"))
			continue;
		if (c->rs != NULL && resign_replaces(c->rs, f->name))
			continue;
		if (c->cguard && c->rs == NULL &&
		    (http_str_eq(f->name, "range") || http_str_eq(f->name, "if-range")))
			continue;
		if (c->cguard && http_str_eq(f->name, "accept-encoding")) {
			if (ae)
				continue;
			ae = true;
			buf_add(q, f->name.p, f->name.n);
			buf_adds(q, ": identity");
			if (c->rs != NULL)
				resign_note(c->rs, f->name, "identity", 8);
			buf_add(q, "\r\n", 2);
			continue;
		}
		buf_add(q, f->name.p, f->name.n);
		buf_add(q, ": ", 2);
		at = q->len;
		/* A sentinel of a credential injectable here becomes the real value. */
		if (c->ncset > 0)
			cred_subst(c->cset, c->ncset, f->value.p, f->value.n, q);
		else
			buf_add(q, f->value.p, f->value.n);
		if (c->rs != NULL)
			resign_note(c->rs, f->name, q->p + q->off + at, q->len - at);
		buf_add(q, "\r\n", 2);
	}
	/* No Accept-Encoding would let the upstream choose any coding. */
	if (c->cguard && !ae)
		buf_adds(q, "Accept-Encoding: identity\r\n");
	/* A body is scanned for sentinels only in the fields a credential names
	 * (injectBodyFields), and not when it is encoded (compressed, say): then the
	 * stand-ins go as they are, which fails safe. A length that may change is re-framed
	 * as chunked, unless the body is collected for a signature (then its length is known
	 * before the head goes). */
	syntax = forward_body_syntax(h);
	c->csubst = cred_body_any(c->cset, c->ncset) && h->framing != HTTP_BODY_NONE &&
	    http_field_count(h, "content-encoding", NULL) == 0 && syntax != 0;
	c->crechunk = c->csubst && h->framing == HTTP_BODY_LENGTH &&
	    cred_body_length_changes(c->cset, c->ncset) && (c->rs == NULL || !c->rs->hold);
	if (c->csubst) {
		cred_stream_init_body(&c->cstream, c->cset, c->ncset);
		c->cstream.syntax = syntax;
	}
}

/*
 * The end of the head: the fields a re-signing writes (the payload hash that of an empty
 * body, or UNSIGNED-PAYLOAD), the framing, the blank line; into up_head. A re-signed
 * request whose body is collected first keeps what it has in c->rs->head instead
 * (forward_release). -1: the signer failed, a refusal is queued.
 */
int
forward_head_end(struct conn *c, const struct http_head *h, const char *host, struct buf *q)
{
	char hash[SHA256_HEX_LEN + 1];

	if (c->rs != NULL && c->rs->hold) {
		c->rs->host = xstrdup(host);
		buf_add(&c->rs->head, q->p + q->off, q->len);
		return 0;
	}
	if (c->rs != NULL) {
		if (c->rs->unsigned_payload)
			snprintf(hash, sizeof(hash), "%s", SIGV4_UNSIGNED);
		else
			resign_hash("", 0, hash);
		if (resign_head_end(c, host, hash, q) == -1) {
			resign_refuse(c, c->rs->method, c->rs->url, strlen(c->rs->url),
			    "AWS SigV4 re-signing failed: a signed header is missing");
			return -1;
		}
	}
	/* The body goes on framed the way it was read here, by a field written here: a
	 * chunked body is re-chunked on this hop, a length is the value parsed. */
	if (h->framing == HTTP_BODY_CHUNKED || c->crechunk)
		buf_add(q, "Transfer-Encoding: chunked\r\n", 28);
	else if (http_field_count(h, "content-length", NULL) > 0)
		buf_addf(q, "Content-Length: %llu\r\n", (unsigned long long)h->content_length);
	/* No Connection field: HTTP/1.1 keeps the connection, for the pool. */
	buf_add(q, "\r\n", 2);
	c->up_head = xmalloc(q->len);
	memcpy(c->up_head, q->p + q->off, q->len);
	c->up_head_len = q->len;
	return 0;
}

/*
 * A collected body is whole: its hash signs the head, which goes with it, framed by its
 * length. -1: the signer failed (a refusal is queued).
 */
static int
forward_release(struct conn *c)
{
	struct resign *rs = c->rs;
	char hash[SHA256_HEX_LEN + 1];

	resign_hash(rs->body.p + rs->body.off, rs->body.len, hash);
	if (resign_head_end(c, rs->host, hash, &rs->head) == -1) {
		resign_refuse(c, rs->method, rs->url, strlen(rs->url),
		    "AWS SigV4 re-signing failed: a signed header is missing");
		return -1;
	}
	buf_addf(&rs->head, "Content-Length: %zu\r\n\r\n", rs->body.len);
	buf_add(&c->uout, rs->head.p + rs->head.off, rs->head.len);
	buf_add(&c->uout, rs->body.p + rs->body.off, rs->body.len);
	log_debug("%s: a %zu-byte body collected, signed and sent", c->client, rs->body.len);
	return 0;
}

static int
forward_build_head(struct conn *c, const struct http_head *h, const struct target *t)
{
	struct buf q = { 0 };
	char auth[DOM_HOST_MAX + 16];
	int rc;

	forward_authority(c->rq, auth, sizeof(auth));
	buf_add(&q, h->method.p, h->method.n);
	buf_add(&q, " ", 1);
	/* A proxy on the way takes the absolute form, rebuilt from the host that was
	 * judged, never the client's spelling. */
	if (c->route.kind != ROUTE_DIRECT)
		buf_addf(&q, "http://%s", auth);
	if (t->path_needs_slash)
		buf_add(&q, "/", 1);
	buf_add(&q, t->path, t->pathlen);
	buf_addf(&q, " HTTP/1.1\r\nHost: %s\r\n", auth);
	if (c->route.kind == ROUTE_PARENT && c->route.parent->auth != NULL)
		buf_addf(&q, "Proxy-Authorization: %s\r\n", c->route.parent->auth);
	forward_head_fields(c, h, &q);
	rc = forward_head_end(c, h, auth, &q);
	explicit_bzero(q.p, q.cap);
	buf_free(&q);
	return rc;
}

static void forward_attach(struct conn *c, int fd, struct tls_conn *tls, bool reused);
static int forward_body_ahead_out(struct conn *c);
static bool forward_retryable(const struct http_head *h);

static bool
forward_name_in(const char *f, const struct strlist *names)
{
	char g[DECIDER_HEADER_BYTES + 1];

	for (size_t i = 0; i < names->n; i++) {
		decider_fold(names->v[i], strlen(names->v[i]), g);
		if (strcmp(f, g) == 0)
			return true;
	}
	return false;
}

/*
 * An allow's header edits on the head going upstream: removeHeaders and the names of
 * setHeaders go (matched folded), then setHeaders' values are added; a credential first
 * removes every credential header the client sent, then goes in Authorization: Bearer,
 * or, for class "github" to github.com, Basic with the user x-access-token (git's
 * transport), as the reference places it. The head is up_head, or, for a request whose
 * body is collected to be signed (resign.c), the start of it kept in c->rs->head, which
 * has no blank line yet and gets none here.
 */
static void
forward_edit_head(struct conn *c, const struct decider_verdict *v)
{
	static const char *const cred_headers[] = { "authorization", "proxy-authorization",
		"cookie", "x-api-key" };
	bool held = c->up_head == NULL && c->rs != NULL && c->rs->hold;
	const char *p, *end, *eol, *colon;
	char f[DECIDER_HEADER_BYTES + 1];
	struct buf q = { 0 };
	bool drop;
	size_t i;

	if (v->set_names.n == 0 && v->remove.n == 0 && v->cred == NULL)
		return;
	if (held) {
		p = c->rs->head.p + c->rs->head.off;
		end = p + c->rs->head.len;
	} else {
		p = c->up_head;
		end = c->up_head + c->up_head_len;
	}
	eol = memchr(p, '\n', (size_t)(end - p));
	buf_add(&q, p, (size_t)(eol + 1 - p));
	for (p = eol + 1; p < end && !(p[0] == '\r' && p + 1 < end && p[1] == '\n');
	     p = eol + 1) {
		eol = memchr(p, '\n', (size_t)(end - p));
		colon = memchr(p, ':', (size_t)(eol - p));
		drop = false;
		if (colon != NULL && (size_t)(colon - p) <= DECIDER_HEADER_BYTES) {
			decider_fold(p, (size_t)(colon - p), f);
			drop = (decider_may_remove(f) && forward_name_in(f, &v->remove)) ||
			    forward_name_in(f, &v->set_names);
			for (i = 0; v->cred != NULL && i < 4; i++)
				drop |= strcmp(f, cred_headers[i]) == 0 &&
				    strcmp(f, "proxy-authorization") != 0;
			/* A parent's Proxy-Authorization is srt's own, never the client's. */
			if (v->cred != NULL && strcmp(f, "proxy-authorization") == 0 &&
			    c->route.kind != ROUTE_PARENT)
				drop = true;
		}
		if (!drop)
			buf_add(&q, p, (size_t)(eol + 1 - p));
	}
	for (i = 0; i < v->set_names.n; i++)
		buf_addf(&q, "%s: %s\r\n", v->set_names.v[i], v->set_values.v[i]);
	if (v->cred != NULL) {
		if (strcmp(v->cred, "github") == 0 && strcmp(c->rq->host, "github.com") == 0) {
			char *up = xasprintf("x-access-token:%s", v->credential);

			buf_adds(&q, "authorization: Basic ");
			buf_add_base64(&q, up, strlen(up), false, true);
			buf_adds(&q, "\r\n");
			explicit_bzero(up, strlen(up));
			free(up);
		} else
			buf_addf(&q, "authorization: Bearer %s\r\n", v->credential);
	}
	/* Both heads may hold real values (a credential, a substituted sentinel). */
	if (held) {
		if (c->rs->head.p != NULL)
			explicit_bzero(c->rs->head.p, c->rs->head.cap);
		buf_free(&c->rs->head);
		buf_add(&c->rs->head, q.p + q.off, q.len);
	} else {
		buf_add(&q, "\r\n", 2);
		explicit_bzero(c->up_head, c->up_head_len);
		free(c->up_head);
		c->up_head = xmalloc(q.len);
		memcpy(c->up_head, q.p + q.off, q.len);
		c->up_head_len = q.len;
	}
	if (q.p != NULL)
		explicit_bzero(q.p, q.cap);
	buf_free(&q);
}

/* On to the upstream: an idle connection when the request may go out twice, else a
 * dial. */
static void
forward_go(struct conn *c)
{
	struct tls_conn *tls = NULL;
	int fd;

	if (c->u_retryable &&
	    (fd = pool_take(c->pp, c->rq->host, c->rq->port, c->term != NULL, conn_io_cb, c,
		 &tls)) != -1) {
		log_debug("%s: %s port %u over an idle connection", c->client, c->rq->host,
		    c->rq->port);
		forward_attach(c, fd, tls, true);
		return;
	}
	httpd_dial(c);
}

static void
forward_answered(void *arg, const struct ask_answer *a)
{
	struct conn *c = arg;
	struct ask_answer no = { 0 };

	/* A header set on a request that came in clear text (not from a terminated
	 * tunnel) would travel in clear text: without --plaintext-header-set such an
	 * allow is refused, as forwarding the request without the header it relies on
	 * would fail open. A credential (cred/credential) is a header set too: it would
	 * go out in an Authorization field. Removals alone are not refused. */
	if (a->allow && a->v != NULL && (a->v->set_names.n > 0 || a->v->credential != NULL) &&
	    c->term == NULL && !proxy_options(c->px)->plaintext_header_set) {
		no.plaintext_set = true;
		no.sync = a->sync;
		no.status = 403;
		no.reason =
		    "the decider's allow sets headers, which srt-httpd does not set on "
		    "a request that came in clear text without --plaintext-header-set; the "
		    "request was not forwarded";
		a = &no;
	}
	if (!a->allow) {
		httpd_ask_refuse(c, a, true);
	} else {
		httpd_ask_allowed(c, a);
		if (a->v != NULL)
			forward_edit_head(c, a->v);
		c->st = CONN_DIALING;
		forward_go(c);
	}
	if (!a->sync)
		conn_run(c);
}

void
forward_ask(struct conn *c, const struct http_head *h, const char *tpath, size_t tpathlen,
    const char *sni)
{
	const char *names[HTTP_HEADERS_MAX], *values[HTTP_HEADERS_MAX];
	size_t namelen[HTTP_HEADERS_MAX], valuelen[HTTP_HEADERS_MAX], first;
	struct decider_req r = { 0 };
	char *method = xstrndup(h->method.p, h->method.n), *hosthdr = NULL, *path, *q;

	if (http_field_count(h, "host", &first) > 0)
		hosthdr = xstrndup(h->fields[first].value.p, h->fields[first].value.n);
	/* "" and "?q" are "/" and "/?q", as they go upstream. */
	path = tpathlen == 0 || tpath[0] == '?' ? xasprintf("/%.*s", (int)tpathlen, tpath)
						: xstrndup(tpath, tpathlen);
	if ((q = strchr(path, '?')) != NULL)
		*q++ = '\0';
	r.method = method;
	r.host = c->rq->host;
	r.port = c->rq->port;
	r.host_header = hosthdr;
	r.sni = sni;
	r.path = path;
	r.query = q;
	httpd_req_headers(h, &r, names, namelen, values, valuelen);
	c->u_retryable = forward_retryable(h);
	c->st = CONN_ASKING;
	ask_send(c->px, &r, forward_answered, c, &c->ask, c);
	free(method);
	free(hosthdr);
	free(path);
}

/* Only a request that may go out twice goes over an idle connection: the upstream may
 * close that just as the request is sent (forward_retry). */
static bool
forward_retryable(const struct http_head *h)
{
	return h->framing == HTTP_BODY_NONE &&
	    (http_str_eq(h->method, "GET") || http_str_eq(h->method, "HEAD") ||
		http_str_eq(h->method, "OPTIONS"));
}

/* Forget the last request's credential set. */
void
forward_creds_clear(struct conn *c)
{
	resign_free(c->rs);
	c->rs = NULL;
	if (c->csubst)
		cred_stream_free(&c->cstream);
	if (c->rscrub)
		cred_scrub_free(&c->rstream);
	free(c->cset);
	c->cset = NULL;
	c->ncset = 0;
	c->csubst = c->crechunk = c->cguard = c->rscrub = false;
}

/*
 * The masked credentials that may be put back into this request: those whose
 * injectHosts cover the destination that was judged (never the Host field's spelling),
 * over terminated TLS (tls), or on the plain-HTTP path only under allowPlaintextInject.
 * Anywhere else a sentinel leaves as the useless stand-in it is. Headers take them
 * (default injectHosts: every allowed domain, as in the reference); bodies only in the
 * fields named (injectBodyFields, which settings allow only with injectHosts).
 */
void
forward_creds(struct conn *c, bool tls)
{
	const struct cred_store *cs = proxy_creds(c->px);

	forward_creds_clear(c);
	if (cs->n > 0)
		c->cset = cred_for_host(cs, c->rq->host, c->rq->port, &c->ncset);
	/* Where a value may go over some transport, what comes back is guarded on every
	 * one (a value stored over TLS may be fetched in clear text). */
	c->cguard = c->ncset > 0;
	if (!tls && !cs->plaintext) {
		free(c->cset);
		c->cset = NULL;
		c->ncset = 0;
	}
	if (c->ncset > 0)
		log_debug("%s: %zu masked credential(s) may be injected for %s port %u",
		    c->client, c->ncset, c->rq->host, c->rq->port);
}

/* SigV4 re-signing (resign.c) on the plain path: only where real values may go over
 * plain HTTP (allowPlaintextInject), as for substitution. */
static int
forward_resign_plan(struct conn *c, const struct http_head *h, const struct target *t)
{
	const struct cred_store *cs = proxy_creds(c->px);
	char auth[DOM_HOST_MAX + 16];
	struct buf tg = { 0 }, url = { 0 };
	int rc;

	if (cs->naws == 0 || !cs->plaintext)
		return 0;
	if (t->path_needs_slash)
		buf_addc(&tg, '/');
	buf_add(&tg, t->path, t->pathlen);
	forward_authority(c->rq, auth, sizeof(auth));
	buf_addf(&url, "http://%s", auth);
	buf_add(&url, tg.p + tg.off, tg.len);
	rc = resign_plan(c, h, tg.p + tg.off, tg.len, url.p + url.off, url.len, true);
	buf_free(&tg);
	buf_free(&url);
	return rc;
}

void
forward_start(struct conn *c, const struct http_head *h)
{
	struct target t;
	const char *why;
	char *body;
	bool allowed;

	if (!httpd_authorized(c, h, true))
		return;
	if (forward_parse_target(h->target, &t) == -1) {
		httpd_deny(c, 400, NULL,
		    h->target.p[0] == '/' ? "origin-form request to a proxy"
					  : "bad request target",
		    NULL, false);
		return;
	}
	allowed = proxy_decide(c->px, c->pp, c->rq, t.host, t.hostlen, t.port) != 0;
	if (!allowed && ask_needed(c, false) == ASK_NO) {
		conn_reply(c, 403, "Forbidden", deny_headers,
		    "Connection blocked by network allowlist\n", true);
		return;
	}
	if (c->pp->require_host_match) {
		if (http_field_count(h, "host", NULL) == 0 && h->minor == 1) {
			httpd_deny(c, 400, guard_headers,
			    "HTTP/1.1 request without a Host header",
			    "HTTP/1.1 request without a Host header\n", false);
			return;
		}
		if ((why = forward_host_mismatch(h, c->rq, 80)) != NULL) {
			c->rq->verdict = VERDICT_DENY;
			proxy_request_set_reason(c->rq, why, strlen(why));
			body = xasprintf("%s\n", why);
			conn_reply(c, 421, "Misdirected Request", guard_headers, body, true);
			free(body);
			return;
		}
	}
	forward_creds(c, false);
	if (forward_resign_plan(c, h, &t) == -1)
		return;
	proxy_route(c->pp, c->rq, false, &c->route);
	free(c->rq->route);
	c->rq->route = route_describe(&c->route);
	if (forward_build_head(c, h, &t) == -1)
		return;
	if (ask_needed(c, allowed) == ASK_YES) {
		forward_ask(c, h, t.path, t.pathlen, NULL);
		return;
	}
	forward_send(c, h);
}

/* A request decided and its upstream head built (forward_build_head, term_request): out
 * over an idle connection or a new one. */
void
forward_send(struct conn *c, const struct http_head *h)
{
	c->u_retryable = forward_retryable(h);
	forward_go(c);
}

/* Take fd as the upstream connection and queue the request head. reused: it comes from
 * the pool, registered already (rebound to this connection). */
static void
forward_attach(struct conn *c, int fd, struct tls_conn *tls, bool reused)
{
	c->ufd = fd;
	c->utls = tls;
	/* Nothing can be there to read before the request went out; but a TLS session
	 * may hold records it read ahead (a session ticket) that no event will report. */
	c->u_ready = tls != NULL;
	c->u_eof = false;
	c->u_reused = reused;
	c->u_rx = c->u_keep = false;
	c->uev = EV_WRITE | EV_READ | EV_EDGE;
	if (!reused && evloop_add(c->loop, fd, c->uev, conn_io_cb, c) == -1) {
		conn_close_fd(fd, tls);
		c->ufd = -1;
		c->utls = NULL;
		conn_reply(
		    c, 502, "Bad Gateway", "Content-Type: text/plain\r\n", "Bad Gateway", true);
		return;
	}
	if (c->up_head != NULL)
		buf_add(&c->uout, c->up_head, c->up_head_len);
	/* A body read ahead for the decider (need_body) goes out first, through the same
	 * substitution, framing and re-signing as the rest (forward_request_body). */
	if (forward_body_ahead_out(c) == 2)
		return; /* refused: the reply is queued */
	c->st = CONN_FORWARD;
}

void
forward_dialed(struct conn *c, int fd, struct tls_conn *tls)
{
	forward_attach(c, fd, tls, false);
}

/*
 * An idle connection taken from the pool failed before the upstream sent a byte: it was
 * closed under the request. A request that may go out twice is sent again, once, on a
 * new connection (true); anything else fails as it would have.
 */
static bool
forward_retry(struct conn *c)
{
	if (!c->u_reused || c->u_rx || !c->u_retryable || c->resp_started)
		return false;
	log_debug("%s: the idle connection to %s port %u was closed: dialling anew", c->client,
	    c->rq->host, c->rq->port);
	evloop_forget(c->loop, c->ufd);
	conn_close_fd(c->ufd, c->utls);
	conn_upstream_reset(c);
	c->u_reused = false;
	httpd_dial(c);
	return true;
}

/* ---- bodies ---------------------------------------------------------------------- */

struct chunk_sink {
	struct buf *q;
	bool frame; /* write as chunks, else raw */
	uint64_t *count;
	struct cred_stream *cs;       /* sentinels replaced on the way, or NULL */
	struct cred_scrub_stream *ss; /* real values scrubbed on the way, or NULL */
};

static void forward_chunk_raw(struct chunk_sink *s, const char *p, size_t n);

static void
forward_chunk_out(void *arg, const char *p, size_t n)
{
	struct chunk_sink *s = arg;
	struct buf t = { 0 };

	if (n == 0)
		return;
	if (s->cs != NULL || s->ss != NULL) {
		if (s->cs != NULL)
			cred_stream_feed(s->cs, p, n, &t);
		else
			cred_scrub_feed(s->ss, p, n, &t);
		forward_chunk_raw(s, t.p + t.off, t.len);
		if (t.p != NULL)
			explicit_bzero(t.p, t.cap);
		buf_free(&t);
		return;
	}
	forward_chunk_raw(s, p, n);
}

/* What a credential stream still holds, at the end of the body. */
static void
forward_chunk_flush(struct chunk_sink *s)
{
	struct buf t = { 0 };

	if (s->cs != NULL)
		cred_stream_end(s->cs, &t);
	else if (s->ss != NULL)
		cred_scrub_end(s->ss, &t);
	else
		return;
	forward_chunk_raw(s, t.p + t.off, t.len);
	if (t.p != NULL)
		explicit_bzero(t.p, t.cap);
	buf_free(&t);
}

static void
forward_chunk_raw(struct chunk_sink *s, const char *p, size_t n)
{
	if (n == 0)
		return;
	if (s->frame)
		buf_addf(s->q, "%zx\r\n", n);
	buf_add(s->q, p, n);
	if (s->frame)
		buf_add(s->q, "\r\n", 2);
	*s->count += n;
}

/*
 * The body need_body read ahead (c->body, decoded: forward_body_ahead), sent as the rest
 * of the body will be: substituted, framed as the head says (chunked when srt re-frames
 * it), or held to be signed. Never raw: the decider's copy was decoded from the client's
 * framing, and the upstream must see exactly one body, framed by srt. 1 when something
 * was queued, 2 when the request was refused, else 0.
 */
/* A body held for re-signing grew: past RESIGN_BODY_MAX the request is refused (2), once
 * whole it is signed and released (2 if that failed), else 1. */
static int
forward_held(struct conn *c)
{
	if (c->rs->body.len > RESIGN_BODY_MAX) {
		c->req_done = false; /* the rest is not read: the connection closes */
		resign_refuse_large(c);
		return 2;
	}
	if (c->req_done && forward_release(c) == -1)
		return 2;
	return 1;
}

static int
forward_body_ahead_out(struct conn *c)
{
	bool hold = c->rs != NULL && c->rs->hold;
	struct chunk_sink sink = { hold ? &c->rs->body : &c->uout, !hold, &c->rq->up,
		c->csubst ? &c->cstream : NULL, NULL };

	if (!c->body_ahead)
		return 0;
	c->body_ahead = false;
	if (!hold && c->req_framing == HTTP_BODY_LENGTH)
		sink.frame = c->csubst && c->crechunk;
	forward_chunk_out(&sink, c->body.p + c->body.off, c->body.len);
	buf_free(&c->body);
	if (c->req_done) {
		forward_chunk_flush(&sink);
		if (!hold && sink.frame)
			buf_add(&c->uout, "0\r\n\r\n", 5);
	}
	return hold ? forward_held(c) : 1;
}

/* Move request body bytes from c->in to c->uout. -1: malformed chunked body. */
static int
forward_request_body(struct conn *c)
{
	bool hold = c->rs != NULL && c->rs->hold;
	struct chunk_sink sink = { hold ? &c->rs->body : &c->uout, !hold, &c->rq->up,
		c->csubst ? &c->cstream : NULL, NULL };
	size_t take;
	long used;

	if (c->req_done || c->in.len == 0)
		return 0;
	if (hold) {
		if (c->req_framing == HTTP_BODY_LENGTH) {
			take = c->in.len < c->req_left ? c->in.len : (size_t)c->req_left;
			forward_chunk_out(&sink, c->in.p + c->in.off, take);
			buf_consume(&c->in, take);
			c->req_left -= take;
			c->req_done = c->req_left == 0;
		} else {
			used = http_chunked_feed(&c->req_ch, c->in.p + c->in.off, c->in.len,
			    forward_chunk_out, &sink);
			if (used < 0)
				return -1;
			buf_consume(&c->in, (size_t)used);
			c->req_done = http_chunked_done(&c->req_ch);
		}
		if (c->req_done)
			forward_chunk_flush(&sink);
		return forward_held(c);
	}
	if (c->req_framing == HTTP_BODY_LENGTH && c->csubst) {
		take = c->in.len < c->req_left ? c->in.len : (size_t)c->req_left;
		sink.frame = c->crechunk;
		forward_chunk_out(&sink, c->in.p + c->in.off, take);
		buf_consume(&c->in, take);
		c->req_left -= take;
		c->req_done = c->req_left == 0;
		if (c->req_done) {
			forward_chunk_flush(&sink);
			if (c->crechunk)
				buf_add(&c->uout, "0\r\n\r\n", 5);
		}
		return 1;
	}
	if (c->req_framing == HTTP_BODY_LENGTH) {
		take = c->in.len < c->req_left ? c->in.len : (size_t)c->req_left;
		buf_add(&c->uout, c->in.p + c->in.off, take);
		buf_consume(&c->in, take);
		c->req_left -= take;
		c->rq->up += take;
		c->req_done = c->req_left == 0;
		return 1;
	}
	used = http_chunked_feed(
	    &c->req_ch, c->in.p + c->in.off, c->in.len, forward_chunk_out, &sink);
	if (used < 0)
		return -1;
	buf_consume(&c->in, (size_t)used);
	if (http_chunked_done(&c->req_ch)) {
		forward_chunk_flush(&sink);
		buf_add(&c->uout, "0\r\n\r\n", 5);
		c->req_done = true;
	}
	return 1;
}

/* A decoded chunk of a body read ahead (forward_body_ahead). */
static void
forward_ahead_out(void *arg, const char *p, size_t n)
{
	buf_add(arg, p, n);
}

int
forward_body_ahead(struct conn *c, size_t max, bool *cut)
{
	size_t take;
	long used;

	c->body_ahead = true;

	if (c->req_framing == HTTP_BODY_LENGTH) {
		take = c->in.len < c->req_left ? c->in.len : (size_t)c->req_left;
		if (take > max - c->body.len)
			take = max - c->body.len;
		buf_add(&c->body, c->in.p + c->in.off, take);
		buf_consume(&c->in, take);
		c->req_left -= take;
		c->req_done = c->req_left == 0;
		*cut = c->req_left > 0;
		return c->req_done || c->body.len >= max;
	}
	if (c->req_framing != HTTP_BODY_CHUNKED) {
		*cut = false;
		return 1;
	}
	/* Chunked: decoded until it is over or goes past max (which says it is cut). */
	while (!http_chunked_done(&c->req_ch) && c->body.len <= max && c->in.len > 0) {
		used = http_chunked_feed(
		    &c->req_ch, c->in.p + c->in.off, c->in.len, forward_ahead_out, &c->body);
		if (used < 0)
			return -1;
		buf_consume(&c->in, (size_t)used);
	}
	c->req_done = http_chunked_done(&c->req_ch);
	*cut = c->body.len > max;
	return c->req_done || c->body.len > max;
}

/* The exchange is over: back to reading heads, or close. */
static void
forward_finish(struct conn *c)
{
	bool keep = c->client_keep_alive && !c->close_after && c->req_done &&
	    !proxy_draining(c->px);

	/* A clean exchange leaves the upstream connection ready for another request: the
	 * request went out whole, the response was framed, read to its end and nothing
	 * followed it, and the upstream neither asked to close nor closed. */
	if (c->u_keep && c->resp_done && c->req_done && c->uout.len == 0 && c->uin.len == 0 &&
	    !c->u_eof && !proxy_draining(c->px) && c->rq != NULL && c->pp != NULL)
		pool_put(c->px, c->pp, c->rq->host, c->rq->port, c->ufd, c->utls);
	else {
		evloop_forget(c->loop, c->ufd);
		conn_close_fd(c->ufd, c->utls);
	}
	conn_upstream_reset(c);
	forward_creds_clear(c);
	conn_request_done(c);
	/* The client's request was read to its end and nothing followed it: closing now
	 * cannot reset the connection under our reply (a reset comes of unread input), so
	 * the close needs no lingering read. */
	c->clean_end = !keep && c->req_done && c->in.len == 0 && !c->c_ready;
	c->st = keep ? CONN_READ_HEAD : CONN_CLOSING;
}

/* Upstream failed or sent garbage. Before the client saw anything: 502; else close. */
static int
forward_upstream_failed(struct conn *c, const char *why)
{
	if (forward_retry(c))
		return 1;
	proxy_request_set_reason(c->rq, why, strlen(why));
	if (!c->resp_started) {
		c->rq->verdict = VERDICT_ERROR;
		conn_reply(
		    c, 502, "Bad Gateway", "Content-Type: text/plain\r\n", "Bad Gateway", true);
		return 1;
	}
	c->close_after = true;
	c->client_keep_alive = false;
	forward_finish(c);
	return 1;
}

/* Is this response field one of stripResponseHeaders? Content-Length never is: it frames
 * the body the client reads. A name too long for the buffer is folded on the heap: the
 * lists take names of any length, and one of them must not pass for being long. */
static bool
forward_stripped(const struct conn *c, struct http_str name)
{
	char buf[256], *folded = buf;
	bool hit;

	if (c->pp == NULL || c->pp->strip_headers.n == 0 || http_str_eq(name, "content-length"))
		return false;
	if (name.n >= sizeof(buf))
		folded = xmalloc(name.n + 1);
	decider_fold(name.p, name.n, folded);
	hit = strlist_contains(&c->pp->strip_headers, folded) != 0;
	if (folded != buf)
		free(folded);
	return hit;
}

/* Is the response's body encoded (a Content-Encoding other than identity)? */
static bool
forward_encoded(const struct http_head *h)
{
	size_t i;

	for (i = 0; i < h->nfields; i++)
		if (http_str_eq(h->fields[i].name, "content-encoding") &&
		    !http_str_eq(h->fields[i].value, "identity"))
			return true;
	return false;
}

/* p, n onto the client's queue, scrubbed of the masked values when there are some. */
static void
forward_out_scrubbed(struct conn *c, const char *p, size_t n)
{
	const struct cred_store *cs = proxy_creds(c->px);

	if (cs->nscrub > 0)
		cred_scrub(cs, p, n, &c->cout);
	else
		buf_add(&c->cout, p, n);
}

/*
 * Parse the response head in c->uin and queue the client's version of it. A masked
 * value never comes back: the status line and every field are scrubbed of it, and so is
 * the body (forward_response_body), keeping its length. A body encoded all the same by a
 * host that may receive a value (it was asked for identity) cannot be scrubbed: it is
 * refused. Another host's encoded body goes on as it is (no value was sent there).
 */
static int
forward_response_head(struct conn *c)
{
	struct http_head *h;
	enum http_status st;
	const char *line_end;
	size_t i;
	bool close_client, scrub;

	h = xmalloc(sizeof(*h));
	st = http_parse_response(c->uin.p + c->uin.off, c->uin.len, c->head_method, h);
	if (st == HTTP_INCOMPLETE) {
		free(h);
		return 0;
	}
	if (st != HTTP_OK || h->status == 101) {
		free(h);
		return forward_upstream_failed(c, "malformed response from upstream");
	}
	line_end = memchr(c->uin.p + c->uin.off, '\r', h->head_len);
	if (h->status < 200) {
		/* Interim (100 Continue ...): pass the status line on and wait for more. */
		buf_add(&c->cout, "HTTP/1.1", 8);
		forward_out_scrubbed(c, c->uin.p + c->uin.off + 8,
		    (size_t)(line_end - (c->uin.p + c->uin.off)) - 8);
		buf_add(&c->cout, "\r\n\r\n", 4);
		buf_consume(&c->uin, h->head_len);
		free(h);
		return 1;
	}
	scrub = proxy_creds(c->px)->nscrub > 0 && h->framing != HTTP_BODY_NONE;
	if (scrub && forward_encoded(h)) {
		if (c->cguard) {
			free(h);
			c->u_keep = false;
			return forward_upstream_failed(c,
			    "the response is encoded although "
			    "identity was asked for, and may hold a masked credential");
		}
		scrub = false;
	}
	if (c->rscrub)
		cred_scrub_free(&c->rstream);
	c->rscrub = scrub;
	if (scrub)
		cred_scrub_init(&c->rstream, proxy_creds(c->px));
	c->rq->status = h->status;
	c->u_keep = h->keep_alive && h->framing != HTTP_BODY_CLOSE;
	c->resp_framing = h->framing;
	c->resp_left = h->content_length;
	memset(&c->resp_ch, 0, sizeof(c->resp_ch));
	c->resp_chunk_out = false;
	if (h->framing == HTTP_BODY_CHUNKED || h->framing == HTTP_BODY_CLOSE) {
		if (c->client_minor == 1)
			c->resp_chunk_out = true;
		else
			c->close_after = true; /* HTTP/1.0: the close ends the body */
	}
	close_client = c->close_after || !c->client_keep_alive || !c->req_done ||
	    proxy_draining(c->px);
	if (close_client)
		c->close_after = true;
	buf_add(&c->cout, "HTTP/1.1", 8);
	forward_out_scrubbed(
	    c, c->uin.p + c->uin.off + 8, (size_t)(line_end - (c->uin.p + c->uin.off)) - 8);
	buf_add(&c->cout, "\r\n", 2);
	for (i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_field_is_hop(h, f->name) || forward_stripped(c, f->name))
			continue;
		buf_add(&c->cout, f->name.p, f->name.n);
		buf_add(&c->cout, ": ", 2);
		/* The Content-Length frames the body (and holds no more than digits). */
		if (http_str_eq(f->name, "content-length"))
			buf_add(&c->cout, f->value.p, f->value.n);
		else
			forward_out_scrubbed(c, f->value.p, f->value.n);
		buf_add(&c->cout, "\r\n", 2);
	}
	if (c->resp_chunk_out)
		buf_add(&c->cout, "Transfer-Encoding: chunked\r\n", 28);
	if (close_client)
		buf_add(&c->cout, "Connection: close\r\n", 19);
	buf_add(&c->cout, "\r\n", 2);
	buf_consume(&c->uin, h->head_len);
	c->resp_head_done = true;
	c->resp_started = true;
	if (h->framing == HTTP_BODY_NONE)
		c->resp_done = true;
	free(h);
	return 1;
}

/* Move response body bytes from c->uin to c->cout. */
static int
forward_response_body(struct conn *c)
{
	struct chunk_sink sink = { &c->cout, c->resp_chunk_out, &c->rq->down, NULL,
		c->rscrub ? &c->rstream : NULL };
	size_t take;
	long used;

	if (c->resp_done || c->uin.len == 0)
		return 0;
	switch (c->resp_framing) {
	case HTTP_BODY_LENGTH:
		take = c->uin.len < c->resp_left ? c->uin.len : (size_t)c->resp_left;
		if (c->rscrub) {
			/* Scrubbed as it goes, the length kept: the Content-Length holds. */
			forward_chunk_out(&sink, c->uin.p + c->uin.off, take);
			buf_consume(&c->uin, take);
			c->resp_left -= take;
			c->resp_done = c->resp_left == 0;
			if (c->resp_done)
				forward_chunk_flush(&sink);
			break;
		}
		if (c->cout.len == 0 && take == c->uin.len) {
			/* All of it goes on as it is: the buffers change places rather
			 * than the bytes (a download's, read by the next recv into the
			 * other, empty one). */
			struct buf t = c->cout;

			c->cout = c->uin;
			c->uin = t;
			buf_reset(&c->uin);
		} else if (c->cout.len == 0 ||
		    c->cout.off + c->cout.len + take <= c->cout.cap) {
			buf_add(&c->cout, c->uin.p + c->uin.off, take);
			buf_consume(&c->uin, take);
		} else {
			/* Appending would first move what cout still holds to its start
			 * (buf_add), up to HTTPD_OUT_MAX bytes per chunk, which cost a
			 * terminated download a fifth of its time: wait until it is out,
			 * uin holding this one read meanwhile (forward_pump reads no
			 * more). */
			return 0;
		}
		c->rq->down += take;
		c->resp_left -= take;
		c->resp_done = c->resp_left == 0;
		break;
	case HTTP_BODY_CHUNKED:
		used = http_chunked_feed(
		    &c->resp_ch, c->uin.p + c->uin.off, c->uin.len, forward_chunk_out, &sink);
		if (used < 0)
			return forward_upstream_failed(c, "malformed chunked response body");
		buf_consume(&c->uin, (size_t)used);
		if (http_chunked_done(&c->resp_ch)) {
			forward_chunk_flush(&sink);
			if (c->resp_chunk_out)
				buf_add(&c->cout, "0\r\n\r\n", 5);
			c->resp_done = true;
		}
		break;
	case HTTP_BODY_CLOSE:
		forward_chunk_out(&sink, c->uin.p + c->uin.off, c->uin.len);
		buf_consume(&c->uin, c->uin.len);
		break;
	case HTTP_BODY_NONE:
		c->resp_done = true;
		break;
	}
	return 1;
}

int
forward_pump(struct conn *c)
{
	int progress = 0, r;
	ssize_t n;

	/* request: client -> upstream */
	if (c->uout.len > 0) {
		n = conn_send(c->ufd, c->utls, c->uout.p + c->uout.off, c->uout.len);
		if (n > 0) {
			buf_consume(&c->uout, (size_t)n);
			progress = 1;
		} else if (n == -1 && errno != EAGAIN && errno != EINTR) {
			if (forward_retry(c))
				return 1;
			/* The upstream may have answered and closed already: read on. */
			c->u_keep = false;
			buf_free(&c->uout);
			c->req_done = true;
			c->close_after = true;
		}
	}
	if (!c->req_done && c->uout.len < HTTPD_OUT_MAX) {
		if (c->in.len == 0) {
			r = conn_recv(c->cfd, c->ctls, &c->c_ready, c->c_eof, &c->in, 65536);
			if (r < 0) {
				proxy_request_set_reason(
				    c->rq, "client closed during the request", 32);
				conn_free(c, true);
				return -1;
			}
			progress |= r;
		}
		r = forward_request_body(c);
		if (r == 2)
			return 1; /* refused: the reply is queued */
		if (r == -1) {
			c->rq->verdict = VERDICT_DENY;
			proxy_request_set_reason(c->rq, "malformed chunked request body", 30);
			if (!c->resp_started) {
				conn_reply(c, 400, "Bad Request", NULL, NULL, false);
				return 1;
			}
			conn_free(c, true);
			return -1;
		}
	}
	/* response: upstream -> client */
	while (c->ufd != -1 && !c->resp_done && c->cout.len < HTTPD_OUT_MAX) {
		if (c->uin.len > 0) {
			r = c->resp_head_done ? forward_response_body(c)
					      : forward_response_head(c);
			if (c->st != CONN_FORWARD)
				return 1;
			if (r > 0) {
				progress = 1;
				continue;
			}
			/* A Content-Length body waiting for cout to empty
			 * (forward_response_body): nothing more is read meanwhile, so
			 * that an EOF behind it is not taken for a cut. */
			if (c->resp_head_done && c->resp_framing == HTTP_BODY_LENGTH)
				break;
			if (!c->resp_head_done && c->uin.len > HTTP_HEAD_MAX)
				return forward_upstream_failed(c, "response head too large");
		}
		r = conn_recv(c->ufd, c->utls, &c->u_ready, c->u_eof, &c->uin,
		    c->resp_head_done ? 65536 : HTTP_HEAD_MAX + 1 - c->uin.len);
		if (r == 0)
			break;
		if (r > 0) {
			c->u_rx = true;
			progress = 1;
			continue;
		}
		if (!c->resp_head_done)
			return forward_upstream_failed(c,
			    r == -1 ? "upstream closed before answering"
				    : "upstream connection failed");
		if (c->resp_framing == HTTP_BODY_CLOSE && r == -1) {
			struct chunk_sink sink = { &c->cout, c->resp_chunk_out, &c->rq->down,
				NULL, c->rscrub ? &c->rstream : NULL };

			forward_chunk_flush(&sink);
			if (c->resp_chunk_out)
				buf_add(&c->cout, "0\r\n\r\n", 5);
			c->resp_done = true;
			break;
		}
		return forward_upstream_failed(c, "upstream closed mid-response");
	}
	if (c->resp_done && c->st == CONN_FORWARD) {
		forward_finish(c);
		return 1;
	}
	return progress;
}
