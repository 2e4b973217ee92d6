/*
 * profile: the read grant on the calling user's profile, for the sandbox group. A
 * sandboxed command needs the tools that install themselves under the profile
 * (AppData\Local\Programs, npm, go, cargo, ...) and their configuration, and none of
 * the credential stores. Listed directories get ALLOW read+execute, inherited; a
 * protected path beneath one gets a DENY read of its own, which ranks above the
 * inherited allow. The grant is kept (until `profile forget`) and recorded in
 * profile.json beside the acl records; granting again replaces it.
 *   status                       {"state": "none"|"current"|"incomplete", ...}
 *   grant [--include P]... [--exclude P]... [--replace-includes] [--replace-excludes]
 *         [--json]
 *   forget [--json]
 *   retry-stale [--json] [--budget-ms N]   release what a replaced grant left behind
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

/* Relative to the profile, with '/' for the separator. */
static const char *const granted_dirs[] = { "AppData/Local/Programs",
	"AppData/Local/Microsoft/WindowsApps", "AppData/Roaming/npm", "AppData/Local/pnpm",
	"go", ".cargo", ".rustup", ".nuget/packages", "scoop", ".bun", ".deno", ".volta",
	".npmrc", ".gitconfig", "AppData/Roaming/pip/pip.ini", ".m2/settings.xml",
	".gradle/gradle.properties", "AppData/Roaming/NuGet/NuGet.Config", NULL };

static const char *const protected_paths[] = { ".ssh", ".gnupg", ".aws", ".azure", ".kube",
	".docker", ".config/gcloud", ".git-credentials", ".netrc", "_netrc",
	".cargo/credentials", ".cargo/credentials.toml", ".m2/settings-security.xml",
	"AppData/Roaming/gnupg", "AppData/Roaming/Microsoft/Credentials",
	"AppData/Local/Microsoft/Credentials", "AppData/Roaming/Microsoft/Protect",
	"AppData/Roaming/Microsoft/Crypto", "AppData/Local/Microsoft/Vault",
	"AppData/Local/Google/Chrome/User Data", "AppData/Local/Microsoft/Edge/User Data",
	"AppData/Roaming/Mozilla/Firefox/Profiles", "AppData/Roaming/1Password",
	"AppData/Local/1Password", "AppData/Roaming/Bitwarden", "NTUSER.DAT", NULL };

struct profile_rec {
	struct strlist granted, denied, included, excluded;
};

static void
profile_rec_free(struct profile_rec *p)
{
	strlist_free(&p->granted);
	strlist_free(&p->denied);
	strlist_free(&p->included);
	strlist_free(&p->excluded);
}

static char *
under_profile(const char *profile, const char *rel)
{
	char *p = xasprintf("%s%c%s", profile, wa_path_sep(), rel), *c;

	for (char *q = p + strlen(profile); *q; q++)
		if (*q == '/')
			*q = wa_path_sep();
	c = sw_path_clean(p);
	free(p);
	return c;
}

static char *
rec_path(const struct state *st)
{
	return xasprintf("%s%cprofile.json", st->dir, wa_path_sep());
}

static void
json_list(struct buf *b, const char *key, const struct strlist *l)
{
	buf_addf(b, "\"%s\":[", key);
	for (size_t i = 0; i < l->n; i++) {
		if (i > 0)
			buf_adds(b, ",");
		buf_add_jstrs(b, l->v[i]);
	}
	buf_adds(b, "]");
}

static int
read_list(const struct json_value *o, const char *key, struct strlist *out)
{
	const struct json_value *l = json_tree_get(o, key);

	if (l == NULL || l->type != JSON_ARRAY)
		return -1;
	for (const struct json_value *e = l->child; e != NULL; e = e->next) {
		if (e->type != JSON_STRING)
			return -1;
		strlist_push(out, e->str);
	}
	return 0;
}

/* 1: no grant recorded. */
static int
profile_rec_read(const struct state *st, struct profile_rec *p)
{
	char *path = rec_path(st), *text = NULL, err[128];
	struct json_value *v = NULL;
	size_t len;
	FILE *f;
	int rc = -1;

	memset(p, 0, sizeof(*p));
	if ((f = wa_fopen(path, "rb")) == NULL) {
		free(path);
		return 1;
	}
	if (read_all(f, 16u << 20, &text, &len) == 0 &&
	    (v = json_tree_parse(text, len, err, sizeof(err))) != NULL &&
	    read_list(v, "granted", &p->granted) == 0 &&
	    read_list(v, "denied", &p->denied) == 0 &&
	    read_list(v, "included", &p->included) == 0 &&
	    read_list(v, "excluded", &p->excluded) == 0)
		rc = 0;
	fclose(f);
	if (rc != 0)
		sw_err("bad_state",
		    "srt-win: %s is damaged; srt-win profile forget removes the "
		    "grant",
		    path);
	json_tree_free(v);
	free(text);
	free(path);
	return rc;
}

