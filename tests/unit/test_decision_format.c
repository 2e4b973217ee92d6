/*
 * The decision record's writer alone (lib/core/decision.c), byte for byte: the reader is
 * cJSON's (test_decision.c round-trips both), the writer also builds for Windows (make
 * win; run under Wine by tests/windows/proxies-wine.bats), where the proxies log with it.
 */
#include <stdio.h>
#include <string.h>

#include "buf.h"
#include "decision.h"
#include "tap.h"

static int
time_shape(const char *t)
{
	static const char shape[] = "dddd-dd-ddTdd:dd:dd.dddZ";
	size_t i;

	if (strlen(t) != sizeof(shape) - 1)
		return 0;
	for (i = 0; shape[i] != '\0'; i++)
		if (shape[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != shape[i])
			return 0;
	return 1;
}

int
main(void)
{
	struct decision d;
	struct buf b = { 0 };
	char now[DECISION_TIME_MAX];

	memset(&d, 0, sizeof(d));
	strcpy(d.time, "2026-01-02T03:04:05.678Z");
	d.protocol = "socks5";
	d.client = "127.0.0.1:5555";
	d.host = "allowed.test";
	d.port = 443;
	d.verdict = VERDICT_DENY;
	d.rule = NULL;
	d.reason = "host is not on the allow list: \"x\"\n";
	d.route = "direct";
	d.status = -1;
	d.bytes_up = 12;
	d.bytes_down = 3456789012345ull;
	d.duration_ms = 7;
	decision_format(&b, &d);
	ok(strcmp(buf_str(&b),
	       "{\"time\":\"2026-01-02T03:04:05.678Z\",\"protocol\":\"socks5\","
	       "\"client\":\"127.0.0.1:5555\",\"host\":\"allowed.test\",\"port\":443,"
	       "\"verdict\":\"deny\",\"rule\":null,\"reason\":\"host is not on the allow list: "
	       "\\\"x\\\"\\n\",\"route\":\"direct\",\"status\":null,\"bytes_up\":12,"
	       "\"bytes_down\":3456789012345,\"duration_ms\":7}\n") == 0,
	    "one line, strings escaped, null for no rule and no status: %.*s",
	    (int)(b.len > 0 ? b.len - 1 : 0), buf_str(&b));
	ok(strcmp(verdict_name(VERDICT_AUDIT_DENY), "audit-deny") == 0 &&
		strcmp(verdict_name(VERDICT_NONE), "deny") == 0,
	    "verdict names");
	util_time_now(now);
	ok(time_shape(now) && strncmp(now, "20", 2) == 0,
	    "the time now, UTC to the "
	    "millisecond: %s",
	    now);
	buf_free(&b);
	return tap_done();
}
