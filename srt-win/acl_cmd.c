/*
 * The acl subcommands:
 *   grant   --holder-pid N --sandbox-user-sid SID [--persistent] [--json]   plan on stdin
 *   revoke  --holder-pid N --sandbox-user-sid SID [--json]
 *   stamp   --holder-pid N --sandbox-user-sid SID [--json]                   denies on stdin
 *   restore --holder-pid N --sandbox-user-sid SID [--json]
 *   forget  ROOT... | --all [--force] [--json]
 *   recover [--json]
 *   list
 * Every one but list first releases what ended holders left.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

#define PLAN_MAX (16u << 20)

struct holder_match {
	enum rec_kind kind;
	unsigned long pid;
	const char *sid;
};

static int
match_holder(const struct rec *r, const void *arg)
{
	const struct holder_match *m = arg;

	return r->kind == m->kind && r->pid == m->pid && strcmp(r->ace.sid, m->sid) == 0;
}

static int
match_root(const struct rec *r, const void *arg)
{
	const char *root = arg;

	return r->kind == RK_KEPT &&
	    (root == NULL || (r->root != NULL && strcmp(r->root, root) == 0));
}

static int
read_plan(const char *cmd, struct plan_windows *plan)
{
	char *text;
	size_t len;

	if (read_all(stdin, PLAN_MAX, &text, &len) != 0) {
		sw_err("bad_input",
		    "srt-win: acl %s: cannot read the plan on stdin (at most "
		    "%u MiB)",
		    cmd, PLAN_MAX >> 20);
		return -1;
	}
	if (plan_parse(text, len, plan) != 0) {
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

static int
holder_args(const char *cmd, const char *pid_s, const char *sid, unsigned long *pid)
{
	if (pid_s == NULL || sid == NULL) {
		sw_err("usage",
		    "srt-win: acl %s: --holder-pid and --sandbox-user-sid are "
		    "required",
		    cmd);
		return -1;
	}
	if (parse_uint(pid_s, 4294967295ul, pid) != 0 || *pid == 0) {
		sw_err("usage", "srt-win: acl %s: --holder-pid \"%s\" is not a process id", cmd,
		    pid_s);
		return -1;
	}
	if (!wa_sid_valid(sid)) {
		sw_err("usage",
		    "srt-win: acl %s: --sandbox-user-sid \"%s\" is not a SID "
		    "(S-1-...)",
		    cmd, sid);
		return -1;
	}
	return 0;
}

/* The holder must be running now: an entry held by a process that is gone would be
 * removed by the next command anyway. */
static int
holder_alive(const char *cmd, unsigned long pid, uint64_t *start)
{
	int a = wa_process_alive(pid, 0, start);

	if (a == 1)
		return 0;
	sw_err("holder_gone", "srt-win: acl %s: holder %lu is %s", cmd, pid,
	    a == 0 ? "not running" : "not a process srt-win can watch");
	return -1;
}

static void
recover_quietly(struct state *st)
{
	size_t aces;

	acl_recover(st, &aces);
}

static int
finish(struct state *st, struct acl_results *res, int json, int rc)
{
	if (state_save(st) != 0 && rc == 0)
		rc = SW_ESYSTEM;
	state_close(st);
	if (json)
		results_print(res, stdout);
	results_free(res);
	return rc;
}

/* The capability SID of a kept write root: the runner puts it among the restricting SIDs
 * of a command given --write-root ROOT, and only such a command passes the restricted
 * half of the access check there. */
char *
root_capability(const char *root)
{
	char *final = NULL, *name, *sid = NULL;

	if (wa_path_final(root, &final) != 0)
		final = xstrdup(root);
	for (char *p = final; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p | 0x20);
	name = xasprintf("srt-win-root:%s", final);
	if (wa_capability_sid(name, &sid) != 0)
		sid = NULL;
	free(name);
	free(final);
	return sid;
}

/*
 * --persistent: each write grant becomes a kept root, granted to the sandbox group and to
 * the root's capability SID, not to the account itself; the denies beneath it are kept
 * with it. A command then writes there only under the write-restricted token with that
 * --write-root. The rest of the plan is the session's.
 */
