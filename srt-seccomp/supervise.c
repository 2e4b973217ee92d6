/*
 * The write guard's supervisor (srt-launch(1) DESIGN; lib/sandbox/wguard.h): run by the
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
 *
 * This file holds the state, the calling thread, the answers, the dispatch and the
 * supervisor's life; the calls themselves are done in sup_open.c, sup_names.c and
 * sup_meta.c, the file system's answers to the guard are sup_fs.c (all in supervise.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <linux/kcmp.h>
#include <linux/magic.h>
#include <linux/seccomp.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS SECCOMP_IOW(4, __u64)
#endif
#ifndef SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP
#define SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP (1UL << 0)
#endif
#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif
#define XATTR_VALUE_MAX 65536

/* --- the calling thread -------------------------------------------------------------------- */

static void
task_forget(struct sup *s, size_t i)
{
	fd_close(&s->tasks[i].pidfd); /* out of the epoll set with it */
	s->tasks[i] = s->tasks[--s->ntasks];
}

/*
 * Threads that have ended, as their pidfds say through the epoll set (sup_pollfds puts
 * it before the listener): forgotten before the next call is received, so that a number
 * given again is not taken for the thread that had it. No call of ours per decision.
 */
static void
task_reap(struct sup *s)
{
	struct epoll_event ev[64];
	size_t i;
	int n, k;

	while ((n = epoll_wait(s->epfd, ev, 64, 0)) > 0)
		for (k = 0; k < n; k++)
			for (i = 0; i < s->ntasks; i++)
				if (s->tasks[i].pidfd == ev[k].data.fd) {
					task_forget(s, i);
					break;
				}
}

/* Its process and umask, from /proc/TID/status the first time. */
static struct task *
task_get(struct sup *s, pid_t tid)
{
	char p[64], buf[2048], *l;
	struct epoll_event ev;
	struct task *t;
	ssize_t n;
	size_t i;
	int fd;

	/*
	 * A thread seen before: its pidfd is in the epoll set, and task_reap forgot it
	 * when it ended, before this call was received. A thread that ended since, its
	 * number given to a new one between our poll and our receive, is still taken for
	 * the old one here: what we keep of it is harmless then (a umask the command
	 * could set itself; a pidfd that fails, ESRCH, and is looked up again), except its
	 * process in /proc, which task_fresh checks before a /proc name is followed.
	 */
	for (i = 0; i < s->ntasks; i++)
		if (s->tasks[i].tid == tid)
			return &s->tasks[i];
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
	/* A pidfd of the thread itself tells us when it ends (Linux 6.9); of the process
	 * where the kernel cannot give that, for its leader alone. Otherwise, or when it
	 * cannot be watched, the entry is read again next time. */
	t->pidfd = (int)syscall(SYS_pidfd_open, tid, PIDFD_THREAD);
	if (t->pidfd == -1 && tid == t->tgid)
		t->pidfd = (int)syscall(SYS_pidfd_open, tid, 0);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = t->pidfd;
	if (t->pidfd != -1 &&
	    (s->epfd == -1 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, t->pidfd, &ev) == -1))
		fd_close(&t->pidfd);
	if (t->pidfd == -1) {
		static struct task once;

		once = *t;
		return &once;
	}
	s->ntasks++;
	return t;
}

/*
 * Before a /proc name is followed as the caller's own (resolve.c res_proc): the thread
 * we took it for is alive (its pidfd), else it is looked up again. false: it is gone.
 */
static bool
task_fresh(void *arg)
{
	struct sup *s = arg;
	size_t i;

	if (s->task != NULL && s->task->pidfd != -1 &&
	    syscall(SYS_pidfd_send_signal, s->task->pidfd, 0, NULL, 0) == 0)
		return true;
	for (i = 0; i < s->ntasks; i++)
		if (&s->tasks[i] == s->task) {
			task_forget(s, i);
			break;
		}
	if ((s->task = task_get(s, s->rc.tid)) == NULL)
		return false;
	s->rc.tgid = s->task->tgid;
	return true;
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
void
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
void
sup_answer_err(int listener, uint64_t id, int err, struct seccomp_notif_resp *resp, size_t size)
{
	memset(resp, 0, size);
	resp->id = id;
	resp->error = err;
	if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, resp) == -1 && errno != ENOENT)
		log_warn("SECCOMP_IOCTL_NOTIF_SEND");
}

/* Give fd to the command as the call's result, in the same step as the answer; fd is
 * closed here. Should that fail (EMFILE, say), the command hears the error. */
