/*
 * Preloaded (LD_PRELOAD) by a bats suite: files that vanish between srt's plan and
 * bubblewrap's mounts, as a host program deleting its dotfiles makes them vanish.
 *
 * srt starts bwrap before it plans and hands it the plan through --args; bwrap reads it
 * whole before its first mount(2). With SRT_TEST_VANISH naming paths (":" between them),
 * the first mount call of a process named bwrap removes each of them first (a file with
 * unlink, a directory with rmdir), so the plan saw them and the mounts do not: the race
 * made deterministic. Every other caller goes straight through.
 */
#include <sys/mount.h>

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int mount(const char *, const char *, const char *, unsigned long, const void *);

int
mount(const char *src, const char *dst, const char *type, unsigned long flags, const void *data)
{
	int (*next)(const char *, const char *, const char *, unsigned long,
	    const void *) = (int (*)(const char *, const char *, const char *, unsigned long,
	    const void *))dlsym(RTLD_NEXT, "mount");
	static int done;
	const char *v = getenv("SRT_TEST_VANISH");
	char *list, *p, *save = NULL;

	if (!done && v != NULL && strcmp(program_invocation_short_name, "bwrap") == 0) {
		done = 1;
		list = strdup(v);
		for (p = list != NULL ? strtok_r(list, ":", &save) : NULL; p != NULL;
		     p = strtok_r(NULL, ":", &save))
			if (unlink(p) == -1)
				(void)rmdir(p);
		free(list);
	}
	return next(src, dst, type, flags, data);
}
