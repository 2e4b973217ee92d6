/*
 * The external decider's protocol (srt-httpd(8), THE DECIDER PROTOCOL), the same bytes
 * as the reference's: each frame is a 4-byte big-endian length and one UTF-8 JSON object
 * whose "t" names it. The proxy says hello, the decider answers hello with its lists,
 * then the proxy sends one "req" per request (or CONNECT) and waits for a "verdict":
 * allow (with header edits), deny (status, reason) or need_body (then a "body" frame).
 *
 * Pure logic with no I/O, fuzzed (fuzz_decider): the frame reader, the strict parsers of
 * what the decider sends, and the encoders of what the proxy sends. Every parser refuses
 * what the reference refuses (a null, a duplicate key, an unknown field, an optional
 * field sent empty, a header name not in lower case, a control character in a value);
 * the caller treats any refusal as a protocol violation, which ends the link.
 */
#ifndef SRT_DECIDER_H
#define SRT_DECIDER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "util.h"

#define DECIDER_PROTO 1
#define DECIDER_FRAME_MAX (1u << 20)     /* a frame read or a req sent */
#define DECIDER_TIMEOUT_MS 5000u         /* for each verdict */
#define DECIDER_HEADERS_MAX 190u         /* header values in a req or an allow */
#define DECIDER_HEADER_BYTES (64u << 10) /* their names and values */
#define DECIDER_HOSTPATH_MAX (8u << 10)  /* host, Host header, SNI, path */
#define DECIDER_REASON_MAX 1024u
#define DECIDER_BODY_MAX (32u << 20) /* need_body's max */
#define DECIDER_CREDENTIAL_MAX 8192u
#define DECIDER_ID_MAX 9007199254740991ull /* 2^53 - 1 */
#define DECIDER_ID_WINDOW 4096u            /* late verdicts this far back are dropped */
#define DECIDER_WHY_MAX 160

/*
 * The next whole frame at the front of in: 1 with *frame and *len set (the bytes stay in
 * in until the caller consumes 4 + len), 0 when more bytes are needed, -1 when the length
 * says more than DECIDER_FRAME_MAX (a violation).
 */
int decider_frame_next(const struct buf *in, const char **frame, uint32_t *len);

/* The decider's hello: its two egress lists, entries as written. */
struct decider_hello {
	struct strlist allowed;
	struct strlist denied;
};

enum decider_action {
	DECIDER_ALLOW,
	DECIDER_DENY,
	DECIDER_NEED_BODY
};

/* A verdict. Header edits keep the decider's order; set_values[i] belongs to
 * set_names[i] (a name with several values appears once per value). */
struct decider_verdict {
	uint64_t id;
	enum decider_action action;
	int status;   /* deny: 400..599 */
	char *reason; /* deny: NULL when not given */
	uint32_t max; /* need_body: 1..DECIDER_BODY_MAX */
	struct strlist set_names, set_values;
	struct strlist remove;
	char *cred, *credential; /* allow: both or neither */
};

/* 0, or -1 with why (DECIDER_WHY_MAX bytes) saying what is wrong. The out-parameters are
 * empty on failure and freed by the _free functions in either case. */
int decider_parse_hello(const char *f, size_t n, struct decider_hello *h, char *why);
void decider_hello_free(struct decider_hello *h);
int decider_parse_verdict(const char *f, size_t n, struct decider_verdict *v, char *why);
void decider_verdict_free(struct decider_verdict *v);

/* Whether s is an entry of the hello's lists: a lower-case DNS name, or one after "*."
 * with two labels or more, or an IP literal, then an optional ":port" (after "[...]" for
 * IPv6). */
bool decider_egress_entry(const char *s);

/* A header name as the protocol and stripResponseHeaders compare it: lower case, '_'
 * and '.' as '-'. out holds n + 1 bytes. */
void decider_fold(const char *name, size_t n, char *out);
/* Whether an allow may set (remove) the header folded as f: never framing or hop-by-hop
 * headers, and never set a credential header (only "cred" places one). */
bool decider_may_set(const char *f);
bool decider_may_remove(const char *f);

/* A request as the decider is asked about it. */
struct decider_req {
	uint64_t id;
	const char *method;
	const char *host;
	uint16_t port;
	const char *host_header; /* NULL: the request had none */
	const char *sni;         /* NULL: not known */
	const char *path;        /* the request target before '?' */
	const char *query;       /* after '?', NULL or "" when none */
	/* the other headers in their order, names in any case (sent in lower case) */
	const char *const *hnames;
	const size_t *hnamelen;
	const char *const *hvalues;
	const size_t *hvaluelen;
	size_t nheaders;
};

/* The proxy's frames, length prefix included, appended to out. */
void decider_encode_hello(struct buf *out);
/* -1 with *why when the request cannot be asked about (past a limit, a value the protocol
 * refuses): the proxy answers it 400 itself and sends nothing. */
int decider_encode_req(const struct decider_req *r, struct buf *out, const char **why);
void decider_encode_body(struct buf *out, uint64_t id, const void *data, size_t len, bool cut);

#endif
