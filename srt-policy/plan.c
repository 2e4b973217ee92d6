/*
 * plan: the platform plan for a policy. Linux: the bubblewrap filesystem arguments. macOS:
 * the Seatbelt profile, on any host. Windows: plan_windows.c.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "managed.h"
#include "path.h"
#include "plan.h"
#include "srt-policy.h"
#include "util.h"

static void
put_shell_word(const char *w, FILE *f)
{
	char *q = shell_quote(w);

	fputs(q, f);
	free(q);
}

static int
plan_linux(const struct opts *o)
{
	struct settings s;
	struct policy *p;
	struct plan_linux plan;
	struct plan_ctx ctx;
	struct diags errs = { 0 };
	char *spath = NULL, *home = NULL, *cwd = NULL;
	int rc = EXIT_ERROR;

	memset(&plan, 0, sizeof(plan));
	memset(&ctx, 0, sizeof(ctx));
	if (o->cwd != NULL)
		cwd = realpath(o->cwd, NULL);
	else
		cwd = getcwd(NULL, 0);
	if (cwd == NULL) {
		log_warn("plan: %s", o->cwd != NULL ? o->cwd : "getcwd");
		return EXIT_ERROR;
	}
	if ((home = path_home()) == NULL) {
		log_warnx("plan: cannot tell the home directory (set HOME to an absolute path)");
		free(cwd);
		return EXIT_ERROR;
	}
	if (load_policy(o, &p, &s, &spath) != 0) {
		free(cwd);
		free(home);
		return EXIT_ERROR;
	}
	policy_free(p);
	/* The plan protects the file the policy came from by its path (as srt does): give
	 * it the absolute one. */
	if (spath != NULL && spath[0] != '/') {
		char *abs = realpath(spath, NULL);

		if (abs == NULL) {
			log_warn("plan: %s", spath);
			goto out;
		}
		free(spath);
		spath = abs;
	}
	/* No self_dirs: no launcher of ours is running to protect. */
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = cwd;
	ctx.home = home;
	ctx.settings_path = spath;
	ctx.managed_path = managed_path;
	ctx.exec_path = getenv("PATH");
	if (plan_linux_build(&s, &ctx, &plan, &errs) != 0) {
		for (size_t i = 0; i < errs.msgs.n; i++)
			log_warnx("plan: %s", errs.msgs.v[i]);
		if (errs.msgs.n == 0)
			log_warnx("plan: cannot build the Linux plan");
		goto out;
	}
	for (size_t i = 0; i < plan.args.n; i++) {
		if (o->shell) {
			if (i > 0)
				putchar(' ');
			put_shell_word(plan.args.v[i], stdout);
		} else {
			fputs(plan.args.v[i], stdout);
			putchar('\0');
		}
	}
	if (o->shell)
		putchar('\n');
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("plan: writing stdout");
		goto out;
	}
	rc = 0;
out:
	plan_linux_free(&plan);
	diags_free(&errs);
	settings_free(&s);
	free(spath);
	free(home);
	free(cwd);
	return rc;
}

/*
 * The macOS profile, printed as sandbox-exec takes it. The proxies' ports are chosen when
 * srt starts on the Mac; shown here are 3128 and 1080 (the ports inside the Linux sandbox),
 * or httpProxyPort / socksProxyPort when the settings name the user's own proxies.
 */
#define PLAN_MACOS_TAG          "srt_plan"

static int
plan_macos(const struct opts *o)
{
	struct settings s;
	struct policy *p;
	struct plan_ctx ctx;
	struct plan_macos_opts mo = { PLAN_MACOS_HTTP_PORT, PLAN_MACOS_SOCKS_PORT,
	    PLAN_MACOS_TAG };
	struct diags errs = { 0 };
	char *spath = NULL, *home = NULL, *cwd = NULL, *profile = NULL;
	int rc = EXIT_ERROR;

	if (o->shell) {
		log_warnx("plan --target macos: --shell applies to the linux target only");
		return EXIT_ERROR;
	}
	cwd = o->cwd != NULL ? realpath(o->cwd, NULL) : getcwd(NULL, 0);
	if (cwd == NULL) {
		log_warn("plan: %s", o->cwd != NULL ? o->cwd : "getcwd");
		return EXIT_ERROR;
	}
	if ((home = path_home()) == NULL) {
		log_warnx("plan: cannot tell the home directory (set HOME to an absolute path)");
		free(cwd);
		return EXIT_ERROR;
	}
	if (load_policy(o, &p, &s, &spath) != 0) {
		free(cwd);
		free(home);
		return EXIT_ERROR;
	}
	policy_free(p);
	if (spath != NULL && spath[0] != '/') {
		char *abs = realpath(spath, NULL);

		if (abs == NULL) {
			log_warn("plan: %s", spath);
			goto out;
		}
		free(spath);
		spath = abs;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = cwd;
	ctx.home = home;
	ctx.settings_path = spath;
	ctx.managed_path = managed_path;
	if (plan_macos_build(&s, &ctx, &mo, &profile, &errs) != 0) {
		for (size_t i = 0; i < errs.msgs.n; i++)
			log_warnx("plan: %s", errs.msgs.v[i]);
		goto out;
	}
	if (fputs(profile, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("plan: writing stdout");
		goto out;
	}
	rc = 0;
 out:
	free(profile);
	diags_free(&errs);
	settings_free(&s);
	free(spath);
	free(home);
	free(cwd);
	return rc;
}

int
cmd_plan(const struct opts *o)
{
	if (strcmp(o->target, "linux") == 0)
		return plan_linux(o);
	if (strcmp(o->target, "macos") == 0)
		return plan_macos(o);
	if (strcmp(o->target, "windows") == 0)
		return plan_windows(o);
	log_warnx("plan: unknown target \"%s\" (linux, macos or windows)", o->target);
	usage_cmd("plan");
	return EXIT_ERROR;
}
