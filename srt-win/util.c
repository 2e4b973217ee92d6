/* Small helpers: buffers, error lines, numbers (allocation and string lists are the
 * core's, lib/util.c). */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

int sw_debug;
int sw_quiet;

void
sb_add(struct sbuf *b, const char *s, size_t n)
{
	if (b->cap - b->len < n + 1) {
		size_t cap = b->cap ? b->cap : 128;

		while (cap - b->len < n + 1)
			cap *= 2;
		b->p = xreallocarray(b->p, cap, 1);
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
}

void
sb_puts(struct sbuf *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void
sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		fatalx("bad format");
	s = xmalloc((size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	sb_add(b, s, (size_t)n);
	free(s);
}

/* Control characters escaped, everything else (UTF-8 included) as it is. */
void
sb_json_str(struct sbuf *b, const char *s)
{
	char esc[8];

	sb_add(b, "\"", 1);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': sb_add(b, "\\\"", 2); break;
		case '\\': sb_add(b, "\\\\", 2); break;
		case '\n': sb_add(b, "\\n", 2); break;
		case '\r': sb_add(b, "\\r", 2); break;
		case '\t': sb_add(b, "\\t", 2); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				snprintf(esc, sizeof(esc), "\\u%04x", *p);
				sb_add(b, esc, 6);
			} else
				sb_add(b, (const char *)p, 1);
		}
	}
	sb_add(b, "\"", 1);
}

static void
err_line(const char *code, const char *fmt, va_list ap)
{
	struct sbuf b = { 0 };
	char *msg;
	int n;
	va_list aq;

	if (sw_quiet)
		return;
	va_copy(aq, ap);
	n = vsnprintf(NULL, 0, fmt, ap);
	msg = xmalloc(n > 0 ? (size_t)n + 1 : 1);
	vsnprintf(msg, n > 0 ? (size_t)n + 1 : 1, fmt, aq);
	va_end(aq);
	sb_puts(&b, "{\"code\":");
	sb_json_str(&b, code);
	sb_puts(&b, ",\"message\":");
	sb_json_str(&b, msg);
	sb_puts(&b, "}\n");
	fputs(b.p, stderr);
	fflush(stderr);
	free(b.p);
	free(msg);
}

void
sw_err(const char *code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	err_line(code, fmt, ap);
	va_end(ap);
}

void
sw_warn(const char *fmt, ...)
{
	va_list ap;

	if (sw_quiet)
		return;
	fputs("srt-win: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* fatal() and fatalx() of the core (lib/log.h) speak as srt-win's other errors do. */
void
sw_fatal_line(const char *msg)
{
	sw_err("system", "%s", msg);
}

void
sw_trace(const char *fmt, ...)
{
	va_list ap;

	if (!sw_debug)
		return;
	fputs("srt-win: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int
read_all(FILE *f, size_t max, char **out, size_t *len)
{
	size_t cap = 4096, n = 0, r;
	char *p = xmalloc(cap + 1);

	for (;;) {
		if (n == cap) {
			if (cap >= max) {
				free(p);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			p = xreallocarray(p, cap + 1, 1);
		}
		r = fread(p + n, 1, cap - n, f);
		n += r;
		if (r == 0)
			break;
	}
	if (ferror(f) || n > max) {
		free(p);
		return -1;
	}
	p[n] = '\0';
	*out = p;
	*len = n;
	return 0;
}

int
parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	unsigned long v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (max - (unsigned long)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (unsigned long)(*s - '0');
	}
	*out = v;
	return 0;
}

int
parse_port_range(const char *s, int *lo, int *hi)
{
	const char *dash = strchr(s, '-');
	unsigned long a, b;
	char *first;
	int rc;

	if (dash == NULL)
		return -1;
	first = xstrndup(s, (size_t)(dash - s));
	rc = parse_uint(first, 65535, &a);
	free(first);
	if (rc != 0 || parse_uint(dash + 1, 65535, &b) != 0 || a < 1 || a > b ||
	    b - a > SW_PORT_RANGE_MAX)
		return -1;
	*lo = (int)a;
	*hi = (int)b;
	return 0;
}
