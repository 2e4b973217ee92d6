/* The sandbox's violation record (violation.h): what srt-seccomp's monitor writes, the
 * launcher reads back; every record fits one atomic pipe write; the reader checks each
 * field and refuses what the writer would never write. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "tap.h"
#include "util.h"
#include "violation.h"

struct got {
	int n;
	enum viol_kind kind;
	char op[64], path[8192], reason[2048], proto[16], addr[64];
	unsigned port;
	bool cut;
	uint64_t count;
	char line[16384];
};

static void
collect(void *arg, const struct violation *v)
{
	struct got *g = arg;
	char *line = violation_line(v);

	g->n++;
	g->kind = v->kind;
	snprintf(g->op, sizeof(g->op), "%s", v->op != NULL ? v->op : "");
	snprintf(g->path, sizeof(g->path), "%s", v->path != NULL ? v->path : "");
	snprintf(g->reason, sizeof(g->reason), "%s", v->reason != NULL ? v->reason : "");
	snprintf(g->proto, sizeof(g->proto), "%s", v->proto != NULL ? v->proto : "");
	snprintf(g->addr, sizeof(g->addr), "%s", v->addr != NULL ? v->addr : "");
	snprintf(g->line, sizeof(g->line), "%s", line);
	g->port = v->port;
	g->cut = v->path_cut;
	g->count = v->count;
	free(line);
}

static void
round_trip(const struct violation *v, struct got *g, struct buf *b)
{
	struct lines r;

	buf_reset(b);
	violation_format(b, v);
	memset(g, 0, sizeof(*g));
	violation_reader_init(&r, collect, g);
	/* In pieces, as a pipe delivers it. */
	lines_feed(&r, b->p + b->off, 7);
	lines_feed(&r, b->p + b->off + 7, b->len - 7);
	lines_finish(&r);
	lines_free(&r);
}

static void
test_round_trip(void)
{
	struct violation v;
	struct got g;
	struct buf b = { 0 };
	char *longpath;

	memset(&v, 0, sizeof(v));
	util_time_now(v.time);
	v.kind = VK_FILE_WRITE;
	v.op = "unlink";
	v.path = "/home/u/p/.bashrc";
	v.reason = "mandatory deny: shell start-up file";
	round_trip(&v, &g, &b);
	ok(b.p[b.off + b.len - 1] == '\n' && memchr(b.p + b.off, '\n', b.len - 1) == NULL,
	    "one line: %.*s", (int)b.len - 1, b.p + b.off);
	ok(g.n == 1 && g.kind == VK_FILE_WRITE && strcmp(g.op, "unlink") == 0 &&
		strcmp(g.path, v.path) == 0 && strcmp(g.reason, v.reason) == 0 && !g.cut,
	    "a refused write comes back whole");
	ok(strcmp(g.line,
	       "deny file-write /home/u/p/.bashrc (mandatory deny: shell "
	       "start-up file)") == 0,
	    "its line: %s", g.line);
	ok(strstr(buf_str(&b), "\"violation\":\"deny file-write /home/u/p/.bashrc") != NULL,
	    "the record carries its line for readers of the descriptor");

	/* A path of control characters and bytes that are not UTF-8. */
	v.kind = VK_FILE_READ;
	v.op = "open";
	v.path = "/a/\x1b[31mred\n\xff";
	v.reason = "denyRead /a";
	round_trip(&v, &g, &b);
	ok(g.n == 1 && g.kind == VK_FILE_READ &&
		strcmp(g.path, "/a/\x1b[31mred\n\xef\xbf\xbd") == 0,
	    "control characters survive as JSON escapes, a bad byte as U+FFFD");
	ok(strncmp(g.line, "deny file-read /a/", 18) == 0, "a read: %.18s", g.line);

	/* A path so long, of bytes that escape to six, that the record must be cut. */
	longpath = xmalloc(4097);
	longpath[0] = '/';
	memset(longpath + 1, '\x01', 4095);
	longpath[4096] = '\0';
	v.kind = VK_FILE_WRITE;
	v.path = longpath;
	round_trip(&v, &g, &b);
	ok(b.len <= VIOL_RECORD_MAX,
	    "a record of an escaped 4 KiB path fits one pipe write "
	    "(%zu bytes)",
	    b.len);
	ok(g.n == 1 && g.cut && strlen(g.path) < 4096 && strlen(g.path) > 16,
	    "and is read back cut, and says so (%zu bytes of path)", strlen(g.path));
	ok(strstr(g.line, "...") != NULL, "the line marks the cut");
	free(longpath);

	memset(&v, 0, sizeof(v));
	util_time_now(v.time);
	v.kind = VK_CONNECT;
	v.op = "connect";
	v.proto = "tcp";
	v.addr = "192.0.2.1";
	v.port = 80;
	round_trip(&v, &g, &b);
	ok(g.n == 1 && g.kind == VK_CONNECT && strcmp(g.addr, "192.0.2.1") == 0 &&
		g.port == 80 && strcmp(g.proto, "tcp") == 0,
	    "a direct connection comes back");
	ok(strcmp(g.line,
	       "deny network-outbound 192.0.2.1:80 (direct connection; only the "
	       "proxies at localhost:3128 and :1080 are reachable)") == 0,
	    "%s", g.line);
	v.addr = "2001:db8::1";
	v.port = 443;
	v.proto = "udp";
	v.op = "sendmsg";
	round_trip(&v, &g, &b);
	ok(g.n == 1 && strncmp(g.line, "deny network-outbound [2001:db8::1]:443 (", 41) == 0,
	    "IPv6 in brackets: %s", g.line);

	memset(&v, 0, sizeof(v));
	util_time_now(v.time);
	v.kind = VK_LEFT_OUT;
	v.count = 99000;
	round_trip(&v, &g, &b);
	ok(g.n == 1 && g.kind == VK_LEFT_OUT && g.count == 99000 &&
		strstr(g.line, "99000 more") != NULL,
	    "what was left out: %s", g.line);
	buf_free(&b);
}

