/*
 * libFuzzer target for the core's JSON readers, which share one walk (json_strict.c):
 * the tree reader (json_tree.c) takes a text only if json_check takes it, refuses it with
 * json_check's own message wherever json_check refuses it, and refuses a text json_check
 * takes only for what it alone refuses (a repeated key, deeper nesting, a number too
 * large for a double), which it may meet before json_check's fault.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "json_tree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t
tree_size(const struct json_value *v)
{
	size_t n = 0;

	for (; v != NULL; v = v->next)
		n += 1 + tree_size(v->child) + (v->str != NULL ? strlen(v->str) : 0);
	return n;
}

/* One of the faults the tree reader alone finds. */
static int
tree_only(const char *err)
{
	return strstr(err, "duplicate key") != NULL ||
	    strstr(err, "nested more than") != NULL || strstr(err, "is too large") != NULL;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	char cerr[200], terr[240], want[240];
	struct json_value *v;
	size_t pos;
	int checked = json_check(text, size, &pos, cerr, sizeof(cerr)) == 0;

	v = json_tree_parse(text, size, terr, sizeof(terr));
	if (v != NULL) {
		if (!checked || terr[0] != '\0' || tree_size(v) == 0)
			abort();
		json_tree_free(v);
		return 0;
	}
	if (tree_only(terr)) {
		const char *at = NULL;

		/* The last one: a repeated key's own text may hold the words. */
		for (const char *p = terr; (p = strstr(p, " at byte ")) != NULL; p++)
			at = p;
		if (at == NULL || (!checked && strtoull(at + 9, NULL, 10) > pos))
			abort();
		return 0;
	}
	snprintf(want, sizeof(want), "%s at byte %zu", cerr, pos);
	if (checked || strcmp(terr, want) != 0)
		abort();
	return 0;
}
