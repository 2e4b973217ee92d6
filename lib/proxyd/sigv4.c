/* AWS Signature Version 4 re-signing (sigv4.h). */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sigv4.h"
#include "sys.h"
#include "util.h"

static bool
prefix(const char *s, size_t n, const char *p)
{
	size_t k = strlen(p);

	return n >= k && memcmp(s, p, k) == 0;
}

/* The value of the first query parameter named name (raw, not decoded), or NULL. */
static const char *
query_param(const char *q, size_t n, const char *name, size_t *vlen)
{
	size_t k = strlen(name), i = 0, j;

	while (i <= n) {
		for (j = i; j < n && q[j] != '&'; j++)
			;
		if (j - i > k && memcmp(q + i, name, k) == 0 && q[i + k] == '=') {
			*vlen = j - i - k - 1;
			return q + i + k + 1;
		}
		if (j - i == k && memcmp(q + i, name, k) == 0) {
			*vlen = 0;
			return q + j;
		}
		i = j + 1;
	}
	return NULL;
}

static int
hexv(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = (char)(c | 0x20);
	return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* decodeURIComponent, leaving the text as it is when it is not well-formed. */
static void
pct_decode(const char *s, size_t n, struct buf *out)
{
	struct buf b = { 0 };
	size_t i;
	int h, l;

	for (i = 0; i < n; i++) {
		if (s[i] == '%') {
			if (i + 2 >= n || (h = hexv(s[i + 1])) < 0 || (l = hexv(s[i + 2])) < 0)
				goto raw;
			buf_addc(&b, (char)(h << 4 | l));
			i += 2;
		} else
			buf_addc(&b, s[i]);
	}
	buf_add(out, b.p + b.off, b.len);
	buf_free(&b);
	return;
raw:
	buf_free(&b);
	buf_add(out, s, n);
}

static void
uri_encode(const char *s, size_t n, bool keep_slash, struct buf *out)
{
	static const char hx[] = "0123456789ABCDEF";
	unsigned char c;
	size_t i;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~' ||
		    (keep_slash && c == '/'))
			buf_addc(out, (char)c);
		else {
			buf_addc(out, '%');
			buf_addc(out, hx[c >> 4]);
			buf_addc(out, hx[c & 15]);
		}
	}
}

enum sigv4_kind
sigv4_detect(const char *auth, size_t alen, const char *content_sha, size_t clen,
    const char *target, size_t tlen, char **akid)
{
	struct sigv4_auth a;
	const char *q, *v;
	size_t vlen, i;
	struct buf b = { 0 };

	*akid = NULL;
	if (auth != NULL && prefix(auth, alen, SIGV4A_ALGORITHM)) {
		const char *c = memmem(auth, alen, "Credential=", 11);

		if (c != NULL) {
			c += 11;
			for (i = 0;
			     c + i < auth + alen && c[i] != '/' && c[i] != ',' && c[i] != ' ';
			     i++)
				;
			if (i > 0 && c + i < auth + alen && c[i] == '/') {
				*akid = xstrndup(c, i);
				return SIGV4_SIGV4A;
			}
		}
	} else if (auth != NULL && prefix(auth, alen, SIGV4_ALGORITHM) &&
	    sigv4_parse_auth(auth, alen, &a) == 0) {
		*akid = a.akid;
		a.akid = NULL;
		sigv4_auth_free(&a);
		return content_sha != NULL && prefix(content_sha, clen, "STREAMING-")
		    ? SIGV4_STREAMING
		    : SIGV4_HEADER;
	}
	if ((q = memchr(target, '?', tlen)) == NULL)
		return SIGV4_NONE;
	q++;
	tlen -= (size_t)(q - target);
	if ((v = query_param(q, tlen, "X-Amz-Algorithm", &vlen)) == NULL)
		return SIGV4_NONE;
	pct_decode(v, vlen, &b);
	if (strcmp(buf_str(&b), SIGV4_ALGORITHM) != 0 ||
	    query_param(q, tlen, "X-Amz-Signature", &vlen) == NULL ||
	    (v = query_param(q, tlen, "X-Amz-Credential", &vlen)) == NULL) {
		buf_free(&b);
		return SIGV4_NONE;
	}
	buf_reset(&b);
	pct_decode(v, vlen, &b);
	v = buf_str(&b);
	if (strchr(v, '/') == NULL || v[0] == '/') {
		buf_free(&b);
		return SIGV4_NONE;
	}
	*akid = xstrndup(v, (size_t)(strchr(v, '/') - v));
	buf_free(&b);
	return SIGV4_PRESIGNED;
}

void
sigv4_auth_free(struct sigv4_auth *a)
{
	size_t i;

	free(a->akid);
	free(a->date);
	free(a->region);
	free(a->service);
	for (i = 0; i < a->nsigned; i++)
		free(a->signed_names[i]);
	memset(a, 0, sizeof(*a));
}

/* "AWS4-HMAC-SHA256 Credential=AKID/DATE/REGION/SERVICE/aws4_request,
 * SignedHeaders=a;b, Signature=hex", the parts in any order, ", " or "," between. */
