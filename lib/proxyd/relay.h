/*
 * A two-way relay between two connected stream sockets (client and server) on the event
 * loop. On Linux bytes move with splice(2) through one pipe per direction, so they never
 * enter user space; elsewhere (Windows) through a user-space buffer. Half-close is honoured: when one side reaches EOF and everything it sent has been
 * delivered, the other side gets shutdown(SHUT_WR), and the opposite direction keeps
 * flowing until it ends too.
 */
#ifndef SRT_RELAY_H
#define SRT_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "evloop.h"

struct relay;

struct relay_stats {
	uint64_t up;   /* bytes client -> server (initial bytes included) */
	uint64_t down; /* bytes server -> client (initial bytes included) */
};

enum relay_end {
	RELAY_END_CLOSED,  /* both directions reached EOF and were delivered */
	RELAY_END_ERROR,   /* a read or write failed (reset, EPIPE ...); err says which */
	RELAY_END_IDLE,    /* no byte moved for idle_ms */
	RELAY_END_ABORTED, /* relay_abort() */
};

/* Called once, after both sockets and the pipes are closed; the relay is freed after the
 * callback returns, so do not touch it afterwards. err is an errno value for
 * RELAY_END_ERROR, else 0. */
typedef void (*relay_done_cb)(
    struct relay *r, enum relay_end how, int err, const struct relay_stats *st, void *arg);

struct relay_params {
	const void *to_server; /* bytes already read from the client (sent with the CONNECT
	                           head, or after the SOCKS request): sent upstream first */
	size_t to_server_len;
	const void *to_client; /* bytes to write to the client first (e.g. "200 Connection
	                           Established"), before anything from the server */
	size_t to_client_len;
	uint64_t idle_ms; /* 0: no idle timeout */
	relay_done_cb done;
	void *arg;
};

/* Start relaying. The relay owns client_fd and server_fd from this call on, even when it
 * fails: on failure (-1 with errno, e.g. EMFILE for the pipes) both are closed and done is
 * not called. The buffers in p are copied. */
int relay_start(struct evloop *loop, int client_fd, int server_fd, const struct relay_params *p,
    struct relay **out);

/* Stop now: close everything and call done with RELAY_END_ABORTED (used on shutdown). */
void relay_abort(struct relay *r);

/* At most this many pipes open at once in the process (pooled ones included; default
 * 1024). A direction that cannot have one copies through a 16 KiB user-space buffer. */
void relay_set_pipe_budget(size_t pipes);

/* Bytes moved so far. */
void relay_get_stats(const struct relay *r, struct relay_stats *st);

#endif
