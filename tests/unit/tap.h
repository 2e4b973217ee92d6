/* A minimal TAP producer for the C unit tests: ok(cond, "what", ...); return tap_done(); */
#ifndef SRT_TAP_H
#define SRT_TAP_H

#include <stdarg.h>
#include <stdio.h>

static int tap_count, tap_failed;

#ifdef _WIN32
__attribute__((format(gnu_printf, 4, 5))) /* mingw's C99 printf (make win) */
#else
__attribute__((format(printf, 4, 5)))
#endif
static int
tap_ok(int cond, const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	tap_count++;
	printf("%sok %d - ", cond ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!cond) {
		tap_failed++;
		printf("#   failed at %s:%d\n", file, line);
	}
	fflush(stdout);
	return cond;
}

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static int
tap_done(void)
{
	printf("1..%d\n", tap_count);
	return tap_failed ? 1 : 0;
}

#endif
