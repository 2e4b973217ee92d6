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

void
path_sep_rebuild(const char *abs, char *out, size_t root, char sep, char alt, int fold)
{
	size_t len = strlen(abs), o = root, i = 0;

	while (i < len) {
		size_t j, n;

		while (i < len && (abs[i] == sep || abs[i] == alt))
			i++;
		for (j = i; j < len && abs[j] != sep && abs[j] != alt; j++)
			;
		n = j - i;
		if (n == 0 || (n == 1 && abs[i] == '.')) {
			i = j;
			continue;
		}
		if (fold && n == 2 && abs[i] == '.' && abs[i + 1] == '.') {
			/* Back to the previous separator; the root's parent is the root. */
			while (o > root && out[o - 1] != sep)
				o--;
			if (o > root)
				o--;
			i = j;
			continue;
		}
		if (o == 0 || out[o - 1] != sep) /* a root such as "X:\" ends in one */
			out[o++] = sep;
		memcpy(out + o, abs + i, n);
		o += n;
		i = j;
	}
	if (o == 0)
		out[o++] = sep;
	out[o] = '\0';
}
