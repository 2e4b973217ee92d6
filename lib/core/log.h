/* Diagnostics for every srt program: "prog: message" on stderr. */
#ifndef SRT_LOG_H
#define SRT_LOG_H

#include <stdarg.h>
#include <stdnoreturn.h>

#ifdef _WIN32
/* mingw-w64 with __USE_MINGW_ANSI_STDIO (make win): C99 formats (%zu), not msvcrt's. */
#define SRT_PRINTF(a, b) __attribute__((format(gnu_printf, a, b)))
#else
#define SRT_PRINTF(a, b) __attribute__((format(printf, a, b)))
#endif

/* prog names the program in every line; fatal_status is the exit code of fatal()/fatalx(). */
void log_init(const char *prog, int debug, int fatal_status);
/* A helper run by srt: its warnings and errors speak as the program the user ran
 * (name), its debug lines still as itself. */
void log_speak_as(const char *name);
const char *log_prog(void);
int log_debugging(void);

void log_warn(const char *fmt, ...) SRT_PRINTF(1, 2); /* appends ": strerror(errno)" */
void log_warnx(const char *fmt, ...) SRT_PRINTF(1, 2);
void log_info(const char *fmt, ...) SRT_PRINTF(1, 2);
void log_debug(const char *fmt, ...) SRT_PRINTF(1, 2);  /* only with -d */
void log_debug2(const char *fmt, ...) SRT_PRINTF(1, 2); /* only with -d -d: detail */
/* A program whose error lines are not "prog: message" (srt-win's are JSON) says them
 * itself: emit gets fatal()'s and fatalx()'s message (without the program's name), and
 * the exit follows. */
void log_fatal_emit(void (*emit)(const char *msg));
noreturn void fatal(const char *fmt, ...) SRT_PRINTF(1, 2);
noreturn void fatalx(const char *fmt, ...) SRT_PRINTF(1, 2);

#endif
