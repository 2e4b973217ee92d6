/* The SOCKS5 parser (lib/proxyd/socks5.c) and the SSH refusal packet (ssh_refusal.c). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "socks5.h"
#include "ssh_refusal.h"
#include "tap.h"

/* What a conversation produced: the replies concatenated, the last event, the request. */
struct run {
	uint8_t replies[64];
	size_t nreplies;
	enum socks5_event last;
	size_t rest; /* bytes left unconsumed after the request or close */
	int requests;
	struct socks5 s;
};

/* Feed msg in pieces of `chunk` bytes (0: all at once), handling events like a server. */
static void
run_feed(struct run *r, const char *user, const char *pass, const uint8_t *msg, size_t len,
    size_t chunk)
{
	size_t off = 0, end, used;

	memset(r, 0, sizeof(*r));
	socks5_init(&r->s, user, pass);
	r->last = SOCKS5_EV_MORE;
	while (off < len) {
		end = chunk == 0 || off + chunk > len ? len : off + chunk;
		while (off < end) {
			r->last = socks5_feed(&r->s, msg + off, end - off, &used);
			off += used;
			if (r->s.replylen > 0 &&
			    r->nreplies + r->s.replylen <= sizeof(r->replies)) {
				memcpy(r->replies + r->nreplies, r->s.reply, r->s.replylen);
				r->nreplies += r->s.replylen;
			}
			if (r->last == SOCKS5_EV_REQUEST)
				r->requests++;
			if (r->last == SOCKS5_EV_REQUEST || r->last == SOCKS5_EV_CLOSE) {
				r->rest = len - off;
				return;
			}
		}
	}
}

static const uint8_t req_v4[] = {
	5, 1, 0,                              /* greeting: no-auth */
	5, 1, 0, 1, 127, 0, 0, 1, 0x1f, 0x90, /* CONNECT 127.0.0.1:8080 */
};
static const uint8_t req_dom[] = {
	5, 2, 0, 2, 5, 1, 0, 3, 11, 'e', 'x', 'a', 'm', 'p', 'l', 'e', '.', 'c', 'o', 'm', 0,
	22, 'G', 'E', 'T', /* early data after the request */
};
static const uint8_t req_v6[] = {
	5,
	1,
	0,
	5,
	1,
	0,
	4,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	0,
	1,
	0x01,
	0xbb,
};

static void
test_connect_every_split(void)
{
	struct run r;
	size_t chunk;
	int good;

	for (good = 1, chunk = 0; chunk <= sizeof(req_v4); chunk++) {
		run_feed(&r, NULL, NULL, req_v4, sizeof(req_v4), chunk);
		good &= r.last == SOCKS5_EV_REQUEST && r.s.req.atyp == SOCKS5_ATYP_IPV4 &&
		    strcmp(r.s.req.host, "127.0.0.1") == 0 && r.s.req.hostlen == 9 &&
		    r.s.req.port == 8080 && r.nreplies == 2 && r.replies[0] == 5 &&
		    r.replies[1] == 0 && r.rest == 0 && r.s.state == SOCKS5_ST_DONE;
	}
	ok(good, "ATYP 1 CONNECT parsed whole, byte by byte and in every piece size");

	for (good = 1, chunk = 0; chunk <= sizeof(req_dom); chunk++) {
		run_feed(&r, NULL, NULL, req_dom, sizeof(req_dom), chunk);
		good &= r.last == SOCKS5_EV_REQUEST && r.s.req.atyp == SOCKS5_ATYP_DOMAIN &&
		    r.s.req.hostlen == 11 && memcmp(r.s.req.host, "example.com", 12) == 0 &&
		    r.s.req.port == 22 && r.nreplies == 2 && r.replies[1] == 0;
		/* The parser stops at the end of the request: early data stays with us. */
		if (chunk == 0)
			good &= r.rest == 3;
	}
	ok(good, "ATYP 3 CONNECT parsed in every piece size");
	run_feed(&r, NULL, NULL, req_dom, sizeof(req_dom), 0);
	ok(r.rest == 3, "pipelined greeting+request+data: the 3 data bytes are not consumed");

	for (good = 1, chunk = 0; chunk <= sizeof(req_v6); chunk++) {
		run_feed(&r, NULL, NULL, req_v6, sizeof(req_v6), chunk);
		good &= r.last == SOCKS5_EV_REQUEST && r.s.req.atyp == SOCKS5_ATYP_IPV6 &&
		    strcmp(r.s.req.host, "::1") == 0 && r.s.req.port == 443 &&
		    r.s.req.addr[15] == 1;
	}
	ok(good, "ATYP 4 CONNECT parsed in every piece size");
}

