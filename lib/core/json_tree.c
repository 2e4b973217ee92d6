/*
 * JSON documents as trees (json_tree.h), built from the events of json_strict.c's walk:
 * the walk judges the text, this file only keeps what it met.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "json_tree.h"
#include "util.h"

struct build {
	struct json_value *root;
	struct json_value *open[JSON_TREE_MAX_DEPTH];  /* the containers being read */
	struct json_value **tail[JSON_TREE_MAX_DEPTH]; /* where each one's next member goes */
	size_t depth;
	char *key; /* the key of the next member */
};

/* A scalar's node from the walk's text. */
static int
node_fill(
    struct json_value *v, enum json_strict_event ev, const char *s, char *why, size_t whylen)
{
	switch (ev) {
	case JSON_EV_STRING:
		v->type = JSON_STRING;
		v->str = xstrdup(s);
		return 0;
	case JSON_EV_NUMBER:
		/* The walk has checked the syntax and the length (at most 63). */
		v->type = JSON_NUMBER;
		v->num = strtod(s, NULL);
		if (isfinite(v->num))
			return 0;
		snprintf(why, whylen, "number %.40s is too large", s);
		return -1;
	case JSON_EV_LITERAL:
		v->type = s[0] == 't' ? JSON_TRUE : s[0] == 'f' ? JSON_FALSE : JSON_NULL;
		return 0;
	case JSON_EV_OBJECT:
		v->type = JSON_OBJECT;
		return 0;
	default:
		v->type = JSON_ARRAY;
		return 0;
	}
}

static int
build_event(
    void *arg, enum json_strict_event ev, const char *s, size_t n, char *why, size_t whylen)
{
	struct build *b = arg;
	struct json_value *v;

	(void)n;
	if (ev == JSON_EV_END) {
		b->depth--;
		return 0;
	}
	if (ev == JSON_EV_KEY) {
		if (json_tree_get(b->open[b->depth - 1], s) != NULL) {
			snprintf(why, whylen, "duplicate key \"%.40s\"", s);
			return -1;
		}
		b->key = xstrdup(s);
		return 0;
	}
	/* Linked in first, so that the root frees it whatever comes next. */
	v = xcalloc(1, sizeof(*v));
	if (b->depth == 0)
		b->root = v;
	else {
		*b->tail[b->depth - 1] = v;
		b->tail[b->depth - 1] = &v->next;
		v->key = b->key;
		b->key = NULL;
	}
	if (node_fill(v, ev, s, why, whylen) != 0)
		return -1;
	if (ev == JSON_EV_OBJECT || ev == JSON_EV_ARRAY) {
		b->open[b->depth] = v;
		b->tail[b->depth++] = &v->child;
	}
	return 0;
}

struct json_value *
json_tree_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct build b;
	char why[200];
	size_t pos;

	memset(&b, 0, sizeof(b));
	if (errlen > 0)
		err[0] = '\0';
	if (json_strict_walk(
		text, len, JSON_TREE_MAX_DEPTH, build_event, &b, &pos, why, sizeof(why)) == 0)
		return b.root;
	snprintf(err, errlen, "%s at byte %zu", why, pos);
	free(b.key);
	json_tree_free(b.root);
	return NULL;
}

void
json_tree_free(struct json_value *v)
{
	struct json_value *next;

	for (; v != NULL; v = next) {
		next = v->next;
		json_tree_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
	}
}

const struct json_value *
json_tree_get(const struct json_value *obj, const char *key)
{
	if (obj == NULL || obj->type != JSON_OBJECT)
		return NULL;
	for (const struct json_value *m = obj->child; m != NULL; m = m->next)
		if (m->key != NULL && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}
