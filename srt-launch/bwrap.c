/*
 * The bubblewrap invocation (SPEC §5.4, BEHAVIOR §4.2): the filesystem plan from libsrt,
 * then the namespace and capability options, then srt-seccomp and the command. The
 * options travel through --args (a large plan would not fit the kernel's argument
 * limits); the command itself stays on the real argv, where bwrap wants it.
 *
 * bwrap is started before the plan is built (bwrap_start) and reads its options from a
 * pipe that we fill once the plan is ready (bwrap_send_args): its execution and start-up,
 * about a millisecond, overlap our own work. Should we die while writing, bwrap may read
 * part of its options; srt-seccomp, which it starts, then finds its lifeline cut and
 * never runs the command. Should we fail otherwise, bwrap is killed before the pipe is
 * closed (bwrap_abort).
 *
 * The write guard goes to srt-seccomp the same way, in a memfd bwrap passes on: we
 * write it once the plan is ready and seal it before the options go (bwrap_send_guard);
 * srt-seccomp refuses a guard that is not sealed, so a launcher that died half-way never
 * leaves a partial guard behind it. Descriptors bwrap gets: 3 its status (JSON lines),
 * 4 its options, 5 the sandbox's lifeline, 6 the guard (unless --unguarded), then
 * srt-seccomp's executable (bound inside with --ro-bind-fd, and closed by bwrap).
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

#define BWRAP_FD_STATUS         3
#define BWRAP_FD_ARGS           4
#define BWRAP_FD_LIFELINE       5       /* srt-seccomp --lifeline-fd */
#define BWRAP_FD_GUARD          6       /* srt-seccomp --guard-fd */

/* --ro-bind-fd: srt-seccomp's executable, after the guard when there is one. */
static int
bwrap_fd_seccomp(const struct launch *l)
{
	return l->unguarded ? BWRAP_FD_GUARD : BWRAP_FD_GUARD + 1;
}

/* The masked copies of credential files follow srt-seccomp's descriptor. */
static int
bwrap_fd_cred(const struct launch *l, size_t i)
{
	return bwrap_fd_seccomp(l) + 1 + (int)i;
}

static void
bwrap_options(const struct launch *l, struct strlist *o)
{
	size_t i;

	strlist_push(o, "--new-session");
	strlist_push(o, "--die-with-parent");
	strlist_push(o, "--json-status-fd");
	strlist_pushf(o, "%d", BWRAP_FD_STATUS);
	for (i = 0; i < l->plan.args.n; i++)
		strlist_push(o, l->plan.args.v[i]);
	/* Masked credential files (cred.c), over whatever the plan put there: bwrap
	 * copies each into its own tmpfs and binds it read-only over the real file. */
	for (i = 0; i < l->ncred_files; i++) {
		strlist_push(o, "--ro-bind-data");
		strlist_pushf(o, "%d", bwrap_fd_cred(l, i));
		strlist_push(o, l->cred_file_path.v[i]);
	}
	/* srt-seccomp must stay reachable even under a read-denied directory: bound
	 * last, over whatever the plan put there, from the file we opened at start. */
	strlist_push(o, "--ro-bind-fd");
	strlist_pushf(o, "%d", bwrap_fd_seccomp(l));
	strlist_push(o, l->helper_path[H_SECCOMP]);
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
	 * where address spaces are costly, one more fork) with nothing to do.
	 */
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
	if (geteuid() == 0) {
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
}

static void
bwrap_argv(const struct launch *l, struct strlist *a)
{
	size_t i;

	strlist_push(a, l->helper_path[H_BWRAP]);
	strlist_push(a, "--args");
	strlist_pushf(a, "%d", BWRAP_FD_ARGS);
	strlist_push(a, "--");
	strlist_push(a, l->helper_path[H_SECCOMP]);
	strlist_push(a, "--lifeline-fd");
	strlist_pushf(a, "%d", BWRAP_FD_LIFELINE);
	if (!l->unguarded) {
		strlist_push(a, "--guard-fd");
		strlist_pushf(a, "%d", BWRAP_FD_GUARD);
	}
	if (bwrap_seccomp_pid1(l))
		strlist_push(a, "--pid1");
	/* allowAllUnixSockets keeps every other rule, the reaper and the lifeline. */
	if (l->set.net.allow_all_unix_sockets)
		strlist_push(a, "--allow-unix-sockets");
	if (l->set.allow_nested_userns)
		strlist_push(a, "--allow-nested-userns");
	if (l->debug)
		strlist_push(a, "-d");
	strlist_push(a, "--");
	if (l->cstring != NULL) {
		strlist_push(a, l->shell);
		strlist_push(a, "-c");
		strlist_push(a, l->cstring);
	} else
		for (i = 0; l->cmd[i] != NULL; i++)
			strlist_push(a, l->cmd[i]);
}

