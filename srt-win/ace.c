/*
 * The entries of a plan: what each right means as a Windows access mask, and the plan
 * read from stdin (srt-policy's JSON lines, or the reference library's objects).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

/* File access rights (winnt.h), spelled here so that this file needs no Windows header. */
#define M_READ_DATA 0x00000001u
#define M_WRITE_DATA 0x00000002u
#define M_APPEND_DATA 0x00000004u
#define M_READ_EA 0x00000008u
#define M_WRITE_EA 0x00000010u
#define M_EXECUTE 0x00000020u
#define M_DELETE_CHILD 0x00000040u
#define M_READ_ATTRIBUTES 0x00000080u
#define M_WRITE_ATTRIBUTES 0x00000100u
#define M_DELETE 0x00010000u
#define M_READ_CONTROL 0x00020000u
#define M_WRITE_DAC 0x00040000u
#define M_WRITE_OWNER 0x00080000u
#define M_SYNCHRONIZE 0x00100000u

#define M_GENERIC_READ \
	(M_READ_CONTROL | M_SYNCHRONIZE | M_READ_DATA | M_READ_EA | \
	    M_READ_ATTRIBUTES) /* FILE_GENERIC_READ */
#define M_GENERIC_EXEC \
	(M_READ_CONTROL | M_SYNCHRONIZE | M_EXECUTE | \
	    M_READ_ATTRIBUTES) /* FILE_GENERIC_EXECUTE */
#define M_GENERIC_WRITE \
	(M_READ_CONTROL | M_SYNCHRONIZE | M_WRITE_DATA | M_APPEND_DATA | M_WRITE_EA | \
	    M_WRITE_ATTRIBUTES) /* FILE_GENERIC_WRITE */
/* icacls' M: read, write, execute and delete itself, but not its children */
#define M_MODIFY (M_GENERIC_READ | M_GENERIC_WRITE | M_GENERIC_EXEC | M_DELETE)

/* What a DENY takes away: the content, never SYNCHRONIZE or READ_CONTROL. Denying write
 * also denies what would get around it: deleting the object, its children, or changing
 * its DACL or owner. */
#define D_READ (M_READ_DATA | M_READ_EA | M_EXECUTE)
#define D_EXECUTE M_EXECUTE
#define D_WRITE \
	(M_WRITE_DATA | M_APPEND_DATA | M_WRITE_EA | M_WRITE_ATTRIBUTES | M_DELETE | \
	    M_DELETE_CHILD | M_WRITE_DAC | M_WRITE_OWNER)

/* By the right's bit (plan_ace.h: plan_ace_right_names[i] is 1u << i's name). */
static const struct {
	unsigned bit;
	uint32_t allow, deny;
} rights[PLAN_NRIGHTS] = {
	{ SR_READ, M_GENERIC_READ, D_READ },
	{ SR_EXECUTE, M_GENERIC_EXEC, D_EXECUTE },
	{ SR_WRITE, M_GENERIC_WRITE, D_WRITE },
	{ SR_MODIFY, M_MODIFY, D_WRITE | D_READ },
	{ SR_DELETE_CHILD, M_DELETE_CHILD, M_DELETE_CHILD },
	/* The object's own DELETE, which also renames it: denied on the directories above
	 * a deny, so that they cannot be moved away and rebuilt without it. */
	{ SR_DELETE, M_DELETE, M_DELETE },
};
#define NRIGHTS PLAN_NRIGHTS

uint32_t
ace_mask(int deny, unsigned r)
{
	uint32_t m = 0;

	for (size_t i = 0; i < NRIGHTS; i++)
		if (r & rights[i].bit)
			m |= deny ? rights[i].deny : rights[i].allow;
	return m;
}

const char *
ace_rights_json(unsigned r, struct buf *b)
{
	const char *sep = "";

	buf_adds(b, "[");
	for (size_t i = 0; i < NRIGHTS; i++) {
		if (!(r & rights[i].bit))
			continue;
		buf_addf(b, "%s\"%s\"", sep, plan_ace_right_names[i]);
		sep = ",";
	}
	buf_adds(b, "]");
	return buf_str(b);
}

