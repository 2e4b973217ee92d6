/*
 * libFuzzer target for lib/sandbox/globre.c (globs from settings files become regular
 * expressions in the macOS profile, and are matched against paths when the profile is
 * built). Input: PATTERN, a newline, STRING. Properties: the regex is anchored, "^...$",
 * and the deny regex is the same with "(/.*)?" before the "$"; a deny matches whatever the
 * exact form matches, and STRING + "/x" when STRING matches; a pattern without * ? [ ]
 * matches itself and nothing longer.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "globre.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *nl = memchr(data, '\n', size);
	char *pat, *str, *re, *dre, *longer;
	size_t plen = nl != NULL ? (size_t)(nl - (const char *)data) : size, rlen;
	struct globre *g;
	bool m, dm;

	if (size > 4096 || memchr(data, '\0', size) != NULL)
		return 0;
	pat = xstrndup((const char *)data, plen);
	str = nl != NULL ? xstrndup(nl + 1, size - plen - 1) : xstrdup("");
	g = globre_parse(pat);
	re = globre_regex(g, false);
	dre = globre_regex(g, true);
	rlen = strlen(re);
	if (re[0] != '^' || re[rlen - 1] != '$' || strncmp(dre, re, rlen - 1) != 0 ||
	    strcmp(dre + rlen - 1, "(/.*)?$") != 0)
		abort();
	m = globre_match(g, str, false);
	dm = globre_match(g, str, true);
	if (m && !dm)
		abort();
	longer = xasprintf("%s/x", str);
	if (m && !globre_match(g, longer, true))
		abort();
	if (strpbrk(pat, "*?[]") == NULL) {
		if (!globre_match(g, pat, false))
			abort();
		free(longer);
		longer = xasprintf("%sx", pat);
		if (globre_match(g, longer, false))
			abort();
	}
	free(longer);
	free(re);
	free(dre);
	globre_free(g);
	free(pat);
	free(str);
	return 0;
}
