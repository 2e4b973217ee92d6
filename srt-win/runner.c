/*
 * runner: the second hop of a launch, running as the sandbox account. It gives the
 * command a token stripped of every privilege but the one to traverse directories
 * (with --write-restricted-token also write-restricted: a write must pass a second
 * check against the account itself, Everyone, RESTRICTED and the capability SIDs of
 * the --write-root roots, so what BUILTIN\Users may write is no longer writable), runs
 * it in a job that kills every process in it when the job closes (when the runner
 * ends, however it ends), with the environment of env.c, and exits with its status.
 * exec starts it; run alone, it sandboxes nothing but the token and the job.
 */
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

int
cmd_runner(int argc, char **argv)
{
	int restricted = 0, rc = SW_EUSAGE, status, r;
	const char *cwd = NULL;
	struct strlist roots = { 0 }, env = { 0 }, cmd = { 0 }, childenv = { 0 }, sids = { 0 };
	struct wa_spawn sp = { 0 };
	const struct opt o[] = {
		{ "--write-restricted-token", OT_FLAG, &restricted },
		{ "--write-root", OT_LIST, &roots },
		{ "--env", OT_LIST, &env },
		{ "--cwd", OT_STR, &cwd },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("runner", argc, argv, o, &cmd, 0) != 0)
		goto out;
	if (cmd.n == 0) {
		sw_err("usage", "srt-win: runner: no program (put it after --)");
		goto out;
	}
	if (strchr(cmd.v[0], '"') != NULL) {
		sw_err("usage", "srt-win: runner: a program name cannot hold '\"'");
		goto out;
	}
	if (roots.n > 0 && !restricted) {
		sw_err("usage", "srt-win: runner: --write-root needs --write-restricted-token");
		goto out;
	}
	for (size_t i = 0; i < env.n; i++) {
		const char *eq = strchr(env.v[i], '=');
		char *name = eq != NULL ? xstrndup(env.v[i], (size_t)(eq - env.v[i])) : NULL;
		int ok = name != NULL && env_name_allowed(name);

		if (!ok)
			sw_err("usage",
			    "srt-win: runner: --env \"%s\": only PATH and the proxy "
			    "variables, as NAME=VALUE",
			    env.v[i]);
		free(name);
		if (!ok)
			goto out;
	}
	for (size_t i = 0; i < roots.n; i++) {
		char *c = sw_path_clean(roots.v[i]), *sid;

		if (c == NULL || (sid = root_capability(c)) == NULL) {
			sw_err("usage",
			    "srt-win: runner: --write-root %s: not an absolute path",
			    roots.v[i]);
			free(c);
			rc = SW_EUSAGE;
			goto out;
		}
		strlist_push_owned(&sids, sid);
		free(c);
	}
	env_build(wa_environ(), env.v, &childenv);
	sp.argv = cmd.v;
	sp.env = childenv.v;
	sp.path = env_get(childenv.v, "PATH");
	sp.cwd = cwd;
	sp.write_restricted = restricted;
	sp.restrict_sids = sids.v;
	sw_trace("runner: %s, %zu variables, %s token", cmd.v[0], childenv.n,
	    restricted ? "write-restricted" : "unprivileged");
	/* A Ctrl-C reaches the command through the console: wait for its status. */
	wa_console_keep();
	if ((r = wa_run_contained(&sp, &status)) < 0) {
		/* A program that is not there, or cannot be run, is told as shells tell it:
		 * callers' scripts test for 127 and 126. */
		switch (wa_start_error()) {
		case WA_START_NOTFOUND:
			sw_err("command_not_found",
			    "srt-win: runner: %s: command not found: %s", cmd.v[0], wa_error());
			rc = SW_ENOTFOUND;
			break;
		case WA_START_NOEXEC:
			sw_err("command_not_executable",
			    "srt-win: runner: %s: cannot be run: %s", cmd.v[0], wa_error());
			rc = SW_ENOEXEC;
			break;
		default:
			sw_err("spawn_failed", "srt-win: runner: %s: %s", cmd.v[0], wa_error());
			rc = SW_ESYSTEM;
			break;
		}
		goto out;
	}
	rc = status;
out:
	strlist_free(&roots);
	strlist_free(&env);
	strlist_free(&cmd);
	strlist_free(&childenv);
	strlist_free(&sids);
	return rc;
}
