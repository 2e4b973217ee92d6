/* The resolved-address guard (BEHAVIOR §2.4) as pure logic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "policy.h"
#include "settings.h"
#include "tap.h"

static struct policy *
mkpolicy(const char *allowed, const char *denied, const char *ranges)
{
	char doc[2048], err[256];
	struct settings s;
	struct diags errs = { 0 }, warns = { 0 };
	struct policy *p;

	snprintf(doc, sizeof(doc),
	    "{\"network\":{\"allowedDomains\":%s,\"deniedDomains\":%s,"
	    "\"deniedResolvedAddresses\":%s},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[],"
	    "\"denyWrite\":[]}}",
	    allowed, denied, ranges);
	if (settings_parse(doc, strlen(doc), "test", &s, &errs, &warns) == -1) {
		diags_print(&errs, stderr);
		exit(1);
	}
	p = policy_from_settings(&s, err, sizeof(err));
	if (p == NULL) {
		fprintf(stderr, "policy: %s\n", err);
		exit(1);
	}
	settings_free(&s);
	diags_free(&errs);
	diags_free(&warns);
	return p;
}

static struct ip_addr
A(const char *s) {
	struct ip_addr a;

	memset(&a, 0, sizeof(a));
	if (ip_addr_parse(s, &a) == -1) {
		fprintf(stderr, "bad address %s\n", s);
		exit(1);
	}
	return a;
}

static int
check1(struct policy *p, const char *host, uint16_t port, const char *addr,
    const struct guard_local *local, const char *want_reason)
{
	struct ip_addr a = A(addr);
	struct guard_result r;
	int idx = guard_check(p, host, port, &a, 1, local, NULL, &r);

	if (want_reason == NULL)
		return idx == 0;
	if (idx != -1 || strcmp(r.reason, want_reason) != 0) {
		printf("# %s -> %s: got idx %d reason '%s'\n", host, addr, idx, r.reason);
		return 0;
	}
	return 1;
}

int
main(void)
{
	struct policy *p;
	struct guard_result r;
	struct ip_addr v[4];
	size_t pass[4];
	struct guard_local local = { 0 };
	struct ip_addr own = A("192.0.2.77");

	p = mkpolicy("[\"*.example.com\",\"localhost\",\"127.0.0.1:8080\",\"[::1]\"]",
	    "[\"10.1.1.1\"]", "[\"10.9.0.0/16\"]");
	ok(check1(p, "a.example.com", 443, "93.184.216.34", NULL, NULL),
	    "public address passes");
	ok(check1(p, "a.example.com", 443, "127.0.0.1", NULL, "resolved to a loopback address"),
	    "loopback refused");
	ok(check1(p, "a.example.com", 8080, "127.0.0.1", NULL, NULL),
	    "allow-listed literal with its port is a carve-out");
	ok(check1(
	       p, "a.example.com", 8081, "127.0.0.1", NULL, "resolved to a loopback address"),
	    "the carve-out honours the port");
	ok(check1(p, "a.example.com", 443, "::1", NULL, NULL), "allow-listed [::1] any port");
	ok(check1(p, "a.example.com", 443, "::ffff:127.0.0.2", NULL,
	       "resolved to a loopback address"),
	    "mapped loopback refused");
	ok(check1(p, "a.example.com", 443, "169.254.169.254", NULL,
	       "resolved to a link-local address"),
	    "link-local refused");
	ok(check1(p, "a.example.com", 443, "100.100.100.200", NULL,
	       "resolved to a cloud metadata address"),
	    "metadata refused");
	ok(check1(
	       p, "a.example.com", 443, "0.0.0.0", NULL, "resolved to an unspecified address"),
	    "unspecified refused");
	ok(check1(
	       p, "a.example.com", 443, "224.0.0.1", NULL, "resolved to a multicast address"),
	    "multicast refused");
	ok(check1(p, "a.example.com", 443, "255.255.255.255", NULL,
	       "resolved to the broadcast address"),
	    "broadcast refused");
	ok(check1(
	       p, "a.example.com", 443, "10.1.1.1", NULL, "resolved to a deny-listed address"),
	    "deny-listed literal refused");
	ok(check1(p, "a.example.com", 443, "10.9.3.4", NULL, "resolved to a listed address"),
	    "deniedResolvedAddresses refused");
	ok(check1(p, "a.example.com", 443, "::ffff:10.9.3.4", NULL,
	       "resolved to a listed address"),
	    "listed range binds the mapped form");
	ok(check1(p, "a.example.com", 443, "64:ff9b::a09:304", NULL,
	       "resolved to a listed address"),
	    "listed range binds the NAT64 form");
	ok(check1(p, "a.example.com", 443, "2002:7f00:1::", NULL,
	       "resolved to a loopback address"),
	    "6to4 of loopback refused");
	ok(check1(p, "a.example.com", 443, "10.2.3.4", NULL, NULL),
	    "private ranges pass by default");
	ok(check1(p, "localhost", 80, "127.0.0.1", NULL, NULL), "localhost to loopback passes");
	ok(check1(
	       p, "localhost", 80, "93.184.216.34", NULL, "resolved to a non-loopback address"),
	    "localhost to a public address refused");
	ok(check1(p, "app.localhost", 80, "::1", NULL, NULL), "*.localhost to ::1 passes");
	local.v = &own;
	local.n = 1;
	ok(check1(p, "a.example.com", 443, "192.0.2.77", &local,
	       "resolved to one of this host's addresses"),
	    "own interface address refused");
	ok(check1(p, "a.example.com", 443, "192.0.2.78", &local, NULL), "other address passes");

	/* Several answers: the first survivor wins; refusals name every class in order. */
	v[0] = A("169.254.1.1");
	v[1] = A("127.0.0.1");
	v[2] = A("93.184.216.34");
	v[3] = A("93.184.216.35");
	ok(guard_check(p, "a.example.com", 443, v, 4, NULL, pass, &r) == 2,
	    "first survivor chosen");
	ok(r.nrefused == 2, "two refused");
	ok(r.npass == 2 && pass[0] == 2 && pass[1] == 3,
	    "every address that passes is "
	    "listed, in order: the dial needs no second judgement");
	v[1] = A("93.184.216.36");
	ok(guard_check(p, "a.example.com", 443, v, 4, NULL, pass, &r) == 1 && r.npass == 3 &&
		pass[0] == 1 && pass[1] == 2 && pass[2] == 3,
	    "passing addresses between refused "
	    "ones");
	v[1] = A("127.0.0.1");
	ok(guard_check(p, "a.example.com", 443, v, 2, NULL, NULL, &r) == -1 &&
		strcmp(r.reason, "resolved to a loopback address / a link-local address") == 0,
	    "classes in priority order: %s", r.reason);
	ok(strcmp(r.message,
	       "Connection to a.example.com blocked: resolved to a loopback "
	       "address / a link-local address") == 0,
	    "message: %s", r.message);
	ok(guard_check(p, "a.example.com", 443, v, 0, NULL, NULL, &r) == -1 && r.whys == 0 &&
		r.npass == 0,
	    "no answers: nothing refused, nothing chosen");
	ok(guard_is_loopback_name("LOCALHOST.") && guard_is_loopback_name("x.localhost") &&
		!guard_is_loopback_name("localhost.com") &&
		!guard_is_loopback_name("xlocalhost"),
	    "loopback names");
	local.v = NULL;
	local.n = 0;
	ok(guard_local_refresh(&local) == 0 && local.n >= 1, "getifaddrs gives addresses");
	guard_local_free(&local);
	policy_free(p);
	return tap_done();
}
