/*
 * TLS termination's server side (tls_mitm.h): the CA, leaves, server connections.
 *
 * OpenSSL is called through the one table of ossl.h, termination's functions resolved on
 * first use (ossl_load_mitm).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "ossl.h"
#include "tls_mitm.h"
#include "util.h"

struct leaf {
	char host[DOM_HOST_MAX + 1];
	X509 *cert;
	uint64_t used; /* tick of the last use: the least recent goes first */
};

struct tls_mitm {
	X509 *ca;
	EVP_PKEY *ca_key;
	char *ca_pem;
	EVP_PKEY *leaf_key;
	SSL_CTX *ctx;
	struct leaf cache[TLS_MITM_CACHE];
	size_t ncache;
	uint64_t tick;
};

/* ---- certificates ------------------------------------------------------------------ */

static EVP_PKEY *
mitm_keygen(void)
{
	/* EVP_EC_gen("P-256") is this call behind a macro. */
	return O(EVP_PKEY_Q_keygen)(NULL, NULL, "EC", "P-256");
}

/* A random positive 128-bit serial number. */
static int
mitm_serial(X509 *x)
{
	unsigned char r[16];
	BIGNUM *bn;
	int ok;

	if (O(RAND_bytes)(r, sizeof(r)) != 1)
		return -1;
	r[0] &= 0x7f;
	r[0] |= 0x01; /* never zero, never negative */
	if ((bn = O(BN_bin2bn)(r, sizeof(r), NULL)) == NULL)
		return -1;
	ok = O(BN_to_ASN1_INTEGER)(bn, O(X509_get_serialNumber)(x)) != NULL;
	O(BN_free)(bn);
	return ok ? 0 : -1;
}

/* Add one extension given as OpenSSL's configuration text ("critical,CA:TRUE"). */
static int
mitm_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX v3;
	X509_EXTENSION *e;
	int ok;

	memset(&v3, 0, sizeof(v3)); /* X509V3_set_ctx_nodb */
	O(X509V3_set_ctx)(&v3, issuer, x, NULL, NULL, 0);
	if ((e = O(X509V3_EXT_conf_nid)(NULL, &v3, nid, value)) == NULL)
		return -1;
	ok = O(X509_add_ext)(x, e, -1) == 1;
	O(X509_EXTENSION_free)(e);
	return ok ? 0 : -1;
}

/* A certificate for subject key pub named cn, signed by issuer_key (issuer NULL: self-
 * signed), valid from an hour ago for days days. The extensions come after. */
static X509 *
mitm_cert_begin(EVP_PKEY *pub, const char *cn, X509 *issuer, long days)
{
	X509 *x;

	if ((x = O(X509_new)()) == NULL)
		return NULL;
	if (O(X509_set_version)(x, 2) != 1 || mitm_serial(x) == -1 ||
	    O(X509_gmtime_adj)(O(X509_getm_notBefore)(x), -3600) == NULL ||
	    O(X509_gmtime_adj)(O(X509_getm_notAfter)(x), days * 86400) == NULL ||
	    O(X509_set_pubkey)(x, pub) != 1 ||
	    O(X509_NAME_add_entry_by_txt)(O(X509_get_subject_name)(x), "CN", MBSTRING_ASC,
		(const unsigned char *)cn, -1, -1, 0) != 1 ||
	    O(X509_set_issuer_name)(x, O(X509_get_subject_name)(issuer != NULL ? issuer : x)) !=
		1) {
		O(X509_free)(x);
		return NULL;
	}
	return x;
}

static char *
mitm_bio_text(BIO *b)
{
	char *p = NULL, *out;
	long n;

	/* BIO_get_mem_data */
	n = O(BIO_ctrl)(b, BIO_CTRL_INFO, 0, (void *)&p);
	if (n < 0 || p == NULL)
		return NULL;
	out = xmalloc((size_t)n + 1);
	memcpy(out, p, (size_t)n);
	out[n] = '\0';
	return out;
}

