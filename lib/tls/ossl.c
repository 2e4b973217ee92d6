/*
 * The one libssl table (ossl.h): loaded on first use, by the TLS client or TLS
 * termination, whichever comes first. libcrypto's functions are found through libssl's
 * handle, which searches its dependencies.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "ossl.h"
#include "tls.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR >= 3
#define OSSL_LIBSSL "libssl.so." STR(OPENSSL_VERSION_MAJOR)
#else
#define OSSL_LIBSSL "libssl.so.1.1"
#endif

struct ossl ossl;

#define OSSL_RESOLVE(name) \
	if ((ossl.p_##name = (__typeof__(&name))dlsym(h, #name)) == NULL) { \
		missing = #name; \
		goto fail; \
	}

int
ossl_load(char *err, size_t errlen)
{
	const char *missing = NULL;
	void *h;

	if (ossl.handle != NULL)
		return 0;
	if ((h = dlopen(OSSL_LIBSSL, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "cannot load %s (OpenSSL): %s", OSSL_LIBSSL, dlerror());
		return -1;
	}
	OSSL_FUNCS(OSSL_RESOLVE)
	if (O(OPENSSL_init_ssl)(
		OPENSSL_INIT_LOAD_SSL_STRINGS | OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL) != 1) {
		snprintf(err, errlen, "OpenSSL did not initialise");
		goto out;
	}
	ossl.handle = h;
	return 0;
fail:
	snprintf(err, errlen, "%s has no %s", OSSL_LIBSSL, missing);
out:
	memset(&ossl, 0, sizeof(ossl));
	dlclose(h);
	return -1;
}

int
ossl_load_mitm(char *err, size_t errlen)
{
	const char *missing = NULL;
	void *h;

	if (ossl.mitm)
		return 0;
	if (ossl_load(err, errlen) == -1)
		return -1;
	h = ossl.handle;
	OSSL_MITM_FUNCS(OSSL_RESOLVE)
	ossl.mitm = true;
	return 0;
fail:
	snprintf(err, errlen, "OpenSSL has no %s (OpenSSL 3 is needed)", missing);
	return -1;
}

void
ossl_errtext(char *out, size_t outlen, const char *what)
{
	unsigned long e = O(ERR_get_error)();
	char buf[TLS_ERR_MAX];

	while (O(ERR_get_error)() != 0)
		; /* the first is the cause; drop the rest */
	if (e == 0) {
		snprintf(out, outlen, "%s failed", what);
		return;
	}
	O(ERR_error_string_n)(e, buf, sizeof(buf));
	snprintf(out, outlen, "%s: %s", what, buf);
}

/*
 * Bulk throughput (a terminated download is decrypted and encrypted again here, bench/
 * tls-terminate.sh): read ahead into a buffer of several records, so that one read(2)
 * takes what the socket holds rather than a record header and then its body; and
 * AES-128-GCM first among TLS 1.3's suites (AES-NI makes it the cheapest; the others
 * stay acceptable, so a peer without it still connects). The buffers are kept between
 * records (SSL_MODE_RELEASE_BUFFERS would free and allocate them again around every one
 * of a download's).
 */
SSL_CTX *
ossl_ctx_new(const SSL_METHOD *method, char *err, size_t errlen)
{
	SSL_CTX *ctx;

	if ((ctx = O(SSL_CTX_new)(method)) == NULL) {
		ossl_errtext(err, errlen, "SSL_CTX_new");
		return NULL;
	}
	/* SSL_CTX_set_min_proto_version, SSL_CTX_set_mode as their calls. */
	if (O(SSL_CTX_ctrl)(ctx, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION, NULL) != 1) {
		ossl_errtext(err, errlen, "TLS 1.2 as the minimum");
		O(SSL_CTX_free)(ctx);
		return NULL;
	}
	/* Writes may complete in part (the bridge and the terminated path keep their own
	 * buffers). */
	(void)O(SSL_CTX_ctrl)(ctx, SSL_CTRL_MODE,
	    SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
	(void)O(SSL_CTX_ctrl)(ctx, SSL_CTRL_SET_READ_AHEAD, 1, NULL);
	O(SSL_CTX_set_default_read_buffer_len)(ctx, TLS_READ_BUF);
	(void)O(SSL_CTX_set_ciphersuites)(ctx, TLS_SUITES);
	return ctx;
}
