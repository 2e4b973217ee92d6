/*
 * httpProxyPort / socksProxyPort: the user runs a proxy of their own on a host loopback
 * port, and the sandbox's 3128 or 1080 lead to it through this plain relay (no parsing,
 * no policy: the user's proxy decides). It runs in a child of the launcher, on the shared
 * event loop and splice relay of libsrt, and exits when its lifeline reaches EOF.
 */
#include <sys/socket.h>
#include <sys/types.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "launch.h"
#include "relay.h"

#define RELAY_MAX_CONNS 4096

struct rl_ctx {
	struct evloop *loop;
	int port;
	unsigned conns;
};

struct rl_pending {
	struct rl_ctx *ctx;
	int client;
	int server;
	int tried_v6;
};

static void rl_dial(struct rl_pending *p);

static void
rl_done(struct relay *r, enum relay_end how, int err, const struct relay_stats *st,
    void *arg)
{
	struct rl_ctx *c = arg;

	(void)r;
	(void)how;
	(void)err;
	(void)st;
	c->conns--;
}

static void
rl_fail(struct rl_pending *p)
{
	close(p->client);
	p->ctx->conns--;
	free(p);
}

static void
rl_connected(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct rl_pending *p = arg;
	struct relay_params rp;
	struct relay *r;
	socklen_t sl = sizeof(int);
	int soerr = 0;

	(void)events;
	evloop_del(loop, fd);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) == -1 || soerr != 0) {
		close(fd);
		/* The user's proxy may listen on ::1 only. */
		if (!p->tried_v6) {
			p->tried_v6 = 1;
			rl_dial(p);
			return;
		}
		rl_fail(p);
		return;
	}
	memset(&rp, 0, sizeof(rp));
	rp.done = rl_done;
	rp.arg = p->ctx;
	if (relay_start(loop, p->client, fd, &rp, &r) == -1)
		p->ctx->conns--;
	free(p);
}

static void
rl_dial(struct rl_pending *p)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	memset(&ss, 0, sizeof(ss));
	if (!p->tried_v6) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)p->ctx->port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)p->ctx->port);
		sin6->sin6_addr = in6addr_loopback;
		sl = sizeof(*sin6);
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1) {
		rl_fail(p);
		return;
	}
	if (connect(fd, (struct sockaddr *)&ss, sl) == -1 && errno != EINPROGRESS) {
		close(fd);
		if (!p->tried_v6) {
			p->tried_v6 = 1;
			rl_dial(p);
			return;
		}
		rl_fail(p);
		return;
	}
	p->server = fd;
	if (evloop_add(p->ctx->loop, fd, EV_WRITE, rl_connected, p) == -1) {
		close(fd);
		rl_fail(p);
	}
}

static void
rl_accept(struct evloop *loop, int lfd, unsigned events, void *arg)
{
	struct rl_ctx *c = arg;
	int fd;

	(void)loop;
	(void)events;
	while ((fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) != -1) {
		struct rl_pending *p;

		if (c->conns >= RELAY_MAX_CONNS) {
			close(fd);
			continue;
		}
		p = xcalloc(1, sizeof(*p));
		p->ctx = c;
		p->client = fd;
		p->server = -1;
		c->conns++;
		rl_dial(p);
	}
}

static void
rl_lifeline(struct evloop *loop, int fd, unsigned events, void *arg)
{
	char b[64];
	ssize_t n;

	(void)events;
	(void)arg;
	n = read(fd, b, sizeof(b));
	if (n == 0 || (n == -1 && errno != EINTR && errno != EAGAIN))
		evloop_break(loop);
}

void
relay_child_main(int fd4, int fd6, int lifeline, int port)
{
	struct rl_ctx c;

	memset(&c, 0, sizeof(c));
	c.port = port;
	if ((c.loop = evloop_new()) == NULL)
		_exit(1);
	(void)fcntl(fd4, F_SETFL, O_NONBLOCK);
	if (fd6 != -1)
		(void)fcntl(fd6, F_SETFL, O_NONBLOCK);
	(void)fcntl(lifeline, F_SETFL, O_NONBLOCK);
	if (evloop_add(c.loop, fd4, EV_READ, rl_accept, &c) == -1 ||
	    (fd6 != -1 && evloop_add(c.loop, fd6, EV_READ, rl_accept, &c) == -1) ||
	    evloop_add(c.loop, lifeline, EV_READ, rl_lifeline, &c) == -1)
		_exit(1);
	(void)evloop_run(c.loop);
	_exit(0);
}
