/*
 * SHA-256 and HMAC-SHA256 (FIPS 180-4, RFC 2104): what AWS Signature Version 4 needs
 * (lib/proxyd/sigv4.h). Written here rather than taken from libcrypto, which the proxies only
 * load with dlopen when a policy needs TLS (lib/tls/tls.h says why); re-signing a request
 * must not depend on that.
 */
#ifndef SRT_SHA256_H
#define SRT_SHA256_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

struct sha256 {
	uint32_t h[8];
	uint64_t total; /* bytes fed */
	uint8_t blk[64];
	size_t n; /* bytes waiting in blk */
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *p, size_t n);
void sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN]);
void sha256(const void *p, size_t n, uint8_t out[SHA256_LEN]);
void hmac_sha256(
    const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[SHA256_LEN]);
/* Lower-case hex of n bytes into out, NUL-terminated (2n + 1 bytes). */
void hex_lower(const uint8_t *p, size_t n, char *out);

#endif
