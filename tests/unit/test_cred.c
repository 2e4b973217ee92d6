/*
 * Credential masking's pure logic: SHA-256/HMAC, sentinels, substitution (whole and
 * streamed), the store's wire form, extract, JWT and SigV4. Vectors marked "reference"
 * were produced by running the reference tool's modules (credential-decode,
 * credential-extract, aws-sigv4); the SigV4 ones also include the AWS test suite's
 * get-vanilla and get-vanilla-query-order-key-case signatures.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cred.h"
#include "cred_mask.h"
#include "cred_rx.h"
#include "sha256.h"
#include "sigv4.h"
#include "tap.h"
#include "util.h"

static const char *const any_host[] = { "api.example.com", "*.example.org" };

static void
test_sha256(void)
{
	uint8_t h[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	char big[1000];

	sha256("abc", 3, h);
	hex_lower(h, SHA256_LEN, hex);
	ok(strcmp(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad") == 0,
	    "SHA-256(abc) (FIPS 180-4)");
	sha256("", 0, h);
	hex_lower(h, SHA256_LEN, hex);
	ok(strcmp(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855") == 0,
	    "SHA-256 of nothing");
	memset(big, 'a', sizeof(big));
	{
		struct sha256 s;
		uint8_t h2[SHA256_LEN];

		sha256_init(&s);
		for (int i = 0; i < 1000; i++)
			sha256_update(&s, big, 1000);
		sha256_final(&s, h2);
		hex_lower(h2, SHA256_LEN, hex);
		ok(strcmp(hex,
		       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0") == 0,
		    "SHA-256 of a million a's, fed in pieces");
	}
	hmac_sha256("Jefe", 4, "what do ya want for nothing?", 28, h);
	hex_lower(h, SHA256_LEN, hex);
	ok(strcmp(hex, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843") == 0,
	    "HMAC-SHA256 (RFC 4231 case 2)");
	memset(big, 0xaa, 131);
	hmac_sha256(big, 131, "Test Using Larger Than Block-Size Key - Hash Key First", 54, h);
	hex_lower(h, SHA256_LEN, hex);
	ok(strcmp(hex, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54") == 0,
	    "HMAC-SHA256 with a key longer than a block (RFC 4231 case 6)");
}

static bool
sentinel_shape(const char *s, size_t want)
{
	size_t i;

	if (strlen(s) != want || strncmp(s, "fake_value_", 11) != 0)
		return false;
	for (i = 11; i < 47; i++) {
		if (i == 19 || i == 24 || i == 29 || i == 34) {
			if (s[i] != '-')
				return false;
		} else if (strchr("0123456789abcdef", s[i]) == NULL || s[i] == '\0')
			return false;
	}
	if (s[25] != '4' || strchr("89ab", s[30]) == NULL)
		return false;
	for (; i < want; i++)
		if (strchr("abcdefghijklmnopqrstuvwxyz0123456789_-", s[i]) == NULL ||
		    s[i] == '\0')
			return false;
	return true;
}

static void
test_sentinel(void)
{
	char *a, *b;
	int rc = cred_sentinel_make(5, &a);

	ok(rc == 0 && sentinel_shape(a, 47),
	    "a short value gets the 47-byte base sentinel: "
	    "%s",
	    a);
	ok(cred_sentinel_make(200, &b) == 0 && sentinel_shape(b, 200),
	    "a 200-byte value gets a 200-byte sentinel");
	ok(strncmp(a, b, 47) != 0, "two sentinels differ");
	free(a);
	free(b);
}

/* A store with three credentials: A and B at api.example.com, C at *.example.org. */
static void
store_three(struct cred_store *st)
{
	const char *why;
	const char *const h1[] = { "api.example.com" }, *const h2[] = { "*.example.org" };

	memset(st, 0, sizeof(*st));
	cred_store_add(
	    st, "env:A", "fake_value_AAAA", 15, "realA-longer-than-sentinel", 26, h1, 1, &why);
	cred_store_add(st, "env:B", "fake_value_BBBB", 15, "rB", 2, h1, 1, &why);
	cred_store_add(st, "env:C", "eyJfake.C.x", 11, "real-C", 6, h2, 1, &why);
}

