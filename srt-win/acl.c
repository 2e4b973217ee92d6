/*
 * acl: add and remove the plan's entries for the sandbox account, refcounted per holder.
 *
 * An entry is one explicit ACE (allow or deny, SID, mask, inheritance) on one object. It
 * goes into the object's DACL with its first holder and leaves with its last; an
 * identical entry that was there before srt-win is shared and never removed. Holders
 * are processes (the broker's session, one command), recorded with their start time, so
 * that what a crashed holder left is found and removed by the next acl command
 * (`acl recover` does only that). Denies are applied before grants and grants removed
 * before denies, so a failure half-way never leaves more access than asked for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

#define PLAN_MAX (16u << 20)

void
results_add(struct acl_results *r, const char *path, const char *status)
{
	if (r == NULL)
		return;
	r->status = util_grow(r->status, r->path.n, &r->cap, sizeof(*r->status));
	r->status[r->path.n] = status;
	strlist_push(&r->path, path);
}

void
results_print(const struct acl_results *r, FILE *f)
{
	struct buf b = { 0 };

	buf_adds(&b, "[");
	for (size_t i = 0; i < r->path.n; i++) {
		buf_add_jmember(&b, i ? ",{\"path\":" : "{\"path\":", r->path.v[i]);
		buf_addf(&b, ",\"status\":\"%s\"}", r->status[i]);
	}
	buf_adds(&b, "]\n");
	fputs(buf_str(&b), f);
	buf_free(&b);
}

void
results_free(struct acl_results *r)
{
	strlist_free(&r->path);
	free(r->status);
	r->status = NULL;
	r->cap = 0;
}

static int
ace_same(const struct wa_ace *a, const struct wa_ace *b)
{
	return a->deny == b->deny && a->mask == b->mask && a->flags == b->flags &&
	    strcmp(a->sid, b->sid) == 0;
}

static long
dacl_find(const struct wa_dacl *d, const struct wa_ace *a)
{
	for (size_t i = 0; i < d->n; i++)
		if (ace_same(&d->v[i], a))
			return (long)i;
	return -1;
}

/* Denies go after the explicit denies already there, grants at the end: the canonical
 * order, without moving any entry that was there. */
static void
dacl_insert(struct wa_dacl *d, const struct wa_ace *a)
{
	size_t at = d->n;

	if (a->deny)
		for (at = 0; at < d->n && d->v[at].deny == 1; at++)
			;
	d->v = xreallocarray(d->v, d->n + 1, sizeof(*d->v));
	memmove(&d->v[at + 1], &d->v[at], (d->n - at) * sizeof(*d->v));
	d->v[at].deny = a->deny;
	d->v[at].sid = xstrdup(a->sid);
	d->v[at].mask = a->mask;
	d->v[at].flags = a->flags;
	d->v[at].raw = NULL;
	d->v[at].rawlen = 0;
	d->n++;
}

static void
dacl_remove_at(struct wa_dacl *d, size_t i)
{
	free(d->v[i].sid);
	free(d->v[i].raw);
	memmove(&d->v[i], &d->v[i + 1], (d->n - i - 1) * sizeof(*d->v));
	d->n--;
}

/* A record of the same entry on the same object that sel does not select; -1 if none. */
static long
held_elsewhere(
    const struct state *st, const char *path, const struct wa_ace *a, const char *sel)
{
	for (size_t i = 0; i < st->n; i++)
		if ((sel == NULL || !sel[i]) && strcmp(st->v[i].path, path) == 0 &&
		    ace_same(&st->v[i].ace, a))
			return (long)i;
	return -1;
}

/* Create a missing deny target and the directories above it that are missing; made gets
 * what was created, outermost first. */
static int
placeholder(const char *p, int dir, struct strlist *made)
{
	struct strlist up = { 0 };
	enum wa_kind k;
	char *cur = xstrdup(p), *par;
	int rc = -1;

	while ((par = sw_path_parent(cur)) != NULL) {
		if (wa_path_kind(par, &k) != 0 || k == WA_FILE) {
			free(par);
			goto out; /* a file on the way: nothing can be made there */
		}
		if (k == WA_DIR) {
			free(par);
			break;
		}
		free(cur);
		cur = xstrdup(par);
		strlist_push_owned(&up, par);
	}
	for (size_t i = up.n; i-- > 0;) {
		if (wa_mkdir(up.v[i]) != 0)
			goto out;
		strlist_push(made, up.v[i]);
	}
	if ((dir ? wa_mkdir(p) : wa_mkfile(p)) != 0)
		goto out;
	strlist_push(made, p);
	rc = 0;
out:
	free(cur);
	strlist_free(&up);
	return rc;
}

