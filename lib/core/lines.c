#include <math.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "lines.h"
#include "log.h"

static void
lines_fault(struct lines *l, size_t *count, const char *what, const char *more)
{
	if (l->malformed + l->oversized == 0)
		snprintf(l->first_fault, sizeof(l->first_fault), "%s%s", what, more);
	(*count)++;
}

void
lines_malformed(struct lines *l, const char *what, const char *more)
{
	lines_fault(l, &l->malformed, what, more);
}

void
lines_init(struct lines *l, size_t max, const char *stream,
    void (*on_line)(struct lines *, const char *, size_t), void (*cb)(void), void *arg)
{
	memset(l, 0, sizeof(*l));
	l->max = max;
	l->stream = stream;
	l->on_line = on_line;
	l->cb = cb;
	l->arg = arg;
}

static void
lines_emit(struct lines *l)
{
	if (!l->skipping && l->line.len > 0)
		l->on_line(l, l->line.p + l->line.off, l->line.len);
	buf_reset(&l->line);
	l->skipping = false;
}

void
lines_feed(struct lines *l, const char *bytes, size_t len)
{
	const char *nl;
	size_t n;

	while (len > 0) {
		nl = memchr(bytes, '\n', len);
		n = nl != NULL ? (size_t)(nl - bytes) : len;
		if (!l->skipping && l->line.len + n > l->max) {
			char why[48];

			snprintf(why, sizeof(why), "a line longer than %zu KiB", l->max >> 10);
			lines_fault(l, &l->oversized, why, "");
			l->skipping = true;
			buf_reset(&l->line);
		}
		if (!l->skipping)
			buf_add(&l->line, bytes, n);
		if (nl == NULL)
			return;
		lines_emit(l);
		bytes += n + 1;
		len -= n + 1;
	}
}

void
lines_finish(struct lines *l)
{
	lines_emit(l);
	if (l->malformed + l->oversized == 0)
		return;
	log_warnx("%s had %zu malformed and %zu over-long line%s, ignored (the first: %s)",
	    l->stream, l->malformed, l->oversized, l->malformed + l->oversized == 1 ? "" : "s",
	    l->first_fault);
	l->malformed = l->oversized = 0;
}

void
lines_free(struct lines *l)
{
	buf_free(&l->line);
}

const char *
lines_get_uint(const cJSON *o, const char *key, double max, uint64_t *out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);
	double v;

	if (!cJSON_IsNumber(j))
		return key;
	v = j->valuedouble;
	if (!isfinite(v) || v < 0 || v > max || v != floor(v))
		return key;
	*out = (uint64_t)v;
	return NULL;
}
