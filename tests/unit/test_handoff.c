/* The TLS-termination handoff message (lib/proxyd/handoff.c): encode, decode, and over a real
 * SOCK_SEQPACKET socketpair with a descriptor. */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "handoff.h"
#include "tap.h"

static void
test_codec(void)
{
	uint8_t b[HANDOFF_MSG_LEN], c[HANDOFF_MSG_LEN];
	struct handoff_msg m;
	const char *why = NULL;

	ok(handoff_encode("a.test", 8443, "127.0.0.1:4000", b) == 0, "encode a name");
	ok(handoff_decode(b, sizeof(b), &m, &why) == 0 && strcmp(m.host, "a.test") == 0 &&
		m.port == 8443 && m.kind == HOST_NAME &&
		strcmp(m.client, "127.0.0.1:4000") == 0,
	    "decode gives it back");
	ok(handoff_encode("::1", 443, "[::1]:5", b) == 0 &&
		handoff_decode(b, sizeof(b), &m, &why) == 0 && m.kind == HOST_IPV6 &&
		strcmp(m.host, "::1") == 0,
	    "an IPv6 host");
	ok(handoff_encode("A.test", 443, "x", b) == -1, "a host not canonical is not encoded");
	ok(handoff_encode("a.test", 0, "x", b) == -1, "port 0 is not encoded");
	ok(handoff_encode("", 1, "x", b) == -1, "an empty host is not encoded");

	handoff_encode("a.test", 8443, "127.0.0.1:4000", b);
	ok(handoff_decode(b, sizeof(b) - 1, &m, &why) == -1 && strcmp(why, "wrong size") == 0,
	    "a short message is refused");
	memcpy(c, b, sizeof(c));
	c[0] = 'X';
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "a wrong magic is refused");
	memcpy(c, b, sizeof(c));
	c[4] = c[5] = 0;
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "port 0 is refused");
	memcpy(c, b, sizeof(c));
	c[6] = 0;
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "host length 0 is refused");
	memcpy(c, b, sizeof(c));
	c[6] = 5; /* "a.tes" and a non-NUL padding byte */
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "padding that is not NUL is refused");
	memcpy(c, b, sizeof(c));
	c[7] = 'A';
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1 &&
		strcmp(why, "host not canonical") == 0,
	    "a host not canonical is refused");
	memcpy(c, b, sizeof(c));
	c[8] = '\0';
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "a NUL inside the host is refused");
	memcpy(c, b, sizeof(c));
	c[7 + DOM_HOST_MAX + 1] = '\n';
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1 &&
		strcmp(why, "client not printable") == 0,
	    "a control in the client is refused");
	memcpy(c, b, sizeof(c));
	c[7 + DOM_HOST_MAX] = HANDOFF_CLIENT_MAX + 1;
	ok(handoff_decode(c, sizeof(c), &m, &why) == -1, "a client length past the field");
}

static void
test_channel(void)
{
	int sv[2], p[2], fd = -1, r;
	uint8_t b[HANDOFF_MSG_LEN];
	struct handoff_msg m;
	const char *why = NULL;
	int st[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, sv) == -1 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, st) == -1 ||
	    pipe2(p, O_CLOEXEC) == -1) {
		ok(0, "socketpair: %s", strerror(errno));
		return;
	}
	ok(handoff_recv(sv[1], &m, &fd, &why) == 0, "nothing queued: 0");
	handoff_encode("b.test", 443, "c", b);
	ok(handoff_send(sv[0], b, st[0]) == 0, "send a stream socket");
	r = handoff_recv(sv[1], &m, &fd, &why);
	ok(r == 1 && fd >= 0 && strcmp(m.host, "b.test") == 0, "it arrives with its socket");
	ok(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC), "close-on-exec");
	if (fd >= 0) {
		ok(write(fd, "x", 1) == 1 && read(st[1], b, 1) == 1 && b[0] == 'x',
		    "the same socket");
		close(fd);
	}
	handoff_encode("b.test", 443, "c", b);
	ok(handoff_send(sv[0], b, p[0]) == 0, "send a pipe");
	ok(handoff_recv(sv[1], &m, &fd, &why) == -2 && fd == -1 &&
		strcmp(why, "the descriptor is not a stream socket") == 0,
	    "a pipe is refused");
	ok(send(sv[0], b, sizeof(b), 0) == (ssize_t)sizeof(b), "send without a descriptor");
	ok(handoff_recv(sv[1], &m, &fd, &why) == -2 && strcmp(why, "no descriptor") == 0,
	    "refused: no descriptor");
	b[0] = 'Z';
	ok(handoff_send(sv[0], b, st[0]) == 0 && handoff_recv(sv[1], &m, &fd, &why) == -2 &&
		fd == -1,
	    "a bad message with a socket: refused");
	{
		uint8_t big[HANDOFF_MSG_LEN + 10] = { 0 };

		ok(send(sv[0], big, sizeof(big), 0) == (ssize_t)sizeof(big) &&
			handoff_recv(sv[1], &m, &fd, &why) == -2,
		    "a message too long: refused");
	}
	close(sv[0]);
	ok(handoff_recv(sv[1], &m, &fd, &why) == -1, "the channel closed: -1");
	close(sv[1]);
	close(st[0]);
	close(st[1]);
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	test_codec();
	test_channel();
	return tap_done();
}
