/*
 * tls_mitm.h and the tunnel request target (http_parse.h): the bytes a CONNECT's first
 * record is judged by, the bundle's certificate filter, the request target inside a
 * terminated tunnel, and the CA: made, checked, refused when the pair does not match.
 */
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "http_parse.h"
#include "tap.h"
#include "tls_mitm.h"
#include "util.h"

static void
test_hello(void)
{
	ok(tls_mitm_looks_like_hello((const unsigned char *)"\x16\x03\x01", 3),
	    "TLS 1.0 record");
	ok(tls_mitm_looks_like_hello((const unsigned char *)"\x16\x03\x03", 3),
	    "TLS 1.2 record");
	ok(!tls_mitm_looks_like_hello((const unsigned char *)"\x16\x03\x04", 3), "3.4: no");
	ok(!tls_mitm_looks_like_hello((const unsigned char *)"GET", 3), "HTTP: no");
	ok(!tls_mitm_looks_like_hello((const unsigned char *)"\x16\x03", 2), "too short: no");
	ok(!tls_mitm_looks_like_hello((const unsigned char *)"SSH", 3), "SSH: no");
}

static void
test_pem(void)
{
	static const char text[] =
	    "junk\n-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n"
	    "-----BEGIN PRIVATE KEY-----\nSECRET\n-----END PRIVATE KEY-----\n"
	    "x-----BEGIN CERTIFICATE-----\nNOTLINESTART\n-----END CERTIFICATE-----\n"
	    "-----BEGIN CERTIFICATE-----\nBROKEN\n-----BEGIN CERTIFICATE-----\nBBBB\n"
	    "-----END CERTIFICATE-----\n-----BEGIN CERTIFICATE-----\nUNENDED\n";
	struct buf b = { 0 };
	size_t n = tls_mitm_pem_certs(text, sizeof(text) - 1, &b);
	char *s;

	buf_add(&b, "", 1);
	s = b.p + b.off;
	ok(n == 2, "two whole certificate blocks (%zu)", n);
	ok(strstr(s, "AAAA") && strstr(s, "BBBB"), "both kept");
	ok(!strstr(s, "SECRET") && !strstr(s, "PRIVATE"), "the key is left out");
	ok(!strstr(s, "NOTLINESTART") && !strstr(s, "BROKEN") && !strstr(s, "UNENDED"),
	    "a marker not at a line start, a block without its end: left out");
	buf_free(&b);
}

static int
target(const char *t, const char *path, const char *auth)
{
	struct http_str in = { t, strlen(t) }, p, a;

	if (http_tunnel_target(in, &p, &a) == -1)
		return path == NULL;
	if (path == NULL)
		return 0;
	return p.n == strlen(path) && memcmp(p.p, path, p.n) == 0 && a.n == strlen(auth) &&
	    (a.n == 0 || memcmp(a.p, auth, a.n) == 0);
}

static void
test_target(void)
{
	ok(target("/x?y=1", "/x?y=1", ""), "origin-form");
	ok(target("*", "*", ""), "asterisk");
	ok(target("https://a.test/p", "/p", "a.test"), "absolute-form");
	ok(target("HTTPS://a.test:8443?q", "?q", "a.test:8443"), "absolute without a path");
	ok(target("https://a.test", "", "a.test"), "absolute, nothing after");
	ok(target("http://a.test/", NULL, NULL), "http:// inside TLS: refused");
	ok(target("https://u@a.test/", NULL, NULL), "userinfo refused");
	ok(target("https://a.test\\@b/", NULL, NULL), "backslash refused");
	ok(target("/p#frag", NULL, NULL), "fragment refused");
	ok(target("https:///p", NULL, NULL), "empty authority refused");
	ok(target("", NULL, NULL), "empty refused");
	ok(target("a.test:443", NULL, NULL), "authority-form refused");
}

