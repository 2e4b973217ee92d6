/*
 * Where an allowed connection leaves the proxies (issue #12): straight to its destination,
 * through the parent proxy (network.parentProxy, each field falling back to the proxy's
 * own HTTP_PROXY / HTTPS_PROXY / NO_PROXY as the reference does), or through the user's
 * inspection proxy on a Unix socket (network.mitmProxy). Pure logic: the proxy URLs, the
 * noProxy list, the mitmProxy domain patterns, the choice of route and the bytes of the
 * CONNECT exchange with a parent. No I/O; the dial is proxy_dial.c.
 *
 * Every text here comes from a settings file or the environment, and the CONNECT reply
 * from a remote server: all of it is parsed with explicit bounds (tests/fuzz/fuzz_upstream.c).
 */
#ifndef SRT_UPSTREAM_H
#define SRT_UPSTREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "buf.h"
#include "domain.h"
#include "settings.h"
#include "util.h"

#define PROXY_URL_MAX 4096       /* bytes of a proxy URL */
#define UPSTREAM_REPLY_MAX 16384 /* bytes of a parent's reply head to CONNECT */
#define UPSTREAM_LINE_MAX 160    /* bytes of its status line kept for a message */

/* A parent proxy, parsed. */
struct proxy_url {
	bool tls;                    /* https://: reached over TLS, certificate verified */
	char host[DOM_HOST_MAX + 1]; /* canonical (host_canonicalise); IPv6 unbracketed */
	enum host_kind kind;         /* HOST_NAME (looked up by the proxy), _IPV4, _IPV6 */
	uint16_t port;
	char *auth;    /* "Basic base64(user:pass)" from the URL, or NULL */
	char *display; /* "http://host:port": for messages, no credentials */
};

enum proxy_url_status {
	PROXY_URL_OK = 0,
	PROXY_URL_BAD = -1,    /* not a usable proxy URL: *why says what is wrong */
	PROXY_URL_IGNORED = 1, /* a URL of another scheme: the reference ignores it */
};

/*
 * A proxy URL as the proxies read it (the reference's resolveParentProxy): without a
 * "scheme://" it is taken as http://TEXT (curl's rule); the scheme must then be http or
 * https; user:pass@ (percent-decoded) becomes the Basic credentials; a path, query or
 * fragment is ignored; no port means 80 for http, 443 for https. out is zeroed first and
 * set only on PROXY_URL_OK; *why is a static message otherwise.
 */
enum proxy_url_status proxy_url_parse(
    const char *text, struct proxy_url *out, const char **why);
void proxy_url_free(struct proxy_url *u);

/*
 * A value of network.parentProxy.http or .https as the settings file must hold it: the
 * reference requires a URL (any scheme; "proxy:3128" is one, "127.0.0.1:3128" is not),
 * then uses it as proxy_url_parse does. PROXY_URL_BAD: the file is invalid;
 * PROXY_URL_IGNORED: valid, but the proxies will not use it (a warning).
 */
enum proxy_url_status proxy_url_check_setting(const char *text, const char **why);

/* The noProxy list (Go's httpproxy rules, as the reference applies them). */
struct no_proxy {
	bool all;                  /* "*" */
	struct addr_range *ranges; /* CIDR entries and bare IP literals */
	size_t nranges;
	struct strlist suffixes; /* "example.com" (it and its subdomains), ".example.com"
	                                   (the same), lower-case, ports dropped */
};
/* Comma-separated entries; blanks around them are dropped. An entry with a '/' that is
 * not a valid CIDR range is ignored, as the reference ignores it, and named in ignored
 * (if not NULL) for a warning. */
void no_proxy_parse(const char *text, struct no_proxy *out, struct strlist *ignored);
void no_proxy_free(struct no_proxy *np);
/* Does a connection to canon (canonical, of kind) bypass the parent? Loopback (localhost,
 * 127.0.0.0/8, ::1) always does. Ports are not looked at. */
bool no_proxy_bypass(const struct no_proxy *np, const char *canon, enum host_kind kind);

