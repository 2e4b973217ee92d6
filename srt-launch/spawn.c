/*
 * What every child of the launcher does between fork and exec, the run's private temp
 * directory, and PATH lookup.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

#define TMP_MAX_DEPTH   128

/*
 * The launcher blocks the signals it handles through a signalfd and ignores SIGPIPE; both
 * survive execve, so every child puts them back first. Children also leave the terminal's
 * foreground process group: a ^C reaches the launcher, which forwards it to the command,
 * and never kills a proxy or bwrap's monitor behind the command's back.
 */
void
spawn_child_reset(void)
{
	sigset_t none;
	int sig;

	/* Everything back to the default, SIGPIPE included: a disposition of SIG_IGN
	 * survives execve, and a shell that starts srt in the background has SIGINT and
	 * SIGQUIT ignored, which a non-interactive shell inside could then not trap. */
	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			(void)signal(sig, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	(void)setpgid(0, 0);
}

/*
 * Put fds[i] at 3+i (inheritable) and errfd, when >= 0, at 3+n (close-on-exec), then close
 * everything above: nothing else the launcher holds reaches the program. Every source is
 * first copied out of the target range so that no move clobbers another.
 */
void
spawn_arrange_fds(const int *fds, size_t n, int errfd)
{
	int tmp[16];
	int tmperr = -1;
	size_t i;

	if (n > sizeof(tmp) / sizeof(tmp[0]))
		_exit(LAUNCH_FAIL);
	for (i = 0; i < n; i++)
		if ((tmp[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 64)) == -1)
			_exit(LAUNCH_FAIL);
	if (errfd >= 0 && (tmperr = fcntl(errfd, F_DUPFD_CLOEXEC, 64)) == -1)
		_exit(LAUNCH_FAIL);
	for (i = 0; i < n; i++)
		if (dup2(tmp[i], 3 + (int)i) == -1)
			_exit(LAUNCH_FAIL);
	if (tmperr >= 0 && dup3(tmperr, 3 + (int)n, O_CLOEXEC) == -1)
		_exit(LAUNCH_FAIL);
	if (close_range(3 + (unsigned)n + (tmperr >= 0), ~0U, 0) == -1)
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

/* A private directory for the run: mode 0700 under $TMPDIR (when absolute) or /tmp. */
int
tmp_create(char **out)
{
	const char *base = getenv("TMPDIR");
	char *templ, *real;
	struct stat st;

	*out = NULL;
	if (base == NULL || base[0] != '/' || stat(base, &st) == -1 || !S_ISDIR(st.st_mode))
		base = "/tmp";
	templ = xasprintf("%s/srt.XXXXXX", base);
	if (mkdtemp(templ) == NULL) {
		log_warn("mkdtemp %s", templ);
		free(templ);
		return -1;
	}
	/* The plan compares resolved paths: hand it the real one. */
	if ((real = realpath(templ, NULL)) == NULL) {
		log_warn("realpath %s", templ);
		(void)rmdir(templ);
		free(templ);
		return -1;
	}
	free(templ);
	*out = real;
	return 0;
}

/* Remove the entries of the directory dfd; never follows a symlink, never leaves the tree. */
static void
tmp_remove_at(int dfd, int depth)
{
	struct dirent *de;
	DIR *d;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		int sub;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == 0 || errno != EISDIR)
			continue;
		if (depth >= TMP_MAX_DEPTH)
			continue;
		sub = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (sub == -1)
			continue;
		/* The command may have left a directory without write permission. */
		(void)fchmod(sub, 0700);
		tmp_remove_at(sub, depth + 1);
		(void)unlinkat(dirfd(d), de->d_name, AT_REMOVEDIR);
	}
	closedir(d);
}

void
tmp_remove(const char *dir)
{
	int fd;

	if (dir == NULL)
		return;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return;
	(void)fchmod(fd, 0700);
	tmp_remove_at(fd, 0);
	if (rmdir(dir) == -1 && errno != ENOENT)
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
	for (p = path; ; p = e + 1) {
		int n;

		e = strchrnul(p, ':');
		if (e == p)     /* an empty entry is the current directory */
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
