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
	int rc = EXIT_ERROR, loaded = 0;

	if (o->tmpdir != NULL || o->unguarded) {
		log_warnx("plan --target windows: %s applies to other targets only",
		    o->tmpdir != NULL ? "--tmpdir" : "--unguarded");
		return EXIT_ERROR;
	}
	if ((cwd = o->cwd != NULL ? realpath(o->cwd, NULL) : getcwd(NULL, 0)) == NULL) {
		log_warn("plan: %s", o->cwd != NULL ? o->cwd : "getcwd");
		goto out;
	}
	if ((home = path_home()) == NULL) {
		log_warnx("plan: cannot tell the home directory (set HOME to an absolute path)");
		goto out;
	}
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
	if (plan_windows_text(&s, &ctx, &text, &errs) != 0) {
		for (size_t i = 0; i < errs.msgs.n; i++)
			log_warnx("plan: %s", errs.msgs.v[i]);
		goto out;
	}
	if (fputs(text, stdout) == EOF || fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("plan: writing stdout");
		goto out;
	}
	rc = 0;
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
