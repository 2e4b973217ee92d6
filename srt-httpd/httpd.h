/* srt-httpd: the filtering HTTP proxy. Every struct and prototype shared by its modules. */
#ifndef SRT_HTTPD_H
#define SRT_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "cred.h"
#include "decider.h"
#include "evloop.h"
#include "http_parse.h"
#include "proxy.h"
#include "sha256.h"
#include "sigv4.h"
#include "tls.h"

#define HTTPD_IN_MAX (HTTP_HEAD_MAX + 65536) /* client bytes held at once */
#define HTTPD_OUT_MAX (256 * 1024)           /* queued bytes before reading pauses */
#define HTTPD_KEEPALIVE_MS 60000u            /* idle client between requests */
#define HTTPD_STALL_MS 300000u               /* no byte moved mid-exchange */
#define HTTPD_LINGER_MS \
	2000u              /* drain input after a final reply,
                                                      counted from the shutdown */
#define POOL_MAX 64u       /* idle upstream connections kept */
#define POOL_IDLE_MS 4000u /* for at most this long each */

enum conn_state {
	CONN_READ_HEAD, /* waiting for (the rest of) a request head */
	CONN_ASKING,    /* waiting for the decider's verdict (ask.c) */
	CONN_DIALING,   /* decided; guarded dial in progress */
	CONN_FORWARD,   /* request body up, response down */
	CONN_CLOSING,   /* flushing a final reply, then linger */
	CONN_LINGER,    /* write side shut; discarding input until EOF or timeout */
	CONN_HANDED,    /* the client socket went to another owner (terminate.c):
	                           conn_run frees the connection without closing it */
};

/* The clear side of a TLS-terminated tunnel (terminate.c): whom its requests go to. */
struct term {
	char host[DOM_HOST_MAX + 1]; /* the CONNECT target, canonical */
	enum host_kind kind;
	uint16_t port;
	char sni[DOM_HOST_MAX + 1]; /* the server name the client sent, "" none */
	bool sni_bad;               /* it sent one that is no host name */
};

/* A request to be signed again with a masked AWS key pair's real secret (resign.c). */
#define RESIGN_BODY_MAX (64u << 20) /* a body collected for its hash */
struct resign {
	const struct cred_aws *pair;
	struct sigv4_auth auth; /* the client's; x-amz-security-token added */
	char *amz_date, *method, *target, *host, *url;
	bool unsigned_payload; /* x-amz-content-sha256: UNSIGNED-PAYLOAD */
	bool had_sha;          /* the client sent x-amz-content-sha256 */
	bool hold;             /* the body is collected, then the head goes */
	char **fname, **fval;  /* the signed fields as they go upstream */
	size_t *fvlen, nf;
	struct buf head; /* hold: the head up to the fields written last */
	struct buf body; /* hold: the body, substituted, unframed */
};

/* One client connection (and, while forwarding, its upstream connection). */
struct conn {
	struct proxy *px;
	struct evloop *loop;
	int cfd, ufd;
	/* The TLS sessions over cfd (a terminated tunnel's, terminate.c) and over ufd (to
	 * its real server, proxy_dial_https), or NULL: conn_recv and conn_send read and
	 * write through them. */
	struct tls_conn *ctls, *utls;
	struct term *term; /* a terminated tunnel's requests, or NULL */
	char client[PROXY_CLIENT_MAX];
	enum conn_state st;
	struct buf in;     /* from the client, not yet used */
	struct buf cout;   /* to the client */
	struct buf uout;   /* to the upstream */
	struct buf uin;    /* from the upstream, not yet used */
	unsigned cev, uev; /* registered interest (edge-triggered, fixed) */
	/* Input may be waiting: an event reported the socket readable since a read last
	 * found it empty (EAGAIN, or a short read that drained it). Reads are skipped
	 * while false, which saves a failing recv per exchange; the edge-triggered loop
	 * reports any input that arrives later. Once the peer's EOF was reported
	 * (*_eof), a short read no longer counts as drained: the EOF is still queued. */
	bool c_ready, u_ready;
	bool c_eof, u_eof;
	struct ev_timer timer;
	uint64_t last;         /* loop time of the last byte moved */
	uint64_t head_start;   /* loop time the head being read began (its first
	                                   byte, or the end of the previous exchange when the
	                                   next request was already waiting); 0: none yet */
	uint64_t linger_start; /* loop time the write side was shut (CONN_LINGER) */
	bool close_after;      /* close once the current reply is out */
	bool clean_end;        /* the exchange ended with the whole request read and
	                                   nothing more from the client: no linger needed */