static void
test_domain_bytes(void)
{
	static const uint8_t nul[] = { 5, 1, 0, 5, 1, 0, 3, 5, 'a', 0, 'b', '.', 'c', 0, 80 };
	static const uint8_t empty[] = { 5, 1, 0, 5, 1, 0, 3, 0, 0, 80 };
	uint8_t big[3 + 5 + 255 + 2];
	struct run r;
	size_t i;

	run_feed(&r, NULL, NULL, nul, sizeof(nul), 1);
	ok(r.last == SOCKS5_EV_REQUEST && r.s.req.hostlen == 5 && r.s.req.host[1] == '\0' &&
		r.s.req.host[2] == 'b',
	    "a NUL inside DOMAINNAME is passed on with its length");
	run_feed(&r, NULL, NULL, empty, sizeof(empty), 0);
	ok(r.last == SOCKS5_EV_REQUEST && r.s.req.hostlen == 0 && r.s.req.port == 80,
	    "empty DOMAINNAME is a request (the policy calls it malformed)");
	memcpy(big, "\5\1\0\5\1\0\3\377", 8);
	for (i = 0; i < 255; i++)
		big[8 + i] = 'a';
	big[8 + 255] = 1;
	big[8 + 256] = 0xbb;
	run_feed(&r, NULL, NULL, big, sizeof(big), 7);
	ok(r.last == SOCKS5_EV_REQUEST && r.s.req.hostlen == 255 && r.s.req.host[255] == '\0' &&
		r.s.req.port == 443,
	    "255-byte DOMAINNAME, NUL-terminated");
}

static void
test_refusals(void)
{
	static const uint8_t socks4[] = { 4, 1, 0, 80, 127, 0, 0, 1, 'u', 0 };
	static const uint8_t http[] = "GET / HTTP/1.1\r\n\r\n";
	static const uint8_t zero_methods[] = { 5, 0 };
	static const uint8_t only_gssapi[] = { 5, 1, 1 };
	static const uint8_t bind[] = { 5, 1, 0, 5, 2, 0, 1, 1, 2, 3, 4, 0, 80 };
	static const uint8_t udp[] = { 5, 1, 0, 5, 3, 0, 3, 3, 'a', '.', 'b', 0, 53 };
	static const uint8_t cmd9[] = { 5, 1, 0, 5, 9, 0, 1, 1, 2, 3, 4, 0, 80 };
	static const uint8_t atyp2[] = { 5, 1, 0, 5, 1, 0, 2, 1, 2, 3, 4, 0, 80 };
	static const uint8_t reqver4[] = { 5, 1, 0, 4, 1, 0, 1, 1, 2, 3, 4, 0, 80 };
	struct run r;

	run_feed(&r, NULL, NULL, socks4, sizeof(socks4), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 0 && r.s.error == SOCKS5_ERR_VERSION &&
		r.rest == sizeof(socks4) - 1,
	    "SOCKS4: closed at the first byte, no reply");
	run_feed(&r, NULL, NULL, http, sizeof(http) - 1, 1);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 0, "HTTP request: closed");
	run_feed(&r, NULL, NULL, zero_methods, sizeof(zero_methods), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.s.error == SOCKS5_ERR_NO_METHODS,
	    "NMETHODS 0: closed");
	run_feed(&r, NULL, NULL, only_gssapi, sizeof(only_gssapi), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 2 && r.replies[1] == 0xff,
	    "only GSSAPI offered: 05 FF, then close");
	run_feed(&r, NULL, NULL, bind, sizeof(bind), 1);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 12 && r.replies[3] == 7 &&
		r.replies[5] == 1 && r.s.error == SOCKS5_ERR_CMD,
	    "BIND: reply 07 (ATYP 1), close");
	run_feed(&r, NULL, NULL, udp, sizeof(udp), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 12 && r.replies[3] == 7,
	    "UDP ASSOCIATE: reply 07");
	run_feed(&r, NULL, NULL, cmd9, sizeof(cmd9), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.replies[3] == 7, "unknown command 9: reply 07");
	run_feed(&r, NULL, NULL, atyp2, sizeof(atyp2), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 12 && r.replies[3] == 8 && r.rest == 6,
	    "ATYP 2: reply 08 at once, nothing past ATYP consumed");
	run_feed(&r, NULL, NULL, reqver4, sizeof(reqver4), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 2 && r.s.error == SOCKS5_ERR_VERSION,
	    "request with VER 4: closed without a reply");
}

