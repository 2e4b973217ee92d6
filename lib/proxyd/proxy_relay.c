/*
 * --relay-to PORT: the plain relay that leads the sandbox's proxy ports to a proxy the
 * user runs on a host loopback port (httpProxyPort, socksProxyPort). No parsing and no
 * policy: the user's proxy decides. Each connection is dialled to 127.0.0.1:PORT, or to
 * [::1]:PORT when nothing answers there, then spliced (relay.c). It runs in the proxies'
 * core, so it is exec'd, accepts under the same cap and narrows itself like them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "proxy.h"
#include "proxy_listen.h"
#include "relay.h"
#include "sys.h"

struct proxy_relay_dial {
	struct proxy *px;
	int client;
	int server;  /* the socket being connected, or -1 */
	int attempt; /* 0: 127.0.0.1, 1: [::1], 2: none left */
	struct ev_timer timeout;
};

static void proxy_relay_dial_next(struct proxy_relay_dial *d);

static void
proxy_relay_done(
    struct relay *r, enum relay_end how, int err, const struct relay_stats *st, void *arg)
{
	(void)r;
	(void)how;
	(void)err;
	(void)st;
	proxy_conn_closed(arg);
}

/* The dial is over; the client is closed unless the relay took it. */
static void
proxy_relay_dial_end(struct proxy_relay_dial *d, bool close_client)
{
	struct evloop *loop = proxy_loop(d->px);

	evtimer_del(loop, &d->timeout);
	if (d->server != -1) {
		evloop_forget(loop, d->server);
		sys_sockclose(d->server);
	}
	if (close_client) {
		sys_sockclose(d->client);
		proxy_conn_closed(d->px);
	}
	free(d);
}

static void
proxy_relay_connected(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy_relay_dial *d = arg;
	struct relay_params p;
	int err = 0;

	(void)events;
	if (sys_sock_error(fd, &err) == -1 || err != 0) {
		evloop_forget(loop, fd);
		sys_sockclose(fd);
		d->server = -1;
		proxy_relay_dial_next(d);
		return;
	}
	evloop_detach(loop, fd);
	d->server = -1;
	memset(&p, 0, sizeof(p));
	p.idle_ms = (uint64_t)proxy_options(d->px)->idle_timeout_s * 1000;
	p.done = proxy_relay_done;
	p.arg = d->px;
	/* The relay owns both descriptors from here on, even when it cannot start. */
	if (relay_start(loop, d->client, fd, &p, NULL) == -1) {
		log_warn("relay to port %u", proxy_options(d->px)->relay_port);
		proxy_conn_closed(d->px);
	}
	proxy_relay_dial_end(d, false);
}

/* 127.0.0.1 first, then [::1]: the user's proxy may listen on either. */
static void
proxy_relay_dial_next(struct proxy_relay_dial *d)
{
	struct evloop *loop = proxy_loop(d->px);
	uint16_t port = (uint16_t)proxy_options(d->px)->relay_port;
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd;

	for (; d->attempt < 2; d->attempt++) {
		sl = proxy_listen_loopback(d->attempt == 0 ? AF_INET : AF_INET6, port, &ss);
		fd = sys_socket(ss.ss_family);
		if (fd == -1)
			continue;
		(void)sys_setsockopt_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
		if ((sys_connect(fd, (struct sockaddr *)&ss, sl) == 0 ||
			errno == EINPROGRESS) &&
		    evloop_add(loop, fd, EV_WRITE, proxy_relay_connected, d) == 0) {
			d->server = fd;
			d->attempt++;
			return;
		}
		sys_sockclose(fd);
	}
	log_debug("relay: nothing answers on port %u", port);
	proxy_relay_dial_end(d, true);
}

static void
proxy_relay_timeout(struct evloop *loop, void *arg)
{
	(void)loop;
	log_debug("relay: connect timed out");
	proxy_relay_dial_end(arg, true);
}

void
proxy_relay_accept(struct proxy *px, int fd, const char *client)
{
	struct proxy_relay_dial *d = xcalloc(1, sizeof(*d));

	(void)client;
	d->px = px;
	d->client = fd;
	d->server = -1;
	evtimer_init(&d->timeout, proxy_relay_timeout, d);
	evtimer_add(proxy_loop(px), &d->timeout, PROXY_CONNECT_TIMEOUT_MS);
	proxy_relay_dial_next(d);
}
