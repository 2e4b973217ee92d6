/*
 * The dial of an allowed destination (SPEC §4, BEHAVIOR §2.4, issue #12), by its route
 * (upstream.h):
 *
 *   direct: look the name up once (all answers), let the resolved-address guard judge
 *     every address, connect to those that passed in the resolver's order. An IP literal
 *     is connected to as it is.
 *   parent: connect to the parent proxy instead, over TLS for an https:// one (tls.h;
 *     tls_bridge.h turns the session back into a plain socket), and, for a tunnel, ask
 *     it for one with CONNECT. The parent's address is not judged by the guard: the user
 *     named that proxy, which is on the path out by design (often on a private network
 *     or on this host), and the destination beyond it is a name the parent resolves,
 *     which the allow and deny lists have judged already. A parent given by name is
 *     looked up by us, once, like a destination.
 *   mitm: get a socket to the inspection proxy from the connector (proxy_connector.h),
 *     then as for a parent.
 *
 * Everything runs within PROXY_CONNECT_TIMEOUT_MS. A parent that fails or refuses fails
 * the dial: nothing falls back to another route.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "proxy.h"
#include "proxy_connector.h"
#include "resolver.h"
#include "sys.h"
#include "tls_bridge.h"

#define PROXY_DIAL_MAX 64

enum dial_phase {
	DIAL_RESOLVE,  /* looking up the destination or the parent */
	DIAL_CONNECT,  /* TCP connect to one of the addresses */
	DIAL_UNIX,     /* waiting for the connector's socket */
	DIAL_TLS,      /* TLS handshake with an https:// parent */
	DIAL_TUNNEL,   /* CONNECT sent to the parent, reading its reply */
	DIAL_DEST_TLS, /* TLS handshake with the destination (proxy_dial_https) */
};

struct proxy_dial {
	struct proxy *px;
	struct proxy_policy *pp;
	struct proxy_request *rq;
	struct route route;   /* pointers into pp->up, which pp keeps alive */
	bool tunnel;          /* the caller wants a byte stream to the destination */
	bool dest_tls;        /* ... with TLS to it on top (proxy_dial_https) */
	struct tls_conn *dtc; /* that TLS session while its handshake runs */
	proxy_dial_cb cb;
	void *arg;
	enum dial_phase phase;
	struct resolver_query *query;
	struct proxy_connector_req *creq;
	struct tls_conn *tc;
	const char *host; /* what the transport dials: rq->host or the parent */
	uint16_t port;
	struct ip_addr addrs[PROXY_DIAL_MAX];
	size_t naddrs, next;
	int fd;
	int last_err;
	struct buf out; /* the CONNECT request not yet sent */
	struct buf in;  /* the parent's reply so far */
	struct ev_timer timeout;
	struct ev_timer start;
	const char *fail_early;      /* fail at the start, with this reason */
	char via[DOM_HOST_MAX + 64]; /* "parent proxy http://h:p", "inspection proxy
	                                   unix:PATH", or "" for direct */
	char message[GUARD_REASON_MAX + 2 * DOM_HOST_MAX + 128];
	char short_reason[GUARD_REASON_MAX];
};

static void proxy_dial_next(struct proxy_dial *d);
static void proxy_dial_dest_tls_start(struct proxy_dial *d);
static void proxy_dial_transport(struct proxy_dial *d);
static void proxy_dial_io(struct evloop *loop, int fd, unsigned events, void *arg);

static void
proxy_dial_free(struct proxy_dial *d)
{
	evtimer_del(proxy_loop(d->px), &d->timeout);
	evtimer_del(proxy_loop(d->px), &d->start);
	if (d->query != NULL)
		resolver_cancel(d->query);
	proxy_connector_cancel(d->creq);
	tls_conn_free(d->tc);
	tls_conn_free(d->dtc);
	if (d->fd != -1) {
		evloop_forget(proxy_loop(d->px), d->fd);
		sys_sockclose(d->fd);
	}
	buf_free(&d->out);
	buf_free(&d->in);
	proxy_policy_put(d->pp);
	free(d);
}

