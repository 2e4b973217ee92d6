/*
 * The TLS-termination handoff (issue #14): srt-socksd gives a SOCKS CONNECT it allowed,
 * its success reply already sent, to srt-httpd, which terminates its TLS as it does for
 * an allowed HTTP CONNECT (srt-httpd/terminate.c). srt-launch makes the channel, a
 * SOCK_SEQPACKET socketpair (--handoff-fd N on both).
 *
 * One message per connection: the client socket (SCM_RIGHTS) with HANDOFF_MSG_LEN bytes:
 *
 *   "SRh1"  port (2, network order)  host length (1)  host (DOM_HOST_MAX, NUL padded)
 *   client length (1)  client (HANDOFF_CLIENT_MAX, NUL padded)
 *
 * host is canonical (host_canonicalise of itself), port not 0, client printable ASCII.
 * The receiver trusts none of it: handoff_decode refuses anything else, and srt-httpd
 * decides about the host again under its own policy.
 */
#ifndef SRT_HANDOFF_H
#define SRT_HANDOFF_H

#include <stddef.h>
#include <stdint.h>

#include "domain.h"

#define HANDOFF_MAGIC "SRh1"
#define HANDOFF_CLIENT_MAX 63 /* PROXY_CLIENT_MAX - 1 */
#define HANDOFF_MSG_LEN (4 + 2 + 1 + DOM_HOST_MAX + 1 + HANDOFF_CLIENT_MAX)

struct handoff_msg {
	char host[DOM_HOST_MAX + 1]; /* canonical */
	enum host_kind kind;
	uint16_t port;
	char client[HANDOFF_CLIENT_MAX + 1];
};

/* The message for host (canonical) and port from client (cut to HANDOFF_CLIENT_MAX)
 * into out. -1 if host is not canonical or port is 0. */
int handoff_encode(
    const char *host, uint16_t port, const char *client, uint8_t out[HANDOFF_MSG_LEN]);
/* Check and read len bytes of a message. 0, or -1 with *why. */
int handoff_decode(const uint8_t *p, size_t len, struct handoff_msg *m, const char **why);

/* Send fd with the message over sock (non-blocking: EAGAIN when its queue is full).
 * 0, or -1 with errno. */
int handoff_send(int sock, const uint8_t msg[HANDOFF_MSG_LEN], int fd);
/* Receive one message: 1 with *fd (close-on-exec) and m filled; 0 nothing now; -1 the
 * channel is gone (errno); -2 a malformed message, dropped (its descriptors closed),
 * *why says what was wrong. */
int handoff_recv(int sock, struct handoff_msg *m, int *fd, const char **why);

#endif
