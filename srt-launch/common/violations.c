/*
 * Violations (SPEC §2, BEHAVIOR §5): the proxies write one JSON object per decision on the
 * log pipe; the denials become "deny network-outbound HOST:PORT (REASON)" lines, filtered
 * by ignoreViolations, appended to --violations FILE as JSON ("-": standard error), and
 * shown in a <sandbox_violations> block after the command (by srt-launch only without
 * --violations). srt-seccomp's monitor writes what the
 * sandbox itself refused (lib/core/violation.h: files, direct connections) on a pipe of its
 * own; those records join the same lines. Every record carries a "kind". A run reports
 * at most VIOL_LINES_MAX lines, then one that says how many were left out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision.h"
#include "launch.h"
#include "sys_file.h"
#include "utf8.h"
#include "violation.h"

#define VIOL_KEEP 100 /* lines kept for the block: the latest */

struct violations {
	const struct settings *set;
	char *command;
	int fd;               /* --violations FILE, or -1 */
	struct lines reader;  /* the proxies' decision log */
	struct lines sreader; /* the sandbox's own (srt-seccomp --violations-fd) */
	char *keep[VIOL_KEEP];
	size_t nkeep, total;
	size_t lines;      /* reported, of VIOL_LINES_MAX */
	uint64_t left_out; /* past the cap, here or in srt-seccomp */
};

static void viol_record(void *, const struct decision *);
static void viol_sandbox(void *, const struct violation *);

struct violations *
violations_new(const struct settings *s, const char *command, const char *file)
{
	struct violations *v = xcalloc(1, sizeof(*v));

	v->set = s;
	v->command = xstrdup(command);
	v->fd = -1;
	decision_reader_init(&v->reader, viol_record, v);
	violation_reader_init(&v->sreader, viol_sandbox, v);
	/* "-": standard error, as a script that pipes the command's output wants it. */
	if (file != NULL && strcmp(file, "-") == 0) {
#ifdef _WIN32
		v->fd = dup(STDERR_FILENO);
#else
		v->fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
#endif
		if (v->fd == -1) {
			log_warn("--violations -: standard error");
			violations_free(v);
			return NULL;
		}
	} else if (file != NULL) {
		v->fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
		if (v->fd == -1) {
			log_warn("--violations %s", file);
			violations_free(v);
			return NULL;
		}
	}
	return v;
}

/* Runs of control and invisible characters (and bytes that are not UTF-8) become one
 * space, '<' and '>' go, the ends are trimmed (BEHAVIOR §5). */
char *
violations_sanitise(const char *s)
{
	size_t n = strlen(s);
	char *out = xmalloc(3 * n + 1);

	n = utf8_sanitise(
	    s, n, UTF8_INVISIBLE | UTF8_BAD_RUN | UTF8_NO_ANGLE | UTF8_TRIM, 0, out);
	out[n] = '\0';
	return out;
}

/* ignoreViolations: "*" patterns match any line; other keys are substrings of the
 * command, and their values substrings of the line. */
static int
viol_ignored(const struct violations *v, const char *line)
{
	size_t i, j;

	for (i = 0; i < v->set->nignore; i++) {
		const struct ignore_entry *e = &v->set->ignore[i];

		if (strcmp(e->pattern, "*") != 0 && strstr(v->command, e->pattern) == NULL)
			continue;
		for (j = 0; j < e->subs.n; j++)
			if (strstr(line, e->subs.v[j]) != NULL)
				return 1;
	}
	return 0;
}

/* The line is in the block already (a refusal of another call on the same path: the
 * file keeps both records, with their calls). */
static bool
viol_shown(const struct violations *v, const char *clean)
{
	size_t i;

	for (i = 0; i < v->nkeep; i++)
		if (strcmp(v->keep[i], clean) == 0)
			return true;
	return false;
}

/* One record of the file: the source's members (a proxy's decision d, or the sandbox's
 * record s, or neither: a line of macOS's sandbox log), the line and the command. One
 * write per record, so concurrent runs appending to the same file do not interleave
 * within a line. */
static void
viol_write(struct violations *v, const char *clean, const struct decision *d,
    const struct violation *s)
{
	struct buf rec = { 0 };

	if (v->fd == -1)
		return;
	buf_addc(&rec, '{');
	if (d != NULL) {
		buf_adds(&rec, "\"kind\":\"network\",");
		decision_format_members(&rec, d);
		buf_addc(&rec, ',');
	} else if (s != NULL) {
		violation_format_members(&rec, s, clean);
		buf_addc(&rec, ',');
	} else
		buf_adds(&rec, "\"kind\":\"seatbelt\",");
	if (s == NULL) {
		buf_adds(&rec, "\"violation\":");
		buf_add_jstr(&rec, clean, strlen(clean));
		buf_addc(&rec, ',');
	}
	buf_adds(&rec, "\"command\":");
	buf_add_jstr(&rec, v->command, strlen(v->command));
	buf_adds(&rec, "}\n");
	if (write(v->fd, rec.p, rec.len) == -1)
		log_warn("write violations file");
	buf_free(&rec);
}

/* Record one violation: clean (taken) is the line, d the proxy's decision it came from,
 * s the sandbox's record, or neither for a line of macOS's sandbox log (violations_add). */
