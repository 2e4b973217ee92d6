/*
 * Windows path spellings (path.h, "pathw_"): pure text, built and unit-tested on every
 * system; lib/core/path.c's Windows side is these. The one form they produce and compare is
 * the drive-absolute path "X:\a\b": upper-case drive letter, "\" separators, no empty,
 * "." or ".." component, no trailing separator except the root's "X:\".
 *
 * What srt does not handle is refused by pathw_refusal rather than guessed at, because
 * each of these forms lets two spellings name one object, and the plan ranks its entries
 * by comparing spellings: a deny that does not compare equal to the grant it sits in is
 * a deny that does not count.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "util.h"

static int
is_sep(char c)
{
	return c == '\\' || c == '/';
}

static int
is_alpha(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

char
pathw_fold(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

int
pathw_is_drive_absolute(const char *p)
{
	return p != NULL && is_alpha(p[0]) && p[1] == ':' && is_sep(p[2]);
}

static int
fold_ncmp(const char *a, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (pathw_fold(a[i]) != pathw_fold(b[i]))
			return 1;
		if (a[i] == '\0')
			return 0;
	}
	return 0;
}

/* The base of a name (up to its first '.'), without trailing spaces, is a DOS device:
 * Win32 opens the device for "C:\dir\nul.txt". */
static int
is_device_name(const char *c, size_t n)
{
	static const char *const dev[] = { "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$" };
	size_t b;

	for (b = 0; b < n && c[b] != '.'; b++)
		;
	while (b > 0 && c[b - 1] == ' ')
		b--;
	for (size_t i = 0; i < sizeof(dev) / sizeof(dev[0]); i++)
		if (b == strlen(dev[i]) && fold_ncmp(c, dev[i], b) == 0)
			return 1;
	return b == 4 && (fold_ncmp(c, "COM", 3) == 0 || fold_ncmp(c, "LPT", 3) == 0) &&
	    c[3] >= '1' && c[3] <= '9';
}

/* The shape of a generated 8.3 name: up to 8 characters with "~" and digits ending the
 * base, then an extension of up to 3 ("GIT~1", "PROGRA~1", "LONGNA~2.TXT"). */
static int
is_short_name(const char *c, size_t n)
{
	size_t b, t;

	for (b = 0; b < n && c[b] != '.'; b++)
		;
	if (b > 8 || (b < n && (n - b - 1 > 3 || memchr(c + b + 1, '.', n - b - 1) != NULL)))
		return 0;
	for (t = b; t > 0 && c[t - 1] >= '0' && c[t - 1] <= '9'; t--)
		;
	return t < b && t >= 2 && c[t - 1] == '~';
}

/* Why one component cannot be taken, or NULL. */
static const char *
component_refusal(const char *c, size_t n)
{
	if ((n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
		return NULL;
	for (size_t i = 0; i < n; i++) {
		if (c[i] == ':')
			return "a \":\" past the drive names an alternate data stream "
			       "(name:stream), which srt does not handle";
		if ((unsigned char)c[i] < 0x20 || strchr("<>\"|", c[i]) != NULL)
			return "a name holds a character Windows does not allow in one "
			       "(< > \" | or a control character)";
	}
	if (c[n - 1] == '.' || c[n - 1] == ' ')
		return "a name ends in a dot or a space, which Windows strips (\".git.\" "
		       "is \".git\"): write the name without them";
	if (is_device_name(c, n))
		return "a name is a DOS device (CON, PRN, AUX, NUL, COM1-9, LPT1-9), "
		       "which Windows opens in any directory";
	if (is_short_name(c, n))
		return "a name has the shape of an 8.3 short name (GIT~1), another "
		       "spelling of a long one: write the long name";
	return NULL;
}

const char *
pathw_refusal(const char *entry)
{
	const char *p = entry, *q, *why;

	if (entry == NULL || *entry == '\0')
		return NULL;
	if (is_sep(entry[0]) && is_sep(entry[1]))
		return "a UNC or device path (\\\\server\\share, \\\\?\\, \\\\.\\), which "
		       "srt does not handle: write a drive path such as C:\\dir";
	if (is_alpha(entry[0]) && entry[1] == ':') {
		if (!is_sep(entry[2]))
			return "a drive-relative path (C:dir is relative to that drive's own "
			       "working directory): write C:\\dir";
		p = entry + 2;
	} else if (entry[0] == '~' && (entry[1] == '\0' || is_sep(entry[1])))
		p = entry + 1;
	while (*p != '\0') {
		while (is_sep(*p))
			p++;
		for (q = p; *q != '\0' && !is_sep(*q); q++)
			;
		if (q > p && (why = component_refusal(p, (size_t)(q - p))) != NULL)
			return why;
		p = q;
	}
	return NULL;
}

char *
pathw_normalize(const char *abs)
{
	char *out;

	if (!pathw_is_drive_absolute(abs))
		return NULL;
	out = xmalloc(strlen(abs) + 2);
	out[0] = pathw_fold(abs[0]);
	out[1] = ':';
	out[2] = '\\';
	path_sep_rebuild(abs + 2, out, 3, '\\', '/', 1);
	return out;
}

char *
pathw_absolute(const char *entry, const char *home, const char *cwd)
{
	char *joined, *out;

	if (entry == NULL || *entry == '\0' || pathw_refusal(entry) != NULL)
		return NULL;
	if (entry[0] == '~' && (entry[1] == '\0' || is_sep(entry[1]))) {
		/* An empty home is not a root: "~" must not become a grant of "C:\". */
		if (!pathw_is_drive_absolute(home))
			return NULL;
		joined = xasprintf("%s\\%s", home, entry + 1);
	} else if (pathw_is_drive_absolute(entry))
		return pathw_normalize(entry);
	else if (!pathw_is_drive_absolute(cwd))
		return NULL;
	else if (is_sep(entry[0]))
		joined = xasprintf("%c:%s", cwd[0], entry); /* the cwd's drive */
	else
		joined = xasprintf("%s\\%s", cwd, entry);
	out = pathw_normalize(joined);
	free(joined);
	return out;
}

int
pathw_equal(const char *a, const char *b)
{
	size_t n = strlen(a);

	return n == strlen(b) && fold_ncmp(a, b, n) == 0;
}

int
pathw_is_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);

	if (n == 3 && pathw_is_drive_absolute(dir)) /* "X:\" holds its drive */
		return pathw_is_drive_absolute(p) && pathw_fold(p[0]) == pathw_fold(dir[0]);
	return fold_ncmp(p, dir, n) == 0 && (p[n] == '\0' || p[n] == '\\');
}

int
pathw_is_strictly_under(const char *p, const char *dir)
{
	return !pathw_equal(p, dir) && pathw_is_under(p, dir);
}

char *
pathw_dirname(const char *p)
{
	const char *s = strrchr(p, '\\');

	if (s == NULL)
		return xstrdup(p);
	if (s == p + 2 && pathw_is_drive_absolute(p))
		return xstrndup(p, 3);
	return xstrndup(p, (size_t)(s - p));
}

const char *
pathw_basename(const char *p)
{
	return path_sep_basename(p, '\\');
}

char *
pathw_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);

	return xasprintf("%s%s%s", dir, n > 0 && dir[n - 1] == '\\' ? "" : "\\", name);
}

size_t
pathw_depth(const char *p)
{
	return path_sep_depth(p, '\\');
}