static void
test_subst(void)
{
	struct cred_store st;
	const struct cred_secret **set;
	struct buf out = { 0 };
	size_t n, cnt;
	const char *in = "x=fake_value_AAAA&y=fake_value_BBBB&z=eyJfake.C.x&w=fake_value_AAA";

	store_three(&st);
	set = cred_for_host(&st, "API.example.com", 80, &n);
	ok(n == 2 && set[0] == &st.v[0] && set[1] == &st.v[1],
	    "api.example.com (any case) gets A and B");
	cnt = cred_subst(set, n, in, strlen(in), &out);
	ok(cnt == 2 &&
		strcmp(buf_str(&out),
		    "x=realA-longer-than-sentinel&y=rB&z=eyJfake.C.x"
		    "&w=fake_value_AAA") == 0,
	    "A and B replaced, C and a cut sentinel kept: %s", buf_str(&out));
	ok(cred_length_changes(set, n), "A's length changes");
	free(set);
	buf_reset(&out);
	set = cred_for_host(&st, "evil.example.net", 443, &n);
	ok(set == NULL && n == 0, "no credential for another host");
	set = cred_for_host(&st, "a.b.example.org", 443, &n);
	cnt = cred_subst(set, n, in, strlen(in), &out);
	ok(n == 1 && cnt == 1 && strstr(buf_str(&out), "z=real-C&") != NULL &&
		strstr(buf_str(&out), "fake_value_AAAA") != NULL,
	    "*.example.org gets only C, a sentinel without the prefix");
	free(set);
	set = cred_for_host(&st, "example.org", 443, &n);
	ok(n == 0, "the wildcard's base is not covered");
	buf_free(&out);
	cred_store_free(&st);
}

/* Random data with sentinels in it, cut at random places: the stream gives what the
 * whole-buffer substitution gives. */
static void
test_stream(void)
{
	struct cred_store st;
	const struct cred_secret **set;
	struct cred_stream cs;
	struct buf whole = { 0 }, streamed = { 0 }, in = { 0 };
	size_t n, i, off, k, bad = 0;
	unsigned seed = 1;

	store_three(&st);
	set = cred_for_host(&st, "api.example.com", 80, &n);
	for (int round = 0; round < 300; round++) {
		buf_reset(&in), buf_reset(&whole), buf_reset(&streamed);
		for (i = 0; i < 40; i++) {
			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 5) {
			case 0:
				buf_adds(&in, "fake_value_AAAA");
				break;
			case 1:
				buf_adds(&in, "fake_value_BBBB");
				break;
			case 2:
				buf_adds(&in, "fake_value_");
				break;
			case 3:
				buf_adds(&in, "fake_value_AAAfake_value_BBBB");
				break;
			default:
				buf_addc(&in, (char)('a' + (seed >> 8) % 26));
				break;
			}
		}
		cred_subst(set, n, in.p + in.off, in.len, &whole);
		cred_stream_init(&cs, set, n);
		for (off = 0; off < in.len; off += k) {
			seed = seed * 1103515245 + 12345;
			k = 1 + (seed >> 16) % 23;
			if (k > in.len - off)
				k = in.len - off;
			cred_stream_feed(&cs, in.p + in.off + off, k, &streamed);
			if (cs.hold.len >= cs.maxlen)
				bad++;
		}
		cred_stream_end(&cs, &streamed);
		cred_stream_free(&cs);
		if (whole.len != streamed.len ||
		    memcmp(whole.p + whole.off, streamed.p + streamed.off, whole.len) != 0)
			bad++;
	}
	ok(bad == 0,
	    "300 random bodies cut at random: the stream equals the whole, and "
	    "holds back less than a sentinel");
	free(set);
	buf_free(&in), buf_free(&whole), buf_free(&streamed);
	cred_store_free(&st);
}

/* Body streams: a sentinel goes in only as the value of a field its credential names,
 * and the stream cut anywhere gives what the whole body gives. */
