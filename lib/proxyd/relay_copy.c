/*
 * The relay's copying byte mover (lib/proxyd/relay_int.h): recv into a user-space buffer, send
 * it on. It is the whole mover where there is no splice(2) (Windows), and the fallback of
 * the splice mover (lib/proxyd/relay_splice.c) for a direction that can have no pipe. The
 * sockets' calls are lib/core/sys.h's, so the same code runs on both systems.
 */
#include <errno.h>
#include <stdlib.h>

#include "relay_int.h"
#include "sys.h"
#include "util.h"

int
relay_wrote(struct relay_dir *d, ssize_t n, int *dst_wr)
{
	if (n > 0) {
		*d->count += (uint64_t)n;
		return 1;
	}
	if (n == -1 && errno == EINTR)
		return 2;
	if (n == -1 && errno == EAGAIN) {
		*dst_wr = 0;
		return 0;
	}
	if (n == 0)
		errno = EPIPE;
	return -1;
}

int
relay_copy_out(struct relay_dir *d, struct relay_buf *b, int *dst_wr)
{
	ssize_t n;
	int w = 0;

	while (b->len > 0 && *dst_wr) {
		n = sys_sock_send(d->dst, b->p + b->off, b->len);
		if ((w = relay_wrote(d, n, dst_wr)) == 2)
			continue;
		if (w == -1)
			return -1;
		if (w == 1) {
			b->off += (size_t)n;
			b->len -= (size_t)n;
		}
		break;
	}
	if (b->p != NULL && b->len == 0) {
		free(b->p);
		b->p = NULL;
		b->off = 0;
	}
	return w == 1;
}

int
relay_copy_in(struct relay_dir *d, struct relay_buf *b, size_t size, int *src_rd)
{
	ssize_t n;

	if (b->len > 0)
		return 0; /* written first */
	if (b->p == NULL)
		b->p = xmalloc(size);
	n = sys_sock_recv(d->src, b->p, size);
	if (n > 0) {
		b->off = 0;
		b->len = (size_t)n;
		return 1;
	}
	/* Nothing to move: an idle tunnel keeps no buffer. */
	free(b->p);
	b->p = NULL;
	if (n == 0) {
		d->eof = 1;
		return 1;
	}
	if (errno == EAGAIN)
		*src_rd = 0;
	else if (errno != EINTR)
		return -1;
	return 0;
}

#ifndef __linux__
/* No splice: the copy is the mover, with a larger buffer than the splice mover's
 * fallback (it carries every byte here). Pipes do not exist: the budget means nothing. */
#define RELAY_COPY_SIZE (64u << 10)

void
relay_set_pipe_budget(size_t pipes)
{
	(void)pipes;
}

void
relay_move_init(struct relay_dir *d)
{
	(void)d;
}

int
relay_move_out(struct relay_dir *d, int *dst_wr)
{
	return relay_copy_out(d, &d->mv.copy, dst_wr);
}

int
relay_move_in(struct relay_dir *d, int *src_rd)
{
	return relay_copy_in(d, &d->mv.copy, RELAY_COPY_SIZE, src_rd);
}

size_t
relay_move_held(const struct relay_dir *d)
{
	return d->mv.copy.len;
}

void
relay_move_close(struct relay_dir *d)
{
	free(d->mv.copy.p);
	d->mv.copy.p = NULL;
	d->mv.copy.off = d->mv.copy.len = 0;
}
#endif
