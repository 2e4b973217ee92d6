/*
 * Domain entries, host canonicalisation, matching and the name-based decision
 * (BEHAVIOR §2.1-2.3), then every vector generated from the reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "domain.h"
#include "util.h"
#include "tap.h"

static const char *
data_dir(void)
{
	const char *d = getenv("SRT_DATA");

	return d != NULL && *d != '\0' ? d : "tests/data";
}

/* Parse an entry; on success describe it as "KIND host port" in buf. */
static int
entry(const char *e, int deny, char *buf, size_t len)
{
	struct dom_rule r;
	const char *why;
	static const char *kinds[] = { "exact", "wild", "any", "v4", "v6" };

	if (dom_entry_parse(e, deny, &r, &why) == -1) {
		snprintf(buf, len, "rejected: %s", why != NULL ? why : "(no reason)");
		return -1;
	}
	snprintf(buf, len, "%s %s %u", kinds[r.kind], r.host != NULL ? r.host : "-", r.port);
	if (strcmp(r.spelled, e) != 0)
		snprintf(buf, len, "spelled changed: %s", r.spelled);
	dom_rule_clear(&r);
	return 0;
}

static void
check_accept(const char *e, int deny, const char *want)
{
	char got[512];

	entry(e, deny, got, sizeof(got));
	ok(strcmp(got, want) == 0, "%s entry \"%s\" -> %s (got %s)", deny ? "deny" : "allow", e,
	    want, got);
}

static void
check_reject(const char *e, int deny)
{
	char got[512];
	int r = entry(e, deny, got, sizeof(got));

	ok(r == -1 && strncmp(got, "rejected: ", 10) == 0 && strlen(got) > 12,
	    "%s entry \"%s\" rejected with a reason (%s)", deny ? "deny" : "allow", e, got);
}

static void
test_entries(void)
{
	static const char *both_rejected[] = {
		".example.com",
		"*.com",
		"*.",
		"*example.com",
		"ex*ample.com",
		"example",
		"example.com:0",
		":65536",
		":080",
		"example.com:443.allowed.com",
		"http://example.com",
		"example.com/path",
		"::1",
		"2001:db8::1",
		"[::1]junk",
		"example.com.",
		"*.localhost",
		"*:0",
		"",
		"LOCALHOST",
		"[::1]:0",
		"[::1]:080",
		"[::1]:65536",
		"example.com:",
		"example.com:-1",
		"*.example..com",
		"*.example.com.",
		"*..example.com",
		"[::1",
		"::1:443",
		"*.*",
		"**.example.com",
		"a.b:1:2",
	};
	size_t i;

	check_accept("example.com", 0, "exact example.com 0");
	check_accept("*.example.com", 0, "wild example.com 0");
	check_accept("localhost", 0, "exact localhost 0");
	check_accept("example.com:443", 0, "exact example.com 443");
	check_accept("[::1]", 0, "v6 ::1 0");
	check_accept("[::1]:443", 0, "v6 ::1 443");
	check_accept("[2001:db8::1]:8080", 0, "v6 2001:db8::1 8080");
	check_accept("1.2.3.4", 0, "v4 1.2.3.4 0");
	check_accept("1.2.3.4:80", 0, "v4 1.2.3.4 80");
	check_accept("*.example.com:443", 0, "wild example.com 443");
	check_accept("EXAMPLE.COM", 0, "exact example.com 0");
	check_accept("*.co.uk", 0, "wild co.uk 0");
	check_accept("[fe80::1%eth0]", 0, "v6 fe80::1 0");
	check_accept("[::ffff:1.2.3.4]", 0, "v4 1.2.3.4 0");
	check_accept("[2001:DB8:0:0:0:0:0:1]", 0, "v6 2001:db8::1 0");
	check_accept("[1.2.3.4]:1", 0, "v4 1.2.3.4 1");
	check_accept("[127.1]", 0, "v4 127.0.0.1 0");
	check_accept("[EXAMPLE.com.]", 0, "exact example.com 0");
	check_accept("a..b", 0, "exact a..b 0");
	check_accept("-x.com", 0, "exact -x.com 0");
	check_accept("x_y.example.com:65535", 0, "exact x_y.example.com 65535");
	/* The reference accepts "*.*.example.com" but it can match only a host holding a
	 * "*": never (issue 31). srt refuses it, as srt-settings(5) says. */
	check_reject("*.*.example.com:22", 0);
	check_reject("*.*.example.com", 1);
	check_reject("*.a.*.example.com", 1);
	/* unbracketed "127.1" is a name to the reference: it is never canonicalised */
	check_accept("127.1", 0, "exact 127.1 0");
	check_accept("256.1.1.1", 0, "exact 256.1.1.1 0");
	/* JavaScript lower-cases U+212A KELVIN SIGN to an ASCII "k" */
	check_accept("\xe2\x84\xaa"
		     "ey.com",
	    0, "exact key.com 0");
	check_accept("b\xc3\xbc"
		     "cher.example",
	    0,
	    "exact b\xc3\xbc"
	    "cher.example 0");
	check_accept("*", 1, "any - 0");
	check_accept("*:22", 1, "any - 22");
	check_accept("[*]", 1, "any - 0");
	check_accept("example.com:22", 1, "exact example.com 22");
	check_reject("*", 0);
	check_reject("*:22", 0);
	check_reject("[b\xc3\xbc"
		     "cher.example]",
	    0);
	for (i = 0; i < sizeof(both_rejected) / sizeof(both_rejected[0]); i++) {
		check_reject(both_rejected[i], 0);
		check_reject(both_rejected[i], 1);
	}
}

