/*
 * lib/proxyd/relay.h on Windows: no splice(2), so each direction copies through a buffer in
 * user space, allocated while it has bytes to move (an idle tunnel holds none). The
 * sockets are registered edge-triggered once, readiness is kept in flags that a
 * would-block clears (the loop's emulation then polls that way again: evloop.h), as the
 * splice relay does. Pipes do not exist here: relay_set_pipe_budget does nothing.
 */
#ifdef _WIN32
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "relay.h"
#include "sys.h"
#include "util.h"

#define RELAY_COPY_SIZE (64u << 10)

struct relay_dir {
	int src, dst;           /* borrowed from the relay */
	char *buf;              /* bytes read, not yet written */
	size_t off, len;
	char *pre;              /* bytes to write to dst first */
	size_t pre_len, pre_off;
	int eof;                /* src reached EOF */
	int done;               /* dst was shut down for writing */
	uint64_t *count;
};

struct relay {
	struct evloop *loop;
	int cfd, sfd;
	int c_readable, c_writable, s_readable, s_writable;
	struct relay_dir up;    /* client -> server */
	struct relay_dir down;  /* server -> client */
	struct relay_stats st;
	struct ev_timer idle;
	uint64_t idle_ms;
	uint64_t last;
	relay_done_cb done;
	void *arg;
	int finishing;
};

void
relay_set_pipe_budget(size_t pipes)
{
	(void)pipes;
}

static void
relay_dir_close(struct relay_dir *d)
{
	free(d->buf);
	d->buf = NULL;
	d->len = d->off = 0;
	free(d->pre);
	d->pre = NULL;
}

static void
relay_finish(struct relay *r, enum relay_end how, int err)
{
	if (r->finishing)
		return;
	r->finishing = 1;
	evtimer_del(r->loop, &r->idle);
	evloop_forget(r->loop, r->cfd);
	evloop_forget(r->loop, r->sfd);
	sys_sockclose(r->cfd);
	sys_sockclose(r->sfd);
	relay_dir_close(&r->up);
	relay_dir_close(&r->down);
	if (r->done != NULL)
		r->done(r, how, err, &r->st, r->arg);
	free(r);
}

/* Write what d holds (its start bytes first). 1 on progress, 0 when blocked or empty,
 * -1 with errno on a hard error. */
static int
relay_dir_write(struct relay_dir *d, int *dst_wr)
{
	char *p;
	size_t *off, left;
	ssize_t n;

	if (d->pre_off < d->pre_len) {
		p = d->pre;
		off = &d->pre_off;
		left = d->pre_len - d->pre_off;
	} else if (d->len > 0) {
		p = d->buf;
		off = &d->off;
		left = d->len;
	} else
		return 0;
	if (!*dst_wr)
		return 0;
	n = sys_send(d->dst, p + *off, left);
	if (n > 0) {
		*off += (size_t)n;
		if (p == d->buf)
			d->len -= (size_t)n;
		*d->count += (uint64_t)n;
		return 1;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
		*dst_wr = errno == EINTR;
		return 0;
	}
	if (n == 0)
		errno = EPIPE;
	return -1;
}

/* Move what can be moved one way; 0, or an errno value on a hard error. */
static int
relay_dir_pump(struct relay *r, struct relay_dir *d, int *src_rd, int *dst_wr)
{
	ssize_t n;
	int w;

	for (;;) {
		int progress = 0;

		if ((w = relay_dir_write(d, dst_wr)) == -1)
			return errno;
		progress |= w;
		if (d->buf != NULL && d->len == 0) {
			free(d->buf);
			d->buf = NULL;
			d->off = 0;
		}
		/* Read only once the start bytes are out and the buffer is empty. */
		if (!d->eof && *src_rd && d->pre_off == d->pre_len && d->buf == NULL) {
			d->buf = xmalloc(RELAY_COPY_SIZE);
			n = sys_recv(d->src, d->buf, RELAY_COPY_SIZE);
			if (n > 0) {
				d->off = 0;
				d->len = (size_t)n;
				progress = 1;
			} else {
				free(d->buf);
				d->buf = NULL;
				if (n == 0) {
					d->eof = 1;
					progress = 1;
				} else if (errno == EAGAIN)
					*src_rd = 0;
				else if (errno != EINTR)
					return errno;
			}
		}
		if (d->eof && d->pre_off == d->pre_len && d->len == 0 && !d->done) {
			d->done = 1;
			/* ENOTCONN: the peer already closed; nothing left to tell it. */
			if (shutdown((SOCKET)d->dst, SD_SEND) != 0) {
				int e = sys_errno_from_wsa(WSAGetLastError());

				if (e != ENOTCONN)
					return e;
			}
		}
		if (!progress)
			return 0;
		r->last = evloop_now(r->loop);
	}
}

