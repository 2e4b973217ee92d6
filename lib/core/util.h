/* Small shared helpers: checked allocation, growable string lists, diagnostics. */
#ifndef SRT_UTIL_H
#define SRT_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "log.h"

void *xmalloc(size_t n); /* fatalx on exhaustion */
void *xcalloc(size_t n, size_t size);
void *xreallocarray(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) SRT_PRINTF(1, 2);
/* An array v of n elements of size bytes, *cap allocated, with room for one more: twice
 * as large (16 at first) when full. Returns v, perhaps moved. */
void *util_grow(void *v, size_t n, size_t *cap, size_t size);

/* Now, UTC to the millisecond, as the decision log and the violation records write it:
 * "2026-01-02T03:04:05.678Z". */
#define UTIL_TIME_MAX 32
void util_time_now(char out[UTIL_TIME_MAX]);
/* t starts with a time stamp of that form (a reader checks a record's before it copies it). */
bool util_time_ok(const char *t);

/* The names of an enum's values, for a record's writer and its reader: names[v] (n of
 * them) is the name of value v, or NULL where v has none of its own. enum_name: v's name,
 * or dflt for a value without one; enum_value: the value named s, or -1. */
const char *util_enum_name(const char *const *names, size_t n, unsigned v, const char *dflt);
int util_enum_value(const char *const *names, size_t n, const char *s);

/* s is 8-4-4-4-12 hex digits, any case, with nothing around them: a UUID (a GUID). */
int util_is_uuid(const char *s);

/* The control character the escape \letter stands for (\b \f \n \r \t \v, as in C),
 * when allowed names letter (a format's own few: JSON has no \v, and in a regex \b
 * outside a class is a word boundary); -1 otherwise. */
int util_escape_value(int letter, const char *allowed);
/* And back: the letter whose escape stands for c, when allowed names it; -1 otherwise. */
int util_escape_letter(int c, const char *allowed);

/* A growable, NULL-terminated list of owned strings (also an argv). */
struct strlist {
	char **v;
	size_t n, cap;
};
void strlist_push(struct strlist *l, const char *s); /* copies s */
void strlist_push_owned(struct strlist *l, char *s); /* takes s */
void strlist_pushf(struct strlist *l, const char *fmt, ...) SRT_PRINTF(2, 3);
int strlist_contains(const struct strlist *l, const char *s);
ssize_t strlist_index(const struct strlist *l, const char *s); /* -1: not there */
void strlist_free(struct strlist *l);

/* Problems found while reading untrusted input, one message per line, in order. */
struct diags {
	struct strlist msgs;
};
void diags_add(struct diags *d, const char *fmt, ...) SRT_PRINTF(2, 3);
void diags_print(const struct diags *d, FILE *f);
void diags_free(struct diags *d);

/* Read a whole file (at most max bytes); -1 with errno set on failure, EFBIG if larger. */
int read_file(const char *path, size_t max, char **out, size_t *outlen);
int read_fd_all(int fd, size_t max, char **out, size_t *outlen);
/* The same for a secret (a CA's key): read to its end, NUL-terminated, *len its length;
 * NULL with errno (EFBIG past max). Every copy on the way is wiped (util_wipe). */
char *util_read_secret(int fd, size_t max, size_t *len);
char *util_read_secret_file(const char *path, size_t max, size_t *len);
/* memset to 0 that the compiler keeps (explicit_bzero is not on every system). */
void util_wipe(void *p, size_t n);

/*
 * w as one word for sh(1): as it is when made only of the characters A-Z a-z 0-9 and
 * _ . / : @ + , - (and not empty), else in single quotes ('\'' for a quote inside).
 * The set is the reference CLI's: the command text matched against ignoreViolations must
 * be spelled as it spells it; and '=' is not in it, because a word with a bare '=' in
 * front of a command line would be read as a variable assignment. Caller frees.
 */
char *shell_quote(const char *w);

/* Close *fd unless it is -1, and set it to -1. */
void fd_close(int *fd);

#endif
