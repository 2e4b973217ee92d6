/*
 * Naming AppArmor's user namespace restriction when it is what stopped the sandbox
 * (userns.h). The decision is kept apart from the reading of the sysctl so that it can
 * be tested with any value and error: no test machine can be told to restrict.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "userns.h"
#include "util.h"

int
userns_apparmor_restricted(const char *path)
{
	char *text = NULL, *end;
	size_t len;
	long v;
	int ret = -1;

	if (read_file(path, 64, &text, &len) == -1)
		return -1;
	errno = 0;
	v = strtol(text, &end, 10);
	if (end != text && errno == 0 && (*end == '\0' || *end == '\n'))
		ret = v != 0;
	free(text);
	return ret;
}

int
userns_apparmor_hint(int err, int restricted, const char *exe, char **cause, char **fix)
{
	*cause = *fix = NULL;
	if (restricted != 1 || (err != EPERM && err != EACCES))
		return 0;
	*cause = xasprintf(
	    "AppArmor restricts unprivileged user namespaces here "
	    "(kernel.apparmor_restrict_unprivileged_userns is 1), and no AppArmor profile "
	    "lets %s create them",
	    exe);
	*fix = xasprintf(
	    "to fix it, as root: load a profile that allows them for %s "
	    "(the srt package installs %s, for /usr/bin/srt-launch: "
	    "apparmor_parser -r %s), or lift the restriction for every program "
	    "(sysctl -w kernel.apparmor_restrict_unprivileged_userns=0); see srt(1), "
	    "APPARMOR",
	    exe, USERNS_APPARMOR_PROFILE, USERNS_APPARMOR_PROFILE);
	return 1;
}
