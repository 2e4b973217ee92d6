/*
 * Credential masking (settings "credentials" entries with mode "mask", issue #14): the
 * sandbox sees a sentinel; srt-httpd puts the real value back into requests bound for the
 * hosts that credential may be sent to, and only there.
 *
 * A cred_store is what srt-httpd holds: for each masked value its sentinel, the real
 * bytes and its injectHosts; the AWS pairs for SigV4 re-signing; the transport and SigV4
 * policies. The launcher builds it (cred_mask.h), encodes it (cred_store_encode) and
 * writes it into a pipe that srt-httpd reads at start (--cred-fd): the real values never
 * touch a file, an argument vector, an environment or a log line.
 *
 * Substitution is gated per credential (a sentinel is swapped only at the hosts of its
 * own credential, so one credential cannot be laundered through another's host), and it
 * fails safe: whatever is not recognised leaves as the useless sentinel. It happens in
 * header fields, and in a body only in the fields the credential names
 * (injectBodyFields): a host that echoes or stores what it is sent must not hand the
 * real value back. What does come back is scrubbed (cred_scrub_*): every response the
 * proxy reads in clear text has each real value, in the forms an echo gives it back,
 * replaced by a stand-in of the same length.
 */
#ifndef SRT_CRED_H
#define SRT_CRED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "domain.h"

#define CRED_SENTINEL_PREFIX "fake_value_"
#define CRED_SENTINEL_BASE 47     /* prefix + a UUID: the shortest sentinel */
#define CRED_VALUE_MAX (1u << 20) /* one masked value, bytes */
#define CRED_MAX 4096             /* masked values in one store */
#define CRED_FIELD_MAX 64         /* bytes of one injectBodyFields name */
#define CRED_FIELDS_MAX 32        /* injectBodyFields of one credential */
#define CRED_SCRUB_MIN \
	6 /* shorter forms of a value are not scrubbed: they
                                           would mangle every response */

enum cred_sigv4_policy {
	CRED_SIGV4_DENY,
	CRED_SIGV4_PASSTHROUGH
};

struct cred_secret {
	char *name;     /* "env:GH_TOKEN", "file:/h/.netrc#0": for logs */
	char *sentinel; /* NUL-terminated; slen bytes */
	size_t slen;
	char *real; /* rlen bytes (and a NUL, not counted) */
	size_t rlen;
	struct dom_rule *inject; /* where real may be sent */
	size_t ninject;
	char **fields; /* injectBodyFields: the body fields it goes in */
	size_t nfields;
};

/* One form of a real value that may come back in a response, and its stand-in (the same
 * length, so that a body keeps its framing). */
struct cred_needle {
	char *p, *repl;
	size_t n;
};

/* A masked AWS key pair: requests signed with the fake key id are re-signed with the
 * real secret. The indexes are into the store's secrets; token -1 when none. */
struct cred_aws {
	size_t key_id, secret;
	long token;
};

struct cred_store {
	struct cred_secret *v;
	size_t n;
	struct cred_aws *aws;
	size_t naws;
	bool plaintext; /* allowPlaintextInject */
	enum cred_sigv4_policy streaming, presigned, sigv4a;
	size_t maxlen;             /* longest sentinel */
	struct cred_needle *scrub; /* cred_scrub_prepare: what responses lose */
	size_t nscrub, scrubmax;
};

/*
 * A fresh sentinel for a value of real_len bytes: "fake_value_" and a random UUID
 * (version 4), padded with random characters of [a-z0-9_-] up to real_len when the value
 * is longer, so that substitution does not change a body's length. 0, or -1 when no
 * random bytes could be had.
 */
int cred_sentinel_make(size_t real_len, char **out);

/* Add a credential (copies everything; inject entries are parsed as allowedDomains
 * entries and must be valid). Returns its index, or -1 with *why. */
long cred_store_add(struct cred_store *st, const char *name, const char *sentinel, size_t slen,
    const char *real, size_t rlen, const char *const *inject, size_t ninject, const char **why);
void cred_store_free(struct cred_store *st);

/* The body fields credential i goes in (names of CRED_FIELD_MAX bytes at most, each of
 * [A-Za-z0-9_.-]): 0, or -1 with *why. */
int cred_store_fields(
    struct cred_store *st, size_t i, const char *const *fields, size_t n, const char **why);