static void
check_canon(const char *in, enum host_kind kind, const char *want)
{
	char out[DOM_HOST_MAX + 1];
	enum host_kind k;

	memset(out, 'X', sizeof(out));
	k = host_canonicalise(in, strlen(in), out);
	if (kind == HOST_MALFORMED)
		ok(k == HOST_MALFORMED, "host \"%.60s\" is malformed (got %d)", in, (int)k);
	else
		ok(k == kind && strcmp(out, want) == 0,
		    "host \"%.60s\" -> %d \"%s\" (got %d \"%s\")", in, (int)kind, want, (int)k,
		    k == HOST_MALFORMED ? "" : out);
}

static void
test_canonicalise(void)
{
	char name[300], out[DOM_HOST_MAX + 1];

	check_canon("EXAMPLE.COM", HOST_NAME, "example.com");
	check_canon("example.com.", HOST_NAME, "example.com");
	/* An empty label is malformed, not a name under a wildcard (issue 31): a resolver
	 * that collapsed it would reach another name. The reference keeps them. */
	check_canon("example.com..", HOST_MALFORMED, "");
	check_canon("secret..corp.test", HOST_MALFORMED, "");
	check_canon(".secret.corp.test", HOST_MALFORMED, "");
	check_canon("[.secret.corp.test]", HOST_MALFORMED, "");
	check_canon("..", HOST_MALFORMED, "");
	check_canon("x_y.Example.com", HOST_NAME, "x_y.example.com");
	check_canon("a..b", HOST_MALFORMED, "");
	check_canon(".", HOST_MALFORMED, "");
	check_canon("127.1", HOST_IPV4, "127.0.0.1");
	check_canon("2130706433", HOST_IPV4, "127.0.0.1");
	check_canon("0x7f.0.0.1", HOST_IPV4, "127.0.0.1");
	check_canon("0X7F.1", HOST_IPV4, "127.0.0.1");
	check_canon("0177.0.0.1", HOST_IPV4, "127.0.0.1");
	check_canon("1.2.3", HOST_IPV4, "1.2.0.3");
	check_canon("012.1.2.3", HOST_IPV4, "10.1.2.3");
	check_canon("1.2.3.4.", HOST_IPV4, "1.2.3.4");
	check_canon("2852039166", HOST_IPV4, "169.254.169.254");
	check_canon("4294967295", HOST_IPV4, "255.255.255.255");
	check_canon("0x", HOST_IPV4, "0.0.0.0");
	check_canon("1.0x", HOST_IPV4, "1.0.0.0");
	check_canon("0x.0x.0x.0x", HOST_IPV4, "0.0.0.0");
	check_canon("1.16777215", HOST_IPV4, "1.255.255.255");
	/* The URL parser refuses these; the reference then matches the host as spelled. */
	check_canon("256.1.1.1", HOST_NAME, "256.1.1.1");
	check_canon("1.2.3.4.5", HOST_NAME, "1.2.3.4.5");
	check_canon("4294967296", HOST_NAME, "4294967296");
	check_canon("0x100000000", HOST_NAME, "0x100000000");
	check_canon("1.16777216", HOST_NAME, "1.16777216");
	check_canon("08.1.1.1", HOST_NAME, "08.1.1.1");
	check_canon("1..2", HOST_MALFORMED, "");
	check_canon("A.0x", HOST_NAME, "a.0x");
	check_canon("foo.09.", HOST_NAME, "foo.09.");
	check_canon("[256.1.1.1]", HOST_NAME, "[256.1.1.1]");
	check_canon("xn--zz.example.com.", HOST_NAME, "xn--zz.example.com.");
	check_canon("xn--.com.", HOST_NAME, "xn--.com.");
	/* not a number: an ordinary name */
	check_canon("foo.0x1g", HOST_NAME, "foo.0x1g");
	check_canon("1.2.3.4..", HOST_MALFORMED, "");
	check_canon("XN--BCHER-KVA.EXAMPLE.", HOST_NAME, "xn--bcher-kva.example");
	check_canon("xn--ls8h.", HOST_NAME, "xn--ls8h");
	/* IPv6 */
	check_canon("[::1]", HOST_IPV6, "::1");
	check_canon("::1", HOST_IPV6, "::1");
	check_canon("0:0:0:0:0:0:0:1", HOST_IPV6, "::1");
	check_canon("2001:0DB8:0000:0000:0000:0000:0000:0001", HOST_IPV6, "2001:db8::1");
	check_canon("2001:db8:0:1:0:0:1:0", HOST_IPV6, "2001:db8:0:1::1:0");
	check_canon("1:0:0:2:0:0:0:3", HOST_IPV6, "1:0:0:2::3");
	check_canon("1:0:2:0:3:0:4:0", HOST_IPV6, "1:0:2:0:3:0:4:0");
	check_canon("::", HOST_IPV6, "::");
	check_canon("::1.2.3.4", HOST_IPV6, "::102:304");
	check_canon("64:ff9b::1.2.3.4", HOST_IPV6, "64:ff9b::102:304");
	check_canon("::ffff:127.0.0.1", HOST_IPV4, "127.0.0.1");
	check_canon("::ffff:7f00:1", HOST_IPV4, "127.0.0.1");
	check_canon("[::FFFF:169.254.169.254]", HOST_IPV4, "169.254.169.254");
	check_canon("[1.2.3.4]", HOST_IPV4, "1.2.3.4");
	check_canon("[Example.com]", HOST_NAME, "example.com");
	/* malformed */
	check_canon("", HOST_MALFORMED, "");
	check_canon("[]", HOST_MALFORMED, "");
	check_canon("[", HOST_MALFORMED, "");
	check_canon("[::1", HOST_MALFORMED, "");
	check_canon("::1.", HOST_MALFORMED, "");
	check_canon("fe80::1%eth0", HOST_MALFORMED, "");
	check_canon("[fe80::1%eth0]", HOST_MALFORMED, "");
	check_canon("evil.com%00.example.com", HOST_MALFORMED, "");
	check_canon("a b.example.com", HOST_MALFORMED, "");
	check_canon("b\xc3\xbc"
		    "cher.example",
	    HOST_MALFORMED, "");
	check_canon("example.com:443", HOST_MALFORMED, "");
	check_canon("1:2:3:4::5:6:7:8", HOST_MALFORMED, "");
	check_canon("1::2::3", HOST_MALFORMED, "");
	check_canon("::ffff:01.2.3.4", HOST_MALFORMED, "");
	check_canon("a*.com", HOST_MALFORMED, "");
	ok(host_canonicalise("a\0b.com", 7, out) == HOST_MALFORMED,
	    "a NUL inside a host is malformed");
	/* length limits: 255 bytes is the most */
	memset(name, 'a', sizeof(name));
	name[3] = '.';
	name[255] = '\0';
	ok(host_canonicalise(name, 255, out) == HOST_NAME && strlen(out) == 255,
	    "a 255-byte name is kept whole");
	name[254] = '.';
	ok(host_canonicalise(name, 255, out) == HOST_NAME && strlen(out) == 254,
	    "a 255-byte name with a trailing dot loses the dot");
	name[254] = 'a';
	name[255] = 'a';
	name[256] = '\0';
	ok(host_canonicalise(name, 256, out) == HOST_MALFORMED, "a 256-byte name is malformed");
	memset(name, '9', 255);
	name[255] = '\0';
	ok(host_canonicalise(name, 255, out) == HOST_NAME && strcmp(out, name) == 0,
	    "a 255-digit number is kept as spelled");
}