static void
proxy_dial_finish(struct proxy_dial *d, enum proxy_dial_status st)
{
	struct proxy_dial_result res;

	/* The byte stream is there: for proxy_dial_https, TLS to the destination first. */
	if (st == PROXY_DIAL_OK && d->dest_tls && d->phase != DIAL_DEST_TLS) {
		proxy_dial_dest_tls_start(d);
		return;
	}
	memset(&res, 0, sizeof(res));
	res.status = st;
	res.fd = -1;
	res.route = d->route.kind;
	if (st == PROXY_DIAL_OK) {
		/* The caller registers it again at once (relay, forwarder). */
		evloop_detach(proxy_loop(d->px), d->fd);
		res.fd = d->fd;
		d->fd = -1;
		res.tls = d->dtc;
		d->dtc = NULL;
		/* What the parent sent after its reply belongs to the tunnel. */
		res.early = d->in.len > 0 ? d->in.p + d->in.off : NULL;
		res.early_len = d->in.len;
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
	d->creq = NULL;
	d->cb(d->arg, &res);
	proxy_dial_free(d);
}

/* Fail with "VIA: what" (or just what, direct). */
static void SRT_PRINTF(2, 3) proxy_dial_failf(struct proxy_dial *d, const char *fmt, ...)
{
	char what[sizeof(d->message) - sizeof(d->via) - 2];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	if (d->via[0] != '\0')
		snprintf(d->message, sizeof(d->message), "%s: %s", d->via, what);
	else
		snprintf(d->message, sizeof(d->message), "%s", what);
	proxy_dial_finish(d, PROXY_DIAL_FAILED);
}

static void
proxy_dial_fail(struct proxy_dial *d, int err)
{
	char a[64];

	d->last_err = err;
	if (d->naddrs > 0 && d->next > 0) {
		ip_addr_format(&d->addrs[d->next - 1], a, sizeof(a));
		proxy_dial_failf(d, "connect to %s port %u (%s) failed: %s", d->host, d->port,
		    a, strerror(err));
	} else
		proxy_dial_failf(
		    d, "connect to %s port %u failed: %s", d->host, d->port, strerror(err));
}

/* ---- the tunnel through a parent ------------------------------------------------- */

static void
proxy_dial_tunnel_io(struct proxy_dial *d)
{
	char buf[4096], line[UPSTREAM_LINE_MAX], a[DOM_HOST_MAX + 16];
	size_t hl;
	ssize_t n;

	while (d->out.len > 0) {
		n = sys_sock_send(d->fd, d->out.p + d->out.off, d->out.len);
		if (n > 0) {
			buf_consume(&d->out, (size_t)n);
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		d->last_err = errno;
		proxy_dial_failf(d, "sending CONNECT failed: %s", strerror(errno));
		return;
	}
	upstream_authority(d->rq->host, d->rq->kind, d->rq->port, a, sizeof(a));
	for (;;) {
		n = sys_sock_recv(d->fd, buf, sizeof(buf));
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			d->last_err = n == 0 ? ECONNRESET : errno;
			proxy_dial_failf(d,
			    "the connection ended before the reply to CONNECT %s "
			    "(%s)",
			    a, n == 0 ? "closed" : strerror(errno));
			return;
		}
		buf_add(&d->in, buf, (size_t)n);
		switch (upstream_connect_reply(
		    d->in.p + d->in.off, d->in.len, &hl, line, sizeof(line))) {
		case UPSTREAM_REPLY_MORE:
			continue;
		case UPSTREAM_REPLY_OK:
			buf_consume(&d->in, hl);
			proxy_dial_finish(d, PROXY_DIAL_OK);
			return;
		case UPSTREAM_REPLY_REFUSED:
			proxy_dial_failf(d, "refused CONNECT %s: %s", a, line);
			return;
		case UPSTREAM_REPLY_BAD:
			proxy_dial_failf(d, "sent a malformed reply to CONNECT %s%s%s", a,
			    line[0] ? ": " : "", line);
			return;
		}
	}
}

/* The transport to the parent (or inspection proxy) is up on d->fd: ask for the tunnel,
 * or hand the connection over for absolute-form requests. */
static void
proxy_dial_via_ready(struct proxy_dial *d)
{
	if (!d->tunnel) {
		proxy_dial_finish(d, PROXY_DIAL_OK);
		return;
	}
	d->phase = DIAL_TUNNEL;
	upstream_connect_request(&d->out, d->rq->host, d->rq->kind, d->rq->port,
	    d->route.kind == ROUTE_PARENT ? d->route.parent->auth : NULL);
	proxy_dial_tunnel_io(d);
}

/*
 * The dial goes on over fd, a socket in place of its own (a TLS bridge's end, or the
 * connector's): on the loop, then past the via step. No fd (err), or a loop that refuses
 * it, fails the dial with what and the error.
 */
static void
proxy_dial_resume(struct proxy_dial *d, int fd, int err, const char *what)
{
	if (fd != -1) {
		d->fd = fd;
		if (evloop_add(proxy_loop(d->px), fd, EV_READ | EV_WRITE | EV_EDGE,
			proxy_dial_io, d) == 0) {
			proxy_dial_via_ready(d);
			return;
		}
		err = errno;
	}
	d->last_err = err;
	proxy_dial_failf(d, "%s%s", what, strerror(err));
}

/* ---- TLS to an https:// parent --------------------------------------------------- */

static void
proxy_dial_tls_step(struct proxy_dial *d)
{
	enum tls_io r = tls_handshake(d->tc);
	int fd;

	if (r == TLS_IO_WANT_READ || r == TLS_IO_WANT_WRITE)
		return;
	if (r != TLS_IO_OK) {
		proxy_dial_failf(d, "TLS: %s", tls_conn_error(d->tc));
		return;
	}
	/* From here the session is a plain socket: the bridge owns the TCP one. */
	evloop_detach(proxy_loop(d->px), d->fd);
	fd = tls_bridge_start(proxy_loop(d->px), d->fd, d->tc);
	d->fd = -1;
	d->tc = NULL;
	proxy_dial_resume(d, fd, errno, "TLS bridge: ");
}

static void
proxy_dial_tls_start(struct proxy_dial *d)
{
	const char *why = NULL;
	struct tls_ctx *ctx = proxy_tls_ctx(d->px, &why);
	char err[TLS_ERR_MAX];

	if (ctx == NULL) { /* checked in proxy_dial already */
		proxy_dial_failf(d, "%s", why);
		return;
	}
	d->tc = tls_conn_new(
	    ctx, d->fd, d->route.parent->host, d->route.parent->kind, err, sizeof(err));
	if (d->tc == NULL) {
		proxy_dial_failf(d, "TLS: %s", err);
		return;
	}
	d->phase = DIAL_TLS;
	proxy_dial_tls_step(d);
}

/* ---- TLS to the destination (proxy_dial_https) ------------------------------------ */

static void
proxy_dial_dest_tls_step(struct proxy_dial *d)
{
	enum tls_io r = tls_handshake(d->dtc);

	if (r == TLS_IO_WANT_READ || r == TLS_IO_WANT_WRITE)
		return;
	if (r != TLS_IO_OK) {
		proxy_dial_failf(d, "TLS to %s: %s", d->rq->host, tls_conn_error(d->dtc));
		return;
	}
	/* The session goes to the caller with the socket (proxy_dial_finish). */
	proxy_dial_finish(d, PROXY_DIAL_OK);
}

static void
proxy_dial_dest_tls_start(struct proxy_dial *d)
{
	struct tls_ctx *ctx = proxy_term_tls(d->px);
	char err[TLS_ERR_MAX];

	d->phase = DIAL_DEST_TLS;
	if (ctx == NULL) {
		proxy_dial_failf(
		    d, "TLS to %s: no TLS client (tlsTerminate was not set up)", d->rq->host);
		return;
	}
	/* A server speaks TLS only once asked: bytes before that are not TLS. */
	if (d->in.len > 0) {
		proxy_dial_failf(
		    d, "TLS to %s: the tunnel sent bytes before the handshake", d->rq->host);
		return;
	}
	if (evloop_mod(proxy_loop(d->px), d->fd, EV_READ | EV_WRITE | EV_EDGE) == -1) {
		d->last_err = errno;
		proxy_dial_failf(d, "%s", strerror(errno));
		return;
	}
	if ((d->dtc = tls_conn_new(ctx, d->fd, d->rq->host, d->rq->kind, err, sizeof(err))) ==
	    NULL) {
		proxy_dial_failf(d, "TLS to %s: %s", d->rq->host, err);
		return;
	}
	proxy_dial_dest_tls_step(d);
}

/* ---- I/O --------------------------------------------------------------------------- */

static void
proxy_dial_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy_dial *d = arg;
	int err = 0;

	(void)loop;
	switch (d->phase) {
	case DIAL_TLS:
		proxy_dial_tls_step(d);
		return;
	case DIAL_DEST_TLS:
		proxy_dial_dest_tls_step(d);
		return;
	case DIAL_TUNNEL:
		proxy_dial_tunnel_io(d);
		return;
	case DIAL_CONNECT:
		break;
	case DIAL_RESOLVE:
	case DIAL_UNIX:
		return; /* no socket yet */
	}
	/* Writable without an error or hang-up condition: the connection is up. A failed
	 * connect always raises EPOLLERR, so only then is the error asked for. */
	if ((events & EV_HUP) && sys_sock_error(fd, &err) == -1)
		err = errno;
	if ((events & EV_HUP) && err == 0)
		err = ECONNRESET;
	if (err == 0) {
		proxy_dial_transport(d);
		return;
	}
	d->last_err = err;
	evloop_forget(proxy_loop(d->px), d->fd);
	sys_sockclose(d->fd);
	d->fd = -1;
	proxy_dial_next(d);
}

