/*
 * policy.bin: the compiled decision agrees with dom_decide() on every reference vector,
 * images are deterministic and round-trip, damaged images are refused (never a crash),
 * and a lookup among 100,000 rules stays fast.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "policy.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

#define HDR_LEN 104                       /* the header of format version 7 */
#define LAYERS_LEN (4 + 4 * SL_COUNT + 4) /* the layers section of a plain policy */


/* Every field of struct settings set to something other than its default. */
static const char *rich_settings =
    "{\"network\":{\"allowedDomains\":[\"example.com\",\"*.github.com:443\",\"1.2.3.4\","
    "\"[::1]:8080\",\"localhost\",\"EXAMPLE.org\"],"
    "\"deniedDomains\":[\"bad.github.com\",\"*:22\",\"10.0.0.1:443\",\"[2001:db8::1]\"],"
    "\"deniedDomainReasons\":{\"*:22\":\"no ssh\",\"bad.github.com\":\"bad one\"},"
    "\"strictAllowlist\":true,\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"fc00::/7\","
    "\"192.168.1.1\"],\"allowUnixSockets\":[\"/run/a.sock\"],\"allowAllUnixSockets\":true,"
    "\"allowLocalBinding\":true,\"allowMachLookup\":[\"com.apple.x\",\"com.y.*\"],"
    "\"httpProxyPort\":8888,\"socksProxyPort\":1081,\"requireHostMatch\":true,"
    "\"mitmProxy\":{\"socketPath\":\"/run/i.sock\",\"domains\":[\"a.example.com\","
    "\"*.b.example.com\"]},\"parentProxy\":{\"http\":\"http://p.example.com:3128\","
    "\"https\":\"https://u:p@p.example.com\",\"noProxy\":\".internal\"},"
    "\"refuseOpaqueTunnels\":true,\"stripResponseHeaders\":[\"set-cookie\",\"x-a\"]},"
    "\"filesystem\":{\"disabled\":true,\"denyRead\":[\"~/.ssh\",{\"path\":\"/a*b\","
    "\"literal\":true}],\"allowRead\":[\"~/.ssh/known_hosts\"],\"allowWrite\":[\".\","
    "\"/tmp/x/**\"],\"denyWrite\":[\"./secret\"],\"allowGitConfig\":true},"
    "\"ignoreViolations\":{\"*\":[\"/usr/bin\"],\"git push\":[\"a\",\"b\"]},"
    "\"enableWeakerNestedSandbox\":true,\"allowNestedUserNamespaces\":true,"
    "\"enableWeakerNetworkIsolation\":true,\"allowAppleEvents\":true,\"allowPty\":true,"
    "\"mandatoryDenySearchDepth\":7,\"bwrapPath\":\"/usr/bin/bwrap\","
    "\"git\":{\"safeDirectories\":[\"/src/a\",\"*\"]},"
    "\"windows\":{\"backend\":\"srt-win\",\"sandboxUser\":\"sbx\","
    "\"sublayerGuid\":\"8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4\",\"proxyPortRange\":[61000,61064],"
    "\"srtWin\":{\"path\":\"C:\\\\srt-win.exe\"}},"
    "\"credentials\":{\"files\":[{\"path\":\"~/.netrc\",\"mode\":\"deny\"},"
    "{\"path\":\"~/.aws/**\",\"mode\":\"deny\"}],"
    "\"envVars\":[{\"name\":\"GH_TOKEN\",\"mode\":\"deny\"}]}}";

static int
parse_settings(const char *text, struct settings *s)
{
	struct diags errs = { 0 }, warns = { 0 };
	int rc = settings_parse(text, strlen(text), "test", s, &errs, &warns);

	for (size_t i = 0; i < errs.msgs.n; i++)
		printf("# %s\n", errs.msgs.v[i]);
	diags_free(&errs);
	diags_free(&warns);
	return rc;
}

static int
compile_text(const char *text, uint8_t **buf, size_t *len)
{
	struct settings s;
	int rc;

	if (parse_settings(text, &s) != 0)
		return -1;
	rc = policy_compile(&s, buf, len);
	settings_free(&s);
	return rc;
}

/* The checksum as the format defines it, so the tests can damage the structure behind
 * a valid checksum. */
