/*
 * Strict, bounded HTTP/1.x message-head parsing for srt-httpd (SPEC §4). Anything whose
 * framing could be read two ways is refused, so that a request cannot mean one thing to
 * the proxy and another to the upstream (request smuggling): lines must end in CRLF (no
 * bare LF, no bare CR), no obs-fold, no NUL or other control bytes, header names must be
 * tokens with the colon right after them, the method must be a token, the version
 * HTTP/1.0 or HTTP/1.1, Content-Length a plain decimal number given once, and
 * Transfer-Encoding only "chunked", alone, without Content-Length. Pure logic, no I/O.
 */
#ifndef SRT_HTTP_PARSE_H
#define SRT_HTTP_PARSE_H

#include <stddef.h>
#include <stdint.h>

#define HTTP_HEAD_MAX 32768  /* bytes in a request or response head */
#define HTTP_HEADERS_MAX 128 /* header fields in one head */

enum http_status {
	HTTP_OK = 0,
	HTTP_INCOMPLETE = 1, /* no end of head yet: read more */
	HTTP_BAD = -1,       /* malformed or ambiguous: 400 (502 for a response) */
	HTTP_TOO_LARGE = -2, /* head longer than HTTP_HEAD_MAX or too many fields: 431 */
};

/* A slice of the parsed buffer (not NUL-terminated). */
struct http_str {
	const char *p;
	size_t n;
};

struct http_field {
	struct http_str name, value; /* value without surrounding blanks */
};

enum http_framing {
	HTTP_BODY_NONE,    /* no body */
	HTTP_BODY_LENGTH,  /* content_length bytes */
	HTTP_BODY_CHUNKED, /* chunked transfer coding */
	HTTP_BODY_CLOSE,   /* (responses) until the connection closes */
};

struct http_head {
	size_t head_len; /* bytes of the head, including the final CRLFCRLF */
	int minor;       /* HTTP/1.<minor>: 0 or 1 */
	/* request */
	struct http_str method, target;
	/* response */
	int status;
	struct http_field fields[HTTP_HEADERS_MAX];
	size_t nfields;
	enum http_framing framing;
	uint64_t content_length;
	int keep_alive; /* the sender's view: 1.1 without "close", or
	                                   1.0 with "keep-alive" */
};

/* Find the end of a head in buf (len bytes so far). HTTP_OK with *head_len set,
 * HTTP_INCOMPLETE, HTTP_BAD for a bare CR or LF, HTTP_TOO_LARGE past max bytes. */
enum http_status http_head_end(const char *buf, size_t len, size_t max, size_t *head_len);

/* Parse a complete request head (buf holds at least the head). */
enum http_status http_parse_request(const char *buf, size_t len, struct http_head *h);
/* Parse a complete response head. head_request: the request was HEAD (no body). */
enum http_status http_parse_response(
    const char *buf, size_t len, int head_request, struct http_head *h);

/* Case-insensitive comparison of a slice with a string. */
int http_str_eq(struct http_str s, const char *lit);
/* Number of fields named name; *first is the first one's index if any. */
size_t http_field_count(const struct http_head *h, const char *name, size_t *first);

/* Is name hop-by-hop for this message: one of the fixed names (Transfer-Encoding among
 * them: a proxy frames each hop itself), or listed in one of its Connection fields?
 * Content-Length and Host never are, whatever Connection lists. */
int http_field_is_hop(const struct http_head *h, struct http_str name);

/* Chunked transfer coding decoder, fed incrementally. Each call consumes input up to the
 * end of the message or of the input, and reports data bytes as (offset, length) pairs
 * through the callback. Extensions are skipped, trailers dropped. */
enum http_chunk_state {
	HTTP_CH_SIZE,
	HTTP_CH_EXT,
	HTTP_CH_SIZE_LF,
	HTTP_CH_DATA,
	HTTP_CH_DATA_CR,
	HTTP_CH_DATA_LF,
	HTTP_CH_TRAILER,
	HTTP_CH_TRAILER_LF,
	HTTP_CH_TRAILER_LINE,
	HTTP_CH_TRAILER_LINE_LF,
	HTTP_CH_DONE,
};
struct http_chunked {
	enum http_chunk_state st;
	uint64_t left; /* data bytes left in the current chunk */
	unsigned ndigits;
	size_t line; /* bytes in the current extension or trailer line */
};
typedef void (*http_chunk_data_cb)(void *arg, const char *p, size_t n);
/* Returns bytes consumed (stops at the end of the message), or -1 on malformed input. */
long http_chunked_feed(
    struct http_chunked *c, const char *p, size_t n, http_chunk_data_cb cb, void *arg);
int http_chunked_done(const struct http_chunked *c);

/* The request target of a request inside a TLS-terminated tunnel (srt-httpd/terminate.c):
 * origin-form ("/path?query"), "*", or absolute-form "https://authority/path". path is
 * what follows the authority (possibly empty or "?q"); auth the authority of the
 * absolute form (n 0 otherwise). A fragment, userinfo or a backslash in the authority:
 * -1. Both point into t. */
int http_tunnel_target(struct http_str t, struct http_str *path, struct http_str *auth);

#endif
