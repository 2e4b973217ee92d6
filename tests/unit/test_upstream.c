/*
 * Routes out of the proxies (upstream.h): parent proxy URLs as the reference reads them
 * (its resolveParentProxy, checked side by side in tests/proxies/routes.bats), the noProxy
 * list, mitmProxy patterns, the route chosen, and the CONNECT exchange with a parent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "upstream.h"
#include "tap.h"

static void
url_ok(const char *text, int tls, const char *host, unsigned port, const char *auth,
    const char *display)
{
	struct proxy_url u;
	const char *why = "";
	enum proxy_url_status st = proxy_url_parse(text, &u, &why);
	int good = st == PROXY_URL_OK && u.tls == (tls != 0) && strcmp(u.host, host) == 0 &&
	    u.port == port &&
	    ((auth == NULL && u.auth == NULL) ||
		(auth != NULL && u.auth != NULL && strcmp(u.auth, auth) == 0)) &&
	    strcmp(u.display, display) == 0;

	ok(good, "\"%s\" -> %s %s:%u auth %s (%s)", text, tls ? "https" : "http", host, port,
	    auth ? auth : "none", st == PROXY_URL_OK ? "parsed" : why);
	if (st == PROXY_URL_OK && !good)
		printf("#   got %s %s:%u auth %s display %s\n", u.tls ? "https" : "http",
		    u.host, u.port, u.auth ? u.auth : "none", u.display);
	proxy_url_free(&u);
}

static void
url_st(const char *text, enum proxy_url_status want, const char *why_part)
{
	struct proxy_url u;
	const char *why = "";
	enum proxy_url_status st = proxy_url_parse(text, &u, &why);

	ok(st == want && (why_part == NULL || strstr(why, why_part) != NULL),
	    "\"%s\" -> %d (%s)", text, st, st == PROXY_URL_OK ? "ok" : why);
	proxy_url_free(&u);
}

static void
test_urls(void)
{
	url_ok("http://127.0.0.1:3128", 0, "127.0.0.1", 3128, NULL, "http://127.0.0.1:3128");
	url_ok("https://Proxy.Example.COM", 1, "proxy.example.com", 443, NULL,
	    "https://proxy.example.com:443");
	url_ok("HTTP://p.example.com", 0, "p.example.com", 80, NULL, "http://p.example.com:80");
	url_ok("127.0.0.1:3128", 0, "127.0.0.1", 3128, NULL, "http://127.0.0.1:3128");
	url_ok("proxy:3128", 0, "proxy", 3128, NULL, "http://proxy:3128");
	/* The reference's own case: "u@x:p:w" (tests/proxies/routes.bats sees the same bytes). */
	url_ok("u%40x:p%3Aw@127.0.0.1:39121", 0, "127.0.0.1", 39121,
	    "Basic dUB4OnA6dw==", "http://127.0.0.1:39121");
	url_ok("http://user@p.example.com:1", 0, "p.example.com", 1,
	    "Basic dXNlcjo=", "http://p.example.com:1");
	url_ok("http://:pw@p.example.com:1", 0, "p.example.com", 1, "Basic OnB3",
	    "http://p.example.com:1");
	url_ok(
	    "http://@p.example.com:1", 0, "p.example.com", 1, NULL, "http://p.example.com:1");
	url_ok("http://a@b@p.example.com:1", 0, "p.example.com", 1,
	    "Basic YUBiOg==", "http://p.example.com:1");
	/* A malformed escape: both parts as written. */
	url_ok("http://u%zz:p%41@h.example:1", 0, "h.example", 1, "Basic dSV6ejpwJTQx",
	    "http://h.example:1");
	url_ok("http://[::1]:3128/", 1 - 1, "::1", 3128, NULL, "http://[::1]:3128");
	url_ok("http://[::ffff:127.0.0.1]:8", 0, "127.0.0.1", 8, NULL, "http://127.0.0.1:8");
	url_ok("  http://p.example.com:3128/path?q#f  ", 0, "p.example.com", 3128, NULL,
	    "http://p.example.com:3128");
	url_ok("http:\\\\p.example.com:3", 0, "http", 80, NULL, "http://http:80");
	url_ok(
	    "http:///p.example.com:3", 0, "p.example.com", 3, NULL, "http://p.example.com:3");
	url_ok(
	    "http://p.example.com:0", 0, "p.example.com", 80, NULL, "http://p.example.com:80");
	url_ok("https://p.example.com:", 1, "p.example.com", 443, NULL,
	    "https://p.example.com:443");
	url_ok("http://0x7f.1:3128", 0, "127.0.0.1", 3128, NULL, "http://127.0.0.1:3128");
	url_ok(
	    "http://p.example.com.:1", 0, "p.example.com", 1, NULL, "http://p.example.com:1");

	url_st("socks5://127.0.0.1:1080", PROXY_URL_IGNORED, "only http:// and https://");
	url_st("", PROXY_URL_BAD, "empty");
	url_st("   ", PROXY_URL_BAD, "empty");
	url_st("http://", PROXY_URL_BAD, "no host");
	url_st("http://p.example.com:99999", PROXY_URL_BAD, "larger than 65535");
	url_st("http://p.example.com:8a", PROXY_URL_BAD, "not a number");
	url_st("http://exa mple.com", PROXY_URL_BAD, "only letters");
	url_st("http://a%20b", PROXY_URL_BAD, "only letters");
	url_st("http://1.2.3.4.5", PROXY_URL_BAD, "not a valid name or IPv4");
	url_st("http://1.2.3.256", PROXY_URL_BAD, "not a valid name or IPv4");
	url_st("http://[::1", PROXY_URL_BAD, "missing its ']'");
	url_st("http://[1.2.3.4]:1", PROXY_URL_BAD, "not an IPv6");
	url_st("http://[::1]x", PROXY_URL_BAD, "only \":PORT\"");
	url_st("http://p\texample.com", PROXY_URL_BAD, "tab");
	/* Without "://", the whole text is the authority (the reference reads it so). */
	url_st("http:p.example.com:3", PROXY_URL_BAD, "only letters");
}

