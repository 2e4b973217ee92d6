/* The decision record codec (decision.h): what proxy_log writes, the launcher's reader
 * reads back; malformed and over-long lines are counted and reported once. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decision.h"
#include "tap.h"
#include "util.h"

struct got {
	int n;
	struct decision last;
	char host[256], reason[256], rule[256], route[256], request[256];
	int rule_null;
};

static void
collect(void *arg, const struct decision *d)
{
	struct got *g = arg;

	g->n++;
	g->last = *d;
	snprintf(g->host, sizeof(g->host), "%s", d->host);
	snprintf(g->reason, sizeof(g->reason), "%s", d->reason ? d->reason : "(null)");
	g->rule_null = d->rule == NULL;
	snprintf(g->rule, sizeof(g->rule), "%s", d->rule ? d->rule : "");
	snprintf(g->route, sizeof(g->route), "%s", d->route ? d->route : "(null)");
	snprintf(g->request, sizeof(g->request), "%s", d->request ? d->request : "(null)");
	g->last.host = g->last.reason = g->last.rule = g->last.route = NULL;
	g->last.request = NULL;
}

static void
test_round_trip(void)
{
	struct decision d;
	struct lines r;
	struct got g = { 0 };
	struct buf b = { 0 };
	int i;

	memset(&d, 0, sizeof(d));
	util_time_now(d.time);
	d.protocol = "connect";
	d.client = "127.0.0.1:40000";
	d.host = "example.com";
	d.port = 443;
	d.verdict = VERDICT_DENY;
	d.rule = NULL;
	d.reason = "no \"ssh\"\n\x01 here \xff";
	d.route = "parent http://p.example:3128";
	d.status = 403;
	d.bytes_up = 1ull << 40;
	d.bytes_down = 7;
	d.duration_ms = 35;
	decision_format(&b, &d);
	ok(b.len > 0 && b.p[b.len - 1] == '\n' && memchr(b.p, '\n', b.len - 1) == NULL,
	    "one line: %.*s", (int)b.len - 1, b.p);
	decision_reader_init(&r, collect, &g);
	/* In pieces, as a pipe delivers it. */
	lines_feed(&r, b.p, 10);
	lines_feed(&r, b.p + 10, b.len - 10);
	ok(g.n == 1 && strcmp(g.host, "example.com") == 0 && g.last.port == 443 &&
		g.last.verdict == VERDICT_DENY && g.rule_null && g.last.status == 403 &&
		g.last.bytes_up == 1ull << 40 && g.last.bytes_down == 7 &&
		g.last.duration_ms == 35 && strcmp(g.last.time, d.time) == 0 &&
		strcmp(g.reason, "no \"ssh\"\n\x01 here \xef\xbf\xbd") == 0 &&
		strcmp(g.route, "parent http://p.example:3128") == 0,
	    "the reader gets back what the writer wrote");
	for (int v = VERDICT_ALLOW; v <= VERDICT_ERROR; v++) {
		buf_reset(&b);
		d.verdict = (enum verdict)v;
		d.status = -1;
		d.rule = "*.example.com";
		decision_format(&b, &d);
		lines_feed(&r, b.p, b.len);
		ok(g.last.verdict == (enum verdict)v && g.last.status == -1 &&
			strcmp(g.rule, "*.example.com") == 0,
		    "verdict %s read back", verdict_name((enum verdict)v));
	}
	/* request: only on the line of a refused request inside an allowed exchange. */
	buf_reset(&b);
	d.verdict = VERDICT_DENY;
	decision_format(&b, &d);
	lines_feed(&r, b.p, b.len);
	ok(strstr(buf_str(&b), "\"request\"") == NULL && strcmp(g.request, "(null)") == 0,
	    "no request member unless there is one");
	buf_reset(&b);
	d.request = "PUT http://127.0.0.1:9/b/p?\xe2\x80\xa6";
	decision_format(&b, &d);
	lines_feed(&r, b.p, b.len);
	ok(strcmp(g.request, d.request) == 0, "request read back: %s", g.request);
	buf_reset(&b);
	buf_adds(&b,
	    "{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\","
	    "\"client\":\"c\",\"host\":\"h\",\"port\":80,\"verdict\":\"deny\",\"rule\":null,"
	    "\"reason\":null,\"route\":null,\"request\":5,\"status\":null,\"bytes_up\":0,"
	    "\"bytes_down\":0,\"duration_ms\":0}\n");
	i = g.n;
	lines_feed(&r, b.p, b.len);
	ok(g.n == i && r.malformed == 1, "a request that is not a string: malformed");
	r.malformed = 0;
	d.request = NULL;
	buf_reset(&b);
	d.verdict = VERDICT_NONE;
	decision_format(&b, &d);
	ok(strstr(buf_str(&b), "\"verdict\":\"deny\"") != NULL,
	    "an undecided record is "
	    "written as deny");
	lines_finish(&r);
	lines_free(&r);
	buf_free(&b);
}