int
tls_mitm_ca_generate(char **cert_pem, char **key_pem, char *err, size_t errlen)
{
	EVP_PKEY *key = NULL;
	X509 *x = NULL;
	BIO *bc = NULL, *bk = NULL;
	unsigned char r[6];
	char cn[64];
	int rc = -1;

	*cert_pem = *key_pem = NULL;
	if (ossl_load_mitm(err, errlen) == -1)
		return -1;
	O(ERR_clear_error)();
	if ((key = mitm_keygen()) == NULL) {
		ossl_errtext(err, errlen, "CA key");
		goto out;
	}
	if (O(RAND_bytes)(r, sizeof(r)) != 1) {
		ossl_errtext(err, errlen, "randomness");
		goto out;
	}
	/* A name of its own per run: a client that caches what it saw of one run's CA
	 * never mistakes another's for it. */
	snprintf(cn, sizeof(cn), "srt TLS termination CA %02x%02x%02x%02x%02x%02x", r[0], r[1],
	    r[2], r[3], r[4], r[5]);
	if ((x = mitm_cert_begin(key, cn, NULL, 30)) == NULL ||
	    mitm_ext(x, x, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") == -1 ||
	    mitm_ext(x, x, NID_key_usage, "critical,keyCertSign,cRLSign") == -1 ||
	    mitm_ext(x, x, NID_subject_key_identifier, "hash") == -1 ||
	    mitm_ext(x, x, NID_authority_key_identifier, "keyid:always") == -1 ||
	    O(X509_sign)(x, key, O(EVP_sha256)()) <= 0) {
		ossl_errtext(err, errlen, "CA certificate");
		goto out;
	}
	if ((bc = O(BIO_new)(O(BIO_s_mem)())) == NULL ||
	    (bk = O(BIO_new)(O(BIO_s_mem)())) == NULL || O(PEM_write_bio_X509)(bc, x) != 1 ||
	    O(PEM_write_bio_PrivateKey)(bk, key, NULL, NULL, 0, NULL, NULL) != 1 ||
	    (*cert_pem = mitm_bio_text(bc)) == NULL || (*key_pem = mitm_bio_text(bk)) == NULL) {
		ossl_errtext(err, errlen, "CA as PEM");
		free(*cert_pem);
		tls_mitm_pem_free(*key_pem);
		*cert_pem = *key_pem = NULL;
		goto out;
	}
	rc = 0;
out:
	if (bc != NULL)
		O(BIO_free)(bc);
	if (bk != NULL)
		O(BIO_free)(bk); /* the key's text in it: freed, as OpenSSL frees it */
	if (x != NULL)
		O(X509_free)(x);
	if (key != NULL)
		O(EVP_PKEY_free)(key);
	return rc;
}

void
tls_mitm_pem_free(char *pem)
{
	if (pem == NULL)
		return;
	explicit_bzero(pem, strlen(pem));
	free(pem);
}

/* ---- the CA ------------------------------------------------------------------------ */

struct tls_mitm *
tls_mitm_new(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
    char *err, size_t errlen)
{
	struct tls_mitm *m;
	BIO *b = NULL;
	char why[TLS_ERR_MAX];

	if (ossl_load_mitm(err, errlen) == -1)
		return NULL;
	O(ERR_clear_error)();
	m = xcalloc(1, sizeof(*m));
	if ((b = O(BIO_new_mem_buf)(cert_pem, (int)cert_len)) == NULL ||
	    (m->ca = O(PEM_read_bio_X509)(b, NULL, NULL, NULL)) == NULL) {
		ossl_errtext(why, sizeof(why), "reading");
		snprintf(err, errlen, "the CA certificate is not a PEM certificate (%s)", why);
		goto fail;
	}
	O(BIO_free)(b);
	/* No passphrase callback: an encrypted key is refused rather than prompted for. */
	if ((b = O(BIO_new_mem_buf)(key_pem, (int)key_len)) == NULL ||
	    (m->ca_key = O(PEM_read_bio_PrivateKey)(b, NULL, NULL, (void *)"")) == NULL) {
		ossl_errtext(why, sizeof(why), "reading");
		snprintf(
		    err, errlen, "the CA key is not an unencrypted PEM private key (%s)", why);
		goto fail;
	}
	O(BIO_free)(b);
	b = NULL;
	if (O(X509_check_private_key)(m->ca, m->ca_key) != 1) {
		O(ERR_clear_error)();
		snprintf(err, errlen, "the CA key does not belong to the CA certificate");
		goto fail;
	}
	if (O(X509_check_ca)(m->ca) < 1) {
		snprintf(err, errlen,
		    "the CA certificate is not a CA's (it has no "
		    "basicConstraints CA:TRUE, or its keyUsage forbids signing certificates)");
		goto fail;
	}
	if (O(X509_cmp_current_time)(O(X509_get0_notAfter)(m->ca)) <= 0) {
		snprintf(err, errlen, "the CA certificate has expired");
		goto fail;
	}
	if (O(X509_cmp_current_time)(O(X509_get0_notBefore)(m->ca)) >= 0) {
		snprintf(err, errlen, "the CA certificate is not valid yet");
		goto fail;
	}
	if ((b = O(BIO_new)(O(BIO_s_mem)())) == NULL || O(PEM_write_bio_X509)(b, m->ca) != 1 ||
	    (m->ca_pem = mitm_bio_text(b)) == NULL) {
		ossl_errtext(err, errlen, "CA certificate as PEM");
		goto fail;
	}
	O(BIO_free)(b);
	b = NULL;
	if ((m->leaf_key = mitm_keygen()) == NULL) {
		ossl_errtext(err, errlen, "leaf key");
		goto fail;
	}
	if ((m->ctx = ossl_ctx_new(O(TLS_server_method)(), err, errlen)) == NULL)
		goto fail;
	/* Renegotiation is off: the leaf is chosen once, from the first ClientHello.
	 * CHACHA20 is put first for a client that prefers it, one without AES in
	 * hardware. */
	(void)O(SSL_CTX_set_options)(m->ctx,
	    SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE |
		SSL_OP_PRIORITIZE_CHACHA | SSL_OP_NO_TICKET
#ifdef SSL_OP_IGNORE_UNEXPECTED_EOF
		| SSL_OP_IGNORE_UNEXPECTED_EOF
#endif
	);
	return m;
fail:
	if (b != NULL)
		O(BIO_free)(b);
	tls_mitm_free(m);
	return NULL;
}

void
tls_mitm_free(struct tls_mitm *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->ncache; i++)
		O(X509_free)(m->cache[i].cert);
	if (m->ctx != NULL)
		O(SSL_CTX_free)(m->ctx);
	if (m->leaf_key != NULL)
		O(EVP_PKEY_free)(m->leaf_key);
	if (m->ca_key != NULL)
		O(EVP_PKEY_free)(m->ca_key);
	if (m->ca != NULL)
		O(X509_free)(m->ca);
	free(m->ca_pem);
	free(m);
}

