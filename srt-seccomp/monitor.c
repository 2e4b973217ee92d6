/*
 * The violation monitor (--violations-fd): what the sandbox refused, told to whoever
 * holds the other end of the descriptor, one record per line (lib/core/violation.h).
 *
 * It is PID 1's, and PID 1 must never wait on the command: the descriptor is made
 * non-blocking, and a record that does not fit in the pipe is dropped and counted, never
 * waited for. Each refusal is reported once per kind, call and path (or address), and a
 * run reports at most VIOL_LINES_MAX of them; what is left out is counted and said in
 * one last record (monitor_finish). A record is at most PIPE_BUF bytes, so a write to a
 * pipe is whole or nothing; on a stream that takes part of one, the rest waits for the
 * next record, and new ones are dropped meanwhile. On a pipe, room for the last record
 * is kept: a record that would leave less is dropped (and counted), so that the count
 * of what was left out reaches a reader that is slow, and not only a fast one.
 *
 * Reads: a denied directory is masked by a tmpfs of its own, whose root is reached by
 * nobody but the sandbox. An inotify watch for IN_OPEN on it costs the command nothing
 * and tells when the command lists the directory. A denied file is masked by /dev/null,
 * an inode every process on the host shares: its opens cannot be told apart, and are not
 * reported (srt-seccomp(1), CAVEATS).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "buf.h"
#include "violation.h"
#include "wguard.h"
#include "srt-seccomp.h"

#define SEEN_CAP 2048 /* a power of two, above twice VIOL_LINES_MAX */

struct mdir {
	int wd;
	char *name; /* the denied path, as a reader spells it */
};

struct monitor {
	int fd;
	uint64_t seen[SEEN_CAP]; /* hashes of what was reported; 0 is free */
	unsigned lines;
	uint64_t left_out;
	struct buf pend; /* the rest of a record a stream took part of */
	int ifd;         /* inotify: the denied directories' masks */
	struct mdir *dirs;
	size_t ndirs;
};

struct monitor *
monitor_new(int fd)
{
	struct monitor *m;
	int fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 || (fl & O_ACCMODE) == O_RDONLY) {
		log_warnx("--violations-fd %d: not open for writing", fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1) {
		log_warn("--violations-fd %d: fcntl", fd);
		return NULL;
	}
	m = xcalloc(1, sizeof(*m));
	m->fd = fd;
	m->ifd = -1;
	return m;
}

/* Write what is pending; true when nothing is left. */
static bool
monitor_flush(struct monitor *m)
{
	ssize_t n;

	while (m->pend.len > 0) {
		n = write(m->fd, m->pend.p + m->pend.off, m->pend.len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (n == -1 && errno != EAGAIN)
				buf_reset(&m->pend); /* the reader is gone */
			return m->pend.len == 0;
		}
		buf_consume(&m->pend, (size_t)n);
	}
	return true;
}

/*
 * Would the record leave the pipe no room for the left-out one? Not a pipe: never. A
 * pipe is a ring of pages, and a write of a record that does not fit in the last page's
 * rest starts a new page, so bytes unread say less than pages used; but two pages in a
 * row hold more than one page's worth (the second's first record did not fit in the
 * first), so U bytes take at most 2U/P + 1 pages of P. A record goes while that leaves
 * a page free, and one for the rounding.
 */
static bool
monitor_crowds(const struct monitor *m, size_t len)
{
	long page = sysconf(_SC_PAGESIZE);
	int cap, unread;
	size_t pages;

	if ((cap = fcntl(m->fd, F_GETPIPE_SZ)) <= 0 || ioctl(m->fd, FIONREAD, &unread) == -1 ||
	    unread < 0 || page < VIOL_RECORD_MAX)
		return false;
	pages = (size_t)cap / (size_t)page;
	/* (A pipe of fewer pages than that: no room kept, every record tried.) */
	return pages >= 4 && 2 * ((size_t)unread + len) > (pages - 3) * (size_t)page;
}

static void
monitor_write(struct monitor *m, const struct violation *v)
{
	struct buf b = { 0 };
	ssize_t n;

	if (!monitor_flush(m)) {
		m->left_out++;
		return;
	}
	violation_format(&b, v);
	if (v->kind != VK_LEFT_OUT && monitor_crowds(m, b.len)) {
		m->left_out++;
		buf_free(&b);
		return;
	}
	while ((n = write(m->fd, b.p, b.len)) == -1 && errno == EINTR)
		;
	if (n == -1)
		m->left_out++; /* full (EAGAIN), or nobody reads */
	else if ((size_t)n < b.len)
		buf_add(&m->pend, b.p + n, b.len - (size_t)n);
	buf_free(&b);
}