static const char *const bad[] = {
	"not json",
	"[]",
	/* no time, a bad time */
	"{\"kind\":\"file-write\",\"operation\":\"open\",\"path\":\"/a\",\"reason\":\"r\","
	"\"violation\":\"x\"}",
	"{\"time\":\"yesterday\",\"kind\":\"file-write\",\"operation\":\"open\",\"path\":\"/a\","
	"\"reason\":\"r\",\"violation\":\"x\"}",
	/* an unknown kind */
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"file-exec\",\"operation\":\"open\","
	"\"path\":\"/a\",\"reason\":\"r\",\"violation\":\"x\"}",
	/* a relative path, an empty reason, an operation that is not a word */
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"file-write\",\"operation\":\"open\","
	"\"path\":\"a\",\"reason\":\"r\",\"violation\":\"x\"}",
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"file-write\",\"operation\":\"open\","
	"\"path\":\"/a\",\"reason\":\"\",\"violation\":\"x\"}",
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"file-write\",\"operation\":\"Open it\","
	"\"path\":\"/a\",\"reason\":\"r\",\"violation\":\"x\"}",
	/* no violation member */
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"file-write\",\"operation\":\"open\","
	"\"path\":\"/a\",\"reason\":\"r\"}",
	/* an address that does not parse, a port out of range */
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"direct-connect\",\"operation\":"
	"\"connect\",\"protocol\":\"tcp\",\"address\":\"evil.example\",\"port\":80,"
	"\"violation\":\"x\"}",
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"direct-connect\",\"operation\":"
	"\"connect\",\"protocol\":\"tcp\",\"address\":\"192.0.2.1\",\"port\":65536,"
	"\"violation\":\"x\"}",
	/* a negative count */
	"{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":\"left-out\",\"count\":-1,"
	"\"violation\":\"x\"}",
};

static void
test_bad_lines(void)
{
	static const char good[] =
	    "{\"time\":\"2025-01-31T12:00:00.123Z\",\"kind\":"
	    "\"file-write\",\"operation\":\"mkdir\",\"path\":\"/etc/x\",\"reason\":"
	    "\"not in allowWrite\",\"violation\":\"a line the reader does not take\"}\n";
	struct lines r;
	struct got g = { 0 };
	char *big;
	size_t i;

	violation_reader_init(&r, collect, &g);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		lines_feed(&r, bad[i], strlen(bad[i]));
		lines_feed(&r, "\n", 1);
	}
	big = xmalloc(VIOL_RECORD_MAX);
	memset(big, 'x', VIOL_RECORD_MAX);
	lines_feed(&r, big, VIOL_RECORD_MAX);
	lines_feed(&r, big, VIOL_RECORD_MAX);
	lines_feed(&r, "\n", 1);
	lines_feed(&r, good, sizeof(good) - 1);
	ok(g.n == 1 && strcmp(g.path, "/etc/x") == 0, "a good line is read between bad ones");
	ok(strcmp(g.line, "deny file-write /etc/x (not in allowWrite)") == 0,
	    "its line is built from its fields, not taken: %s", g.line);
	ok(r.malformed == sizeof(bad) / sizeof(bad[0]) && r.oversized == 1,
	    "bad lines counted: %zu malformed, %zu over-long", r.malformed, r.oversized);
	lines_finish(&r);
	ok(r.malformed == 0 && r.oversized == 0, "finish warns once and forgets");
	lines_free(&r);
	free(big);
}

int
main(void)
{
	log_init("test_violation", 0, 1);
	test_round_trip();
	test_bad_lines();
	return tap_done();
}