/* Build rule arrays from comma-free lists; NULL-terminated. */
static size_t
rules_build(const char **list, int deny, struct dom_rule *r)
{
	size_t n;
	const char *why;

	for (n = 0; list[n] != NULL; n++)
		if (dom_entry_parse(list[n], deny, &r[n], &why) == -1)
			ok(0, "entry %s parses: %s", list[n], why);
	return n;
}

static void
rules_free(struct dom_rule *r, size_t n)
{
	while (n > 0)
		dom_rule_clear(&r[--n]);
}

static int
decide(
    const char *allow, const char *deny, const char *host, uint16_t port, struct dom_verdict *v)
{
	const char *al[2] = { allow, NULL }, *dl[2] = { deny, NULL };
	struct dom_rule a[1], d[1];
	size_t na = allow != NULL ? rules_build(al, 0, a) : 0;
	size_t nd = deny != NULL ? rules_build(dl, 1, d) : 0;

	dom_decide(a, na, d, nd, host, port, v);
	/* the verdict may point into the rules; keep what we need */
	if (v->rule != NULL)
		v->rule = (const struct dom_rule *)1;
	if (v->reason != NULL && strcmp(v->reason, DOM_REASON_MALFORMED) != 0 &&
	    strcmp(v->reason, DOM_REASON_DENY_LIST) != 0 &&
	    strcmp(v->reason, DOM_REASON_NOT_ALLOWED) != 0)
		v->reason = "custom";
	rules_free(a, na);
	rules_free(d, nd);
	return v->allow;
}

