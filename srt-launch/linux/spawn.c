/*
 * What every child of the launcher does between fork and exec, the run's private temp
 * directory, PATH lookup, and the bash that runs -c.
 */
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

#define TMP_MAX_DEPTH 128

/* The signals ignored when we started (SigIgn of /proc/self/status), when known. */
static unsigned long long spawn_ignored;
static bool spawn_ignored_known;

/*
 * Note which signals we inherited ignored, before we ignore any ourselves: our children
 * put those back to the default. One read of /proc here spares each child a system call
 * per signal.
 */
void
spawn_signals_init(void)
{
	char buf[2048], *p;
	ssize_t n;
	int fd;

	if ((fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)) == -1)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = '\0';
	if ((p = strstr(buf, "\nSigIgn:")) == NULL)
		return;
	errno = 0;
	spawn_ignored = strtoull(p + 8, NULL, 16);
	spawn_ignored_known = errno == 0;
}

/*
 * The launcher blocks the signals it handles through a signalfd and ignores SIGPIPE; both
 * survive execve, so every child puts them back first. Children also leave the terminal's
 * foreground process group: a ^C reaches the launcher, which forwards it to the command,
 * and never kills a proxy or bwrap's monitor behind the command's back.
 */
void
spawn_child_reset(void)
{
	/* The system call: glibc's sigaction() refuses the two real-time signals it keeps
	 * for itself (SIGCANCEL and SIGSETXID), which make(1), for one, leaves ignored. */
	struct kernel_sigaction dfl = { SIG_DFL, 0, NULL, 0 };
	sigset_t none;
	int sig;

	/* Everything back to the default, SIGPIPE included: a disposition of SIG_IGN
	 * survives execve, and a shell that starts srt in the background has SIGINT and
	 * SIGQUIT ignored, which a non-interactive shell inside could then not trap. We
	 * install no handler, so only those ignored need it (all, if we do not know). */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP &&
		    (!spawn_ignored_known || sig == SIGPIPE || sig > 64 ||
			(spawn_ignored & (1ULL << (sig - 1))) != 0))
			(void)syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof(dfl.mask));
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
}

/*
 * Put fds[i] at 3+i (inheritable) and errfd, when >= 0, at 3+n (close-on-exec), then close
 * everything above: nothing else the launcher holds reaches the program. Every source is
 * first copied out of the target range so that no move clobbers another. *execfd, if
 * given, is kept too (close-on-exec, after errfd) and set to its new number.
 */
void
spawn_arrange_fds(const int *fds, size_t n, int errfd, int *execfd)
{
	int tmp[16];
	int tmperr = -1, tmpexec = -1, next;
	size_t i;

	if (n > sizeof(tmp) / sizeof(tmp[0]))
		_exit(LAUNCH_FAIL);
	for (i = 0; i < n; i++)
		if ((tmp[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 64)) == -1)
			_exit(LAUNCH_FAIL);
	if (errfd >= 0 && (tmperr = fcntl(errfd, F_DUPFD_CLOEXEC, 64)) == -1)
		_exit(LAUNCH_FAIL);
	if (execfd != NULL && (tmpexec = fcntl(*execfd, F_DUPFD_CLOEXEC, 64)) == -1)
		_exit(LAUNCH_FAIL);
	for (i = 0; i < n; i++)
		if (dup2(tmp[i], 3 + (int)i) == -1)
			_exit(LAUNCH_FAIL);
	next = 3 + (int)n;
	if (tmperr >= 0 && dup3(tmperr, next++, O_CLOEXEC) == -1)
		_exit(LAUNCH_FAIL);
	/* The program to execute by descriptor: close-on-exec is no obstacle for ELF. */
	if (tmpexec >= 0) {
		if (dup3(tmpexec, next, O_CLOEXEC) == -1)
			_exit(LAUNCH_FAIL);
		*execfd = next++;
	}
	if (close_range((unsigned)next, ~0U, 0) == -1)
		_exit(LAUNCH_FAIL);
}

/* exec failed: tell the parent why through the close-on-exec pipe. */
void
spawn_report_errno(int errfd)
{
	int e = errno;

	(void)!write(errfd, &e, sizeof(e));
}

/* 0 once the child's exec succeeded (the pipe closed empty), -1 with *err otherwise. */
int
spawn_wait_exec(int errfd_r, int *err)
{
	ssize_t n;
	int e = 0;

	do
		n = read(errfd_r, &e, sizeof(e));
	while (n == -1 && errno == EINTR);
	if (n == 0)
		return 0;
	*err = n == (ssize_t)sizeof(e) ? e : EIO;
	return -1;
}

/*
 * The name of the run's private directory: srt.<12 random letters and digits> under
 * $TMPDIR (when absolute) or /tmp, resolved, as the plan compares resolved paths. Only
 * the name, chosen before the keeper starts, so that it knows what to remove should we be
 * killed; keeper_tmp_make() makes the directory (mode 0700), and a name that exists
 * already makes the run fail rather than share a directory.
 */
