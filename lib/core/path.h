/*
 * Path spellings for the filesystem lists: "~" and relative entries made absolute, lexical
 * normalisation, containment by path component. Pure text except path_resolve.
 *
 * On Windows the path_ functions are the pathw_ ones below (lib/core/path.c): drive-absolute
 * "C:\a\b" spellings, compared without regard to ASCII case. Elsewhere they are POSIX.
 */
#ifndef SRT_PATH_H
#define SRT_PATH_H

#include <stdbool.h>
#include <stddef.h>

/*
 * entry made absolute: "~" and "~/..." against home, anything else not starting with "/"
 * against cwd. Runs of "/" and "/./" are collapsed and a trailing "/" or "/." removed;
 * ".." is kept as written in an absolute entry (the kernel folds it after following links,
 * see path_resolve) and folded in text in a relative one, as the reference does.
 * NULL for an empty entry, "~" with an empty or NULL home, or a relative entry without cwd.
 */
char *path_absolute(const char *entry, const char *home, const char *cwd);

/* path_absolute, then ".." folded in text too: an absolute, normalised spelling. */
char *path_expand(const char *entry, const char *home, const char *cwd);

/* An absolute path normalised in text: collapsed separators, "." and ".." folded. */
char *path_normalize(const char *abs);

/* Whether two absolute, normalised paths name the same path: strcmp on POSIX, ASCII case
 * folded on Windows. */
int path_equal(const char *a, const char *b);

/* c as names are compared here: itself on POSIX, ASCII upper case on Windows. */
char path_fold(char c);

/* Whether c separates components: "/", and on Windows "\" too. */
int path_is_sep(char c);

/* Why an entry of a filesystem list cannot be taken on this system, or NULL: never on
 * POSIX, pathw_refusal on Windows. */
const char *path_refusal(const char *entry);

/*
 * Why a plain-string entry of a filesystem list almost surely names another path than
 * its writer meant, or NULL: white space at either end, a shell expansion ("$HOME",
 * "${PWD}", "$(...)"), or "~user" (only "~" and "~/" name the home directory). Each
 * would be taken as written, relative to the working directory, and protect nothing.
 * Every system; the object form {"path": ..., "literal": true} is not asked.
 */
const char *path_slip(const char *entry);

/* Length of the root that starts an absolute, normalised path: 1 for "/", 3 for "C:\"
 * on Windows; 0 when p is not absolute. */
size_t path_root_len(const char *p);

/* p is dir or lies beneath it, by component ("/xy" is not under "/x"); "/" holds all. */
int path_is_under(const char *p, const char *dir);
int path_is_strictly_under(const char *p, const char *dir);
/* p is under one of dirs (path_is_under). */
struct strlist;
int path_under_any(const char *p, const struct strlist *dirs);

char *path_dirname(const char *p); /* "/" for "/x" and for "/" */
/* *p (allocated) becomes its directory (path_dirname); false, *p as it was, at the root. */
bool path_up(char **p);
const char *path_basename(const char *p); /* points into p */
char *path_join(const char *dir, const char *name);
size_t path_depth(const char *p); /* components: "/" 0, "/a/b" 2 */
/* Both, the one separator given: "/" (path_), "\" (pathw_). (lib/core/path_sep.c) */
const char *path_sep_basename(const char *p, char sep);
size_t path_sep_depth(const char *p, char sep);
/* The components of abs, split at sep or alt, into out after its first root bytes (the
 * root, kept; none on POSIX, "X:\" on Windows), each written after a sep: empty and "."
 * components go, ".." pops the previous one (never the root) when fold is set and is kept
 * otherwise. "/" for nothing at all. out holds strlen(abs) + 2 bytes past the root. */
void path_sep_rebuild(const char *abs, char *out, size_t root, char sep, char alt, int fold);

/* The home directory, by one rule for every program: $HOME when it is an absolute path,
 * else the passwd entry's directory when that is; NULL when neither is. Caller frees. */
char *path_home(void);

/* realpath(3), allocated; NULL with errno set when p cannot be resolved. */
char *path_resolve(const char *p);

/*
 * Windows spellings (lib/core/path_win.c), pure text on every system. The one form produced
 * and compared is "X:\a\b": an upper-case drive letter, "\" separators, no empty, "."
 * or ".." component, no trailing separator but the root's "X:\".
 */
int pathw_is_drive_absolute(const char *p); /* "X:\" or "X:/" starts it */

/* ASCII only: NTFS folds with its volume's Unicode upcase table, which srt does not
 * carry, so "É" and "é" compare unequal here (see pathw_equal). */
char pathw_fold(char c);

/* Why srt does not take this entry on Windows, or NULL: UNC and device paths ("\\"),
 * drive-relative "C:dir", a ":" past the drive (a stream), a character Windows forbids in
 * a name, a name ending in "." or " ", a DOS device name, an 8.3 short name's shape. */
const char *pathw_refusal(const char *entry);

/* entry made absolute: "~", "~\..." and "~/..." against home, "\dir" against cwd's
 * drive, any other relative entry against cwd; then normalised, ".." folded in text as
 * Win32 does (never above the drive's root). NULL for an empty or refused entry, a home
 * or cwd needed but not drive-absolute. */
char *pathw_absolute(const char *entry, const char *home, const char *cwd);

/* A drive-absolute path in the one form above; NULL for anything else. */
char *pathw_normalize(const char *abs);

/* Comparisons of normalised paths, ASCII case folded ("C:\Repo" holds "c:\repo\x");
 * "X:\" holds its whole drive. Other letters compare as written: the Windows plan
 * names existing paths, and the existing part of missing ones, by their final names
 * (path_resolve), which carry the case the disk has. */
int pathw_equal(const char *a, const char *b);
int pathw_is_under(const char *p, const char *dir);
int pathw_is_strictly_under(const char *p, const char *dir);

char *pathw_dirname(const char *p); /* "X:\" for "X:\a" and for "X:\" */
const char *pathw_basename(const char *p);
char *pathw_join(const char *dir, const char *name);
size_t pathw_depth(const char *p); /* "X:\" 0, "X:\a\b" 2 */

#endif
