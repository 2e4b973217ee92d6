/* Path spellings: see path.h. POSIX ones here; on Windows, lib/core/path_win.c's. */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "path.h"
#include "sys_file.h"
#include "util.h"

#ifndef _WIN32
/*
 * Rebuild an absolute spelling component by component: empty and "." components go,
 * ".." pops the previous component when fold is set and is kept otherwise.
 */
static char *
path_rebuild(const char *abs, int fold)
{
	char *out = xmalloc(strlen(abs) + 2);

	path_sep_rebuild(abs, out, 0, '/', '/', fold);
	return out;
}

char *
path_normalize(const char *abs)
{
	return path_rebuild(abs, 1);
}

char *
path_absolute(const char *entry, const char *home, const char *cwd)
{
	char *joined, *out;

	if (entry == NULL || *entry == '\0')
		return NULL;
	if (strcmp(entry, "~") == 0 || strncmp(entry, "~/", 2) == 0) {
		/* An empty home is not the root: "~" must not become a grant of "/". */
		if (home == NULL || *home != '/')
			return NULL;
		joined = xasprintf("%s%s", home, entry + 1);
		out = path_rebuild(joined, 0);
		free(joined);
		return out;
	}
	if (*entry == '/')
		return path_rebuild(entry, 0);
	if (cwd == NULL || *cwd != '/')
		return NULL;
	joined = xasprintf("%s/%s", cwd, entry);
	out = path_rebuild(joined, 1);
	free(joined);
	return out;
}

char *
path_expand(const char *entry, const char *home, const char *cwd)
{
	char *abs = path_absolute(entry, home, cwd), *out;

	if (abs == NULL)
		return NULL;
	out = path_rebuild(abs, 1);
	free(abs);
	return out;
}

int
path_equal(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

char
path_fold(char c)
{
	return c;
}

int
path_is_sep(char c)
{
	return c == '/';
}

const char *
path_refusal(const char *entry)
{
	(void)entry;
	return NULL;
}

size_t
path_root_len(const char *p)
{
	return *p == '/' ? 1 : 0;
}

int
path_is_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return *p == '/';
	return strncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '/');
}

int
path_is_strictly_under(const char *p, const char *dir)
{
	return strcmp(p, dir) != 0 && path_is_under(p, dir);
}

char *
path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (slash == NULL || slash == p)
		return xstrdup("/");
	return xstrndup(p, (size_t)(slash - p));
}

char *
path_join(const char *dir, const char *name)
{
	if (strcmp(dir, "/") == 0)
		return xasprintf("/%s", name);
	return xasprintf("%s/%s", dir, name);
}

char *
path_resolve(const char *p)
{
	char *r = realpath(p, NULL);

	if (r == NULL && errno == ENOMEM)
		fatalx("out of memory");
	return r;
}

#else
/*
 * Windows: the drive-absolute spellings of lib/core/path_win.c. ".." is folded in text for
 * every entry, since Win32 itself folds it so before the file system sees the name.
 */
char *
path_absolute(const char *entry, const char *home, const char *cwd)
{
	return pathw_absolute(entry, home, cwd);
}

char *
path_expand(const char *entry, const char *home, const char *cwd)
{
	return pathw_absolute(entry, home, cwd);
}

char *
path_normalize(const char *abs)
{
	return pathw_normalize(abs);
}

int
path_equal(const char *a, const char *b)
{
	return pathw_equal(a, b);
}

char
path_fold(char c)
{
	return pathw_fold(c);
}

int
path_is_sep(char c)
{
	return c == '/' || c == '\\';
}

const char *
path_refusal(const char *entry)
{
	return pathw_refusal(entry);
}

size_t
path_root_len(const char *p)
{
	return pathw_is_drive_absolute(p) ? 3 : 0;
}

int
path_is_under(const char *p, const char *dir)
{
	return pathw_is_under(p, dir);
}

int
path_is_strictly_under(const char *p, const char *dir)
{
	return pathw_is_strictly_under(p, dir);
}

char *
path_dirname(const char *p)
{
	return pathw_dirname(p);
}

char *
path_join(const char *dir, const char *name)
{
	return pathw_join(dir, name);
}

/* realpath (lib/compat/sys_win.c: the final object's name, links and junctions followed) in the
 * one form of path_win.c; a name that has none (a UNC share, say) is not resolved. */
char *
path_resolve(const char *p)
{
	char *r = realpath(p, NULL), *n;

	if (r == NULL) {
		if (errno == ENOMEM)
			fatalx("out of memory");
		return NULL;
	}
	if ((n = pathw_normalize(r)) == NULL)
		errno = EXDEV;
	free(r);
	return n;
}
#endif

/* The separator of the one spelling the path_ functions make. */
#ifdef _WIN32
#define PATH_SEP '\\'
#else
#define PATH_SEP '/'
#endif

const char *
path_basename(const char *p)
{
	return path_sep_basename(p, PATH_SEP);
}

size_t
path_depth(const char *p)
{
	return path_sep_depth(p, PATH_SEP);
}

bool
path_up(char **p)
{
	char *up = path_dirname(*p);

	if (strcmp(up, *p) == 0) {
		free(up);
		return false;
	}
	free(*p);
	*p = up;
	return true;
}

int
path_under_any(const char *p, const struct strlist *dirs)
{
	for (size_t i = 0; i < dirs->n; i++)
		if (path_is_under(p, dirs->v[i]))
			return 1;
	return 0;
}

const char *
path_slip(const char *entry)
{
	size_t n = strlen(entry);
	const char *d;

	if (n > 0 && strchr(" \t\n\r\v\f", entry[0]) != NULL)
		return "it starts with white space, which is taken as part of the name";
	if (n > 0 && strchr(" \t\n\r\v\f", entry[n - 1]) != NULL)
		return "it ends with white space, which is taken as part of the name";
	for (d = strchr(entry, '$'); d != NULL; d = strchr(d + 1, '$'))
		if (d[1] == '{' || d[1] == '(' || d[1] == '_' || (d[1] >= 'A' && d[1] <= 'Z') ||
		    (d[1] >= 'a' && d[1] <= 'z'))
			return "srt expands no shell variables, so \"$\" would be taken as part "
			       "of the name; write the path out (\"~/\" for the home directory)";
	if (entry[0] == '~' && entry[1] != '\0' && entry[1] != '/' && entry[1] != '\\')
		return "only \"~\" and \"~/\" name the home directory, so \"~user\" would "
		       "be taken as a name under the working directory; write the full path";
	return NULL;
}
