/*
 * exec and launch: the broker side of a sandboxed command. Running as the real user,
 * srt-win starts itself as the sandbox account (CreateProcessWithLogonW, the account's
 * profile) in `runner` mode; the runner builds the restricted token and the job and
 * runs the command (runner.c). The broker adds the command's own denies for as long as
 * it runs, watches the session that started it, and exits with the command's status.
 *
 * launch is the Windows path of srt itself: the plan of `srt-policy plan --target
 * windows` granted for the command's lifetime, the proxy variables pointing at proxies
 * that listen on loopback ports inside the install's range, then exec.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

struct exec_opts {
	int quiet, write_restricted, allow_loopback;
	const char *held_by, *cwd;
	struct strlist write_roots, deny_read, deny_read_except, deny_write, env, cmd;
	const struct plan_windows *plan; /* launch: granted for the command */
};

static void
exec_opts_free(struct exec_opts *o)
{
	strlist_free(&o->write_roots);
	strlist_free(&o->deny_read);
	strlist_free(&o->deny_read_except);
	strlist_free(&o->deny_write);
	strlist_free(&o->env);
	strlist_free(&o->cmd);
}

struct self_match {
	unsigned long pid;
};

static int
match_self(const struct rec *r, const void *arg)
{
	const struct self_match *m = arg;

	return (r->kind == RK_EXEC || r->kind == RK_GRANT) && r->pid == m->pid;
}

static int
check_env(const struct strlist *env)
{
	for (size_t i = 0; i < env->n; i++) {
		const char *eq = strchr(env->v[i], '=');
		char *name;
		int ok;

		if (eq == NULL || eq == env->v[i]) {
			sw_err("usage", "srt-win: --env \"%s\" is not NAME=VALUE", env->v[i]);
			return -1;
		}
		name = xstrndup(env->v[i], (size_t)(eq - env->v[i]));
		ok = env_name_allowed(name);
		if (!ok)
			sw_err("usage",
			    "srt-win: --env %s: a sandboxed command gets PATH and the "
			    "proxy variables only",
			    name);
		free(name);
		if (!ok)
			return -1;
	}
	return 0;
}

/* The command's own denies: each path must exist (a deny for one command on nothing is
 * a mistake of the caller's, not a placeholder to make). */
static int
exec_denies(const struct exec_opts *o, struct plan_windows *plan)
{
	const struct strlist *lists[2] = { &o->deny_read, &o->deny_write };

	for (int l = 0; l < 2; l++) {
		for (size_t i = 0; i < lists[l]->n; i++) {
			char *c = sw_path_clean(lists[l]->v[i]), *parent;
			enum wa_kind k;

			if (c == NULL || wa_path_kind(c, &k) != 0 || k == WA_MISSING) {
				sw_err("bad_input",
				    "srt-win: exec: --deny-%s %s: not an existing "
				    "absolute path",
				    l ? "write" : "read", lists[l]->v[i]);
				free(c);
				return -1;
			}
			plan_add(plan, 1, c, l ? SR_WRITE : SR_READ, k == WA_DIR);
			if ((parent = sw_path_parent(c)) != NULL)
				plan_add(plan, 1, parent, SR_DELETE_CHILD, 0);
			free(parent);
			free(c);
		}
	}
	return 0;
}

static void
release_own(unsigned long pid)
{
	struct state st;
	struct self_match m = { pid };

	if (state_open(&st) != 0)
		return;
	if (acl_release(&st, match_self, &m, NULL) != 0)
		sw_warn("some entries of this command stay recorded; the next srt-win acl "
			"command removes them");
	state_save(&st);
	state_close(&st);
}

/* What the install record and the moment must allow before anything is applied: 0,
 * or the exit code (the reason printed). */
static int
exec_check(const struct exec_opts *o, const struct install_record *rec, unsigned long held,
    uint64_t *held_start)
{
	if (rec->version != SW_SETUP_VERSION) {
		sw_err("not_provisioned",
		    "srt-win: exec: the install is setup version %d, this "
		    "srt-win needs %d; run srt-win install --force",
		    rec->version, SW_SETUP_VERSION);
		return SW_ENOTPROVISIONED;
	}
	if (rec->allow_loopback != o->allow_loopback) {
		sw_err("wfp_loopback_mismatch",
		    "srt-win: exec: the filters were installed %s "
		    "--allow-loopback and this command was started %s it; nothing was "
		    "launched",
		    rec->allow_loopback ? "with" : "without",
		    o->allow_loopback ? "with" : "without");
		return SW_ELOOPBACK;
	}
	if (wa_path_remote(o->cwd) == 1) {
		sw_err("mapped_drive_cwd",
		    "srt-win: exec: the working directory is on a network "
		    "drive, which the sandbox account does not see; start from a local "
		    "directory");
		return SW_EMAPPED;
	}
	if (held != 0 && wa_process_alive(held, 0, held_start) != 1) {
		sw_err("session_ended",
		    "srt-win: exec: the session %lu has ended; nothing was "
		    "launched",
		    held);
		return SW_ESESSION;
	}
	return 0;
}

