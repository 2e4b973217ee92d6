/*
 * The write guard's supervisor (supervise.c): bind(2) of a unix socket, and the calls
 * that change what is there (chmod, chown, truncate, setxattr, removexattr), done by
 * the supervisor on the command's behalf.
 */
#include <stddef.h>
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/xattr.h>

#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#ifndef XATTR_NAME_CAPS
#define XATTR_NAME_CAPS "security.capability"
#endif

/* --- sockets ----------------------------------------------------------------------------------- */

/*
 * bind(2): a pathname address makes a name in the file system, decided as any other
 * (a socket from socketpair(2) can be bound without AF_UNIX sockets allowed). The
 * address is read once, here; the command's socket is taken with pidfd_getfd(2) and
 * bound by us (it is one socket: the command's descriptor is bound), a pathname in the
 * directory we hold, with the caller's umask.
 */
int
sup_bind(struct sup *s, uint64_t id, int sockfd, uint64_t addr, uint64_t alen)
{
	struct sockaddr_storage ss;
	struct sockaddr_un *un = (struct sockaddr_un *)&ss;
	char path[sizeof(un->sun_path) + 1], p[sizeof(un->sun_path)];
	struct res r;
	int sock, e;
	size_t plen;

	if (alen > sizeof(ss))
		return -EINVAL;
	memset(&ss, 0, sizeof(ss));
	if ((e = res_read_mem(s->rc.tid, addr, &ss, (size_t)alen)) < 0)
		return e;
	if ((sock = sup_getfd(s, sockfd)) < 0)
		return sock;
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
	sup_readonly(s, r.path, e);
	res_free(&r);
	close(sock);
	return e;
}

/* --- changes to what is there --------------------------------------------------------------- */

static const char *const meta_op[] = {
	"chmod",
	"chown",
	"truncate",
	"setxattr",
	"removexattr",
};

/*
 * The command's descriptor fd, the calling thread's (its table may be its own): the
 * open file itself, taken with pidfd_getfd(2) through the thread's pidfd, one call
 * where reading it from /proc takes nine (res_fd_open, which is left for a thread we
 * hold no pidfd of). Its open flags are not read then (*flags -1): a change by
 * descriptor is made through the very file, and the kernel refuses it as it would the
 * command (EBADF for O_PATH). 1 when taken through the pidfd, 0 through /proc (with
 * the flags), -errno when there is no such descriptor.
 */
static int
sup_meta_fd(struct sup *s, int fd, int *obj, int *flags)
{
	int got;

	*obj = -1;
	*flags = -1;
	if (fd < 0)
		return -EBADF;
	if (s->task == NULL || s->task->pidfd == -1)
		return res_fd_open(s->rc.tid, fd, obj, flags);
	if ((got = (int)syscall(SYS_pidfd_getfd, s->task->pidfd, fd, 0)) == -1) {
		if (errno == EBADF)
			return -EBADF;
		return res_fd_open(s->rc.tid, fd, obj, flags);
	}
	*obj = got;
	return 1;
}

/*
 * An access or default ACL (system.posix_acl_access, system.posix_acl_default; the
 * kernel's format: a version, then little-endian entries of tag, permissions and id):
 * write for others (ACL_OTHER) or for a named user (ACL_USER) is what S_IWOTH is in a
 * mode, and a default ACL passes it to every file made in the directory, past
 * sup_mode_strip. Its write bit is removed, as S_IWOTH from a mode, and reported so;
 * the call succeeds without it. value is our copy, read once.
 */
static void
sup_acl_strip(struct sup *s, const char *path, const char *name, char *value, size_t n)
{
	uint16_t tag, perm;
	size_t off;
	bool dropped = false;

	if (strcmp(name, "system.posix_acl_access") != 0 &&
	    strcmp(name, "system.posix_acl_default") != 0)
		return;
	for (off = 4; off + 8 <= n; off += 8) {
		memcpy(&tag, value + off, sizeof(tag));
		memcpy(&perm, value + off + 2, sizeof(perm));
		tag = le16toh(tag);
		perm = le16toh(perm);
		if ((tag == 0x20 || tag == 0x02) && (perm & 0x02)) { /* OTHER, USER; write */
			perm = htole16((uint16_t)(perm & ~0x02));
			memcpy(value + off + 2, &perm, sizeof(perm));
			dropped = true;
		}
	}
	if (dropped)
		(void)sup_mode_strip(s, path, S_IWOTH, true, false);
}

