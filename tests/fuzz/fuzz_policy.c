/*
 * The policy reader on arbitrary bytes: policy_open_mem must refuse or accept without
 * crashing (and must say why it refused); an accepted image must answer queries,
 * rebuild its settings, and those settings must compile to an image that answers the
 * same (an accepted image need not be byte-canonical: unused strings, a larger index).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const hosts[] = {
	"example.com",
	"a.b.github.com",
	"1.2.3.4",
	"[::1]",
	"2130706433",
	"localhost.",
	"x..y",
	"",
	"*",
	"com",
};

static int
same_verdict(const struct policy_verdict *a, const struct policy_verdict *b)
{
	return a->allow == b->allow && a->managed == b->managed &&
	    a->reason_len == b->reason_len && a->rule_len == b->rule_len &&
	    (a->reason == NULL || memcmp(a->reason, b->reason, a->reason_len) == 0) &&
	    (a->rule == NULL || memcmp(a->rule, b->rule, a->rule_len) == 0);
}

static void
try_image(const uint8_t *data, size_t size)
{
	struct policy_verdict v, w;
	struct settings s;
	struct policy *p, *q;
	struct ip_addr a;
	char err[512];

	p = policy_open_mem(data, size, err, sizeof(err));
	if (p == NULL) {
		if (err[0] == '\0')
			abort(); /* every refusal says why */
		return;
	}
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++)
		for (uint16_t port = 21; port < 24; port++)
			policy_decide(p, hosts[i], strlen(hosts[i]), port, &v);
	memset(&a, 0, sizeof(a));
	a.family = 4;
	a.bytes[0] = 10;
	(void)policy_addr_listed(p, 1, &a, 443);
	(void)policy_addr_listed(p, 0, &a, 443);
	(void)policy_addr_in_denied_ranges(p, &a);
	if (policy_to_settings(p, &s) != 0)
		abort(); /* the checks at open guarantee the rebuild */
	if ((q = policy_from_settings(&s, err, sizeof(err))) == NULL)
		abort(); /* what the reader accepts, the writer can write */
	for (size_t i = 0; i < sizeof(hosts) / sizeof(hosts[0]); i++) {
		policy_decide(p, hosts[i], strlen(hosts[i]), 22, &v);
		policy_decide(q, hosts[i], strlen(hosts[i]), 22, &w);
		if (!same_verdict(&v, &w))
			abort();
	}
	policy_free(q);
	settings_free(&s);
	policy_free(p);
}

/* The format's checksum (FNV-1a 64, its own field read as zero). */
static void
reseal(uint8_t *img, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	for (size_t i = 0; i < len; i++) {
		h ^= (i >= 24 && i < 32) ? 0 : img[i];
		h *= 1099511628211ull;
	}
	for (int i = 0; i < 8; i++)
		img[24 + i] = (uint8_t)(h >> (8 * i));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	/* As given (the checksum refuses nearly everything), then with the checksum made
	 * right, so the structural checks behind it are what gets fuzzed. */
	try_image(data, size);
	if (size >= 32) {
		copy = malloc(size);
		if (copy == NULL)
			return 0;
		memcpy(copy, data, size);
		reseal(copy, size);
		try_image(copy, size);
		free(copy);
	}
	return 0;
}
