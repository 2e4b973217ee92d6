/*
 * The resolver's front half, one for every platform (lib/proxyd/resolver_int.h): a lookup is a
 * query that the hosts file answers first (files, then DNS; on Windows getaddrinfo reads
 * the hosts file itself), then the back end: c-ares on the loop's sockets
 * (lib/proxyd/resolver_ares.c) or getaddrinfo on the system's thread pool (lib/proxyd/resolver_win.c).
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

	q = resolver_query_new(r, cb, arg);
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
