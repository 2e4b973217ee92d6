/*
 * sbpl-rules FILE: read a Seatbelt profile with the strict reader of lib/sandbox/sbpl.c. A
 * well-formed one is printed one filter a line ("ACTION OPS<TAB>FILTER", log messages
 * left out), so that two profiles compare rule by rule with diff; otherwise each problem
 * is printed on stderr and the exit status is 1 (2 for a file that cannot be read).
 */
#include <stdio.h>
#include <stdlib.h>

#include "sbpl.h"
#include "util.h"

int
main(int argc, char **argv)
{
	struct sbpl_profile p;
	struct diags errs = { 0 };
	char *text, *rules;
	size_t len, i;

	if (argc != 2) {
		fprintf(stderr, "usage: sbpl-rules FILE\n");
		return 2;
	}
	if (read_file(argv[1], 64u << 20, &text, &len) == -1) {
		perror(argv[1]);
		return 2;
	}
	if (sbpl_parse(text, len, &p, &errs) == -1) {
		for (i = 0; i < errs.msgs.n; i++)
			fprintf(stderr, "%s: %s\n", argv[1], errs.msgs.v[i]);
		diags_free(&errs);
		free(text);
		return 1;
	}
	rules = sbpl_rules_text(&p);
	fputs(rules, stdout);
	free(rules);
	sbpl_free(&p);
	free(text);
	return fflush(stdout) == 0 ? 0 : 2;
}