void
sup_answer_fd(int listener, uint64_t id, int fd, bool cloexec, struct seccomp_notif_resp *resp,
    size_t size)
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

/* A refusal's line: its reason and the way forward (wguard_way), if any. */
static void
sup_report(struct sup *s, const char *path, const char *why)
{
	const char *way;
	char *full;

	if (path == NULL || (way = wguard_way(path, why)) == NULL) {
		monitor_file(s->mon, false, s->op, path, why);
		return;
	}
	full = xasprintf("%s; %s", why, way);
	monitor_file(s->mon, false, s->op, path, full);
	free(full);
}

void
sup_refused(struct sup *s, const char *op, const char *path, const char *why)
{
	s->refused++;
	log_debug("refused: %s %s (%s)", op, path, why);
	sup_report(s, path, why);
}

/* A call we did on the command's behalf came back with -e: a read-only mount refused
 * it (EROFS) when that is e, and that is a violation too (the guard's list allowed it,
 * the mounts did not). Any other error is the file system's or the user's own. */
void
sup_readonly(struct sup *s, const char *path, int e)
{
	if (e == -EROFS)
		sup_report(s, path, wguard_readonly_why(&s->g, path));
}

/* A name reached through a descriptor from outside the sandbox, which the sandbox
 * shows read-only or not at all (resolve.c res_view): refused as the mounts refuse a
 * write there (EROFS), and reported so. */
static void
sup_view_refused(void *arg, const char *path)
{
	struct sup *s = arg;

	s->refused++;
	log_debug("refused: %s %s (reached through a descriptor from outside the sandbox, "
		  "which shows it read-only or not at all)",
	    s->op, path);
	sup_readonly(s, path, -EROFS);
}

/*
 * Two bits no mode we make or set keeps; they are removed and the call goes on without
 * them (reported, as a refusal is), so that tar, cp -a, install and a clone made under
 * umask 0 work:
 *
 * S_ISUID and S_ISGID on a file that is not a directory make a program that runs with
 * its owner's rights (root's, when root runs srt) for whoever runs it after the sandbox.
 * A directory keeps them: its S_ISGID only makes what is made in it take its group,
 * and S_ISUID means nothing there.
 *
 * S_IWOTH, on anything: a directory or file others may write lets another local user
 * plant a hook or a config that runs as the user (a repository chmod'ed 777, a
 * .git/config made 666). A sticky directory is no exception: others may still make
 * new names in it (a hook that is not there yet). A FIFO loses it too; a socket's
 * mode (bind) is the kernel's, with the caller's umask: connecting reaches only the
 * command, as a TCP port would.
 *
 * made: a mode we make a name with, which the caller's umask narrows first (a bit the
 * umask removes anyway is not reported). Otherwise a mode chmod sets as it is.
 * Only the first WOTHERS_SHOWN removals of S_IWOTH alone are reported (the last says
 * so), the others only logged: S_ISUID and S_ISGID are rare enough to list them all.
 */
#define WOTHERS_SHOWN 20

mode_t
sup_mode_strip(struct sup *s, const char *path, mode_t mode, bool is_dir, bool made)
{
	mode_t eff = mode, drop = S_IWOTH;
	const char *why;

	if (made) {
		sup_caller_umask(s);
		eff &= ~s->umask;
	}
	if (!is_dir)
		drop |= S_ISUID | S_ISGID;
	if ((eff & drop) == 0)
		return mode & ~drop;
	if ((eff & drop) == S_IWOTH) {
		/* A clone made under umask 0 or an archive of 0777 directories would
		 * list every name it makes: the first few say what happens. */
		if (++s->wothers > WOTHERS_SHOWN) {
			log_debug("%s %s: write permission for others removed", s->op, path);
			return mode & ~drop;
		}
		why = s->wothers < WOTHERS_SHOWN
		    ? "write permission for others removed"
		    : "write permission for others removed; from later modes too, not listed";
	} else if ((eff & S_IWOTH) == 0)
		why = "set-user-ID and set-group-ID bits removed";
	else
		why = "set-user-ID, set-group-ID and others' write permission removed";
	sup_refused(s, s->op, path, why);
	return mode & ~drop;
}

/* A write to a /proc file, which we refuse (EACCES): we would write it as ourselves. */
void
sup_proc_refused(struct sup *s, const char *path)
{
	monitor_file(s->mon, false, s->op, path, "a /proc file: the write guard writes none");
}