static int
profile_rec_write(const struct state *st, const struct profile_rec *p)
{
	char *path = rec_path(st), *tmp = xasprintf("%s.tmp", path);
	struct buf b = { 0 };
	FILE *f;
	int rc = -1;

	buf_adds(&b, "{\"version\":1,");
	json_list(&b, "granted", &p->granted);
	buf_adds(&b, ",");
	json_list(&b, "denied", &p->denied);
	buf_adds(&b, ",");
	json_list(&b, "included", &p->included);
	buf_adds(&b, ",");
	json_list(&b, "excluded", &p->excluded);
	buf_adds(&b, "}\n");
	if ((f = wa_fopen(tmp, "wb")) != NULL && fputs(buf_str(&b), f) != EOF &&
	    fclose(f) == 0 && wa_replace(tmp, path) == 0)
		rc = 0;
	else
		sw_err("system", "srt-win: writing %s failed", path);
	buf_free(&b);
	free(tmp);
	free(path);
	return rc;
}

static int
match_profile(const struct rec *r, const void *arg)
{
	const struct strlist *keep = arg;

	if (r->kind != RK_PROFILE)
		return 0;
	return keep == NULL || !strlist_contains(keep, r->path);
}

/* A path given to --include or --exclude: absolute inside the profile, or relative. */
static char *
profile_arg(const char *profile, const char *a)
{
	char *c = wa_path_absolute(a) ? sw_path_clean(a) : under_profile(profile, a);

	if (c != NULL && sw_path_is_under(c, profile) && strcmp(c, profile) != 0)
		return c;
	free(c);
	return NULL;
}

static int
is_protected(const struct strlist *prot, const char *p)
{
	for (size_t i = 0; i < prot->n; i++)
		if (sw_path_is_under(p, prot->v[i]) || sw_path_is_under(prot->v[i], p))
			return 1;
	return 0;
}

/* The exclusions and inclusions of the command line added to the record's: an
 * exclusion joins the protected paths; an inclusion must be inside the profile and
 * clear of every protected path (a usage error otherwise). */
static int
grant_lists(const char *profile, const struct strlist *inc, const struct strlist *exc,
    struct profile_rec *now, struct strlist *prot)
{
	for (size_t i = 0; i < exc->n; i++) {
		char *c = profile_arg(profile, exc->v[i]);

		if (c == NULL) {
			sw_err("usage", "srt-win: profile grant: --exclude %s is not inside %s",
			    exc->v[i], profile);
			return -1;
		}
		if (!strlist_contains(&now->excluded, c))
			strlist_push(&now->excluded, c);
		free(c);
	}
	for (size_t i = 0; i < now->excluded.n; i++)
		strlist_push(prot, now->excluded.v[i]);
	for (size_t i = 0; i < inc->n; i++) {
		char *c = profile_arg(profile, inc->v[i]);

		if (c == NULL || is_protected(prot, c)) {
			sw_err("usage", "srt-win: profile grant: --include %s: %s", inc->v[i],
			    c == NULL ? "not inside the profile"
				      : "a protected path, inside "
					"one or above one");
			free(c);
			return -1;
		}
		if (!strlist_contains(&now->included, c))
			strlist_push(&now->included, c);
		free(c);
	}
	return 0;
}

/* What to grant: the built-in list and the inclusions that exist, but nothing at or
 * beneath an exclusion; the protected paths beneath a grant get a deny. */
static void
grant_plan(const char *profile, struct profile_rec *now, const struct strlist *prot,
    struct plan_windows *plan)
{
	struct strlist cand = { 0 };

	for (size_t i = 0; granted_dirs[i] != NULL; i++)
		strlist_push_owned(&cand, under_profile(profile, granted_dirs[i]));
	for (size_t i = 0; i < now->included.n; i++)
		strlist_push(&cand, now->included.v[i]);
	for (size_t i = 0; i < cand.n; i++) {
		enum wa_kind k;
		int skip = 0;

		if (wa_path_kind(cand.v[i], &k) != 0 || k == WA_MISSING)
			continue;
		for (size_t j = 0; j < prot->n && !skip; j++)
			skip = sw_path_is_under(cand.v[i], prot->v[j]);
		if (skip || strlist_contains(&now->granted, cand.v[i]))
			continue;
		strlist_push(&now->granted, cand.v[i]);
		plan_add(plan, 0, cand.v[i], SR_READ | SR_EXECUTE, k == WA_DIR);
		for (size_t j = 0; j < prot->n; j++) {
			enum wa_kind pk;

			if (!sw_path_is_under(prot->v[j], cand.v[i]) ||
			    wa_path_kind(prot->v[j], &pk) != 0 || pk == WA_MISSING ||
			    strlist_contains(&now->denied, prot->v[j]))
				continue;
			strlist_push(&now->denied, prot->v[j]);
			plan_add(plan, 1, prot->v[j], SR_READ, pk == WA_DIR);
		}
	}
	strlist_free(&cand);
}

