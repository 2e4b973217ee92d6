/*
 * What srt-httpd and srt-socksd share (SPEC §2, §4): the command line, the listeners and
 * the accept loop with its connection cap, the policy (with SIGHUP reload), the name
 * decision plus --audit, the guarded dial (c-ares lookup, resolved-address guard,
 * non-blocking connect with a 30 s timeout), tunnels, the JSON-lines decision log, the
 * lifeline fd, SIGTERM drain, and self-narrowing (no capabilities, NO_NEW_PRIVS, seccomp
 * allowlist).
 *
 * A daemon is a struct proxy_proto and a main that calls proxy_main(). Its accept callback
 * owns the connection from then on and calls proxy_conn_closed() exactly once when the
 * connection is gone (proxy_tunnel() does that itself).
 *
 * Decision log: one record per line, per decision (decision.h), written when the decision
 * is final (at once for a refusal, at the end of the exchange for an allowed one, so that
 * the byte counts and duration are known).
 */
#ifndef SRT_PROXY_H
#define SRT_PROXY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "decision.h"
#include "domain.h"
#include "evloop.h"
#include "guard.h"
#include "handoff.h"
#include "policy.h"
#include "proxy_listen.h"
#include "relay.h"
#include "sys.h"
#include "tls.h"
#include "tls_mitm.h"
#include "upstream.h"
#include "util.h"

#define PROXY_CONNECT_TIMEOUT_MS 30000u
#define PROXY_DEFAULT_MAX_CONNS 16384u
#define PROXY_DRAIN_MS 10000u      /* SIGTERM: open connections get this long */
#define PROXY_REFUSED_MAX 64u      /* refused past the cap: lingering at once, */
#define PROXY_REFUSED_MS 1000u     /* each at most this long */
#define PROXY_REFUSED_BYTES 16384u /* or this many bytes read and dropped */
#define PROXY_CLIENT_MAX 64        /* "[v6addr]:port" or "unix" */
#define PROXY_HEAD_TIMEOUT_S \
	30u /* a request head / SOCKS handshake, from its
                                              first byte */

/* Command line (SPEC §2). */
struct proxy_opts {
	const char *policy_path;   /* -p FILE */
	const char *settings_path; /* -s FILE */
	int policy_fd;             /* --policy-fd N, or -1 */
	struct strlist listen;     /* -l ADDR, in order */
	bool listen_any;           /* --listen-any-interface: -l may name an address
	                                   other hosts reach */
	int *listen_fds;           /* --listen-fd N, in order */
	size_t nlisten_fds;
	const char *log_path;         /* --log FILE */
	int log_fd;                   /* --log-fd N, or -1 */
	bool audit;                   /* --audit */
	char *auth;                   /* --auth USER:PASS, or NULL */
	int lifeline_fd;              /* --lifeline-fd N, or -1 */
	int ready_fd;                 /* --ready-fd N: "ready" once serving, or -1 */
	bool debug;                   /* -d */
	unsigned max_conns;           /* --max-conns N (default PROXY_DEFAULT_MAX_CONNS) */
	unsigned idle_timeout_s;      /* --idle-timeout SEC for tunnels, 0 = none (default) */
	unsigned head_timeout_s;      /* --head-timeout SEC: the whole request head (srt-httpd)
	                                   or SOCKS handshake (srt-socksd) must arrive within
	                                   this (default PROXY_HEAD_TIMEOUT_S) */
	bool no_sandbox;              /* --no-sandbox: skip seccomp (debugging only) */
	unsigned relay_port;          /* --relay-to PORT: a plain relay, no policy; 0 */
	int cred_fd;                  /* --cred-fd N: masked credentials (cred.h), or -1 */
	int ca_fd;                    /* --ca-fd N: tlsTerminate's CA (certificate and key
	                                   as PEM, read to its end at start), or -1 */
	int control_fd;               /* --control-fd N: live policies from the launcher
	                                   (a Unix socket: one byte and a policy memfd per
	                                   update, answered by one line), or -1 */
	int decider_in, decider_out;  /* --decider-fd N (both), or --decider-in N and
	                                   --decider-out N; -1 without a decider */
	bool ask;                     /* --ask: only hosts no rule decides go to it */
	unsigned decider_timeout_ms;  /* --decider-timeout MS (DECIDER_TIMEOUT_MS) */
	int decider_ready_fd;         /* --decider-ready-fd N: "ok\n" once the decider's
	                                   hello came, "error: WHY\n" if the link ended
	                                   first (srt waits for it); -1 none */
	int handoff_fd;               /* --handoff-fd N: the TLS-termination handoff
	                                   channel between srt-socksd and srt-httpd
	                                   (handoff.h), made by the launcher; -1 none */
	bool plaintext_header_set;    /* --plaintext-header-set, or the starting policy's
	                                   allowPlaintextHeaderSet: a decider's allow may set
	                                   headers on a request that came in clear text */
	struct strlist strip_headers; /* --strip-response-header NAME, added to every
	                                   policy's stripResponseHeaders */
	bool lists_terminate;         /* proxy mode with --ca-fd: the policy made from the
	                                   decider's hello has tlsTerminate */
};

