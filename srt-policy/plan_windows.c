/* plan --target windows: the ACE plan as JSON lines (lib/sandbox/plan_windows.c). */
#include "log.h"
#include "plan.h"
#include "srt-policy.h"

int
plan_windows(const struct opts *o)
{
	if (o->tmpdir != NULL || o->unguarded) {
		log_warnx("plan --target windows: %s applies to other targets only",
		    o->tmpdir != NULL ? "--tmpdir" : "--unguarded");
		return EXIT_ERROR;
	}
	/* A settings file that is gone has nothing to protect. */
	return plan_text(o, false, plan_windows_text);
}
