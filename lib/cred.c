/* Credential masking: the store, sentinels and substitution (cred.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <sys/random.h>
#endif

#include "cred.h"
#include "sys.h"
#include "util.h"

#define CRED_MAGIC      "SRTCRED1"
#define CRED_INJECT_MAX 4096

static int
cred_random(void *p, size_t n)
{
	uint8_t *b = p;
	ssize_t r;

	while (n > 0) {
		r = getrandom(b, n, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		b += r, n -= (size_t)r;
	}
	return 0;
}

int
cred_sentinel_make(size_t real_len, char **out)
{
	static const char alpha[] = "abcdefghijklmnopqrstuvwxyz0123456789_-";
	static const char hx[] = "0123456789abcdef";
	uint8_t u[16], *pad = NULL;
	size_t len = real_len > CRED_SENTINEL_BASE ? real_len : CRED_SENTINEL_BASE, i, o;
	char *s;

	*out = NULL;
	if (cred_random(u, sizeof(u)) == -1)
		return -1;
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40);         /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80);         /* RFC 4122 variant */
	s = xmalloc(len + 1);
	memcpy(s, CRED_SENTINEL_PREFIX, sizeof(CRED_SENTINEL_PREFIX) - 1);
	o = sizeof(CRED_SENTINEL_PREFIX) - 1;
	for (i = 0; i < 16; i++) {
		if (i == 4 || i == 6 || i == 8 || i == 10)
			s[o++] = '-';
		s[o++] = hx[u[i] >> 4];
		s[o++] = hx[u[i] & 15];
	}
	if (len > o) {
		pad = xmalloc(len - o);
		if (cred_random(pad, len - o) == -1) {
			free(pad);
			free(s);
			return -1;
		}
		/* The padding carries no secret (the UUID does): a modulo bias is harmless. */
		for (i = 0; o < len; i++)
			s[o++] = alpha[pad[i] % (sizeof(alpha) - 1)];
		free(pad);
	}
	s[len] = '\0';
	*out = s;
	return 0;
}

long
cred_store_add(struct cred_store *st, const char *name, const char *sentinel, size_t slen,
    const char *real, size_t rlen, const char *const *inject, size_t ninject,
    const char **why)
{
	struct cred_secret *c;
	size_t i;

	if (st->n >= CRED_MAX) {
		*why = "too many masked values";
		return -1;
	}
	if (slen == 0 || slen > CRED_VALUE_MAX || rlen > CRED_VALUE_MAX) {
		*why = "a masked value or its sentinel is empty or too long";
		return -1;
	}
	if (memchr(sentinel, '\0', slen) != NULL) {
		*why = "a sentinel holds a NUL byte";
		return -1;
	}
	if (ninject > CRED_INJECT_MAX) {
		*why = "too many injectHosts";
		return -1;
	}
	st->v = xreallocarray(st->v, st->n + 1, sizeof(*st->v));
	c = &st->v[st->n];
	memset(c, 0, sizeof(*c));
	c->inject = ninject > 0 ? xcalloc(ninject, sizeof(*c->inject)) : NULL;
	for (i = 0; i < ninject; i++) {
		if (dom_entry_parse(inject[i], 0, &c->inject[i], why) == -1) {
			while (i-- > 0)
				dom_rule_clear(&c->inject[i]);
			free(c->inject);
			return -1;
		}
	}
	c->ninject = ninject;
	c->name = xstrdup(name);
	c->sentinel = xstrndup(sentinel, slen);
	c->slen = slen;
	c->real = xmalloc(rlen + 1);
	memcpy(c->real, real, rlen);
	c->real[rlen] = '\0';
	c->rlen = rlen;
	if (slen > st->maxlen)
		st->maxlen = slen;
	return (long)st->n++;
}

static void
cred_secret_clear(struct cred_secret *c)
{
	size_t i;

	if (c->real != NULL)
		explicit_bzero(c->real, c->rlen);
	free(c->real);
	free(c->sentinel);
	free(c->name);
	for (i = 0; i < c->ninject; i++)
		dom_rule_clear(&c->inject[i]);
	free(c->inject);
	memset(c, 0, sizeof(*c));
}

void
cred_store_wipe(struct cred_store *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		if (st->v[i].real != NULL)
			explicit_bzero(st->v[i].real, st->v[i].rlen);
}

void
cred_store_free(struct cred_store *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		cred_secret_clear(&st->v[i]);
	free(st->v);
	free(st->aws);
	memset(st, 0, sizeof(*st));
}

bool
cred_injectable(const struct cred_secret *c, const char *host, enum host_kind kind,
    uint16_t port)
{
	size_t i;

	for (i = 0; i < c->ninject; i++)
		if (dom_rule_matches(&c->inject[i], host, kind, port))
			return true;
	return false;
}

