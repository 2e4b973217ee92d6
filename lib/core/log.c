#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sys.h"

static const char *log_name = "srt";
static const char *log_user_name; /* log_speak_as, or NULL: log_name */
static int log_dbg;
static int log_fatal_status = 1;
static void (*log_fatal_fn)(const char *msg); /* log_fatal_emit */

void
log_init(const char *prog, int debug, int fatal_status)
{
	log_name = prog;
	log_dbg = debug;
	log_fatal_status = fatal_status;
}

void
log_speak_as(const char *name)
{
	log_user_name = name;
}

const char *
log_prog(void)
{
	return log_name;
}

int
log_debugging(void)
{
	return log_dbg;
}

/* One write(2) per line so lines from cooperating processes do not interleave. */
static void
log_vemit(const char *tag, int with_errno, int saved, const char *fmt, va_list ap)
{
	char buf[4096];
	size_t n = 0;
	int m;

	/* Each piece is clamped, so a long message is cut, never overflows. */
	m = snprintf(buf, sizeof(buf) - 1, "%s: %s",
	    log_user_name != NULL && *tag == '\0' ? log_user_name : log_name, tag);
	n = m < 0 ? 0 : (size_t)m < sizeof(buf) - 1 ? (size_t)m : sizeof(buf) - 2;
	m = vsnprintf(buf + n, sizeof(buf) - 1 - n, fmt, ap);
	n += m < 0 ? 0 : (size_t)m < sizeof(buf) - 1 - n ? (size_t)m : sizeof(buf) - 2 - n;
	if (with_errno) {
		m = snprintf(buf + n, sizeof(buf) - 1 - n, ": %s", strerror(saved));
		n += m < 0                            ? 0
		    : (size_t)m < sizeof(buf) - 1 - n ? (size_t)m
						      : sizeof(buf) - 2 - n;
	}
	buf[n++] = '\n';
	(void)!write(STDERR_FILENO, buf, n);
}

#define LOG_BODY(tag, with_errno) \
	do { \
		int saved = errno; \
		va_list ap; \
		va_start(ap, fmt); \
		log_vemit(tag, with_errno, saved, fmt, ap); \
		va_end(ap); \
		errno = saved; \
	} while (0)

void
log_warn(const char *fmt, ...)
{
	LOG_BODY("", 1);
}
void
log_warnx(const char *fmt, ...)
{
	LOG_BODY("", 0);
}
void
log_info(const char *fmt, ...)
{
	LOG_BODY("", 0);
}

void
log_debug(const char *fmt, ...)
{
	if (!log_dbg)
		return;
	LOG_BODY("debug: ", 0);
}

void
log_debug2(const char *fmt, ...)
{
	if (log_dbg < 2)
		return;
	LOG_BODY("debug: ", 0);
}

void
log_fatal_emit(void (*emit)(const char *msg))
{
	log_fatal_fn = emit;
}

/* fatal()'s line through the program's own emitter. */
static void
log_fatal_own(int with_errno, int saved, const char *fmt, va_list ap)
{
	char msg[4096];
	size_t n;
	int m;

	m = vsnprintf(msg, sizeof(msg), fmt, ap);
	n = m < 0 ? 0 : (size_t)m < sizeof(msg) ? (size_t)m : sizeof(msg) - 1;
	if (with_errno)
		snprintf(msg + n, sizeof(msg) - n, ": %s", strerror(saved));
	log_fatal_fn(msg);
}

#define FATAL_BODY(with_errno) \
	do { \
		int saved = errno; \
		va_list ap; \
		va_start(ap, fmt); \
		if (log_fatal_fn != NULL) \
			log_fatal_own(with_errno, saved, fmt, ap); \
		else \
			log_vemit("", with_errno, saved, fmt, ap); \
		va_end(ap); \
		exit(log_fatal_status); \
	} while (0)

void
fatal(const char *fmt, ...)
{
	FATAL_BODY(1);
}

void
fatalx(const char *fmt, ...)
{
	FATAL_BODY(0);
}
