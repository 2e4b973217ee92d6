/* The TLS-termination handoff between srt-socksd and srt-httpd (handoff.h). */
#include <sys/socket.h>

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "handoff.h"

#define OFF_PORT 4
#define OFF_HOSTLEN (OFF_PORT + 2)
#define OFF_HOST (OFF_HOSTLEN + 1)
#define OFF_CLIENTLEN (OFF_HOST + DOM_HOST_MAX)
#define OFF_CLIENT (OFF_CLIENTLEN + 1)

int
handoff_encode(
    const char *host, uint16_t port, const char *client, uint8_t out[HANDOFF_MSG_LEN])
{
	char canon[DOM_HOST_MAX + 1];
	size_t hl = strlen(host), cl = strlen(client);

	if (port == 0 || hl == 0 || hl > DOM_HOST_MAX ||
	    host_canonicalise(host, hl, canon) == HOST_MALFORMED || strcmp(canon, host) != 0)
		return -1;
	if (cl > HANDOFF_CLIENT_MAX)
		cl = HANDOFF_CLIENT_MAX;
	memset(out, 0, HANDOFF_MSG_LEN);
	memcpy(out, HANDOFF_MAGIC, 4);
	out[OFF_PORT] = (uint8_t)(port >> 8);
	out[OFF_PORT + 1] = (uint8_t)port;
	out[OFF_HOSTLEN] = (uint8_t)hl;
	memcpy(out + OFF_HOST, host, hl);
	out[OFF_CLIENTLEN] = (uint8_t)cl;
	memcpy(out + OFF_CLIENT, client, cl);
	return 0;
}

/* Are the n bytes from p all NUL? The padding must be, so a message has one spelling. */
static int
handoff_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i] != 0)
			return 0;
	return 1;
}

int
handoff_decode(const uint8_t *p, size_t len, struct handoff_msg *m, const char **why)
{
	size_t hl, cl;

	memset(m, 0, sizeof(*m));
	if (len != HANDOFF_MSG_LEN) {
		*why = "wrong size";
		return -1;
	}
	if (memcmp(p, HANDOFF_MAGIC, 4) != 0) {
		*why = "not a handoff message";
		return -1;
	}
	m->port = (uint16_t)(p[OFF_PORT] << 8 | p[OFF_PORT + 1]);
	hl = p[OFF_HOSTLEN];
	cl = p[OFF_CLIENTLEN];
	if (m->port == 0) {
		*why = "port 0";
		return -1;
	}
	if (hl == 0 || hl > DOM_HOST_MAX || cl > HANDOFF_CLIENT_MAX ||
	    !handoff_zero(p + OFF_HOST + hl, DOM_HOST_MAX - hl) ||
	    !handoff_zero(p + OFF_CLIENT + cl, HANDOFF_CLIENT_MAX - cl)) {
		*why = "bad lengths";
		return -1;
	}
	for (size_t i = 0; i < cl; i++)
		if (p[OFF_CLIENT + i] < 0x20 || p[OFF_CLIENT + i] >= 0x7f) {
			*why = "client not printable";
			return -1;
		}
	memcpy(m->client, p + OFF_CLIENT, cl);
	if (memchr(p + OFF_HOST, '\0', hl) != NULL ||
	    (m->kind = host_canonicalise((const char *)p + OFF_HOST, hl, m->host)) ==
		HOST_MALFORMED ||
	    strlen(m->host) != hl || memcmp(m->host, p + OFF_HOST, hl) != 0) {
		*why = "host not canonical";
		return -1;
	}
	return 0;
}

int
handoff_send(int sock, const uint8_t msg[HANDOFF_MSG_LEN], int fd)
{
	/* fdpass_send retries EINTR; MSG_DONTWAIT comes from the socket being
	 * non-blocking (srt-socksd sets it). */
	return fdpass_send(sock, msg, HANDOFF_MSG_LEN, &fd, 1);
}

int
handoff_recv(int sock, struct handoff_msg *m, int *fd, const char **why)
{
	/* One byte more than a message: a longer one shows as too long, not as cut. */
	uint8_t buf[HANDOFF_MSG_LEN + 1];
	size_t got, nfds;
	int fds[1] = { -1 }, type = 0;
	socklen_t tl = sizeof(type);

	*fd = -1;
	if (fdpass_recv(sock, buf, sizeof(buf), &got, fds, 1, &nfds) == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		if (errno == EMSGSIZE) {
			/* fdpass_recv closed what came. */
			*why = "too long, or too many descriptors";
			return -2;
		}
		return -1;
	}
	if (handoff_decode(buf, got, m, why) == -1) {
		if (nfds == 1)
			close(fds[0]);
		return -2;
	}
	if (nfds != 1) {
		*why = "no descriptor";
		return -2;
	}
	/* What terminate.c takes over is a connected stream socket, nothing else. */
	if (getsockopt(fds[0], SOL_SOCKET, SO_TYPE, &type, &tl) == -1 || type != SOCK_STREAM) {
		close(fds[0]);
		*why = "the descriptor is not a stream socket";
		return -2;
	}
	*fd = fds[0];
	return 1;
}
