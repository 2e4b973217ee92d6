/*
 * The resolver's front half, one for every platform (lib/resolver_int.h): a lookup is a
 * query that the hosts file answers first (files, then DNS; on Windows getaddrinfo reads
 * the hosts file itself), then the back end: c-ares on the loop's sockets
 * (lib/resolver_ares.c) or getaddrinfo on the system's thread pool (lib/resolver_win.c).
 * Either way the answer is collected here, duplicates dropped, in the order found, and
 * the callback runs from the loop, never inside resolver_lookup.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolver_int.h"
#include "sys.h"
#include "util.h"

struct resolver *
resolver_new(struct evloop *loop, char *err, size_t errlen)
{
	struct resolver *r;

	r = xcalloc(1, sizeof(*r));
	r->loop = loop;
#ifndef _WIN32
	/* The hosts file now: the narrowed process cannot open it later (hosts.h). */
	if (hosts_read(&r->hosts, HOSTS_PATH) == -1) {
		snprintf(err, errlen, "%s: %s", HOSTS_PATH, strerror(errno));
		free(r);
		return NULL;
	}
#endif
	if ((r->be = resolver_be_new(r, err, errlen)) == NULL) {
#ifndef _WIN32
		hosts_free(&r->hosts);
#endif
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
	resolver_be_free(r);
#ifndef _WIN32
	hosts_free(&r->hosts);
#endif
	free(r);
}

void
resolver_answer_add(struct resolver_query *q, const void *sa, size_t salen, int family)
{
	struct ip_addr a;
	size_t i;

	if (q->naddrs >= RESOLVER_MAX_ANSWERS)
		return;
	memset(&a, 0, sizeof(a));
	if (family == AF_INET && salen >= sizeof(struct sockaddr_in)) {
		a.family = 4;
		memcpy(a.bytes, &((const struct sockaddr_in *)sa)->sin_addr, 4);
	} else if (family == AF_INET6 && salen >= sizeof(struct sockaddr_in6)) {
		a.family = 6;
		memcpy(a.bytes, &((const struct sockaddr_in6 *)sa)->sin6_addr, 16);
	} else
		return;
	/* Drop duplicates (an answer may list an address twice). */
	for (i = 0; i < q->naddrs; i++)
		if (ip_addr_equal(&q->addrs[i], &a))
			return;
	q->addrs[q->naddrs++] = a;
}

void
resolver_query_free(struct resolver_query *q)
{
	free(q->name);
	free(q);
}

void
resolver_deliver(struct resolver_query *q)
{
	if (!q->cancelled)
		q->cb(q->arg, q->status, q->addrs, q->naddrs);
	resolver_query_free(q);
}

static void
resolver_defer_cb(struct evloop *loop, void *arg)
{
	(void)loop;
	resolver_deliver(arg);
}

void
resolver_defer(struct resolver_query *q)
{
	evtimer_add(q->r->loop, &q->defer, 0);
}

#ifndef _WIN32
/* The hosts file's answer for name, duplicates dropped as from the back end. */
static size_t
resolver_hosts(struct resolver *r, const char *name, struct resolver_query *q)
{
	struct ip_addr all[RESOLVER_MAX_ANSWERS];
	size_t n = hosts_lookup(&r->hosts, name, all, RESOLVER_MAX_ANSWERS), i, j;

	for (i = 0; i < n; i++) {
		for (j = 0; j < q->naddrs; j++)
			if (ip_addr_equal(&q->addrs[j], &all[i]))
				break;
		if (j == q->naddrs)
			q->addrs[q->naddrs++] = all[i];
	}
	return q->naddrs;
}
#endif

struct resolver_query *
resolver_lookup(struct resolver *r, const char *name, resolver_cb cb, void *arg)
{
	struct resolver_query *q;

	q = xcalloc(1, sizeof(*q));
	q->r = r;
	q->cb = cb;
	q->arg = arg;
	evtimer_init(&q->defer, resolver_defer_cb, q);
#ifndef _WIN32
	/* Files first, then DNS: a name of the hosts file is answered from it, from the loop
	 * like every answer. */
	if (resolver_hosts(r, name, q) > 0) {
		resolver_defer(q);
		return q;
	}
#endif
	if (resolver_be_lookup(r, q, name) == -1) {
		resolver_query_free(q);
		return NULL;
	}
	return q;
}

/* The callback will not be called; the back end frees the query when it is done. */
void
resolver_cancel(struct resolver_query *q)
{
	q->cancelled = 1;
}

const char *
resolver_strerror(int status)
{
	return status == 0 ? "success" : resolver_be_strerror(status);
}