static void
test_url_settings(void)
{
	static const struct {
		const char *text;
		enum proxy_url_status want;
	} c[] = {
		{ "http://127.0.0.1:3128", PROXY_URL_OK },
		{ "proxy:3128", PROXY_URL_OK },
		{ "127.0.0.1:3128", PROXY_URL_BAD },
		{ "localhost:3128", PROXY_URL_OK },
		{ "socks5://127.0.0.1:1080", PROXY_URL_IGNORED },
		{ "socks5://127.0.0.1:99999", PROXY_URL_BAD },
		{ "http:p.example.com:3", PROXY_URL_IGNORED },
		{ "mailto:x@y", PROXY_URL_OK }, /* http://mailto:x@y, host y */
		{ "http://", PROXY_URL_BAD },
		{ "", PROXY_URL_BAD },
	};
	const char *why;

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum proxy_url_status st = proxy_url_check_setting(c[i].text, &why);

		ok(st == c[i].want, "setting \"%s\" -> %d (want %d)", c[i].text, st, c[i].want);
	}
}

static bool
bypass(const char *list, const char *host)
{
	struct no_proxy np;
	char canon[DOM_HOST_MAX + 1];
	enum host_kind k = host_canonicalise(host, strlen(host), canon);
	bool r;

	no_proxy_parse(list, &np, NULL);
	r = no_proxy_bypass(&np, canon, k);
	no_proxy_free(&np);
	return r;
}

