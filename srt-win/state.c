/*
 * The records of who holds which entry, one JSON object per line in
 * %LOCALAPPDATA%\srt-win\acl.jsonl (the per-user state directory): the user's own
 * brokers share it, under an exclusive lock on acl.lock, and it is replaced atomically.
 * It is how two sessions share one entry (the entry leaves the DACL with its last
 * holder) and how a crashed session's entries are found and removed by the next run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

#define STATE_MAX (64u << 20)

static const char *const kind_names[] = {
	[RK_GRANT] = "grant",
	[RK_STAMP] = "stamp",
	[RK_KEPT] = "kept",
	[RK_PROFILE] = "profile",
	[RK_EXEC] = "exec",
};

void
rec_free(struct rec *r)
{
	free(r->path);
	free(r->ace.sid);
	free(r->root);
	strlist_free(&r->made);
	memset(r, 0, sizeof(*r));
}

void
state_add(struct state *st, const struct rec *r)
{
	struct rec *c;

	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 32;
		st->v = xreallocarray(st->v, st->cap, sizeof(*st->v));
	}
	c = &st->v[st->n++];
	*c = *r;
	c->path = xstrdup(r->path);
	c->ace.sid = xstrdup(r->ace.sid);
	c->root = r->root != NULL ? xstrdup(r->root) : NULL;
	memset(&c->made, 0, sizeof(c->made));
	for (size_t i = 0; i < r->made.n; i++)
		strlist_push(&c->made, r->made.v[i]);
}

void
state_del(struct state *st, size_t i)
{
	rec_free(&st->v[i]);
	memmove(&st->v[i], &st->v[i + 1], (st->n - i - 1) * sizeof(*st->v));
	st->n--;
}

static int
num_field(const struct json_value *o, const char *k, double max, double *out)
{
	const struct json_value *v = json_tree_get(o, k);

	if (v == NULL || v->type != JSON_NUMBER || v->num < 0 || v->num > max ||
	    v->num != (double)(uint64_t)v->num)
		return -1;
	*out = v->num;
	return 0;
}

static int
parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

static int
parse_rec(const struct json_value *o, struct rec *r)
{
	static const char *const keys[] = { "kind", "pid", "start", "path", "ace", "sid",
		"mask", "flags", "owned", "made", "root" };
	const struct json_value *kind = json_tree_get(o, "kind"),
				*path = json_tree_get(o, "path");
	const struct json_value *ace = json_tree_get(o, "ace"), *sid = json_tree_get(o, "sid");
	const struct json_value *owned = json_tree_get(o, "owned"),
				*made = json_tree_get(o, "made");
	const struct json_value *root = json_tree_get(o, "root"), *e, *st;
	double pid, mask, flags;
	uint64_t start;
	int k;
	size_t i;

	memset(r, 0, sizeof(*r));
	for (e = o->child; e != NULL; e = e->next) {
		for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
			if (strcmp(e->key, keys[i]) == 0)
				break;
		if (i == sizeof(keys) / sizeof(keys[0]))
			return -1;
	}
	if (kind == NULL || kind->type != JSON_STRING)
		return -1;
	if ((k = util_enum_value(
		 kind_names, sizeof(kind_names) / sizeof(kind_names[0]), kind->str)) == -1)
		return -1;
	r->kind = (enum rec_kind)k;
	/* The start time is a string: a Windows FILETIME needs more than a double's 53
	 * bits. */
	if (num_field(o, "pid", 4294967295.0, &pid) != 0 ||
	    num_field(o, "mask", 4294967295.0, &mask) != 0 ||
	    num_field(o, "flags", 255, &flags) != 0 ||
	    (st = json_tree_get(o, "start")) == NULL || st->type != JSON_STRING ||
	    parse_u64(st->str, &start) != 0)
		return -1;
	if (path == NULL || path->type != JSON_STRING || ace == NULL ||
	    ace->type != JSON_STRING ||
	    (strcmp(ace->str, "allow") != 0 && strcmp(ace->str, "deny") != 0) || sid == NULL ||
	    sid->type != JSON_STRING || !wa_sid_valid(sid->str) || owned == NULL ||
	    (owned->type != JSON_TRUE && owned->type != JSON_FALSE) || made == NULL ||
	    made->type != JSON_ARRAY || (root != NULL && root->type != JSON_STRING))
		return -1;
	r->pid = (unsigned long)pid;
	r->start = start;
	r->path = xstrdup(path->str);
	r->ace.deny = strcmp(ace->str, "deny") == 0;
	r->ace.sid = xstrdup(sid->str);
	r->ace.mask = (uint32_t)mask;
	r->ace.flags = (uint8_t)flags;
	r->owned = owned->type == JSON_TRUE;
	r->root = root != NULL ? xstrdup(root->str) : NULL;
	for (e = made->child; e != NULL; e = e->next) {
		if (e->type != JSON_STRING) {
			rec_free(r);
			return -1;
		}
		strlist_push(&r->made, e->str);
	}
	return 0;
}

