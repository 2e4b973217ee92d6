/*
 * Listen addresses of the proxies, read one way by every program that takes one:
 * srt-httpd's and srt-socksd's -l, srt proxy's --listen. Pure, apart from getsockname
 * in proxy_listener_name; no other part of the proxies is needed, so srt-launch links
 * it alone.
 */
#ifndef SRT_PROXY_LISTEN_H
#define SRT_PROXY_LISTEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys.h"

/* Parse a listen address: "127.0.0.1:3128", "[::1]:3128", "localhost:3128" (127.0.0.1),
 * "unix:/path". 0 or -1 with *why set. */
int proxy_parse_listen(
    const char *s, struct sockaddr_storage *ss, socklen_t *sslen, const char **why);

/* 127.0.0.1:port (family AF_INET) or [::1]:port (AF_INET6) in *ss; its length. */
socklen_t proxy_listen_loopback(int family, uint16_t port, struct sockaddr_storage *ss);

/* Reachable from this host only: loopback (127.0.0.0/8, ::1, ::ffff:127.x) or a unix
 * socket. */
bool proxy_listen_local(const struct sockaddr_storage *ss);

/* Why s cannot be listened on, or NULL: it does not parse (proxy_parse_listen), or it is
 * neither loopback nor a unix socket, so other hosts could reach the proxy, and any
 * (--listen-any-interface) is not set. */
const char *proxy_listen_refusal(const char *s, bool any);

/* "127.0.0.1:3128", "[::1]:3128", "unix:/path": where fd listens, its port as bound
 * (unix_path: the socket's path, or NULL for an IP listener). */
void proxy_listener_name(int fd, const char *unix_path, char *out, size_t outlen);

#endif