static void
reseal(uint8_t *img, size_t len)
{
	uint64_t h = 14695981039346656037ull;

	if (len < 32)
		return;
	for (size_t i = 0; i < len; i++) {
		h ^= (i >= 24 && i < 32) ? 0 : img[i];
		h *= 1099511628211ull;
	}
	for (int i = 0; i < 8; i++)
		img[24 + i] = (uint8_t)(h >> (8 * i));
}

static int
same_answer(const struct dom_verdict *d, const struct policy_verdict *v)
{
	if (d->allow != v->allow)
		return 0;
	if ((d->rule == NULL) != (v->rule == NULL))
		return 0;
	if (d->rule != NULL &&
	    (strlen(d->rule->spelled) != v->rule_len ||
		memcmp(d->rule->spelled, v->rule, v->rule_len) != 0))
		return 0;
	if ((d->reason == NULL) != (v->reason == NULL))
		return 0;
	return d->reason == NULL ||
	    (strlen(d->reason) == v->reason_len &&
		memcmp(d->reason, v->reason, v->reason_len) == 0);
}

static void
test_vectors(void)
{
	const char *dir = getenv("SRT_DATA") ? getenv("SRT_DATA") : "tests/data";
	char *text = NULL, *line, *save = NULL, *path;
	size_t len, lineno = 0;

	path = xasprintf("%s/domain-decisions.jsonl", dir);
	if (read_file(path, 1 << 24, &text, &len) != 0) {
		ok(0, "read %s: %s", path, strerror(errno));
		free(path);
		return;
	}
	free(path);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		cJSON *doc = cJSON_Parse(line), *cases, *c;
		char *stext = NULL, err[256];
		struct settings s;
		struct policy *p = NULL;
		int good = 1, ncases = 0;

		lineno++;
		if (doc == NULL ||
		    (stext = cJSON_PrintUnformatted(cJSON_GetObjectItem(doc, "settings"))) ==
			NULL ||
		    parse_settings(stext, &s) != 0) {
			ok(0, "vector line %zu: settings parse", lineno);
			cJSON_Delete(doc);
			free(stext);
			continue;
		}
		if ((p = policy_from_settings(&s, err, sizeof(err))) == NULL) {
			ok(0, "vector line %zu: compile: %s", lineno, err);
			goto next;
		}
		cases = cJSON_GetObjectItem(doc, "cases");
		cJSON_ArrayForEach(c, cases)
		{
			const char *host = cJSON_GetObjectItem(c, "host")->valuestring;
			int port = cJSON_GetObjectItem(c, "port")->valueint;
			const char *want = cJSON_GetObjectItem(c, "verdict")->valuestring;
			struct dom_verdict d;
			struct policy_verdict v;

			dom_decide(s.net.allowed, s.net.nallowed, s.net.denied, s.net.ndenied,
			    host, (uint16_t)port, &d);
			policy_decide(p, host, strlen(host), (uint16_t)port, &v);
			ncases++;
			if (!same_answer(&d, &v) || v.allow != (strcmp(want, "allow") == 0)) {
				printf(
				    "# %s:%d: dom_decide %s (%s), policy %s (%.*s), reference %s\n",
				    host, port, d.allow ? "allow" : "deny",
				    d.reason ? d.reason : "-", v.allow ? "allow" : "deny",
				    (int)v.reason_len, v.reason ? v.reason : "-", want);
				good = 0;
			}
		}
		ok(good && ncases > 0,
		    "vector line %zu: %d cases agree with dom_decide and the "
		    "reference",
		    lineno, ncases);
	next:
		policy_free(p);
		settings_free(&s);
		cJSON_Delete(doc);
		free(stext);
	}
	free(text);
}

/* First deny entry in list order wins, whichever index key found it; then the first
 * allow entry. Compared with dom_decide on reasons and matching entries too. */
