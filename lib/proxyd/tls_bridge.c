/*
 * The TLS bridge (tls_bridge.h). Both sockets are registered edge-triggered for reading
 * and writing; every event runs the whole pump, which moves bytes each way until nothing
 * more can move, so no readiness is ever waited for twice: TLS may need to write to read
 * (or read to write), and trying every step on every event covers that too.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "tls_bridge.h"
#include "util.h"

struct tls_bridge {
	struct evloop *loop;
	int fd;    /* the TLS connection's socket */
	int clear; /* our end of the socketpair */
	struct tls_conn *tc;
	/* Each buffer holds [off, off + len); it is refilled from the start once empty,
	 * never moved. */
	char up[TLS_BRIDGE_BUF]; /* clear -> TLS */
	size_t upoff, uplen;
	char down[TLS_BRIDGE_BUF]; /* TLS -> clear */
	size_t downoff, downlen;
	bool clear_eof;          /* the clear side sent EOF */
	bool up_shut;            /* ... and close_notify went out */
	bool tls_eof;            /* the peer ended the TLS stream */
	bool down_shut;          /* ... and the clear side's write side is shut */
	bool clear_gone;         /* the clear end was closed whole: what it wrote is
	                                   still sent on, what comes back is dropped */
	struct ev_timer closing; /* ... within TLS_BRIDGE_CLOSE_MS */
};

static void
bridge_free(struct tls_bridge *b)
{
	evtimer_del(b->loop, &b->closing);
	evloop_forget(b->loop, b->fd);
	close(b->fd);
	evloop_forget(b->loop, b->clear);
	close(b->clear);
	tls_conn_free(b->tc);
	free(b);
}

/* Move what can move; -1 when the bridge is done (freed by the caller). */
static int
bridge_pump(struct tls_bridge *b)
{
	bool progress;
	enum tls_io r;
	ssize_t n;
	size_t got;

	do {
		progress = false;
		/* clear -> buffer */
		if (b->uplen == 0)
			b->upoff = 0;
		if (!b->clear_eof && b->upoff + b->uplen < sizeof(b->up)) {
			n = recv(b->clear, b->up + b->upoff + b->uplen,
			    sizeof(b->up) - b->upoff - b->uplen, 0);
			if (n > 0) {
				b->uplen += (size_t)n;
				progress = true;
			} else if (n == 0) {
				b->clear_eof = true;
				progress = true;
			} else if (errno != EAGAIN && errno != EINTR)
				return -1;
		}
		/* buffer -> TLS, then close_notify after the last byte */
		if (b->uplen > 0) {
			r = tls_write(b->tc, b->up + b->upoff, b->uplen, &got);
			if (r == TLS_IO_OK) {
				b->upoff += got;
				b->uplen -= got;
				progress = true;
			} else if (r == TLS_IO_ERROR || r == TLS_IO_EOF) {
				log_debug("TLS bridge: %s", tls_conn_error(b->tc));
				return -1;
			}
		} else if (b->clear_eof && !b->up_shut) {
			if (tls_shutdown_write(b->tc) == TLS_IO_OK) {
				(void)shutdown(b->fd, SHUT_WR);
				b->up_shut = true;
				progress = true;
			}
		}
		/* TLS -> buffer */
		if (b->downlen == 0)
			b->downoff = 0;
		if (!b->tls_eof && b->downoff + b->downlen < sizeof(b->down)) {
			r = tls_read(b->tc, b->down + b->downoff + b->downlen,
			    sizeof(b->down) - b->downoff - b->downlen, &got);
			if (r == TLS_IO_OK) {
				b->downlen += got;
				progress = true;
			} else if (r == TLS_IO_EOF) {
				b->tls_eof = true;
				progress = true;
			} else if (r == TLS_IO_ERROR) {
				log_debug("TLS bridge: %s", tls_conn_error(b->tc));
				return -1;
			}
		}
		/* buffer -> clear, then its write side shut after the last byte */
		if (b->clear_gone && !b->down_shut) {
			b->downlen = 0;
			b->down_shut = true;
			progress = true;
		} else if (b->clear_gone) {
			b->downlen = 0;
		} else if (b->downlen > 0) {
			n = send(b->clear, b->down + b->downoff, b->downlen, MSG_NOSIGNAL);
			if (n > 0) {
				b->downoff += (size_t)n;
				b->downlen -= (size_t)n;
				progress = true;
			} else if (n == -1 && errno != EAGAIN && errno != EINTR)
				return -1;
		} else if (b->tls_eof && !b->down_shut) {
			(void)shutdown(b->clear, SHUT_WR);
			b->down_shut = true;
			progress = true;
		}
	} while (progress);
	return b->up_shut && b->down_shut ? -1 : 0;
}

static void
bridge_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct tls_bridge *b = arg;

	(void)loop;
	/* The clear end's peer closed it whole (not a half-close): nobody is left to
	 * read, but what it wrote before closing (the last request to a parent) still
	 * goes out, then close_notify, unless the peer does not take it in time. */
	if (fd == b->clear && (events & EV_HUP) && !b->clear_gone) {
		b->clear_gone = true;
		evtimer_add(b->loop, &b->closing, TLS_BRIDGE_CLOSE_MS);
	}
	if (bridge_pump(b) == -1)
		bridge_free(b);
}

static void
bridge_closing_cb(struct evloop *loop, void *arg)
{
	struct tls_bridge *b = arg;

	(void)loop;
	log_debug("TLS bridge: the peer did not take the rest within %u ms of the "
		  "close: dropped",
	    TLS_BRIDGE_CLOSE_MS);
	bridge_free(b);
}

int
tls_bridge_start(struct evloop *loop, int fd, struct tls_conn *tc)
{
	struct tls_bridge *b;
	int sp[2], err;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sp) == -1) {
		err = errno;
		close(fd);
		tls_conn_free(tc);
		errno = err;
		return -1;
	}
	b = xcalloc(1, sizeof(*b));
	b->loop = loop;
	b->fd = fd;
	b->clear = sp[0];
	b->tc = tc;
	evtimer_init(&b->closing, bridge_closing_cb, b);
	if (evloop_add(loop, fd, EV_READ | EV_WRITE | EV_EDGE, bridge_io, b) == -1 ||
	    evloop_add(loop, sp[0], EV_READ | EV_WRITE | EV_EDGE, bridge_io, b) == -1) {
		err = errno;
		evloop_del(loop, fd);
		close(sp[1]);
		bridge_free(b);
		errno = err;
		return -1;
	}
	return sp[1];
}
