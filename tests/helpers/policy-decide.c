/*
 * policy-decide POLICY HOST PORT [HOST PORT]...: the compiled policy's name-based
 * decision for each, one line each: "HOST PORT allow|deny RULE|- REASON|-". Built
 * natively and for Windows (make win), so that tests/windows/proxies-wine.bats can check that
 * the Windows build reads policy.bin (without mmap) and decides as Linux does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"

int
main(int argc, char **argv)
{
	struct policy_verdict v;
	struct policy *p;
	char err[512];
	int i;

	if (argc < 4 || argc % 2 != 0) {
		fprintf(stderr, "usage: policy-decide POLICY HOST PORT [HOST PORT]...\n");
		return 2;
	}
	if ((p = policy_open_file(argv[1], err, sizeof(err))) == NULL) {
		fprintf(stderr, "policy-decide: %s\n", err);
		return 1;
	}
	for (i = 2; i + 1 < argc; i += 2) {
		memset(&v, 0, sizeof(v));
		policy_decide(p, argv[i], strlen(argv[i]), (uint16_t)atoi(argv[i + 1]), &v);
		printf("%s %s %s %.*s %.*s\n", argv[i], argv[i + 1], v.allow ? "allow" : "deny",
		    v.rule ? (int)v.rule_len : 1, v.rule ? v.rule : "-",
		    v.reason ? (int)v.reason_len : 1, v.reason ? v.reason : "-");
	}
	policy_free(p);
	return 0;
}
