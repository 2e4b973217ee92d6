/*
 * The settings file (~/.srt-settings.json): parsed with cJSON and validated with the
 * reference's rules (BEHAVIOR §1.3, §2.1) and srt's differences (SPEC §3).
 */
#ifndef SRT_SETTINGS_H
#define SRT_SETTINGS_H

#include <stdbool.h>
#include <stddef.h>

#include "addr.h"
#include "domain.h"
#include "settings_schema.h"
#include "util.h"

#define SETTINGS_MAX_BYTES (16u << 20)

/* A filesystem list entry: a string (may be a glob), or {"path": P, "literal": true}. */
struct path_entry {
	char *path;
	bool literal;
};

struct path_list {
	struct path_entry *v;
	size_t n;
};

struct reason_entry { /* deniedDomainReasons, in file order */
	char *entry;
	char *reason;
};

struct ignore_entry { /* ignoreViolations: pattern -> substrings */
	char *pattern;
	struct strlist subs;
};

/* windows.backend */
enum win_backend {
	WIN_BACKEND_UNSET = 0, /* srt-win, the reference's default */
	WIN_BACKEND_SRT_WIN = 1,
	WIN_BACKEND_MXC = 2, /* accepted as the reference does; srt has no MXC */
};

#define WIN_DEFAULT_PORT_LO 60080 /* windows.proxyPortRange when not set */
#define WIN_DEFAULT_PORT_HI 60089
#define WIN_PORT_RANGE_MAX 64 /* hi - lo */
#define WIN_USER_MAX 20       /* UTF-16 code units, as Windows counts */

/* The windows block (BEHAVIOR §1.3). Kept as written; it takes effect only on Windows. */
struct settings_windows {
	bool present; /* the file has a "windows" object */
	enum win_backend backend;
	char *sandbox_user;      /* NULL: srt-sandbox */
	char *sublayer_guid;     /* NULL: srt-win's own sublayer */
	char *wfp_sublayer_guid; /* the deprecated alias, as written */
	int port_lo, port_hi;    /* 0, 0: not set */
	char *srt_win_path;      /* windows.srtWin.path, or NULL */
};

/* network.parentProxy (BEHAVIOR §1.3), kept as written. Each field absent falls back,
 * field by field, to the environment of the proxy (upstream.h upstream_build). */
struct settings_parent {
	bool present; /* the file has a "parentProxy" object */
	char *http;   /* NULL: not set */
	char *https;
	char *no_proxy; /* NULL: not set; "" is set (and turns NO_PROXY off) */
};

/* network.mitmProxy: matching destinations go through the user's inspection proxy. */
struct settings_mitm {
	bool present;
	char *socket_path;
	struct strlist domains; /* patterns as written (upstream.h mitm_pattern_*) */
};

/* network.tlsTerminate (issue #14): srt-httpd terminates the TLS of CONNECT tunnels with
 * leaves signed by this CA. Kept as written; the paths are read by whoever starts the
 * proxy (srt-launch, or srt-httpd itself when run alone). */
#define TLS_MAX_TUNNELS_DEFAULT 256
#define TLS_MAX_TUNNELS_LO 1
#define TLS_MAX_TUNNELS_HI 65536
#define TLS_HANDSHAKE_MS_DEFAULT 10000
#define TLS_HANDSHAKE_MS_LO 100
#define TLS_HANDSHAKE_MS_HI 600000
struct settings_tls {
	bool present;       /* the file has a "tlsTerminate" object */
	char *ca_cert_path; /* both or neither; NULL: an ephemeral CA per run */
	char *ca_key_path;
	struct strlist exclude_domains; /* patterns as mitmProxy.domains (upstream.h) */
	struct strlist extra_ca_paths;  /* extraCaCertPaths, as written */
	int max_tunnels;                /* 0: not set (TLS_MAX_TUNNELS_DEFAULT) */
	int handshake_timeout_ms;       /* 0: not set (TLS_HANDSHAKE_MS_DEFAULT) */
};

/*
 * credentials (BEHAVIOR §1.3, issue #14): the entries with mode "deny", which need
 * nothing but the sandbox, and those with mode "mask" (cred.h says what becomes of them).
 */
