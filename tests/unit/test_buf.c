/* The shared growable buffer (buf.h) and the shell quoter (util.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "tap.h"
#include "util.h"

static void
test_growth(void)
{
	struct buf b = { 0 };
	char big[5000], *s;
	size_t i;

	for (i = 0; i < sizeof(big) - 1; i++)
		big[i] = (char)('a' + i % 26);
	big[sizeof(big) - 1] = '\0';
	/* srt-httpd's replies were formatted into 1 KiB and silently cut past it. */
	buf_addf(&b, "HTTP/1.1 %d %s\r\n", 403, big);
	ok(b.len == 13 + strlen(big) + 2 && memcmp(b.p + b.off + 13, big, strlen(big)) == 0 &&
		memcmp(b.p + b.off + b.len - 2, "\r\n", 2) == 0,
	    "a formatted text of %zu bytes is kept whole", b.len);
	buf_consume(&b, 9);
	ok(b.len == 13 + strlen(big) + 2 - 9 && strncmp(b.p + b.off, "403 ", 4) == 0,
	    "consume takes from the front");
	for (i = 0; i < 100000; i++)
		buf_addc(&b, 'x');
	ok(b.len == 100000 + strlen(big) + 6 && b.p[b.off + b.len - 1] == 'x' &&
		strncmp(b.p + b.off, "403 ", 4) == 0,
	    "growth keeps what was there");
	buf_consume(&b, b.len);
	ok(b.len == 0 && b.off == 0, "consuming everything empties it");
	buf_add(&b, "abc", 3);
	s = buf_str(&b);
	ok(strcmp(s, "abc") == 0 && b.len == 3, "buf_str adds a NUL outside the data");
	buf_free(&b);
	ok(b.p == NULL && b.len == 0 && b.cap == 0, "buf_free leaves it empty");

	/* A queue: what was consumed moves out of the way before the buffer grows. */
	buf_add(&b, big, 200);
	buf_consume(&b, 150);
	buf_add(&b, big, 100);
	ok(b.len == 150 && b.cap == 256 && b.off == 0 && memcmp(b.p, big + 150, 50) == 0,
	    "consumed room is reused before growing (cap %zu)", b.cap);
	s = buf_steal(&b);
	ok(strlen(s) == 150 && b.p == NULL, "buf_steal hands the string over");
	free(s);
	s = buf_steal(&b);
	ok(s != NULL && *s == '\0', "an empty buffer steals as \"\"");
	free(s);
}

static void
test_ints(void)
{
	struct buf b = { 0 };
	static const unsigned char want[] = { 0x7f, 0x34, 0x12, 0x78, 0x56, 0x34, 0x12, 8, 7, 6,
		5, 4, 3, 2, 1 };

	buf_u8(&b, 0x7f);
	buf_u16le(&b, 0x1234);
	buf_u32le(&b, 0x12345678);
	buf_u64le(&b, 0x0102030405060708ull);
	ok(b.len == sizeof(want) && memcmp(b.p, want, sizeof(want)) == 0,
	    "integers little-endian");
	buf_free(&b);
}

static void
test_jstr(void)
{
	static const struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
		{ "plain", 5, "\"plain\"" },
		{ "q\"b\\", 4, "\"q\\\"b\\\\\"" },
		{ "\n\r\t\b\f", 5, "\"\\n\\r\\t\\b\\f\"" },
		{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\"" },
		{ "a\0b", 3, "\"a\\u0000b\"" },
		{ "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80", 9,
		    "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\"" },
		{ "\xc3", 1, "\"\\ufffd\"" },
		{ "\xc0\xaf", 2, "\"\\ufffd\\ufffd\"" },
		{ "\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\"" },
		{ "\xff"
		  "a",
		    2, "\"\\ufffda\"" },
	};
	struct buf b = { 0 };

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		buf_reset(&b);
		buf_add_jstr(&b, cases[i].in, cases[i].len);
		ok(strcmp(buf_str(&b), cases[i].out) == 0, "JSON string %zu: %s", i,
		    buf_str(&b));
	}
	buf_reset(&b);
	buf_add_jstr(&b, NULL, 0);
	ok(strcmp(buf_str(&b), "null") == 0, "NULL is null");
	buf_free(&b);
}

static void
test_shell_quote(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "ls", "ls" },
		{ "/usr/bin/a_b.c:d@e+f,g-h", "/usr/bin/a_b.c:d@e+f,g-h" },
		{ "", "''" },
		{ "a b", "'a b'" },
		{ "it's", "'it'\\''s'" },
		{ "A=1", "'A=1'" },
		{ "$HOME", "'$HOME'" },
		{ "*", "'*'" },
		{ "~", "'~'" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *q = shell_quote(cases[i].in);

		ok(strcmp(q, cases[i].out) == 0, "shell_quote(\"%s\") = %s", cases[i].in, q);
		free(q);
	}
}

int
main(void)
{
	test_growth();
	test_ints();
	test_jstr();
	test_shell_quote();
	return tap_done();
}
