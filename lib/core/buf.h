/*
 * One growable byte buffer for every writer in srt: the policy image, JSON text, the
 * settings messages, the git configuration reader and srt-httpd's byte queues.
 *
 * The data is p[off .. off + len): bytes are added at the end and consumed from the front
 * (buf_consume), which makes it a queue as well. It is not NUL-terminated unless asked
 * (buf_str, buf_steal): a queue filled by full reads must not need a byte more than it
 * holds. Allocation failure is fatal (xreallocarray), so the functions cannot fail.
 */
#ifndef SRT_BUF_H
#define SRT_BUF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "log.h"

struct buf {
	char *p;
	size_t off, len, cap;
};

void buf_add(struct buf *b, const void *d, size_t n);
void buf_addc(struct buf *b, char c);
void buf_adds(struct buf *b, const char *s);
/* printf to the end of the buffer, growing it as needed: the text is never cut. */
void buf_addf(struct buf *b, const char *fmt, ...) SRT_PRINTF(2, 3);
void buf_vaddf(struct buf *b, const char *fmt, va_list ap) SRT_PRINTF(2, 0);
/* Little-endian integers (the policy image). */
void buf_u8(struct buf *b, uint8_t v);
void buf_u16le(struct buf *b, uint16_t v);
void buf_u32le(struct buf *b, uint32_t v);
void buf_u64le(struct buf *b, uint64_t v);
/* A JSON string literal, quotes included, for len bytes of s: '"', '\' and the control
 * characters escaped (\b \f \n \r \t by name, the others and DEL as \u00XX), and every
 * byte that is not part of well-formed UTF-8 as \ufffd, so the text always parses. s
 * NULL: null. */
void buf_add_jstr(struct buf *b, const char *s, size_t len);
/* The same for the string s (NULL: null). */
void buf_add_jstrs(struct buf *b, const char *s);
/* A member of a JSON object: before as it is (the separator and the key, such as
 * ",\"sid\":"), then s as buf_add_jstrs writes it. */
void buf_add_jmember(struct buf *b, const char *before, const char *s);

/* Base64 of n bytes at d: the standard alphabet, or with url the URL-safe one ("-_");
 * pad: '=' to a multiple of four. (One codec for the tree: Basic credentials, the
 * masked credentials' scrubbing and JWTs, the decider's bodies.) */
void buf_add_base64(struct buf *b, const void *d, size_t n, bool url, bool pad);
/* And back: the n characters at s, in the alphabet url says, decoded; padding at the end is
 * tolerated, as Node's decoder does. -1 on a bad character or length (what came before
 * it stays in b). */
int buf_add_unbase64(struct buf *b, const char *s, size_t n, bool url);

/* Room for n more bytes at the end, for a read straight into the buffer: the pointer
 * stays good until the next call on b; buf_grow then counts the bytes put there. */
char *buf_tail(struct buf *b, size_t n);
void buf_grow(struct buf *b, size_t n);
/* The first n bytes are used up (all of them when n >= len). */
void buf_consume(struct buf *b, size_t n);
/* Empty, keeping the memory. */
void buf_reset(struct buf *b);
/* The data followed by a NUL (which is not part of it). */
char *buf_str(struct buf *b);
/* The data as a NUL-terminated string the caller frees; b is left empty. */
char *buf_steal(struct buf *b);
void buf_free(struct buf *b);

#endif
