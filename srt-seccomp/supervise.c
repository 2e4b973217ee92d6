/*
 * The write guard's supervisor (srt-launch(1) DESIGN; lib/wguard.h): run by the
 * sandbox's PID 1, it receives every write-intent system call of the command through a
 * seccomp user-notification listener, and for each:
 *   1. reads the path(s) from the command's memory, once: our copy is what counts;
 *   2. resolves them itself (resolve.c), holding the directory the last name is in;
 *   3. asks the guard about the resolved absolute path;
 *   4. does the call itself, in the directory it holds, never following a link there,
 *      and returns the result (an opened file goes to the command with
 *      SECCOMP_IOCTL_NOTIF_ADDFD, in the same step as the answer).
 * The command's call is never let through to the kernel (no
 * SECCOMP_USER_NOTIF_FLAG_CONTINUE) except umask(2), which decides nothing and is only
 * noted. We run with the command's credentials, in its mount namespace, with its root:
 * the mounts still refuse what they refused, and we can do nothing it could not, except
 * that /proc would know us as ourselves, so writes to /proc files are refused
 * (EACCES) and /proc's magic links are followed for the caller's own entries only.
 *
 * The file system answers the guard's questions about git directories and about which
 * directories predate the run: those this supervisor made (by device and inode) and that
 * do not stand where a directory that predated the run stood (vacated paths).
 *
 * One thread. A blocking open (a FIFO with no reader) runs in a thread of its own, on
 * an object already decided on, so the supervisor never waits on the command.
 */
#include <dirent.h>
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <linux/magic.h>
#include <linux/seccomp.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP	(1UL << 0)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD	O_EXCL
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE	020000000
#endif

#define TASKS_MAX	4096	/* threads whose umask is remembered */
#define SUBTREE_MAX	20000	/* entries a directory rename may look at */
#define XATTR_VALUE_MAX	65536

struct dirid {
	dev_t	 dev;
	ino_t	 ino;
};

struct task {
	pid_t	 tid, tgid;
	int	 pidfd;		/* this very thread: -1 when it cannot be told apart */
	mode_t	 umask;
};

struct sup {
	int	 listener;
	struct wguard g;
	struct watch *watch;
	struct seccomp_notif_sizes sizes;
	struct seccomp_notif *req;
	struct seccomp_notif_resp *resp;
	/* directories made during the run, and where predating ones stood */
	struct dirid *made;
	size_t	 nmade, capmade;
	struct strlist vacated;
	/* threads seen, for their process and umask */
	struct task tasks[TASKS_MAX];
	size_t	 ntasks;
	mode_t	 umask;		/* ours, as last set */
	struct res_ctx rc;	/* of the call being served */
	struct task *task;	/* its thread, or NULL */
	unsigned long refused;
	/* While a rename's subtree is looked at: a name under map_to is asked about as
	 * what now stands at the same place under map_from (it moves there whole). */
	const char *map_from, *map_to;
};

/* An answer to the call being served. */
enum { ANS_VAL, ANS_FD, ANS_LATER };

/* --- what the guard asks of the file system --------------------------------------------- */

static bool
sup_made(const struct sup *s, dev_t dev, ino_t ino)
{
	size_t i;

	for (i = 0; i < s->nmade; i++)
		if (s->made[i].dev == dev && s->made[i].ino == ino)
			return true;
	return false;
}

static void
sup_made_add(struct sup *s, int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1 || sup_made(s, st.st_dev,
	    st.st_ino))
		return;
	if (s->nmade == s->capmade) {
		s->capmade = s->capmade ? s->capmade * 2 : 64;
		s->made = xreallocarray(s->made, s->capmade, sizeof(*s->made));
	}
	s->made[s->nmade].dev = st.st_dev;
	s->made[s->nmade].ino = st.st_ino;
	s->nmade++;
}

static void
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
		return path;    /* then asked as the name it will have: it does not exist */
	return buf;
}

static bool
fs_predates(void *arg, const char *dir)
{
	char buf[PATH_MAX];
	struct sup *s = arg;
	struct stat st;
	size_t i;

	if (lstat(fs_name(s, dir, buf, sizeof(buf)), &st) == -1 ||
	    !sup_made(s, st.st_dev, st.st_ino))
		return true;
	for (i = 0; i < s->vacated.n; i++)
		if (path_is_under(dir, s->vacated.v[i]))
			return true;
	return false;
}

