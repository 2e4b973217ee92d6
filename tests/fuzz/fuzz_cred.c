/*
 * libFuzzer target for credential masking (cred.h, cred_mask.h, cred_rx.h, sigv4.h): the
 * first byte picks what the rest is. 0: an extract pattern, a NUL, then a value to mask
 * with it (spans must cover only the value, the fake must hold no captured text when
 * maskDuplicates is on). 1: a value that may hold JWTs, decode "jwt" with and without
 * maskClaims (every fake token verifies). 2: bytes fed in random cuts through the
 * substitution stream (the stream equals the whole-buffer substitution). 3: the store's
 * wire form (decode never reads out of bounds). 4: an Authorization field and a target
 * for SigV4 detection and parsing. 5: a request body through the body stream (only named
 * fields' values replaced) in random cuts (equals the whole body). 6: a response through
 * the scrubber, a value taken from the input's start (the stream equals the whole and
 * keeps the length).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cred.h"
#include "cred_mask.h"
#include "cred_rx.h"
#include "sigv4.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const hosts[] = { "example.com" };

static void
fuzz_extract(const char *p, size_t n)
{
	const char *nul = memchr(p, '\0', n), *why;
	struct cred_store st = { 0 };
	struct buf out = { 0 };
	char *pat;
	struct cred_mask_entry e = {
		.key = "env:F", .dups = true, .inject = hosts, .ninject = 1
	};

	if (nul == NULL)
		return;
	pat = strndup(p, (size_t)(nul - p));
	e.extract = pat;
	if (cred_mask_value(&st, &e, nul + 1, n - (size_t)(nul + 1 - p), &out, &why) ==
	    CRED_MASK_DONE) {
		for (size_t i = 0; i < st.n; i++)
			if (st.v[i].rlen == 0)
				abort();
	}
	buf_free(&out);
	cred_store_free(&st);
	free(pat);
}

static void
fuzz_jwt(const char *p, size_t n)
{
	static const char *const claims[] = { "sub", "email" };
	struct cred_store st = { 0 };
	struct buf out = { 0 };
	const char *why;
	struct cred_mask_entry e = {
		.key = "file:/f", .file = true, .jwt = true, .inject = hosts, .ninject = 1
	};

	for (int k = 0; k < 2; k++) {
		e.claims = k ? claims : NULL;
		e.nclaims = k ? 2 : 0;
		if (cred_mask_value(&st, &e, p, n, &out, &why) == CRED_MASK_DONE)
			for (size_t i = 0; i < st.n; i++)
				if (strncmp(st.v[i].sentinel, "eyJ", 3) == 0 &&
				    !cred_jwt_verify(st.v[i].sentinel, st.v[i].slen))
					abort();
		buf_reset(&out);
		cred_store_free(&st);
	}
	buf_free(&out);
	e.file = false;
	e.nclaims = 0;
	if (cred_mask_value(&st, &e, p, n, &out, &why) == CRED_MASK_DONE &&
	    !cred_jwt_verify(out.p + out.off, out.len))
		abort();
	buf_free(&out);
	cred_store_free(&st);
}

static void
fuzz_stream(const char *p, size_t n)
{
	struct cred_store st = { 0 };
	const struct cred_secret **set;
	struct buf whole = { 0 }, part = { 0 };
	struct cred_stream cs;
	const char *why;
	size_t k, off, cut, ns;

	cred_store_add(&st, "a", "fake_value_a1", 13, "REAL-A", 6, hosts, 1, &why);
	cred_store_add(&st, "b", "fake_value_bb22", 15, "R", 1, hosts, 1, &why);
	set = cred_for_host(&st, "example.com", 80, &ns);
	cred_subst(set, ns, p, n, &whole);
	cred_stream_init(&cs, set, ns);
	for (off = 0, k = 0; off < n; off += cut, k++) {
		cut = 1 + (size_t)(unsigned char)p[k % n] % 17;
		if (cut > n - off)
			cut = n - off;
		cred_stream_feed(&cs, p + off, cut, &part);
	}
	cred_stream_end(&cs, &part);
	if (whole.len != part.len ||
	    (whole.len > 0 && memcmp(whole.p + whole.off, part.p + part.off, whole.len) != 0))
		abort();
	cred_stream_free(&cs);
	buf_free(&whole);
	buf_free(&part);
	free(set);
	cred_store_free(&st);
}

static void
fuzz_body(const char *p, size_t n)
{
	static const char *const fields[] = { "t", "client_secret" };
	struct cred_store st = { 0 };
	const struct cred_secret **set;
	struct buf whole = { 0 }, part = { 0 };
	struct cred_stream cs;
	const char *why;
	size_t k, off, cut, ns;

	cred_store_add(&st, "a", "fake_value_a1", 13, "REAL-A", 6, hosts, 1, &why);
	cred_store_fields(&st, 0, fields, 2, &why);
	cred_store_add(&st, "b", "fake_value_bb22", 15, "R", 1, hosts, 1, &why);
	cred_store_fields(&st, 1, fields, 1, &why);
	cred_store_add(&st, "c", "fake_value_c", 12, "not-in-bodies", 13, hosts, 1, &why);
	set = cred_for_host(&st, "example.com", 80, &ns);
	cred_body_subst(set, ns, p, n, &whole);
	cred_stream_init_body(&cs, set, ns);
	for (off = 0, k = 0; off < n; off += cut, k++) {
		cut = 1 + (size_t)(unsigned char)p[k % n] % 31;
		if (cut > n - off)
			cut = n - off;
		cred_stream_feed(&cs, p + off, cut, &part);
		if (cs.past > CRED_CTX || cs.hold.len - cs.past >= cs.maxlen)
			abort();
	}
	cred_stream_end(&cs, &part);
	if (whole.len != part.len ||
	    (whole.len > 0 && memcmp(whole.p + whole.off, part.p + part.off, whole.len) != 0))
		abort();
	if (whole.len > 0 &&
	    memmem(whole.p + whole.off, whole.len, "not-in-bodies", 13) != NULL &&
	    memmem(p, n, "not-in-bodies", 13) == NULL)
		abort();
	cred_stream_free(&cs);
	buf_free(&whole);
	buf_free(&part);
	free(set);
	cred_store_free(&st);
}

/* The first byte is the value's length (its bytes follow), the rest the response. */
static void
fuzz_scrub(const char *p, size_t n)
{
	struct cred_store st = { 0 };
	struct buf whole = { 0 }, part = { 0 };
	struct cred_scrub_stream ss;
	const char *why;
	size_t vl, k, off, cut;

	if (n < 1 || (vl = (unsigned char)p[0] % 40 + 1) > n - 1)
		return;
	cred_store_add(&st, "a", "fake_value_0123456789abcdefghijklmnopqrstuvw", 44, p + 1, vl,
	    hosts, 1, &why);
	cred_scrub_prepare(&st);
	p += 1 + vl;
	n -= 1 + vl;
	cred_scrub(&st, p, n, &whole);
	cred_scrub_init(&ss, &st);
	for (off = 0, k = 0; off < n; off += cut, k++) {
		cut = 1 + (size_t)(unsigned char)p[k % n] % 13;
		if (cut > n - off)
			cut = n - off;
		cred_scrub_feed(&ss, p + off, cut, &part);
		if (st.scrubmax > 0 && ss.hold.len >= st.scrubmax)
			abort();
	}
	cred_scrub_end(&ss, &part);
	if (whole.len != n || part.len != n ||
	    (n > 0 && memcmp(whole.p + whole.off, part.p + part.off, n) != 0))
		abort();
	cred_scrub_free(&ss);
	buf_free(&whole);
	buf_free(&part);
	cred_store_free(&st);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data + 1, *why;
	size_t n = size - 1;
	struct cred_store st;
	struct sigv4_auth a;
	char *akid;

	if (size < 1 || size > 65536)
		return 0;
	switch (data[0] % 7) {
	case 0:
		fuzz_extract(p, n);
		break;
	case 1:
		fuzz_jwt(p, n);
		break;
	case 2:
		fuzz_stream(p, n);
		break;
	case 3:
		if (cred_store_decode(p, n, &st, &why) == 0)
			cred_store_free(&st);
		break;
	case 4:
		sigv4_detect(p, n, NULL, 0, p, n, &akid);
		free(akid);
		if (sigv4_parse_auth(p, n, &a) == 0)
			sigv4_auth_free(&a);
		break;
	case 5:
		fuzz_body(p, n);
		break;
	case 6:
		fuzz_scrub(p, n);
		break;
	}
	return 0;
}