/* FNV-1a of the parts, with a byte between them; never 0 (a free slot). */
static uint64_t
monitor_hash(enum viol_kind k, const char *op, const char *what, const char *why, unsigned port)
{
	const char *parts[3] = { op, what, why };
	uint64_t h = 0xcbf29ce484222325ULL;
	unsigned char c;
	size_t i;

	h = (h ^ (unsigned char)k) * 0x100000001b3ULL;
	for (i = 0; i < 3; i++) {
		for (const char *p = parts[i]; *p != '\0'; p++) {
			c = (unsigned char)*p;
			h = (h ^ c) * 0x100000001b3ULL;
		}
		h = (h ^ 0xff) * 0x100000001b3ULL;
	}
	h = (h ^ (port & 0xff)) * 0x100000001b3ULL;
	h = (h ^ (port >> 8)) * 0x100000001b3ULL;
	return h != 0 ? h : 1;
}

/*
 * Seen before: true. Otherwise remembered while there is room for another line, and
 * counted as left out once there is not. (Only hashes are kept: two different refusals
 * with one hash, one chance in 2^64 a pair, would make one line.)
 */
static bool
monitor_seen(struct monitor *m, uint64_t h)
{
	size_t i = (size_t)h & (SEEN_CAP - 1);

	while (m->seen[i] != 0) {
		if (m->seen[i] == h)
			return true;
		i = (i + 1) & (SEEN_CAP - 1);
	}
	if (m->lines >= VIOL_LINES_MAX) {
		m->left_out++;
		return true;
	}
	m->seen[i] = h;
	m->lines++;
	return false;
}

/* A record of kind k, now, for op: the rest zero. */
static void
monitor_record(struct violation *v, enum viol_kind k, const char *op)
{
	memset(v, 0, sizeof(*v));
	util_time_now(v->time);
	v->kind = k;
	v->op = op;
}

void
monitor_file(struct monitor *m, bool read, const char *op, const char *path, const char *why)
{
	struct violation v;
	enum viol_kind k = read ? VK_FILE_READ : VK_FILE_WRITE;

	/* Only what has a name: the paths decided on are absolute, or "" without one.
	 * Once per call, path and reason: each git key refused in one config is a line
	 * of its own. */
	if (m == NULL || path == NULL || path[0] != '/' ||
	    monitor_seen(m, monitor_hash(k, op, path, why, 0)))
		return;
	monitor_record(&v, k, op);
	v.path = path;
	v.reason = why;
	monitor_write(m, &v);
}

/* The sandbox's own addresses: its loopback, and the unspecified ones that mean it. */
static bool
monitor_local(const struct sockaddr_storage *ss, char *addr, unsigned *port)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)ss;
	const unsigned char *b;
	uint32_t a4;

	if (ss->ss_family == AF_INET) {
		a4 = ntohl(in->sin_addr.s_addr);
		*port = ntohs(in->sin_port);
		inet_ntop(AF_INET, &in->sin_addr, addr, INET6_ADDRSTRLEN);
		return (a4 >> 24) == 127 || a4 == 0;
	}
	b = in6->sin6_addr.s6_addr;
	*port = ntohs(in6->sin6_port);
	inet_ntop(AF_INET6, &in6->sin6_addr, addr, INET6_ADDRSTRLEN);
	if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr) || IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr))
		return true;
	if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		inet_ntop(AF_INET, b + 12, addr, INET6_ADDRSTRLEN);
		return b[12] == 127 || (b[12] | b[13] | b[14] | b[15]) == 0;
	}
	return false;
}

/* Is this address one to report? Fills addr and port. */
bool
monitor_connect_wanted(
    struct monitor *m, const void *sa, size_t len, const char *op, char *addr, unsigned *port)
{
	struct sockaddr_storage ss;

	if (m == NULL || len < sizeof(sa_family_t) || len > sizeof(ss))
		return false;
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, sa, len);
	if ((ss.ss_family == AF_INET && len < sizeof(struct sockaddr_in)) ||
	    (ss.ss_family == AF_INET6 && len < sizeof(struct sockaddr_in6)) ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6))
		return false;
	if (monitor_local(&ss, addr, port))
		return false;
	return !monitor_seen(m, monitor_hash(VK_CONNECT, op, addr, "", *port));
}