/* Applies what the plan adds to what the state already holds for the profile. */
static int
grant_apply_new(struct state *st, const struct plan_windows *plan, const char *group,
    struct acl_results *res)
{
	struct plan_windows add = { 0 };
	int r;

	for (size_t i = 0; i < plan->n; i++) {
		int held = 0;

		for (size_t k = 0; k < st->n && !held; k++)
			held = st->v[k].kind == RK_PROFILE &&
			    strcmp(st->v[k].path, plan->v[i].path) == 0 &&
			    st->v[k].ace.deny == plan->v[i].deny;
		if (!held)
			plan_add(&add, plan->v[i].deny, plan->v[i].path, plan->v[i].rights,
			    plan->v[i].inherit);
	}
	r = acl_apply(st, &add, group, RK_PROFILE, 0, 0, NULL, NULL, res);
	plan_windows_free(&add);
	return r;
}

/* The --json line of profile grant. */
static void
grant_print_json(const char *profile, const struct profile_rec *now, int complete)
{
	struct buf b = { 0 };

	buf_add_jmember(&b, "{\"profile\":", profile);
	buf_adds(&b, ",");
	json_list(&b, "granted", &now->granted);
	buf_adds(&b, ",");
	json_list(&b, "denied", &now->denied);
	buf_addf(&b, ",\"complete\":%s}\n", complete ? "true" : "false");
	fputs(buf_str(&b), stdout);
	buf_free(&b);
}

static int
profile_grant(int argc, char **argv)
{
	int json = 0, repl_inc = 0, repl_exc = 0, rc = SW_EUSAGE, r;
	struct strlist inc = { 0 }, exc = { 0 }, rest = { 0 }, prot = { 0 }, keep = { 0 };
	struct profile_rec old = { 0 }, now = { 0 };
	struct acl_results res = { 0 };
	struct plan_windows plan = { 0 };
	struct state st;
	char *profile = NULL, *group = NULL;
	int opened = 0;
	const struct opt o[] = {
		{ "--include", OT_LIST, &inc },
		{ "--exclude", OT_LIST, &exc },
		{ "--replace-includes", OT_FLAG, &repl_inc },
		{ "--replace-excludes", OT_FLAG, &repl_exc },
		{ "--json", OT_FLAG, &json },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("profile grant", argc, argv, o, &rest, 0) != 0)
		goto out;
	if (wa_profile_dir(&profile) != 0) {
		sw_err(
		    "system", "srt-win: profile grant: the profile directory: %s", wa_error());
		rc = SW_ESYSTEM;
		goto out;
	}
	if (wa_account_sid(SW_GROUP, &group) != 0) {
		sw_err("not_provisioned",
		    "srt-win: profile grant: the group %s does not exist; "
		    "run srt-win install",
		    SW_GROUP);
		rc = SW_ENOTPROVISIONED;
		goto out;
	}
	if (state_open(&st) != 0) {
		rc = SW_ESYSTEM;
		goto out;
	}
	opened = 1;
	if ((r = profile_rec_read(&st, &old)) < 0) {
		rc = SW_ESYSTEM;
		goto out;
	}
	/* Earlier runs' inclusions and exclusions stay unless replaced. */
	if (!repl_inc)
		for (size_t i = 0; i < old.included.n; i++)
			strlist_push(&now.included, old.included.v[i]);
	if (!repl_exc)
		for (size_t i = 0; i < old.excluded.n; i++)
			strlist_push(&now.excluded, old.excluded.v[i]);
	for (size_t i = 0; protected_paths[i] != NULL; i++)
		strlist_push_owned(&prot, under_profile(profile, protected_paths[i]));
	if (grant_lists(profile, &inc, &exc, &now, &prot) != 0)
		goto out;
	grant_plan(profile, &now, &prot, &plan);
	/* Replace: release what the new grant does not hold, add what it adds. */
	for (size_t i = 0; i < now.granted.n; i++)
		strlist_push(&keep, now.granted.v[i]);
	for (size_t i = 0; i < now.denied.n; i++)
		strlist_push(&keep, now.denied.v[i]);
	/* New denies and grants first: never less protected than before. */
	if ((r = grant_apply_new(&st, &plan, group, &res)) < 0) {
		rc = SW_ESYSTEM;
		goto save;
	}
	if (acl_release(&st, match_profile, &keep, &res) != 0)
		sw_warn("profile grant: some paths of the old grant could not be released; "
			"srt-win profile retry-stale tries again");
	if (profile_rec_write(&st, &now) != 0) {
		rc = SW_ESYSTEM;
		goto save;
	}
	rc = r == 1 ? SW_EUSAGE : SW_OK;
	if (json)
		grant_print_json(profile, &now, rc == SW_OK);
save:
	if (state_save(&st) != 0)
		rc = SW_ESYSTEM;
out:
	if (opened)
		state_close(&st);
	plan_windows_free(&plan);
	results_free(&res);
	profile_rec_free(&old);
	profile_rec_free(&now);
	strlist_free(&inc);
	strlist_free(&exc);
	strlist_free(&rest);
	strlist_free(&prot);
	strlist_free(&keep);
	free(profile);
	free(group);
	return rc;
}