static void
test_no_proxy(void)
{
	static const struct {
		const char *list, *host;
		bool want;
	} c[] = {
		{ "", "example.com", false },
		{ "", "localhost", true },
		{ "", "127.0.0.5", true },
		{ "", "::1", true },
		{ "", "::ffff:127.0.0.1", true },
		{ "", "10.0.0.1", false },
		{ "*", "example.com", true },
		{ "*", "10.0.0.1", true },
		{ "example.com", "example.com", true },
		{ "example.com", "www.example.com", true },
		{ "example.com", "wwwexample.com", false },
		{ "example.com", "example.com.", true },
		{ ".example.com", "example.com", true },
		{ ".example.com", "a.b.example.com", true },
		{ "*.example.com", "example.com", true },
		{ "*.example.com", "a.example.com", true },
		{ "EXAMPLE.com:8080", "a.example.com", true },
		{ " a.com , b.com ", "b.com", true },
		{ "a.com,,b.com", "c.com", false },
		{ "10.0.0.0/8", "10.1.2.3", true },
		{ "10.0.0.0/8", "11.1.2.3", false },
		{ "10.0.0.0/8", "example.com", false },
		{ "192.168.1.10", "192.168.1.10", true },
		{ "192.168.1.10", "192.168.1.11", false },
		{ "[2001:db8::1]:443", "2001:db8::1", true },
		{ "2001:db8::/32", "2001:db8::5", true },
		{ "::ffff:10.0.0.0/104", "10.1.1.1", true },
		{ "10.0.0.0/33", "10.0.0.1", false },
		/* Suffixes are compared as text, addresses too (Go's rule). */
		{ "0.1", "10.0.0.1", true },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		ok(bypass(c[i].list, c[i].host) == c[i].want, "noProxy \"%s\", %s: %s",
		    c[i].list, c[i].host, c[i].want ? "direct" : "parent");
	{
		struct no_proxy np;
		struct strlist ig = { 0 };

		no_proxy_parse("a.com, 1.2.3.4/99, x/y, 10.0.0.0/8", &np, &ig);
		ok(ig.n == 2 && strcmp(ig.v[0], "1.2.3.4/99") == 0 &&
			strcmp(ig.v[1], "x/y") == 0 && np.nranges == 1 && np.suffixes.n == 1,
		    "malformed ranges are reported, "
		    "dropped");
		no_proxy_free(&np);
		strlist_free(&ig);
	}
}

static void
test_mitm(void)
{
	static const struct {
		const char *p;
		int ok;
	} chk[] = {
		{ "api.example.com", 1 },
		{ "*.example.com", 1 },
		{ "localhost", 1 },
		{ "10.1.2.3", 1 },
		{ "::1", 1 },
		{ "fe80::1%eth0", 1 },
		{ "[::1]", 0 },
		{ "*", 0 },
		{ "*.com", 0 },
		{ "intranet", 0 },
		{ "a.example.com:443", 0 },
		{ "https://a.example.com", 0 },
		{ "a.example.com/x", 0 },
		{ ".example.com", 0 },
		{ "example.com.", 0 },
		{ "a.*.example.com", 0 },
		{ "*..example.com", 0 },
	};
	static const struct {
		const char *p, *h;
		int m;
	} mt[] = {
		{ "api.example.com", "API.example.com", 1 },
		{ "api.example.com", "x.api.example.com", 0 },
		{ "*.example.com", "a.b.example.com", 1 },
		{ "*.example.com", "example.com", 0 },
		{ "*.Example.com", "a.example.com", 1 },
		{ "*.0.0.1", "127.0.0.1", 0 },
		{ "::1", "0:0:0:0:0:0:0:1", 1 },
		{ "10.1.2.3", "10.1.2.3", 1 },
	};
	const char *why;
	char canon[DOM_HOST_MAX + 1];

	for (size_t i = 0; i < sizeof(chk) / sizeof(chk[0]); i++)
		ok((mitm_pattern_check(chk[i].p, &why) == 0) == chk[i].ok,
		    "mitm pattern \"%s\" "
		    "%s",
		    chk[i].p, chk[i].ok ? "accepted" : "refused");
	for (size_t i = 0; i < sizeof(mt) / sizeof(mt[0]); i++) {
		enum host_kind k = host_canonicalise(mt[i].h, strlen(mt[i].h), canon);

		ok(mitm_pattern_match(mt[i].p, canon, k) == mt[i].m, "mitm \"%s\" %s %s",
		    mt[i].p, mt[i].m ? "matches" : "does not match", mt[i].h);
	}
}

static void
test_routes(void)
{
	struct settings_parent p = { .present = true };
	struct settings_mitm m = { .present = true, .socket_path = (char *)"/run/i.sock" };
	struct upstream_env env;
	struct upstream u;
	struct diags w = { 0 };
	struct route r;
	char *d;

	/* Field by field: the file's https, the environment's http and NO_PROXY. */
	memset(&env, 0, sizeof(env));
	env.http = "http://127.0.0.1:39121";
	env.http_name = "HTTP_PROXY";
	env.no_proxy = "internal.example";
	env.no_proxy_name = "NO_PROXY";
	p.https = (char *)"https://u:p@proxy.example.com:8443";
	strlist_push(&m.domains, "*.inspect.example");
	upstream_build(&p, &m, &env, &u, &w);
	ok(w.msgs.n == 0 && u.http != NULL && u.https != NULL && u.https->tls &&
		strcmp(u.http_from, "HTTP_PROXY") == 0 &&
		strcmp(u.https_from, "network.parentProxy.https") == 0 &&
		upstream_needs_tls(&u),
	    "field-by-field "
	    "fallback to the environment");
	upstream_route(&u, "a.inspect.example", HOST_NAME, true, &r);
	ok(r.kind == ROUTE_MITM && strcmp(r.mitm_socket, "/run/i.sock") == 0,
	    "a mitmProxy domain goes to its socket");
	upstream_route(&u, "github.com", HOST_NAME, true, &r);
	d = route_describe(&r);
	ok(r.kind == ROUTE_PARENT && r.parent == u.https &&
		strcmp(d, "parent https://proxy.example.com:8443") == 0,
	    "a tunnel takes the https parent: %s", d);
	free(d);
	upstream_route(&u, "github.com", HOST_NAME, false, &r);
	ok(r.kind == ROUTE_PARENT && r.parent == u.http, "plain HTTP takes the http parent");
	upstream_route(&u, "a.internal.example", HOST_NAME, true, &r);
	ok(r.kind == ROUTE_DIRECT, "noProxy goes direct");
	upstream_route(&u, "127.0.0.1", HOST_IPV4, false, &r);
	d = route_describe(&r);
	ok(r.kind == ROUTE_DIRECT && strcmp(d, "direct") == 0, "loopback goes direct");
	free(d);
	upstream_free(&u);

	/* "" in the file turns NO_PROXY off; HTTPS falls back to the http parent; a bad
	 * environment value is a warning and nothing else. */
	memset(&p, 0, sizeof(p));
	p.present = true;
	p.no_proxy = (char *)"";
	env.https = "ftp://x:1";
	env.https_name = "https_proxy";
	upstream_build(&p, NULL, &env, &u, &w);
	ok(w.msgs.n == 1 &&
		strstr(w.msgs.v[0],
		    "https_proxy: the parent proxy URL is "
		    "ignored: only http:// and https://") != NULL &&
		u.https == NULL,
	    "an unusable environment URL is dropped with a warning: %s",
	    w.msgs.n ? w.msgs.v[0] : "(none)");
	upstream_route(&u, "internal.example", HOST_NAME, true, &r);
	ok(r.kind == ROUTE_PARENT && r.parent == u.http && !upstream_needs_tls(&u),
	    "noProxy \"\" overrides NO_PROXY; a tunnel falls back to the http parent");
	upstream_free(&u);
	diags_free(&w);

	/* Only an https parent: plain HTTP goes direct (curl's rule). */
	memset(&p, 0, sizeof(p));
	memset(&env, 0, sizeof(env));
	env.https = "http://127.0.0.1:1";
	env.https_name = "HTTPS_PROXY";
	upstream_build(&p, NULL, &env, &u, NULL);
	upstream_route(&u, "example.com", HOST_NAME, false, &r);
	ok(r.kind == ROUTE_DIRECT, "plain HTTP does not use the https parent");
	upstream_route(&u, "example.com", HOST_NAME, true, &r);
	ok(r.kind == ROUTE_PARENT, "a tunnel does");
	upstream_free(&u);
	strlist_free(&m.domains);
}

static void
test_connect(void)
{
	struct buf b = { 0 };
	char line[UPSTREAM_LINE_MAX], big[UPSTREAM_REPLY_MAX + 10];
	size_t hl = 0;
	static const struct {
		const char *in;
		enum upstream_reply want;
		size_t hl;
	} c[] = {
		{ "HTTP/1.1 200 Connection established\r\n\r\nSSH-", UPSTREAM_REPLY_OK, 39 },
		{ "HTTP/1.0 200\r\n\r\n", UPSTREAM_REPLY_OK, 16 },
		{ "HTTP/1.1 204 x\r\nVia: p\r\n\r\n", UPSTREAM_REPLY_OK, 26 },
		{ "HTTP/1.1 407 Proxy Authentication Required\r\nX: y\r\n\r\n",
		    UPSTREAM_REPLY_REFUSED, 0 },
		{ "HTTP/1.1 200 OK\r\n", UPSTREAM_REPLY_MORE, 0 },
		{ "HTTP/1.1 2000 OK\r\n\r\n", UPSTREAM_REPLY_BAD, 0 },
		{ "HTTP/2 200 OK\r\n\r\n", UPSTREAM_REPLY_BAD, 0 },
		{ "HTTP/1.1 200 OK\n\n", UPSTREAM_REPLY_BAD, 0 },
		{ "SSH-2.0-x\r\n\r\n", UPSTREAM_REPLY_BAD, 0 },
		{ "HTTP/1.1 099 x\r\n\r\n", UPSTREAM_REPLY_BAD, 0 },
	};

	upstream_connect_request(&b, "2001:db8::1", HOST_IPV6, 443, "Basic eDp5");
	ok(b.len ==
		    strlen("CONNECT [2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\n"
			   "Proxy-Authorization: Basic eDp5\r\n\r\n") &&
		memcmp(b.p + b.off,
		    "CONNECT "
		    "[2001:db8::1]:443 HTTP/1.1\r\nHost: [2001:db8::1]:443\r\nProxy-Authorization: "
		    "Basic eDp5\r\n\r\n",
		    b.len) == 0,
	    "the CONNECT request");
	buf_free(&b);
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		enum upstream_reply r = upstream_connect_reply(
		    c[i].in, strlen(c[i].in), &hl, line, sizeof(line));

		ok(r == c[i].want && (c[i].hl == 0 || hl == c[i].hl),
		    "reply %zu -> %d (head %zu)", i, r, hl);
	}
	(void)upstream_connect_reply("HTTP/1.1 407 No\x01way\r\n\r\n",
	    strlen("HTTP/1.1 407 No\x01way\r\n\r\n"), &hl, line, sizeof(line));
	ok(strcmp(line, "HTTP/1.1 407 No?way") == 0, "the status line kept printable: %s",
	    line);
	memset(big, 'a', sizeof(big));
	memcpy(big, "HTTP/1.1 200 OK\r\n", 17);
	ok(upstream_connect_reply(big, sizeof(big), &hl, line, sizeof(line)) ==
		UPSTREAM_REPLY_BAD,
	    "a head over %d bytes is refused", UPSTREAM_REPLY_MAX);
}

int
main(void)
{
	test_urls();
	test_url_settings();
	test_no_proxy();
	test_mitm();
	test_routes();
	test_connect();
	return tap_done();
}
