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

#define CRED_MAGIC "SRTCRED2"
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
	u[6] = (uint8_t)((u[6] & 0x0f) | 0x40); /* version 4 */
	u[8] = (uint8_t)((u[8] & 0x3f) | 0x80); /* RFC 4122 variant */
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
    const char *real, size_t rlen, const char *const *inject, size_t ninject, const char **why)
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

/* A body field's name: no byte that could end or escape it in a form or in JSON. */
static bool
cred_field_ok(const char *f)
{
	size_t n = strlen(f);

	return n > 0 && n <= CRED_FIELD_MAX &&
	    strspn(f,
		"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		"abcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

int
cred_store_fields(
    struct cred_store *st, size_t i, const char *const *fields, size_t n, const char **why)
{
	struct cred_secret *c = &st->v[i];
	size_t k;

	if (n > CRED_FIELDS_MAX) {
		*why = "too many injectBodyFields";
		return -1;
	}
	for (k = 0; k < n; k++)
		if (!cred_field_ok(fields[k])) {
			*why = "an injectBodyFields name is empty, too long or holds a byte "
			       "outside [A-Za-z0-9_.-]";
			return -1;
		}
	c->fields = n > 0 ? xcalloc(n, sizeof(*c->fields)) : NULL;
	for (k = 0; k < n; k++)
		c->fields[k] = xstrdup(fields[k]);
	c->nfields = n;
	return 0;
}

static void
cred_secret_clear(struct cred_secret *c)
{
	size_t i;

	for (i = 0; i < c->nfields; i++)
		free(c->fields[i]);
	free(c->fields);

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
	for (i = 0; i < st->nscrub; i++)
		explicit_bzero(st->scrub[i].p, st->scrub[i].n);
}

void
cred_store_free(struct cred_store *st)
{
	size_t i;

	for (i = 0; i < st->n; i++)
		cred_secret_clear(&st->v[i]);
	for (i = 0; i < st->nscrub; i++) {
		explicit_bzero(st->scrub[i].p, st->scrub[i].n);
		free(st->scrub[i].p);
		free(st->scrub[i].repl);
	}
	free(st->scrub);
	free(st->v);
	free(st->aws);
	memset(st, 0, sizeof(*st));
}

bool
cred_injectable(
    const struct cred_secret *c, const char *host, enum host_kind kind, uint16_t port)
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

bool
cred_body_length_changes(const struct cred_secret *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i]->nfields > 0 && set[i]->slen != set[i]->rlen)
			return true;
	return false;
}

bool
cred_body_any(const struct cred_secret *const *set, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (set[i]->nfields > 0)
			return true;
	return false;
}

/*
 * The earliest sentinel of the set in p[0..len): its offset, and its index in *which;
 * len when there is none. Every sentinel starts with the same prefix, so a memmem for
 * it finds each candidate position once.
 */
static size_t
cred_find(
    const struct cred_secret *const *set, size_t n, const char *p, size_t len, size_t *which)
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
cred_subst(
    const struct cred_secret *const *set, size_t n, const char *p, size_t len, struct buf *out)
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
	s->start = true;
	for (i = 0; i < n; i++)
		if (set[i]->slen > s->maxlen)
			s->maxlen = set[i]->slen;
}

void
cred_stream_init_body(struct cred_stream *s, const struct cred_secret *const *set, size_t n)
{
	cred_stream_init(s, set, n);
	s->body = true;
	s->syntax = CRED_BODY_FORM | CRED_BODY_JSON;
}

static bool
cred_blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\n';
}

/*
 * Is h[at] the start of a value of one of c's body fields, judged by the bytes before it
 * (h[0..at), h[0] the stream's first byte when start)? A form field: NAME= at the start
 * or after "&". A JSON member: "NAME", blanks, a colon, blanks, and the opening quote
 * (not escaped). Anything else, or more blanks than the bytes kept, is no.
 */