static void
test_body(void)
{
	static const char *const fa[] = { "t", "client_secret" };
	struct cred_store st;
	const struct cred_secret **set;
	struct cred_stream cs;
	struct buf out = { 0 }, whole = { 0 }, streamed = { 0 }, in = { 0 };
	size_t n, cnt, off, k, bad = 0, i;
	unsigned seed = 7;
	const char *why, *t;

	store_three(&st);
	cred_store_fields(&st, 0, fa, 2, &why);
	set = cred_for_host(&st, "api.example.com", 443, &n);
	ok(cred_body_any(set, n) && cred_body_length_changes(set, n) &&
		cred_store_fields(&st, 1, (const char *const[]){ "a b" }, 1, &why) == -1,
	    "A goes into bodies; a field name with a blank is refused");
	t = "t=fake_value_AAAA&u=fake_value_AAAA&xt=fake_value_AAAA&t=fake_value_BBBB"
	    "&t=fake_value_AAAA";
	cnt = cred_body_subst(set, n, t, strlen(t), &out);
	ok(cnt == 2 &&
		strcmp(buf_str(&out),
		    "t=realA-longer-than-sentinel&u=fake_value_AAAA&"
		    "xt=fake_value_AAAA&t=fake_value_BBBB&t=realA-longer-than-sentinel") == 0,
	    "form: t at the start and after &; not u, xt, nor B (no fields): %s",
	    buf_str(&out));
	buf_reset(&out);
	t = "{\"client_secret\" :\n \"fake_value_AAAA\", \"x\": \"fake_value_AAAA\", "
	    "\"y\": \"\\\"t\\\":\\\"fake_value_AAAA\", \"s\": \"t=fake_value_AAAA\"}";
	cnt = cred_body_subst(set, n, t, strlen(t), &out);
	ok(cnt == 1 &&
		strncmp(buf_str(&out), "{\"client_secret\" :\n \"realA-longer", 33) == 0 &&
		strstr(buf_str(&out), "\"x\": \"fake_value_AAAA\"") != NULL,
	    "JSON: the named member, blanks around the colon; not another member, an escaped "
	    "quote or a form inside a string: %s",
	    buf_str(&out));
	buf_reset(&out);
	cnt = cred_body_subst(set, n, "a=1&t=fake_value_AAAA", 21, &out);
	ok(cnt == 1, "a form field after others");
	buf_reset(&out);
	t = "{\"x\\\"t\": \"fake_value_AAAA\"}";
	cnt = cred_body_subst(set, n, t, strlen(t), &out);
	ok(cnt == 0, "JSON: a key ending in an escaped quote and the name is another name: %s",
	    buf_str(&out));
	buf_reset(&out);
	{
		struct cred_stream fs;

		t = "{\"n\": \"a&t=fake_value_AAAA\"}";
		cred_stream_init_body(&fs, set, n);
		fs.syntax = CRED_BODY_JSON;
		cred_stream_feed(&fs, t, strlen(t), &out);
		cred_stream_end(&fs, &out);
		ok(fs.count == 0, "a JSON body: a form field inside a string takes nothing");
		cred_stream_free(&fs);
		buf_reset(&out);
		t = "n=\"t\":\"fake_value_AAAA";
		cred_stream_init_body(&fs, set, n);
		fs.syntax = CRED_BODY_FORM;
		cred_stream_feed(&fs, t, strlen(t), &out);
		cred_stream_end(&fs, &out);
		ok(fs.count == 0, "a form body: a JSON member inside a value takes nothing");
		cred_stream_free(&fs);
		buf_reset(&out);
	}
	for (int round = 0; round < 300; round++) {
		buf_reset(&in), buf_reset(&whole), buf_reset(&streamed);
		for (i = 0; i < 40; i++) {
			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 7) {
			case 0:
				buf_adds(&in, "t=fake_value_AAAA");
				break;
			case 1:
				buf_adds(&in, "&t=fake_value_AAAA");
				break;
			case 2:
				buf_adds(&in, "\"client_secret\":  \"fake_value_AAAA");
				break;
			case 3:
				buf_adds(&in, "                                        ");
				break;
			case 4:
				buf_adds(&in, "fake_value_AAAA");
				break;
			default:
				buf_addc(&in, (char)('a' + (seed >> 8) % 26));
				break;
			}
		}
		cred_body_subst(set, n, in.p + in.off, in.len, &whole);
		cred_stream_init_body(&cs, set, n);
		for (off = 0; off < in.len; off += k) {
			seed = seed * 1103515245 + 12345;
			k = 1 + (seed >> 16) % 23;
			if (k > in.len - off)
				k = in.len - off;
			cred_stream_feed(&cs, in.p + in.off + off, k, &streamed);
			if (cs.hold.len - cs.past >= cs.maxlen || cs.past > CRED_CTX)
				bad++;
		}
		cred_stream_end(&cs, &streamed);
		cred_stream_free(&cs);
		if (whole.len != streamed.len ||
		    memcmp(whole.p + whole.off, streamed.p + streamed.off, whole.len) != 0)
			bad++;
	}
	ok(bad == 0,
	    "300 random bodies cut at random: the body stream equals the whole body, "
	    "and holds back less than a sentinel and CRED_CTX bytes of context");
	free(set);
	buf_free(&out), buf_free(&in), buf_free(&whole), buf_free(&streamed);
	cred_store_free(&st);
}

/* Responses: every form of every value becomes a stand-in of its length. */
/* A stand-in for a value longer than its sentinel (a minted JWT for a long real token):
 * the sentinel, then the fill; nothing read past the sentinel's end. */
static void
test_scrub_short_sentinel(void)
{
	static const char *const h[] = { "x.example" };
	struct cred_store st = { 0 };
	struct buf out = { 0 }, real = { 0 };
	const char *why;
	size_t i;
	int sc;

	for (i = 0; i < 300; i++)
		buf_addc(&real, (char)('a' + i % 26));
	cred_store_add(
	    &st, "env:J", "fake_value_SHORT", 16, real.p + real.off, real.len, h, 1, &why);
	cred_scrub_prepare(&st);
	sc = cred_scrub(&st, real.p + real.off, real.len, &out);
	ok(sc == 1 && out.len == real.len &&
		memcmp(out.p + out.off, "fake_value_SHORT", 16) == 0 &&
		strspn(buf_str(&out) + 16, "*") == real.len - 16,
	    "a value longer than its sentinel: the sentinel, then '*': %.40s...",
	    buf_str(&out));
	buf_free(&out);
	buf_free(&real);
	cred_store_free(&st);
}