static void
test_order(void)
{
	static const char *doc =
	    "{\"network\":{\"allowedDomains\":[\"*.example.com\",\"a.example.com:443\","
	    "\"a.example.com\",\"localhost\",\"[::1]\",\"127.0.0.1:80\"],"
	    "\"deniedDomains\":[\"*.b.example.com:443\",\"x.b.example.com\",\"*:25\","
	    "\"*.example.com:8443\",\"example.com\",\"127.0.0.1:81\"],"
	    "\"deniedDomainReasons\":{\"*.b.example.com:443\":\"A\",\"x.b.example.com\":"
	    "\"B\",\"*:25\":\"no mail\"}},\"filesystem\":{\"denyRead\":[],"
	    "\"allowWrite\":[],\"denyWrite\":[]}}";
	static const struct {
		const char *host;
		uint16_t port;
	} q[] = {
		{ "x.b.example.com", 443 },
		{ "x.b.example.com", 80 },
		{ "x.b.example.com", 25 },
		{ "a.example.com", 443 },
		{ "a.example.com", 80 },
		{ "example.com", 443 },
		{ "b.example.com", 443 },
		{ "y.b.example.com", 443 },
		{ "q.example.com", 8443 },
		{ "LOCALHOST.", 1 },
		{ "localhost", 25 },
		{ "::1", 9 },
		{ "[::1]", 9 },
		{ "0:0::1", 9 },
		{ "127.1", 80 },
		{ "2130706433", 81 },
		{ "::ffff:127.0.0.1", 80 },
		{ "a.example.com.", 22 },
		{ "a.example.com..", 22 },
		{ "", 80 },
		{ "%", 80 },
		{ "1.2.3.4", 25 },
		{ "com", 80 },
		{ ".example.com", 80 },
	};
	struct settings s;
	struct policy *p;
	char err[256];

	if (parse_settings(doc, &s) != 0 ||
	    (p = policy_from_settings(&s, err, sizeof(err))) == NULL) {
		ok(0, "ordering settings compile");
		return;
	}
	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		struct dom_verdict d;
		struct policy_verdict v;

		dom_decide(s.net.allowed, s.net.nallowed, s.net.denied, s.net.ndenied,
		    q[i].host, q[i].port, &d);
		policy_decide(p, q[i].host, strlen(q[i].host), q[i].port, &v);
		ok(same_answer(&d, &v), "%s:%u: %s%.*s (entry %.*s)", q[i].host, q[i].port,
		    v.allow ? "allow" : "deny: ", (int)v.reason_len, v.reason ? v.reason : "",
		    v.rule ? (int)v.rule_len : 4, v.rule ? v.rule : "none");
	}
	policy_free(p);
	settings_free(&s);
}

