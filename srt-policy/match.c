/*
 * match: the name-based decision (BEHAVIOR §2.2) for HOST PORT, or for every
 * "HOST<TAB>PORT" line of stdin. Batch mode answers one line per input line, in order;
 * a malformed line gets "error: line N: ..." in its place and the batch goes on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "srt-policy.h"
#include "util.h"

/* A deny reason is free text from the settings: controls become spaces so that one
 * answer stays one line. */
static void
put_sanitised(const char *s, size_t n, FILE *f)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		putc_unlocked(c < 0x20 || c == 0x7f ? ' ' : c, f);
	}
}

static void
put_verdict(const struct policy_verdict *v, FILE *f)
{
	if (v->allow) {
		fputs_unlocked("allow\n", f);
		return;
	}
	/* The managed policy's denials say so, as the proxies' do. */
	fputs_unlocked(v->managed ? "deny: managed: " : "deny: ", f);
	put_sanitised(v->reason, v->reason_len, f);
	putc_unlocked('\n', f);
}

/* One query's answer names the entry that decided, in parentheses after the verdict, as
 * the settings spell it (a batch keeps one bare verdict a line). */
static void
put_verdict_rule(const struct policy_verdict *v, FILE *f)
{
	if (v->rule == NULL) {
		put_verdict(v, f);
		return;
	}
	if (v->allow)
		fputs_unlocked("allow", f);
	else {
		fputs_unlocked(v->managed ? "deny: managed: " : "deny: ", f);
		put_sanitised(v->reason, v->reason_len, f);
	}
	fprintf(f, " (%s%s \"", v->managed ? "managed " : "",
	    v->allow ? "allowedDomains" : "deniedDomains");
	put_sanitised(v->rule, v->rule_len, f);
	fputs_unlocked("\")\n", f);
}

static int
match_batch(const struct policy *p)
{
	static char outbuf[1 << 20];
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	int bad = 0, rc = 0;

	setvbuf(stdout, outbuf, _IOFBF, sizeof(outbuf));
	while ((n = getline(&line, &cap, stdin)) != -1) {
		struct policy_verdict v;
		const char *tab;
		uint16_t port;
		size_t len = (size_t)n;

		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			len--;
		if (len > 0 && line[len - 1] == '\r')
			len--;
		if ((tab = memchr(line, '\t', len)) == NULL) {
			fprintf(stdout, "error: line %lu: expected HOST<TAB>PORT\n", lineno);
			bad = 1;
			continue;
		}
		if (port_parse(tab + 1, len - (size_t)(tab + 1 - line), &port) != 0) {
			fprintf(stdout,
			    "error: line %lu: bad port: expected a number from 1 to "
			    "65535\n",
			    lineno);
			bad = 1;
			continue;
		}
		policy_decide(p, line, (size_t)(tab - line), port, &v);
		put_verdict(&v, stdout);
	}
	if (ferror(stdin)) {
		log_warn("match: reading stdin");
		rc = EXIT_ERROR;
	}
	if (fflush(stdout) == EOF || ferror(stdout)) {
		log_warn("match: writing stdout");
		rc = EXIT_ERROR;
	}
	free(line);
	if (bad && rc == 0) {
		log_warnx("match: some input lines were malformed");
		rc = EXIT_ERROR;
	}
	return rc;
}

int
cmd_match(const struct opts *o)
{
	struct policy_verdict v;
	struct policy *p;
	uint16_t port = 0;
	int rc;

	if (o->argc == 2 && port_parse(o->argv[1], strlen(o->argv[1]), &port) != 0) {
		log_warnx(
		    "match: bad port \"%s\": expected a number from 1 to 65535", o->argv[1]);
		return EXIT_ERROR;
	}
	if (load_policy(o, &p, NULL, NULL) != 0)
		return EXIT_ERROR;
	if (o->argc == 1) {
		rc = match_batch(p);
		policy_free(p);
		return rc;
	}
	policy_decide(p, o->argv[0], strlen(o->argv[0]), port, &v);
	put_verdict_rule(&v, stdout);
	rc = v.allow ? EXIT_ALLOW : EXIT_DENY;
	if (fflush(stdout) == EOF) {
		log_warn("match: writing stdout");
		rc = EXIT_ERROR;
	}
	policy_free(p);
	return rc;
}
