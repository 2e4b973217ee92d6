/*
 * Path resolution for the supervisor (supervise.c), as the command's own system call
 * would resolve it, but done here, on our own copy of the path, with every directory on
 * the way held open: what the guard decides on is what we then act on, and nothing the
 * command does meanwhile can move the decision elsewhere.
 *
 * The command's memory is read with process_vm_readv(2); its working directory and its
 * descriptors are reached through /proc/TID/cwd and /proc/TID/fd/N, which we open (our
 * /proc is the sandbox's, and we share its root and mount namespace). Then:
 *   - fast path: openat2(2) with RESOLVE_NO_SYMLINKS for the directory part, one call;
 *   - otherwise a walk, one component at a time, links read and spliced in (at most 40,
 *     as the kernel). Each link followed is shown to the caller first (res_ctx
 *     link_protected): a write through a protected name is a write to it. In /proc,
 *     "self" and "thread-self" mean the caller's process and thread, and a magic link
 *     (fd/N, cwd, root, exe) is followed for the caller's own entries only: ours (PID
 *     1's) would hand the command our descriptors. An fd/N's open flags are read from
 *     the table the path went through, as the object is.
 * What we hold must be on one of the sandbox's mounts (res_view): a descriptor from
 * outside is exchanged for the sandbox's view of its name. The absolute path decided
 * on is the kernel's name for the directory we hold (/proc/self/fd/N), plus the last
 * component.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/vfs.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "path.h"
#include "util.h"
#include "srt-seccomp.h"

#define MAX_LINKS 40

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

static int
res_open(int dirfd, const char *name, int flags)
{
	int fd = openat(dirfd, name, flags | O_CLOEXEC);

	return fd == -1 ? -errno : fd;
}

/* Read a NUL-terminated string of at most max-1 bytes from the command at addr. */
int
res_read_string(pid_t tid, unsigned long long addr, char *buf, size_t max)
{
	size_t got = 0, want;
	struct iovec l, r;
	ssize_t n;

	if (addr == 0)
		return -EFAULT;
	/* A page at a time: a read that runs into an unmapped page stops there. */
	while (got < max) {
		want = 4096 - ((addr + got) & 4095);
		if (want > max - got)
			want = max - got;
		l.iov_base = buf + got;
		l.iov_len = want;
		r.iov_base = (void *)(uintptr_t)(addr + got);
		r.iov_len = want;
		if ((n = process_vm_readv(tid, &l, 1, &r, 1, 0)) <= 0)
			return n == 0 || errno == EFAULT ? -EFAULT : -errno;
		if (memchr(buf + got, '\0', (size_t)n) != NULL)
			return 0;
		got += (size_t)n;
	}
	return -ENAMETOOLONG;
}

/*
 * A string (as res_read_string) and len bytes at vaddr, in one process_vm_readv(2) when
 * the string ends in its first page and both are there; otherwise one read each, which
 * say what was wrong.
 */
int
res_read_string_mem(pid_t tid, unsigned long long addr, char *buf, size_t max,
    unsigned long long vaddr, void *vbuf, size_t len)
{
	struct iovec l[2], r[2];
	size_t first = 4096 - (addr & 4095);
	int e;

	if (first > max)
		first = max;
	l[0].iov_base = buf;
	l[0].iov_len = first;
	r[0].iov_base = (void *)(uintptr_t)addr;
	r[0].iov_len = first;
	l[1].iov_base = vbuf;
	l[1].iov_len = len;
	r[1].iov_base = (void *)(uintptr_t)vaddr;
	r[1].iov_len = len;
	if (addr != 0 && len > 0 &&
	    process_vm_readv(tid, l, 2, r, 2, 0) == (ssize_t)(first + len) &&
	    memchr(buf, '\0', first) != NULL)
		return 0;
	if ((e = res_read_string(tid, addr, buf, max)) < 0)
		return e;
	return res_read_mem(tid, vaddr, vbuf, len);
}