/* The command's denies and grants, applied and recorded for this process. */
static int
exec_apply(struct exec_opts *o, const struct plan_windows *denies,
    const struct install_record *rec, unsigned long self, uint64_t self_start)
{
	struct state st;
	size_t aces;
	int r = 0;

	if (state_open(&st) != 0)
		return -1;
	acl_recover(&st, &aces);
	if (denies->n > 0)
		r = acl_apply(&st, denies, rec->sid, RK_EXEC, self, self_start, NULL,
		    &o->deny_read_except, NULL);
	if (r == 0 && o->plan != NULL)
		r = acl_apply(
		    &st, o->plan, rec->sid, RK_GRANT, self, self_start, NULL, NULL, NULL);
	if (state_save(&st) != 0)
		r = -1;
	state_close(&st);
	return r;
}

/* The runner's command line: srt-win runner, its options, -- and the command. */
static void
exec_runner_argv(const struct exec_opts *o, const char *selfp, struct strlist *argv)
{
	strlist_push(argv, selfp);
	strlist_push(argv, "runner");
	/* Always: what BUILTIN\Users may write (ProgramData, Public, ...) must not be
	 * writable by a sandboxed command, and kept roots are written only with their
	 * capability SID. --write-restricted-token is taken for the reference's callers. */
	strlist_push(argv, "--write-restricted-token");
	for (size_t i = 0; i < o->write_roots.n; i++) {
		strlist_push(argv, "--write-root");
		strlist_push(argv, o->write_roots.v[i]);
	}
	/* PATH and PATHEXT are the broker's unless given. */
	{
		char **env = wa_environ();
		const char *names[] = { "PATH", "PATHEXT" };

		for (int i = 0; i < 2; i++) {
			const char *v = env_get(env, names[i]);

			if (v != NULL && env_get(o->env.v, names[i]) == NULL) {
				strlist_push(argv, "--env");
				strlist_push_owned(argv, xasprintf("%s=%s", names[i], v));
			}
		}
	}
	for (size_t i = 0; i < o->env.n; i++) {
		strlist_push(argv, "--env");
		strlist_push(argv, o->env.v[i]);
	}
	strlist_push(argv, "--");
	for (size_t i = 0; i < o->cmd.n; i++)
		strlist_push(argv, o->cmd.v[i]);
}

