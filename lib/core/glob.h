/*
 * Globs in the filesystem lists (SPEC §5: expanded at launch on Linux). The syntax is the
 * reference's: "*" any characters of a name, "?" one character, "[a-z]" one of a set (no
 * negation, no escapes; brackets that spell no set are text), "**" as a whole component any
 * number of directories. Nothing else is special.
 */
#ifndef SRT_GLOB_H
#define SRT_GLOB_H

#include <dirent.h>
#include <stddef.h>

#include "util.h"

/* Bounds of one expansion: directory entries looked at, matches kept. */
#define GLOB_MAX_ENTRIES 200000
#define GLOB_MAX_MATCHES 20000
#define GLOB_MAX_DEPTH 64

/* The characters that make a path a glob (the reference's test); the one list of them. */
#define GLOB_MAGIC "*?[]"

/* s holds one of GLOB_MAGIC. */
int glob_has_magic(const char *s);

/* p without a trailing "**" component (a directory and all beneath it is the directory);
 * an empty rest is "/". Allocated. */
char *glob_strip_globstar(const char *p);

/* A walk's budget of directory entries: a tree made to be large costs no more than max of
 * them, and the walk knows it stopped short. */
struct glob_budget {
	size_t entries, max;
	int truncated; /* the budget ran out, or the walk stopped for another bound */
};
/* The next entry of d but "." and "..", counted against b; NULL at the end of d, or once
 * the budget has run out. */
struct dirent *glob_readdir(DIR *d, struct glob_budget *b);

/* Whether the absolute path matches the absolute pattern as a whole. */
int glob_match_path(const char *pattern, const char *path);

/* Whether the absolute path, or one of the directories above it, matches the pattern. */
int glob_match_under(const char *pattern, const char *path);

/*
 * Append to out every existing path that matches the absolute pattern, sorted and without
 * duplicates, spelled under the pattern's literal base directory (links are not resolved;
 * "**" does not descend through symbolic links, a single-name wildcard may).
 * Returns 0 when the walk was complete, 1 when a bound cut it short (what was found is in
 * out), -1 for a pattern that is not absolute.
 */
int glob_expand(const char *pattern, struct strlist *out);
/* What a cut-short expansion (glob_expand's 1) of the setting entry what[i], path, means:
 * for a deny an error in errs, and 1 (the plan is bad: a deny must not be applied in
 * part); for an allow a warning, and 0. Any other r: 0. */
struct diags;
int glob_report_limit(
    int r, int deny, struct diags *errs, const char *what, size_t i, const char *path);

#endif