static void
test_decide(void)
{
	static const struct {
		const char *allow, *deny, *host;
		uint16_t port;
		int allowed;
	} t[] = {
		{ "example.com", NULL, "EXAMPLE.COM", 443, 1 },
		{ "example.com", NULL, "example.com.", 443, 1 },
		{ "example.com", NULL, "example.com..", 443, 0 },
		/* issue 31: an empty label is not under the wildcard */
		{ "*.corp.test", "secret.corp.test", "secret..corp.test", 443, 0 },
		{ "*.corp.test", "secret.corp.test", ".secret.corp.test", 443, 0 },
		{ "*.corp.test", "secret.corp.test", "secret.corp.test..", 443, 0 },
		{ "*.corp.test", "secret.corp.test", "other.corp.test.", 443, 1 },
		{ "example.com", NULL, "www.example.com", 443, 0 },
		{ "*.example.com", NULL, "a.b.example.com", 443, 1 },
		{ "*.example.com", NULL, "example.com", 443, 0 },
		{ "*.example.com", NULL, "wwwexample.com", 443, 0 },
		{ "example.com:443", NULL, "example.com", 80, 0 },
		{ "example.com:443", NULL, "example.com", 443, 1 },
		{ "example.com", "example.com:22", "example.com", 22, 0 },
		{ "example.com", "example.com:22", "example.com", 23, 1 },
		{ "*.example.com", "*:22", "a.example.com", 443, 1 },
		{ "*.example.com", "*:22", "a.example.com", 22, 0 },
		{ "127.0.0.1", NULL, "2130706433", 80, 1 },
		{ "127.0.0.1", NULL, "::ffff:127.0.0.1", 80, 1 },
		{ "[::1]:8080", NULL, "0:0:0:0:0:0:0:1", 8080, 1 },
		{ "[::1]:8080", NULL, "[::1]", 8081, 0 },
		{ "*.example.com", NULL, "1.2.3.4", 443, 0 },
		{ "*.3.4", NULL, "1.2.3.4", 443, 0 },
		{ "*.3.4", NULL, "1.2.3.4.5", 443, 0 },
		{ "*.4.5", NULL, "1.2.3.4.5", 443, 1 },
		{ "localhost", NULL, "LOCALHOST.", 3000, 1 },
		{ "*.example.com", NULL, "x_y.example.com", 443, 1 },
		{ "example.com", "169.254.169.254", "2852039166", 80, 0 },
		{ "xn--bcher-kva.example", NULL,
		    "b\xc3\xbc"
		    "cher.example",
		    443, 0 },
		{ "xn--bcher-kva.example", NULL, "XN--BCHER-KVA.EXAMPLE.", 443, 1 },
		{ "256.1.1.1", NULL, "256.1.1.1", 443, 1 },
		{ "127.1", NULL, "127.1", 443, 0 },
		{ "[127.1]", NULL, "127.1", 443, 1 },
		{ "1.2.3.4", NULL, "[1.2.3.4]", 443, 1 },
		{ "example.com", NULL, "[example.com]", 443, 1 },
		{ "example.com", "*", "example.com", 443, 0 },
		{ "*.example.com", NULL, "evil.com%00.example.com", 443, 0 },
		{ "*.example.com", NULL, "::ffff:1.2.3.4%x.example.com", 443, 0 },
	};
	struct dom_verdict v;
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int got = decide(t[i].allow, t[i].deny, t[i].host, t[i].port, &v);

		ok(got == t[i].allowed, "allow [%s] deny [%s]: %s:%u -> %s (%s)", t[i].allow,
		    t[i].deny != NULL ? t[i].deny : "", t[i].host, t[i].port,
		    t[i].allowed ? "allow" : "deny", v.reason != NULL ? v.reason : "allowed");
	}
	decide("example.com", NULL, "a b", 443, &v);
	ok(v.reason != NULL && strcmp(v.reason, DOM_REASON_MALFORMED) == 0 && v.rule == NULL,
	    "a malformed host is denied as malformed");
	decide("example.com", "example.com", "example.com", 443, &v);
	ok(v.reason != NULL && strcmp(v.reason, DOM_REASON_DENY_LIST) == 0 && v.rule != NULL,
	    "a denied host carries the deny-list reason and its rule");
	decide("example.com", NULL, "example.org", 443, &v);
	ok(!v.allow && v.reason != NULL && strcmp(v.reason, DOM_REASON_NOT_ALLOWED) == 0 &&
		v.rule == NULL,
	    "an unlisted host is not on the allow list");
	decide("example.com", NULL, "example.com", 443, &v);
	ok(v.allow && v.reason == NULL && v.rule != NULL, "an allowed host names its rule");

	/* a rule's own reason, and first match wins */
	{
		const char *dl[] = { "*.example.com", "example.com", "*", NULL };
		const char *al[] = { "example.com", NULL };
		struct dom_rule d[3], a[1];
		size_t nd = rules_build(dl, 1, d), na = rules_build(al, 0, a);

		d[1].reason = xstrdup("use the mirror");
		dom_decide(a, na, d, nd, "Example.COM", 443, &v);
		ok(!v.allow && v.rule == &d[1] && strcmp(v.reason, "use the mirror") == 0,
		    "the first matching deny rule gives its own reason");
		dom_decide(a, na, d, nd, "www.example.com", 443, &v);
		ok(!v.allow && v.rule == &d[0] && strcmp(v.reason, DOM_REASON_DENY_LIST) == 0,
		    "a deny rule without a reason gives the default");
		rules_free(d, nd);
		rules_free(a, na);
	}
	/* dom_rule_matches on its own */
	{
		const char *why;
		struct dom_rule r;

		dom_entry_parse("*.example.com:443", 0, &r, &why);
		ok(dom_rule_matches(&r, "a.example.com", HOST_NAME, 443), "wildcard matches");
		ok(!dom_rule_matches(&r, "a.example.com", HOST_NAME, 80),
		    "wildcard port differs");
		ok(!dom_rule_matches(&r, "example.com", HOST_NAME, 443), "wildcard skips apex");
		ok(!dom_rule_matches(&r, "aexample.com", HOST_NAME, 443),
		    "wildcard needs a dot");
		ok(!dom_rule_matches(&r, "a.example.com", HOST_MALFORMED, 443),
		    "nothing matches a malformed host");
		dom_rule_clear(&r);
	}
}

