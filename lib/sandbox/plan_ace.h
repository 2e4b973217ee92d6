/*
 * The access control entries of a Windows plan (BEHAVIOR §7): what plan_windows.c builds
 * from the settings and srt-win reads back and applies, in one shape for both, and the
 * plan's text, one JSON line per entry, which plan_windows.c writes (plan_ace_json) and
 * plan_windows_read.c reads, with the names below. Core only (srt-win links it without
 * the settings reader).
 */
#ifndef SRT_PLAN_ACE_H
#define SRT_PLAN_ACE_H

#include <stddef.h>

#include "util.h"

enum plan_right {
	PLAN_R_READ = 1u << 0,
	PLAN_R_EXECUTE = 1u << 1,
	PLAN_R_WRITE = 1u << 2,
	PLAN_R_MODIFY = 1u << 3, /* read, write, execute, delete itself */
	PLAN_R_DELETE_CHILD = 1u << 4,
	PLAN_R_DELETE = 1u << 5, /* the object's own DELETE (deny only) */
};

/* The text of an entry:
 * {"ace":"allow","path":"/p","rights":["read","execute"],"inherit":"OICI"} */
#define PLAN_KEY_ACE "ace"
#define PLAN_KEY_PATH "path"
#define PLAN_KEY_RIGHTS "rights"
#define PLAN_KEY_INHERIT "inherit"
#define PLAN_ACE_ALLOW "allow"
#define PLAN_ACE_DENY "deny"
#define PLAN_INHERIT_ALL "OICI" /* else "" */
#define PLAN_NRIGHTS 6
/* The name of each right by its bit: plan_ace_right_names[i] is 1u << i's. */
extern const char *const plan_ace_right_names[PLAN_NRIGHTS];

struct plan_ace {
	int deny;        /* 0: ALLOW, 1: DENY */
	char *path;      /* absolute */
	unsigned rights; /* enum plan_right */
	int inherit;     /* 1: (OI)(CI), also every file and directory beneath */
};

struct plan_windows {
	struct plan_ace *v;
	size_t n, cap;
};

/* Append an entry unless one with the same deny, rights, inherit and a path same() calls
 * equal is there (a copy of path is kept). */
void plan_ace_add(struct plan_windows *p, int deny, const char *path, unsigned rights,
    int inherit, int (*same)(const char *, const char *));
void plan_windows_free(struct plan_windows *p);

/* How the reader takes a path (the applying system's rules): clean gives it as that
 * system spells an absolute, normalised path, or NULL when it is not one; same tells
 * whether two paths name one object. */
struct plan_read_paths {
	char *(*clean)(const char *);
	int (*same)(const char *, const char *);
};

/*
 * The plan's text (plan_ace_json's lines; blank lines and CRLF taken) into out, entries
 * in order, a repeated one once. A line that is not one entry is a message "line N: why"
 * in errs; then -1, with nothing kept in out (a plan is applied whole or not at all).
 * Beyond the format it refuses what the plan never holds: a path with a character no
 * Windows name holds (a glob), and an ALLOW of delete_child or delete.
 */
int plan_windows_read(const char *text, size_t len, const struct plan_read_paths *paths,
    struct plan_windows *out, struct diags *errs);
/* A path an entry may name (as plan_windows_read takes it), or NULL with why. */
char *plan_windows_read_path(
    const char *s, const struct plan_read_paths *paths, char *why, size_t whylen);

#endif
