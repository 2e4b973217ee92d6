/*
 * IP addresses and ranges (BEHAVIOR §1.3 deniedResolvedAddresses, §2.4 address classes).
 *
 * The literal syntax is the reference's: a strict dotted quad (no leading zeros, no
 * inet_aton shorthand) and the usual IPv6 text forms with an optional dotted-quad tail.
 * inet_pton is not used because its acceptance differs between C libraries and we must
 * agree with the reference byte for byte.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"

/* Parse exactly n bytes of s as a strict dotted quad: four decimal parts of 1-3 digits,
 * each at most 255, "0" the only part that may start with a zero. */
static int
ip4_parse(const char *s, size_t n, uint8_t out[4])
{
	size_t i = 0;
	int part;

	for (part = 0; part < 4; part++) {
		unsigned v = 0;
		size_t start = i;

		while (i < n && s[i] >= '0' && s[i] <= '9' && i - start < 3)
			v = v * 10 + (unsigned)(s[i++] - '0');
		if (i == start || v > 255 || (s[start] == '0' && i - start > 1))
			return -1;
		out[part] = (uint8_t)v;
		if (part < 3) {
			if (i >= n || s[i] != '.')
				return -1;
			i++;
		}
	}
	return i == n ? 0 : -1;
}

int
hex_digit_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
port_parse(const char *s, size_t n, uint16_t *port)
{
	unsigned long v = 0;

	if (n == 0 || n > 5)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* Parse exactly n bytes of s as IPv6 text: groups of 1-4 hex digits, at most one "::"
 * standing for at least one zero group, and optionally a strict dotted quad as the last
 * two groups. */
static int
ip6_parse(const char *s, size_t n, uint8_t out[16])
{
	uint16_t g[8];
	size_t i = 0, ngroups = 0;
	int gap = -1; /* index of the group "::" stands before */

	if (n < 2)
		return -1;
	if (s[0] == ':') {
		if (s[1] != ':')
			return -1;
		gap = 0;
		i = 2;
		if (i == n)
			goto fill;
	}
	for (;;) {
		size_t start = i;
		unsigned v = 0;

		while (i < n && hex_digit_value((unsigned char)s[i]) >= 0 && i - start < 4)
			v = v * 16 + (unsigned)hex_digit_value((unsigned char)s[i++]);
		if (i < n && s[i] == '.') {
			/* A dotted quad takes the place of the last two groups. */
			uint8_t q[4];

			if (ngroups > 6 || ip4_parse(s + start, n - start, q) == -1)
				return -1;
			g[ngroups++] = (uint16_t)(q[0] << 8 | q[1]);
			g[ngroups++] = (uint16_t)(q[2] << 8 | q[3]);
			i = n;
			break;
		}
		if (i == start || ngroups == 8)
			return -1;
		g[ngroups++] = (uint16_t)v;
		if (i == n)
			break;
		if (s[i] != ':')
			return -1;
		i++;
		if (i < n && s[i] == ':') {
			if (gap != -1)
				return -1;
			gap = (int)ngroups;
			i++;
			if (i == n)
				break;
		} else if (i == n)
			return -1; /* a single trailing colon */
	}
fill:
	if (gap == -1) {
		if (ngroups != 8)
			return -1;
	} else {
		size_t zeros, k;

		if (ngroups >= 8)
			return -1; /* "::" must stand for at least one group */
		zeros = 8 - ngroups;
		memmove(g + gap + zeros, g + gap, (ngroups - (size_t)gap) * sizeof(g[0]));
		for (k = 0; k < zeros; k++)
			g[(size_t)gap + k] = 0;
	}
	for (i = 0; i < 8; i++) {
		out[2 * i] = (uint8_t)(g[i] >> 8);
		out[2 * i + 1] = (uint8_t)g[i];
	}
	return 0;
}

int
ip_addr_parse(const char *s, struct ip_addr *out)
{
	size_t n = strlen(s);

	memset(out, 0, sizeof(*out));
	if (ip4_parse(s, n, out->bytes) == 0) {
		out->family = 4;
		return 0;
	}
	memset(out->bytes, 0, sizeof(out->bytes));
	if (ip6_parse(s, n, out->bytes) == 0) {
		out->family = 6;
		return 0;
	}
	memset(out, 0, sizeof(*out));
	return -1;
}

/* Append decimal v to out at *off, within outlen (room for a NUL kept). */
static void
put_dec(char *out, size_t outlen, size_t *off, unsigned v)
{
	char d[3];
	int n = 0;

	do {
		d[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0 && n < 3);
	while (n > 0 && *off + 1 < outlen)
		out[(*off)++] = d[--n];
}

static void
put_hex(char *out, size_t outlen, size_t *off, unsigned v)
{
	static const char hex[] = "0123456789abcdef";
	int shift = 12;

	while (shift > 0 && ((v >> shift) & 0xf) == 0)
		shift -= 4;
	for (; shift >= 0 && *off + 1 < outlen; shift -= 4)
		out[(*off)++] = hex[(v >> shift) & 0xf];
}

static void
put_chr(char *out, size_t outlen, size_t *off, char c)
{
	if (*off + 1 < outlen)
		out[(*off)++] = c;
}

/* IPv6 text as the WHATWG URL serializer writes it (RFC 5952 compression, lower case,
 * never a dotted-quad tail), so canonical hosts compare equal as strings. Formatting is
 * done by hand: this runs for every request that names an address. */
static void
ip6_format(const uint8_t b[16], char *out, size_t outlen)
{
	uint16_t g[8];
	int i, best = -1, bestlen = 1, run = -1;
	size_t off = 0;

	for (i = 0; i < 8; i++)
		g[i] = (uint16_t)(b[2 * i] << 8 | b[2 * i + 1]);
	for (i = 0; i <= 8; i++) {
		if (i < 8 && g[i] == 0) {
			if (run == -1)
				run = i;
		} else if (run != -1) {
			if (i - run > bestlen) {
				best = run;
				bestlen = i - run;
			}
			run = -1;
		}
	}
	for (i = 0; i < 8; i++) {
		if (i == best) {
			put_chr(out, outlen, &off, ':');
			put_chr(out, outlen, &off, ':');
			i += bestlen - 1;
			continue;
		}
		put_hex(out, outlen, &off, g[i]);
		if (i != 7 && i + 1 != best)
			put_chr(out, outlen, &off, ':');
	}
	out[off] = '\0';
}

void
ip_addr_format(const struct ip_addr *a, char *out, size_t outlen)
{
	size_t off = 0;
	int i;

	if (outlen == 0)
		return;
	if (a->family != 4) {
		ip6_format(a->bytes, out, outlen);
		return;
	}
	for (i = 0; i < 4; i++) {
		if (i > 0)
			put_chr(out, outlen, &off, '.');
		put_dec(out, outlen, &off, a->bytes[i]);
	}
	out[off] = '\0';
}

int
ip_addr_equal(const struct ip_addr *a, const struct ip_addr *b)
{
	return a->family == b->family &&
	    memcmp(a->bytes, b->bytes, a->family == 4 ? 4 : 16) == 0;
}

/* ::ffff:a.b.c.d (addr_mapped_v4), the only IPv6 form that stands for an IPv4 address in
 * range matching too (as net.BlockList treats it). */
static const uint8_t v4mapped_prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static void
mask_bits(uint8_t *bytes, size_t len, unsigned prefix)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (prefix >= 8) {
			prefix -= 8;
			continue;
		}
		bytes[i] &= (uint8_t)(0xff << (8 - prefix));
		prefix = 0;
	}
}