/* One line of domain-decisions.jsonl: one TAP line listing every case that differs. */
static void
vector_decisions_line(const char *line, size_t lineno)
{
	cJSON *doc = cJSON_Parse(line), *net, *al, *dl, *reasons, *cases, *it;
	struct dom_rule *a = NULL, *d = NULL;
	size_t na = 0, nd = 0, ncases = 0, nbad = 0;
	char bad[1024] = "";
	const char *why;

	net = cJSON_GetObjectItemCaseSensitive(
	    cJSON_GetObjectItemCaseSensitive(doc, "settings"), "network");
	al = cJSON_GetObjectItemCaseSensitive(net, "allowedDomains");
	dl = cJSON_GetObjectItemCaseSensitive(net, "deniedDomains");
	reasons = cJSON_GetObjectItemCaseSensitive(net, "deniedDomainReasons");
	cases = cJSON_GetObjectItemCaseSensitive(doc, "cases");
	if (!cJSON_IsArray(al) || !cJSON_IsArray(dl) || !cJSON_IsArray(cases)) {
		ok(0, "domain-decisions line %zu is well formed", lineno);
		goto out;
	}
	a = xcalloc((size_t)cJSON_GetArraySize(al) + 1, sizeof(*a));
	d = xcalloc((size_t)cJSON_GetArraySize(dl) + 1, sizeof(*d));
	cJSON_ArrayForEach(it, al)
	{
		if (!cJSON_IsString(it) ||
		    dom_entry_parse(it->valuestring, 0, &a[na], &why) == -1) {
			snprintf(bad, sizeof(bad), " [allow entry %s refused]",
			    cJSON_IsString(it) ? it->valuestring : "(not a string)");
			nbad++;
			continue;
		}
		na++;
	}
	cJSON_ArrayForEach(it, dl)
	{
		cJSON *rs;

		if (!cJSON_IsString(it) ||
		    dom_entry_parse(it->valuestring, 1, &d[nd], &why) == -1) {
			snprintf(bad, sizeof(bad), " [deny entry %s refused]",
			    cJSON_IsString(it) ? it->valuestring : "(not a string)");
			nbad++;
			continue;
		}
		rs = cJSON_GetObjectItemCaseSensitive(reasons, it->valuestring);
		if (cJSON_IsString(rs))
			d[nd].reason = xstrdup(rs->valuestring);
		nd++;
	}
	cJSON_ArrayForEach(it, cases)
	{
		cJSON *h = cJSON_GetObjectItemCaseSensitive(it, "host");
		cJSON *p = cJSON_GetObjectItemCaseSensitive(it, "port");
		cJSON *vd = cJSON_GetObjectItemCaseSensitive(it, "verdict");
		struct dom_verdict v;
		int want;

		ncases++;
		if (!cJSON_IsString(h) || !cJSON_IsNumber(p) || !cJSON_IsString(vd)) {
			nbad++;
			continue;
		}
		want = strcmp(vd->valuestring, "allow") == 0;
		dom_decide(a, na, d, nd, h->valuestring, (uint16_t)p->valueint, &v);
		if (v.allow != want) {
			size_t used = strlen(bad);

			nbad++;
			snprintf(bad + used, sizeof(bad) - used, " [%s:%d want %s got %s]",
			    h->valuestring, p->valueint, vd->valuestring,
			    v.allow ? "allow" : v.reason);
		}
	}
	ok(nbad == 0 && ncases > 0, "domain-decisions line %zu: %zu cases%s", lineno, ncases,
	    bad);
out:
	while (na > 0)
		dom_rule_clear(&a[--na]);
	while (nd > 0)
		dom_rule_clear(&d[--nd]);
	free(a);
	free(d);
	cJSON_Delete(doc);
}