/* A mitmProxy.domains entry (the reference's host-only pattern): "example.com",
 * "*.example.com", "localhost", an IPv4 address, an unbracketed IPv6 address. 0, or -1
 * with *why. */
int mitm_pattern_check(const char *pattern, const char **why);
/* Does pattern match canon? "*.base" matches strict subdomains (never an IP literal), any
 * other pattern the host exactly, both without regard to case. */
bool mitm_pattern_match(const char *pattern, const char *canon, enum host_kind kind);

/* srt's own HTTP_PROXY, HTTPS_PROXY, NO_PROXY: upper case first, then lower case; a
 * variable set to "" counts as set. Pointers into the environment (NULL: unset). */
struct upstream_env {
	const char *http, *https, *no_proxy;
	const char *http_name, *https_name, *no_proxy_name; /* which variable */
};
void upstream_env_read(struct upstream_env *e);

/* The routes of one policy: the parent (after the environment fallback) and mitmProxy. */
struct upstream {
	struct proxy_url *http;  /* for plain HTTP; NULL: none */
	struct proxy_url *https; /* for CONNECT and SOCKS; falls back to http */
	struct no_proxy np;
	const char *http_from; /* where each came from, for -d and messages */
	const char *https_from;
	char *mitm_socket; /* NULL: no mitmProxy */
	struct strlist mitm_domains;
};

/*
 * Build the routes of a policy: each parentProxy field not in the settings is taken from
 * env (the reference's resolution, field by field), each URL is parsed, and one that
 * cannot be used is dropped with a line in warns ("HTTP_PROXY: ...: ignored: why").
 */
void upstream_build(const struct settings_parent *parent, const struct settings_mitm *mitm,
    const struct upstream_env *env, struct upstream *out, struct diags *warns);
void upstream_free(struct upstream *u);
/* Does any route need TLS (an https:// parent)? */
bool upstream_needs_tls(const struct upstream *u);

enum route_kind {
	ROUTE_DIRECT, /* the guarded dial of the destination */
	ROUTE_PARENT, /* through route.parent */
	ROUTE_MITM,   /* through the Unix socket route.mitm_socket */
};
struct route {
	enum route_kind kind;
	const struct proxy_url *parent;
	const char *mitm_socket;
};
/*
 * The route of an allowed connection to canon (canonical, of kind): mitmProxy when a
 * domain pattern matches; else the parent unless noProxy (or loopback) bypasses it, the
 * https one for a tunnel (CONNECT, SOCKS), the http one for a plain HTTP request; else
 * direct. The pointers are into u.
 */
void upstream_route(const struct upstream *u, const char *canon, enum host_kind kind,
    bool tunnel, struct route *out);
/* "direct", "parent http://host:port", "mitm unix:PATH" (for the decision log). Caller
 * frees. */
char *route_describe(const struct route *r);

/* "host:port" as a request target (IPv6 in brackets). out holds DOM_HOST_MAX + 9 bytes. */
void upstream_authority(
    const char *canon, enum host_kind kind, uint16_t port, char *out, size_t outlen);

/* The CONNECT request for canon:port, with Proxy-Authorization when auth is set. */
void upstream_connect_request(
    struct buf *b, const char *canon, enum host_kind kind, uint16_t port, const char *auth);

enum upstream_reply {
	UPSTREAM_REPLY_MORE,    /* no end of head yet */
	UPSTREAM_REPLY_OK,      /* 2xx: the tunnel is open after *head_len bytes */
	UPSTREAM_REPLY_REFUSED, /* another status: line holds the status line */
	UPSTREAM_REPLY_BAD,     /* not an HTTP/1.x reply, or a head over the limit */
};
/* The parent's reply to CONNECT, len bytes of it so far. line (linelen bytes) gets the
 * status line, printable ASCII only, for a refusal's message. */
enum upstream_reply upstream_connect_reply(
    const char *buf, size_t len, size_t *head_len, char *line, size_t linelen);

#endif
