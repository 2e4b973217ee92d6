/*
 * The write guard's supervisor (supervise.c): git files decided by content (wguard.h,
 * srt-launch(1) The write guard). A git config is installed only by the rename of git's
 * lock file onto it: the supervisor reads what the command wrote, asks gitcfg_check, and
 * writes the checked bytes itself into a file of its own that it renames into place, so
 * no descriptor of the command reaches what the host's git reads. A directory that
 * becomes a git directory has its hooks and config looked at first (they may have been
 * written before it was git state). A
 * git directory pointer (a .git file, commondir, gitdir) is written by the command
 * through its own descriptor: it is noted, and what it says is checked once the command
 * is gone, before the run ends (sup_git_finish); one pointing outside its repository is
 * taken away. A config the command created by an open in a git directory of its own
 * (cp -a, tar x of a repository) is noted the same way and judged then as new
 * (gitcfg_check against nothing); one refused, or that is no regular file, is removed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "gitconfig.h"
#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#define POINTER_MAX 4096 /* bytes of a pointer read; a longer one is refused */

/*
 * Read a regular file (what dfd/name is, not following a link) into a new buffer: 0
 * with *buf and *len, 1 when there is no such file (or, dfd AT_FDCWD and name absolute,
 * when the name does not lead there without a link on the way), -errno otherwise
 * (-EFBIG past max).
 */
