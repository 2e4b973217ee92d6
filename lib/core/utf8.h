/*
 * UTF-8 for untrusted text: one decoder, and one sanitiser for text that reaches a person
 * (a terminal, an SSH client, a log line).
 */
#ifndef SRT_UTF8_H
#define SRT_UTF8_H

#include <stddef.h>

#define UTF8_BAD (-1L)

/* The sequence at s (n > 0 bytes): its length, with *cp its code point. A byte that does
 * not start a well-formed sequence (a stray continuation byte, an overlong form, a UTF-16
 * surrogate, a value above U+10FFFF, a sequence cut short) gives 1 and *cp = UTF8_BAD. */
size_t utf8_decode(const unsigned char *s, size_t n, long *cp);
/* Write code point c (at most U+10FFFF); returns its length, 1 to 4 bytes. */
size_t utf8_encode(long c, char *out);

/* What utf8_sanitise does besides collapsing each run of control characters (C0, DEL,
 * C1) into one space. */
#define UTF8_INVISIBLE \
	0x1 /* runs include the characters that make text render as
                                   something other than what it says: soft hyphen, bidi
                                   marks and overrides, zero-width and invisible
                                   operators, line and paragraph separators, BOM, tags */
#define UTF8_BAD_RUN \
	0x2               /* a byte that is not UTF-8 belongs to a run too (by
                                   default it becomes U+FFFD) */
#define UTF8_NO_ANGLE 0x4 /* '<' and '>' are dropped */
#define UTF8_TRIM 0x8     /* no space at either end */

/*
 * Sanitise len bytes of in into out: as the flags say, and cut once max_units UTF-16 code
 * units are written (0: no limit; a character that needs a surrogate pair and no longer
 * fits becomes U+FFFD, as a JavaScript string cut there would be written). out holds
 * 3 * len bytes (a byte may become U+FFFD), or 3 * max_units when that is smaller.
 * Returns the length written; out is not NUL-terminated.
 */
size_t utf8_sanitise(const char *in, size_t len, unsigned flags, size_t max_units, char *out);

#endif
