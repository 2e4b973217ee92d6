/*
 * TLS client connections over OpenSSL, on non-blocking sockets: what the proxies need to
 * reach an https:// parent proxy, and what TLS termination (issue #14) will build on.
 *
 * libssl is loaded with dlopen(3) by tls_ctx_new, not linked: mapping libssl and
 * libcrypto costs a process about 1.7 MiB of resident memory, which every proxy would
 * pay while only a configuration with an https:// parent uses it (SPEC §8 bounds the
 * launcher and the proxies at 8 MiB together). Everything that reads a file (the library,
 * its configuration, the CA certificates) happens in tls_ctx_new, which a proxy calls
 * before it narrows itself (proxy_sandbox.h): afterwards no file can be opened.
 *
 * Certificates are verified against the CA file named by SSL_CERT_FILE, else OpenSSL's
 * default file (Debian: /etc/ssl/certs/ca-certificates.crt), loaded whole; the peer must
 * hold a certificate for the host name (or IP address) it was dialled by. TLS 1.2 at
 * least.
 */
#ifndef SRT_TLS_H
#define SRT_TLS_H

#include <stdbool.h>
#include <stddef.h>

#include "domain.h"

#define TLS_ERR_MAX 256
/* What a connection reads ahead: four full records at once. */
#define TLS_READ_BUF (4 * (16384 + 256))
/* TLS 1.3 suites in order of preference (client and server sides alike). */
#define TLS_SUITES \
	"TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:" \
	"TLS_CHACHA20_POLY1305_SHA256"

struct tls_ctx;
struct tls_conn;

/* Load libssl and build a client context with the CA certificates; NULL with a message
 * in err ("cannot load libssl.so.3: ...", "CA file /x: ..."). */
struct tls_ctx *tls_ctx_new(char *err, size_t errlen);
void tls_ctx_free(struct tls_ctx *ctx);
/* The CA file the context was loaded from. */
const char *tls_ctx_ca_file(const struct tls_ctx *ctx);

/* Add the certificates of a PEM file to those the context trusts (extraCaCertPaths).
 * 0, or -1 with a message. */
int tls_ctx_add_ca_file(struct tls_ctx *ctx, const char *path, char *err, size_t errlen);

/* A connection around an SSL object made by another user of libssl in srt (tls_mitm.c,
 * through ossl.h): an SSL *, owned from now on. */
struct tls_conn *tls_conn_adopt(void *ssl);

/* A client connection over the connected, non-blocking socket fd (not owned), for host
 * (canonical; a name is sent as SNI and checked against the certificate, an address is
 * checked against its IP entries). NULL with a message in err. */
struct tls_conn *tls_conn_new(struct tls_ctx *ctx, int fd, const char *host,
    enum host_kind kind, char *err, size_t errlen);
void tls_conn_free(struct tls_conn *c);

enum tls_io {
	TLS_IO_OK,         /* done; for read and write, *n bytes moved */
	TLS_IO_WANT_READ,  /* call again when fd is readable */
	TLS_IO_WANT_WRITE, /* call again when fd is writable */
	TLS_IO_EOF,        /* read: the peer closed (close_notify, or a plain EOF) */
	TLS_IO_ERROR,      /* failed: tls_conn_error says why */
};
enum tls_io tls_handshake(struct tls_conn *c);
enum tls_io tls_read(struct tls_conn *c, void *buf, size_t len, size_t *n);
enum tls_io tls_write(struct tls_conn *c, const void *buf, size_t len, size_t *n);
/* Send close_notify (the write half of a TLS connection ends); reading may go on. */
enum tls_io tls_shutdown_write(struct tls_conn *c);
/* Bytes have come in that tls_read has not returned yet (decrypted or not). */
bool tls_pending(const struct tls_conn *c);
/* Why the last call failed ("certificate verify failed: self-signed certificate", ...). */
const char *tls_conn_error(const struct tls_conn *c);

#endif
