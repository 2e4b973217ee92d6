/*
 * lib/sandbox/sbpl.c: the strict reader of Seatbelt profiles (what it accepts, what it refuses,
 * the rule lines it prints) and the parser of `log stream` deny lines.
 */
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "tap.h"
#include "util.h"

static int
parses(const char *text)
{
	struct sbpl_profile p;
	struct diags errs = { 0 };
	int r = sbpl_parse(text, strlen(text), &p, &errs);

	if (r == 0)
		sbpl_free(&p);
	diags_free(&errs);
	return r == 0;
}

/* The first message for a profile that must be refused, or "" when it was accepted. */
static char *
refusal(const char *text)
{
	struct sbpl_profile p;
	struct diags errs = { 0 };
	char *m;

	if (sbpl_parse(text, strlen(text), &p, &errs) == 0) {
		sbpl_free(&p);
		return xstrdup("");
	}
	m = xstrdup(errs.msgs.n > 0 ? errs.msgs.v[0] : "(no message)");
	diags_free(&errs);
	return m;
}

static void
refused(const char *text, const char *why)
{
	char *m = refusal(text);

	ok(*m != '\0' && strstr(m, why) != NULL, "refused (%s): %s", why, m);
	free(m);
}

static void
test_accepts(void)
{
	const char *good =
	    "(version 1)\n"
	    "(deny default (with message \"t_1\"))\n"
	    "; a comment\n"
	    "(allow process-exec)\n"
	    "(allow mach-lookup\n  (global-name \"com.apple.fonts\")\n  (global-name-prefix \"x.\"))\n"
	    "(allow system-socket (require-all (socket-domain AF_SYSTEM) (socket-protocol 2)))\n"
	    "(allow network-bind (local ip \"localhost:3128\"))\n"
	    "(allow network-inbound (local ip \"*:*\"))\n"
	    "(allow network-outbound (remote ip \"localhost:*\"))\n"
	    "(allow network-bind (local unix-socket (path-regex #\"^/\")))\n"
	    "(allow network-outbound (remote unix-socket (subpath \"/tmp/s\")))\n"
	    "(allow file-read-metadata\n  (vnode-type DIRECTORY))\n"
	    "(deny file-read*\n  (require-all (regex \"^/a(/.*)?$\") (require-not (subpath \"/a/b\")))\n"
	    "  (with message \"t_1\"))\n"
	    "(allow file-ioctl (literal \"/dev/ptmx\") (regex #\"^/dev/ttys\"))\n";
	struct sbpl_profile p;
	struct diags errs = { 0 };
	char *text;

	ok(sbpl_parse(good, strlen(good), &p, &errs) == 0, "a profile of every form parses");
	ok(p.n == 12, "12 rules (%zu)", p.n);
	ok(p.n > 0 && p.rules[0].message != NULL && strcmp(p.rules[0].message, "t_1") == 0,
	    "the message of the default deny is kept apart");
	text = sbpl_rules_text(&p);
	ok(strstr(text, "deny default\t\n") != NULL, "a rule without filter prints one line");
	ok(strstr(text,
	       "allow mach-lookup\t(global-name \"com.apple.fonts\")\n"
	       "allow mach-lookup\t(global-name-prefix \"x.\")\n") != NULL,
	    "one line per filter");
	ok(strstr(text,
	       "deny file-read*\t(require-all (regex \"^/a(/.*)?$\") "
	       "(require-not (subpath \"/a/b\")))\n") != NULL,
	    "nested filters canonical");
	ok(strstr(text, "t_1") == NULL, "no message in the rule lines");
	free(text);
	sbpl_free(&p);
	diags_free(&errs);

	/* Escapes are read as JSON reads them, and printed back canonically. */
	{
		const char *e =
		    "(version 1)\n(allow file-read* (subpath \"/a\\\"b\\\\c\\u0001\\/d\"))\n";

		ok(sbpl_parse(e, strlen(e), &p, &errs) == 0, "escapes in strings");
		text = sbpl_rules_text(&p);
		ok(strcmp(text, "allow file-read*\t(subpath \"/a\\\"b\\\\c\\u0001/d\")\n") == 0,
		    "escapes printed back: %s", text);
		free(text);
		sbpl_free(&p);
	}
	ok(parses("(version 1)(allow default)"), "no line breaks needed");
}

