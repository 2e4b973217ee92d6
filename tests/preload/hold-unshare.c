/*
 * Preloaded (LD_PRELOAD) by a bats suite: unshare(2) held on request, so that a test
 * can kill a process while another one of its run sits at a known step.
 *
 * With SRT_TEST_HOLD_UNSHARE naming a file that does not exist yet, the first caller of
 * unshare() writes its pid there (whole, by a rename) and sleeps 30 s before the call
 * goes on. Anyone else, and every caller without the variable, goes straight through.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
unshare(int flags)
{
	int (*next)(int) = (int (*)(int))dlsym(RTLD_NEXT, "unshare");
	const char *at = getenv("SRT_TEST_HOLD_UNSHARE");
	char tmp[4096], pid[32];
	struct timespec hold = { 30, 0 };
	int fd, n;

	if (at != NULL && *at != '\0' && access(at, F_OK) == -1 &&
	    snprintf(tmp, sizeof(tmp), "%s.tmp", at) < (int)sizeof(tmp) &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) != -1) {
		n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (write(fd, pid, (size_t)n) == n && close(fd) == 0 && rename(tmp, at) == 0)
			(void)nanosleep(&hold, NULL);
	}
	return next(flags);
}
