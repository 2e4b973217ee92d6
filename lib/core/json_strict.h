/*
 * A strict check of JSON text (RFC 8259), run before cJSON builds a tree of it, as the
 * reference's JSON.parse would judge the text: cJSON's leniencies (leading zeros, raw
 * control characters, a byte order mark, any byte below 0x21 as white space, a trailing
 * comma) never let through a document the reference rejects. It also refuses what
 * cJSON would read differently: numbers longer than cJSON reads (63 characters), the
 * escape \u0000, nesting deeper than 256. Every refusal names what is wrong and what
 * would be right.
 *
 * The same walk, with a consumer of its events, is how json_tree.c reads a document into
 * a tree: one tokenizer and one grammar for every JSON text srt reads itself.
 */
#ifndef SRT_JSON_STRICT_H
#define SRT_JSON_STRICT_H

#include <stddef.h>

#define JSON_STRICT_MAX_DEPTH 256 /* far below cJSON's own limit (1000) */

/* 0 for a well-formed document, or -1 with *errpos the byte offset of the fault and err
 * its message. */
int json_check(const char *text, size_t len, size_t *errpos, char *err, size_t errlen);

/* What the walk meets, in document order: a container's start, its end, an object's key
 * (before its value), a scalar. */
enum json_strict_event {
	JSON_EV_OBJECT,
	JSON_EV_ARRAY,
	JSON_EV_END,
	JSON_EV_KEY,
	JSON_EV_STRING,
	JSON_EV_NUMBER,
	JSON_EV_LITERAL,
};

/* A consumer of the walk's events. s (n bytes, NUL-terminated) is a key's or a string's
 * value with its escapes decoded (never holding a NUL: \u0000 is refused), a number's or
 * a literal's text as written, "" for the others. 0 goes on; -1 stops the walk with the
 * message put in why (whylen bytes), at the token's offset. */
typedef int (*json_strict_event_fn)(
    void *arg, enum json_strict_event ev, const char *s, size_t n, char *why, size_t whylen);

/* json_check's reading of text, nested at most max_depth levels (at most
 * JSON_STRICT_MAX_DEPTH), handing each event to fn (NULL: none) with arg. */
int json_strict_walk(const char *text, size_t len, size_t max_depth, json_strict_event_fn fn,
    void *arg, size_t *errpos, char *err, size_t errlen);

/* The line and column (in characters, from 1) of byte offset pos of text. */
void json_linecol(const char *text, size_t pos, size_t *line, size_t *col);

#endif
