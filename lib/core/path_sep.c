/* What the POSIX and the Windows spellings (path.c, path_win.c) do alike, but for the
 * separator. */
#include <string.h>

#include "path.h"

const char *
path_sep_basename(const char *p, char sep)
{
	const char *s = strrchr(p, sep);

	return s == NULL ? p : s + 1;
}

size_t
path_sep_depth(const char *p, char sep)
{
	size_t n = 0;

	for (; *p != '\0'; p++)
		if (*p == sep && p[1] != '\0' && p[1] != sep)
			n++;
	return n;
}