static bool
cred_field_before(
    const struct cred_secret *c, const char *h, size_t at, bool start, unsigned syntax)
{
	size_t k, fl, i;

	for (k = 0; k < c->nfields; k++) {
		fl = strlen(c->fields[k]);
		if ((syntax & CRED_BODY_FORM) && at >= fl + 1 && h[at - 1] == '=' &&
		    memcmp(h + at - 1 - fl, c->fields[k], fl) == 0 &&
		    ((at - 1 - fl == 0 && start) || (at - 1 - fl > 0 && h[at - 2 - fl] == '&')))
			return true;
		if (!(syntax & CRED_BODY_JSON) || at < 2 || h[at - 1] != '"' ||
		    h[at - 2] == '\\')
			continue;
		for (i = at - 1; i > 0 && cred_blank(h[i - 1]); i--)
			;
		if (i == 0 || h[i - 1] != ':')
			continue;
		for (i--; i > 0 && cred_blank(h[i - 1]); i--)
			;
		/* The name's opening quote is not escaped (a key x\"t ends in "t but is
		 * another name), and a byte before it is seen to tell. */
		if (i >= fl + 3 && h[i - 1] == '"' && h[i - 2 - fl] == '"' &&
		    h[i - 3 - fl] != '\\' && memcmp(h + i - 1 - fl, c->fields[k], fl) == 0)
			return true;
	}
	return false;
}

/*
 * Everything but the last maxlen - 1 bytes is settled: a sentinel starting there would
 * have to end past what we hold. Replacements never re-enter the scan (a real value that
 * happens to contain a sentinel is sent as it is). A body stream passes over a sentinel
 * that is not a named field's value, and keeps CRED_CTX bytes of what it passed on.
 */
static void
cred_stream_scan(struct cred_stream *s, size_t keep, struct buf *out)
{
	size_t at, which, lo, done = s->past, emit = s->past;
	const char *h;
	size_t hl = s->hold.len;

	if (hl == 0)
		return;
	h = s->hold.p + s->hold.off;

	while (done < hl) {
		which = s->n;
		at = cred_find(s->set, s->n, h + done, hl - done, &which);
		if (which == s->n)
			break;
		at += done;
		/* The same CRED_CTX bytes before it however the stream was cut. */
		lo = at > CRED_CTX ? at - CRED_CTX : 0;
		if (s->body &&
		    !cred_field_before(
			s->set[which], h + lo, at - lo, s->start && lo == 0, s->syntax)) {
			done = at + 1;
			continue;
		}
		buf_add(out, h + emit, at - emit);
		buf_add(out, s->set[which]->real, s->set[which]->rlen);
		done = emit = at + s->set[which]->slen;
		s->count++;
	}
	/* No whole sentinel in what is left: pass on all but a possible start of one. */
	if (hl - emit > keep) {
		buf_add(out, h + emit, hl - emit - keep);
		emit = hl - keep;
	}
	s->past = emit;
	/* Keep what a body stream may look back at; nothing else of what went out. */
	if (s->past > (s->body ? CRED_CTX : 0)) {
		size_t drop = s->past - (s->body ? CRED_CTX : 0);

		buf_consume(&s->hold, drop);
		s->past -= drop;
		s->start = false;
	}
}

void
cred_stream_feed(struct cred_stream *s, const char *p, size_t len, struct buf *out)
{
	if (s->n == 0) {
		buf_add(out, p, len);
		return;
	}
	buf_add(&s->hold, p, len);
	cred_stream_scan(s, s->maxlen - 1, out);
}

void
cred_stream_end(struct cred_stream *s, struct buf *out)
{
	if (s->n > 0)
		cred_stream_scan(s, 0, out);
	buf_reset(&s->hold);
	s->past = 0;
}

void
cred_stream_free(struct cred_stream *s)
{
	if (s->hold.p != NULL)
		explicit_bzero(s->hold.p, s->hold.cap);
	buf_free(&s->hold);
}

size_t
cred_body_subst(
    const struct cred_secret *const *set, size_t n, const char *p, size_t len, struct buf *out)
{
	struct cred_stream s;
	size_t count;

	cred_stream_init_body(&s, set, n);
	cred_stream_feed(&s, p, len, out);
	cred_stream_end(&s, out);
	count = s.count;
	cred_stream_free(&s);
	return count;
}

