/*
 * The bubblewrap invocation (SPEC §5.4, BEHAVIOR §4.2): the filesystem plan from libsrt,
 * then the namespace and capability options, then srt-seccomp and the command. The
 * options travel through --args (a large plan would not fit the kernel's argument
 * limits); the command itself stays on the real argv, where bwrap wants it.
 *
 * With the seccomp stage, bwrap is started before the plan is built (bwrap_start) and
 * reads its options from a pipe that we fill once the plan is ready (bwrap_send_args):
 * its execution and start-up, about a millisecond, overlap our own work. Should we die
 * while writing, bwrap may read part of its options; srt-seccomp, which it starts, then
 * finds its lifeline cut and never runs the command. Should we fail otherwise, bwrap is
 * killed before the pipe is closed (bwrap_abort). Without the seccomp stage
 * (allowAllUnixSockets) there is no such guard: the options are written whole, to a
 * sealed memfd, before bwrap starts.
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

#include "fdpass.h"
#include "launch.h"

/* A word as a shell would need it to read it back (for -d output only). */
static void
bwrap_quote(struct strlist *out, const char *w)
{
	strlist_push_owned(out, shell_quote(w));
}

static void
bwrap_debug_argv(const struct strlist *opts, char *const *argv)
{
	struct strlist q = { 0 };
	size_t i, len = 0;
	char *line, *o;

	if (!log_debugging())
		return;
	for (i = 0; argv[i] != NULL; i++) {
		bwrap_quote(&q, argv[i]);
		/* show the --args contents where they are read */
		if (i == 2)
			for (size_t j = 0; j < opts->n; j++)
				bwrap_quote(&q, opts->v[j]);
	}
	for (i = 0; i < q.n; i++)
		len += strlen(q.v[i]) + 1;
	o = line = xmalloc(len + 1);
	for (i = 0; i < q.n; i++) {
		size_t k = strlen(q.v[i]);

		memcpy(o, q.v[i], k);
		o += k;
		*o++ = ' ';
	}
	*o = '\0';
	log_debug("bwrap argv (options through --args): %s", line);
	free(line);
	strlist_free(&q);
}


/*
 * Run by root with a fresh /proc, bwrap makes srt-seccomp (--as-pid-1) PID 1 of a new
 * PID namespace and mounts that namespace's /proc with its system files read-only:
 * what srt-seccomp's nested PID and mount namespaces would give again, at the price
 * of one more process. srt-seccomp is told so with --pid1, checks it and makes the
 * system files of /proc read-only itself (bwrap leaves them as they are). Run by
 * another user, srt-seccomp still nests, for the user namespace whose
 * user.max_user_namespaces it can set to 0; with the host's /proc
 * (enableWeakerNestedSandbox) it nests for a /proc of its own.
 */
static bool
bwrap_seccomp_pid1(const struct launch *l)
{
	return geteuid() == 0 && !l->set.weaker_nested_sandbox;
}