/* Java's trust store: the certificates of the text, each with Oracle's trusted-key-usage
 * attribute (OID 2.16.840.1.113894.746875.1.1) saying anyExtendedKeyUsage (2.5.29.37.0)
 * and a friendly name; a key in the text is left out. tests/proxies/tls.bats has Java load it. */
static void
test_store(const char *cert, const char *cert2, const char *key)
{
	static const unsigned char jdk[] = { 0x06, 0x0c, 0x60, 0x86, 0x48, 0x01, 0x86, 0xf9,
		0x66, 0xad, 0xca, 0x7b, 0x01, 0x01 };
	static const unsigned char any[] = { 0x06, 0x04, 0x55, 0x1d, 0x25, 0x00 };
	static const unsigned char name2[] = { 0, 's', 0, 'r', 0, 't', 0, '-', 0, 't', 0, 'r',
		0, 'u', 0, 's', 0, 't', 0, '-', 0, '2' };
	struct buf b = { 0 };
	char err[512], *pem = xasprintf("%s%s%s", cert, key, cert2);
	size_t n = 0;
	const unsigned char *p, *end;
	int rc = tls_mitm_trust_store(pem, strlen(pem), &b, err, sizeof(err));

	ok(rc == 0 && b.len > 0 && (unsigned char)b.p[b.off] == 0x30,
	    "a trust store of two "
	    "certificates: %s",
	    rc == 0 ? "DER" : err);
	p = (const unsigned char *)b.p + b.off;
	end = p + b.len;
	while (p != NULL && p < end &&
	    (p = memmem(p, (size_t)(end - p), jdk, sizeof(jdk))) != NULL) {
		n++;
		p += sizeof(jdk);
		ok(memmem(p, (size_t)(end - p) < 16 ? (size_t)(end - p) : 16, any,
		       sizeof(any)) != NULL,
		    "its attribute %zu says anyExtendedKeyUsage", n);
	}
	ok(n == 2, "each certificate has the trusted-key-usage attribute (%zu)", n);
	ok(memmem(b.p + b.off, b.len, name2, sizeof(name2)) != NULL, "and a friendly name");
	buf_free(&b);
	ok(tls_mitm_trust_store(key, strlen(key), &b, err, sizeof(err)) == -1 &&
		strstr(err, "no certificate") != NULL,
	    "no certificate: %s", err);
	buf_free(&b);
	free(pem);
}

static void
test_ca(void)
{
	char err[512], *cert = NULL, *key = NULL, *cert2 = NULL, *key2 = NULL;
	struct tls_mitm *m;

	if (tls_mitm_ca_generate(&cert, &key, err, sizeof(err)) == -1) {
		ok(0, "CA generated: %s", err);
		return;
	}
	ok(strstr(cert, "BEGIN CERTIFICATE") != NULL && strstr(key, "PRIVATE KEY") != NULL,
	    "CA as PEM");
	m = tls_mitm_new(cert, strlen(cert), key, strlen(key), err, sizeof(err));
	ok(m != NULL, "its pair is accepted: %s", m ? "" : err);
	ok(m != NULL && strcmp(tls_mitm_ca_pem(m), cert) == 0, "the certificate given back");
	tls_mitm_free(m);
	ok(tls_mitm_ca_generate(&cert2, &key2, err, sizeof(err)) == 0, "a second CA");
	m = tls_mitm_new(cert, strlen(cert), key2, strlen(key2), err, sizeof(err));
	ok(m == NULL && strstr(err, "does not belong") != NULL, "a key of another CA: %s", err);
	tls_mitm_free(m);
	m = tls_mitm_new(key, strlen(key), key, strlen(key), err, sizeof(err));
	ok(m == NULL && strstr(err, "not a PEM certificate") != NULL, "no certificate: %s",
	    err);
	tls_mitm_free(m);
	test_store(cert, cert2, key);
	free(cert);
	free(cert2);
	tls_mitm_pem_free(key);
	tls_mitm_pem_free(key2);
}

int
main(void)
{
	test_hello();
	test_pem();
	test_target();
	test_ca();
	return tap_done();
}
