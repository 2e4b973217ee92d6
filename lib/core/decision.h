/*
 * The decision record: what a proxy decided about one request, one JSON object per line on
 * the decision log. The proxies write it (proxy_log), the launcher reads it (violations.c);
 * both go through this codec, so the field names, their types and the verdict spellings
 * have one owner.
 *
 *   {"time":"2025-01-31T12:00:00.123Z","protocol":"connect","client":"127.0.0.1:40000",
 *    "host":"example.com","port":443,"verdict":"allow","rule":"example.com",
 *    "reason":null,"route":"direct","status":200,"bytes_up":517,"bytes_down":4210,
 *    "duration_ms":35}
 *
 * protocol: "http", "connect", "socks5". verdict: "allow"; "deny" (policy or resolved-
 * address guard: reason says which); "audit-deny" (--audit: would have been denied, was
 * allowed); "error" (allowed, but the dial failed: reason says why). rule is the matching
 * settings entry as written, or null. status is the HTTP status or SOCKS reply code sent
 * (null if none). route is how an allowed request left: "direct", "parent URL" (a parent
 * proxy, without credentials) or "mitm unix:PATH" (the inspection proxy), null when
 * nothing was dialled. A refusal under refuseOpaqueTunnels has the rule
 * "refuseOpaqueTunnels" (a name no domain entry can have). host is the canonical host
 * when it parsed, else the request's host with every byte outside printable ASCII
 * replaced by '?'. time is UTC with milliseconds. Every field is always present but one;
 * the reader refuses a line that lacks one or gives one the wrong type. The exception is
 * request, written only for the refusal of one HTTP request inside an exchange the
 * domain policy allowed (a masked credential that cannot be re-signed, say): "METHOD URL",
 * the URL cut after a '?' (a query may hold a signature); the launcher then shows
 * "deny http-request METHOD URL (reason)", as the reference does.
 */
#ifndef SRT_DECISION_H
#define SRT_DECISION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "lines.h"
#include "util.h"

enum verdict {
	VERDICT_NONE, /* not decided yet: recorded as "deny" */
	VERDICT_ALLOW,
	VERDICT_DENY,
	VERDICT_AUDIT_DENY,
	VERDICT_ERROR,
};

/* "allow", "deny", "audit-deny", "error" (VERDICT_NONE: "deny"). */
const char *verdict_name(enum verdict v);

#define DECISION_TIME_MAX UTIL_TIME_MAX

struct decision {
	char time[DECISION_TIME_MAX]; /* UTC, milliseconds: util_time_now() */
	const char *protocol;
	const char *client;
	const char *host;
	unsigned port;
	enum verdict verdict;
	const char *rule;    /* or NULL */
	const char *reason;  /* or NULL */
	const char *route;   /* or NULL */
	const char *request; /* or NULL: absent from the line */
	int status;          /* -1: none */
	uint64_t bytes_up, bytes_down;
	uint64_t duration_ms;
};

/* The rule of a refusal under network.refuseOpaqueTunnels. */
#define DECISION_RULE_OPAQUE "refuseOpaqueTunnels"

/* The members of d's object, without the braces: a record is "{", these, "}\n". A reader
 * that keeps the record may append members of its own before the "}". */
void decision_format_members(struct buf *b, const struct decision *d);
/* The whole line, newline included. */
void decision_format(struct buf *b, const struct decision *d);

#define DECISION_LINE_MAX (64u << 10) /* a longer line is not one of ours */

/*
 * The reader of a decision log (lines.h: lines_feed, lines_finish, lines_free): one
 * callback per well-formed record; a malformed line, or one longer than
 * DECISION_LINE_MAX, is counted, and lines_finish warns once about them ("PROG: the
 * proxies' decision log had N malformed ... lines").
 */
typedef void (*decision_cb)(void *arg, const struct decision *d);
void decision_reader_init(struct lines *r, decision_cb cb, void *arg);

#endif
