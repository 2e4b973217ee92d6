/* Small helpers: error lines, numbers (allocation, string lists and buffers are the core's:
 * lib/core/util.c, lib/core/buf.c). */
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
sw_err(const char *code, const char *fmt, ...)
{
	struct buf b = { 0 }, msg = { 0 };
	va_list ap;

	if (sw_quiet)
		return;
	va_start(ap, fmt);
	buf_vaddf(&msg, fmt, ap);
	va_end(ap);
	buf_add_jmember(&b, "{\"code\":", code);
	buf_add_jmember(&b, ",\"message\":", buf_str(&msg));
	buf_adds(&b, "}\n");
	fputs(buf_str(&b), stderr);
	fflush(stderr);
	buf_free(&b);
	buf_free(&msg);
}

void
sw_note(int on, const char *prefix, const char *fmt, ...)
{
	va_list ap;

	if (!on)
		return;
	fputs(prefix, stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* fatal() and fatalx() of the core (lib/core/log.h) speak as srt-win's other errors do. */
void
sw_fatal_line(const char *msg)
{
	sw_err("system", "%s", msg);
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
