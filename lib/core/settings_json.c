/*
 * The canonical JSON of a settings value (settings_to_json, what srt-policy dump prints):
 * every key the schema stores, in its order (settings_schema.h), two-space indent. It is
 * built as a cJSON tree, then written by json_emit, since cJSON_Print indents with tabs.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "settings.h"

static cJSON *
jcheck(cJSON *j)
{
	if (j == NULL)
		fatalx("out of memory");
	return j;
}

static void
jadd(cJSON *obj, const char *key, cJSON *item)
{
	if (!cJSON_AddItemToObject(obj, key, jcheck(item)))
		fatalx("out of memory");
}

/* A setting's object when the file has the setting (its fields to come), else NULL. */
static cJSON *
jobject_if(bool present)
{
	return present ? jcheck(cJSON_CreateObject()) : NULL;
}

/* key: v, when v is set (a field the file left out stays out). */
static void
jadd_set(cJSON *obj, const char *key, const char *v)
{
	if (v != NULL)
		jadd(obj, key, cJSON_CreateString(v));
}

static void
jpush(cJSON *arr, cJSON *item)
{
	if (!cJSON_AddItemToArray(arr, jcheck(item)))
		fatalx("out of memory");
}

static cJSON *
jstrlist(const struct strlist *l)
{
	cJSON *a = jcheck(cJSON_CreateArray());

	for (size_t i = 0; i < l->n; i++)
		jpush(a, cJSON_CreateString(l->v[i]));
	return a;
}

static cJSON *
jpaths(const struct path_list *l)
{
	cJSON *a = jcheck(cJSON_CreateArray()), *o;

	for (size_t i = 0; i < l->n; i++) {
		if (!l->v[i].literal) {
			jpush(a, cJSON_CreateString(l->v[i].path));
			continue;
		}
		o = jcheck(cJSON_CreateObject());
		jadd(o, "path", cJSON_CreateString(l->v[i].path));
		jadd(o, "literal", cJSON_CreateTrue());
		jpush(a, o);
	}
	return a;
}

static cJSON *
jrules(const struct dom_rule *v, size_t n)
{
	cJSON *a = jcheck(cJSON_CreateArray());

	for (size_t i = 0; i < n; i++)
		jpush(a, cJSON_CreateString(v[i].spelled));
	return a;
}

/* A BOOL or INT row's value, or NULL for an integer that is not set. */
static cJSON *
joption(const struct settings *s, const struct settings_key *k)
{
	int v;

	if (k->kind == SETTINGS_BOOL)
		return cJSON_CreateBool(settings_bool(s, k));
	v = settings_int(s, k);
	return settings_int_unset(k, v) ? NULL : cJSON_CreateNumber(v);
}

/* The value of a KEY row of the network object, or NULL if it has none to write. */
static cJSON *
jnetwork(const struct settings *s, int key)
{
	cJSON *o;
	char buf[64];
	size_t i;

	switch (key) {
	case SN_allowedDomains:
		return jrules(s->net.allowed, s->net.nallowed);
	case SN_deniedDomains:
		return jrules(s->net.denied, s->net.ndenied);
	case SN_deniedDomainReasons:
		o = jcheck(cJSON_CreateObject());
		for (i = 0; i < s->net.nreasons; i++)
			jadd(o, s->net.reasons[i].entry,
			    cJSON_CreateString(s->net.reasons[i].reason));
		return o;
	case SN_deniedResolvedAddresses:
		o = jcheck(cJSON_CreateArray());
		for (i = 0; i < s->net.ndenied_addrs; i++) {
			addr_range_format(&s->net.denied_addrs[i], buf, sizeof(buf));
			jpush(o, cJSON_CreateString(buf));
		}
		return o;
	case SN_allowUnixSockets:
		return jstrlist(&s->net.allow_unix_sockets);
	case SN_allowMachLookup:
		return jstrlist(&s->net.allow_mach_lookup);
	case SN_mitmProxy:
		if ((o = jobject_if(s->net.mitm.present)) != NULL) {
			jadd_set(o, "socketPath", s->net.mitm.socket_path);
			jadd(o, "domains", jstrlist(&s->net.mitm.domains));
		}
		return o;
	case SN_parentProxy:
		/* Only the fields the file set: each one absent falls back to the
		 * environment. */
		if ((o = jobject_if(s->net.parent.present)) != NULL) {
			jadd_set(o, "http", s->net.parent.http);
			jadd_set(o, "https", s->net.parent.https);
			jadd_set(o, "noProxy", s->net.parent.no_proxy);
		}
		return o;
	case SN_stripResponseHeaders:
		return jstrlist(&s->net.strip_headers);
	case SN_tlsTerminate:
		/* Only the fields the file set. */
		if ((o = jobject_if(s->net.tls.present)) == NULL)
			return NULL;
		jadd_set(o, "caCertPath", s->net.tls.ca_cert_path);
		jadd_set(o, "caKeyPath", s->net.tls.ca_key_path);
		if (s->net.tls.exclude_domains.n > 0)
			jadd(o, "excludeDomains", jstrlist(&s->net.tls.exclude_domains));
		if (s->net.tls.extra_ca_paths.n > 0)
			jadd(o, "extraCaCertPaths", jstrlist(&s->net.tls.extra_ca_paths));
		if (s->net.tls.max_tunnels != 0)
			jadd(o, "maxTunnels", cJSON_CreateNumber(s->net.tls.max_tunnels));
		if (s->net.tls.handshake_timeout_ms != 0)
			jadd(o, "handshakeTimeoutMs",
			    cJSON_CreateNumber(s->net.tls.handshake_timeout_ms));
		return o;
	}
	return NULL;
}

