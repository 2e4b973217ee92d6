/*
 * The keys of the settings file's three main objects (the root, "network" and
 * "filesystem"), one row each, in the order dump writes them. This is the one place that
 * knows the boolean and integer options: from their rows come the members of struct
 * settings (settings.h), the parser with its bounds (settings.c), the options section of
 * policy.bin with its checks (policy.c), the canonical JSON of dump (settings_json.c) and
 * the check that srt-settings(5) documents every option (tests/unit/test_settings.c).
 *
 * Three kinds of row:
 *   KEY(name, flags, note)           a value that code of its own reads and writes (a list,
 *                                    an object, a path); flags and note as in
 *                                    struct settings_key
 *   BOOL(name, member, bit)          true or false, false by default (but denyReadHold:
 *                                    true, settings_init_default)
 *   INT(name, member, lo, hi, dflt)  an integer from lo to hi; dflt is the default, and a
 *                                    default outside lo..hi means "not set" (dump then
 *                                    leaves the key out)
 * member is the field of struct settings (of .net and .fs for those objects). bit is the
 * option's bit in policy.bin's options flags; the bits are part of the format, so a bit
 * once given is never reused, and they are 0.. without a gap (settings_schema.c checks it
 * at compile time). The integers are stored in the order of their rows: network's, then
 * filesystem's, then the root's.
 *
 * Adding a boolean setting: a BOOL row with the next free bit, and its entry in
 * man/srt-settings.5 (ARCHITECTURE.md, "Settings options").
 */
#ifndef SRT_SETTINGS_SCHEMA_H
#define SRT_SETTINGS_SCHEMA_H

#include <stddef.h>

#define SETTINGS_ROOT_KEYS(KEY, BOOL, INT) \
	KEY(network, SETTINGS_REQUIRED, \
	    "add \"network\": {\"allowedDomains\": [], " \
	    "\"deniedDomains\": []}") \
	KEY(filesystem, SETTINGS_REQUIRED, \
	    "add \"filesystem\": {\"denyRead\": [], " \
	    "\"allowWrite\": [], \"denyWrite\": []}") \
	KEY(credentials, 0, NULL) \
	KEY(ignoreViolations, 0, NULL) \
	BOOL(enableWeakerNestedSandbox, weaker_nested_sandbox, 6) \
	BOOL(allowNestedUserNamespaces, allow_nested_userns, 7) \
	BOOL(enableWeakerNetworkIsolation, weaker_network_isolation, 8) \
	BOOL(allowAppleEvents, allow_apple_events, 9) \
	BOOL(allowPty, allow_pty, 10) \
	BOOL(noFsViolations, no_fs_violations, 12) \
	INT(mandatoryDenySearchDepth, deny_search_depth, 1, 10, 3) \
	KEY(bwrapPath, 0, NULL) \
	KEY(git, 0, NULL) \
	KEY(ripgrep, SETTINGS_HELPER, \
	    "srt finds the mandatory denies itself and never " \
	    "runs ripgrep") \
	KEY(seccomp, SETTINGS_HELPER, "srt applies its own seccomp stage (srt-seccomp)") \
	KEY(socatPath, SETTINGS_HELPER, "srt does not use socat") \
	KEY(javaAgentJarPath, SETTINGS_HELPER, \
	    "srt points Java at the proxies through " \
	    "JAVA_TOOL_OPTIONS, without an agent") \
	KEY(windows, 0, NULL) \
	KEY(allowManagedDomainsOnly, SETTINGS_MANAGED, NULL) \
	KEY(allowManagedReadPathsOnly, SETTINGS_MANAGED, NULL) \
	KEY(allowUserWeakerOptions, SETTINGS_MANAGED, NULL)

#define SETTINGS_NETWORK_KEYS(KEY, BOOL, INT) \
	KEY(allowedDomains, SETTINGS_REQUIRED, \
	    "add \"allowedDomains\": [] to allow no destination") \
	KEY(deniedDomains, SETTINGS_REQUIRED, \
	    "add \"deniedDomains\": [] to deny nothing beyond the allow list") \
	KEY(deniedDomainReasons, 0, NULL) \
	BOOL(strictAllowlist, strict_allowlist, 0) \
	KEY(deniedResolvedAddresses, 0, NULL) \
	KEY(allowUnixSockets, 0, NULL) \
	BOOL(allowAllUnixSockets, allow_all_unix_sockets, 1) \
	BOOL(allowLocalBinding, allow_local_binding, 2) \
	KEY(allowMachLookup, 0, NULL) \
	INT(httpProxyPort, http_proxy_port, 1, 65535, 0) \
	INT(socksProxyPort, socks_proxy_port, 1, 65535, 0) \
	BOOL(requireHostMatch, require_host_match, 3) \
	KEY(filterRequest, 0, NULL) \
	KEY(mitmProxy, 0, NULL) \
	KEY(tlsTerminate, 0, NULL) \
	KEY(parentProxy, 0, NULL) \
	BOOL(refuseOpaqueTunnels, refuse_opaque_tunnels, 11) \
	BOOL(allowPlaintextHeaderSet, allow_plaintext_header_set, 13) \
	KEY(stripResponseHeaders, 0, NULL) \
	KEY(ambiguousRequestTarget, SETTINGS_CALLBACK, \
	    "it only changes what a filterRequest " \
	    "callback is shown, and a settings file cannot hold one")