static int
exec_run(struct exec_opts *o)
{
	struct install_record rec = { 0 };
	struct plan_windows denies = { 0 };
	struct strlist argv = { 0 };
	struct wa_spawn sp = { 0 };
	enum wa_logon why;
	unsigned long held = 0, self = wa_pid();
	uint64_t held_start = 0, self_start = 0;
	char *selfp = NULL;
	int rc, status = 0, r, applied = 0;

	if (o->cmd.n == 0) {
		sw_err("usage", "srt-win: exec: no command (put it after --)");
		return SW_EUSAGE;
	}
	if (check_env(&o->env) != 0)
		return SW_EUSAGE;
	if (o->held_by != NULL &&
	    (parse_uint(o->held_by, 4294967295ul, &held) != 0 || held == 0)) {
		sw_err(
		    "usage", "srt-win: exec: --held-by \"%s\" is not a process id", o->held_by);
		return SW_EUSAGE;
	}
	if ((rc = install_record_need("exec", &rec)) != SW_OK)
		return rc;
	if ((rc = exec_check(o, &rec, held, &held_start)) != 0)
		goto out;
	rc = SW_ESYSTEM;
	if (exec_denies(o, &denies) != 0) {
		rc = SW_EUSAGE;
		goto out;
	}
	wa_process_alive(self, 0, &self_start);
	applied = 1;
	if (exec_apply(o, &denies, &rec, self, self_start) < 0)
		goto out;

	if (wa_self_path(&selfp) != 0) {
		sw_err("system", "srt-win: exec: own path: %s", wa_error());
		goto out;
	}
	exec_runner_argv(o, selfp, &argv);
	sp.argv = argv.v;
	sp.cwd = o->cwd;
	sp.watch_pid = held;
	sp.watch_start = held_start;
	sw_trace("exec: starting the runner as %s", rec.user);
	/* Ctrl-C must not end the broker first: it relays the status and takes the
	 * command's grants and denies back (wa_console_keep). */
	wa_console_keep();
	r = wa_run_as_user(rec.user, rec.password, &sp, &status, &why);
	if (r < 0) {
		if (why == WA_LOGON_SECLOGON_DISABLED || why == WA_LOGON_SECLOGON_MISSING) {
			fprintf(stderr,
			    "{\"code\":\"seclogon_disabled\",\"state\":\"%s\","
			    "\"message\":\"srt-win: exec: the Secondary Logon service (seclogon) "
			    "is %s; the sandbox cannot start without it\"}\n",
			    why == WA_LOGON_SECLOGON_MISSING ? "missing" : "disabled",
			    why == WA_LOGON_SECLOGON_MISSING ? "not present" : "disabled");
			rc = SW_ESECLOGON;
		} else
			sw_err("spawn_failed", "srt-win: exec: starting the runner as %s: %s",
			    rec.user, wa_error());
		goto out;
	}
	if (r == 1) {
		sw_err("session_ended",
		    "srt-win: exec: the session %lu ended while the command "
		    "ran; the command and everything it started were terminated",
		    held);
		rc = SW_ESESSION;
		goto out;
	}
	rc = status;
out:
	if (applied)
		release_own(self);
	plan_windows_free(&denies);
	strlist_free(&argv);
	free(selfp);
	install_record_free(&rec);
	return rc;
}

static int
exec_parse(const char *cmd, int argc, char **argv, struct exec_opts *o, const struct opt *extra)
{
	struct opt all[32];
	size_t n = 0;
	const struct opt base[] = {
		{ "--quiet", OT_FLAG, &o->quiet },
		{ "--held-by", OT_STR, &o->held_by },
		{ "--write-restricted-token", OT_FLAG, &o->write_restricted },
		{ "--write-root", OT_LIST, &o->write_roots },
		{ "--allow-loopback", OT_FLAG, &o->allow_loopback },
		{ "--deny-read", OT_LIST, &o->deny_read },
		{ "--deny-read-except", OT_LIST, &o->deny_read_except },
		{ "--deny-write", OT_LIST, &o->deny_write },
		{ "--env", OT_LIST, &o->env },
		{ "--cwd", OT_STR, &o->cwd },
	};

	for (size_t i = 0; i < sizeof(base) / sizeof(base[0]); i++)
		all[n++] = base[i];
	for (; extra != NULL && extra->name != NULL; extra++)
		all[n++] = *extra;
	all[n].name = NULL;
	return opts_parse(cmd, argc, argv, all, &o->cmd, 0);
}

int
cmd_exec(int argc, char **argv)
{
	struct exec_opts o;
	int rc;

	memset(&o, 0, sizeof(o));
	if (exec_parse("exec", argc, argv, &o, NULL) != 0) {
		exec_opts_free(&o);
		return SW_EUSAGE;
	}
	rc = exec_run(&o);
	exec_opts_free(&o);
	return rc;
}

static int
port_arg(const char *name, const char *s, int *port)
{
	unsigned long v;

	if (s == NULL) {
		sw_err("usage", "srt-win: launch: %s is required", name);
		return -1;
	}
	if (parse_uint(s, 65535, &v) != 0 || v == 0) {
		sw_err("usage", "srt-win: launch: %s \"%s\" is not a port", name, s);
		return -1;
	}
	*port = (int)v;
	return 0;
}

/* GUIDs are the same whatever the case of their hex digits. */
static int
guid_equal(const char *a, const char *b)
{
	for (; *a != '\0' && *b != '\0'; a++, b++) {
		char x = *a >= 'A' && *a <= 'F' ? (char)(*a - 'A' + 'a') : *a;
		char y = *b >= 'A' && *b <= 'F' ? (char)(*b - 'A' + 'a') : *b;

		if (x != y)
			return 0;
	}
	return *a == *b;
}

