/*
 * The sandbox's own violation record: what srt-seccomp's monitor saw the sandbox refuse
 * (a write the write guard or a read-only mount refused, a listing of a denied
 * directory, a connection to an address outside the sandbox's loopback), one JSON object
 * per line on the descriptor srt-launch gives it (--violations-fd). srt-seccomp writes
 * it (violation_format), srt-launch reads it (violation_reader_init) and shows the line
 * (violation_line); both go through this codec, as the proxies' records go through
 * decision.h.
 *
 *   {"time":"2025-01-31T12:00:00.123Z","kind":"file-write","operation":"unlink",
 *    "path":"/home/u/p/.bashrc","reason":"mandatory deny: shell start-up file; no
 *    setting lifts it: change it outside srt","violation":"deny file-write
 *    /home/u/p/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change
 *    it outside srt)"}
 *   {"time":"...","kind":"direct-connect","operation":"connect","protocol":"tcp",
 *    "address":"192.0.2.1","port":80,"violation":"deny network-outbound 192.0.2.1:80
 *    (direct connection; only the proxies at localhost:3128 and :1080 are reachable)"}
 *   {"time":"...","kind":"left-out","count":99000,"violation":"(99000 more refused calls
 *    not reported: at most 1000 lines a run)"}
 *
 * The writer runs inside the sandbox, so the reader treats every line as untrusted: it
 * checks each field (an absolute path, a known kind, an address that parses) and builds
 * the line it shows from the fields, never taking the "violation" member as it comes.
 * The path is the command's (its call named it): a diagnostic, sanitised for display
 * like every other violation line, and never a decision.
 */
#ifndef SRT_VIOLATION_H
#define SRT_VIOLATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "lines.h"
#include "util.h"

enum viol_kind {
	VK_FILE_WRITE, /* "file-write": a write-intent call refused */
	VK_FILE_READ,  /* "file-read": a denied directory listed */
	VK_CONNECT,    /* "direct-connect": a connection past the proxies */
	VK_LEFT_OUT,   /* "left-out": how many refusals were not reported */
	VK_MAX
};

/* What a record calls each kind (the comments above). */
extern const char *const violation_kind_names[VK_MAX];

#define VIOL_TIME_MAX UTIL_TIME_MAX
#define VIOL_LINES_MAX 1000   /* lines a run reports, then one "left-out" */
#define VIOL_RECORD_MAX 4096  /* PIPE_BUF: one write, never torn */
#define VIOL_PATH_SHOWN 1024  /* a longer path is cut (and said to be) */
#define VIOL_REASON_SHOWN 512 /* a longer reason is cut */

/* The reason of a direct connection, and of a write a read-only mount refused. */
#define VIOL_WHY_DIRECT \
	"direct connection; only the proxies at localhost:3128 " \
	"and :1080 are reachable"

struct violation {
	char time[VIOL_TIME_MAX]; /* UTC, milliseconds, as decision.h writes it */
	enum viol_kind kind;
	const char *op;     /* the call: "open", "unlink", "connect", ... */
	const char *path;   /* file-*: absolute */
	bool path_cut;      /* file-*: path is the first VIOL_PATH_SHOWN bytes */
	const char *reason; /* file-*: the rule */
	const char *proto;  /* direct-connect: "tcp", "udp", or another type */
	const char *addr;   /* direct-connect: numeric, IPv6 without brackets */
	unsigned port;
	uint64_t count; /* left-out */
};

/* The whole record, newline included: at most VIOL_RECORD_MAX bytes (a longer path is
 * cut to VIOL_PATH_SHOWN bytes, with "path_cut": true). */
void violation_format(struct buf *b, const struct violation *v);

/* The line shown to the user (unsanitised: the caller sanitises it for display):
 * "deny file-write PATH (REASON)", "deny file-read PATH (REASON)", "deny
 * network-outbound ADDR:PORT (direct connection; ...)", or the left-out sentence. */
char *violation_line(const struct violation *v);

/* The members a reader that keeps the record writes again (--violations FILE): every
 * field of v without the braces, "violation" being line. */
void violation_format_members(struct buf *b, const struct violation *v, const char *line);

/*
 * The reader of the monitor's descriptor (lines.h: lines_feed, lines_finish, lines_free):
 * one callback per well-formed record; a malformed line, or one longer than
 * VIOL_RECORD_MAX, is counted, and lines_finish warns once.
 */
typedef void (*violation_cb)(void *arg, const struct violation *v);
void violation_reader_init(struct lines *r, violation_cb cb, void *arg);

/* One line (without its newline) as the reader judges it: 0 and the callback's record
 * in *v (strings borrowed from *tree, which the caller frees with cJSON_Delete), or -1
 * with the name of what is wrong in *bad. For the reader, the fuzz target and tests. */
int violation_parse(
    const char *line, size_t len, struct violation *v, void **tree, const char **bad);

#endif