static void
bwrap_options(const struct launch *l, const char *seccomp, struct strlist *o)
{
	size_t i;

	strlist_push(o, "--new-session");
	strlist_push(o, "--die-with-parent");
	strlist_push(o, "--json-status-fd");
	strlist_push(o, "3");
	for (i = 0; i < l->plan.args.n; i++)
		strlist_push(o, l->plan.args.v[i]);
	/* srt-seccomp must stay reachable even under a read-denied directory: bound
	 * last, over whatever the plan put there (read-only, the binary is no secret). */
	if (seccomp != NULL) {
		strlist_push(o, "--ro-bind");
		strlist_push(o, seccomp);
		strlist_push(o, seccomp);
	}
	strlist_push(o, "--dev");
	strlist_push(o, "/dev");
	strlist_push(o, "--unshare-pid");
	/* The reference shares the host's IPC namespace; that lets the command read and
	 * write the host's System V shared memory, semaphores and message queues. */
	strlist_push(o, "--unshare-ipc");
	/*
	 * srt-seccomp is a PID 1 already (it reaps, forwards signals and relays the
	 * status) and runs the command in a PID namespace of its own, so nothing can be
	 * orphaned into bwrap's: bwrap's reaper would be one more process (and, on hosts
	 * where address spaces are costly, one more fork) with nothing to do. Without
	 * srt-seccomp the command itself must not be PID 1, and bwrap keeps its reaper.
	 */
	if (seccomp != NULL)
		strlist_push(o, "--as-pid-1");
	strlist_push(o, "--unshare-user");
	strlist_push(o, "--cap-drop");
	strlist_push(o, "ALL");
	/*
	 * As root, bwrap covers parts of its /proc, and in a user namespace of its own
	 * srt-seccomp would find those covers locked and could not mount the fresh /proc
	 * of its pid namespace. So it gets CAP_SYS_ADMIN (for its pid and mount
	 * namespaces, or with --pid1 for making /proc's system files read-only) and
	 * CAP_SETPCAP (to empty the bounding set) in bwrap's user namespace instead, and
	 * drops every capability before the command runs.
	 */
	if (seccomp != NULL && geteuid() == 0) {
		strlist_push(o, "--cap-add");
		strlist_push(o, "CAP_SYS_ADMIN");
		strlist_push(o, "--cap-add");
		strlist_push(o, "CAP_SETPCAP");
	}
	if (l->set.weaker_nested_sandbox) {
		/* Nested in a container that refuses a fresh procfs: the host's /proc,
		 * writable so that srt-seccomp can write its uid and gid maps. Weaker:
		 * the command sees every process of the host's pid namespace. */
		strlist_push(o, "--bind");
		strlist_push(o, "/proc");
		strlist_push(o, "/proc");
	} else {
		strlist_push(o, "--proc");
		strlist_push(o, "/proc");
	}
	/* Without srt-seccomp nothing else stops a new user namespace, in which the
	 * read-only binds can be undone: bubblewrap is asked to refuse them. */
	if (seccomp == NULL && !l->set.allow_nested_userns && !l->set.weaker_nested_sandbox)
		strlist_push(o, "--disable-userns");
}

static void
bwrap_argv(const struct launch *l, const char *bwrap, const char *seccomp, struct strlist *a)
{
	size_t i;

	strlist_push(a, bwrap);
	strlist_push(a, "--args");
	strlist_push(a, "4");
	strlist_push(a, "--");
	if (seccomp != NULL) {
		strlist_push(a, seccomp);
		/* The sandbox's lifeline is descriptor 5: bwrap_child's keep[2]. */
		strlist_push(a, "--lifeline-fd");
		strlist_push(a, "5");
		if (bwrap_seccomp_pid1(l))
			strlist_push(a, "--pid1");
		if (l->set.allow_nested_userns)
			strlist_push(a, "--allow-nested-userns");
		if (l->debug)
			strlist_push(a, "-d");
		strlist_push(a, "--");
	}
	if (l->cstring != NULL) {
		strlist_push(a, "/bin/sh");
		strlist_push(a, "-c");
		strlist_push(a, l->cstring);
	} else
		for (i = 0; l->cmd[i] != NULL; i++)
			strlist_push(a, l->cmd[i]);
}

static const char *
bwrap_path(const struct launch *l, char *buf, size_t len)
{
	if (l->set.bwrap_path != NULL)
		return access(l->set.bwrap_path, X_OK) == 0 ? l->set.bwrap_path : NULL;
	return lookup_path("bwrap", buf, len);
}

/*
 * The child: into the sandbox's namespaces, then bwrap. Failures go up the ep pipe.
 * bwrap gets the status pipe at 3 and its arguments at 4; with srt-seccomp, the read
 * end of the sandbox lifeline at 5, which bwrap leaves open for srt-seccomp
 * (--lifeline-fd 5): bwrap arms --die-with-parent in its child only late in its
 * set-up, and a launcher killed before that would otherwise leave the sandbox
 * running. srt-seccomp sees the lifeline's EOF however early that happens.
 */
