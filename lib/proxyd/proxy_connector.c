/* The connector of a proxy with mitmProxy (proxy_connector.h). */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "log.h"
#include "proxy_connector.h"
#include "proxy_sandbox.h"
#include "util.h"

struct proxy_connector_req {
	struct proxy_connector_req *next;
	proxy_connector_cb cb; /* NULL: cancelled */
	void *arg;
};

struct proxy_connector {
	struct evloop *loop;
	int sock; /* -1 once the child is gone */
	char *path;
	struct proxy_connector_req *first, *last; /* waiting for their answer */
};

/* ---- the child ------------------------------------------------------------------- */

static int
connector_child_filter(void)
{
	/* Beside a helper child's own (proxy_sandbox_child_filter): a connection's. */
	static const char *const connect_allow[] = { "recvfrom", "connect", "setsockopt" };
	scmp_filter_ctx ctx;
	int rc = -1;

	if ((ctx = proxy_sandbox_child_filter(
		 connect_allow, sizeof(connect_allow) / sizeof(connect_allow[0]))) == NULL)
		return -1;
	/* Unix sockets only: the child reaches the network in no other way. */
	if (seccomp_rule_add(
		ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_UNIX)) < 0 ||
	    seccomp_load(ctx) < 0)
		goto out;
	rc = 0;
out:
	seccomp_release(ctx);
	return rc;
}

/* One byte in, a connected socket (or errno) out, until the proxy closes its end. */
static noreturn void
connector_child(int sock, const char *path)
{
	struct sockaddr_un sun;
	struct timeval tv = { PROXY_CONNECTOR_TIMEOUT_S, 0 };
	int fd, err;
	char c;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) < sizeof(sun.sun_path))
		memcpy(sun.sun_path, path, strlen(path));
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 || connector_child_filter() == -1)
		_exit(1);
	while (read(sock, &c, 1) == 1) {
		fd = -1;
		err = 0;
		if (sun.sun_path[0] == '\0')
			err = ENAMETOOLONG;
		else if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
			err = errno;
		else {
			/* A full backlog makes connect wait; the send timeout bounds it. */
			(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
			if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
				err = errno == EAGAIN ? ETIMEDOUT : errno;
				close(fd);
				fd = -1;
			}
		}
		if (fdpass_send(sock, &err, sizeof(err), &fd, fd == -1 ? 0 : 1) == -1)
			_exit(1);
		if (fd != -1)
			close(fd);
	}
	_exit(0);
}

/* ---- the proxy's side ------------------------------------------------------------ */

static void
connector_fail_all(struct proxy_connector *pc, int err)
{
	struct proxy_connector_req *r;

	while ((r = pc->first) != NULL) {
		pc->first = r->next;
		if (r->cb != NULL)
			r->cb(r->arg, -1, err);
		free(r);
	}
	pc->last = NULL;
}

static void
connector_gone(struct proxy_connector *pc)
{
	log_warnx("the connector to %s ended", pc->path);
	evloop_del(pc->loop, pc->sock);
	close(pc->sock);
	pc->sock = -1;
	connector_fail_all(pc, EIO);
}

static void
connector_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy_connector *pc = arg;
	struct proxy_connector_req *r;
	size_t got, nfds;
	int err, cfd;

	(void)loop;
	(void)events;
	for (;;) {
		nfds = 0;
		cfd = -1;
		if (fdpass_recv(fd, &err, sizeof(err), &got, &cfd, 1, &nfds) == -1) {
			if (errno == EAGAIN || errno == EINTR)
				return;
			connector_gone(pc);
			return;
		}
		if (got != sizeof(err) || (err == 0) != (nfds == 1) || pc->first == NULL) {
			/* A malformed message between processes is fatal to the link. */
			if (nfds == 1)
				close(cfd);
			connector_gone(pc);
			return;
		}
		r = pc->first;
		if ((pc->first = r->next) == NULL)
			pc->last = NULL;
		if (cfd != -1 && fcntl(cfd, F_SETFL, O_NONBLOCK) == -1) {
			err = errno;
			close(cfd);
			cfd = -1;
		}
		if (r->cb != NULL)
			r->cb(r->arg, cfd, err);
		else if (cfd != -1)
			close(cfd);
		free(r);
		if (pc->sock == -1)
			return;
	}
}

struct proxy_connector *
proxy_connector_start(struct evloop *loop, const char *path)
{
	struct proxy_connector *pc;
	int sp[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("connector: socketpair");
		return NULL;
	}
	if ((pid = proxy_sandbox_fork(sp, "connector")) == -1)
		return NULL;
	if (pid == 0)
		connector_child(3, path);
	pc = xcalloc(1, sizeof(*pc));
	pc->loop = loop;
	pc->sock = sp[0];
	pc->path = xstrdup(path);
	if (fcntl(pc->sock, F_SETFL, O_NONBLOCK) == -1 ||
	    evloop_add(loop, pc->sock, EV_READ, connector_io, pc) == -1) {
		log_warn("connector");
		proxy_connector_free(pc); /* (not in the loop: evloop_del passes it by) */
		return NULL;
	}
	return pc;
}

void
proxy_connector_free(struct proxy_connector *pc)
{
	struct proxy_connector_req *r;

	if (pc == NULL)
		return;
	/* The child sees EOF and exits; it is not waited for (wait4 is not in the proxy's
	 * filter, and the proxy is ending). */
	if (pc->sock != -1) {
		evloop_del(pc->loop, pc->sock);
		close(pc->sock);
	}
	while ((r = pc->first) != NULL) {
		pc->first = r->next;
		free(r);
	}
	free(pc->path);
	free(pc);
}

const char *
proxy_connector_path(const struct proxy_connector *pc)
{
	return pc->path;
}

struct proxy_connector_req *
proxy_connector_ask(struct proxy_connector *pc, proxy_connector_cb cb, void *arg)
{
	struct proxy_connector_req *r;
	ssize_t n;

	if (pc->sock == -1) {
		errno = EIO;
		return NULL;
	}
	do
		n = send(pc->sock, "c", 1, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n != 1)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->cb = cb;
	r->arg = arg;
	if (pc->last != NULL)
		pc->last->next = r;
	else
		pc->first = r;
	pc->last = r;
	return r;
}

void
proxy_connector_cancel(struct proxy_connector_req *r)
{
	if (r != NULL)
		r->cb = NULL;
}