/* ---- what comes back --------------------------------------------------------------- */

static void
cred_needle_add(struct cred_store *st, const char *p, size_t n, const char *repl, char fill)
{
	struct cred_needle *nd;
	size_t i;

	if (n < CRED_SCRUB_MIN)
		return;
	for (i = 0; i < st->nscrub; i++)
		if (st->scrub[i].n == n && memcmp(st->scrub[i].p, p, n) == 0)
			return;
	st->scrub = xreallocarray(st->scrub, st->nscrub + 1, sizeof(*st->scrub));
	nd = &st->scrub[st->nscrub++];
	nd->p = xmalloc(n);
	memcpy(nd->p, p, n);
	nd->n = n;
	nd->repl = xmalloc(n);
	/* repl (a sentinel) may be shorter than the form: never read past its end. */
	for (i = 0; i < n; i++) {
		if (repl != NULL && repl[i] == '\0')
			repl = NULL;
		nd->repl[i] = repl != NULL ? repl[i] : fill;
	}
	if (n > st->scrubmax)
		st->scrubmax = n;
}

/* The value's base64 inside any longer encoded text: at each alignment k, the characters
 * that depend on the value's bits alone. */
static void
cred_needles_b64(struct cred_store *st, const struct cred_secret *c)
{
	struct buf in = { 0 }, enc = { 0 };
	size_t k, from, to;

	for (k = 0; k < 3; k++) {
		buf_reset(&in);
		for (size_t z = 0; z < k; z++)
			buf_addc(&in, '\0');
		buf_add(&in, c->real, c->rlen);
		from = (8 * k + 5) / 6;
		to = 8 * (k + c->rlen) / 6;
		for (int a = 0; a < 2; a++) {
			buf_reset(&enc);
			buf_add_base64(&enc, in.p + in.off, in.len, a == 1, false);
			if (to > from && to <= enc.len)
				cred_needle_add(
				    st, enc.p + enc.off + from, to - from, NULL, 'A');
			explicit_bzero(enc.p, enc.cap);
		}
		explicit_bzero(in.p, in.cap);
	}
	buf_free(&in);
	buf_free(&enc);
}

void
cred_scrub_prepare(struct cred_store *st)
{
	static const char hx[] = "0123456789ABCDEF", hxl[] = "0123456789abcdef";
	struct buf b = { 0 };
	const char *colon;
	size_t i, k;

	for (i = 0; i < st->n; i++) {
		const struct cred_secret *c = &st->v[i];

		cred_needle_add(st, c->real, c->rlen, c->sentinel, '*');
		cred_needles_b64(st, c);
		/* Percent-encodings as common encoders give them: upper- or lowercase hex,
		 * with "/" (Python's quote), "!'()*" (encodeURIComponent) or both left
		 * as they are. */
		for (int form = 0; form < 8; form++) {
			const char *hex = form & 1 ? hxl : hx;

			buf_reset(&b);
			for (k = 0; k < c->rlen; k++) {
				unsigned char ch = (unsigned char)c->real[k];

				if (strchr("-._~", ch) != NULL || (ch >= '0' && ch <= '9') ||
				    ((ch | 0x20) >= 'a' && (ch | 0x20) <= 'z') ||
				    ((form & 2) && ch == '/') ||
				    ((form & 4) && ch != '\0' && strchr("!'()*", ch) != NULL))
					buf_addc(&b, (char)ch);
				else {
					buf_addc(&b, '%');
					buf_addc(&b, hex[ch >> 4]);
					buf_addc(&b, hex[ch & 15]);
				}
			}
			if (b.len != c->rlen)
				cred_needle_add(st, b.p + b.off, b.len, NULL, '*');
		}
		buf_reset(&b);
		/* A value that is wholly standard base64 (padded or not), decoded. */
		if (buf_add_unbase64(&b, c->real, c->rlen, false) == 0) {
			cred_needle_add(st, b.p + b.off, b.len, NULL, '*');
			colon = memchr(b.p + b.off, ':', b.len);
			if (colon != NULL)
				cred_needle_add(st, colon + 1,
				    b.len - (size_t)(colon + 1 - (b.p + b.off)), NULL, '*');
		}
		if (b.p != NULL)
			explicit_bzero(b.p, b.cap);
	}
	buf_free(&b);
}

