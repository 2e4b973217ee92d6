/*
 * The message for AppArmor's user namespace restriction (userns.h): read from a file
 * that stands for /proc/sys/kernel/apparmor_restrict_unprivileged_userns, and given
 * for each error a user namespace step can fail with. The kernel's side (a profile
 * that allows user namespaces, or not) cannot be had on a machine without AppArmor;
 * what srt decides from the sysctl and the error is all tested here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tap.h"
#include "userns.h"

static char dir[] = "/tmp/test_userns.XXXXXX";

/* The sysctl file holding text (NULL: no such file), read back. */
static int
restricted_as(const char *text)
{
	char path[64];
	FILE *f;
	int v;

	snprintf(path, sizeof(path), "%s/sysctl", dir);
	(void)unlink(path);
	if (text != NULL) {
		if ((f = fopen(path, "w")) == NULL)
			return -2;
		fputs(text, f);
		fclose(f);
	}
	v = userns_apparmor_restricted(path);
	(void)unlink(path);
	return v;
}

static void
test_read(void)
{
	ok(restricted_as("1\n") == 1, "the sysctl at 1 (Ubuntu 24.04's default): restricted");
	ok(restricted_as("0\n") == 0, "at 0: not restricted");
	ok(restricted_as("2") == 1, "another number counts as restricted");
	ok(restricted_as(NULL) == -1, "no such sysctl (a kernel without it): -1");
	ok(restricted_as("") == -1 && restricted_as("yes\n") == -1 &&
		restricted_as("1 2\n") == -1,
	    "an empty or garbled file: -1, not a guess");
}

static void
test_hint(void)
{
	const char *exe = "/usr/bin/srt-launch";
	char *cause, *fix;
	int r;

	r = userns_apparmor_hint(EPERM, 1, exe, &cause, &fix);
	ok(r == 1 && cause != NULL && fix != NULL &&
		strstr(cause, "kernel.apparmor_restrict_unprivileged_userns is 1") != NULL &&
		strstr(cause, exe) != NULL,
	    "EPERM with the sysctl at 1: the cause names the sysctl and the program");
	ok(r == 1 && strstr(fix, "apparmor_parser -r /etc/apparmor.d/srt") != NULL &&
		strstr(fix, "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0") != NULL,
	    "and the fix: load srt's profile, or turn the restriction off");
	free(cause);
	free(fix);

	r = userns_apparmor_hint(EACCES, 1, "/home/u/srt/build/bin/srt-launch", &cause, &fix);
	ok(r == 1 && strstr(cause, "/home/u/srt/build/bin/srt-launch") != NULL &&
		strstr(fix, "for /home/u/srt/build/bin/srt-launch") != NULL,
	    "EACCES too; a copy outside /usr/bin is named, as the profile must name it");
	free(cause);
	free(fix);

	ok(userns_apparmor_hint(EPERM, 0, exe, &cause, &fix) == 0 && cause == NULL &&
		fix == NULL,
	    "the sysctl at 0: not the cause, no hint");
	ok(userns_apparmor_hint(EPERM, -1, exe, &cause, &fix) == 0 && cause == NULL,
	    "no sysctl: no hint");
	ok(userns_apparmor_hint(ENOSPC, 1, exe, &cause, &fix) == 0 &&
		userns_apparmor_hint(EINVAL, 1, exe, &cause, &fix) == 0 &&
		userns_apparmor_hint(0, 1, exe, &cause, &fix) == 0,
	    "other errors (ENOSPC: user.max_user_namespaces reached) are not AppArmor's");
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_read();
	test_hint();
	(void)rmdir(dir);
	return tap_done();
}