static noreturn void
bwrap_child(const struct launch *l, const char *bwrap, char **argv, char **envp,
    int st_w, int argfd, int lifeline_r, int ep_w, pid_t launcher)
{
	int keep[3] = { st_w, argfd, lifeline_r };
	size_t nkeep = lifeline_r != -1 ? 3 : 2;

	spawn_child_reset();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != launcher)
		_exit(LAUNCH_FAIL);
	/* Into the sandbox's namespaces: the user namespace first, which gives the
	 * capability that entering its network namespace needs. */
	if ((l->userns_fd != -1 && setns(l->userns_fd, CLONE_NEWUSER) == -1) ||
	    setns(l->netns_fd, CLONE_NEWNET) == -1) {
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
	spawn_arrange_fds(keep, nkeep, ep_w);
	execve(bwrap, argv, envp);
	spawn_report_errno(3 + (int)nkeep);
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
bwrap_fork(const struct launch *l, const char *bwrap, char **argv, char **envp,
    int st_w, int argfd, int lifeline_r, int ep_w)
{
	pid_t launcher = getpid(), pid;

	pid = l->userns_fd == -1 ? vfork() : fork();
	if (pid == 0)
		bwrap_child(l, bwrap, argv, envp, st_w, argfd, lifeline_r, ep_w, launcher);
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

/*
 * Start bwrap. With the seccomp stage it waits for its options on a pipe (see the top of
 * this file); otherwise they are built now from the plan, which must be ready.
 */
int
bwrap_start(struct launch *l, char **envp)
{
	struct strlist argv = { 0 };
	char bwbuf[4096];
	const char *bwrap;
	int st[2] = { -1, -1 }, ep[2] = { -1, -1 }, ap[2] = { -1, -1 }, argfd = -1;
	int err = 0, rc = -1;
	pid_t pid;

	if ((bwrap = bwrap_path(l, bwbuf, sizeof(bwbuf))) == NULL) {
		log_warnx("bwrap: %s", l->set.bwrap_path != NULL ?
		    "bwrapPath is not an executable file" :
		    "not found in PATH (install bubblewrap, or set bwrapPath)");
		return -1;
	}
	if (!l->set.net.allow_all_unix_sockets)
		l->seccomp_path = xasprintf("%s/srt-seccomp", l->self_dir);
	l->as_pid1 = l->seccomp_path != NULL;
	l->bwrap_exe = xstrdup(bwrap);
	bwrap_argv(l, bwrap, l->seccomp_path, &argv);

	if (l->seccomp_path != NULL) {
		if (pipe2(ap, O_CLOEXEC) == -1) {
			log_warn("pipe");
			goto out;
		}
		argfd = ap[0];
	} else {
		struct strlist opts = { 0 };
		size_t len;
		char *buf;

		bwrap_options(l, NULL, &opts);
		bwrap_debug_argv(&opts, argv.v);
		buf = bwrap_options_buf(&opts, &len);
		argfd = memfd_sealed("srt-bwrap-args", buf, len);
		free(buf);
		strlist_free(&opts);
		if (argfd == -1)
			goto out;
	}
	if (pipe2(st, O_CLOEXEC) == -1 || pipe2(ep, O_CLOEXEC) == -1) {
		log_warn("pipe");
		goto out;
	}
	if ((pid = bwrap_fork(l, bwrap, argv.v, envp, st[1], argfd,
	    l->seccomp_path != NULL ? l->sandbox_lifeline_r : -1, ep[1])) == -1) {
		log_warn("fork");
		goto out;
	}
	close(st[1]);
	st[1] = -1;
	/* Only the sandbox holds the read end from now on. */
	fd_close(&l->sandbox_lifeline_r);
	close(ep[1]);
	ep[1] = -1;
	if (spawn_wait_exec(ep[0], &err) == -1) {
		if (err < 0)
			log_warnx("cannot enter the sandbox's namespaces: %s", strerror(-err));
		else
			log_warnx("%s: %s", bwrap, strerror(err));
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		goto out;
	}
	l->bwrap_pid = pid;
	l->status_r = st[0];
	st[0] = -1;
	(void)fcntl(l->status_r, F_SETFL, O_NONBLOCK);
	l->bwrap_args_w = ap[1];
	ap[1] = -1;
	rc = 0;
 out:
	if (argfd != -1)
		close(argfd);
	fd_close(&ap[1]);
	fd_close(&st[0]);
	fd_close(&st[1]);
	fd_close(&ep[0]);
	fd_close(&ep[1]);
	strlist_free(&argv);
	return rc;
}

/* The options for a bwrap that waits for them: the plan must be ready. */
int
bwrap_send_args(struct launch *l)
{
	struct strlist opts = { 0 }, argv = { 0 };
	size_t len;
	char *buf;
	int rc = 0;

	if (l->bwrap_args_w == -1)
		return 0;               /* given whole at the start */
	bwrap_options(l, l->seccomp_path, &opts);
	if (log_debugging()) {
		bwrap_argv(l, l->bwrap_exe, l->seccomp_path, &argv);
		bwrap_debug_argv(&opts, argv.v);
		strlist_free(&argv);
	}
	buf = bwrap_options_buf(&opts, &len);
	if (bwrap_write_all(l->bwrap_args_w, buf, len) == -1) {
		log_warn("cannot hand bwrap its options");
		rc = -1;
	}
	free(buf);
	strlist_free(&opts);
	if (rc == -1)
		bwrap_abort(l);
	else
		fd_close(&l->bwrap_args_w);
	return rc;
}

/*
 * A bwrap still waiting for its options is killed, and reaped, before its pipe is
 * closed: it never runs with part of them.
 */
void
bwrap_abort(struct launch *l)
{
	if (l->bwrap_args_w == -1)
		return;
	if (l->bwrap_pid > 0) {
		(void)kill(l->bwrap_pid, SIGKILL);
		while (waitpid(l->bwrap_pid, NULL, 0) == -1 && errno == EINTR)
			;
		l->bwrap_pid = 0;
	}
	fd_close(&l->bwrap_args_w);
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
		l->sandbox_init = (pid_t)v->valuedouble;
	if (cJSON_IsNumber(v = cJSON_GetObjectItemCaseSensitive(o, "exit-code"))) {
		l->command_ran = true;
		l->command_exit = v->valueint;
	}
	cJSON_Delete(o);
}

void
bwrap_status_read(struct launch *l)
{
	static char buf[4096];
	static size_t len;
	ssize_t n;

	while (l->status_r != -1) {
		char *nl;

		if (len == sizeof(buf))
			len = 0;        /* not bwrap's: drop it */
		n = read(l->status_r, buf + len, sizeof(buf) - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == 0 || errno != EAGAIN) {
				if (len > 0)
					bwrap_status_line(l, buf, len);
				len = 0;
				fd_close(&l->status_r);
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
 * The first process bwrap started inside (srt-seccomp, or the command): the one to
 * forward signals to; 0 while the sandbox is not running yet. With --as-pid-1 that is
 * the child bwrap reported. Otherwise bwrap's pid 1 forwards nothing, and its first
 * child, read from /proc, is the target.
 */
pid_t
bwrap_initial_pid(const struct launch *l)
{
	char path[64], buf[64];
	ssize_t n;
	long pid;
	int fd;

	if (l->sandbox_init <= 0)
		return 0;
	if (l->as_pid1)
		return l->sandbox_init;
	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children", (long)l->sandbox_init,
	    (long)l->sandbox_init);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	pid = strtol(buf, NULL, 10);
	return pid > 0 ? (pid_t)pid : 0;
}
