/*
 * The resolved-address guard of BEHAVIOR §2.4, as pure logic: given the policy, the
 * requested host (canonical, as policy_decide returned it), the port, the lookup's answers
 * and this host's own addresses, say which addresses may be dialled, or refuse.
 *
 * Only host names are judged: an IP-literal destination is decided by the name policy
 * alone (an allow-listed literal is an explicit choice; a deny-listed one is refused by
 * name already), is never looked up and never reaches the guard.
 */
#ifndef SRT_GUARD_H
#define SRT_GUARD_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "domain.h"
#include "policy.h"

/* Refusal classes; the bits also give the order in which a reason names them, so the text
 * is the same whatever order the resolver returned its answers in. */
enum guard_why {
	GUARD_DENY_LISTED = 1 << 0,  /* "a deny-listed address" (IP literal in deniedDomains) */
	GUARD_LOOPBACK = 1 << 1,     /* "a loopback address" */
	GUARD_UNSPECIFIED = 1 << 2,  /* "an unspecified address" */
	GUARD_LINK_LOCAL = 1 << 3,   /* "a link-local address" */
	GUARD_MULTICAST = 1 << 4,    /* "a multicast address" */
	GUARD_BROADCAST = 1 << 5,    /* "the broadcast address" */
	GUARD_METADATA = 1 << 6,     /* "a cloud metadata address" */
	GUARD_LISTED = 1 << 7,       /* "a listed address" (deniedResolvedAddresses) */
	GUARD_OWN_ADDRESS = 1 << 8,  /* "one of this host's addresses" */
	GUARD_NON_LOOPBACK = 1 << 9, /* "a non-loopback address" (localhost names) */
	GUARD_MANAGED = 1 << 10,     /* added to GUARD_DENY_LISTED or GUARD_LISTED when the
	                                   entry is the managed policy's (managed.h): the
	                                   reason then starts "managed: " */
};

/* This host's interface addresses (getifaddrs); the caller refreshes it before judging. */
struct guard_local {
	struct ip_addr *v;
	size_t n;
};
/* Replace l's contents with the current interface addresses; -1 with errno on failure
 * (l is then left empty: the fixed classes still apply). */
int guard_local_refresh(struct guard_local *l);
void guard_local_free(struct guard_local *l);

#define GUARD_REASON_MAX 512
struct guard_result {
	int index;     /* first address that passes, or -1 */
	size_t npass;  /* how many pass (their indexes in guard_check's pass) */
	unsigned whys; /* union of the classes of the refused addresses */
	size_t nrefused;
	/* When index is -1 and something was refused: */
	char reason[GUARD_REASON_MAX]; /* "resolved to a loopback address[ / ...]" */
	char message[GUARD_REASON_MAX + DOM_HOST_MAX + 32];
	/* "Connection to <host> blocked: <reason>" */
};

/* Why host:port may not use address a (one enum guard_why bit, with GUARD_MANAGED), or 0
 * if it may. local may be NULL. */
unsigned guard_address_denial(const struct policy *p, const char *host, uint16_t port,
    const struct ip_addr *a, const struct guard_local *local);

/* Judge every address, once. pass (naddrs entries, or NULL) gets the indexes of those that
 * pass, in order, r->npass of them: the addresses to dial. Returns the first of them (also
 * in r->index), or -1: then r->whys is nonzero and r->reason / r->message are set when
 * addresses were refused, or r->whys is 0 when naddrs was 0 (nothing to dial: a lookup
 * failure for the caller). */
int guard_check(const struct policy *p, const char *host, uint16_t port,
    const struct ip_addr *addrs, size_t naddrs, const struct guard_local *local, size_t *pass,
    struct guard_result *r);

/* Words of one class bit ("a loopback address"). */
const char *guard_why_words(unsigned one_why);

/* Is host "localhost" or a name under ".localhost" (RFC 6761)? */
int guard_is_loopback_name(const char *host);

#endif
