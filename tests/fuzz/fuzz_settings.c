/*
 * libFuzzer target for the settings parser: any bytes either fail with messages and an
 * empty result, or parse; a parsed document must survive settings_to_json, parse again
 * without errors and give back the same canonical JSON. The same bytes as a managed
 * policy (managed.h), merged with a fixed user's file, must merge either with a message
 * or to settings that compile and that a second merge leaves as they are.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "managed.h"
#include "policy.h"
#include "settings.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
all_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

static const char user_doc[] =
    "{\"network\":{\"allowedDomains\":[\"github.com\",\"example.org:443\"],"
    "\"deniedDomains\":[\"evil.example\"],\"deniedDomainReasons\":{\"evil.example\":"
    "\"no\"},\"deniedResolvedAddresses\":[\"10.0.0.0/8\"],\"requireHostMatch\":true},"
    "\"filesystem\":{\"denyRead\":[\"~/.ssh\"],\"allowRead\":[\"~/.ssh/known_hosts\"],"
    "\"allowWrite\":[\".\"],\"denyWrite\":[\".env\"]},\"ignoreViolations\":{\"*\":"
    "[\"/usr\"]},\"mandatoryDenySearchDepth\":2}";

/* data as the managed policy, over user_doc: merged twice, the same. */
static void
fuzz_managed(const uint8_t *data, size_t size)
{
	struct diags errs = { 0 }, warns = { 0 };
	struct settings ms, u, once, twice, back;
	struct managed m = { .present = true, .path = (char *)(uintptr_t) "managed" };
	struct policy *p;
	char err[256], *j1, *j2;

	if (settings_parse_managed((const char *)data, size, "managed", &ms, &errs, &warns) !=
	    0)
		goto out;
	settings_free(&ms);
	m.text = (char *)(uintptr_t)data;
	m.len = size;
	if (settings_parse(user_doc, strlen(user_doc), "user", &u, &errs, &warns) != 0)
		abort();
	if (managed_apply(&m, &u, "user", &once, &errs, &warns) != 0) {
		if (errs.msgs.n == 0 || !all_zero(&once, sizeof(once)))
			abort();
		goto out;
	}
	if ((p = policy_from_settings(&once, err, sizeof(err))) == NULL)
		abort();
	if (policy_to_settings(p, &back) != 0)
		abort();
	policy_free(p);
	diags_free(&warns);
	if (managed_apply(&m, &back, "policy", &twice, &errs, &warns) != 0 || warns.msgs.n != 0)
		abort();
	j1 = settings_to_json(&once);
	j2 = settings_to_json(&twice);
	if (strcmp(j1, j2) != 0 ||
	    memcmp(once.layers.managed, twice.layers.managed, sizeof(once.layers.managed)) !=
		0 ||
	    once.layers.flags != twice.layers.flags)
		abort();
	free(j1);
	free(j2);
	settings_free(&once);
	settings_free(&twice);
out:
	diags_free(&errs);
	diags_free(&warns);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct settings s, s2;
	struct diags errs = { 0 }, warns = { 0 };
	char *j1, *j2;
	int rc;

	rc = settings_parse((const char *)data, size, "fuzz", &s, &errs, &warns);
	/* Valid means no message at all; invalid means at least one and nothing kept. */
	if ((rc == 0) != (errs.msgs.n == 0))
		abort();
	if (rc != 0) {
		if (!all_zero(&s, sizeof(s)))
			abort();
		goto out;
	}
	j1 = settings_to_json(&s);
	diags_free(&warns);
	if (settings_parse(j1, strlen(j1), "fuzz", &s2, &errs, &warns) != 0)
		abort();
	j2 = settings_to_json(&s2);
	if (strcmp(j1, j2) != 0)
		abort();
	free(j2);
	free(j1);
	settings_free(&s2);
	settings_free(&s);
out:
	fuzz_managed(data, size);
	diags_free(&errs);
	diags_free(&warns);
	return 0;
}