/* Non-ASCII, a space, or a "*" past a leading "*.": such an entry can never match a
 * valid host, so srt may refuse it where the reference accepts it (vectors README). */
static int
never_matches(const char *e)
{
	if (strchr(strncmp(e, "*.", 2) == 0 ? e + 2 : e, '*') != NULL)
		return 1;
	for (; *e != '\0'; e++)
		if ((unsigned char)*e >= 0x80 || *e == ' ')
			return 1;
	return 0;
}

static void
vector_entries_line(const char *line, size_t lineno)
{
	cJSON *doc = cJSON_Parse(line);
	cJSON *e = cJSON_GetObjectItemCaseSensitive(doc, "entry");
	cJSON *wa = cJSON_GetObjectItemCaseSensitive(doc, "allowedDomains");
	cJSON *wd = cJSON_GetObjectItemCaseSensitive(doc, "deniedDomains");
	char ga[512], gd[512];
	int accept_a, accept_d, want_a, want_d, good;

	if (!cJSON_IsString(e) || !cJSON_IsString(wa) || !cJSON_IsString(wd)) {
		ok(0, "list-entries line %zu is well formed", lineno);
		goto out;
	}
	want_a = strcmp(wa->valuestring, "accept") == 0;
	want_d = strcmp(wd->valuestring, "accept") == 0;
	accept_a = entry(e->valuestring, 0, ga, sizeof(ga)) == 0;
	accept_d = entry(e->valuestring, 1, gd, sizeof(gd)) == 0;
	good = (accept_a == want_a || (want_a && never_matches(e->valuestring))) &&
	    (accept_d == want_d || (want_d && never_matches(e->valuestring)));
	ok(good, "list-entries line %zu: \"%s\" allow %s (%s), deny %s (%s)", lineno,
	    e->valuestring, wa->valuestring, ga, wd->valuestring, gd);
out:
	cJSON_Delete(doc);
}