/* Remove what placeholder() made, innermost first, while each is empty. */
static void
placeholder_remove(const struct strlist *made)
{
	for (size_t i = made->n; i-- > 0;)
		if (wa_remove_empty(made->v[i]) != 0)
			return;
}

static int
by_length(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return x < y ? -1 : x > y;
}

/* to gets the first n placeholders of from, kept outermost first. */
static void
adopt(struct strlist *to, const struct strlist *from, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strlist_contains(to, from->v[i]))
			strlist_push(to, from->v[i]);
	if (to->n > 1)
		qsort(to->v, to->n, sizeof(char *), by_length);
}

/* Drops the released records (sel 2 or 3); then the placeholders no record needs any
 * more. */
static void
drop_released(struct state *st, char *sel)
{
	struct strlist *mades = NULL;
	size_t nm = 0;

	for (size_t i = st->n; i-- > 0;) {
		if (sel[i] != 2 && sel[i] != 3)
			continue;
		if (st->v[i].made.n > 0) {
			mades = xreallocarray(mades, nm + 1, sizeof(*mades));
			mades[nm++] = st->v[i].made;
			memset(&st->v[i].made, 0, sizeof(st->v[i].made));
		}
		memmove(sel + i, sel + i + 1, st->n - i - 1);
		state_del(st, i);
	}
	for (size_t m = 0; m < nm; m++) {
		/* Innermost first, and not what a record still names (or holds
		 * something beneath): that record takes the rest over, so that
		 * they go with it. */
		for (size_t k = mades[m].n; k-- > 0;) {
			long keeper = -1;

			for (size_t i = 0; i < st->n && keeper < 0; i++)
				if (sw_path_is_under(st->v[i].path, mades[m].v[k]))
					keeper = (long)i;
			if (keeper >= 0) {
				adopt(&st->v[keeper].made, &mades[m], k + 1);
				break;
			}
			if (wa_remove_empty(mades[m].v[k]) != 0)
				break;
		}
		strlist_free(&mades[m]);
	}
	free(mades);
}

/*
 * Release the selected records. Per object, one DACL read and write; grants first, then
 * denies. Returns 0, or 1 when some could not be released (they stay recorded).
 */
static int
release_selected(struct state *st, char *sel, struct acl_results *res)
{
	int rc = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < st->n; i++) {
			const char *p;
			struct wa_dacl d = { 0 };
			enum wa_kind kd;
			int changed = 0, failed = 0, have_dacl = 0;

			if (sel[i] != 1 || (pass == 0 && st->v[i].ace.deny))
				continue;
			p = st->v[i].path;
			if (wa_path_kind(p, &kd) != 0)
				failed = 1;
			else if (kd != WA_MISSING) {
				if (wa_dacl_get(p, &d) != 0)
					failed = 1;
				else
					have_dacl = 1;
			}
			/* Every selected record of this pass on this object. */
			for (size_t k = i; k < st->n; k++) {
				struct rec *r = &st->v[k];
				const char *status;
				long at;

				if (sel[k] != 1 || strcmp(r->path, p) != 0 ||
				    (pass == 0 && r->ace.deny))
					continue;
				if (failed) {
					status = "failed";
				} else if (held_elsewhere(st, p, &r->ace, sel) >= 0) {
					status = "stillHeld";
				} else if (!r->owned) {
					status = "kept"; /* it was there before srt-win */
				} else if (kd == WA_MISSING) {
					status = "gone";
				} else if ((at = dacl_find(&d, &r->ace)) < 0) {
					status = "gone"; /* someone else took it out */
				} else {
					dacl_remove_at(&d, (size_t)at);
					changed = 1;
					status = "revoked";
				}
				/* Two records of one entry selected at once: release it once. */
				for (size_t j = k + 1; j < st->n && !failed; j++)
					if (sel[j] == 1 && strcmp(st->v[j].path, p) == 0 &&
					    ace_same(&st->v[j].ace, &r->ace))
						sel[j] = 2; /* released with k */
				results_add(res, p, status);
				sel[k] = failed ? 0 : 3; /* 3: to drop */
			}
			if (changed && wa_dacl_set(p, &d) != 0) {
				sw_err("system", "srt-win: setting the DACL of %s: %s", p,
				    wa_error());
				for (size_t k = i; k < st->n; k++)
					if ((sel[k] == 2 || sel[k] == 3) &&
					    strcmp(st->v[k].path, p) == 0)
						sel[k] = 0; /* still on disk: keep it */
				failed = 1;
			}
			if (have_dacl)
				wa_dacl_free(&d);
			if (failed)
				rc = 1;
		}
	}
	drop_released(st, sel);
	return rc;
}

