#include <string.h>

#include "lines.h"

static void
lines_emit(struct lines *l, const struct lines_cbs *cb)
{
	if (!l->skipping)
		cb->on_line(cb->arg, l->line.p + l->line.off, l->line.len);
	buf_reset(&l->line);
	l->skipping = false;
}

void
lines_feed(struct lines *l, size_t max, const char *bytes, size_t len,
    const struct lines_cbs *cb)
{
	const char *nl;
	size_t n;

	while (len > 0) {
		nl = memchr(bytes, '\n', len);
		n = nl != NULL ? (size_t)(nl - bytes) : len;
		if (!l->skipping && l->line.len + n > max) {
			cb->on_long(cb->arg);
			l->skipping = true;
			buf_reset(&l->line);
		}
		if (!l->skipping)
			buf_add(&l->line, bytes, n);
		if (nl == NULL)
			return;
		lines_emit(l, cb);
		bytes += n + 1;
		len -= n + 1;
	}
}

void
lines_finish(struct lines *l, const struct lines_cbs *cb)
{
	lines_emit(l, cb);
}

void
lines_free(struct lines *l)
{
	buf_free(&l->line);
}
