/*
 * Newline-separated records read from an untrusted stream in pieces of any size: the one
 * splitter behind the decision log's reader (decision.c) and the sandbox's violation
 * records (violation_read.c). A line longer than the reader's maximum is reported once
 * and skipped to its newline; nothing past the maximum is ever held.
 */
#ifndef SRT_LINES_H
#define SRT_LINES_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

struct lines {
	struct buf line;                /* the line being read */
	bool skipping;                  /* inside an over-long line */
	size_t malformed, oversized;    /* lines refused: lines_malformed's, too long */
	char first_fault[80];           /* why the first refused line was */
};

/* on_line: a complete line is in l->line (without its newline; emptied afterwards). A line
 * past max is counted in oversized and skipped. */
struct lines_cbs {
	void (*on_line)(void *arg, const char *p, size_t n);
	void *arg;
};

void lines_feed(struct lines *l, size_t max, const char *bytes, size_t len,
    const struct lines_cbs *cb);
/* The reader refused a line: what (then more) it lacked, kept if it is the first. */
void lines_malformed(struct lines *l, const char *what, const char *more);
/* The end of the stream: a last line without its newline counts too. Then the one warning
 * about refused lines, if any ("<stream> had N malformed and M over-long lines, ignored
 * (the first: why)"), and the counts start again. */
void lines_finish(struct lines *l, const char *stream, const struct lines_cbs *cb);
void lines_free(struct lines *l);

#endif
