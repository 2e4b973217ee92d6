/*
 * The relay's splice byte mover (lib/proxyd/relay_int.h), Linux's: each direction is src
 * socket -> pipe -> dst socket, so the bytes never enter user space.
 *
 * Pipes are taken from a small process-wide pool when a direction has bytes to move and
 * given back as soon as they are empty, so an idle tunnel holds two fds, not six. The
 * number of pipes open at once is capped (relay_set_pipe_budget) so that the proxy can
 * size its connection cap at two descriptors per tunnel; a direction that finds no pipe
 * (budget reached, or the descriptor limit) copies through a small user-space buffer
 * instead (lib/proxyd/relay_copy.c), for as long as it has bytes to move, and goes back to
 * splice afterwards.
 *
 * A pipe can refuse more data while holding fewer bytes than its size (each spliced
 * socket fragment occupies a pipe slot), and with SPLICE_F_NONBLOCK that looks like the
 * socket's EAGAIN. So an EAGAIN from socket->pipe only clears "readable" when the pipe was
 * empty; otherwise the read is retried after the pipe has drained.
 */
#ifdef __linux__
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "relay_int.h"

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
#define RELAY_COPY_SIZE (16u << 10) /* the fallback buffer of a direction without pipe */
#define RELAY_DEFAULT_BUDGET 1024

/* Empty pipes ready for reuse: a cache, not state (any pipe in it is interchangeable). */
#define RELAY_POOL_MAX 256
static struct {
	int r, w;
	size_t cap;
} relay_pool[RELAY_POOL_MAX];
static size_t relay_npool;
static size_t relay_npipes; /* pipes open: pooled and in use */
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
relay_pipe_get(struct relay_mover *m)
{
	int p[2], sz;

	if (relay_npool > 0) {
		size_t i, best = 0;

		/* The largest pooled pipe: a busy direction should get a big one. */
		for (i = 1; i < relay_npool; i++)
			if (relay_pool[i].cap > relay_pool[best].cap)
				best = i;
		m->pipe_r = relay_pool[best].r;
		m->pipe_w = relay_pool[best].w;
		m->pipe_cap = relay_pool[best].cap;
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
	m->pipe_r = p[0];
	m->pipe_w = p[1];
	/* See RELAY_PIPE_BIG; whatever the system refuses, the pipe keeps the size it has. */
	if (relay_npipes <= RELAY_PIPES_BIG && fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_BIG) == -1)
		(void)fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_MID);
	else if (relay_npipes > RELAY_PIPES_BIG && relay_npipes <= RELAY_PIPES_MID)
		(void)fcntl(p[1], F_SETPIPE_SZ, RELAY_PIPE_MID);
	sz = fcntl(p[1], F_GETPIPE_SZ);
	m->pipe_cap = sz > 0 ? (size_t)sz : 65536;
	return 0;
}

/* Give the pipe back: to the pool if it is empty, else close it (its bytes are lost,
 * which only happens when the relay is being torn down). */
static void
relay_pipe_put(struct relay_mover *m)
{
	if (m->pipe_r == -1)
		return;
	if (m->in_pipe == 0 && relay_npool < RELAY_POOL_MAX) {
		relay_pool[relay_npool].r = m->pipe_r;
		relay_pool[relay_npool].w = m->pipe_w;
		relay_pool[relay_npool].cap = m->pipe_cap;
		relay_npool++;
	} else {
		close(m->pipe_r);
		close(m->pipe_w);
		relay_npipes--;
	}
	m->pipe_r = m->pipe_w = -1;
	m->in_pipe = 0;
}

void
relay_move_init(struct relay_dir *d)
{
	d->mv.pipe_r = d->mv.pipe_w = -1;
}

void
relay_move_close(struct relay_dir *d)
{
	relay_pipe_put(&d->mv);
	free(d->mv.copy.p);
	d->mv.copy.p = NULL;
	d->mv.copy.off = d->mv.copy.len = 0;
}

size_t
relay_move_held(const struct relay_dir *d)
{
	return d->mv.in_pipe + d->mv.copy.len;
}

int
relay_move_out(struct relay_dir *d, int *dst_wr)
{
	struct relay_mover *m = &d->mv;
	ssize_t n;
	int w = 0, c;

	while (m->in_pipe > 0 && *dst_wr) {
		n = splice(m->pipe_r, NULL, d->dst, NULL, m->in_pipe,
		    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
		if ((w = relay_wrote(d, n, dst_wr)) == 2)
			continue;
		if (w == -1)
			return -1;
		if (w == 1)
			m->in_pipe -= (size_t)n;
		break;
	}
	/* The fallback buffer drains the same way (a direction has a pipe or a buffer). */
	if ((c = relay_copy_out(d, &m->copy, dst_wr)) == -1)
		return -1;
	if (m->in_pipe == 0 && m->pipe_r != -1)
		relay_pipe_put(m);
	return w == 1 || c == 1;
}

int
relay_move_in(struct relay_dir *d, int *src_rd)
{
	struct relay_mover *m = &d->mv;
	size_t want;
	ssize_t n;

	if (m->pipe_r == -1 && m->copy.p == NULL && relay_pipe_get(m) == -1 &&
	    errno != EMFILE && errno != ENFILE && errno != ENOMEM)
		return -1;
	/* No pipe now (or the buffer still holds bytes): this round goes through user
	 * space. */
	if (m->pipe_r == -1)
		return relay_copy_in(d, &m->copy, RELAY_COPY_SIZE, src_rd);
	if (m->in_pipe >= m->pipe_cap)
		return 0;
	want = m->pipe_cap - m->in_pipe;
	n = splice(d->src, NULL, m->pipe_w, NULL, want > RELAY_CHUNK ? RELAY_CHUNK : want,
	    SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
	if (n > 0) {
		m->in_pipe += (size_t)n;
		return 1;
	}
	if (n == 0) {
		d->eof = 1;
		return 1;
	}
	if (errno == EAGAIN) {
		/* See the top of the file: only trust EAGAIN with an empty pipe. */
		if (m->in_pipe == 0) {
			*src_rd = 0;
			relay_pipe_put(m);
		}
	} else if (errno != EINTR)
		return -1;
	return 0;
}
#endif
