/*
 * The managed policy (managed.h): the merge. Finding and trusting the file is
 * managed_trust.c (POSIX) or managed_win.c.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "log.h"
#include "managed.h"

void
managed_free(struct managed *m)
{
	free(m->path);
	free(m->text);
	memset(m, 0, sizeof(*m));
}

/* ------------------------------------------------------------------------------------ */
/* The merge */

struct mctx {
	const char *mname;    /* the managed file */
	const char *uname;    /* the user's settings */
	unsigned mflags;      /* its SETTINGS_LAYER_* */
	struct settings *m;   /* the managed settings, parsed for this merge */
	struct settings *out; /* the user's, becoming the result */
	struct diags *errs, *warns;
	size_t nerr;
};

static void mc_err(struct mctx *, const char *, ...) SRT_PRINTF(2, 3);

static void
mc_err(struct mctx *c, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) == -1)
		fatalx("out of memory");
	va_end(ap);
	diags_add(c->errs, "%s", msg);
	free(msg);
	c->nerr++;
}

/* A value quoted for a message (JSON string rules: no control character gets out). */
static char *
mc_quote(const char *s)
{
	struct buf b = { 0 };

	buf_add_jstr(&b, s, strnlen(s, 200));
	return buf_steal(&b);
}

static void
mc_ignored(struct mctx *c, const char *list, size_t i, const char *value, const char *field)
{
	char *q = mc_quote(value);

	if (c->warns != NULL)
		diags_add(c->warns,
		    "%s: %s[%zu]: %s is ignored: the managed policy %s sets %s, "
		    "so only its own %s count",
		    c->uname, list, i, q, c->mname, field, strrchr(list, '.') + 1);
	free(q);
}

/* Sorted keys, to find a user's entry among the managed file's in O(log n). */
static int
cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
keys_sort(struct strlist *k)
{
	if (k->n > 1)
		qsort(k->v, k->n, sizeof(*k->v), cmp_strp);
}

static bool
keys_has(const struct strlist *k, const char *s)
{
	return k->n > 0 && bsearch(&s, k->v, k->n, sizeof(*k->v), cmp_strp) != NULL;
}

/* How one list is told apart from another of its kind: a path entry by its spelling and
 * whether it is literal. */
static char *
path_key(const void *p)
{
	const struct path_entry *e = p;

	return xasprintf("%c%s", e->literal ? 'L' : 'P', e->path);
}

/* --- domain rules ----------------------------------------------------------------------- */

static struct dom_rule *
rule_find(struct dom_rule *v, size_t n, const char *spelled)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].spelled, spelled) == 0)
			return &v[i];
	return NULL;
}

/*
 * allowedDomains or deniedDomains: the managed rules, then the user's that are not
 * already there (by spelling); under only, none of the user's. A user's reason for a
 * deny rule both files have is kept when the managed file gives none.
 */
static void
merge_rules(struct mctx *c, struct dom_rule **mv, size_t *mn, struct dom_rule **uv, size_t *un,
    const char *list, const char *only, size_t *nmanaged)
{
	struct strlist keys = { 0 };
	struct dom_rule *v = xcalloc(*mn + *un + 1, sizeof(*v)), *hit;
	size_t n = 0, i;

	for (i = 0; i < *mn; i++) {
		strlist_push(&keys, (*mv)[i].spelled);
		v[n++] = (*mv)[i];
	}
	keys_sort(&keys);
	*nmanaged = n;
	for (i = 0; i < *un; i++) {
		struct dom_rule *r = &(*uv)[i];

		if (keys_has(&keys, r->spelled)) {
			hit = rule_find(v, *nmanaged, r->spelled);
			if (hit != NULL && hit->reason == NULL && r->reason != NULL) {
				hit->reason = r->reason;
				r->reason = NULL;
			}
			dom_rule_clear(r);
		} else if (only != NULL) {
			mc_ignored(c, list, i, r->spelled, only);
			dom_rule_clear(r);
		} else
			v[n++] = *r;
	}
	free(*mv);
	free(*uv);
	*mv = NULL;
	*mn = 0;
	*uv = v;
	*un = n;
	strlist_free(&keys);
}