	/* the request in progress */
	struct proxy_request *rq;
	struct proxy_policy *pp;
	struct proxy_dial *dial;
	struct ask_wait *ask; /* the decider's verdict awaited (ask.c) */
	struct buf body;      /* need_body: the request body read ahead (decoded),
	                                   sent upstream before the rest */
	bool body_ahead;      /* c->body is a read-ahead not sent yet
	                                   (forward_body_ahead_out) */
	struct route route;   /* how the request leaves (proxy_route) */
	bool is_connect;
	bool head_method;
	int client_minor;
	bool client_keep_alive;
	char *up_head; /* upstream request head, built before dialing */
	size_t up_head_len;
	enum http_framing req_framing;
	uint64_t req_left;
	struct http_chunked req_ch;
	bool req_done;
	bool resp_head_done;
	enum http_framing resp_framing;
	uint64_t resp_left;
	struct http_chunked resp_ch;
	bool resp_chunk_out; /* re-frame the response body as chunked */
	bool resp_done;
	bool resp_started; /* response bytes reached the client */
	/* the upstream connection (pool.c) */
	bool u_retryable; /* the request may go out twice (GET, HEAD, OPTIONS
	                                   without a body) */
	bool u_reused;    /* ufd came from the pool */
	bool u_rx;        /* a byte came from ufd in this exchange */
	bool u_keep;      /* ufd may serve another request after this one */
	/* masked credentials for this request's destination (lib/core/cred.h) */
	const struct cred_secret **cset;
	size_t ncset;
	bool csubst;   /* the body goes through cstream */
	bool crechunk; /* ... and is re-framed as chunked */
	struct cred_stream cstream;
	bool cguard; /* the destination may receive a masked value (over
	                                   any transport): Accept-Encoding identity, no Range,
	                                   an encoded response refused */
	bool rscrub; /* the response body goes through rstream */
	struct cred_scrub_stream rstream;
	struct resign *rs; /* SigV4 re-signing of this request, or NULL */
};

/* ask.c: the external decider. An answer: allow (v the verdict, for its header edits,
 * when the decider gave one now) or a refusal with status and reason. */
struct ask_answer {
	bool allow;
	bool decided;       /* the decider's own verdict (or remembered) */
	bool remembered;    /* --ask: given before for this host:port */
	bool unavailable;   /* no verdict: timeout, link gone, not ready */
	bool bad_request;   /* the request cannot be asked about */
	bool plaintext_set; /* an allow whose header sets would travel in clear
	                                   text, refused (no --plaintext-header-set) */
	bool sync;          /* called from within ask_send */
	int status;
	const char *reason; /* NULL: none given */
	const struct decider_verdict *v;
};
typedef void (*ask_cb)(void *arg, const struct ask_answer *a);
enum ask_need {
	ASK_NO,
	ASK_YES
};
struct ask_wait;
void ask_start(struct proxy *px);
bool ask_active(void);
enum ask_need ask_needed(struct conn *c, bool allowed);
/* Ask about r; cb(arg, answer) runs once: now, from within this call (a->sync), or later
 * from the loop. Meanwhile *slot holds the wait (NULL again once answered); ask_cancel
 * forgets it. body: the connection whose request body a need_body is shown (NULL: the
 * request has none, as a CONNECT). */
void ask_send(struct proxy *px, const struct decider_req *r, ask_cb cb, void *arg,
    struct ask_wait **slot, struct conn *body);