static void
test_scrub(void)
{
	static const char *const h[] = { "x.example" };
	struct cred_store st = { 0 };
	struct cred_scrub_stream ss;
	struct buf out = { 0 }, whole = { 0 }, streamed = { 0 }, in = { 0 };
	const char *why;
	size_t off, k, bad = 0;
	unsigned seed = 3;
	/* base64 of "alice:S3cr3t-basic-password" */
	const char *basic = "YWxpY2U6UzNjcjN0LWJhc2ljLXBhc3N3b3Jk";
	const char *t;
	int sc;

	cred_store_add(&st, "env:T", "fake_value_0123456789abcdefghijklmnopqrstuvwxyzABC", 50,
	    "ghp_REAL/secret+value=0123456789", 32, h, 1, &why);
	cred_store_add(&st, "env:B", "fake_value_basicbasicbasicbasicbasicbasicbasic", 46,
	    basic, strlen(basic), h, 1, &why);
	cred_store_add(&st, "env:S", "fake_value_short_short_short_short_short_short_", 47,
	    "abc", 3, h, 1, &why);
	cred_scrub_prepare(&st);
	t = "x ghp_REAL/secret+value=0123456789 y";
	sc = cred_scrub(&st, t, strlen(t), &out);
	ok(sc == 1 && strcmp(buf_str(&out), "x fake_value_0123456789abcdefghijk y") == 0,
	    "the raw value: the sentinel's first bytes, the length kept: %s", buf_str(&out));
	buf_reset(&out);
	t = "ghp_REAL%2Fsecret%2Bvalue%3D0123456789";
	sc = cred_scrub(&st, t, strlen(t), &out);
	ok(sc == 1 && strspn(buf_str(&out), "*") == strlen(t), "percent-encoded");
	/* As common encoders give it: lowercase hex; "/" left as it is (Python's quote);
	 * both. */
	for (k = 0; k < 3; k++) {
		static const char *const v[] = { "ghp_REAL%2fsecret%2bvalue%3d0123456789",
			"ghp_REAL/secret%2Bvalue%3D0123456789",
			"ghp_REAL/secret%2bvalue%3d0123456789" };

		buf_reset(&out);
		sc = cred_scrub(&st, v[k], strlen(v[k]), &out);
		ok(sc == 1 && strlen(buf_str(&out)) == strlen(v[k]) &&
			strstr(buf_str(&out), "secret") == NULL,
		    "percent-encoded, lowercase or with / kept: %s", buf_str(&out));
	}
	buf_reset(&out);
	buf_reset(&out);
	/* base64 of "!" + value + "?", of "!!" + value, of value + "!" */
	t = "IWdocF9SRUFML3NlY3JldCt2YWx1ZT0wMTIzNDU2Nzg5Pw== "
	    "ISFnaHBfUkVBTC9zZWNyZXQrdmFsdWU9MDEyMzQ1Njc4OQ== "
	    "Z2hwX1JFQUwvc2VjcmV0K3ZhbHVlPTAxMjM0NTY3ODkh";
	sc = cred_scrub(&st, t, strlen(t), &out);
	ok(sc == 3 && out.len == strlen(t), "base64 at each alignment: %s", buf_str(&out));
	buf_reset(&out);
	t = "Basic alice:S3cr3t-basic-password; S3cr3t-basic-password";
	sc = cred_scrub(&st, t, strlen(t), &out);
	ok(sc == 2 &&
		strcmp(buf_str(&out),
		    "Basic ***************************; *********************") == 0,
	    "a Basic value decoded, and its password alone: %s", buf_str(&out));
	buf_reset(&out);
	t = "abc abcabc";
	sc = cred_scrub(&st, t, strlen(t), &out);
	ok(sc == 0 && strcmp(buf_str(&out), t) == 0,
	    "a value shorter than CRED_SCRUB_MIN is left alone");
	for (int round = 0; round < 300; round++) {
		buf_reset(&in), buf_reset(&whole), buf_reset(&streamed);
		for (int i = 0; i < 30; i++) {
			seed = seed * 1103515245 + 12345;
			switch ((seed >> 16) % 5) {
			case 0:
				buf_adds(&in, "ghp_REAL/secret+value=0123456789");
				break;
			case 1:
				buf_adds(&in, "ghp_REAL/secret");
				break;
			case 2:
				buf_adds(&in, "alice:S3cr3t-basic-password");
				break;
			case 3:
				buf_adds(&in, "Z2hwX1JFQUwvc2VjcmV0K3ZhbHVlPTAxMjM0NTY3ODkh");
				break;
			default:
				buf_addc(&in, (char)('a' + (seed >> 8) % 26));
				break;
			}
		}
		cred_scrub(&st, in.p + in.off, in.len, &whole);
		cred_scrub_init(&ss, &st);
		for (off = 0; off < in.len; off += k) {
			seed = seed * 1103515245 + 12345;
			k = 1 + (seed >> 16) % 29;
			if (k > in.len - off)
				k = in.len - off;
			cred_scrub_feed(&ss, in.p + in.off + off, k, &streamed);
			if (ss.hold.len >= st.scrubmax)
				bad++;
		}
		cred_scrub_end(&ss, &streamed);
		cred_scrub_free(&ss);
		if (whole.len != in.len || whole.len != streamed.len ||
		    memcmp(whole.p + whole.off, streamed.p + streamed.off, whole.len) != 0 ||
		    memmem(whole.p + whole.off, whole.len, "ghp_REAL/secret+value", 21) != NULL)
			bad++;
	}
	ok(bad == 0,
	    "300 random responses cut at random: the stream equals the whole, keeps "
	    "the length, holds back less than the longest form, and leaves no value");
	/* A pause after bytes that cannot start a value: nothing is held back. */
	cred_scrub_init(&ss, &st);
	buf_reset(&out);
	cred_scrub_feed(&ss, "data: {\"x\": 1}\n\n", 17, &out);
	ok(out.len == 17 && ss.hold.len == 0,
	    "an event that ends clear of any form goes out "
	    "whole");
	cred_scrub_feed(&ss, "data: ghp_REAL/se", 17, &out);
	ok(out.len == 17 + 6 && ss.hold.len == 11,
	    "a tail that may start the value is held "
	    "(%zu)",
	    ss.hold.len);
	cred_scrub_free(&ss);
	buf_free(&out), buf_free(&in), buf_free(&whole), buf_free(&streamed);
	cred_store_free(&st);
}

