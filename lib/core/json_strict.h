/*
 * A strict check of JSON text (RFC 8259), run before cJSON builds a tree of it, as the
 * reference's JSON.parse would judge the text: cJSON's leniencies (leading zeros, raw
 * control characters, a byte order mark, any byte below 0x21 as white space, a trailing
 * comma) never let through a document the reference rejects. It also refuses what
 * cJSON would read differently: numbers longer than cJSON reads (63 characters), the
 * escape \u0000, nesting deeper than 256. Every refusal names what is wrong and what
 * would be right.
 */
#ifndef SRT_JSON_STRICT_H
#define SRT_JSON_STRICT_H

#include <stddef.h>

/* 0 for a well-formed document, or -1 with *errpos the byte offset of the fault and err
 * its message. */
int json_check(const char *text, size_t len, size_t *errpos, char *err, size_t errlen);

/* The line and column (in characters, from 1) of byte offset pos of text. */
void json_linecol(const char *text, size_t pos, size_t *line, size_t *col);

#endif
