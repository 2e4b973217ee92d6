/*
 * libFuzzer target for the decision-log reader (the launcher's side of decision.h): any
 * bytes, fed in pieces as a pipe delivers them, give records or counted bad lines, never
 * a crash; every record read is written again by the codec and read back the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "decision.h"
#include "log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct again {
	int n;
	struct decision want;
};

static void
check(void *arg, const struct decision *d)
{
	struct again *a = arg;

	a->n++;
	if (d->port != a->want.port || d->verdict != a->want.verdict ||
	    d->status != a->want.status || d->bytes_up != a->want.bytes_up ||
	    strcmp(d->time, a->want.time) != 0)
		abort();
}

static void
record(void *arg, const struct decision *d)
{
	struct lines r;
	struct again a = { 0, *d };
	struct buf b = { 0 };

	(void)arg;
	decision_format(&b, d);
	decision_reader_init(&r, check, &a);
	lines_feed(&r, b.p, b.len);
	if (a.n != 1 || r.malformed != 0 || r.oversized != 0)
		abort();
	lines_free(&r);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines r;
	size_t off = 0, piece;

	log_init("fuzz_decision", 0, 1);
	decision_reader_init(&r, record, NULL);
	while (off < size) {
		piece = 1 + (off * 2654435761u >> 7) % 64;
		if (piece > size - off)
			piece = size - off;
		lines_feed(&r, (const char *)data + off, piece);
		off += piece;
	}
	r.malformed = r.oversized = 0; /* no warning on every input */
	lines_finish(&r);
	lines_free(&r);
	return 0;
}