/* The TCP connection is up: the destination itself, or the parent. */
static void
proxy_dial_transport(struct proxy_dial *d)
{
	if (d->route.kind == ROUTE_DIRECT) {
		proxy_dial_finish(d, PROXY_DIAL_OK);
		return;
	}
	/* The registration becomes level-free edge events on both directions, for the
	 * handshake and the CONNECT exchange. */
	if (evloop_mod(proxy_loop(d->px), d->fd, EV_READ | EV_WRITE | EV_EDGE) == -1) {
		d->last_err = errno;
		proxy_dial_failf(d, "%s", strerror(errno));
		return;
	}
	if (d->route.parent->tls)
		proxy_dial_tls_start(d);
	else
		proxy_dial_via_ready(d);
}

/* Connect to the next candidate address; on the last failure report it. */
static void
proxy_dial_next(struct proxy_dial *d)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const struct ip_addr *a;

	d->phase = DIAL_CONNECT;
	while (d->next < d->naddrs) {
		a = &d->addrs[d->next++];
		memset(&ss, 0, sizeof(ss));
		if (a->family == 4) {
			struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

			sin->sin_family = AF_INET;
			sin->sin_port = htons(d->port);
			memcpy(&sin->sin_addr, a->bytes, 4);
			sl = sizeof(*sin);
		} else {
			struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

			sin6->sin6_family = AF_INET6;
			sin6->sin6_port = htons(d->port);
			memcpy(&sin6->sin6_addr, a->bytes, 16);
			sl = sizeof(*sin6);
		}
		d->fd = sys_socket(ss.ss_family);
		if (d->fd == -1) {
			d->last_err = errno;
			continue;
		}
		/* A proxy forwards what it has at once; Nagle would hold back the tail of a
		 * request or a TLS record until the previous segment is acknowledged. */
		(void)sys_setsockopt_int(d->fd, IPPROTO_TCP, TCP_NODELAY, 1);
		if (sys_connect(d->fd, (struct sockaddr *)&ss, sl) == 0) {
			if (evloop_add(proxy_loop(d->px), d->fd, EV_WRITE, proxy_dial_io, d) ==
			    0) {
				/* Report from the loop like every other outcome. */
				return;
			}
		} else if (errno == EINPROGRESS) {
			if (evloop_add(proxy_loop(d->px), d->fd, EV_WRITE, proxy_dial_io, d) ==
			    0)
				return;
		}
		d->last_err = errno;
		sys_sockclose(d->fd);
		d->fd = -1;
	}
	proxy_dial_fail(d, d->last_err ? d->last_err : EHOSTUNREACH);
}

