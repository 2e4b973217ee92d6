/* The external decider's protocol (decider.h): its JSON, on cJSON (the frame splitter
 * and the header-name rules, which srt-httpd uses without a decider, are
 * decider_names.c). */
#include <arpa/inet.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "decider.h"
#include "json_strict.h"
#include "utf8.h"

/* ---- the decider's frames -------------------------------------------------------- */

static bool
is_tchar_lower(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	    strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static bool
lower_token(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!is_tchar_lower((unsigned char)*s))
			return false;
	return true;
}

/* A C0 control but tab, DEL, or a C1 control (U+0080..U+009F, 0xC2 0x80..0x9F). */
static bool
has_control(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return true;
		if (c == 0xc2 && i + 1 < n && (unsigned char)s[i + 1] >= 0x80 &&
		    (unsigned char)s[i + 1] <= 0x9f)
			return true;
	}
	return false;
}

/* Nothing null anywhere and no object with a key twice. */
static bool
tree_ok(const cJSON *j)
{
	const cJSON *a, *b;

	if (cJSON_IsNull(j))
		return false;
	for (a = j->child; a != NULL; a = a->next) {
		if (cJSON_IsObject(j))
			for (b = a->next; b != NULL; b = b->next)
				if (strcmp(a->string, b->string) == 0)
					return false;
		if (!tree_ok(a))
			return false;
	}
	return true;
}

/* The frame as one object, or NULL with why. */
static cJSON *
frame_object(const char *f, size_t n, char *why)
{
	char err[128];
	size_t pos;
	cJSON *o;

	if (json_check(f, n, &pos, err, sizeof(err)) == -1) {
		snprintf(why, DECIDER_WHY_MAX, "frame is not valid JSON: %s", err);
		return NULL;
	}
	if ((o = cJSON_ParseWithLength(f, n)) == NULL) {
		snprintf(why, DECIDER_WHY_MAX, "frame is not valid JSON");
		return NULL;
	}
	if (!cJSON_IsObject(o)) {
		snprintf(why, DECIDER_WHY_MAX, "frame is not one JSON object");
		goto bad;
	}
	if (!tree_ok(o)) {
		snprintf(why, DECIDER_WHY_MAX, "null or duplicate key in frame");
		goto bad;
	}
	return o;
bad:
	cJSON_Delete(o);
	return NULL;
}

/* Only keys of allowed (NULL-terminated). */
static bool
keys_only(const cJSON *o, const char *const *allowed)
{
	for (const cJSON *c = o->child; c != NULL; c = c->next) {
		size_t i;

		for (i = 0; allowed[i] != NULL; i++)
			if (strcmp(c->string, allowed[i]) == 0)
				break;
		if (allowed[i] == NULL)
			return false;
	}
	return true;
}

static bool
str_is(const cJSON *o, const char *key, const char *want)
{
	const cJSON *j = cJSON_GetObjectItemCaseSensitive(o, key);

	return cJSON_IsString(j) && strcmp(j->valuestring, want) == 0;
}

/* An integer in [lo, hi] (exact in a double up to 2^53). */
static bool
int_in(const cJSON *j, double lo, double hi, double *out)
{
	if (!cJSON_IsNumber(j) || j->valuedouble != floor(j->valuedouble) ||
	    j->valuedouble < lo || j->valuedouble > hi)
		return false;
	*out = j->valuedouble;
	return true;
}

/* A list of distinct strings, each passing ok. */
static bool
unique_strings(const cJSON *a, bool (*ok)(const char *), struct strlist *out)
{
	const cJSON *c;

	if (!cJSON_IsArray(a))
		return false;
	for (c = a->child; c != NULL; c = c->next) {
		if (!cJSON_IsString(c) || !ok(c->valuestring) ||
		    strlist_contains(out, c->valuestring))
			return false;
		strlist_push(out, c->valuestring);
	}
	return true;
}