static void
relay_pump(struct relay *r)
{
	int err;

	if ((err = relay_dir_pump(r, &r->up, &r->c_readable, &r->s_writable)) != 0 ||
	    (err = relay_dir_pump(r, &r->down, &r->s_readable, &r->c_writable)) != 0) {
		relay_finish(r, RELAY_END_ERROR, err);
		return;
	}
	if (r->up.done && r->down.done)
		relay_finish(r, RELAY_END_CLOSED, 0);
}

static void
relay_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct relay *r = arg;

	(void)loop;
	if (fd == r->cfd) {
		if (events & EV_READ)
			r->c_readable = 1;
		if (events & EV_WRITE)
			r->c_writable = 1;
	} else {
		if (events & EV_READ)
			r->s_readable = 1;
		if (events & EV_WRITE)
			r->s_writable = 1;
	}
	relay_pump(r);
}

static void
relay_idle_cb(struct evloop *loop, void *arg)
{
	struct relay *r = arg;
	uint64_t now = evloop_now(loop);

	if (now - r->last >= r->idle_ms) {
		relay_finish(r, RELAY_END_IDLE, 0);
		return;
	}
	evtimer_add(loop, &r->idle, r->idle_ms - (now - r->last));
}

static char *
relay_copy(const void *p, size_t n, size_t *len)
{
	char *c;

	*len = n;
	if (n == 0)
		return NULL;
	c = xmalloc(n);
	memcpy(c, p, n);
	return c;
}

int
relay_start(struct evloop *loop, int client_fd, int server_fd, const struct relay_params *p,
    struct relay **out)
{
	struct relay *r;
	int saved;

	if (out != NULL)
		*out = NULL;
	r = xcalloc(1, sizeof(*r));
	r->loop = loop;
	r->cfd = client_fd;
	r->sfd = server_fd;
	r->up.src = r->down.dst = client_fd;
	r->up.dst = r->down.src = server_fd;
	r->up.count = &r->st.up;
	r->down.count = &r->st.down;
	r->done = p->done;
	r->arg = p->arg;
	r->idle_ms = p->idle_ms;
	r->last = evloop_now(loop);
	/* Optimistic readiness: the first pump finds out with a would-block. */
	r->c_readable = r->c_writable = r->s_readable = r->s_writable = 1;
	r->up.pre = relay_copy(p->to_server, p->to_server_len, &r->up.pre_len);
	r->down.pre = relay_copy(p->to_client, p->to_client_len, &r->down.pre_len);
	if (evloop_add(loop, client_fd, EV_READ | EV_WRITE | EV_EDGE, relay_io_cb, r) == -1)
		goto fail;
	if (evloop_add(loop, server_fd, EV_READ | EV_WRITE | EV_EDGE, relay_io_cb, r) == -1) {
		saved = errno;
		evloop_del(loop, client_fd);
		errno = saved;
		goto fail;
	}
	evtimer_init(&r->idle, relay_idle_cb, r);
	if (r->idle_ms > 0)
		evtimer_add(loop, &r->idle, r->idle_ms);
	if (out != NULL)
		*out = r;
	/* Nothing is pumped here: done must never run inside relay_start. */
	return 0;
fail:
	saved = errno;
	sys_sockclose(client_fd);
	sys_sockclose(server_fd);
	relay_dir_close(&r->up);
	relay_dir_close(&r->down);
	free(r);
	errno = saved;
	return -1;
}

void
relay_abort(struct relay *r)
{
	relay_finish(r, RELAY_END_ABORTED, 0);
}

void
relay_get_stats(const struct relay *r, struct relay_stats *st)
{
	*st = r->st;
}
#endif
