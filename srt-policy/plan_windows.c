/* plan --target windows: the ACE plan as JSON lines (lib/sandbox/plan_windows.c). */
#include <sys/types.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "plan.h"
#include "srt-policy.h"
#include "util.h"

int
plan_windows(const struct opts *o)
{
	struct plan_ctx ctx = { 0 };
	struct diags errs = { 0 };
	struct plan_input in;
	char *text = NULL;
	int rc = EXIT_ERROR, built;

	if (o->tmpdir != NULL || o->unguarded) {
		log_warnx("plan --target windows: %s applies to other targets only",
		    o->tmpdir != NULL ? "--tmpdir" : "--unguarded");
		return EXIT_ERROR;
	}
	if (plan_input_load(o, &in) != 0)
		goto out;
	(void)plan_input_resolve(&in, false);
	ctx.cwd = in.cwd;
	ctx.home = in.home;
	ctx.settings_path = in.spath;
	built = plan_windows_text(&in.s, &ctx, &text, &errs);
	rc = plan_print(built, text, &errs);
out:
	free(text);
	diags_free(&errs);
	plan_input_free(&in);
	return rc;
}
