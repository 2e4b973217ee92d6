/*
 * Routes out of the proxies (upstream.h): parent proxy URLs, the noProxy list, the
 * mitmProxy patterns, the choice of route and the CONNECT exchange with a parent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http_parse.h"
#include "sys.h"
#include "upstream.h"

/* ---- text helpers ---------------------------------------------------------------- */

/* The bounds of text without the C0 controls and spaces around it (the URL standard
 * drops those). */
static void
trim(const char *text, const char **start, size_t *len)
{
	const char *s = text, *e = text + strlen(text);

	while (s < e && (unsigned char)*s <= 0x20)
		s++;
	while (e > s && (unsigned char)e[-1] <= 0x20)
		e--;
	*start = s;
	*len = (size_t)(e - s);
}

/* Length of a URL scheme ("[A-Za-z][A-Za-z0-9+.-]*") at s followed by ':', or 0. */
static size_t
scheme_len(const char *s, size_t n)
{
	size_t i;

	if (n == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
		return 0;
	for (i = 1; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == ':')
			return i;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			(c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))
			return 0;
	}
	return 0;
}

static bool
scheme_is(const char *s, size_t n, const char *name)
{
	return strlen(name) == n && strncasecmp(s, name, n) == 0;
}

/* Percent-decode n bytes of s into out (room for n + 1, NUL-terminated); the decoded
 * length, or -1 on a malformed escape. */
static long
pct_decode(const char *s, size_t n, char *out)
{
	size_t i, o = 0;
	int hi, lo;

	for (i = 0; i < n; i++) {
		if (s[i] != '%') {
			out[o++] = s[i];
			continue;
		}
		if (i + 2 >= n)
			return -1;
		hi = hex_digit_value((unsigned char)s[i + 1]);
		lo = hex_digit_value((unsigned char)s[i + 2]);
		if (hi < 0 || lo < 0)
			return -1;
		out[o++] = (char)(hi << 4 | lo);
		i += 2;
	}
	out[o] = '\0';
	return (long)o;
}

/* ---- proxy URLs ------------------------------------------------------------------ */

/*
 * "Basic base64(user:pass)" from the userinfo of a URL (n bytes at s), or NULL when both
 * are empty. The user name ends at the first colon; each part is percent-decoded, or,
 * when either holds a malformed escape, both are taken as written (the reference's rule).
 */
static char *
basic_auth(const char *s, size_t n)
{
	const char *colon = memchr(s, ':', n);
	size_t un = colon != NULL ? (size_t)(colon - s) : n;
	size_t pn = colon != NULL ? n - un - 1 : 0;
	char *u = xmalloc(un + 1), *p = xmalloc(pn + 1);
	struct buf up = { 0 }, b = { 0 };
	long ul, pl = 0;

	p[0] = '\0';
	if ((ul = pct_decode(s, un, u)) == -1 ||
	    (colon != NULL && (pl = pct_decode(colon + 1, pn, p)) == -1)) {
		memcpy(u, s, un);
		ul = (long)un;
		if (colon != NULL)
			memcpy(p, colon + 1, pn);
		pl = (long)pn;
	}
	if (ul > 0 || pl > 0) {
		buf_add(&up, u, (size_t)ul);
		buf_addc(&up, ':');
		buf_add(&up, p, (size_t)pl);
		buf_adds(&b, "Basic ");
		buf_add_base64(&b, up.p + up.off, up.len, false, true);
		explicit_bzero(up.p, up.off + up.len);
		buf_free(&up);
	}
	explicit_bzero(u, un);
	explicit_bzero(p, pn);
	free(u);
	free(p);
	return b.len > 0 ? buf_steal(&b) : NULL;
}

/* A host a URL parser would call a number at its end ("1.2.3.4", "0x7f.1", "10"): the
 * URL standard then requires an IPv4 address. */
