/*
 * The relay's state machine, one for every platform: start bytes first, then whatever
 * the byte mover (lib/proxyd/relay_int.h) carries, half-close passed on once a direction's
 * bytes are delivered, the idle timer, and one end. The mover is splice(2) through a
 * pipe on Linux (lib/proxyd/relay_splice.c) and a user-space copy elsewhere (lib/proxyd/relay_copy.c).
 *
 * Both sockets are registered edge-triggered for read and write once, and readiness is
 * remembered in flags that a failed (would-block) call clears, so the loop makes no
 * epoll_ctl call per transfer (on Windows the loop's emulation polls that way again:
 * evloop.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "relay_int.h"
#include "sys.h"
#include "util.h"

struct relay {
	struct evloop *loop;
	int cfd, sfd;
	int c_readable, c_writable, s_readable, s_writable;
	struct relay_dir up;   /* client -> server */
	struct relay_dir down; /* server -> client */
	struct relay_stats st;
	struct ev_timer idle;
	uint64_t idle_ms;
	uint64_t last;
	relay_done_cb done;
	void *arg;
	int finishing;
};

static void
relay_dir_close(struct relay_dir *d)
{
	relay_move_close(d);
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
	/* The relay's sockets are never shared: closing them takes them out of the epoll
	 * set, no epoll_ctl needed. */
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

/* Write the bytes handed in at the start: 1 on progress, 0 when blocked, -1 with errno
 * on a hard error. */
static int
relay_pre_write(struct relay_dir *d, int *dst_wr)
{
	ssize_t n;
	int w = 0;

	while (*dst_wr) {
		n = sys_sock_send(d->dst, d->pre + d->pre_off, d->pre_len - d->pre_off);
		if ((w = relay_wrote(d, n, dst_wr)) == 2)
			continue;
		if (w == 1)
			d->pre_off += (size_t)n;
		break;
	}
	return w;
}

/*
 * Move what can be moved in one direction. *src_rd and *dst_wr are the readiness flags of
 * its source and destination. Returns 0, or an errno value on a hard error.
 */
static int
relay_dir_pump(struct relay *r, struct relay_dir *d, int *src_rd, int *dst_wr)
{
	int progress, w;

	for (;;) {
		/* Bytes handed in at the start go first. */
		if (d->pre_off < d->pre_len) {
			if ((progress = relay_pre_write(d, dst_wr)) == -1)
				return errno;
			if (d->pre_off < d->pre_len) {
				if (!progress)
					return 0;
				continue;
			}
		}
		if ((progress = relay_move_out(d, dst_wr)) == -1)
			return errno;
		if (!d->eof && *src_rd) {
			if ((w = relay_move_in(d, src_rd)) == -1)
				return errno;
			progress |= w;
		}
		if (d->eof && relay_move_held(d) == 0 && !d->done) {
			d->done = 1;
			/* ENOTCONN: the peer already closed; nothing left to tell it. */
			if (sys_shutdown_wr(d->dst) == -1 && errno != ENOTCONN)
				return errno;
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

static void
relay_dir_init(
    struct relay_dir *d, int src, int dst, uint64_t *count, const void *pre, size_t pre_len)
{
	d->src = src;
	d->dst = dst;
	d->count = count;
	relay_move_init(d);
	if (pre_len > 0) {
		d->pre = xmalloc(pre_len);
		memcpy(d->pre, pre, pre_len);
		d->pre_len = pre_len;
	}
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
	relay_dir_init(&r->up, client_fd, server_fd, &r->st.up, p->to_server, p->to_server_len);
	relay_dir_init(
	    &r->down, server_fd, client_fd, &r->st.down, p->to_client, p->to_client_len);
	r->done = p->done;
	r->arg = p->arg;
	r->idle_ms = p->idle_ms;
	r->last = evloop_now(loop);
	/* Optimistic readiness: the first pump finds out with a would-block. */
	r->c_readable = r->c_writable = r->s_readable = r->s_writable = 1;
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
	/* Nothing is pumped here: done must never run inside relay_start. The edge-triggered
	 * registration reports the sockets' current state on the next loop turn. */
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
