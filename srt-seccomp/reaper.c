/*
 * Waiting, reaping and signal forwarding, used by PID 1 of the new namespace (for
 * the worker) and by the process that created the namespace (for PID 1).
 *
 * The signals are blocked before the first fork and taken with sigwaitinfo(): no
 * handler, no race between a SIGCHLD and the wait, and PID 1, which the kernel
 * shields from signals it has no handler for, still receives them.
 *
 * The lifeline (--lifeline-fd) is the read end of a pipe whose only writer is the
 * launcher. Armed with O_ASYNC, the kernel sends this process SIGIO when the last
 * writer goes, which sigwaitinfo() takes like the rest: the launcher is gone, however
 * it ended, and the child is killed.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util.h"
#include "srt-seccomp.h"

static int reaper_lifeline = -1;        /* --lifeline-fd, once armed */

static const int reaper_forwarded[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
};

static void
reaper_set(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	sigaddset(set, SIGIO);
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

/* Is the lifeline's writer gone? */
static int
reaper_lifeline_cut(void)
{
	struct pollfd pfd = { .fd = reaper_lifeline, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & (POLLHUP | POLLERR | POLLNVAL));
}

/*
 * Arms fd as the lifeline (after reaper_block, which blocks SIGIO). Fails when fd is
 * not a pipe's read end, or when the launcher is gone already: nothing should start
 * then. The descriptor is close-on-exec: the command never holds it.
 */
int
reaper_arm_lifeline(int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode) ||
	    (fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) != O_RDONLY) {
		log_warnx("--lifeline-fd %d: not the read end of a pipe", fd);
		return -1;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 || fcntl(fd, F_SETOWN, getpid()) == -1 ||
	    fcntl(fd, F_SETSIG, SIGIO) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_ASYNC | O_NONBLOCK) == -1) {
		log_warn("--lifeline-fd %d: fcntl", fd);
		return -1;
	}
	reaper_lifeline = fd;
	if (reaper_lifeline_cut()) {
		log_warnx("the launcher is gone (lifeline closed): not starting");
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
 * included, and forwarding would deliver them twice. When `group` (> 0) is the
 * command's own process group, SIGINT and SIGQUIT go to all of it, as a terminal's
 * do: a shell waiting for a child gives up only once the child died of the same
 * signal, and a child that never got it would keep the shell waiting.
 */
int
reaper_wait(pid_t child, pid_t group)
{
	siginfo_t si;
	sigset_t set;
	pid_t pid, target;
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
		if (si.si_signo == SIGIO) {
			if (reaper_lifeline != -1 && reaper_lifeline_cut()) {
				log_debug("the launcher is gone: killing %ld", (long)child);
				if (kill(child, SIGKILL) == -1 && errno != ESRCH)
					fatal("kill %ld", (long)child);
			}
			continue;
		}
		if ((si.si_signo == SIGINT || si.si_signo == SIGQUIT) &&
		    si.si_code == SI_KERNEL)
			continue;
		target = group > 0 && (si.si_signo == SIGINT || si.si_signo == SIGQUIT) ?
		    -group : child;
		log_debug("forwarding signal %d to %ld", si.si_signo, (long)target);
		if (kill(target, si.si_signo) == -1 && errno != ESRCH)
			fatal("kill %ld", (long)target);
	}
}