int
tmp_choose(char **out)
{
	static const char alnum[] =
	    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	const char *base = getenv("TMPDIR");
	unsigned char rnd[12];
	char name[sizeof(rnd) + 1], *real;
	struct stat st;
	size_t i;

	*out = NULL;
	if (base == NULL || base[0] != '/' || stat(base, &st) == -1 || !S_ISDIR(st.st_mode))
		base = "/tmp";
	if ((real = realpath(base, NULL)) == NULL) {
		log_warn("temp directory: %s", base);
		return -1;
	}
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd)) {
		log_warn("getrandom");
		free(real);
		return -1;
	}
	for (i = 0; i < sizeof(rnd); i++)
		name[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
	name[sizeof(rnd)] = '\0';
	*out = xasprintf("%s/srt.%s", strcmp(real, "/") == 0 ? "" : real, name);
	free(real);
	return 0;
}

/*
 * Remove the entries of the directory dfd (closed here); never follows a symlink, never
 * leaves the tree. It allocates nothing (getdents64(2) into a stack buffer): the keeper
 * runs it when the heap may be half-changed.
 */
static void
tmp_remove_at(int dfd, int depth)
{
	char buf[2048];
	long n, off;

	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0)
		for (off = 0; off < n;) {
			struct kernel_dirent64 *d = (struct kernel_dirent64 *)(buf + off);
			int sub;

			off += d->reclen;
			if (strcmp(d->name, ".") == 0 || strcmp(d->name, "..") == 0)
				continue;
			if (unlinkat(dfd, d->name, 0) == 0 || errno != EISDIR)
				continue;
			if (depth >= TMP_MAX_DEPTH)
				continue;
			sub = openat(
			    dfd, d->name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1)
				continue;
			/* The command may have left a directory without write permission. */
			(void)fchmod(sub, 0700);
			tmp_remove_at(sub, depth + 1);
			(void)unlinkat(dfd, d->name, AT_REMOVEDIR);
		}
	close(dfd);
}

/* Remove the run's temp directory and all in it; quiet says nothing if that fails. */
void
tmp_remove(const char *dir, bool quiet)
{
	int fd;

	if (dir == NULL)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return;
	(void)fchmod(fd, 0700);
	tmp_remove_at(fd, 0);
	if (rmdir(dir) == -1 && errno != ENOENT && !quiet)
		log_warn("cannot remove %s", dir);
}

/* execvp's search, done on the host so a missing program is reported before any setup. */
const char *
lookup_path(const char *prog, char *buf, size_t len)
{
	const char *path, *p, *e;

	if (strchr(prog, '/') != NULL)
		return access(prog, X_OK) == 0 ? prog : NULL;
	if ((path = getenv("PATH")) == NULL || *path == '\0')
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path;; p = e + 1) {
		int n;

		e = strchrnul(p, ':');
		if (e == p) /* an empty entry is the current directory */
			n = snprintf(buf, len, "./%s", prog);
		else
			n = snprintf(buf, len, "%.*s/%s", (int)(e - p), p, prog);
		if (n > 0 && (size_t)n < len && access(buf, X_OK) == 0) {
			struct stat st;

			if (stat(buf, &st) == 0 && S_ISREG(st.st_mode))
				return buf;
		}
		if (*e == '\0')
			break;
	}
	return NULL;
}

/* The file and every directory above it are root's and nobody else may write them: no
 * other user, and no sandboxed command writing where the user may (~/.local/bin), can
 * put a bash there for a later run to pick up. */
static bool
lookup_trusted(const char *path)
{
	struct stat st;
	char *real, *slash;
	bool ok = false;

	if ((real = realpath(path, NULL)) == NULL)
		return false;
	if (stat(real, &st) == -1 || !S_ISREG(st.st_mode) || access(real, X_OK) == -1)
		goto out;
	for (;;) {
		if (stat(real, &st) == -1 || st.st_uid != 0 ||
		    (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
			goto out;
		if (strcmp(real, "/") == 0)
			break;
		if ((slash = strrchr(real, '/')) == NULL)
			goto out;
		slash[slash == real] = '\0';
	}
	ok = true;
out:
	free(real);
	return ok;
}

/*
 * The bash that -c runs (BEHAVIOR §4.2: the reference runs the string with bash), found
 * once, before anything starts: /usr/bin/bash or /bin/bash, else the first bash on PATH
 * that lookup_trusted() accepts, never one from a directory someone else could write.
 * NULL when there is none; the caller falls back to /bin/sh.
 */
char *
lookup_bash(void)
{
	static const char *const fixed[] = { "/usr/bin/bash", "/bin/bash" };
	const char *path, *p, *e;
	char buf[PATH_MAX];
	struct stat st;
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (stat(fixed[i], &st) == 0 && S_ISREG(st.st_mode) &&
		    access(fixed[i], X_OK) == 0)
			return xstrdup(fixed[i]);
	if ((path = getenv("PATH")) == NULL)
		return NULL;
	for (p = path;; p = e + 1) {
		int n;

		e = strchrnul(p, ':');
		/* Only absolute entries: "" and relative ones name the current directory. */
		if (*p == '/') {
			n = snprintf(buf, sizeof(buf), "%.*s/bash", (int)(e - p), p);
			if (n > 0 && (size_t)n < sizeof(buf) && lookup_trusted(buf))
				return xstrdup(buf);
		}
		if (*e == '\0')
			break;
	}
	return NULL;
}
