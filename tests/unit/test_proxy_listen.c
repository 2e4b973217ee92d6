/*
 * The proxies' listen addresses (lib/core/proxy_listen.c): what srt-httpd's and srt-socksd's
 * -l and srt proxy's --listen take, and which of them other hosts could reach (issue 31
 * item 7: "localhost:PORT" was refused by the proxies, "0.0.0.0:PORT" taken silently).
 */
#include <string.h>

#include "proxy_listen.h"
#include "tap.h"

static void
test_parse(void)
{
	static const struct {
		const char *in;
		int family; /* 0: refused */
		int local;
	} t[] = {
		{ "127.0.0.1:3128", AF_INET, 1 },
		{ "127.9.9.9:0", AF_INET, 1 },
		{ "localhost:3128", AF_INET, 1 },
		{ "[::1]:3128", AF_INET6, 1 },
		{ "[::ffff:127.0.0.1]:1", AF_INET6, 1 },
		{ "unix:/run/x.sock", AF_UNIX, 1 },
		{ "0.0.0.0:3130", AF_INET, 0 },
		{ "192.0.2.1:80", AF_INET, 0 },
		{ "[::]:3130", AF_INET6, 0 },
		{ "[2001:db8::1]:1", AF_INET6, 0 },
		{ "[::ffff:10.0.0.1]:1", AF_INET6, 0 },
		{ "[localhost]:1", 0, 0 }, /* a bracket holds an IPv6 address */
		{ "LOCALHOST:1", 0, 0 },
		{ "example.com:80", 0, 0 },
		{ "localhost", 0, 0 },
		{ "localhost:", 0, 0 },
		{ "localhost:65536", 0, 0 },
		{ ":3128", 0, 0 },
		{ "::1:3128", 0, 0 },
		{ "unix:rel", 0, 0 },
	};
	struct sockaddr_storage ss;
	socklen_t sl;
	const char *why, *ref;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int r = proxy_parse_listen(t[i].in, &ss, &sl, &why);

		if (t[i].family == 0) {
			ok(r == -1 && why != NULL, "%s is refused (%s)", t[i].in,
			    why ? why : "-");
			ok(proxy_listen_refusal(t[i].in, true) != NULL,
			    "%s is refused even with --listen-any-interface", t[i].in);
			continue;
		}
		ok(r == 0 && ss.ss_family == t[i].family, "%s parses", t[i].in);
		ok(proxy_listen_local(&ss) == t[i].local, "%s is %s", t[i].in,
		    t[i].local ? "reachable from this host only" : "reachable from others");
		ref = proxy_listen_refusal(t[i].in, false);
		ok(t[i].local ? ref == NULL
			      : ref != NULL && strstr(ref, "--listen-any-interface") != NULL,
		    "%s %s without --listen-any-interface", t[i].in,
		    t[i].local ? "is taken" : "is refused");
		ok(proxy_listen_refusal(t[i].in, true) == NULL,
		    "%s is taken with --listen-any-interface", t[i].in);
	}
	proxy_parse_listen("localhost:8080", &ss, &sl, &why);
	ok(((struct sockaddr_in *)&ss)->sin_addr.s_addr == htonl(0x7f000001) &&
		ntohs(((struct sockaddr_in *)&ss)->sin_port) == 8080,
	    "localhost is 127.0.0.1, never looked up");
}

int
main(void)
{
	test_parse();
	return tap_done();
}