const struct cred_secret **
cred_for_host(const struct cred_store *st, const char *host, uint16_t port, size_t *n)
{
	const struct cred_secret **set = NULL;
	char canon[DOM_HOST_MAX + 1];
	enum host_kind kind;
	size_t i;

	*n = 0;
	if (st == NULL || st->n == 0)
		return NULL;
	kind = host_canonicalise(host, strlen(host), canon);
	if (kind == HOST_MALFORMED)
		return NULL;
	for (i = 0; i < st->n; i++) {
		if (!cred_injectable(&st->v[i], canon, kind, port))
			continue;
		if (set == NULL)
			set = xcalloc(st->n, sizeof(*set));
		set[(*n)++] = &st->v[i];
	}
	return set;
}

bool
cred_length_changes(const struct cred_secret *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i]->slen != set[i]->rlen)
			return true;
	return false;
}

/*
 * The earliest sentinel of the set in p[0..len): its offset, and its index in *which;
 * len when there is none. Every sentinel starts with the same prefix, so a memmem for
 * it finds each candidate position once.
 */
static size_t
cred_find(const struct cred_secret *const *set, size_t n, const char *p, size_t len,
    size_t *which)
{
	const size_t plen = sizeof(CRED_SENTINEL_PREFIX) - 1;
	const char *q = p, *hit;
	size_t i, at;

	for (;;) {
		hit = memmem(q, len - (size_t)(q - p), CRED_SENTINEL_PREFIX, plen);
		if (hit == NULL)
			break;
		at = (size_t)(hit - p);
		for (i = 0; i < n; i++)
			if (set[i]->slen <= len - at &&
			    memcmp(hit, set[i]->sentinel, set[i]->slen) == 0) {
				*which = i;
				return at;
			}
		q = hit + 1;
	}
	/* A sentinel minted by a caller (a fake JWT) need not start with the prefix. */
	for (i = 0; i < n; i++) {
		if (strncmp(set[i]->sentinel, CRED_SENTINEL_PREFIX, plen) == 0)
			continue;
		hit = memmem(p, len, set[i]->sentinel, set[i]->slen);
		if (hit != NULL && (size_t)(hit - p) < len) {
			len = (size_t)(hit - p);
			*which = i;
		}
	}
	return len;
}

size_t
cred_subst(const struct cred_secret *const *set, size_t n, const char *p, size_t len,
    struct buf *out)
{
	size_t at, which = 0, count = 0;

	while (len > 0 && n > 0) {
		which = n;
		at = cred_find(set, n, p, len, &which);
		if (which == n || at >= len)
			break;
		buf_add(out, p, at);
		buf_add(out, set[which]->real, set[which]->rlen);
		p += at + set[which]->slen;
		len -= at + set[which]->slen;
		count++;
	}
	buf_add(out, p, len);
	return count;
}

void
cred_stream_init(struct cred_stream *s, const struct cred_secret *const *set, size_t n)
{
	size_t i;

	memset(s, 0, sizeof(*s));
	s->set = set;
	s->n = n;
	for (i = 0; i < n; i++)
		if (set[i]->slen > s->maxlen)
			s->maxlen = set[i]->slen;
}

/*
 * Everything but the last maxlen - 1 bytes is settled: a sentinel starting there would
 * have to end past what we hold. Replacements never re-enter the scan (a real value that
 * happens to contain a sentinel is sent as it is).
 */
void
cred_stream_feed(struct cred_stream *s, const char *p, size_t len, struct buf *out)
{
	size_t at, which, keep, done = 0;
	const char *h;
	size_t hl;

	if (s->n == 0) {
		buf_add(out, p, len);
		return;
	}
	buf_add(&s->hold, p, len);
	h = s->hold.p + s->hold.off;
	hl = s->hold.len;
	keep = s->maxlen - 1;
	while (done < hl) {
		which = s->n;
		at = cred_find(s->set, s->n, h + done, hl - done, &which);
		if (which == s->n)
			break;
		buf_add(out, h + done, at);
		buf_add(out, s->set[which]->real, s->set[which]->rlen);
		done += at + s->set[which]->slen;
		s->count++;
	}
	/* No whole sentinel in what is left: pass on all but a possible start of one. */
	if (hl - done > keep) {
		buf_add(out, h + done, hl - done - keep);
		done = hl - keep;
	}
	buf_consume(&s->hold, done);
}

void
cred_stream_end(struct cred_stream *s, struct buf *out)
{
	if (s->hold.len > 0)
		s->count += cred_subst(s->set, s->n, s->hold.p + s->hold.off, s->hold.len, out);
	buf_reset(&s->hold);
}

void
cred_stream_free(struct cred_stream *s)
{
	buf_free(&s->hold);
}

/* ---- the pipe to srt-httpd --------------------------------------------------------- */

static void
enc_str(struct buf *b, const char *p, size_t n)
{
	buf_u32le(b, (uint32_t)n);
	buf_add(b, p, n);
}