#define SETTINGS_FILESYSTEM_KEYS(KEY, BOOL, INT) \
	BOOL(disabled, disabled, 4) \
	KEY(denyRead, SETTINGS_REQUIRED, "add \"denyRead\": [] to deny no reads") \
	KEY(allowRead, 0, NULL) \
	KEY(allowWrite, SETTINGS_REQUIRED, \
	    "add \"allowWrite\": [] to allow no writes beyond the defaults") \
	KEY(denyWrite, SETTINGS_REQUIRED, \
	    "add \"denyWrite\": [] to deny nothing beyond the mandatory denies") \
	BOOL(allowGitConfig, allow_git_config, 5) \
	BOOL(denyReadHold, deny_read_hold, 14)

/* Row flags. */
#define SETTINGS_REQUIRED 0x1    /* the reference requires the key */
#define SETTINGS_UNSUPPORTED 0x2 /* the reference has it; srt refuses it for now */
#define SETTINGS_HELPER \
	0x4 /* configures a helper of the reference's; accepted
                                           with a warning, then ignored */
#define SETTINGS_MANAGED \
	0x8 /* only in the managed file (managed.h); an error in
                                           any other, and never stored in a policy's options */
#define SETTINGS_CALLBACK \
	0x10 /* acts only on the reference library's request
                                           filter callback: accepted with a warning, then
                                           ignored */

/* Generators: members of struct settings, and the numbering of each object's keys. */
#define SETTINGS_NO_KEY(name, flags, note)
#define SETTINGS_MEMBER_BOOL(name, member, bit) bool member;
#define SETTINGS_MEMBER_INT(name, member, lo, hi, dflt) int member;
#define SETTINGS_ROOT_ID(name, ...) SR_##name,
#define SETTINGS_NETWORK_ID(name, ...) SN_##name,
#define SETTINGS_FILESYSTEM_ID(name, ...) SF_##name,
#define SETTINGS_BIT_ID(name, member, bit) SETTINGS_BIT_##member = bit,
#define SETTINGS_NO_INT(name, member, lo, hi, dflt)

enum settings_root_key {
	SETTINGS_ROOT_KEYS(SETTINGS_ROOT_ID, SETTINGS_ROOT_ID, SETTINGS_ROOT_ID) SR_COUNT
};
enum settings_network_key {
	SETTINGS_NETWORK_KEYS(SETTINGS_NETWORK_ID, SETTINGS_NETWORK_ID, SETTINGS_NETWORK_ID)
	SN_COUNT
};
enum settings_filesystem_key {
	SETTINGS_FILESYSTEM_KEYS(
	    SETTINGS_FILESYSTEM_ID, SETTINGS_FILESYSTEM_ID, SETTINGS_FILESYSTEM_ID)
	SF_COUNT
};

/* The bit of each boolean option in policy.bin (policy_option_flags()). */
enum settings_bit {
	SETTINGS_NETWORK_KEYS(SETTINGS_NO_KEY, SETTINGS_BIT_ID, SETTINGS_NO_INT)
	SETTINGS_FILESYSTEM_KEYS(SETTINGS_NO_KEY, SETTINGS_BIT_ID, SETTINGS_NO_INT)
	    SETTINGS_ROOT_KEYS(SETTINGS_NO_KEY, SETTINGS_BIT_ID, SETTINGS_NO_INT)
};
#define SETTINGS_FLAG(member) (1u << SETTINGS_BIT_##member)

enum settings_kind {
	SETTINGS_VALUE, /* read and written by code of its own */
	SETTINGS_BOOL,
	SETTINGS_INT,
};

/* One row as data. */
struct settings_key {
	const char *name;
	int flags;        /* SETTINGS_REQUIRED, _UNSUPPORTED, _HELPER, _MANAGED,
	                           _CALLBACK */
	const char *note; /* REQUIRED: how to add it; UNSUPPORTED, HELPER, CALLBACK:
	                           why */
	enum settings_kind kind;
	size_t off;       /* BOOL, INT: offsetof(struct settings, member) */
	unsigned bit;     /* BOOL */
	int lo, hi, dflt; /* INT */
};

struct settings_object {
	const char *path; /* "" for the root, "network", "filesystem" */
	const struct settings_key *keys;
	size_t nkeys;
};

extern const struct settings_object settings_root, settings_network, settings_filesystem;
/* The three objects in the order their options are stored: network, filesystem, root. */
extern const struct settings_object *const settings_objects[3];
/* Every bit a boolean option uses. */
extern const unsigned settings_all_flags;

/* An INT row's value: in bounds, or the "not set" default. */
int settings_int_ok(const struct settings_key *k, long long v);
/* An INT row whose value is its "not set" default: dump leaves it out. */
int settings_int_unset(const struct settings_key *k, int v);

#endif
