/*
 * libFuzzer target for the settings parser: any bytes either fail with messages and an
 * empty result, or parse; a parsed document must survive settings_to_json, parse again
 * without errors and give back the same canonical JSON.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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
	diags_free(&errs);
	diags_free(&warns);
	return 0;
}
