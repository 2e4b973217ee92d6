/* The decision record (decision.h): its writer (the reader, on cJSON, is decision_read.c). */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "decision.h"
#include "log.h"
#include "util.h"

/* VERDICT_NONE, not decided yet, has no name of its own: it is recorded as "deny". */
static const char *const verdict_names[] = {
	[VERDICT_ALLOW] = "allow",
	[VERDICT_DENY] = "deny",
	[VERDICT_AUDIT_DENY] = "audit-deny",
	[VERDICT_ERROR] = "error",
};

const char *
verdict_name(enum verdict v)
{
	return util_enum_name(
	    verdict_names, sizeof(verdict_names) / sizeof(verdict_names[0]), v, "deny");
}

static void
put_str(struct buf *b, const char *key, const char *v)
{
	buf_addf(b, ",\"%s\":", key);
	buf_add_jstr(b, v, v != NULL ? strlen(v) : 0);
}

void
decision_format_members(struct buf *b, const struct decision *d)
{
	buf_adds(b, "\"time\":");
	buf_add_jstr(b, d->time, strlen(d->time));
	put_str(b, "protocol", d->protocol);
	put_str(b, "client", d->client);
	put_str(b, "host", d->host);
	buf_addf(b, ",\"port\":%u", d->port);
	put_str(b, "verdict", verdict_name(d->verdict));
	put_str(b, "rule", d->rule);
	put_str(b, "reason", d->reason);
	put_str(b, "route", d->route);
	if (d->request != NULL)
		put_str(b, "request", d->request);
	if (d->status >= 0)
		buf_addf(b, ",\"status\":%d", d->status);
	else
		buf_adds(b, ",\"status\":null");
	buf_addf(b, ",\"bytes_up\":%llu,\"bytes_down\":%llu,\"duration_ms\":%llu",
	    (unsigned long long)d->bytes_up, (unsigned long long)d->bytes_down,
	    (unsigned long long)d->duration_ms);
}

void
decision_format(struct buf *b, const struct decision *d)
{
	buf_addc(b, '{');
	decision_format_members(b, d);
	buf_adds(b, "}\n");
}
