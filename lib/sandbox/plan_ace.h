/*
 * The access control entries of a Windows plan (BEHAVIOR §7): what plan_windows.c builds
 * from the settings and srt-win reads back and applies, in one shape for both. Core only
 * (srt-win links it without the settings reader).
 */
#ifndef SRT_PLAN_ACE_H
#define SRT_PLAN_ACE_H

#include <stddef.h>

enum plan_right {
	PLAN_R_READ             = 1u << 0,
	PLAN_R_EXECUTE          = 1u << 1,
	PLAN_R_WRITE            = 1u << 2,
	PLAN_R_MODIFY           = 1u << 3,      /* read, write, execute, delete itself */
	PLAN_R_DELETE_CHILD     = 1u << 4,
	PLAN_R_DELETE           = 1u << 5,      /* the object's own DELETE (deny only) */
};

struct plan_ace {
	int deny;               /* 0: ALLOW, 1: DENY */
	char *path;             /* absolute */
	unsigned rights;        /* enum plan_right */
	int inherit;            /* 1: (OI)(CI), also every file and directory beneath */
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

#endif
