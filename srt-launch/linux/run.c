/*
 * srt-launch and srt on Linux: run one command in the sandbox of SPEC §2, §5
 * (launch_run, after main's command line: srt-launch.c).
 *
 * The sequence: policy; the network namespace (netns.c); the keeper, our janitor, which
 * holds it (keeper.c); bwrap, inside the namespace, waiting for its options (bwrap.c);
 * temp dir and the plan's options (lib/sandbox/plan.h), sent to bwrap; the proxies start on
 * first use (proxies.c); then wait, forwarding signals and reading the proxies'
 * decisions, and clean everything up.
 */
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "launch.h"
#include "layout.h"
#include "managed.h"
#include "path.h"

#define PROXY_STOP_MS 3000

static const int forwarded[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The decider's descriptors go to srt-httpd only. */
static int
decider_open(struct launch *l)
{
	int fds[2] = { l->proxy.decider_in, l->proxy.decider_out };

	for (int i = 0; i < 2 && fds[0] != -1; i++)
		if (fcntl(fds[i], F_SETFD, FD_CLOEXEC) == -1) {
			log_warnx(
			    "decider descriptor %d is not usable: %s", fds[i], strerror(errno));
			return -1;
		}
	return 0;
}

/*
 * With a decider, srt-httpd starts with the run rather than at the first connection, and
 * the command only once the decider has answered its hello: the reference's proxy mode
 * hears the hello before it listens. A link that ends first (a closed decider, a hello
 * that breaks the protocol) is not one to run under: srt refuses, as for a control
 * channel that fails before its first update. Signals that would end the run end the
 * wait; a decider that never answers is waited for, as the reference's is.
 */
static int
decider_start(struct launch *l, int sigfd)
{
	char line[512];
	size_t len = 0;
	ssize_t n;

	if (l->proxy.decider_in == -1 || l->set.net.http_proxy_port != 0)
		return 0;
	if (pipe2(l->proxy.decider_ready, O_CLOEXEC) == -1) {
		log_warn("pipe");
		return -1;
	}
	if (proxies_start(l, PK_HTTP) == -1)
		return -1;
	log_debug("waiting for the decider's hello");
	while (len < sizeof(line) - 1) {
		struct pollfd p[2] = { { l->proxy.decider_ready[0], POLLIN, 0 },
			{ sigfd, POLLIN, 0 } };

		if (poll(p, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			return -1;
		}
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
				if (si.ssi_signo != SIGCHLD && si.ssi_signo != SIGWINCH) {
					log_warnx(
					    "signal %d while waiting for the decider's hello",
					    (int)si.ssi_signo);
					return -1;
				}
		}
		if (!(p[0].revents & (POLLIN | POLLHUP)))
			continue;
		n = read(l->proxy.decider_ready[0], line + len, sizeof(line) - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		if (memchr(line, '\n', len) != NULL)
			break;
	}
	line[len] = '\0';
	fd_close(&l->proxy.decider_ready[0]);
	if (strcmp(line, "ok\n") == 0) {
		log_debug("the decider said hello");
		return 0;
	}
	line[strcspn(line, "\n")] = '\0';
	log_warnx("decider: %s: refusing to run the command without the decider it asks for",
	    len > 7 && strncmp(line, "error: ", 7) == 0
		? line + 7
		: "srt-httpd ended before the decider's hello");
	return -1;
}

static int
signals_block(sigset_t *set)
{
	size_t i;

	sigemptyset(set);
	sigaddset(set, SIGCHLD);
	for (i = 0; i < sizeof(forwarded) / sizeof(forwarded[0]); i++)
		sigaddset(set, forwarded[i]);
	if (sigprocmask(SIG_BLOCK, set, NULL) == -1)
		return -1;
	(void)signal(SIGPIPE, SIG_IGN);
	return signalfd(-1, set, SFD_CLOEXEC | SFD_NONBLOCK);
}

static void
reap(struct launch *l, int *bwrap_status, bool *bwrap_done)
{
	pid_t pid;
	int status, k;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == l->sandbox.bwrap_pid) {
			*bwrap_status = status;
			*bwrap_done = true;
			l->sandbox.bwrap_reaped = true;
			continue;
		}
		for (k = 0; k < PK_MAX; k++)
			if (pid == l->proxy.pid[k]) {
				l->proxy.pid[k] = 0;
				log_warnx("%s ended while the command runs (status %d)",
				    k == PK_HTTP ? "srt-httpd" : "srt-socksd",
				    WIFEXITED(status) ? WEXITSTATUS(status)
						      : EXIT_SIGNALED(WTERMSIG(status)));
			}
		if (pid == l->sandbox.keeper_pid)
			l->sandbox.keeper_pid = 0;
	}
}

