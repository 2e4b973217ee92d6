/*
 * The write guard's supervisor (supervise.c): open(2) and its kin, done by the supervisor
 * on the command's behalf, and opens that may block (a FIFO with no reader), which run
 * in a thread of their own on an object already decided on.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <linux/seccomp.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE	020000000
#endif

/* --- open ---------------------------------------------------------------------------------- */

struct blocking_open {
	int	 listener;
	uint64_t id;
	int	 obj;           /* O_PATH of the object decided on */
	int	 flags;         /* the open's flags; O_TRUNC is done on the object here */
	bool	 truncate;      /* truncate(2) to length, not an open */
	off_t	 length;
	size_t	 resp_size;
	struct seccomp_notif_resp *resp;
};

/*
 * An open that waits, on the object already decided on, in a thread of its own: a
 * FIFO's for the other end, and a file's whose lease the command holds (the kernel
 * makes the opener wait until the lease holder gives it up, up to lease-break-time):
 * the supervisor itself never waits on the command.
 */
static void *
sup_open_thread(void *arg)
{
	struct blocking_open *b = arg;
	char p[32];
	int fd, e = 0;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", b->obj);
	fd = open(p, (b->flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		e = -errno;
	else if (b->truncate) {
		if (ftruncate(fd, b->length) == -1)
			e = -errno;
		close(fd);
		fd = -1;
	}
	if (fd == -1)
		sup_answer_err(b->listener, b->id, e, b->resp, b->resp_size);
	else
		sup_answer_fd(b->listener, b->id, fd, (b->flags & O_CLOEXEC) != 0, b->resp,
		    b->resp_size);
	close(b->obj);
	free(b->resp);
	free(b);
	return NULL;
}

/* obj (ours from now on) opened with flags in a thread, which answers: 1, or -errno. */
static int
sup_open_later(struct sup *s, uint64_t id, int obj, int flags)
{
	return sup_later(s, id, obj, flags, false, 0);
}

int
sup_later(struct sup *s, uint64_t id, int obj, int flags, bool truncate, off_t length)
{
	struct blocking_open *b = xcalloc(1, sizeof(*b));
	pthread_attr_t at;
	pthread_t th;
	int e;

	b->listener = s->listener;
	b->id = id;
	b->obj = obj;
	b->flags = flags;
	b->truncate = truncate;
	b->length = length;
	b->resp_size = s->sizes.seccomp_notif_resp;
	b->resp = xcalloc(1, b->resp_size);
	pthread_attr_init(&at);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&at, 64 * 1024);
	e = pthread_create(&th, &at, sup_open_thread, b);
	pthread_attr_destroy(&at);
	if (e != 0) {
		close(obj);
		free(b->resp);
		free(b);
		return -e;
	}
	return 1;
}

/*
 * Open a regular file (what dirfd/name or, name NULL, the object dirfd holds) for the
 * command, without waiting on a lease the command holds on it: O_NONBLOCK makes the
 * kernel say EWOULDBLOCK (having told the holder to give it up), and the open is then
 * done again in a thread, which waits. 0 with *fd, 1 (a thread answers), or -errno.
 */
static int
sup_open_file(struct sup *s, uint64_t id, int dirfd, const char *name, int flags, int *fd)
{
	char p[32];
	int obj, fl;

	flags &= ~(O_CREAT | O_EXCL);   /* it is there: we looked */
	if (name == NULL) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", dirfd);
		*fd = open(p, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	} else
		*fd = openat(dirfd, name, flags | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (*fd != -1) {
		if (!(flags & O_NONBLOCK) && ((fl = fcntl(*fd, F_GETFL)) == -1 ||
		    fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) == -1)) {
			fd_close(fd);
			return -errno;
		}
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return -errno;
	obj = name == NULL ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0) :
	    openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj == -1)
		return -errno;
	return sup_open_later(s, id, obj, flags);
}