/* One kind of entry merge_keyed merges. */
struct merge_kind {
	size_t size;
	char *(*key)(const void *e);         /* what tells two apart (allocated) */
	void (*drop)(void *e);               /* frees what a left-out one holds; or NULL */
	const char *(*shown)(const void *e); /* how a warning names one */
};

/*
 * A list: the managed file's mn entries at mv, then the user's *un at uv whose key is not
 * among them; under only, none of the user's (each one warned about). Both arrays are
 * freed (their entries moved or dropped); the merged one is returned.
 */
static void *
merge_keyed(struct mctx *c, const struct merge_kind *kind, void *mv, size_t mn, void *uv,
    size_t *un, const char *list, const char *only, size_t *nmanaged)
{
	size_t size = kind->size, n = 0, i;
	char *v = xcalloc(mn + *un + 1, size), *k;
	struct strlist keys = { 0 };

	for (i = 0; i < mn; i++, n++) {
		memcpy(v + n * size, (char *)mv + i * size, size);
		strlist_push_owned(&keys, kind->key(v + n * size));
	}
	keys_sort(&keys);
	*nmanaged = n;
	for (i = 0; i < *un; i++) {
		void *e = (char *)uv + i * size;
		bool keep;

		k = kind->key(e);
		keep = !keys_has(&keys, k);
		if (keep && only != NULL) {
			mc_ignored(c, list, i, kind->shown(e), only);
			keep = false;
		}
		if (keep)
			memcpy(v + n++ * size, e, size);
		else if (kind->drop != NULL)
			kind->drop(e);
		free(k);
	}
	free(mv);
	free(uv);
	*un = n;
	strlist_free(&keys);
	return v;
}

static char *
reason_key(const void *e)
{
	return xstrdup(((const struct reason_entry *)e)->entry);
}

static void
reason_drop(void *e)
{
	struct reason_entry *r = e;

	free(r->entry);
	free(r->reason);
}

static const struct merge_kind reason_kind = { sizeof(struct reason_entry), reason_key,
	reason_drop, NULL };

/* deniedResolvedAddresses, by canonical text. */
static char *
addr_key(const void *e)
{
	char buf[64];

	addr_range_format(e, buf, sizeof(buf));
	return xstrdup(buf);
}

static const struct merge_kind addr_kind = { sizeof(struct addr_range), addr_key, NULL, NULL };

static void
path_drop(void *e)
{
	free(((struct path_entry *)e)->path);
}

static const char *
path_shown(const void *e)
{
	return ((const struct path_entry *)e)->path;
}

static const struct merge_kind path_kind = { sizeof(struct path_entry), path_key, path_drop,
	path_shown };

/* deniedDomainReasons: the managed file's, then the user's for entries it gives none;
 * deniedResolvedAddresses likewise. */
static void
merge_reasons_addrs(struct mctx *c, size_t *nreasons, size_t *naddrs)
{
	struct settings *m = c->m, *o = c->out;

	o->net.reasons = merge_keyed(c, &reason_kind, m->net.reasons, m->net.nreasons,
	    o->net.reasons, &o->net.nreasons, NULL, NULL, nreasons);
	m->net.reasons = NULL;
	m->net.nreasons = 0;
	o->net.denied_addrs = merge_keyed(c, &addr_kind, m->net.denied_addrs,
	    m->net.ndenied_addrs, o->net.denied_addrs, &o->net.ndenied_addrs, NULL, NULL,
	    naddrs);
	m->net.denied_addrs = NULL;
	m->net.ndenied_addrs = 0;
}

/* A filesystem list; under only (allowManagedReadPathsOnly), none of the user's. */
static void
merge_paths(struct mctx *c, struct path_list *ml, struct path_list *ul, const char *list,
    const char *only, size_t *nmanaged)
{
	ul->v = merge_keyed(c, &path_kind, ml->v, ml->n, ul->v, &ul->n, list, only, nmanaged);
	ml->v = NULL;
	ml->n = 0;
}