/*
 * A file sup_open_fast made (sup_file_name), taken from the command: its name is
 * known, it is on one of the sandbox's mounts and not in /proc (it was made so), and
 * *sx says the rest. false: to be looked up (readlink, res_view).
 */
static bool
sup_meta_known(struct sup *s, int obj, char *path, struct statx *sx)
{
	const char *name;

	if (s->rc.check_names ||
	    statx(obj, "", AT_EMPTY_PATH,
		STATX_BASIC_STATS | STATX_MNT_ID | STATX_MNT_ID_UNIQUE, sx) == -1 ||
	    (name = sup_file_name(s, sx)) == NULL || strlen(name) >= PATH_MAX)
		return false;
	memcpy(path, name, strlen(name) + 1);
	return true;
}

/* fchmod, fchown, fsetxattr, fremovexattr through the command's own file: 0, -errno. */
static int
sup_meta_by_file(
    struct sup *s, int f, const char *path, const struct stat *st, const struct meta_args *m)
{
	int r = 0;

	switch (m->what) {
	case M_CHMOD:
		r = fchmod(f, sup_mode_strip(s, path, m->mode, S_ISDIR(st->st_mode), false));
		break;
	case M_CHOWN:
		r = fchown(f, m->uid, m->gid);
		break;
	case M_SETXATTR:
		/* An ACL loses write for others and named users here too. */
		sup_acl_strip(s, path, m->xname, m->xvalue, m->xsize);
		r = fsetxattr(f, m->xname, m->xvalue, m->xsize, m->xflags);
		break;
	case M_REMOVEXATTR:
		r = fremovexattr(f, m->xname);
		break;
	default:
		return -EINVAL;
	}
	return r == -1 ? -errno : 0;
}

