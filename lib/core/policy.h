/*
 * policy.bin: the compiled policy (SPEC §3). Versioned and checksummed; read through mmap
 * and treated as untrusted input (every offset and length checked before use). Domain
 * lookups cost O(labels of the host), not O(rules).
 */
#ifndef SRT_POLICY_H
#define SRT_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include "addr.h"
#include "domain.h"
#include "settings.h"

struct policy; /* opaque */

/* Serialise settings into a policy image (deterministic: equal settings, equal bytes). */
int policy_compile(const struct settings *s, uint8_t **out, size_t *outlen);
/* Atomic write: temp file beside path, fsync, rename; the temp file is removed on error. */
int policy_write_file(
    const char *path, const uint8_t *buf, size_t len, char *err, size_t errlen);
/* For policy.c and policy_write.c: fmt's message into err (errlen bytes), if err is
 * given. */
void policy_seterr(char *err, size_t errlen, const char *fmt, ...) SRT_PRINTF(3, 4);

/* Open and verify an image; NULL with a message in err (truncated, bad magic, wrong
 * version, bad checksum, out-of-bounds offset ...). */
struct policy *policy_open_file(const char *path, char *err, size_t errlen);
struct policy *policy_open_fd(int fd, char *err, size_t errlen);
/* The same, naming the image what in messages (the file the descriptor was opened on). */
struct policy *policy_open_fd_as(int fd, const char *what, char *err, size_t errlen);
struct policy *policy_open_mem(const uint8_t *buf, size_t len, char *err, size_t errlen);
/* Compile settings in memory and open the result (what -s does). */
struct policy *policy_from_settings(const struct settings *s, char *err, size_t errlen);
void policy_free(struct policy *p);

/* The image's bytes (to hand to a helper through a memfd). */
const uint8_t *policy_bytes(const struct policy *p, size_t *len);

/* Rebuild the settings the image was compiled from (for dump, plan and the launcher). */
int policy_to_settings(const struct policy *p, struct settings *out);

/* The boolean options, decoded at open: test with SETTINGS_FLAG(member) of
 * settings_schema.h, e.g. SETTINGS_FLAG(require_host_match). */
uint32_t policy_option_flags(const struct policy *p);

/* Only the routes of the settings (network.parentProxy, mitmProxy, stripResponseHeaders,
 * and tlsTerminate),
 * for the proxies: out is the default settings with those members set. 0 or -1. */
int policy_routes(const struct policy *p, struct settings *out);

/* The layers section's flags (SETTINGS_LAYER_* of settings.h). */
uint32_t policy_layer_flags(const struct policy *p);
/* Whether the managed file merged into p set the option at path ("network.parentProxy"). */
int policy_layer_sets(const struct policy *p, const char *path);

/* The name-based decision of BEHAVIOR §2.2, same answers as dom_decide(). */
struct policy_verdict {
	int allow;
	int managed;        /* a deny of the managed policy: its deny rule, or the allow
	                           list it alone makes (allowManagedDomainsOnly) */
	const char *reason; /* deny reason (static or inside the image); NULL on allow */
	const char *rule;   /* the matching entry as written, NULL if none */
	size_t rule_len;
	size_t reason_len;
	enum host_kind kind;
	char canon[DOM_HOST_MAX + 1];
};
void policy_decide(const struct policy *p, const char *host, size_t hostlen, uint16_t port,
    struct policy_verdict *v);

/* Resolved-address guard helpers (BEHAVIOR §2.4 steps 1, 2, 4): 0 when not listed, else
 * which file the first entry that lists it came from. */
#define POLICY_LISTED_USER 1
#define POLICY_LISTED_MANAGED 2
int policy_addr_listed(
    const struct policy *p, int denied, const struct ip_addr *a, uint16_t port);
int policy_addr_in_denied_ranges(const struct policy *p, const struct ip_addr *a);

#endif
