/* libFuzzer target: the HTTP request/response head parser and the chunked decoder. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
sink(void *arg, const char *p, size_t n)
{
	size_t *total = arg;

	/* Touch every byte so that out-of-bounds slices are caught. */
	for (size_t i = 0; i < n; i++)
		*total += (unsigned char)p[i];
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct http_head h;
	struct http_chunked ch;
	const char *s = (const char *)data;
	size_t total = 0, i;
	long used;

	if (http_parse_request(s, size, &h) == HTTP_OK) {
		for (i = 0; i < h.nfields; i++) {
			sink(&total, h.fields[i].name.p, h.fields[i].name.n);
			sink(&total, h.fields[i].value.p, h.fields[i].value.n);
			/* Framing and Host are never hop-by-hop, whatever Connection lists:
			 * dropping them would unframe a body the proxy sends on. */
			if (http_field_is_hop(&h, h.fields[i].name) &&
			    (http_str_eq(h.fields[i].name, "content-length") ||
				http_str_eq(h.fields[i].name, "host")))
				abort();
			if (http_str_eq(h.fields[i].name, "transfer-encoding") &&
			    !http_field_is_hop(&h, h.fields[i].name))
				abort();
		}
		sink(&total, h.method.p, h.method.n);
		sink(&total, h.target.p, h.target.n);
		if (h.head_len > size)
			abort();
		memset(&ch, 0, sizeof(ch));
		used = http_chunked_feed(&ch, s + h.head_len, size - h.head_len, sink, &total);
		if (used > (long)(size - h.head_len))
			abort();
	}
	if (http_parse_response(s, size, size & 1, &h) == HTTP_OK) {
		if (h.head_len > size)
			abort();
		for (i = 0; i < h.nfields; i++)
			if (http_str_eq(h.fields[i].name, "content-length") &&
			    http_field_is_hop(&h, h.fields[i].name))
				abort();
	}
	memset(&ch, 0, sizeof(ch));
	used = http_chunked_feed(&ch, s, size, sink, &total);
	if (used > (long)size)
		abort();
	return 0;
}
