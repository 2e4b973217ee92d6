/*
 * What srt-launch does before a launch path's run function, done by hand for the test
 * drivers of the macOS and Windows paths (macos-launch.c, win-launch.c): the settings
 * and policy from l->settings_arg, the proxies' directory from $SRT_BIN, the working
 * directory, HOME, the violations; and after it, the <sandbox_violations> block srt
 * prints, and the frees.
 */
#ifndef SRT_TESTS_LAUNCH_DRIVER_H
#define SRT_TESTS_LAUNCH_DRIVER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "policy.h"

static int
driver_prepare(struct launch *l, const char *prog, const char *bin)
{
	struct diags errs = { 0 }, warns = { 0 };
	char err[256];
	int rc = -1;

	log_init(prog, l->debug, LAUNCH_FAIL);
	if (settings_load(l->settings_arg, &l->set, &errs, &warns) == -1) {
		diags_print(&errs, stderr);
		goto out;
	}
	if ((l->pol = policy_from_settings(&l->set, err, sizeof(err))) == NULL) {
		fprintf(stderr, "%s: %s\n", prog, err);
		settings_free(&l->set);
		goto out;
	}
	l->config_path = realpath(l->settings_arg, NULL);
	l->self_dir = xstrdup(bin);
	l->cwd = getcwd(NULL, 0);
	l->home = xstrdup(getenv("HOME") != NULL ? getenv("HOME") : "/");
	l->viol = violations_new(
	    &l->set, l->cstring != NULL ? l->cstring : l->cmd[0], l->violations_arg);
	if (l->viol != NULL && l->cwd != NULL)
		rc = 0;
out:
	diags_free(&errs);
	diags_free(&warns);
	return rc;
}

static int
driver_finish(struct launch *l, int rc)
{
	violations_finish(l->viol, true);
	violations_free(l->viol);
	policy_free(l->pol);
	settings_free(&l->set);
	free(l->config_path);
	free(l->self_dir);
	free(l->cwd);
	free(l->home);
	free(l->tmpdir);
	return rc;
}

#endif
