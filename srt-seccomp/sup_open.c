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
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#ifndef __O_TMPFILE
#define __O_TMPFILE 020000000
#endif

/* --- open ---------------------------------------------------------------------------------- */

struct blocking_open {
	int listener;
	uint64_t id;
	int obj;       /* O_PATH of the object decided on */
	int flags;     /* the open's flags; O_TRUNC is done on the object here */
	bool truncate; /* truncate(2) to length, not an open */
	off_t length;
	size_t resp_size;
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
		sup_answer_fd(
		    b->listener, b->id, fd, (b->flags & O_CLOEXEC) != 0, b->resp, b->resp_size);
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

	flags &= ~(O_CREAT | O_EXCL); /* it is there: we looked */
	if (name == NULL) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", dirfd);
		*fd = open(p, flags | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	} else
		*fd = openat(
		    dirfd, name, flags | O_NONBLOCK | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	if (*fd != -1) {
		if (!(flags & O_NONBLOCK) &&
		    ((fl = fcntl(*fd, F_GETFL)) == -1 ||
			fcntl(*fd, F_SETFL, fl & ~O_NONBLOCK) == -1)) {
			fd_close(fd);
			return -errno;
		}
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return -errno;
	obj = name == NULL ? fcntl(dirfd, F_DUPFD_CLOEXEC, 0)
			   : openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
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
		sup_refused(s, "reopen for writing",
		    r->path[0] != '\0' ? r->path : "a descriptor", "opened read-only");
		return -EACCES;
	}
	if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK)) {
		int obj = dup(r->objfd);

		if (obj == -1)
			return -errno;
		return sup_open_later(s, id, obj, flags);
	}
	if (S_ISREG(st.st_mode))
		return sup_open_file(
		    s, id, r->objfd, NULL, flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW), fd);
	snprintf(p, sizeof(p), "/proc/self/fd/%d", r->objfd);
	if ((*fd = open(
		 p, (flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW)) | O_NOCTTY | O_CLOEXEC)) == -1)
		return -errno;
	return 0;
}

/* A read refused by a deny held here: reported as one (sup_refused's are writes). */
static void
open_read_refused(struct sup *s, const char *path, const char *deny)
{
	s->refused++;
	log_debug("refused: open for reading %s (a denied path the host changed during the "
		  "run: %s)",
	    path, deny);
	monitor_file(s->mon, true, "open", path[0] != '\0' ? path : deny,
	    "denyRead: a denied path the host changed during the run");
}

/*
 * An open that can read (O_RDWR, O_RDONLY with O_CREAT or O_TRUNC) of what is there
 * already, obj or dirfd/name, while read denies are held here: judged as sup_open_read
 * judges a plain read-only one, or the host's new file behind a denied name is read
 * through it. 0, or -EACCES.
 */
static int
open_read_held(struct sup *s, int obj, int dirfd, const char *name, const char *path, int flags)
{
	const char *deny;

	if (s->rg == NULL || (flags & O_ACCMODE) == O_WRONLY || (flags & O_PATH))
		return 0;
	deny = obj != -1 ? rguard_refuses(s->rg, obj, path)
			 : rguard_refuses_name(s->rg, dirfd, name, path);
	if (deny == NULL)
		return 0;
	open_read_refused(s, path, deny);
	return -EACCES;
}

/* --- the fast way: a new file in a directory held already ------------------------------------ */

#define BASE_STATX (STATX_TYPE | STATX_INO | STATX_MNT_ID | STATX_MNT_ID_UNIQUE)

/* A directory may have moved or gone: every held one is let go, and its watches. */
void
sup_bases_flush(struct sup *s)
{
	size_t i;

	for (i = 0; i < s->nbases; i++) {
		fd_close(&s->bases[i].fd);
		free(s->bases[i].path);
	}
	s->nbases = s->nextbase = 0;
	fd_close(&s->bwatch);
}

/*
 * What we hold, fd named name, and each directory above it, up to the root, watched
 * for a move or removal (IN_MOVE_SELF, IN_DELETE_SELF): a rename we do not do
 * ourselves (another process outside the sandbox, another sandbox) changes what held
 * directories are called, and the first event lets them all go (sup_bases_moved)
 * before the next call is received. Each by what we hold ("..", never a name), so that
 * the inodes watched are the ones above it. -1: not to be held.
 */