const char *
tls_mitm_ca_pem(const struct tls_mitm *m)
{
	return m->ca_pem;
}

/* ---- leaves ------------------------------------------------------------------------ */

static X509 *
mitm_leaf_make(struct tls_mitm *m, const char *host, enum host_kind kind)
{
	char san[DOM_HOST_MAX + 8];
	X509 *x;

	/* host is canonical: a name of [a-z0-9._-] or an address, nothing that the
	 * configuration syntax of the extension would read as a separator. */
	snprintf(san, sizeof(san), "%s:%s", kind == HOST_NAME ? "DNS" : "IP", host);
	O(ERR_clear_error)();
	if ((x = mitm_cert_begin(m->leaf_key, host, m->ca, 90)) == NULL)
		return NULL;
	if (mitm_ext(x, m->ca, NID_basic_constraints, "critical,CA:FALSE") == -1 ||
	    mitm_ext(x, m->ca, NID_key_usage, "critical,digitalSignature") == -1 ||
	    mitm_ext(x, m->ca, NID_ext_key_usage, "serverAuth") == -1 ||
	    mitm_ext(x, m->ca, NID_subject_alt_name, san) == -1 ||
	    mitm_ext(x, m->ca, NID_subject_key_identifier, "hash") == -1 ||
	    mitm_ext(x, m->ca, NID_authority_key_identifier, "keyid:always") == -1 ||
	    O(X509_sign)(x, m->ca_key, O(EVP_sha256)()) <= 0) {
		O(X509_free)(x);
		O(ERR_clear_error)();
		return NULL;
	}
	return x;
}