static void
proxy_dial_timeout_cb(struct evloop *loop, void *arg)
{
	struct proxy_dial *d = arg;

	(void)loop;
	d->last_err = ETIMEDOUT;
	if (d->phase == DIAL_TLS)
		proxy_dial_failf(d, "TLS handshake timed out");
	else if (d->phase == DIAL_DEST_TLS)
		proxy_dial_failf(d, "TLS handshake with %s timed out", d->rq->host);
	else if (d->phase == DIAL_UNIX)
		proxy_dial_failf(d, "no connection from the connector in time");
	else if (d->phase == DIAL_TUNNEL)
		proxy_dial_failf(d, "no reply to CONNECT in time");
	else
		proxy_dial_failf(d, "connect to %s port %u timed out", d->host, d->port);
}

/* ---- the start: a lookup, a literal, or the connector ---------------------------- */

static void
proxy_dial_unix_cb(void *arg, int fd, int err)
{
	struct proxy_dial *d = arg;

	d->creq = NULL;
	proxy_dial_resume(d, fd, err, fd == -1 ? "connect failed: " : "");
}

static void
proxy_dial_start_cb(struct evloop *loop, void *arg)
{
	struct proxy_dial *d = arg;
	const char *why = NULL;
	struct proxy_connector *pc;

	(void)loop;
	if (d->fail_early != NULL) {
		proxy_dial_failf(d, "%s", d->fail_early);
		return;
	}
	if (d->route.kind != ROUTE_MITM) {
		proxy_dial_next(d);
		return;
	}
	d->phase = DIAL_UNIX;
	if ((pc = proxy_mitm_connector(d->px, d->route.mitm_socket, &why)) == NULL) {
		proxy_dial_failf(d, "%s", why);
		return;
	}
	if ((d->creq = proxy_connector_ask(pc, proxy_dial_unix_cb, d)) == NULL) {
		d->last_err = errno;
		proxy_dial_failf(d, "the connector is gone: %s", strerror(errno));
	}
}

