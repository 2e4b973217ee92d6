/*
 * Idle upstream connections, kept for the next request to the same place (keep-alive on
 * the proxy's own side, as HTTP clients do). A new TCP connection per request costs the
 * proxy a socket, a connect and a close, and the upstream an accept and a close; a
 * client that opens a connection per request (ab without -k, many scripts) pays that
 * twice over through a proxy that does not reuse.
 *
 * What may be reused, and for what:
 *   - an entry is put back only after a complete exchange: the request sent whole, a
 *     final response framed by Content-Length or chunked coding (or with no body), read
 *     to its end and nothing after it, from an upstream that did not ask to close;
 *   - it is found again only under the same key: the canonical host and port of the
 *     request target, whether it carries TLS to that host (a terminated tunnel's,
 *     terminate.c) or plain HTTP, and the very policy (struct proxy_policy) its dial was judged
 *     under. The name is not looked up again: the connection goes to the address that
 *     passed the resolved-address guard when it was dialled. After a SIGHUP reload no
 *     new request matches the old entries; they expire;
 *   - forward.c takes one only for a request it may send twice (GET, HEAD or OPTIONS
 *     without a body): an idle connection can be closed by the upstream just as a request
 *     goes out, and such a request is then retried once on a new connection.
 * While idle, an entry keeps its registration in the event loop (rebound to this module,
 * no system call): anything it reports is either nothing (a read finds no byte) or the
 * end of it (EOF, an error, or bytes nobody asked for), and the entry is closed.
 * Entries live POOL_IDLE_MS at most; past POOL_MAX (fewer under a low descriptor limit,
 * proxy_spare_fds) the least recently used goes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "util.h"

struct pooled {
	struct pooled *prev, *next; /* most recently put first */
	struct evloop *loop;
	struct proxy_policy *pp; /* the policy its dial was judged under (+1) */
	char host[DOM_HOST_MAX + 1];
	uint16_t port;
	int fd;
	struct tls_conn *tls; /* TLS to host (a terminated tunnel's, terminate.c),
	                                   or NULL */
	struct ev_timer timer;
};

static struct pooled *pool_first, *pool_last;
static unsigned pool_n;

static void
pool_unlink(struct pooled *e)
{
	if (e->prev != NULL)
		e->prev->next = e->next;
	else
		pool_first = e->next;
	if (e->next != NULL)
		e->next->prev = e->prev;
	else
		pool_last = e->prev;
	pool_n--;
	evtimer_del(e->loop, &e->timer);
	proxy_policy_put(e->pp);
}

/* Close an idle entry. The socket was never duplicated nor inherited: close(2) takes it
 * out of the epoll set. */
static void
pool_drop(struct pooled *e)
{
	pool_unlink(e);
	evloop_forget(e->loop, e->fd);
	conn_close_fd(e->fd, e->tls);
	free(e);
}

static void
pool_timer_cb(struct evloop *loop, void *arg)
{
	(void)loop;
	pool_drop(arg);
}

/* An idle connection is still usable only while a read would find nothing: bytes nobody
 * asked for, an EOF or an error all end it. */
static bool
pool_quiet(int fd, const struct tls_conn *tls)
{
	char b;

	if (tls != NULL && tls_pending(tls))
		return false;
	return sys_sock_peek(fd, &b, 1) == -1 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR);
}

static void
pool_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct pooled *e = arg;

	(void)loop;
	if ((events & (EV_READ | EV_HUP | EV_RDHUP)) == 0)
		return;
	if (!pool_quiet(fd, e->tls))
		pool_drop(arg); /* else a report left over from the exchange */
}

void
pool_put(struct proxy *px, struct proxy_policy *pp, const char *host, uint16_t port, int fd,
    struct tls_conn *tls)
{
	struct evloop *loop = proxy_loop(px);
	unsigned max = proxy_spare_fds(px);
	struct pooled *e;

	if (max == 0) {
		evloop_forget(loop, fd);
		conn_close_fd(fd, tls);
		return;
	}
	while (pool_n >= max)
		pool_drop(pool_last);
	e = xcalloc(1, sizeof(*e));
	e->loop = loop;
	e->pp = pp;
	pp->refs++;
	snprintf(e->host, sizeof(e->host), "%s", host);
	e->port = port;
	e->tls = tls;
	e->fd = fd;
	if (evloop_rebind(loop, fd, pool_io_cb, e) == -1) {
		/* Not registered: nothing can watch it while idle. */
		proxy_policy_put(pp);
		free(e);
		conn_close_fd(fd, tls);
		return;
	}
	evtimer_init(&e->timer, pool_timer_cb, e);
	evtimer_add(loop, &e->timer, POOL_IDLE_MS);
	e->next = pool_first;
	if (pool_first != NULL)
		pool_first->prev = e;
	else
		pool_last = e;
	pool_first = e;
	pool_n++;
}

int
pool_take(const struct proxy_policy *pp, const char *host, uint16_t port, bool tls, ev_io_cb cb,
    void *arg, struct tls_conn **tlsp)
{
	struct pooled *e, *next;
	int fd;

	for (e = pool_first; e != NULL; e = next) {
		next = e->next;
		if (e->pp != pp || e->port != port || (e->tls != NULL) != tls ||
		    strcmp(e->host, host) != 0)
			continue;
		/* The event loop may not yet have reported what arrived since the entry went
		 * idle (both can be in one batch of events): look before handing it out. */
		if (!pool_quiet(e->fd, e->tls)) {
			pool_drop(e);
			continue;
		}
		fd = e->fd;
		*tlsp = e->tls;
		(void)evloop_rebind(e->loop, fd, cb, arg);
		pool_unlink(e);
		free(e);
		return fd;
	}
	return -1;
}

void
pool_flush(struct proxy *px)
{
	(void)px;
	while (pool_first != NULL)
		pool_drop(pool_first);
}
