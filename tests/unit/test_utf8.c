/* The UTF-8 decoder and sanitiser (utf8.h), as the violation lines and the SSH refusal
 * use them. */
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "utf8.h"

static void
test_decode(void)
{
	static const struct {
		const char *s;
		size_t n, len;
		long cp;
	} cases[] = {
		{ "A", 1, 1, 'A' }, { "\xc3\xa9", 2, 2, 0xe9 },
		{ "\xe2\x82\xac", 3, 3, 0x20ac }, { "\xf0\x9f\x98\x80", 4, 4, 0x1f600 },
		{ "\xf4\x8f\xbf\xbf", 4, 4, 0x10ffff },
		{ "\xf4\x90\x80\x80", 4, 1, UTF8_BAD },     /* above U+10FFFF */
		{ "\xc0\x80", 2, 1, UTF8_BAD },             /* overlong NUL */
		{ "\xe0\x80\xaf", 3, 1, UTF8_BAD },         /* overlong '/' */
		{ "\xed\xa0\x80", 3, 1, UTF8_BAD },         /* surrogate */
		{ "\xe2\x82", 2, 1, UTF8_BAD },             /* cut short */
		{ "\x80", 1, 1, UTF8_BAD },                 /* stray continuation */
		{ "\xf8\x88\x80\x80\x80", 5, 1, UTF8_BAD }, /* five-byte form */
	};
	char out[4];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long cp;
		size_t len = utf8_decode((const unsigned char *)cases[i].s, cases[i].n, &cp);

		ok(len == cases[i].len && cp == cases[i].cp,
		    "decode case %zu: %zu bytes, "
		    "U+%04lX",
		    i, len, (unsigned long)cp);
		if (cp != UTF8_BAD)
			ok(utf8_encode(cp, out) == len && memcmp(out, cases[i].s, len) == 0,
			    "encode case %zu gives the same bytes back", i);
	}
}

static void
test_sanitise(void)
{
	static const struct {
		const char *in;
		unsigned flags;
		size_t max;
		const char *out;
	} cases[] = {
		/* the violation lines: controls, invisibles and bad bytes run into one space,
		 * no angle brackets, trimmed */
		{ "a\x1b[31mb", UTF8_INVISIBLE | UTF8_BAD_RUN | UTF8_NO_ANGLE | UTF8_TRIM, 0,
		    "a [31mb" },
		{ "\t<x>\xe2\x80\xae\xff y \n",
		    UTF8_INVISIBLE | UTF8_BAD_RUN | UTF8_NO_ANGLE | UTF8_TRIM, 0, "x  y" },
		{ "caf\xc3\xa9\xc2\x85!",
		    UTF8_INVISIBLE | UTF8_BAD_RUN | UTF8_NO_ANGLE | UTF8_TRIM, 0,
		    "caf\xc3\xa9 !" },
		/* the SSH refusal: controls only, bad bytes become U+FFFD, nothing trimmed */
		{ " a\r\n\x01"
		  "b\xff\xe2\x80\xae ",
		    0, 0, " a b\xef\xbf\xbd\xe2\x80\xae " },
		{ "abcdef", 0, 4, "abcd" },
		{ "abc\xf0\x9f\x98\x80", 0, 4, "abc\xef\xbf\xbd" },
		{ "ab\xf0\x9f\x98\x80", 0, 4, "ab\xf0\x9f\x98\x80" },
	};
	char out[64];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		size_t n = utf8_sanitise(
		    cases[i].in, strlen(cases[i].in), cases[i].flags, cases[i].max, out);

		ok(n == strlen(cases[i].out) && memcmp(out, cases[i].out, n) == 0,
		    "sanitise case %zu: \"%.*s\"", i, (int)n, out);
	}
}

int
main(void)
{
	test_decode();
	test_sanitise();
	return tap_done();
}
