/*
 * Starting bwrap (SPEC §5.4). Its whole command line but the command is the plan's
 * (lib/sandbox/plan_linux_sandbox.c: plan.args, the options, and plan.exec, srt-seccomp and its
 * options), and so are the numbers of the descriptors it gets (plan.fd); this file only
 * puts our descriptors at those numbers, executes bwrap and sends it the words. The
 * options travel through --args (a large plan would not fit the kernel's argument
 * limits); srt-seccomp and the command stay on the real argv, where bwrap wants them.
 *
 * bwrap is started before the plan's options are built (bwrap_start) and reads them
 * from a pipe that we fill once they are ready (bwrap_send_args): its execution and
 * start-up, about a millisecond, overlap our own work. Should we die while writing, bwrap
 * may read part of its options; srt-seccomp, which it starts, then finds its lifeline cut
 * and never runs the command. Should we fail otherwise, bwrap is killed before the pipe
 * is closed (bwrap_abort).
 *
 * The write guard goes to srt-seccomp the same way, in a memfd bwrap passes on: we
 * write it once the plan is ready and seal it before the options go (bwrap_send_guard);
 * srt-seccomp refuses a guard that is not sealed, so a launcher that died half-way never
 * leaves a partial guard behind it.
 *
 * srt-seccomp's violation monitor (--violations-fd, plan.fd[PLAN_FD_VIOL]) writes its
 * records on a non-blocking pipe whose read end we keep and read as the command runs
 * (run.c); srt-seccomp drops what does not fit, never waits.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/keyctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "fdpass.h"
#include "launch.h"

/* argv: bwrap --args N, then the plan's exec and the command. */
#define BWRAP_ARGV_EXEC 3

#define VIOL_PIPE_SIZE (1024 * 1024) /* /proc/sys/fs/pipe-max-size's default */

/* A word as a shell would need it to read it back. */
static void
bwrap_quote(struct buf *b, const char *w)
{
	char *q = shell_quote(w);

	buf_adds(b, q);
	free(q);
}

/*
 * The words bwrap parses, with the options where --args stands: the plan's args and
 * exec, then the command (for -d; `srt-policy plan --target linux` prints the same
 * words but the command).
 */
static void
bwrap_debug_argv(const struct launch *l, char *const *argv)
{
	struct buf b = { 0 };
	size_t i;

	if (!log_debugging())
		return;
	for (i = 0; i < l->sandbox.plan.args.n; i++) {
		bwrap_quote(&b, l->sandbox.plan.args.v[i]);
		buf_addc(&b, ' ');
	}
	for (i = BWRAP_ARGV_EXEC; argv[i] != NULL; i++) {
		if (i > BWRAP_ARGV_EXEC)
			buf_addc(&b, ' ');
		bwrap_quote(&b, argv[i]);
	}
	log_debug("bwrap arguments (the options through --args %s): %s", argv[2], buf_str(&b));
	buf_free(&b);
}

static void
bwrap_argv(const struct launch *l, struct strlist *a)
{
	size_t i;

	strlist_push(a, l->helper_path[H_BWRAP]);
	strlist_push(a, "--args");
	strlist_pushf(a, "%d", l->sandbox.plan.fd[PLAN_FD_ARGS]);
	for (i = 0; i < l->sandbox.plan.exec.n; i++)
		strlist_push(a, l->sandbox.plan.exec.v[i]);
	if (l->cstring != NULL) {
		strlist_push(a, l->shell);
		strlist_push(a, "-c");
		strlist_push(a, l->cstring);
	} else
		for (i = 0; l->cmd[i] != NULL; i++)
			strlist_push(a, l->cmd[i]);
}

/*
 * Our descriptors (mine, by what they carry) in the order bwrap gets them, by the plan's
 * numbers: keep[0] becomes PLAN_FD_FIRST, and so on. Their count; -1 when the numbers
 * are not PLAN_FD_FIRST, PLAN_FD_FIRST + 1, ... without a gap, or one of ours is missing.
 */
static int
bwrap_fds(const struct launch *l, const int mine[PLAN_FD_MAX], int keep[PLAN_FD_MAX])
{
	int k, n = 0, at;

	for (k = 0; k < PLAN_FD_MAX; k++)
		keep[k] = -1;
	for (k = 0; k < PLAN_FD_MAX; k++) {
		if (l->sandbox.plan.fd[k] == -1)
			continue;
		at = l->sandbox.plan.fd[k] - PLAN_FD_FIRST;
		if (at < 0 || at >= PLAN_FD_MAX || keep[at] != -1 || mine[k] == -1)
			return -1;
		keep[at] = mine[k];
		n++;
	}
	for (k = 0; k < n; k++)
		if (keep[k] == -1)
			return -1;
	return n;
}

