/* Listen addresses of the proxies: see proxy_listen.h. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifndef _WIN32
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>
#endif

#include "proxy_listen.h"

int
proxy_parse_listen(
    const char *s, struct sockaddr_storage *ss, socklen_t *sslen, const char **why)
{
	char host[64];
	const char *colon, *h;
	size_t hl;
	char *end;
	long port;

	memset(ss, 0, sizeof(*ss));
	*why = NULL;
	if (strncmp(s, "unix:", 5) == 0) {
		struct sockaddr_un *sun = (struct sockaddr_un *)ss;

		if (s[5] != '/' || strlen(s + 5) >= sizeof(sun->sun_path)) {
			*why = "a unix socket needs an absolute path shorter than 108 bytes";
			return -1;
		}
		sun->sun_family = AF_UNIX;
		strcpy(sun->sun_path, s + 5);
		*sslen = sizeof(*sun);
		return 0;
	}
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || rb[1] != ':') {
			*why = "expected [ADDRESS]:PORT";
			return -1;
		}
		h = s + 1;
		hl = (size_t)(rb - h);
		colon = rb + 1;
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL) {
			*why = "expected ADDRESS:PORT";
			return -1;
		}
		h = s;
		hl = (size_t)(colon - s);
	}
	if (hl == 0 || hl >= sizeof(host)) {
		*why = "bad address";
		return -1;
	}
	memcpy(host, h, hl);
	host[hl] = '\0';
	/* The name every user writes; it is 127.0.0.1 here, never a lookup. */
	if (s[0] != '[' && strcmp(host, "localhost") == 0)
		snprintf(host, sizeof(host), "127.0.0.1");
	errno = 0;
	port = strtol(colon + 1, &end, 10);
	if (errno != 0 || end == colon + 1 || *end != '\0' || port < 0 || port > 65535) {
		*why = "the port must be a number from 0 to 65535";
		return -1;
	}
	if (s[0] != '[') {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &sin->sin_addr) != 1) {
			*why = "not an IPv4 address or localhost (write IPv6 as [ADDRESS]:PORT)";
			return -1;
		}
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		*sslen = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &sin6->sin6_addr) != 1) {
			*why = "not an IPv6 address";
			return -1;
		}
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		*sslen = sizeof(*sin6);
	}
	return 0;
}

socklen_t
proxy_listen_loopback(int family, uint16_t port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		return (socklen_t)sizeof(*sin);
	}
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = in6addr_loopback;
	return (socklen_t)sizeof(*sin6);
}

/* Reachable from this host only: loopback (127.0.0.0/8, ::1, ::ffff:127.x) or a unix
 * socket. */
bool
proxy_listen_local(const struct sockaddr_storage *ss)
{
	static const uint8_t one[16] = { [15] = 1 };
	static const uint8_t mapped[12] = { [10] = 0xff, [11] = 0xff };
	const uint8_t *b;

	switch (ss->ss_family) {
	case AF_INET:
		return ((const uint8_t *)&((const struct sockaddr_in *)ss)->sin_addr)[0] == 127;
	case AF_INET6:
		b = (const uint8_t *)&((const struct sockaddr_in6 *)ss)->sin6_addr;
		return memcmp(b, one, 16) == 0 || (memcmp(b, mapped, 12) == 0 && b[12] == 127);
	default:
		return true;
	}
}

const char *
proxy_listen_refusal(const char *s, bool any)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const char *why;

	if (proxy_parse_listen(s, &ss, &sl, &why) == -1)
		return why;
	if (!any && !proxy_listen_local(&ss))
		return "not a loopback address (127.0.0.0/8, [::1] or localhost), so other "
		       "hosts could use the proxy; pass --listen-any-interface to listen there "
		       "anyway";
	return NULL;
}

/* "127.0.0.1:3128", "[::1]:3128", "unix:/path": where fd listens, its port as bound. */
void
proxy_listener_name(int fd, const char *unix_path, char *out, size_t outlen)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN];

	if (unix_path != NULL) {
		snprintf(out, outlen, "unix:%s", unix_path);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (getsockname(fd, (struct sockaddr *)&ss, &sl) == -1) {
		snprintf(out, outlen, "?");
		return;
	}
	if (ss.ss_family == AF_INET6 &&
	    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, a, sizeof(a)) != NULL)
		snprintf(
		    out, outlen, "[%s]:%u", a, ntohs(((struct sockaddr_in6 *)&ss)->sin6_port));
	else if (ss.ss_family == AF_INET &&
	    inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, a, sizeof(a)) != NULL)
		snprintf(out, outlen, "%s:%u", a, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	else
		snprintf(out, outlen, "?");
}