/* settings -> bin -> settings -> bin, and settings -> JSON -> settings -> bin. */
static void
test_roundtrip(void)
{
	uint8_t *a = NULL, *b = NULL, *c = NULL, *d = NULL;
	size_t alen, blen, clen, dlen;
	struct settings s, t, u;
	struct policy *p;
	char err[256], *json = NULL;
	int rc;

	ok(parse_settings(rich_settings, &s) == 0, "rich settings parse");
	alen = 0;
	rc = policy_compile(&s, &a, &alen);
	ok(rc == 0, "compile rich settings (%zu bytes)", alen);
	ok(policy_compile(&s, &b, &blen) == 0 && blen == alen && memcmp(a, b, alen) == 0,
	    "compiling twice gives identical bytes");
	p = policy_open_mem(a, alen, err, sizeof(err));
	ok(p != NULL, "open the image: %s", p ? "ok" : err);
	if (p == NULL)
		goto out;
	ok(policy_to_settings(p, &t) == 0, "policy_to_settings");
	ok(policy_compile(&t, &c, &clen) == 0 && clen == alen && memcmp(a, c, alen) == 0,
	    "settings -> bin -> settings -> bin: identical bytes");
	ok(t.net.strict_allowlist && t.net.allow_all_unix_sockets &&
		t.net.allow_local_binding && t.net.require_host_match && t.fs.disabled &&
		t.fs.allow_git_config && t.weaker_nested_sandbox && t.allow_nested_userns &&
		t.weaker_network_isolation && t.allow_apple_events && t.allow_pty &&
		t.net.refuse_opaque_tunnels,
	    "every boolean survives");
	ok(t.net.parent.present &&
		strcmp(t.net.parent.http, "http://p.example.com:3128") == 0 &&
		strcmp(t.net.parent.https, "https://u:p@p.example.com") == 0 &&
		strcmp(t.net.parent.no_proxy, ".internal") == 0 && t.net.mitm.present &&
		strcmp(t.net.mitm.socket_path, "/run/i.sock") == 0 &&
		t.net.mitm.domains.n == 2 &&
		strcmp(t.net.mitm.domains.v[1], "*.b.example.com") == 0 &&
		t.net.strip_headers.n == 2 &&
		strcmp(t.net.strip_headers.v[0], "set-cookie") == 0,
	    "parentProxy, mitmProxy, stripResponseHeaders survive");
	{
		struct settings r;

		ok(policy_routes(p, &r) == 0 && r.net.parent.present &&
			strcmp(r.net.parent.https, "https://u:p@p.example.com") == 0 &&
			r.net.mitm.domains.n == 2 && r.net.strip_headers.n == 2 &&
			r.net.nallowed == 0 && r.fs.deny_read.n == 0,
		    "policy_routes reads the routes and nothing else");
		settings_free(&r);
	}
	ok(t.net.http_proxy_port == 8888 && t.net.socks_proxy_port == 1081 &&
		t.deny_search_depth == 7 && t.bwrap_path &&
		strcmp(t.bwrap_path, "/usr/bin/bwrap") == 0,
	    "ports, depth, bwrapPath survive");
	ok(t.git_safe_dirs.n == 2 && strcmp(t.git_safe_dirs.v[1], "*") == 0 && t.nignore == 2 &&
		strcmp(t.ignore[1].pattern, "git push") == 0 && t.ignore[1].subs.n == 2 &&
		t.net.nreasons == 2 && strcmp(t.net.reasons[0].entry, "*:22") == 0 &&
		strcmp(t.net.reasons[1].reason, "bad one") == 0,
	    "git.safeDirectories, ignoreViolations, deniedDomainReasons (file order) survive");
	ok(t.fs.deny_read.n == 2 && t.fs.deny_read.v[1].literal &&
		!t.fs.deny_read.v[0].literal && strcmp(t.fs.deny_read.v[1].path, "/a*b") == 0 &&
		t.net.ndenied_addrs == 3 && t.net.denied[1].reason &&
		strcmp(t.net.denied[1].reason, "no ssh") == 0,
	    "paths, literal flag, ranges, "
	    "rule reasons survive");
	ok(t.win.present && t.win.backend == WIN_BACKEND_SRT_WIN &&
		strcmp(t.win.sandbox_user, "sbx") == 0 && t.win.wfp_sublayer_guid == NULL &&
		strcmp(t.win.sublayer_guid, "8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4") == 0 &&
		t.win.port_lo == 61000 && t.win.port_hi == 61064 &&
		strcmp(t.win.srt_win_path, "C:\\srt-win.exe") == 0,
	    "the windows block survives");
	ok(t.cred.deny_files.n == 2 && strcmp(t.cred.deny_files.v[1].path, "~/.aws/**") == 0 &&
		!t.cred.deny_files.v[0].literal && t.cred.deny_env.n == 1 &&
		strcmp(t.cred.deny_env.v[0], "GH_TOKEN") == 0,
	    "the credential denies survive");
	json = settings_to_json(&t);
	ok(json != NULL && parse_settings(json, &u) == 0, "dump parses back");
	if (json != NULL) {
		ok(policy_compile(&u, &d, &dlen) == 0 && dlen == alen &&
			memcmp(a, d, alen) == 0,
		    "compile, dump, compile: identical bytes");
		settings_free(&u);
	}
	settings_free(&t);
	policy_free(p);
out:
	settings_free(&s);
	free(json);
	free(a);
	free(b);
	free(c);
	free(d);
}

/* Try one damaged image: it must be refused with a message, or, if the change left a
 * consistent image, be usable. Returns 1 if refused. */
static int
try_image(const uint8_t *img, size_t len, int *silent)
{
	struct policy_verdict v;
	struct settings s;
	struct policy *p;
	char err[512];

	err[0] = '\0';
	p = policy_open_mem(img, len, err, sizeof(err));
	if (p == NULL) {
		if (err[0] == '\0')
			(*silent)++;
		return 1;
	}
	policy_decide(p, "a.github.com", 12, 443, &v);
	policy_decide(p, "1.2.3.4", 7, 80, &v);
	if (policy_to_settings(p, &s) == 0)
		settings_free(&s);
	policy_free(p);
	return 0;
}

