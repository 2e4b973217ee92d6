/*
 * A JSON document as a tree, for what srt reads without cJSON: srt-win's plan on stdin and
 * its own records (srt-win links no cJSON: its Debian package is built without cJSON's
 * source). Read by json_strict.c's walk, so it takes exactly what json_check takes, and
 * less: nesting is bounded tighter, a key repeated in one object is refused (a plan must
 * not be ambiguous), and a number must be finite as a double. Strings are UTF-8 and hold
 * no NUL (a Windows name cannot).
 */
#ifndef SRT_JSON_TREE_H
#define SRT_JSON_TREE_H

#include <stddef.h>

#define JSON_TREE_MAX_DEPTH 32

enum json_type {
	JSON_NULL,
	JSON_FALSE,
	JSON_TRUE,
	JSON_NUMBER,
	JSON_STRING,
	JSON_ARRAY,
	JSON_OBJECT,
};

struct json_value {
	enum json_type type;
	double num;                      /* JSON_NUMBER */
	char *str;                       /* JSON_STRING */
	char *key;                       /* an object's member: its key */
	struct json_value *child, *next; /* JSON_ARRAY, JSON_OBJECT: in order */
};

/* One JSON text (RFC 8259); NULL with a message ending in " at byte N" in err. */
struct json_value *json_tree_parse(const char *text, size_t len, char *err, size_t errlen);
void json_tree_free(struct json_value *v);
/* The member key of obj, NULL when obj is not an object or has none. */
const struct json_value *json_tree_get(const struct json_value *obj, const char *key);

#endif