const struct wguard_fs *
sup_fs(struct sup *s)
{
	static struct wguard_fs fs = { NULL, fs_is_git_dir, fs_predates, fs_exists,
		fs_resolve };

	fs.arg = s;
	return &fs;
}

/* Is what we hold in /proc? We cannot write there as the command would. */
bool
sup_in_proc(int fd)
{
	struct statfs sf;

	return fstatfs(fd, &sf) == 0 && sf.f_type == PROC_SUPER_MAGIC;
}

/* The same, by the kernel's name for it (procfs is mounted on /proc alone here). */
bool
sup_path_in_proc(const char *path)
{
	return path_is_under(path, "/proc");
}

/* The command's path argument, and whether the call may go on (its thread is still
 * the one that asked). */
int
sup_path(struct sup *s, uint64_t addr, char *buf)
{
	int e = res_read_string(s->rc.tid, addr, buf, PATH_MAX);

	return e;
}

bool
sup_valid(struct sup *s, uint64_t id)
{
	return ioctl(s->listener, SECCOMP_IOCTL_NOTIF_ID_VALID, &id) == 0;
}

/* --- dispatch --------------------------------------------------------------------------------- */

static int
sup_xattr(struct sup *s, uint64_t id, uint64_t paddr, bool follow, const __u64 *a, bool set,
    bool by_fd)
{
	struct meta_args m;
	int e;

	memset(&m, 0, sizeof(m));
	m.what = set ? M_SETXATTR : M_REMOVEXATTR;
	if (set) {
		/* As the kernel: the name is read (and refused) before the size. */
		if (a[3] > XATTR_VALUE_MAX)
			return (e = res_read_string(
				    s->rc.tid, a[1], m.xname, sizeof(m.xname))) < 0
			    ? (e == -ENAMETOOLONG ? -ERANGE : e)
			    : -E2BIG;
		m.xsize = (size_t)a[3];
		m.xflags = (int)a[4];
		m.xvalue = xmalloc(m.xsize + 1);
		/* The name and the value in one read, as a rule. */
		if ((e = res_read_string_mem(s->rc.tid, a[1], m.xname, sizeof(m.xname), a[2],
			 m.xvalue, m.xsize)) < 0) {
			free(m.xvalue);
			return e == -ENAMETOOLONG ? -ERANGE : e;
		}
	} else if ((e = res_read_string(s->rc.tid, a[1], m.xname, sizeof(m.xname))) < 0)
		return e == -ENAMETOOLONG ? -ERANGE : e;
	m.by_fd = by_fd;
	e = sup_meta(s, id, by_fd ? (int)a[0] : AT_FDCWD, paddr, follow, false, &m);
	free(m.xvalue);
	return e;
}

/* --- direct connections (the monitor) ------------------------------------------------ */

/*
 * The calling thread's descriptor fd, as one of ours (pidfd_getfd(2)), or -errno. The
 * kernel takes it from the table of the task the pidfd names: the thread's own pidfd
 * where the kernel gives one (Linux 6.9), else the process's, the leader's table, which
 * must then be the thread's too (kcmp(2)): a thread with a table of its own
 * (unshare(CLONE_FILES)) would be given another descriptor.
 */
int
sup_getfd(struct sup *s, int fd)
{
	int pidfd, got;

	if (s->task != NULL && s->task->pidfd != -1)
		pidfd = s->task->pidfd;
	else if (s->rc.tid != s->rc.tgid &&
	    syscall(SYS_kcmp, s->rc.tgid, s->rc.tid, KCMP_FILES, 0, 0) != 0)
		return -EBADF;
	else if ((pidfd = (int)syscall(SYS_pidfd_open, s->rc.tgid, 0)) == -1)
		return -ESRCH;
	got = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (got == -1)
		got = -errno;
	if (s->task == NULL || s->task->pidfd != pidfd)
		close(pidfd);
	return got;
}

/* The socket's protocol, by name, for the record: the command's descriptor, taken. */
static const char *
sup_sock_proto(struct sup *s, int sockfd)
{
	int sock, v = 0;
	socklen_t len = sizeof(v);
	const char *name = "ip";

	/* Only now that there is something to report: the thread's process. */
	if (s->task == NULL && (s->task = task_get(s, s->rc.tid)) != NULL)
		s->rc.tgid = s->task->tgid;
	if ((sock = sup_getfd(s, sockfd)) < 0)
		return name;
	if (getsockopt(sock, SOL_SOCKET, SO_PROTOCOL, &v, &len) == 0)
		name = v == IPPROTO_TCP                        ? "tcp"
		    : v == IPPROTO_UDP                         ? "udp"
		    : v == IPPROTO_ICMP || v == IPPROTO_ICMPV6 ? "icmp"
		    : v == IPPROTO_SCTP                        ? "sctp"
							       : "ip";
	close(sock);
	return name;
}