static int
prefix_equal(const uint8_t *a, const uint8_t *b, unsigned prefix)
{
	size_t whole = prefix / 8;
	unsigned rest = prefix % 8;

	if (memcmp(a, b, whole) != 0)
		return 0;
	if (rest == 0)
		return 1;
	return ((a[whole] ^ b[whole]) & (0xff << (8 - rest))) == 0;
}

int
addr_range_parse(const char *s, struct addr_range *out, const char **why)
{
	char buf[64];
	const char *slash, *pct;
	size_t alen;
	unsigned max, prefix;
	struct ip_addr v4;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	slash = strchr(s, '/');
	alen = slash != NULL ? (size_t)(slash - s) : strlen(s);
	/* A zone id says which link, not which address: it is dropped. */
	pct = memchr(s, '%', alen);
	if (pct != NULL)
		alen = (size_t)(pct - s);
	if (alen == 0 || alen >= sizeof(buf)) {
		*why = "not an IP address";
		return -1;
	}
	memcpy(buf, s, alen);
	buf[alen] = '\0';
	if (ip_addr_parse(buf, &out->base) == -1) {
		*why = "not an IP address (IPv6 is written without brackets)";
		return -1;
	}
	max = out->base.family == 4 ? 32 : 128;
	prefix = max;
	if (slash != NULL) {
		const char *p = slash + 1;
		size_t nd = strspn(p, "0123456789");

		if (nd == 0 || nd > 3 || p[nd] != '\0') {
			*why = "the prefix length must be 1 to 3 digits";
			return -1;
		}
		prefix = (unsigned)strtoul(p, NULL, 10);
		if (prefix > max) {
			*why = out->base.family == 4
			    ? "the prefix length of an IPv4 range is at most 32"
			    : "the prefix length of an IPv6 range is at most 128";
			return -1;
		}
	}
	/* An IPv4-mapped range is the IPv4 range it stands for. */
	if (addr_mapped_v4(&out->base, &v4)) {
		if (prefix < 96) {
			*why = "an IPv4-mapped range needs a prefix length of at least 96";
			memset(out, 0, sizeof(*out));
			return -1;
		}
		out->base = v4;
		prefix -= 96;
	}
	out->prefix = (uint8_t)prefix;
	mask_bits(out->base.bytes, out->base.family == 4 ? 4 : 16, prefix);
	return 0;
}

