/*
 * path_home (path.h) on Windows: $HOME when it is an absolute path, else %USERPROFILE%
 * (Windows has no passwd entry). An absolute path there starts with a drive ("C:\" or
 * "C:/"), "\\" or "/".
 */
#ifdef _WIN32
#include <ctype.h>
#include <stdlib.h>

#include "path.h"
#include "util.h"

static int
absolute(const char *p)
{
	return p != NULL && (p[0] == '/' || (p[0] == '\\' && p[1] == '\\') ||
	    (isalpha((unsigned char)p[0]) && p[1] == ':' && (p[2] == '\\' || p[2] == '/')));
}

char *
path_home(void)
{
	const char *h = getenv("HOME");

	if (absolute(h))
		return xstrdup(h);
	h = getenv("USERPROFILE");
	return absolute(h) ? xstrdup(h) : NULL;
}
#endif