/* An object a magic link led to (or a directory named as a whole): reopened. */
static int
sup_open_object(struct sup *s, uint64_t id, struct res *r, int flags, int *fd)
{
	const char *why;
	struct stat st;
	char p[32];

	if (fstat(r->objfd, &st) == -1)
		return -errno;
	if (sup_in_proc(r->objfd)) {
		sup_proc_refused(s, r->path);
		return -EACCES;
	}
	if (r->path[0] != '\0' && (why = wguard_protected(&s->g, sup_fs(s), r->path)) != NULL) {
		sup_refused(s, "open", r->path, why);
		return -EPERM;
	}
	/* A removed file that still has another name: we cannot tell which. */
	if (r->path[0] == '\0' && S_ISREG(st.st_mode) && st.st_nlink > 0)
		return -EACCES;
	/*
	 * The command's own descriptor (/proc/self/fd/N): no more access than it was
	 * opened with. The kernel would reopen a file read-only descriptor for writing
	 * wherever the file's permissions allow, and a descriptor srt was given (standard
	 * input redirected from a file in no write root) reaches past the mounts: its
	 * mount is the host's.
	 */
	if (r->fd_flags != -1 && ((flags & O_ACCMODE) != O_RDONLY || (flags & O_TRUNC)) &&
	    ((r->fd_flags & O_PATH) || (r->fd_flags & O_ACCMODE) == O_RDONLY)) {
		sup_refused(s, "reopen for writing", r->path[0] != '\0' ? r->path :
		    "a descriptor", "opened read-only");
		return -EACCES;
	}
	if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
		int obj = dup(r->objfd);

		if (obj == -1)
			return -errno;
		return sup_open_later(s, id, obj, flags);
	}
	if (S_ISREG(st.st_mode))
		return sup_open_file(s, id, r->objfd, NULL, flags & ~(O_CREAT | O_EXCL |
		    O_NOFOLLOW), fd);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", r->objfd);
	if ((*fd = open(p, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_NOCTTY |
	    O_CLOEXEC)) == -1)
		return -errno;
	return 0;
}

/* open, openat, creat. 0: *fd is the result; 1: answered later; <0: -errno. */
int
sup_open(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, mode_t mode,
    int *fd)
{
	char path[PATH_MAX];
	const char *why;
	struct res r;
	struct stat st;
	bool follow, created = false;
	int e;

	*fd = -1;
	/* Read-only opens come here only while the supervisor holds read denies. */
	if (s->rg != NULL && (flags & O_ACCMODE) == O_RDONLY && !(flags & (O_CREAT | O_TRUNC)))
		return sup_open_read(s, id, dirfd, addr, flags, fd);
	if ((e = sup_path(s, addr, path)) < 0)
		return e;
	/* O_TMPFILE names a directory and makes no name: linkat(2) would, and is asked. */
	follow = (flags & __O_TMPFILE) == __O_TMPFILE ||
	    (!(flags & O_NOFOLLOW) && !((flags & O_CREAT) && (flags & O_EXCL)));
	if ((e = res_resolve(&s->rc, dirfd, path, follow, &r)) < 0)
		return e;
	/* What we read and opened was the asking thread's, not a later one's. */
	if (!sup_valid(s, id)) {
		res_free(&r);
		return -ENOENT;
	}
	if (r.objfd != -1) {
		if ((flags & __O_TMPFILE) == __O_TMPFILE) {
			*fd = openat(r.objfd, ".", flags | O_CLOEXEC,
			    sup_mode_strip(s, r.path, mode, false, true));
			e = *fd == -1 ? -errno : 0;
		} else
			e = sup_open_object(s, id, &r, flags, fd);
		sup_readonly(s, r.path, e);
		res_free(&r);
		return e;
	}
	if (sup_path_in_proc(r.path)) {
		sup_proc_refused(s, r.path);
		res_free(&r);
		return -EACCES;
	}
	/* O_CREAT|O_EXCL makes a name or fails (a link there included): no need to look
	 * first, the kernel's EEXIST is the answer (the common case of tar, cp, git). */
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) &&
	    (flags & __O_TMPFILE) != __O_TMPFILE && !r.must_be_dir) {
		if ((e = sup_create_ok(s, &r, false, "create", true)) < 0)
			goto out;
		*fd = openat(r.dirfd, r.name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    sup_mode_strip(s, r.path, mode, false, true));
		e = *fd == -1 ? -errno : 0;
		created = true;
		goto out;
	}
	if (fstatat(r.dirfd, r.name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT || !(flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE) {
			e = -errno;
			goto out;
		}
		if (r.must_be_dir) {
			e = -EISDIR;
			goto out;
		}
		if ((e = sup_create_ok(s, &r, false, "create", true)) < 0)
			goto out;
		mode = sup_mode_strip(s, r.path, mode, false, true);
		created = true;
	} else {
		if ((flags & O_CREAT) && (flags & O_EXCL)) {
			e = -EEXIST;
			goto out;
		}
		if (S_ISLNK(st.st_mode)) {
			e = -ELOOP;     /* O_NOFOLLOW on a link */
			goto out;
		}
		if ((why = wguard_protected(&s->g, sup_fs(s), r.path)) != NULL) {
			sup_refused(s, "open for writing", r.path, why);
			e = -EPERM;
			goto out;
		}
		if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK) && (flags & O_ACCMODE) !=
		    O_RDWR) {
			int obj = openat(r.dirfd, r.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);

			if (obj == -1) {
				e = -errno;
				goto out;
			}
			e = sup_open_later(s, id, obj, flags);
			goto out;
		}
		if (S_ISREG(st.st_mode) && (flags & __O_TMPFILE) != __O_TMPFILE) {
			e = sup_open_file(s, id, r.dirfd, r.name, flags, fd);
			goto out;
		}
	}
	if ((flags & __O_TMPFILE) == __O_TMPFILE) {
		*fd = openat(r.dirfd, r.name, flags | O_CLOEXEC, sup_mode_strip(s, r.path, mode,
		    false, true));
	} else {
		/* Stripped above for a file that was missing; one that was there and is
		 * gone by now (another thread) is made here too. */
		*fd = openat(r.dirfd, r.name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC,
		    mode & ~(mode_t)(S_ISUID | S_ISGID | S_IWOTH));
	}
	e = *fd == -1 ? -errno : 0;
 out:
	/* A git directory pointer written: what it says is checked before the run ends. */
	if (e >= 0 && r.path[0] != '\0' && wguard_pointer_name(&s->g, sup_fs(s), r.path))
		sup_git_pointer(s, r.path);
	/* A .git file the command made is no user's repository (fs_predates): what it
	 * names is the command's, as a .git directory it made would be (git init
	 * --separate-git-dir in the project directory), and is checked with the pointers. */
	if (e >= 0 && created && strcmp(path_basename(r.path), ".git") == 0)
		sup_made_add(s, r.dirfd, r.name);
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}

