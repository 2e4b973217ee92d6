/*
 * libFuzzer target for the route parsers (upstream.h): the first byte picks what the rest
 * is, a proxy URL (from the environment or a settings file), a noProxy list and a host
 * judged against it, a mitmProxy pattern and a host, or a parent's reply to CONNECT (fed
 * in growing prefixes, as the dial reads it). Checks the parsers' own promises: bounded
 * outputs, a parsed URL that is well formed, a reply head inside what was given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "upstream.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
fuzz_url(const char *s)
{
	struct proxy_url u;
	const char *why = NULL;
	enum proxy_url_status st = proxy_url_parse(s, &u, &why);

	if (st == PROXY_URL_OK) {
		if (u.display == NULL || u.port == 0 || strlen(u.host) == 0 ||
		    strlen(u.host) > DOM_HOST_MAX ||
		    (u.auth != NULL && strncmp(u.auth, "Basic ", 6) != 0) ||
		    u.kind == HOST_MALFORMED)
			abort();
	} else if (why == NULL)
		abort();
	proxy_url_free(&u);
	why = NULL;
	if (proxy_url_check_setting(s, &why) != PROXY_URL_OK && why == NULL)
		abort();
}

static void
fuzz_no_proxy(const char *s)
{
	const char *nl = strchr(s, '\n');
	char *list = nl != NULL ? strndup(s, (size_t)(nl - s)) : strdup(s);
	const char *host = nl != NULL ? nl + 1 : "example.com";
	char canon[DOM_HOST_MAX + 1];
	struct no_proxy np;
	struct strlist ig = { 0 };
	enum host_kind k;

	no_proxy_parse(list, &np, &ig);
	k = host_canonicalise(host, strlen(host), canon);
	if (k != HOST_MALFORMED)
		(void)no_proxy_bypass(&np, canon, k);
	no_proxy_free(&np);
	strlist_free(&ig);
	free(list);
}

static void
fuzz_mitm(const char *s)
{
	const char *nl = strchr(s, '\n');
	char *pat = nl != NULL ? strndup(s, (size_t)(nl - s)) : strdup(s);
	const char *host = nl != NULL ? nl + 1 : "a.example.com";
	char canon[DOM_HOST_MAX + 1];
	const char *why;
	enum host_kind k;

	if (mitm_pattern_check(pat, &why) == 0) {
		k = host_canonicalise(host, strlen(host), canon);
		if (k != HOST_MALFORMED)
			(void)mitm_pattern_match(pat, canon, k);
	}
	free(pat);
}

static void
fuzz_reply(const uint8_t *p, size_t n)
{
	char line[UPSTREAM_LINE_MAX];
	size_t hl, step = n / 7 + 1;

	for (size_t len = 0;; len += step) {
		if (len > n)
			len = n;
		hl = 0;
		switch (upstream_connect_reply((const char *)p, len, &hl, line, sizeof(line))) {
		case UPSTREAM_REPLY_OK:
		case UPSTREAM_REPLY_REFUSED:
			if (hl == 0 || hl > len || hl > UPSTREAM_REPLY_MAX ||
			    strlen(line) >= sizeof(line))
				abort();
			return;
		case UPSTREAM_REPLY_BAD:
			return;
		case UPSTREAM_REPLY_MORE:
			break;
		}
		if (len == n)
			return;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s;

	if (size < 1 || size > 65536)
		return 0;
	if (data[0] % 4 == 3) {
		fuzz_reply(data + 1, size - 1);
		return 0;
	}
	s = strndup((const char *)data + 1, size - 1);
	switch (data[0] % 4) {
	case 0:
		fuzz_url(s);
		break;
	case 1:
		fuzz_no_proxy(s);
		break;
	case 2:
		fuzz_mitm(s);
		break;
	}
	free(s);
	return 0;
}
