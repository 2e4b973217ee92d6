/*
 * Waiting, reaping and signal forwarding, used by PID 1 of the new namespace (for
 * the worker) and by the process that created the namespace (for PID 1).
 *
 * The signals are blocked before the first fork and taken with sigwaitinfo(): no
 * handler, no race between a SIGCHLD and the wait, and PID 1, which the kernel
 * shields from signals it has no handler for, still receives them.
 */
#include <errno.h>
#include <signal.h>
#include <sys/wait.h>

#include "util.h"
#include "srt-seccomp.h"

static const int reaper_forwarded[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

static void
reaper_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < sizeof(reaper_forwarded) / sizeof(reaper_forwarded[0]); i++)
		sigaddset(set, reaper_forwarded[i]);
}

/* Blocks the forwarded signals and SIGCHLD; *saved gets the mask to restore. */
int
reaper_block(sigset_t *saved)
{
	struct sigaction sa;
	sigset_t set;

	/* An inherited SIG_IGN would make the kernel reap children behind our back. */
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = 0;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGCHLD, &sa, NULL) == -1) {
		log_warn("sigaction SIGCHLD");
		return -1;
	}
	reaper_set(&set);
	if (sigprocmask(SIG_BLOCK, &set, saved) == -1) {
		log_warn("sigprocmask");
		return -1;
	}
	return 0;
}

static int
reaper_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_SELF;
}

/*
 * Reaps every child until `child` ends and returns its status as an exit code
 * (its own code, or 128 + the signal that killed it). Forwarded signals go to
 * `child`, except SIGINT and SIGQUIT sent by the kernel: those come from the
 * terminal, which signals the whole foreground process group, the command
 * included, and forwarding would deliver them twice.
 */
int
reaper_wait(pid_t child)
{
	siginfo_t si;
	sigset_t set;
	pid_t pid;
	int status;

	reaper_set(&set);
	for (;;) {
		if (sigwaitinfo(&set, &si) == -1) {
			if (errno == EINTR)
				continue;
			fatal("sigwaitinfo");
		}
		if (si.si_signo == SIGCHLD) {
			while ((pid = waitpid(-1, &status, WNOHANG)) > 0)
				if (pid == child)
					return reaper_status(status);
			if (pid == -1 && errno != ECHILD)
				fatal("waitpid");
			if (pid == -1)
				fatalx("waitpid: process %ld vanished", (long)child);
			continue;
		}
		if ((si.si_signo == SIGINT || si.si_signo == SIGQUIT) &&
		    si.si_code == SI_KERNEL)
			continue;
		log_debug("forwarding signal %d to %ld", si.si_signo, (long)child);
		if (kill(child, si.si_signo) == -1 && errno != ESRCH)
			fatal("kill %ld", (long)child);
	}
}