void ask_cancel(struct ask_wait **slot);
/* need_body: whether w waits for its request's body (the connection then reads on), and
 * the step that takes what came (conn.c calls it after each read). */
bool ask_reading(const struct ask_wait *w);
void ask_body_more(struct conn *c);
/* Record a refusal in c->rq and queue its reply (conn.c). */
void httpd_ask_refuse(struct conn *c, const struct ask_answer *a, bool keep);
/* Record an allow by the decider in c->rq when the policy had not allowed it. */
void httpd_ask_allowed(struct conn *c, const struct ask_answer *a);
/* The request's headers for a req frame: all but Host and Proxy-Authorization. */
void httpd_req_headers(const struct http_head *h, struct decider_req *r, const char **names,
    size_t *namelen, const char **values, size_t *valuelen);

/* conn.c */
void conn_accept(struct proxy *px, int fd, const char *client);
/* The same, returning the connection (NULL: it could not be registered, fd is closed). */
struct conn *conn_new(struct proxy *px, int fd, const char *client);
void conn_refuse(struct proxy *px, int fd);
void conn_run(struct conn *c);
void conn_io_cb(struct evloop *loop, int fd, unsigned events, void *arg);
void conn_free(struct conn *c, bool close_client);
/* Queue a complete reply; log the request (if any) with this status. body may be NULL.
 * keep: keep the connection for another request if the request allows it. */
void conn_reply(struct conn *c, int status, const char *phrase, const char *headers,
    const char *body, bool keep);
void conn_request_done(struct conn *c);
/* The upstream connection is no longer c's (closed, or handed to the pool): no
 * descriptor, no TLS, no events, nothing buffered either way. */
void conn_upstream_reset(struct conn *c);

/* Read from fd (through tls when not NULL) into q (at most room bytes) if *ready (see
 * struct conn). 1 progress, 0 nothing now, -1 EOF, -2 error. */
int conn_recv(int fd, struct tls_conn *tls, bool *ready, bool eof, struct buf *q, size_t room);
/* send(2) on fd, or tls_write on tls: bytes sent, or -1 with errno (EAGAIN: not now). */
ssize_t conn_send(int fd, struct tls_conn *tls, const void *p, size_t len);
/* Best effort, never blocking: close_notify on tls (if any), then close(fd); tls freed. */
void conn_close_fd(int fd, struct tls_conn *tls);

/* forward.c: absolute-form requests */
void forward_start(struct conn *c, const struct http_head *h);
/* The request head is built (c->up_head) and the route chosen: over an idle connection
 * or a new dial. */
void forward_send(struct conn *c, const struct http_head *h);
/* Why the Host field names another authority than host:port (the port left out of Host
 * when it is default_port), or NULL. */
const char *forward_host_mismatch(
    const struct http_head *h, const struct proxy_request *rq, uint16_t default_port);
void forward_dialed(struct conn *c, int fd, struct tls_conn *tls);
/* Ask the decider about the request of h to c->rq's host and port (path: its target in
 * origin form, query included; sni: the TLS server name or NULL); its answer sends it on
 * (with an allow's header edits on c->up_head) or refuses it. */
void forward_ask(struct conn *c, const struct http_head *h, const char *path, size_t pathlen,
    const char *sni);
/* need_body: move up to max bytes of the request body from c->in to c->body (decoded).
 * 1 when the decider can be shown it (*cut: it goes on past max), 0 when more must be
 * read, -1 on a malformed chunked body. */
int forward_body_ahead(struct conn *c, size_t max, bool *cut);
/* 1 progress, 0 nothing to do now, -1 the connection is gone (c freed). */
int forward_pump(struct conn *c);
void forward_creds_clear(struct conn *c);
/* The masked credentials injectable in this request (tls: over terminated TLS). */
void forward_creds(struct conn *c, bool tls);
/* The client's fields onto q as they go upstream (substituted, re-signing noted); then
 * the end of the head into c->up_head (host: the Host value sent). -1: refused. */