int
addr_range_contains(const struct addr_range *r, const struct ip_addr *a)
{
	struct ip_addr m;

	if (r->base.family == a->family)
		return prefix_equal(r->base.bytes, a->bytes, r->prefix);
	if (r->base.family == 4)
		return addr_mapped_v4(a, &m) && prefix_equal(r->base.bytes, m.bytes, r->prefix);
	/* An IPv6 range holds an IPv4 address when it holds its mapped form. */
	memset(&m, 0, sizeof(m));
	m.family = 6;
	memcpy(m.bytes, v4mapped_prefix, 12);
	memcpy(m.bytes + 12, a->bytes, 4);
	return prefix_equal(r->base.bytes, m.bytes, r->prefix);
}

void
addr_range_format(const struct addr_range *r, char *out, size_t outlen)
{
	char a[64];
	unsigned max = r->base.family == 4 ? 32 : 128;

	ip_addr_format(&r->base, a, sizeof(a));
	if (r->prefix >= max)
		snprintf(out, outlen, "%s", a);
	else
		snprintf(out, outlen, "%s/%u", a, r->prefix);
}

int
addr_embedded_v4(const struct ip_addr *a, struct ip_addr *v4)
{
	uint16_t g[8];
	int i, low = 0;

	if (a->family != 6)
		return 0;
	for (i = 0; i < 8; i++)
		g[i] = (uint16_t)(a->bytes[2 * i] << 8 | a->bytes[2 * i + 1]);
	memset(v4, 0, sizeof(*v4));
	v4->family = 4;
	if (g[0] == 0x2002) {
		/* 6to4: the IPv4 address follows the 16-bit prefix. */
		memcpy(v4->bytes, a->bytes + 2, 4);
		return 1;
	}
	if (g[0] == 0x64 && g[1] == 0xff9b && !g[2] && !g[3] && !g[4] && !g[5])
		low = 1; /* NAT64 well-known prefix; not 64:ff9b:1::/48 */
	else if (!g[0] && !g[1] && !g[2] && !g[3] && !g[4] && (g[5] == 0 || g[5] == 0xffff))
		low = 1; /* IPv4-compatible and IPv4-mapped */
	else if (!g[0] && !g[1] && !g[2] && !g[3] && g[4] == 0xffff && g[5] == 0)
		low = 1; /* IPv4-translated */
	if (!low) {
		memset(v4, 0, sizeof(*v4));
		return 0;
	}
	memcpy(v4->bytes, a->bytes + 12, 4);
	return 1;
}

