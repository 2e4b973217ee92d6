/*
 * The read-deny mounts, watched for what the host does to them while the command runs.
 *
 * A denied file is masked with /dev/null bound over it, a denied directory with a tmpfs.
 * Linux detaches such a mount when the host unlinks or renames over its mount point (a
 * secret rotated with `mv tmp token`), and a mount point the host renames takes its
 * mount along, leaving the old name bare for whatever is made there next. Either way
 * the path would be readable again. The masks cannot be put back from here (the
 * sandbox holds no capability), so the sandbox ends instead (fail closed): the mount
 * each path had at the start (statx STATX_MNT_ID) must still be what the path shows.
 *
 * Looked at again whenever the mount table changes (POLLPRI on /proc/self/mountinfo)
 * and whenever an entry of a watched path's directory is moved, made or removed
 * (inotify on that directory: the host's changes reach it, inodes being shared).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "path.h"
#include "srt-seccomp.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID	0x00001000U
#endif

struct watch {
	struct strlist paths;
	unsigned long long *mnt;        /* per path: its mount at the start */
	int	 inotify;
	int	 mountinfo;
};

static int
watch_mnt(const char *path, unsigned long long *id)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, AT_SYMLINK_NOFOLLOW, STATX_MNT_ID, &sx) == -1)
		return -1;
	if (!(sx.stx_mask & STATX_MNT_ID)) {
		errno = ENOSYS;
		return -1;
	}
	*id = sx.stx_mnt_id;
	return 0;
}

struct watch *
watch_new(const struct strlist *paths)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	size_t i;

	w->inotify = w->mountinfo = -1;
	w->mnt = xcalloc(paths->n, sizeof(*w->mnt));
	for (i = 0; i < paths->n; i++) {
		strlist_push(&w->paths, paths->v[i]);
		if (watch_mnt(paths->v[i], &w->mnt[i]) == -1) {
			log_warn("read deny %s: statx", paths->v[i]);
			goto fail;
		}
	}
	if ((w->mountinfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("/proc/self/mountinfo");
		goto fail;
	}
	if ((w->inotify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) == -1) {
		log_warn("inotify_init1");
		goto fail;
	}
	for (i = 0; i < paths->n; i++) {
		char *dir = path_dirname(paths->v[i]);

		if (inotify_add_watch(w->inotify, dir, IN_MOVED_FROM | IN_MOVED_TO | IN_CREATE |
		    IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) == -1) {
			log_warn("read deny %s: inotify_add_watch %s", paths->v[i], dir);
			free(dir);
			goto fail;
		}
		free(dir);
	}
	return w;
 fail:
	watch_free(w);
	return NULL;
}

int
watch_fds(struct watch *w, struct pollfd *p, int max)
{
	if (max < 2)
		return 0;
	p[0] = (struct pollfd){ .fd = w->inotify, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = w->mountinfo, .events = POLLPRI };
	return 2;
}

/* Is every mask still where it was? Else say which is gone: -1. */
static int
watch_verify(struct watch *w)
{
	unsigned long long id;
	size_t i;

	for (i = 0; i < w->paths.n; i++)
		if (watch_mnt(w->paths.v[i], &id) == -1 || id != w->mnt[i]) {
			log_warnx("%s: its read protection (denyRead) was lost: the host "
			    "replaced, moved or deleted it while the command ran; ending the "
			    "sandbox", w->paths.v[i]);
			return -1;
		}
	return 0;
}

int
watch_check(struct watch *w, const struct pollfd *p, int n)
{
	char buf[4096];
	int i, seen = 0;

	for (i = 0; i < n; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].fd == w->inotify) {
			/* Drained: each batch is one more look. */
			while (read(w->inotify, buf, sizeof(buf)) > 0)
				;
			seen = 1;
		} else if (p[i].fd == w->mountinfo)
			seen = 1;       /* poll(2) itself took note of the change */
	}
	return seen ? watch_verify(w) : 0;
}

void
watch_free(struct watch *w)
{
	if (w == NULL)
		return;
	fd_close(&w->inotify);
	fd_close(&w->mountinfo);
	strlist_free(&w->paths);
	free(w->mnt);
	free(w);
}
