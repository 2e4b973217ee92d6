/*
 * libFuzzer target for the domain matcher. The input is split at its first NUL into an
 * entry and a host (without a NUL, both are the whole input). The entry goes to
 * dom_entry_parse for both lists and to addr_range_parse; the host to host_canonicalise,
 * dom_rule_matches and dom_decide against the parsed rules plus a fixed set.
 * Properties: every refusal has a reason; a canonical host fits DOM_HOST_MAX and an
 * address stays the same when canonicalised again; a verdict is self-consistent.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "domain.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *fixed_allow[] = {
	"example.com",
	"*.example.com:443",
	"[::1]",
	"127.0.0.1:80",
	"localhost",
	"256.1.1.1",
};
static const char *fixed_deny[] = { "*:22", "*.evil.example.com", "[::ffff:10.0.0.1]" };

static char *
copy(const uint8_t *p, size_t n)
{
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memcpy(s, p, n);
	s[n] = '\0';
	return s;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dom_rule allow[8], deny[8];
	size_t na = 0, nd = 0, i, elen, hlen;
	char *entry, *host, canon[DOM_HOST_MAX + 1], again[DOM_HOST_MAX + 1], txt[64];
	const char *why;
	const uint8_t *nul = memchr(data, '\0', size);
	enum host_kind k, k2;
	struct dom_verdict v;
	struct addr_range r;

	elen = nul != NULL ? (size_t)(nul - data) : size;
	hlen = nul != NULL ? size - elen - 1 : size;
	entry = copy(data, elen);
	host = copy(nul != NULL ? nul + 1 : data, hlen);

	why = NULL;
	if (dom_entry_parse(entry, 0, &allow[na], &why) == 0)
		na++;
	else if (why == NULL)
		abort();
	why = NULL;
	if (dom_entry_parse(entry, 1, &deny[nd], &why) == 0)
		nd++;
	else if (why == NULL)
		abort();
	for (i = 0; i < sizeof(fixed_allow) / sizeof(fixed_allow[0]); i++)
		if (dom_entry_parse(fixed_allow[i], 0, &allow[na], &why) == 0)
			na++;
	for (i = 0; i < sizeof(fixed_deny) / sizeof(fixed_deny[0]); i++)
		if (dom_entry_parse(fixed_deny[i], 1, &deny[nd], &why) == 0)
			nd++;
	if (addr_range_parse(entry, &r, &why) == 0) {
		addr_range_format(&r, txt, sizeof(txt));
		(void)addr_builtin_classes(&r.base);
	}

	k = host_canonicalise(host, hlen, canon);
	if (k != HOST_MALFORMED) {
		if (memchr(canon, '\0', sizeof(canon)) == NULL)
			abort();
		/* An address is its own canonical form. (A name kept as spelled because the
		 * URL parser refused it need not be: "[256.1.1.1]" is read anew without
		 * its brackets.) */
		if (k == HOST_IPV4 || k == HOST_IPV6) {
			k2 = host_canonicalise(canon, strlen(canon), again);
			if (k2 != k || strcmp(again, canon) != 0)
				abort();
		}
		for (i = 0; i < na; i++)
			(void)dom_rule_matches(&allow[i], canon, k, 443);
	}
	dom_decide(allow, na, deny, nd, host, 443, &v);
	if ((v.allow && (v.rule == NULL || v.reason != NULL)) || (!v.allow && v.reason == NULL))
		abort();

	while (na > 0)
		dom_rule_clear(&allow[--na]);
	while (nd > 0)
		dom_rule_clear(&deny[--nd]);
	free(entry);
	free(host);
	return 0;
}