struct proxy;
struct proxy_connector;

/* What one daemon plugs into the shared core. */
struct proxy_proto {
	const char *prog;           /* "srt-httpd" */
	const char *default_listen; /* "127.0.0.1:3128" */
	const char *usage;          /* the synopsis line(s) printed by -h and on bad usage */
	/* A new connection, non-blocking and CLOEXEC; client is its peer in text. */
	void (*accept)(struct proxy *px, int fd, const char *client);
	/* Past the connection cap: write a refusal without blocking and shut the write side;
	 * the core then reads and drops what the client sends for a short bounded time
	 * before it closes fd, so that the refusal is not lost to a reset. */
	void (*refuse)(struct proxy *px, int fd);
	/* Optional: the drain has begun (SIGTERM, SIGINT); close what only waits. */
	void (*drain)(struct proxy *px);
	/* Descriptors the daemon may hold beyond its connections (idle upstream
	 * connections), kept out of the connection cap; a low descriptor limit leaves
	 * fewer (proxy_spare_fds). */
	unsigned spare_fds;
	/* The daemon terminates TLS (tlsTerminate): its CA is loaded at start. */
	bool tls_terminate;
	/* Takes --decider-fd and its kin (srt-httpd). */
	bool takes_decider;
	/* Optional: called once before the proxy narrows itself, the loop ready. */
	void (*start)(struct proxy *px);
	/* Optional: the receiving end of --handoff-fd (srt-httpd). The core reads the
	 * channel and drops malformed messages; this gets each good one with its client
	 * socket (CLOEXEC), which it owns from then on. The sending end (srt-socksd) is
	 * only kept in proxy_options()->handoff_fd, non-blocking and CLOEXEC. */
	void (*handoff)(struct proxy *px, int fd, const struct handoff_msg *m);
	/* A new connection in --relay-to mode: proxy_relay_accept (proxy_relay.c), given
	 * by the program so that the core does not call back into the relay that calls
	 * it. */
	void (*relay_accept)(struct proxy *px, int fd, const char *client);
};

/* Parse options, load the policy, open listeners and log, narrow the process, run the loop
 * until SIGTERM/SIGINT drain or lifeline EOF. Returns the exit status (0; 1 for a runtime
 * failure; 2 for bad usage or a bad policy at start-up). */
int proxy_main(int argc, char **argv, const struct proxy_proto *proto);

struct evloop *proxy_loop(struct proxy *px);
const struct proxy_opts *proxy_options(struct proxy *px);
/* The masked credentials read from --cred-fd (empty without it). */
struct cred_store;
const struct cred_store *proxy_creds(struct proxy *px);
/* The connection accepted through proto->accept is gone (fd closed). */
void proxy_conn_closed(struct proxy *px);
/* Count a connection that came another way (a handoff) as accepted, so that its end
 * calls proxy_conn_closed like any other: false (not counted) past the connection cap
 * or while draining. */
bool proxy_conn_adopt(struct proxy *px);
/* How many of proto->spare_fds the descriptor limit leaves room for. */
unsigned proxy_spare_fds(struct proxy *px);
/* True after SIGTERM: finish the exchange in progress, do not start another (keep-alive). */
bool proxy_draining(struct proxy *px);

/* The policy in force, reference-counted so that a SIGHUP reload never frees one that a
 * pending decision or lookup still uses. */
struct proxy_policy {
	struct policy *pol;
	bool require_host_match;      /* network.requireHostMatch */
	bool refuse_opaque_tunnels;   /* network.refuseOpaqueTunnels */
	struct upstream up;           /* parentProxy (with the environment), mitmProxy */
	struct strlist strip_headers; /* stripResponseHeaders, folded (decider_fold) */
	struct settings_tls tls;      /* tlsTerminate (tls.present: on) */
	unsigned refs;
};
struct proxy_policy *proxy_policy_get(struct proxy *px); /* +1 reference */
void proxy_policy_put(struct proxy_policy *pp);          /* -1, freed at 0 */