/*
 * The child: into the sandbox's namespaces, then bwrap, by its descriptor (helpers_exec),
 * with keep (nkeep of them) from PLAN_FD_FIRST on. Failures go up the ep pipe. The sandbox's
 * lifeline is for srt-seccomp (--lifeline-fd), which bwrap leaves open: bwrap arms
 * --die-with-parent in its child only late in its set-up, and a launcher killed before
 * that would otherwise leave the sandbox running. srt-seccomp sees the lifeline's EOF
 * however early that happens.
 */
static noreturn void
bwrap_child(const struct launch *l, char **argv, char **envp, const int *keep, int nkeep,
    int ep_w, pid_t launcher)
{
	int exe = l->helper_fd[H_BWRAP];

	spawn_child_reset();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(LAUNCH_FAIL);
	/* Into the sandbox's namespaces: the user namespace first, which gives the
	 * capability that entering its network namespace needs. */
	if ((l->sandbox.userns_fd != -1 && setns(l->sandbox.userns_fd, CLONE_NEWUSER) == -1) ||
	    setns(l->sandbox.netns_fd, CLONE_NEWNET) == -1) {
		errno = -errno;
		spawn_report_errno(ep_w);
		_exit(LAUNCH_FAIL);
	}
	/* Keyrings have no namespace: with the caller's session keyring the command could
	 * read its keys (Kerberos KEYRING: caches, for one). A fresh anonymous one instead;
	 * ENOSYS means a kernel without keys, and nothing to hide. */
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1 && errno != ENOSYS) {
		errno = -errno;
		spawn_report_errno(ep_w);
		_exit(LAUNCH_FAIL);
	}
	spawn_arrange_fds(keep, (size_t)nkeep, ep_w, &exe);
	helpers_exec(l, H_BWRAP, exe, argv, envp);
	spawn_report_errno(PLAN_FD_FIRST + nkeep);
	_exit(LAUNCH_FAIL);
}

/*
 * The child only resets its own signal state, enters the network namespace, arranges
 * its fds and executes bwrap: all of it per task, so vfork() will do, and it spares
 * copying the launcher's address space (on hosts where page tables are costly, such
 * as virtual machines without nested paging, a fork costs more than the rest of the
 * launch before bwrap). Entering a user namespace, though, is refused to a task that
 * shares its memory (setns(2): EINVAL), so an unprivileged launch, which must enter
 * the namespace child's, forks. Nothing here is written after the vfork() (the child
 * never returns), so nothing can be clobbered.
 */
static pid_t
bwrap_fork(
    const struct launch *l, char **argv, char **envp, const int *keep, int nkeep, int ep_w)
{
	pid_t launcher = getpid(), pid;

	pid = l->sandbox.userns_fd == -1 ? vfork() : fork();
	if (pid == 0)
		bwrap_child(l, argv, envp, keep, nkeep, ep_w, launcher);
	return pid;
}

/* Write all of buf to fd; -1 with errno otherwise. */
static int
bwrap_write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* The options, NUL-separated, in one buffer (*len bytes). */
static char *
bwrap_options_buf(const struct strlist *opts, size_t *len)
{
	size_t i;
	char *buf, *o;

	for (i = 0, *len = 0; i < opts->n; i++)
		*len += strlen(opts->v[i]) + 1;
	o = buf = xmalloc(*len + 1);
	for (i = 0; i < opts->n; i++) {
		size_t k = strlen(opts->v[i]) + 1;

		memcpy(o, opts->v[i], k);
		o += k;
	}
	return buf;
}

/* Start bwrap, with the plan begun (plan_linux_begin): it waits for its options on a
 * pipe (see the top of this file). */
