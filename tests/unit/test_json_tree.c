/*
 * The JSON tree reader (lib/core/json_tree.c) on json_strict.c's walk: the values it
 * keeps, what it refuses beyond json_check (a repeated key, deep nesting, a number no
 * double holds), and the same message as json_check for every other fault.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "json_tree.h"
#include "tap.h"

/* Refused by both readers with the same message at the same byte. */
static int
same_refusal(const char *text)
{
	char cerr[200], terr[240], want[240];
	size_t pos;
	struct json_value *v;

	if (json_check(text, strlen(text), &pos, cerr, sizeof(cerr)) == 0)
		return 0;
	snprintf(want, sizeof(want), "%s at byte %zu", cerr, pos);
	if ((v = json_tree_parse(text, strlen(text), terr, sizeof(terr))) != NULL) {
		json_tree_free(v);
		return 0;
	}
	if (strcmp(terr, want) != 0)
		printf("# tree: %s\n# check: %s\n", terr, want);
	return strcmp(terr, want) == 0;
}

/* Refused by the tree reader alone, with a message holding why. */
static int
tree_refuses(const char *text, const char *why)
{
	char err[240];
	size_t pos;
	struct json_value *v;

	if (json_check(text, strlen(text), &pos, err, sizeof(err)) != 0)
		return 0;
	if ((v = json_tree_parse(text, strlen(text), err, sizeof(err))) != NULL) {
		json_tree_free(v);
		return 0;
	}
	if (strstr(err, why) == NULL)
		printf("# %s\n", err);
	return strstr(err, why) != NULL;
}

static char *
nested(int levels)
{
	char *s = malloc((size_t)levels * 2 + 1);

	for (int i = 0; i < levels; i++) {
		s[i] = '[';
		s[levels * 2 - 1 - i] = ']';
	}
	s[levels * 2] = '\0';
	return s;
}

static void
test_values(void)
{
	const char *text = " {\"s\": \"a\\\"\\u00e9\\ud83d\\ude00\\n\", \"n\": -2.5e1, "
			   "\"l\": [true, false, null, {}], \"o\": {\"k\": []}}\r\n";
	const struct json_value *s, *n, *l, *o, *e;
	struct json_value *v;
	char err[200];

	v = json_tree_parse(text, strlen(text), err, sizeof(err));
	ok(v != NULL && v->type == JSON_OBJECT && err[0] == '\0', "a document parses (%s)",
	    err);
	s = json_tree_get(v, "s");
	ok(s != NULL && s->type == JSON_STRING &&
		strcmp(s->str, "a\"\xc3\xa9\xf0\x9f\x98\x80\n") == 0,
	    "a string's escapes and a surrogate pair are decoded");
	n = json_tree_get(v, "n");
	ok(n != NULL && n->type == JSON_NUMBER && n->num == -25.0, "a number");
	l = json_tree_get(v, "l");
	e = l != NULL ? l->child : NULL;
	ok(l != NULL && l->type == JSON_ARRAY && e != NULL && e->type == JSON_TRUE &&
		e->next->type == JSON_FALSE && e->next->next->type == JSON_NULL &&
		e->next->next->next->type == JSON_OBJECT &&
		e->next->next->next->child == NULL && e->next->next->next->next == NULL,
	    "an array's elements in order");
	o = json_tree_get(v, "o");
	ok(o != NULL && json_tree_get(o, "k") != NULL &&
		json_tree_get(o, "k")->type == JSON_ARRAY && json_tree_get(v, "k") == NULL &&
		json_tree_get(l, "s") == NULL,
	    "members are found in their own object only");
	json_tree_free(v);
	v = json_tree_parse("\"x\"", 3, err, sizeof(err));
	ok(v != NULL && v->type == JSON_STRING && strcmp(v->str, "x") == 0,
	    "a scalar document");
	json_tree_free(v);
}

static void
test_refusals(void)
{
	static const char *const both[] = {
		"",
		"   ",
		"{",
		"[1,]",
		"{\"a\":1,}",
		"{\"a\" 1}",
		"{\"a\":1 \"b\":2}",
		"[1 2]",
		"\"abc",
		"01",
		"1.",
		"-",
		"+1",
		"\"x\ty\"",
		"\"\\q\"",
		"\"\\u0000\"",
		"\"\\ud800\"",
		"\"\\udc00\"",
		"\"\xff\"",
		"\"\xc0\xaf\"",
		"\xef\xbb\xbf{}",
		"{'a':1}",
		"{} // x",
		"{}}",
		"tru",
		"True",
		"nul",
		"[1]x",
		"{1:2}",
		"\x01",
		"1234567890123456789012345678901234567890123456789012345678901234",
	};
	char err[200], *deep;
	struct json_value *v;

	for (size_t i = 0; i < sizeof(both) / sizeof(both[0]); i++)
		ok(same_refusal(both[i]), "refused as json_check refuses it: %zu", i);
	ok(tree_refuses("{\"a\":1,\"b\":2,\"a\":3}", "duplicate key \"a\" at byte 13"),
	    "a repeated key is refused at its second occurrence");
	v = json_tree_parse("[{\"a\":1},{\"a\":1}]", 17, err, sizeof(err));
	ok(v != NULL, "one key in two objects is no repeat");
	json_tree_free(v);
	ok(tree_refuses("[1e999]", "number 1e999 is too large"), "a number no double holds");
	deep = nested(JSON_TREE_MAX_DEPTH);
	v = json_tree_parse(deep, strlen(deep), err, sizeof(err));
	ok(v != NULL, "%d levels are read", JSON_TREE_MAX_DEPTH);
	json_tree_free(v);
	free(deep);
	deep = nested(JSON_TREE_MAX_DEPTH + 1);
	ok(tree_refuses(deep, "nested more than 32 levels deep at byte 32"),
	    "%d levels are refused", JSON_TREE_MAX_DEPTH + 1);
	free(deep);
	v = json_tree_parse("{\"a\":[1,{\"b\":\"c\"", 16, err, sizeof(err));
	ok(v == NULL && strstr(err, "at byte 16") != NULL,
	    "a document cut short frees "
	    "what was read (%s)",
	    err);
}

int
main(void)
{
	test_values();
	test_refusals();
	return tap_done();
}