/*
 * A list of strings. weaker: the list weakens the sandbox (allowUnixSockets), so a user's
 * entry the managed file does not have needs allowUserWeakerOptions.
 */
static void
merge_strings(struct mctx *c, struct strlist *ml, struct strlist *ul, const char *list,
    bool weaker, size_t *nmanaged)
{
	struct strlist v = { 0 }, keys = { 0 };
	size_t i;
	char *q;

	for (i = 0; i < ml->n; i++) {
		strlist_push(&keys, ml->v[i]);
		strlist_push(&v, ml->v[i]);
	}
	keys_sort(&keys);
	*nmanaged = v.n;
	for (i = 0; i < ul->n; i++) {
		if (keys_has(&keys, ul->v[i]))
			continue;
		if (weaker && !(c->mflags & SETTINGS_LAYER_USER_WEAKER)) {
			q = mc_quote(ul->v[i]);
			mc_err(c,
			    "%s: %s[%zu]: %s is not allowed by the managed policy %s: "
			    "this list weakens the sandbox, and the managed policy neither lists "
			    "the entry nor sets allowUserWeakerOptions; remove it",
			    c->uname, list, i, q, c->mname);
			free(q);
			continue;
		}
		strlist_push(&v, ul->v[i]);
	}
	strlist_free(ul);
	*ul = v;
	strlist_free(&keys);
}

/* ignoreViolations: the managed file's patterns, then the user's; a pattern both have
 * gets the user's substrings added to the managed file's. */
static void
merge_ignore(struct mctx *c, size_t *nmanaged)
{
	struct settings *m = c->m, *o = c->out;
	struct ignore_entry *v = xcalloc(m->nignore + o->nignore + 1, sizeof(*v));
	size_t n = 0, i, j, k;

	for (i = 0; i < m->nignore; i++)
		v[n++] = m->ignore[i];
	*nmanaged = n;
	for (i = 0; i < o->nignore; i++) {
		struct ignore_entry *u = &o->ignore[i];

		for (j = 0; j < *nmanaged; j++)
			if (strcmp(v[j].pattern, u->pattern) == 0)
				break;
		if (j == *nmanaged) {
			v[n++] = *u;
			continue;
		}
		for (k = 0; k < u->subs.n; k++)
			if (!strlist_contains(&v[j].subs, u->subs.v[k]))
				strlist_push(&v[j].subs, u->subs.v[k]);
		free(u->pattern);
		strlist_free(&u->subs);
	}
	free(m->ignore);
	m->ignore = NULL;
	m->nignore = 0;
	free(o->ignore);
	o->ignore = v;
	o->nignore = n;
}

/* --- options ---------------------------------------------------------------------------- */

enum merge_rule {
	MERGE_WEAKER, /* weakens the sandbox: a user's value the managed file does
	                           not give needs allowUserWeakerOptions */
	MERGE_EITHER, /* a boolean that strengthens: true if either file says so */
	MERGE_MAX,    /* an integer that strengthens as it grows */
	MERGE_VALUE,  /* one value, the managed file's when it gives one */
};

/*
 * Every option, by rule. A new option gets a row here (tests/unit/test_managed.c fails
 * until it has one). A BOOL or INT row of the schema, or any other single member of
 * struct settings, is OPTION(rule, "dotted.path", member); a list of strings is
 * STRINGS(...). Values are told apart from their defaults, compared and moved as bytes
 * and, where they own memory, compared by their canonical JSON (settings_to_json), so a
 * row needs nothing else (parentProxy and mitmProxy are whole objects: the managed
 * file's, or the user's only where weaker options are allowed). A list of strings whose
 * entries policy.bin's layers do not count takes SL_COUNT (dump --layers then names the
 * managed file for the whole list when it gives one), as stripResponseHeaders does:
 * every name either file strips is stripped.
 */
