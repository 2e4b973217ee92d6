/*
 * Seatbelt profiles (SBPL) as text, read back: a strict reader of the subset srt writes,
 * used to check every generated profile (balanced, only known operations and filters,
 * arguments of the right kind, no string longer than sandbox-exec reads) and to compare
 * two profiles rule by rule. And the lines `log stream` prints for a sandbox deny.
 */
#ifndef SRT_SBPL_H
#define SRT_SBPL_H

#include <stddef.h>

#include "util.h"

#define SBPL_STRING_MAX 1025 /* sandbox-exec: "Error reading string" past this */
#define SBPL_DEPTH_MAX 32

struct sbpl_rule {
	char *action;           /* "allow" or "deny" */
	struct strlist ops;     /* the operations */
	struct strlist filters; /* each filter as canonical text */
	char *message;          /* (with message "...") or NULL */
};

struct sbpl_profile {
	struct sbpl_rule *rules;
	size_t n;
};

/*
 * Read a whole profile: "(version 1)" first, then allow and deny rules. Every problem
 * goes to errs ("line N: ..."); -1 if there was one (out is then empty).
 */
int sbpl_parse(const char *text, size_t len, struct sbpl_profile *out, struct diags *errs);
void sbpl_free(struct sbpl_profile *p);

/* The rules one filter a line, "ACTION OPS\tFILTER" ("ACTION OPS\t" for a rule without
 * one), messages left out: two profiles that allow and deny the same print the same.
 * Caller frees. */
char *sbpl_rules_text(const struct sbpl_profile *p);

/*
 * One line of `log stream --style compact` output: for a sandbox deny ("... Sandbox:
 * PROC(PID) deny(1) OPERATION TARGET"), *out gets "deny OPERATION TARGET" (the target as
 * printed, the log tag removed from its end) and 1 is returned; 0 for any other line,
 * and for the denies the system itself causes all the time (mDNSResponder, the log and
 * analytics daemons). Caller frees *out.
 */
int sbpl_log_violation(const char *line, size_t len, const char *tag, char **out);

#endif
