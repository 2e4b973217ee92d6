/* Masking one credential value (cred_mask.h). */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "cred_mask.h"
#include "cred_rx.h"
#include "util.h"

/* The JSON object in a token's segment, or NULL. */
static cJSON *
jwt_segment_json(const char *s, size_t n)
{
	struct buf b = { 0 };
	cJSON *j = NULL;

	if (buf_add_unbase64(&b, s, n, true) == 0 && b.len > 0)
		j = cJSON_ParseWithLength(b.p + b.off, b.len);
	buf_free(&b);
	if (j != NULL && !cJSON_IsObject(j)) {
		cJSON_Delete(j);
		j = NULL;
	}
	return j;
}

bool
cred_jwt_verify(const char *tok, size_t len)
{
	const char *d1, *d2;
	cJSON *h, *p;
	bool ok;

	if ((d1 = memchr(tok, '.', len)) == NULL ||
	    (d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok))) == NULL ||
	    memchr(d2 + 1, '.', len - (size_t)(d2 + 1 - tok)) != NULL)
		return false;
	if ((h = jwt_segment_json(tok, (size_t)(d1 - tok))) == NULL)
		return false;
	p = jwt_segment_json(d1 + 1, (size_t)(d2 - d1 - 1));
	ok = p != NULL && cJSON_HasObjectItem(h, "alg");
	cJSON_Delete(h);
	cJSON_Delete(p);
	return ok;
}

/* A token's end, after its header segment and '.' in b: the payload (JSON text, freed
 * here) and the filler signature. */
static char *
jwt_finish(struct buf *b, char *payload)
{
	buf_add_base64(b, payload, strlen(payload), true, false);
	buf_addc(b, '.');
	buf_adds(b, CRED_JWT_FILLER_SIG);
	free(payload);
	return buf_steal(b);
}

char *
cred_jwt_fake(const char *uuid)
{
	static const char hdr[] = "{\"alg\":\"HS256\",\"typ\":\"JWT\"}";
	struct buf b = { 0 };
	char *sen = NULL, *payload;

	if (uuid == NULL) {
		if (cred_sentinel_make(0, &sen) == -1)
			return NULL;
		payload = xasprintf("{\"sub\":\"%s\",\"exp\":" CRED_JWT_EXP "}", sen);
	} else
		payload = xasprintf(
		    "{\"sub\":\"" CRED_SENTINEL_PREFIX "%s\",\"exp\":" CRED_JWT_EXP "}", uuid);
	free(sen);
	buf_add_base64(&b, hdr, sizeof(hdr) - 1, true, false);
	buf_addc(&b, '.');
	return jwt_finish(&b, payload);
}

/* Register a sentinel of our own making for real; its text in *sen (owned by st). */
static int
mask_register(struct cred_store *st, const struct cred_mask_entry *e, const char *name,
    const char *real, size_t rlen, const char *fake, const char **sen, size_t *slen,
    const char **why)
{
	char *made = NULL;
	long i;

	if (fake == NULL) {
		if (cred_sentinel_make(rlen, &made) == -1) {
			*why = "no random bytes for a sentinel";
			return -1;
		}
		fake = made;
	}
	i = cred_store_add(
	    st, name, fake, strlen(fake), real, rlen, e->inject, e->ninject, why);
	free(made);
	if (i == -1)
		return -1;
	if (cred_store_fields(st, (size_t)i, e->fields, e->nfields, why) == -1)
		return -1;
	*sen = st->v[i].sentinel;
	*slen = st->v[i].slen;
	return 0;
}

/*
 * maskClaims: each named top-level string claim of the payload gets a sentinel; the
 * token is rebuilt with the original header segment, the new payload and the filler
 * signature (the real one would let the sandbox test guesses of a masked claim). NULL
 * when no claim was masked.
 */
