/* The decider protocol (decider.h): frames, the decider's messages, the proxy's. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decider.h"
#include "tap.h"

static void
test_frames(void)
{
	struct buf b = { 0 };
	const char *f;
	uint32_t n;

	ok(decider_frame_next(&b, &f, &n) == 0, "no bytes: more needed");
	buf_add(&b, "\0\0", 2);
	ok(decider_frame_next(&b, &f, &n) == 0, "half a length: more needed");
	buf_add(&b, "\0\3{}", 4);
	ok(decider_frame_next(&b, &f, &n) == 0, "a frame cut short: more needed");
	buf_add(&b, " ", 1);
	ok(decider_frame_next(&b, &f, &n) == 1 && n == 3 && memcmp(f, "{} ", 3) == 0,
	    "a whole frame");
	buf_reset(&b);
	buf_add(&b, "\0\x10\0\0", 4);
	ok(decider_frame_next(&b, &f, &n) == 0, "exactly 1 MiB is allowed (more needed)");
	buf_reset(&b);
	buf_add(&b, "\0\x10\0\1", 4);
	ok(decider_frame_next(&b, &f, &n) == -1, "1 MiB + 1 is a violation, before it arrives");
	buf_free(&b);
}

static int
hello_ok(const char *j)
{
	struct decider_hello h;
	char why[DECIDER_WHY_MAX];
	int rc = decider_parse_hello(j, strlen(j), &h, why);

	decider_hello_free(&h);
	return rc == 0;
}

static int
verdict_ok(const char *j, struct decider_verdict *v)
{
	char why[DECIDER_WHY_MAX];

	return decider_parse_verdict(j, strlen(j), v, why) == 0;
}

static void
test_hello(void)
{
	struct decider_hello h;
	char why[DECIDER_WHY_MAX];
	const char *j =
	    "{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"a.example.com\","
	    "\"*.b.example.com:443\",\"10.0.0.1\",\"[::1]:8080\"],\"deniedDomains\":[]}";

	ok(decider_parse_hello(j, strlen(j), &h, why) == 0 && h.allowed.n == 4 &&
		strcmp(h.allowed.v[1], "*.b.example.com:443") == 0,
	    "a hello with its lists");
	decider_hello_free(&h);
	ok(!hello_ok(
	       "{\"t\":\"hello\",\"proto\":2,\"allowedDomains\":[],\"deniedDomains\":[]}"),
	    "proto 2 is refused");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[]}"),
	    "a missing list is refused");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[],\"deniedDomains\":[],"
		     "\"x\":1}"),
	    "an unknown field is refused");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"proto\":1,\"allowedDomains\":[],"
		     "\"deniedDomains\":[]}"),
	    "a duplicate key is refused");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"a.com\",\"a.com\"],"
		     "\"deniedDomains\":[]}"),
	    "a repeated entry is refused");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":[\"A.com\"],"
		     "\"deniedDomains\":[]}"),
	    "an upper-case name is refused");
	ok(!hello_ok("[1]"), "an array is no frame");
	ok(!hello_ok("{\"t\":\"hello\",\"proto\":1,\"allowedDomains\":null,"
		     "\"deniedDomains\":[]}"),
	    "a null is refused");
	ok(decider_egress_entry("example.com") && decider_egress_entry("*.example.com") &&
		!decider_egress_entry("*.com") && !decider_egress_entry("1.2.3") &&
		!decider_egress_entry("example.com:0") &&
		!decider_egress_entry("example.com:65536") &&
		decider_egress_entry("1.2.3.4:80") && decider_egress_entry("::1:80") &&
		decider_egress_entry("[::1]:80") && !decider_egress_entry("[::1:80") &&
		decider_egress_entry("::1") && !decider_egress_entry("-a.com") &&
		!decider_egress_entry("http://a.com"),
	    "egress entries as the reference reads them");
}

static void
test_verdicts(void)
{
	struct decider_verdict v;

	ok(verdict_ok("{\"t\":\"verdict\",\"id\":3,\"action\":\"allow\",\"setHeaders\":"
		      "{\"x-a\":[\"1\",\"2\"]},\"removeHeaders\":[\"x-b\"]}",
	       &v) &&
		v.id == 3 && v.action == DECIDER_ALLOW && v.set_names.n == 2 &&
		strcmp(v.set_values.v[1], "2") == 0 && v.remove.n == 1,
	    "an allow with header edits");
	decider_verdict_free(&v);
	ok(verdict_ok("{\"t\":\"verdict\",\"id\":4,\"action\":\"deny\",\"status\":451,"
		      "\"reason\":\"no\"}",
	       &v) &&
		v.status == 451 && strcmp(v.reason, "no") == 0,
	    "a deny with status and reason");
	decider_verdict_free(&v);
	ok(verdict_ok(
	       "{\"t\":\"verdict\",\"id\":5,\"action\":\"need_body\",\"max\":33554432}", &v) &&
		v.max == 32u << 20,
	    "need_body up to 32 MiB");
	decider_verdict_free(&v);
	ok(!verdict_ok(
	       "{\"t\":\"verdict\",\"id\":5,\"action\":\"need_body\",\"max\":33554433}", &v),
	    "need_body past 32 MiB is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"deny\",\"status\":302}", &v),
	    "a deny status below 400 is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":0,\"action\":\"allow\"}", &v),
	    "id 0 is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1.5,\"action\":\"allow\"}", &v),
	    "a fractional id is refused");
	ok(!verdict_ok(
	       "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"setHeaders\":{}}", &v),
	    "an empty setHeaders is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"setHeaders\":"
		       "{\"X-A\":[\"1\"]}}",
	       &v),
	    "an upper-case header name is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"setHeaders\":"
		       "{\"authorization\":[\"x\"]}}",
	       &v),
	    "setting a credential header is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"setHeaders\":"
		       "{\"content_length\":[\"1\"]}}",
	       &v),
	    "setting framing, in any spelling, is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"removeHeaders\":"
		       "[\"host\"]}",
	       &v),
	    "removing Host is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"setHeaders\":"
		       "{\"x-a\":[\"a\\u0001b\"]}}",
	       &v),
	    "a control character in a value is refused");
	ok(!verdict_ok(
	       "{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"cred\":\"github\"}", &v),
	    "cred without credential is refused");
	ok(verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"cred\":\"github\","
		      "\"credential\":\"tok\"}",
	       &v) &&
		strcmp(v.credential, "tok") == 0,
	    "cred with credential");
	decider_verdict_free(&v);
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"maybe\"}", &v),
	    "an unknown action is refused");
	ok(!verdict_ok("{\"t\":\"verdict\",\"id\":1,\"action\":\"deny\",\"status\":403,"
		       "\"reason\":\"\"}",
	       &v),
	    "an empty optional reason is refused");
}

static void
test_encode(void)
{
	const char *names[] = { "User-Agent", "X-A", "x-a" };
	const char *values[] = { "curl", "1", "2" };
	size_t nl[] = { 10, 3, 3 }, vl[] = { 4, 1, 1 };
	struct decider_req r = { .id = 7,
		.method = "GET",
		.host = "example.com",
		.port = 80,
		.host_header = "example.com",
		.path = "/p",
		.query = "q=1",
		.hnames = names,
		.hnamelen = nl,
		.hvalues = values,
		.hvaluelen = vl,
		.nheaders = 3 };
	const char *want =
	    "{\"t\":\"req\",\"id\":7,\"method\":\"GET\",\"host\":\"example.com\","
	    "\"port\":80,\"hostHeader\":\"example.com\",\"path\":\"/p\",\"query\":\"q=1\","
	    "\"headers\":{\"user-agent\":[\"curl\"],\"x-a\":[\"1\",\"2\"]}}";
	struct buf b = { 0 };
	const char *why, *f;
	uint32_t n;
	char bad[] = "a\x01";

	ok(decider_encode_req(&r, &b, &why) == 0 && decider_frame_next(&b, &f, &n) == 1 &&
		n == strlen(want) && memcmp(f, want, n) == 0,
	    "a req frame as the reference writes it, values grouped under lower-case names");
	buf_reset(&b);
	values[0] = bad;
	vl[0] = 2;
	ok(decider_encode_req(&r, &b, &why) == -1 && b.len == 0 &&
		strstr(why, "cannot be asked") != NULL,
	    "a control character: not asked (400)");
	decider_encode_hello(&b);
	ok(decider_frame_next(&b, &f, &n) == 1 && n == 23 &&
		memcmp(f, "{\"t\":\"hello\",\"proto\":1}", n) == 0,
	    "the proxy's hello");
	buf_reset(&b);
	decider_encode_body(&b, 9, "hello", 5, true);
	ok(decider_frame_next(&b, &f, &n) == 1 &&
		memcmp(f, "{\"t\":\"body\",\"id\":9,\"data\":\"aGVsbG8=\",\"cut\":true}", n) ==
		    0,
	    "a body frame in base64");
	buf_free(&b);
}

int
main(void)
{
	test_frames();
	test_hello();
	test_verdicts();
	test_encode();
	return tap_done();
}