static void
test_damage(void)
{
	uint8_t *img = NULL, *copy;
	size_t len;
	int silent = 0, refused, accepted, resealed_refused;
	char err[512];

	if (compile_text(rich_settings, &img, &len) != 0) {
		ok(0, "compile for damage tests");
		return;
	}
	copy = xmalloc(len);
	refused = 0;
	for (size_t n = 0; n < len; n++)
		refused += try_image(img, n, &silent);
	ok(refused == (int)len, "every truncation (%zu lengths) refused", len);

	refused = 0;
	for (size_t i = 0; i < len; i++) {
		memcpy(copy, img, len);
		copy[i] ^= 0x01;
		refused += try_image(copy, len, &silent);
	}
	ok(refused == (int)len, "every single-byte flip refused by the checksum");

	accepted = resealed_refused = 0;
	for (size_t i = 0; i < len; i++) {
		static const uint8_t flips[] = { 0x01, 0x80, 0xff, 0x10 };

		for (size_t f = 0; f < sizeof(flips); f++) {
			memcpy(copy, img, len);
			copy[i] ^= flips[f];
			reseal(copy, len);
			if (try_image(copy, len, &silent))
				resealed_refused++;
			else
				accepted++;
		}
	}
	/* Flips inside free text (a path, a reason) leave a consistent image; anything in
	 * the header, counts, offsets, index or rules must be caught. */
	ok(resealed_refused > 0 && accepted < resealed_refused,
	    "flips behind a valid checksum: %d refused, %d consistent and usable",
	    resealed_refused, accepted);
	for (size_t i = 0; i < HDR_LEN; i++) {
		int bad = 0;

		memcpy(copy, img, len);
		copy[i] ^= 0x40;
		reseal(copy, len);
		if (i >= 24 && i < 32)
			continue; /* the checksum itself, recomputed */
		bad = try_image(copy, len, &silent);
		if (!bad) {
			ok(0, "header byte %zu flipped behind a valid checksum was accepted",
			    i);
			break;
		}
		if (i == HDR_LEN - 1)
			ok(1, "every header byte flipped behind a valid checksum is refused");
	}
	ok(silent == 0, "every refusal carries a message");

	memcpy(copy, img, len);
	copy[1] = 'X';
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "bad magic") != NULL,
	    "wrong magic: %s", err);
	memcpy(copy, img, len);
	copy[8] = 8;
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "unsupported format version 8 (this srt reads 7)") != NULL,
	    "wrong version: %s", err);
	memcpy(copy, img, len);
	copy[16] = 0;
	copy[17] = 0x10; /* 4096 + low bits */
	copy[16] = 0;
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "truncated: header says") != NULL,
	    "length beyond the file: %s", err);
	ok(policy_open_mem(img, len - 1, err, sizeof(err)) == NULL &&
		strstr(err, "truncated") != NULL,
	    "one byte short: %s", err);
	memcpy(copy, img, len);
	copy[40] = 0xf0;
	copy[41] = copy[42] = copy[43] = 0xff; /* section 1 offset 0xfffffff0 */
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "section rules") != NULL,
	    "huge section offset: %s", err);
	memcpy(copy, img, len);
	copy[36] = copy[37] = copy[38] = copy[39] = 0xff; /* strings length */
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL, "huge section length: %s",
	    err);
	memcpy(copy, img, len);
	copy[24] ^= 1;
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "bad checksum") != NULL,
	    "checksum mismatch: %s", err);
	ok(policy_open_mem((const uint8_t *)"", 0, err, sizeof(err)) == NULL &&
		strstr(err, "truncated") != NULL,
	    "empty input: %s", err);

	/* The windows block (flags, low, high, then four string offsets) comes before the
	 * routes, which end the options section: parentProxy (flags, http, https, noProxy),
	 * mitmProxy (flags, socketPath, 2 domains), stripResponseHeaders (2 names): ROUTES
	 * bytes; then tlsTerminate, absent here: flags, caCertPath, caKeyPath, 0
	 * excludeDomains, 0 extraCaCertPaths, maxTunnels, handshakeTimeoutMs (TLS_ABSENT
	 * bytes). The layers section (all zero here) follows it. */