int
decider_parse_hello(const char *f, size_t n, struct decider_hello *h, char *why)
{
	static const char *const keys[] = { "t", "proto", "allowedDomains", "deniedDomains",
		NULL };
	cJSON *o;
	double proto;
	int rc = -1;

	memset(h, 0, sizeof(*h));
	if ((o = frame_object(f, n, why)) == NULL)
		return -1;
	if (!str_is(o, "t", "hello") || !keys_only(o, keys) ||
	    !int_in(cJSON_GetObjectItemCaseSensitive(o, "proto"), DECIDER_PROTO, DECIDER_PROTO,
		&proto) ||
	    !unique_strings(cJSON_GetObjectItemCaseSensitive(o, "allowedDomains"),
		decider_egress_entry, &h->allowed) ||
	    !unique_strings(cJSON_GetObjectItemCaseSensitive(o, "deniedDomains"),
		decider_egress_entry, &h->denied)) {
		snprintf(why, DECIDER_WHY_MAX, "bad hello");
		decider_hello_free(h);
		goto out;
	}
	rc = 0;
out:
	cJSON_Delete(o);
	return rc;
}

void
decider_hello_free(struct decider_hello *h)
{
	strlist_free(&h->allowed);
	strlist_free(&h->denied);
}

static bool
header_value_ok(const char *v)
{
	return !has_control(v, strlen(v));
}

/* setHeaders: a non-empty object of lower-case names to lists of values, within the
 * limits, none of them a header an allow may not set. */
static bool
parse_set_headers(const cJSON *o, struct decider_verdict *v)
{
	size_t entries = 0, bytes = 0;
	char fold[DECIDER_HEADER_BYTES + 1];

	if (!cJSON_IsObject(o) || o->child == NULL)
		return false;
	for (const cJSON *h = o->child; h != NULL; h = h->next) {
		size_t nvals = 0;

		if (!lower_token(h->string) || strlen(h->string) > DECIDER_HEADER_BYTES ||
		    !cJSON_IsArray(h))
			return false;
		decider_fold(h->string, strlen(h->string), fold);
		if (!decider_may_set(fold))
			return false;
		bytes += strlen(h->string);
		for (const cJSON *x = h->child; x != NULL; x = x->next) {
			if (!cJSON_IsString(x) || !header_value_ok(x->valuestring))
				return false;
			bytes += strlen(x->valuestring);
			strlist_push(&v->set_names, h->string);
			strlist_push(&v->set_values, x->valuestring);
			nvals++;
		}
		entries += nvals > 0 ? nvals : 1;
		if (entries > DECIDER_HEADERS_MAX || bytes > DECIDER_HEADER_BYTES)
			return false;
	}
	return true;
}

static bool
removable_name(const char *s)
{
	char fold[DECIDER_HEADER_BYTES + 1];
	size_t n = strlen(s);

	if (!lower_token(s) || n > DECIDER_HEADER_BYTES)
		return false;
	decider_fold(s, n, fold);
	return decider_may_remove(fold);
}

static bool
credential_ok(const char *s)
{
	size_t n = strlen(s);

	if (n < 1 || n > DECIDER_CREDENTIAL_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x21 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

static int
parse_allow(const cJSON *o, struct decider_verdict *v)
{
	static const char *const keys[] = { "t", "id", "action", "setHeaders", "removeHeaders",
		"cred", "credential", NULL };
	const cJSON *j;
	size_t bytes = 0;

	if (!keys_only(o, keys))
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "setHeaders")) != NULL &&
	    !parse_set_headers(j, v))
		return -1;
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "removeHeaders")) != NULL) {
		if (!unique_strings(j, removable_name, &v->remove) || v->remove.n == 0 ||
		    v->remove.n > DECIDER_HEADERS_MAX)
			return -1;
		for (size_t i = 0; i < v->remove.n; i++)
			bytes += strlen(v->remove.v[i]);
		if (bytes > DECIDER_HEADER_BYTES)
			return -1;
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "cred")) != NULL) {
		if (!cJSON_IsString(j) || j->valuestring[0] == '\0')
			return -1;
		v->cred = xstrdup(j->valuestring);
	}
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "credential")) != NULL) {
		if (!cJSON_IsString(j) || !credential_ok(j->valuestring))
			return -1;
		v->credential = xstrdup(j->valuestring);
	}
	if ((v->cred == NULL) != (v->credential == NULL))
		return -1;
	return 0;
}

