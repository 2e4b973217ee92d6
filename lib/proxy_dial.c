/*
 * The guarded dial (SPEC §4, BEHAVIOR §2.4): after proxy_decide allowed a name, look it up
 * once (all answers), let the resolved-address guard judge every address, and connect to
 * the addresses that passed in the resolver's order, within PROXY_CONNECT_TIMEOUT_MS in
 * all. An IP literal is connected to as it is.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guard.h"
#include "proxy.h"
#include "resolver.h"

#define PROXY_DIAL_MAX 64

struct proxy_dial {
	struct proxy *px;
	struct proxy_policy *pp;
	struct proxy_request *rq;
	proxy_dial_cb cb;
	void *arg;
	struct resolver_query *query;
	struct ip_addr addrs[PROXY_DIAL_MAX];
	size_t naddrs, next;
	int fd;
	int last_err;
	struct ev_timer timeout;
	struct ev_timer start;
	char message[GUARD_REASON_MAX + DOM_HOST_MAX + 64];
	char short_reason[GUARD_REASON_MAX];
};

static void proxy_dial_next(struct proxy_dial *d);

static void
proxy_dial_free(struct proxy_dial *d)
{
	evtimer_del(proxy_loop(d->px), &d->timeout);
	evtimer_del(proxy_loop(d->px), &d->start);
	if (d->query != NULL)
		resolver_cancel(d->query);
	if (d->fd != -1) {
		evloop_forget(proxy_loop(d->px), d->fd);
		close(d->fd);
	}
	proxy_policy_put(d->pp);
	free(d);
}

static void
proxy_dial_finish(struct proxy_dial *d, enum proxy_dial_status st)
{
	struct proxy_dial_result res;

	memset(&res, 0, sizeof(res));
	res.status = st;
	res.fd = -1;
	if (st == PROXY_DIAL_OK) {
		/* The caller registers it again at once (relay, forwarder). */
		evloop_detach(proxy_loop(d->px), d->fd);
		res.fd = d->fd;
		d->fd = -1;
	} else {
		res.err = d->last_err;
		res.message = d->message;
		res.short_reason = d->short_reason[0] ? d->short_reason : d->message;
		if (st == PROXY_DIAL_BLOCKED)
			d->rq->verdict = VERDICT_DENY;
		else
			d->rq->verdict = VERDICT_ERROR;
		proxy_request_set_reason(d->rq, d->message, strlen(d->message));
	}
	d->query = NULL;
	d->cb(d->arg, &res);
	proxy_dial_free(d);
}

static void
proxy_dial_fail(struct proxy_dial *d, int err)
{
	char a[64];

	d->last_err = err;
	if (d->naddrs > 0 && d->next > 0) {
		ip_addr_format(&d->addrs[d->next - 1], a, sizeof(a));
		snprintf(d->message, sizeof(d->message), "connect to %s port %u (%s) failed: %s",
		    d->rq->host, d->rq->port, a, strerror(err));
	} else
		snprintf(d->message, sizeof(d->message), "connect to %s port %u failed: %s",
		    d->rq->host, d->rq->port, strerror(err));
	proxy_dial_finish(d, PROXY_DIAL_FAILED);
}

static void
proxy_dial_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy_dial *d = arg;
	int err = 0;
	socklen_t el = sizeof(err);

	(void)loop;
	/* Writable without an error or hang-up condition: the connection is up. A failed
	 * connect always raises EPOLLERR, so only then is the error asked for. */
	if ((events & EV_HUP) && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == -1)
		err = errno;
	if ((events & EV_HUP) && err == 0)
		err = ECONNRESET;
	if (err == 0) {
		proxy_dial_finish(d, PROXY_DIAL_OK);
		return;
	}
	d->last_err = err;
	evloop_forget(proxy_loop(d->px), d->fd);
	close(d->fd);
	d->fd = -1;
	proxy_dial_next(d);
}