static int
grant_persistent(struct state *st, const struct plan_windows *plan, const char *sid,
    unsigned long pid, uint64_t start, struct acl_results *res)
{
	struct plan_windows session = { 0 };
	char *group = NULL;
	size_t i, k;
	int rc = 0, r;

	if (wa_account_sid(SW_GROUP, &group) != 0) {
		sw_err("not_provisioned",
		    "srt-win: acl grant --persistent: the group %s does "
		    "not exist; run srt-win install",
		    SW_GROUP);
		return -2;
	}
	for (i = 0; i < plan->n && rc >= 0; i++) {
		const struct plan_ace *w = &plan->v[i];
		struct plan_windows kept = { 0 }, denies = { 0 };
		char *cap;

		if (w->deny || !(w->rights & SR_MODIFY))
			continue;
		if ((cap = root_capability(w->path)) == NULL) {
			sw_err("system", "srt-win: %s: no capability SID: %s", w->path,
			    wa_error());
			rc = -1;
			break;
		}
		plan_add(&kept, 0, w->path, w->rights, w->inherit);
		for (k = 0; k < plan->n; k++)
			if (plan->v[k].deny && sw_path_is_under(plan->v[k].path, w->path))
				plan_add(&denies, 1, plan->v[k].path, plan->v[k].rights,
				    plan->v[k].inherit);
		if ((r = acl_apply(
			 st, &denies, sid, RK_KEPT, pid, start, w->path, NULL, res)) != 0 ||
		    (r = acl_apply(
			 st, &kept, group, RK_KEPT, pid, start, w->path, NULL, res)) != 0 ||
		    (r = acl_apply(st, &kept, cap, RK_KEPT, pid, start, w->path, NULL, res)) !=
			0)
			rc = r;
		plan_windows_free(&kept);
		plan_windows_free(&denies);
		free(cap);
	}
	free(group);
	for (i = 0; i < plan->n; i++) {
		const struct plan_ace *a = &plan->v[i];
		int in_kept = 0;

		for (k = 0; k < plan->n && !in_kept; k++)
			in_kept = !plan->v[k].deny && (plan->v[k].rights & SR_MODIFY) &&
			    (k == i || (a->deny && sw_path_is_under(a->path, plan->v[k].path)));
		if (!in_kept)
			plan_add(&session, a->deny, a->path, a->rights, a->inherit);
	}
	if (rc >= 0 && session.n > 0 &&
	    (r = acl_apply(st, &session, sid, RK_GRANT, pid, start, NULL, NULL, res)) != 0)
		rc = r;
	plan_windows_free(&session);
	return rc;
}

static int
acl_grant_or_stamp(int argc, char **argv, int stamp)
{
	const char *cmd = stamp ? "stamp" : "grant", *pid_s = NULL, *sid = NULL;
	int json = 0, persistent = 0, rc, r;
	struct strlist rest = { 0 }, excl = { 0 };
	struct acl_results res = { 0 };
	struct plan_windows plan = { 0 };
	struct state st;
	unsigned long pid;
	uint64_t start = 0;
	const struct opt grant_opts[] = {
		{ "--holder-pid", OT_STR, &pid_s },
		{ "--sandbox-user-sid", OT_STR, &sid },
		{ "--json", OT_FLAG, &json },
		{ "--persistent", OT_FLAG, &persistent },
		{ "--allow-profile-exclusion", OT_LIST, &excl },
		{ NULL, OT_FLAG, NULL },
	};
	const struct opt stamp_opts[] = {
		{ "--holder-pid", OT_STR, &pid_s },
		{ "--sandbox-user-sid", OT_STR, &sid },
		{ "--json", OT_FLAG, &json },
		{ NULL, OT_FLAG, NULL },
	};

	rc = opts_parse(stamp ? "acl stamp" : "acl grant", argc, argv,
	    stamp ? stamp_opts : grant_opts, &rest, 0);
	strlist_free(&rest);
	strlist_free(&excl); /* exclusions are the profile grant's; none is recorded */
	if (rc != 0 || holder_args(cmd, pid_s, sid, &pid) != 0)
		return SW_EUSAGE;
	if (read_plan(cmd, &plan) != 0)
		return SW_EUSAGE;
	if (stamp) {
		for (size_t i = 0; i < plan.n; i++)
			if (!plan.v[i].deny) {
				sw_err("bad_input",
				    "srt-win: acl stamp adds denies only; %s is "
				    "granted with acl grant",
				    plan.v[i].path);
				plan_windows_free(&plan);
				return SW_EUSAGE;
			}
	}
	if (holder_alive(cmd, pid, &start) != 0) {
		plan_windows_free(&plan);
		return SW_EUSAGE;
	}
	if (state_open(&st) != 0) {
		plan_windows_free(&plan);
		return SW_ESYSTEM;
	}
	recover_quietly(&st);
	if (persistent)
		r = grant_persistent(&st, &plan, sid, pid, start, &res);
	else
		r = acl_apply(
		    &st, &plan, sid, stamp ? RK_STAMP : RK_GRANT, pid, start, NULL, NULL, &res);
	plan_windows_free(&plan);
	if (r == 1)
		sw_err("partial",
		    "srt-win: acl %s: some paths were skipped (see above); the "
		    "others are in place",
		    cmd);
	return finish(&st, &res, json,
	    r == -2      ? SW_ENOTPROVISIONED
		: r < 0  ? SW_ESYSTEM
		: r == 1 ? SW_EUSAGE
			 : SW_OK);
}

