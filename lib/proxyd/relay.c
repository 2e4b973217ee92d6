/*
 * Two-way splice relay. Each direction is src socket -> pipe -> dst socket. Both sockets
 * are registered edge-triggered for read and write once, and readiness is remembered in
 * flags that a failed (EAGAIN) call clears, so the loop makes no epoll_ctl call per
 * transfer.
 *
 * Pipes are taken from a small process-wide pool when a direction has bytes to move and
 * given back as soon as they are empty, so an idle tunnel holds two fds, not six. The
 * number of pipes open at once is capped (relay_set_pipe_budget) so that the proxy can
 * size its connection cap at two descriptors per tunnel; a direction that finds no pipe
 * (budget reached, or the descriptor limit) copies through a small user-space buffer
 * instead, for as long as it has bytes to move, and goes back to splice afterwards.
 * (Windows has no splice: lib/compat/relay_win.c copies.)
 *
 * A pipe can refuse more data while holding fewer bytes than its size (each spliced
 * socket fragment occupies a pipe slot), and with SPLICE_F_NONBLOCK that looks like the
 * socket's EAGAIN. So an EAGAIN from socket->pipe only clears "readable" when the pipe was
 * empty; otherwise the read is retried after the pipe has drained.
 */
#ifndef _WIN32
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "relay.h"
#include "util.h"

#define RELAY_CHUNK (1u << 20)
/* Pipe sizes: a bigger pipe moves more per splice call (a 1 MiB pipe costs about a third
 * less CPU per byte than a 256 KiB one on a bulk download). The kernel charges pipe
 * capacity to the user (fs/pipe-user-pages-soft, 64 MiB by default) and shrinks new
 * pipes to two pages past it, so only the first few pipes are made large and the total
 * stays well under that: 8 x 1 MiB, then up to 64 pipes of 256 KiB, then the default. */
#define RELAY_PIPE_BIG (1u << 20)
#define RELAY_PIPE_MID (256u << 10)
#define RELAY_PIPES_BIG 8
#define RELAY_PIPES_MID 64
#define RELAY_COPY_SIZE (16u << 10)     /* the fallback buffer of a direction without pipe */
#define RELAY_DEFAULT_BUDGET 1024

struct relay_dir {
	int src, dst;           /* borrowed from the relay */
	int pipe_r, pipe_w;
	size_t in_pipe;         /* bytes sitting in the pipe */
	size_t pipe_cap;
	char *copy;             /* no pipe to be had: bytes read, not yet written */
	size_t copy_off, copy_len;
	char *pre;              /* user-space bytes to write to dst before the pipe */
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
	int in_cb;
};

static void relay_io_cb(struct evloop *, int, unsigned, void *);

/* Empty pipes ready for reuse: a cache, not state (any pipe in it is interchangeable). */
#define RELAY_POOL_MAX 256
static struct {
	int r, w;
	size_t cap;
} relay_pool[RELAY_POOL_MAX];
static size_t relay_npool;
static size_t relay_npipes;             /* pipes open: pooled and in use */
static size_t relay_budget = RELAY_DEFAULT_BUDGET;

void
relay_set_pipe_budget(size_t pipes)
{
	relay_budget = pipes;
	/* A smaller budget applies to the pool at once. */
	while (relay_npipes > relay_budget && relay_npool > 0) {
		relay_npool--;
		close(relay_pool[relay_npool].r);
		close(relay_pool[relay_npool].w);
		relay_npipes--;
	}
}

static int
relay_pipe_get(struct relay_dir *d)
{
	int p[2], sz;

	if (relay_npool > 0) {
		size_t i, best = 0;

		/* The largest pooled pipe: a busy direction should get a big one. */
		for (i = 1; i < relay_npool; i++)
			if (relay_pool[i].cap > relay_pool[best].cap)
				best = i;
		d->pipe_r = relay_pool[best].r;
		d->pipe_w = relay_pool[best].w;
		d->pipe_cap = relay_pool[best].cap;
		relay_pool[best] = relay_pool[--relay_npool];
		return 0;
	}
	if (relay_npipes >= relay_budget) {
		errno = EMFILE;
		return -1;
	}
	if (pipe2(p, O_NONBLOCK | O_CLOEXEC) == -1)
		return -1;
	relay_npipes++;
	d->pipe_r = p[0];
	d->pipe_w = p[1];
	/* See RELAY_PIPE_BIG; whatever the system refuses, the pipe keeps the size it has. */
	if (relay_npipes <= RELAY_PIPES_BIG && fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_BIG) == -1)
		(void)fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_MID);
	else if (relay_npipes > RELAY_PIPES_BIG && relay_npipes <= RELAY_PIPES_MID)
		(void)fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_MID);
	sz = fcntl(p[1], F_GETPIPE_SZ);
	d->pipe_cap = sz > 0 ? (size_t)sz : 65536;
	return 0;
}

/* Give the pipe back: to the pool if it is empty, else close it (its bytes are lost,
 * which only happens when the relay is being torn down). */
static void
relay_pipe_put(struct relay_dir *d)
{
	if (d->pipe_r == -1)
		return;
	if (d->in_pipe == 0 && relay_npool < RELAY_POOL_MAX) {
		relay_pool[relay_npool].r = d->pipe_r;
		relay_pool[relay_npool].w = d->pipe_w;
		relay_pool[relay_npool].cap = d->pipe_cap;
		relay_npool++;
	} else {
		close(d->pipe_r);
		close(d->pipe_w);
		relay_npipes--;
	}
	d->pipe_r = d->pipe_w = -1;
	d->in_pipe = 0;
}