struct merge_option {
	const char *path;
	enum merge_rule rule;
	bool strings; /* a struct strlist, merged entry by entry */
	size_t off, size;
	enum settings_list list; /* strings: which list it is (SL_COUNT: not counted) */
};

#define MEMBER_SIZE(m) sizeof(((struct settings *)0)->m)
#define OPTION(rule, path, m) \
	{ \
		path, rule, false, offsetof(struct settings, m), MEMBER_SIZE(m), SL_COUNT \
	}
#define STRINGS(rule, path, m, l) \
	{ \
		path, rule, true, offsetof(struct settings, m), MEMBER_SIZE(m), l \
	}

static const struct merge_option merge_options[] = {
	OPTION(MERGE_EITHER, "network.strictAllowlist", net.strict_allowlist),
	STRINGS(MERGE_WEAKER, "network.allowUnixSockets", net.allow_unix_sockets,
	    SL_ALLOW_UNIX_SOCKETS),
	OPTION(MERGE_WEAKER, "network.allowAllUnixSockets", net.allow_all_unix_sockets),
	OPTION(MERGE_WEAKER, "network.allowLocalBinding", net.allow_local_binding),
	STRINGS(MERGE_WEAKER, "network.allowMachLookup", net.allow_mach_lookup,
	    SL_ALLOW_MACH_LOOKUP),
	OPTION(MERGE_WEAKER, "network.httpProxyPort", net.http_proxy_port),
	OPTION(MERGE_WEAKER, "network.socksProxyPort", net.socks_proxy_port),
	OPTION(MERGE_EITHER, "network.requireHostMatch", net.require_host_match),
	OPTION(MERGE_WEAKER, "network.mitmProxy", net.mitm),
	OPTION(MERGE_WEAKER, "network.parentProxy", net.parent),
	/* tlsTerminate (issue #14): a whole object, the managed file's when it gives one. */
	OPTION(MERGE_VALUE, "network.tlsTerminate", net.tls),
	OPTION(MERGE_EITHER, "network.refuseOpaqueTunnels", net.refuse_opaque_tunnels),
	STRINGS(MERGE_EITHER, "network.stripResponseHeaders", net.strip_headers, SL_COUNT),
	/* Lets a decider's header sets travel in clear text. */
	OPTION(MERGE_WEAKER, "network.allowPlaintextHeaderSet", net.allow_plaintext_header_set),
	OPTION(MERGE_WEAKER, "filesystem.disabled", fs.disabled),
	OPTION(MERGE_WEAKER, "filesystem.allowGitConfig", fs.allow_git_config),
	/* false (the watch, with its reader race) is the weaker: a user's false needs
	 * allowUserWeakerOptions, and the managed file's value wins. */
	OPTION(MERGE_WEAKER, "filesystem.denyReadHold", fs.deny_read_hold),
	OPTION(MERGE_WEAKER, "enableWeakerNestedSandbox", weaker_nested_sandbox),
	OPTION(MERGE_WEAKER, "allowNestedUserNamespaces", allow_nested_userns),
	OPTION(MERGE_WEAKER, "enableWeakerNetworkIsolation", weaker_network_isolation),
	OPTION(MERGE_WEAKER, "allowAppleEvents", allow_apple_events),
	OPTION(MERGE_WEAKER, "allowPty", allow_pty),
	OPTION(MERGE_MAX, "mandatoryDenySearchDepth", deny_search_depth),
	/* Turns off a diagnostic (the sandbox's own violation lines), not a protection:
	 * either file may turn it off, and --no-fs-violations does anyway. */
	OPTION(MERGE_EITHER, "noFsViolations", no_fs_violations),
	OPTION(MERGE_WEAKER, "bwrapPath", bwrap_path),
	OPTION(MERGE_VALUE, "windows", win),
};
#define NOPTIONS (sizeof(merge_options) / sizeof(merge_options[0]))

/* The keys merged by code of their own (merge_lists), and those that hold others or are
 * never stored. */