static int
acl_revoke_or_restore(int argc, char **argv, int restore)
{
	const char *cmd = restore ? "restore" : "revoke", *pid_s = NULL, *sid = NULL;
	int json = 0, rc;
	struct strlist rest = { 0 };
	struct acl_results res = { 0 };
	struct holder_match m;
	struct state st;
	unsigned long pid;
	const struct opt o[] = {
		{ "--holder-pid", OT_STR, &pid_s },
		{ "--sandbox-user-sid", OT_STR, &sid },
		{ "--json", OT_FLAG, &json },
		{ NULL, OT_FLAG, NULL },
	};

	rc = opts_parse(restore ? "acl restore" : "acl revoke", argc, argv, o, &rest, 0);
	strlist_free(&rest);
	if (rc != 0 || holder_args(cmd, pid_s, sid, &pid) != 0)
		return SW_EUSAGE;
	if (state_open(&st) != 0)
		return SW_ESYSTEM;
	recover_quietly(&st);
	m.pid = pid;
	m.sid = sid;
	if (restore) {
		/* Denies stay while the holder's grants do: taking them first would open
		 * what they close. */
		m.kind = RK_GRANT;
		for (size_t i = 0; i < st.n; i++)
			if (match_holder(&st.v[i], &m))
				results_add(&res, st.v[i].path, "grantPending");
		if (res.path.n > 0) {
			sw_err("grant_pending",
			    "srt-win: acl restore: holder %lu still has "
			    "grants recorded; run acl revoke first (the denies are kept)",
			    pid);
			state_close(&st);
			if (json)
				results_print(&res, stdout);
			results_free(&res);
			return SW_EUSAGE;
		}
	}
	m.kind = restore ? RK_STAMP : RK_GRANT;
	rc = acl_release(&st, match_holder, &m, &res);
	if (rc != 0)
		sw_err("system",
		    "srt-win: acl %s: some entries could not be removed; they "
		    "stay recorded for another try",
		    cmd);
	return finish(&st, &res, json, rc ? SW_ESYSTEM : SW_OK);
}