static void
test_auth(void)
{
	static const uint8_t good[] = {
		5,
		2,
		0,
		2,
		1,
		4,
		'u',
		's',
		'e',
		'r',
		6,
		's',
		'e',
		'c',
		'r',
		'e',
		't',
		5,
		1,
		0,
		1,
		10,
		0,
		0,
		1,
		0,
		80,
	};
	static const uint8_t badpass[] = {
		5,
		1,
		2,
		1,
		4,
		'u',
		's',
		'e',
		'r',
		6,
		's',
		'e',
		'c',
		'r',
		'e',
		'x',
		5,
		1,
		0,
		1,
		10,
		0,
		0,
		1,
		0,
		80,
	};
	static const uint8_t prefix[] = { 5, 1, 2, 1, 4, 'u', 's', 'e', 'r', 5, 's', 'e', 'c',
		'r', 'e' };
	static const uint8_t badver[] = { 5, 1, 2, 5, 4, 'u', 's', 'e', 'r', 1, 'x' };
	static const uint8_t noauth_only[] = { 5, 1, 0, 5, 1, 0, 1, 1, 2, 3, 4, 0, 80 };
	struct run r;
	size_t chunk;
	int okall;

	for (okall = 1, chunk = 0; chunk <= sizeof(good); chunk++) {
		run_feed(&r, "user", "secret", good, sizeof(good), chunk);
		okall &= r.last == SOCKS5_EV_REQUEST && r.nreplies == 4 && r.replies[1] == 2 &&
		    r.replies[2] == 1 && r.replies[3] == 0 && r.s.req.port == 80 &&
		    strcmp(r.s.req.host, "10.0.0.1") == 0;
	}
	ok(okall, "user/pass: method 02, auth 01 00, request; in every piece size");
	run_feed(&r, "user", "secret", badpass, sizeof(badpass), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 4 && r.replies[3] == 1 &&
		r.s.error == SOCKS5_ERR_AUTH_FAILED && r.rest == 10,
	    "wrong password: 01 01 and close, the request is not read");
	run_feed(&r, "user", "secret", prefix, sizeof(prefix), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.replies[3] == 1, "password prefix is not enough");
	run_feed(&r, "user", "secret", badver, sizeof(badver), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.s.error == SOCKS5_ERR_AUTH_VERSION,
	    "subnegotiation VER 5: closed");
	run_feed(&r, "user", "secret", noauth_only, sizeof(noauth_only), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.nreplies == 2 && r.replies[1] == 0xff,
	    "auth configured, client offers only no-auth: 05 FF");
	run_feed(&r, NULL, NULL, good, sizeof(good), 0);
	ok(r.last == SOCKS5_EV_CLOSE && r.replies[1] == 0 && r.s.error == SOCKS5_ERR_VERSION,
	    "no auth configured: no-auth chosen, then the auth bytes are not a request");
}

static void
test_after_done(void)
{
	struct socks5 s;
	size_t used;
	enum socks5_event ev;

	socks5_init(&s, NULL, NULL);
	ev = socks5_feed(&s, req_v4, sizeof(req_v4), &used);
	ok(ev == SOCKS5_EV_REPLY && used == 3, "greeting consumed alone (used 3)");
	ev = socks5_feed(&s, req_v4 + used, sizeof(req_v4) - used, &used);
	ok(ev == SOCKS5_EV_REQUEST && used == 10, "request consumed alone (used 10)");
	ev = socks5_feed(&s, req_v4, 1, &used);
	ok(ev == SOCKS5_EV_CLOSE && used == 0 && s.error == SOCKS5_ERR_STATE,
	    "feeding after the request is refused");
	ev = socks5_feed(&s, req_v4, 0, &used);
	ok(ev == SOCKS5_EV_CLOSE, "and stays refused");
	socks5_init(&s, NULL, NULL);
	ev = socks5_feed(&s, req_v4, 0, &used);
	ok(ev == SOCKS5_EV_MORE && used == 0, "empty input: MORE");
}

static uint32_t
get_u32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Check one packet's layout; returns the description length or -1. */
static long
check_packet(const uint8_t *p, size_t n, const char *want, size_t wantlen)
{
	uint32_t plen, dlen;
	uint8_t pad;
	size_t i;

	if (n < 4 + 1 + 13)
		return -1;
	plen = get_u32(p);
	pad = p[4];
	if (plen + 4 != n || (plen + 4) % 8 != 0 || pad < 4 || pad > 11)
		return -1;
	if (p[5] != SSH_MSG_DISCONNECT || get_u32(p + 6) != 1)
		return -1;
	dlen = get_u32(p + 10);
	if (14 + dlen + 4 + pad != n || get_u32(p + 14 + dlen) != 0)
		return -1;
	if (plen != 1 + 1 + 4 + 4 + dlen + 4 + pad)
		return -1;
	for (i = 0; i < pad; i++)
		if (p[18 + dlen + i] != 0)
			return -1;
	if (want != NULL && (dlen != wantlen || memcmp(p + 14, want, wantlen) != 0))
		return -1;
	return (long)dlen;
}

