/*
 * The settings file (~/.srt-settings.json).
 *
 * Three passes. A strict RFC 8259 reader (json_strict.c) checks the bytes first, as the
 * reference's JSON.parse does, so every syntax error gets an exact line and column and
 * cJSON's leniencies never let through a file the reference rejects. cJSON then builds
 * the tree. Last, the tree is checked against the reference's schema (sandbox-config.js)
 * with srt's differences (SPEC §3): unknown and duplicate keys and the fields srt does not
 * implement yet are errors, the keys that only configure the reference's own helpers are
 * accepted with a warning. Every problem is reported; nothing is accepted in part.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "cred.h"
#include "cred_rx.h"
#include "glob.h"
#include "json_strict.h"
#include "jsregex.h"
#include "managed.h"
#include "path.h"
#include "settings.h"
#include "sys_file.h"
#include "upstream.h"

#define QUOTE_MAX 80   /* bytes of a value shown in a message */
#define SUGGEST_MAX 64 /* longest key we look for a close spelling of */
#define MAX_ERRORS 500 /* problems reported one by one; the rest are counted */

static bool
text_blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (strchr(" \t\n\r\v\f", text[i]) == NULL || text[i] == '\0')
			return false;
	return true;
}

/* ------------------------------------------------------------------------------------ */
/* Text helpers */

/* s as a JSON string; at most max bytes of it (cut at a character boundary), then "...". */
static void
sb_jstr(struct buf *b, const char *s, size_t max)
{
	size_t n = strlen(s);
	bool cut = false;

	if (n > max) {
		n = max;
		while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		cut = true;
	}
	buf_add_jstr(b, s, n);
	if (cut)
		buf_add(b, "...", 3);
}

/* A value quoted for a message: escaped, so that control characters never reach a
 * terminal, and shortened. Caller frees. */
static char *
quote(const char *s)
{
	struct buf b = { 0 };

	sb_jstr(&b, s, QUOTE_MAX);
	return buf_steal(&b);
}

