/*
 * Path spellings. A path handed to srt-win must already be absolute and normalised (the
 * plan's are): "." and ".." are refused rather than folded, so that the entry lands on
 * the object the caller named and nothing else. Either separator is taken on Windows.
 */
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

static int
is_sep(char c)
{
	return c == '/' || (wa_path_sep() == '\\' && c == '\\');
}

/* Length of the root: "C:\", "\\server\share\", "\\?\C:\", or "/". */
static size_t
root_len(const char *p)
{
	size_t i, parts;

	if (wa_path_sep() == '/')
		return p[0] == '/' ? 1 : 0;
	if (((p[0] | 0x20) >= 'a' && (p[0] | 0x20) <= 'z') && p[1] == ':' && is_sep(p[2]))
		return 3;
	if (!is_sep(p[0]) || !is_sep(p[1]))
		return 0;
	if ((p[2] == '?' || p[2] == '.') && is_sep(p[3])) {
		/* \\?\C:\ only: the device namespace and \\?\UNC are not plain files. */
		if (((p[4] | 0x20) >= 'a' && (p[4] | 0x20) <= 'z') && p[5] == ':' &&
		    is_sep(p[6]))
			return 7;
		return 0;
	}
	/* \\server\share\ */
	for (i = 2, parts = 0; p[i] != '\0'; i++) {
		if (is_sep(p[i])) {
			if (i == 2 || is_sep(p[i - 1]))
				return 0;
			if (++parts == 2)
				return i + 1;
		}
	}
	return parts == 1 && !is_sep(p[i - 1]) ? i : 0;
}

char *
sw_path_clean(const char *p)
{
	size_t rl = root_len(p), i, start;
	struct buf b = { 0 };
	char sep = wa_path_sep();

	if (rl == 0 || !wa_path_absolute(p))
		return NULL;
	for (i = 0; i < rl; i++) {
		char c = is_sep(p[i]) ? sep : p[i];

		buf_add(&b, &c, 1);
	}
	if (!is_sep(buf_str(&b)[b.len - 1]))
		buf_add(&b, &sep, 1); /* "\\server\share" gets its separator */
	for (i = rl; p[i] != '\0';) {
		while (is_sep(p[i]))
			i++;
		if (p[i] == '\0')
			break;
		start = i;
		while (p[i] != '\0' && !is_sep(p[i]))
			i++;
		if ((i - start == 1 && p[start] == '.') ||
		    (i - start == 2 && p[start] == '.' && p[start + 1] == '.')) {
			buf_free(&b);
			return NULL;
		}
		if (!is_sep(buf_str(&b)[b.len - 1]))
			buf_add(&b, &sep, 1);
		buf_add(&b, p + start, i - start);
	}
	return buf_steal(&b);
}

char *
sw_path_parent(const char *p)
{
	size_t rl = root_len(p), n = strlen(p);

	if (rl == 0 || n <= rl)
		return NULL;
	while (n > rl && !is_sep(p[n - 1]))
		n--;
	if (n > rl)
		n--; /* the separator, unless it is the root's */
	return xstrndup(p, n);
}

/* Component containment; on Windows names compare without regard to ASCII case. */
int
sw_path_is_under(const char *p, const char *dir)
{
	size_t n = strlen(dir);
	int ci = wa_path_sep() == '\\';

	if (n > 0 && is_sep(dir[n - 1]))
		n--;
	for (size_t i = 0; i < n; i++) {
		char a = p[i], c = dir[i];

		if (a == '\0')
			return 0;
		if (ci && a >= 'A' && a <= 'Z')
			a = (char)(a | 0x20);
		if (ci && c >= 'A' && c <= 'Z')
			c = (char)(c | 0x20);
		if (a != c && !(is_sep(a) && is_sep(c)))
			return 0;
	}
	return p[n] == '\0' || is_sep(p[n]);
}