#define TLS_ABSENT 28
#define ROUTES (16 + 8 + 12 + 12 + TLS_ABSENT)
	{
		static const struct {
			size_t at;
			uint8_t v;
			const char *what;
		} w[] = {
			{ ROUTES + 28, 0x07, "backend 3" },
			{ ROUTES + 28, 0x08, "an unknown flag" },
			{ ROUTES + 24, 0x00, "port range 61000-61064 lowered to 60928-61064" },
			{ ROUTES + 20, 0x00, "high port 61064 lowered to 60928, below low" },
			{ ROUTES, 0x02, "an unknown parentProxy flag" },
			{ ROUTES, 0x00, "parentProxy absent but its URLs set" },
			{ ROUTES - 16, 0x00, "mitmProxy absent but its socket set" },
			{ ROUTES - 16, 0x03, "an unknown mitmProxy flag" },
			{ ROUTES - 24, 0x00, "mitmProxy without domains" },
			{ 12 + TLS_ABSENT, 0x03,
			    "stripResponseHeaders longer than the section" },
			{ TLS_ABSENT, 0x02, "an unknown tlsTerminate flag" },
			{ 8, 0x05, "tlsTerminate absent but maxTunnels set" },
			{ 4, 0x05, "handshakeTimeoutMs 5, below 100" },
			{ 16, 0x01, "a tlsTerminate list longer than the section" },
		};

		for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			memcpy(copy, img, len);
			copy[len - 20 - LAYERS_LEN - w[i].at] = w[i].v;
			reseal(copy, len);
			ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
				strstr(err, "section options") != NULL,
			    "windows block with %s "
			    "refused: %s",
			    w[i].what, err);
		}
	}
	/* The variable's name pointed at the first path, which is no variable name. */
	memcpy(copy, img, len);
	memcpy(copy + len - 4, copy + len - 16, 4);
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "section credentials") != NULL,
	    "a credential variable that is no "
	    "name refused: %s",
	    err);
	/* One byte more in the section. */
	memcpy(copy, img, len);
	copy[len - 20] = 3;
	reseal(copy, len);
	ok(policy_open_mem(copy, len, err, sizeof(err)) == NULL &&
		strstr(err, "section credentials") != NULL,
	    "a wrong count of credential paths "
	    "refused: %s",
	    err);
	free(copy);
	free(img);
}

static void
test_addresses(void)
{
	struct policy *p = NULL;
	struct settings s;
	struct ip_addr a;
	char err[256];

	if (parse_settings(rich_settings, &s) != 0 ||
	    (p = policy_from_settings(&s, err, sizeof(err))) == NULL) {
		ok(0, "compile for address tests");
		return;
	}
	ip_addr_parse("10.0.0.1", &a);
	ok(policy_addr_listed(p, 1, &a, 443) && !policy_addr_listed(p, 1, &a, 80),
	    "deny-listed literal 10.0.0.1:443 honours its port");
	ip_addr_parse("::ffff:10.0.0.1", &a);
	ok(policy_addr_listed(p, 1, &a, 443), "deny-listed v4 matches its mapped form");
	ip_addr_parse("64:ff9b::10.0.0.1", &a);
	ok(policy_addr_listed(p, 1, &a, 443), "deny-listed v4 matches its NAT64 form");
	ip_addr_parse("2001:db8::1", &a);
	ok(policy_addr_listed(p, 1, &a, 1) && !policy_addr_listed(p, 0, &a, 1),
	    "deny-listed [2001:db8::1] any port, not on the allow list");
	ip_addr_parse("1.2.3.4", &a);
	ok(policy_addr_listed(p, 0, &a, 9) && !policy_addr_listed(p, 1, &a, 9),
	    "allow-listed 1.2.3.4");
	ip_addr_parse("::ffff:1.2.3.4", &a);
	ok(policy_addr_listed(p, 0, &a, 9), "allow-listed v4 matches its mapped form");
	ip_addr_parse("2002:102:304::", &a);
	ok(!policy_addr_listed(p, 0, &a, 9), "allow-listed v4 is not earned by 6to4");
	ip_addr_parse("::1", &a);
	ok(policy_addr_listed(p, 0, &a, 8080) && !policy_addr_listed(p, 0, &a, 8081),
	    "allow-listed [::1]:8080 honours its port");
	ip_addr_parse("10.9.8.7", &a);
	ok(policy_addr_in_denied_ranges(p, &a), "10.9.8.7 in 10.0.0.0/8");
	ip_addr_parse("64:ff9b::10.9.8.7", &a);
	ok(policy_addr_in_denied_ranges(p, &a), "NAT64 of 10.9.8.7 in 10.0.0.0/8");
	ip_addr_parse("fd12::1", &a);
	ok(policy_addr_in_denied_ranges(p, &a), "fd12::1 in fc00::/7");
	ip_addr_parse("11.0.0.1", &a);
	ok(!policy_addr_in_denied_ranges(p, &a), "11.0.0.1 in no range");
	ip_addr_parse("192.168.1.2", &a);
	ok(!policy_addr_in_denied_ranges(p, &a), "192.168.1.2 is not 192.168.1.1");
	policy_free(p);
	settings_free(&s);
}