/* Without -p, -s or --policy-fd the policy comes from a decider's hello (srt proxy):
 * until then every host is denied. */
bool proxy_policy_from_decider(struct proxy *px);
/* Make the policy in force one of these lists (a decider's hello, entries as the
 * settings take them), with proxy mode's fixed options: requireHostMatch and the private
 * ranges denied by address. 0, or -1 with messages in errs (nothing changes). */
int proxy_policy_set_lists(struct proxy *px, const struct strlist *allowed,
    const struct strlist *denied, struct diags *errs);
/* Stop as SIGTERM does: no new connections, the open ones get PROXY_DRAIN_MS. */
void proxy_shutdown(struct proxy *px, const char *why);

/* --auth: 1 if no credentials are configured or user:pass equals them (constant time). */
int proxy_auth_check(struct proxy *px, const char *userpass, size_t len);

/* One decision from the request to the log line. */
struct proxy_request {
	const char *protocol; /* "http", "connect", "socks5" */
	char client[PROXY_CLIENT_MAX];
	char host[DOM_HOST_MAX + 1]; /* canonical, or the sanitised request host */
	uint16_t port;
	enum host_kind kind;
	enum verdict verdict;
	char *rule;        /* owned, or NULL */
	char *reason;      /* owned, or NULL */
	char *route;       /* owned: how it left (route_describe), or NULL */
	char *request;     /* owned: "METHOD URL" of one refused request inside
	                                   an allowed exchange (decision.h), or NULL */
	int status;        /* HTTP status / SOCKS reply sent, -1 none */
	uint64_t up, down; /* bytes client->server, server->client */
	uint64_t start_ms; /* evloop_now() when the request arrived */
	bool would_deny;   /* --audit: the policy would have refused it */
};

/* Start a record: protocol and client set, counters 0, status -1, VERDICT_NONE. */
void proxy_request_init(
    struct proxy *px, struct proxy_request *rq, const char *protocol, const char *client);
void proxy_request_clear(struct proxy_request *rq);
/* A connection's request is over: *rq (allocated) cleared and freed, its hold on the
 * policy (*pp) given back; both NULL after, either may be before. */
void proxy_request_release(struct proxy_request **rq, struct proxy_policy **pp);
/* Set rq->reason to a copy of reason (any bytes; NULL clears). */
void proxy_request_set_reason(struct proxy_request *rq, const char *reason, size_t len);

/* The name decision (BEHAVIOR §2.2) for host:port, recorded in rq (host, kind, rule,
 * reason, verdict). Returns 1 to go on (allowed, or --audit and not malformed, with
 * VERDICT_AUDIT_DENY), 0 to refuse (VERDICT_DENY). */
int proxy_decide(struct proxy *px, struct proxy_policy *pp, struct proxy_request *rq,
    const char *host, size_t hostlen, uint16_t port);

/* Write rq's JSON line to the log (the duration runs to now). */
void proxy_log(struct proxy *px, const struct proxy_request *rq);

/* The route of an allowed request to rq->host (upstream_route over pp's routes). tunnel:
 * CONNECT or SOCKS; else a plain HTTP request. */
void proxy_route(const struct proxy_policy *pp, const struct proxy_request *rq, bool tunnel,
    struct route *out);

/* The dial of rq->host:rq->port (after proxy_decide allowed it) by its route
 * (proxy_dial.c). Direct: IP literals are connected to as they are; names are looked up
 * once (all answers), judged by the resolved-address guard, and the addresses that pass
 * are tried in order. Through a parent or the inspection proxy: a connection to it, and
 * for a tunnel its CONNECT to the destination; without tunnel, a connection to it for an
 * absolute-form request. All within PROXY_CONNECT_TIMEOUT_MS. rq->route says which. */