static void
test_ssh_packet(void)
{
	uint8_t out[SSH_REFUSAL_MAX], pkt[SSH_REFUSAL_MAX];
	char reason[4000], desc[SSH_REFUSAL_DESC_MAX];
	size_t n, len, identlen = strlen(SSH_REFUSAL_IDENT), i;
	int allpad = 1, seen[12] = { 0 };
	const char *r = "SSH is blocked: use https";

	n = ssh_refusal_build(r, strlen(r), out, sizeof(out));
	ok(n > identlen && memcmp(out, "SSH-2.0-policy_refusal\r\n", identlen) == 0,
	    "refusal starts with the identification line");
	ok(check_packet(out + identlen, n - identlen, r, strlen(r)) == (long)strlen(r),
	    "disconnect packet: length, reason 1, description, empty language, padding");

	/* Every description length 0..40 gives a valid layout; padding 4..11 all occur. */
	for (len = 0; len <= 40; len++) {
		memset(reason, 'x', len);
		n = ssh_disconnect_packet(reason, len, pkt, sizeof(pkt));
		if (check_packet(pkt, n, reason, len) != (long)len)
			allpad = 0;
		else
			seen[pkt[4]] = 1;
	}
	for (i = 4; i < 12; i++)
		allpad &= seen[i];
	ok(allpad, "lengths 0..40: multiple of 8, padding 4..11 (each value seen)");
	n = ssh_disconnect_packet("abc", 3, pkt, 10);
	ok(n == 0, "too small an output buffer: 0");

	len = ssh_refusal_sanitise("a\r\n\tb\x7f"
				   "c\x01",
	    8, desc);
	ok(len == 6 && memcmp(desc, "a b c ", 6) == 0, "control runs become one space");
	len = ssh_refusal_sanitise("x\xc2\x85y\xc2\xa0z", 7, desc);
	ok(len == 6 && memcmp(desc, "x y\xc2\xa0z", 6) == 0,
	    "C1 control (U+0085) is a control, "
	    "U+00A0 is kept");
	len = ssh_refusal_sanitise("a\xff"
				   "b\xe2\x82",
	    5, desc);
	ok(len == 11 &&
		memcmp(desc,
		    "a\xef\xbf\xbd"
		    "b\xef\xbf\xbd\xef\xbf\xbd",
		    11) == 0,
	    "invalid UTF-8 becomes U+FFFD");
	len = ssh_refusal_sanitise("\xc0\xaf\xed\xa0\x80", 5, desc);
	ok(len == 15, "overlong and surrogate encodings are invalid (5 x U+FFFD)");

	memset(reason, 'r', 3000);
	len = ssh_refusal_sanitise(reason, 3000, desc);
	ok(len == 1000, "cut at 1000 characters");
	n = ssh_refusal_build(reason, 3000, out, sizeof(out));
	ok(check_packet(out + identlen, n - identlen, NULL, 0) == 1000,
	    "long reason: packet carries 1000 bytes of description");
	for (i = 0; i < 1200; i++)
		memcpy(reason + 3 * i, "\xe2\x82\xac", 3); /* EURO SIGN */
	len = ssh_refusal_sanitise(reason, 3600, desc);
	ok(len == 3000, "1000 three-byte characters: 3000 bytes");
	n = ssh_refusal_build(reason, 3600, out, sizeof(out));
	ok(n <= SSH_REFUSAL_MAX && check_packet(out + identlen, n - identlen, NULL, 0) == 3000,
	    "largest description fits SSH_REFUSAL_MAX");
	memset(reason, 'a', 999);
	memcpy(reason + 999, "\xf0\x9f\x98\x80", 4); /* U+1F600, two UTF-16 units */
	len = ssh_refusal_sanitise(reason, 1003, desc);
	ok(len == 1002 && memcmp(desc + 999, "\xef\xbf\xbd", 3) == 0,
	    "a cut inside a surrogate pair leaves U+FFFD, as the reference does");
	memcpy(reason + 998, "\xf0\x9f\x98\x80", 4);
	len = ssh_refusal_sanitise(reason, 1002, desc);
	ok(len == 1002 && memcmp(desc + 998, "\xf0\x9f\x98\x80", 4) == 0,
	    "an astral character ending exactly at 1000 units is kept");
}

int
main(void)
{
	uint8_t rep[SOCKS5_REPLY_MAX];
	static const uint8_t want[] = { 5, 2, 0, 1, 0, 0, 0, 0, 0, 0 };

	ok(socks5_reply_build(rep, SOCKS5_REP_NOT_ALLOWED) == 10 && memcmp(rep, want, 10) == 0,
	    "reply layout: 05 REP 00 01 0.0.0.0:0");
	test_connect_every_split();
	test_domain_bytes();
	test_refusals();
	test_auth();
	test_after_done();
	test_ssh_packet();
	return tap_done();
}