/* One destination the command named: reported when it is not the sandbox's own. */
static void
sup_dest(struct sup *s, const char *op, int sockfd, uint64_t addr, uint64_t alen)
{
	struct sockaddr_storage ss;
	char text[INET6_ADDRSTRLEN];
	unsigned port;

	if (addr == 0 || alen < sizeof(sa_family_t) || alen > sizeof(ss) ||
	    res_read_mem(s->rc.tid, addr, &ss, (size_t)alen) < 0)
		return;
	if (monitor_connect_wanted(s->mon, &ss, (size_t)alen, op, text, &port))
		monitor_connect(s->mon, op, sup_sock_proto(s, sockfd), text, port);
}

/*
 * connect(2) and sendto(2) with an address (filter.c): the network namespace
 * decides (it has nothing but loopback, and a connection elsewhere fails with
 * ENETUNREACH); the monitor only says so. The call then goes on as the command made
 * it (SECCOMP_USER_NOTIF_FLAG_CONTINUE). That flag lets the kernel read the arguments
 * again, after us, so the command could show us one address and use another: harmless
 * here, and only here, because nothing is decided on what we read.
 */
static void
sup_net(struct sup *s, int nr, const __u64 *a)
{
	switch (nr) {
	case SYS_connect:
		sup_dest(s, "connect", (int)a[0], a[1], a[2]);
		break;
	case SYS_sendto:
		sup_dest(s, "sendto", (int)a[0], a[4], a[5]);
		break;
	}
}