/* Read exactly len bytes of the command's memory. */
int
res_read_mem(pid_t tid, unsigned long long addr, void *buf, size_t len)
{
	struct iovec l = { buf, len }, r = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (len == 0)
		return 0;
	if ((n = process_vm_readv(tid, &l, 1, &r, 1, 0)) != (ssize_t)len)
		return n == -1 && errno != EFAULT ? -errno : -EFAULT;
	return 0;
}

/* The kernel's name for what fd holds; -errno. A removed file or directory is ENOENT,
 * an object without a path (a pipe, a socket) EXDEV. */
int
res_fd_path(int fd, char *out, size_t len)
{
	char link[32];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if ((n = readlink(link, out, len - 1)) == -1)
		return -errno;
	if ((size_t)n >= len - 1)
		return -ENAMETOOLONG;
	out[n] = '\0';
	if (out[0] != '/')
		return -EXDEV;
	/* The kernel marks a removed object so; a name that merely ends so has links. */
	if (n > 10 && strcmp(out + n - 10, " (deleted)") == 0) {
		struct stat st;

		if (fstat(fd, &st) == -1 || st.st_nlink == 0)
			return -ENOENT;
	}
	return 0;
}

/*
 * One line "key:\tvalue" of an fdinfo file, as a number in base; -EIO when it is not
 * there or not a number.
 */
static int
res_fdinfo_field(const char *buf, const char *key, int base, unsigned long long *v)
{
	const char *l;
	char *end;
	size_t n = strlen(key);

	for (l = buf; strncmp(l, key, n) != 0 || l[n] != ':'; l++)
		if ((l = strchr(l, '\n')) == NULL)
			return -EIO;
	errno = 0;
	*v = strtoull(l + n + 1, &end, base);
	return errno != 0 || end == l + n + 1 ? -EIO : 0;
}

/* What fdinfo says of one descriptor: its open flags, its file's inode and mount. */
struct fdinfo {
	unsigned long long flags, ino, mnt;
};

