/*
 * Violations (SPEC §2, BEHAVIOR §5): the proxies write one JSON object per decision on the
 * log pipe; the denials become "deny network-outbound HOST:PORT (REASON)" lines, filtered
 * by ignoreViolations, appended to --violations FILE as JSON, and shown by srt in a
 * <sandbox_violations> block after the command.
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
#include "utf8.h"

#define VIOL_KEEP       100             /* lines kept for the block: the latest */

struct violations {
	const struct settings *set;
	char *command;
	int fd;                         /* --violations FILE, or -1 */
	struct decision_reader reader;  /* the proxies' decision log */
	char *keep[VIOL_KEEP];
	size_t nkeep, total;
};

static void viol_record(void *, const struct decision *);

struct violations *
violations_new(const struct settings *s, const char *command, const char *file)
{
	struct violations *v = xcalloc(1, sizeof(*v));

	v->set = s;
	v->command = xstrdup(command);
	v->fd = -1;
	decision_reader_init(&v->reader, viol_record, v);
	if (file != NULL) {
		v->fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY,
		    0600);
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

	n = utf8_sanitise(s, n, UTF8_INVISIBLE | UTF8_BAD_RUN | UTF8_NO_ANGLE | UTF8_TRIM, 0,
	    out);
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

/* Record one violation: clean (taken) is the line, d the proxy's decision it came from,
 * or NULL for a line of the sandbox's own log (violations_add). */
static void
viol_keep(struct violations *v, char *clean, const struct decision *d)
{
	struct buf rec = { 0 };

	if (viol_ignored(v, clean)) {
		free(clean);
		return;
	}
	log_debug("violation: %s", clean);
	if (v->fd != -1) {
		/* The proxy's record, with the line shown and the command. One write per
		 * record, so concurrent runs appending to the same file do not interleave
		 * within a line. */
		buf_addc(&rec, '{');
		if (d != NULL) {
			decision_format_members(&rec, d);
			buf_addc(&rec, ',');
		}
		buf_adds(&rec, "\"violation\":");
		buf_add_jstr(&rec, clean, strlen(clean));
		buf_adds(&rec, ",\"command\":");
		buf_add_jstr(&rec, v->command, strlen(v->command));
		buf_adds(&rec, "}\n");
		if (write(v->fd, rec.p, rec.len) == -1)
			log_warn("write violations file");
		buf_free(&rec);
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

	if (d->verdict != VERDICT_DENY)
		return;
	/* refuseOpaqueTunnels: the reference's two lines for it. */
	if (d->rule != NULL && strcmp(d->rule, DECISION_RULE_OPAQUE) == 0 &&
	    strcmp(d->protocol, "socks5") == 0)
		line = xasprintf("deny socks-tunnel %s:%u (refuseOpaqueTunnels)", d->host,
		    d->port);
	else if (d->request != NULL)
		line = xasprintf("deny http-request %s (%s)", d->request,
		    d->reason != NULL ? d->reason : "denied");
	else if (d->rule != NULL && strcmp(d->rule, DECISION_RULE_OPAQUE) == 0)
		line = xasprintf(strchr(d->host, ':') != NULL ? "deny http-request CONNECT "
		    "[%s]:%u (%s)" : "deny http-request CONNECT %s:%u (%s)", d->host, d->port,
		    d->reason != NULL ? d->reason : "refuseOpaqueTunnels");
	else
		line = xasprintf("deny network-outbound %s:%u (%s)", d->host, d->port,
		    d->reason != NULL ? d->reason : "denied");
	viol_keep(v, violations_sanitise(line), d);
	free(line);
}

void
violations_add(struct violations *v, const char *line)
{
	viol_keep(v, violations_sanitise(line), NULL);
}

void
violations_feed(struct violations *v, const char *buf, size_t len)
{
	decision_reader_feed(&v->reader, buf, len);
}

void
violations_finish(struct violations *v, bool print_block)
{
	struct strlist out = { 0 };
	size_t i, total = 0;
	char *text;

	decision_reader_finish(&v->reader);
	if (!print_block || v->nkeep == 0)
		return;
	strlist_push(&out, "<sandbox_violations>\n");
	if (v->total > v->nkeep)
		strlist_pushf(&out, "(%zu earlier violations not shown)\n",
		    v->total - v->nkeep);
	for (i = 0; i < v->nkeep; i++)
		strlist_pushf(&out, "%s\n", v->keep[i]);
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
	decision_reader_free(&v->reader);
	free(v->command);
	free(v);
}