static cJSON *
jfilesystem(const struct settings *s, int key)
{
	switch (key) {
	case SF_denyRead:
		return jpaths(&s->fs.deny_read);
	case SF_allowRead:
		return jpaths(&s->fs.allow_read);
	case SF_allowWrite:
		return jpaths(&s->fs.allow_write);
	case SF_denyWrite:
		return jpaths(&s->fs.deny_write);
	}
	return NULL;
}

/* Only what the file set: an unset field keeps its default wherever the file is used. */
static cJSON *
jwindows(const struct settings_windows *w)
{
	cJSON *o = jcheck(cJSON_CreateObject()), *a, *sw;

	if (w->backend != WIN_BACKEND_UNSET)
		jadd(o, "backend",
		    cJSON_CreateString(w->backend == WIN_BACKEND_MXC ? "mxc" : "srt-win"));
	if (w->sandbox_user != NULL)
		jadd(o, "sandboxUser", cJSON_CreateString(w->sandbox_user));
	if (w->sublayer_guid != NULL)
		jadd(o, "sublayerGuid", cJSON_CreateString(w->sublayer_guid));
	if (w->wfp_sublayer_guid != NULL)
		jadd(o, "wfpSublayerGuid", cJSON_CreateString(w->wfp_sublayer_guid));
	if (w->port_lo != 0) {
		a = jcheck(cJSON_CreateArray());
		jpush(a, cJSON_CreateNumber(w->port_lo));
		jpush(a, cJSON_CreateNumber(w->port_hi));
		jadd(o, "proxyPortRange", a);
	}
	if (w->srt_win_path != NULL) {
		sw = jcheck(cJSON_CreateObject());
		jadd(sw, "path", cJSON_CreateString(w->srt_win_path));
		jadd(o, "srtWin", sw);
	}
	return o;
}

/* The "deny" entries, the only ones srt keeps; nothing when there are none (an empty
 * block denies nothing, so the dump compiles to the same policy). */
static cJSON *
jcredentials(const struct settings_cred *cr)
{
	cJSON *o, *a, *e;
	size_t i;

	if (cr->deny_files.n == 0 && cr->deny_env.n == 0)
		return NULL;
	o = jcheck(cJSON_CreateObject());
	if (cr->deny_files.n > 0) {
		a = jcheck(cJSON_CreateArray());
		for (i = 0; i < cr->deny_files.n; i++) {
			e = jcheck(cJSON_CreateObject());
			jadd(e, "path", cJSON_CreateString(cr->deny_files.v[i].path));
			jadd(e, "mode", cJSON_CreateString("deny"));
			jpush(a, e);
		}
		jadd(o, "files", a);
	}
	if (cr->deny_env.n > 0) {
		a = jcheck(cJSON_CreateArray());
		for (i = 0; i < cr->deny_env.n; i++) {
			e = jcheck(cJSON_CreateObject());
			jadd(e, "name", cJSON_CreateString(cr->deny_env.v[i]));
			jadd(e, "mode", cJSON_CreateString("deny"));
			jpush(a, e);
		}
		jadd(o, "envVars", a);
	}
	return o;
}

