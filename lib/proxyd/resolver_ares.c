/*
 * The resolver's lookup back end on c-ares (lib/proxyd/resolver_int.h), driven by the event
 * loop. c-ares tells us which sockets it wants watched through the socket-state
 * callback; we register them with the loop and hand readiness back with
 * ares_process_fd(). Its retransmission timeouts run on one loop timer, re-armed after
 * every call into c-ares.
 */
#ifndef _WIN32
#include <arpa/inet.h>
#include <ares.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolver_int.h"
#include "util.h"

struct resolver_be {
	struct evloop *loop;
	ares_channel channel;
	struct ev_timer timer;
	int freeing;
};

static int resolver_lib_ready;

static void
resolver_rearm(struct resolver_be *b)
{
	struct timeval tv, *tvp;

	if (b->freeing)
		return;
	tvp = ares_timeout(b->channel, NULL, &tv);
	if (tvp == NULL) {
		evtimer_del(b->loop, &b->timer);
		return;
	}
	evtimer_add(b->loop, &b->timer,
	    (uint64_t)tvp->tv_sec * 1000 + (uint64_t)tvp->tv_usec / 1000 + 1);
}

static void
resolver_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct resolver_be *b = arg;

	(void)loop;
	ares_process_fd(b->channel, (events & (EV_READ | EV_HUP)) ? fd : ARES_SOCKET_BAD,
	    (events & EV_WRITE) ? fd : ARES_SOCKET_BAD);
	resolver_rearm(b);
}

static void
resolver_timer_cb(struct evloop *loop, void *arg)
{
	struct resolver_be *b = arg;

	(void)loop;
	ares_process_fd(b->channel, ARES_SOCKET_BAD, ARES_SOCKET_BAD);
	resolver_rearm(b);
}

static void
resolver_sock_state_cb(void *data, ares_socket_t fd, int readable, int writable)
{
	struct resolver_be *b = data;
	unsigned ev = (readable ? EV_READ : 0) | (writable ? EV_WRITE : 0);

	if (ev == 0) {
		evloop_del(b->loop, fd);
		return;
	}
	if (evloop_mod(b->loop, fd, ev) == -1 &&
	    evloop_add(b->loop, fd, ev, resolver_io_cb, b) == -1)
		log_warn("resolver: cannot watch fd %d", fd);
}

struct resolver_be *
resolver_be_new(struct resolver *r, char *err, size_t errlen)
{
	struct ares_options o;
	struct resolver_be *b;
	int st;

	if (!resolver_lib_ready) {
		if ((st = ares_library_init(ARES_LIB_INIT_ALL)) != ARES_SUCCESS) {
			snprintf(err, errlen, "c-ares: %s", ares_strerror(st));
			return NULL;
		}
		resolver_lib_ready = 1;
	}
	b = xcalloc(1, sizeof(*b));
	b->loop = r->loop;
	evtimer_init(&b->timer, resolver_timer_cb, b);
	memset(&o, 0, sizeof(o));
	o.sock_state_cb = resolver_sock_state_cb;
	o.sock_state_cb_data = b;
	/* c-ares asks DNS only; the names of the hosts file are answered before it. */
	o.lookups = (char *)(uintptr_t) "b";
	st = ares_init_options(&b->channel, &o, ARES_OPT_SOCK_STATE_CB | ARES_OPT_LOOKUPS);
	if (st != ARES_SUCCESS) {
		snprintf(err, errlen, "c-ares: %s", ares_strerror(st));
		free(b);
		return NULL;
	}
	return b;
}

void
resolver_be_free(struct resolver *r)
{
	struct resolver_be *b = r->be;

	/* Pending callbacks run with ARES_EDESTRUCTION and free their queries silently. */
	b->freeing = 1;
	evtimer_del(b->loop, &b->timer);
	ares_destroy(b->channel);
	free(b);
}

static void
resolver_addrinfo_cb(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct resolver_query *q = arg;
	struct ares_addrinfo_node *n;

	(void)timeouts;
	if (status == ARES_SUCCESS && res != NULL) {
		for (n = res->nodes; n != NULL; n = n->ai_next)
			resolver_answer_add(q, n->ai_addr, n->ai_addrlen, n->ai_family);
		if (q->naddrs == 0)
			status = ARES_ENODATA;
	}
	if (res != NULL)
		ares_freeaddrinfo(res);
	if (status == ARES_EDESTRUCTION) {
		resolver_query_free(q);
		return;
	}
	q->status = status == ARES_SUCCESS ? 0 : status;
	/* Failed synchronously: deliver from the loop. */
	if (q->in_call)
		resolver_defer(q);
	else
		resolver_deliver(q);
}

int
resolver_be_lookup(struct resolver *r, struct resolver_query *q, const char *name)
{
	struct ares_addrinfo_hints hints;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	/* Keep the resolver's order (as the reference's lookup does) and skip the RFC 6724
	 * sort, which would probe routes with extra sockets. */
	hints.ai_flags = ARES_AI_NOSORT;
	hints.ai_socktype = SOCK_STREAM;
	/* c-ares may fail inside this call; in_call makes the callback keep the answer for
	 * a zero-delay timer instead. */
	q->in_call = 1;
	ares_getaddrinfo(r->be->channel, name, NULL, &hints, resolver_addrinfo_cb, q);
	q->in_call = 0;
	resolver_rearm(r->be);
	return 0;
}

const char *
resolver_be_strerror(int status)
{
	switch (status) {
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
#endif
