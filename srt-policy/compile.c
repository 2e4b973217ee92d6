/* check, compile and dump: settings in, policy image out, and back. */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "srt-policy.h"
#include "util.h"

int
cmd_check(const struct opts *o)
{
	struct settings s;

	if (load_settings(o, &s, NULL) != 0)
		return EXIT_ERROR;
	settings_free(&s);
	return 0;
}

int
cmd_compile(const struct opts *o)
{
	struct settings s;
	struct policy *p = NULL;
	uint8_t *buf = NULL;
	size_t len;
	char err[512];
	int rc = EXIT_ERROR;

	if (load_settings(o, &s, NULL) != 0)
		return EXIT_ERROR;
	if (policy_compile(&s, &buf, &len) != 0) {
		log_warnx("%s: cannot compile the settings (a value is out of range)",
		    o->output);
		goto out;
	}
	/* Read back what we are about to write: never leave an image behind that the
	 * helpers would refuse. */
	if ((p = policy_open_mem(buf, len, err, sizeof(err))) == NULL) {
		log_warnx("%s: compiled image does not verify: %s", o->output, err);
		goto out;
	}
	if (policy_write_file(o->output, buf, len, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		goto out;
	}
	log_debug("wrote %zu bytes to %s", len, o->output);
	rc = 0;
out:
	policy_free(p);
	free(buf);
	settings_free(&s);
	return rc;
}

int
cmd_dump(const struct opts *o)
{
	struct settings s;
	char *json;
	int rc = 0;

	if (load_policy_settings(o, &s, NULL) != 0)
		return EXIT_ERROR;
	json = settings_to_json(&s);
	if (json == NULL) {
		log_warnx("%s: cannot print the settings", o->policy);
		rc = EXIT_ERROR;
	} else if (fputs(json, stdout) == EOF || fflush(stdout) == EOF) {
		log_warn("stdout");
		rc = EXIT_ERROR;
	}
	free(json);
	settings_free(&s);
	return rc;
}