/* The built-in classes (BEHAVIOR §2.4), in the order the reference reports them. The
 * ranges are spelled as bytes so that no table needs building at run time; the unit
 * tests check each one against its text form. */
#define V4(a, b, c, d, len) \
	{ \
		{ 4, { a, b, c, d } }, len \
	}
#define V6(len, ...) \
	{ \
		{ 6, { __VA_ARGS__ } }, len \
	}
static const struct {
	unsigned class;
	const char *words;
	struct addr_range ranges[9];
	size_t nranges;
} addr_classes[] = {
	{ ADDR_CLASS_LOOPBACK, "a loopback address", { V4(127, 0, 0, 0, 8), V6(128, [15] = 1) },
	    2 },
	{ ADDR_CLASS_UNSPECIFIED, "an unspecified address", { V4(0, 0, 0, 0, 8), V6(128, 0) },
	    2 },
	{ ADDR_CLASS_LINK_LOCAL, "a link-local address",
	    { V4(169, 254, 0, 0, 16), V6(10, 0xfe, 0x80) }, 2 },
	{ ADDR_CLASS_MULTICAST, "a multicast address", { V4(224, 0, 0, 0, 4), V6(8, 0xff) },
	    2 },
	{ ADDR_CLASS_BROADCAST, "the broadcast address", { V4(255, 255, 255, 255, 32) }, 1 },
	{ ADDR_CLASS_METADATA, "a cloud metadata address",
	    {
		V4(100, 100, 100, 200, 32),     /* Alibaba Cloud */
		V4(168, 63, 129, 16, 32),       /* Azure WireServer */
		V4(192, 0, 0, 192, 32),         /* Oracle Cloud Classic */
		V6(32, 0xfd, 0x00, 0x0e, 0xc2), /* fd00:ec2::/32, AWS IPv6 services */
		V6(128, 0xfd, 0x20, 0x00, 0xce, [14] = 0x02, [15] = 0x54),
		/* fd20:ce::254, Google Cloud */
		V6(128, 0xfd, 0x00, 0x00, 0xc1, [12] = 0xa9, 0xfe, 0xa9, 0xfe),
		/* fd00:c1::a9fe:a9fe, Oracle Cloud */
		V6(128, 0xfd, 0x00, 0x00, 0x42, [15] = 0x42),
		/* fd00:42::42, Scaleway */
		V6(128, 0xfd, 0x00, 0xa9, 0xfe, 0xa9, 0xfe, [15] = 0x01),
		/* fd00:a9fe:a9fe::1, Akamai / Linode */
		V6(128, 0xfd, 0x00, 0x01, 0x00, [12] = 0x01, 0x00, 0x02, 0x00),
		/* fd00:100::100:200, Alibaba Cloud */
	    },
	    9 },
};
#undef V4
#undef V6

#define NCLASSES (sizeof(addr_classes) / sizeof(addr_classes[0]))

static unsigned
addr_classes_of(const struct ip_addr *a)
{
	unsigned classes = 0;
	size_t c, k;

	for (c = 0; c < NCLASSES; c++)
		for (k = 0; k < addr_classes[c].nranges; k++)
			if (addr_range_contains(&addr_classes[c].ranges[k], a)) {
				classes |= addr_classes[c].class;
				break;
			}
	return classes;
}

unsigned
addr_builtin_classes(const struct ip_addr *a)
{
	struct ip_addr v4;
	unsigned classes = addr_classes_of(a);

	if (addr_embedded_v4(a, &v4))
		classes |= addr_classes_of(&v4);
	return classes;
}

const char *
addr_class_words(unsigned one_class)
{
	size_t c;

	for (c = 0; c < NCLASSES; c++)
		if (addr_classes[c].class == one_class)
			return addr_classes[c].words;
	return "a denied address";
}

int
addr_mapped_v4(const struct ip_addr *a, struct ip_addr *v4)
{
	if (a->family != 6 || memcmp(a->bytes, v4mapped_prefix, 12) != 0)
		return 0;
	memset(v4, 0, sizeof(*v4));
	v4->family = 4;
	memcpy(v4->bytes, a->bytes + 12, 4);
	return 1;
}