static void
viol_keep(
    struct violations *v, char *clean, const struct decision *d, const struct violation *s)
{
	if (viol_ignored(v, clean)) {
		free(clean);
		return;
	}
	if (v->lines >= VIOL_LINES_MAX) {
		v->left_out++;
		free(clean);
		return;
	}
	v->lines++;
	log_debug("violation: %s", clean);
	viol_write(v, clean, d, s);
	if (s != NULL && viol_shown(v, clean)) {
		free(clean);
		return;
	}
	if (v->nkeep == VIOL_KEEP) {
		free(v->keep[0]);
		memmove(v->keep, v->keep + 1, (VIOL_KEEP - 1) * sizeof(v->keep[0]));
		v->nkeep--;
	}
	v->keep[v->nkeep++] = clean;
	v->total++;
}

static void
viol_record(void *arg, const struct decision *d)
{
	struct violations *v = arg;
	char *line;

	/* -d: what was allowed, with the entry that allowed it (the refusals are the
	 * violations below). */
	if (d->verdict == VERDICT_ALLOW && log_debugging()) {
		char *clean = violations_sanitise(d->rule != NULL ? d->rule : "");

		log_debug(strchr(d->host, ':') != NULL
			? "allow network-outbound [%s]:%u "
			  "(%s%s%s)"
			: "allow network-outbound %s:%u (%s%s%s)",
		    d->host, d->port,
		    *clean != '\0' ? "allowed by allowedDomains \"" : "allowed", clean,
		    *clean != '\0' ? "\"" : "");
		free(clean);
	}
	if (d->verdict != VERDICT_DENY)
		return;
	/* refuseOpaqueTunnels: the reference's two lines for it. */
	if (d->rule != NULL && strcmp(d->rule, DECISION_RULE_OPAQUE) == 0 &&
	    strcmp(d->protocol, "socks5") == 0)
		line = xasprintf(
		    "deny socks-tunnel %s:%u (refuseOpaqueTunnels)", d->host, d->port);
	else if (d->request != NULL)
		line = xasprintf("deny http-request %s (%s)", d->request,
		    d->reason != NULL ? d->reason : "denied");
	else if (d->rule != NULL && strcmp(d->rule, DECISION_RULE_OPAQUE) == 0)
		line = xasprintf(strchr(d->host, ':') != NULL
			? "deny http-request CONNECT "
			  "[%s]:%u (%s)"
			: "deny http-request CONNECT %s:%u (%s)",
		    d->host, d->port, d->reason != NULL ? d->reason : "refuseOpaqueTunnels");
	else
		line = xasprintf("deny network-outbound %s:%u (%s)", d->host, d->port,
		    d->reason != NULL ? d->reason : "denied");
	viol_keep(v, violations_sanitise(line), d, NULL);
	free(line);
}

/* One of the sandbox's records: its line is built here from its checked fields, and
 * what the command named (the path) reaches the file sanitised as the line does. */
static void
viol_sandbox(void *arg, const struct violation *s)
{
	struct violations *v = arg;
	struct violation c = *s;
	char *line, *path = NULL, *reason = NULL;

	if (s->kind == VK_LEFT_OUT) {
		v->left_out += s->count;
		return;
	}
	line = violation_line(s);
	if (s->kind == VK_FILE_WRITE || s->kind == VK_FILE_READ) {
		c.path = path = violations_sanitise(s->path);
		c.reason = reason = violations_sanitise(s->reason);
	}
	viol_keep(v, violations_sanitise(line), NULL, &c);
	free(line);
	free(path);
	free(reason);
}

void
violations_add(struct violations *v, const char *line)
{
	viol_keep(v, violations_sanitise(line), NULL, NULL);
}

void
violations_feed(struct violations *v, const char *buf, size_t len)
{
	lines_feed(&v->reader, buf, len);
}

void
violations_feed_sandbox(struct violations *v, const char *buf, size_t len)
{
	lines_feed(&v->sreader, buf, len);
}

/* The last line of a run past the cap: how many were left out. */
static char *
viol_left_out(struct violations *v)
{
	struct violation s;
	char *line;

	memset(&s, 0, sizeof(s));
	util_time_now(s.time);
	s.kind = VK_LEFT_OUT;
	s.count = v->left_out;
	line = violation_line(&s);
	viol_write(v, line, NULL, &s);
	return line;
}

void
violations_finish(struct violations *v, bool print_block)
{
	struct strlist out = { 0 };
	size_t i, total = 0;
	char *text, *left = NULL;

	lines_finish(&v->reader);
	lines_finish(&v->sreader);
	if (v->left_out > 0)
		left = viol_left_out(v);
	if (!print_block || (v->nkeep == 0 && left == NULL)) {
		free(left);
		return;
	}
	strlist_push(&out, "<sandbox_violations>\n");
	if (v->total > v->nkeep)
		strlist_pushf(
		    &out, "(%zu earlier violations not shown)\n", v->total - v->nkeep);
	for (i = 0; i < v->nkeep; i++)
		strlist_pushf(&out, "%s\n", v->keep[i]);
	if (left != NULL)
		strlist_pushf(&out, "%s\n", left);
	free(left);
	strlist_push(&out, "</sandbox_violations>\n");
	for (i = 0; i < out.n; i++)
		total += strlen(out.v[i]);
	text = xmalloc(total + 1);
	for (total = 0, i = 0; i < out.n; i++) {
		size_t k = strlen(out.v[i]);

		memcpy(text + total, out.v[i], k);
		total += k;
	}
	(void)!write(STDERR_FILENO, text, total);
	free(text);
	strlist_free(&out);
}

void
violations_free(struct violations *v)
{
	size_t i;

	if (v == NULL)
		return;
	for (i = 0; i < v->nkeep; i++)
		free(v->keep[i]);
	if (v->fd != -1)
		close(v->fd);
	lines_free(&v->reader);
	lines_free(&v->sreader);
	free(v->command);
	free(v);
}