void
monitor_connect(
    struct monitor *m, const char *op, const char *proto, const char *addr, unsigned port)
{
	struct violation v;

	monitor_record(&v, VK_CONNECT, op);
	v.proto = proto;
	v.addr = addr;
	v.port = port;
	monitor_write(m, &v);
}

/* --- reads: the denied directories' masks ----------------------------------------------- */

/*
 * Watch the mask of every denied directory (a tmpfs root; a file's /dev/null is not a
 * directory, and IN_ONLYDIR leaves it out). Called by PID 1 in the command's mount
 * namespace, before the command runs. A mask that cannot be watched is only not
 * reported: the deny itself does not depend on it.
 */
void
monitor_watch_reads(struct monitor *m, const struct wguard_watch *w)
{
	size_t i;
	int wd;

	if (m == NULL)
		return;
	for (i = 0; i < w->n; i++) {
		if (w->v[i].mount == NULL)
			continue;
		if (m->ifd == -1 && (m->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1) {
			log_debug(
			    "inotify_init1: %s: denied reads not reported", strerror(errno));
			return;
		}
		if ((wd = inotify_add_watch(m->ifd, w->v[i].mount, IN_OPEN | IN_ONLYDIR)) ==
		    -1) {
			if (errno != ENOTDIR)
				log_debug(
				    "denied reads of %s not reported: inotify_add_watch: %s",
				    w->v[i].name, strerror(errno));
			continue;
		}
		m->dirs = xreallocarray(m->dirs, m->ndirs + 1, sizeof(*m->dirs));
		m->dirs[m->ndirs].wd = wd;
		m->dirs[m->ndirs].name = xstrdup(w->v[i].name);
		m->ndirs++;
	}
	if (m->ndirs == 0 && m->ifd != -1) {
		close(m->ifd);
		m->ifd = -1;
	}
}

int
monitor_pollfd(struct monitor *m, struct pollfd *p)
{
	if (m == NULL || m->ifd == -1)
		return 0;
	p->fd = m->ifd;
	p->events = POLLIN;
	p->revents = 0;
	return 1;
}

bool
monitor_owns(const struct monitor *m, int fd)
{
	return m != NULL && m->ifd != -1 && fd == m->ifd;
}

/* Read the events waiting: reported, or (report false) dropped, for opens the
 * supervisor made itself. */
void
monitor_reads(struct monitor *m, bool report)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	char why[PATH_MAX + 16];
	ssize_t n;
	size_t i;

	if (m == NULL || m->ifd == -1)
		return;
	while ((n = read(m->ifd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + n; p += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)p;
			if (!report || !(ev->mask & IN_OPEN))
				continue;
			for (i = 0; i < m->ndirs; i++)
				if (m->dirs[i].wd == ev->wd)
					break;
			if (i == m->ndirs)
				continue;
			snprintf(why, sizeof(why), "denyRead %s", m->dirs[i].name);
			monitor_file(m, true, "open", m->dirs[i].name, why);
		}
}

/* The last record: how much was left out, if anything. Waits a little for a stream
 * that holds part of a record (the run is over: nobody else is served any more). */
void
monitor_finish(struct monitor *m)
{
	struct violation v;
	struct pollfd p;
	int tries;

	if (m == NULL)
		return;
	monitor_reads(m, true);
	for (tries = 0; tries < 10 && !monitor_flush(m); tries++) {
		p.fd = m->fd;
		p.events = POLLOUT;
		(void)poll(&p, 1, 10);
	}
	if (m->left_out == 0)
		return;
	monitor_record(&v, VK_LEFT_OUT, NULL);
	v.count = m->left_out;
	m->left_out = 0;
	for (tries = 0; tries < 10; tries++) {
		monitor_write(m, &v);
		if (m->left_out == 0)
			break;
		m->left_out = 0;
		p.fd = m->fd;
		p.events = POLLOUT;
		(void)poll(&p, 1, 10);
	}
	(void)monitor_flush(m);
}

void
monitor_free(struct monitor *m)
{
	size_t i;

	if (m == NULL)
		return;
	for (i = 0; i < m->ndirs; i++)
		free(m->dirs[i].name);
	free(m->dirs);
	if (m->ifd != -1)
		close(m->ifd);
	close(m->fd);
	buf_free(&m->pend);
	free(m);
}