static int
parse_deny(const cJSON *o, struct decider_verdict *v)
{
	static const char *const keys[] = { "t", "id", "action", "status", "reason", NULL };
	const cJSON *j;
	double st;

	if (!keys_only(o, keys) ||
	    !int_in(cJSON_GetObjectItemCaseSensitive(o, "status"), 400, 599, &st))
		return -1;
	v->status = (int)st;
	if ((j = cJSON_GetObjectItemCaseSensitive(o, "reason")) != NULL) {
		size_t n;

		if (!cJSON_IsString(j))
			return -1;
		n = strlen(j->valuestring);
		if (n == 0 || n > DECIDER_REASON_MAX || has_control(j->valuestring, n))
			return -1;
		v->reason = xstrdup(j->valuestring);
	}
	return 0;
}

int
decider_parse_verdict(const char *f, size_t n, struct decider_verdict *v, char *why)
{
	static const char *const nb_keys[] = { "t", "id", "action", "max", NULL };
	const cJSON *a;
	cJSON *o;
	double id, max;
	int rc = -1;

	memset(v, 0, sizeof(*v));
	if ((o = frame_object(f, n, why)) == NULL)
		return -1;
	a = cJSON_GetObjectItemCaseSensitive(o, "action");
	if (!str_is(o, "t", "verdict") || !cJSON_IsString(a) ||
	    !int_in(cJSON_GetObjectItemCaseSensitive(o, "id"), 1, (double)DECIDER_ID_MAX, &id))
		goto bad;
	v->id = (uint64_t)id;
	if (strcmp(a->valuestring, "allow") == 0) {
		v->action = DECIDER_ALLOW;
		if (parse_allow(o, v) != 0)
			goto bad;
	} else if (strcmp(a->valuestring, "deny") == 0) {
		v->action = DECIDER_DENY;
		if (parse_deny(o, v) != 0)
			goto bad;
	} else if (strcmp(a->valuestring, "need_body") == 0) {
		v->action = DECIDER_NEED_BODY;
		if (!keys_only(o, nb_keys) ||
		    !int_in(
			cJSON_GetObjectItemCaseSensitive(o, "max"), 1, DECIDER_BODY_MAX, &max))
			goto bad;
		v->max = (uint32_t)max;
	} else
		goto bad;
	rc = 0;
	goto out;
bad:
	snprintf(why, DECIDER_WHY_MAX, "bad verdict frame");
	decider_verdict_free(v);
out:
	cJSON_Delete(o);
	return rc;
}

void
decider_verdict_free(struct decider_verdict *v)
{
	strlist_free(&v->set_names);
	strlist_free(&v->set_values);
	strlist_free(&v->remove);
	free(v->reason);
	free(v->cred);
	free(v->credential);
	v->reason = v->cred = v->credential = NULL;
}

/* ---- egress entries -------------------------------------------------------------- */

static bool
port_text_ok(const char *s, size_t n)
{
	unsigned long v = 0;

	if (n == 0 || n > 5 || s[0] < '1' || s[0] > '9')
		return false;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= 65535;
}

static int
ip_kind(const char *s, size_t n)
{
	char tmp[64];
	unsigned char a[16];

	if (n == 0 || n >= sizeof(tmp))
		return 0;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	if (inet_pton(AF_INET, tmp, a) == 1)
		return 4;
	if (inet_pton(AF_INET6, tmp, a) == 1)
		return 6;
	return 0;
}

static bool
label_ok(const char *s, size_t n)
{
	if (n < 1 || n > 63 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') ||
			s[i] == '-'))
			return false;
	return true;
}