/*
 * A signal before the sandbox takes signals ends the run: there is nobody yet to pass
 * it to, and its PID 1 would drop it. Our end of the sandbox's lifeline closes, so that
 * srt-seccomp, should it have started, kills what it started or never starts anything
 * (reaper.c), and bwrap goes at once: a bwrap that died of the signal itself before
 * reporting its child would leave that child waiting for it forever. What is left of the
 * sandbox (that child, stuck in its set-up) is the keeper's to kill once we are gone:
 * bwrap's exit was not the sandbox's end (cleanup). We exit 128 + the signal.
 */
static void
run_stop(struct launch *l, int sig)
{
	log_debug("signal %d before the sandbox takes signals: ending the run", sig);
	l->sandbox.stop_signal = sig;
	fd_close(&l->sandbox.lifeline_w);
	(void)kill(l->sandbox.bwrap_pid, SIGKILL);
}

static void
forward_signal(struct launch *l, int sig)
{
	pid_t target;

	if (l->sandbox.stop_signal != 0)
		return;
	/* bwrap may have said where the sandbox is, or that it ended, in a line not read
	 * yet. Once it ended there is nobody to signal, and the run's status is the
	 * command's. */
	bwrap_status_read(l);
	if (l->sandbox.command_ran)
		return;
	/* A terminal's signals go to the command's whole process group, as ^C does in a
	 * shell: srt-seccomp, the sandbox's pid 1, does that itself. */
	if (bwrap_sandbox_ready(l)) {
		target = bwrap_initial_pid(l);
		log_debug("forwarding signal %d to %ld", sig, (long)target);
		(void)kill(target, sig);
	} else
		run_stop(l, sig);
}

/* Wait for bwrap, forwarding signals, reading the decision log and bwrap's status, and
 * starting each proxy when its sockets first see a client. */
/*
 * bwrap reports the command's exit code once it has collected its child, the PID 1 of the
 * sandbox's PID namespace; every other process of that namespace was killed and gone
 * before (the kernel empties a PID namespace before its PID 1 can be collected). Nothing
 * can write to the temp directory any more: remove it now, while bwrap itself is still
 * exiting, rather than after.
 */
static void
tmp_remove_early(struct launch *l)
{
	if (!l->sandbox.command_ran || !l->tmp_made)
		return;
	tmp_remove(l->tmpdir, false);
	l->tmp_made = false;
}

/* What srt-seccomp's monitor has written (non-blocking; closed at its end). */
static void
sandbox_violations_read(struct launch *l)
{
	char buf[8192];
	ssize_t r;

	while ((r = read(l->sandbox.viol_r, buf, sizeof(buf))) == -1 && errno == EINTR)
		;
	if (r > 0)
		violations_feed_sandbox(l->viol, buf, (size_t)r);
	else if (r == 0 || errno != EAGAIN)
		fd_close(&l->sandbox.viol_r);
}

/* Everything the violation pipe holds now, then it is closed: read until EOF, or until
 * it is empty while a writer is left. */
