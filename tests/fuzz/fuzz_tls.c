/*
 * libFuzzer target for what TLS termination reads of untrusted bytes outside OpenSSL:
 * the first byte picks the request target of a terminated tunnel's request
 * (http_tunnel_target), the certificate-block filter of the trust bundle
 * (tls_mitm_pem_certs, whose files are the user's but may be anything), or the
 * ClientHello sniff. Checks their promises: outputs inside the input, blocks that are
 * whole certificate blocks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "http_parse.h"
#include "tls_mitm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1;
	size_t n = size > 0 ? size - 1 : 0;

	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0: {
		struct http_str t = { p, n }, path, auth;

		if (http_tunnel_target(t, &path, &auth) == 0) {
			if (path.p < p || path.p + path.n > p + n ||
			    (auth.n > 0 && (auth.p < p || auth.p + auth.n > p + n)) ||
			    memchr(p, '#', n) != NULL)
				abort();
		}
		break;
	}
	case 1: {
		struct buf b = { 0 };
		size_t k = tls_mitm_pem_certs(p, n, &b), i, begins = 0;
		static const char begin[] = "-----BEGIN CERTIFICATE-----";

		if (b.len > n + k)
			abort();
		for (i = 0; b.len >= sizeof(begin) - 1 && i + sizeof(begin) - 1 <= b.len; i++)
			if (memcmp(b.p + b.off + i, begin, sizeof(begin) - 1) == 0)
				begins++;
		if (begins != k)
			abort();
		buf_free(&b);
		break;
	}
	default:
		(void)tls_mitm_looks_like_hello(data + 1, n);
		break;
	}
	return 0;
}