static void
test_wire(void)
{
	struct cred_store st, back;
	struct buf b = { 0 };
	const char *why;
	int rc;
	size_t i, bad = 0;

	store_three(&st);
	cred_store_fields(&st, 1, (const char *const[]){ "t", "a.b" }, 2, &why);
	st.plaintext = true;
	st.presigned = CRED_SIGV4_PASSTHROUGH;
	st.aws = xcalloc(1, sizeof(*st.aws));
	st.aws[0] = (struct cred_aws){ 0, 1, 2 };
	st.naws = 1;
	cred_store_encode(&st, &b);
	ok(cred_store_decode(b.p + b.off, b.len, &back, &why) == 0 && back.n == 3 &&
		back.plaintext && back.presigned == CRED_SIGV4_PASSTHROUGH &&
		back.streaming == CRED_SIGV4_DENY && back.naws == 1 && back.aws[0].token == 2 &&
		back.v[0].rlen == 26 &&
		memcmp(back.v[0].real, "realA-longer-than-sentinel", 26) == 0 &&
		back.v[2].ninject == 1 && back.maxlen == 15 && back.v[1].nfields == 2 &&
		strcmp(back.v[1].fields[1], "a.b") == 0 && back.v[0].nfields == 0,
	    "the store survives the pipe, body fields too");
	cred_store_free(&back);
	for (i = 0; i < b.len; i++)
		if (cred_store_decode(b.p + b.off, i, &back, &why) == 0)
			bad++;
	ok(bad == 0, "every truncation of it is refused");
	b.p[b.off + b.len - 1] = 9;
	why = NULL;
	rc = cred_store_decode(b.p + b.off, b.len, &back, &why);
	ok(rc == -1, "an AWS pair naming no value is refused (%s)", why ? why : "no reason");
	buf_free(&b);
	cred_store_free(&st);
}