int
acl_release(struct state *st, rec_match_fn match, const void *arg, struct acl_results *res)
{
	char *sel = xcalloc(st->n ? st->n : 1, 1);
	int rc;

	for (size_t i = 0; i < st->n; i++)
		sel[i] = (char)(match(&st->v[i], arg) != 0);
	rc = release_selected(st, sel, res);
	free(sel);
	return rc;
}

/* Deny reads also on what the profile read grant allows beneath a read-denied path: an
 * entry set lower ranks above an inherited deny. Grants of the same plan are left out:
 * they rank above the deny as well. */
static void
expand_profile_denies(const struct state *st, const struct plan_windows *in,
    const struct strlist *spare, struct plan_windows *out)
{
	size_t i, k, j;

	for (i = 0; i < in->n; i++)
		plan_add(out, in->v[i].deny, in->v[i].path, in->v[i].rights, in->v[i].inherit);
	for (i = 0; i < in->n; i++) {
		const struct plan_ace *d = &in->v[i];

		if (!d->deny || !(d->rights & SR_READ))
			continue;
		for (k = 0; k < st->n; k++) {
			const struct rec *r = &st->v[k];
			int spared = 0;

			if (r->kind != RK_PROFILE || r->ace.deny ||
			    strcmp(r->path, d->path) == 0 ||
			    !sw_path_is_under(r->path, d->path))
				continue;
			for (j = 0; j < in->n && !spared; j++)
				spared = !in->v[j].deny &&
				    sw_path_is_under(r->path, in->v[j].path);
			for (j = 0; spare != NULL && j < spare->n && !spared; j++)
				spared = sw_path_is_under(r->path, spare->v[j]);
			if (!spared)
				plan_add(out, 1, r->path, SR_READ, r->ace.flags != 0);
		}
	}
}

/* The entries of plan on one path, applied in one DACL write. */
static int
apply_path(struct state *st, const struct plan_windows *plan, size_t first, const char *sid,
    enum rec_kind kind, unsigned long pid, uint64_t start, const char *root,
    struct acl_results *res, int *skipped)
{
	const char *p = plan->v[first].path;
	struct strlist made = { 0 };
	struct wa_dacl d = { 0 };
	enum wa_kind kd;
	int has_deny = 0, want_dir = 0, changed = 0, rc = -1, made_given = 0;
	size_t k, before = st->n;
	char *final = NULL;

	for (k = first; k < plan->n; k++)
		if (strcmp(plan->v[k].path, p) == 0 && plan->v[k].deny) {
			has_deny = 1;
			want_dir |= plan->v[k].inherit;
		}
	if (wa_path_kind(p, &kd) != 0) {
		sw_err("system", "srt-win: %s: %s", p, wa_error());
		return -1;
	}
	if (kd == WA_MISSING) {
		for (k = first; k < plan->n; k++)
			if (strcmp(plan->v[k].path, p) == 0 && !plan->v[k].deny) {
				sw_warn("%s does not exist; not granted", p);
				results_add(res, p, "missing");
				*skipped = 1;
			}
		if (!has_deny)
			return 0;
		if (placeholder(p, want_dir, &made) != 0) {
			sw_err("system",
			    "srt-win: cannot make a placeholder for the deny on %s: "
			    "%s",
			    p, wa_error());
			placeholder_remove(&made);
			strlist_free(&made);
			return -1;
		}
		kd = want_dir ? WA_DIR : WA_FILE;
	}
	if (wa_path_final(p, &final) != 0 || wa_dacl_get(final, &d) != 0) {
		sw_err("system", "srt-win: %s: %s", final ? final : p, wa_error());
		goto out;
	}
	for (k = first; k < plan->n; k++) {
		const struct plan_ace *e = &plan->v[k];
		struct rec r = { 0 };
		long other;

		if (strcmp(e->path, p) != 0 || (!e->deny && made.n > 0))
			continue;
		r.kind = kind;
		r.pid = pid;
		r.start = start;
		r.path = final;
		r.root = root != NULL ? xstrdup(root) : NULL;
		r.ace.deny = e->deny;
		r.ace.sid = xstrdup(sid);
		r.ace.mask = ace_mask(e->deny, e->rights);
		/* Inheritance means nothing on a file. */
		r.ace.flags = e->inherit && kd == WA_DIR ? WA_OI | WA_CI : 0;
		if ((other = held_elsewhere(st, final, &r.ace, NULL)) >= 0) {
			r.owned = st->v[other].owned;
			results_add(res, final, "held");
		} else if (dacl_find(&d, &r.ace) >= 0) {
			r.owned = 0;
			results_add(res, final, "present");
		} else {
			dacl_insert(&d, &r.ace);
			r.owned = 1;
			changed = 1;
			results_add(res, final,
			    made.n > 0    ? "created"
				: e->deny ? "denied"
					  : "granted");
		}
		/* The placeholders go with the first record on the path. */
		if (!made_given)
			r.made = made;
		made_given = 1;
		state_add(st, &r);
		free(r.root);
		free(r.ace.sid);
	}
	if (changed && wa_dacl_set(final, &d) != 0) {
		sw_err("system", "srt-win: setting the DACL of %s: %s", final, wa_error());
		while (st->n > before) /* nothing of this path was applied */
			state_del(st, st->n - 1);
		goto out;
	}
	sw_trace("%s: %zu explicit entries, %s", final, d.n, changed ? "changed" : "unchanged");
	rc = 0;
out:
	if (rc != 0)
		placeholder_remove(&made);
	wa_dacl_free(&d);
	strlist_free(&made);
	free(final);
	return rc;
}

