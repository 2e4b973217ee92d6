/*
 * c-ares on the event loop. c-ares tells us which sockets it wants watched through the
 * socket-state callback; we register them with the loop and hand readiness back with
 * ares_process_fd(). Its retransmission timeouts run on one loop timer, re-armed after
 * every call into c-ares.
 */
#include <arpa/inet.h>
#include <ares.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hosts.h"
#include "resolver.h"
#include "util.h"

#define RESOLVER_MAX_ANSWERS 64

struct resolver {
	struct evloop *loop;
	ares_channel channel;
	struct ev_timer timer;
	struct hosts hosts;     /* read once, in resolver_new */
	int freeing;
};

struct resolver_query {
	struct resolver *r;
	resolver_cb cb;
	void *arg;
	int cancelled;
	int in_call;            /* inside ares_getaddrinfo(): defer the answer */
	int status;             /* a deferred answer: */
	struct ip_addr addrs[RESOLVER_MAX_ANSWERS];
	size_t naddrs;
	struct ev_timer defer;
};

static int resolver_lib_ready;

static void
resolver_rearm(struct resolver *r)
{
	struct timeval tv, *tvp;

	if (r->freeing)
		return;
	tvp = ares_timeout(r->channel, NULL, &tv);
	if (tvp == NULL) {
		evtimer_del(r->loop, &r->timer);
		return;
	}
	evtimer_add(r->loop, &r->timer, (uint64_t)tvp->tv_sec * 1000 +
	    (uint64_t)tvp->tv_usec / 1000 + 1);
}

static void
resolver_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct resolver *r = arg;

	(void)loop;
	ares_process_fd(r->channel,
	    (events & (EV_READ | EV_HUP)) ? fd : ARES_SOCKET_BAD,
	    (events & EV_WRITE) ? fd : ARES_SOCKET_BAD);
	resolver_rearm(r);
}

static void
resolver_timer_cb(struct evloop *loop, void *arg)
{
	struct resolver *r = arg;

	(void)loop;
	ares_process_fd(r->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	resolver_rearm(r);
}

static void
resolver_sock_state_cb(void *data, ares_socket_t fd, int readable, int writable)
{
	struct resolver *r = data;
	unsigned ev = (readable ? EV_READ : 0) | (writable ? EV_WRITE : 0);

	if (ev == 0) {
		evloop_del(r->loop, fd);
		return;
	}
	if (evloop_mod(r->loop, fd, ev) == -1 &&
	    evloop_add(r->loop, fd, ev, resolver_io_cb, r) == -1)
		log_warn("resolver: cannot watch fd %d", fd);
}

struct resolver *
resolver_new(struct evloop *loop, char *err, size_t errlen)
{
	struct ares_options o;
	struct resolver *r;
	int st;

	if (!resolver_lib_ready) {
		if ((st = ares_library_init(ARES_LIB_INIT_ALL)) != ARES_SUCCESS) {
			snprintf(err, errlen, "c-ares: %s", ares_strerror(st));
			return NULL;
		}
		resolver_lib_ready = 1;
	}
	r = xcalloc(1, sizeof(*r));
	r->loop = loop;
	evtimer_init(&r->timer, resolver_timer_cb, r);
	/* The hosts file now: the narrowed process cannot open it later (hosts.h). */
	if (hosts_read(&r->hosts, HOSTS_PATH) == -1) {
		snprintf(err, errlen, "%s: %s", HOSTS_PATH, strerror(errno));
		free(r);
		return NULL;
	}
	memset(&o, 0, sizeof(o));
	o.sock_state_cb = resolver_sock_state_cb;
	o.sock_state_cb_data = r;
	/* c-ares asks DNS only; the names of the hosts file are answered before it. */
	o.lookups = (char *)(uintptr_t)"b";
	st = ares_init_options(&r->channel, &o, ARES_OPT_SOCK_STATE_CB | ARES_OPT_LOOKUPS);
	if (st != ARES_SUCCESS) {
		snprintf(err, errlen, "c-ares: %s", ares_strerror(st));
		hosts_free(&r->hosts);
		free(r);
		return NULL;
	}
	return r;
}

void
resolver_free(struct resolver *r)
{
	if (r == NULL)
		return;
	/* Pending callbacks run with ARES_EDESTRUCTION and free their queries silently. */
	r->freeing = 1;
	evtimer_del(r->loop, &r->timer);
	ares_destroy(r->channel);
	hosts_free(&r->hosts);
	free(r);
}

static void
resolver_addrinfo_cb(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct resolver_query *q = arg;
	struct ip_addr addrs[RESOLVER_MAX_ANSWERS];
	struct ares_addrinfo_node *n;
	size_t na = 0, i;

	(void)timeouts;
	if (status == ARES_SUCCESS && res != NULL) {
		for (n = res->nodes; n != NULL && na < RESOLVER_MAX_ANSWERS; n = n->ai_next) {
			struct ip_addr a;

			memset(&a, 0, sizeof(a));
			if (n->ai_family == AF_INET && n->ai_addrlen >= sizeof(struct sockaddr_in)) {
				a.family = 4;
				memcpy(a.bytes, &((struct sockaddr_in *)(void *)n->ai_addr)->sin_addr, 4);
			} else if (n->ai_family == AF_INET6 &&
			    n->ai_addrlen >= sizeof(struct sockaddr_in6)) {
				a.family = 6;
				memcpy(a.bytes,
				    &((struct sockaddr_in6 *)(void *)n->ai_addr)->sin6_addr, 16);
			} else
				continue;
			/* Drop duplicates (an answer may list an address twice). */
			for (i = 0; i < na; i++)
				if (ip_addr_equal(&addrs[i], &a))
					break;
			if (i == na)
				addrs[na++] = a;
		}
		if (na == 0)
			status = ARES_ENODATA;
	}
	if (res != NULL)
		ares_freeaddrinfo(res);
	if (q->in_call && status != ARES_EDESTRUCTION) {
		/* Failed synchronously: deliver from the loop. */
		q->status = status == ARES_SUCCESS ? 0 : status;
		memcpy(q->addrs, addrs, na * sizeof(addrs[0]));
		q->naddrs = na;
		evtimer_add(q->r->loop, &q->defer, 0);
		return;
	}
	if (!q->cancelled && status != ARES_EDESTRUCTION)
		q->cb(q->arg, status == ARES_SUCCESS ? 0 : status, addrs, na);
	free(q);
}

static void
resolver_defer_cb(struct evloop *loop, void *arg)
{
	struct resolver_query *q = arg;

	(void)loop;
	if (!q->cancelled)
		q->cb(q->arg, q->status, q->addrs, q->naddrs);
	free(q);
}

/* The hosts file's answer for name, duplicates dropped as from c-ares. */
static size_t
resolver_hosts(struct resolver *r, const char *name, struct ip_addr *out)
{
	struct ip_addr all[RESOLVER_MAX_ANSWERS];
	size_t n = hosts_lookup(&r->hosts, name, all, RESOLVER_MAX_ANSWERS), k = 0, i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < k; j++)
			if (ip_addr_equal(&out[j], &all[i]))
				break;
		if (j == k)
			out[k++] = all[i];
	}
	return k;
}

