/*
 * The reader of the sandbox's violation records (violation.h). The writer runs inside the
 * sandbox: every field is checked here, and the line shown is built from the fields.
 */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "log.h"
#include "sys.h" /* inet_pton */
#include "util.h"
#include "violation.h"

#define OP_MAX 32
/* What the writer shows, decoded: \ufffd, for a byte that is not UTF-8, is three. */
#define REASON_MAX (3 * VIOL_REASON_SHOWN)
#define PATH_READ_MAX (3 * VIOL_PATH_SHOWN)

static const char *
get_str(const cJSON *o, const char *key, size_t max, const char **out)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	if (!cJSON_IsString(j) || j->valuestring == NULL || strlen(j->valuestring) > max)
		return key;
	*out = j->valuestring;
	return NULL;
}

/* A word: lower-case letters, digits and '-', 1 to OP_MAX of them. */
static const char *
get_word(const cJSON *o, const char *key, const char **out)
{
	const char *s, *bad;

	if ((bad = get_str(o, key, OP_MAX, out)) != NULL)
		return bad;
	s = *out;
	if (*s == '\0')
		return key;
	for (; *s != '\0'; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return key;
	return NULL;
}

static const char *
violation_read(const cJSON *o, struct violation *v)
{
	const char *bad, *t = NULL, *k = NULL, *line = NULL;
	const cJSON *j;
	unsigned char a[16];
	uint64_t n = 0;
	int i;

	memset(v, 0, sizeof(*v));
	if (!cJSON_IsObject(o))
		return "the object";
	if ((bad = get_str(o, "time", VIOL_TIME_MAX - 1, &t)) != NULL)
		return bad;
	if (!util_time_ok(t))
		return "time";
	snprintf(v->time, sizeof(v->time), "%s", t);
	if ((bad = get_str(o, "kind", OP_MAX, &k)) != NULL)
		return bad;
	if ((i = util_enum_value(violation_kind_names, VK_MAX, k)) == -1)
		return "kind";
	v->kind = (enum viol_kind)i;
	if ((bad = get_str(o, "violation", SIZE_MAX, &line)) != NULL)
		return bad;
	switch (v->kind) {
	case VK_FILE_WRITE:
	case VK_FILE_READ:
		if ((bad = get_word(o, "operation", &v->op)) != NULL ||
		    (bad = get_str(o, "path", PATH_READ_MAX, &v->path)) != NULL ||
		    (bad = get_str(o, "reason", REASON_MAX, &v->reason)) != NULL)
			return bad;
		if (v->path[0] != '/')
			return "path";
		if (v->reason[0] == '\0')
			return "reason";
		j = cJSON_GetObjectItemCaseSensitive(o, "path_cut");
		if (j != NULL && !cJSON_IsBool(j))
			return "path_cut";
		v->path_cut = cJSON_IsTrue(j);
		break;
	case VK_CONNECT:
		if ((bad = get_word(o, "operation", &v->op)) != NULL ||
		    (bad = get_word(o, "protocol", &v->proto)) != NULL ||
		    (bad = get_str(o, "address", INET6_ADDRSTRLEN, &v->addr)) != NULL ||
		    (bad = lines_get_uint(o, "port", 65535, &n)) != NULL)
			return bad;
		if (inet_pton(strchr(v->addr, ':') != NULL ? AF_INET6 : AF_INET, v->addr, a) !=
		    1)
			return "address";
		v->port = (unsigned)n;
		break;
	default:
		if ((bad = lines_get_uint(o, "count", 9007199254740992.0, &v->count)) != NULL)
			return bad;
		break;
	}
	return NULL;
}

int
violation_parse(
    const char *line, size_t len, struct violation *v, void **tree, const char **bad)
{
	cJSON *o = cJSON_ParseWithLength(line, len);

	*tree = NULL;
	if (o == NULL) {
		*bad = "not JSON";
		return -1;
	}
	if ((*bad = violation_read(o, v)) != NULL) {
		cJSON_Delete(o);
		return -1;
	}
	*tree = o;
	return 0;
}

/* A line of the records: its record to the caller, or why it is none. */
static void
violation_record_line(struct lines *l, const char *p, size_t n)
{
	struct violation v;
	const char *bad;
	void *tree;

	if (violation_parse(p, n, &v, &tree, &bad) == -1)
		lines_malformed(
		    l, bad, strcmp(bad, "not JSON") == 0 ? "" : " missing or wrong");
	else {
		((violation_cb)l->cb)(l->arg, &v);
		cJSON_Delete(tree);
	}
}

void
violation_reader_init(struct lines *r, violation_cb cb, void *arg)
{
	lines_init(r, VIOL_RECORD_MAX, "the sandbox's violation records", violation_record_line,
	    (void (*)(void))cb, arg);
}