/* The earliest needle in p[0..len) (the longest there): its offset, or len. */
static size_t
cred_scrub_find(const struct cred_store *st, const char *p, size_t len, size_t *which)
{
	size_t i, best = len, at;
	const char *hit;

	*which = st->nscrub;
	for (i = 0; i < st->nscrub; i++) {
		if (st->scrub[i].n > len)
			continue;
		hit = memmem(p, best + st->scrub[i].n <= len ? best + st->scrub[i].n : len,
		    st->scrub[i].p, st->scrub[i].n);
		if (hit == NULL)
			continue;
		at = (size_t)(hit - p);
		if (at < best || (at == best && st->scrub[i].n > st->scrub[*which].n)) {
			best = at;
			*which = i;
		}
	}
	return best;
}

/*
 * Where the bytes that might still become a form begin: the earliest i >= from whose
 * h[i..hl) is a proper prefix of some form (hl when none). Only that tail is held back,
 * so a response that pauses (server-sent events, a long poll) is not kept waiting
 * unless its last bytes could start a value.
 */
static size_t
cred_scrub_tail(const struct cred_store *st, const char *h, size_t from, size_t hl)
{
	size_t i, k, n;

	i = hl - from > st->scrubmax - 1 ? hl - (st->scrubmax - 1) : from;
	for (; i < hl; i++)
		for (k = 0; k < st->nscrub; k++) {
			n = st->scrub[k].n;
			if (hl - i < n && h[i] == st->scrub[k].p[0] &&
			    memcmp(h + i, st->scrub[k].p, hl - i) == 0)
				return i;
		}
	return hl;
}

/*
 * Replace what is whole in hold and pass it on, up to the tail that might still become
 * a form (all of it when final). A match is taken only before that tail: a form that
 * starts earlier, or a longer one at the same place, could still complete, and the
 * choice must not depend on where the stream was cut.
 */
static void
cred_scrub_scan(struct cred_scrub_stream *s, bool final, struct buf *out)
{
	const struct cred_store *st = s->st;
	const char *h;
	size_t hl = s->hold.len, done = 0, at, which, tail;

	if (hl == 0)
		return;
	h = s->hold.p + s->hold.off;
	tail = final ? hl : cred_scrub_tail(st, h, 0, hl);
	while (done < hl) {
		at = cred_scrub_find(st, h + done, hl - done, &which);
		if (which == st->nscrub || done + at >= tail)
			break;
		buf_add(out, h + done, at);
		buf_add(out, st->scrub[which].repl, st->scrub[which].n);
		done += at + st->scrub[which].n;
		s->count++;
		if (!final && done > tail)
			tail = cred_scrub_tail(st, h, done, hl);
	}
	if (tail > done) {
		buf_add(out, h + done, tail - done);
		done = tail;
	}
	if (done > 0)
		explicit_bzero(s->hold.p + s->hold.off, done);
	buf_consume(&s->hold, done);
}

void
cred_scrub_init(struct cred_scrub_stream *s, const struct cred_store *st)
{
	memset(s, 0, sizeof(*s));
	s->st = st;
}

void
cred_scrub_feed(struct cred_scrub_stream *s, const char *p, size_t len, struct buf *out)
{
	if (s->st == NULL || s->st->nscrub == 0) {
		buf_add(out, p, len);
		return;
	}
	buf_add(&s->hold, p, len);
	cred_scrub_scan(s, false, out);
}

void
cred_scrub_end(struct cred_scrub_stream *s, struct buf *out)
{
	if (s->hold.len > 0)
		cred_scrub_scan(s, true, out);
	buf_reset(&s->hold);
}

void
cred_scrub_free(struct cred_scrub_stream *s)
{
	if (s->hold.p != NULL)
		explicit_bzero(s->hold.p, s->hold.cap);
	buf_free(&s->hold);
}