/* A name as C spells one: letters, digits and '_', not starting with a digit. */
static bool
is_ident(const char *s)
{
	static const char first[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";
	size_t n = strlen(s);

	return n > 0 && n <= SUGGEST_MAX && strchr(first, s[0]) != NULL &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") == n;
}

/* "network.allowedDomains", or network.deniedDomainReasons["github.com:22"] for a key
 * that is not a plain name. The root's path is "". */
static char *
path_key(const char *parent, const char *key)
{
	char *q, *r;

	if (is_ident(key))
		return *parent ? xasprintf("%s.%s", parent, key) : xstrdup(key);
	q = quote(key);
	r = xasprintf("%s[%s]", parent, q);
	free(q);
	return r;
}

static char *
path_index(const char *parent, size_t i)
{
	return xasprintf("%s[%zu]", parent, i);
}

/* What a JSON value is, for "expected X, got Y". */
static char *
jdescribe(const cJSON *j)
{
	char *q, *r;

	if (cJSON_IsString(j)) {
		q = quote(j->valuestring);
		r = xasprintf("the string %s", q);
		free(q);
		return r;
	}
	if (cJSON_IsNumber(j))
		return xasprintf("the number %.15g", j->valuedouble);
	if (cJSON_IsTrue(j))
		return xstrdup("true");
	if (cJSON_IsFalse(j))
		return xstrdup("false");
	if (cJSON_IsNull(j))
		return xstrdup("null");
	if (cJSON_IsArray(j))
		return xstrdup("an array");
	if (cJSON_IsObject(j))
		return xstrdup("an object");
	return xstrdup("an unknown value");
}

/* ------------------------------------------------------------------------------------ */
/* Schema walking */

struct pctx {
	const char *fname;
	struct settings *s; /* where BOOL and INT rows go */
	struct diags *errs;
	struct diags *warns;
	size_t nerr;
	size_t nwarn;
	const cJSON *cred; /* the credentials object, for the checks across keys */
	bool allowed_bad;  /* network.allowedDomains had a problem */
	bool managed;      /* the managed file: its own root fields are allowed */
};

static void perr(struct pctx *, const char *, const char *, ...) SRT_PRINTF(3, 4);
static void pwarn(struct pctx *, const char *, const char *, ...) SRT_PRINTF(3, 4);

static void
pmsg(struct pctx *c, struct diags *d, const char *path, const char *fmt, va_list ap)
{
	char *msg;

	if (vasprintf(&msg, fmt, ap) == -1)
		fatalx("out of memory");
	diags_add(d, "%s: %s: %s", c->fname, *path ? path : "(root)", msg);
	free(msg);
}

static void
perr(struct pctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;

	/* Past a few hundred lines nobody reads on; a hostile 16 MiB file must not turn
	 * into gigabytes of messages. The rest are counted. */
	if (c->nerr++ >= MAX_ERRORS)
		return;
	va_start(ap, fmt);
	pmsg(c, c->errs, path, fmt, ap);
	va_end(ap);
}

static void
pwarn(struct pctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;

	if (c->warns == NULL || c->nwarn++ >= MAX_ERRORS)
		return;
	va_start(ap, fmt);
	pmsg(c, c->warns, path, fmt, ap);
	va_end(ap);
}

/* "expected WHAT, got DESCRIPTION" */
static void
perr_type(struct pctx *c, const char *path, const char *what, const cJSON *j)
{
	char *d = jdescribe(j);

	perr(c, path, "expected %s, got %s", what, d);
	free(d);
}

#define MAX_FIELDS 32

typedef void (*field_fn)(struct pctx *, int, const cJSON *, const char *, void *);

static void get_bool(struct pctx *, const cJSON *, const char *, bool *);
static void get_int(struct pctx *, const cJSON *, const char *, int, int, int *);

/* Optimal string alignment distance, ignoring case; keys are short (SUGGEST_MAX). */
static size_t
key_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d[SUGGEST_MAX + 1][SUGGEST_MAX + 1];
	size_t i, j, cost, v;

	for (i = 0; i <= la; i++)
		d[i][0] = i;
	for (j = 0; j <= lb; j++)
		d[0][j] = j;
	for (i = 1; i <= la; i++) {
		for (j = 1; j <= lb; j++) {
			cost = (a[i - 1] | 0x20) == (b[j - 1] | 0x20) ? 0 : 1;
			v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

static void
perr_unknown(
    struct pctx *c, const char *path, const char *key, const struct settings_key *f, size_t nf)
{
	const char *best = NULL;
	size_t bestd = SIZE_MAX, dist, limit, i;
	struct buf list = { 0 };

	if (strlen(key) <= SUGGEST_MAX) {
		for (i = 0; i < nf; i++) {
			if (strlen(f[i].name) > SUGGEST_MAX)
				continue;
			dist = key_distance(key, f[i].name);
			limit = strlen(f[i].name) / 4;
			limit = limit < 1 ? 1 : limit > 3 ? 3 : limit;
			if (dist <= limit && dist < bestd) {
				best = f[i].name;
				bestd = dist;
			}
		}
	}
	if (best != NULL) {
		perr(c, path, "unknown key; did you mean \"%s\"?", best);
		return;
	}
	for (i = 0; i < nf; i++) {
		if ((f[i].flags & SETTINGS_UNSUPPORTED) ||
		    ((f[i].flags & SETTINGS_MANAGED) && !c->managed))
			continue;
		if (list.len)
			buf_adds(&list, ", ");
		buf_adds(&list, f[i].name);
	}
	perr(c, path, "unknown key; the keys allowed here are: %s",
	    list.len ? buf_str(&list) : "none");
	buf_free(&list);
}

/* A BOOL or INT row: the value goes straight to its member of the settings. */
static void
get_option(struct pctx *c, const struct settings_key *k, const cJSON *j, const char *path)
{
	bool b;
	int v;

	if (k->kind == SETTINGS_BOOL) {
		b = settings_bool(c->s, k);
		get_bool(c, j, path, &b);
		settings_set_bool(c->s, k, b);
	} else {
		v = settings_int(c->s, k);
		get_int(c, j, path, k->lo, k->hi, &v);
		settings_set_int(c->s, k, v);
	}
}

/*
 * Check the members of obj against its schema: unknown, repeated, unsupported and missing
 * required keys are reported here, BOOL and INT rows read here; fn is called for every
 * other member, in file order. Returns -1 if obj is not an object at all.
 */
static int
obj_walk(struct pctx *c, const cJSON *obj, const char *path, const char *what,
    const struct settings_key *f, size_t nf, field_fn fn, void *arg)
{
	bool seen[MAX_FIELDS] = { false };
	const cJSON *m;
	size_t i, before;
	char *p;

	if (!cJSON_IsObject(obj)) {
		perr_type(c, path, what, obj);
		return -1;
	}
	for (m = obj->child; m != NULL; m = m->next) {
		p = path_key(path, m->string);
		for (i = 0; i < nf; i++)
			if (strcmp(f[i].name, m->string) == 0)
				break;
		if (i == nf)
			perr_unknown(c, p, m->string, f, nf);
		else if (seen[i])
			perr(c, p,
			    "the key appears more than once; a security policy must "
			    "not be ambiguous, keep only one");
		else if ((f[i].flags & SETTINGS_MANAGED) && !c->managed) {
			seen[i] = true;
			perr(c, p, "only the managed policy file (%s) may set this; remove it",
			    managed_path);
		} else if (f[i].flags & SETTINGS_UNSUPPORTED) {
			seen[i] = true;
			perr(c, p,
			    "%s is not supported yet (%s); remove it: srt does not "
			    "silently ignore a setting that changes what is enforced",
			    p, f[i].note);
		} else if (f[i].kind != SETTINGS_VALUE) {
			seen[i] = true;
			get_option(c, &f[i], m, p);
		} else {
			seen[i] = true;
			before = c->nerr;
			fn(c, (int)i, m, p, arg);
			if ((f[i].flags & (SETTINGS_HELPER | SETTINGS_CALLBACK)) &&
			    c->nerr == before)
				pwarn(c, p, "accepted and ignored: %s", f[i].note);
		}
		free(p);
	}
	for (i = 0; i < nf; i++) {
		if ((f[i].flags & SETTINGS_REQUIRED) && !seen[i]) {
			p = path_key(path, f[i].name);
			perr(c, p, "required field is missing; %s", f[i].note);
			free(p);
		}
	}
	return 0;
}

/* obj_walk over one of the schema's objects. */
static int
obj_walk_schema(struct pctx *c, const cJSON *obj, const char *path, const char *what,
    const struct settings_object *o, field_fn fn, void *arg)
{
	return obj_walk(c, obj, path, what, o->keys, o->nkeys, fn, arg);
}

static int
cmp_member(const void *a, const void *b)
{
	const cJSON *x = *(const cJSON *const *)a, *y = *(const cJSON *const *)b;
	int r = strcmp(x->string, y->string);

	if (r != 0)
		return r;
	return x < y ? -1 : x > y;
}

/* Report keys that appear more than once in an object whose keys are free-form
 * (deniedDomainReasons, ignoreViolations). JSON.parse would silently keep the last. */
static void
obj_dups(struct pctx *c, const cJSON *obj, const char *path)
{
	const cJSON *m, **v;
	size_t n = 0, i;
	char *p;

	for (m = obj->child; m != NULL; m = m->next)
		n++;
	if (n < 2)
		return;
	v = xcalloc(n, sizeof(*v));
	n = 0;
	for (m = obj->child; m != NULL; m = m->next)
		v[n++] = m;
	qsort(v, n, sizeof(*v), cmp_member);
	for (i = 1; i < n; i++) {
		if (strcmp(v[i - 1]->string, v[i]->string) != 0)
			continue;
		if (i >= 2 && strcmp(v[i - 2]->string, v[i]->string) == 0)
			continue; /* reported once per key */
		p = path_key(path, v[i]->string);
		perr(c, p,
		    "the key appears more than once; a security policy must not be "
		    "ambiguous, keep only one");
		free(p);
	}
	free(v);
}

static size_t
arr_size(const cJSON *a)
{
	size_t n = 0;

	for (const cJSON *e = a->child; e != NULL; e = e->next)
		n++;
	return n;
}

/* ------------------------------------------------------------------------------------ */
/* Values */

static void
get_bool(struct pctx *c, const cJSON *j, const char *path, bool *dst)
{
	if (!cJSON_IsBool(j)) {
		perr_type(c, path, "true or false", j);
		return;
	}
	*dst = cJSON_IsTrue(j);
}

static void
get_int(struct pctx *c, const cJSON *j, const char *path, int lo, int hi, int *dst)
{
	double d;
	char *what = xasprintf("an integer from %d to %d", lo, hi);

	if (!cJSON_IsNumber(j)) {
		perr_type(c, path, what, j);
		goto out;
	}
	d = j->valuedouble;
	if (!isfinite(d) || d != floor(d) || d < lo || d > hi) {
		perr_type(c, path, what, j);
		goto out;
	}
	*dst = (int)d;
out:
	free(what);
}

/* An array of strings (any strings). */
static int
get_strlist(struct pctx *c, const cJSON *j, const char *path, struct strlist *dst)
{
	struct strlist l = { 0 };
	size_t before = c->nerr, i = 0;
	const cJSON *e;
	char *p;

	if (!cJSON_IsArray(j)) {
		perr_type(c, path, "an array of strings", j);
		return -1;
	}
	for (e = j->child; e != NULL; e = e->next, i++) {
		if (!cJSON_IsString(e)) {
			p = path_index(path, i);
			perr_type(c, p, "a string", e);
			free(p);
			continue;
		}
		strlist_push(&l, e->valuestring);
	}
	if (c->nerr != before) {
		strlist_free(&l);
		return -1;
	}
	strlist_free(dst);
	*dst = l;
	return 0;
}

static int
get_string(struct pctx *c, const cJSON *j, const char *path, bool nonempty)
{
	if (!cJSON_IsString(j)) {
		perr_type(c, path, nonempty ? "a non-empty string" : "a string", j);
		return -1;
	}
	if (nonempty && j->valuestring[0] == '\0') {
		perr(c, path, "the string is empty");
		return -1;
	}
	return 0;
}

/*
 * One of the strings of a NULL-terminated list; its index in *dst when dst is not NULL.
 * The message lists them: "expected \"a\", \"b\" or \"c\", got ...".
 */
static int
get_enum(struct pctx *c, const cJSON *j, const char *path, const char *const *names, int *dst)
{
	struct buf what = { 0 };
	size_t i, n;

	for (i = 0; names[i] != NULL; i++)
		if (cJSON_IsString(j) && strcmp(j->valuestring, names[i]) == 0) {
			if (dst != NULL)
				*dst = (int)i;
			return 0;
		}
	for (n = i, i = 0; i < n; i++)
		buf_addf(&what, "%s\"%s\"", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
	perr_type(c, path, buf_str(&what), j);
	buf_free(&what);
	return -1;
}

static const char *const ambiguous_targets[] = { "refuse", "asSpelled", "normalize", NULL };

/* bwrapPath, socatPath, javaAgentJarPath: an override of a binary, which must not be
 * found through PATH or the working directory. */
static int
get_binary_path(struct pctx *c, const cJSON *j, const char *path)
{
	char *q;

	if (!cJSON_IsString(j)) {
		perr_type(c, path, "an absolute path such as \"/usr/bin/bwrap\"", j);
		return -1;
	}
	if (j->valuestring[0] == '\0') {
		perr(c, path,
		    "the path is empty; write an absolute path such as "
		    "\"/usr/bin/bwrap\", or leave the key out");
		return -1;
	}
	if (j->valuestring[0] != '/') {
		q = quote(j->valuestring);
		perr(c, path,
		    "%s is not an absolute path; write one that starts with \"/\" "
		    "(a relative name would be looked up through PATH or the working "
		    "directory)",
		    q);
		free(q);
		return -1;
	}
	return 0;
}

static void
get_domains(struct pctx *c, const cJSON *j, const char *path, int deny, struct dom_rule **out,
    size_t *nout)
{
	struct dom_rule *v, r;
	const cJSON *e;
	const char *why;
	size_t n = 0, i = 0;
	char *p, *q;

	if (!cJSON_IsArray(j)) {
		perr_type(c, path,
		    deny ? "an array of domain entries such as "
			   "[\"evil.example.com\", \"*:22\"]"
			 : "an array of domain entries such as "
			   "[\"github.com\", \"*.npmjs.org:443\"]",
		    j);
		return;
	}
	v = xcalloc(arr_size(j), sizeof(*v));
	for (e = j->child; e != NULL; e = e->next, i++) {
		p = path_index(path, i);
		if (!cJSON_IsString(e))
			perr_type(c, p, "a domain entry string", e);
		else if (dom_entry_parse(e->valuestring, deny, &r, &why) == -1) {
			q = quote(e->valuestring);
			perr(c, p, "%s: %s", q, why);
			free(q);
		} else
			v[n++] = r;
		free(p);
	}
	*out = v;
	*nout = n;
}

static void
get_addrs(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	const cJSON *e;
	const char *why;
	size_t i = 0;
	char *p, *q;

	if (!cJSON_IsArray(j)) {
		perr_type(c, path,
		    "an array of addresses or CIDR ranges such as "
		    "[\"10.0.0.0/8\", \"fc00::/7\"]",
		    j);
		return;
	}
	s->net.denied_addrs = xcalloc(arr_size(j), sizeof(*s->net.denied_addrs));
	for (e = j->child; e != NULL; e = e->next, i++) {
		p = path_index(path, i);
		if (!cJSON_IsString(e))
			perr_type(c, p, "an address or CIDR range string", e);
		else if (addr_range_parse(e->valuestring,
			     &s->net.denied_addrs[s->net.ndenied_addrs], &why) == -1) {
			q = quote(e->valuestring);
			perr(c, p, "%s: %s", q, why);
			free(q);
		} else
			s->net.ndenied_addrs++;
		free(p);
	}
}

static void
get_reasons(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	struct reason_entry *r;
	const cJSON *m;
	char *p;

	if (!cJSON_IsObject(j)) {
		perr_type(c, path,
		    "an object mapping a deniedDomains entry to a reason, "
		    "e.g. {\"github.com:22\": \"SSH is blocked; use https\"}",
		    j);
		return;
	}
	obj_dups(c, j, path);
	s->net.reasons = xcalloc(arr_size(j), sizeof(*s->net.reasons));
	for (m = j->child; m != NULL; m = m->next) {
		p = path_key(path, m->string);
		if (!cJSON_IsString(m))
			perr_type(c, p, "a reason string", m);
		else if (m->valuestring[0] == '\0')
			perr(c, p,
			    "the reason is empty; say why the entry is denied, or "
			    "remove the key to use the default reason");
		else {
			r = &s->net.reasons[s->net.nreasons++];
			r->entry = xstrdup(m->string);
			r->reason = xstrdup(m->valuestring);
		}
		free(p);
	}
}

static void
get_mach(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	const char *star;
	size_t i = 0;
	const cJSON *e;
	char *p, *q;

	if (get_strlist(c, j, path, &s->net.allow_mach_lookup) == -1)
		return;
	for (e = j->child; e != NULL; e = e->next, i++) {
		star = strchr(e->valuestring, '*');
		if (star == NULL || star[1] == '\0')
			continue;
		p = path_index(path, i);
		q = quote(e->valuestring);
		perr(c, p,
		    "%s: \"*\" is only allowed once, as the last character "
		    "(e.g. \"com.example.*\", or \"*\" for every service)",
		    q);
		free(q);
		free(p);
	}
}

/* ------------------------------------------------------------------------------------ */
/* parentProxy, mitmProxy, stripResponseHeaders (upstream.h) */

enum {
	PP_HTTP,
	PP_HTTPS,
	PP_NO_PROXY,
	PP_COUNT
};
static const struct settings_key parent_fields[PP_COUNT] = {
	[PP_HTTP] = { "http", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[PP_HTTPS] = { "https", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[PP_NO_PROXY] = { "noProxy", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

/* A proxy URL for a message: a password in it becomes "***" (the messages of a file
 * may end up in a log). Caller frees. */
static char *
quote_url(const char *url)
{
	const char *auth = strstr(url, "://"), *end, *at = NULL, *colon;
	char *red, *q;

	auth = auth != NULL ? auth + 3 : url;
	end = auth + strcspn(auth, "/?#");
	for (const char *p = auth; p < end; p++)
		if (*p == '@')
			at = p;
	colon = at != NULL ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (colon == NULL)
		return quote(url);
	red = xasprintf("%.*s:***%s", (int)(colon - url), url, at);
	q = quote(red);
	free(red);
	return q;
}

static void
get_proxy_url(struct pctx *c, const cJSON *j, const char *path, char **dst)
{
	const char *why;
	char *q;

	if (!cJSON_IsString(j)) {
		perr_type(c, path, "a proxy URL such as \"http://proxy.example.com:3128\"", j);
		return;
	}
	q = quote_url(j->valuestring);
	switch (proxy_url_check_setting(j->valuestring, &why)) {
	case PROXY_URL_BAD:
		perr(c, path, "%s: %s", q, why);
		free(q);
		return;
	case PROXY_URL_IGNORED:
		pwarn(c, path, "%s: %s", q, why);
		break;
	case PROXY_URL_OK:
		break;
	}
	free(q);
	*dst = xstrdup(j->valuestring);
}

static void
parent_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings_parent *pp = arg;
	struct no_proxy np;
	struct strlist ignored = { 0 };

	switch (idx) {
	case PP_HTTP:
		get_proxy_url(c, j, path, &pp->http);
		break;
	case PP_HTTPS:
		get_proxy_url(c, j, path, &pp->https);
		break;
	case PP_NO_PROXY:
		if (get_string(c, j, path, false) != 0)
			break;
		/* The reference drops an entry with a '/' that is not a range: say so. */
		no_proxy_parse(j->valuestring, &np, &ignored);
		for (size_t i = 0; i < ignored.n; i++) {
			char *q = quote(ignored.v[i]);

			pwarn(c, path,
			    "%s is not an address range such as \"10.0.0.0/8\"; it "
			    "is ignored",
			    q);
			free(q);
		}
		strlist_free(&ignored);
		no_proxy_free(&np);
		pp->no_proxy = xstrdup(j->valuestring);
		break;
	}
}

enum {
	MP_SOCKET,
	MP_DOMAINS,
	MP_COUNT
};
static const struct settings_key mitm_fields[MP_COUNT] = {
	[MP_SOCKET] = { "socketPath", SETTINGS_REQUIRED,
	    "add \"socketPath\": \"/path/to/"
	    "proxy.sock\", the Unix socket the inspection proxy listens on",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[MP_DOMAINS] = { "domains", SETTINGS_REQUIRED,
	    "add \"domains\": [\"api.example."
	    "com\"], the hosts to send through it",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static void
mitm_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings_mitm *m = arg;
	const cJSON *e;
	const char *why;
	size_t i = 0;
	char *p, *q;

	switch (idx) {
	case MP_SOCKET:
		if (get_string(c, j, path, true) == 0)
			m->socket_path = xstrdup(j->valuestring);
		break;
	case MP_DOMAINS:
		if (get_strlist(c, j, path, &m->domains) != 0)
			break;
		if (m->domains.n == 0)
			perr(c, path,
			    "the list is empty; name at least one host to send through "
			    "the inspection proxy, or remove mitmProxy");
		for (e = j->child; e != NULL; e = e->next, i++) {
			if (mitm_pattern_check(e->valuestring, &why) == 0)
				continue;
			p = path_index(path, i);
			q = quote(e->valuestring);
			perr(c, p, "%s: %s", q, why);
			free(q);
			free(p);
		}
		break;
	}
}

static void
get_strip_headers(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	const cJSON *e;
	size_t i = 0;
	char *p;

	if (get_strlist(c, j, path, &s->net.strip_headers) != 0)
		return;
	for (e = j->child; e != NULL; e = e->next, i++) {
		if (e->valuestring[0] != '\0')
			continue;
		p = path_index(path, i);
		perr(c, p, "the header name is empty");
		free(p);
	}
}

/* ------------------------------------------------------------------------------------ */
/* tlsTerminate (issue #14) */

enum {
	TT_CA_CERT,
	TT_CA_KEY,
	TT_EXCLUDE,
	TT_EXTRA_CA,
	TT_MAX_TUNNELS,
	TT_HANDSHAKE,
	TT_COUNT
};
static const struct settings_key tls_fields[TT_COUNT] = {
	[TT_CA_CERT] = { "caCertPath", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[TT_CA_KEY] = { "caKeyPath", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[TT_EXCLUDE] = { "excludeDomains", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[TT_EXTRA_CA] = { "extraCaCertPaths", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[TT_MAX_TUNNELS] = { "maxTunnels", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[TT_HANDSHAKE] = { "handshakeTimeoutMs", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static void
tls_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings_tls *t = arg;
	const cJSON *e;
	const char *why;
	size_t i = 0;
	char *p, *q;

	switch (idx) {
	case TT_CA_CERT:
		if (get_string(c, j, path, true) == 0)
			t->ca_cert_path = xstrdup(j->valuestring);
		break;
	case TT_CA_KEY:
		if (get_string(c, j, path, true) == 0)
			t->ca_key_path = xstrdup(j->valuestring);
		break;
	case TT_EXCLUDE:
		if (get_strlist(c, j, path, &t->exclude_domains) != 0)
			break;
		for (e = j->child; e != NULL; e = e->next, i++) {
			if (mitm_pattern_check(e->valuestring, &why) == 0)
				continue;
			p = path_index(path, i);
			q = quote(e->valuestring);
			perr(c, p, "%s: %s", q, why);
			free(q);
			free(p);
		}
		break;
	case TT_EXTRA_CA:
		if (get_strlist(c, j, path, &t->extra_ca_paths) != 0)
			break;
		for (e = j->child; e != NULL; e = e->next, i++) {
			if (e->valuestring[0] != '\0')
				continue;
			p = path_index(path, i);
			perr(c, p, "the path is empty");
			free(p);
		}
		break;
	case TT_MAX_TUNNELS:
		get_int(c, j, path, TLS_MAX_TUNNELS_LO, TLS_MAX_TUNNELS_HI, &t->max_tunnels);
		break;
	case TT_HANDSHAKE:
		get_int(c, j, path, TLS_HANDSHAKE_MS_LO, TLS_HANDSHAKE_MS_HI,
		    &t->handshake_timeout_ms);
		break;
	}
}

static void
get_tls(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	struct settings_tls *t = &s->net.tls;

	if (obj_walk(c, j, path,
		"an object such as {} (an ephemeral CA) or {\"caCertPath\": "
		"\"/etc/srt/ca.pem\", \"caKeyPath\": \"/etc/srt/ca.key\"}",
		tls_fields, TT_COUNT, tls_field, t) != 0)
		return;
	t->present = true;
	if ((cJSON_GetObjectItemCaseSensitive(j, "caCertPath") != NULL) !=
	    (cJSON_GetObjectItemCaseSensitive(j, "caKeyPath") != NULL))
		perr(c, path,
		    "caCertPath and caKeyPath must be provided together: give both "
		    "(your own CA), or neither (an ephemeral CA made for each run)");
}

/* ------------------------------------------------------------------------------------ */
/* Filesystem entries */

enum {
	PE_PATH,
	PE_LITERAL,
	PE_COUNT
};
static const struct settings_key pe_fields[PE_COUNT] = {
	[PE_PATH] = { "path", SETTINGS_REQUIRED, "add \"path\": \"/some/path\"", SETTINGS_VALUE,
	    0, 0, 0, 0, 0 },
	[PE_LITERAL] = { "literal", SETTINGS_REQUIRED,
	    "add \"literal\": true, or write the "
	    "path as a plain string to have it read as a pattern",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static void
pe_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	const char **pathp = arg;

	switch (idx) {
	case PE_PATH:
		if (!cJSON_IsString(j))
			perr_type(c, path, "a path string", j);
		else if (j->valuestring[0] == '\0')
			perr(c, path, "the path is empty");
		else
			*pathp = j->valuestring;
		break;
	case PE_LITERAL:
		if (cJSON_IsFalse(j))
			perr(c, path,
			    "\"literal\" can only be true; write the path as a plain "
			    "string to have it read as a pattern");
		else if (!cJSON_IsTrue(j))
			perr_type(c, path, "true", j);
		break;
	}
}

/* A deny glob that ends in "/" can match no path (the reference rejects it): only rooted
 * spellings keep the separator until the backend, relative ones are normalised. */
static void
check_deny_glob(struct pctx *c, const char *v, const char *path)
{
	size_t n = strlen(v);
	char *q, *fixed, *qf;

	if (n == 0 || v[n - 1] != '/' || !glob_has_magic(v) || (v[0] != '/' && v[0] != '~'))
		return;
	while (n > 0 && v[n - 1] == '/')
		n--;
	fixed = xstrndup(v, n);
	q = quote(v);
	qf = quote(fixed);
	perr(c, path,
	    "deny glob %s ends in \"/\", so as a pattern it can match no path; "
	    "write %s (also read as the path of that name where it exists), or add a "
	    "\"**\" segment to match at any depth",
	    q, qf);
	free(qf);
	free(q);
	free(fixed);
}

/* An entry taken as written that would protect, or open, another path than meant
 * (path_slip): refused, naming the literal form for a name that really is spelt so. */
static int
check_path_slip(struct pctx *c, const char *path, const char *v)
{
	const char *why = path_slip(v);
	char *q;

	if (why == NULL)
		return 0;
	q = quote(v);
	perr(c, path,
	    "%s: %s; if a name really is spelt so, write {\"path\": %s, "
	    "\"literal\": true}",
	    q, why, q);
	free(q);
	return -1;
}

/* A spelling this system's plan cannot take (path_refusal; on Windows UNC and device
 * paths, streams, names Windows strips or aliases): refused by name, not mis-planned. */
static int
check_path_syntax(struct pctx *c, const char *path, const char *v)
{
	const char *why = path_refusal(v);
	char *q;

	if (why == NULL)
		return 0;
	q = quote(v);
	perr(c, path, "%s is not a path srt takes on this system: %s", q, why);
	free(q);
	return -1;
}

static void
get_paths(
    struct pctx *c, const cJSON *j, const char *path, bool deny_check, struct path_list *out)
{
	const char *lit;
	const cJSON *e;
	size_t i = 0, before;
	char *p;

	if (!cJSON_IsArray(j)) {
		perr_type(c, path, "an array of paths", j);
		return;
	}
	out->v = xcalloc(arr_size(j), sizeof(*out->v));
	for (e = j->child; e != NULL; e = e->next, i++) {
		p = path_index(path, i);
		if (cJSON_IsString(e)) {
			if (e->valuestring[0] == '\0')
				perr(c, p, "the path is empty");
			else if (check_path_slip(c, p, e->valuestring) == 0 &&
			    check_path_syntax(c, p, e->valuestring) == 0) {
				if (deny_check)
					check_deny_glob(c, e->valuestring, p);
				out->v[out->n].path = xstrdup(e->valuestring);
				out->v[out->n++].literal = false;
			}
		} else if (cJSON_IsObject(e)) {
			lit = NULL;
			before = c->nerr;
			obj_walk(c, e, p, "a path entry", pe_fields, PE_COUNT, pe_field, &lit);
			if (c->nerr == before && lit != NULL &&
			    check_path_syntax(c, p, lit) == 0) {
				out->v[out->n].path = xstrdup(lit);
				out->v[out->n++].literal = true;
			}
		} else
			perr_type(c, p, "a path, or {\"path\": \"...\", \"literal\": true}", e);
		free(p);
	}
}

struct fs_arg {
	struct settings *s;
	bool enforced; /* deny globs are checked only when enforced */
};

static void
fs_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct fs_arg *a = arg;
	struct settings *s = a->s;

	switch (idx) {
	case SF_denyRead:
		get_paths(c, j, path, a->enforced, &s->fs.deny_read);
		break;
	case SF_allowRead:
		get_paths(c, j, path, false, &s->fs.allow_read);
		break;
	case SF_allowWrite:
		get_paths(c, j, path, false, &s->fs.allow_write);
		break;
	case SF_denyWrite:
		get_paths(c, j, path, a->enforced, &s->fs.deny_write);
		break;
	}
}

static void
get_filesystem(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	struct fs_arg a = { s, true };

	/* The reference skips the deny-glob check when enforcement is off. */
	if (cJSON_IsObject(j))
		a.enforced = !cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "disabled"));
	obj_walk_schema(c, j, path, "an object with denyRead, allowWrite and denyWrite",
	    &settings_filesystem, fs_field, &a);
}

/* ------------------------------------------------------------------------------------ */
/* network */

static void
net_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;
	size_t before;

	switch (idx) {
	case SN_allowedDomains:
		before = c->nerr;
		get_domains(c, j, path, 0, &s->net.allowed, &s->net.nallowed);
		c->allowed_bad = c->nerr != before;
		break;
	case SN_deniedDomains:
		get_domains(c, j, path, 1, &s->net.denied, &s->net.ndenied);
		break;
	case SN_deniedDomainReasons:
		get_reasons(c, j, path, s);
		break;
	case SN_deniedResolvedAddresses:
		get_addrs(c, j, path, s);
		break;
	case SN_allowUnixSockets:
		get_strlist(c, j, path, &s->net.allow_unix_sockets);
		break;
	case SN_allowMachLookup:
		get_mach(c, j, path, s);
		break;
	case SN_parentProxy:
		if (obj_walk(c, j, path,
			"an object such as {\"https\": \"http://proxy.example."
			"com:3128\", \"noProxy\": \"localhost,.internal\"}",
			parent_fields, PP_COUNT, parent_field, &s->net.parent) == 0)
			s->net.parent.present = true;
		break;
	case SN_mitmProxy:
		if (obj_walk(c, j, path,
			"an object such as {\"socketPath\": \"/run/inspect."
			"sock\", \"domains\": [\"api.example.com\"]}",
			mitm_fields, MP_COUNT, mitm_field, &s->net.mitm) == 0)
			s->net.mitm.present = true;
		break;
	case SN_stripResponseHeaders:
		get_strip_headers(c, j, path, s);
		break;
	case SN_tlsTerminate:
		get_tls(c, j, path, s);
		break;
	case SN_filterRequest:
		/* The reference wants a JavaScript function here, which JSON cannot hold. */
		perr(c, path,
		    "filterRequest must be a function: only a program embedding "
		    "the reference library can set it, a settings file cannot; remove it");
		break;
	case SN_ambiguousRequestTarget:
		get_enum(c, j, path, ambiguous_targets, NULL);
		break;
	}
}

/* ------------------------------------------------------------------------------------ */
/* The reference's helper keys: validated as it does, then ignored. */

enum {
	RG_COMMAND,
	RG_ARGS,
	RG_ARGV0,
	RG_COUNT
};
static const struct settings_key rg_fields[RG_COUNT] = {
	[RG_COMMAND] = { "command", SETTINGS_REQUIRED, "add \"command\": \"rg\"",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[RG_ARGS] = { "args", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[RG_ARGV0] = { "argv0", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

enum {
	SC_APPLY,
	SC_ARGV0,
	SC_COUNT
};
static const struct settings_key sc_fields[SC_COUNT] = {
	[SC_APPLY] = { "applyPath", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[SC_ARGV0] = { "argv0", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static void
rg_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct strlist tmp = { 0 };

	(void)arg;
	if (idx == RG_ARGS) {
		get_strlist(c, j, path, &tmp);
		strlist_free(&tmp);
	} else
		get_string(c, j, path, false);
}

static void
sc_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	(void)idx;
	(void)arg;
	get_string(c, j, path, false);
}

enum {
	G_SAFE,
	G_COUNT
};
static const struct settings_key git_fields[G_COUNT] = {
	[G_SAFE] = { "safeDirectories", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static void
git_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;

	if (idx == G_SAFE)
		get_strlist(c, j, path, &s->git_safe_dirs);
}

/* ------------------------------------------------------------------------------------ */
/* ignoreViolations */

static void
get_ignore(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	struct ignore_entry *e;
	const cJSON *m;
	char *p;

	if (!cJSON_IsObject(j)) {
		perr_type(c, path,
		    "an object mapping a command pattern to paths, e.g. "
		    "{\"npm\": [\"/tmp\"], \"*\": [\"/usr/bin\"]}",
		    j);
		return;
	}
	obj_dups(c, j, path);
	s->ignore = xcalloc(arr_size(j), sizeof(*s->ignore));
	for (m = j->child; m != NULL; m = m->next) {
		p = path_key(path, m->string);
		e = &s->ignore[s->nignore];
		if (get_strlist(c, m, p, &e->subs) == 0) {
			e->pattern = xstrdup(m->string);
			s->nignore++;
		}
		free(p);
	}
}

/* ------------------------------------------------------------------------------------ */
/* windows (BEHAVIOR §1.3): validated with the reference's rules, kept as written */

enum {
	W_BACKEND,
	W_USER,
	W_SUBLAYER,
	W_WFP_SUBLAYER,
	W_PORTS,
	W_SRT_WIN,
	W_COUNT
};
static const struct settings_key win_fields[W_COUNT] = {
	[W_BACKEND] = { "backend", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[W_USER] = { "sandboxUser", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[W_SUBLAYER] = { "sublayerGuid", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[W_WFP_SUBLAYER] = { "wfpSublayerGuid", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[W_PORTS] = { "proxyPortRange", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[W_SRT_WIN] = { "srtWin", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

enum {
	SW_PATH,
	SW_COUNT
};
static const struct settings_key srtwin_fields[SW_COUNT] = {
	[SW_PATH] = { "path", SETTINGS_REQUIRED, "add \"path\": \"C:\\\\Tools\\\\srt-win.exe\"",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

/* Length in UTF-16 code units, as the reference (and Windows) count a name. The text is
 * valid UTF-8 (the syntax check saw to it): a four-byte sequence is a surrogate pair. */
static size_t
utf16_units(const char *s)
{
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if ((*p & 0xc0) == 0x80)
			continue;
		n += *p >= 0xf0 ? 2 : 1;
	}
	return n;
}

static void
get_guid(struct pctx *c, const cJSON *j, const char *path, char **dst)
{
	char *q;

	if (!cJSON_IsString(j)) {
		perr_type(
		    c, path, "a GUID such as \"8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4\"", j);
		return;
	}
	if (!util_is_uuid(j->valuestring)) {
		q = quote(j->valuestring);
		perr(c, path,
		    "%s is not a GUID; write 32 hex digits grouped 8-4-4-4-12, "
		    "without braces, e.g. \"8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4\"",
		    q);
		free(q);
		return;
	}
	*dst = xstrdup(j->valuestring);
}

static bool
port_number(const cJSON *j, double lo, double hi)
{
	double d;

	if (!cJSON_IsNumber(j))
		return false;
	d = j->valuedouble;
	return isfinite(d) && d == floor(d) && d >= lo && d <= hi;
}

static void
get_port_range(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	const cJSON *lo, *hi;
	size_t before = c->nerr;
	char *p;

	if (!cJSON_IsArray(j) || arr_size(j) != 2) {
		perr_type(c, path, "[low, high], two port numbers such as [60080, 60089]", j);
		return;
	}
	lo = j->child;
	hi = lo->next;
	/* The reference bounds low from below and high from above, then relates them. */
	if (!port_number(lo, 1, 1e15)) {
		p = path_index(path, 0);
		perr_type(c, p, "an integer port of at least 1", lo);
		free(p);
	}
	if (!port_number(hi, -1e15, 65535)) {
		p = path_index(path, 1);
		perr_type(c, p, "an integer port of at most 65535", hi);
		free(p);
	}
	if (c->nerr != before)
		return;
	if (lo->valuedouble > hi->valuedouble ||
	    hi->valuedouble - lo->valuedouble > WIN_PORT_RANGE_MAX) {
		perr(c, path,
		    "[%.0f, %.0f]: low must be at most high, and high at most "
		    "low + %d",
		    lo->valuedouble, hi->valuedouble, WIN_PORT_RANGE_MAX);
		return;
	}
	s->win.port_lo = (int)lo->valuedouble;
	s->win.port_hi = (int)hi->valuedouble;
}

static void
srtwin_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;

	if (idx == SW_PATH && get_string(c, j, path, true) == 0)
		s->win.srt_win_path = xstrdup(j->valuestring);
}

static void
win_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;
	char *q;

	switch (idx) {
	case W_BACKEND:
		if (cJSON_IsString(j) && strcmp(j->valuestring, "srt-win") == 0)
			s->win.backend = WIN_BACKEND_SRT_WIN;
		else if (cJSON_IsString(j) && strcmp(j->valuestring, "mxc") == 0)
			s->win.backend = WIN_BACKEND_MXC;
		else
			perr_type(c, path, "\"srt-win\" or \"mxc\"", j);
		break;
	case W_USER:
		if (get_string(c, j, path, true) != 0)
			break;
		if (utf16_units(j->valuestring) > WIN_USER_MAX) {
			q = quote(j->valuestring);
			perr(c, path,
			    "%s is longer than %d characters, the limit of a Windows "
			    "local user name",
			    q, WIN_USER_MAX);
			free(q);
			break;
		}
		s->win.sandbox_user = xstrdup(j->valuestring);
		break;
	case W_SUBLAYER:
		get_guid(c, j, path, &s->win.sublayer_guid);
		break;
	case W_WFP_SUBLAYER:
		get_guid(c, j, path, &s->win.wfp_sublayer_guid);
		break;
	case W_PORTS:
		get_port_range(c, j, path, s);
		break;
	case W_SRT_WIN:
		obj_walk(c, j, path,
		    "an object such as {\"path\": \"C:\\\\Tools\\\\"
		    "srt-win.exe\"}",
		    srtwin_fields, SW_COUNT, srtwin_field, s);
		break;
	}
}

static void
get_windows(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	if (obj_walk(c, j, path, "an object such as {\"proxyPortRange\": [60080, 60089]}",
		win_fields, W_COUNT, win_field, s) == 0)
		s->win.present = true;
}

/* ------------------------------------------------------------------------------------ */
/* credentials (BEHAVIOR §1.3, issue #14): the reference's whole schema is checked; the
 * "deny" entries and the "mask" ones are kept (settings.h). */

enum {
	CR_FILES,
	CR_ENV,
	CR_PLAINTEXT,
	CR_AWS,
	CR_SIGV4,
	CR_COUNT
};
static const struct settings_key cred_fields[CR_COUNT] = {
	[CR_FILES] = { "files", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[CR_ENV] = { "envVars", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[CR_PLAINTEXT] = { "allowPlaintextInject", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[CR_AWS] = { "awsPairs", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[CR_SIGV4] = { "sigv4", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

/* One entry of files[] or envVars[]; maskDuplicates, last, is for files only. */
enum {
	CF_ID,
	CF_MODE,
	CF_EXTRACT,
	CF_NOMATCH,
	CF_DECODE,
	CF_CLAIMS,
	CF_INJECT,
	CF_BODY,
	CF_DUPS,
	CF_COUNT
};
#define CRED_ENTRY_FIELDS(id, how) \
	[CF_ID] = { id, SETTINGS_REQUIRED, how, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_MODE] = { "mode", SETTINGS_REQUIRED, "add \"mode\": \"deny\"", SETTINGS_VALUE, 0, \
		0, 0, 0, 0 }, \
	[CF_EXTRACT] = { "extract", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_NOMATCH] = { "onExtractNoMatch", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_DECODE] = { "decode", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_CLAIMS] = { "maskClaims", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_INJECT] = { "injectHosts", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }, \
	[CF_BODY] = { "injectBodyFields", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 }
static const struct settings_key cred_file_fields[CF_COUNT] = {
	CRED_ENTRY_FIELDS("path", "add \"path\": \"~/.netrc\""),
	[CF_DUPS] = { "maskDuplicates", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};
static const struct settings_key cred_env_fields[CF_DUPS] = {
	CRED_ENTRY_FIELDS("name", "add \"name\": \"GH_TOKEN\""),
};

enum {
	AP_KEY,
	AP_SECRET,
	AP_TOKEN,
	AP_COUNT
};
static const struct settings_key aws_pair_fields[AP_COUNT] = {
	[AP_KEY] = { "accessKeyIdVar", SETTINGS_REQUIRED,
	    "add \"accessKeyIdVar\": "
	    "\"AWS_ACCESS_KEY_ID\"",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[AP_SECRET] = { "secretAccessKeyVar", SETTINGS_REQUIRED,
	    "add "
	    "\"secretAccessKeyVar\": \"AWS_SECRET_ACCESS_KEY\"",
	    SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	[AP_TOKEN] = { "sessionTokenVar", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

/* In the order of settings_cred.sigv4[]. */
static const struct settings_key sigv4_fields[3] = {
	{ "streaming", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	{ "presigned", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
	{ "sigv4a", 0, NULL, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
};

static const char *const cred_modes[] = { "deny", "mask", NULL };
enum {
	MODE_DENY,
	MODE_MASK
};
static const char *const no_match_policies[] = { "warn", "deny", "error", NULL };
static const char *const decodings[] = { "jwt", NULL };
static const char *const sigv4_policies[] = { "deny", "passthrough", NULL };

/* What one entry says, for the checks across its fields; m is kept for a "mask". */
struct cred_entry {
	bool file;
	int mode; /* MODE_*, -1 when missing or invalid */
	bool claims, claims_empty, inject_empty, body_set, mask_only;
	struct settings_cred_mask m; /* m.id: the path or name, when valid */
};

/* A POSIX name: bwrap --unsetenv and env -u can never read it as an option. */
static bool
env_name_ok(const char *s)
{
	static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";

	return *s != '\0' && strchr(alpha, *s) != NULL &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") ==
	    strlen(s);
}

static int
get_env_name(struct pctx *c, const cJSON *j, const char *path)
{
	char *q;

	if (!cJSON_IsString(j)) {
		perr_type(c, path, "an environment variable name such as \"GH_TOKEN\"", j);
		return -1;
	}
	if (!env_name_ok(j->valuestring)) {
		q = quote(j->valuestring);
		perr(c, path,
		    "%s is not an environment variable name: a letter or \"_\", "
		    "then letters, digits and \"_\"",
		    q);
		free(q);
		return -1;
	}
	return 0;
}

/* extract: a JavaScript regular expression with a capture group (group 1 is the value). */
static int
get_extract(struct pctx *c, const cJSON *j, const char *path)
{
	const char *why;
	int groups;
	char *q;

	if (get_string(c, j, path, false) != 0)
		return -1;
	if (jsregex_check(j->valuestring, strlen(j->valuestring), &groups, &why) != 0) {
		q = quote(j->valuestring);
		perr(c, path, "%s is not a valid regular expression: %s", q, why);
		free(q);
		return -1;
	}
	if (groups < 1) {
		q = quote(j->valuestring);
		perr(c, path,
		    "%s has no capturing group; group 1 is the credential value to "
		    "mask, e.g. \"token:\\\\s*(\\\\S+)\"",
		    q);
		free(q);
		return -1;
	}
	return 0;
}

/*
 * A masked entry's extract is run by srt-httpd and the launcher through cred_rx, which
 * translates the JavaScript pattern to POSIX ERE and refuses what it cannot translate:
 * such a pattern is valid for the reference but cannot mask anything here.
 */
static void
check_mask_extract(struct pctx *c, const char *extract, const char *entry)
{
	struct cred_rx *rx;
	const char *why;
	int groups;
	char *p, *q;

	if (cred_rx_compile(extract, &rx, &groups, &why) == 0) {
		cred_rx_free(rx);
		return;
	}
	p = xasprintf("%s.extract", entry);
	q = quote(extract);
	perr(c, p, "%s: %s", q, why);
	free(q);
	free(p);
}

/*
 * injectBodyFields (srt's own): the body fields a masked value goes in, each a name of
 * [A-Za-z0-9_.-] (as cred_store_fields takes them), listed once; an empty list is
 * refused, as it would say nothing.
 */
static void
get_body_fields(struct pctx *c, const cJSON *j, const char *path, struct cred_entry *e)
{
	const cJSON *m;
	size_t i = 0, n;
	char *p, *q;

	if (!cJSON_IsArray(j)) {
		perr_type(
		    c, path, "an array of body field names such as [\"client_secret\"]", j);
		return;
	}
	e->body_set = true;
	if (j->child == NULL)
		perr(c, path,
		    "injectBodyFields is empty, so it names no field; list the "
		    "fields of a request body the real value goes in, or remove it");
	if (cJSON_GetArraySize(j) > CRED_FIELDS_MAX)
		perr(c, path, "more than %d fields", CRED_FIELDS_MAX);
	for (m = j->child; m != NULL; m = m->next, i++) {
		p = path_index(path, i);
		if (!cJSON_IsString(m))
			perr_type(c, p, "a field name such as \"client_secret\"", m);
		else if ((n = strlen(m->valuestring)) == 0 || n > CRED_FIELD_MAX ||
		    strspn(m->valuestring,
			"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789_.-") != n) {
			q = quote(m->valuestring);
			perr(c, p,
			    "%s is not a body field name: 1 to %d letters, digits, "
			    "\"_\", \".\" or \"-\"",
			    q, CRED_FIELD_MAX);
			free(q);
		} else if (strlist_contains(&e->m.body, m->valuestring)) {
			q = quote(m->valuestring);
			perr(c, p, "%s is listed twice", q);
			free(q);
		} else
			strlist_push(&e->m.body, m->valuestring);
		free(p);
	}
}

static void
cred_entry_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct cred_entry *e = arg;
	const cJSON *m;
	const char *why;
	size_t i = 0;
	int v;
	char *p, *q;

	switch (idx) {
	case CF_ID:
		if (e->file) {
			if (!cJSON_IsString(j))
				perr_type(c, path, "a path string", j);
			else if (j->valuestring[0] == '\0')
				perr(c, path, "the path is empty");
			else
				e->m.id = xstrdup(j->valuestring);
		} else if (get_env_name(c, j, path) == 0)
			e->m.id = xstrdup(j->valuestring);
		return;
	case CF_MODE:
		get_enum(c, j, path, cred_modes, &e->mode);
		return;
	case CF_EXTRACT:
		if (get_extract(c, j, path) == 0)
			e->m.extract = xstrdup(j->valuestring);
		break;
	case CF_NOMATCH:
		if (get_enum(c, j, path, no_match_policies, &v) == 0)
			e->m.no_match = (enum settings_no_match)v;
		break;
	case CF_DECODE:
		e->m.jwt = get_enum(c, j, path, decodings, NULL) == 0;
		break;
	case CF_CLAIMS:
		e->claims = true;
		if (!cJSON_IsArray(j)) {
			perr_type(c, path, "an array of claim names such as [\"sub\"]", j);
			break;
		}
		e->claims_empty = j->child == NULL;
		for (m = j->child; m != NULL; m = m->next, i++) {
			p = path_index(path, i);
			if (get_string(c, m, p, true) == 0)
				strlist_push(&e->m.claims, m->valuestring);
			free(p);
		}
		break;
	case CF_INJECT:
		if (!cJSON_IsArray(j)) {
			perr_type(c, path,
			    "an array of host patterns such as "
			    "[\"api.github.com\", \"*.example.com\"]",
			    j);
			break;
		}
		e->m.inject_set = true;
		e->inject_empty = j->child == NULL;
		for (m = j->child; m != NULL; m = m->next, i++) {
			p = path_index(path, i);
			if (!cJSON_IsString(m))
				perr_type(c, p, "a host pattern string", m);
			else if (dom_pattern_valid(m->valuestring, &why) != 0) {
				q = quote(m->valuestring);
				perr(c, p, "%s: %s", q, why);
				free(q);
			} else
				strlist_push(&e->m.inject, m->valuestring);
			free(p);
		}
		break;
	case CF_BODY:
		get_body_fields(c, j, path, e);
		break;
	case CF_DUPS:
		get_bool(c, j, path, &e->m.dups);
		break;
	}
	e->mask_only = true;
}

/* One mask entry's fields as text, for comparing two entries (managed.c). */
char *
settings_cred_mask_json(const struct settings_cred_mask *m)
{
	struct buf b = { 0 };
	size_t i;

	buf_addf(&b, "%d|%s|%d|%d|%d|%d|", m->file, m->id, (int)m->no_match, m->jwt, m->dups,
	    m->inject_set);
	buf_add_jstr(&b, m->extract ? m->extract : "", m->extract ? strlen(m->extract) : 0);
	for (i = 0; i < m->claims.n; i++) {
		buf_adds(&b, "|c");
		buf_add_jstr(&b, m->claims.v[i], strlen(m->claims.v[i]));
	}
	for (i = 0; i < m->inject.n; i++) {
		buf_adds(&b, "|i");
		buf_add_jstr(&b, m->inject.v[i], strlen(m->inject.v[i]));
	}
	for (i = 0; i < m->body.n; i++) {
		buf_adds(&b, "|b");
		buf_add_jstr(&b, m->body.v[i], strlen(m->body.v[i]));
	}
	return buf_steal(&b);
}

/* A "deny" entry: once each in file order. */
static void
cred_keep_deny(struct settings *s, bool file, const char *id)
{
	struct path_list *l = &s->cred.deny_files;
	size_t k;

	if (!file) {
		if (!strlist_contains(&s->cred.deny_env, id))
			strlist_push(&s->cred.deny_env, id);
		return;
	}
	for (k = 0; k < l->n; k++)
		if (strcmp(l->v[k].path, id) == 0)
			return;
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].path = xstrdup(id);
	l->v[l->n++].literal = false;
}

/* files[] or envVars[]: each entry checked, the "deny" and "mask" ones kept. */
static void
get_cred_entries(
    struct pctx *c, const cJSON *j, const char *path, bool file, struct settings *s)
{
	const cJSON *m;
	size_t i = 0, before;
	char *p, *q;
	int bad;

	if (!cJSON_IsArray(j)) {
		perr_type(c, path,
		    file ? "an array such as [{\"path\": \"~/.netrc\", "
			   "\"mode\": \"deny\"}]"
			 : "an array such as [{\"name\": \"GH_TOKEN\", "
			   "\"mode\": \"deny\"}]",
		    j);
		return;
	}
	for (m = j->child; m != NULL; m = m->next, i++) {
		struct cred_entry e = { .file = file, .mode = -1 };

		e.m.file = file;
		p = path_index(path, i);
		before = c->nerr;
		if (obj_walk(c, m, p,
			file ? "an object such as {\"path\": \"~/.netrc\", "
			       "\"mode\": \"deny\"}"
			     : "an object such as {\"name\": \"GH_TOKEN\", "
			       "\"mode\": \"deny\"}",
			file ? cred_file_fields : cred_env_fields, file ? CF_COUNT : CF_DUPS,
			cred_entry_field, &e) != 0)
			goto next;
		if (e.claims && !e.m.jwt) {
			q = xasprintf("%s.maskClaims", p);
			perr(c, q,
			    "maskClaims requires decode, since it names claims inside "
			    "the decoded payload; add \"decode\": \"jwt\", or remove maskClaims");
			free(q);
		}
		if (e.claims_empty) {
			q = xasprintf("%s.maskClaims", p);
			perr(c, q,
			    "maskClaims is empty, so no claim would ever be masked; list "
			    "the claims to protect, or remove it");
			free(q);
		}
		if (e.mode == MODE_MASK && file && e.m.id != NULL &&
		    e.m.id[strlen(e.m.id) - 1] == '/') {
			q = xasprintf("%s.path", p);
			perr(c, q,
			    "\"mask\" applies to a single file, not a directory; use "
			    "\"deny\" for it, or name the credential file inside it");
			free(q);
		}
		if (e.mode == MODE_MASK && e.m.extract != NULL)
			check_mask_extract(c, e.m.extract, p);
		if (e.mode == MODE_MASK && e.inject_empty) {
			q = xasprintf("%s.injectHosts", p);
			perr(c, q,
			    "injectHosts is empty, so the credential would be "
			    "masked but never put back; leave it out to default to "
			    "network.allowedDomains, or list the hosts");
			free(q);
		}
		/* A body field takes the real value only to the hosts named for the
		 * credential, never to every allowed domain. */
		if (e.mode == MODE_MASK && e.body_set && !e.m.inject_set) {
			q = xasprintf("%s.injectBodyFields", p);
			perr(c, q,
			    "injectBodyFields needs injectHosts: a real value goes into "
			    "a request body only for the hosts named for it; list them in "
			    "injectHosts");
			free(q);
		}
		if (c->nerr != before || e.m.id == NULL)
			goto next;
		if (file) {
			q = xasprintf("%s.path", p);
			bad = check_path_syntax(c, q, e.m.id);
			free(q);
			if (bad)
				goto next;
		}
		if (e.mode == MODE_DENY) {
			if (e.mask_only)
				pwarn(c, p,
				    "accepted and ignored: extract, onExtractNoMatch, "
				    "decode, maskClaims, maskDuplicates, injectHosts and "
				    "injectBodyFields only act on a \"mask\" entry");
			cred_keep_deny(s, file, e.m.id);
		} else if (e.mode == MODE_MASK) {
			s->cred.mask = xreallocarray(
			    s->cred.mask, s->cred.nmask + 1, sizeof(*s->cred.mask));
			s->cred.mask[s->cred.nmask++] = e.m;
			memset(&e.m, 0, sizeof(e.m));
		}
	next:
		settings_cred_mask_clear(&e.m);
		free(p);
	}
}

static void
aws_pair_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings_aws_pair *a = arg;

	if (get_env_name(c, j, path) != 0)
		return;
	*(idx == AP_KEY            ? &a->key_id
		: idx == AP_SECRET ? &a->secret
				   : &a->token) = xstrdup(j->valuestring);
}

static void
sigv4_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;

	get_enum(c, j, path, sigv4_policies, &s->cred.sigv4[idx]);
}

static void
cred_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;
	const cJSON *m;
	size_t i = 0;
	char *p;

	switch (idx) {
	case CR_FILES:
	case CR_ENV:
		get_cred_entries(c, j, path, idx == CR_FILES, s);
		break;
	case CR_PLAINTEXT:
		get_bool(c, j, path, &s->cred.plaintext_inject);
		break;
	case CR_AWS:
		if (!cJSON_IsArray(j)) {
			perr_type(c, path,
			    "an array such as [{\"accessKeyIdVar\": \"KEY_ID\", "
			    "\"secretAccessKeyVar\": \"SECRET\"}]",
			    j);
			break;
		}
		for (m = j->child; m != NULL; m = m->next, i++) {
			struct settings_aws_pair a = { 0 };

			p = path_index(path, i);
			obj_walk(c, m, p,
			    "an object such as {\"accessKeyIdVar\": \"KEY_ID\", "
			    "\"secretAccessKeyVar\": \"SECRET\"}",
			    aws_pair_fields, AP_COUNT, aws_pair_field, &a);
			s->cred.aws = xreallocarray(
			    s->cred.aws, s->cred.naws + 1, sizeof(*s->cred.aws));
			s->cred.aws[s->cred.naws++] = a;
			free(p);
		}
		break;
	case CR_SIGV4:
		obj_walk(c, j, path, "an object such as {\"streaming\": \"deny\"}",
		    sigv4_fields, 3, sigv4_field, s);
		break;
	}
}

static void
get_credentials(struct pctx *c, const cJSON *j, const char *path, struct settings *s)
{
	if (obj_walk(c, j, path,
		"an object such as {\"envVars\": [{\"name\": \"GH_TOKEN\", "
		"\"mode\": \"deny\"}]}",
		cred_fields, CR_COUNT, cred_field, s) == 0)
		c->cred = j;
}

/*
 * The checks that relate credentials to the rest of the file, made once every key was
 * read: masking needs a way to put the value back (network.tlsTerminate or
 * allowPlaintextInject, as in the reference), each injectHosts pattern is reachable
 * through allowedDomains (unless that list has problems of its own), a "deny" file glob
 * can match something, and each awsPairs variable names a whole-value masked entry
 * once. Values of the wrong type were reported already and are passed over here.
 */
/* The first envVars entry of that name, or NULL. */
static const cJSON *
cred_env_entry(const cJSON *cred, const char *name)
{
	const cJSON *list = cJSON_GetObjectItemCaseSensitive(cred, "envVars"), *e, *n;

	for (e = cJSON_IsArray(list) ? list->child : NULL; e != NULL; e = e->next) {
		n = cJSON_GetObjectItemCaseSensitive(e, "name");
		if (cJSON_IsString(n) && strcmp(n->valuestring, name) == 0)
			return e;
	}
	return NULL;
}

/*
 * A masked entry tlsTerminate.excludeDomains makes useless: the value goes back only on a
 * terminated connection, so an injectHosts pattern the excludes cover wholly, or (with no
 * injectHosts) an allow list they cover wholly, could never receive it. A partial overlap
 * is fine: the excluded hosts get the sentinel. The reference refuses the same two cases.
 */
static void
cred_exclude_check(struct pctx *c, const struct settings *s, const cJSON *e, const char *entry)
{
	const struct strlist *ex = &s->net.tls.exclude_domains;
	struct dom_rule *rules;
	const cJSON *hosts = cJSON_GetObjectItemCaseSensitive(e, "injectHosts"), *m;
	const cJSON *mode = cJSON_GetObjectItemCaseSensitive(e, "mode");
	const char *why;
	size_t i, n = 0;
	char *p, *q;
	int all = 1;

	if (!s->net.tls.present || ex->n == 0 || !cJSON_IsString(mode) ||
	    strcmp(mode->valuestring, "mask") != 0 || c->allowed_bad)
		return;
	rules = xcalloc(ex->n, sizeof(*rules));
	for (i = 0; i < ex->n; i++)
		if (dom_entry_parse(ex->v[i], 0, &rules[n], &why) == 0)
			n++;
	if (cJSON_IsArray(hosts)) {
		for (m = hosts->child, i = 0; m != NULL; m = m->next, i++) {
			if (!cJSON_IsString(m) ||
			    !dom_pattern_covered(m->valuestring, rules, n))
				continue;
			p = xasprintf("%s.injectHosts[%zu]", entry, i);
			q = quote(m->valuestring);
			perr(c, p,
			    "%s is wholly covered by network.tlsTerminate.excludeDomains, "
			    "and the credential is put back only on terminated connections: that "
			    "host would get the sentinel, never the value; remove it from one of "
			    "the two lists",
			    q);
			free(q);
			free(p);
		}
	} else if (hosts == NULL && s->net.nallowed > 0) {
		for (i = 0; i < s->net.nallowed && all; i++) {
			const struct dom_rule *r = &s->net.allowed[i];

			q = r->kind == DOM_WILDCARD ? xasprintf("*.%s", r->host)
						    : xstrdup(r->host != NULL ? r->host : "*");
			all = dom_pattern_covered(q, rules, n);
			free(q);
		}
		if (all)
			perr(c, entry,
			    "this masked credential has no injectHosts, so it would be "
			    "put back for every network.allowedDomains host, but "
			    "network.tlsTerminate.excludeDomains covers them all, and the value "
			    "goes back only on terminated connections: it could never be "
			    "injected; name its hosts in injectHosts, or narrow excludeDomains");
	}
	for (i = 0; i < n; i++)
		dom_rule_clear(&rules[i]);
	free(rules);
}

static void
cred_cross_check(struct pctx *c, const struct settings *s)
{
	struct strlist seen = { 0 };
	const cJSON *list, *e, *v, *m, *ent, *mode;
	size_t i, k;
	char *p, *q;

	if (c->cred == NULL)
		return;
	if (s->cred.nmask > 0 && !s->cred.plaintext_inject && !s->net.tls.present)
		perr(c, "credentials",
		    "masked credentials need a way back into requests: "
		    "network.tlsTerminate, or \"allowPlaintextInject\": true (the real value "
		    "then crosses the host's loopback and any plain-HTTP hop in the clear)");
	for (int f = 0; f < 2; f++) {
		const char *key = f ? "envVars" : "files";

		list = cJSON_GetObjectItemCaseSensitive(c->cred, key);
		if (!cJSON_IsArray(list))
			list = NULL;
		for (e = list != NULL ? list->child : NULL, i = 0; e != NULL;
		     e = e->next, i++) {
			p = xasprintf("credentials.%s[%zu]", key, i);
			cred_exclude_check(c, s, e, p);
			free(p);
			v = cJSON_GetObjectItemCaseSensitive(e, "injectHosts");
			if (!cJSON_IsArray(v) || c->allowed_bad)
				v = NULL;
			for (m = v != NULL ? v->child : NULL, k = 0; m != NULL;
			     m = m->next, k++) {
				if (!cJSON_IsString(m) ||
				    dom_pattern_covered(
					m->valuestring, s->net.allowed, s->net.nallowed))
					continue;
				p = xasprintf(
				    "credentials.%s[%zu].injectHosts[%zu]", key, i, k);
				q = quote(m->valuestring);
				perr(c, p,
				    "%s is not reachable through network.allowedDomains; "
				    "add it (or a wildcard covering it) there, or remove it here",
				    q);
				free(q);
				free(p);
			}
			v = cJSON_GetObjectItemCaseSensitive(e, "path");
			m = cJSON_GetObjectItemCaseSensitive(e, "mode");
			if (!f && !s->fs.disabled && cJSON_IsString(v) && cJSON_IsString(m) &&
			    strcmp(m->valuestring, "deny") == 0) {
				p = xasprintf("credentials.files[%zu].path", i);
				check_deny_glob(c, v->valuestring, p);
				free(p);
			}
		}
	}
	list = cJSON_GetObjectItemCaseSensitive(c->cred, "awsPairs");
	if (!cJSON_IsArray(list))
		list = NULL;
	for (e = list != NULL ? list->child : NULL, i = 0; e != NULL; e = e->next, i++) {
		for (k = 0; k < AP_COUNT; k++) {
			v = cJSON_GetObjectItemCaseSensitive(e, aws_pair_fields[k].name);
			if (!cJSON_IsString(v))
				continue;
			p = xasprintf(
			    "credentials.awsPairs[%zu].%s", i, aws_pair_fields[k].name);
			q = quote(v->valuestring);
			ent = cred_env_entry(c->cred, v->valuestring);
			mode = cJSON_GetObjectItemCaseSensitive(ent, "mode");
			if (strlist_contains(&seen, v->valuestring))
				perr(c, p,
				    "%s fills more than one awsPairs slot; each variable "
				    "fills exactly one",
				    q);
			else if (!cJSON_IsString(mode) ||
			    strcmp(mode->valuestring, "mask") != 0)
				perr(c, p,
				    "%s does not name a credentials.envVars entry with mode "
				    "\"mask\": an AWS pair links masked variables",
				    q);
			else if (cJSON_GetObjectItemCaseSensitive(ent, "extract") != NULL ||
			    cJSON_GetObjectItemCaseSensitive(ent, "decode") != NULL)
				perr(c, p,
				    "%s uses extract or decode, but an AWS pair needs the "
				    "whole value masked",
				    q);
			strlist_push(&seen, v->valuestring);
			free(q);
			free(p);
		}
	}
	strlist_free(&seen);
}

/* ------------------------------------------------------------------------------------ */
/* The root */

/* One of the managed file's own fields: its bit in s->layers.flags. */
static void
get_managed_flag(
    struct pctx *c, const cJSON *j, const char *path, struct settings *s, unsigned bit)
{
	bool b = false;

	get_bool(c, j, path, &b);
	if (b)
		s->layers.flags |= bit;
}

static void
root_field(struct pctx *c, int idx, const cJSON *j, const char *path, void *arg)
{
	struct settings *s = arg;

	switch (idx) {
	case SR_allowManagedDomainsOnly:
		get_managed_flag(c, j, path, s, SETTINGS_LAYER_DOMAINS_ONLY);
		break;
	case SR_allowManagedReadPathsOnly:
		get_managed_flag(c, j, path, s, SETTINGS_LAYER_READ_PATHS_ONLY);
		break;
	case SR_allowUserWeakerOptions:
		get_managed_flag(c, j, path, s, SETTINGS_LAYER_USER_WEAKER);
		break;
	case SR_network:
		obj_walk_schema(c, j, path, "an object with allowedDomains and deniedDomains",
		    &settings_network, net_field, s);
		/* The reference refuses the pair when it starts (sandbox-manager.js). */
		if (cJSON_IsObject(j) && cJSON_GetObjectItemCaseSensitive(j, "mitmProxy") &&
		    cJSON_GetObjectItemCaseSensitive(j, "tlsTerminate"))
			perr(c, "network.mitmProxy",
			    "mitmProxy and tlsTerminate cannot be used "
			    "together: a host goes either through the inspection proxy or through "
			    "srt's own TLS termination; remove one of them");
		break;
	case SR_filesystem:
		get_filesystem(c, j, path, s);
		break;
	case SR_ignoreViolations:
		get_ignore(c, j, path, s);
		break;
	case SR_bwrapPath:
		if (get_binary_path(c, j, path) == 0)
			s->bwrap_path = xstrdup(j->valuestring);
		break;
	case SR_git:
		obj_walk(c, j, path, "an object such as {\"safeDirectories\": []}", git_fields,
		    G_COUNT, git_field, s);
		break;
	case SR_ripgrep:
		obj_walk(c, j, path, "an object such as {\"command\": \"rg\"}", rg_fields,
		    RG_COUNT, rg_field, NULL);
		break;
	case SR_seccomp:
		obj_walk(c, j, path, "an object such as {\"applyPath\": \"/path\"}", sc_fields,
		    SC_COUNT, sc_field, NULL);
		break;
	case SR_socatPath:
	case SR_javaAgentJarPath:
		get_binary_path(c, j, path);
		break;
	case SR_windows:
		get_windows(c, j, path, s);
		break;
	case SR_credentials:
		get_credentials(c, j, path, s);
		break;
	}
}

static int
cmp_rule_spelled(const void *a, const void *b)
{
	const struct dom_rule *x = *(struct dom_rule *const *)a;
	const struct dom_rule *y = *(struct dom_rule *const *)b;

	return strcmp(x->spelled, y->spelled);
}

/* Give each deny rule the reason keyed by its exact spelling; warn about keys that name
 * no entry (the reference accepts them, and they never take effect). Sorted, so that a
 * large file costs O(n log n). */
static void
settings_link_reasons(struct pctx *c, struct settings *s)
{
	struct dom_rule **v, key, *kp = &key, **hit;
	size_t i, lo, hi;
	char *p, *q;

	if (s->net.nreasons == 0)
		return;
	v = xcalloc(s->net.ndenied, sizeof(*v));
	for (i = 0; i < s->net.ndenied; i++)
		v[i] = &s->net.denied[i];
	qsort(v, s->net.ndenied, sizeof(*v), cmp_rule_spelled);
	for (i = 0; i < s->net.nreasons; i++) {
		key.spelled = s->net.reasons[i].entry;
		hit = bsearch(&kp, v, s->net.ndenied, sizeof(*v), cmp_rule_spelled);
		if (hit == NULL) {
			p = path_key("network.deniedDomainReasons", s->net.reasons[i].entry);
			q = quote(s->net.reasons[i].entry);
			pwarn(c, p,
			    "no deniedDomains entry is written exactly %s, so this "
			    "reason is never used",
			    q);
			free(q);
			free(p);
			continue;
		}
		lo = hi = (size_t)(hit - v);
		while (lo > 0 && strcmp(v[lo - 1]->spelled, key.spelled) == 0)
			lo--;
		while (hi + 1 < s->net.ndenied && strcmp(v[hi + 1]->spelled, key.spelled) == 0)
			hi++;
		for (; lo <= hi; lo++) {
			free(v[lo]->reason);
			v[lo]->reason = xstrdup(s->net.reasons[i].reason);
		}
	}
	free(v);
}

/* ------------------------------------------------------------------------------------ */
/* API */

static int
settings_parse_as(const char *text, size_t len, const char *fname, bool managed,
    struct settings *out, struct diags *errs, struct diags *warns)
{
	struct diags scratch = { 0 };
	struct settings s;
	struct pctx c = { .fname = fname ? fname : "settings",
		.s = &s,
		.errs = errs,
		.warns = warns,
		.managed = managed };
	cJSON *root = NULL;
	const char *end = NULL;
	size_t pos, line, col;
	char err[256];
	int rc = -1;

	memset(out, 0, sizeof(*out));
	settings_init_default(&s);
	if (errs == NULL)
		errs = c.errs = &scratch;
	if (len > SETTINGS_MAX_BYTES) {
		diags_add(errs,
		    "%s: the file is larger than %u MiB; it is not a settings "
		    "file",
		    c.fname, SETTINGS_MAX_BYTES >> 20);
		goto out;
	}
	if (text_blank(text, len)) {
		diags_add(errs,
		    "%s: the file is empty; a settings file holds a JSON object "
		    "such as {\"network\": {\"allowedDomains\": [], \"deniedDomains\": []}, "
		    "\"filesystem\": {\"denyRead\": [], \"allowWrite\": [], "
		    "\"denyWrite\": []}}",
		    c.fname);
		goto out;
	}
	if (json_check(text, len, &pos, err, sizeof(err)) == -1) {
		json_linecol(text, pos, &line, &col);
		diags_add(errs, "%s: line %zu, column %zu: not valid JSON: %s", c.fname, line,
		    col, err);
		goto out;
	}
	if ((root = cJSON_ParseWithLengthOpts(text, len, &end, 0)) == NULL) {
		/* The strict check accepts nothing cJSON refuses: this is an allocation
		 * failure, reported where cJSON stopped. */
		pos = end != NULL && end >= text && end <= text + len ? (size_t)(end - text)
								      : 0;
		json_linecol(text, pos, &line, &col);
		diags_add(errs,
		    "%s: line %zu, column %zu: the JSON parser failed (out of "
		    "memory?)",
		    c.fname, line, col);
		goto out;
	}
	if (!cJSON_IsObject(root)) {
		perr_type(&c, "", "an object holding \"network\" and \"filesystem\"", root);
		goto out;
	}
	obj_walk_schema(&c, root, "", "an object", &settings_root, root_field, &s);
	if (c.nerr > MAX_ERRORS)
		diags_add(
		    errs, "%s: %zu more problems not shown", c.fname, c.nerr - MAX_ERRORS);
	cred_cross_check(&c, &s);
	if (c.nerr == 0)
		settings_link_reasons(&c, &s);
	if (c.nwarn > MAX_ERRORS && warns != NULL)
		diags_add(
		    warns, "%s: %zu more warnings not shown", c.fname, c.nwarn - MAX_ERRORS);
	if (c.nerr == 0) {
		*out = s;
		rc = 0;
	}
out:
	if (rc == -1)
		settings_free(&s);
	cJSON_Delete(root);
	diags_free(&scratch);
	return rc;
}

int
settings_parse(const char *text, size_t len, const char *fname, struct settings *out,
    struct diags *errs, struct diags *warns)
{
	return settings_parse_as(text, len, fname, false, out, errs, warns);
}

int
settings_parse_managed(const char *text, size_t len, const char *fname, struct settings *out,
    struct diags *errs, struct diags *warns)
{
	return settings_parse_as(text, len, fname, true, out, errs, warns);
}

/* Why a settings file could not be read, as a message in errs. */
static void
settings_read_failed(const char *path, int err, struct diags *errs)
{
	if (err == ENOENT)
		diags_add(errs, "%s: the settings file does not exist", path);
	else if (err == EFBIG)
		diags_add(errs, "%s: the file is larger than %u MiB; it is not a settings file",
		    path, SETTINGS_MAX_BYTES >> 20);
	else
		diags_add(errs, "%s: cannot be read: %s", path, strerror(err));
}

int
settings_load_fd(
    int fd, const char *path, struct settings *out, struct diags *errs, struct diags *warns)
{
	char *text = NULL;
	size_t len;
	int rc;

	memset(out, 0, sizeof(*out));
	if (fd < 0 || read_fd_all(fd, SETTINGS_MAX_BYTES, &text, &len) == -1) {
		settings_read_failed(path, errno, errs);
		return -1;
	}
	rc = settings_parse(text, len, path, out, errs, warns);
	free(text);
	return rc;
}

int
settings_load(const char *path, struct settings *out, struct diags *errs, struct diags *warns)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), rc;

	rc = settings_load_fd(fd, path, out, errs, warns);
	if (fd >= 0)
		close(fd);
	return rc;
}

char *
settings_default_path(void)
{
	char *home = path_home(), *p;

	if (home == NULL)
		return NULL;
	p = xasprintf("%s%s.srt-settings.json", home, home[strlen(home) - 1] == '/' ? "" : "/");
	free(home);
	return p;
}
