/* Where the policy comes from: a settings file (-s, default ~/.srt-settings.json) or a
 * compiled image (-p). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "srt-policy.h"
#include "util.h"

static void
diags_log(const struct diags *d, const char *tag)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		log_warnx("%s%s", tag, d->msgs.v[i]);
}

int
load_settings(const struct opts *o, struct settings *s, char **pathp)
{
	struct diags errs = { 0 }, warns = { 0 };
	char *path;
	int rc;

	path = o->settings != NULL ? xstrdup(o->settings) : settings_default_path();
	if (path == NULL) {
		log_warnx("cannot find the home directory for ~/.srt-settings.json; use -s");
		return -1;
	}
	log_debug("reading settings from %s", path);
	rc = settings_load(path, s, &errs, &warns);
	diags_log(&warns, "warning: ");
	diags_log(&errs, "");
	diags_free(&errs);
	diags_free(&warns);
	if (rc != 0) {
		free(path);
		return -1;
	}
	if (pathp != NULL)
		*pathp = path;
	else
		free(path);
	return 0;
}

struct policy *
load_policy(const struct opts *o)
{
	struct settings s;
	struct policy *p;
	char err[512];

	if (o->policy != NULL) {
		log_debug("reading policy from %s", o->policy);
		if ((p = policy_open_file(o->policy, err, sizeof(err))) == NULL)
			log_warnx("%s", err);
		return p;
	}
	if (load_settings(o, &s, NULL) != 0)
		return NULL;
	if ((p = policy_from_settings(&s, err, sizeof(err))) == NULL)
		log_warnx("%s", err);
	settings_free(&s);
	return p;
}

int
load_policy_settings(const struct opts *o, struct settings *s, char **pathp)
{
	struct policy *p;
	int rc;

	if (pathp != NULL)
		*pathp = NULL;
	if (o->policy == NULL)
		return load_settings(o, s, pathp);
	if ((p = load_policy(o)) == NULL)
		return -1;
	rc = policy_to_settings(p, s);
	if (rc != 0)
		log_warnx("%s: cannot rebuild the settings from the policy", o->policy);
	policy_free(p);
	return rc;
}
