/*
 * path_home (path.h) on Windows: %HOME% when it is a drive-absolute path, else
 * %USERPROFILE% (Windows has no passwd entry), read as UTF-16 and normalised as
 * lib/core/path_win.c spells paths. A HOME that is not drive-absolute ("/home/me" that
 * Wine or an MSYS shell passes on) is passed over: Win32 would take it on the working
 * directory's drive, which is not where that shell meant it.
 */
#ifdef _WIN32
#include <stdlib.h>
#include <wchar.h>

#include "path.h"
#include "sys_file.h"
#include "util.h"

static char *
home_from(const wchar_t *name)
{
	const wchar_t *w = _wgetenv(name);
	char *s, *n;

	if (w == NULL || (s = sys_utf8(w)) == NULL)
		return NULL;
	n = pathw_normalize(s);
	free(s);
	return n;
}

char *
path_home(void)
{
	char *h = home_from(L"HOME");

	return h != NULL ? h : home_from(L"USERPROFILE");
}
#endif