static const char *const merge_own[] = {
	"network",
	"filesystem",
	"network.allowedDomains",
	"network.deniedDomains",
	"network.deniedDomainReasons",
	"network.deniedResolvedAddresses",
	"network.filterRequest",
	"filesystem.denyRead",
	"filesystem.allowRead",
	"filesystem.allowWrite",
	"filesystem.denyWrite",
	"ignoreViolations",
	"git",
	"allowManagedDomainsOnly",
	"allowManagedReadPathsOnly",
	"allowUserWeakerOptions",
	"credentials",
};

bool
managed_merges(const char *path)
{
	size_t i;

	for (i = 0; i < NOPTIONS; i++)
		if (strcmp(merge_options[i].path, path) == 0)
			return true;
	for (i = 0; i < sizeof(merge_own) / sizeof(merge_own[0]); i++)
		if (strcmp(merge_own[i], path) == 0)
			return true;
	return false;
}

static const struct settings *
settings_defaults(void)
{
	static struct settings d;
	static bool done;

	if (!done) {
		settings_init_default(&d);
		done = true;
	}
	return &d;
}

static const void *
member(const struct settings *s, const struct merge_option *o)
{
	return (const char *)s + o->off;
}

static bool
opt_set(const struct settings *s, const struct merge_option *o)
{
	return memcmp(member(s, o), member(settings_defaults(), o), o->size) != 0;
}

const cJSON *
managed_json_at(const cJSON *root, const char *path)
{
	char *copy = xstrdup(path), *name, *save = NULL;
	const cJSON *j = root;

	for (name = strtok_r(copy, ".", &save); name != NULL && j != NULL;
	     name = strtok_r(NULL, ".", &save))
		j = cJSON_GetObjectItemCaseSensitive(j, name);
	free(copy);
	return j;
}

/* Whether both files give the option the same value: scalars by their bytes, anything
 * that owns memory by its canonical JSON (made for the comparison: it is rare). */
static bool
opt_equal(struct mctx *c, const struct merge_option *o)
{
	char *mt, *ut;
	cJSON *mj, *uj;
	bool same;

	if (o->size <= sizeof(int))
		return memcmp(member(c->m, o), member(c->out, o), o->size) == 0;
	mt = settings_to_json(c->m);
	ut = settings_to_json(c->out);
	mj = cJSON_Parse(mt);
	uj = cJSON_Parse(ut);
	if (mj == NULL || uj == NULL)
		fatalx("out of memory");
	same = cJSON_Compare(managed_json_at(mj, o->path), managed_json_at(uj, o->path), 1);
	cJSON_Delete(mj);
	cJSON_Delete(uj);
	free(mt);
	free(ut);
	return same;
}

/* The managed file's value replaces the user's default one: moved, so that freeing the
 * managed settings leaves it alone. */
static void
opt_take(struct mctx *c, const struct merge_option *o)
{
	memcpy((char *)c->out + o->off, member(c->m, o), o->size);
	memcpy((char *)c->m + o->off, member(settings_defaults(), o), o->size);
}

static void
merge_option(struct mctx *c, const struct merge_option *o)
{
	bool mset = opt_set(c->m, o), uset = opt_set(c->out, o);
	int mv, uv;

	if (mset && (!o->strings || o->list == SL_COUNT))
		strlist_push(&c->out->layers.options, o->path);
	if (o->strings) {
		size_t uncounted;

		merge_strings(c, (struct strlist *)(void *)((char *)c->m + o->off),
		    (struct strlist *)(void *)((char *)c->out + o->off), o->path,
		    o->rule == MERGE_WEAKER,
		    o->list < SL_COUNT ? &c->out->layers.managed[o->list] : &uncounted);
		return;
	}
	switch (o->rule) {
	case MERGE_EITHER:
		if (mset && !uset)
			opt_take(c, o);
		return;
	case MERGE_MAX:
		memcpy(&mv, member(c->m, o), sizeof(int));
		memcpy(&uv, member(c->out, o), sizeof(int));
		if (mv > uv)
			opt_take(c, o);
		return;
	case MERGE_WEAKER:
	case MERGE_VALUE:
		break;
	}
	if (!uset) {
		if (mset)
			opt_take(c, o);
	} else if (mset) {
		if (!opt_equal(c, o))
			mc_err(c,
			    "%s: %s: the managed policy %s sets this to another value, "
			    "which is the one used; remove it, or give the same value",
			    c->uname, o->path, c->mname);
	} else if (o->rule == MERGE_WEAKER && !(c->mflags & SETTINGS_LAYER_USER_WEAKER))
		mc_err(c,
		    "%s: %s: not allowed by the managed policy %s: this option weakens "
		    "the sandbox, and the managed policy neither sets it nor sets "
		    "allowUserWeakerOptions; remove it",
		    c->uname, o->path, c->mname);
}