/* The leaf for host (made now if it is not kept); owned by the cache. */
static X509 *
mitm_leaf(struct tls_mitm *m, const char *host, enum host_kind kind)
{
	struct leaf *slot = NULL;
	X509 *x;
	size_t i;

	m->tick++;
	for (i = 0; i < m->ncache; i++) {
		if (strcmp(m->cache[i].host, host) == 0) {
			m->cache[i].used = m->tick;
			return m->cache[i].cert;
		}
	}
	if ((x = mitm_leaf_make(m, host, kind)) == NULL)
		return NULL;
	if (m->ncache < TLS_MITM_CACHE)
		slot = &m->cache[m->ncache++];
	else {
		slot = &m->cache[0];
		for (i = 1; i < m->ncache; i++)
			if (m->cache[i].used < slot->used)
				slot = &m->cache[i];
		/* A connection using it holds its own reference (SSL_use_certificate). */
		O(X509_free)(slot->cert);
	}
	snprintf(slot->host, sizeof(slot->host), "%s", host);
	slot->cert = x;
	slot->used = m->tick;
	return x;
}

/* OpenSSL asks for the certificate once the ClientHello (and its server name) is read. */
static int
mitm_cert_cb(SSL *ssl, void *arg)
{
	struct tls_mitm_hello *h = arg;
	const char *sn = O(SSL_get_servername)(ssl, TLSEXT_NAMETYPE_host_name);
	char canon[DOM_HOST_MAX + 1];
	const char *name = h->target;
	enum host_kind kind = h->target_kind, k;
	X509 *x;

	if (sn != NULL && sn[0] != '\0') {
		k = host_canonicalise(sn, strlen(sn), canon);
		/* SNI carries host names only (RFC 6066 §3): an address there is bad too. */
		if (k == HOST_NAME) {
			snprintf(h->sni, sizeof(h->sni), "%s", canon);
			if (!h->pin_target) {
				name = h->sni;
				kind = HOST_NAME;
			}
		} else
			h->sni_bad = true;
	}
	snprintf(h->leaf, sizeof(h->leaf), "%s", name);
	if ((x = mitm_leaf(h->m, name, kind)) == NULL || O(SSL_use_certificate)(ssl, x) != 1 ||
	    O(SSL_use_PrivateKey)(ssl, h->m->leaf_key) != 1) {
		h->failed = true;
		return 0;
	}
	return 1;
}

struct tls_conn *
tls_mitm_accept(struct tls_mitm_hello *hello, int fd, char *err, size_t errlen)
{
	SSL *ssl;

	O(ERR_clear_error)();
	if ((ssl = O(SSL_new)(hello->m->ctx)) == NULL || O(SSL_set_fd)(ssl, fd) != 1) {
		ossl_errtext(err, errlen, "SSL_new");
		if (ssl != NULL)
			O(SSL_free)(ssl);
		return NULL;
	}
	O(SSL_set_accept_state)(ssl);
	O(SSL_set_cert_cb)(ssl, mitm_cert_cb, hello);
	return tls_conn_adopt(ssl);
}

/* ---- bytes ------------------------------------------------------------------------- */

bool
tls_mitm_looks_like_hello(const unsigned char *buf, size_t len)
{
	return len >= 3 && buf[0] == 0x16 && buf[1] == 0x03 && buf[2] <= 0x03;
}

size_t
tls_mitm_pem_certs(const char *text, size_t len, struct buf *out)
{
	static const char begin[] = "-----BEGIN CERTIFICATE-----";
	static const char end[] = "-----END CERTIFICATE-----";
	const char *p = text, *lim = text + len, *b, *e;
	size_t n = 0;

	while (p < lim) {
		b = memmem(p, (size_t)(lim - p), begin, sizeof(begin) - 1);
		if (b == NULL)
			break;
		/* The marker must begin a line. */
		if (b != text && b[-1] != '\n') {
			p = b + 1;
			continue;
		}
		e = memmem(b + sizeof(begin) - 1, (size_t)(lim - b - (sizeof(begin) - 1)), end,
		    sizeof(end) - 1);
		if (e == NULL)
			break;
		/* Another BEGIN before this END: the first block is broken, start again
		 * from the second. */
		{
			const char *again = memmem(
			    b + 1, (size_t)(e - b - 1), "-----BEGIN ", 11);

			if (again != NULL) {
				p = again;
				continue;
			}
		}
		e += sizeof(end) - 1;
		buf_add(out, b, (size_t)(e - b));
		buf_add(out, "\n", 1);
		n++;
		p = e;
	}
	return n;
}