void forward_head_fields(struct conn *c, const struct http_head *h, struct buf *q);
int forward_head_end(
    struct conn *c, const struct http_head *h, const char *host, struct buf *q);

/* resign.c: SigV4 re-signing. plan: after the decision, before the head is built;
 * target is the path and query as they go, url the request's for a violation line;
 * inject_ok: real values may go over this transport. 0 (c->rs set when the request is
 * to be re-signed), or -1: refused, the reply queued. */
int resign_plan(struct conn *c, const struct http_head *h, const char *target, size_t tlen,
    const char *url, size_t ulen, bool inject_ok);
/* Is the client's field name one resign_head_end writes anew (so not copied)? */
bool resign_replaces(const struct resign *rs, struct http_str name);
/* A copied field as it goes upstream, kept when it is signed. */
void resign_note(struct resign *rs, struct http_str name, const char *v, size_t vlen);
/* The rewritten fields and the Authorization onto q; host is the Host value sent. */
int resign_head_end(struct conn *c, const char *host, const char *payload, struct buf *q);
void resign_hash(const char *p, size_t n, char out[SHA256_HEX_LEN + 1]);
/* 403 and a "deny http-request" record for this one request. */
void resign_refuse(
    struct conn *c, const char *method, const char *url, size_t ulen, const char *why);
void resign_refuse_large(struct conn *c);
void resign_free(struct resign *rs);

/* pool.c: idle upstream connections. put: keep fd (registered in the loop) and its TLS
 * session to host (NULL: plain HTTP) for the next request to host:port under policy pp.
 * take: an idle fd for that key (with a session when tls), rebound to cb/arg, its
 * session in *tlsp, or -1. flush: close them all (drain). */
void pool_put(struct proxy *px, struct proxy_policy *pp, const char *host, uint16_t port,
    int fd, struct tls_conn *tls);
int pool_take(const struct proxy_policy *pp, const char *host, uint16_t port, bool tls,
    ev_io_cb cb, void *arg, struct tls_conn **tlsp);
void pool_flush(struct proxy *px);

/* connect.c: CONNECT tunnels */
/* Ask the decider about the CONNECT of h to rq's host and port (method CONNECT, path its
 * authority as spelled), as ask_send does with cb, arg and slot. */
void connect_ask_send(struct proxy *px, const struct http_head *h,
    const struct proxy_request *rq, ask_cb cb, void *arg, struct ask_wait **slot);
void connect_start(struct conn *c, const struct http_head *h);
#define OPAQUE_REASON "this proxy does not tunnel CONNECTs it cannot inspect"

/* terminate.c: tlsTerminate. */
/* Take over an allowed CONNECT of head h (c->st becomes CONN_HANDED, or a refusal is
 * queued): 200, then the ClientHello is awaited and terminated, or the tunnel goes on
 * opaque (or is refused) when none comes. ask_opaque: the decider is asked about the
 * tunnel before an opaque one is dialled (terminated, its requests are asked). */
void term_connect(struct conn *c, const struct http_head *h, bool ask_opaque);
/* A SOCKS CONNECT srt-socksd handed over (--handoff-fd): decided again here, then set
 * up as term_connect does after its 200. Owns fd. */
void term_handoff(struct proxy *px, int fd, const struct handoff_msg *m);
/* A request read from a terminated tunnel (c->term). */
void term_request(struct conn *c, const struct http_head *h);
/* The terminated tunnel c->term is over. */
void term_free(struct term *t);

/* shared: the checks before a decision, the decision, then the dial */
/* Whether the request carries the credentials --auth names; if not, refused (407, keep
 * as conn_reply's) and false. */
bool httpd_authorized(struct conn *c, const struct http_head *h, bool keep);
/* c's request refused: the verdict deny, reason logged, the reply (body may be NULL). */
void httpd_deny(struct conn *c, int status, const char *headers, const char *reason,
    const char *body, bool keep);
void httpd_dial(struct conn *c);

#endif
