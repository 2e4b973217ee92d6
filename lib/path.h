/*
 * Path spellings for the filesystem lists: "~" and relative entries made absolute, lexical
 * normalisation, containment by path component. Pure text except path_resolve.
 */
#ifndef SRT_PATH_H
#define SRT_PATH_H

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

/* p is dir or lies beneath it, by component ("/xy" is not under "/x"); "/" holds all. */
int path_is_under(const char *p, const char *dir);
int path_is_strictly_under(const char *p, const char *dir);

char *path_dirname(const char *p);              /* "/" for "/x" and for "/" */
const char *path_basename(const char *p);       /* points into p */
char *path_join(const char *dir, const char *name);
size_t path_depth(const char *p);               /* components: "/" 0, "/a/b" 2 */

/* The home directory, by one rule for every program: $HOME when it is an absolute path,
 * else the passwd entry's directory when that is; NULL when neither is. Caller frees. */
char *path_home(void);

/* realpath(3), allocated; NULL with errno set when p cannot be resolved. */
char *path_resolve(const char *p);

#endif
