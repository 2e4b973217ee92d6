/* The strict HTTP head parser and the chunked decoder. */
#include <stdio.h>
#include <string.h>

#include "http_parse.h"
#include "tap.h"

static struct http_head h;

static int
req(const char *s)
{
	return http_parse_request(s, strlen(s), &h);
}

struct collect {
	char buf[256];
	size_t n;
};

static void
collect_cb(void *arg, const char *p, size_t n)
{
	struct collect *c = arg;

	memcpy(c->buf + c->n, p, n);
	c->n += n;
}

int
main(void)
{
	static const char *const bad[] = {
		"GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: 1, 1\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: +1\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\rb\r\n\r\n",
		"GET / HTTP/1.1\nX: a\r\n\r\n",
		"GET / HTTP/1.1\r\nX : a\r\n\r\n",
		"GET / HTTP/1.1\r\n: a\r\n\r\n",
		"GET / HTTP/1.1\r\nX\r\n\r\n",
		"G(T / HTTP/1.1\r\n\r\n",
		"GET  / HTTP/1.1\r\n\r\n",
		"GET / HTTP/2.0\r\n\r\n",
		"GET / http/1.1\r\n\r\n",
		"GET /\x01 HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n",
		"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
		"GET / HTTP/1.1\r\nX: \x7f\r\n\r\n",
		"\r\n\r\n",
		"GET / HTTP/1.1 \r\n\r\n",
	};
	size_t i, n;
	struct http_chunked ch;
	struct collect col;
	long used;
	char big[HTTP_HEAD_MAX + 64];
	const char *s;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(req(bad[i]) == HTTP_BAD, "refused: case %zu", i);
	/* a NUL inside a value */
	ok(http_parse_request("GET / HTTP/1.1\r\nX: a\0b\r\n\r\n", 26, &h) == HTTP_BAD, "NUL");

	ok(req("GET http://a.example/x?y HTTP/1.1\r\nHost: a.example\r\nX-A:  v  \r\n\r\n") ==
		HTTP_OK,
	    "plain request");
	ok(http_str_eq(h.method, "GET") && h.target.n == 20 && h.minor == 1, "line parsed");
	ok(h.nfields == 2 && h.fields[1].value.n == 1 && h.fields[1].value.p[0] == 'v',
	    "value trimmed");
	ok(h.framing == HTTP_BODY_NONE && h.keep_alive, "no body, keep-alive");
	ok(req("POST / HTTP/1.1\r\ncontent-length: 12\r\n\r\n") == HTTP_OK &&
		h.framing == HTTP_BODY_LENGTH && h.content_length == 12,
	    "content-length");
	ok(req("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\n\r\n") == HTTP_OK &&
		h.framing == HTTP_BODY_CHUNKED,
	    "chunked");
	ok(req("GET / HTTP/1.0\r\n\r\n") == HTTP_OK && !h.keep_alive, "1.0 closes");
	ok(req("GET / HTTP/1.1\r\nConnection: foo, Close\r\n\r\n") == HTTP_OK && !h.keep_alive,
	    "Connection: close");
	ok(req("GET / HTTP/1.1\r\nHost: a\r\n") == HTTP_INCOMPLETE, "incomplete");
	ok(req("GET / HTTP/1.1\r") == HTTP_INCOMPLETE, "CR at the end waits");

	memset(big, 'a', sizeof(big));
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	ok(http_parse_request(big, sizeof(big), &h) == HTTP_TOO_LARGE, "oversized head");
	{
		char many[HTTP_HEADERS_MAX * 8 + 64];
		size_t off = 0;

		off += (size_t)sprintf(many + off, "GET / HTTP/1.1\r\n");
		for (i = 0; i <= HTTP_HEADERS_MAX; i++)
			off += (size_t)sprintf(many + off, "X: a\r\n");
		off += (size_t)sprintf(many + off, "\r\n");
		ok(http_parse_request(many, off, &h) == HTTP_TOO_LARGE, "too many fields");
	}

	/* hop-by-hop */
	ok(req("GET / HTTP/1.1\r\nConnection: X-Foo, keep-alive\r\nX-Foo: 1\r\nX-Bar: 2\r\n\r\n") ==
		HTTP_OK,
	    "connection list");
	ok(http_field_is_hop(&h, h.fields[0].name) && http_field_is_hop(&h, h.fields[1].name) &&
		!http_field_is_hop(&h, h.fields[2].name),
	    "listed names are hop-by-hop");
	/* Framing and Host are never dropped on the sender's say-so: the body would go on
	 * framed by nothing (issue 12, item 7). */
	ok(req("POST / HTTP/1.1\r\nConnection: content-length, Host\r\nContent-Length: 3\r\n"
	       "Host: a\r\nConnection: TRANSFER-ENCODING\r\n\r\n") == HTTP_OK &&
		h.framing == HTTP_BODY_LENGTH && h.content_length == 3,
	    "Connection: content-length");
	ok(!http_field_is_hop(&h, h.fields[1].name) && !http_field_is_hop(&h, h.fields[2].name),
	    "Content-Length and Host listed in Connection are not hop-by-hop");
	ok(http_field_is_hop(&h, (struct http_str){ "Transfer-Encoding", 17 }),
	    "Transfer-Encoding is hop-by-hop (re-framed on each hop)");
	s = "HTTP/1.1 200 OK\r\nConnection: Content-Length\r\nContent-Length: 2\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_OK &&
		h.framing == HTTP_BODY_LENGTH && !http_field_is_hop(&h, h.fields[1].name),
	    "a response's Content-Length listed in Connection is kept");

	/* responses */
	s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_OK && h.status == 200 &&
		h.framing == HTTP_BODY_LENGTH,
	    "response with length");
	ok(http_parse_response(s, strlen(s), 1, &h) == HTTP_OK && h.framing == HTTP_BODY_NONE,
	    "HEAD response has no body");
	s = "HTTP/1.1 204 No Content\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_OK && h.framing == HTTP_BODY_NONE,
	    "204");
	s = "HTTP/1.0 200 OK\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_OK && h.framing == HTTP_BODY_CLOSE,
	    "close-delimited");
	s = "HTTP/1.1 200\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_OK, "no reason phrase");
	s = "HTTP/1.1 2000 OK\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_BAD, "bad status");
	s = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n";
	ok(http_parse_response(s, strlen(s), 0, &h) == HTTP_BAD, "ambiguous response");

	/* chunked, fed one byte at a time */
	memset(&ch, 0, sizeof(ch));
	memset(&col, 0, sizeof(col));
	s = "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nNEXT";
	n = strlen(s);
	for (i = 0; i < n && !http_chunked_done(&ch); i++) {
		used = http_chunked_feed(&ch, s + i, 1, collect_cb, &col);
		if (used != 1)
			break;
	}
	ok(http_chunked_done(&ch) && col.n == 11 && memcmp(col.buf, "hello world", 11) == 0,
	    "chunked decode");
	ok(i == n - 4, "stops at the end of the message");
	memset(&ch, 0, sizeof(ch));
	ok(http_chunked_feed(&ch, "5\r\nhelloX\r\n", 11, collect_cb, &col) == -1,
	    "missing CRLF after data");
	memset(&ch, 0, sizeof(ch));
	ok(http_chunked_feed(&ch, "5\nhello", 7, collect_cb, &col) == -1, "bare LF");
	memset(&ch, 0, sizeof(ch));
	ok(http_chunked_feed(&ch, "1234567890123456\r\n", 18, collect_cb, &col) == -1,
	    "oversized chunk size");
	memset(&ch, 0, sizeof(ch));
	ok(http_chunked_feed(&ch, "\r\n", 2, collect_cb, &col) == -1, "empty size");
	return tap_done();
}