static void
proxy_dial_resolved(void *arg, int status, const struct ip_addr *addrs, size_t naddrs)
{
	struct proxy_dial *d = arg;
	struct guard_result gr;
	size_t pass[PROXY_DIAL_MAX], i;

	d->query = NULL;
	if (status != 0) {
		d->last_err = 0;
		proxy_dial_failf(
		    d, "lookup of %s failed: %s", d->host, resolver_strerror(status));
		return;
	}
	/* The resolver gives at most RESOLVER_MAX_ANSWERS (= PROXY_DIAL_MAX) addresses. */
	if (naddrs > PROXY_DIAL_MAX)
		naddrs = PROXY_DIAL_MAX;
	if (d->route.kind == ROUTE_PARENT) {
		/* The parent's own addresses: no guard (see the top of this file). */
		for (i = 0; i < naddrs; i++)
			d->addrs[d->naddrs++] = addrs[i];
		proxy_dial_next(d);
		return;
	}
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
    const struct route *route, bool tunnel, proxy_dial_cb cb, void *arg)
{
	struct proxy_dial *d;
	enum host_kind kind;
	const char *why = NULL;

	d = xcalloc(1, sizeof(*d));
	d->px = px;
	d->pp = pp;
	pp->refs++;
	d->rq = rq;
	d->route = *route;
	d->tunnel = tunnel;
	d->cb = cb;
	d->arg = arg;
	d->fd = -1;
	d->phase = DIAL_RESOLVE;
	free(rq->route);
	rq->route = route_describe(route);
	evtimer_init(&d->timeout, proxy_dial_timeout_cb, d);
	evtimer_init(&d->start, proxy_dial_start_cb, d);
	evtimer_add(proxy_loop(px), &d->timeout, PROXY_CONNECT_TIMEOUT_MS);
	switch (route->kind) {
	case ROUTE_DIRECT:
		d->host = rq->host;
		d->port = rq->port;
		kind = rq->kind;
		break;
	case ROUTE_PARENT:
		snprintf(d->via, sizeof(d->via), "parent proxy %s", route->parent->display);
		d->host = route->parent->host;
		d->port = route->parent->port;
		kind = route->parent->kind;
		/* No TLS client (not set up at start, or it failed): say so before dialling. */
		if (route->parent->tls && proxy_tls_ctx(px, &why) == NULL) {
			d->fail_early = why;
			evtimer_add(proxy_loop(px), &d->start, 0);
			return d;
		}
		break;
	case ROUTE_MITM:
	default:
		snprintf(
		    d->via, sizeof(d->via), "inspection proxy unix:%s", route->mitm_socket);
		log_debug(
		    "%s: %s port %u through the %s", rq->client, rq->host, rq->port, d->via);
		d->host = route->mitm_socket;
		kind = HOST_MALFORMED;
		evtimer_add(proxy_loop(px), &d->start, 0);
		return d;
	}
	if (route->kind == ROUTE_PARENT)
		log_debug(
		    "%s: %s port %u through the %s", rq->client, rq->host, rq->port, d->via);
	if (kind == HOST_IPV4 || kind == HOST_IPV6) {
		/* A literal is dialled as it is: for a destination, the name decision was the
		 * whole check. */
		if (ip_addr_parse(d->host, &d->addrs[0]) == 0)
			d->naddrs = 1;
		evtimer_add(proxy_loop(px), &d->start, 0);
		return d;
	}
	d->query = resolver_lookup(proxy_resolver(px), d->host, proxy_dial_resolved, d);
	return d;
}

struct proxy_dial *
proxy_dial_https(struct proxy *px, struct proxy_policy *pp, struct proxy_request *rq,
    const struct route *route, proxy_dial_cb cb, void *arg)
{
	struct proxy_dial *d = proxy_dial(px, pp, rq, route, true, cb, arg);

	/* Nothing has run yet: the callback comes from the loop. */
	d->dest_tls = true;
	return d;
}

void
proxy_dial_cancel(struct proxy_dial *d)
{
	if (d != NULL)
		proxy_dial_free(d);
}
