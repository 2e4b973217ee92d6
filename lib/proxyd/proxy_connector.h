/*
 * The connector of a proxy with network.mitmProxy: a child started before the proxy
 * narrows itself, which holds the one socket path of the inspection proxy, connects to
 * it each time it is asked and passes the connected socket back (SCM_RIGHTS).
 *
 * Why a child: the narrowed proxy may create only IP sockets (proxy_sandbox.h). Letting
 * it create Unix sockets would let a proxy taken over through a parser bug connect to
 * any socket the user can reach (a container runtime's, a session bus); through the
 * connector it reaches one path, fixed at start, and a request is one byte that names
 * nothing. The child narrows itself too: reading a request, creating a Unix socket,
 * connecting, passing it on, closing, exiting.
 *
 * A request is answered from the event loop, in order. The path is the one the proxy
 * started with; a reload that names another cannot change it (proxy.c says so when it
 * happens).
 */
#ifndef SRT_PROXY_CONNECTOR_H
#define SRT_PROXY_CONNECTOR_H

#include "evloop.h"

#define PROXY_CONNECTOR_TIMEOUT_S 10 /* a connect to a full backlog waits this long */

struct proxy_connector;
struct proxy_connector_req;

/* NULL with a warning on failure. */
struct proxy_connector *proxy_connector_start(struct evloop *loop, const char *path);
void proxy_connector_free(struct proxy_connector *pc);
const char *proxy_connector_path(const struct proxy_connector *pc);

/* fd: a connected, non-blocking, close-on-exec socket the callback owns, or -1 with err
 * (the errno of socket(2) or connect(2), EIO when the connector is gone). */
typedef void (*proxy_connector_cb)(void *arg, int fd, int err);
/* Ask for a connection; cb runs once, later, from the loop. NULL with errno when the
 * request cannot be sent (the connector is gone). */
struct proxy_connector_req *proxy_connector_ask(
    struct proxy_connector *pc, proxy_connector_cb cb, void *arg);
/* The callback will not run; a socket that still arrives is closed. */
void proxy_connector_cancel(struct proxy_connector_req *r);

#endif