static char *
mask_claims(struct cred_store *st, const struct cred_mask_entry *e, const char *name,
    const char *tok, size_t len, const char **why, bool *fail)
{
	const char *d1 = memchr(tok, '.', len), *d2, *sen;
	struct buf b = { 0 };
	cJSON *p, *c;
	char *text, *cname;
	size_t i, masked = 0, slen;

	*fail = false;
	d2 = memchr(d1 + 1, '.', len - (size_t)(d1 + 1 - tok));
	if ((p = jwt_segment_json(d1 + 1, (size_t)(d2 - d1 - 1))) == NULL)
		return NULL;
	for (i = 0; i < e->nclaims; i++) {
		c = cJSON_GetObjectItemCaseSensitive(p, e->claims[i]);
		if (!cJSON_IsString(c))
			continue;
		cname = xasprintf("%s.%s", name, e->claims[i]);
		if (mask_register(st, e, cname, c->valuestring, strlen(c->valuestring), NULL,
			&sen, &slen, why) == -1) {
			free(cname);
			cJSON_Delete(p);
			*fail = true;
			return NULL;
		}
		free(cname);
		cJSON_SetValuestring(c, sen);
		masked++;
	}
	if (masked == 0) {
		cJSON_Delete(p);
		return NULL;
	}
	text = cJSON_PrintUnformatted(p);
	cJSON_Delete(p);
	if (text == NULL)
		fatalx("out of memory");
	buf_add(&b, tok, (size_t)(d1 - tok) + 1);
	return jwt_finish(&b, text);
}

/* The fake for one JWT: a minted one, or the claim-masked rebuild. NULL with *declined
 * when the token is kept as it is (no JWT, or none of the claims). */
static int
mask_jwt(struct cred_store *st, const struct cred_mask_entry *e, const char *name,
    const char *tok, size_t len, const char **sen, size_t *slen, bool *declined,
    const char **why)
{
	char *fake, *real = xstrndup(tok, len);
	bool fail;
	int rc;

	*declined = false;
	if (!cred_jwt_verify(tok, len)) {
		*declined = true;
		free(real);
		return 0;
	}
	if (e->nclaims > 0) {
		fake = mask_claims(st, e, name, tok, len, why, &fail);
		if (fake == NULL) {
			free(real);
			*declined = !fail;
			return fail ? -1 : 0;
		}
	} else if ((fake = cred_jwt_fake(NULL)) == NULL) {
		free(real);
		*why = "no random bytes for a sentinel";
		return -1;
	}
	rc = mask_register(st, e, name, real, len, fake, sen, slen, why);
	free(fake);
	free(real);
	return rc;
}

struct span {
	size_t start, end;
	const char *sen;
	size_t slen;
};

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static bool
span_overlaps(const struct span *v, size_t n, size_t s, size_t e)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (s < v[i].end && v[i].start < e)
			return true;
	return false;
}

struct capture {
	size_t off, len; /* first occurrence, in the value */
	const char *sen; /* NULL: declined (kept as it is) */
	size_t slen;
};

/*
 * Adds a span for every other copy of each capture in the value (duplicates: true),
 * longest capture first: a shorter capture inside a longer one must not claim part of
 * the longer one's copies.
 */
static void
mask_add_copies(const struct capture *cap, size_t ncap, const char *real, size_t len,
    struct span **spp, size_t *nspp)
{
	struct span *sp = *spp;
	size_t nsp = *nspp, *order, i, k, pos;

	order = xcalloc(ncap, sizeof(*order));
	for (i = 0; i < ncap; i++)
		order[i] = i;
	for (i = 1; i < ncap; i++)
		for (k = i; k > 0 && cap[order[k]].len > cap[order[k - 1]].len; k--) {
			size_t t = order[k];

			order[k] = order[k - 1];
			order[k - 1] = t;
		}
	for (i = 0; i < ncap; i++) {
		const struct capture *c = &cap[order[i]];
		const char *h;

		if (c->sen == NULL)
			continue;
		for (pos = 0; pos + c->len <= len; pos = (size_t)(h - real) + 1) {
			h = memmem(real + pos, len - pos, real + c->off, c->len);
			if (h == NULL)
				break;
			if (span_overlaps(
				sp, nsp, (size_t)(h - real), (size_t)(h - real) + c->len))
				continue;
			sp = xreallocarray(sp, nsp + 1, sizeof(*sp));
			sp[nsp++] = (struct span){ (size_t)(h - real),
				(size_t)(h - real) + c->len, c->sen, c->slen };
			h += c->len - 1;
		}
	}
	free(order);
	*spp = sp;
	*nspp = nsp;
}