static void
test_rx(void)
{
	struct cred_rx *rx;
	const char *why = NULL;
	int g, rc;
	long m[4];
	const char *t = "machine h login u password p@ss-1\nmachine k password Zz9\n";

	ok(cred_rx_compile("password\\s+(\\S+)", &rx, &g, &why) == 0 && g == 1,
	    "a netrc pattern compiles");
	ok(cred_rx_exec(rx, t, strlen(t), 0, m) == 1 && m[3] - m[2] == 6 &&
		memcmp(t + m[2], "p@ss-1", 6) == 0,
	    "group 1 is the first password");
	ok(cred_rx_exec(rx, t, strlen(t), (size_t)m[1], m) == 1 &&
		memcmp(t + m[2], "Zz9", 3) == 0 && m[3] - m[2] == 3,
	    "then the second");
	ok(cred_rx_exec(rx, t, strlen(t), (size_t)m[1], m) == 0, "then none");
	cred_rx_free(rx);
	ok(cred_rx_compile("(?:user|login)=(?<v>[^&\\s]+)|^x", &rx, &g, &why) == 0 && g == 1 &&
		cred_rx_exec(rx, "a login=bob&c", 13, 0, m) == 1 && m[2] == 8 && m[3] == 11,
	    "non-capturing and named groups: JavaScript's group 1 is found");
	cred_rx_free(rx);
	ok(cred_rx_compile("^k=(.+)$", &rx, &g, &why) == 0 &&
		cred_rx_exec(rx, "k=v\nw", 5, 0, m) == 0,
	    ". does not cross a line, $ is the end");
	cred_rx_free(rx);
	ok(cred_rx_compile("[\\w.-]{2,3}(\\d)", &rx, &g, &why) == 0 &&
		cred_rx_exec(rx, "--a.b7", 6, 0, m) == 1 && m[0] == 2 && m[2] == 5,
	    "classes with escapes, ranges and counts");
	cred_rx_free(rx);
	/* Called first: the order in which a call's arguments are evaluated is unspecified,
	 * and why is printed below (it was read before it was set, from the stack). */
	rc = cred_rx_compile("a(b+?)", &rx, &g, &why);
	ok(rc == -1 && strstr(why, "lazy") != NULL, "a lazy quantifier is refused: %s",
	    rc == -1 ? why : "(compiled)");
	ok(cred_rx_compile("(?=x)(a)", &rx, &g, &why) == -1, "lookahead is refused");
	ok(cred_rx_compile("(a)\\1", &rx, &g, &why) == -1, "a back reference is refused");
	ok(cred_rx_compile("(a", &rx, &g, &why) == -1 &&
		cred_rx_compile("*a", &rx, &g, &why) == -1 &&
		cred_rx_compile("[z-a]", &rx, &g, &why) == -1,
	    "syntax errors");
}

static void
test_extract(void)
{
	struct cred_store st = { 0 };
	struct buf out = { 0 };
	const char *why;
	const char *v = "user=a pass=SECRET1 x pass=SECRET2 again SECRET1";
	struct cred_mask_entry e = { .key = "env:X",
		.extract = "pass=(\\S+)",
		.dups = true,
		.inject = any_host,
		.ninject = 2 };
	char want[256];

	ok(cred_mask_value(&st, &e, v, strlen(v), &out, &why) == CRED_MASK_DONE && st.n == 2,
	    "two distinct captures, two credentials");
	/* reference: "user=a pass=<0> x pass=<1> again <0>" */
	snprintf(want, sizeof(want), "user=a pass=%s x pass=%s again %s", st.v[0].sentinel,
	    st.v[1].sentinel, st.v[0].sentinel);
	ok(strcmp(buf_str(&out), want) == 0 && strcmp(st.v[0].real, "SECRET1") == 0 &&
		strcmp(st.v[1].name, "env:X#1") == 0,
	    "spans and the duplicate masked (reference)");
	buf_reset(&out);
	e.dups = false;
	ok(cred_mask_value(&st, &e, v, strlen(v), &out, &why) == CRED_MASK_DONE &&
		strstr(buf_str(&out), "again SECRET1") != NULL,
	    "without maskDuplicates the copy "
	    "stays");
	buf_reset(&out);
	e.extract = "nomatch=(\\S+)";
	ok(cred_mask_value(&st, &e, v, strlen(v), &out, &why) == CRED_MASK_NOMATCH,
	    "no match is reported for onExtractNoMatch");
	e.extract = "pass=(x)?";
	ok(cred_mask_value(&st, &e, v, strlen(v), &out, &why) == CRED_MASK_FAIL &&
		strstr(why, "group 1") != NULL,
	    "a match without group 1 is an error");
	buf_free(&out);
	cred_store_free(&st);
}

