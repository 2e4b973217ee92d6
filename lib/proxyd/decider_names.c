/*
 * The decider protocol's parts that need no JSON (decider.h): the frame splitter and the
 * header-name rules, which srt-httpd applies with or without a decider. Apart from
 * decider.c (cJSON) so that they build for Windows.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "decider.h"

/* Headers an allow may not remove: framing and hop-by-hop. */
static const char *const never_removed[] = {
	"host",
	"content-length",
	"transfer-encoding",
	"connection",
	"upgrade",
	"te",
	"trailer",
	"keep-alive",
	"proxy-connection",
};
/* ... nor set, with the credential headers, which only "cred" places. */
static const char *const credential_headers[] = {
	"authorization",
	"proxy-authorization",
	"cookie",
	"x-api-key",
};

int
decider_frame_next(const struct buf *in, const char **frame, uint32_t *len)
{
	const unsigned char *p = (const unsigned char *)in->p + in->off;
	uint32_t n;

	if (in->len < 4)
		return 0;
	n = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
	if (n > DECIDER_FRAME_MAX)
		return -1;
	if (in->len - 4 < n)
		return 0;
	*frame = (const char *)p + 4;
	*len = n;
	return 1;
}

void
decider_fold(const char *name, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++) {
		char c = name[i];

		out[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a')
		    : c == '_' || c == '.'    ? '-'
					      : c;
	}
	out[n] = '\0';
}

static bool
folded_in(const char *f, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f, list[i]) == 0)
			return true;
	return false;
}

bool
decider_may_remove(const char *f)
{
	return !folded_in(f, never_removed, sizeof(never_removed) / sizeof(never_removed[0]));
}

bool
decider_may_set(const char *f)
{
	return decider_may_remove(f) &&
	    !folded_in(f, credential_headers,
		sizeof(credential_headers) / sizeof(credential_headers[0]));
}
