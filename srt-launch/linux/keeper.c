/*
 * The keeper: the janitor of a run. When the launcher ends without having cleaned up after
 * its sandbox (killed, SIGKILL included, or failing while the sandbox may still run), the
 * keeper gives the sandbox's PID 1 a few seconds to end the run itself, its last checks
 * included (keeper_await_finish), kills what is left of the sandbox (keeper_sweep) and
 * removes the run's temp directory. (Nothing else of a run is on the host: missing
 * protected paths are kept from being made by the write guard, not by placeholders.)
 *
 * It is a process of its own (a SIGKILL of the launcher does not reach it) that shares the
 * launcher's memory (clone(2) with CLONE_VM, without CLONE_THREAD). A forked janitor
 * would cost every launch a copy of the page tables, and then a copy-on-write fault in
 * the launcher and in the child for every page either writes (bench/launch.sh measures
 * it). Sharing the memory costs one clone(2) and a small stack.
 *
 * The price is discipline, in two phases:
 *   - While the launcher runs, the keeper shares its memory, its C library state and its
 *     thread-local storage (errno among it). So it makes raw system calls only (no errno,
 *     no allocation, no stdio), on its own stack, and otherwise only reads what the
 *     launcher published before or through the atomics of struct keeper_state. It sets
 *     itself up and then blocks reading its lifeline.
 *   - The lifeline ends when the launcher closes it or dies. The keeper waits until the
 *     launcher is gone for good (it is reparented). From then on nobody else runs in this
 *     memory and the C library may be used, except what allocates: a launcher killed in
 *     the middle of malloc() may have left the heap half-changed. Everything it does then
 *     (tmp_remove, the sweep) works with stack buffers.
 * It never logs: by then the launcher's stderr may belong to the next command.
 */
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

#define KEEPER_STACK (1024 * 1024) /* touched only as deep as it is used */

enum {
	TMP_NONE,
	TMP_MAKING,
	TMP_MADE,
	TMP_NOT_OURS
};

/*
 * What the launcher tells the keeper, in its own memory: written before the keeper
 * starts (tmpdir, the inodes) or published through atomics, so that a launcher killed at
 * any instant leaves them readable.
 */
static struct keeper_state {
	char tmpdir[PATH_MAX];
	unsigned long pipe_ino; /* the sandbox lifeline's pipe */
	pid_t launcher;
	int lifeline;  /* read end, in the keeper's own fd table */
	int sandbox_r; /* read end of the sandbox lifeline, held */
	_Atomic int tmp_state;
	_Atomic int released;  /* we cleaned up after the sandbox ended */
	int netns;             /* the sandbox's network namespace, held */
	unsigned long net_ino; /* and its inode, which the sweep looks for */
} ks;

/* --- raw system calls (phase one) ------------------------------------------------------ */

static inline long
raw6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
	long ret;
#if defined(__x86_64__)
	register long r10 __asm__("r10") = a4;
	register long r8 __asm__("r8") = a5;
	register long r9 __asm__("r9") = a6;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a1), "S"(a2), "d"(a3), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a1;
	register long x1 __asm__("x1") = a2;
	register long x2 __asm__("x2") = a3;
	register long x3 __asm__("x3") = a4;
	register long x4 __asm__("x4") = a5;
	register long x5 __asm__("x5") = a6;

	__asm__ volatile("svc #0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	ret = x0;
#else
#error "srt-launch: the keeper makes raw system calls; add them for this architecture"
#endif
	return ret;
}

#define raw1(n, a) raw6((n), (long)(a), 0, 0, 0, 0, 0)
#define raw2(n, a, b) raw6((n), (long)(a), (long)(b), 0, 0, 0, 0)
#define raw3(n, a, b, c) raw6((n), (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define raw4(n, a, b, c, d) raw6((n), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

/* --- the sweep (phase two) ------------------------------------------------------------- */

/* Does the symbolic link path read exactly want? */
static bool
keeper_link_is(const char *path, const char *want)
{
	char link[64];
	ssize_t n = readlink(path, link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, want) == 0;
}

/*
 * The open flags of descriptor fd of process pid, or -1 when they cannot be read; *ino
 * (when not NULL) gets the inode of what it is open on, 0 if the kernel does not say.
 */
