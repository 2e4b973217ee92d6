/*
 * IP literals, ranges, built-in address classes and embedded IPv4 (BEHAVIOR §1.3, §2.4).
 * Expected values were checked against the reference's address.js.
 */
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "tap.h"

static void
test_literals(void)
{
	static const struct {
		const char *in, *out; /* out NULL: rejected */
	} t[] = {
		{ "1.2.3.4", "1.2.3.4" },
		{ "0.0.0.0", "0.0.0.0" },
		{ "255.255.255.255", "255.255.255.255" },
		{ "256.0.0.1", NULL },
		{ "01.2.3.4", NULL },
		{ "1.2.3.04", NULL },
		{ "1.2.3", NULL },
		{ "127.1", NULL },
		{ "1.2.3.4.", NULL },
		{ " 1.2.3.4", NULL },
		{ "1.2.3.4 ", NULL },
		{ "1.2.3.4/8", NULL },
		{ "1..2.3", NULL },
		{ "", NULL },
		{ "::", "::" },
		{ "::1", "::1" },
		{ "1::", "1::" },
		{ "1:2:3:4:5:6:7:8", "1:2:3:4:5:6:7:8" },
		{ "1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0" },
		{ "::1:2:3:4:5:6:7", "0:1:2:3:4:5:6:7" },
		{ "0:0:0:0:0:0:0:1", "::1" },
		{ "2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1" },
		{ "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1" },
		{ "1:0:0:2:0:0:0:3", "1:0:0:2::3" },
		{ "1:0:2:0:3:0:4:0", "1:0:2:0:3:0:4:0" },
		{ "::ffff:1.2.3.4", "::ffff:102:304" },
		{ "::FFFF:1.2.3.4", "::ffff:102:304" },
		{ "1:2:3:4:5:6:1.2.3.4", "1:2:3:4:5:6:102:304" },
		{ "1:2:3:4:5::1.2.3.4", "1:2:3:4:5:0:102:304" },
		{ "1:2:3:4::5:6:7:8", NULL },
		{ "1:2:3:4:5:6::1.2.3.4", NULL },
		{ "1:2:3:4:5:6:7:1.2.3.4", NULL },
		{ "1::2::3", NULL },
		{ ":1", NULL },
		{ "1:", NULL },
		{ ":::", NULL },
		{ "1:::2", NULL },
		{ "12345::", NULL },
		{ "00000::1", NULL },
		{ "::ffff:1.2.3", NULL },
		{ "::ffff:01.2.3.4", NULL },
		{ "::1.2.3.4:5", NULL },
		{ "1:2:3:4:5:6:7:8:9", NULL },
		{ "[::1]", NULL },
		{ "fe80::1%eth0", NULL },
		{ "g::1", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ip_addr a;
		char out[64] = "";
		int r = ip_addr_parse(t[i].in, &a);

		if (r == 0)
			ip_addr_format(&a, out, sizeof(out));
		if (t[i].out == NULL)
			ok(r == -1, "literal \"%s\" rejected", t[i].in);
		else
			ok(r == 0 && strcmp(out, t[i].out) == 0,
			    "literal \"%s\" -> %s (got %s)", t[i].in, t[i].out,
			    r == 0 ? out : "rejected");
	}
	{
		struct ip_addr a, b;

		ip_addr_parse("2001:db8::1", &a);
		ip_addr_parse("2001:DB8:0:0:0:0:0:1", &b);
		ok(ip_addr_equal(&a, &b), "equal spellings are equal addresses");
		ip_addr_parse("::ffff:1.2.3.4", &a);
		ip_addr_parse("1.2.3.4", &b);
		ok(!ip_addr_equal(&a, &b), "a mapped address is not equal to its IPv4 address");
	}
}

static void
test_ranges(void)
{
	static const struct {
		const char *in, *out; /* out NULL: rejected */
	} t[] = {
		{ "10.0.0.0/8", "10.0.0.0/8" },
		{ "10.1.2.3/8", "10.0.0.0/8" },
		{ "1.2.3.4", "1.2.3.4" },
		{ "1.2.3.4/32", "1.2.3.4" },
		{ "0.0.0.0/0", "0.0.0.0/0" },
		{ "1.2.3.4/032", "1.2.3.4" },
		{ "1.2.3.4/00", "0.0.0.0/0" },
		{ "1.2.3.4/31", "1.2.3.4/31" },
		{ "1.2.3.5/31", "1.2.3.4/31" },
		{ "1.2.3.4%x", "1.2.3.4" },
		{ "fe80::/10", "fe80::/10" },
		{ "FE80::/10", "fe80::/10" },
		{ "febf:ffff::/10", "fe80::/10" },
		{ "fe80::1%eth0/64", "fe80::/64" },
		{ "fe80::1%", "fe80::1" },
		{ "::/0", "::/0" },
		{ "2001:db8::/128", "2001:db8::" },
		{ "2001:db8::1/127", "2001:db8::/127" },
		{ "::ffff:10.0.0.0/104", "10.0.0.0/8" },
		{ "::ffff:1.2.3.4", "1.2.3.4" },
		{ "::ffff:0:0/96", "0.0.0.0/0" },
		{ "::ffff:1.2.3.4/96", "0.0.0.0/0" },
		{ "::ffff:1.2.3.4/128", "1.2.3.4" },
		{ "::ffff:1.2.3.4/95", NULL },
		{ "1.2.3.4/33", NULL },
		{ "::/129", NULL },
		{ "1.2.3.4/0129", NULL },
		{ "1.2.3.4/", NULL },
		{ "/8", NULL },
		{ "1.2.3.4/8/8", NULL },
		{ "1.2.3.4/-1", NULL },
		{ "1.2.3.4/+8", NULL },
		{ "1.2.3.4/ 8", NULL },
		{ "1.2.3.4/8 ", NULL },
		{ "01.2.3.4/8", NULL },
		{ "[::1]", NULL },
		{ "[::1]/128", NULL },
		{ "example.com", NULL },
		{ "", NULL },
		{ "1.2.3/8", NULL },
		{ " 1.2.3.4", NULL },
		{ "%eth0", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct addr_range r;
		const char *why = NULL;
		char out[64] = "";
		int rc = addr_range_parse(t[i].in, &r, &why);

		if (rc == 0)
			addr_range_format(&r, out, sizeof(out));
		if (t[i].out == NULL)
			ok(rc == -1 && why != NULL && *why != '\0',
			    "range \"%s\" rejected (%s)", t[i].in,
			    why != NULL ? why : "no reason");
		else
			ok(rc == 0 && strcmp(out, t[i].out) == 0, "range \"%s\" -> %s (got %s)",
			    t[i].in, t[i].out, rc == 0 ? out : why);
	}
}

static int
contains(const char *range, const char *addr)
{
	struct addr_range r;
	struct ip_addr a;
	const char *why;

	if (addr_range_parse(range, &r, &why) == -1 || ip_addr_parse(addr, &a) == -1)
		return -1;
	return addr_range_contains(&r, &a);
}

static void
test_contains(void)
{
	static const struct {
		const char *range, *addr;
		int in;
	} t[] = {
		{ "10.0.0.0/8", "10.255.1.1", 1 },
		{ "10.0.0.0/8", "11.0.0.0", 0 },
		{ "10.0.0.0/8", "9.255.255.255", 0 },
		{ "10.0.0.0/8", "::ffff:10.1.1.1", 1 },
		{ "10.0.0.0/8", "::10.1.1.1", 0 },
		{ "10.0.0.0/8", "64:ff9b::a01:101", 0 },
		{ "1.2.3.4", "1.2.3.4", 1 },
		{ "1.2.3.4", "1.2.3.5", 0 },
		{ "1.2.3.0/25", "1.2.3.127", 1 },
		{ "1.2.3.0/25", "1.2.3.128", 0 },
		{ "0.0.0.0/0", "255.255.255.255", 1 },
		{ "0.0.0.0/0", "2001::1", 0 },
		{ "0.0.0.0/0", "::ffff:1.2.3.4", 1 },
		{ "::/0", "1.2.3.4", 1 },
		{ "::/0", "2001::1", 1 },
		{ "fe80::/10", "febf::1", 1 },
		{ "fe80::/10", "fec0::", 0 },
		{ "fe80::/10", "1.2.3.4", 0 },
		{ "::ffff:0:0/96", "1.2.3.4", 1 },
		{ "::ffff:10.0.0.0/104", "::ffff:10.9.9.9", 1 },
		{ "2001:db8::/127", "2001:db8::1", 1 },
		{ "2001:db8::/127", "2001:db8::2", 0 },
		{ "2001:db8::1", "2001:db8::1", 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		ok(contains(t[i].range, t[i].addr) == t[i].in, "%s %s %s", t[i].range,
		    t[i].in ? "contains" : "does not contain", t[i].addr);
}

static void
test_embedded(void)
{
	static const struct {
		const char *addr, *v4; /* v4 NULL: none */
	} t[] = {
		{ "::ffff:1.2.3.4", "1.2.3.4" },
		{ "::1.2.3.4", "1.2.3.4" },
		{ "::ffff:0:1.2.3.4", "1.2.3.4" },
		{ "64:ff9b::1.2.3.4", "1.2.3.4" },
		{ "64:ff9b::7f00:1", "127.0.0.1" },
		{ "2002:102:304::1", "1.2.3.4" },
		{ "2002:a9fe:a9fe:1:2:3:4:5", "169.254.169.254" },
		{ "::1", "0.0.0.1" },
		{ "::", "0.0.0.0" },
		{ "64:ff9b:1::1.2.3.4", NULL },
		{ "64:ff9b:0:0:1::1.2.3.4", NULL },
		{ "2001:db8::1", NULL },
		{ "::1:0:1.2.3.4", NULL },
		{ "1::1.2.3.4", NULL },
		{ "2003::", NULL },
		{ "1.2.3.4", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ip_addr a, v4;
		char out[64] = "";
		int r;

		if (ip_addr_parse(t[i].addr, &a) == -1) {
			ok(0, "parse %s", t[i].addr);
			continue;
		}
		r = addr_embedded_v4(&a, &v4);
		if (r)
			ip_addr_format(&v4, out, sizeof(out));
		if (t[i].v4 == NULL)
			ok(r == 0, "%s embeds no IPv4 address (got %s)", t[i].addr, out);
		else
			ok(r == 1 && v4.family == 4 && strcmp(out, t[i].v4) == 0,
			    "%s embeds %s (got %s)", t[i].addr, t[i].v4, r ? out : "none");
	}
}

static void
test_classes(void)
{
	enum {
		L = ADDR_CLASS_LOOPBACK,
		U = ADDR_CLASS_UNSPECIFIED,
		LL = ADDR_CLASS_LINK_LOCAL,
		M = ADDR_CLASS_MULTICAST,
		B = ADDR_CLASS_BROADCAST,
		MD = ADDR_CLASS_METADATA,
	};
	static const struct {
		const char *addr;
		unsigned classes;
	} t[] = {
		{ "127.0.0.1", L },
		{ "127.255.255.255", L },
		{ "128.0.0.0", 0 },
		{ "126.255.255.255", 0 },
		/* ::1 also embeds 0.0.0.1, which is in 0.0.0.0/8 */
		{ "::1", L | U },
		{ "::", U },
		{ "::2", U },
		{ "0.0.0.0", U },
		{ "0.255.255.255", U },
		{ "1.0.0.0", 0 },
		{ "169.254.169.254", LL },
		{ "169.254.0.0", LL },
		{ "169.255.0.0", 0 },
		{ "fe80::1", LL },
		{ "febf:ffff::", LL },
		{ "fec0::1", 0 },
		{ "224.0.0.1", M },
		{ "239.255.255.255", M },
		{ "240.0.0.0", 0 },
		{ "223.255.255.255", 0 },
		{ "ff02::1", M },
		{ "feff::", 0 },
		{ "255.255.255.255", B },
		{ "255.255.255.254", 0 },
		{ "100.100.100.200", MD },
		{ "100.100.100.201", 0 },
		{ "168.63.129.16", MD },
		{ "192.0.0.192", MD },
		{ "fd00:ec2::254", MD },
		{ "fd00:ec2:ffff::1", MD },
		{ "fd00:ec3::", 0 },
		{ "fd20:ce::254", MD },
		{ "fd20:ce::253", 0 },
		{ "fd00:c1::a9fe:a9fe", MD },
		{ "fd00:c1::a9fe:a9ff", 0 },
		{ "fd00:42::42", MD },
		{ "fd00:a9fe:a9fe::1", MD },
		{ "fd00:100::100:200", MD },
		{ "::ffff:127.0.0.1", L },
		{ "64:ff9b::7f00:1", L },
		{ "2002:7f00:1::", L },
		{ "64:ff9b:1::7f00:1", 0 },
		{ "::ffff:169.254.169.254", LL },
		{ "2002:a9fe:a9fe::1", LL },
		{ "::ffff:0:a9fe:a9fe", LL },
		{ "::a9fe:a9fe", LL },
		{ "::ffff:255.255.255.255", B },
		{ "64:ff9b::e000:1", M },
		{ "2002:6464:64c8::", MD },
		{ "10.0.0.1", 0 },
		{ "192.168.1.1", 0 },
		{ "fc00::1", 0 },
		{ "2001:db8::1", 0 },
	};
	static const struct {
		unsigned class;
		const char *words;
	} w[] = {
		{ ADDR_CLASS_LOOPBACK, "a loopback address" },
		{ ADDR_CLASS_UNSPECIFIED, "an unspecified address" },
		{ ADDR_CLASS_LINK_LOCAL, "a link-local address" },
		{ ADDR_CLASS_MULTICAST, "a multicast address" },
		{ ADDR_CLASS_BROADCAST, "the broadcast address" },
		{ ADDR_CLASS_METADATA, "a cloud metadata address" },
	};
	size_t i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		struct ip_addr a;
		unsigned got = 0;

		if (ip_addr_parse(t[i].addr, &a) == 0)
			got = addr_builtin_classes(&a);
		else
			got = 0x8000;
		ok(got == t[i].classes, "%s has classes 0x%x (got 0x%x)", t[i].addr,
		    t[i].classes, got);
	}
	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		ok(strcmp(addr_class_words(w[i].class), w[i].words) == 0,
		    "class 0x%x reads \"%s\"", w[i].class, w[i].words);
}

/* The one port parser of the CONNECT and request targets and srt-policy match. */
static void
test_ports(void)
{
	static const struct {
		const char *s;
		int rc;
		uint16_t port;
	} cases[] = {
		{ "1", 0, 1 },
		{ "443", 0, 443 },
		{ "65535", 0, 65535 },
		{ "00080", 0, 80 },
		{ "0", -1, 0 },
		{ "65536", -1, 0 },
		{ "", -1, 0 },
		{ "123456", -1, 0 },
		{ "+80", -1, 0 },
		{ "-1", -1, 0 },
		{ " 80", -1, 0 },
		{ "8a", -1, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint16_t port = 0;
		int rc = port_parse(cases[i].s, strlen(cases[i].s), &port);

		ok(rc == cases[i].rc && (rc != 0 || port == cases[i].port), "port \"%s\": %s",
		    cases[i].s, rc == 0 ? "accepted" : "refused");
	}
}

int
main(void)
{
	test_ports();
	test_literals();
	test_ranges();
	test_contains();
	test_embedded();
	test_classes();
	return tap_done();
}
