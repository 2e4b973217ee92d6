/*
 * path_home (path.h), in an object of its own: srt-seccomp is linked statically and uses
 * path.c, and a getpwuid(3) linked into it would need glibc's NSS libraries at run time
 * (the linker warns). srt-seccomp never asks for the home directory, so it never links
 * this file.
 */
#include <sys/types.h>

#include <pwd.h>
#include <stdlib.h>
#include <unistd.h>

#include "path.h"
#include "util.h"

char *
path_home(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h != NULL && h[0] == '/')
		return xstrdup(h);
	if ((pw = getpwuid(getuid())) != NULL && pw->pw_dir != NULL && pw->pw_dir[0] == '/')
		return xstrdup(pw->pw_dir);
	return NULL;
}