static bool
fs_exists(void *arg, const char *p)
{
	char buf[PATH_MAX];
	struct stat st;

	return lstat(fs_name(arg, p, buf, sizeof(buf)), &st) == 0 || !fs_absent(errno);
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

static int
fs_is_git_dir(void *arg, const char *dir)
{
	char buf[PATH_MAX];
	int fd, head, common, objects, refs, r;

	if ((fd = open(fs_name(arg, dir, buf, sizeof(buf)), O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
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

static bool
res_link_protected(void *arg, const char *link)
{
	struct sup *s = arg;
	const struct wguard_fs fs = { s, fs_is_git_dir, fs_predates, fs_exists };

	return wguard_protected(&s->g, &fs, link) != NULL;
}

/* A directory that predated the run is gone from path: what is made there later (or
 * below it) does not count as the command's own. */
static void
sup_vacate(struct sup *s, const char *path, bool was_dir_made_here)
{
	if (!was_dir_made_here && !strlist_contains(&s->vacated, path))
		strlist_push(&s->vacated, path);
}

/* --- the calling thread -------------------------------------------------------------------- */

static void
task_forget(struct sup *s, size_t i)
{
	fd_close(&s->tasks[i].pidfd);
	s->tasks[i] = s->tasks[--s->ntasks];
}

/* Its process and umask, from /proc/TID/status the first time. */
static struct task *
task_get(struct sup *s, pid_t tid)
{
	char p[64], buf[2048], *l;
	struct task *t;
	ssize_t n;
	size_t i;
	int fd;

	for (i = 0; i < s->ntasks; i++) {
		t = &s->tasks[i];
		if (t->tid != tid)
			continue;
		if (t->pidfd != -1 && syscall(SYS_pidfd_send_signal, t->pidfd, 0, NULL, 0) == 0)
			return t;
		task_forget(s, i);      /* gone: the number was given again */
		break;
	}
	snprintf(p, sizeof(p), "/proc/%ld/status", (long)tid);
	if ((fd = open(p, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	if (s->ntasks == TASKS_MAX)
		task_forget(s, 0);
	t = &s->tasks[s->ntasks];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tid;
	t->umask = 022;
	if ((l = strstr(buf, "\nTgid:")) != NULL)
		t->tgid = (pid_t)strtol(l + 6, NULL, 10);
	if ((l = strstr(buf, "\nUmask:")) != NULL)
		t->umask = (mode_t)strtol(l + 7, NULL, 8) & 0777;
	/* A pidfd of the thread itself tells us when the number is reused. Where the
	 * kernel cannot give one, the entry is read again next time. */
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t->pidfd == -1 && tid == t->tgid)
		t->pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	if (t->pidfd == -1) {
		static struct task once;

		once = *t;
		return &once;
	}
	s->ntasks++;
	return t;
}

/* umask(2): noted for every thread of the process, then done by the kernel. */
static void
task_umask(struct sup *s, pid_t tid, mode_t m)
{
	struct task *t = task_get(s, tid);
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tgid == t->tgid)
			s->tasks[i].umask = m & 0777;
}

/* Our umask as the caller's, for a file or directory we make for it. */
static void
sup_caller_umask(struct sup *s)
{
	mode_t m = s->task != NULL ? s->task->umask : 077;

	if (m != s->umask) {
		umask(m);
		s->umask = m;
	}
}

/* --- answers -------------------------------------------------------------------------------- */

static void
sup_answer(struct sup *s, uint64_t id, int64_t val, int err, uint32_t flags)
{
	memset(s->resp, 0, s->sizes.seccomp_notif_resp);
	s->resp->id = id;
	s->resp->val = val;
	s->resp->error = err;
	s->resp->flags = flags;
	if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_SEND, s->resp) == -1 && errno != ENOENT)
		log_warn("SECCOMP_IOCTL_NOTIF_SEND");
}

/* An error answer, from any thread: resp is a buffer of the kernel's size. */
static void
sup_answer_err(int listener, uint64_t id, int err, struct seccomp_notif_resp *resp,
    size_t size)
{
	memset(resp, 0, size);
	resp->id = id;
	resp->error = err;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == -1 && errno != ENOENT)
		log_warn("SECCOMP_IOCTL_NOTIF_SEND");
}

/* Give fd to the command as the call's result, in the same step as the answer; fd is
 * closed here. Should that fail (EMFILE, say), the command hears the error. */
static void
sup_answer_fd(int listener, uint64_t id, int fd, bool cloexec,
    struct seccomp_notif_resp *resp, size_t size)
{
	struct seccomp_notif_addfd a;

	memset(&a, 0, sizeof(a));
	a.id = id;
	a.flags = SECCOMP_ADDFD_FLAG_SEND;
	a.srcfd = (uint32_t)fd;
	a.newfd_flags = cloexec ? O_CLOEXEC : 0;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_ADDFD, &a) == -1 && errno != ENOENT)
		sup_answer_err(listener, id, -errno, resp, size);
	close(fd);
}

static void
sup_refused(struct sup *s, const char *op, const char *path, const char *why)
{
	s->refused++;
	log_debug("refused: %s %s (%s)", op, path, why);
}

static const struct wguard_fs *
sup_fs(struct sup *s)
{
	static struct wguard_fs fs = { NULL, fs_is_git_dir, fs_predates, fs_exists };

	fs.arg = s;
	return &fs;
}

/* Is what we hold in /proc? We cannot write there as the command would. */
static bool
sup_in_proc(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* The same, by the kernel's name for it (procfs is mounted on /proc alone here). */
static bool
sup_path_in_proc(const char *path)
{
	return path_is_under(path, "/proc");
}

/* The command's path argument, and whether the call may go on (its thread is still
 * the one that asked). */
static int
sup_path(struct sup *s, uint64_t addr, char *buf)
{
	int e = res_read_string(s->rc.tid, addr, buf, PATH_MAX);

	return e;
}

static bool
sup_valid(struct sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

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

static int sup_later(struct sup *, uint64_t, int, int, bool, off_t);

/* obj (ours from now on) opened with flags in a thread, which answers: 1, or -errno. */
static int
sup_open_later(struct sup *s, uint64_t id, int obj, int flags)
{
	return sup_later(s, id, obj, flags, false, 0);
}

static int
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
	if (sup_in_proc(r->objfd))
		return -EACCES;
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
static int
sup_open(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, mode_t mode,
    int *fd)
{
	char path[PATH_MAX];
	const char *why;
	struct res r;
	struct stat st;
	bool follow;
	int e;

	*fd = -1;
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
			sup_caller_umask(s);
			*fd = openat(r.objfd, ".", flags | O_CLOEXEC, mode);
			e = *fd == -1 ? -errno : 0;
		} else
			e = sup_open_object(s, id, &r, flags, fd);
		res_free(&r);
		return e;
	}
	if (sup_path_in_proc(r.path)) {
		res_free(&r);
		return -EACCES;
	}
	/* O_CREAT|O_EXCL makes a name or fails (a link there included): no need to look
	 * first, the kernel's EEXIST is the answer (the common case of tar, cp, git). */
	if ((flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) &&
	    (flags & __O_TMPFILE) != __O_TMPFILE && !r.must_be_dir) {
		if ((why = wguard_may_create(&s->g, sup_fs(s), r.path, false)) != NULL) {
			sup_refused(s, "create", r.path, why);
			e = -EPERM;
			goto out;
		}
		sup_caller_umask(s);
		*fd = openat(r.dirfd, r.name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
		e = *fd == -1 ? -errno : 0;
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
		if ((why = wguard_may_create(&s->g, sup_fs(s), r.path, false)) != NULL) {
			sup_refused(s, "create", r.path, why);
			e = -EPERM;
			goto out;
		}
		sup_caller_umask(s);
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
		sup_caller_umask(s);
		*fd = openat(r.dirfd, r.name, flags | O_CLOEXEC, mode);
	} else
		*fd = openat(r.dirfd, r.name, flags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, mode);
	e = *fd == -1 ? -errno : 0;
 out:
	res_free(&r);
	return e;
}

/* --- names made, removed, renamed ------------------------------------------------------------ */

static int sup_resolve_path(struct sup *, uint64_t, int, const char *, bool,
    struct res *);

/* Resolve a path argument (never following the last link) and check the call may go on. */
static int
sup_resolve_arg(struct sup *s, uint64_t id, int dirfd, uint64_t addr, bool follow,
    struct res *r)
{
	char path[PATH_MAX];
	int e;

	if ((e = sup_path(s, addr, path)) < 0)
		return e;
	return sup_resolve_path(s, id, dirfd, path, follow, r);
}

/* The same, for a path read already. */
static int
sup_resolve_path(struct sup *s, uint64_t id, int dirfd, const char *path, bool follow,
    struct res *r)
{
	int e;

	if (path[0] == '\0')
		return -ENOENT;
	if ((e = res_resolve(&s->rc, dirfd, path, follow, r)) < 0)
		return e;
	if (!sup_valid(s, id) || (r->objfd == -1 && sup_path_in_proc(r->path))) {
		e = sup_valid(s, id) ? -EACCES : -ENOENT;
		res_free(r);
		return e;
	}
	return 0;
}

/* A name to make: it must not be there, and the guard must let it be made. */
static int
sup_check_new(struct sup *s, struct res *r, bool is_dir, const char *op)
{
	struct stat st;
	const char *why;

	if (r->objfd != -1 || fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	if ((why = wguard_may_create(&s->g, sup_fs(s), r->path, is_dir)) != NULL) {
		sup_refused(s, op, r->path, why);
		return -EPERM;
	}
	return 0;
}

static int
sup_mkdir(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode)
{
	struct res r;
	int e;

	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if ((e = sup_check_new(s, &r, true, "mkdir")) == 0) {
		sup_caller_umask(s);
		if (mkdirat(r.dirfd, r.name, mode) == -1)
			e = -errno;
		else
			sup_made_add(s, r.dirfd, r.name);
	}
	res_free(&r);
	return e;
}

static int
sup_mknod(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode, dev_t dev)
{
	struct res r;
	int e;

	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if (r.must_be_dir)
		e = -ENOENT;
	else if ((e = sup_check_new(s, &r, false, "mknod")) == 0) {
		sup_caller_umask(s);
		if (mknodat(r.dirfd, r.name, mode, dev) == -1)
			e = -errno;
	}
	res_free(&r);
	return e;
}

static int
sup_symlink(struct sup *s, uint64_t id, uint64_t taddr, int dirfd, uint64_t addr)
{
	char target[PATH_MAX];
	struct res r;
	int e;

	if ((e = res_read_string(s->rc.tid, taddr, target, sizeof(target))) < 0)
		return e;
	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if ((e = sup_check_new(s, &r, false, "symlink")) == 0 &&
	    symlinkat(target, r.dirfd, r.name) == -1)
		e = -errno;
	res_free(&r);
	return e;
}

static int
sup_unlink(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags)
{
	const char *why;
	struct res r;
	struct stat st;
	bool made;
	int e;

	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if (r.objfd != -1) {
		e = (flags & AT_REMOVEDIR) ? -EBUSY : -EISDIR;
		goto out;
	}
	if (fstatat(r.dirfd, r.name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		goto out;
	}
	if ((why = wguard_may_remove(&s->g, sup_fs(s), r.path)) != NULL) {
		sup_refused(s, (flags & AT_REMOVEDIR) ? "rmdir" : "unlink", r.path, why);
		e = -EPERM;
		goto out;
	}
	made = S_ISDIR(st.st_mode) && sup_made(s, st.st_dev, st.st_ino);
	if (unlinkat(r.dirfd, r.name, flags & AT_REMOVEDIR) == -1) {
		e = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		sup_made_del(s, st.st_dev, st.st_ino);
		sup_vacate(s, r.path, made);
	}
 out:
	res_free(&r);
	return e;
}

/* A walk of the directory a rename moves: nothing protected may leave its place
 * (from) or land on one (to). 0, -EPERM, or -EXDEV when there is too much to look at
 * (mv(1) then copies, and every file it makes is asked about on its own); what cannot
 * be opened or read fails the rename with that error. */
static int
sup_subtree(struct sup *s, int dfd, const char *from, const char *to, const char *top_from,
    const char *top_to, size_t *budget, int level)
{
	char f[PATH_MAX], t[PATH_MAX];
	const char *why;
	struct dirent *de;
	struct stat st;
	unsigned char type;
	DIR *d;
	int fd, e = 0;

	if (level > 64)
		return -EXDEV;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			e = errno != 0 ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((*budget)-- == 0) {
			e = -EXDEV;
			break;
		}
		if (snprintf(f, sizeof(f), "%s/%s", from, de->d_name) >= (int)sizeof(f) ||
		    snprintf(t, sizeof(t), "%s/%s", to, de->d_name) >= (int)sizeof(t)) {
			e = -EXDEV;
			break;
		}
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
				e = -errno;
				break;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if ((why = wguard_protected(&s->g, sup_fs(s), f)) == NULL) {
			s->map_from = top_from;
			s->map_to = top_to;
			why = wguard_may_create(&s->g, sup_fs(s), t, type == DT_DIR);
			s->map_from = s->map_to = NULL;
		}
		if (why != NULL) {
			sup_refused(s, "rename", f, why);
			e = -EPERM;
			break;
		}
		if (type == DT_DIR) {
			int cfd = openat(dirfd(d), de->d_name, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			    O_CLOEXEC);

			/* What we cannot look at, we cannot let move (fail closed). */
			if (cfd == -1) {
				e = -errno;
				break;
			}
			e = sup_subtree(s, cfd, f, t, top_from, top_to, budget, level + 1);
			close(cfd);
			if (e != 0)
				break;
		}
	}
	closedir(d);
	return e;
}

/* The directory at (dirfd, name) moves from `from` to `to`. */
static int
sup_subtree_check(struct sup *s, int dirfd, const char *name, const char *from,
    const char *to)
{
	size_t budget = SUBTREE_MAX;
	int fd, e;

	if ((fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -errno;
	e = sup_subtree(s, fd, from, to, from, to, &budget, 0);
	close(fd);
	if (e == -EXDEV)
		log_debug("rename %s: too much below it to look at; EXDEV", from);
	return e;
}

static int
sup_rename(struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr,
    unsigned flags)
{
	struct res o, n;
	struct stat ost, nst;
	const char *why = NULL;
	bool nexists, omade = false, nmade = false;
	int e;

	if ((e = sup_resolve_arg(s, id, odir, oaddr, false, &o)) < 0)
		return e;
	if ((e = sup_resolve_arg(s, id, ndir, naddr, false, &n)) < 0) {
		res_free(&o);
		return e;
	}
	if (o.objfd != -1 || n.objfd != -1) {
		e = -EBUSY;
		goto out;
	}
	if (fstatat(o.dirfd, o.name, &ost, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		goto out;
	}
	nexists = fstatat(n.dirfd, n.name, &nst, AT_SYMLINK_NOFOLLOW) == 0;
	if ((flags & RENAME_EXCHANGE) && !nexists) {
		e = -ENOENT;
		goto out;
	}
	if ((flags & RENAME_NOREPLACE) && nexists) {
		e = -EEXIST;
		goto out;
	}
	if ((why = wguard_may_remove(&s->g, sup_fs(s), o.path)) == NULL &&
	    (why = wguard_may_create(&s->g, sup_fs(s), n.path, S_ISDIR(ost.st_mode))) == NULL &&
	    nexists)
		why = wguard_may_remove(&s->g, sup_fs(s), n.path);
	if (why == NULL && (flags & RENAME_EXCHANGE))
		why = wguard_may_create(&s->g, sup_fs(s), o.path, S_ISDIR(nst.st_mode));
	if (why != NULL) {
		sup_refused(s, "rename", o.path, why);
		e = -EPERM;
		goto out;
	}
	if (S_ISDIR(ost.st_mode) &&
	    (e = sup_subtree_check(s, o.dirfd, o.name, o.path, n.path)) < 0)
		goto out;
	if ((flags & RENAME_EXCHANGE) && S_ISDIR(nst.st_mode) &&
	    (e = sup_subtree_check(s, n.dirfd, n.name, n.path, o.path)) < 0)
		goto out;
	omade = S_ISDIR(ost.st_mode) && sup_made(s, ost.st_dev, ost.st_ino);
	nmade = nexists && S_ISDIR(nst.st_mode) && sup_made(s, nst.st_dev, nst.st_ino);
	if (syscall(SYS_renameat2, o.dirfd, o.name, n.dirfd, n.name, flags) == -1) {
		e = -errno;
		goto out;
	}
	/* Where a directory that predates the run stood, nothing new is the command's. */
	if (S_ISDIR(ost.st_mode))
		sup_vacate(s, o.path, omade);
	if (nexists && S_ISDIR(nst.st_mode)) {
		sup_vacate(s, n.path, nmade);
		if (!(flags & RENAME_EXCHANGE))
			sup_made_del(s, nst.st_dev, nst.st_ino);
	}
 out:
	res_free(&o);
	res_free(&n);
	return e;
}

static int
sup_link(struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr,
    int flags)
{
	char opath[PATH_MAX], p[64];
	const char *why;
	struct res o, n;
	struct stat st;
	int e;

	memset(&o, 0, sizeof(o));
	o.dirfd = o.objfd = o.fd_flags = -1;
	if ((e = sup_path(s, oaddr, opath)) < 0)
		return e;
	if (opath[0] == '\0' && (flags & AT_EMPTY_PATH)) {
		/* linkat(fd, "", ...): the command's descriptor itself. */
		snprintf(p, sizeof(p), "/proc/%ld/fd/%d", (long)s->rc.tid, odir);
		if ((o.objfd = open(p, O_PATH | O_CLOEXEC)) == -1)
			return -errno;
		if ((e = res_fd_path(o.objfd, o.path, sizeof(o.path))) < 0)
			o.path[0] = '\0';
		if ((e = res_same(&s->rc, o.objfd, o.path)) < 0) {
			res_free(&o);
			return e;
		}
	} else if ((e = res_resolve(&s->rc, odir, opath, (flags & AT_SYMLINK_FOLLOW) != 0,
	    &o)) < 0)
		return e;
	if (!sup_valid(s, id)) {
		res_free(&o);
		return -ENOENT;
	}
	/* No new name for something protected: writes through it would change it. */
	if (o.path[0] != '\0' && (why = wguard_protected(&s->g, sup_fs(s), o.path)) != NULL) {
		sup_refused(s, "link", o.path, why);
		res_free(&o);
		return -EPERM;
	}
	if (o.objfd == -1 && fstatat(o.dirfd, o.name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		res_free(&o);
		return e;
	}
	if ((e = sup_resolve_arg(s, id, ndir, naddr, false, &n)) < 0) {
		res_free(&o);
		return e;
	}
	if ((e = sup_check_new(s, &n, false, "link")) == 0) {
		if (o.objfd != -1) {
			snprintf(p, sizeof(p), "/proc/self/fd/%d", o.objfd);
			e = linkat(AT_FDCWD, p, n.dirfd, n.name, AT_SYMLINK_FOLLOW);
		} else
			e = linkat(o.dirfd, o.name, n.dirfd, n.name, 0);
		e = e == -1 ? -errno : 0;
	}
	res_free(&o);
	res_free(&n);
	return e;
}

/* --- sockets ----------------------------------------------------------------------------------- */

/*
 * bind(2), with AF_UNIX sockets allowed: a pathname address makes a name in the file
 * system. The address is read once, here; the command's socket is taken with
 * pidfd_getfd(2) and bound by us (it is one socket: the command's descriptor is bound),
 * a pathname in the directory we hold.
 */
static int
sup_bind(struct sup *s, uint64_t id, int sockfd, uint64_t addr, uint64_t alen)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	char path[sizeof(un->sun_path) + 1], p[sizeof(un->sun_path)];
	struct res r;
	int pidfd, sock, e;
	size_t plen;

	if (alen > sizeof(ss))
		return -EINVAL;
	memset(&ss, 0, sizeof(ss));
	if ((e = res_read_mem(s->rc.tid, addr, &ss, (size_t)alen)) < 0)
		return e;
	pidfd = s->task != NULL && s->task->pidfd != -1 ? s->task->pidfd :
	    (int)syscall(SYS_pidfd_open, s->rc.tgid, 0);
	if (pidfd == -1)
		return -ESRCH;
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, sockfd, 0);
	e = sock == -1 ? (errno == EBADF ? -EBADF : -errno) : 0;
	if (s->task == NULL || s->task->pidfd != pidfd)
		close(pidfd);
	if (e < 0)
		return e;
	if (!sup_valid(s, id)) {
		close(sock);
		return -ENOENT;
	}
	/* Not a name in the file system: abstract, unnamed, another family. */
	if (ss.ss_family != AF_UNIX || alen <= offsetof(struct sockaddr_un, sun_path) ||
	    un->sun_path[0] == '\0') {
		e = bind(sock, (struct sockaddr *)&ss, (socklen_t)alen) == -1 ? -errno : 0;
		close(sock);
		return e;
	}
	plen = (size_t)alen - offsetof(struct sockaddr_un, sun_path);
	memcpy(path, un->sun_path, plen);
	path[plen] = '\0';
	if ((e = sup_resolve_path(s, id, AT_FDCWD, path, false, &r)) < 0) {
		close(sock);
		return e;
	}
	if (r.must_be_dir)
		e = -ENOENT;
	else if ((e = sup_check_new(s, &r, false, "bind")) == 0) {
		struct sockaddr_un at;

		memset(&at, 0, sizeof(at));
		at.sun_family = AF_UNIX;
		if (snprintf(p, sizeof(p), "/proc/self/fd/%d/%s", r.dirfd, r.name) >=
		    (int)sizeof(p))
			e = -ENAMETOOLONG;
		else {
			memcpy(at.sun_path, p, strlen(p) + 1);
			sup_caller_umask(s);
			if (bind(sock, (struct sockaddr *)&at, sizeof(at)) == -1)
				e = -errno;
		}
	}
	res_free(&r);
	close(sock);
	return e;
}

/* --- changes to what is there --------------------------------------------------------------- */

enum meta { M_CHMOD, M_CHOWN, M_UTIMES, M_TRUNCATE, M_SETXATTR, M_REMOVEXATTR };

struct meta_args {
	enum meta what;
	mode_t	 mode;
	uid_t	 uid;
	gid_t	 gid;
	struct timespec ts[2];
	bool	 ts_now;
	off_t	 length;
	char	 xname[XATTR_NAME_MAX + 1];
	char	*xvalue;
	size_t	 xsize;
	int	 xflags;
	bool	 by_fd;		/* fchmod, fsetxattr, fremovexattr: the descriptor alone */
};

static const char *const meta_op[] = {
	"chmod", "chown", "utimes", "truncate", "setxattr", "removexattr",
};

/* The object at path (or the command's descriptor dirfd, with AT_EMPTY_PATH), held. */
static int
sup_meta(struct sup *s, uint64_t id, int dirfd, uint64_t addr, bool follow, bool empty_ok,
    const struct meta_args *m)
{
	char path[PATH_MAX], p[64];
	const char *why;
	struct res r;
	struct stat st;
	int obj, e;

	if (m->by_fd) {
		int fl;

		/* As the kernel: a descriptor opened with O_PATH is for paths alone. */
		if ((e = res_fd_flags(s->rc.tid, dirfd, &fl)) < 0)
			return e == -ENOENT ? -EBADF : e;
		if (fl & O_PATH)
			return -EBADF;
		path[0] = '\0';
	} else if ((e = sup_path(s, addr, path)) < 0)
		return e;
	if (path[0] == '\0' && (empty_ok || m->by_fd)) {
		memset(&r, 0, sizeof(r));
		r.dirfd = r.fd_flags = -1;
		snprintf(p, sizeof(p), "/proc/%ld/fd/%d", (long)s->rc.tid, dirfd);
		if ((r.objfd = open(p, O_PATH | O_CLOEXEC)) == -1)
			return -errno;
		if (res_fd_path(r.objfd, r.path, sizeof(r.path)) < 0)
			r.path[0] = '\0';
		if ((e = res_same(&s->rc, r.objfd, r.path)) < 0) {
			res_free(&r);
			return e;
		}
	} else if ((e = res_resolve(&s->rc, dirfd, path, follow, &r)) < 0)
		return e;
	if (!sup_valid(s, id)) {
		res_free(&r);
		return -ENOENT;
	}
	if (r.objfd != -1) {
		obj = r.objfd;
		r.objfd = -1;
	} else if ((obj = openat(r.dirfd, r.name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		e = -errno;
		goto out;
	}
	if (fstat(obj, &st) == -1 || sup_in_proc(obj)) {
		e = -EACCES;
		goto out_obj;
	}
	/* A removed file that still has another name: we cannot tell which. */
	if (r.path[0] == '\0' && S_ISREG(st.st_mode) && st.st_nlink > 0) {
		e = -EACCES;
		goto out_obj;
	}
	if (r.path[0] != '\0' && (why = wguard_protected(&s->g, sup_fs(s), r.path)) != NULL) {
		sup_refused(s, meta_op[m->what], r.path, why);
		e = -EPERM;
		goto out_obj;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", obj);
	e = 0;
	switch (m->what) {
	case M_CHMOD:
		if (S_ISLNK(st.st_mode))
			e = -EOPNOTSUPP;
		else if (chmod(p, m->mode) == -1)
			e = -errno;
		break;
	case M_CHOWN:
		if (fchownat(obj, "", m->uid, m->gid, AT_EMPTY_PATH) == -1)
			e = -errno;
		break;
	case M_UTIMES:
		if (S_ISLNK(st.st_mode)) {
			if (r.dirfd == -1 || utimensat(r.dirfd, r.name, m->ts_now ? NULL : m->ts,
			    AT_SYMLINK_NOFOLLOW) == -1)
				e = r.dirfd == -1 ? -EINVAL : -errno;
		} else if (utimensat(AT_FDCWD, p, m->ts_now ? NULL : m->ts, 0) == -1)
			e = -errno;
		break;
	case M_TRUNCATE:
		if (S_ISDIR(st.st_mode))
			e = -EISDIR;
		else if (!S_ISREG(st.st_mode))
			e = -EINVAL;
		else {
			/* As an open for writing: a lease the command holds makes a thread
			 * wait, not the supervisor (sup_open_file). */
			int wfd = open(p, O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

			if (wfd != -1) {
				if (ftruncate(wfd, m->length) == -1)
					e = -errno;
				close(wfd);
			} else if (errno == EWOULDBLOCK) {
				e = sup_later(s, id, obj, O_WRONLY, true, m->length);
				obj = -1;       /* the thread's now */
			} else
				e = -errno;
		}
		break;
	case M_SETXATTR:
	case M_REMOVEXATTR:
		if (S_ISLNK(st.st_mode))
			e = -EPERM;     /* no user.* attributes on links */
		else if (m->what == M_SETXATTR ?
		    setxattr(p, m->xname, m->xvalue, m->xsize, m->xflags) == -1 :
		    removexattr(p, m->xname) == -1)
			e = -errno;
		break;
	}
 out_obj:
	if (obj != -1)
		close(obj);
 out:
	res_free(&r);
	return e;
}

/* --- dispatch --------------------------------------------------------------------------------- */

static int
sup_times(struct sup *s, int nr, uint64_t addr, struct meta_args *m)
{
	struct timeval tv[2];
	struct { time_t a, m; } ub;
	int e;

	m->ts_now = addr == 0;
	if (addr == 0)
		return 0;
	if (nr == SYS_utimensat)
		return res_read_mem(s->rc.tid, addr, m->ts, sizeof(m->ts));
#ifdef SYS_utime
	if (nr == SYS_utime) {
		if ((e = res_read_mem(s->rc.tid, addr, &ub, sizeof(ub))) < 0)
			return e;
		m->ts[0].tv_sec = ub.a;
		m->ts[1].tv_sec = ub.m;
		m->ts[0].tv_nsec = m->ts[1].tv_nsec = 0;
		return 0;
	}
#endif
	if ((e = res_read_mem(s->rc.tid, addr, tv, sizeof(tv))) < 0)
		return e;
	for (int i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000)
			return -EINVAL;
		m->ts[i].tv_sec = tv[i].tv_sec;
		m->ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return 0;
}

static int
sup_xattr(struct sup *s, uint64_t id, uint64_t paddr, bool follow, const __u64 *a,
    bool set, bool by_fd)
{
	struct meta_args m;
	int e;

	memset(&m, 0, sizeof(m));
	m.what = set ? M_SETXATTR : M_REMOVEXATTR;
	if ((e = res_read_string(s->rc.tid, a[1], m.xname, sizeof(m.xname))) < 0)
		return e == -ENAMETOOLONG ? -ERANGE : e;
	if (set) {
		if (a[3] > XATTR_VALUE_MAX)
			return -E2BIG;
		m.xsize = (size_t)a[3];
		m.xflags = (int)a[4];
		m.xvalue = xmalloc(m.xsize + 1);
		if ((e = res_read_mem(s->rc.tid, a[2], m.xvalue, m.xsize)) < 0) {
			free(m.xvalue);
			return e;
		}
	}
	m.by_fd = by_fd;
	e = sup_meta(s, id, by_fd ? (int)a[0] : AT_FDCWD, paddr, follow, false, &m);
	free(m.xvalue);
	return e;
}

/* One notification: 0 answered (or to be answered by a thread), a value to answer. */
static void
sup_serve(struct sup *s)
{
	const struct seccomp_notif *q = s->req;
	const __u64 *a = q->data.args;
	struct meta_args m;
	struct task *t;
	int e = -ENOSYS, fd = -1, nr = q->data.nr;
	uint64_t id = q->id;

	memset(&m, 0, sizeof(m));
	s->rc.tid = (pid_t)q->pid;
	s->task = t = task_get(s, s->rc.tid);
	s->rc.tgid = t != NULL ? t->tgid : s->rc.tid;
	switch (nr) {
	case SYS_umask:
		task_umask(s, s->rc.tid, (mode_t)a[0]);
		sup_answer(s, id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
#ifdef SYS_open
	case SYS_open:
		e = sup_open(s, id, AT_FDCWD, a[0], (int)a[1], (mode_t)a[2], &fd);
		break;
	case SYS_creat:
		e = sup_open(s, id, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1],
		    &fd);
		break;
#endif
	case SYS_openat:
		e = sup_open(s, id, (int)a[0], a[1], (int)a[2], (mode_t)a[3], &fd);
		break;
#ifdef SYS_mkdir
	case SYS_mkdir:
		e = sup_mkdir(s, id, AT_FDCWD, a[0], (mode_t)a[1]);
		break;
	case SYS_rmdir:
		e = sup_unlink(s, id, AT_FDCWD, a[0], AT_REMOVEDIR);
		break;
	case SYS_unlink:
		e = sup_unlink(s, id, AT_FDCWD, a[0], 0);
		break;
	case SYS_mknod:
		e = sup_mknod(s, id, AT_FDCWD, a[0], (mode_t)a[1], (dev_t)a[2]);
		break;
	case SYS_symlink:
		e = sup_symlink(s, id, a[0], AT_FDCWD, a[1]);
		break;
	case SYS_link:
		e = sup_link(s, id, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
		break;
	case SYS_rename:
		e = sup_rename(s, id, AT_FDCWD, a[0], AT_FDCWD, a[1], 0);
		break;
#endif
	case SYS_mkdirat:
		e = sup_mkdir(s, id, (int)a[0], a[1], (mode_t)a[2]);
		break;
	case SYS_mknodat:
		e = sup_mknod(s, id, (int)a[0], a[1], (mode_t)a[2], (dev_t)a[3]);
		break;
	case SYS_unlinkat:
		if (a[2] & ~(uint64_t)AT_REMOVEDIR)
			e = -EINVAL;
		else
			e = sup_unlink(s, id, (int)a[0], a[1], (int)a[2]);
		break;
	case SYS_symlinkat:
		e = sup_symlink(s, id, a[0], (int)a[1], a[2]);
		break;
	case SYS_linkat:
		if (a[4] & ~(uint64_t)(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
			e = -EINVAL;
		else
			e = sup_link(s, id, (int)a[0], a[1], (int)a[2], a[3], (int)a[4]);
		break;
#ifdef SYS_renameat
	case SYS_renameat:
		e = sup_rename(s, id, (int)a[0], a[1], (int)a[2], a[3], 0);
		break;
#endif
	case SYS_renameat2:
		if (a[4] & ~(uint64_t)(RENAME_NOREPLACE | RENAME_EXCHANGE))
			e = (a[4] & RENAME_WHITEOUT) ? -EPERM : -EINVAL;
		else if ((a[4] & RENAME_NOREPLACE) && (a[4] & RENAME_EXCHANGE))
			e = -EINVAL;
		else
			e = sup_rename(s, id, (int)a[0], a[1], (int)a[2], a[3], (unsigned)a[4]);
		break;
	case SYS_truncate:
		m.what = M_TRUNCATE;
		m.length = (off_t)a[1];
		e = (int64_t)a[1] < 0 ? -EINVAL :
		    sup_meta(s, id, AT_FDCWD, a[0], true, false, &m);
		break;
#ifdef SYS_chmod
	case SYS_chmod:
		m.what = M_CHMOD;
		m.mode = (mode_t)a[1];
		e = sup_meta(s, id, AT_FDCWD, a[0], true, false, &m);
		break;
	case SYS_chown:
	case SYS_lchown:
		m.what = M_CHOWN;
		m.uid = (uid_t)a[1];
		m.gid = (gid_t)a[2];
		e = sup_meta(s, id, AT_FDCWD, a[0], nr == SYS_chown, false, &m);
		break;
#endif
	case SYS_fchmodat:
		m.what = M_CHMOD;
		m.mode = (mode_t)a[2];
		e = sup_meta(s, id, (int)a[0], a[1], true, false, &m);
		break;
	case SYS_fchownat:
		m.what = M_CHOWN;
		m.uid = (uid_t)a[2];
		m.gid = (gid_t)a[3];
		if (a[4] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			e = -EINVAL;
		else
			e = sup_meta(s, id, (int)a[0], a[1], !(a[4] & AT_SYMLINK_NOFOLLOW),
			    (a[4] & AT_EMPTY_PATH) != 0, &m);
		break;
#ifdef SYS_utime
	case SYS_utime:
	case SYS_utimes:
		m.what = M_UTIMES;
		if ((e = sup_times(s, nr, a[1], &m)) == 0)
			e = sup_meta(s, id, AT_FDCWD, a[0], true, false, &m);
		break;
	case SYS_futimesat:
		m.what = M_UTIMES;
		if ((e = sup_times(s, nr, a[2], &m)) == 0)
			e = sup_meta(s, id, (int)a[0], a[1], true, false, &m);
		break;
#endif
	case SYS_utimensat:
		m.what = M_UTIMES;
		if (a[3] & ~(uint64_t)(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
			e = -EINVAL;
		else if ((e = sup_times(s, nr, a[2], &m)) == 0)
			e = sup_meta(s, id, (int)a[0], a[1], !(a[3] & AT_SYMLINK_NOFOLLOW),
			    (a[3] & AT_EMPTY_PATH) != 0, &m);
		break;
	case SYS_setxattr:
	case SYS_lsetxattr:
		e = sup_xattr(s, id, a[0], nr == SYS_setxattr, a, true, false);
		break;
	case SYS_removexattr:
	case SYS_lremovexattr:
		e = sup_xattr(s, id, a[0], nr == SYS_removexattr, a, false, false);
		break;
	case SYS_fsetxattr:
		e = sup_xattr(s, id, 0, true, a, true, true);
		break;
	case SYS_fremovexattr:
		e = sup_xattr(s, id, 0, true, a, false, true);
		break;
	case SYS_fchmod:
		m.what = M_CHMOD;
		m.mode = (mode_t)a[1];
		m.by_fd = true;
		e = sup_meta(s, id, (int)a[0], 0, true, false, &m);
		break;
	case SYS_bind:
		e = sup_bind(s, id, (int)a[0], a[1], a[2]);
		break;
	default:
		log_warnx("supervisor: unexpected system call %d", nr);
		e = -ENOSYS;
		break;
	}
	if (e == 1)
		return;                 /* a thread answers */
	if (e == 0 && fd != -1) {
		sup_answer_fd(s->listener, id, fd, (nr == SYS_openat ? (int)a[2] :
#ifdef SYS_open
		    nr == SYS_open ? (int)a[1] :
#endif
		    0) & O_CLOEXEC, s->resp, s->sizes.seccomp_notif_resp);
		return;
	}
	sup_answer(s, id, 0, e, 0);
}

/* --- the supervisor's life ------------------------------------------------------------------- */

#define GUARD_SEALS	(F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)
#define GUARD_MAX	(64 << 20)

/*
 * The guard, from a memfd srt-launch wrote and sealed: sealed, it is whole and cannot
 * change; unsealed, the launcher died before it finished, and nothing runs. Read from
 * its start (the launcher's descriptor shares our offset), then closed.
 */
static int
sup_read_guard(int fd, char **buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	size_t got = 0;
	int seals;

	*buf = NULL;
	*len = 0;
	if ((seals = fcntl(fd, F_GET_SEALS)) == -1 || (seals & GUARD_SEALS) != GUARD_SEALS) {
		log_warnx("--guard-fd %d: not a sealed memfd: the write guard is incomplete", fd);
		goto fail;
	}
	if (fstat(fd, &st) == -1 || st.st_size <= 0 || st.st_size > GUARD_MAX) {
		log_warnx("--guard-fd %d: no write guard of a sane size", fd);
		goto fail;
	}
	*buf = xmalloc((size_t)st.st_size);
	while (got < (size_t)st.st_size) {
		n = pread(fd, *buf + got, (size_t)st.st_size - got, (off_t)got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("--guard-fd %d: read", fd);
			goto fail;
		}
		got += (size_t)n;
	}
	*len = got;
	close(fd);
	return 0;
 fail:
	free(*buf);
	*buf = NULL;
	close(fd);
	return -1;
}

struct sup *
sup_new(int guard_fd, bool nested_userns)
{
	struct sup *s = xcalloc(1, sizeof(*s));
	char *buf = NULL, err[256];
	size_t len;

	s->listener = -1;
	s->umask = umask(022);
	umask(s->umask);
	if (sup_read_guard(guard_fd, &buf, &len) == -1)
		goto fail;
	if (wguard_decode(buf, len, &s->g, err, sizeof(err)) == -1) {
		log_warnx("--guard-fd %d: %s", guard_fd, err);
		goto fail;
	}
	free(buf);
	buf = NULL;
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) == -1) {
		log_warn("seccomp SECCOMP_GET_NOTIF_SIZES");
		goto fail;
	}
	s->req = xcalloc(1, s->sizes.seccomp_notif > sizeof(*s->req) ?
	    s->sizes.seccomp_notif : sizeof(*s->req));
	s->resp = xcalloc(1, s->sizes.seccomp_notif_resp > sizeof(*s->resp) ?
	    s->sizes.seccomp_notif_resp : sizeof(*s->resp));
	s->sizes.seccomp_notif = s->sizes.seccomp_notif > sizeof(*s->req) ?
	    s->sizes.seccomp_notif : sizeof(*s->req);
	s->sizes.seccomp_notif_resp = s->sizes.seccomp_notif_resp > sizeof(*s->resp) ?
	    s->sizes.seccomp_notif_resp : sizeof(*s->resp);
	s->rc.link_protected = res_link_protected;
	s->rc.arg = s;
	s->rc.check_names = nested_userns;
	log_debug("write guard: %zu protected paths, %zu roots, %zu watched read denies",
	    s->g.exact.n, s->g.roots.n, s->g.watch.n);
	return s;
 fail:
	free(buf);
	sup_free(s);
	return NULL;
}

/*
 * PID 1, in the namespaces the command runs in, before it runs: the read-deny mounts
 * as they are here (a nested mount namespace numbers its mounts anew), then the
 * listener. -1: the sandbox cannot be watched, and must not start.
 */
int
sup_start(struct sup *s)
{
	if (s->g.watch.n > 0 && (s->watch = watch_new(&s->g.watch)) == NULL)
		return -1;
	return 0;
}

void
sup_set_listener(struct sup *s, int fd)
{
	uint64_t fl = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	s->listener = fd;
	/* The command and we take turns on one CPU (Linux 6.6); older kernels say no. */
	(void)ioctl(fd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, fl, 0);
}

int
sup_pollfds(struct sup *s, struct pollfd *p, int max)
{
	int n = 0;

	/* The watch first: a lost read deny ends everything at once. */
	if (s->watch != NULL)
		n = watch_fds(s->watch, p, max);
	if (n < max && s->listener != -1) {
		p[n].fd = s->listener;
		p[n].events = POLLIN;
		p[n].revents = 0;
		n++;
	}
	return n;
}

/* Serve what the descriptors of sup_pollfds report. -1: the sandbox must end. */
int
sup_events(struct sup *s, const struct pollfd *p, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].fd != s->listener) {
			if (s->watch != NULL && watch_check(s->watch, &p[i], 1) == -1)
				return -1;
			continue;
		}
		if (p[i].revents & (POLLHUP | POLLERR | POLLNVAL)) {
			/* Nobody can be filtered any more: the command's side is gone. */
			fd_close(&s->listener);
			continue;
		}
		memset(s->req, 0, s->sizes.seccomp_notif);
		if (ioctl(s->listener, SECCOMP_IOCTL_NOTIF_RECV, s->req) == -1) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			log_warn("SECCOMP_IOCTL_NOTIF_RECV");
			return -1;
		}
		sup_serve(s);
	}
	return 0;
}

void
sup_free(struct sup *s)
{
	size_t i;

	if (s == NULL)
		return;
	if (s->refused > 0)
		log_debug("write guard: %lu calls refused", s->refused);
	fd_close(&s->listener);
	for (i = 0; i < s->ntasks; i++)
		fd_close(&s->tasks[i].pidfd);
	watch_free(s->watch);
	wguard_free(&s->g);
	strlist_free(&s->vacated);
	free(s->made);
	free(s->req);
	free(s->resp);
	free(s);
}