size_t
cred_scrub(const struct cred_store *st, const char *p, size_t len, struct buf *out)
{
	struct cred_scrub_stream s;
	size_t count;

	cred_scrub_init(&s, st);
	cred_scrub_feed(&s, p, len, out);
	cred_scrub_end(&s, out);
	count = s.count;
	cred_scrub_free(&s);
	return count;
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
		buf_u32le(out, (uint32_t)c->nfields);
		for (k = 0; k < c->nfields; k++)
			enc_str(out, c->fields[k], strlen(c->fields[k]));
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

static void
strs_free(char **v, size_t n)
{
	size_t k;

	for (k = 0; k < n; k++)
		free(v[k]);
	free(v);
}

/* A counted list of at most max strings of at most maxlen bytes each; *why names the
 * list when it is too long. */
static int
rd_strs(struct rd *r, uint32_t max, size_t maxlen, const char *toomany, char ***vp, size_t *np,
    const char **why)
{
	const char *s;
	char **v;
	size_t n, l;
	uint32_t c;

	*vp = NULL;
	*np = 0;
	if (rd_u32(r, &c) == -1)
		return -1;
	if (c > max) {
		*why = toomany;
		return -1;
	}
	v = xcalloc(c + 1, sizeof(*v));
	for (n = 0; n < c; n++) {
		if (rd_str(r, &s, &l) == -1 || l > maxlen) {
			strs_free(v, n);
			return -1;
		}
		v[n] = xstrndup(s, l);
	}
	*vp = v;
	*np = n;
	return 0;
}

/* One masked value: name, sentinel, real value, injectHosts, injectBodyFields. */
static int
rd_value(struct rd *r, struct cred_store *st, const char **why)
{
	const char *name, *sen, *real;
	char **list, *nm;
	size_t nl, sl, rl, n;
	long rc;

	if (rd_str(r, &name, &nl) == -1 || rd_str(r, &sen, &sl) == -1 ||
	    rd_str(r, &real, &rl) == -1 ||
	    rd_strs(r, CRED_INJECT_MAX, DOM_HOST_MAX + 8, "too many injectHosts", &list, &n,
		why) == -1)
		return -1;
	nm = xstrndup(name, nl);
	rc = cred_store_add(st, nm, sen, sl, real, rl, (const char *const *)list, n, why);
	free(nm);
	strs_free(list, n);
	if (rc == -1 ||
	    rd_strs(r, CRED_FIELDS_MAX, CRED_FIELD_MAX, "too many injectBodyFields", &list, &n,
		why) == -1)
		return -1;
	rc = cred_store_fields(st, st->n - 1, (const char *const *)list, n, why);
	strs_free(list, n);
	return rc == -1 ? -1 : 0;
}

/* The AWS key pairs: three value numbers each (the token's may be none). */
static int
rd_aws(struct rd *r, struct cred_store *st, const char **why)
{
	uint32_t n, i, a, b, t;

	if (rd_u32(r, &n) == -1)
		return -1;
	if (n > st->n) {
		*why = "more AWS pairs than values";
		return -1;
	}
	st->aws = n > 0 ? xcalloc(n, sizeof(*st->aws)) : NULL;
	for (i = 0; i < n; i++) {
		if (rd_u32(r, &a) == -1 || rd_u32(r, &b) == -1 || rd_u32(r, &t) == -1)
			return -1;
		if (a >= st->n || b >= st->n || (t != UINT32_MAX && t >= st->n)) {
			*why = "an AWS pair names no value";
			return -1;
		}
		st->aws[i].key_id = a;
		st->aws[i].secret = b;
		st->aws[i].token = t == UINT32_MAX ? -1 : (long)t;
		st->naws = i + 1;
	}
	return 0;
}

int
cred_store_decode(const char *p, size_t len, struct cred_store *st, const char **why)
{
	struct rd r = { (const uint8_t *)p, len, 0 };
	uint32_t n, i;
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
	for (i = 0; i < n; i++)
		if (rd_value(&r, st, why) == -1)
			goto fail;
	if (rd_aws(&r, st, why) == -1)
		goto fail;
	if (r.off != r.len) {
		*why = "trailing bytes";
		goto fail;
	}
	return 0;
fail:
	cred_store_free(st);
	return -1;
}
