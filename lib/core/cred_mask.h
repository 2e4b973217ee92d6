/*
 * Masking one credential value (a variable's value or a file's content) into a
 * cred_store: the whole value, the spans an extract pattern's group 1 captures, or the
 * JSON Web Tokens in it (decode "jwt"), with maskClaims and maskDuplicates. What the
 * sandbox gets instead is written to a buffer. Pure logic: the launcher reads the values
 * (srt-launch/linux/cred.c) and applies the no-match policy.
 */
#ifndef SRT_CRED_MASK_H
#define SRT_CRED_MASK_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "cred.h"

#define CRED_JWT_PATTERN "(eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+)"
#define CRED_JWT_FILLER_SIG "c3J0LWZha2U"
#define CRED_JWT_EXP "9999999999"

struct cred_mask_entry {
	const char *key;           /* "env:NAME", "file:/path": names in the store */
	bool file;                 /* a file: decode applies to extract's captures */
	const char *extract;       /* NULL: none */
	bool jwt;                  /* decode "jwt" */
	const char *const *claims; /* maskClaims */
	size_t nclaims;
	bool dups;                 /* maskDuplicates */
	const char *const *inject; /* injectHosts, resolved (never empty) */
	size_t ninject;
	const char *const *fields; /* injectBodyFields */
	size_t nfields;
};

enum cred_mask_rc {
	CRED_MASK_DONE,    /* out holds what the sandbox sees */
	CRED_MASK_NOMATCH, /* nothing to mask: onExtractNoMatch decides */
	CRED_MASK_NOT_JWT, /* a variable's value is no JWT (or has none of
	                                   maskClaims): left as it is, with a warning */
	CRED_MASK_FAIL,    /* *why */
};

enum cred_mask_rc cred_mask_value(struct cred_store *st, const struct cred_mask_entry *e,
    const char *real, size_t len, struct buf *out, const char **why);

/* JWT pieces (exposed for the tests and the fuzzer). */
bool cred_jwt_verify(const char *tok, size_t len);
/* A fake token: HS256 header, {"sub": "fake_value_<uuid>", "exp": 9999999999}, filler
 * signature. uuid NULL: a random one. */
char *cred_jwt_fake(const char *uuid);

#endif
