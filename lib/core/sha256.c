/* SHA-256 and HMAC-SHA256 (sha256.h). */
#include <string.h>

#include "sha256.h"
#include "sys.h"

static const uint32_t K[64] = {
	0x428a2f98,
	0x71374491,
	0xb5c0fbcf,
	0xe9b5dba5,
	0x3956c25b,
	0x59f111f1,
	0x923f82a4,
	0xab1c5ed5,
	0xd807aa98,
	0x12835b01,
	0x243185be,
	0x550c7dc3,
	0x72be5d74,
	0x80deb1fe,
	0x9bdc06a7,
	0xc19bf174,
	0xe49b69c1,
	0xefbe4786,
	0x0fc19dc6,
	0x240ca1cc,
	0x2de92c6f,
	0x4a7484aa,
	0x5cb0a9dc,
	0x76f988da,
	0x983e5152,
	0xa831c66d,
	0xb00327c8,
	0xbf597fc7,
	0xc6e00bf3,
	0xd5a79147,
	0x06ca6351,
	0x14292967,
	0x27b70a85,
	0x2e1b2138,
	0x4d2c6dfc,
	0x53380d13,
	0x650a7354,
	0x766a0abb,
	0x81c2c92e,
	0x92722c85,
	0xa2bfe8a1,
	0xa81a664b,
	0xc24b8b70,
	0xc76c51a3,
	0xd192e819,
	0xd6990624,
	0xf40e3585,
	0x106aa070,
	0x19a4c116,
	0x1e376c08,
	0x2748774c,
	0x34b0bcb5,
	0x391c0cb3,
	0x4ed8aa4a,
	0x5b9cca4f,
	0x682e6ff3,
	0x748f82ee,
	0x78a5636f,
	0x84c87814,
	0x8cc70208,
	0x90befffa,
	0xa4506ceb,
	0xbef9a3f7,
	0xc67178f2,
};

#define ROR(x, n) ((x) >> (n) | (x) << (32 - (n)))

static void
sha256_block(struct sha256 *s, const uint8_t *b)
{
	uint32_t w[64], a, bb, c, d, e, f, g, h, t1, t2;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 |
		    (uint32_t)b[4 * i + 2] << 8 | b[4 * i + 3];
	for (; i < 64; i++)
		w[i] = (ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10)) + w[i - 7] +
		    (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3)) + w[i - 16];
	a = s->h[0], bb = s->h[1], c = s->h[2], d = s->h[3];
	e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] +
		    w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & bb) ^ (a & c) ^ (bb & c));
		h = g, g = f, f = e, e = d + t1, d = c, c = bb, bb = a, a = t1 + t2;
	}
	s->h[0] += a, s->h[1] += bb, s->h[2] += c, s->h[3] += d;
	s->h[4] += e, s->h[5] += f, s->h[6] += g, s->h[7] += h;
}

void
sha256_init(struct sha256 *s)
{
	static const uint32_t iv[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };

	memcpy(s->h, iv, sizeof(iv));
	s->total = 0;
	s->n = 0;
}

void
sha256_update(struct sha256 *s, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t take;

	s->total += n;
	while (n > 0) {
		if (s->n == 0 && n >= 64) {
			sha256_block(s, b);
			b += 64, n -= 64;
			continue;
		}
		take = 64 - s->n < n ? 64 - s->n : n;
		memcpy(s->blk + s->n, b, take);
		s->n += take, b += take, n -= take;
		if (s->n == 64) {
			sha256_block(s, s->blk);
			s->n = 0;
		}
	}
}

void
sha256_final(struct sha256 *s, uint8_t out[SHA256_LEN])
{
	uint64_t bits = s->total * 8;
	uint8_t pad = 0x80, len[8];
	int i;

	sha256_update(s, &pad, 1);
	pad = 0;
	while (s->n != 56)
		sha256_update(s, &pad, 1);
	for (i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha256_update(s, len, 8);
	for (i = 0; i < 8; i++) {
		out[4 * i] = (uint8_t)(s->h[i] >> 24);
		out[4 * i + 1] = (uint8_t)(s->h[i] >> 16);
		out[4 * i + 2] = (uint8_t)(s->h[i] >> 8);
		out[4 * i + 3] = (uint8_t)s->h[i];
	}
	memset(s, 0, sizeof(*s));
}

void
sha256(const void *p, size_t n, uint8_t out[SHA256_LEN])
{
	struct sha256 s;

	sha256_init(&s);
	sha256_update(&s, p, n);
	sha256_final(&s, out);
}

/* One hash of HMAC (RFC 2104): the key xor'ed with ipad or opad, then msg. */
static void
hmac_pass(const uint8_t k[64], uint8_t pad_byte, const void *msg, size_t mlen,
    uint8_t out[SHA256_LEN])
{
	uint8_t pad[64];
	struct sha256 s;
	int i;

	for (i = 0; i < 64; i++)
		pad[i] = k[i] ^ pad_byte;
	sha256_init(&s);
	sha256_update(&s, pad, 64);
	sha256_update(&s, msg, mlen);
	sha256_final(&s, out);
	explicit_bzero(pad, sizeof(pad));
}

void
hmac_sha256(const void *key, size_t klen, const void *msg, size_t mlen, uint8_t out[SHA256_LEN])
{
	uint8_t k[64] = { 0 }, inner[SHA256_LEN];

	if (klen > 64)
		sha256(key, klen, k);
	else
		memcpy(k, key, klen);
	hmac_pass(k, 0x36, msg, mlen, inner);
	hmac_pass(k, 0x5c, inner, SHA256_LEN, out);
	/* The key (a derived signing key) does not stay on the stack. */
	explicit_bzero(k, sizeof(k));
}

void
hex_lower(const uint8_t *p, size_t n, char *out)
{
	static const char hx[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < n; i++) {
		out[2 * i] = hx[p[i] >> 4];
		out[2 * i + 1] = hx[p[i] & 15];
	}
	out[2 * n] = '\0';
}
