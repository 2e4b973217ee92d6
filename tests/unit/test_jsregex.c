/*
 * jsregex_check against node: tests/data/jsregex.jsonl holds patterns with the verdict
 * and group count of `new RegExp(p)` in the Node the reference runs on
 * (tests/data/gen-jsregex.mjs), hand-picked edge cases and random ones.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "jsregex.h"
#include "tap.h"
#include "util.h"

static void
test_vectors(void)
{
	const char *dir = getenv("SRT_DATA") ? getenv("SRT_DATA") : "tests/data";
	char *path = xasprintf("%s/jsregex.jsonl", dir), *line = NULL;
	size_t cap = 0, n = 0, bad = 0, invalid = 0;
	FILE *f = fopen(path, "r");
	const char *why;
	int groups, rc;

	ok(f != NULL, "%s opens (%s)", path, f ? "ok" : strerror(errno));
	free(path);
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		cJSON *j = cJSON_Parse(line);
		const cJSON *p = cJSON_GetObjectItemCaseSensitive(j, "pattern");
		const cJSON *e = cJSON_GetObjectItemCaseSensitive(j, "expect");
		const cJSON *g = cJSON_GetObjectItemCaseSensitive(j, "groups");
		int want_valid;

		n++;
		if (!cJSON_IsString(p) || !cJSON_IsString(e) || !cJSON_IsNumber(g)) {
			ok(0, "jsregex line %zu is a vector", n);
			cJSON_Delete(j);
			continue;
		}
		want_valid = strcmp(e->valuestring, "valid") == 0;
		invalid += !want_valid;
		rc = jsregex_check(p->valuestring, strlen(p->valuestring), &groups, &why);
		if ((rc == 0) != want_valid || (rc == 0 && groups != g->valueint)) {
			bad++;
			ok(0, "/%s/: node says %s (%d groups), srt %s (%d groups%s%s)",
			    p->valuestring, e->valuestring, g->valueint,
			    rc == 0 ? "valid" : "invalid", rc == 0 ? groups : 0,
			    why ? ": " : "", why ? why : "");
		}
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	ok(bad == 0, "srt agrees with node on all %zu patterns (%zu invalid)", n, invalid);
	ok(n > 1000 && invalid > 100, "the vectors hold many of both kinds");
}

static void
test_messages(void)
{
	const char *why;
	int groups;

	ok(jsregex_check("a(", 2, &groups, &why) == -1 &&
		strcmp(why, "Unterminated group") == 0,
	    "an open group is named");
	ok(jsregex_check("x{3,2}", 6, &groups, &why) == -1 &&
		strstr(why, "out of order") != NULL,
	    "backwards bounds are named");
	ok(jsregex_check("token:\\s*(\\S+)", 14, &groups, &why) == 0 && groups == 1,
	    "the reference's own example has one group");
	ok(jsregex_check("(?<a>x)(b)", 10, &groups, &why) == 0 && groups == 2,
	    "named groups count");
}

int
main(void)
{
	test_vectors();
	test_messages();
	return tap_done();
}