struct resolver_query *
resolver_lookup(struct resolver *r, const char *name, resolver_cb cb, void *arg)
{
	struct ares_addrinfo_hints hints;
	struct resolver_query *q;

	q = xcalloc(1, sizeof(*q));
	q->r = r;
	q->cb = cb;
	q->arg = arg;
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	/* Keep the resolver's order (as the reference's lookup does) and skip the RFC 6724
	 * sort, which would probe routes with extra sockets. */
	hints.ai_flags = ARES_AI_NOSORT;
	hints.ai_socktype = SOCK_STREAM;
	evtimer_init(&q->defer, resolver_defer_cb, q);
	/* Files first, then DNS: a name of the hosts file is answered from it, from the loop
	 * like every answer. */
	if ((q->naddrs = resolver_hosts(r, name, q->addrs)) > 0) {
		q->status = 0;
		evtimer_add(r->loop, &q->defer, 0);
		return q;
	}
	/* c-ares may fail inside this call; in_call makes the callback keep the answer for
	 * a zero-delay timer instead. */
	q->in_call = 1;
	ares_getaddrinfo(r->channel, name, NULL, &hints, resolver_addrinfo_cb, q);
	q->in_call = 0;
	resolver_rearm(r);
	return q;
}

void
resolver_cancel(struct resolver_query *q)
{
	q->cancelled = 1;
}

const char *
resolver_strerror(int status)
{
	switch (status) {
	case 0:
		return "success";
	case ARES_ENOTFOUND:
	case ARES_ENODATA:
	case ARES_ENONAME:
		return "name not found";
	case ARES_ETIMEOUT:
		return "lookup timed out";
	case ARES_ECONNREFUSED:
		return "name server refused the connection";
	case ARES_ESERVFAIL:
		return "name server failure";
	case ARES_EREFUSED:
		return "name server refused the query";
	default:
		return ares_strerror(status);
	}
}
