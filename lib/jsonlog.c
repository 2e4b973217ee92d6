/* JSON text for the decision log. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonlog.h"
#include "util.h"

static void
jbuf_grow(struct jbuf *b, size_t more)
{
	size_t cap;

	if (b->len + more + 1 <= b->cap)
		return;
	cap = b->cap ? b->cap : 256;
	while (cap < b->len + more + 1)
		cap *= 2;
	b->p = xreallocarray(b->p, cap, 1);
	b->cap = cap;
}

void
jbuf_add(struct jbuf *b, const char *s, size_t n)
{
	jbuf_grow(b, n);
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
jbuf_adds(struct jbuf *b, const char *s)
{
	jbuf_add(b, s, strlen(s));
}

void
jbuf_addf(struct jbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0)
		return;
	jbuf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 if it is not one. */
static size_t
jsonlog_utf8_len(const unsigned char *s, size_t n)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if ((s[0] & 0xe0) == 0xc0) {
		len = 2;
		cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		len = 3;
		cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		len = 4;
		cp = s[0] & 0x07;
	} else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and values past U+10FFFF are not UTF-8. */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

void
jbuf_add_jstr(struct jbuf *b, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0, k;

	if (s == NULL) {
		jbuf_adds(b, "null");
		return;
	}
	jbuf_add(b, "\"", 1);
	while (i < len) {
		unsigned char c = u[i];

		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };

			jbuf_add(b, e, 2);
			i++;
		} else if (c < 0x20 || c == 0x7f) {
			jbuf_addf(b, "\\u%04x", c);
			i++;
		} else if ((k = jsonlog_utf8_len(u + i, len - i)) == 0) {
			jbuf_adds(b, "\\ufffd");
			i++;
		} else {
			jbuf_add(b, s + i, k);
			i += k;
		}
	}
	jbuf_add(b, "\"", 1);
}

void
jbuf_free(struct jbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}