static int
dir_entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

static void
test_files(void)
{
	char dir[] = "/tmp/test_policy.XXXXXX", *path, *bad, err[512];
	uint8_t *img = NULL;
	struct policy *p;
	size_t len, blen;
	int fd;

	if (mkdtemp(dir) == NULL || compile_text(rich_settings, &img, &len) != 0) {
		ok(0, "set up file tests");
		return;
	}
	path = xasprintf("%s/policy.bin", dir);
	bad = xasprintf("%s/missing/policy.bin", dir);
	ok(policy_write_file(path, img, len, err, sizeof(err)) == 0, "write %s", path);
	ok(dir_entries(dir) == 1, "only the policy is left in the directory");
	p = policy_open_file(path, err, sizeof(err));
	ok(p != NULL && policy_bytes(p, &blen) && blen == len &&
		memcmp(policy_bytes(p, &blen), img, len) == 0,
	    "open_file maps the same bytes");
	policy_free(p);
	ok(policy_write_file(bad, img, len, err, sizeof(err)) != 0 &&
		strstr(err, "temporary") != NULL,
	    "write into a missing directory: %s", err);
	/* An unsealed memfd is read, not mapped. */
	fd = memfd_create("policy", MFD_CLOEXEC);
	ok(fd >= 0 && write(fd, img, len) == (ssize_t)len, "memfd written");
	p = policy_open_fd(fd, err, sizeof(err));
	ok(p != NULL, "open_fd on a memfd: %s", p ? "ok" : err);
	policy_free(p);
	close(fd);
	fd = open(path, O_WRONLY | O_TRUNC);
	ok(fd >= 0 && len > 120 && write(fd, img, 120) == 120,
	    "truncate the file to 120 bytes");
	close(fd);
	p = policy_open_file(path, err, sizeof(err));
	ok(p == NULL && strstr(err, "truncated: header says") && strstr(err, "file has 120"),
	    "truncated file: %s", err);
	unlink(path);
	rmdir(dir);
	free(path);
	free(bad);
	free(img);
}