/* The plan file of --plan, read and parsed (srt-policy plan --target windows). */
static int
launch_read_plan(const char *path, struct plan_windows *plan)
{
	char *text = NULL;
	size_t len;
	FILE *f;
	int r;

	if ((f = wa_fopen(path, "rb")) == NULL) {
		sw_err("bad_input", "srt-win: launch: cannot open the plan %s", path);
		return -1;
	}
	r = read_all(f, 16u << 20, &text, &len);
	fclose(f);
	if (r != 0 || plan_parse(text, len, plan) != 0) {
		sw_err("bad_input", "srt-win: launch: the plan %s cannot be used", path);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}

/* The proxies' variables for the ports, where the command's environment sets none. */
static void
launch_proxy_env(struct strlist *env, int http, int socks)
{
	struct strlist proxies = { 0 };

	env_proxies(&proxies, http, socks);
	for (size_t i = 0; i < proxies.n; i++) {
		const char *eq = strchr(proxies.v[i], '=');
		char *name = xstrndup(proxies.v[i], (size_t)(eq - proxies.v[i]));

		if (env_get(env->v, name) == NULL)
			strlist_push(env, proxies.v[i]);
		free(name);
	}
	strlist_free(&proxies);
}

int
cmd_launch(int argc, char **argv)
{
	struct exec_opts o;
	struct install_record rec = { 0 };
	struct plan_windows plan = { 0 };
	const char *plan_path = NULL, *http_s = NULL, *socks_s = NULL, *range = NULL;
	const char *user = NULL, *backend = NULL, *sublayer = NULL;
	int http, socks, rc = SW_EUSAGE, r, lo, hi;
	const struct opt extra[] = {
		{ "--plan", OT_STR, &plan_path },
		{ "--http-port", OT_STR, &http_s },
		{ "--socks-port", OT_STR, &socks_s },
		{ "--proxy-port-range", OT_STR, &range },
		{ "--sandbox-user", OT_STR, &user },
		{ "--backend", OT_STR, &backend },
		{ "--sublayer-guid", OT_STR, &sublayer },
		{ NULL, OT_FLAG, NULL },
	};

	memset(&o, 0, sizeof(o));
	if (exec_parse("launch", argc, argv, &o, extra) != 0 ||
	    port_arg("--http-port", http_s, &http) != 0 ||
	    port_arg("--socks-port", socks_s, &socks) != 0)
		goto out;
	if (plan_path == NULL) {
		sw_err("usage",
		    "srt-win: launch: --plan is required (srt-policy plan --target "
		    "windows)");
		goto out;
	}
	/* The settings' windows block, as the caller read it. */
	if (backend != NULL && strcmp(backend, "srt-win") != 0) {
		sw_err("usage",
		    "srt-win: launch: windows.backend \"%s\": srt has only the "
		    "srt-win backend",
		    backend);
		goto out;
	}
	if (range != NULL && parse_port_range(range, &lo, &hi) != 0) {
		sw_err("usage", "srt-win: launch: invalid --proxy-port-range \"%s\"", range);
		goto out;
	}
	if (launch_read_plan(plan_path, &plan) != 0)
		goto out;
	if ((r = install_record_need("launch", &rec)) != SW_OK) {
		rc = r;
		goto out;
	}
	/* The settings must describe the install they run on: the filters were made for
	 * its account and its ports. */
	if ((range != NULL && (lo != rec.port_lo || hi != rec.port_hi)) ||
	    (user != NULL && strcmp(user, rec.user) != 0) ||
	    (sublayer != NULL && !guid_equal(sublayer, rec.sublayer))) {
		sw_err("install_mismatch",
		    "srt-win: launch: the settings name%s%s%s%s%s%s but "
		    "srt-win was installed for %s, ports %d-%d, sublayer %s; run srt-win "
		    "install with the settings' values and --force",
		    user ? " the account " : "", user ? user : "", range ? " the ports " : "",
		    range ? range : "", sublayer ? " the sublayer " : "",
		    sublayer ? sublayer : "", rec.user, rec.port_lo, rec.port_hi, rec.sublayer);
		rc = SW_ENOTPROVISIONED;
		goto out;
	}
	/* The filters let the account reach loopback only on the install's ports. */
	if (http < rec.port_lo || http > rec.port_hi || socks < rec.port_lo ||
	    socks > rec.port_hi) {
		sw_err("usage",
		    "srt-win: launch: the proxies must listen inside the installed "
		    "port range %d-%d (windows.proxyPortRange), which the filters open",
		    rec.port_lo, rec.port_hi);
		goto out;
	}
	launch_proxy_env(&o.env, http, socks);
	o.plan = &plan;
	rc = exec_run(&o);
out:
	install_record_free(&rec);
	plan_windows_free(&plan);
	exec_opts_free(&o);
	return rc;
}
