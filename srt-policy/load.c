/* Where the policy comes from: a settings file (-s, default ~/.srt-settings.json) or a
 * compiled image (-p), loaded by lib's policy_source_load as in every program; and what
 * every plan shares: where it is made for, and how it is printed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "policy_source.h"
#include "srt-policy.h"
#include "util.h"

int
load_policy(const struct opts *o, struct policy **p, struct settings *s, char **pathp)
{
	struct policy_source src = { .policy_path = o->policy, .settings_path = o->settings,
	    .policy_fd = -1, .fallback = POLICY_SOURCE_DEFAULT_FILE };
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

/* The working directory (--cwd, resolved) and home a plan is made for. */
int
plan_where(const struct opts *o, char **cwd, char **home)
{
	*home = NULL;
	if ((*cwd = o->cwd != NULL ? realpath(o->cwd, NULL) : getcwd(NULL, 0)) == NULL) {
		log_warn("plan: %s", o->cwd != NULL ? o->cwd : "getcwd");
		return -1;
	}
	if ((*home = path_home()) == NULL) {
		log_warnx("plan: cannot tell the home directory (set HOME to an absolute path)");
		free(*cwd);
		*cwd = NULL;
		return -1;
	}
	return 0;
}

int
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