/* ---- the JVM's trust store ---------------------------------------------------------- */

/* Oracle's trusted-key-usage attribute: the JDK takes a PKCS#12 certificate bag as a
 * trust anchor only with it, for the usages it names (anyExtendedKeyUsage: all). */
#define MITM_JDK_TRUST_OID "2.16.840.1.113894.746875.1.1"
#define MITM_ANY_EKU_OID "2.5.29.37.0"

static void
mitm_bag_free(void *bag)
{
	O(PKCS12_SAFEBAG_free)(bag);
}

static void
mitm_p7_free(void *p7)
{
	O(PKCS7_free)(p7);
}

int
tls_mitm_trust_store(const char *pem, size_t len, struct buf *out, char *err, size_t errlen)
{
	OPENSSL_STACK *bags = NULL, *safes = NULL;
	ASN1_OBJECT *any = NULL;
	PKCS12_SAFEBAG *bag;
	PKCS12 *p12 = NULL;
	BIO *b = NULL;
	X509 *x;
	unsigned char *der = NULL;
	char alias[32];
	int n = 0, dlen, rc = -1;

	if (ossl_load_mitm(err, errlen) == -1)
		return -1;
	O(ERR_clear_error)();
	if ((bags = O(OPENSSL_sk_new_null)()) == NULL ||
	    (any = O(OBJ_txt2obj)(MITM_ANY_EKU_OID, 1)) == NULL ||
	    (b = O(BIO_new_mem_buf)(pem, (int)len)) == NULL) {
		ossl_errtext(err, errlen, "trust store");
		goto out;
	}
	while ((x = O(PEM_read_bio_X509)(b, NULL, NULL, NULL)) != NULL) {
		bag = O(PKCS12_SAFEBAG_create_cert)(x);
		O(X509_free)(x);
		snprintf(alias, sizeof(alias), "srt-trust-%d", ++n);
		/* len -1: the value is the ASN1_OBJECT itself, copied. */
		if (bag == NULL ||
		    O(PKCS12_add1_attr_by_txt)(bag, MITM_JDK_TRUST_OID, V_ASN1_OBJECT,
			(const unsigned char *)any, -1) != 1 ||
		    O(PKCS12_add_friendlyname_asc)(bag, alias, -1) != 1 ||
		    O(OPENSSL_sk_push)(bags, bag) <= 0) {
			if (bag != NULL)
				O(PKCS12_SAFEBAG_free)(bag);
			ossl_errtext(err, errlen, "trust store: a certificate bag");
			goto out;
		}
	}
	/* The loop ends at the end of the text (no more PEM): not an error. */
	O(ERR_clear_error)();
	if (n == 0) {
		snprintf(err, errlen, "trust store: no certificate");
		goto out;
	}
	/* One safe, not encrypted (nid -1), and no MAC: certificates are public, and a
	 * store without a password is what the JDK loads when none is given. */
	if (O(PKCS12_add_safe)((STACK_OF(PKCS7) **)&safes, (STACK_OF(PKCS12_SAFEBAG) *)bags, -1,
		0, NULL) != 1 ||
	    (p12 = O(PKCS12_add_safes)((STACK_OF(PKCS7) *)safes, 0)) == NULL ||
	    (dlen = O(i2d_PKCS12)(p12, &der)) <= 0) {
		ossl_errtext(err, errlen, "trust store");
		goto out;
	}
	buf_add(out, der, (size_t)dlen);
	rc = 0;
out:
	if (der != NULL)
		O(CRYPTO_free)(der, __FILE__, __LINE__);
	if (p12 != NULL)
		O(PKCS12_free)(p12);
	if (safes != NULL)
		O(OPENSSL_sk_pop_free)(safes, mitm_p7_free);
	if (bags != NULL)
		O(OPENSSL_sk_pop_free)(bags, mitm_bag_free);
	if (any != NULL)
		O(ASN1_OBJECT_free)(any);
	if (b != NULL)
		O(BIO_free)(b);
	return rc;
}