static int
acl_forget(int argc, char **argv)
{
	int all = 0, force = 0, json = 0, rc = SW_OK;
	struct strlist roots = { 0 };
	struct acl_results res = { 0 };
	struct state st;
	const struct opt o[] = {
		{ "--all", OT_FLAG, &all },
		{ "--force", OT_FLAG, &force },
		{ "--json", OT_FLAG, &json },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("acl forget", argc, argv, o, &roots, 1) != 0)
		return SW_EUSAGE;
	if (all == (roots.n > 0)) {
		sw_err("usage", "srt-win: acl forget: name the roots to forget, or pass --all");
		strlist_free(&roots);
		return SW_EUSAGE;
	}
	if (state_open(&st) != 0) {
		strlist_free(&roots);
		return SW_ESYSTEM;
	}
	recover_quietly(&st);
	if (all && !force) {
		struct buf b = { 0 };
		struct strlist seen = { 0 };
		int held = 0;

		buf_adds(&b, "{\"held_by\":[");
		for (size_t i = 0; i < st.n; i++) {
			const struct rec *r = &st.v[i];
			char *key;

			if (r->kind != RK_KEPT || r->pid == 0 ||
			    wa_process_alive(r->pid, r->start, NULL) != 1)
				continue;
			/* One line per session and root, whatever it holds there. */
			key = xasprintf("%lu %s", r->pid, r->root != NULL ? r->root : r->path);
			if (strlist_contains(&seen, key)) {
				free(key);
				continue;
			}
			strlist_push_owned(&seen, key);
			buf_addf(&b, "%s{\"pid\":%lu,\"kind\":\"kept_root\",\"path\":",
			    held++ ? "," : "", r->pid);
			buf_add_jstrs(&b, r->root != NULL ? r->root : r->path);
			buf_adds(&b, "}");
		}
		buf_adds(&b, "]}\n");
		strlist_free(&seen);
		if (held) {
			fputs(buf_str(&b), stdout);
			buf_free(&b);
			sw_err("held_by_others",
			    "srt-win: acl forget --all: sessions run on the "
			    "kept roots; nothing was removed (--force removes them anyway)");
			state_close(&st);
			strlist_free(&roots);
			return SW_EHELD;
		}
		buf_free(&b);
	}
	if (all) {
		if (acl_release(&st, match_root, NULL, &res) != 0)
			rc = SW_ESYSTEM;
	}
	for (size_t i = 0; i < roots.n; i++) {
		char *c = sw_path_clean(roots.v[i]), *final = NULL;
		size_t before = res.path.n;

		if (c == NULL) {
			sw_err("usage", "srt-win: acl forget: \"%s\" is not an absolute path",
			    roots.v[i]);
			rc = SW_EUSAGE;
			continue;
		}
		if (wa_path_final(c, &final) != 0)
			final = xstrdup(c);
		if (acl_release(&st, match_root, final, &res) != 0)
			rc = SW_ESYSTEM;
		if (res.path.n == before)
			results_add(&res, c, "absent");
		free(final);
		free(c);
	}
	strlist_free(&roots);
	return finish(&st, &res, json, rc);
}

static int
acl_recover_cmd(int argc, char **argv)
{
	int json = 0, dead;
	struct strlist rest = { 0 };
	struct state st;
	size_t aces;
	const struct opt o[] = {
		{ "--json", OT_FLAG, &json },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("acl recover", argc, argv, o, &rest, 0) != 0)
		return SW_EUSAGE;
	if (state_open(&st) != 0)
		return SW_ESYSTEM;
	dead = acl_recover(&st, &aces);
	if (state_save(&st) != 0) {
		state_close(&st);
		return SW_ESYSTEM;
	}
	state_close(&st);
	if (json)
		printf("{\"deadBrokers\":%d,\"acesRevoked\":%zu}\n", dead, aces);
	else
		fprintf(stderr,
		    "srt-win: acl recover: %d ended holder(s), %zu entries "
		    "removed\n",
		    dead, aces);
	return SW_OK;
}

static int
acl_list(int argc, char **argv)
{
	struct strlist rest = { 0 };
	struct state st;
	char *text;
	const struct opt o[] = { { NULL, OT_FLAG, NULL } };

	if (opts_parse("acl list", argc, argv, o, &rest, 0) != 0)
		return SW_EUSAGE;
	if (state_open(&st) != 0)
		return SW_ESYSTEM;
	text = state_format(&st);
	fputs(text, stdout);
	free(text);
	state_close(&st);
	return SW_OK;
}

int
cmd_acl(int argc, char **argv)
{
	if (argc < 1) {
		sw_err("usage",
		    "srt-win: acl: grant, revoke, stamp, restore, forget, recover "
		    "or list");
		return SW_EUSAGE;
	}
	if (strcmp(argv[0], "grant") == 0)
		return acl_grant_or_stamp(argc - 1, argv + 1, 0);
	if (strcmp(argv[0], "stamp") == 0)
		return acl_grant_or_stamp(argc - 1, argv + 1, 1);
	if (strcmp(argv[0], "revoke") == 0)
		return acl_revoke_or_restore(argc - 1, argv + 1, 0);
	if (strcmp(argv[0], "restore") == 0)
		return acl_revoke_or_restore(argc - 1, argv + 1, 1);
	if (strcmp(argv[0], "forget") == 0)
		return acl_forget(argc - 1, argv + 1);
	if (strcmp(argv[0], "recover") == 0)
		return acl_recover_cmd(argc - 1, argv + 1);
	if (strcmp(argv[0], "list") == 0)
		return acl_list(argc - 1, argv + 1);
	sw_err("usage",
	    "srt-win: acl: unknown subcommand \"%s\" (grant, revoke, stamp, "
	    "restore, forget, recover, list)",
	    argv[0]);
	return SW_EUSAGE;
}