/* What a violation calls each call (the dedup key with its path). */
static const char *
sup_op_name(int nr, const __u64 *a)
{
	switch (nr) {
#ifdef SYS_open
	case SYS_open:
	case SYS_creat:
#endif
	case SYS_openat:
		return "open";
#ifdef SYS_mkdir
	case SYS_mkdir:
		return "mkdir";
	case SYS_rmdir:
		return "rmdir";
	case SYS_unlink:
		return "unlink";
	case SYS_mknod:
		return "mknod";
	case SYS_symlink:
		return "symlink";
	case SYS_link:
		return "link";
	case SYS_rename:
		return "rename";
	case SYS_chmod:
		return "chmod";
	case SYS_chown:
	case SYS_lchown:
		return "chown";
#endif
#ifdef SYS_renameat
	case SYS_renameat:
#endif
	case SYS_renameat2:
		return "rename";
	case SYS_mkdirat:
		return "mkdir";
	case SYS_mknodat:
		return "mknod";
	case SYS_unlinkat:
		return (a[2] & AT_REMOVEDIR) ? "rmdir" : "unlink";
	case SYS_symlinkat:
		return "symlink";
	case SYS_linkat:
		return "link";
	case SYS_truncate:
		return "truncate";
	case SYS_fchmodat:
	case SYS_fchmod:
		return "chmod";
	case SYS_fchownat:
	case SYS_fchown:
		return "chown";
	case SYS_setxattr:
	case SYS_lsetxattr:
	case SYS_fsetxattr:
		return "setxattr";
	case SYS_removexattr:
	case SYS_lremovexattr:
	case SYS_fremovexattr:
		return "removexattr";
	case SYS_bind:
		return "bind";
	default:
		return "write";
	}
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
	switch (nr) {
	case SYS_connect:
	case SYS_sendto:
		/* The common case, loopback, needs nothing of the thread but its memory. */
		s->task = NULL;
		s->rc.tgid = s->rc.tid;
		sup_net(s, nr, a);
		sup_answer(s, id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
		return;
	}
	s->task = t = task_get(s, s->rc.tid);
	s->rc.tgid = t != NULL ? t->tgid : s->rc.tid;
	s->op = sup_op_name(nr, a);
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
		e = sup_open(
		    s, id, AT_FDCWD, a[0], O_CREAT | O_WRONLY | O_TRUNC, (mode_t)a[1], &fd);
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
		e = (int64_t)a[1] < 0 ? -EINVAL
				      : sup_meta(s, id, AT_FDCWD, a[0], true, false, &m);
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
	case SYS_fchown:
		m.what = M_CHOWN;
		m.uid = (uid_t)a[1];
		m.gid = (gid_t)a[2];
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
		return; /* a thread answers */
	if (e == 0 && fd != -1) {
		sup_answer_fd(s->listener, id, fd,
		    (nr == SYS_openat ? (int)a[2] :
#ifdef SYS_open
			    nr == SYS_open ? (int)a[1]
					   :
#endif
					   0) &
			O_CLOEXEC,
		    s->resp, s->sizes.seccomp_notif_resp);
		return;
	}
	sup_answer(s, id, 0, e, 0);
}

/* --- the supervisor's life ------------------------------------------------------------------- */

#define GUARD_SEALS (F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW)
#define GUARD_MAX (64 << 20)

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
		log_warnx(
		    "--guard-fd %d: not a sealed memfd: the write guard is incomplete", fd);
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

/*
 * guard_fd -1: no write guard, the monitor alone (viol_fd): the supervisor still does
 * every write-intent call itself, to see what the mounts refuse, under a guard that
 * refuses nothing.
 */
struct sup *
sup_new(int guard_fd, int viol_fd, bool nested_userns, bool read_hold)
{
	struct sup *s = xcalloc(1, sizeof(*s));
	char *buf = NULL, err[256];
	size_t len;

	s->listener = s->ruleset = -1;
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	s->bwatch = -1;
	s->nested_userns = nested_userns;
	s->read_hold = read_hold;
	s->held_fd = -1;
	s->umask = umask(022);
	umask(s->umask);
	s->op = "write";
	if (viol_fd != -1 && (s->mon = monitor_new(viol_fd)) == NULL)
		goto fail;
	if (guard_fd == -1) {
		wguard_init(&s->g);
		s->g.inert = true;
		wguard_index(&s->g);
	} else {
		if (sup_read_guard(guard_fd, &buf, &len) == -1)
			goto fail;
		if (wguard_decode(buf, len, &s->g, err, sizeof(err)) == -1) {
			log_warnx("--guard-fd %d: %s", guard_fd, err);
			goto fail;
		}
		free(buf);
		buf = NULL;
	}
	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &s->sizes) == -1) {
		log_warn("seccomp SECCOMP_GET_NOTIF_SIZES");
		goto fail;
	}
	s->req = xcalloc(1,
	    s->sizes.seccomp_notif > sizeof(*s->req) ? s->sizes.seccomp_notif
						     : sizeof(*s->req));
	s->resp = xcalloc(1,
	    s->sizes.seccomp_notif_resp > sizeof(*s->resp) ? s->sizes.seccomp_notif_resp
							   : sizeof(*s->resp));
	s->sizes.seccomp_notif = s->sizes.seccomp_notif > sizeof(*s->req)
	    ? s->sizes.seccomp_notif
	    : sizeof(*s->req);
	s->sizes.seccomp_notif_resp = s->sizes.seccomp_notif_resp > sizeof(*s->resp)
	    ? s->sizes.seccomp_notif_resp
	    : sizeof(*s->resp);
	s->rc.link_protected = res_link_protected;
	s->rc.arg = s;
	s->rc.check_names = nested_userns;
	s->rc.view_refused = sup_view_refused;
	s->rc.task_fresh = task_fresh;
	s->rc.root = -1;
	s->rc.mounts = res_mounts_new();
	sup_git_missing_targets(s);
	log_debug("write guard: %zu protected paths, %zu roots, %zu read denies", s->g.exact.n,
	    s->g.roots.n, s->g.watch.n);
	return s;
fail:
	free(buf);
	sup_free(s);
	return NULL;
}

/* PID 1, in the command's mount namespace, while it may still mount: the file masks
 * the plan left to us (readlock_place). -1: the run must not start. */
int
sup_place(struct sup *s)
{
	return readlock_place(&s->g.watch);
}

/*
 * Read denies Landlock cannot hold, held here instead (sup_read.c): every open of the
 * command comes to the supervisor from now on, and every deny is judged there, the ones
 * Landlock holds too (the supervisor's own opens do not meet the command's Landlock).
 */
static int
sup_start_reads(struct sup *s, const struct wguard_watch *rest)
{
	size_t i;

	if ((s->rg = rguard_new(&s->g.watch)) == NULL)
		return -1;
	for (i = 0; i < rest->n; i++)
		log_debug("read deny %s: not held by Landlock: every open is supervised, "
			  "for the whole run",
		    rest->v[i].name);
	return 0;
}

/*
 * Read denies neither Landlock nor the supervisor can hold: with nested user
 * namespaces allowed (a nested mount namespace is another tree than the supervisor's),
 * or denyReadHold false (the user's choice, watched as before). The first is said at
 * the start, not only with -d: the deny is weaker there.
 */
