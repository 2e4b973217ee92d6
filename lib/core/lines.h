/*
 * Newline-separated records read from an untrusted stream in pieces of any size: the one
 * reader behind the decision log's (decision_read.c) and the sandbox's violation records
 * (violation_read.c). A line longer than the reader's maximum is reported once
 * and skipped to its newline; nothing past the maximum is ever held.
 */
#ifndef SRT_LINES_H
#define SRT_LINES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/*
 * The reader of one stream, made for its record type by decision_reader_init or
 * violation_reader_init: bytes in as they arrive (lines_feed), each complete line to the
 * type's on_line, which hands a well-formed record to the caller's callback (its strings
 * valid during the call) or says what the line lacks (lines_malformed). Such a line, or
 * one longer than max, is counted and skipped; lines_finish warns once about them, with
 * the first one's fault, instead of dropping them silently.
 */
struct lines {
	struct buf line;             /* the line being read */
	bool skipping;               /* inside an over-long line */
	size_t malformed, oversized; /* lines refused: lines_malformed's, too long */
	char first_fault[80];        /* why the first refused line was */
	size_t max;                  /* the longest line that may be a record */
	const char *stream;          /* what the warning calls the stream */
	/* a complete line (without its newline), not empty */
	void (*on_line)(struct lines *l, const char *p, size_t n);
	void (*cb)(void); /* the caller's callback, of the record type's type */
	void *arg;        /* its argument */
};

void lines_init(struct lines *l, size_t max, const char *stream,
    void (*on_line)(struct lines *, const char *, size_t), void (*cb)(void), void *arg);
void lines_feed(struct lines *l, const char *bytes, size_t len);
/* on_line refused a line: what (then more) it lacked, kept if it is the first. */
void lines_malformed(struct lines *l, const char *what, const char *more);
/* The end of the stream: a last line without its newline counts too. Then the one warning
 * about refused lines, if any ("PROG: <stream> had N malformed and M over-long lines,
 * ignored (the first: why)" on stderr), and the counts start again. */
void lines_finish(struct lines *l);
void lines_free(struct lines *l);

/* The records are JSON objects (cJSON's): o's member key is a whole number from 0 to max
 * (JSON numbers are doubles: exact up to 2^53). NULL, or key when it is missing or not one. */
struct cJSON;
const char *lines_get_uint(const struct cJSON *o, const char *key, double max, uint64_t *out);

#endif