static int
res_fdinfo(int dirfd, const char *path, struct fdinfo *fi)
{
	char buf[1024];
	ssize_t len;
	int f;

	if ((f = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return -errno;
	len = read(f, buf, sizeof(buf) - 1);
	close(f);
	if (len <= 0)
		return -EIO;
	buf[len] = '\0';
	if (res_fdinfo_field(buf, "flags", 8, &fi->flags) < 0 || fi->flags > INT_MAX ||
	    res_fdinfo_field(buf, "ino", 10, &fi->ino) < 0 ||
	    res_fdinfo_field(buf, "mnt_id", 10, &fi->mnt) < 0)
		return -EIO;
	return 0;
}

/*
 * The flags descriptor n of the table that fddir (a /proc .../fd directory we hold)
 * shows was opened with, when obj (what we opened through its magic link) is still
 * what it holds. The kernel resolves /proc/self/fd to the process's (its leader's)
 * table, /proc/thread-self/fd to the thread's, and a thread may have a table of its
 * own (unshare(CLONE_FILES)): flags read from another table describe another
 * descriptor. Ours are read from fdinfo beside fddir, the same table; the table may
 * change between our two reads, so they count only when that fdinfo names the file
 * ours of obj names (inode and mount, as fdinfo counts them). Otherwise (or when
 * anything cannot be read) O_PATH: the least.
 */
static int
res_fd_info(int fddir, int n, int obj)
{
	char p[32];
	struct fdinfo theirs, ours;

	snprintf(p, sizeof(p), "../fdinfo/%d", n);
	if (res_fdinfo(fddir, p, &theirs) < 0)
		return O_PATH;
	snprintf(p, sizeof(p), "/proc/self/fdinfo/%d", obj);
	if (res_fdinfo(AT_FDCWD, p, &ours) < 0 || theirs.ino != ours.ino ||
	    theirs.mnt != ours.mnt)
		return O_PATH;
	return (int)theirs.flags;
}

/*
 * The command's descriptor fd in the calling thread's table (the one its calls on a
 * descriptor use): the object (O_PATH) into *obj and its open flags (res_fd_info).
 * -errno when there is no such descriptor.
 */
int
res_fd_open(pid_t tid, int fd, int *obj, int *flags)
{
	char p[64], name[16];
	int dir;

	*obj = -1;
	*flags = O_PATH;
	if (fd < 0)
		return -EBADF;
	snprintf(p, sizeof(p), "/proc/%ld/fd", (long)tid);
	if ((dir = res_open(AT_FDCWD, p, O_PATH | O_DIRECTORY)) < 0)
		return dir;
	snprintf(name, sizeof(name), "%d", fd);
	if ((*obj = res_open(dir, name, O_PATH)) < 0) {
		int e = *obj;

		*obj = -1;
		close(dir);
		return e == -ENOENT ? -EBADF : e;
	}
	*flags = res_fd_info(dir, fd, *obj);
	close(dir);
	return 0;
}

/*
 * With nested user namespaces allowed, the command may mount in a namespace of its
 * own, and the kernel's name for what we hold is then the name in that namespace:
 * every decision is by name in ours, so the name must lead to what we hold here.
 */
int
res_same(const struct res_ctx *c, int fd, const char *path)
{
	struct stat a, b;

	if (!c->check_names || path[0] == '\0')
		return 0;
	if (fstat(fd, &a) == -1 || lstat(path, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		log_debug("refused: %s is not the name of what the command's call reaches "
			  "(a mount of its own namespace?)",
		    path);
		return -EPERM;
	}
	return 0;
}


/* --- the sandbox's view ------------------------------------------------------------------- */

/*
 * The mounts of the sandbox's mount namespace (ours), by id: a hold on any other mount
 * came from outside (res_view). Read when an id is not among them and the namespace
 * has changed since the last read (poll(2) on mountinfo says so).
 */
struct res_mounts {
	unsigned long long *id;
	size_t n, cap;
	int fd; /* /proc/self/mountinfo, or -1 before the first read */
};

struct res_mounts *
res_mounts_new(void)
{
	struct res_mounts *m = xcalloc(1, sizeof(*m));

	m->fd = -1;
	return m;
}

void
res_mounts_free(struct res_mounts *m)
{
	if (m == NULL)
		return;
	fd_close(&m->fd);
	free(m->id);
	free(m);
}

/* Each line's first field, the mount's id; a line cut by the buffer is read again. */
static void
res_mounts_load(struct res_mounts *m)
{
	char buf[8192], *l, *nl, *end;
	unsigned long long id;
	off_t off = 0;
	ssize_t n;

	m->n = 0;
	for (;;) {
		if ((n = pread(m->fd, buf, sizeof(buf) - 1, off)) <= 0)
			return;
		buf[n] = '\0';
		for (l = buf; (nl = strchr(l, '\n')) != NULL; l = nl + 1) {
			errno = 0;
			id = strtoull(l, &end, 10);
			if (errno != 0 || end == l)
				continue;
			if (m->n == m->cap) {
				m->cap = m->cap ? m->cap * 2 : 64;
				m->id = xreallocarray(m->id, m->cap, sizeof(*m->id));
			}
			m->id[m->n++] = id;
		}
		if (l == buf)
			return; /* a line longer than the buffer: not mountinfo's */
		off += l - buf;
	}
}

static bool
res_mounts_has(struct res_mounts *m, unsigned long long id)
{
	struct pollfd p;
	size_t i;
	bool again = true;

	if (m == NULL)
		return false;
	if (m->fd == -1) {
		if ((m->fd = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) == -1)
			return false;
		res_mounts_load(m);
		again = false;
	}
	for (;;) {
		for (i = 0; i < m->n; i++)
			if (m->id[i] == id)
				return true;
		p.fd = m->fd;
		p.events = POLLPRI;
		p.revents = 0;
		if (!again || poll(&p, 1, 0) != 1 || !(p.revents & (POLLPRI | POLLERR)))
			return false;
		res_mounts_load(m);
		again = false;
	}
}

/* The sandbox's view of name, never through a link: O_PATH, or -errno. */
static int
res_open_view(const char *name)
{
	struct open_how how;
	int fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	if ((fd = (int)syscall(SYS_openat2, AT_FDCWD, name, &how, sizeof(how))) != -1)
		return fd;
	if (errno != ENOSYS && errno != E2BIG)
		return -errno;
	return res_open(AT_FDCWD, name, O_PATH | O_NOFOLLOW);
}

/*
 * What we hold (*fd, which the kernel names name) must be the sandbox's own view of it.
 * A descriptor the command was given from outside (srt's standard input redirected
 * from a directory, or what the command reached through one) lies on a mount of the
 * host's, where the sandbox's read-only binds do not apply: acted on as it is,
 * it would make and change names outside every write root. Such a hold is traded for
 * the sandbox's view of the same name when that is the same object (the sandbox's
 * mounts then decide, as for the name spelled directly, and name becomes the
 * sandbox's); -EROFS, reported, when the sandbox shows another object there or none.
 * sx, when not NULL, gets what statx(2) says of the hold kept (its stx_mask 0 when it
 * was not asked), which spares the caller a stat of its own.
 */
int
res_view(const struct res_ctx *c, int *fd, char *name, size_t len, struct statx *sx)
{
	char view[PATH_MAX];
	struct statx a, b;
	int nfd;

	if (sx != NULL)
		sx->stx_mask = 0;
	if (name[0] == '\0')
		return 0; /* no name (a pipe, a removed file): nothing to make */
	if (statx(*fd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &a) == -1)
		return -errno;
	if ((a.stx_mask & STATX_MNT_ID) && res_mounts_has(c->mounts, a.stx_mnt_id)) {
		if (sx != NULL)
			*sx = a;
		return 0;
	}
	if ((nfd = res_open_view(name)) >= 0 &&
	    statx(nfd, "", AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &b) == 0 &&
	    a.stx_dev_major == b.stx_dev_major && a.stx_dev_minor == b.stx_dev_minor &&
	    a.stx_ino == b.stx_ino && res_fd_path(nfd, view, sizeof(view)) == 0 &&
	    strlen(view) < len) {
		log_debug("%s: held through a mount from outside the sandbox; the "
			  "sandbox's own is used",
		    name);
		memcpy(name, view, strlen(view) + 1);
		close(*fd);
		*fd = nfd;
		if (sx != NULL)
			*sx = b;
		return 0;
	}
	if (nfd >= 0)
		close(nfd);
	if (c->view_refused != NULL)
		c->view_refused(c->arg, name);
	return -EROFS;
}

/* Where the command's path starts: the root (c->root, ours, lent: res_let and res_own
 * know it), its cwd, or its descriptor dirfd. */
static int
res_base(const struct res_ctx *c, int dirfd, const char *path)
{
	char p[64];
	pid_t tid = c->tid;

	if (path[0] == '/')
		return c->root >= 0 ? c->root : res_open(AT_FDCWD, "/", O_PATH | O_DIRECTORY);
	if (dirfd == AT_FDCWD)
		snprintf(p, sizeof(p), "/proc/%ld/cwd", (long)tid);
	else if (dirfd >= 0)
		snprintf(p, sizeof(p), "/proc/%ld/fd/%d", (long)tid, dirfd);
	else
		return -EBADF;
	return res_open(AT_FDCWD, p, O_PATH);
}

/* A directory of the walk is done with: closed, unless it is the root lent to us. */
static void
res_let(const struct res_ctx *c, int fd)
{
	if (fd >= 0 && fd != c->root)
		close(fd);
}

/* A directory of the walk becomes the result's: ours to close (the root, copied). */
static int
res_own(const struct res_ctx *c, int fd)
{
	int own;

	if (fd != c->root)
		return fd;
	if ((own = fcntl(fd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -errno;
	return own;
}

static bool
res_on_proc(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* Is dirpath in the caller's own part of /proc (its process or thread directory)? */
static bool
res_own_proc(const struct res_ctx *c, const char *dirpath)
{
	char own[64];
	size_t n;
	int i;

	for (i = 0; i < 2; i++) {
		n = (size_t)snprintf(
		    own, sizeof(own), "/proc/%ld", (long)(i == 0 ? c->tgid : c->tid));
		if (strncmp(dirpath, own, n) == 0 && (dirpath[n] == '\0' || dirpath[n] == '/'))
			return true;
	}
	return false;
}

/* The walk's state: what is left of the path, as text. */
struct walk {
	char rest[PATH_MAX * 2];
	size_t off;
};

/* The next component into comp: 1, or 0 at the end; -errno. */
static int
walk_next(struct walk *w, char *comp)
{
	const char *p = w->rest + w->off;
	size_t n;

	while (*p == '/')
		p++;
	if (*p == '\0')
		return 0;
	n = strcspn(p, "/");
	if (n > NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(comp, p, n);
	comp[n] = '\0';
	w->off = (size_t)(p + n - w->rest);
	return 1;
}

static bool
walk_done(const struct walk *w)
{
	const char *p = w->rest + w->off;

	while (*p == '/')
		p++;
	return *p == '\0';
}

/* Put text in front of what is left. */
static int
walk_splice(struct walk *w, const char *text)
{
	char tmp[sizeof(w->rest)];
	int n;

	n = snprintf(tmp, sizeof(tmp), "%s/%s", text, w->rest + w->off);
	if (n < 0 || (size_t)n >= sizeof(tmp) || (size_t)n >= PATH_MAX * 2 - 1)
		return -ENAMETOOLONG;
	memcpy(w->rest, tmp, (size_t)n + 1);
	w->off = 0;
	return 0;
}

void
res_free(struct res *r)
{
	fd_close(&r->dirfd);
	fd_close(&r->objfd);
}

/* The directory's name, into r->path (res_name adds the last component). */
static int
res_name_dir(int dirfd, struct res *r)
{
	return res_fd_path(dirfd, r->path, sizeof(r->path));
}

/* r's path: the directory's name and the last component, or the object's name. */
static int
res_name(const struct res_ctx *c, struct res *r)
{
	char dir[PATH_MAX];
	int e;

	if (r->objfd != -1) {
		e = res_fd_path(r->objfd, r->path, sizeof(r->path));
		if (e == -EXDEV || e == -ENOENT) {
			r->path[0] = '\0'; /* a pipe, a removed file: no name to protect */
			return 0;
		}
		if (e < 0 || (e = res_same(c, r->objfd, r->path)) < 0)
			return e;
		/* What a descriptor of the command's holds keeps its mount: a file the
		 * user gave it for writing (>> out) is the user's choice (sup_open_object
		 * checks the descriptor's flags; sup_meta the view). */
		return r->fd_flags != -1
		    ? 0
		    : res_view(c, &r->objfd, r->path, sizeof(r->path), NULL);
	}
	if (r->path[0] == '/')
		memcpy(dir, r->path, strlen(r->path) + 1); /* known already */
	else if ((e = res_fd_path(r->dirfd, dir, sizeof(dir))) < 0)
		return e;
	if ((e = res_same(c, r->dirfd, dir)) < 0 ||
	    (!r->from_root && (e = res_view(c, &r->dirfd, dir, sizeof(dir), NULL)) < 0))
		return e;
	if (snprintf(r->path, sizeof(r->path), "%s/%s", strcmp(dir, "/") == 0 ? "" : dir,
		r->name) >= (int)sizeof(r->path))
		return -ENAMETOOLONG;
	return 0;
}

/* r named, or freed. */
static int
res_done(const struct res_ctx *c, struct res *r)
{
	int e;

	if ((e = res_name(c, r)) < 0)
		res_free(r);
	return e;
}

/* The object comp of /proc directory dir, opened as obj, is what a descriptor of the
 * command's holds (fd/N): the flags it was opened with, into r->fd_flags. */
static void
res_link_flags(int dir, const char *comp, int obj, struct res *r)
{
	char dirpath[PATH_MAX], *end;
	size_t n;
	long v;

	r->fd_flags = -1;
	if (res_fd_path(dir, dirpath, sizeof(dirpath)) < 0)
		return;
	n = strlen(dirpath);
	if (n < 3 || strcmp(dirpath + n - 3, "/fd") != 0)
		return;
	errno = 0;
	v = strtol(comp, &end, 10);
	if (errno != 0 || end == comp || *end != '\0' || v < 0 || v > INT_MAX) {
		r->fd_flags = O_PATH; /* unknown: take it for the least */
		return;
	}
	/* The table of the directory the command's path went through, not its own. */
	r->fd_flags = res_fd_info(dir, (int)v, obj);
}

/*
 * One component in a /proc directory cur. *next: a descriptor to go on from (the
 * object a magic link leads to), or -1 when the component is an ordinary entry (or
 * text was spliced in: *spliced).
 */
static int
res_proc(const struct res_ctx *c, int cur, const char *comp, struct walk *w, int *next,
    bool *spliced)
{
	char dirpath[PATH_MAX], link[PATH_MAX], txt[64];
	struct stat st;
	ssize_t n;

	*next = -1;
	*spliced = false;
	/* The caller's own entries are its process's and thread's: known to be its. */
	if (c->task_fresh != NULL && !c->task_fresh(c->arg))
		return -ESRCH;
	if (res_fd_path(cur, dirpath, sizeof(dirpath)) < 0)
		return -EACCES;
	if (strcmp(dirpath, "/proc") == 0 &&
	    (strcmp(comp, "self") == 0 || strcmp(comp, "thread-self") == 0)) {
		if (comp[0] == 's')
			snprintf(txt, sizeof(txt), "%ld", (long)c->tgid);
		else
			snprintf(txt, sizeof(txt), "%ld/task/%ld", (long)c->tgid, (long)c->tid);
		*spliced = true;
		return walk_splice(w, txt);
	}
	if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -errno;
	if (!S_ISLNK(st.st_mode))
		return 0;
	/* An ordinary link of /proc's top (mounts -> self/mounts) is text. */
	if (strcmp(dirpath, "/proc") == 0 &&
	    (n = readlinkat(cur, comp, link, sizeof(link) - 1)) > 0) {
		link[n] = '\0';
		if (link[0] != '/') {
			*spliced = true;
			return walk_splice(w, link);
		}
	}
	if (!res_own_proc(c, dirpath))
		return -EACCES;
	/* A magic link: opened, it leads where it leads for the command. */
	if ((*next = res_open(cur, comp, O_PATH)) < 0) {
		int e = *next;

		*next = -1;
		return e;
	}
	return 0;
}

/*
 * The fast path: the directory part has no link at all. 1 done (the base is taken
 * over when the path is a single name: *base becomes -1), 0 take the walk.
 */
static bool
res_plain_dir(const char *dir)
{
	const char *c = dir + 1, *e;
	size_t n;

	if (dir[0] != '/')
		return false;
	if (*c == '\0')
		return true; /* "/" */
	for (;;) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 0 || (c[0] == '.' && (n == 1 || (n == 2 && c[1] == '.'))))
			return false;
		if (e == NULL)
			return true;
		c = e + 1;
	}
}

static int
res_fast(int *base, const char *path, bool follow, struct res *r)
{
	char dir[PATH_MAX];
	const char *name, *slash;
	struct open_how how;
	struct stat st;
	size_t len = strlen(path);
	int fd;

	if (path[len - 1] == '/')
		return 0; /* "dir/": the walk knows what that asks */
	slash = strrchr(path, '/');
	name = slash != NULL ? slash + 1 : path;
	if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0 || strlen(name) > NAME_MAX)
		return 0;
	if (slash == NULL)
		fd = *base;
	else {
		len = slash == path ? 1 : (size_t)(slash - path);
		memcpy(dir, path, len);
		dir[len] = '\0';
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
		how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
		if ((fd = (int)syscall(SYS_openat2, *base, dir, &how, sizeof(how))) == -1)
			return errno == ELOOP || errno == EXDEV || errno == EAGAIN ||
				errno == ENOSYS || errno == E2BIG
			    ? 0
			    : -errno;
	}
	/*
	 * Its name: from the root, with no link (RESOLVE_NO_SYMLINKS) and nothing but
	 * names on the way, the directory part as written is the kernel's name for what
	 * openat2 reached, as readlink(2) would say (no call); otherwise asked.
	 * In /proc, names mean the caller (self) or lead elsewhere: the walk knows.
	 */
	if (path[0] == '/' && slash != NULL && res_plain_dir(dir))
		memcpy(r->path, dir, strlen(dir) + 1);
	else if (res_name_dir(fd, r) < 0)
		r->path[0] = '\0';
	if (r->path[0] == '\0' || path_is_under(r->path, "/proc") ||
	    (follow && fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		S_ISLNK(st.st_mode))) {
		if (fd != *base)
			close(fd);
		r->path[0] = '\0';
		return 0;
	}
	if (fd == *base)
		*base = -1;
	r->dirfd = fd;
	snprintf(r->name, sizeof(r->name), "%s", name);
	return 1;
}

/*
 * Is there a name at path, an absolute path of the command's, for a call that changes
 * nothing when there is (mkdir's EEXIST)? 1 when one is found (of any type, a link
 * too: the last component is not followed, as mkdir does not follow it); 0 when that
 * is not known this way, and the caller takes res_resolve.
 * Known only for a plain path from the root, the command's and ours (no ".", "..",
 * empty component or trailing "/"; not in /proc, whose names mean the caller or lead
 * into our own descriptors), looked up through no link at all (RESOLVE_NO_SYMLINKS):
 * the name the command's own lookup reaches, with the same rights (PID 1 runs as the
 * command's user, without capabilities), found there at one moment of the call. With
 * nested namespaces (check_names) the command's tree may be another: never known.
 */
int
res_found(const struct res_ctx *c, const char *path)
{
	struct open_how how;
	const char *last;
	int fd;

	if (c->check_names || c->root < 0 || path[0] != '/' || path_is_under(path, "/proc") ||
	    (last = strrchr(path, '/')) == path || last[1] == '\0' || strlen(path) >= PATH_MAX)
		return 0;
	{
		char dir[PATH_MAX];

		memcpy(dir, path, (size_t)(last - path));
		dir[last - path] = '\0';
		if (!res_plain_dir(dir) || strcmp(last + 1, ".") == 0 ||
		    strcmp(last + 1, "..") == 0)
			return 0;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	if ((fd = (int)syscall(SYS_openat2, c->root, path, &how, sizeof(how))) == -1)
		return 0;
	close(fd);
	return 1;
}

/*
 * Resolve path (the command's, relative to its dirfd) to a directory we hold and a last
 * component in it, or to an object we hold (r->objfd: a directory the path named as a
 * whole, or what a magic link of /proc leads to). follow: a last component that is a
 * link is followed. On success r->path is the absolute name of the result ("" for an
 * object without one).
 */
int
res_resolve(const struct res_ctx *c, int dirfd, const char *path, bool follow, struct res *r)
{
	char comp[NAME_MAX + 1], link[PATH_MAX], lp[PATH_MAX];
	struct walk w;
	struct stat st;
	int cur, nfd, links = 0, e;
	size_t plen = strlen(path);
	bool last, spliced;
	ssize_t n;

	memset(r, 0, sizeof(*r));
	r->dirfd = r->objfd = r->fd_flags = -1;
	if (plen == 0)
		return -ENOENT;
	if (plen >= PATH_MAX)
		return -ENAMETOOLONG;
	r->must_be_dir = path[plen - 1] == '/';
	if ((cur = res_base(c, dirfd, path)) < 0)
		return cur;
	if ((e = res_fast(&cur, path, follow, r)) != 0) {
		/* An absolute path: openat2 from our root, through no link, magic or not,
		 * reaches only the mounts of our namespace, the sandbox's. */
		r->from_root = path[0] == '/' && c->root >= 0;
		res_let(c, cur);
		return e < 0 ? e : res_done(c, r);
	}
	memcpy(w.rest, path, plen + 1);
	w.off = 0;
	for (;;) {
		if ((e = walk_next(&w, comp)) < 0)
			goto fail;
		if (e == 0) {
			/* The path named a directory as a whole ("/", ".", "a/..", "dir/"). */
			if ((r->objfd = res_own(c, cur)) < 0)
				return r->objfd;
			return res_done(c, r);
		}
		last = walk_done(&w);
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if ((nfd = res_open(cur, "..", O_PATH | O_DIRECTORY)) < 0) {
				e = nfd;
				goto fail;
			}
			res_let(c, cur);
			cur = nfd;
			continue;
		}
		if (res_on_proc(cur)) {
			if ((e = res_proc(c, cur, comp, &w, &nfd, &spliced)) < 0)
				goto fail;
			if (spliced)
				continue;
			if (nfd != -1 && (!last || follow || r->must_be_dir)) {
				if (last)
					res_link_flags(cur, comp, nfd, r);
				res_let(c, cur);
				if (fstat(nfd, &st) == 0 && S_ISDIR(st.st_mode)) {
					r->fd_flags = -1;
					cur = nfd;
					continue;
				}
				if (!last) {
					close(nfd);
					return -ENOTDIR;
				}
				r->objfd = nfd;
				return res_done(c, r);
			}
			if (nfd != -1)
				close(nfd);
		}
		if (fstatat(cur, comp, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			if (errno == ENOENT && last)
				break; /* to be made, perhaps */
			e = -errno;
			goto fail;
		}
		if (S_ISLNK(st.st_mode) && (!last || follow || r->must_be_dir)) {
			if ((e = res_fd_path(cur, lp, sizeof(lp))) < 0)
				goto fail;
			{
				size_t k = strlen(lp);

				if (k + 1 + strlen(comp) >= sizeof(lp)) {
					e = -ENAMETOOLONG;
					goto fail;
				}
				if (k > 1)
					lp[k++] = '/';
				strcpy(lp + k, comp);
			}
			if (c->link_protected != NULL && c->link_protected(c->arg, lp)) {
				e = -EPERM;
				goto fail;
			}
			if ((n = readlinkat(cur, comp, link, sizeof(link) - 1)) < 0) {
				e = -errno;
				goto fail;
			}
			link[n] = '\0';
			if (++links > MAX_LINKS) {
				e = -ELOOP;
				goto fail;
			}
			if ((e = walk_splice(&w, link)) < 0)
				goto fail;
			if (link[0] == '/') {
				res_let(c, cur);
				if ((cur = res_base(c, AT_FDCWD, "/")) < 0)
					return cur;
			}
			continue;
		}
		if (last)
			break;
		if (!S_ISDIR(st.st_mode)) {
			e = -ENOTDIR;
			goto fail;
		}
		if ((nfd = res_open(cur, comp, O_PATH | O_NOFOLLOW | O_DIRECTORY)) < 0) {
			e = nfd;
			goto fail;
		}
		res_let(c, cur);
		cur = nfd;
	}
	if ((r->dirfd = res_own(c, cur)) < 0)
		return r->dirfd;
	snprintf(r->name, sizeof(r->name), "%s", comp);
	return res_done(c, r);
fail:
	res_let(c, cur);
	return e;
}