static int
profile_forget(int argc, char **argv, int stale_only)
{
	int json = 0, rc = SW_OK, r;
	const char *budget = NULL;
	struct strlist rest = { 0 }, keep = { 0 };
	struct acl_results res = { 0 };
	struct profile_rec pr = { 0 };
	struct state st;
	char *path;
	const struct opt o[] = {
		{ "--json", OT_FLAG, &json },
		{ "--budget-ms", OT_STR, &budget },
		{ NULL, OT_FLAG, NULL },
	};

	/* --budget-ms is taken for the reference's callers: releasing is quick here. */
	if (opts_parse(stale_only ? "profile retry-stale" : "profile forget", argc, argv, o,
		&rest, 0) != 0)
		return SW_EUSAGE;
	if (state_open(&st) != 0)
		return SW_ESYSTEM;
	if ((r = profile_rec_read(&st, &pr)) < 0) {
		state_close(&st);
		return SW_ESYSTEM;
	}
	if (stale_only) {
		for (size_t i = 0; i < pr.granted.n; i++)
			strlist_push(&keep, pr.granted.v[i]);
		for (size_t i = 0; i < pr.denied.n; i++)
			strlist_push(&keep, pr.denied.v[i]);
	}
	if (acl_release(&st, match_profile, stale_only ? &keep : NULL, &res) != 0)
		rc = SW_ESYSTEM;
	if (!stale_only && rc == SW_OK && r == 0) {
		path = rec_path(&st);
		wa_unlink(path);
		free(path);
	}
	if (state_save(&st) != 0)
		rc = SW_ESYSTEM;
	state_close(&st);
	if (json)
		results_print(&res, stdout);
	results_free(&res);
	profile_rec_free(&pr);
	strlist_free(&keep);
	strlist_free(&rest);
	return rc;
}

static int
profile_status(void)
{
	struct profile_rec pr = { 0 };
	struct state st;
	struct buf b = { 0 };
	char *profile = NULL;
	const char *state;
	int r, complete = 1;

	if (wa_profile_dir(&profile) != 0) {
		sw_err("system", "srt-win: profile status: %s", wa_error());
		return SW_ESYSTEM;
	}
	if (state_open(&st) != 0) {
		free(profile);
		return SW_ESYSTEM;
	}
	if ((r = profile_rec_read(&st, &pr)) < 0) {
		state_close(&st);
		free(profile);
		return SW_ESYSTEM;
	}
	for (size_t i = 0; r == 0 && i < pr.granted.n; i++) {
		int held = 0;

		for (size_t k = 0; k < st.n && !held; k++)
			held = st.v[k].kind == RK_PROFILE &&
			    strcmp(st.v[k].path, pr.granted.v[i]) == 0;
		complete &= held;
	}
	state = r == 1 ? "none" : complete ? "current" : "incomplete";
	buf_addf(&b, "{\"state\":\"%s\",\"profile\":", state);
	buf_add_jstrs(&b, profile);
	buf_adds(&b, ",");
	json_list(&b, "granted", &pr.granted);
	buf_adds(&b, ",");
	json_list(&b, "denied", &pr.denied);
	buf_adds(&b, ",");
	json_list(&b, "included", &pr.included);
	buf_adds(&b, ",");
	json_list(&b, "excluded", &pr.excluded);
	buf_adds(&b, ",\"capabilities\":[\"profile-deny-expansion\",\"read-deny-except\"]}\n");
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	state_close(&st);
	profile_rec_free(&pr);
	free(profile);
	return SW_OK;
}

int
cmd_profile(int argc, char **argv)
{
	if (argc >= 1 && strcmp(argv[0], "status") == 0 && argc == 1)
		return profile_status();
	if (argc >= 1 && strcmp(argv[0], "grant") == 0)
		return profile_grant(argc - 1, argv + 1);
	if (argc >= 1 && strcmp(argv[0], "forget") == 0)
		return profile_forget(argc - 1, argv + 1, 0);
	if (argc >= 1 && strcmp(argv[0], "retry-stale") == 0)
		return profile_forget(argc - 1, argv + 1, 1);
	sw_err("usage", "srt-win: profile: status, grant, forget or retry-stale");
	return SW_EUSAGE;
}