/* 100,000 rules: answers agree with dom_decide; each lookup touches a few buckets. */
static void
test_large(void)
{
	struct settings s;
	struct policy *p;
	char err[256], host[128];
	size_t n = 100000, bad = 0;
	struct timespec t0, t1;
	double ms;

	settings_init_default(&s);
	s.net.allowed = xcalloc(n, sizeof(*s.net.allowed));
	s.net.denied = xcalloc(n / 10, sizeof(*s.net.denied));
	for (size_t i = 0; i < n; i++) {
		const char *why;
		char e[96];

		snprintf(e, sizeof(e),
		    i % 3 ? "host%zu.example%zu.com" : "*.zone%zu.example%zu.com", i, i % 97);
		if (dom_entry_parse(e, 0, &s.net.allowed[s.net.nallowed], &why) == 0)
			s.net.nallowed++;
	}
	for (size_t i = 0; i < n / 10; i++) {
		const char *why;
		char e[96];

		snprintf(
		    e, sizeof(e), "host%zu.example%zu.com:%zu", i * 7, (i * 7) % 97, 1 + i % 3);
		if (dom_entry_parse(e, 1, &s.net.denied[s.net.ndenied], &why) == 0)
			s.net.ndenied++;
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	p = policy_from_settings(&s, err, sizeof(err));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ok(p != NULL, "compile and verify %zu rules (%.1f ms)", s.net.nallowed + s.net.ndenied,
	    ms);
	if (p == NULL)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < 200000; i++) {
		struct policy_verdict v;

		snprintf(host, sizeof(host), "%shost%zu.example%zu.com", i % 5 ? "" : "a.zone",
		    (i * 31) % (n + 50), ((i * 31) % (n + 50)) % 97);
		policy_decide(p, host, strlen(host), (uint16_t)(1 + i % 4), &v);
		if (i % 500 == 0) {
			struct dom_verdict d;

			dom_decide(s.net.allowed, s.net.nallowed, s.net.denied, s.net.ndenied,
			    host, (uint16_t)(1 + i % 4), &d);
			if (!same_answer(&d, &v))
				bad++;
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	ok(bad == 0,
	    "100,000-rule policy agrees with dom_decide on sampled hosts "
	    "(200,000 lookups in %.1f ms)",
	    ms);
	policy_free(p);
out:
	settings_free(&s);
}

/* The options' bounds and bits come from settings_schema.h, for the writer and the reader
 * alike: an integer out of its row's bounds is neither compiled nor read, and the flags
 * read at open are the BOOL rows' bits. */
static void
test_options(void)
{
	uint8_t *img = NULL, *copy;
	size_t len, i;
	uint32_t off, flags;
	struct settings s;
	struct policy *p;
	char err[512];

	if (parse_settings(rich_settings, &s) != 0 || policy_compile(&s, &img, &len) != 0) {
		ok(0, "compile for option tests");
		return;
	}
	p = policy_open_mem(img, len, err, sizeof(err));
	flags = p != NULL ? policy_option_flags(p) : 0;
	ok(p != NULL &&
		((flags & SETTINGS_FLAG(require_host_match)) != 0) ==
		    s.net.require_host_match &&
		((flags & SETTINGS_FLAG(strict_allowlist)) != 0) == s.net.strict_allowlist &&
		(flags & ~settings_all_flags) == 0,
	    "policy_option_flags: the BOOL rows' bits, read at open");
	policy_free(p);
	for (i = 0; i < 3; i++) {
		static const int depth[] = { 0, 11, -1 };

		s.deny_search_depth = depth[i];
		ok(policy_compile(&s, &copy, &len) == -1,
		    "mandatoryDenySearchDepth %d is not "
		    "compiled (1..10 in settings_schema.h)",
		    depth[i]);
	}
	s.deny_search_depth = 10;
	s.net.http_proxy_port = 0;
	ok(policy_compile(&s, &copy, &len) == 0, "an unset port (0) and depth 10 compile");
	free(copy);
	settings_free(&s);

	/* The options section starts with u32 flags, then the integers in row order:
	 * httpProxyPort, socksProxyPort, mandatoryDenySearchDepth. */
	off = (uint32_t)img[32 + 8 * 6] | (uint32_t)img[33 + 8 * 6] << 8 |
	    (uint32_t)img[34 + 8 * 6] << 16 | (uint32_t)img[35 + 8 * 6] << 24;
	copy = xmalloc(len);
	for (i = 0; i < 4; i++) {
		static const struct {
			size_t at;
			uint8_t v;
			const char *what;
		} bad[] = {
			{ 12, 0, "mandatoryDenySearchDepth 0" },
			{ 12, 11, "mandatoryDenySearchDepth 11" },
			{ 4, 0xff, "a port above 65535" },
			{ 1, 0x80, "an option bit no row has" },
		};

		memcpy(copy, img, len);
		if (bad[i].at == 4) {
			copy[off + 4] = 0xff;
			copy[off + 5] = 0xff;
			copy[off + 6] = 0x01;
		} else if (bad[i].at == 12) {
			memset(copy + off + 12, 0, 4);
			copy[off + 12] = bad[i].v;
		} else
			copy[off + 1] |= bad[i].v;
		reseal(copy, len);
		p = policy_open_mem(copy, len, err, sizeof(err));
		ok(p == NULL && strstr(err, "options") != NULL, "the reader refuses %s: %s",
		    bad[i].what, p == NULL ? err : "accepted");
		policy_free(p);
	}
	memcpy(copy, img, len);
	memset(copy + off + 12, 0, 4);
	copy[off + 12] = 10;
	reseal(copy, len);
	p = policy_open_mem(copy, len, err, sizeof(err));
	ok(p != NULL, "the reader takes mandatoryDenySearchDepth 10");
	policy_free(p);
	free(copy);
	free(img);
}

int
main(void)
{
	test_vectors();
	test_order();
	test_roundtrip();
	test_damage();
	test_options();
	test_addresses();
	test_files();
	test_large();
	return tap_done();
}
