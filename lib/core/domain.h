/*
 * Domain entries (allowedDomains / deniedDomains) and the name-based decision
 * (BEHAVIOR §2.1-2.2). Pure logic: no DNS here.
 */
#ifndef SRT_DOMAIN_H
#define SRT_DOMAIN_H

#include <stddef.h>
#include <stdint.h>

#define DOM_HOST_MAX 255

enum dom_kind {
	DOM_EXACT,    /* "example.com", "localhost": exact, case-insensitive */
	DOM_WILDCARD, /* "*.example.com": strict subdomains of base only */
	DOM_ANY,      /* "*" (deniedDomains only): everything */
	DOM_IPV4,     /* "1.2.3.4": canonical dotted quad */
	DOM_IPV6,     /* "[::1]": canonical compressed text, no brackets, no zone */
};

/* One parsed list entry. host is lower-case: the name, the wildcard's base
 * (without "*."), or the canonical address text; NULL for DOM_ANY. */
struct dom_rule {
	enum dom_kind kind;
	char *host;
	uint16_t port; /* 0: any port */
	char *spelled; /* the entry exactly as written in the settings */
	char *reason;  /* deniedDomainReasons text, or NULL (deny list only) */
};

/* Parse one entry. denylist: also accept bare "*" and "*:port".
 * Returns 0, or -1 with *why a static message saying what is wrong. */
int dom_entry_parse(const char *entry, int denylist, struct dom_rule *out, const char **why);
void dom_rule_clear(struct dom_rule *r);

/* A host pattern with no port (the reference's isValidDomainPattern): what
 * credentials.*.injectHosts hold. 0, or -1 with *why. */
int dom_pattern_valid(const char *pattern, const char **why);
/* Is every host an injectHosts pattern can name allowed by some allowedDomains rule,
 * ports aside (the reference's isInjectHostCoveredByAllowedDomains)? */
int dom_pattern_covered(const char *pattern, const struct dom_rule *allowed, size_t n);

enum host_kind {
	HOST_MALFORMED = -1,
	HOST_NAME = 0,
	HOST_IPV4 = 1,
	HOST_IPV6 = 2,
};

/* Canonicalise a request host as a URL host parser would (BEHAVIOR §2.2 steps 1-2):
 * lower-case, inet_aton forms, IPv6 compression, IPv4-mapped to dotted v4, one trailing
 * dot removed. Brackets around an IPv6 literal are accepted. out must hold
 * DOM_HOST_MAX + 1 bytes. Returns the kind, or HOST_MALFORMED. */
enum host_kind host_canonicalise(const char *host, size_t len, char *out);

/* Does rule match an already canonical host of the given kind on port? */
int dom_rule_matches(
    const struct dom_rule *r, const char *canon, enum host_kind kind, uint16_t port);

/* The reference decision, linear in the number of rules (the compiled policy answers the
 * same question in O(labels); this one is the oracle the tests compare it with). */
struct dom_verdict {
	int allow;
	const struct dom_rule *rule; /* matching rule, or NULL */
	const char *reason;          /* for a deny: "malformed host", the rule's reason,
	                                   "host is on the deny list" or
	                                   "host is not on the allow list" */
};
void dom_decide(const struct dom_rule *allowed, size_t nallowed, const struct dom_rule *denied,
    size_t ndenied, const char *host, uint16_t port, struct dom_verdict *v);

#define DOM_REASON_MALFORMED "malformed host"
#define DOM_REASON_DENY_LIST "host is on the deny list"
#define DOM_REASON_NOT_ALLOWED "host is not on the allow list"

#endif
