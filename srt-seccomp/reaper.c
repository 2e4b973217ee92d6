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
 * it ended, or closed its end to end the run (srt-launch does on a signal that comes
 * before the lifeline is armed), and the child is killed. PID 1 then ends the run as it
 * would have anyway: it reaps the command and runs the supervisor's last checks
 * (sup_finish) before it exits. So nothing else may kill it first: an armed lifeline
 * replaces the death signal bwrap gave its child, and the process above a nested PID 1
 * passes the SIGIO on (reaper_relay_lifeline) rather than killing it.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "util.h"
#include "srt-seccomp.h"

static int reaper_lifeline = -1; /* --lifeline-fd, once armed */
static bool reaper_relay;        /* the child is a nested PID 1: pass SIGIO on */

static const int reaper_forwarded[] = {
	SIGTERM,
	SIGINT,
	SIGHUP,
	SIGQUIT,
	SIGUSR1,
	SIGUSR2,
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
 * not a pipe's read end, or when the lifeline is closed already: nothing should start
 * then. The descriptor is close-on-exec: the command never holds it. O_ASYNC comes last,
 * after the signals are blocked: srt-launch reads it in our fdinfo as the sign that we
 * take the signals it forwards (bwrap_sandbox_ready), and its keeper as the sign that we
 * end the run ourselves once the launcher is gone (keeper.c, keeper_await_finish).
 * From then on the lifeline alone says the launcher is gone: the death signal bwrap
 * set for its child (--die-with-parent, SIGKILL as bwrap dies with the launcher) would
 * kill us before the supervisor's last checks, and is cleared.
 */
int
reaper_arm_lifeline(int fd)
{
	struct stat st;
	int fl;

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode) || (fl = fcntl(fd, F_GETFL)) == -1 ||
	    (fl & O_ACCMODE) != O_RDONLY) {
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
		log_warnx("the lifeline is closed (the launcher is gone, or ends the run): "
			  "not starting");
		return -1;
	}
	if (prctl(PR_SET_PDEATHSIG, 0) == -1) {
		log_warn("prctl PR_SET_PDEATHSIG");
		return -1;
	}
	return 0;
}

/*
 * This process waits for a nested PID 1 (reaper_wait's child), which holds the same
 * lifeline but does not get its SIGIO (the owner is this process): on the lifeline's
 * end, pass the SIGIO on, and PID 1 ends the run as reaper_signal says; killing it would
 * skip its last checks.
 */
void
reaper_relay_lifeline(void)
{
	reaper_relay = true;
}

static int
reaper_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return EXIT_SIGNALED(WTERMSIG(status));
	return EXIT_SELF;
}

/*
 * One signal taken: SIGCHLD reaps (done: *status is the child's exit code), the
 * lifeline's SIGIO kills the child once the lifeline is closed (or, relayed, is passed
 * on to it), the rest are forwarded to `child`, except SIGINT and SIGQUIT sent by the
 * kernel: those come from the terminal, which signals the whole foreground process
 * group, the command included, and forwarding would deliver them twice. When `group`
 * (> 0) is the command's own process group, SIGINT and SIGQUIT go to all of it, as a
 * terminal's do: a shell waiting for a child gives up only once the child died of the
 * same signal, and a child that never got it would keep the shell waiting.
 */
static bool
reaper_signal(pid_t child, pid_t group, int signo, int code, int *status)
{
	pid_t pid, target;
	int st;

	if (signo == SIGCHLD) {
		while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
			if (pid == child) {
				*status = reaper_status(st);
				return true;
			}
		if (pid == -1 && errno != ECHILD)
			fatal("waitpid");
		if (pid == -1)
			fatalx("waitpid: process %ld vanished", (long)child);
		return false;
	}
	if (signo == SIGIO) {
		if (reaper_lifeline != -1 && reaper_lifeline_cut()) {
			log_debug("the lifeline is closed: %s %ld",
			    reaper_relay ? "telling" : "killing", (long)child);
			if (kill(child, reaper_relay ? SIGIO : SIGKILL) == -1 && errno != ESRCH)
				fatal("kill %ld", (long)child);
		}
		return false;
	}
	if ((signo == SIGINT || signo == SIGQUIT) && code == SI_KERNEL)
		return false;
	target = group > 0 && (signo == SIGINT || signo == SIGQUIT) ? -group : child;
	log_debug("forwarding signal %d to %ld", signo, (long)target);
	if (kill(target, signo) == -1 && errno != ESRCH)
		fatal("kill %ld", (long)target);
	return false;
}

#define REAPER_POLL_MAX 8

/*
 * Reaps every child until `child` ends and returns its status as an exit code (its own
 * code, or 128 + the signal that killed it); signals as reaper_signal says. With a
 * supervisor (sup, else NULL) its descriptors are served in the same loop: the signals
 * then come through a signalfd. Should the supervisor say the sandbox must end (a read
 * deny lost), this process exits, and with it, PID 1, everything in the namespace.
 */
int
reaper_wait(pid_t child, pid_t group, struct sup *sup)
{
	struct pollfd p[REAPER_POLL_MAX];
	struct signalfd_siginfo ssi;
	siginfo_t si;
	sigset_t set;
	int status, sfd, n;

	reaper_set(&set);
	if (sup == NULL) {
		for (;;) {
			if (sigwaitinfo(&set, &si) == -1) {
				if (errno == EINTR)
					continue;
				fatal("sigwaitinfo");
			}
			if (reaper_signal(child, group, si.si_signo, si.si_code, &status))
				return status;
		}
	}
	if ((sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) == -1)
		fatal("signalfd");
	for (;;) {
		p[0] = (struct pollfd){ .fd = sfd, .events = POLLIN };
		n = 1 + sup_pollfds(sup, p + 1, REAPER_POLL_MAX - 1);
		if (poll(p, (nfds_t)n, -1) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll");
		}
		if (sup_events(sup, p + 1, n - 1) == -1)
			_exit(EXIT_SELF);
		if (p[0].revents == 0)
			continue;
		while (read(sfd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
			if (reaper_signal(
				child, group, (int)ssi.ssi_signo, ssi.ssi_code, &status)) {
				close(sfd);
				return status;
			}
	}
}