static void
vectors(const char *file, void (*fn)(const char *, size_t), size_t min_lines)
{
	char path[4096], *buf = NULL, *line, *next;
	size_t len, lineno = 0;

	snprintf(path, sizeof(path), "%s/%s", data_dir(), file);
	if (read_file(path, 64 << 20, &buf, &len) == -1) {
		ok(0, "read %s", path);
		return;
	}
	for (line = buf; line != NULL && *line != '\0'; line = next) {
		next = strchr(line, '\n');
		if (next != NULL)
			*next++ = '\0';
		if (*line == '\0')
			continue;
		fn(line, ++lineno);
	}
	ok(lineno >= min_lines, "%s: %zu lines checked", file, lineno);
	free(buf);
}

/* injectHosts patterns: the reference's host-pattern rule, and coverage by allowedDomains
 * with ports ignored. */
static void
test_inject_hosts(void)
{
	static const char *const allowed[] = { "api.github.com:443", "*.example.com", "[::1]",
		"1.2.3.4" };
	static const struct {
		const char *p;
		int valid, covered;
	} c[] = {
		{ "api.github.com", 1, 1 }, /* the port of the entry does not matter */
		{ "API.GitHub.com", 1, 1 },
		{ "github.com", 1, 0 },
		{ "a.example.com", 1, 1 },
		{ "a.b.example.com", 1, 1 },
		{ "example.com", 1, 0 }, /* the apex is not under its wildcard */
		{ "*.example.com", 1, 1 },
		{ "*.a.example.com", 1, 1 },
		{ "*.github.com", 1, 0 }, /* an exact entry never covers a wildcard */
		{ "::1", 1, 1 },          /* an IPv6 pattern is written bare */
		{ "1.2.3.4", 1, 1 },
		{ "localhost", 1, 0 },
		{ "[::1]", 0, 0 },
		{ "api.github.com:443", 0, 0 },
		{ "*.com", 0, 0 },
		{ "*", 0, 0 },
		{ "http://x.com", 0, 0 },
		{ "x", 0, 0 },
	};
	struct dom_rule rules[4];
	const char *why;
	size_t i;

	for (i = 0; i < 4; i++)
		if (dom_entry_parse(allowed[i], 0, &rules[i], &why) != 0)
			ok(0, "allowed entry %s parses", allowed[i]);
	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		int v = dom_pattern_valid(c[i].p, &why) == 0;

		ok(v == c[i].valid && (!v || why == NULL) && (v || why != NULL),
		    "injectHosts pattern %s is %s", c[i].p, c[i].valid ? "valid" : "refused");
		if (c[i].valid)
			ok(dom_pattern_covered(c[i].p, rules, 4) == c[i].covered,
			    "%s is %scovered by allowedDomains", c[i].p,
			    c[i].covered ? "" : "not ");
	}
	ok(!dom_pattern_covered("a.example.com", rules, 0), "nothing covers with no entries");
	for (i = 0; i < 4; i++)
		dom_rule_clear(&rules[i]);
}

int
main(void)
{
	test_entries();
	test_canonicalise();
	test_decide();
	test_inject_hosts();
	vectors("domain-decisions.jsonl", vector_decisions_line, 200);
	vectors("list-entries.jsonl", vector_entries_line, 150);
	return tap_done();
}