enum settings_no_match {
	SNM_WARN,
	SNM_DENY,
	SNM_ERROR
};
struct settings_cred_mask {
	bool file;     /* files[] (path), else envVars[] (name) */
	char *id;      /* the path as written, or the variable's name */
	char *extract; /* NULL: none */
	enum settings_no_match no_match;
	bool jwt;              /* decode "jwt" */
	bool dups;             /* maskDuplicates */
	struct strlist claims; /* maskClaims */
	bool inject_set;       /* injectHosts given (else allowedDomains) */
	struct strlist inject;
	struct strlist body; /* injectBodyFields (srt's own; needs inject_set) */
};
struct settings_aws_pair {
	char *key_id, *secret, *token; /* variable names; token may be NULL */
};
void settings_cred_mask_clear(struct settings_cred_mask *m);
char *settings_cred_mask_json(const struct settings_cred_mask *m);
struct settings_cred {
	struct path_list deny_files; /* files[].path, as written (globs allowed, never
	                                   literal), once each in file order */
	struct strlist deny_env;     /* envVars[].name, once each in file order */
	struct settings_cred_mask *mask;
	size_t nmask;
	bool plaintext_inject; /* allowPlaintextInject */
	struct settings_aws_pair *aws;
	size_t naws;
	int sigv4[3]; /* streaming, presigned, sigv4a: 0 deny,
	                                   1 passthrough */
};

/*
 * The lists of a settings value, named for the managed layer (managed.h), which keeps
 * the managed file's entries first in each and counts them.
 */
enum settings_list {
	SL_ALLOWED_DOMAINS,    /* network.allowedDomains */
	SL_DENIED_DOMAINS,     /* network.deniedDomains */
	SL_DENIED_REASONS,     /* network.deniedDomainReasons */
	SL_DENIED_ADDRS,       /* network.deniedResolvedAddresses */
	SL_ALLOW_UNIX_SOCKETS, /* network.allowUnixSockets */
	SL_ALLOW_MACH_LOOKUP,  /* network.allowMachLookup */
	SL_DENY_READ,          /* filesystem.denyRead */
	SL_ALLOW_READ,         /* filesystem.allowRead */
	SL_ALLOW_WRITE,        /* filesystem.allowWrite */
	SL_DENY_WRITE,         /* filesystem.denyWrite */
	SL_IGNORE,             /* ignoreViolations (patterns) */
	SL_GIT_SAFE_DIRS,      /* git.safeDirectories */
	SL_CRED_FILES,         /* credentials.files (the "deny" ones) */
	SL_CRED_ENV,           /* credentials.envVars (the "deny" ones) */
	SL_COUNT
};

/* The list as the settings file spells its place ("network.allowedDomains"). */
const char *settings_list_path(enum settings_list l);

/* settings_layers.flags */
#define SETTINGS_LAYER_MERGED 0x1u          /* a managed file was merged in */
#define SETTINGS_LAYER_DOMAINS_ONLY 0x2u    /* its allowManagedDomainsOnly */
#define SETTINGS_LAYER_READ_PATHS_ONLY 0x4u /* its allowManagedReadPathsOnly */
#define SETTINGS_LAYER_USER_WEAKER 0x8u     /* its allowUserWeakerOptions */
#define SETTINGS_LAYER_ALL 0xfu

/*
 * Where the values came from. All zero for a settings file read alone; the managed
 * file's own three fields set their bits when it is parsed as one
 * (settings_parse_managed); the merge (managed_apply) fills the rest, and policy.bin
 * keeps it, so that a proxy can say which denials are the organisation's.
 */
struct settings_layers {
	unsigned flags;           /* SETTINGS_LAYER_* */
	size_t managed[SL_COUNT]; /* of each list, how many leading entries are the
	                                   managed file's */
	struct strlist options;   /* the options the managed file set, as dotted paths
	                                   ("network.httpProxyPort"), in schema order */
};