/*
 * The child: into the sandbox's namespaces, then bwrap, by its descriptor. Failures go
 * up the ep pipe. bwrap gets the descriptors listed at the top of this file; the
 * sandbox's lifeline is for srt-seccomp (--lifeline-fd), which bwrap leaves open: bwrap
 * arms --die-with-parent in its child only late in its set-up, and a launcher killed
 * before that would otherwise leave the sandbox running. srt-seccomp sees the
 * lifeline's EOF however early that happens.
 */
static noreturn void
bwrap_child(const struct launch *l, char **argv, char **envp, int st_w, int argfd,
    int ep_w, pid_t launcher)
{
	int keep[5 + CRED_FILES_MAX] = { st_w, argfd, l->sandbox_lifeline_r, l->guard_fd,
	    l->helper_fd[H_SECCOMP] };
	int exe = l->helper_fd[H_BWRAP];
	size_t n = 5, i;

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
	if (l->unguarded) {
		keep[3] = keep[4];
		n = 4;
	}
	for (i = 0; i < l->ncred_files && i < CRED_FILES_MAX; i++)
		keep[n++] = l->cred_file_fd[i];
	spawn_arrange_fds(keep, n, ep_w, &exe);
	execveat(exe, "", argv, envp, AT_EMPTY_PATH);
	spawn_report_errno(3 + (int)n);
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
bwrap_fork(const struct launch *l, char **argv, char **envp, int st_w, int argfd, int ep_w)
{
	pid_t launcher = getpid(), pid;

	pid = l->userns_fd == -1 ? vfork() : fork();
	if (pid == 0)
		bwrap_child(l, argv, envp, st_w, argfd, ep_w, launcher);
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

/* Start bwrap: it waits for its options on a pipe (see the top of this file). */
int
bwrap_start(struct launch *l, char **envp)
{
	struct strlist argv = { 0 };
	int st[2] = { -1, -1 }, ep[2] = { -1, -1 }, ap[2] = { -1, -1 };
	int err = 0, rc = -1;
	pid_t pid;

	l->as_pid1 = true;
	bwrap_argv(l, &argv);
	if (!l->unguarded && (l->guard_fd = memfd_create("srt-wguard",
	    MFD_CLOEXEC | MFD_ALLOW_SEALING)) == -1) {
		log_warn("memfd_create");
		goto out;
	}
	if (pipe2(ap, O_CLOEXEC) == -1 || pipe2(st, O_CLOEXEC) == -1 ||
	    pipe2(ep, O_CLOEXEC) == -1) {
		log_warn("pipe");
		goto out;
	}
	if ((pid = bwrap_fork(l, argv.v, envp, st[1], ap[0], ep[1])) == -1) {
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
			log_warnx("%s: %s", l->helper_path[H_BWRAP], strerror(err));
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

	if (l->unguarded) {
		fd_close(&l->guard_fd);
		return 0;
	}
	buf = wguard_encode(&l->plan.guard, &len);
	if (bwrap_write_all(l->guard_fd, buf, len) == -1 ||
	    fcntl(l->guard_fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) == -1) {
		log_warn("write guard");
		rc = -1;
	}
	free(buf);
	fd_close(&l->guard_fd);
	if (rc == -1)
		bwrap_abort(l);
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
		return 0;
	bwrap_options(l, &opts);
	if (log_debugging()) {
		bwrap_argv(l, &argv);
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
 * The first process bwrap started inside, srt-seccomp (--as-pid-1): the one to forward
 * signals to; 0 while the sandbox is not running yet.
 */
pid_t
bwrap_initial_pid(const struct launch *l)
{
	return l->sandbox_init > 0 ? l->sandbox_init : 0;
}