int
sigv4_parse_auth(const char *auth, size_t alen, struct sigv4_auth *out)
{
	const size_t al = sizeof(SIGV4_ALGORITHM) - 1;
	const char *p = auth + al, *end = auth + alen, *e, *s;
	char *cred = NULL, *names = NULL, *parts[5], *tok, *save;
	bool sig = false;
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	if (!prefix(auth, alen, SIGV4_ALGORITHM) || alen == al || auth[al] != ' ')
		return -1;
	while (p < end) {
		while (p < end && (*p == ' ' || *p == ','))
			p++;
		if (p == end)
			break;
		for (e = p; e < end && *e != ','; e++)
			;
		for (s = e; s > p && s[-1] == ' '; s--)
			;
		if (prefix(p, (size_t)(s - p), "Credential=") && cred == NULL)
			cred = xstrndup(p + 11, (size_t)(s - p) - 11);
		else if (prefix(p, (size_t)(s - p), "SignedHeaders=") && names == NULL)
			names = xstrndup(p + 14, (size_t)(s - p) - 14);
		else if (prefix(p, (size_t)(s - p), "Signature="))
			sig = true;
		else
			goto fail;
		p = e;
	}
	if (cred == NULL || names == NULL || !sig)
		goto fail;
	for (tok = strtok_r(cred, "/", &save); tok != NULL; tok = strtok_r(NULL, "/", &save)) {
		if (n == 5)
			goto fail;
		parts[n++] = tok;
	}
	if (n != 5 || strcmp(parts[4], "aws4_request") != 0 || cred[0] == '/')
		goto fail;
	out->akid = xstrdup(parts[0]);
	out->date = xstrdup(parts[1]);
	out->region = xstrdup(parts[2]);
	out->service = xstrdup(parts[3]);
	for (tok = strtok_r(names, ";", &save); tok != NULL; tok = strtok_r(NULL, ";", &save)) {
		if (out->nsigned == SIGV4_FIELD_MAX)
			goto fail;
		for (s = tok; *s != '\0'; s++)
			*(char *)(uintptr_t)s = (char)((*s >= 'A' && *s <= 'Z') ? *s + 32 : *s);
		out->signed_names[out->nsigned++] = xstrdup(tok);
	}
	if (out->nsigned == 0)
		goto fail;
	free(cred);
	free(names);
	return 0;
fail:
	free(cred);
	free(names);
	sigv4_auth_free(out);
	return -1;
}

void
sigv4_canonical_uri(const char *path, size_t n, const char *service, struct buf *out)
{
	struct buf norm = { 0 };
	size_t i, j, *segs = NULL, nseg = 0, k;
	bool trailing;

	if (n == 0) {
		buf_addc(out, '/');
		return;
	}
	if (strcmp(service, "s3") == 0) {
		buf_add(out, path, n);
		return;
	}
	/* Every other service normalises the path and encodes it again. */
	segs = xcalloc(n + 1, 2 * sizeof(*segs));
	for (i = 0; i <= n; i = j + 1) {
		for (j = i; j < n && path[j] != '/'; j++)
			;
		if (j == i || (j - i == 1 && path[i] == '.'))
			continue;
		if (j - i == 2 && path[i] == '.' && path[i + 1] == '.') {
			if (nseg > 0)
				nseg--;
			continue;
		}
		segs[2 * nseg] = i;
		segs[2 * nseg + 1] = j;
		nseg++;
	}
	trailing = nseg > 0 && path[n - 1] == '/';
	for (k = 0; k < nseg; k++) {
		buf_addc(&norm, '/');
		buf_add(&norm, path + segs[2 * k], segs[2 * k + 1] - segs[2 * k]);
	}
	if (nseg == 0 || trailing)
		buf_addc(&norm, '/');
	uri_encode(norm.p + norm.off, norm.len, true, out);
	buf_free(&norm);
	free(segs);
}

struct qpair {
	char *k, *v;
};

static int
qpair_cmp(const void *a, const void *b)
{
	const struct qpair *x = a, *y = b;
	int c = strcmp(x->k, y->k);

	return c != 0 ? c : strcmp(x->v, y->v);
}

void
sigv4_canonical_query(const char *q, size_t n, struct buf *out)
{
	struct qpair *v = NULL;
	size_t nv = 0, i = 0, j, eq, k;
	struct buf t = { 0 }, e = { 0 };

	while (i < n) {
		for (j = i; j < n && q[j] != '&'; j++)
			;
		if (j > i) {
			for (eq = i; eq < j && q[eq] != '='; eq++)
				;
			v = xreallocarray(v, nv + 1, sizeof(*v));
			buf_reset(&t), buf_reset(&e);
			pct_decode(q + i, eq - i, &t);
			uri_encode(t.p + t.off, t.len, false, &e);
			v[nv].k = xstrndup(e.p + e.off, e.len);
			buf_reset(&t), buf_reset(&e);
			if (eq < j)
				pct_decode(q + eq + 1, j - eq - 1, &t);
			uri_encode(t.p + t.off, t.len, false, &e);
			v[nv].v = xstrndup(e.p + e.off, e.len);
			nv++;
		}
		i = j + 1;
	}
	qsort(v, nv, sizeof(*v), qpair_cmp);
	for (k = 0; k < nv; k++) {
		buf_addf(out, "%s%s=%s", k ? "&" : "", v[k].k, v[k].v);
		free(v[k].k);
		free(v[k].v);
	}
	free(v);
	buf_free(&t);
	buf_free(&e);
}

