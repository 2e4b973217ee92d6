/*
 * TLS client connections over a dlopen'ed libssl (tls.h says why it is not linked),
 * called through the one table of ossl.h.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ossl.h"
#include "tls.h"
#include "util.h"

struct tls_ctx {
	SSL_CTX *ssl;
	char *ca_file;
};

struct tls_conn {
	SSL *ssl;
	char err[TLS_ERR_MAX];
};

struct tls_ctx *
tls_ctx_new(char *err, size_t errlen)
{
	struct tls_ctx *ctx;
	const char *file;

	if (ossl_load(err, errlen) == -1)
		return NULL;
	ctx = xcalloc(1, sizeof(*ctx));
	if ((ctx->ssl = ossl_ctx_new(O(TLS_client_method)(), err, errlen)) == NULL)
		goto fail;
		/* A peer that closes without close_notify ends the stream like an EOF: a tunnel's
	 * own protocol detects truncation. */
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
	(void)O(SSL_CTX_set_options)(ctx->ssl, SSL_OP_IGNORE_UNEXPECTED_EOF);
#endif
	O(SSL_CTX_set_verify)(ctx->ssl, SSL_VERIFY_PEER, NULL);
	file = getenv(O(X509_get_default_cert_file_env)());
	if (file == NULL || file[0] == '\0')
		file = O(X509_get_default_cert_file)();
	ctx->ca_file = xstrdup(file);
	/* The whole file now: a lookup directory would be read at verification time,
	 * when the narrowed proxy can open nothing. */
	if (O(SSL_CTX_load_verify_locations)(ctx->ssl, file, NULL) != 1) {
		char why[TLS_ERR_MAX];

		ossl_errtext(why, sizeof(why), "loading");
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
	ossl_errtext(why, sizeof(why), "loading");
	snprintf(err, errlen, "CA certificates %s: %s", path, why);
	return -1;
}

struct tls_conn *
tls_conn_adopt(void *ssl)
{
	struct tls_conn *c = xcalloc(1, sizeof(*c));

	c->ssl = ssl;
	return c;
}

struct tls_conn *
tls_conn_new(struct tls_ctx *ctx, int fd, const char *host, enum host_kind kind, char *err,
    size_t errlen)
{
	struct tls_conn *c = xcalloc(1, sizeof(*c));

	O(ERR_clear_error)();
	if ((c->ssl = O(SSL_new)(ctx->ssl)) == NULL || O(SSL_set_fd)(c->ssl, fd) != 1) {
		ossl_errtext(err, errlen, "SSL_new");
		goto fail;
	}
	O(SSL_set_connect_state)(c->ssl);
	if (kind == HOST_NAME) {
		/* SSL_set_tlsext_host_name: SNI carries names only (RFC 6066 §3). */
		if (O(SSL_ctrl)(c->ssl, SSL_CTRL_SET_TLSEXT_HOSTNAME, TLSEXT_NAMETYPE_host_name,
			(void *)(uintptr_t)host) != 1 ||
		    O(SSL_set1_host)(c->ssl, host) != 1) {
			ossl_errtext(err, errlen, "setting the server name");
			goto fail;
		}
	} else if (O(X509_VERIFY_PARAM_set1_ip_asc)(O(SSL_get0_param)(c->ssl), host) != 1) {
		ossl_errtext(err, errlen, "setting the server address");
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
				snprintf(c->err, sizeof(c->err),
				    "%s: the peer closed the "
				    "connection",
				    what);
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
		ossl_errtext(c->err, sizeof(c->err), what);
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