/*
 * mitmProxy and tlsTerminate exclude each other in one file (settings.c); one from each
 * file is refused the same way, whichever gives which: the merge would otherwise send
 * a host both through the inspection proxy and through srt's own termination.
 */
static void
merge_exclusive(struct mctx *c, bool managed_mitm)
{
	if (!c->out->net.mitm.present || !c->out->net.tls.present)
		return;
	mc_err(c,
	    "%s: network.%s: the managed policy %s sets network.%s: mitmProxy and "
	    "tlsTerminate cannot be used together: a host goes either through the "
	    "inspection proxy or through srt's own TLS termination; remove it",
	    c->uname, managed_mitm ? "tlsTerminate" : "mitmProxy", c->mname,
	    managed_mitm ? "mitmProxy" : "tlsTerminate");
}

/*
 * A key of the schema that the tables above do not name (a new option whose row was
 * forgotten) fails closed: a boolean or integer is taken to weaken the sandbox, anything
 * else is refused when either file gives it a value.
 */
static void
merge_unknown(struct mctx *c)
{
	const struct settings_object *obj;
	const struct settings_key *k;
	struct merge_option o;
	char *path, *dt = NULL, *mt = NULL, *ut = NULL;
	cJSON *dj = NULL, *mj = NULL, *uj = NULL;
	const cJSON *dv;

	for (size_t i = 0; i < 3; i++) {
		obj = settings_objects[i];
		for (k = obj->keys; k < obj->keys + obj->nkeys; k++) {
			if (k->flags &
			    (SETTINGS_UNSUPPORTED | SETTINGS_HELPER | SETTINGS_MANAGED |
				SETTINGS_CALLBACK))
				continue;
			path = *obj->path ? xasprintf("%s.%s", obj->path, k->name)
					  : xstrdup(k->name);
			if (managed_merges(path)) {
				free(path);
				continue;
			}
			if (k->kind != SETTINGS_VALUE) {
				o = (struct merge_option){ path, MERGE_WEAKER, false, k->off,
					k->kind == SETTINGS_BOOL ? sizeof(bool) : sizeof(int),
					SL_COUNT };
				merge_option(c, &o);
				free(path);
				continue;
			}
			if (dj == NULL) {
				struct settings d;

				settings_init_default(&d);
				dj = cJSON_Parse(dt = settings_to_json(&d));
				mj = cJSON_Parse(mt = settings_to_json(c->m));
				uj = cJSON_Parse(ut = settings_to_json(c->out));
				if (dj == NULL || mj == NULL || uj == NULL)
					fatalx("out of memory");
			}
			dv = managed_json_at(dj, path);
			if (!cJSON_Compare(managed_json_at(mj, path), dv, 1) ||
			    !cJSON_Compare(managed_json_at(uj, path), dv, 1))
				mc_err(c,
				    "%s: %s: srt cannot merge this setting with the managed "
				    "policy %s yet; remove it from both files",
				    c->uname, path, c->mname);
			free(path);
		}
	}
	cJSON_Delete(dj);
	cJSON_Delete(mj);
	cJSON_Delete(uj);
	free(dt);
	free(mt);
	free(ut);
}