int
bwrap_start(struct launch *l, char **envp)
{
	struct strlist argv = { 0 };
	int st[2] = { -1, -1 }, ep[2] = { -1, -1 }, ap[2] = { -1, -1 };
	int mine[PLAN_FD_MAX], keep[PLAN_FD_MAX + CRED_FILES_MAX];
	int err = 0, rc = -1, nkeep;
	size_t i;
	pid_t pid;

	bwrap_argv(l, &argv);
	if (l->sandbox.plan.fd[PLAN_FD_GUARD] != -1 &&
	    (l->sandbox.guard_fd = memfd_create(
		 "srt-wguard", MFD_CLOEXEC | MFD_ALLOW_SEALING)) == -1) {
		log_warn("memfd_create");
		goto out;
	}
	if (pipe2(ap, O_CLOEXEC) == -1 || pipe2(st, O_CLOEXEC) == -1 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		log_warn("pipe");
		goto out;
	}
	if (l->sandbox.plan.fd[PLAN_FD_VIOL] != -1) {
		int vp[2];

		if (pipe2(vp, O_CLOEXEC | O_NONBLOCK) == -1) {
			log_warn("pipe");
			goto out;
		}
		l->sandbox.viol_r = vp[0];
		l->sandbox.viol_w = vp[1];
		/* Room for a whole run's lines (1,000 of a few hundred bytes) while we are
		 * slow to read: srt-seccomp drops what does not fit. The kernel takes the
		 * pages as they are written; at most pipe-max-size, else the default. */
		(void)fcntl(l->sandbox.viol_w, F_SETPIPE_SZ, VIOL_PIPE_SIZE);
	}
	mine[PLAN_FD_STATUS] = st[1];
	mine[PLAN_FD_ARGS] = ap[0];
	mine[PLAN_FD_LIFELINE] = l->sandbox.lifeline_r;
	mine[PLAN_FD_GUARD] = l->sandbox.guard_fd;
	mine[PLAN_FD_VIOL] = l->sandbox.viol_w;
	mine[PLAN_FD_SECCOMP] = l->helper_fd[H_SECCOMP];
	if ((nkeep = bwrap_fds(l, mine, keep)) == -1) {
		log_warnx("the plan's descriptors for bwrap do not add up");
		goto out;
	}
	/* The masked copies of credential files (cred.c) follow the plan's descriptors;
	 * cred_files_settle writes the options that consume them. */
	l->cred.fd_base = PLAN_FD_FIRST + nkeep;
	for (i = 0; i < l->cred.nfiles && i < CRED_FILES_MAX; i++)
		keep[nkeep++] = l->cred.file_fd[i];
	if ((pid = bwrap_fork(l, argv.v, envp, keep, nkeep, ep[1])) == -1) {
		log_warn("fork");
		goto out;
	}
	close(st[1]);
	st[1] = -1;
	/* Only the sandbox holds the read end from now on, and the monitor's write end. */
	fd_close(&l->sandbox.lifeline_r);
	fd_close(&l->sandbox.viol_w);
	close(ep[1]);
	ep[1] = -1;
	if (spawn_wait_exec(ep[0], &err) == -1) {
		if (err < 0)
			log_warnx("cannot enter the sandbox's namespaces: %s", strerror(-err));
		else if (err == ESTALE && l->helper_script[H_BWRAP])
			log_warnx("bwrapPath %s: the file was replaced after srt started",
			    l->helper_path[H_BWRAP]);
		else
			log_warnx("%s: %s", l->helper_path[H_BWRAP], strerror(err));
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		goto out;
	}
	l->sandbox.bwrap_pid = pid;
	l->sandbox.status_r = st[0];
	st[0] = -1;
	(void)fcntl(l->sandbox.status_r, F_SETFL, O_NONBLOCK);
	l->sandbox.bwrap_args_w = ap[1];
	ap[1] = -1;
	rc = 0;
out:
	fd_close(&ap[0]);
	fd_close(&ap[1]);
	fd_close(&st[0]);
	fd_close(&st[1]);
	fd_close(&ep[0]);
	fd_close(&ep[1]);
	strlist_free(&argv);
	return rc;
}

/* The write guard of the plan, into its memfd, sealed: srt-seccomp reads nothing less. */
int
bwrap_send_guard(struct launch *l)
{
	size_t len;
	char *buf;
	int rc = 0;

	if (l->sandbox.plan.fd[PLAN_FD_GUARD] == -1) {
		fd_close(&l->sandbox.guard_fd);
		return 0;
	}
	buf = wguard_encode(&l->sandbox.plan.guard, &len);
	if (bwrap_write_all(l->sandbox.guard_fd, buf, len) == -1 ||
	    fcntl(l->sandbox.guard_fd, F_ADD_SEALS,
		F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) == -1) {
		log_warn("write guard");
		rc = -1;
	}
	free(buf);
	fd_close(&l->sandbox.guard_fd);
	if (rc == -1)
		bwrap_abort(l);
	return rc;
}

/* The plan's options for a bwrap that waits for them: the plan must be finished. */
int
bwrap_send_args(struct launch *l)
{
	struct strlist argv = { 0 };
	size_t len;
	char *buf;
	int rc = 0;

	if (l->sandbox.bwrap_args_w == -1)
		return 0;
	if (log_debugging()) {
		bwrap_argv(l, &argv);
		bwrap_debug_argv(l, argv.v);
		strlist_free(&argv);
	}
	buf = bwrap_options_buf(&l->sandbox.plan.args, &len);
	if (bwrap_write_all(l->sandbox.bwrap_args_w, buf, len) == -1) {
		log_warn("cannot hand bwrap its options");
		rc = -1;
	}
	free(buf);
	if (rc == -1)
		bwrap_abort(l);
	else
		fd_close(&l->sandbox.bwrap_args_w);
	return rc;
}

