/*
 * The reader of the sandbox's violation records (lib/core/violation.h) on arbitrary bytes:
 * srt-launch reads them from inside the sandbox, so they are untrusted. Whatever the
 * bytes, the reader must not crash; every record it accepts must give a line, and
 * written again by the writer, must fit one pipe write and read back as the same.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "violation.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(void *arg, const struct violation *v)
{
	struct buf b = { 0 };
	struct violation w;
	void *tree;
	const char *bad;
	char *line;

	(void)arg;
	line = violation_line(v);
	free(line);
	violation_format(&b, v);
	if (b.len > VIOL_RECORD_MAX || b.len == 0 || b.p[b.off + b.len - 1] != '\n')
		abort();
	if (violation_parse(b.p + b.off, b.len - 1, &w, &tree, &bad) == -1 ||
	    w.kind != v->kind ||
	    (v->kind == VK_CONNECT && (w.port != v->port || strcmp(w.addr, v->addr) != 0)) ||
	    (v->kind == VK_LEFT_OUT && w.count != v->count))
		abort();
	cJSON_Delete(tree);
	buf_free(&b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct lines r;

	violation_reader_init(&r, check, NULL);
	/* In two pieces, as a pipe may deliver them. */
	lines_feed(&r, (const char *)data, size / 2);
	lines_feed(&r, (const char *)data + size / 2, size - size / 2);
	lines_feed(&r, "\n", 1);       /* the last line, unfinished */
	r.malformed = r.oversized = 0; /* finish would warn on stderr */
	lines_finish(&r);
	lines_free(&r);
	return 0;
}
