/*
 * srt's helpers (bwrap, srt-seccomp, srt-httpd, srt-socksd), opened once, before anything
 * of the command runs, and executed by descriptor from then on (execveat AT_EMPTY_PATH;
 * srt-seccomp, which runs inside the sandbox, is bound there from its descriptor with
 * bwrap --ro-bind-fd). A name is never looked up again: the proxies start lazily, on the
 * sandbox's first connection, by which time a command with write access to srt's
 * directory could have replaced the file at that name. (The write guard refuses that
 * too: srt's directories are protected inside, plan_ctx self_dirs.)
 *
 * srt-seccomp, srt-httpd and srt-socksd are never found through PATH, but in one
 * directory (lib/core/layout.c, layout_helpers_dir); bwrap is bwrapPath or found through PATH,
 * as the reference finds it. bwrapPath may name a script (a wrapper): helpers_exec.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "layout.h"

static const char *const helper_name[H_MAX] = {
	"bwrap",
	LAYOUT_SECCOMP,
	LAYOUT_HTTPD,
	LAYOUT_SOCKSD,
};

/* Whether the file held by fd starts with "#!", read through the descriptor (the file
 * pinned, not its name). A file we cannot read is no script an interpreter could run. */
static bool
helpers_is_script(int fd)
{
	char p[32], head[2];
	bool script;
	int rfd;

	(void)snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	if ((rfd = open(p, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return false;
	script = read(rfd, head, sizeof(head)) == 2 && head[0] == '#' && head[1] == '!';
	close(rfd);
	return script;
}

/* Open the file at path as helper h: a regular file we may execute. */
static int
helpers_take(struct launch *l, enum helper h, const char *path)
{
	struct stat st;
	int fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1) {
		log_warn("%s", path);
		return -1;
	}
	/* As execve(2) would judge it; O_PATH descriptors carry no access check of their own. */
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || access(path, X_OK) == -1) {
		log_warnx("%s: not an executable file", path);
		close(fd);
		return -1;
	}
	l->helper_fd[h] = fd;
	l->helper_path[h] = xstrdup(path);
	l->helper_script[h] = helpers_is_script(fd);
	return 0;
}

int
helpers_open(struct launch *l)
{
	char buf[PATH_MAX];
	const char *bw;
	char *p;
	int h, rc;

	if (l->set.bwrap_path != NULL)
		bw = l->set.bwrap_path;
	else if ((bw = lookup_path("bwrap", buf, sizeof(buf))) == NULL) {
		log_warnx("bwrap: not found in PATH (install bubblewrap, or set bwrapPath)");
		return -1;
	}
	if (helpers_take(l, H_BWRAP, bw) == -1) {
		if (l->set.bwrap_path != NULL)
			log_warnx("bwrapPath is not an executable file");
		return -1;
	}
	l->helper_dir = layout_helpers_dir(l->self_dir);
	log_debug("helpers: from %s", l->helper_dir);
	/* srt-httpd and srt-socksd also with httpProxyPort / socksProxyPort: they are then
	 * the relay to the user's own proxy (--relay-to). */
	for (h = H_SECCOMP; h < H_MAX; h++) {
		p = xasprintf("%s/%s", l->helper_dir, helper_name[h]);
		rc = helpers_take(l, (enum helper)h, p);
		free(p);
		if (rc == -1)
			return -1;
	}
	return 0;
}

void
helpers_close(struct launch *l)
{
	int h;

	for (h = 0; h < H_MAX; h++) {
		fd_close(&l->helper_fd[h]);
		free(l->helper_path[h]);
		l->helper_path[h] = NULL;
		l->helper_script[h] = false;
	}
	free(l->helper_dir);
	l->helper_dir = NULL;
}

/*
 * Execute helper h, held by fd (helper_fd[h], or where a child moved it); returns only on
 * failure, with errno set. A program runs from the descriptor. A script ("#!") cannot:
 * its interpreter is given /dev/fd/N, which close-on-exec has closed by then, and a
 * descriptor left open for it would pass on to bwrap and into the sandbox, where the
 * command could reopen the host's file through /proc/self/fd. So a script runs by its
 * name, once the name still leads to the file opened at the start (the interpreter opens
 * it by name in any case). bwrapPath is the one meant to be a script (srt's own helpers
 * are programs), and bwrap runs once, before any of the command does: what could swap
 * the file in between is a host process that could as well rewrite the script.
 */
int
helpers_exec(
    const struct launch *l, enum helper h, int fd, char *const argv[], char *const envp[])
{
	struct stat held, named;

	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	if (!l->helper_script[h])
		return execveat(fd, "", argv, envp, AT_EMPTY_PATH);
	if (fstat(fd, &held) == -1 || stat(l->helper_path[h], &named) == -1)
		return -1;
	if (held.st_dev != named.st_dev || held.st_ino != named.st_ino) {
		errno = ESTALE;
		return -1;
	}
	return execve(l->helper_path[h], argv, envp);
}
