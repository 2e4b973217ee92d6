/* Where the policy comes from: a settings file (-s, default ~/.srt-settings.json) or a
 * compiled image (-p), loaded by lib's policy_source_load as in every program; and what
 * every plan shares: where it is made for, and how it is printed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "managed.h"
#include "path.h"
#include "plan.h"
#include "policy_source.h"
#include "srt-policy.h"
#include "util.h"

int
load_policy(const struct opts *o, struct policy **p, struct settings *s, char **pathp)
{
	struct policy_source src = { .policy_path = o->policy,
		.settings_path = o->settings,
		.policy_fd = -1,
		.fallback = POLICY_SOURCE_DEFAULT_FILE };
	struct diags errs = { 0 }, warns = { 0 };
	size_t i;
	int rc;

	rc = policy_source_load(&src, p, s, pathp, &errs, &warns);
	for (i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	for (i = 0; i < errs.msgs.n; i++)
		log_warnx("%s", errs.msgs.v[i]);
	diags_free(&errs);
	diags_free(&warns);
	return rc;
}

/* What a plan is made for: the working directory (--cwd, resolved), home, and the
 * settings. */
int
plan_input_load(const struct opts *o, struct plan_input *in)
{
	struct policy *p;

	memset(in, 0, sizeof(*in));
	if ((in->cwd = o->cwd != NULL ? realpath(o->cwd, NULL) : getcwd(NULL, 0)) == NULL) {
		log_warn("plan: %s", o->cwd != NULL ? o->cwd : "getcwd");
		return -1;
	}
	if ((in->home = path_home()) == NULL) {
		log_warnx(
		    "plan: cannot tell the home directory (set HOME to an absolute path)");
		return -1;
	}
	if (load_policy(o, &p, &in->s, &in->spath) != 0)
		return -1;
	policy_free(p);
	in->loaded = true;
	return 0;
}

/* The macOS and Windows plans protect the settings file itself: its name resolved. A file
 * that is gone has nothing to protect (spath NULL), unless it must be there. */
static int
plan_input_resolve(struct plan_input *in, bool must_exist)
{
	char *abs;

	if (in->spath == NULL || in->spath[0] == '/')
		return 0;
	if ((abs = realpath(in->spath, NULL)) == NULL && must_exist) {
		log_warn("plan: %s", in->spath);
		return -1;
	}
	free(in->spath);
	in->spath = abs;
	return 0;
}

void
plan_input_free(struct plan_input *in)
{
	if (in->loaded)
		settings_free(&in->s);
	free(in->spath);
	free(in->home);
	free(in->cwd);
}

/* The plan's text on stdout when it was built (built 0), else errs: 0, or EXIT_ERROR
 * with a message. */
static int
plan_print(int built, const char *text, const struct diags *errs)
{
	if (built != 0) {
		for (size_t i = 0; i < errs->msgs.n; i++)
			log_warnx("plan: %s", errs->msgs.v[i]);
		return EXIT_ERROR;
	}
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("plan: writing stdout");
		return EXIT_ERROR;
	}
	return 0;
}

/* A plan printed as text, macOS's profile or Windows's entries, from what every target
 * starts with (the context's cwd, home, temp directory and the settings' files). */
int
plan_text(const struct opts *o, bool must_exist, plan_text_fn *build)
{
	struct plan_ctx ctx = { 0 };
	struct diags errs = { 0 };
	struct plan_input in;
	char *text = NULL;
	int rc = EXIT_ERROR, built;

	if (plan_input_load(o, &in) != 0 || plan_input_resolve(&in, must_exist) != 0)
		goto out;
	ctx.cwd = in.cwd;
	ctx.home = in.home;
	ctx.tmpdir = o->tmpdir;
	ctx.settings_path = in.spath;
	ctx.managed_path = managed_path;
	built = build(&in.s, &ctx, &text, &errs);
	rc = plan_print(built, text, &errs);
out:
	free(text);
	diags_free(&errs);
	plan_input_free(&in);
	return rc;
}
