/*
 * Preloaded (LD_PRELOAD) by a bats suite: bwrap held on request just before it reports
 * its child's pid, so that a test can signal srt while the sandbox is not up yet.
 *
 * bwrap's monitor sets its own death signal (--die-with-parent) right before it writes
 * {"child-pid": N} to its --json-status-fd, and its child waits for it on an eventfd
 * meanwhile. With SRT_TEST_HOLD_BWRAP naming a file that does not exist yet, the first
 * process named bwrap that calls prctl(PR_SET_PDEATHSIG) writes its pid there (whole, by
 * a rename) and sleeps 30 s before the call goes on. Every other caller (srt itself,
 * whose child sets the same death signal before it executes bwrap, among them) goes
 * straight through.
 */
#include <sys/prctl.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int prctl(int option, ...);

int
prctl(int option, ...)
{
	int (*next)(int, ...) = (int (*)(int, ...))dlsym(RTLD_NEXT, "prctl");
	const char *at = getenv("SRT_TEST_HOLD_BWRAP");
	unsigned long a2, a3, a4, a5;
	char tmp[4096], pid[32];
	struct timespec hold = { 30, 0 };
	va_list ap;
	int fd, n;

	va_start(ap, option);
	a2 = va_arg(ap, unsigned long);
	a3 = va_arg(ap, unsigned long);
	a4 = va_arg(ap, unsigned long);
	a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_PDEATHSIG && at != NULL && *at != '\0' &&
	    strcmp(program_invocation_short_name, "bwrap") == 0 && access(at, F_OK) == -1 &&
	    snprintf(tmp, sizeof(tmp), "%s.tmp", at) < (int)sizeof(tmp) &&
	    (fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600)) != -1) {
		n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (write(fd, pid, (size_t)n) == n && close(fd) == 0 && rename(tmp, at) == 0)
			(void)nanosleep(&hold, NULL);
	}
	return next(option, a2, a3, a4, a5);
}
