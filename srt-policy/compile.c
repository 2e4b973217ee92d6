/* check, compile and dump: settings in, policy image out, and back. */
#include <stdio.h>
#include <stdlib.h>

#include "log.h"
#include "srt-policy.h"
#include "util.h"

int
cmd_check(const struct opts *o)
{
	struct policy *p;

	if (load_policy(o, &p, NULL, NULL) != 0)
		return EXIT_ERROR;
	policy_free(p);
	return 0;
}

int
cmd_compile(const struct opts *o)
{
	struct policy *p;
	struct settings s = { 0 };
	const uint8_t *buf;
	size_t len;
	char err[512];
	int rc = EXIT_ERROR;

	/* The image is compiled and read back by the loader: never leave one behind that the
	 * helpers would refuse. */
	if (load_policy(o, &p, &s, NULL) != 0)
		return EXIT_ERROR;
	/* policy.bin has no place for masked credentials: a policy that dropped them would
	 * hand the command the real values. */
	if (s.cred.nmask > 0) {
		log_warnx("%s: credentials with mode \"mask\" cannot be compiled into a "
		    "policy yet; run the command with -s %s instead", o->settings, o->settings);
		goto out;
	}
	buf = policy_bytes(p, &len);
	if (policy_write_file(o->output, buf, len, err, sizeof(err)) != 0) {
		log_warnx("%s", err);
		goto out;
	}
	log_debug("wrote %zu bytes to %s", len, o->output);
	rc = 0;
out:
	policy_free(p);
	settings_free(&s);
	return rc;
}

int
cmd_dump(const struct opts *o)
{
	struct settings s;
	struct policy *p;
	char *json;
	int rc = 0;

	if (load_policy(o, &p, &s, NULL) != 0)
		return EXIT_ERROR;
	policy_free(p);
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