enum proxy_dial_status {
	PROXY_DIAL_OK,      /* fd is a connected, non-blocking, CLOEXEC socket */
	PROXY_DIAL_BLOCKED, /* the guard refused every address: short = "resolved to
	                           ...", message = "Connection to H blocked: resolved to ..." */
	PROXY_DIAL_FAILED,  /* lookup or connect failed: message says why */
};
struct proxy_dial_result {
	enum proxy_dial_status status;
	int fd;                /* PROXY_DIAL_OK: the caller owns it; else -1 */
	struct tls_conn *tls;  /* proxy_dial_https: the session over fd (the caller owns
	                           it too); else NULL */
	int err;               /* errno of a failed connect, 0 otherwise */
	enum route_kind route; /* which way it went */
	const char *early;     /* PROXY_DIAL_OK, tunnel: bytes the parent sent after its
	                           reply, to give the client first (valid in the callback) */
	size_t early_len;
	const char *short_reason;
	const char *message; /* through a parent: "parent proxy URL: what happened" */
};
struct proxy_dial;
/* The callback runs once, later, from the loop (never inside proxy_dial). In --audit a
 * guard refusal is recorded in rq (VERDICT_AUDIT_DENY, reason set) and the dial goes on
 * to the first address. On PROXY_DIAL_BLOCKED rq->verdict is VERDICT_DENY and rq->reason
 * the message; on PROXY_DIAL_FAILED VERDICT_ERROR. rq must outlive the dial. */
typedef void (*proxy_dial_cb)(void *arg, const struct proxy_dial_result *res);
struct proxy_dial *proxy_dial(struct proxy *px, struct proxy_policy *pp,
    struct proxy_request *rq, const struct route *route, bool tunnel, proxy_dial_cb cb,
    void *arg);
/* The same, then a TLS handshake with the destination itself (over the tunnel when the
 * route is a parent), verified against proxy_term_tls: the callback gets the socket and
 * the session over it (res->tls), to be read and written with tls_read and tls_write
 * (no bridge: the forwarder reads the clear text straight into its buffers). A failed
 * handshake is
 * PROXY_DIAL_FAILED ("TLS to HOST: certificate verify failed: ..."). */
struct proxy_dial *proxy_dial_https(struct proxy *px, struct proxy_policy *pp,
    struct proxy_request *rq, const struct route *route, proxy_dial_cb cb, void *arg);
/* Abandon a dial in progress: the callback will not run, a socket is closed. */
void proxy_dial_cancel(struct proxy_dial *d);

/* Relay client_fd <-> server_fd until both ends are done (relay.h), then log rq with the
 * byte counts, free it and call proxy_conn_closed(). Takes ownership of both fds and of rq
 * (allocated with xmalloc) in every case. to_client is written first (a "200" or a SOCKS
 * reply), to_server are bytes the client sent early. Returns 0, or -1 if the relay could
 * not start (then everything is already closed, logged and released). */
int proxy_tunnel(struct proxy *px, int client_fd, int server_fd, struct proxy_request *rq,
    const void *to_client, size_t to_client_len, const void *to_server, size_t to_server_len);

/* Text of a deny reason fit for an HTTP status line or header: control characters become
 * spaces, '<' and '>' are dropped, surrounding blanks trimmed, cut at 500 characters, and
 * any byte outside printable ASCII becomes '?'. out holds at least 501 bytes. */
void proxy_sanitize_reason(const char *in, size_t len, char *out, size_t outlen);

/* For the guarded dial (proxy_dial.c): the resolver, and this host's addresses for the
 * guard, re-read at most once a second (getifaddrs costs a netlink socket and a dump of
 * every address, too much for every lookup; an address added to an interface is known
 * within that time). */
struct resolver *proxy_resolver(struct proxy *px);
const struct guard_local *proxy_local_addrs(struct proxy *px);
/* The TLS client context for https:// parents, made at start when the policy had one;
 * NULL with *why ("... restart srt-httpd") otherwise. */
struct tls_ctx *proxy_tls_ctx(struct proxy *px, const char **why);
/* TLS termination (issue #14), set up at start when the policy had tlsTerminate: the CA
 * that signs the leaves, and the client context that verifies the real servers (the
 * host's roots and extraCaCertPaths). NULL with *why otherwise. */
struct tls_mitm *proxy_tls_mitm(struct proxy *px, const char **why);
struct tls_ctx *proxy_term_tls(struct proxy *px);

/* Is rq's host to be TLS-terminated under pp (tlsTerminate on, the host not in
 * excludeDomains)? srt-httpd terminates it; srt-socksd hands it to srt-httpd. */
bool proxy_term_wanted(const struct proxy_policy *pp, const struct proxy_request *rq);

/* The connector to the inspection proxy at path, started with the proxy; NULL with *why
 * when it was started for another path, or not at all. */
struct proxy_connector *proxy_mitm_connector(
    struct proxy *px, const char *path, const char **why);

/* --relay-to (proxy_relay.c): the accept callback of the plain relay to
 * 127.0.0.1:relay_port (or [::1]), in place of the protocol's. */
void proxy_relay_accept(struct proxy *px, int fd, const char *client);

#endif
