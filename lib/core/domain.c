/*
 * Domain entries and the name-based decision (BEHAVIOR §2.1-2.2).
 *
 * Hosts are canonicalised the way the reference does it: through the WHATWG URL host
 * parser ("http://" + host + "/"), whose rules are reproduced here for the inputs that can
 * reach it. When that parser would fail, the reference falls back to the host as given
 * (lower-cased for matching), and so do we: "256.1.1.1" is then an ordinary name.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "domain.h"
#include "sys.h"
#include "util.h"

#define URL_FAIL (-1)     /* the URL parser rejects the input */
#define URL_NONASCII (-2) /* the host needs IDNA mapping, which we do not do */

static int
is_name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '.' || c == '_' || c == '-';
}

static unsigned char
ascii_lower(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* A literal of either family as Node's isIP sees it, from n bytes (no NUL inside). */
static int
literal_parse(const char *s, size_t n, struct ip_addr *a)
{
	char buf[64];

	if (n == 0 || n >= sizeof(buf) || memchr(s, '\0', n) != NULL)
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return ip_addr_parse(buf, a);
}

/* Write a literal as a canonical host: IPv4-mapped IPv6 is spelled as its IPv4 address,
 * since that is the address a connection reaches. */
static enum host_kind
literal_canonical(const struct ip_addr *a, char *out, size_t outlen)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	struct ip_addr v4;

	if (a->family == 6 && memcmp(a->bytes, mapped, sizeof(mapped)) == 0) {
		memset(&v4, 0, sizeof(v4));
		v4.family = 4;
		memcpy(v4.bytes, a->bytes + 12, 4);
		ip_addr_format(&v4, out, outlen);
		return HOST_IPV4;
	}
	ip_addr_format(a, out, outlen);
	return a->family == 4 ? HOST_IPV4 : HOST_IPV6;
}

/*
 * One number of the URL IPv4 parser: decimal, 0x hex or 0 octal; "0x" alone is 0.
 * Values above 2^32 saturate (they fail the range check anyway). -1 if not a number.
 */
