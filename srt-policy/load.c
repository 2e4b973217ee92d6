/* Where the policy comes from: a settings file (-s, default ~/.srt-settings.json) or a
 * compiled image (-p), loaded by lib's policy_source_load as in every program. */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
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