/* Paths as srt-win got them (sw_path_clean's): the same only to the letter. */
static int
same_path(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

void
plan_add(struct plan_windows *p, int deny, const char *path, unsigned r, int inherit)
{
	plan_ace_add(p, deny, path, r, inherit, same_path);
}

/* The plan's paths as srt-win takes them: absolute and normalised for this system, the
 * same only to the letter. */
static const struct plan_read_paths sw_paths = { sw_path_clean, same_path };

/* One path of the reference's object form, ranked as srt-policy ranks it. */
static int
object_path(const char *key, const struct json_value *e, struct plan_windows *out, char *why,
    size_t whylen)
{
	int deny = key[0] == 'd';
	unsigned r = strcmp(key, "read") == 0 ? SR_READ | SR_EXECUTE
	    : strcmp(key, "write") == 0       ? SR_MODIFY
	    : strcmp(key, "denyRead") == 0    ? SR_READ
					      : SR_WRITE;
	enum wa_kind kind;
	char *p, *parent;
	size_t n;
	int dir;

	if (e->type != JSON_STRING || e->str[0] == '\0') {
		snprintf(why, whylen, "\"%s\" must hold non-empty path strings", key);
		return -1;
	}
	if ((p = plan_windows_read_path(e->str, &sw_paths, why, whylen)) == NULL)
		return -1;
	if (wa_path_kind(p, &kind) != 0) {
		snprintf(why, whylen, "%s: %s", p, wa_error());
		free(p);
		return -1;
	}
	/* A missing deny target ending in a separator is meant as a directory. */
	n = strlen(e->str);
	dir = kind == WA_DIR ||
	    (kind == WA_MISSING && n > 0 &&
		(e->str[n - 1] == '/' || e->str[n - 1] == wa_path_sep()));
	plan_add(out, deny, p, r, dir);
	if (deny && (parent = sw_path_parent(p)) != NULL) {
		plan_add(out, 1, parent, SR_DELETE_CHILD, 0);
		free(parent);
	}
	free(p);
	return 0;
}

static int
path_same(const char *a, const char *b)
{
	return sw_path_is_under(a, b) && sw_path_is_under(b, a);
}

/*
 * As srt-policy's plan does: a write grant's MODIFY holds DELETE on every directory
 * beneath it, which renames as well, so each directory write root gets DENY delete, and
 * for each deny beneath one every directory from the root down to the deny's parent gets
 * DENY delete and its parent inside the root DENY delete_child (all uninherited).
 * Otherwise the account moves an ancestor of the deny away and makes the path again.
 */
static void
object_ancestors(struct plan_windows *out)
{
	size_t n = out->n;

	for (size_t w = 0; w < n; w++) {
		char *root, *t, *a, *up;

		if (out->v[w].deny || out->v[w].rights != SR_MODIFY || !out->v[w].inherit)
			continue;
		/* Copies: plan_add may move out->v. */
		root = xstrdup(out->v[w].path);
		plan_add(out, 1, root, SR_DELETE, 0);
		for (size_t d = 0; d < n; d++) {
			if (!out->v[d].deny || !(out->v[d].rights & (SR_READ | SR_WRITE)) ||
			    !sw_path_is_under(out->v[d].path, root) ||
			    path_same(out->v[d].path, root))
				continue;
			t = xstrdup(out->v[d].path);
			for (a = sw_path_parent(t); a != NULL; a = up) {
				plan_add(out, 1, a, SR_DELETE, 0);
				up = path_same(a, root) ? NULL : sw_path_parent(a);
				if (up != NULL)
					plan_add(out, 1, up, SR_DELETE_CHILD, 0);
				free(a);
			}
			free(t);
		}
		free(root);
	}
}

static int
parse_object_form(
    const struct json_value *o, struct plan_windows *out, char *why, size_t whylen)
{
	static const char *const keys[] = { "denyRead", "denyWrite", "read", "write" };
	const struct json_value *e, *l;
	size_t i;

	for (e = o->child; e != NULL; e = e->next) {
		for (i = 0; i < 4; i++)
			if (strcmp(e->key, keys[i]) == 0)
				break;
		if (i == 4) {
			snprintf(why, whylen,
			    "unknown key \"%.40s\" (read, write, denyRead, "
			    "denyWrite)",
			    e->key);
			return -1;
		}
	}
	/* Denies first: nothing is granted that its deny does not already cover. */
	for (i = 0; i < 4; i++) {
		if ((l = json_tree_get(o, keys[i])) == NULL || l->type == JSON_NULL)
			continue;
		if (l->type != JSON_ARRAY) {
			snprintf(why, whylen, "\"%s\" must be an array of paths", keys[i]);
			return -1;
		}
		for (e = l->child; e != NULL; e = e->next)
			if (object_path(keys[i], e, out, why, whylen) != 0)
				return -1;
	}
	object_ancestors(out);
	return 0;
}

int
plan_parse(const char *text, size_t len, struct plan_windows *out)
{
	struct json_value *v;
	struct diags errs = { 0 };
	char err[200], why[200];
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* The reference's form is one object without an "ace" key; anything else is the
	 * plan's lines (lib/sandbox/plan_windows_read.c). */
	if ((v = json_tree_parse(text, len, err, sizeof(err))) != NULL &&
	    v->type == JSON_OBJECT && json_tree_get(v, PLAN_KEY_ACE) == NULL) {
		if (parse_object_form(v, out, why, sizeof(why)) != 0) {
			sw_err("bad_input", "srt-win: stdin: %s", why);
			plan_windows_free(out);
			rc = -1;
		}
		json_tree_free(v);
		return rc;
	}
	json_tree_free(v);
	if (plan_windows_read(text, len, &sw_paths, out, &errs) != 0) {
		for (size_t i = 0; i < errs.msgs.n; i++)
			sw_err("bad_input", "srt-win: stdin %s", errs.msgs.v[i]);
		rc = -1;
	}
	diags_free(&errs);
	return rc;
}