/* The object at path (or the command's descriptor dirfd, with AT_EMPTY_PATH), held. */
int
sup_meta(struct sup *s, uint64_t id, int dirfd, uint64_t addr, bool follow, bool empty_ok,
    const struct meta_args *m)
{
	char path[PATH_MAX], p[64];
	const char *why;
	struct res r;
	struct stat st;
	struct statx sx;
	bool by_pidfd = false, known = false;
	int obj, cmd_file = -1, e;

	if (m->by_fd)
		path[0] = '\0';
	else if ((e = sup_path(s, addr, path)) < 0)
		return e;
	if (path[0] == '\0' && (empty_ok || m->by_fd)) {
		memset(&r, 0, sizeof(r));
		r.dirfd = -1;
		/* The object and its flags from one table, the caller's. */
		if ((e = sup_meta_fd(s, dirfd, &r.objfd, &r.fd_flags)) < 0)
			return e;
		by_pidfd = e == 1;
		/* As the kernel: a descriptor opened with O_PATH is for paths alone. */
		if (m->by_fd && r.fd_flags != -1 && (r.fd_flags & O_PATH)) {
			res_free(&r);
			return -EBADF;
		}
		if (by_pidfd && (known = sup_meta_known(s, r.objfd, r.path, &sx)))
			;
		else if (res_fd_path(r.objfd, r.path, sizeof(r.path)) < 0)
			r.path[0] = '\0';
		if (!known && (e = res_same(&s->rc, r.objfd, r.path)) < 0) {
			res_free(&r);
			return e;
		}
	} else if ((e = res_resolve(&s->rc, dirfd, path, follow, &r)) < 0)
		return e;
	/* What we read and opened was the asking thread's, not a later one's: the id
	 * check says so, or pidfd_getfd(2) through the thread's own pidfd, which fails
	 * (ESRCH) once that thread is gone, whatever thread has its number since
	 * (nothing was read from the command's memory). */
	if (!by_pidfd && !sup_valid(s, id)) {
		res_free(&r);
		return -ENOENT;
	}
	if (r.objfd != -1) {
		obj = r.objfd;
		r.objfd = -1;
		if (m->by_fd && by_pidfd)
			cmd_file = obj; /* the command's own open file */
	} else if ((obj = openat(r.dirfd, r.name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		e = -errno;
		goto out;
	}
	/* A file the command holds from outside the sandbox changes as the sandbox's view
	 * of it would (res_view): fchmod of an inherited descriptor, chmod through
	 * /proc/self/fd/N. */
	if (!known && (e = res_view(&s->rc, &obj, r.path, sizeof(r.path), &sx)) < 0)
		goto out_obj;
	if ((sx.stx_mask & (STATX_TYPE | STATX_MODE | STATX_NLINK)) ==
	    (STATX_TYPE | STATX_MODE | STATX_NLINK)) {
		memset(&st, 0, sizeof(st));
		st.st_mode = sx.stx_mode;
		st.st_nlink = sx.stx_nlink;
	} else if (fstat(obj, &st) == -1) {
		e = -EACCES;
		goto out_obj;
	}
	/* procfs lives on an anonymous device (major 0), as does every file system
	 * without a disk: one on a disk is not /proc, and needs no fstatfs(2). */
	if (!known && (!(sx.stx_mask & STATX_MNT_ID) || sx.stx_dev_major == 0) &&
	    sup_in_proc(obj)) {
		sup_proc_refused(s, r.path);
		e = -EACCES;
		goto out_obj;
	}
	/* A removed file that still has another name: we cannot tell which. */
	if (r.path[0] == '\0' && S_ISREG(st.st_mode) && st.st_nlink > 0) {
		e = -EACCES;
		goto out_obj;
	}
	/* A git config's mode says nothing git runs (git init tries whether the file
	 * system keeps the execute bit on it); its content is another matter.
	 * One the command created by an open (cp -a, tar x) also takes its owner and
	 * extended attributes: its content is judged when the run ends. */
	if (r.path[0] != '\0' && (why = wguard_protected(&s->g, sup_fs(s), r.path)) != NULL &&
	    !(why == wguard_why_cfg_write &&
		(m->what == M_CHMOD ||
		    (m->what != M_TRUNCATE && strlist_contains(&s->new_configs, r.path))))) {
		sup_refused(s, meta_op[m->what], r.path, why);
		e = -EPERM;
		goto out_obj;
	}
	/* Unless res_view traded it for the sandbox's view, which is O_PATH. */
	if (cmd_file != -1 && obj == cmd_file && m->what != M_TRUNCATE &&
	    !S_ISLNK(st.st_mode) &&
	    !(m->what == M_SETXATTR && strcmp(m->xname, XATTR_NAME_CAPS) == 0)) {
		e = sup_meta_by_file(s, obj, r.path, &st, m);
		goto out_obj;
	}
	snprintf(p, sizeof(p), "/proc/self/fd/%d", obj);
	e = 0;
	switch (m->what) {
	case M_CHMOD:
		if (S_ISLNK(st.st_mode))
			e = -EOPNOTSUPP;
		else if (chmod(p,
			     sup_mode_strip(s, r.path, m->mode, S_ISDIR(st.st_mode), false)) ==
		    -1)
			e = -errno;
		break;
	case M_CHOWN:
		if (fchownat(obj, "", m->uid, m->gid, AT_EMPTY_PATH) == -1)
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
				obj = -1; /* the thread's now */
			} else
				e = -errno;
		}
		break;
	case M_SETXATTR:
	case M_REMOVEXATTR:
		if (S_ISLNK(st.st_mode))
			e = -EPERM; /* no user.* attributes on links */
		else if (m->what == M_SETXATTR && strcmp(m->xname, XATTR_NAME_CAPS) == 0) {
			/* File capabilities: a program that runs with them, for anyone. */
			sup_refused(s, meta_op[m->what], r.path, "file capabilities");
			e = -EPERM;
		} else {
			if (m->what == M_SETXATTR)
				sup_acl_strip(s, r.path, m->xname, m->xvalue, m->xsize);
			if (m->what == M_SETXATTR
				? setxattr(p, m->xname, m->xvalue, m->xsize, m->xflags) == -1
				: removexattr(p, m->xname) == -1)
				e = -errno;
		}
		break;
	}
out_obj:
	if (obj != -1)
		close(obj);
out:
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}