/* trimall: no blanks at the ends, runs of blanks as one space. */
static void
trimall(const char *s, size_t n, struct buf *out)
{
	size_t i;
	bool sp = false;

	while (n > 0 && (*s == ' ' || *s == '\t'))
		s++, n--;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	for (i = 0; i < n; i++) {
		if (s[i] == ' ' || s[i] == '\t') {
			sp = true;
			continue;
		}
		if (sp)
			buf_addc(out, ' ');
		sp = false;
		buf_addc(out, s[i]);
	}
}

static int
name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *
sigv4_sign(const struct sigv4_sign_in *in, struct buf *creq)
{
	struct buf cr = { 0 }, sts = { 0 }, out = { 0 };
	uint8_t k[SHA256_LEN], h[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *key, **names;
	const char *qm = memchr(in->target, '?', in->tlen);
	size_t plen = qm != NULL ? (size_t)(qm - in->target) : in->tlen, i, f, hits;

	names = xcalloc(in->nsigned + 1, sizeof(*names));
	for (i = 0; i < in->nsigned; i++)
		names[i] = in->signed_names[i];
	qsort(names, in->nsigned, sizeof(*names), name_cmp);
	for (char *m = (char *)(uintptr_t)in->method; *m != '\0'; m++)
		buf_addc(&cr, (char)((*m >= 'a' && *m <= 'z') ? *m - 32 : *m));
	buf_addc(&cr, '\n');
	sigv4_canonical_uri(in->target, plen, in->service, &cr);
	buf_addc(&cr, '\n');
	if (qm != NULL)
		sigv4_canonical_query(qm + 1, in->tlen - plen - 1, &cr);
	buf_addc(&cr, '\n');
	for (i = 0; i < in->nsigned; i++) {
		buf_addf(&cr, "%s:", names[i]);
		if (strcmp(names[i], "host") == 0) {
			trimall(in->host, strlen(in->host), &cr);
			buf_addc(&cr, '\n');
			continue;
		}
		for (f = 0, hits = 0; f < in->nfields; f++) {
			if (in->fields[f].nlen != strlen(names[i]) ||
			    strncasecmp(in->fields[f].name, names[i], in->fields[f].nlen) != 0)
				continue;
			if (hits++ > 0)
				buf_addc(&cr, ',');
			trimall(in->fields[f].value, in->fields[f].vlen, &cr);
		}
		if (hits == 0)
			goto fail;
		buf_addc(&cr, '\n');
	}
	buf_addc(&cr, '\n');
	for (i = 0; i < in->nsigned; i++)
		buf_addf(&cr, "%s%s", i ? ";" : "", names[i]);
	buf_addf(&cr, "\n%s", in->payload_hash);

	sha256(cr.p + cr.off, cr.len, h);
	hex_lower(h, SHA256_LEN, hex);
	buf_addf(&sts, SIGV4_ALGORITHM "\n%s\n%s/%s/%s/aws4_request\n%s", in->amz_date,
	    in->date, in->region, in->service, hex);
	key = xmalloc(in->secret_len + 5);
	memcpy(key, "AWS4", 4);
	memcpy(key + 4, in->secret, in->secret_len);
	hmac_sha256(key, in->secret_len + 4, in->date, strlen(in->date), k);
	explicit_bzero(key, in->secret_len + 4);
	free(key);
	hmac_sha256(k, SHA256_LEN, in->region, strlen(in->region), k);
	hmac_sha256(k, SHA256_LEN, in->service, strlen(in->service), k);
	hmac_sha256(k, SHA256_LEN, "aws4_request", 12, k);
	hmac_sha256(k, SHA256_LEN, sts.p + sts.off, sts.len, h);
	explicit_bzero(k, sizeof(k));
	hex_lower(h, SHA256_LEN, hex);
	buf_addf(&out,
	    SIGV4_ALGORITHM " Credential=%s/%s/%s/%s/aws4_request, SignedHeaders=", in->akid,
	    in->date, in->region, in->service);
	for (i = 0; i < in->nsigned; i++)
		buf_addf(&out, "%s%s", i ? ";" : "", names[i]);
	buf_addf(&out, ", Signature=%s", hex);
	if (creq != NULL)
		buf_add(creq, cr.p + cr.off, cr.len);
	buf_free(&cr);
	buf_free(&sts);
	free(names);
	return buf_steal(&out);
fail:
	buf_free(&cr);
	free(names);
	return NULL;
}