static long
keeper_fd_info(long pid, const char *fd, unsigned long *ino)
{
	char path[64], buf[256];
	unsigned long flags;
	const char *f;
	ssize_t n;
	int in;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%.16s", pid, fd);
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	n = read(in, buf, sizeof(buf) - 1);
	close(in);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	if ((f = strstr(buf, "flags:")) == NULL || sscanf(f + 6, "%lo", &flags) != 1)
		return -1;
	if (ino != NULL &&
	    ((f = strstr(buf, "\nino:")) == NULL || sscanf(f + 5, "%lu", ino) != 1))
		*ino = 0;
	return (long)flags;
}

/*
 * Does process pid hold the pipe want_pipe (inode pipe_ino)? armed: as its lifeline,
 * O_ASYNC set as srt-seccomp does (reaper_arm_lifeline); otherwise its read end (the
 * write end alone is the launcher's), or an end whose flags cannot be read. Its fdinfo
 * says, which the sandbox's owner may read even where /proc/PID/fd is closed to it
 * (srt-seccomp is not dumpable and, as a user, its /proc files then belong to root);
 * its fd links are looked at only where fdinfo shows no inode.
 */
static bool
keeper_has_pipe(long pid, const char *want_pipe, unsigned long pipe_ino, bool armed)
{
	char path[64], buf[4096];
	unsigned long ino;
	long n, off, flags;
	int dfd;
	bool hit = false;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo", pid);
	if ((dfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return false;
	while (!hit && (n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (off = 0; !hit && off < n;) {
			struct kernel_dirent64 *d = (struct kernel_dirent64 *)(buf + off);

			off += d->reclen;
			if (d->name[0] == '.')
				continue;
			if ((flags = keeper_fd_info(pid, d->name, &ino)) == -1)
				ino = 0;
			if (armed ? flags == -1 || (flags & O_ASYNC) == 0
				  : flags != -1 && (flags & O_ACCMODE) == O_WRONLY)
				continue;
			snprintf(path, sizeof(path), "/proc/%ld/fd/%.16s", pid, d->name);
			hit = ino != 0 ? ino == pipe_ino : keeper_link_is(path, want_pipe);
		}
	close(dfd);
	return hit;
}

/* The processes in /proc but the keeper, one pid at a time: read with getdents64, as
 * opendir() would allocate. */
struct keeper_procs {
	int fd;
	pid_t self;
	long n, off;
	char buf[8192];
};

static bool
keeper_procs_open(struct keeper_procs *w)
{
	w->self = getpid();
	w->n = w->off = 0;
	return (w->fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) != -1;
}

/* The next pid, or 0 at the end. */
static long
keeper_procs_next(struct keeper_procs *w)
{
	struct kernel_dirent64 *d;
	char *end;
	long pid;

	for (;;) {
		if (w->off >= w->n) {
			w->off = 0;
			if ((w->n = syscall(SYS_getdents64, w->fd, w->buf, sizeof(w->buf))) <=
			    0)
				return 0;
		}
		d = (struct kernel_dirent64 *)(w->buf + w->off);
		w->off += d->reclen;
		pid = strtol(d->name, &end, 10);
		if (*end == '\0' && pid > 0 && pid != w->self)
			return pid;
	}
}

/*
 * One pass over /proc: SIGKILL every process of the run that may still be running; the
 * number signalled. Two marks find them:
 *   - membership of the sandbox's network namespace, which bwrap and all it starts are in
 *     from the start, whatever the settings (with allowAllUnixSockets there is no
 *     srt-seccomp and no lifeline in the sandbox);
 *   - holding the sandbox lifeline's read end (the write end is the launcher's, and a
 *     launcher still exiting is left alone), which also covers a process that moved to a
 *     network namespace of its own. srt-seccomp acts on the lifeline itself, but a bwrap
 *     child whose parent was killed early waits for it forever (it waits for the parent
 *     to write its uid maps, and arms --die-with-parent only after that), holding the
 *     pipe it was meant to pass on.
 * Only processes of this run carry either mark: the keeper holds a descriptor of the
 * namespace and the pipe's read end until it exits, so neither inode can be reused by
 * another run's (namespace inodes are handed out lowest first, and would be at once). Each
 * process is checked again through a pidfd before the signal, so a reused pid is never
 * hit.
 */
static unsigned
keeper_sweep_pass(const char *want_net, const char *want_pipe, unsigned long pipe_ino)
{
	struct keeper_procs w;
	char path[64];
	unsigned killed = 0;
	long pid;

	if (!keeper_procs_open(&w))
		return 0;
	while ((pid = keeper_procs_next(&w)) != 0) {
		const char *mark = NULL;
		int pidfd;

		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (want_net != NULL && keeper_link_is(path, want_net))
			mark = want_net;
		else if (keeper_has_pipe(pid, want_pipe, pipe_ino, false))
			mark = want_pipe;
		if (mark == NULL || (pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) == -1)
			continue;
		/* Still the same process (the pidfd pins it): does it still carry it? */
		if ((mark == want_net ? keeper_link_is(path, want_net)
				      : keeper_has_pipe(pid, want_pipe, pipe_ino, false)) &&
		    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0)
			killed++;
		close(pidfd);
	}
	close(w.fd);
	return killed;
}

/* A process may fork while /proc is read, so passes repeat until one finds nobody. */
static void
keeper_sweep(unsigned long net_ino, unsigned long pipe_ino)
{
	char want_net[64], want_pipe[64];
	int pass;

	snprintf(want_net, sizeof(want_net), "net:[%lu]", net_ino);
	snprintf(want_pipe, sizeof(want_pipe), "pipe:[%lu]", pipe_ino);
	/* A killed process keeps its marks until it has exited: give it a moment before
	 * the next pass rather than signalling it again at once. */
	for (pass = 0; pass < 50; pass++) {
		if (keeper_sweep_pass(net_ino != 0 ? want_net : NULL, want_pipe, pipe_ino) == 0)
			break;
		usleep(2000);
	}
}

#define KEEPER_FINISH_SEC 5 /* for the sandbox's PID 1 to end the run itself */
#define KEEPER_FINISH_MAX 8 /* processes waited for: PID 1 and its parent */


/*
 * Before the sweep: srt-seccomp, the sandbox's PID 1, saw the lifeline's end as well
 * and is ending the run itself (reaper.c): it kills the command, then runs the write
 * guard's last checks (sup_git_finish takes away a git pointer the command planted)
 * and exits. The sweep's SIGKILL would skip those checks, so it waits until every
 * process of the run that armed the lifeline (when srt-seccomp nests its namespaces,
 * PID 1 and the process above it) has exited, each found by its pidfd becoming
 * readable, KEEPER_FINISH_SEC at most: then the sweep kills what is left, done or not.
 * A bwrap child that never started srt-seccomp holds the lifeline unarmed and is not
 * waited for.
 */
static void
keeper_await_finish(unsigned long net_ino, unsigned long pipe_ino)
{
	struct pollfd p[KEEPER_FINISH_MAX];
	struct keeper_procs w;
	struct timespec now, end;
	char path[64], want_net[64], want_pipe[64];
	long pid, left;
	nfds_t np = 0, i, j;
	int pidfd;

	if (net_ino == 0)
		return;
	snprintf(want_net, sizeof(want_net), "net:[%lu]", net_ino);
	snprintf(want_pipe, sizeof(want_pipe), "pipe:[%lu]", pipe_ino);
	if (!keeper_procs_open(&w))
		return;
	while (np < KEEPER_FINISH_MAX && (pid = keeper_procs_next(&w)) != 0) {
		/* srt-seccomp stays in the run's network namespace. */
		snprintf(path, sizeof(path), "/proc/%ld/ns/net", pid);
		if (!keeper_link_is(path, want_net) ||
		    !keeper_has_pipe(pid, want_pipe, pipe_ino, true) ||
		    (pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) == -1)
			continue;
		/* Still the same process (the pidfd pins it)? */
		if (keeper_has_pipe(pid, want_pipe, pipe_ino, true))
			p[np++] = (struct pollfd){ .fd = pidfd, .events = POLLIN };
		else
			close(pidfd);
	}
	close(w.fd);
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += KEEPER_FINISH_SEC;
	while (np > 0) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		left = (end.tv_sec - now.tv_sec) * 1000 + (end.tv_nsec - now.tv_nsec) / 1000000;
		if (left <= 0 || (poll(p, np, (int)left) == -1 && errno != EINTR))
			break;
		for (i = j = 0; i < np; i++)
			if (p[i].revents != 0)
				close(p[i].fd);
			else
				p[j++] = p[i];
		np = j;
	}
	for (i = 0; i < np; i++)
		close(p[i].fd);
}

/* --- the keeper ------------------------------------------------------------------------ */

static int
keeper_main(void *arg)
{
	static const int deaf[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM, SIGPIPE };
	struct kernel_sigaction ign = { SIG_IGN, 0, NULL, 0 };
	unsigned long none = 0;
	struct timespec ms = { 0, 1000 * 1000 };
	size_t i;
	long n, devnull, lf, sr, nf;
	char c;
	int tries;

	(void)arg;
	/* Phase one: raw system calls only (see the top of this file). Out of the
	 * terminal's foreground group and deaf to what a terminal or a supervisor sends:
	 * the launcher forwards those to the command, and the keeper ends with its
	 * lifeline alone. */
	(void)raw2(SYS_setpgid, 0, 0);
	for (i = 0; i < sizeof(deaf) / sizeof(deaf[0]); i++)
		(void)raw4(SYS_rt_sigaction, deaf[i], &ign, 0, sizeof(none));
	(void)raw4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, sizeof(none));
	/* Keep the lifeline, the sandbox lifeline's read end, the network namespace and
	 * stderr; stdin and stdout become /dev/null: holding the launcher's stdout would
	 * keep a reader of it waiting until the keeper is gone. */
	if ((devnull = raw4(SYS_openat, AT_FDCWD, "/dev/null", O_RDWR | O_CLOEXEC, 0)) >= 0) {
		(void)raw3(SYS_dup3, devnull, STDIN_FILENO, 0);
		(void)raw3(SYS_dup3, devnull, STDOUT_FILENO, 0);
	}
	/* All out of the way first, so that no move clobbers another. */
	if ((lf = raw3(SYS_fcntl, ks.lifeline, F_DUPFD_CLOEXEC, 64)) < 0 ||
	    (sr = raw3(SYS_fcntl, ks.sandbox_r, F_DUPFD_CLOEXEC, 64)) < 0 ||
	    (nf = raw3(SYS_fcntl, ks.netns, F_DUPFD_CLOEXEC, 64)) < 0 ||
	    raw3(SYS_dup3, lf, 3, O_CLOEXEC) < 0 || raw3(SYS_dup3, sr, 4, O_CLOEXEC) < 0 ||
	    raw3(SYS_dup3, nf, 5, O_CLOEXEC) < 0)
		(void)raw1(SYS_exit_group, 1);
	(void)raw3(SYS_close_range, 6, ~0U, 0);
	for (;;) {
		n = raw3(SYS_read, 3, &c, 1);
		if (n == 1 || n == -EINTR)
			continue;
		break;
	}
	/* We ended normally, the sandbox gone and everything removed: nothing to do. */
	if (atomic_load(&ks.released))
		(void)raw1(SYS_exit_group, 0);
	/*
	 * Our lifeline ends as the launcher's descriptors close, a moment before the
	 * kernel sends its children (bwrap) their death signal; in that moment bwrap may
	 * still start its child. Once we are reparented that signal has been sent, no new
	 * process of the run can appear, and the launcher no longer runs in this memory.
	 */
	for (tries = 0; tries < 1000 && raw1(SYS_getppid, 0) == ks.launcher; tries++)
		(void)raw2(SYS_nanosleep, &ms, NULL);
	if (tries == 1000)
		(void)raw1(SYS_exit_group, 1); /* the launcher lingers: leave it all to it */

	/* Phase two: the C library, without allocating. */
	keeper_await_finish(ks.net_ino, ks.pipe_ino);
	keeper_sweep(ks.net_ino, ks.pipe_ino);
	/* A dying sandbox may still write for a moment: retry a few times. */
	for (tries = 0; tries < 5; tries++) {
		struct stat st;

		switch (atomic_load(&ks.tmp_state)) {
		case TMP_MAKING: /* killed around the mkdir: the name is unguessable */
		case TMP_MADE:
			tmp_remove(ks.tmpdir, true);
			if (lstat(ks.tmpdir, &st) == -1)
				(void)raw1(SYS_exit_group, 0);
			break;
		default:
			(void)raw1(SYS_exit_group, 0);
		}
		usleep(100 * 1000);
	}
	(void)raw1(SYS_exit_group, 0);
	return 0;
}

/*
 * Start the keeper once the network namespace exists and before the temp directory
 * (keeper_tmp_make) and the sandbox do, so that neither ever exists without it. It
 * takes l->tmpdir, the sandbox lifeline and the namespace (its descriptor, which it keeps
 * from the copy of our descriptors it starts with).
 */
int
keeper_start(struct launch *l)
{
	struct stat st;
	int kl[2];
	char *stack;
	pid_t pid;

	if (fstat(l->sandbox.netns_fd, &st) == -1) {
		log_warn("network namespace");
		return -1;
	}
	if (strlen(l->tmpdir) >= sizeof(ks.tmpdir)) {
		log_warnx("temp directory name too long: %s", l->tmpdir);
		return -1;
	}
	if (pipe2(kl, O_CLOEXEC) == -1) {
		log_warn("pipe");
		return -1;
	}
	/* Never unmapped: the keeper may run on it after we are gone. */
	stack = mmap(NULL, KEEPER_STACK, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE, -1, 0);
	if (stack == MAP_FAILED) {
		log_warn("mmap");
		close(kl[0]);
		close(kl[1]);
		return -1;
	}
	(void)mprotect(stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
	memcpy(ks.tmpdir, l->tmpdir, strlen(l->tmpdir) + 1);
	ks.pipe_ino = l->sandbox.lifeline_ino;
	ks.launcher = getpid();
	ks.lifeline = kl[0];
	ks.sandbox_r = l->sandbox.lifeline_r;
	ks.netns = l->sandbox.netns_fd;
	ks.net_ino = (unsigned long)st.st_ino;
	atomic_store(&ks.tmp_state, TMP_NONE);
	atomic_store(&ks.released, 0);
	pid = clone(keeper_main, stack + KEEPER_STACK, CLONE_VM | SIGCHLD, NULL);
	close(kl[0]);
	if (pid == -1) {
		log_warn("clone");
		close(kl[1]);
		return -1;
	}
	/* Its own process group from here on, whenever it gets to run: a SIGKILL sent to
	 * our group once we have gone on (to start bwrap, make the temp directory) must not
	 * take the keeper along. It does the same itself; whichever comes first, the
	 * other changes nothing. A child that has not executed anything may be moved by
	 * its parent, as root or not. */
	(void)setpgid(pid, pid);
	l->sandbox.keeper_pid = pid;
	l->sandbox.keeper_lifeline = kl[1];
	return 0;
}

/*
 * Make the run's temp directory, under the name tmp_choose() picked: mkdir(2) never reuses
 * an existing directory or follows a link there. The keeper knows the name from the start
 * and removes the directory if we are killed once it may exist.
 */
int
keeper_tmp_make(struct launch *l)
{
	atomic_store(&ks.tmp_state, TMP_MAKING);
	if (mkdir(l->tmpdir, 0700) == -1) {
		int e = errno;

		atomic_store(&ks.tmp_state, TMP_NOT_OURS);
		log_warnx("temp directory %s: %s", l->tmpdir, strerror(e));
		return -1;
	}
	atomic_store(&ks.tmp_state, TMP_MADE);
	l->tmp_made = true;
	return 0;
}

/*
 * We end: cut the keeper's lifeline. When the sandbox has ended (bwrap's exit collected,
 * or it never started) and we removed everything ourselves, the keeper has nothing to do
 * and exits at once; otherwise, once we are gone, it kills what is left and removes what
 * remains. It is not waited for: its exit (the teardown of this very address space) would
 * only delay ours.
 */
void
keeper_release(struct launch *l, bool done)
{
	if (l->sandbox.keeper_lifeline == -1)
		return;
	if (done)
		atomic_store(&ks.released, 1);
	fd_close(&l->sandbox.keeper_lifeline);
}
