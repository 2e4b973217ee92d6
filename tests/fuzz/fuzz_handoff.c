/*
 * libFuzzer target for the TLS-termination handoff message (lib/proxyd/handoff.c), which
 * srt-httpd reads from srt-socksd: any bytes either decode to a message that encodes
 * back to the same bytes, or are refused with a reason.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "handoff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct handoff_msg m;
	uint8_t again[HANDOFF_MSG_LEN];
	const char *why = NULL;

	if (handoff_decode(data, size, &m, &why) == -1) {
		if (why == NULL)
			abort();
		return 0;
	}
	/* One spelling per message: what decodes encodes to the very same bytes. */
	if (handoff_encode(m.host, m.port, m.client, again) == -1 || size != HANDOFF_MSG_LEN ||
	    memcmp(again, data, size) != 0)
		abort();
	return 0;
}
