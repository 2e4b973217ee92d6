/* The decision record (decision.h): its reader, on cJSON (srt reads the proxies' log). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "decision.h"
#include "log.h"
#include "util.h"

static int
verdict_parse(const char *s, enum verdict *v)
{
	for (unsigned i = VERDICT_ALLOW; i <= VERDICT_ERROR; i++)
		if (strcmp(s, verdict_name((enum verdict)i)) == 0) {
			*v = (enum verdict)i;
			return 0;
		}
	return -1;
}


static const char *
get_str(const cJSON *o, const char *key, bool nullable, const char **out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (cJSON_IsString(j)) {
		*out = j->valuestring;
		return NULL;
	}
	if (nullable && cJSON_IsNull(j)) {
		*out = NULL;
		return NULL;
	}
	return key;
}

/* lines_get_uint's number, or with nullable null (*null set). */
static const char *
get_num(const cJSON *o, const char *key, double max, bool nullable, uint64_t *out, bool *null)
{
	if (null != NULL)
		*null = false;
	if (nullable && cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(o, key))) {
		*null = true;
		return NULL;
	}
	return lines_get_uint(o, key, max, out);
}

/* The fields of one record; NULL, or the name of the first field that is missing or of
 * the wrong type. */
static const char *
decision_read(const cJSON *o, struct decision *d)
{
	const char *bad = NULL, *t = NULL, *v = NULL;
	uint64_t port = 0, status = 0;
	bool null = false;

	memset(d, 0, sizeof(*d));
	if (!cJSON_IsObject(o))
		return "the object";
	if ((bad = get_str(o, "time", false, &t)) != NULL ||
	    (bad = get_str(o, "protocol", false, &d->protocol)) != NULL ||
	    (bad = get_str(o, "client", false, &d->client)) != NULL ||
	    (bad = get_str(o, "host", false, &d->host)) != NULL ||
	    (bad = get_num(o, "port", 65535, false, &port, NULL)) != NULL ||
	    (bad = get_str(o, "verdict", false, &v)) != NULL ||
	    (bad = get_str(o, "rule", true, &d->rule)) != NULL ||
	    (bad = get_str(o, "reason", true, &d->reason)) != NULL ||
	    (bad = get_str(o, "route", true, &d->route)) != NULL ||
	    (cJSON_GetObjectItemCaseSensitive(o, "request") != NULL &&
		(bad = get_str(o, "request", true, &d->request)) != NULL) ||
	    (bad = get_num(o, "status", 65535, true, &status, &null)) != NULL ||
	    (bad = get_num(o, "bytes_up", 9007199254740992.0, false, &d->bytes_up, NULL)) !=
		NULL ||
	    (bad = get_num(o, "bytes_down", 9007199254740992.0, false, &d->bytes_down, NULL)) !=
		NULL ||
	    (bad = get_num(
		 o, "duration_ms", 9007199254740992.0, false, &d->duration_ms, NULL)) != NULL)
		return bad;
	if (verdict_parse(v, &d->verdict) != 0)
		return "verdict";
	if (!util_time_ok(t))
		return "time";
	snprintf(d->time, sizeof(d->time), "%s", t);
	d->port = (unsigned)port;
	d->status = null ? -1 : (int)status;
	return NULL;
}

/* A line of the log: its record to the caller, or why it is none. */
static void
decision_line(struct lines *l, const char *p, size_t n)
{
	struct decision d;
	const char *bad;
	cJSON *o;

	o = cJSON_ParseWithLength(p, n);
	if (o == NULL)
		lines_malformed(l, "not JSON", "");
	else if ((bad = decision_read(o, &d)) != NULL)
		lines_malformed(l, bad, " missing or of the wrong type");
	else
		((decision_cb)l->cb)(l->arg, &d);
	cJSON_Delete(o);
}

void
decision_reader_init(struct lines *r, decision_cb cb, void *arg)
{
	lines_init(r, DECISION_LINE_MAX, "the proxies' decision log", decision_line,
	    (void (*)(void))cb, arg);
}