bool
decider_egress_entry(const char *s)
{
	size_t n = strlen(s), hl;
	const char *colon, *base, *p, *dot, *last = NULL;
	size_t labels = 0;
	bool wild;

	if (ip_kind(s, n) != 0)
		return true;
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || ip_kind(s + 1, (size_t)(rb - s - 1)) != 6)
			return false;
		if (rb[1] == '\0')
			return true;
		return rb[1] == ':' && port_text_ok(rb + 2, strlen(rb + 2));
	}
	hl = n;
	if ((colon = strrchr(s, ':')) != NULL) {
		if (!port_text_ok(colon + 1, strlen(colon + 1)))
			return false;
		hl = (size_t)(colon - s);
	}
	if (ip_kind(s, hl) != 0)
		return ip_kind(s, hl) == 4;
	wild = hl >= 2 && s[0] == '*' && s[1] == '.';
	base = wild ? s + 2 : s;
	hl -= wild ? 2 : 0;
	if (hl == 0 || hl > 253)
		return false;
	for (p = base; p < base + hl; p = dot + 1) {
		dot = memchr(p, '.', (size_t)(base + hl - p));
		if (dot == NULL)
			dot = base + hl;
		if (!label_ok(p, (size_t)(dot - p)))
			return false;
		last = p;
		labels++;
		if (dot == base + hl)
			break;
	}
	if (wild && labels < 2)
		return false;
	/* The last label starts with a letter: no spelling of an address passes as a name. */
	return last != NULL && *last >= 'a' && *last <= 'z';
}

/* ---- the proxy's frames ---------------------------------------------------------- */

/* Append the frame whose JSON is body[start..] in out: write its length before it. */
static void
frame_close(struct buf *out, size_t at)
{
	uint32_t n = (uint32_t)(out->len - at - 4);
	unsigned char *p = (unsigned char *)out->p + out->off + at;

	p[0] = (unsigned char)(n >> 24);
	p[1] = (unsigned char)(n >> 16);
	p[2] = (unsigned char)(n >> 8);
	p[3] = (unsigned char)n;
}

static size_t
frame_open(struct buf *out)
{
	size_t at = out->len;

	buf_add(out, "\0\0\0\0", 4);
	return at;
}

void
decider_encode_hello(struct buf *out)
{
	size_t at = frame_open(out);

	buf_addf(out, "{\"t\":\"hello\",\"proto\":%d}", DECIDER_PROTO);
	frame_close(out, at);
}

/* Well-formed UTF-8 (what the reference calls free of lone surrogates). */
static bool
utf8_ok(const char *s, size_t n)
{
	size_t i = 0, k;
	long cp;

	while (i < n) {
		k = utf8_decode((const unsigned char *)s + i, n - i, &cp);
		if (k == 0 || cp == UTF8_BAD)
			return false;
		i += k;
	}
	return true;
}

static bool
token_any_case(const char *s, size_t n)
{
	if (n == 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!is_tchar_lower(c) && !(c >= 'A' && c <= 'Z'))
			return false;
	}
	return true;
}

static void
add_lower_jstr(struct buf *out, const char *s, size_t n)
{
	char *l = xmalloc(n + 1);

	for (size_t i = 0; i < n; i++)
		l[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] - 'A' + 'a') : s[i];
	buf_add_jstr(out, l, n);
	free(l);
}

static bool
same_lower(const char *a, size_t an, const char *b, size_t bn)
{
	if (an != bn)
		return false;
	for (size_t i = 0; i < an; i++) {
		char x = a[i] >= 'A' && a[i] <= 'Z' ? (char)(a[i] - 'A' + 'a') : a[i];
		char y = b[i] >= 'A' && b[i] <= 'Z' ? (char)(b[i] - 'A' + 'a') : b[i];

		if (x != y)
			return false;
	}
	return true;
}