/* May credential i be sent to host (canonical, of kind) on port? */
bool cred_injectable(
    const struct cred_secret *c, const char *host, enum host_kind kind, uint16_t port);

/* The credentials injectable at a destination, in store order: an array of n pointers the
 * caller frees (NULL and 0 when none). */
const struct cred_secret **cred_for_host(
    const struct cred_store *st, const char *host, uint16_t port, size_t *n);

/* Does some credential of the set change length when substituted? body: only those
 * that go into bodies. */
bool cred_length_changes(const struct cred_secret *const *set, size_t n);
bool cred_body_length_changes(const struct cred_secret *const *set, size_t n);
/* Does some credential of the set go into bodies (injectBodyFields)? */
bool cred_body_any(const struct cred_secret *const *set, size_t n);

/* len bytes of p to out with every sentinel of the set replaced by its real value
 * (earliest first; at one position, the first in set order). Returns the number of
 * replacements. */
size_t cred_subst(
    const struct cred_secret *const *set, size_t n, const char *p, size_t len, struct buf *out);

/*
 * The same over a stream split anywhere: feed passes on everything that cannot be the
 * start of a sentinel and holds back at most maxlen - 1 bytes; end flushes them.
 *
 * A body stream (cred_stream_init_body) replaces a sentinel only where it is the value
 * of a field its credential names: a form field (NAME=SENTINEL at the start of the body
 * or after "&") or a JSON member ("NAME": "SENTINEL..., blanks allowed around the
 * colon). It keeps the last CRED_CTX bytes it passed on to see what came before.
 */
#define CRED_CTX (CRED_FIELD_MAX + 64)
#define CRED_BODY_FORM 1u
#define CRED_BODY_JSON 2u
struct cred_stream {
	const struct cred_secret *const *set;
	size_t n, maxlen;
	bool body;
	unsigned syntax; /* a body's: CRED_BODY_FORM, CRED_BODY_JSON or both */
	struct buf hold; /* past bytes passed on, then those held back */
	size_t past;
	bool start;   /* hold starts at the first byte of the stream */
	size_t count; /* replacements so far */
};
void cred_stream_init(struct cred_stream *s, const struct cred_secret *const *set, size_t n);
void cred_stream_init_body(
    struct cred_stream *s, const struct cred_secret *const *set, size_t n);
/* A whole body at once, as a body stream would give it. */
size_t cred_body_subst(
    const struct cred_secret *const *set, size_t n, const char *p, size_t len, struct buf *out);
void cred_stream_feed(struct cred_stream *s, const char *p, size_t len, struct buf *out);
void cred_stream_end(struct cred_stream *s, struct buf *out);
void cred_stream_free(struct cred_stream *s);

/*
 * What comes back: prepare lists, for every value of the store, the forms an echo may
 * give back (the value; its base64 at each of the three alignments, standard and URL
 * alphabets; its percent-encodings (upper- or lowercase hex, "/" and "!'()*" kept or
 * not); when the value is itself base64, as a Basic
 * authorization is, what it decodes to and the part after its first colon), each at
 * least CRED_SCRUB_MIN bytes, with a stand-in of the same length: the value's sentinel
 * (cut to the value's length), else a run of one character that keeps the form's syntax.
 * scrub replaces every one of them in a buffer (earliest first, the longest at one
 * place); the stream does so over cuts anywhere, holding back only a tail that could
 * still become a form (less than scrubmax bytes). Both keep the length.
 */
void cred_scrub_prepare(struct cred_store *st);
size_t cred_scrub(const struct cred_store *st, const char *p, size_t len, struct buf *out);
struct cred_scrub_stream {
	const struct cred_store *st;
	struct buf hold;
	size_t count;
};
void cred_scrub_init(struct cred_scrub_stream *s, const struct cred_store *st);
void cred_scrub_feed(struct cred_scrub_stream *s, const char *p, size_t len, struct buf *out);
void cred_scrub_end(struct cred_scrub_stream *s, struct buf *out);
void cred_scrub_free(struct cred_scrub_stream *s);

/*
 * The store as bytes for the pipe to srt-httpd, and back. decode treats its input as
 * untrusted (every length checked); -1 with a static message in *why.
 */
void cred_store_encode(const struct cred_store *st, struct buf *out);
int cred_store_decode(const char *p, size_t len, struct cred_store *st, const char **why);

/* Scrub the real values from memory (cred_store_free does, too). */
void cred_store_wipe(struct cred_store *st);

#endif