/* Run finish with stderr in a file; returns what it wrote. */
static char *
finish_output(struct lines *r)
{
	char path[] = "/tmp/test_decision.XXXXXX", *text = NULL;
	int fd = mkstemp(path), saved = dup(2);
	size_t len;

	fflush(stderr);
	dup2(fd, 2);
	lines_finish(r);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	close(fd);
	if (read_file(path, 1 << 16, &text, &len) != 0)
		text = xstrdup("");
	unlink(path);
	return text;
}

static void
test_bad_lines(void)
{
	static const char *const bad[] = {
		"not json at all",
		"{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\"}",
		"[1,2,3]",
		"{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\",\"client\":\"c\",\"host\":\"h\",\"port\":"
		"70000,\"verdict\":\"deny\",\"rule\":null,\"reason\":null,\"status\":null,"
		"\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":0}",
		"{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\",\"client\":\"c\",\"host\":\"h\",\"port\":"
		"80,\"verdict\":\"maybe\",\"rule\":null,\"reason\":null,\"status\":null,"
		"\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":0}",
		"{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\",\"client\":\"c\",\"host\":7,\"port\":"
		"80,\"verdict\":\"deny\",\"rule\":null,\"reason\":null,\"status\":null,"
		"\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":0}",
		"{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\",\"client\":\"c\",\"host\":\"h\","
		"\"port\":80,\"verdict\":\"deny\",\"rule\":null,\"reason\":null,\"route\":5,"
		"\"status\":null,\"bytes_up\":0,\"bytes_down\":0,\"duration_ms\":0}",
	};
	static const char good[] =
	    "{\"time\":\"2025-01-31T12:00:00.123Z\",\"protocol\":\"http\",\"client\":\"c\","
	    "\"host\":\"good.example\",\"port\":80,\"verdict\":\"deny\",\"rule\":null,"
	    "\"reason\":null,\"route\":null,\"status\":403,\"bytes_up\":0,\"bytes_down\":0,"
	    "\"duration_ms\":0}\n";
	struct lines r;
	struct got g = { 0 };
	char *big, *out;
	size_t i;

	decision_reader_init(&r, collect, &g);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lines_feed(&r, bad[i], strlen(bad[i]));
		lines_feed(&r, "\n", 1);
	}
	/* A line longer than any record, in pieces, then a good one. */
	big = xmalloc(DECISION_LINE_MAX / 4);
	memset(big, 'x', DECISION_LINE_MAX / 4);
	for (i = 0; i < 5; i++)
		lines_feed(&r, big, DECISION_LINE_MAX / 4);
	lines_feed(&r, "\n", 1);
	lines_feed(&r, good, sizeof(good) - 1);
	ok(g.n == 1 && strcmp(g.host, "good.example") == 0,
	    "good lines are read between bad ones");
	ok(r.malformed == sizeof(bad) / sizeof(bad[0]) && r.oversized == 1,
	    "bad lines counted: %zu malformed, %zu over-long", r.malformed, r.oversized);
	out = finish_output(&r);
	ok(strstr(out, "7 malformed and 1 over-long lines") != NULL &&
		strstr(out, "not JSON") != NULL && strchr(out, '\n') == out + strlen(out) - 1,
	    "finish warns once: %s", out);
	free(out);
	out = finish_output(&r);
	ok(*out == '\0', "and only once");
	free(out);
	free(big);
	lines_free(&r);
}

int
main(void)
{
	log_init("test_decision", 0, 1);
	test_round_trip();
	test_bad_lines();
	return tap_done();
}
