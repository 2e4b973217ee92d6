/*
 * libFuzzer target for lib/sandbox/sbpl.c: the strict profile reader and the `log stream` deny
 * parser (its lines carry paths a sandboxed command chose). Properties: a profile that
 * parses prints rule lines that, read again as a profile of one-filter rules, print the
 * same; every line of the input given to the log parser gives nothing or one
 * "deny OPERATION ..." string no longer than the line plus "deny ".
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Rule lines back into a profile: "ACTION OPS\tFILTER" -> "(ACTION OPS FILTER)". */
static char *
relist(const char *rules)
{
	size_t n = strlen(rules);
	char *out = malloc(n * 2 + 32), *o = out;
	const char *p = rules;

	if (out == NULL)
		abort();
	o += sprintf(o, "(version 1)\n");
	while (*p != '\0') {
		const char *nl = strchr(p, '\n');

		if (nl == NULL)
			abort();
		*o++ = '(';
		for (; p < nl; p++)
			*o++ = *p == '\t' ? ' ' : *p;
		*o++ = ')';
		*o++ = '\n';
		p = nl + 1;
	}
	*o = '\0';
	return out;
}

static void
profile(const char *text, size_t size)
{
	struct sbpl_profile p, q;
	struct diags errs = { 0 };
	char *rules, *again, *rules2;

	if (sbpl_parse(text, size, &p, &errs) != 0) {
		if (errs.msgs.n == 0)
			abort();
		diags_free(&errs);
		return;
	}
	rules = sbpl_rules_text(&p);
	again = relist(rules);
	if (sbpl_parse(again, strlen(again), &q, &errs) != 0)
		abort();
	rules2 = sbpl_rules_text(&q);
	if (strcmp(rules, rules2) != 0)
		abort();
	free(rules2);
	free(rules);
	free(again);
	sbpl_free(&p);
	sbpl_free(&q);
}

static void
log_lines(const char *text, size_t size)
{
	const char *p = text, *end = text + size;

	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
		char *out = NULL;
		int r = sbpl_log_violation(p, len, "SRT_fuzz_SBX", &out);

		if (r == 1 &&
		    (out == NULL || strncmp(out, "deny ", 5) != 0 || strlen(out) > len + 5))
			abort();
		if (r == 0 && out != NULL)
			abort();
		free(out);
		p += len + 1;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	profile((const char *)data, size);
	log_lines((const char *)data, size);
	return 0;
}