static int
sup_start_watch(struct sup *s, const struct wguard_watch *rest)
{
	size_t i;

	for (i = 0; i < rest->n && s->read_hold; i++)
		log_warnx(
		    "read deny %s: not held for the whole run with nested user namespaces "
		    "allowed (allowNestedUserNamespaces): if the host replaces or creates it "
		    "during the run the sandbox ends (125), and a command reading it in a "
		    "loop may read the new file first",
		    rest->v[i].name);
	if ((s->watch = watch_new(rest)) == NULL)
		return -1;
	return 0;
}

/* Does every open of the command come to the supervisor (filter_read_prefix)? */
bool
sup_supervises_reads(const struct sup *s)
{
	return s != NULL && s->rg != NULL;
}

/*
 * PID 1, in the namespaces the command runs in, before it runs: the read denies held by
 * Landlock from here on (readlock.c), the others watched, their mounts as they are here
 * (a nested mount namespace numbers its mounts anew), then the listener. -1: the sandbox
 * cannot be watched, and must not start.
 */
int
sup_start(struct sup *s)
{
	struct wguard_watch rest = { 0 };
	bool *held;
	size_t i;
	int rc = 0;

	if (s->g.watch.n > 0) {
		held = xcalloc(s->g.watch.n, sizeof(*held));
		s->ruleset = readlock_new(&s->g.watch, s->nested_userns, s->read_hold, held);
		rest.v = xcalloc(s->g.watch.n, sizeof(*rest.v));
		for (i = 0; i < s->g.watch.n; i++)
			if (!held[i])
				rest.v[rest.n++] = s->g.watch.v[i];
		if (rest.n > 0 && s->read_hold && !s->nested_userns)
			rc = sup_start_reads(s, &rest);
		else if (rest.n > 0)
			rc = sup_start_watch(s, &rest);
		free(rest.v);
		free(held);
	}
	monitor_watch_reads(s->mon, &s->g.watch);
	return rc;
}

/* The Landlock ruleset the worker restricts itself with, or -1. */
int
sup_ruleset(const struct sup *s)
{
	return s != NULL ? s->ruleset : -1;
}

/* The command has ended: the monitor's last record. */
void
sup_finish(struct sup *s)
{
	if (s == NULL)
		return;
	sup_git_finish(s);
	monitor_finish(s->mon);
}

void
sup_set_listener(struct sup *s, int fd)
{
	uint64_t fl = SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP;

	s->listener = fd;
	/* The root every absolute path starts from, held once (the sandbox's, ours). */
	if (s->rc.root == -1)
		s->rc.root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
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
	/* Held directories moved from outside, let go before a call is received. */
	if (n < max && s->listener != -1 && s->bwatch != -1) {
		p[n].fd = s->bwatch;
		p[n].events = POLLIN;
		p[n].revents = 0;
		n++;
	}
	/* Ended threads next, forgotten before a call is received (task_reap). */
	if (n < max && s->listener != -1 && s->epfd != -1 && s->ntasks > 0) {
		p[n].fd = s->epfd;
		p[n].events = POLLIN;
		p[n].revents = 0;
		n++;
	}
	if (n < max && s->listener != -1) {
		p[n].fd = s->listener;
		p[n].events = POLLIN;
		p[n].revents = 0;
		n++;
	}
	if (n < max)
		n += monitor_pollfd(s->mon, &p[n]);
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
		if (p[i].fd == s->epfd) {
			task_reap(s);
			continue;
		}
		if (p[i].fd == s->bwatch) {
			sup_bases_moved(s);
			continue;
		}
		if (monitor_owns(s->mon, p[i].fd)) {
			monitor_reads(s->mon, true);
			continue;
		}
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
	fd_close(&s->ruleset);
	monitor_free(s->mon);
	for (i = 0; i < s->ntasks; i++)
		fd_close(&s->tasks[i].pidfd);
	fd_close(&s->epfd);
	fd_close(&s->rc.root);
	sup_bases_flush(s);
	sup_files_flush(s);
	watch_free(s->watch);
	rguard_free(s->rg);
	res_mounts_free(s->rc.mounts);
	wguard_free(&s->g);
	strlist_free(&s->vacated);
	strlist_free(&s->gone);
	strlist_free(&s->holders);
	strlist_free(&s->pointers);
	strlist_free(&s->new_configs);
	free(s->made);
	free(s->req);
	free(s->resp);
	free(s);
}
