/*
 * TLS client connections over a dlopen'ed libssl (tls.h says why it is not linked).
 *
 * Every OpenSSL function used is in the table below, resolved once by name; the types of
 * the pointers come from OpenSSL's own prototypes (__typeof__), so a mismatch is a
 * compile error. OpenSSL's macros that expand to SSL_ctrl and SSL_CTX_ctrl are spelled
 * out as those calls, through the table: a macro used by mistake would name the real
 * symbol, which nothing links, and fail the build.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/opensslv.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include "tls.h"
#include "util.h"

#define STR_(x) #x
#define STR(x) STR_(x)
#if defined(OPENSSL_VERSION_MAJOR) && OPENSSL_VERSION_MAJOR >= 3
#define TLS_LIBSSL      "libssl.so." STR(OPENSSL_VERSION_MAJOR)
#else
#define TLS_LIBSSL      "libssl.so.1.1"
#endif

#define TLS_FUNCS(F) \
	F(OPENSSL_init_ssl) \
	F(TLS_client_method) \
	F(SSL_CTX_new) \
	F(SSL_CTX_free) \
	F(SSL_CTX_ctrl) \
	F(SSL_CTX_set_options) \
	F(SSL_CTX_set_ciphersuites) \
	F(SSL_CTX_set_default_read_buffer_len) \
	F(SSL_CTX_set_verify) \
	F(SSL_CTX_load_verify_locations) \
	F(SSL_new) \
	F(SSL_free) \
	F(SSL_set_fd) \
	F(SSL_ctrl) \
	F(SSL_set1_host) \
	F(SSL_get0_param) \
	F(SSL_do_handshake) \
	F(SSL_set_connect_state) \
	F(SSL_read_ex) \
	F(SSL_write_ex) \
	F(SSL_shutdown) \
	F(SSL_get_error) \
	F(SSL_has_pending) \
	F(SSL_get_verify_result) \
	F(X509_VERIFY_PARAM_set1_ip_asc) \
	F(X509_verify_cert_error_string) \
	F(X509_get_default_cert_file) \
	F(X509_get_default_cert_file_env) \
	F(ERR_get_error) \
	F(ERR_error_string_n) \
	F(ERR_clear_error)

#define TLS_MEMBER(name) __typeof__(&name) p_##name;
static struct {
	void *handle;
	TLS_FUNCS(TLS_MEMBER)
} ossl;
#define O(name) (ossl.p_##name)

struct tls_ctx {
	SSL_CTX *ssl;
	char *ca_file;
};

struct tls_conn {
	SSL *ssl;
	char err[TLS_ERR_MAX];
};

/* Load libssl once; 0, or -1 with a message. */
static int
tls_load(char *err, size_t errlen)
{
	void *h;

	if (ossl.handle != NULL)
		return 0;
	if ((h = dlopen(TLS_LIBSSL, RTLD_NOW | RTLD_LOCAL)) == NULL) {
		snprintf(err, errlen, "cannot load %s (OpenSSL): %s", TLS_LIBSSL, dlerror());
		return -1;
	}
#define TLS_RESOLVE(name) \
	if ((ossl.p_##name = (__typeof__(&name))dlsym(h, #name)) == NULL) { \
		snprintf(err, errlen, "%s has no %s", TLS_LIBSSL, #name); \
		goto fail; \
	}
	TLS_FUNCS(TLS_RESOLVE)
#undef TLS_RESOLVE
	if (O(OPENSSL_init_ssl)(OPENSSL_INIT_LOAD_SSL_STRINGS |
	    OPENSSL_INIT_LOAD_CRYPTO_STRINGS, NULL) != 1) {
		snprintf(err, errlen, "OpenSSL did not initialise");
		goto fail;
	}
	ossl.handle = h;
	return 0;
fail:
	memset(&ossl, 0, sizeof(ossl));
	dlclose(h);
	return -1;
}

/* The first error in OpenSSL's queue as text (the queue is emptied). */
static void
tls_errtext(char *out, size_t outlen, const char *what)
{
	unsigned long e = O(ERR_get_error)(), next;
	char buf[TLS_ERR_MAX];

	while ((next = O(ERR_get_error)()) != 0)
		;               /* the first is the cause; drop the rest */
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
 * stay acceptable, so a peer without it still connects).
 */
static void
tls_ctx_tune(SSL_CTX *ssl)
{
	(void)O(SSL_CTX_ctrl)(ssl, SSL_CTRL_SET_READ_AHEAD, 1, NULL);
	O(SSL_CTX_set_default_read_buffer_len)(ssl, TLS_READ_BUF);
	(void)O(SSL_CTX_set_ciphersuites)(ssl, TLS_SUITES);
}

struct tls_ctx *
tls_ctx_new(char *err, size_t errlen)
{
	struct tls_ctx *ctx;
	const char *file;

	if (tls_load(err, errlen) == -1)
		return NULL;
	ctx = xcalloc(1, sizeof(*ctx));
	if ((ctx->ssl = O(SSL_CTX_new)(O(TLS_client_method)())) == NULL) {
		tls_errtext(err, errlen, "SSL_CTX_new");
		goto fail;
	}
	/* SSL_CTX_set_min_proto_version, SSL_CTX_set_mode as their calls. */
	if (O(SSL_CTX_ctrl)(ctx->ssl, SSL_CTRL_SET_MIN_PROTO_VERSION, TLS1_2_VERSION,
	    NULL) != 1) {
		tls_errtext(err, errlen, "TLS 1.2 as the minimum");
		goto fail;
	}
	/* Writes may complete in part (the bridge keeps its own buffer), and a peer that
	 * closes without close_notify ends the stream like an EOF: a tunnel's own
	 * protocol detects truncation. */
	(void)O(SSL_CTX_ctrl)(ctx->ssl, SSL_CTRL_MODE, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER, NULL);
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
	(void)O(SSL_CTX_set_options)(ctx->ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
	tls_ctx_tune(ctx->ssl);
	O(SSL_CTX_set_verify)(ctx->ssl, SSL_VERIFY_PEER, NULL);
	file = getenv(O(X509_get_default_cert_file_env)());
	if (file == NULL || file[0] == '\0')
		file = O(X509_get_default_cert_file)();
	ctx->ca_file = xstrdup(file);
	/* The whole file now: a lookup directory would be read at verification time,
	 * when the narrowed proxy can open nothing. */
	if (O(SSL_CTX_load_verify_locations)(ctx->ssl, file, NULL) != 1) {
		char why[TLS_ERR_MAX];

		tls_errtext(why, sizeof(why), "loading");
		snprintf(err, errlen, "CA certificates %s: %s", file, why);
		goto fail;
	}
	return ctx;
fail:
	tls_ctx_free(ctx);
	return NULL;
}

void
tls_ctx_free(struct tls_ctx *ctx)
{
	if (ctx == NULL)
		return;
	if (ctx->ssl != NULL)
		O(SSL_CTX_free)(ctx->ssl);
	free(ctx->ca_file);
	free(ctx);
}

const char *
tls_ctx_ca_file(const struct tls_ctx *ctx)
{
	return ctx->ca_file;
}

int
tls_ctx_add_ca_file(struct tls_ctx *ctx, const char *path, char *err, size_t errlen)
{
	char why[TLS_ERR_MAX];

	O(ERR_clear_error)();
	if (O(SSL_CTX_load_verify_locations)(ctx->ssl, path, NULL) == 1)
		return 0;
	tls_errtext(why, sizeof(why), "loading");
	snprintf(err, errlen, "CA certificates %s: %s", path, why);
	return -1;
}

void *
tls_library(char *err, size_t errlen)
{
	return tls_load(err, errlen) == 0 ? ossl.handle : NULL;
}

struct tls_conn *
tls_conn_adopt(void *ssl)
{
	struct tls_conn *c = xcalloc(1, sizeof(*c));

	c->ssl = ssl;
	return c;
}

struct tls_conn *
tls_conn_new(struct tls_ctx *ctx, int fd, const char *host, enum host_kind kind,
    char *err, size_t errlen)
{
	struct tls_conn *c = xcalloc(1, sizeof(*c));

	O(ERR_clear_error)();
	if ((c->ssl = O(SSL_new)(ctx->ssl)) == NULL || O(SSL_set_fd)(c->ssl, fd) != 1) {
		tls_errtext(err, errlen, "SSL_new");
		goto fail;
	}
	O(SSL_set_connect_state)(c->ssl);
	if (kind == HOST_NAME) {
		/* SSL_set_tlsext_host_name: SNI carries names only (RFC 6066 §3). */
		if (O(SSL_ctrl)(c->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME,
		    TLSEXT_NAMETYPE_host_name, (void *)(uintptr_t)host) != 1 ||
		    O(SSL_set1_host)(c->ssl, host) != 1) {
			tls_errtext(err, errlen, "setting the server name");
			goto fail;
		}
	} else if (O(X509_VERIFY_PARAM_set1_ip_asc)(O(SSL_get0_param)(c->ssl), host) != 1) {
		tls_errtext(err, errlen, "setting the server address");
		goto fail;
	}
	return c;
fail:
	tls_conn_free(c);
	return NULL;
}

void
tls_conn_free(struct tls_conn *c)
{
	if (c == NULL)
		return;
	if (c->ssl != NULL)
		O(SSL_free)(c->ssl);
	free(c);
}

/* The outcome of an SSL call that returned r. */
static enum tls_io
tls_result(struct tls_conn *c, int r, const char *what)
{
	long vr;
	int e = O(SSL_get_error)(c->ssl, r), saved = errno;

	switch (e) {
	case SSL_ERROR_NONE:
		return TLS_IO_OK;
	case SSL_ERROR_WANT_READ:
		return TLS_IO_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return TLS_IO_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN:
		return TLS_IO_EOF;
	case SSL_ERROR_SYSCALL:
		if (O(ERR_get_error)() == 0) {
			if (saved == 0 || r == 0) {
				snprintf(c->err, sizeof(c->err), "%s: the peer closed the "
				    "connection", what);
				return strcmp(what, "read") == 0 ? TLS_IO_EOF : TLS_IO_ERROR;
			}
			snprintf(c->err, sizeof(c->err), "%s: %s", what, strerror(saved));
			return TLS_IO_ERROR;
		}
		break;
	}
	vr = O(SSL_get_verify_result)(c->ssl);
	if (vr != X509_V_OK) {
		O(ERR_clear_error)();
		snprintf(c->err, sizeof(c->err), "certificate verify failed: %s",
		    O(X509_verify_cert_error_string)(vr));
	} else
		tls_errtext(c->err, sizeof(c->err), what);
	return TLS_IO_ERROR;
}

enum tls_io
tls_handshake(struct tls_conn *c)
{
	int r;

	O(ERR_clear_error)();
	errno = 0;
	/* Either side: a client connection is in connect state (tls_conn_new), a server
	 * one in accept state (tls_mitm.c). */
	r = O(SSL_do_handshake)(c->ssl);
	return r == 1 ? TLS_IO_OK : tls_result(c, r, "handshake");
}

enum tls_io
tls_read(struct tls_conn *c, void *buf, size_t len, size_t *n)
{
	int r;

	*n = 0;
	O(ERR_clear_error)();
	errno = 0;
	r = O(SSL_read_ex)(c->ssl, buf, len, n);
	return r == 1 ? TLS_IO_OK : tls_result(c, r, "read");
}

enum tls_io
tls_write(struct tls_conn *c, const void *buf, size_t len, size_t *n)
{
	int r;

	*n = 0;
	O(ERR_clear_error)();
	errno = 0;
	r = O(SSL_write_ex)(c->ssl, buf, len, n);
	return r == 1 ? TLS_IO_OK : tls_result(c, r, "write");
}

enum tls_io
tls_shutdown_write(struct tls_conn *c)
{
	int r;

	O(ERR_clear_error)();
	errno = 0;
	/* 0: our close_notify is out (the peer's not yet seen); 1: both. */
	r = O(SSL_shutdown)(c->ssl);
	return r >= 0 ? TLS_IO_OK : tls_result(c, r, "shutdown");
}

bool
tls_pending(const struct tls_conn *c)
{
	return O(SSL_has_pending)(c->ssl) == 1;
}

const char *
tls_conn_error(const struct tls_conn *c)
{
	return c->err[0] ? c->err : "TLS failed";
}