void
cred_store_encode(const struct cred_store *st, struct buf *out)
{
	size_t i, k;

	buf_add(out, CRED_MAGIC, sizeof(CRED_MAGIC) - 1);
	buf_u8(out, st->plaintext);
	buf_u8(out, (uint8_t)st->streaming);
	buf_u8(out, (uint8_t)st->presigned);
	buf_u8(out, (uint8_t)st->sigv4a);
	buf_u32le(out, (uint32_t)st->n);
	for (i = 0; i < st->n; i++) {
		const struct cred_secret *c = &st->v[i];

		enc_str(out, c->name, strlen(c->name));
		enc_str(out, c->sentinel, c->slen);
		enc_str(out, c->real, c->rlen);
		buf_u32le(out, (uint32_t)c->ninject);
		for (k = 0; k < c->ninject; k++)
			enc_str(out, c->inject[k].spelled, strlen(c->inject[k].spelled));
	}
	buf_u32le(out, (uint32_t)st->naws);
	for (i = 0; i < st->naws; i++) {
		buf_u32le(out, (uint32_t)st->aws[i].key_id);
		buf_u32le(out, (uint32_t)st->aws[i].secret);
		buf_u32le(out, st->aws[i].token < 0 ? UINT32_MAX : (uint32_t)st->aws[i].token);
	}
}

struct rd {
	const uint8_t *p;
	size_t len, off;
};

static int
rd_u32(struct rd *r, uint32_t *v)
{
	if (r->len - r->off < 4)
		return -1;
	*v = (uint32_t)r->p[r->off] | (uint32_t)r->p[r->off + 1] << 8 |
	    (uint32_t)r->p[r->off + 2] << 16 | (uint32_t)r->p[r->off + 3] << 24;
	r->off += 4;
	return 0;
}

static int
rd_str(struct rd *r, const char **s, size_t *n)
{
	uint32_t v;

	if (rd_u32(r, &v) == -1 || v > CRED_VALUE_MAX || r->len - r->off < v)
		return -1;
	*s = (const char *)r->p + r->off;
	*n = v;
	r->off += v;
	return 0;
}

int
cred_store_decode(const char *p, size_t len, struct cred_store *st, const char **why)
{
	struct rd r = { (const uint8_t *)p, len, 0 };
	const char *name, *sen, *real, *s;
	char **inject = NULL;
	size_t nl, sl, rl, l, k, ni = 0;
	uint32_t n, i, v, a, b, t;
	uint8_t pol[4];

	memset(st, 0, sizeof(*st));
	*why = "truncated";
	if (len < sizeof(CRED_MAGIC) - 1 + 4 ||
	    memcmp(p, CRED_MAGIC, sizeof(CRED_MAGIC) - 1) != 0) {
		*why = "not a credential store";
		return -1;
	}
	r.off = sizeof(CRED_MAGIC) - 1;
	memcpy(pol, r.p + r.off, 4);
	r.off += 4;
	if (pol[0] > 1 || pol[1] > 1 || pol[2] > 1 || pol[3] > 1) {
		*why = "bad option byte";
		return -1;
	}
	st->plaintext = pol[0];
	st->streaming = pol[1], st->presigned = pol[2], st->sigv4a = pol[3];
	if (rd_u32(&r, &n) == -1)
		goto fail;
	if (n > CRED_MAX) {
		*why = "too many masked values";
		goto fail;
	}
	for (i = 0; i < n; i++) {
		if (rd_str(&r, &name, &nl) == -1 || rd_str(&r, &sen, &sl) == -1 ||
		    rd_str(&r, &real, &rl) == -1 || rd_u32(&r, &v) == -1)
			goto fail;
		if (v > CRED_INJECT_MAX) {
			*why = "too many injectHosts";
			goto fail;
		}
		inject = xcalloc(v + 1, sizeof(*inject));
		for (ni = 0; ni < v; ni++) {
			if (rd_str(&r, &s, &l) == -1 || l > DOM_HOST_MAX + 8)
				goto fail;
			inject[ni] = xstrndup(s, l);
		}
		{
			char *nm = xstrndup(name, nl);
			long rc = cred_store_add(st, nm, sen, sl, real, rl,
			    (const char *const *)inject, ni, why);

			free(nm);
			if (rc == -1)
				goto fail;
		}
		for (k = 0; k < ni; k++)
			free(inject[k]);
		free(inject);
		inject = NULL;
	}
	if (rd_u32(&r, &n) == -1)
		goto fail;
	if (n > st->n) {
		*why = "more AWS pairs than values";
		goto fail;
	}
	st->aws = n > 0 ? xcalloc(n, sizeof(*st->aws)) : NULL;
	for (i = 0; i < n; i++) {
		if (rd_u32(&r, &a) == -1 || rd_u32(&r, &b) == -1 || rd_u32(&r, &t) == -1)
			goto fail;
		if (a >= st->n || b >= st->n || (t != UINT32_MAX && t >= st->n)) {
			*why = "an AWS pair names no value";
			goto fail;
		}
		st->aws[i].key_id = a;
		st->aws[i].secret = b;
		st->aws[i].token = t == UINT32_MAX ? -1 : (long)t;
		st->naws = i + 1;
	}
	if (r.off != r.len) {
		*why = "trailing bytes";
		goto fail;
	}
	return 0;
 fail:
	if (inject != NULL) {
		for (k = 0; k < ni; k++)
			free(inject[k]);
		free(inject);
	}
	cred_store_free(st);
	return -1;
}
