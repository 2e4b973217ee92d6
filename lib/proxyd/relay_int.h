/*
 * The relay's inside, shared by its state machine (lib/proxyd/relay.c: start bytes, half-close,
 * idle timer, the end) and its byte mover, one per platform: lib/proxyd/relay_splice.c (Linux:
 * socket -> pipe -> socket with splice(2), copying through user space when no pipe may
 * be had) and lib/proxyd/relay_copy.c (everywhere else: a user-space buffer; also the copy that
 * the splice mover falls back to). Nothing else includes this header.
 */
#ifndef SRT_RELAY_INT_H
#define SRT_RELAY_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "relay.h"

/* Bytes read and not yet written; p is allocated only while a direction has bytes to
 * move, so an idle tunnel holds no buffer. */
struct relay_buf {
	char *p;
	size_t off, len;
};

struct relay_mover {
#ifdef __linux__
	int pipe_r, pipe_w; /* -1: none (pipes come from a pool, relay_splice.c) */
	size_t in_pipe;     /* bytes sitting in the pipe */
	size_t pipe_cap;
#endif
	struct relay_buf copy;
};

struct relay_dir {
	int src, dst; /* borrowed from the relay */
	char *pre;    /* bytes to write to dst before anything from src */
	size_t pre_len, pre_off;
	int eof;  /* src reached EOF */
	int done; /* dst was shut down for writing */
	uint64_t *count;
	struct relay_mover mv;
};

/* The byte mover, one direction at a time. relay_move_out writes what the direction
 * holds to dst and relay_move_in reads from src (setting eof); each returns 1 when it
 * moved something (or saw EOF), 0 when blocked or idle (clearing *dst_wr or *src_rd on a
 * would-block), -1 with errno on a hard error. */
void relay_move_init(struct relay_dir *d);
int relay_move_out(struct relay_dir *d, int *dst_wr);
int relay_move_in(struct relay_dir *d, int *src_rd);
/* Bytes read and not yet written. */
size_t relay_move_held(const struct relay_dir *d);
/* Give back what the direction holds (bytes still held are lost: teardown only). */
void relay_move_close(struct relay_dir *d);

/* What a write to d->dst (send, splice) returned, as a mover reports it: 1 for bytes
 * (counted in the stats), 0 for a would-block (clearing *dst_wr), -1 with errno on a
 * hard error (EPIPE for a zero-byte write), 2 for EINTR: write again. */
int relay_wrote(struct relay_dir *d, ssize_t n, int *dst_wr);

/* The user-space copy (lib/proxyd/relay_copy.c), the whole mover where there is no splice and
 * the splice mover's fallback: relay_copy_in allocates b->p (size bytes) when it has
 * none and frees it when src has nothing, relay_copy_out frees it once drained. */
int relay_copy_in(struct relay_dir *d, struct relay_buf *b, size_t size, int *src_rd);
int relay_copy_out(struct relay_dir *d, struct relay_buf *b, int *dst_wr);

#endif
