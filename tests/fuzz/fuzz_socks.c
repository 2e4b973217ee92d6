/*
 * libFuzzer target for the SOCKS5 parser: the input's first byte picks the configuration
 * (auth or not) and seeds the piece sizes, the rest is fed in pieces of 1..16 bytes the way
 * a server loop would. Checks the parser's own promises: it never consumes more than it
 * is given, replies are bounded, and a request's fields are consistent.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "socks5.h"
#include "ssh_refusal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct socks5 s;
	uint8_t out[SSH_REFUSAL_MAX];
	size_t off, piece, used, end;
	uint32_t rnd;
	enum socks5_event ev = SOCKS5_EV_MORE;

	if (size < 1)
		return 0;
	rnd = data[0] * 2654435761u;
	if (data[0] & 1)
		socks5_init(&s, "user", "secret");
	else
		socks5_init(&s, NULL, NULL);
	for (off = 1; off < size;) {
		rnd = rnd * 1103515245u + 12345u;
		piece = 1 + (rnd >> 16) % 16;
		end = off + piece > size ? size : off + piece;
		ev = socks5_feed(&s, data + off, end - off, &used);
		if (used > end - off || s.replylen > SOCKS5_REPLY_MAX)
			abort();
		off += used;
		if (ev == SOCKS5_EV_REQUEST) {
			if (s.req.hostlen > SOCKS5_HOST_MAX ||
			    s.req.host[s.req.hostlen] != '\0' ||
			    s.req.cmd != SOCKS5_CMD_CONNECT || s.state != SOCKS5_ST_DONE)
				abort();
			/* Build a refusal from the host bytes too: any bytes are a reason. */
			if (ssh_refusal_build(s.req.host, s.req.hostlen, out, sizeof(out)) == 0)
				abort();
			break;
		}
		if (ev == SOCKS5_EV_CLOSE) {
			if (s.state != SOCKS5_ST_FAILED)
				abort();
			break;
		}
		if (ev == SOCKS5_EV_MORE && off != end)
			abort();
	}
	/* The whole input as a deny reason exercises the UTF-8 sanitiser. */
	if (ssh_refusal_build((const char *)data, size, out, sizeof(out)) == 0)
		abort();
	return 0;
}