/* An O_PATH open, the object held as obj (O_PATH, not following): it is the answer. */
static int
sup_open_path(int *obj, const struct stat *st, int flags, int *fd)
{
	if ((flags & O_DIRECTORY) && !S_ISDIR(st->st_mode))
		return -ENOTDIR;
	*fd = *obj;
	*obj = -1;
	return 0;
}

/*
 * A read-only open, while read denies are held here (sup_read.c): the object is held
 * first, judged, then opened as it is held. 0: *fd is the result; 1: answered later;
 * <0: -errno (EACCES for a denied path the host changed, as Landlock answers).
 */
int
sup_open_read(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, int *fd)
{
	char path[PATH_MAX], p[32];
	const char *deny;
	struct stat st;
	struct res r;
	int e, obj = -1;

	*fd = -1;
	if ((e = sup_path(s, addr, path)) < 0)
		return e;
	if ((e = res_resolve(&s->rc, dirfd, path, !(flags & O_NOFOLLOW), &r)) < 0)
		return e;
	if (!sup_valid(s, id)) {
		e = -ENOENT;
		goto out;
	}
	obj = r.objfd != -1 ? fcntl(r.objfd, F_DUPFD_CLOEXEC, 0) :
	    openat(r.dirfd, r.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj == -1 || fstat(obj, &st) == -1) {
		e = -errno;
		goto out;
	}
	if ((deny = rguard_refuses(s->rg, obj, r.path)) != NULL) {
		/* A read refused: reported as one (sup_refused's are writes). */
		s->refused++;
		log_debug("refused: open for reading %s (a denied path the host changed "
		    "during the run: %s)", r.path, deny);
		monitor_file(s->mon, true, "open", r.path[0] != '\0' ? r.path : deny,
		    "denyRead: a denied path the host changed during the run");
		e = -EACCES;
		goto out;
	}
	if (S_ISLNK(st.st_mode))	/* O_NOFOLLOW: the link itself, for O_PATH only */
		e = (flags & O_PATH) ? sup_open_path(&obj, &st, flags, fd) : -ELOOP;
	else if (flags & O_PATH)
		e = sup_open_path(&obj, &st, flags, fd);
	else if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
		e = sup_open_later(s, id, obj, flags);
		obj = -1;
	} else if (S_ISREG(st.st_mode))
		e = sup_open_file(s, id, obj, NULL, flags & ~O_NOFOLLOW, fd);
	else {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", obj);
		*fd = open(p, (flags & ~O_NOFOLLOW) | O_NOCTTY | O_CLOEXEC);
		e = *fd == -1 ? -errno : 0;
	}
 out:
	if (obj != -1)
		close(obj);
	res_free(&r);
	return e;
}