static int
git_read(int dfd, const char *name, size_t max, char **buf, size_t *len, struct stat *st)
{
	char real[PATH_MAX];
	ssize_t n;
	size_t cap = 4096, got = 0;
	char *b;
	int fd, e = 0;

	*buf = NULL;
	*len = 0;
	if ((fd = openat(
		 dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -errno;
	if (dfd == AT_FDCWD &&
	    (res_fd_path(fd, real, sizeof(real)) < 0 || strcmp(real, name) != 0)) {
		close(fd);
		return 1;
	}
	if (fstat(fd, st) == -1)
		e = -errno;
	else if (!S_ISREG(st->st_mode))
		e = -EINVAL;
	if (e != 0) {
		close(fd);
		return e;
	}
	b = xmalloc(cap + 1);
	for (;;) {
		if (got == cap) {
			if (cap > max) {
				e = -EFBIG;
				break;
			}
			cap *= 2;
			b = xreallocarray(b, cap + 1, 1);
		}
		if ((n = read(fd, b + got, cap - got)) == -1) {
			if (errno == EINTR)
				continue;
			e = -errno;
			break;
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	if (e == 0 && got > max)
		e = -EFBIG;
	if (e != 0) {
		free(b);
		return e;
	}
	b[got] = '\0';
	*buf = b;
	*len = got;
	return 0;
}

/*
 * Put text into dfd/name as a file of our own: made O_EXCL under a name of ours, given
 * mode and owner, then renamed over name. 0 or -errno.
 */
static int
git_install(int dfd, const char *name, const char *text, size_t len, const struct stat *like)
{
	char tmp[64];
	ssize_t n;
	size_t off = 0;
	int fd = -1, e = 0, i;

	for (i = 0; i < 100 && fd == -1; i++) {
		snprintf(tmp, sizeof(tmp), ".srt-config-%ld-%d", (long)getpid(), rand());
		fd = openat(
		    dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd == -1 && errno != EEXIST)
			return -errno;
	}
	if (fd == -1)
		return -EEXIST;
	while (off < len) {
		if ((n = write(fd, text + off, len - off)) == -1) {
			if (errno == EINTR)
				continue;
			e = -errno;
			break;
		}
		off += (size_t)n;
	}
	/* Owned like the rest (we run as the command's user: this is mostly a no-op),
	 * its mode the lock file's, never set-ID. */
	if (e == 0 && fchown(fd, like->st_uid, like->st_gid) == -1 && errno != EPERM)
		e = -errno;
	if (e == 0 && fchmod(fd, like->st_mode & 0777) == -1)
		e = -errno;
	if (close(fd) == -1 && e == 0)
		e = -errno;
	if (e == 0 && renameat(dfd, tmp, dfd, name) == -1)
		e = -errno;
	if (e != 0)
		(void)unlinkat(dfd, tmp, 0);
	return e;
}

/*
 * Does the configuration set core.worktree? Its value was judged as text; where it leads
 * through the links the command may make later is checked with the pointers.
 */
static bool
git_has_worktree(const char *text, size_t len)
{
	struct gitconfig c;
	bool r;

	gitconfig_init(&c);
	r = gitconfig_parse(text, len, &c) == -1 || c.worktree != NULL;
	gitconfig_free(&c);
	return r;
}

/* git_read's error r (< 0) on the configuration at path: a file that is no regular file
 * or is too large is refused (why says so), -EPERM; another error is passed on. */
static int
git_read_refused(struct sup *s, const char *path, int r, const char *why)
{
	if (r != -EINVAL && r != -EFBIG)
		return r;
	sup_refused(s, s->op, path, why);
	return -EPERM;
}

/*
 * Judge new (the command's file) against what dfd/name holds now (fresh: against
 * nothing, the file was never git state), for the git directory gitdir, and install it
 * when it passes. 0, -EPERM (refused, said), or -errno.
 */
static int
git_judge(struct sup *s, int dfd, const char *name, const char *path, const char *gitdir,
    const char *new_, size_t newlen, const struct stat *like, bool fresh)
{
	struct strlist all = { 0 };
	struct gitcfg_ctx ctx = { gitdir, &all };
	struct stat ost;
	char why[512], *old = NULL;
	size_t oldlen = 0, i;
	int r = 1;

	if (!fresh && (r = git_read(dfd, name, GITCONFIG_MAX, &old, &oldlen, &ost)) < 0)
		return git_read_refused(s, path, r,
		    "git configuration that is no regular file "
		    "or too large (allowGitConfig allows it)");
	if (gitcfg_check(old, oldlen, new_, newlen, &ctx, why, sizeof(why)) == -1) {
		free(old);
		/* A line for each refused key, not only the first. */
		for (i = 0; i < all.n; i++)
			sup_refused(s, s->op, path, all.v[i]);
		if (all.n == 0)
			sup_refused(s, s->op, path, why);
		strlist_free(&all);
		return -EPERM;
	}
	strlist_free(&all);
	free(old);
	if ((r = git_install(dfd, name, new_, newlen, like)) == 0 &&
	    git_has_worktree(new_, newlen))
		sup_git_pointer(s, path);
	return r;
}

int
sup_git_config_rename(
    struct sup *s, int odfd, const char *oname, int ndfd, const char *nname, const char *npath)
{
	struct stat st;
	char *text, *gitdir;
	size_t len;
	int e;

	/* The bytes we check are ours from here: the command's later writes to its lock
	 * file reach nothing the host reads. */
	if ((e = git_read(odfd, oname, GITCONFIG_MAX, &text, &len, &st)) != 0) {
		if (e == 1)
			return -ENOENT;
		return git_read_refused(s, npath, e,
		    "git configuration renamed from what is no "
		    "regular file or too large (allowGitConfig allows it)");
	}
	gitdir = path_dirname(npath);
	e = git_judge(s, ndfd, nname, npath, gitdir, text, len, &st, false);
	free(gitdir);
	free(text);
	if (e == 0 && unlinkat(odfd, oname, 0) == -1 && errno != ENOENT)
		log_debug("%s: lock file left behind: %s", npath, strerror(errno));
	return e;
}

/* Note a pointer the command makes at path, to be checked before the run ends. */
void
sup_git_pointer(struct sup *s, const char *path)
{
	if (!strlist_contains(&s->pointers, path))
		strlist_push(&s->pointers, path);
}

/* Note a config the command creates at path, to be judged as new before the run ends. */
void
sup_git_config_new(struct sup *s, const char *path)
{
	if (!strlist_contains(&s->new_configs, path))
		strlist_push(&s->new_configs, path);
	sup_git_pointer(s, path);
}

/* The git directory the .git file p names, when it is missing: counted as predating
 * the run (sup_git_missing_targets). */
static void
git_missing_target(struct sup *s, const char *p)
{
	struct stat st;
	char *text, *dir, *j, *t;
	size_t len;

	if (git_read(AT_FDCWD, p, POINTER_MAX, &text, &len, &st) != 0)
		return;
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		text[--len] = '\0';
	if (strncmp(text, "gitdir: ", 8) != 0 || strchr(text, '\n') != NULL ||
	    text[8] == '\0') {
		free(text);
		return;
	}
	dir = path_dirname(p);
	j = text[8] == '/' ? xstrdup(text + 8) : path_join(dir, text + 8);
	if ((t = path_normalize(j)) != NULL && lstat(t, &st) == -1 && errno == ENOENT)
		sup_vacate(s, t, false);
	free(t);
	free(j);
	free(dir);
	free(text);
}

/*
 * The git directories that .git files of the user's name, when they are missing as the
 * run starts (git init --separate-git-dir, its directory gone): the user's repository's,
 * though the command would make them. Counted as predating the run (vacated), so that
 * what the command makes there is judged as the user's git directory would be: git in
 * that work tree reads it at once. The .git files: the roots' (the working directory's
 * and the write roots') and those the plan found below them (the guard's exact paths).
 */
void
sup_git_missing_targets(struct sup *s)
{
	char *p;
	size_t i;

	for (i = 0; i < s->g.roots.n; i++) {
		p = path_join(s->g.roots.v[i], ".git");
		git_missing_target(s, p);
		free(p);
	}
	for (i = 0; i < s->g.exact.n; i++)
		if (strcmp(path_basename(s->g.exact.v[i]), ".git") == 0)
			git_missing_target(s, s->g.exact.v[i]);
}

/*
 * The judge of a config the command created, read after it is gone: why it is refused
 * (into why), or NULL. A link or anything else that is no regular file is refused.
 */
static const char *
git_config_verdict(const char *p, char *why, size_t whylen, struct strlist *all)
{
	struct gitcfg_ctx ctx = { NULL, all };
	struct stat st;
	char *text, *dir;
	size_t len;
	int e;

	if ((e = git_read(AT_FDCWD, p, GITCONFIG_MAX, &text, &len, &st)) == 1)
		return NULL; /* gone, or no longer reached by its name */
	if (e < 0)
		return "git configuration that is no regular file or too large, or cannot be "
		       "read (allowGitConfig allows it)";
	dir = path_dirname(p);
	ctx.gitdir = dir;
	e = gitcfg_check(NULL, 0, text, len, &ctx, why, whylen);
	free(dir);
	free(text);
	return e == -1 ? why : NULL;
}

int
sup_git_complete(struct sup *s, int dfd, const char *dir)
{
	static const char *const configs[] = { "config", "config.worktree" };
	struct dirent *de;
	struct stat st;
	char *text, *p;
	size_t len, i;
	DIR *d;
	int fd, e;

	/* No hook git would run: a hooks directory of samples only, or none. */
	if ((fd = openat(dfd, "hooks", O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		if (errno != ENOENT) {
			p = path_join(dir, "hooks");
			sup_refused(s, s->op, p,
			    "mandatory deny: git hooks that cannot be looked "
			    "at in a directory that becomes a git directory");
			free(p);
			return -EPERM;
		}
	} else {
		if ((d = fdopendir(fd)) == NULL) {
			close(fd);
			return -EPERM;
		}
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
			    wguard_hook_sample(de->d_name))
				continue;
			p = path_join(dir, "hooks");
			sup_refused(s, s->op, p,
			    "mandatory deny: a git hook in a directory that "
			    "becomes a git directory (srt never lets a command make one)");
			free(p);
			closedir(d);
			return -EPERM;
		}
		closedir(d);
	}
	/* Its configuration, judged as new and written again by us: a descriptor the
	 * command opened before this was git state reaches the old file only. */
	for (i = 0; i < sizeof(configs) / sizeof(configs[0]); i++) {
		if ((e = git_read(dfd, configs[i], GITCONFIG_MAX, &text, &len, &st)) == 1)
			continue;
		p = path_join(dir, configs[i]);
		if (e == 0)
			e = git_judge(s, dfd, configs[i], p, dir, text, len, &st, true);
		else if (e == -EINVAL || e == -EFBIG || e == -ELOOP) {
			sup_refused(s, s->op, p,
			    "git configuration that is no regular file in a "
			    "directory that becomes a git directory");
			e = -EPERM;
		}
		free(text);
		free(p);
		if (e != 0)
			return e < 0 ? e : -EPERM;
	}
	/* A commondir written while this was no git state: checked with the others. */
	p = path_join(dir, "commondir");
	if (fstatat(dfd, "commondir", &st, AT_SYMLINK_NOFOLLOW) == 0)
		sup_git_pointer(s, p);
	free(p);
	return 0;
}

/*
 * Remove p, a pointer the command made, which it may have made hard to remove: its
 * directory, or one on the way, without our write or search bit (we hold no capability
 * that overrides a mode). The command is gone: each directory of ours on the way gets
 * back the owner's write and search bits git's own directories have. 0, or -1 with
 * errno.
 */
static int
git_remove(const char *p)
{
	struct stat st;
	char *dir, *c;

	if (unlink(p) == 0 || errno == ENOENT)
		return 0;
	if (errno != EACCES && errno != EPERM)
		return -1;
	/* Down from the root, up to a link on the way: none of ours lies beyond one. */
	dir = xstrdup(p);
	for (c = strchr(dir + 1, '/'); c != NULL; c = strchr(c + 1, '/')) {
		*c = '\0';
		if (lstat(dir, &st) == -1 || !S_ISDIR(st.st_mode))
			break;
		if (st.st_uid == geteuid() &&
		    (st.st_mode & (S_IWUSR | S_IXUSR)) != (S_IWUSR | S_IXUSR))
			(void)chmod(dir, (st.st_mode & 07777) | S_IWUSR | S_IXUSR);
		*c = '/';
	}
	free(dir);
	return unlink(p) == 0 || errno == ENOENT ? 0 : -1;
}

/*
 * The run is over: the command's processes go (a descriptor one of them holds could
 * still change a pointer), then every pointer noted is read and judged, and one that
 * points outside its repository is removed.
 */
void
sup_git_finish(struct sup *s)
{
	const char *why;
	struct stat st;
	char *text;
	size_t len, max, i;
	int e;

	if (s->pointers.n == 0 && s->new_configs.n == 0)
		return;
	if (getpid() == 1) {
		(void)kill(-1, SIGKILL);
		while (waitpid(-1, NULL, 0) > 0 || errno == EINTR)
			;
	}
	s->op = "write";
	/* Configs created by an open first: one removed is no pointer left to check. */
	for (i = 0; i < s->new_configs.n; i++) {
		const char *p = s->new_configs.v[i];
		char buf[512];

		struct strlist all = { 0 };
		size_t k;

		if ((why = git_config_verdict(p, buf, sizeof(buf), &all)) == NULL) {
			strlist_free(&all);
			continue;
		}
		if (git_remove(p) == -1)
			log_warnx("%s: %s; could not remove it: %s", p, why, strerror(errno));
		for (k = 0; k < all.n; k++)
			sup_refused(s, s->op, p, all.v[k]);
		if (all.n == 0)
			sup_refused(s, s->op, p, why);
		strlist_free(&all);
	}
	for (i = 0; i < s->pointers.n; i++) {
		const char *p = s->pointers.v[i];

		/* Gone, or no file (a .git directory is judged by its files). */
		/* A config, a rebase's steps: longer than a pointer. */
		max = strcmp(path_basename(p), ".git") == 0 ||
			strcmp(path_basename(p), "commondir") == 0 ||
			strcmp(path_basename(p), "gitdir") == 0
		    ? POINTER_MAX
		    : GITCONFIG_MAX;
		if ((e = git_read(AT_FDCWD, p, max, &text, &len, &st)) == 1 || e == -EINVAL)
			continue;
		why = e == 0 ? wguard_pointer_check(&s->g, sup_fs(s), p, text, len)
			     : "mandatory deny: a git directory pointer that cannot be read";
		free(text);
		if (why == NULL)
			continue;
		if (git_remove(p) == -1)
			log_warnx("%s: %s; could not remove it: %s", p, why, strerror(errno));
		sup_refused(s, s->op, p, why);
	}
}
