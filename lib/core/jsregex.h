/*
 * The syntax of a JavaScript regular expression without flags, as the reference's
 * `new RegExp(text)` reads it (ECMAScript with Annex B, as V8 in Node 20 has it): what
 * credentials.*.extract holds. Only the syntax: srt does not run these expressions.
 */
#ifndef SRT_JSREGEX_H
#define SRT_JSREGEX_H

#include <stddef.h>

/*
 * 0 when text (UTF-8, len bytes) is a valid pattern, with *groups its number of capturing
 * groups (named ones included); -1 with *why a static message saying what is wrong.
 */
int jsregex_check(const char *text, size_t len, int *groups, const char **why);

#endif
