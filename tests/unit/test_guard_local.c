/*
 * guard_local_refresh, this host's addresses for the resolved-address guard: getifaddrs
 * here, GetAdaptersAddresses on Windows (built by make win and run under Wine by
 * tests/windows/proxies-wine.bats). Both list the loopback interface's 127.0.0.1.
 */
#include <stdio.h>
#include <string.h>

#include "guard.h"
#include "sys.h"
#include "tap.h"

static int
has(const struct guard_local *l, const char *text)
{
	struct ip_addr a;
	size_t i;

	ip_addr_parse(text, &a);
	for (i = 0; i < l->n; i++)
		if (ip_addr_equal(&l->v[i], &a))
			return 1;
	return 0;
}

int
main(void)
{
	struct guard_local l = { 0 };
	size_t first;

	ok(sys_init() == 0, "sockets ready");
	ok(guard_local_refresh(&l) == 0, "refreshed");
	ok(l.n >= 1 && has(&l, "127.0.0.1"), "127.0.0.1 is among the %lu addresses",
	    (unsigned long)l.n);
	ok(!has(&l, "192.0.2.1"), "a documentation address is not");
	first = l.n;
	ok(guard_local_refresh(&l) == 0 && l.n == first,
	    "a second refresh replaces the list (%lu, was %lu)", (unsigned long)l.n,
	    (unsigned long)first);
	guard_local_free(&l);
	ok(l.n == 0 && l.v == NULL, "freed");
	return tap_done();
}
