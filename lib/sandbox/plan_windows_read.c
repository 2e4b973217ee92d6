/*
 * The Windows plan read back (plan_ace.h): the lines plan_windows.c writes, which srt-win
 * takes on stdin or from a file and applies. One owner of the format: the keys and the
 * rights' names are plan_ace.h's, which the writer uses too. The text comes from another
 * program, so every field is checked (fuzz_winplan).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_tree.h"
#include "plan_ace.h"
#include "util.h"

char *
plan_windows_read_path(
    const char *s, const struct plan_read_paths *paths, char *why, size_t whylen)
{
	char *c;

	/* Globs are expanded by srt-policy: none may slip through as a name. */
	if (strpbrk(s, "*?<>|\"") != NULL) {
		snprintf(why, whylen,
		    "a path cannot hold * ? < > | or \" (globs are "
		    "expanded by srt-policy)");
		return NULL;
	}
	if ((c = paths->clean(s)) == NULL)
		snprintf(why, whylen, "not an absolute, normalised path (no \".\" or \"..\")");
	return c;
}

static int
known_key(const char *k)
{
	return strcmp(k, PLAN_KEY_ACE) == 0 || strcmp(k, PLAN_KEY_PATH) == 0 ||
	    strcmp(k, PLAN_KEY_RIGHTS) == 0 || strcmp(k, PLAN_KEY_INHERIT) == 0;
}

/* The rights an entry names, each once; 0 with why if any is unknown or repeated. */
static unsigned
read_rights(const struct json_value *rs, char *why, size_t whylen)
{
	unsigned r = 0;
	size_t i;

	if (rs == NULL || rs->type != JSON_ARRAY || rs->child == NULL) {
		snprintf(why, whylen, "\"%s\" must be a non-empty array", PLAN_KEY_RIGHTS);
		return 0;
	}
	for (const struct json_value *e = rs->child; e != NULL; e = e->next) {
		for (i = 0; i < PLAN_NRIGHTS; i++)
			if (e->type == JSON_STRING &&
			    strcmp(e->str, plan_ace_right_names[i]) == 0)
				break;
		if (i == PLAN_NRIGHTS || (r & (1u << i))) {
			snprintf(why, whylen,
			    "\"%s\" holds an unknown or repeated right "
			    "(read, execute, write, modify, delete_child, delete)",
			    PLAN_KEY_RIGHTS);
			return 0;
		}
		r |= 1u << i;
	}
	return r;
}

static int
read_entry(const struct json_value *o, const struct plan_read_paths *paths,
    struct plan_windows *out, char *why, size_t whylen)
{
	const struct json_value *ace = json_tree_get(o, PLAN_KEY_ACE);
	const struct json_value *path = json_tree_get(o, PLAN_KEY_PATH);
	const struct json_value *inh = json_tree_get(o, PLAN_KEY_INHERIT);
	unsigned r;
	int deny;
	char *p;

	for (const struct json_value *e = o->child; e != NULL; e = e->next)
		if (!known_key(e->key)) {
			snprintf(why, whylen, "unknown key \"%.40s\"", e->key);
			return -1;
		}
	if (ace == NULL || ace->type != JSON_STRING ||
	    (strcmp(ace->str, PLAN_ACE_ALLOW) != 0 && strcmp(ace->str, PLAN_ACE_DENY) != 0)) {
		snprintf(why, whylen, "\"%s\" must be \"%s\" or \"%s\"", PLAN_KEY_ACE,
		    PLAN_ACE_ALLOW, PLAN_ACE_DENY);
		return -1;
	}
	deny = strcmp(ace->str, PLAN_ACE_DENY) == 0;
	if ((r = read_rights(json_tree_get(o, PLAN_KEY_RIGHTS), why, whylen)) == 0)
		return -1;
	/* Either would let the account delete what a deny protects. */
	if (!deny && (r & (PLAN_R_DELETE_CHILD | PLAN_R_DELETE))) {
		snprintf(why, whylen,
		    "an ALLOW of %s would let the account delete "
		    "what a deny protects; srt-win does not grant it",
		    r & PLAN_R_DELETE_CHILD ? "delete_child" : "delete");
		return -1;
	}
	if (inh == NULL || inh->type != JSON_STRING ||
	    (strcmp(inh->str, PLAN_INHERIT_ALL) != 0 && inh->str[0] != '\0')) {
		snprintf(why, whylen, "\"%s\" must be \"%s\" or \"\"", PLAN_KEY_INHERIT,
		    PLAN_INHERIT_ALL);
		return -1;
	}
	if (path == NULL || path->type != JSON_STRING) {
		snprintf(why, whylen, "\"%s\" must be a string", PLAN_KEY_PATH);
		return -1;
	}
	if ((p = plan_windows_read_path(path->str, paths, why, whylen)) == NULL)
		return -1;
	plan_ace_add(out, deny, p, r, inh->str[0] != '\0', paths->same);
	free(p);
	return 0;
}

/* One line (without its end): 0, or -1 with a message in errs. */
static int
read_line(const char *s, size_t n, size_t line, const struct plan_read_paths *paths,
    struct plan_windows *out, struct diags *errs)
{
	struct json_value *v;
	char err[200], why[200];
	int rc = -1;

	if ((v = json_tree_parse(s, n, err, sizeof(err))) == NULL) {
		diags_add(errs, "line %zu: not JSON: %s", line, err);
		return -1;
	}
	if (v->type != JSON_OBJECT)
		diags_add(errs, "line %zu: not an object", line);
	else if (read_entry(v, paths, out, why, sizeof(why)) != 0)
		diags_add(errs, "line %zu: %s", line, why);
	else
		rc = 0;
	json_tree_free(v);
	return rc;
}

int
plan_windows_read(const char *text, size_t len, const struct plan_read_paths *paths,
    struct plan_windows *out, struct diags *errs)
{
	size_t line = 0, start, end, s, e;
	int bad = 0;

	memset(out, 0, sizeof(*out));
	for (start = 0; start < len; start = end + 1) {
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		line++;
		e = end;
		if (e > start && text[e - 1] == '\r')
			e--;
		for (s = start; s < e && (text[s] == ' ' || text[s] == '\t'); s++)
			;
		if (s < e && read_line(text + s, e - s, line, paths, out, errs) != 0)
			bad = 1;
	}
	if (bad) {
		plan_windows_free(out);
		return -1;
	}
	return 0;
}