/* Connect to the next candidate address; on the last failure report it. */
static void
proxy_dial_next(struct proxy_dial *d)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const struct ip_addr *a;
	int one = 1;

	while (d->next < d->naddrs) {
		a = &d->addrs[d->next++];
		memset(&ss, 0, sizeof(ss));
		if (a->family == 4) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

			sin->sin_family = AF_INET;
			sin->sin_port = htons(d->rq->port);
			memcpy(&sin->sin_addr, a->bytes, 4);
			sl = sizeof(*sin);
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(d->rq->port);
			memcpy(&sin6->sin6_addr, a->bytes, 16);
			sl = sizeof(*sin6);
		}
		d->fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (d->fd == -1) {
			d->last_err = errno;
			continue;
		}
		/* A proxy forwards what it has at once; Nagle would hold back the tail of a
		 * request or a TLS record until the previous segment is acknowledged. */
		(void)setsockopt(d->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		if (connect(d->fd, (struct sockaddr *)&ss, sl) == 0) {
			if (evloop_add(proxy_loop(d->px), d->fd, EV_WRITE, proxy_dial_io, d) == 0) {
				/* Report from the loop like every other outcome. */
				return;
			}
		} else if (errno == EINPROGRESS) {
			if (evloop_add(proxy_loop(d->px), d->fd, EV_WRITE, proxy_dial_io, d) == 0)
				return;
		}
		d->last_err = errno;
		close(d->fd);
		d->fd = -1;
	}
	proxy_dial_fail(d, d->last_err ? d->last_err : EHOSTUNREACH);
}

static void
proxy_dial_timeout_cb(struct evloop *loop, void *arg)
{
	struct proxy_dial *d = arg;

	(void)loop;
	snprintf(d->message, sizeof(d->message), "connect to %s port %u timed out",
	    d->rq->host, d->rq->port);
	d->last_err = ETIMEDOUT;
	proxy_dial_finish(d, PROXY_DIAL_FAILED);
}

static void
proxy_dial_start_cb(struct evloop *loop, void *arg)
{
	(void)loop;
	proxy_dial_next(arg);
}

static void
proxy_dial_resolved(void *arg, int status, const struct ip_addr *addrs, size_t naddrs)
{
	struct proxy_dial *d = arg;
	struct guard_result gr;
	size_t pass[PROXY_DIAL_MAX], i;

	d->query = NULL;
	if (status != 0) {
		snprintf(d->message, sizeof(d->message), "lookup of %s failed: %s", d->rq->host,
		    resolver_strerror(status));
		d->last_err = 0;
		proxy_dial_finish(d, PROXY_DIAL_FAILED);
		return;
	}
	/* The resolver gives at most RESOLVER_MAX_ANSWERS (= PROXY_DIAL_MAX) addresses. */
	if (naddrs > PROXY_DIAL_MAX)
		naddrs = PROXY_DIAL_MAX;
	guard_check(d->pp->pol, d->rq->host, d->rq->port, addrs, naddrs,
	    proxy_local_addrs(d->px), pass, &gr);
	if (gr.index == -1) {
		if (!proxy_options(d->px)->audit) {
			snprintf(d->message, sizeof(d->message), "%s", gr.message);
			snprintf(d->short_reason, sizeof(d->short_reason), "%s", gr.reason);
			proxy_dial_finish(d, PROXY_DIAL_BLOCKED);
			return;
		}
		/* Learning mode: record what the guard would have refused, dial anyway. */
		d->rq->verdict = VERDICT_AUDIT_DENY;
		d->rq->would_deny = true;
		proxy_request_set_reason(d->rq, gr.message, strlen(gr.message));
		for (i = 0; i < naddrs; i++)
			d->addrs[d->naddrs++] = addrs[i];
	} else {
		/* Only the addresses that passed, in the resolver's order. */
		for (i = 0; i < gr.npass; i++)
			d->addrs[d->naddrs++] = addrs[pass[i]];
	}
	proxy_dial_next(d);
}

struct proxy_dial *
proxy_dial(struct proxy *px, struct proxy_policy *pp, struct proxy_request *rq,
    proxy_dial_cb cb, void *arg)
{
	struct proxy_dial *d;

	d = xcalloc(1, sizeof(*d));
	d->px = px;
	d->pp = pp;
	pp->refs++;
	d->rq = rq;
	d->cb = cb;
	d->arg = arg;
	d->fd = -1;
	evtimer_init(&d->timeout, proxy_dial_timeout_cb, d);
	evtimer_init(&d->start, proxy_dial_start_cb, d);
	evtimer_add(proxy_loop(px), &d->timeout, PROXY_CONNECT_TIMEOUT_MS);
	if (rq->kind == HOST_IPV4 || rq->kind == HOST_IPV6) {
		/* A literal is dialled as it is: the name decision was the whole check. */
		if (ip_addr_parse(rq->host, &d->addrs[0]) == 0)
			d->naddrs = 1;
		evtimer_add(proxy_loop(px), &d->start, 0);
		return d;
	}
	d->query = resolver_lookup(proxy_resolver(px), rq->host, proxy_dial_resolved, d);
	return d;
}

void
proxy_dial_cancel(struct proxy_dial *d)
{
	if (d != NULL)
		proxy_dial_free(d);
}
