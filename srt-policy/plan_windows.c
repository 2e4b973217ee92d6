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
	struct settings s;
	struct policy *p;
	char *spath = NULL, *home = NULL, *cwd = NULL, *text = NULL;
	int rc = EXIT_ERROR, loaded = 0, built;

	if (o->tmpdir != NULL || o->unguarded) {
		log_warnx("plan --target windows: %s applies to other targets only",
		    o->tmpdir != NULL ? "--tmpdir" : "--unguarded");
		return EXIT_ERROR;
	}
	if (plan_where(o, &cwd, &home) != 0)
		goto out;
	if (load_policy(o, &p, &s, &spath) != 0)
		goto out;
	policy_free(p);
	loaded = 1;
	if (spath != NULL && spath[0] != '/') {
		char *abs = realpath(spath, NULL);

		free(spath);
		spath = abs;    /* NULL: the file is gone; nothing to protect */
	}
	ctx.cwd = cwd;
	ctx.home = home;
	ctx.settings_path = spath;
	built = plan_windows_text(&s, &ctx, &text, &errs);
	rc = plan_print(built, text, &errs);
out:
	free(text);
	diags_free(&errs);
	if (loaded)
		settings_free(&s);
	free(spath);
	free(home);
	free(cwd);
	return rc;
}
