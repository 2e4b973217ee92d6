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

#include <cjson/cJSON.h>

#include "launch.h"
#include "utf8.h"

#define VIOL_LINE_MAX   (64u << 10)     /* a longer log line is not one of ours */
#define VIOL_KEEP       100             /* lines kept for the block: the latest */

struct violations {
	const struct settings *set;
	char *command;
	int fd;                         /* --violations FILE, or -1 */
	char *buf;                      /* partial line from the pipe */
	size_t len;
	bool skipping;                  /* inside an over-long line */
	char *keep[VIOL_KEEP];
	size_t nkeep, total;
};

struct violations *
violations_new(const struct settings *s, const char *command, const char *file)
{
	struct violations *v = xcalloc(1, sizeof(*v));

	v->set = s;
	v->command = xstrdup(command);
	v->fd = -1;
	v->buf = xmalloc(VIOL_LINE_MAX);
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

static void
viol_line(struct violations *v, const char *text, size_t len)
{
	cJSON *o, *verdict, *host, *port, *reason;
	char *line, *clean;

	if ((o = cJSON_ParseWithLength(text, len)) == NULL)
		return;
	verdict = cJSON_GetObjectItemCaseSensitive(o, "verdict");
	host = cJSON_GetObjectItemCaseSensitive(o, "host");
	port = cJSON_GetObjectItemCaseSensitive(o, "port");
	reason = cJSON_GetObjectItemCaseSensitive(o, "reason");
	if (!cJSON_IsString(verdict) || strcmp(verdict->valuestring, "deny") != 0 ||
	    !cJSON_IsString(host)) {
		cJSON_Delete(o);
		return;
	}
	line = xasprintf("deny network-outbound %s:%d (%s)", host->valuestring,
	    cJSON_IsNumber(port) ? port->valueint : 0,
	    cJSON_IsString(reason) ? reason->valuestring : "denied");
	clean = violations_sanitise(line);
	free(line);
	if (viol_ignored(v, clean)) {
		free(clean);
		cJSON_Delete(o);
		return;
	}
	log_debug("violation: %s", clean);
	if (v->fd != -1) {
		char *js;

		cJSON_AddStringToObject(o, "violation", clean);
		cJSON_AddStringToObject(o, "command", v->command);
		if ((js = cJSON_PrintUnformatted(o)) != NULL) {
			char *rec = xasprintf("%s\n", js);

			/* One write per record, so concurrent runs appending to the same
			 * file do not interleave within a line. */
			if (write(v->fd, rec, strlen(rec)) == -1)
				log_warn("write violations file");
			free(rec);
			cJSON_free(js);
		}
	}
	if (v->nkeep == VIOL_KEEP) {
		free(v->keep[0]);
		memmove(v->keep, v->keep + 1, (VIOL_KEEP - 1) * sizeof(v->keep[0]));
		v->nkeep--;
	}
	v->keep[v->nkeep++] = clean;
	v->total++;
	cJSON_Delete(o);
}

void
violations_feed(struct violations *v, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (c == '\n') {
			if (!v->skipping && v->len > 0)
				viol_line(v, v->buf, v->len);
			v->len = 0;
			v->skipping = false;
			continue;
		}
		if (v->skipping)
			continue;
		if (v->len == VIOL_LINE_MAX) {
			v->skipping = true;
			v->len = 0;
			continue;
		}
		v->buf[v->len++] = c;
	}
}

void
violations_finish(struct violations *v, bool print_block)
{
	struct strlist out = { 0 };
	size_t i, total = 0;
	char *text;

	if (v->len > 0 && !v->skipping)
		viol_line(v, v->buf, v->len);
	v->len = 0;
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
	free(v->buf);
	free(v->command);
	free(v);
}
