/* The growable byte buffer (buf.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "utf8.h"
#include "util.h"

#define BUF_MIN 256

/* Room for n more bytes. Data that sits behind consumed bytes moves to the front before
 * the buffer grows. */
static void
buf_room(struct buf *b, size_t n)
{
	size_t cap;

	if (b->off + b->len + n <= b->cap && b->cap != 0)
		return;
	if (b->off > 0) {
		memmove(b->p, b->p + b->off, b->len);
		b->off = 0;
		if (b->len + n <= b->cap)
			return;
	}
	if (n > SIZE_MAX / 2 - b->len)
		fatalx("out of memory");
	cap = b->cap ? b->cap : BUF_MIN;
	while (cap < b->len + n)
		cap *= 2;
	b->p = xreallocarray(b->p, cap, 1);
	b->cap = cap;
}

void
buf_add(struct buf *b, const void *d, size_t n)
{
	if (n == 0)
		return;
	buf_room(b, n);
	memcpy(b->p + b->off + b->len, d, n);
	b->len += n;
}

char *
buf_tail(struct buf *b, size_t n)
{
	buf_room(b, n);
	return b->p + b->off + b->len;
}

void
buf_grow(struct buf *b, size_t n)
{
	b->len += n;
}

void
buf_addc(struct buf *b, char c)
{
	buf_add(b, &c, 1);
}

void
buf_adds(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

void
buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n <= 0)
		return;
	/* vsnprintf writes a NUL after the text. */
	buf_room(b, (size_t)n + 1);
	vsnprintf(b->p + b->off + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
buf_addf(struct buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	buf_vaddf(b, fmt, ap);
	va_end(ap);
}

void
buf_u8(struct buf *b, uint8_t v)
{
	buf_add(b, &v, 1);
}

void
buf_u16le(struct buf *b, uint16_t v)
{
	uint8_t x[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	buf_add(b, x, 2);
}

void
buf_u32le(struct buf *b, uint32_t v)
{
	uint8_t x[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16),
		(uint8_t)(v >> 24) };

	buf_add(b, x, 4);
}

void
buf_u64le(struct buf *b, uint64_t v)
{
	buf_u32le(b, (uint32_t)v);
	buf_u32le(b, (uint32_t)(v >> 32));
}

void
buf_add_jstr(struct buf *b, const char *s, size_t len)
{
	/* The characters JSON escapes with a letter, and their letters. */
	static const char esc_from[] = "\"\\\b\f\n\r\t", esc_to[] = "\"\\bfnrt";
	const unsigned char *u = (const unsigned char *)s;
	const char *e;
	size_t i = 0, start, k;
	long cp;

	if (s == NULL) {
		buf_adds(b, "null");
		return;
	}
	buf_addc(b, '"');
	while (i < len) {
		/* The run of bytes that need nothing, copied at once. */
		for (start = i;
		     i < len && u[i] >= 0x20 && u[i] < 0x7f && u[i] != '"' && u[i] != '\\'; i++)
			;
		buf_add(b, s + start, i - start);
		if (i == len)
			break;
		if (u[i] != '\0' && (e = strchr(esc_from, u[i])) != NULL) {
			buf_addc(b, '\\');
			buf_addc(b, esc_to[e - esc_from]);
			i++;
		} else if (u[i] < 0x80) {
			buf_addf(b, "\\u%04x", u[i]);
			i++;
		} else {
			k = utf8_decode(u + i, len - i, &cp);
			if (cp == UTF8_BAD)
				buf_add(b, "\\ufffd", 6);
			else
				buf_add(b, s + i, k);
			i += k;
		}
	}
	buf_addc(b, '"');
}

void
buf_add_jstrs(struct buf *b, const char *s)
{
	buf_add_jstr(b, s, s != NULL ? strlen(s) : 0);
}

void
buf_add_jmember(struct buf *b, const char *before, const char *s)
{
	buf_adds(b, before);
	buf_add_jstrs(b, s);
}

static const char b64_std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
static const char b64_url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

void
buf_add_base64(struct buf *b, const void *d, size_t n, bool url, bool pad)
{
	const unsigned char *p = d;
	const char *t = url ? b64_url : b64_std;
	size_t i;

	for (i = 0; i + 2 < n; i += 3) {
		buf_addc(b, t[p[i] >> 2]);
		buf_addc(b, t[(p[i] & 3) << 4 | p[i + 1] >> 4]);
		buf_addc(b, t[(p[i + 1] & 15) << 2 | p[i + 2] >> 6]);
		buf_addc(b, t[p[i + 2] & 63]);
	}
	if (n - i == 1) {
		buf_addc(b, t[p[i] >> 2]);
		buf_addc(b, t[(p[i] & 3) << 4]);
		if (pad)
			buf_adds(b, "==");
	} else if (n - i == 2) {
		buf_addc(b, t[p[i] >> 2]);
		buf_addc(b, t[(p[i] & 3) << 4 | p[i + 1] >> 4]);
		buf_addc(b, t[(p[i + 1] & 15) << 2]);
		if (pad)
			buf_addc(b, '=');
	}
}

int
buf_add_unbase64(struct buf *b, const char *s, size_t n, bool url)
{
	const char *t = url ? b64_url : b64_std, *q;
	uint32_t v = 0;
	size_t i, bits = 0;

	while (n > 0 && s[n - 1] == '=')
		n--;
	if (n % 4 == 1)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] == '\0' || (q = strchr(t, s[i])) == NULL)
			return -1;
		v = v << 6 | (uint32_t)(q - t);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf_addc(b, (char)(v >> bits));
			v &= (1u << bits) - 1;
		}
	}
	return 0;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		b->off = b->len = 0;
		return;
	}
	b->off += n;
	b->len -= n;
}

void
buf_reset(struct buf *b)
{
	b->off = b->len = 0;
}

char *
buf_str(struct buf *b)
{
	buf_room(b, 1);
	b->p[b->off + b->len] = '\0';
	return b->p + b->off;
}

char *
buf_steal(struct buf *b)
{
	char *s;

	buf_str(b);
	if (b->off > 0)
		memmove(b->p, b->p + b->off, b->len + 1);
	s = b->p;
	memset(b, 0, sizeof(*b));
	return s;
}

void
buf_free(struct buf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}
