/*
 * The write guard's supervisor (supervise.c): what the guard asks of the file system
 * (lib/sandbox/wguard.h struct wguard_fs), answered here: which directories predate the run,
 * which exist, which are git directories.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

/* --- what the guard asks of the file system --------------------------------------------- */

bool
sup_made(const struct sup *s, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < s->nmade; i++)
		if (s->made[i].dev == dev && s->made[i].ino == ino)
			return true;
	return false;
}

void
sup_made_add(struct sup *s, int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    sup_made(s, st.st_dev, st.st_ino))
		return;
	if (s->nmade == s->capmade) {
		s->capmade = s->capmade ? s->capmade * 2 : 64;
		s->made = xreallocarray(s->made, s->capmade, sizeof(*s->made));
	}
	s->made[s->nmade].dev = st.st_dev;
	s->made[s->nmade].ino = st.st_ino;
	s->nmade++;
}

void
sup_made_del(struct sup *s, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < s->nmade; i++)
		if (s->made[i].dev == dev && s->made[i].ino == ino) {
			s->made[i] = s->made[--s->nmade];
			return;
		}
}

/*
 * The answers fail closed: the guard asks by name, from our root, and the command can
 * make a name unreachable to us while it holds a descriptor below it (a directory on
 * the way made mode 0), or make our opens fail (EMFILE): anything but "it is not
 * there" is taken for the answer that protects.
 */
static bool
fs_absent(int err)
{
	return err == ENOENT || err == ENOTDIR;
}

/* The name to look at for path: path, or its place before the rename being checked. */
static const char *
fs_name(const struct sup *s, const char *path, char *buf, size_t len)
{
	size_t n;

	if (s->map_to == NULL || !path_is_under(path, s->map_to))
		return path;
	n = strlen(s->map_to);
	if (snprintf(buf, len, "%s%s", s->map_from, path + n) >= (int)len)
		return path; /* then asked as the name it will have: it does not exist */
	return buf;
}

void
sup_hold(struct sup *s, int dirfd, const char *path)
{
	s->held_fd = dirfd;
	s->held_path = path;
}

void
sup_unhold(struct sup *s)
{
	s->held_fd = -1;
	s->held_path = NULL;
}

/*
 * dir is the held directory or one of its ancestors: what it is, read from the held
 * directory upwards (".." of what we hold is where the name is made, whatever the
 * names on the way say by now). 0; -1 when dir is not on the held way; -2 when it is
 * and cannot be looked at.
 */
static int
fs_held_stat(const struct sup *s, const char *dir, struct stat *st)
{
	size_t up, hd, dd;
	int fd, nfd, r;

	if (s->held_path == NULL || s->held_fd == -1 || s->map_to != NULL ||
	    !path_is_under(s->held_path, dir))
		return -1;
	hd = path_depth(s->held_path);
	dd = path_depth(dir);
	if (dd > hd)
		return -1;
	if ((fd = fcntl(s->held_fd, F_DUPFD_CLOEXEC, 3)) == -1)
		return -2;
	for (up = hd - dd; up > 0; up--) {
		nfd = openat(fd, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		close(fd);
		if ((fd = nfd) == -1)
			return -2;
	}
	r = fstat(fd, st);
	close(fd);
	return r == 0 ? 0 : -2;
}

bool
fs_predates(void *arg, const char *dir)
{
	char buf[PATH_MAX];
	struct sup *s = arg;
	struct stat st;
	int r;

	if ((r = fs_held_stat(s, dir, &st)) == -2 ||
	    (r == -1 && lstat(fs_name(s, dir, buf, sizeof(buf)), &st) == -1))
		return true;
	return !sup_made(s, st.st_dev, st.st_ino) || path_under_any(dir, &s->vacated);
}

bool
fs_exists(void *arg, const char *p)
{
	char buf[PATH_MAX];
	struct stat st;

	return lstat(fs_name(arg, p, buf, sizeof(buf)), &st) == 0 || !fs_absent(errno);
}

char *
fs_resolve(void *arg, const char *path)
{
	(void)arg;
	return realpath(path, NULL);
}

/* Is name in fd there: 1, 0, or -1 when we cannot tell. */
static int
fs_has(int fd, const char *name)
{
	struct stat st;

	if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return 1;
	return fs_absent(errno) ? 0 : -1;
}

int
fs_is_git_dir(void *arg, const char *dir)
{
	char buf[PATH_MAX];
	int fd, head, common, objects, refs, r;

	if ((fd = open(fs_name(arg, dir, buf, sizeof(buf)),
		 O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return fs_absent(errno) || errno == ELOOP ? 0 : -1;
	/* As few looks as the answer needs (the common answer: no HEAD, no). */
	if ((head = fs_has(fd, "HEAD")) == 0)
		r = 0;
	else if ((common = fs_has(fd, "commondir")) == 1)
		r = head;
	else {
		objects = fs_has(fd, "objects");
		refs = objects != 0 ? fs_has(fd, "refs") : 0;
		if (common == 0 && (objects == 0 || refs == 0))
			r = 0;
		else if (head == 1 && objects == 1 && refs == 1)
			r = 1;
		else
			r = -1;
	}
	close(fd);
	return r;
}

bool
res_link_protected(void *arg, const char *link)
{
	struct sup *s = arg;
	const struct wguard_fs fs = { s, fs_is_git_dir, fs_predates, fs_exists, fs_resolve };
	const char *why;

	/* A write through a protected link: refused (EPERM) as a write to the link. */
	if ((why = wguard_protected(&s->g, &fs, link)) == NULL)
		return false;
	sup_refused(s, "write through a link", link, why);
	return true;
}

/* A directory that predated the run is gone from path: what is made there later (or
 * below it) does not count as the command's own. */
void
sup_vacate(struct sup *s, const char *path, bool was_dir_made_here)
{
	if (!was_dir_made_here && !strlist_contains(&s->vacated, path))
		strlist_push(&s->vacated, path);
}
