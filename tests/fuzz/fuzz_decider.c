/*
 * libFuzzer target for the decider protocol (decider.h): the input is fed to the frame
 * reader in pieces of 1..64 bytes (the first byte seeds their sizes), and every frame it
 * yields goes to both parsers, as the link does (the first as a hello, the rest as
 * verdicts). Checks the reader's promises: a frame lies inside what was given and is
 * never over the limit; a parsed verdict keeps its own.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decider.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct buf in = { 0 };
	struct decider_hello h;
	struct decider_verdict v;
	char why[DECIDER_WHY_MAX];
	const char *f;
	uint32_t n, rnd;
	size_t off, piece;
	bool hello = false;
	int rc;

	if (size < 1)
		return 0;
	rnd = data[0] * 2654435761u;
	for (off = 1; off < size; off += piece) {
		rnd = rnd * 1103515245u + 12345u;
		piece = 1 + (rnd >> 16) % 64;
		if (piece > size - off)
			piece = size - off;
		buf_add(&in, data + off, piece);
		while ((rc = decider_frame_next(&in, &f, &n)) == 1) {
			if (n > DECIDER_FRAME_MAX || f < in.p + in.off ||
			    f + n > in.p + in.off + in.len)
				abort();
			if (!hello) {
				if (decider_parse_hello(f, n, &h, why) == 0)
					hello = true;
				decider_hello_free(&h);
			} else if (decider_parse_verdict(f, n, &v, why) == 0) {
				if (v.id == 0 || v.id > DECIDER_ID_MAX ||
				    v.set_names.n != v.set_values.n ||
				    (v.action == DECIDER_DENY &&
					(v.status < 400 || v.status > 599)) ||
				    (v.action == DECIDER_NEED_BODY &&
					(v.max == 0 || v.max > DECIDER_BODY_MAX)) ||
				    ((v.cred == NULL) != (v.credential == NULL)))
					abort();
				decider_verdict_free(&v);
			} else
				decider_verdict_free(&v);
			buf_consume(&in, 4 + (size_t)n);
		}
		if (rc == -1)
			break;
	}
	buf_free(&in);
	return 0;
}