static int
url_ipv4_number(const char *s, size_t n, uint64_t *v)
{
	unsigned radix = 10;
	size_t i;

	*v = 0;
	if (n == 0)
		return -1;
	if (n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		radix = 16;
		s += 2;
		n -= 2;
	} else if (n >= 2 && s[0] == '0') {
		radix = 8;
		s++;
		n--;
	}
	for (i = 0; i < n; i++) {
		int d;
		unsigned char c = (unsigned char)s[i];

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (radix == 16 && c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (radix == 16 && c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		if ((unsigned)d >= radix)
			return -1;
		if (*v <= UINT32_MAX)
			*v = *v * radix + (unsigned)d;
	}
	return 0;
}

/* The URL parser's "ends in a number" test: the last label (after one trailing dot) is
 * all digits or parses as an IPv4 number. */
static int
url_ends_in_number(const char *s, size_t n)
{
	const char *dot;
	uint64_t v;
	size_t i;

	if (n > 0 && s[n - 1] == '.')
		n--; /* one trailing dot does not count */
	dot = memrchr(s, '.', n);
	if (dot != NULL) {
		n -= (size_t)(dot + 1 - s);
		s = dot + 1;
	}
	if (n == 0)
		return 0;
	for (i = 0; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		;
	return i == n || url_ipv4_number(s, n, &v) == 0;
}

/* The URL IPv4 parser (inet_aton forms); writes dotted text. */
static int
url_ipv4(const char *s, size_t n, char *out, size_t outlen)
{
	uint64_t part[4], v;
	size_t nparts = 0, i, start = 0;
	struct ip_addr a;

	if (n > 0 && s[n - 1] == '.')
		n--; /* one trailing dot is allowed */
	for (i = 0; i <= n; i++) {
		if (i < n && s[i] != '.')
			continue;
		if (nparts == 4 || url_ipv4_number(s + start, i - start, &part[nparts]) == -1)
			return -1;
		nparts++;
		start = i + 1;
	}
	for (i = 0; i + 1 < nparts; i++)
		if (part[i] > 255)
			return -1;
	if (part[nparts - 1] >= (uint64_t)1 << (8 * (5 - nparts)))
		return -1;
	v = part[nparts - 1];
	for (i = 0; i + 1 < nparts; i++)
		v += part[i] << (8 * (3 - i));
	memset(&a, 0, sizeof(a));
	a.family = 4;
	a.bytes[0] = (uint8_t)(v >> 24);
	a.bytes[1] = (uint8_t)(v >> 16);
	a.bytes[2] = (uint8_t)(v >> 8);
	a.bytes[3] = (uint8_t)v;
	ip_addr_format(&a, out, outlen);
	return 0;
}

/*
 * Is an "xn--" label (lower case, without the prefix) one the URL parser's IDNA step
 * accepts? The Punycode must decode (RFC 3492), and the decoded label must not hold
 * code points that IDNA refuses outright. The full UTS #46 validity tables are not
 * reproduced: only the checks that need no Unicode data. This matters only for
 * whether one trailing dot is removed, since a name that fails is kept as spelled.
 */
static int
punycode_label_ok(const char *s, size_t n)
{
	const uint32_t base = 36, tmin = 1, tmax = 26, skew = 38, damp = 700;
	uint32_t cp = 128, i = 0, bias = 72, out = 0;
	const char *dash;
	size_t in, k;
	int first = 1;

	if (n == 0)
		return 0;
	dash = memrchr(s, '-', n);
	in = 0;
	if (dash != NULL) {
		out = (uint32_t)(dash - s);
		for (k = 0; k < out; k++)
			if (s[k] >= 'A' && s[k] <= 'Z')
				return 0;
		in = out + 1;
	}
	while (in < n) {
		uint32_t oldi = i, w = 1, kk, t, delta;

		for (kk = base;; kk += base) {
			uint32_t d;
			unsigned char c;

			if (in >= n)
				return 0;
			c = (unsigned char)s[in++];
			if (c >= 'a' && c <= 'z')
				d = c - 'a';
			else if (c >= '0' && c <= '9')
				d = c - '0' + 26;
			else
				return 0;
			if (d > (UINT32_MAX - i) / w)
				return 0;
			i += d * w;
			t = kk <= bias ? tmin : kk >= bias + tmax ? tmax : kk - bias;
			if (d < t)
				break;
			if (w > UINT32_MAX / (base - t))
				return 0;
			w *= base - t;
		}
		/* adapt the bias (RFC 3492 §6.1) */
		delta = first ? (i - oldi) / damp : (i - oldi) / 2;
		first = 0;
		delta += delta / (out + 1);
		for (kk = 0; delta > ((base - tmin) * tmax) / 2; kk += base)
			delta /= base - tmin;
		bias = kk + (base - tmin + 1) * delta / (delta + skew);
		if (i / (out + 1) > UINT32_MAX - cp)
			return 0;
		cp += i / (out + 1);
		i %= out + 1;
		/* Code points IDNA never accepts in a label: controls, surrogates, the
		 * full stop, upper case (mapped, so not valid in a decoded label). */
		if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || cp < 0x20 ||
		    (cp >= 0x7f && cp <= 0x9f) || cp == '.' || (cp >= 'A' && cp <= 'Z'))
			return 0;
		out++;
		i++;
	}
	return out > 0; /* an empty decoded label is refused */
}

/* A forbidden domain code point of the URL standard (ASCII range). */
static int
url_forbidden_domain(unsigned char c)
{
	switch (c) {
	case '#':
	case '%':
	case '/':
	case ':':
	case '<':
	case '>':
	case '?':
	case '@':
	case '[':
	case '\\':
	case ']':
	case '^':
	case '|':
	case 0x7f:
		return 1;
	default:
		return c <= 0x20;
	}
}

/*
 * The host of "http://" + in + "/" as the WHATWG URL parser finds it: leading slashes
 * skipped, authority cut at / \ ? #, userinfo before the last @ dropped, a :port
 * checked and dropped, the host percent-decoded, lower-cased, Punycode labels checked,
 * inet_aton forms turned into dotted quads. scratch holds at least n + 1 bytes and out
 * at least n + 16. Returns HOST_NAME, HOST_IPV4, URL_FAIL or URL_NONASCII.
 */
static int
url_host(const char *in, size_t n, char *scratch, char *out, size_t outlen)
{
	size_t i, m = 0, p, aend, hs, he, olen = 0, ls;
	const char *at;
	unsigned long port = 0;
	int nonascii = 0;

	for (i = 0; i < n; i++) /* tab and newlines vanish from URLs */
		if (in[i] != '\t' && in[i] != '\n' && in[i] != '\r')
			scratch[m++] = in[i];
	for (p = 0; p < m && (scratch[p] == '/' || scratch[p] == '\\'); p++)
		;
	for (aend = p; aend < m && scratch[aend] != '/' && scratch[aend] != '\\' &&
	     scratch[aend] != '?' && scratch[aend] != '#';
	     aend++)
		;
	hs = p;
	at = memrchr(scratch + p, '@', aend - p);
	if (at != NULL)
		hs = (size_t)(at - scratch) + 1;
	/* The host ends at the first colon outside brackets; an input with a bracket is
	 * never a valid host here (brackets were stripped before, and an entry's inner part
	 * holds no closing bracket), so brackets need no tracking beyond that. */
	for (he = hs; he < aend && scratch[he] != ':'; he++)
		if (scratch[he] == '[')
			return URL_FAIL;
	if (he == hs)
		return URL_FAIL;
	if (he < aend) {
		for (i = he + 1; i < aend; i++) {
			if (scratch[i] < '0' || scratch[i] > '9')
				return URL_FAIL;
			port = port * 10 + (unsigned long)(scratch[i] - '0');
			if (port > 65535)
				return URL_FAIL;
		}
	}
	/* Percent-decode into out. */
	for (i = hs; i < he; i++) {
		unsigned char c = (unsigned char)scratch[i];

		if (c == '%' && i + 2 < he &&
		    hex_digit_value((unsigned char)scratch[i + 1]) >= 0 &&
		    hex_digit_value((unsigned char)scratch[i + 2]) >= 0) {
			c = (unsigned char)(hex_digit_value((unsigned char)scratch[i + 1])
				<< 4 |
			    hex_digit_value((unsigned char)scratch[i + 2]));
			i += 2;
		}
		if (olen + 1 >= outlen)
			return URL_FAIL;
		out[olen++] = (char)c;
	}
	/* Lower-case in place. Of non-ASCII text only U+212A KELVIN SIGN is mapped (to
	 * "k"); other non-ASCII needs the IDNA tables, and is reported once every check
	 * that could still fail the host has passed. */
	for (i = 0, m = 0; i < olen; i++) {
		unsigned char c = (unsigned char)out[i];

		if (c == 0xe2 && i + 2 < olen && (unsigned char)out[i + 1] == 0x84 &&
		    (unsigned char)out[i + 2] == 0xaa) {
			c = 'k';
			i += 2;
		} else if (c >= 0x80)
			nonascii = 1;
		out[m++] = (char)ascii_lower(c);
	}
	olen = m;
	out[olen] = '\0';
	if (olen == 0)
		return URL_FAIL;
	for (i = 0; i < olen; i++)
		if (url_forbidden_domain((unsigned char)out[i]))
			return URL_FAIL;
	for (ls = 0; ls <= olen; ls = i + 1) {
		for (i = ls; i < olen && out[i] != '.'; i++)
			;
		if (i - ls >= 4 && memcmp(out + ls, "xn--", 4) == 0 &&
		    !punycode_label_ok(out + ls + 4, i - ls - 4))
			return URL_FAIL;
	}
	if (nonascii)
		return URL_NONASCII;
	if (url_ends_in_number(out, olen)) {
		char v4[16];

		if (url_ipv4(out, olen, v4, sizeof(v4)) == -1)
			return URL_FAIL;
		if (strlen(v4) + 1 > outlen)
			return URL_FAIL;
		memcpy(out, v4, strlen(v4) + 1);
		return HOST_IPV4;
	}
	return HOST_NAME;
}

/*
 * The reference's canonicalizeHost on a bare host of n bytes: an IPv6 literal is
 * compressed (and an IPv4-mapped one spelled as IPv4), anything else goes through the
 * URL host parser and loses one trailing dot. Returns the kind, URL_FAIL or URL_NONASCII.
 */
static int
host_canonical_bare(const char *bare, size_t n, char *scratch, char *out, size_t outlen)
{
	struct ip_addr a;
	int kind;
	size_t len;

	if (memchr(bare, ':', n) != NULL && literal_parse(bare, n, &a) == 0 && a.family == 6)
		return (int)literal_canonical(&a, out, outlen);
	kind = url_host(bare, n, scratch, out, outlen);
	if (kind == HOST_NAME) {
		len = strlen(out);
		if (len > 0 && out[len - 1] == '.')
			out[len - 1] = '\0';
	}
	return kind;
}

/*
 * An empty label past the one trailing dot a name may have: "secret..corp.test",
 * ".secret.corp.test". Such a name is malformed, not a name under "*.corp.test": a
 * resolver that collapses the empty label would reach "secret.corp.test", which a deny
 * entry may name (issue 31). No valid host has one, so no allow entry loses a match.
 */
static int
name_has_empty_label(const char *s, size_t n)
{
	return n == 0 || s[0] == '.' || memmem(s, n, "..", 2) != NULL;
}

enum host_kind
host_canonicalise(const char *host, size_t len, char *out)
{
	char scratch[DOM_HOST_MAX + 1];
	const char *bare = host;
	size_t n = len, i;
	struct ip_addr a;
	int kind;

	out[0] = '\0';
	/* The shape check comes first, as in the reference: 1-255 bytes, no zone id, and
	 * either an IP literal or plain name characters. */
	if (len == 0 || len > DOM_HOST_MAX)
		return HOST_MALFORMED;
	if (n >= 2 && bare[0] == '[' && bare[n - 1] == ']') {
		bare++;
		n -= 2;
	}
	if (memchr(bare, '%', n) != NULL)
		return HOST_MALFORMED;
	if (literal_parse(bare, n, &a) == 0)
		return literal_canonical(&a, out, DOM_HOST_MAX + 1);
	for (i = 0; i < n; i++)
		if (!is_name_char((unsigned char)bare[i]))
			return HOST_MALFORMED;
	if (n == 0 || name_has_empty_label(bare, n))
		return HOST_MALFORMED;
	kind = host_canonical_bare(bare, n, scratch, out, DOM_HOST_MAX + 1);
	if (kind == HOST_NAME || kind == HOST_IPV4)
		return (enum host_kind)kind;
	/* The URL parser refused it (say "256.1.1.1" or "1.2.3.4.5"): the reference then
	 * matches the host as spelled, brackets and trailing dots included. */
	for (i = 0; i < len; i++)
		out[i] = (char)ascii_lower((unsigned char)host[i]);
	out[len] = '\0';
	return HOST_NAME;
}

/* A port suffix: ^[1-9][0-9]{0,4}$ and at most 65535; 0 if it is not one. */
static uint16_t
port_suffix(const char *s)
{
	size_t n = strlen(s), i;
	unsigned long v = 0;

	if (n < 1 || n > 5 || s[0] < '1' || s[0] > '9')
		return 0;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v > 65535 ? 0 : (uint16_t)v;
}

/*
 * Lower-case a pattern as JavaScript's toLowerCase does for the purpose of matching an
 * ASCII host: ASCII letters, plus U+212A KELVIN SIGN, the one non-ASCII character whose
 * lower case is ASCII ("k"). Other non-ASCII text is kept; it can never match.
 */
static char *
pattern_lower(const char *s)
{
	char *r = xstrdup(s);
	size_t i, o = 0;

	for (i = 0; s[i] != '\0'; i++) {
		if ((unsigned char)s[i] == 0xe2 && (unsigned char)s[i + 1] == 0x84 &&
		    (unsigned char)s[i + 2] == 0xaa) {
			r[o++] = 'k';
			i += 2;
			continue;
		}
		r[o++] = (char)ascii_lower((unsigned char)s[i]);
	}
	r[o] = '\0';
	return r;
}

/* Split off the port and, for a bracketed entry, canonicalise the address. *hostp gets an
 * allocated host pattern; *portp 0 when there is none. -1 with *why on an entry we refuse
 * before the reference's own checks (an IDNA name in brackets). */
static int
entry_split(const char *entry, char **hostp, uint16_t *portp, const char **why)
{
	const char *close, *colon;
	size_t n;

	*hostp = NULL;
	*portp = 0;
	if (entry[0] == '[' && (close = strchr(entry, ']')) != NULL) {
		const char *inner = entry + 1, *rest = close + 1;
		char *scratch, *canon;
		int kind;

		n = (size_t)(close - inner);
		/* A zone id is dropped: matching ignores zones. */
		if (memchr(inner, '%', n) != NULL)
			n = (size_t)((const char *)memchr(inner, '%', n) - inner);
		if (*rest != '\0') {
			*portp = *rest == ':' ? port_suffix(rest + 1) : 0;
			if (*portp == 0) {
				/* "[::1]junk", "[::1]:0": kept whole, so the checks refuse it */
				*hostp = xstrdup(entry);
				return 0;
			}
		}
		scratch = xmalloc(n + 1);
		canon = xmalloc(n + 64);
		kind = host_canonical_bare(inner, n, scratch, canon, n + 64);
		free(scratch);
		if (kind == URL_NONASCII) {
			free(canon);
			*portp = 0;
			*why = "a bracketed name must be written in ASCII (use its xn-- form)";
			return -1;
		}
		if (kind == URL_FAIL) {
			memcpy(canon, inner, n);
			canon[n] = '\0';
		}
		*hostp = canon;
		return 0;
	}
	/* An unclosed bracket is kept whole, port and all. */
	colon = entry[0] == '[' ? NULL : strrchr(entry, ':');
	if (colon != NULL && strchr(entry, ':') == colon &&
	    (*portp = port_suffix(colon + 1)) != 0) {
		*hostp = xstrndup(entry, (size_t)(colon - entry));
		return 0;
	}
	*hostp = xstrdup(entry);
	return 0;
}

/* The reference's host pattern check. Returns the kind, or -1 with *why. */
static int
pattern_check(const char *h, int denylist, const char **why)
{
	struct ip_addr a;
	size_t n = strlen(h);

	if (denylist && strcmp(h, "*") == 0)
		return DOM_ANY;
	if (ip_addr_parse(h, &a) == 0 && a.family == 6)
		return DOM_IPV6;
	if (strstr(h, "://") != NULL) {
		*why = "a domain entry is a host name, not a URL";
		return -1;
	}
	if (strchr(h, '/') != NULL) {
		*why = "a domain entry cannot contain a path";
		return -1;
	}
	if (strchr(h, ':') != NULL) {
		*why = "bad port (1-65535, no leading zero) or unbracketed IPv6 address";
		return -1;
	}
	if (strcmp(h, "localhost") == 0)
		return DOM_EXACT;
	if (strncmp(h, "*.", 2) == 0) {
		const char *d = h + 2;
		size_t dn = n - 2;

		/* At least two non-empty labels after the wildcard: "*.com" is too broad. */
		if (strchr(d, '.') == NULL || d[0] == '.' || d[dn - 1] == '.' ||
		    strstr(d, "..") != NULL) {
			*why = "a wildcard needs a domain with at least two labels after \"*.\"";
			return -1;
		}
		/* "*.*.example.com" would match only a host holding a "*", so never. */
		if (strchr(d, '*') != NULL)
			goto star;
		return DOM_WILDCARD;
	}
	if (strchr(h, '*') != NULL) {
	star:
		*why = denylist ? "\"*\" is allowed only as \"*.\" before a domain, or alone"
				: "\"*\" is allowed only as \"*.\" before a domain";
		return -1;
	}
	if (strchr(h, '.') == NULL || h[0] == '.' || h[n - 1] == '.') {
		*why = "a domain needs a dot and cannot start or end with one "
		       "(\"localhost\" is the exception)";
		return -1;
	}
	if (ip_addr_parse(h, &a) == 0 && a.family == 4)
		return DOM_IPV4;
	return DOM_EXACT;
}

int
dom_entry_parse(const char *entry, int denylist, struct dom_rule *out, const char **why)
{
	const char *c1;
	char *host = NULL;
	uint16_t port;
	int kind, ret = -1;

	memset(out, 0, sizeof(*out));
	*why = NULL;
	/* Two or more colons: an IPv6 literal, which must be bracketed, since
	 * "2001:db8::1:443" is itself an address and cannot say where a port starts. */
	c1 = strchr(entry, ':');
	if (c1 != NULL && strchr(c1 + 1, ':') != NULL && entry[0] != '[') {
		*why =
		    "an IPv6 address must be written in brackets, e.g. \"[::1]\" or \"[::1]:443\"";
		goto out;
	}
	if (entry_split(entry, &host, &port, why) == -1)
		goto out;
	if ((kind = pattern_check(host, denylist, why)) == -1)
		goto out;
	out->kind = (enum dom_kind)kind;
	out->port = port;
	out->spelled = xstrdup(entry);
	switch (out->kind) {
	case DOM_ANY:
		out->host = NULL;
		break;
	case DOM_WILDCARD:
		out->host = pattern_lower(host + 2);
		break;
	default:
		out->host = pattern_lower(host);
		break;
	}
	ret = 0;
out:
	free(host);
	return ret;
}

int
dom_pattern_valid(const char *pattern, const char **why)
{
	*why = NULL;
	return pattern_check(pattern, 0, why) == -1 ? -1 : 0;
}

int
dom_pattern_covered(const char *pattern, const struct dom_rule *allowed, size_t n)
{
	char *h = pattern_lower(pattern);
	struct ip_addr a;
	size_t i, hn, bn;
	int wild = strncmp(h, "*.", 2) == 0, ip = ip_addr_parse(h, &a) == 0, hit = 0;

	for (i = 0; i < n && !hit; i++) {
		const struct dom_rule *r = &allowed[i];

		if (r->host == NULL)
			continue;
		bn = strlen(r->host);
		if (wild) {
			/* Only a wildcard at or above the pattern's base admits all it names. */
			hn = strlen(h + 2);
			hit = r->kind == DOM_WILDCARD &&
			    (strcmp(h + 2, r->host) == 0 ||
				(hn > bn && h[2 + hn - bn - 1] == '.' &&
				    strcmp(h + 2 + hn - bn, r->host) == 0));
		} else if (r->kind == DOM_WILDCARD) {
			hn = strlen(h);
			hit = !ip && hn > bn && h[hn - bn - 1] == '.' &&
			    strcmp(h + hn - bn, r->host) == 0;
		} else
			hit = strcmp(h, r->host) == 0;
	}
	free(h);
	return hit;
}

void
dom_rule_clear(struct dom_rule *r)
{
	if (r == NULL)
		return;
	free(r->host);
	free(r->spelled);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}

int
dom_rule_matches(
    const struct dom_rule *r, const char *canon, enum host_kind kind, uint16_t port)
{
	size_t cn, hn;

	if (kind == HOST_MALFORMED)
		return 0;
	if (r->port != 0 && r->port != port)
		return 0;
	switch (r->kind) {
	case DOM_ANY:
		return 1;
	case DOM_WILDCARD:
		/* Never a suffix match on an address: "1.2.3.4" is not under "*.3.4". */
		if (kind == HOST_IPV4 || kind == HOST_IPV6)
			return 0;
		cn = strlen(canon);
		hn = strlen(r->host);
		return cn > hn && canon[cn - hn - 1] == '.' &&
		    memcmp(canon + cn - hn, r->host, hn) == 0;
	default:
		return strcmp(canon, r->host) == 0;
	}
}

void
dom_decide(const struct dom_rule *allowed, size_t nallowed, const struct dom_rule *denied,
    size_t ndenied, const char *host, uint16_t port, struct dom_verdict *v)
{
	char canon[DOM_HOST_MAX + 1];
	enum host_kind kind;
	size_t i;

	memset(v, 0, sizeof(*v));
	kind = host_canonicalise(host, strlen(host), canon);
	if (kind == HOST_MALFORMED) {
		v->reason = DOM_REASON_MALFORMED;
		return;
	}
	for (i = 0; i < ndenied; i++)
		if (dom_rule_matches(&denied[i], canon, kind, port)) {
			v->rule = &denied[i];
			v->reason = denied[i].reason != NULL ? denied[i].reason
							     : DOM_REASON_DENY_LIST;
			return;
		}
	for (i = 0; i < nallowed; i++)
		if (dom_rule_matches(&allowed[i], canon, kind, port)) {
			v->allow = 1;
			v->rule = &allowed[i];
			return;
		}
	v->reason = DOM_REASON_NOT_ALLOWED;
}
