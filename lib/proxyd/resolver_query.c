/*
 * A lookup's query (lib/proxyd/resolver_int.h): made by the front half, filled by a back
 * end, delivered from the loop. Apart from both, which call it and not each other's
 * inside.
 */
#include <stdlib.h>
#include <string.h>

#include "resolver_int.h"
#include "sys.h"
#include "util.h"

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

struct resolver_query *
resolver_query_new(struct resolver *r, resolver_cb cb, void *arg)
{
	struct resolver_query *q;

	q = xcalloc(1, sizeof(*q));
	q->r = r;
	q->cb = cb;
	q->arg = arg;
	evtimer_init(&q->defer, resolver_defer_cb, q);
	return q;
}
