/*
 * The resolved-address guard (BEHAVIOR §2.4). The order of the checks matters: a deny-
 * listed literal beats an allow-listed one, an allow-listed literal is a carve-out from
 * every class below it, and the IPv4 an IPv6 answer embeds only ever adds denials (it is
 * never used to earn the allow-list carve-out or the localhost rule).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "guard.h"
#include "util.h"

static const struct {
	unsigned why;
	const char *words;
} guard_words[] = {
	{ GUARD_DENY_LISTED, "a deny-listed address" },
	{ GUARD_LOOPBACK, "a loopback address" },
	{ GUARD_UNSPECIFIED, "an unspecified address" },
	{ GUARD_LINK_LOCAL, "a link-local address" },
	{ GUARD_MULTICAST, "a multicast address" },
	{ GUARD_BROADCAST, "the broadcast address" },
	{ GUARD_METADATA, "a cloud metadata address" },
	{ GUARD_LISTED, "a listed address" },
	{ GUARD_OWN_ADDRESS, "one of this host's addresses" },
	{ GUARD_NON_LOOPBACK, "a non-loopback address" },
};

/* Built-in address classes in the order a refusal names them. */
static const struct {
	unsigned cls, why;
} guard_classes[] = {
	{ ADDR_CLASS_LOOPBACK, GUARD_LOOPBACK },
	{ ADDR_CLASS_UNSPECIFIED, GUARD_UNSPECIFIED },
	{ ADDR_CLASS_LINK_LOCAL, GUARD_LINK_LOCAL },
	{ ADDR_CLASS_MULTICAST, GUARD_MULTICAST },
	{ ADDR_CLASS_BROADCAST, GUARD_BROADCAST },
	{ ADDR_CLASS_METADATA, GUARD_METADATA },
};

const char *
guard_why_words(unsigned one_why)
{
	size_t i;

	for (i = 0; i < sizeof(guard_words) / sizeof(guard_words[0]); i++)
		if (guard_words[i].why == one_why)
			return guard_words[i].words;
	return "a refused address";
}

int
guard_is_loopback_name(const char *host)
{
	size_t n = strlen(host);

	if (n > 0 && host[n - 1] == '.')
		n--;
	if (n == 9 && strncasecmp(host, "localhost", 9) == 0)
		return 1;
	return n > 10 && strncasecmp(host + n - 10, ".localhost", 10) == 0;
}

/* 127.0.0.0/8 or ::1, in either spelling of an IPv4 address. */
static int
guard_is_loopback_addr(const struct ip_addr *a)
{
	static const uint8_t one[16] = { [15] = 1 };
	struct ip_addr v4;

	if (a->family == 4)
		return a->bytes[0] == 127;
	if (addr_mapped_v4(a, &v4))
		return v4.bytes[0] == 127;
	return memcmp(a->bytes, one, 16) == 0;
}

static int
guard_in_local(const struct guard_local *l, const struct ip_addr *a)
{
	size_t i;

	if (l == NULL)
		return 0;
	for (i = 0; i < l->n; i++)
		if (ip_addr_equal(&l->v[i], a))
			return 1;
	return 0;
}

unsigned
guard_address_denial(const struct policy *p, const char *host, uint16_t port,
    const struct ip_addr *a, const struct guard_local *local)
{
	struct ip_addr v4, mapped;
	int has_v4, l;
	unsigned cls;
	size_t i;

	has_v4 = addr_embedded_v4(a, &v4);
	if ((l = policy_addr_listed(p, 1, a, port)) != 0 ||
	    (has_v4 && (l = policy_addr_listed(p, 1, &v4, port)) != 0))
		return GUARD_DENY_LISTED | (l == POLICY_LISTED_MANAGED ? GUARD_MANAGED : 0);
	if (policy_addr_listed(p, 0, a, port) ||
	    (addr_mapped_v4(a, &mapped) && policy_addr_listed(p, 0, &mapped, port)))
		return 0;
	if (guard_is_loopback_name(host))
		return guard_is_loopback_addr(a) ? 0 : GUARD_NON_LOOPBACK;
	cls = addr_builtin_classes(a);
	for (i = 0; i < sizeof(guard_classes) / sizeof(guard_classes[0]); i++)
		if (cls & guard_classes[i].cls)
			return guard_classes[i].why;
	if ((l = policy_addr_in_denied_ranges(p, a)) != 0 ||
	    (has_v4 && (l = policy_addr_in_denied_ranges(p, &v4)) != 0))
		return GUARD_LISTED | (l == POLICY_LISTED_MANAGED ? GUARD_MANAGED : 0);
	if (guard_in_local(local, a) || (has_v4 && guard_in_local(local, &v4)))
		return GUARD_OWN_ADDRESS;
	return 0;
}

int
guard_check(const struct policy *p, const char *host, uint16_t port,
    const struct ip_addr *addrs, size_t naddrs, const struct guard_local *local, size_t *pass,
    struct guard_result *r)
{
	size_t i, off;
	int first = 1;

	memset(r, 0, sizeof(*r));
	r->index = -1;
	for (i = 0; i < naddrs; i++) {
		unsigned why = guard_address_denial(p, host, port, &addrs[i], local);

		if (why == 0) {
			if (r->index == -1)
				r->index = (int)i;
			if (pass != NULL)
				pass[r->npass] = i;
			r->npass++;
			continue;
		}
		r->whys |= why;
		r->nrefused++;
	}
	if (r->index != -1 || r->whys == 0)
		return r->index;
	/* An address the organisation's policy refuses says so, as a managed deny rule does. */
	off = (size_t)snprintf(r->reason, sizeof(r->reason), "%sresolved to ",
	    (r->whys & GUARD_MANAGED) ? "managed: " : "");
	for (i = 0; i < sizeof(guard_words) / sizeof(guard_words[0]); i++) {
		if (!(r->whys & guard_words[i].why))
			continue;
		off += (size_t)snprintf(r->reason + off, sizeof(r->reason) - off, "%s%s",
		    first ? "" : " / ", guard_words[i].words);
		first = 0;
		if (off >= sizeof(r->reason))
			off = sizeof(r->reason) - 1;
	}
	snprintf(
	    r->message, sizeof(r->message), "Connection to %s blocked: %s", host, r->reason);
	return -1;
}

void
guard_local_free(struct guard_local *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
