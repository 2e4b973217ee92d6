/*
 * plan: the platform plan for a policy. Linux: bubblewrap's arguments, all that srt passes
 * but the command. macOS: the Seatbelt profile, on any host. Windows: plan_windows.c.
 */
#include <sys/types.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout.h"
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

/* Prints the words of the plan's parts: NUL-terminated, or as one shell line. */
static int
plan_print_words(const struct strlist *const *part, size_t nparts, bool shell)
{
	size_t i, k, n = 0;

	for (k = 0; k < nparts; k++)
		for (i = 0; i < part[k]->n; i++, n++) {
			if (shell) {
				if (n > 0)
					putchar(' ');
				put_shell_word(part[k]->v[i], stdout);
			} else {
				fputs(part[k]->v[i], stdout);
				putchar('\0');
			}
		}
	if (shell)
		putchar('\n');
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("plan: writing stdout");
		return EXIT_ERROR;
	}
	return 0;
}

/*
 * The Linux plan: every argument srt passes to bwrap for these settings, cwd, home and
 * TMPDIR but the command, as the srt beside this program would pass them (its helpers
 * found by the same rule, lib/core/layout.c) when run by this user with this PATH: the
 * launcher fills the plan's context the same way (srt-launch/linux/run.c,
 * launch_plan_ctx).
 */
static int
plan_linux(const struct opts *o)
{
	struct plan_input in;
	struct plan_linux plan;
	struct plan_ctx ctx;
	struct diags errs = { 0 };
	char *here = NULL, *tmpdir = NULL, *self = NULL, *helpers = NULL, *seccomp = NULL;
	const struct strlist *part[2] = { &plan.args, &plan.exec };
	int rc = EXIT_ERROR;
	size_t i;

	memset(&plan, 0, sizeof(plan));
	if (plan_input_load(o, &in) != 0)
		goto out;
	if ((here = getcwd(NULL, 0)) == NULL) {
		log_warn("plan: getcwd");
		goto out;
	}
	if ((self = layout_self_dir()) == NULL) {
		log_warnx("plan: cannot find my own directory through /proc/self/exe");
		goto out;
	}
	helpers = layout_helpers_dir(self);
	seccomp = path_join(helpers, LAYOUT_SECCOMP);
	if (o->tmpdir != NULL && (tmpdir = path_absolute(o->tmpdir, NULL, here)) == NULL) {
		log_warnx("plan: --tmpdir: an empty path");
		goto out;
	}
	/* The plan protects the file the policy came from by its name, made absolute
	 * against the directory we run in (not resolved), as srt does. */
	if (in.spath != NULL) {
		char *abs = path_absolute(in.spath, NULL, here);

		free(in.spath);
		in.spath = abs;
	}
	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = in.cwd;
	ctx.home = in.home;
	ctx.tmpdir = tmpdir;
	ctx.ref_tmpdir = PLAN_REF_TMPDIR;
	ctx.settings_path = in.spath;
	ctx.managed_path = managed_path;
	ctx.self_dirs[0] = self;
	if (strcmp(helpers, self) != 0)
		ctx.self_dirs[1] = helpers;
	ctx.exec_path = getenv("PATH");
	ctx.seccomp_path = seccomp;
	ctx.as_root = geteuid() == 0;
	ctx.unguarded = o->unguarded;
	ctx.debug = o->debug;
	if (plan_linux_build(&in.s, &ctx, &plan, &errs) != 0) {
		for (i = 0; i < errs.msgs.n; i++)
			log_warnx("plan: %s", errs.msgs.v[i]);
		if (errs.msgs.n == 0)
			log_warnx("plan: cannot build the Linux plan");
		goto out;
	}
	rc = plan_print_words(part, 2, o->shell);
out:
	plan_linux_free(&plan);
	diags_free(&errs);
	plan_input_free(&in);
	free(here);
	free(tmpdir);
	free(self);
	free(helpers);
	free(seccomp);
	return rc;
}

/*
 * The macOS profile, printed as sandbox-exec takes it. The proxies' ports are chosen when
 * srt starts on the Mac; shown here are 3128 and 1080 (the ports inside the Linux sandbox),
 * or httpProxyPort / socksProxyPort when the settings name the user's own proxies.
 */
#define PLAN_MACOS_TAG "srt_plan"

static int
plan_macos_text(
    const struct settings *s, const struct plan_ctx *ctx, char **profile, struct diags *errs)
{
	struct plan_macos_opts mo = { PLAN_MACOS_HTTP_PORT, PLAN_MACOS_SOCKS_PORT,
		PLAN_MACOS_TAG };

	return plan_macos_build(s, ctx, &mo, profile, errs);
}

static int
plan_macos(const struct opts *o)
{
	if (o->shell || o->unguarded) {
		log_warnx("plan --target macos: %s applies to the linux target only",
		    o->shell ? "--shell" : "--unguarded");
		return EXIT_ERROR;
	}
	return plan_text(o, true, plan_macos_text);
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
	log_warnx("plan: unknown target \"%s\"", o->target); /* (checked in main) */
	return EXIT_ERROR;
}