static void
relay_dir_close(struct relay_dir *d)
{
	relay_pipe_put(d);
	free(d->copy);
	d->copy = NULL;
	d->copy_len = d->copy_off = 0;
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
	close(r->cfd);
	close(r->sfd);
	relay_dir_close(&r->up);
	relay_dir_close(&r->down);
	if (r->done != NULL)
		r->done(r, how, err, &r->st, r->arg);
	free(r);
}

/*
 * Move what can be moved in one direction. *src_rd and *dst_wr are the readiness flags of
 * its source and destination. Returns 0, or an errno value on a hard error.
 */
static int
relay_dir_pump(struct relay *r, struct relay_dir *d, int *src_rd, int *dst_wr)
{
	ssize_t n;

	for (;;) {
		int progress = 0;

		/* Bytes handed in at the start go first. */
		if (d->pre_off < d->pre_len && *dst_wr) {
			n = send(d->dst, d->pre + d->pre_off, d->pre_len - d->pre_off, MSG_NOSIGNAL);
			if (n > 0) {
				d->pre_off += (size_t)n;
				*d->count += (uint64_t)n;
				progress = 1;
			} else if (n == -1 && (errno == EAGAIN || errno == EINTR)) {
				*dst_wr = errno == EINTR;
			} else
				return n == -1 ? errno : EPIPE;
		}
		if (d->pre_off < d->pre_len) {
			if (!progress)
				return 0;
			continue;
		}
		if (d->in_pipe > 0 && *dst_wr) {
			n = splice(d->pipe_r, NULL, d->dst, NULL, d->in_pipe,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe -= (size_t)n;
				*d->count += (uint64_t)n;
				progress = 1;
			} else if (n == -1 && errno == EAGAIN) {
				*dst_wr = 0;
			} else if (n == -1 && errno == EINTR) {
				continue;
			} else
				return n == -1 ? errno : EPIPE;
		}
		/* The fallback buffer drains the same way. */
		if (d->copy_len > 0 && *dst_wr) {
			n = send(d->dst, d->copy + d->copy_off, d->copy_len, MSG_NOSIGNAL);
			if (n > 0) {
				d->copy_off += (size_t)n;
				d->copy_len -= (size_t)n;
				*d->count += (uint64_t)n;
				progress = 1;
			} else if (n == -1 && errno == EAGAIN) {
				*dst_wr = 0;
			} else if (n == -1 && errno == EINTR) {
				continue;
			} else
				return n == -1 ? errno : EPIPE;
		}
		if (d->in_pipe == 0 && d->pipe_r != -1)
			relay_pipe_put(d);
		if (d->copy != NULL && d->copy_len == 0) {
			free(d->copy);
			d->copy = NULL;
			d->copy_off = 0;
		}
		if (!d->eof && *src_rd && d->pipe_r == -1 && d->copy == NULL &&
		    relay_pipe_get(d) == -1) {
			if (errno != EMFILE && errno != ENFILE && errno != ENOMEM)
				return errno;
			/* No pipe now: this round goes through user space. */
			d->copy = xmalloc(RELAY_COPY_SIZE);
			d->copy_off = d->copy_len = 0;
		}
		if (!d->eof && *src_rd && d->copy != NULL && d->copy_len == 0) {
			n = recv(d->src, d->copy, RELAY_COPY_SIZE, 0);
			if (n > 0) {
				d->copy_off = 0;
				d->copy_len = (size_t)n;
				progress = 1;
			} else if (n == 0) {
				d->eof = 1;
				progress = 1;
			} else if (errno == EAGAIN) {
				/* Nothing to move: an idle tunnel keeps no buffer. */
				*src_rd = 0;
				free(d->copy);
				d->copy = NULL;
			} else if (errno != EINTR)
				return errno;
		} else if (!d->eof && *src_rd && d->pipe_r != -1 && d->in_pipe < d->pipe_cap) {
			size_t want = d->pipe_cap - d->in_pipe;

			n = splice(d->src, NULL, d->pipe_w, NULL, want > RELAY_CHUNK ? RELAY_CHUNK : want,
			    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->in_pipe += (size_t)n;
				progress = 1;
			} else if (n == 0) {
				d->eof = 1;
				progress = 1;
			} else if (errno == EAGAIN) {
				/* See the top of the file: only trust EAGAIN with an empty pipe. */
				if (d->in_pipe == 0) {
					*src_rd = 0;
					relay_pipe_put(d);
				}
			} else if (errno != EINTR)
				return errno;
		}
		if (d->eof && d->in_pipe == 0 && d->copy_len == 0 && !d->done) {
			d->done = 1;
			/* ENOTCONN: the peer already closed; nothing left to tell it. */
			if (shutdown(d->dst, SHUT_WR) == -1 && errno != ENOTCONN)
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
	r->up.src = client_fd;
	r->up.dst = server_fd;
	r->up.count = &r->st.up;
	r->down.src = server_fd;
	r->down.dst = client_fd;
	r->down.count = &r->st.down;
	r->up.pipe_r = r->up.pipe_w = r->down.pipe_r = r->down.pipe_w = -1;
	r->done = p->done;
	r->arg = p->arg;
	r->idle_ms = p->idle_ms;
	r->last = evloop_now(loop);
	/* Optimistic readiness: the first pump finds out with EAGAIN. */
	r->c_readable = r->c_writable = r->s_readable = r->s_writable = 1;
	if (p->to_server_len > 0) {
		r->up.pre = xmalloc(p->to_server_len);
		memcpy(r->up.pre, p->to_server, p->to_server_len);
		r->up.pre_len = p->to_server_len;
	}
	if (p->to_client_len > 0) {
		r->down.pre = xmalloc(p->to_client_len);
		memcpy(r->down.pre, p->to_client, p->to_client_len);
		r->down.pre_len = p->to_client_len;
	}
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
	close(client_fd);
	close(server_fd);
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
