/*
 * AWS Signature Version 4, as much as re-signing needs: recognising a signed request
 * (header SigV4, aws-chunked streaming, presigned URL, SigV4A), reading its
 * Authorization field, and signing the canonical request again with another secret
 * (https://docs.aws.amazon.com/IAM/latest/UserGuide/create-signed-request.html).
 * Pure logic over byte strings; srt-httpd decides when (cred.h holds the pairs).
 */
#ifndef SRT_SIGV4_H
#define SRT_SIGV4_H

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "sha256.h"

#define SIGV4_ALGORITHM "AWS4-HMAC-SHA256"
#define SIGV4A_ALGORITHM "AWS4-ECDSA-P256-SHA256"
#define SIGV4_UNSIGNED "UNSIGNED-PAYLOAD"
#define SIGV4_FIELD_MAX 128 /* signed header names */

enum sigv4_kind {
	SIGV4_NONE,
	SIGV4_HEADER,    /* re-signable */
	SIGV4_STREAMING, /* x-amz-content-sha256: STREAMING-... */
	SIGV4_PRESIGNED, /* X-Amz-Signature in the query */
	SIGV4_SIGV4A,
};

/* One request field; names compare case-insensitively. */
struct sigv4_field {
	const char *name, *value;
	size_t nlen, vlen;
};

struct sigv4_auth {
	char *akid, *date, *region, *service;
	char *signed_names[SIGV4_FIELD_MAX]; /* lower case, as listed */
	size_t nsigned;
};

/* What kind of signed request this is, and the access key id it names (caller frees);
 * auth NULL when the request has no Authorization field. */
enum sigv4_kind sigv4_detect(const char *auth, size_t alen, const char *content_sha,
    size_t clen, const char *target, size_t tlen, char **akid);

/* 0, or -1 when the field is no well-formed AWS4-HMAC-SHA256 authorization. */
int sigv4_parse_auth(const char *auth, size_t alen, struct sigv4_auth *out);
void sigv4_auth_free(struct sigv4_auth *a);

struct sigv4_sign_in {
	const char *method;
	const char *target; /* path and query, as sent */
	size_t tlen;
	const struct sigv4_field *fields;
	size_t nfields;
	const char *host;          /* the Host field's value */
	char *const *signed_names; /* lower case; sorted here */
	size_t nsigned;
	const char *payload_hash; /* hex, or UNSIGNED-PAYLOAD */
	const char *amz_date;
	const char *date, *region, *service;
	const char *akid;
	const char *secret;
	size_t secret_len;
};

/* The Authorization value for in (caller frees), and the canonical request in creq when
 * creq is not NULL; NULL when a signed field is missing. */
char *sigv4_sign(const struct sigv4_sign_in *in, struct buf *creq);

/* The canonical forms, for the tests. */
void sigv4_canonical_uri(const char *path, size_t n, const char *service, struct buf *out);
void sigv4_canonical_query(const char *q, size_t n, struct buf *out);

#endif