static void
test_jwt(void)
{
	/* reference: mintFakeJwt("0f8c8a1e-1111-4222-8333-444455556666") */
	static const char ref_fake[] =
	    "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJmYWtl"
	    "X3ZhbHVlXzBmOGM4YTFlLTExMTEtNDIyMi04MzMzLTQ0NDQ1NTU1NjY2NiIsImV4cCI6OTk5OTk5OTk5OX0."
	    "c3J0LWZha2U";
	/* {"alg":"RS256","typ":"JWT"} . {"sub":"alice","aud":"x","n":5,"exp":1} . sig */
	static const char tok[] = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJhbGljZSIs"
				  "ImF1ZCI6IngiLCJuIjo1LCJleHAiOjF9.c2ln";
	const char *const claims[] = { "sub", "n", "zz" };
	struct cred_mask_entry e = {
		.key = "env:T", .jwt = true, .inject = any_host, .ninject = 1
	};
	struct cred_store st = { 0 };
	struct buf out = { 0 }, dec = { 0 };
	const char *why, *d;
	char *f = cred_jwt_fake("0f8c8a1e-1111-4222-8333-444455556666"), *want;

	ok(strcmp(f, ref_fake) == 0, "the fake token is the reference's, byte for byte");
	free(f);
	ok(cred_jwt_verify(tok, strlen(tok)) && !cred_jwt_verify("eyJhbGc.eyJ.x", 13) &&
		!cred_jwt_verify("a.b", 3),
	    "verify: three segments, JSON, alg");
	ok(cred_mask_value(&st, &e, tok, strlen(tok), &out, &why) == CRED_MASK_DONE &&
		st.n == 1 && strcmp(st.v[0].real, tok) == 0 &&
		cred_jwt_verify(out.p + out.off, out.len) &&
		strstr(buf_str(&out), "c3J0LWZha2U") != NULL,
	    "a JWT variable becomes a structurally valid fake");
	cred_store_free(&st);
	buf_reset(&out);
	e.claims = claims;
	e.nclaims = 3;
	ok(cred_mask_value(&st, &e, tok, strlen(tok), &out, &why) == CRED_MASK_DONE &&
		st.n == 2 && strcmp(st.v[0].real, "alice") == 0 &&
		strcmp(st.v[1].real, tok) == 0,
	    "maskClaims: the string claim sub, then the whole token, are registered");
	d = strchr(buf_str(&out), '.');
	buf_add_unbase64(&dec, d + 1, (size_t)(strrchr(d, '.') - d - 1), true);
	want = xasprintf("{\"sub\":\"%s\",\"aud\":\"x\",\"n\":5,\"exp\":1}", st.v[0].sentinel);
	ok(strcmp(buf_str(&dec), want) == 0 && strncmp(buf_str(&out), tok, 37) == 0 &&
		strcmp(strrchr(buf_str(&out), '.'), ".c3J0LWZha2U") == 0,
	    "the rebuilt token keeps the header and the other claims (reference shape)");
	free(want);
	cred_store_free(&st);
	buf_reset(&out);
	ok(cred_mask_value(&st, &e, "not.a.jwt", 9, &out, &why) == CRED_MASK_NOT_JWT,
	    "a variable that is no JWT is reported");
	/* A file: the built-in pattern finds the token among other text. */
	e.file = true;
	e.claims = NULL;
	e.nclaims = 0;
	e.key = "file:/t";
	{
		char *text = xasprintf("token: %s\nother: eyJnope.eyJx.y\n", tok);

		ok(cred_mask_value(&st, &e, text, strlen(text), &out, &why) == CRED_MASK_DONE &&
			st.n == 1 && strstr(buf_str(&out), "other: eyJnope.eyJx.y\n") != NULL &&
			strstr(buf_str(&out), tok) == NULL,
		    "a file's JWT is masked, a look-alike "
		    "that does not verify is left");
		free(text);
	}
	buf_free(&out);
	buf_free(&dec);
	cred_store_free(&st);
}

struct sig_case {
	const char *method, *target, *host, *service, *region, *hash;
	const char *fields[6]; /* name, value pairs */
	const char *names[5];
	const char *want;
};