/*
 * A bwrap still waiting for its options is killed, and reaped, before its pipe is
 * closed: it never runs with part of them.
 */
void
bwrap_abort(struct launch *l)
{
	if (l->sandbox.bwrap_args_w == -1)
		return;
	if (l->sandbox.bwrap_pid > 0) {
		(void)kill(l->sandbox.bwrap_pid, SIGKILL);
		while (waitpid(l->sandbox.bwrap_pid, NULL, 0) == -1 && errno == EINTR)
			;
		l->sandbox.bwrap_pid = 0;
	}
	fd_close(&l->sandbox.bwrap_args_w);
}

/* bwrap's --json-status-fd: {"child-pid": N} when the sandbox starts, {"exit-code": N}
 * only if the command (srt-seccomp) was executed. */
static void
bwrap_status_line(struct launch *l, const char *s, size_t n)
{
	cJSON *o = cJSON_ParseWithLength(s, n), *v;

	if (o == NULL)
		return;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "child-pid")) &&
	    v->valuedouble > 0)
		l->sandbox.init = (pid_t)v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "exit-code"))) {
		l->sandbox.command_ran = true;
		l->sandbox.command_exit = v->valueint;
	}
	cJSON_Delete(o);
}

void
bwrap_status_read(struct launch *l)
{
	static char buf[4096];
	static size_t len;
	ssize_t n;

	while (l->sandbox.status_r != -1) {
		char *nl;

		if (len == sizeof(buf))
			len = 0; /* not bwrap's: drop it */
		n = read(l->sandbox.status_r, buf + len, sizeof(buf) - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				if (len > 0)
					bwrap_status_line(l, buf, len);
				len = 0;
				fd_close(&l->sandbox.status_r);
			}
			return;
		}
		len += (size_t)n;
		while ((nl = memchr(buf, '\n', len)) != NULL) {
			bwrap_status_line(l, buf, (size_t)(nl - buf));
			len -= (size_t)(nl - buf) + 1;
			memmove(buf, nl + 1, len);
		}
	}
}

/*
 * The first process bwrap started inside, srt-seccomp (--as-pid-1): the one to forward
 * signals to; 0 while the sandbox is not running yet.
 */
pid_t
bwrap_initial_pid(const struct launch *l)
{
	return l->sandbox.init > 0 ? l->sandbox.init : 0;
}

/*
 * Does the sandbox's first process take signals now, rather than lose them? The kernel
 * drops a signal whose action is the default for the init of a PID namespace, and that
 * is what the sandbox's PID 1 is until srt-seccomp, its program, has blocked the signals
 * it forwards (reaper_block): before, it is bwrap's child setting up, or srt-seccomp
 * starting. srt-seccomp then arms its lifeline, O_ASYNC last (reaper_arm_lifeline),
 * before it starts anything, and that flag is what we look for, on its descriptor of the
 * lifeline in /proc/PID/fdinfo: the mask of /proc/PID/status would not do, as a process
 * waiting in sigwaitinfo(2) shows the signals it waits for unblocked. fdinfo is ours to
 * read, as root or as the owner of the sandbox's user namespaces.
 */
bool
bwrap_sandbox_ready(const struct launch *l)
{
	pid_t pid = bwrap_initial_pid(l);
	char path[64], buf[1024], *p;
	unsigned long flags, ino;
	size_t len = 0;
	ssize_t n;
	int fd;

	if (pid == 0 || l->sandbox.plan.fd[PLAN_FD_LIFELINE] == -1)
		return false;
	(void)snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%d", (long)pid,
	    l->sandbox.plan.fd[PLAN_FD_LIFELINE]);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	while (len < sizeof(buf) - 1) {
		if ((n = read(fd, buf + len, sizeof(buf) - 1 - len)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	if ((p = strstr(buf, "flags:")) == NULL || sscanf(p + 6, "%lo", &flags) != 1 ||
	    (flags & O_ASYNC) == 0)
		return false;
	/* The same pipe, on kernels that show the inode. */
	if ((p = strstr(buf, "\nino:")) != NULL && sscanf(p + 5, "%lu", &ino) == 1 &&
	    ino != l->sandbox.lifeline_ino)
		return false;
	return true;
}
