/*
 * The server side of TLS termination (network.tlsTerminate, issue #14): the CA, the leaf
 * certificates it signs, and server connections that present them.
 *
 * The CA is the user's pair (checked: the key is the certificate's, the certificate is a
 * CA's and is within its validity) or one made for the run (tls_mitm_ca_generate: an EC
 * P-256 key and a self-signed certificate, kept in memory only). Its key stays in the
 * process that holds the struct tls_mitm: the launcher hands it to srt-httpd through a
 * sealed memfd, never through a file the sandbox can see.
 *
 * Leaves: one EC P-256 key per struct tls_mitm (made at tls_mitm_new), and one
 * certificate per host name or address, signed at first use and kept (TLS_MITM_CACHE
 * most recently used hosts). A leaf names its host in subjectAltName (DNS or IP), carries
 * the CA's key identifier (Python 3.13's strict verification wants it) and is good for
 * serverAuth only.
 *
 * libssl is the one tls.c loaded (tls.h says why it is loaded at run time); everything
 * that needs more than memory and randomness (loading the library, reading files) is
 * done in tls_mitm_new, before the proxy narrows itself.
 */
#ifndef SRT_TLS_MITM_H
#define SRT_TLS_MITM_H

#include <stdbool.h>
#include <stddef.h>

#include "domain.h"
#include "tls.h"

#define TLS_MITM_CACHE 256 /* leaf certificates kept */

struct tls_mitm;

/* A fresh CA for one run: PEM texts of its certificate and key (caller frees both; the
 * key with tls_mitm_pem_free, which wipes it). 0, or -1 with a message. */
int tls_mitm_ca_generate(char **cert_pem, char **key_pem, char *err, size_t errlen);
void tls_mitm_pem_free(char *pem);

/* A CA from PEM texts (certificate, then key; they may be the same text holding both).
 * The pair is checked (see the top). NULL with a message. */
struct tls_mitm *tls_mitm_new(const char *cert_pem, size_t cert_len, const char *key_pem,
    size_t key_len, char *err, size_t errlen);
void tls_mitm_free(struct tls_mitm *m);
/* The CA's certificate as PEM (owned by m). */
const char *tls_mitm_ca_pem(const struct tls_mitm *m);

/* What the ClientHello asked for, filled during the handshake of a connection made by
 * tls_mitm_accept; the caller keeps it alive until the handshake is over. */
struct tls_mitm_hello {
	char sni[DOM_HOST_MAX + 1];  /* the server name sent, canonical; "" none */
	bool sni_bad;                /* a server name was sent that is no host name */
	char leaf[DOM_HOST_MAX + 1]; /* whom the leaf presented was made for */
	bool failed;                 /* no leaf could be made (the handshake fails) */
	/* set by the caller */
	struct tls_mitm *m;
	char target[DOM_HOST_MAX + 1]; /* the CONNECT target, canonical */
	enum host_kind target_kind;
	bool pin_target; /* the leaf is always the target's (requireHostMatch) */
};

/* A server connection on the connected, non-blocking socket fd (not owned): the leaf is
 * the one for the server name of the ClientHello, or for hello->target when there is
 * none, it is not a host name, or hello->pin_target. Drive it with tls_handshake, then
 * tls_read/tls_write (or tls_bridge_start). NULL with a message. */
struct tls_conn *tls_mitm_accept(
    struct tls_mitm_hello *hello, int fd, char *err, size_t errlen);

/* Does buf (len bytes, len >= 3 to decide) begin like a TLS handshake record? Content
 * type 22 and a record version 3.0 to 3.3 (TLS 1.3 still writes 3.3 there). */
bool tls_mitm_looks_like_hello(const unsigned char *buf, size_t len);

/* The CERTIFICATE blocks of PEM text, each copied whole with a newline after it, appended
 * to out (anything else in the text, a private key say, is left out). Returns how many. */
struct buf;
size_t tls_mitm_pem_certs(const char *text, size_t len, struct buf *out);

/* A PKCS#12 trust store for Java from the certificates of PEM text, appended to out:
 * each in a certificate bag with Oracle's trusted-key-usage attribute (any usage) and a
 * friendly name, no key, no encryption, no MAC (the JDK loads it without a password).
 * 0, or -1 with a message. */
int tls_mitm_trust_store(
    const char *pem, size_t len, struct buf *out, char *err, size_t errlen);

#endif