static void
test_sigv4(void)
{
	/* reference: aws-sigv4 signSigv4; the first two are also AWS's published vectors. */
	static const struct sig_case cases[] = {
		{ "GET", "/", "example.amazonaws.com", "service", "us-east-1",
		    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		    { "X-Amz-Date", "20150830T123600Z" }, { "host", "x-amz-date" },
		    "5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31" },
		{ "GET", "/?Param2=value2&Param1=value1", "example.amazonaws.com", "service",
		    "us-east-1",
		    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
		    { "x-amz-date", "20150830T123600Z" }, { "host", "x-amz-date" },
		    "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500" },
		{ "POST", "/a/./b/../c//d%20e/?x=a+b&y=%7e&z", "example.amazonaws.com:8080",
		    "service", "us-east-1", NULL,
		    { "x-amz-date", "20150830T123600Z", "My-Header1", "  a   b   c ",
			"content-type", "application/x-www-form-urlencoded" },
		    { "host", "x-amz-date", "my-header1", "content-type" },
		    "545e9d96c197116cc7e8baabba791baa8d9c59a90f9ddbe34fdf2e7217b19fb3" },
		{ "PUT", "/bucket/key%20name?uploads", "s3.amazonaws.com", "s3", "eu-west-1",
		    "UNSIGNED-PAYLOAD",
		    { "x-amz-date", "20150830T123600Z", "x-amz-content-sha256",
			"UNSIGNED-PAYLOAD" },
		    { "host", "x-amz-date", "x-amz-content-sha256" },
		    "bf8878593c37b595d55d392bc1d9d628f4fd8a14444cdbadabb0650b50eb26cb" },
	};
	static const char secret[] = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
	uint8_t h[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], *auth, *names[5], *akid;
	struct sigv4_field f[3];
	struct sigv4_auth a;
	size_t i, k, nf, nn;

	sha256("Param1=value1", 13, h);
	hex_lower(h, SHA256_LEN, hex);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sig_case *c = &cases[i];
		struct sigv4_sign_in in = { .method = c->method,
			.target = c->target,
			.tlen = strlen(c->target),
			.host = c->host,
			.payload_hash = c->hash ? c->hash : hex,
			.amz_date = "20150830T123600Z",
			.date = "20150830",
			.region = c->region,
			.service = c->service,
			.akid = "AKIDEXAMPLE",
			.secret = secret,
			.secret_len = sizeof(secret) - 1 };

		for (nf = 0; nf < 3 && c->fields[2 * nf] != NULL; nf++)
			f[nf] = (struct sigv4_field){ c->fields[2 * nf], c->fields[2 * nf + 1],
				strlen(c->fields[2 * nf]), strlen(c->fields[2 * nf + 1]) };
		for (nn = 0; nn < 5 && c->names[nn] != NULL; nn++)
			names[nn] = (char *)(uintptr_t)c->names[nn];
		in.fields = f, in.nfields = nf, in.signed_names = names, in.nsigned = nn;
		auth = sigv4_sign(&in, NULL);
		ok(auth != NULL && strstr(auth, c->want) != NULL, "SigV4 %s %s", c->method,
		    c->target);
		if (auth != NULL && i == 2) {
			ok(sigv4_parse_auth(auth, strlen(auth), &a) == 0 && a.nsigned == 4 &&
				strcmp(a.service, "service") == 0 &&
				strcmp(a.akid, "AKIDEXAMPLE") == 0 &&
				strcmp(a.signed_names[0], "content-type") == 0,
			    "our Authorization parses back");
			sigv4_auth_free(&a);
		}
		free(auth);
	}
	{
		struct sigv4_sign_in in = { .method = "GET",
			.target = "/",
			.tlen = 1,
			.host = "h",
			.payload_hash = "x",
			.amz_date = "d",
			.date = "d",
			.region = "r",
			.service = "s",
			.akid = "k",
			.secret = "s",
			.secret_len = 1 };

		names[0] = (char *)(uintptr_t) "x-missing";
		in.signed_names = names, in.nsigned = 1;
		ok(sigv4_sign(&in, NULL) == NULL,
		    "a signed field that is missing: no signature");
	}
	k = 0;
#define AUTH \
	"AWS4-HMAC-SHA256 Credential=AKFAKE/20150830/us-east-1/s3/aws4_request, " \
	"SignedHeaders=host;x-amz-date, Signature=00"
	k += sigv4_detect(AUTH, strlen(AUTH), NULL, 0, "/", 1, &akid) == SIGV4_HEADER &&
	    strcmp(akid, "AKFAKE") == 0;
	free(akid);
	k += sigv4_detect(AUTH, strlen(AUTH), "STREAMING-AWS4-HMAC-SHA256-PAYLOAD", 34, "/", 1,
		 &akid) == SIGV4_STREAMING;
	free(akid);
	k += sigv4_detect("AWS4-ECDSA-P256-SHA256 Credential=AKA/20150830/s3/aws4_request", 62,
		 NULL, 0, "/", 1, &akid) == SIGV4_SIGV4A &&
	    strcmp(akid, "AKA") == 0;
	free(akid);
	{
		const char *t = "/o?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKP%2F2015"
				"0830%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Signature=ab";

		k += sigv4_detect(NULL, 0, NULL, 0, t, strlen(t), &akid) == SIGV4_PRESIGNED &&
		    strcmp(akid, "AKP") == 0;
		free(akid);
	}
	k += sigv4_detect("Bearer x", 8, NULL, 0, "/?a=b", 5, &akid) == SIGV4_NONE;
	free(akid);
	ok(k == 5, "detect: header, streaming, SigV4A, presigned, none");
	ok(sigv4_parse_auth("AWS4-HMAC-SHA256 Credential=a/b/c/d, SignedHeaders=host, "
			    "Signature=0",
	       66, &a) == -1,
	    "a short credential scope is refused");
}

int
main(void)
{
	test_sha256();
	test_sentinel();
	test_subst();
	test_stream();
	test_body();
	test_scrub();
	test_scrub_short_sentinel();
	test_wire();
	test_rx();
	test_extract();
	test_jwt();
	test_sigv4();
	return tap_done();
}