static cJSON *jobject(const struct settings *, const struct settings_object *);

static cJSON *
jroot(const struct settings *s, int key)
{
	cJSON *o;
	size_t i;

	switch (key) {
	case SR_network:
		return jobject(s, &settings_network);
	case SR_filesystem:
		return jobject(s, &settings_filesystem);
	case SR_ignoreViolations:
		o = jcheck(cJSON_CreateObject());
		for (i = 0; i < s->nignore; i++)
			jadd(o, s->ignore[i].pattern, jstrlist(&s->ignore[i].subs));
		return o;
	case SR_bwrapPath:
		return s->bwrap_path != NULL ? cJSON_CreateString(s->bwrap_path) : NULL;
	case SR_git:
		o = jcheck(cJSON_CreateObject());
		jadd(o, "safeDirectories", jstrlist(&s->git_safe_dirs));
		return o;
	case SR_credentials:
		return jcredentials(&s->cred);
	case SR_windows:
		/* Only when the file has one; an empty block is written as {}, so that the
		 * dump compiles to the same policy. */
		return s->win.present ? jwindows(&s->win) : NULL;
	}
	return NULL;
}

/* Every key of one object in the schema's order; what srt refuses or ignores is never
 * stored, so never written. */
static cJSON *
jobject(const struct settings *s, const struct settings_object *obj)
{
	cJSON *o = jcheck(cJSON_CreateObject()), *v;
	const struct settings_key *k;

	for (size_t i = 0; i < obj->nkeys; i++) {
		k = &obj->keys[i];
		if (k->flags & (SETTINGS_UNSUPPORTED | SETTINGS_HELPER | SETTINGS_CALLBACK))
			continue;
		if (k->kind != SETTINGS_VALUE)
			v = joption(s, k);
		else if (obj == &settings_network)
			v = jnetwork(s, (int)i);
		else if (obj == &settings_filesystem)
			v = jfilesystem(s, (int)i);
		else
			v = jroot(s, (int)i);
		if (v != NULL)
			jadd(o, k->name, v);
	}
	return o;
}

static void
sb_indent(struct buf *b, int depth)
{
	for (int i = 0; i < depth; i++)
		buf_add(b, "  ", 2);
}

/* cJSON_Print indents with tabs; the canonical form uses two spaces. */
static void
json_emit(struct buf *b, const cJSON *j, int depth)
{
	const cJSON *m;
	char num[32];
	bool obj;

	if (cJSON_IsString(j))
		buf_add_jstr(b, j->valuestring, strlen(j->valuestring));
	else if (cJSON_IsNumber(j)) {
		snprintf(num, sizeof(num), "%.17g", j->valuedouble);
		buf_adds(b, num);
	} else if (cJSON_IsTrue(j))
		buf_adds(b, "true");
	else if (cJSON_IsFalse(j))
		buf_adds(b, "false");
	else if (cJSON_IsArray(j) || cJSON_IsObject(j)) {
		obj = cJSON_IsObject(j);
		if (j->child == NULL) {
			buf_adds(b, obj ? "{}" : "[]");
			return;
		}
		buf_adds(b, obj ? "{\n" : "[\n");
		for (m = j->child; m != NULL; m = m->next) {
			sb_indent(b, depth + 1);
			if (obj) {
				buf_add_jstr(b, m->string, strlen(m->string));
				buf_adds(b, ": ");
			}
			json_emit(b, m, depth + 1);
			buf_adds(b, m->next != NULL ? ",\n" : "\n");
		}
		sb_indent(b, depth);
		buf_adds(b, obj ? "}" : "]");
	} else
		buf_adds(b, "null");
}

char *
settings_to_json(const struct settings *s)
{
	struct buf b = { 0 };
	cJSON *root = jobject(s, &settings_root);

	json_emit(&b, root, 0);
	buf_adds(&b, "\n");
	cJSON_Delete(root);
	return buf_steal(&b);
}