static void
sandbox_violations_drain(struct launch *l)
{
	char buf[8192];
	ssize_t r;

	while (l->sandbox.viol_r != -1) {
		if ((r = read(l->sandbox.viol_r, buf, sizeof(buf))) == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		violations_feed_sandbox(l->viol, buf, (size_t)r);
	}
	fd_close(&l->sandbox.viol_r);
}

/* Watch fd for input (unless it is closed: -1), with tag beside it in slot[]. */
static void
poll_add(struct pollfd *pfd, int *slot, nfds_t *n, int fd, int tag)
{
	if (fd == -1)
		return;
	pfd[*n] = (struct pollfd){ .fd = fd, .events = POLLIN };
	slot[(*n)++] = tag;
}

static int
wait_loop(struct launch *l, int sigfd)
{
	bool done = false;
	int status = 0;

	while (!done) {
		struct pollfd pfd[5 + LS_MAX];
		int slot[5 + LS_MAX];
		nfds_t n = 0, i;

		poll_add(pfd, slot, &n, sigfd, -1);
		poll_add(pfd, slot, &n, l->proxy.log_r, -2);
		poll_add(pfd, slot, &n, l->sandbox.viol_r, -4);
		poll_add(pfd, slot, &n, l->sandbox.status_r, -3);
		poll_add(pfd, slot, &n, l->control.fd, -5);
		for (i = 0; i < LS_MAX; i++)
			poll_add(pfd, slot, &n, l->proxy.listen_fd[i], (int)i);
		if (poll(pfd, n, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			(void)kill(l->sandbox.bwrap_pid, SIGKILL);
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (slot[i] == -1) {
				struct signalfd_siginfo si;

				while (read(sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
					if (si.ssi_signo == SIGCHLD)
						reap(l, &status, &done);
					else
						forward_signal(l, (int)si.ssi_signo);
				}
			} else if (slot[i] == -2) {
				char buf[8192];
				ssize_t r = read(l->proxy.log_r, buf, sizeof(buf));

				if (r > 0)
					violations_feed(l->viol, buf, (size_t)r);
			} else if (slot[i] == -4) {
				sandbox_violations_read(l);
			} else if (slot[i] == -5) {
				if (l->control.fd != -1)
					control_read(l);
			} else if (slot[i] == -3) {
				bwrap_status_read(l);
				tmp_remove_early(l);
			} else if (l->proxy.listen_fd[slot[i]] != -1) {
				enum proxy_kind k = slot[i] <= LS_HTTP6 ? PK_HTTP : PK_SOCKS;

				(void)proxies_start(l, k);
			}
		}
	}
	bwrap_status_read(l);
	/* What srt-seccomp wrote last is there: with an exit code reported, up to EOF
	 * (nothing of the sandbox is left to write); otherwise a process of it may hold
	 * the pipe still, for the keeper to kill, and we take what is there. */
	sandbox_violations_drain(l);
	/* The command was stopped over a dead control channel: its status is not the
	 * run's. */
	if (l->control.failed)
		return LAUNCH_FAIL;
	if (l->sandbox.stop_signal != 0)
		return EXIT_SIGNALED(l->sandbox.stop_signal);
	if (l->sandbox.command_ran)
		return l->sandbox.command_exit;
	if (WIFSIGNALED(status))
		return EXIT_SIGNALED(WTERMSIG(status));
	/* bwrap failed before the command ran, and has said why. */
	log_warnx("the sandbox could not be set up (bwrap exited with status %d)",
	    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	/* Its own user namespace may have been refused: we cannot know bwrap's error. */
	if (geteuid() != 0 && userns_apparmor_restricted(USERNS_APPARMOR_SYSCTL) == 1)
		log_warnx(
		    "AppArmor restricts unprivileged user namespaces here "
		    "(kernel.apparmor_restrict_unprivileged_userns is 1): if bwrap's message "
		    "above is a permission error, see srt(1), APPARMOR");
	return LAUNCH_FAIL;
}

static void
cleanup(struct launch *l)
{
	bool sandbox_gone = l->sandbox.bwrap_pid == 0 ||
	    (l->sandbox.bwrap_reaped && l->sandbox.command_ran);
	int status;

	if (l->tmp_made)
		tmp_remove(l->tmpdir, false);
	/*
	 * The sandbox's lifeline first: once the keeper's lifeline ends, the keeper may
	 * kill whatever still holds the sandbox's, and that must not be us. No sandbox was
	 * started, or bwrap reported the exit code of its child and its exit was
	 * collected (its PID namespace ended with its pid 1, every process in it killed
	 * and reaped first): then, everything removed above, the keeper has nothing to do.
	 * A bwrap that ended without an exit code (killed, or failing in its set-up) may
	 * leave its child behind, waiting for it in its set-up: the keeper looks once we
	 * are gone, as it does when we are killed.
	 */
	fd_close(&l->sandbox.lifeline_w);
	fd_close(&l->sandbox.lifeline_r);
	keeper_release(l, sandbox_gone);
	if (l->sandbox.keeper_pid > 0)
		while (waitpid(l->sandbox.keeper_pid, &status, WNOHANG) == -1 && errno == EINTR)
			;
	l->sandbox.keeper_pid = 0;
}

/* What the plan holds (-d), and srt's own directory when the command can write there. */
static void
debug_plan(const struct launch *l)
{
	const struct wguard *g = &l->sandbox.plan.guard;
	const char *own[2] = { l->self_dir, l->helper_dir };
	size_t i, k;

	for (k = 0; k < 2; k++) {
		if (k == 1 && strcmp(own[1], own[0]) == 0)
			break;
		for (i = 0; i < l->sandbox.plan.writes.n; i++)
			if (path_is_under(own[k], l->sandbox.plan.writes.v[i]))
				log_debug(
				    "warning: srt's own directory %s is writable inside "
				    "the sandbox (it lies in %s): its files are kept read-only "
				    "by the write guard%s",
				    own[k], l->sandbox.plan.writes.v[i],
				    l->unguarded ? ", which --unguarded turned off: the "
						   "command can replace them"
						 : "");
	}
	/* Without the supervisor nothing holds a read deny once the run has started. */
	if (l->unguarded && g->watch.n > 0)
		log_warnx(
		    "--unguarded: the read denies are masked as the run starts, and not "
		    "held after: a denied path the host replaces or creates during the run "
		    "(%s%s) can be read",
		    g->watch.v[0].name, g->watch.n > 1 ? ", ..." : "");
	if (!log_debugging())
		return;
	log_debug("plan: %zu bwrap filesystem arguments, TMPDIR %s",
	    l->sandbox.plan.fs_end - l->sandbox.plan.fs_first, l->tmpdir);
	if (l->unguarded) {
		log_debug("write guard: off (--unguarded)");
		return;
	}
	log_debug("write guard: %zu protected paths, depth %d, names under %zu roots, "
		  "%zu read denies held",
	    g->exact.n, g->depth, g->roots.n, g->watch.n);
	for (i = 0; i < g->exact.n; i++)
		log_debug2("write guard: %s (%s)", g->exact.v[i], g->exact_why.v[i]);
	for (i = 0; i < g->globs.n; i++)
		log_debug2("write guard: every name matching %s (%s)", g->globs.v[i],
		    g->globs_why.v[i]);
	for (i = 0; i < g->watch.n; i++) {
		const struct wguard_watched *w = &g->watch.v[i];

		if (w->mount == NULL)
			log_debug2("read deny held: %s (missing at the start)", w->name);
		else if (strcmp(w->name, w->mount) != 0)
			log_debug2("read deny held: %s (masked at %s, the way to it too)",
			    w->name, w->mount);
		else
			log_debug2("read deny held: %s (masked)", w->name);
	}
}

/* What the plan is built for: this run's paths, user and flags. `srt-policy plan
 * --target linux` fills the same fields the same way (srt-policy/plan.c). */
static void
launch_plan_ctx(const struct launch *l, struct plan_ctx *ctx)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->cwd = l->cwd;
	ctx->home = l->home;
	ctx->tmpdir = l->tmpdir;
	ctx->ref_tmpdir = PLAN_REF_TMPDIR;
	ctx->settings_path = l->config_path;
	ctx->managed_path = managed_path;
	ctx->self_dirs[0] = l->self_dir;
	if (strcmp(l->helper_dir, l->self_dir) != 0)
		ctx->self_dirs[1] = l->helper_dir;
	ctx->exec_path = getenv("PATH");
	ctx->seccomp_path = l->helper_path[H_SECCOMP];
	ctx->as_root = geteuid() == 0;
	ctx->unguarded = l->unguarded;
	ctx->no_fs_violations = l->no_fs_violations;
	ctx->debug = l->debug;
}

/* Everything main holds, released on every way out. */
static void
launch_free(struct launch *l)
{
	if (l->sandbox.plan_built)
		plan_linux_free(&l->sandbox.plan);
	l->sandbox.plan_built = false;
	if (l->pol != NULL)
		policy_free(l->pol);
	l->pol = NULL;
	cred_free(l);
	fd_close(&l->cred.w);
	settings_free(&l->set);
	violations_free(l->viol);
	l->viol = NULL;
	free(l->config_path);
	free(l->self_dir);
	free(l->cwd);
	free(l->home);
	free(l->tmpdir);
	helpers_close(l);
	fd_close(&l->sandbox.guard_fd);
	fd_close(&l->control.fd);
	buf_free(&l->control.buf);
	for (int k = 0; k < PK_MAX; k++) {
		fd_close(&l->control.proxy[k]);
		fd_close(&l->proxy.handoff[k]);
	}
	free(l->shell);
	ca_free(l);
	l->config_path = l->self_dir = l->cwd = l->home = l->tmpdir = l->shell = NULL;
}

/*
 * The sandbox's lifeline: srt-seccomp gets the read end (bwrap_spawn) and kills the
 * command when we are gone. It is made before the keeper, so that the keeper knows
 * the pipe and, once we are gone, kills whatever still holds its read end (a bwrap
 * child stuck in its set-up, waiting for a parent that died with us).
 */
static int
sandbox_lifeline_create(struct launch *l)
{
	int lf[2];
	struct stat st;

	if (pipe2(lf, O_CLOEXEC) == -1) {
		log_warn("pipe");
		return -1;
	}
	if (fstat(lf[0], &st) == -1) {
		log_warn("fstat");
		close(lf[0]);
		close(lf[1]);
		return -1;
	}
	l->sandbox.lifeline_r = lf[0];
	l->sandbox.lifeline_w = lf[1];
	l->sandbox.lifeline_ino = (unsigned long)st.st_ino;
	return 0;
}

/* Until the command can start: srt's own paths, the helpers, credentials, the
 * violations. */
static int
run_prepare(struct launch *l)
{
	char *cmdtext;

	if (sandbox_lifeline_create(l) == -1 || tmp_choose(&l->tmpdir) == -1)
		return -1;
	if ((l->cwd = getcwd(NULL, 0)) == NULL) {
		log_warn("getcwd");
		return -1;
	}
	if (launch_load_policy(l) == -1 || ca_setup(l) == -1)
		return -1;
	/* The sandbox's own violations come from the write guard's supervisor. */
	if (l->set.no_fs_violations || l->unguarded)
		l->no_fs_violations = true;
	if ((l->self_dir = layout_self_dir()) == NULL) {
		log_warnx("cannot find my own directory through /proc/self/exe");
		return -1;
	}
	if (helpers_open(l) == -1)
		return -1;
	if ((l->home = path_home()) == NULL) {
		log_warnx("cannot tell the home directory: set HOME to an absolute path");
		return -1;
	}
	if (l->cstring != NULL && (l->shell = lookup_bash()) == NULL) {
		log_debug("-c: no bash installed: the string runs with /bin/sh");
		l->shell = xstrdup("/bin/sh");
	}
	if (cred_prepare(l) == -1)
		return -1;
	cmdtext = launch_command_text(l);
	l->viol = violations_new(&l->set, cmdtext, l->violations_arg);
	free(cmdtext);
	return l->viol != NULL ? 0 : -1;
}

/* The plan's refusals, or that there is none to give. */
static int
plan_failed(const struct diags *errs)
{
	size_t i;

	for (i = 0; i < errs->msgs.n; i++)
		log_warnx("%s", errs->msgs.v[i]);
	if (errs->msgs.n == 0)
		log_warnx("cannot build the sandbox's plan");
	return LAUNCH_FAIL;
}

/* The sandbox, from the network namespace to the command's end: its exit status. */
static int
run_sandbox(struct launch *l, int sigfd, char ***envp, struct diags *errs)
{
	struct plan_ctx ctx;
	int rc;

	/*
	 * The keeper (keeper.c) once the namespace exists, which it holds: from here on,
	 * however we end, nothing of the run is left behind.
	 */
	if (netns_create(l) == -1 || keeper_start(l) == -1 || proxypipes_open(l) == -1)
		return LAUNCH_FAIL;
	if (decider_start(l, sigfd) == -1)
		return LAUNCH_FAIL;
	*envp = env_build(l);
	/* bwrap starts now, with the plan's first half, and waits for its options while
	 * we build them (bwrap.c). */
	launch_plan_ctx(l, &ctx);
	if (plan_linux_begin(&l->set, &ctx, &l->sandbox.plan, errs) == -1)
		return plan_failed(errs);
	l->sandbox.plan_built = true;
	if (bwrap_start(l, *envp) == -1)
		return LAUNCH_FAIL;
	/* The temp directory exists before the plan looks at it. */
	if (keeper_tmp_make(l) == -1 || ca_write_bundle(l) == -1)
		return LAUNCH_FAIL;
	if (plan_linux_finish(&l->set, &ctx, &l->sandbox.plan, errs) == -1)
		return plan_failed(errs);
	cred_files_settle(l);
	debug_plan(l);
	/* The guard is sealed before the options go: srt-seccomp starts only after them. */
	if (bwrap_send_guard(l) == -1 || bwrap_send_args(l) == -1)
		return LAUNCH_FAIL;
	fd_close(&l->sandbox.netns_fd);
	fd_close(&l->sandbox.userns_fd);
	rc = wait_loop(l, sigfd);
	log_debug("command ended: status %d", rc);
	return rc;
}

int
launch_run(struct launch *l)
{
	struct diags errs = { 0 };
	sigset_t blocked;
	char **envp = NULL;
	int sigfd = -1, rc = LAUNCH_FAIL;

	if (control_open(l) == -1 || decider_open(l) == -1)
		return LAUNCH_FAIL;
	tty_std_open();
	tty_save();
	spawn_signals_init();

	if (run_prepare(l) == -1)
		goto out;
	if ((sigfd = signals_block(&blocked)) == -1) {
		log_warn("signalfd");
		goto out;
	}
	rc = run_sandbox(l, sigfd, &envp, &errs);
out:
	bwrap_abort(l);
	proxies_stop(l, PROXY_STOP_MS);
	cleanup(l);
	/* The block explains refusals to whoever runs the command; srt-launch leaves it
	 * out only when the records go to --violations FILE instead. */
	if (l->viol != NULL)
		violations_finish(l->viol, l->srt_mode || l->violations_arg == NULL);
	env_free(envp);
	fd_close(&l->sandbox.netns_fd);
	fd_close(&l->sandbox.userns_fd);
	fd_close(&l->sandbox.status_r);
	fd_close(&l->sandbox.viol_r);
	fd_close(&l->sandbox.viol_w);
	fd_close(&sigfd);
	diags_free(&errs);
	launch_free(l);
	return rc;
}