int
state_parse(const char *text, size_t len, struct state *st)
{
	size_t start, end, line = 0;
	struct json_value *v;
	struct rec r;
	char err[160];

	for (start = 0; start < len; start = end + 1) {
		for (end = start; end < len && text[end] != '\n'; end++)
			;
		line++;
		if (end == start)
			continue;
		if ((v = json_tree_parse(text + start, end - start, err, sizeof(err))) ==
			NULL ||
		    v->type != JSON_OBJECT || parse_rec(v, &r) != 0) {
			json_tree_free(v);
			sw_err("bad_state",
			    "srt-win: %s line %zu: not a record srt-win wrote; "
			    "nothing was changed",
			    st->file ? st->file : "records", line);
			return -1;
		}
		json_tree_free(v);
		state_add(st, &r);
		rec_free(&r);
	}
	return 0;
}

char *
state_format(const struct state *st)
{
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	for (size_t i = 0; i < st->n; i++) {
		const struct rec *r = &st->v[i];

		buf_addf(&b, "{\"kind\":\"%s\",\"pid\":%lu,\"start\":\"%llu\",\"path\":",
		    kind_names[r->kind], r->pid, (unsigned long long)r->start);
		buf_add_jstrs(&b, r->path);
		buf_addf(&b, ",\"ace\":\"%s\",\"sid\":", r->ace.deny ? "deny" : "allow");
		buf_add_jstrs(&b, r->ace.sid);
		buf_addf(&b, ",\"mask\":%lu,\"flags\":%u,\"owned\":%s,\"made\":[",
		    (unsigned long)r->ace.mask, (unsigned)r->ace.flags,
		    r->owned ? "true" : "false");
		for (size_t k = 0; k < r->made.n; k++) {
			if (k > 0)
				buf_adds(&b, ",");
			buf_add_jstrs(&b, r->made.v[k]);
		}
		buf_adds(&b, "]");
		if (r->root != NULL) {
			buf_add_jmember(&b, ",\"root\":", r->root);
		}
		buf_adds(&b, "}\n");
	}
	return buf_steal(&b);
}

int
state_open(struct state *st)
{
	char *lockp = NULL, *text = NULL;
	size_t len;
	FILE *f;

	memset(st, 0, sizeof(*st));
	if (wa_state_dir(&st->dir) != 0) {
		sw_err("system", "srt-win: the state directory: %s", wa_error());
		return -1;
	}
	st->file = xasprintf("%s%cacl.jsonl", st->dir, wa_path_sep());
	lockp = xasprintf("%s%cacl.lock", st->dir, wa_path_sep());
	if (wa_lock(lockp, &st->lock) != 0) {
		sw_err("system", "srt-win: locking %s: %s", lockp, wa_error());
		free(lockp);
		goto fail;
	}
	free(lockp);
	if ((f = wa_fopen(st->file, "rb")) == NULL) {
		if (errno == ENOENT)
			return 0;
		sw_err("system", "srt-win: %s: %s", st->file, strerror(errno));
		goto fail;
	}
	if (read_all(f, STATE_MAX, &text, &len) != 0) {
		fclose(f);
		sw_err("system", "srt-win: reading %s failed", st->file);
		goto fail;
	}
	fclose(f);
	if (state_parse(text, len, st) != 0) {
		free(text);
		goto fail;
	}
	free(text);
	return 0;
fail:
	state_close(st);
	return -1;
}

int
state_save(struct state *st)
{
	char *tmp = xasprintf("%s.tmp", st->file), *text = state_format(st);
	size_t len = strlen(text);
	FILE *f;
	int rc = -1;

	if ((f = wa_fopen(tmp, "wb")) == NULL) {
		sw_err("system", "srt-win: %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (fwrite(text, 1, len, f) != len || fflush(f) != 0) {
		sw_err("system", "srt-win: writing %s failed", tmp);
		fclose(f);
		wa_unlink(tmp);
		goto out;
	}
	if (fclose(f) != 0 || wa_replace(tmp, st->file) != 0) {
		sw_err("system", "srt-win: replacing %s: %s", st->file, wa_error());
		wa_unlink(tmp);
		goto out;
	}
	rc = 0;
out:
	free(tmp);
	free(text);
	return rc;
}

void
state_close(struct state *st)
{
	for (size_t i = 0; i < st->n; i++)
		rec_free(&st->v[i]);
	free(st->v);
	if (st->lock != NULL)
		wa_unlock(st->lock);
	free(st->dir);
	free(st->file);
	memset(st, 0, sizeof(*st));
}