static enum cred_mask_rc
mask_extract(struct cred_store *st, const struct cred_mask_entry *e, const char *real,
    size_t len, struct buf *out, const char **why)
{
	const char *pattern = e->extract != NULL ? e->extract : CRED_JWT_PATTERN;
	struct cred_rx *rx = NULL;
	struct capture *cap = NULL;
	struct span *sp = NULL;
	size_t ncap = 0, nsp = 0, from = 0, i, masked = 0, pos;
	enum cred_mask_rc rc = CRED_MASK_FAIL;
	long m[4];
	char *name, *z = NULL;
	bool declined;

	if (cred_rx_compile(pattern, &rx, NULL, why) == -1)
		return CRED_MASK_FAIL;
	/* regexec(3) may look for the text's NUL even with REG_STARTEND (sanitizers'
	 * interceptors do): the scan runs over a terminated copy. */
	z = xmalloc(len + 1);
	memcpy(z, real, len);
	z[len] = '\0';
	while (from <= len && cred_rx_exec(rx, z, len, from, m) == 1) {
		from = m[1] > m[0] ? (size_t)m[1] : (size_t)m[1] + 1;
		if (m[2] < 0) {
			*why = "the pattern matched, but its group 1 took no part in the match: "
			       "group 1 must capture the credential on every match";
			goto out;
		}
		if (m[3] == m[2])
			continue;
		for (i = 0; i < ncap; i++)
			if (cap[i].len == (size_t)(m[3] - m[2]) &&
			    memcmp(real + cap[i].off, real + m[2], cap[i].len) == 0)
				break;
		if (i == ncap) {
			cap = xreallocarray(cap, ncap + 1, sizeof(*cap));
			cap[ncap].off = (size_t)m[2];
			cap[ncap].len = (size_t)(m[3] - m[2]);
			cap[ncap].sen = NULL;
			name = xasprintf("%s#%zu", e->key, ncap);
			if (e->jwt) {
				if (mask_jwt(st, e, name, real + m[2], cap[ncap].len,
					&cap[ncap].sen, &cap[ncap].slen, &declined,
					why) == -1) {
					free(name);
					goto out;
				}
			} else if (mask_register(st, e, name, real + m[2], cap[ncap].len, NULL,
				       &cap[ncap].sen, &cap[ncap].slen, why) == -1) {
				free(name);
				goto out;
			}
			free(name);
			masked += cap[ncap].sen != NULL;
			ncap++;
		}
		if (cap[i].sen == NULL)
			continue;
		sp = xreallocarray(sp, nsp + 1, sizeof(*sp));
		sp[nsp++] = (struct span){ (size_t)m[2], (size_t)m[3], cap[i].sen,
			cap[i].slen };
	}
	if (masked == 0) {
		rc = CRED_MASK_NOMATCH;
		*why = e->jwt ? "no verified JSON Web Token (with the claims to mask) was found"
			      : "the extract pattern matched nothing";
		goto out;
	}
	if (e->dups)
		mask_add_copies(cap, ncap, real, len, &sp, &nsp);
	qsort(sp, nsp, sizeof(*sp), span_cmp);
	for (pos = 0, i = 0; i < nsp; i++) {
		buf_add(out, real + pos, sp[i].start - pos);
		buf_add(out, sp[i].sen, sp[i].slen);
		pos = sp[i].end;
	}
	buf_add(out, real + pos, len - pos);
	rc = CRED_MASK_DONE;
out:
	if (z != NULL)
		explicit_bzero(z, len);
	free(z);
	free(sp);
	free(cap);
	cred_rx_free(rx);
	return rc;
}

enum cred_mask_rc
cred_mask_value(struct cred_store *st, const struct cred_mask_entry *e, const char *real,
    size_t len, struct buf *out, const char **why)
{
	const char *sen;
	size_t slen;
	bool declined;

	*why = NULL;
	/* A variable declared a JWT is one token, whatever extract says (as the reference
	 * reads it); a file's tokens are found with extract or the built-in pattern. */
	if (e->jwt && !e->file) {
		if (mask_jwt(st, e, e->key, real, len, &sen, &slen, &declined, why) == -1)
			return CRED_MASK_FAIL;
		if (declined) {
			*why = e->nclaims > 0
			    ? "none of maskClaims is a string claim of its "
			      "JSON Web Token, or the value is no JSON Web Token"
			    : "its value is no JSON Web Token";
			return CRED_MASK_NOT_JWT;
		}
		buf_add(out, sen, slen);
		return CRED_MASK_DONE;
	}
	if (e->extract != NULL || e->jwt)
		return mask_extract(st, e, real, len, out, why);
	if (len == 0) {
		*why = "the value is empty";
		return CRED_MASK_NOMATCH;
	}
	if (mask_register(st, e, e->key, real, len, NULL, &sen, &slen, why) == -1)
		return CRED_MASK_FAIL;
	buf_add(out, sen, slen);
	return CRED_MASK_DONE;
}