static void
test_refuses(void)
{
	char big[2200];

	refused("(version 1)\n(allow process-exec\n", "never closed");
	refused("(version 1)\n(allow process-exec))\n", "closes nothing");
	refused("(version 1)\n(allow process-execs)\n", "unknown operation");
	refused("(version 1)\n(allow file-read* (literally \"/x\"))\n", "unknown filter");
	refused("(version 1)\n(allow file-read* (subpath /x))\n", "wrong arguments");
	refused("(version 1)\n(allow file-read* (subpath \"/x\" \"/y\"))\n", "wrong arguments");
	refused("(version 1)\n(allow file-read* (require-not))\n", "wrong arguments");
	refused("(version 1)\n(allow network-outbound (remote ip \"127.0.0.1:80\"))\n",
	    "localhost:PORT");
	refused("(version 1)\n(allow network-outbound (remote ip \"localhost:65536\"))\n",
	    "localhost:PORT");
	refused("(version 1)\n(allow network-outbound (remote tcp \"localhost:1\"))\n",
	    "wrong arguments");
	refused("(version 1)\n(allow file-read* (subpath \"/x\") file-write*)\n",
	    "operation after a filter");
	refused("(version 1)\n(allow (subpath \"/x\"))\n", "without an operation");
	refused("(version 1)\n(allow file-read* (with message \"a\") (subpath \"/x\"))\n",
	    "modifier");
	refused("(version 1)\n(allow file-read* (with report))\n", "modifier");
	refused("(allow process-exec)\n(version 1)\n", "before (version 1)");
	refused("(version 2)\n(allow process-exec)\n", "(version 1) must");
	refused("(version 1)\n", "no rules");
	refused("(allow process-exec)\n", "before");
	refused("(version 1)\n(import \"bsd.sb\")\n", "unknown top-level");
	refused("(version 1)\n(allow file-read* (subpath \"/x))", "does not end");
	refused("(version 1)\n(allow file-read* (subpath \"/x\\q\"))\n", "unknown escape");
	refused("(version 1)\n(allow file-read* (subpath \"/x\ny\"))\n", "control character");
	refused("(version 1)\n(allow file-read* (regex #\"^/x))\n", "does not end");
	memset(big, 'a', sizeof(big));
	memcpy(big, "(version 1)(allow file-read* (subpath \"/", 40);
	memcpy(big + 40 + 1030, "\"))", 4);
	refused(big, "longer than sandbox-exec reads");
	{
		/* Deep nesting is refused, not recursed into without end. */
		char *deep = xmalloc(4000), *o = deep;
		int i;

		o += sprintf(o, "(version 1)(allow file-read* ");
		for (i = 0; i < 100; i++)
			o += sprintf(o, "(require-not ");
		o += sprintf(o, "(subpath \"/x\")");
		for (i = 0; i < 101; i++)
			*o++ = ')';
		*o = '\0';
		refused(deep, "nested too deep");
		free(deep);
	}
	{
		const char nul[] = "(version 1)\n(allow process-exec)\0\n";
		struct sbpl_profile p;
		struct diags errs = { 0 };

		ok(sbpl_parse(nul, sizeof(nul) - 1, &p, &errs) == -1, "a NUL byte is refused");
		diags_free(&errs);
	}
}

static void
log_is(const char *line, const char *tag, const char *want)
{
	char *got = NULL;
	int r = sbpl_log_violation(line, strlen(line), tag, &got);

	if (want == NULL)
		ok(r == 0 && got == NULL, "not a violation: %s", line);
	else
		ok(r == 1 && got != NULL && strcmp(got, want) == 0, "%s -> %s (got %s)", line,
		    want, got != NULL ? got : "nothing");
	free(got);
}

static void
test_log(void)
{
	log_is("2025-01-02 10:11:12.345 E  kernel[0:1a2b] (Sandbox) Sandbox: bash(4242) "
	       "deny(1) file-write-create /Users/me/proj/.bashrc",
	    "T",
	    "deny file-write-create "
	    "/Users/me/proj/.bashrc");
	log_is("2025-01-02 10:11:12.345 E  kernel[0:1a2b] Sandbox: curl(77) deny(1) "
	       "network-outbound 1.2.3.4:443",
	    "T", "deny network-outbound 1.2.3.4:443");
	log_is("Sandbox: cat(1) deny(1) file-read-data /Users/me/a file with spaces", "T",
	    "deny file-read-data /Users/me/a file with spaces");
	/* a process name with spaces and parentheses */
	log_is("Sandbox: Google Chrome (x)(99) deny(1) mach-lookup com.example.x", "T",
	    "deny mach-lookup com.example.x");
	/* no count, no target */
	log_is("Sandbox: sh(5) deny process-fork", "T", "deny process-fork");
	/* the tag at the end of the line goes */
	log_is("Sandbox: sh(5) deny(1) file-write-data /x SRT_1_abc_SBX", "SRT_1_abc_SBX",
	    "deny file-write-data /x");
	log_is(
	    "Sandbox: sh(5) deny(1) file-write-unlink /y\r", "T", "deny file-write-unlink /y");
	/* the system's own noise */
	log_is(
	    "Sandbox: mDNSResponder(1) deny(1) network-outbound /private/var/run/x", "T", NULL);
	log_is("Sandbox: sh(5) deny(1) mach-lookup com.apple.diagnosticd", "T", NULL);
	log_is("Sandbox: sh(5) deny(1) mach-lookup com.apple.analyticsd", "T", NULL);
	/* not deny lines */
	log_is("Filtering the log data using \"eventMessage ENDSWITH \\\"T\\\"\"", "T", NULL);
	log_is("Timestamp               Ty Process[PID:TID]", "T", NULL);
	log_is("SRT_1_abc_SBX", "SRT_1_abc_SBX", NULL);
	log_is("Sandbox: sh(5) allow(1) file-read-data /x", "T", NULL);
	log_is("Sandbox: sh(5) deny(1)", "T", NULL);
	log_is("Sandbox: sh(5) deny(x) file-read-data /x", "T", NULL);
	log_is("Sandbox: sh(5) deny(1) FILE-READ /x", "T", NULL);
	log_is("", "T", NULL);
	{
		/* bytes of any kind are kept as they are (the launcher sanitises for display) */
		const char raw[] = "Sandbox: a(1) deny(1) file-read-data /\x1b[31m\xff";
		char *got = NULL;

		ok(sbpl_log_violation(raw, sizeof(raw) - 1, "T", &got) == 1 && got != NULL &&
			strcmp(got, "deny file-read-data /\x1b[31m\xff") == 0,
		    "raw bytes kept");
		free(got);
	}
}

int
main(void)
{
	test_accepts();
	test_refuses();
	test_log();
	return tap_done();
}