/*
 * A parsed settings file. The boolean and integer options are declared by their rows in
 * settings_schema.h (SETTINGS_MEMBER_*): network's in .net, filesystem's in .fs, the
 * root's at the end. Those are, by member: net.strict_allowlist, allow_all_unix_sockets,
 * allow_local_binding (macOS/Windows; ignored on Linux), http_proxy_port and
 * socks_proxy_port (0: not set), require_host_match, refuse_opaque_tunnels;
 * fs.disabled, allow_git_config, deny_read_hold (denyReadHold, true by default);
 * weaker_nested_sandbox (enableWeakerNestedSandbox),
 * allow_nested_userns (allowNestedUserNamespaces), weaker_network_isolation
 * (enableWeakerNetworkIsolation), allow_apple_events, allow_pty, deny_search_depth
 * (mandatoryDenySearchDepth, default 3).
 */
struct settings {
	struct {
		struct dom_rule *allowed;
		size_t nallowed;
		struct dom_rule *denied; /* rule->reason filled from reasons */
		size_t ndenied;
		struct reason_entry *reasons;
		size_t nreasons;
		struct addr_range *denied_addrs; /* deniedResolvedAddresses */
		size_t ndenied_addrs;
		struct strlist allow_unix_sockets; /* macOS only */
		struct strlist allow_mach_lookup;  /* macOS only */
		struct settings_parent parent;     /* parentProxy */
		struct settings_mitm mitm;         /* mitmProxy */
		struct strlist strip_headers;      /* stripResponseHeaders */
		struct settings_tls tls;           /* tlsTerminate */
		SETTINGS_NETWORK_KEYS(
		    SETTINGS_NO_KEY, SETTINGS_MEMBER_BOOL, SETTINGS_MEMBER_INT)
	} net;
	struct {
		struct path_list deny_read;
		struct path_list allow_read;
		struct path_list allow_write;
		struct path_list deny_write;
		SETTINGS_FILESYSTEM_KEYS(
		    SETTINGS_NO_KEY, SETTINGS_MEMBER_BOOL, SETTINGS_MEMBER_INT)
	} fs;
	struct ignore_entry *ignore;
	size_t nignore;
	char *bwrap_path;              /* NULL: bwrap from PATH */
	struct strlist git_safe_dirs;  /* git.safeDirectories */
	struct settings_windows win;   /* windows */
	struct settings_cred cred;     /* credentials */
	struct settings_layers layers; /* the managed layer's share (managed.h) */
	SETTINGS_ROOT_KEYS(SETTINGS_NO_KEY, SETTINGS_MEMBER_BOOL, SETTINGS_MEMBER_INT)
};

/* The member of a BOOL or INT row of settings_schema.h. */
bool settings_bool(const struct settings *s, const struct settings_key *k);
int settings_int(const struct settings *s, const struct settings_key *k);
void settings_set_bool(struct settings *s, const struct settings_key *k, bool v);
void settings_set_int(struct settings *s, const struct settings_key *k, int v);

/* The built-in default policy (BEHAVIOR §1.1): every list empty, every option at its
 * default (settings_schema.h). */
void settings_init_default(struct settings *s);

/* Parse a whole document. fname prefixes every message ("FILE: PATH: message").
 * All problems are added to errs; warnings (ignored helper keys) to warns.
 * Returns 0 when valid, -1 otherwise (out is then empty). Never partly accepts. */
int settings_parse(const char *text, size_t len, const char *fname, struct settings *out,
    struct diags *errs, struct diags *warns);

/* The same for the managed file (managed.h): its three own root fields are accepted and
 * set bits of out->layers.flags. */
int settings_parse_managed(const char *text, size_t len, const char *fname,
    struct settings *out, struct diags *errs, struct diags *warns);

/* The length of one of s's lists. */
size_t settings_list_len(const struct settings *s, enum settings_list l);

/* Read and parse a file: a missing, unreadable, empty or non-JSON file each get a message
 * of their own in errs. */
int settings_load(
    const char *path, struct settings *out, struct diags *errs, struct diags *warns);
/* The same from a descriptor opened on path (fd -1: the open failed, with errno). */
int settings_load_fd(
    int fd, const char *path, struct settings *out, struct diags *errs, struct diags *warns);

/* Canonical JSON (every field, fixed order, two-space indent, trailing newline); settings
 * parsed back from it equal s. Caller frees. */
char *settings_to_json(const struct settings *s);

void settings_free(struct settings *s);

/* ~/.srt-settings.json for the current user (the home directory of path_home()), or
 * NULL when there is none. Caller frees. */
char *settings_default_path(void);

#endif