static bool
ends_in_number(const char *h, size_t n)
{
	size_t i, start;

	if (n > 0 && h[n - 1] == '.')
		n--;
	for (start = n; start > 0 && h[start - 1] != '.'; start--)
		;
	if (start == n)
		return false;
	if (n - start >= 2 && h[start] == '0' && (h[start + 1] | 0x20) == 'x') {
		for (i = start + 2; i < n; i++)
			if (hex_digit_value((unsigned char)h[i]) < 0)
				return false;
		return true;
	}
	for (i = start; i < n; i++)
		if (h[i] < '0' || h[i] > '9')
			return false;
	return true;
}

/*
 * The authority of a special URL, after its "scheme:" and any slashes: [user[:pass]@]
 * host[:port], up to the first '/', '\', '?' or '#'. out may be NULL (a check only).
 */
static enum proxy_url_status
parse_authority(const char *s, size_t n, bool tls, struct proxy_url *out, const char **why)
{
	const char *end = s, *at = NULL, *hp, *colon = NULL, *p;
	char host[DOM_HOST_MAX + 3], canon[DOM_HOST_MAX + 1];
	size_t hl, i;
	unsigned long port = 0;
	enum host_kind kind;

	while (end < s + n && *end != '/' && *end != '\\' && *end != '?' && *end != '#')
		end++;
	for (p = s; p < end; p++)
		if (*p == '@')
			at = p; /* the URL standard's userinfo ends at the last '@' */
	hp = at != NULL ? at + 1 : s;
	if (hp < end && *hp == '[') {
		const char *rb = memchr(hp, ']', (size_t)(end - hp));

		if (rb == NULL) {
			*why = "an IPv6 host is missing its ']'";
			return PROXY_URL_BAD;
		}
		if (rb + 1 < end) {
			if (rb[1] != ':') {
				*why = "only \":PORT\" may follow an IPv6 host";
				return PROXY_URL_BAD;
			}
			colon = rb + 1;
		}
		hl = (size_t)(rb + 1 - hp);
	} else {
		colon = memrchr(hp, ':', (size_t)(end - hp));
		hl = (size_t)((colon != NULL ? colon : end) - hp);
	}
	if (hl == 0) {
		*why = "the URL names no host";
		return PROXY_URL_BAD;
	}
	if (hl > DOM_HOST_MAX + 2) {
		*why = "the host is longer than 255 bytes";
		return PROXY_URL_BAD;
	}
	memcpy(host, hp, hl);
	host[hl] = '\0';
	if (host[0] == '[') {
		struct ip_addr a;

		host[hl - 1] = '\0';
		if (ip_addr_parse(host + 1, &a) != 0 || a.family != 6) {
			*why = "the host in brackets is not an IPv6 address";
			return PROXY_URL_BAD;
		}
		host[hl - 1] = ']';
	} else {
		for (i = 0; i < hl; i++) {
			unsigned char c = (unsigned char)host[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
				(c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_')) {
				*why =
				    "the host may hold only letters, digits, '.', '-' and '_' "
				    "(write an IPv6 address in brackets)";
				return PROXY_URL_BAD;
			}
		}
	}
	kind = host_canonicalise(host, hl, canon);
	if (kind == HOST_MALFORMED || canon[0] == '\0' ||
	    (host[0] != '[' && ends_in_number(host, hl) && kind != HOST_IPV4)) {
		*why = "the host is not a valid name or IPv4 address";
		return PROXY_URL_BAD;
	}
	if (colon != NULL) {
		for (p = colon + 1; p < end; p++) {
			if (*p < '0' || *p > '9') {
				*why = "the port is not a number";
				return PROXY_URL_BAD;
			}
			port = port * 10 + (unsigned long)(*p - '0');
			if (port > 65535) {
				*why = "the port is larger than 65535";
				return PROXY_URL_BAD;
			}
		}
	}
	if (out == NULL)
		return PROXY_URL_OK;
	out->tls = tls;
	snprintf(out->host, sizeof(out->host), "%s", canon);
	out->kind = kind;
	/* No port, and port 0, are the scheme's default (as the reference reads them). */
	out->port = port != 0 ? (uint16_t)port : tls ? 443 : 80;
	if (at != NULL)
		out->auth = basic_auth(s, (size_t)(at - s));
	out->display = xasprintf(kind == HOST_IPV6 ? "%s://[%s]:%u" : "%s://%s:%u",
	    tls ? "https" : "http", canon, out->port);
	return PROXY_URL_OK;
}

enum proxy_url_status
proxy_url_parse(const char *text, struct proxy_url *out, const char **why)
{
	const char *s, *rest;
	size_t n, sl, rn;
	bool tls = false;

	memset(out, 0, sizeof(*out));
	trim(text, &s, &n);
	if (n == 0) {
		*why = "the URL is empty";
		return PROXY_URL_BAD;
	}
	if (n > PROXY_URL_MAX) {
		*why = "the URL is too long";
		return PROXY_URL_BAD;
	}
	if (memchr(s, '\t', n) || memchr(s, '\n', n) || memchr(s, '\r', n)) {
		*why = "the URL holds a tab or a line break";
		return PROXY_URL_BAD;
	}
	sl = scheme_len(s, n);
	if (sl != 0 && sl + 2 < n && s[sl + 1] == '/' && s[sl + 2] == '/') {
		if (scheme_is(s, sl, "https"))
			tls = true;
		else if (!scheme_is(s, sl, "http")) {
			*why = "only http:// and https:// proxies are supported";
			return PROXY_URL_IGNORED;
		}
		rest = s + sl + 1;
	} else
		rest = s; /* curl's rule: a URL without "scheme://" is http:// */
	rn = (size_t)(s + n - rest);
	/* A special URL's authority comes after any number of slashes (either kind). */
	while (rn > 0 && (*rest == '/' || *rest == '\\')) {
		rest++;
		rn--;
	}
	if (parse_authority(rest, rn, tls, out, why) != PROXY_URL_OK) {
		proxy_url_free(out);
		return PROXY_URL_BAD;
	}
	return PROXY_URL_OK;
}

/* The authority of a URL of another scheme ("socks5://host:port"): its host may be
 * empty but holds none of the URL standard's forbidden characters, its port is a number
 * up to 65535. 0 or -1. */
static int
check_opaque_authority(const char *s, size_t n, const char **why)
{
	const char *end = s, *at = NULL, *hp, *he, *p;
	unsigned long port = 0;

	while (end < s + n && *end != '/' && *end != '?' && *end != '#')
		end++;
	for (p = s; p < end; p++)
		if (*p == '@')
			at = p;
	hp = at != NULL ? at + 1 : s;
	if (hp < end && *hp == '[') {
		he = memchr(hp, ']', (size_t)(end - hp));
		if (he == NULL) {
			*why = "an IPv6 host is missing its ']'";
			return -1;
		}
		he++;
	} else {
		for (he = end; he > hp && he[-1] != ':'; he--)
			;
		he = he > hp ? he - 1 : end;
		for (p = hp; p < he; p++) {
			if ((unsigned char)*p <= 0x20 || strchr("#/:<>?@[\\]^|", *p) != NULL ||
			    *p == 0x7f) {
				*why = "the host holds a character a URL does not allow there";
				return -1;
			}
		}
	}
	if (he < end) {
		if (*he != ':') {
			*why = "only \":PORT\" may follow an IPv6 host";
			return -1;
		}
		for (p = he + 1; p < end; p++) {
			if (*p < '0' || *p > '9' ||
			    (port = port * 10 + (unsigned long)(*p - '0')) > 65535) {
				*why = "the port is not a number up to 65535";
				return -1;
			}
		}
	}
	return 0;
}

enum proxy_url_status
proxy_url_check_setting(const char *text, const char **why)
{
	struct proxy_url u;
	enum proxy_url_status st;
	const char *s, *rest;
	size_t n, sl, rn;

	trim(text, &s, &n);
	if (n == 0) {
		*why = "the URL is empty; write one such as \"http://proxy.example.com:3128\"";
		return PROXY_URL_BAD;
	}
	/* The reference's schema asks for a URL, which starts with a scheme. */
	sl = scheme_len(s, n);
	if (sl == 0) {
		*why = "not a URL: start it with http:// or https://";
		return PROXY_URL_BAD;
	}
	/* A URL of a special scheme needs a valid authority; of another scheme, anything
	 * after the colon is a URL (that the proxies then read as curl does). */
	if (scheme_is(s, sl, "http") || scheme_is(s, sl, "https") || scheme_is(s, sl, "ws") ||
	    scheme_is(s, sl, "wss") || scheme_is(s, sl, "ftp")) {
		rest = s + sl + 1;
		rn = n - sl - 1;
		while (rn > 0 && (*rest == '/' || *rest == '\\')) {
			rest++;
			rn--;
		}
		if (parse_authority(rest, rn, false, NULL, why) != PROXY_URL_OK)
			return PROXY_URL_BAD;
	} else if (n > sl + 2 && s[sl + 1] == '/' && s[sl + 2] == '/' &&
	    check_opaque_authority(s + sl + 3, n - sl - 3, why) != 0)
		return PROXY_URL_BAD;
	st = proxy_url_parse(text, &u, why);
	proxy_url_free(&u);
	if (st == PROXY_URL_BAD) {
		*why = "the reference accepts this URL but cannot use it as a proxy, and "
		       "neither can srt: the connections will not go through a parent";
		return PROXY_URL_IGNORED;
	}
	if (st == PROXY_URL_IGNORED)
		*why = "only http:// and https:// proxies are supported; the reference ignores "
		       "this one and so does srt: the connections will not go through a parent";
	return st;
}

void
proxy_url_free(struct proxy_url *u)
{
	if (u == NULL)
		return;
	if (u->auth != NULL) {
		explicit_bzero(u->auth, strlen(u->auth));
		free(u->auth);
	}
	free(u->display);
	u->auth = u->display = NULL;
}

/* ---- noProxy --------------------------------------------------------------------- */

static bool
is_ip_literal(const char *s, struct ip_addr *a)
{
	return ip_addr_parse(s, a) == 0;
}

void
no_proxy_parse(const char *text, struct no_proxy *out, struct strlist *ignored)
{
	const char *p = text, *comma;
	char *e, *v;
	size_t n;
	struct ip_addr a;
	struct addr_range r;
	const char *why;

	memset(out, 0, sizeof(*out));
	while (p != NULL && *p != '\0') {
		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		while (n > 0 &&
		    (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == '\v' ||
			*p == '\f')) {
			p++;
			n--;
		}
		while (n > 0 && strchr(" \t\n\r\v\f", p[n - 1]) != NULL)
			n--;
		e = xstrndup(p, n);
		p = comma != NULL ? comma + 1 : NULL;
		if (e[0] == '\0') {
			free(e);
			continue;
		}
		if (strcmp(e, "*") == 0) {
			out->all = true;
			free(e);
			continue;
		}
		if (strchr(e, '/') != NULL) {
			/* A malformed range is not a name either: it is dropped. */
			if (addr_range_parse(e, &r, &why) == 0) {
				out->ranges = xreallocarray(
				    out->ranges, out->nranges + 1, sizeof(*out->ranges));
				out->ranges[out->nranges++] = r;
			} else if (ignored != NULL)
				strlist_push(ignored, e);
			free(e);
			continue;
		}
		for (v = e; *v; v++)
			if (*v >= 'A' && *v <= 'Z')
				*v = (char)(*v - 'A' + 'a');
		v = e;
		/* "[v6]" or "[v6]:port": the address. */
		if (v[0] == '[') {
			char *rb = strchr(v, ']');

			if (rb != NULL &&
			    (rb[1] == '\0' ||
				(rb[1] == ':' && rb[2] != '\0' &&
				    strspn(rb + 2, "0123456789") == strlen(rb + 2)))) {
				*rb = '\0';
				v++;
			}
		}
		if (v[0] == '*' && v[1] == '.')
			v++;
		if (!is_ip_literal(v, &a)) {
			char *colon = strrchr(v, ':');

			if (colon != NULL && colon[1] != '\0' &&
			    strspn(colon + 1, "0123456789") == strlen(colon + 1))
				*colon = '\0';
		} else {
			/* A bare address is a range of one. */
			memset(&r, 0, sizeof(r));
			if (addr_range_parse(v, &r, &why) == 0) {
				out->ranges = xreallocarray(
				    out->ranges, out->nranges + 1, sizeof(*out->ranges));
				out->ranges[out->nranges++] = r;
				free(e);
				continue;
			}
		}
		strlist_push(&out->suffixes, v);
		free(e);
	}
}

void
no_proxy_free(struct no_proxy *np)
{
	free(np->ranges);
	strlist_free(&np->suffixes);
	memset(np, 0, sizeof(*np));
}

static bool
suffix_match(const char *h, const char *v)
{
	size_t hn = strlen(h), vn = strlen(v);

	if (v[0] == '.') {
		/* ".example.com": example.com and everything under it */
		if (strcmp(h, v + 1) == 0)
			return true;
		return hn >= vn && strcmp(h + hn - vn, v) == 0;
	}
	if (strcmp(h, v) == 0)
		return true;
	return hn > vn && h[hn - vn - 1] == '.' && strcmp(h + hn - vn, v) == 0;
}

bool
no_proxy_bypass(const struct no_proxy *np, const char *canon, enum host_kind kind)
{
	struct ip_addr a;

	/* Chaining a loopback destination through a parent is never what is meant. */
	if (strcmp(canon, "localhost") == 0)
		return true;
	if ((kind == HOST_IPV4 || kind == HOST_IPV6) && ip_addr_parse(canon, &a) == 0) {
		if (addr_builtin_classes(&a) & ADDR_CLASS_LOOPBACK)
			return true;
		if (np->all)
			return true;
		for (size_t i = 0; i < np->nranges; i++)
			if (addr_range_contains(&np->ranges[i], &a))
				return true;
	} else if (np->all)
		return true;
	for (size_t i = 0; i < np->suffixes.n; i++)
		if (suffix_match(canon, np->suffixes.v[i]))
			return true;
	return false;
}

/* ---- mitmProxy patterns ---------------------------------------------------------- */

int
mitm_pattern_check(const char *pattern, const char **why)
{
	const char *pct, *d;
	char buf[INET6_ADDRSTRLEN + 1];
	unsigned char a6[16];
	size_t n = strlen(pattern);

	/* An IPv6 address, unbracketed (its zone, if any, dropped). */
	pct = strchr(pattern, '%');
	n = pct != NULL ? (size_t)(pct - pattern) : n;
	if (n < sizeof(buf)) {
		memcpy(buf, pattern, n);
		buf[n] = '\0';
		if (inet_pton(AF_INET6, buf, a6) == 1)
			return 0;
	}
	*why = "not a domain pattern: write a name such as \"api.example.com\", a wildcard "
	       "such as \"*.example.com\" (not \"*.com\" or \"*\"), or an address, without a "
	       "port or a path";
	if (strstr(pattern, "://") != NULL || strchr(pattern, '/') != NULL ||
	    strchr(pattern, ':') != NULL)
		return -1;
	if (strcmp(pattern, "localhost") == 0)
		return 0;
	if (pattern[0] == '*' && pattern[1] == '.') {
		d = pattern + 2;
		if (strchr(d, '.') == NULL || d[0] == '.' || d[strlen(d) - 1] == '.' ||
		    strstr(d, "..") != NULL)
			return -1;
		return 0;
	}
	if (strchr(pattern, '*') != NULL)
		return -1;
	n = strlen(pattern);
	if (strchr(pattern, '.') == NULL || pattern[0] == '.' || pattern[n - 1] == '.')
		return -1;
	return 0;
}

bool
mitm_pattern_match(const char *pattern, const char *canon, enum host_kind kind)
{
	size_t hn = strlen(canon), bn;

	if (pattern[0] == '*' && pattern[1] == '.') {
		if (kind != HOST_NAME)
			return false;
		bn = strlen(pattern + 2);
		return hn > bn + 1 && canon[hn - bn - 1] == '.' &&
		    strcasecmp(canon + hn - bn, pattern + 2) == 0;
	}
	return strcasecmp(canon, pattern) == 0;
}

/* ---- the routes of a policy ------------------------------------------------------ */

/* getenv as the reference's "A ?? B" reads it: a variable set to "" counts as set. */
static const char *
env_first(const char *upper, const char *lower, const char **name)
{
	const char *v;

	if ((v = getenv(upper)) != NULL) {
		*name = upper;
		return v;
	}
	if ((v = getenv(lower)) != NULL) {
		*name = lower;
		return v;
	}
	*name = NULL;
	return NULL;
}

void
upstream_env_read(struct upstream_env *e)
{
	memset(e, 0, sizeof(*e));
	e->http = env_first("HTTP_PROXY", "http_proxy", &e->http_name);
	e->https = env_first("HTTPS_PROXY", "https_proxy", &e->https_name);
	e->no_proxy = env_first("NO_PROXY", "no_proxy", &e->no_proxy_name);
}

static struct proxy_url *
url_from(const char *text, const char *from, struct diags *warns)
{
	struct proxy_url *u;
	const char *why;

	/* Empty: nothing to use, and nothing to say (the reference reads it as unset). */
	if (text == NULL || text[0] == '\0')
		return NULL;
	u = xcalloc(1, sizeof(*u));
	if (proxy_url_parse(text, u, &why) != PROXY_URL_OK) {
		if (warns != NULL)
			diags_add(warns, "%s: the parent proxy URL is ignored: %s", from, why);
		free(u);
		return NULL;
	}
	return u;
}

void
upstream_build(const struct settings_parent *parent, const struct settings_mitm *mitm,
    const struct upstream_env *env, struct upstream *out, struct diags *warns)
{
	const char *http, *https, *np, *hfrom, *sfrom, *nfrom;
	struct strlist ignored = { 0 };

	memset(out, 0, sizeof(*out));
	/* Field by field: the settings' value, else srt's own environment. */
	http = parent->http;
	hfrom = "network.parentProxy.http";
	if (http == NULL) {
		http = env->http;
		hfrom = env->http_name;
	}
	https = parent->https;
	sfrom = "network.parentProxy.https";
	if (https == NULL) {
		https = env->https;
		sfrom = env->https_name;
	}
	np = parent->no_proxy;
	nfrom = "network.parentProxy.noProxy";
	if (np == NULL) {
		np = env->no_proxy;
		nfrom = env->no_proxy_name;
	}
	out->http = url_from(http, hfrom, warns);
	out->http_from = out->http != NULL ? hfrom : NULL;
	out->https = url_from(https, sfrom, warns);
	out->https_from = out->https != NULL ? sfrom : NULL;
	no_proxy_parse(np != NULL ? np : "", &out->np, &ignored);
	for (size_t i = 0; i < ignored.n && warns != NULL; i++)
		diags_add(warns, "%s: \"%s\" is not an address range; it is ignored", nfrom,
		    ignored.v[i]);
	strlist_free(&ignored);
	if (mitm != NULL && mitm->present && mitm->socket_path != NULL) {
		out->mitm_socket = xstrdup(mitm->socket_path);
		for (size_t i = 0; i < mitm->domains.n; i++)
			strlist_push(&out->mitm_domains, mitm->domains.v[i]);
	}
}

void
upstream_free(struct upstream *u)
{
	if (u->http != NULL) {
		proxy_url_free(u->http);
		free(u->http);
	}
	if (u->https != NULL) {
		proxy_url_free(u->https);
		free(u->https);
	}
	no_proxy_free(&u->np);
	free(u->mitm_socket);
	strlist_free(&u->mitm_domains);
	memset(u, 0, sizeof(*u));
}

bool
upstream_needs_tls(const struct upstream *u)
{
	return (u->http != NULL && u->http->tls) || (u->https != NULL && u->https->tls);
}

void
upstream_route(const struct upstream *u, const char *canon, enum host_kind kind, bool tunnel,
    struct route *out)
{
	const struct proxy_url *p;

	memset(out, 0, sizeof(*out));
	out->kind = ROUTE_DIRECT;
	if (u->mitm_socket != NULL) {
		for (size_t i = 0; i < u->mitm_domains.n; i++) {
			if (mitm_pattern_match(u->mitm_domains.v[i], canon, kind)) {
				out->kind = ROUTE_MITM;
				out->mitm_socket = u->mitm_socket;
				return;
			}
		}
	}
	/* A tunnel prefers the https parent; plain HTTP uses only the http one (curl's
	 * rule, and the reference's). */
	p = tunnel ? (u->https != NULL ? u->https : u->http) : u->http;
	if (p == NULL || no_proxy_bypass(&u->np, canon, kind))
		return;
	out->kind = ROUTE_PARENT;
	out->parent = p;
}

char *
route_describe(const struct route *r)
{
	switch (r->kind) {
	case ROUTE_PARENT:
		return xasprintf("parent %s", r->parent->display);
	case ROUTE_MITM:
		return xasprintf("mitm unix:%s", r->mitm_socket);
	case ROUTE_DIRECT:
		break;
	}
	return xstrdup("direct");
}

/* ---- CONNECT through a parent ---------------------------------------------------- */

void
upstream_authority(
    const char *canon, enum host_kind kind, uint16_t port, char *out, size_t outlen)
{
	snprintf(out, outlen, kind == HOST_IPV6 ? "[%s]:%u" : "%s:%u", canon, port);
}

void
upstream_connect_request(
    struct buf *b, const char *canon, enum host_kind kind, uint16_t port, const char *auth)
{
	char a[DOM_HOST_MAX + 16];

	upstream_authority(canon, kind, port, a, sizeof(a));
	buf_addf(b, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n", a, a);
	if (auth != NULL)
		buf_addf(b, "Proxy-Authorization: %s\r\n", auth);
	buf_adds(b, "\r\n");
}

enum upstream_reply
upstream_connect_reply(
    const char *buf, size_t len, size_t *head_len, char *line, size_t linelen)
{
	enum http_status st;
	size_t i, o = 0, end;

	if (linelen > 0)
		line[0] = '\0';
	st = http_head_end(buf, len, UPSTREAM_REPLY_MAX, head_len);
	if (st == HTTP_INCOMPLETE)
		return UPSTREAM_REPLY_MORE;
	if (st != HTTP_OK)
		return UPSTREAM_REPLY_BAD;
	for (end = 0; end < *head_len && buf[end] != '\r'; end++)
		;
	for (i = 0; i < end && linelen > 0 && o + 1 < linelen; i++)
		line[o++] = buf[i] >= 0x20 && buf[i] < 0x7f ? buf[i] : '?';
	if (linelen > 0)
		line[o] = '\0';
	/* "HTTP/1.x NNN[ reason]" */
	if (end < 12 || memcmp(buf, "HTTP/1.", 7) != 0 || (buf[7] != '0' && buf[7] != '1') ||
	    buf[8] != ' ' || buf[9] < '1' || buf[9] > '5' || buf[10] < '0' || buf[10] > '9' ||
	    buf[11] < '0' || buf[11] > '9' || (end > 12 && buf[12] != ' '))
		return UPSTREAM_REPLY_BAD;
	return buf[9] == '2' ? UPSTREAM_REPLY_OK : UPSTREAM_REPLY_REFUSED;
}