static int
base_watch(struct sup *s, int fd, const char *name)
{
	const uint32_t ev = IN_MOVE_SELF | IN_DELETE_SELF | IN_ONLYDIR;
	size_t up = path_depth(name);
	char p[32];
	int cur = fd, nfd, rc = 0;

	if (s->bwatch == -1 && (s->bwatch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	for (;;) {
		snprintf(p, sizeof(p), "/proc/self/fd/%d", cur);
		if (inotify_add_watch(s->bwatch, p, ev) == -1) {
			rc = -1;
			break;
		}
		if (up-- == 0)
			break;
		nfd = openat(cur, "..", O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (cur != fd)
			close(cur);
		if ((cur = nfd) == -1)
			return -1;
	}
	if (cur != fd)
		close(cur);
	return rc;
}

/* The watch of base_watch reported: every held directory is let go. */
void
sup_bases_moved(struct sup *s)
{
	log_debug("a directory the supervisor held was moved or removed from outside");
	sup_bases_flush(s);
	sup_files_flush(s);
}

/* A name may have moved or gone: the files made are found by readlink(2) again. */
void
sup_files_flush(struct sup *s)
{
	size_t i;

	for (i = 0; i < MADE_FILES; i++) {
		free(s->files[i].path);
		s->files[i].path = NULL;
	}
}

/* The mount (its unique id where the kernel gives one) and inode statx found. */
static bool
stx_key(const struct statx *sx, uint64_t *mnt)
{
	if (!(sx->stx_mask & STATX_INO))
		return false;
	if (sx->stx_mask & STATX_MNT_ID_UNIQUE)
		*mnt = sx->stx_mnt_id | (1ULL << 63);
	else if (sx->stx_mask & STATX_MNT_ID)
		*mnt = sx->stx_mnt_id;
	else
		return false;
	return true;
}

static bool
base_key(const struct statx *sx, uint64_t *mnt)
{
	return S_ISDIR(sx->stx_mode) && stx_key(sx, mnt);
}

/* The name of the file statx describes, when sup_open_fast made it: NULL, not known. */
const char *
sup_file_name(struct sup *s, const struct statx *sx)
{
	uint64_t mnt;
	size_t i;

	if (!S_ISREG(sx->stx_mode) || !(sx->stx_mask & STATX_NLINK) || sx->stx_nlink != 1 ||
	    !stx_key(sx, &mnt))
		return NULL;
	for (i = 0; i < MADE_FILES; i++)
		if (s->files[i].path != NULL && s->files[i].mnt == mnt &&
		    s->files[i].ino == sx->stx_ino &&
		    s->files[i].dev == makedev(sx->stx_dev_major, sx->stx_dev_minor))
			return s->files[i].path;
	return NULL;
}

/* fd, made at abs by sup_open_fast, remembered for sup_file_name. */
static void
file_made(struct sup *s, int fd, const char *abs)
{
	struct made_file *f = &s->files[s->nextfile++ % MADE_FILES];
	struct statx sx;

	free(f->path);
	f->path = NULL;
	if (statx(fd, "", AT_EMPTY_PATH, BASE_STATX, &sx) == -1 || !stx_key(&sx, &f->mnt))
		return;
	f->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	f->ino = sx.stx_ino;
	f->path = xstrdup(abs);
}

/*
 * What we hold of p (the command's /proc/TID/cwd or fd/N) on a miss: opened, named
 * (the name is the kernel's), on one of the sandbox's own mounts and not in /proc, else
 * NULL (the slow way then decides, and reports).
 */
static const struct base *
base_add(struct sup *s, const char *p)
{
	char name[PATH_MAX];
	struct statx sx;
	struct base *b;
	uint64_t mnt;
	int fd, kept;

	if ((fd = open(p, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return NULL;
	kept = fd;
	if (statx(fd, "", AT_EMPTY_PATH, BASE_STATX, &sx) == -1 || !base_key(&sx, &mnt) ||
	    res_fd_path(fd, name, sizeof(name)) < 0 || sup_path_in_proc(name) ||
	    res_view(&s->rc, &fd, name, sizeof(name), NULL) < 0 || fd != kept ||
	    base_watch(s, fd, name) == -1) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	if (s->nbases == BASES_MAX) {
		b = &s->bases[1 + s->nextbase++ % (BASES_MAX - 1)]; /* the root stays */
		close(b->fd);
		free(b->path);
	} else
		b = &s->bases[s->nbases++];
	b->mnt = mnt;
	b->dev = makedev(sx.stx_dev_major, sx.stx_dev_minor);
	b->ino = sx.stx_ino;
	b->fd = fd;
	b->path = xstrdup(name);
	return b;
}

/*
 * Where the command's path starts, held: the root (kept from the first time), or its
 * cwd or descriptor dirfd as the thread sees them now, one statx(2) of its /proc entry
 * to find the one held. NULL: the slow way.
 */
static const struct base *
base_get(struct sup *s, int dirfd, const char *path)
{
	char p[64];
	struct statx sx;
	uint64_t mnt;
	size_t i;

	if (path[0] == '/') {
		if (s->nbases > 0 && strcmp(s->bases[0].path, "/") == 0)
			return &s->bases[0];
		sup_bases_flush(s);
		if ((s->bases[0].fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
			return NULL;
		s->bases[0].path = xstrdup("/");
		s->nbases = 1;
		return &s->bases[0];
	}
	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof(p), "/proc/%ld/cwd", (long)s->rc.tid);
	else if (dirfd >= 0)
		snprintf(p, sizeof(p), "/proc/%ld/fd/%d", (long)s->rc.tid, dirfd);
	else
		return NULL;
	if (statx(AT_FDCWD, p, 0, BASE_STATX, &sx) == -1 || !base_key(&sx, &mnt))
		return NULL;
	for (i = 0; i < s->nbases; i++)
		if (s->bases[i].mnt == mnt && s->bases[i].ino == sx.stx_ino &&
		    s->bases[i].dev == makedev(sx.stx_dev_major, sx.stx_dev_minor))
			return &s->bases[i];
	if (s->nbases == 0)
		base_get(s, AT_FDCWD, "/"); /* bases[0] is the root */
	return base_add(s, p);
}

/* A path of plain names: no ".", "..", empty component or trailing "/". */
static bool
fast_plain(const char *path)
{
	const char *c = path[0] == '/' ? path + 1 : path, *e;
	size_t n;

	for (;;) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 0 || n > NAME_MAX ||
		    (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.'))))
			return false;
		if (e == NULL)
			return true;
		c = e + 1;
	}
}

/* The guard's questions to the file system, while sup_open_fast asks: noted, and
 * answered as protects (the slow way then asks again, with the directory held). */
static int
fast_git_dir(void *arg, const char *dir)
{
	(void)dir;
	((struct sup *)arg)->fs_asked = true;
	return -1;
}

static bool
fast_yes(void *arg, const char *dir)
{
	(void)dir;
	((struct sup *)arg)->fs_asked = true;
	return true;
}

static char *
fast_resolve(void *arg, const char *path)
{
	(void)path;
	((struct sup *)arg)->fs_asked = true;
	errno = EACCES;
	return NULL;
}

/* May abs be made as a file by an open, with nothing but its text to go on? */
static bool
fast_allowed(struct sup *s, const char *abs)
{
	const struct wguard_fs fs = { s, fast_git_dir, fast_yes, fast_yes, fast_resolve };
	bool ok;

	s->fs_asked = false;
	ok = wguard_may_create(&s->g, &fs, abs, false) == NULL &&
	    !wguard_pointer_name(&s->g, &fs, abs);
	return ok && !s->fs_asked;
}

/*
 * open(O_CREAT) of a plain path the guard allows by its text alone (tar, cp, git, npm),
 * with a mode sup_mode_strip would take nothing from that the umask leaves:
 * one openat2(2) from the directory the path starts from, held already, never
 * through a link, a magic link or "..": what it makes is at the held directory's name
 * and the path, which is what the guard was asked about. The open is always made
 * O_EXCL: without it the command asked for a new file or an existing one, and a name
 * that is there (a file, a link, whose target the command's open would follow) is
 * left to the slow way, which judges what is there; a new file is what the command's
 * own open would have made. The supervisor's calls: the statx of base_get (none for an
 * absolute path), the id check, the open. 1: not for the fast way (nothing was done),
 * else as sup_open.
 */
int
sup_open_fast(
    struct sup *s, uint64_t id, int dirfd, const char *path, int flags, mode_t mode, int *fd)
{
	char abs[PATH_MAX];
	const struct base *b;
	struct open_how how;
	const char *rel = path;
	int e;

	if (!(flags & O_CREAT) || (flags & __O_TMPFILE) == __O_TMPFILE || s->rc.check_names ||
	    (mode & ~(mode_t)07777) != 0 || !fast_plain(path))
		return 1;
	/* A bit sup_mode_strip would report, past the caller's umask: the slow way. The
	 * others go silently, as there (git asks for 0666 under umask 022). */
	sup_caller_umask(s);
	if ((mode & ~s->umask & (S_ISUID | S_ISGID | S_IWOTH)) != 0 ||
	    (b = base_get(s, dirfd, path)) == NULL)
		return 1;
	mode &= ~(mode_t)(S_ISUID | S_ISGID | S_IWOTH);
	while (*rel == '/')
		rel++;
	if (snprintf(abs, sizeof(abs), "%s/%s", strcmp(b->path, "/") == 0 ? "" : b->path,
		rel) >= (int)sizeof(abs) ||
	    sup_path_in_proc(abs) || !fast_allowed(s, abs))
		return 1;
	/* What we read was the asking thread's, not a later one's. */
	if (!sup_valid(s, id))
		return -ENOENT;
	memset(&how, 0, sizeof(how));
	how.flags = (uint64_t)(unsigned)(flags | O_EXCL | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
	how.mode = mode;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_BENEATH;
	*fd = (int)syscall(SYS_openat2, b->fd, rel, &how, sizeof(how));
	if (*fd != -1) {
		file_made(s, *fd, abs);
		return 0;
	}
	/* A link or mount on the way, a flag openat2 knows no more, or a name that is
	 * there when the command did not ask for O_EXCL: the slow way. */
	if (errno == ELOOP || errno == EXDEV || errno == EAGAIN || errno == EINVAL ||
	    errno == ENOSYS || errno == E2BIG || (errno == EEXIST && !(flags & O_EXCL)))
		return 1;
	e = -errno;
	sup_readonly(s, abs, e);
	return e;
}

/* open, openat, creat. 0: *fd is the result; 1: answered later; <0: -errno. */
int
sup_open(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags, mode_t mode, int *fd)
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
	if ((e = sup_open_fast(s, id, dirfd, path, flags, mode, fd)) != 1)
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
		} else if ((e = open_read_held(s, r.objfd, -1, NULL, r.path, flags)) == 0)
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
		if (errno != ENOENT || !(flags & O_CREAT) ||
		    (flags & __O_TMPFILE) == __O_TMPFILE) {
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
			e = -ELOOP; /* O_NOFOLLOW on a link */
			goto out;
		}
		why = wguard_protected(&s->g, sup_fs(s), r.path);
		/* A .git file the command made in the run, of no other name: rewritten as
		 * it was made (a way, checked again before the run ends). */
		if (why == wguard_why_dotgit && S_ISREG(st.st_mode) && st.st_nlink == 1 &&
		    sup_made(s, st.st_dev, st.st_ino))
			why = sup_git_way_ok(s, r.path, false);
		if (why != NULL) {
			sup_refused(s, "open for writing", r.path, why);
			e = -EPERM;
			goto out;
		}
		if ((e = open_read_held(s, -1, r.dirfd, r.name, r.path, flags)) < 0)
			goto out;
		if (S_ISFIFO(st.st_mode) && !(flags & O_NONBLOCK) &&
		    (flags & O_ACCMODE) != O_RDWR) {
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
		*fd = openat(r.dirfd, r.name, flags | O_CLOEXEC,
		    sup_mode_strip(s, r.path, mode, false, true));
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
	obj = r.objfd != -1 ? fcntl(r.objfd, F_DUPFD_CLOEXEC, 0)
			    : openat(r.dirfd, r.name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (obj == -1 || fstat(obj, &st) == -1) {
		e = -errno;
		goto out;
	}
	if ((deny = rguard_refuses(s->rg, obj, r.path)) != NULL) {
		open_read_refused(s, r.path, deny);
		e = -EACCES;
		goto out;
	}
	if (S_ISLNK(st.st_mode)) /* O_NOFOLLOW: the link itself, for O_PATH only */
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
