/*
 * libssl and libcrypto, dlopen'ed (tls.h says why they are not linked), behind one
 * table for every user in srt: the TLS client (tls.c) and TLS termination (tls_mitm.c).
 *
 * Every OpenSSL function used is in the lists below, resolved once by name; the types of
 * the pointers come from OpenSSL's own prototypes (__typeof__), so a mismatch is a
 * compile error. OpenSSL's macros that expand to SSL_ctrl, SSL_CTX_ctrl or BIO_ctrl are
 * spelled out as those calls, through the table: a macro used by mistake would name the
 * real symbol, which nothing links, and fail the build. Termination's functions are
 * resolved only when it is first used (ossl_load_mitm): some are OpenSSL 3's, and the
 * client works with an older library.
 */
#ifndef SRT_OSSL_H
#define SRT_OSSL_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

/* The client's, and those termination shares with it. */
#define OSSL_FUNCS(F) \
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

/* Termination's own. */
#define OSSL_MITM_FUNCS(F) \
	F(TLS_server_method) \
	F(SSL_set_accept_state) \
	F(SSL_set_cert_cb) \
	F(SSL_get_servername) \
	F(SSL_use_certificate) \
	F(SSL_use_PrivateKey) \
	F(EVP_PKEY_Q_keygen) \
	F(EVP_PKEY_free) \
	F(EVP_sha256) \
	F(X509_new) \
	F(X509_free) \
	F(X509_set_version) \
	F(X509_get_serialNumber) \
	F(X509_gmtime_adj) \
	F(X509_getm_notBefore) \
	F(X509_getm_notAfter) \
	F(X509_get0_notAfter) \
	F(X509_get0_notBefore) \
	F(X509_set_pubkey) \
	F(X509_get_subject_name) \
	F(X509_set_issuer_name) \
	F(X509_NAME_add_entry_by_txt) \
	F(X509V3_set_ctx) \
	F(X509V3_EXT_conf_nid) \
	F(X509_add_ext) \
	F(X509_EXTENSION_free) \
	F(X509_sign) \
	F(X509_check_private_key) \
	F(X509_check_ca) \
	F(X509_cmp_current_time) \
	F(BN_new) \
	F(BN_free) \
	F(BN_bin2bn) \
	F(BN_to_ASN1_INTEGER) \
	F(RAND_bytes) \
	F(BIO_new_mem_buf) \
	F(BIO_new) \
	F(BIO_s_mem) \
	F(BIO_ctrl) \
	F(BIO_free) \
	F(PEM_read_bio_X509) \
	F(PEM_read_bio_PrivateKey) \
	F(PEM_write_bio_X509) \
	F(PEM_write_bio_PrivateKey) \
	F(OBJ_txt2obj) \
	F(ASN1_OBJECT_free) \
	F(OPENSSL_sk_new_null) \
	F(OPENSSL_sk_push) \
	F(OPENSSL_sk_pop_free) \
	F(PKCS12_SAFEBAG_create_cert) \
	F(PKCS12_SAFEBAG_free) \
	F(PKCS12_add1_attr_by_txt) \
	F(PKCS12_add_friendlyname_asc) \
	F(PKCS12_add_safe) \
	F(PKCS12_add_safes) \
	F(PKCS12_free) \
	F(PKCS7_free) \
	F(i2d_PKCS12) \
	F(CRYPTO_free)

#define OSSL_MEMBER(name) __typeof__(&name) p_##name;
struct ossl {
	void *handle; /* libssl, once loaded and initialised */
	bool mitm;    /* OSSL_MITM_FUNCS resolved too */
	OSSL_FUNCS(OSSL_MEMBER)
	OSSL_MITM_FUNCS(OSSL_MEMBER)
};
#undef OSSL_MEMBER
extern struct ossl ossl;
/* An OpenSSL function, called through the table: O(SSL_new)(ctx). */
#define O(name) (ossl.p_##name)

/* Load libssl and resolve OSSL_FUNCS once; 0, or -1 with a message. */
int ossl_load(char *err, size_t errlen);
/* The same, and OSSL_MITM_FUNCS. */
int ossl_load_mitm(char *err, size_t errlen);
/* The first error in OpenSSL's queue as "what: text" (the queue is emptied). */
void ossl_errtext(char *out, size_t outlen, const char *what);
/* A context for method (the client's or the server's) with what both sides set: TLS
 * 1.2 at least, partial writes, read ahead into a large buffer, the suites of tls.h;
 * NULL with a message. */
SSL_CTX *ossl_ctx_new(const SSL_METHOD *method, char *err, size_t errlen);

#endif
