/*
 * The hosts file read once at start (hosts.h), against c-ares 1.18's own file lookup on
 * the same file: the proxies used to let c-ares read /etc/hosts on every lookup, and the
 * answers must not change now that they read it before narrowing.
 */
#include <arpa/inet.h>
#include <ares.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosts.h"
#include "tap.h"
#include "util.h"

/* c-ares 1.18 leaks the name it answers "localhost" with when the file does not list it
 * (ares__addrinfo_localhost); the proxies no longer take that path, this comparison
 * does. The sanitizer build's leak check is told so. */
const char *__lsan_default_suppressions(void);
const char *
__lsan_default_suppressions(void)
{
	return "leak:libcares.so\n";
}

struct answer {
	int done, status;
	size_t n;
	struct ip_addr a[32];
};

static void
ares_cb(void *arg, int status, int timeouts, struct ares_addrinfo *res)
{
	struct answer *ans = arg;
	struct ares_addrinfo_node *n;

	(void)timeouts;
	ans->done = 1;
	ans->status = status;
	for (n = res != NULL ? res->nodes : NULL; n != NULL && ans->n < 32; n = n->ai_next) {
		struct ip_addr *a = &ans->a[ans->n++];

		memset(a, 0, sizeof(*a));
		if (n->ai_family == AF_INET) {
			a->family = 4;
			memcpy(
			    a->bytes, &((struct sockaddr_in *)(void *)n->ai_addr)->sin_addr, 4);
		} else {
			a->family = 6;
			memcpy(a->bytes,
			    &((struct sockaddr_in6 *)(void *)n->ai_addr)->sin6_addr, 16);
		}
	}
	if (res != NULL)
		ares_freeaddrinfo(res);
}

/* c-ares's answer from the file alone. */
static void
ares_files(ares_channel ch, const char *name, struct answer *ans)
{
	struct ares_addrinfo_hints hints;

	memset(ans, 0, sizeof(*ans));
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_flags = ARES_AI_NOSORT | ARES_AI_ENVHOSTS;
	hints.ai_socktype = SOCK_STREAM;
	ares_getaddrinfo(ch, name, NULL, &hints, ares_cb, ans);
}

static void
compare(const char *text, const char *const *names, size_t nnames, const char *what)
{
	char path[] = "/tmp/test_hosts.XXXXXX";
	struct ares_options o;
	ares_channel ch;
	struct hosts h;
	struct ip_addr mine[32];
	struct answer ans;
	size_t i, n, same = 0;
	int fd = mkstemp(path);

	if (fd == -1 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
		ok(0, "%s: temp file", what);
		return;
	}
	close(fd);
	setenv("CARES_HOSTS", path, 1);
	memset(&o, 0, sizeof(o));
	o.lookups = (char *)(uintptr_t) "f";
	if (ares_init_options(&ch, &o, ARES_OPT_LOOKUPS) != ARES_SUCCESS) {
		ok(0, "%s: c-ares", what);
		return;
	}
	ok(hosts_read(&h, path) == 0 && h.read, "%s: read", what);
	for (i = 0; i < nnames; i++) {
		ares_files(ch, names[i], &ans);
		n = hosts_lookup(&h, names[i], mine, 32);
		if (ans.done && (ans.status == ARES_SUCCESS ? ans.n : 0) == n &&
		    memcmp(ans.a, mine, n * sizeof(mine[0])) == 0)
			same++;
		else
			ok(0, "%s: %s: c-ares %zu answers (status %d), hosts_lookup %zu", what,
			    names[i], ans.n, ans.status, n);
	}
	ok(same == nnames, "%s: %zu names answered as c-ares answers them", what, same);
	ares_destroy(ch);
	hosts_free(&h);
	unlink(path);
	unsetenv("CARES_HOSTS");
}

static void
test_against_cares(void)
{
	static const char file[] = "127.0.0.1\tlocalhost\n"
				   "::1\tlocalhost ip6-localhost ip6-loopback\n"
				   "10.0.0.1   a.test  alias.test\t# comment\n"
				   "10.0.0.2 A.TEST\n"
				   "fe80::1%eth0 zone.test\n"
				   "0x7f.0.0.1 hex.test\n"
				   "10.0.0.3 a.test\n"
				   "::ffff:1.2.3.4 mapped.test\n"
				   "  10.0.0.9   spaced.test   \n"
				   "#10.0.0.8 commented.test\n"
				   "10.0.0.7\n"
				   "2001:db8::1 v6.test a.test\n"
				   "10.0.0.5 x.test#nocomment\n"
				   "bad line.test\n"
				   "300.1.1.1 big.test\n"
				   "1.2.3.4.5 five.test\n"
				   "1.2.3.4/8 slash.test\n"
				   "::1/128 slash6.test\n"
				   "010.000.0.1 zeros.test\n"
				   "1::2::3 twice.test\n"
				   "[::1] bracket.test\n"
				   "1.2.3.4\tdup.test\tdup.test\n"
				   "1.2.3.4 dup.test\r\n"
				   "1.2.3.4x trail.test\n"
				   "9.9.9.9 last.test";
	static const char *const names[] = {
		"localhost",
		"LOCALHOST",
		"ip6-localhost",
		"a.test",
		"A.test",
		"alias.test",
		"zone.test",
		"hex.test",
		"mapped.test",
		"spaced.test",
		"commented.test",
		"x.test",
		"x.test#nocomment",
		"line.test",
		"big.test",
		"five.test",
		"slash.test",
		"slash6.test",
		"zeros.test",
		"twice.test",
		"bracket.test",
		"dup.test",
		"trail.test",
		"last.test",
		"nothere.test",
		"foo.localhost",
		"10.0.0.7",
		"",
	};
	static const char *const lh[] = {
		"localhost",
		"LocalHost",
		"localhost.",
		"foo.localhost",
		"other.test",
	};

	compare(file, names, sizeof(names) / sizeof(names[0]), "a varied file");
	compare("10.0.0.1 other.test\n", lh, sizeof(lh) / sizeof(lh[0]),
	    "a file without localhost");
	compare("", lh, sizeof(lh) / sizeof(lh[0]), "an empty file");
}

static void
test_differences(void)
{
	struct hosts h;
	struct ip_addr a[4];

	/* c-ares reads "127.1" with stale bytes from the line before (127.1.3.4 after a
	 * 1.2.3.4 line): such lines are skipped here, on purpose. */
	memset(&h, 0, sizeof(h));
	hosts_parse(&h, "1.2.3.4 x.test\n127.1 short.test\n", 32);
	ok(h.n == 1 && hosts_lookup(&h, "short.test", a, 4) == 0, "short IPv4 forms skipped");
	hosts_free(&h);
	ok(hosts_read(&h, "/nonexistent/hosts") == 0 && !h.read && h.n == 0 &&
		hosts_lookup(&h, "localhost", a, 4) == 0,
	    "a missing file answers nothing, as "
	    "c-ares then does not answer localhost either");
	hosts_free(&h);
}

int
main(void)
{
	ares_library_init(ARES_LIB_INIT_ALL);
	test_against_cares();
	test_differences();
	ares_library_cleanup();
	return tap_done();
}