/*
 * credentials (masks): the managed file's entries stand as they are. Its masks come first
 * and a user's entry for the same variable or file is left out (with a warning when it
 * differs: other inject hosts would widen where the real value goes); the user's other
 * masks are added, since masking more hides more. allowPlaintextInject and each
 * passthrough of sigv4 weaken: the user's needs allowUserWeakerOptions unless the managed
 * file sets it too. awsPairs: the managed file's, then the user's for other key ids.
 */
static void
merge_cred(struct mctx *c)
{
	struct settings_cred *m = &c->m->cred, *o = &c->out->cred, r = { 0 };
	static const char *const sv[] = { "streaming", "presigned", "sigv4a" };
	size_t i, k;
	char *mt, *ut;

	if (m->nmask > 0 || m->naws > 0 || m->plaintext_inject || m->sigv4[0] || m->sigv4[1] ||
	    m->sigv4[2])
		strlist_push(&c->out->layers.options, "credentials");
	if (o->plaintext_inject && !m->plaintext_inject &&
	    !(c->mflags & SETTINGS_LAYER_USER_WEAKER))
		mc_err(c,
		    "%s: credentials.allowPlaintextInject: not allowed by the managed "
		    "policy %s: this option weakens the sandbox, and the managed policy neither "
		    "sets it nor sets allowUserWeakerOptions; remove it",
		    c->uname, c->mname);
	r.plaintext_inject = m->plaintext_inject || o->plaintext_inject;
	for (i = 0; i < 3; i++) {
		if (o->sigv4[i] && !m->sigv4[i] && !(c->mflags & SETTINGS_LAYER_USER_WEAKER))
			mc_err(c,
			    "%s: credentials.sigv4.%s: not allowed by the managed policy "
			    "%s: \"passthrough\" weakens the sandbox, and the managed policy "
			    "neither sets it nor sets allowUserWeakerOptions; remove it",
			    c->uname, sv[i], c->mname);
		r.sigv4[i] = m->sigv4[i] || o->sigv4[i];
	}
	r.mask = xcalloc(m->nmask + o->nmask + 1, sizeof(*r.mask));
	for (i = 0; i < m->nmask; i++)
		r.mask[r.nmask++] = m->mask[i];
	for (i = 0; i < o->nmask; i++) {
		for (k = 0; k < m->nmask; k++)
			if (m->mask[k].file == o->mask[i].file &&
			    strcmp(m->mask[k].id, o->mask[i].id) == 0)
				break;
		if (k == m->nmask) {
			r.mask[r.nmask++] = o->mask[i];
			continue;
		}
		/* The same entry in both files is no change; compared by value. */
		mt = settings_cred_mask_json(&m->mask[k]);
		ut = settings_cred_mask_json(&o->mask[i]);
		if (strcmp(mt, ut) != 0 && c->warns != NULL)
			diags_add(c->warns,
			    "%s: credentials.%s \"%s\": the managed policy %s "
			    "masks it too, and its entry is the one used",
			    c->uname, o->mask[i].file ? "files" : "envVars", o->mask[i].id,
			    c->mname);
		free(mt);
		free(ut);
		settings_cred_mask_clear(&o->mask[i]);
	}
	r.aws = xcalloc(m->naws + o->naws + 1, sizeof(*r.aws));
	for (i = 0; i < m->naws; i++)
		r.aws[r.naws++] = m->aws[i];
	for (i = 0; i < o->naws; i++) {
		for (k = 0; k < m->naws; k++)
			if (strcmp(m->aws[k].key_id, o->aws[i].key_id) == 0)
				break;
		if (k == m->naws) {
			r.aws[r.naws++] = o->aws[i];
			continue;
		}
		free(o->aws[i].key_id);
		free(o->aws[i].secret);
		free(o->aws[i].token);
	}
	/* Moved: the managed settings keep nothing of what went into the result. The deny
	 * lists were merged by merge_lists and stay where they are. */
	free(m->mask);
	free(m->aws);
	free(o->mask);
	free(o->aws);
	m->mask = NULL;
	m->nmask = 0;
	m->aws = NULL;
	m->naws = 0;
	r.deny_files = o->deny_files;
	r.deny_env = o->deny_env;
	*o = r;
}