int
decider_encode_req(const struct decider_req *r, struct buf *out, const char **why)
{
	const char *opt[3] = { r->host_header, r->sni, r->path };
	size_t entries = 0, bytes = 0, at, i, j;
	bool first;

	*why = NULL;
	for (i = 0; i < r->nheaders; i++) {
		if (!token_any_case(r->hnames[i], r->hnamelen[i]) ||
		    has_control(r->hvalues[i], r->hvaluelen[i]) ||
		    !utf8_ok(r->hvalues[i], r->hvaluelen[i])) {
			*why = "request header the decider cannot be asked about";
			return -1;
		}
		/* A name counts once, its values each. */
		for (j = 0; j < i; j++)
			if (same_lower(
				r->hnames[i], r->hnamelen[i], r->hnames[j], r->hnamelen[j]))
				break;
		if (j == i)
			bytes += r->hnamelen[i];
		bytes += r->hvaluelen[i];
		entries++;
	}
	if (entries > DECIDER_HEADERS_MAX || bytes > DECIDER_HEADER_BYTES) {
		*why = "request headers too large";
		return -1;
	}
	if (r->method[0] == '\0' || r->host[0] == '\0' || r->path[0] == '\0' || r->port == 0) {
		*why = "request the decider cannot be asked about";
		return -1;
	}
	if (strlen(r->host) > DECIDER_HOSTPATH_MAX || strlen(r->path) > DECIDER_HOSTPATH_MAX ||
	    (opt[0] != NULL && strlen(opt[0]) > DECIDER_HOSTPATH_MAX) ||
	    (opt[1] != NULL && strlen(opt[1]) > DECIDER_HOSTPATH_MAX)) {
		*why = "request target too large";
		return -1;
	}
	for (i = 0; i < 3; i++)
		if (opt[i] != NULL && !utf8_ok(opt[i], strlen(opt[i]))) {
			*why = "request the decider cannot be asked about";
			return -1;
		}
	if (!utf8_ok(r->method, strlen(r->method)) || !utf8_ok(r->host, strlen(r->host)) ||
	    (r->query != NULL && !utf8_ok(r->query, strlen(r->query)))) {
		*why = "request the decider cannot be asked about";
		return -1;
	}
	at = frame_open(out);
	buf_addf(out, "{\"t\":\"req\",\"id\":%llu,\"method\":", (unsigned long long)r->id);
	buf_add_jstr(out, r->method, strlen(r->method));
	buf_adds(out, ",\"host\":");
	buf_add_jstr(out, r->host, strlen(r->host));
	buf_addf(out, ",\"port\":%u", r->port);
	if (r->host_header != NULL) {
		buf_adds(out, ",\"hostHeader\":");
		buf_add_jstr(out, r->host_header, strlen(r->host_header));
	}
	if (r->sni != NULL && r->sni[0] != '\0') {
		buf_adds(out, ",\"sni\":");
		buf_add_jstr(out, r->sni, strlen(r->sni));
	}
	buf_adds(out, ",\"path\":");
	buf_add_jstr(out, r->path, strlen(r->path));
	if (r->query != NULL && r->query[0] != '\0') {
		buf_adds(out, ",\"query\":");
		buf_add_jstr(out, r->query, strlen(r->query));
	}
	/* Values grouped under their name, names in the order they first came. */
	first = true;
	for (i = 0; i < r->nheaders; i++) {
		for (j = 0; j < i; j++)
			if (same_lower(
				r->hnames[i], r->hnamelen[i], r->hnames[j], r->hnamelen[j]))
				break;
		if (j < i)
			continue;
		buf_adds(out, first ? ",\"headers\":{" : ",");
		first = false;
		add_lower_jstr(out, r->hnames[i], r->hnamelen[i]);
		buf_adds(out, ":[");
		for (j = i; j < r->nheaders; j++) {
			if (!same_lower(
				r->hnames[i], r->hnamelen[i], r->hnames[j], r->hnamelen[j]))
				continue;
			if (j > i)
				buf_addc(out, ',');
			buf_add_jstr(out, r->hvalues[j], r->hvaluelen[j]);
		}
		buf_addc(out, ']');
	}
	if (!first)
		buf_addc(out, '}');
	buf_addc(out, '}');
	if (out->len - at - 4 > DECIDER_FRAME_MAX) {
		out->len = at;
		*why = "request too large for the decider";
		return -1;
	}
	frame_close(out, at);
	return 0;
}

void
decider_encode_body(struct buf *out, uint64_t id, const void *data, size_t len, bool cut)
{
	size_t at = frame_open(out);

	buf_addf(out, "{\"t\":\"body\",\"id\":%llu,\"data\":\"", (unsigned long long)id);
	buf_add_base64(out, data, len, false, true);
	buf_adds(out, cut ? "\",\"cut\":true}" : "\"}");
	frame_close(out, at);
}