int
acl_apply(struct state *st, const struct plan_windows *in, const char *sid, enum rec_kind kind,
    unsigned long pid, uint64_t start, const char *root, const struct strlist *spare,
    struct acl_results *res)
{
	struct plan_windows plan = { 0 };
	size_t before = st->n, i, k;
	char *done, *sel;
	int skipped = 0, rc = 0;

	expand_profile_denies(st, in, spare, &plan);
	done = xcalloc(plan.n ? plan.n : 1, 1);
	/* First the paths that carry a deny, then the others. */
	for (int pass = 0; pass < 2 && rc == 0; pass++) {
		for (i = 0; i < plan.n && rc == 0; i++) {
			int has_deny = 0;

			if (done[i])
				continue;
			for (k = i; k < plan.n; k++)
				has_deny |= strcmp(plan.v[k].path, plan.v[i].path) == 0 &&
				    plan.v[k].deny;
			if (pass == 0 && !has_deny)
				continue;
			for (k = i; k < plan.n; k++)
				if (strcmp(plan.v[k].path, plan.v[i].path) == 0)
					done[k] = 1;
			if (apply_path(
				st, &plan, i, sid, kind, pid, start, root, res, &skipped) != 0)
				rc = -1;
		}
	}
	if (rc != 0) {
		/* Take back what this call added; the records before it are untouched. */
		sel = xcalloc(st->n ? st->n : 1, 1);
		for (i = before; i < st->n; i++)
			sel[i] = 1;
		release_selected(st, sel, NULL);
		free(sel);
	}
	free(done);
	plan_windows_free(&plan);
	return rc != 0 ? -1 : skipped;
}

static int
match_dead(const struct rec *r, const void *arg)
{
	const struct strlist *dead = arg;
	char pid[32];

	snprintf(pid, sizeof(pid), "%lu", r->pid);
	if (r->kind != RK_GRANT && r->kind != RK_STAMP && r->kind != RK_EXEC)
		return 0;
	for (size_t i = 0; i < dead->n; i++)
		if (strcmp(dead->v[i], pid) == 0)
			return 1;
	return 0;
}

int
acl_recover(struct state *st, size_t *aces)
{
	struct strlist dead = { 0 };
	struct acl_results res = { 0 };
	char pid[32];
	int n;

	for (size_t i = 0; i < st->n; i++) {
		const struct rec *r = &st->v[i];

		if (r->kind != RK_GRANT && r->kind != RK_STAMP && r->kind != RK_EXEC)
			continue;
		snprintf(pid, sizeof(pid), "%lu", r->pid);
		if (strlist_contains(&dead, pid))
			continue;
		/* Alive, or cannot tell: keep. Only a holder known gone is released. */
		if (wa_process_alive(r->pid, r->start, NULL) == 0)
			strlist_push(&dead, pid);
	}
	n = (int)dead.n;
	if (n > 0) {
		sw_trace("releasing what %d ended holder(s) left", n);
		acl_release(st, match_dead, &dead, &res);
	}
	*aces = 0;
	for (size_t i = 0; i < res.path.n; i++)
		*aces += strcmp(res.status[i], "revoked") == 0;
	results_free(&res);
	strlist_free(&dead);
	return n;
}