/* --- the whole ------------------------------------------------------------------------ */

static void
merge_lists(struct mctx *c)
{
	struct settings *m = c->m, *o = c->out;
	size_t *n = o->layers.managed;

	merge_rules(c, &m->net.allowed, &m->net.nallowed, &o->net.allowed, &o->net.nallowed,
	    "network.allowedDomains",
	    (c->mflags & SETTINGS_LAYER_DOMAINS_ONLY) ? "allowManagedDomainsOnly" : NULL,
	    &n[SL_ALLOWED_DOMAINS]);
	merge_rules(c, &m->net.denied, &m->net.ndenied, &o->net.denied, &o->net.ndenied,
	    "network.deniedDomains", NULL, &n[SL_DENIED_DOMAINS]);
	merge_reasons_addrs(c, &n[SL_DENIED_REASONS], &n[SL_DENIED_ADDRS]);
	merge_paths(c, &m->fs.deny_read, &o->fs.deny_read, "filesystem.denyRead", NULL,
	    &n[SL_DENY_READ]);
	merge_paths(c, &m->fs.allow_read, &o->fs.allow_read, "filesystem.allowRead",
	    (c->mflags & SETTINGS_LAYER_READ_PATHS_ONLY) ? "allowManagedReadPathsOnly" : NULL,
	    &n[SL_ALLOW_READ]);
	merge_paths(c, &m->fs.allow_write, &o->fs.allow_write, "filesystem.allowWrite", NULL,
	    &n[SL_ALLOW_WRITE]);
	merge_paths(c, &m->fs.deny_write, &o->fs.deny_write, "filesystem.denyWrite", NULL,
	    &n[SL_DENY_WRITE]);
	merge_ignore(c, &n[SL_IGNORE]);
	merge_strings(c, &m->git_safe_dirs, &o->git_safe_dirs, "git.safeDirectories", false,
	    &n[SL_GIT_SAFE_DIRS]);
	/* credentials: both files' "deny" entries, each keeping from the sandbox what it
	 * names; the user's can only add to the managed file's. Then the masks and their
	 * options (merge_cred), which leaves the deny lists as they are here. */
	merge_paths(c, &m->cred.deny_files, &o->cred.deny_files, "credentials.files", NULL,
	    &n[SL_CRED_FILES]);
	merge_strings(c, &m->cred.deny_env, &o->cred.deny_env, "credentials.envVars", false,
	    &n[SL_CRED_ENV]);
	merge_cred(c);
}

int
managed_apply(const struct managed *m, struct settings *user, const char *user_name,
    struct settings *out, struct diags *errs, struct diags *warns)
{
	struct settings ms;
	struct mctx c;
	size_t i;
	bool managed_mitm;

	*out = *user;
	memset(user, 0, sizeof(*user));
	/* What a compiled policy says about its layers is never believed: it is made anew. */
	strlist_free(&out->layers.options);
	memset(&out->layers, 0, sizeof(out->layers));
	if (m == NULL || !m->present)
		return 0;
	/* Its own warnings were given when it was loaded; not once more per merge. */
	if (settings_parse_managed(m->text, m->len, m->path, &ms, errs, NULL) != 0) {
		settings_free(out);
		return -1;
	}
	memset(&c, 0, sizeof(c));
	c.mname = m->path;
	c.uname = user_name != NULL ? user_name : "settings";
	c.mflags = ms.layers.flags;
	c.m = &ms;
	c.out = out;
	c.errs = errs;
	c.warns = warns;
	/* Before the merge, which moves the managed file's values into out. */
	managed_mitm = ms.net.mitm.present;
	merge_lists(&c);
	for (i = 0; i < NOPTIONS; i++)
		merge_option(&c, &merge_options[i]);
	merge_exclusive(&c, managed_mitm);
	merge_unknown(&c);
	settings_free(&ms);
	if (c.nerr > 0) {
		settings_free(out);
		return -1;
	}
	out->layers.flags = SETTINGS_LAYER_MERGED | c.mflags;
	return 0;
}
