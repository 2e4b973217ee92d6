/*
 * install, uninstall, status, user, wfp, probe: the machine side of the sandbox.
 *
 * install (elevated; srt-win asks for elevation itself) creates the group
 * sandbox-runtime-users and the account srt-sandbox (a member of it, with a random
 * password kept in the machine record), and adds the WFP filters keyed on the account's
 * SID at ALE_AUTH_CONNECT (v4 and v6): permit loopback connects to the proxy port range,
 * block every other connect. The filters match only that account, so nobody else's
 * network changes. --dry-run prints what it would create, as JSON, and touches nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"
#include "sys.h"

#define REC_INSTALL "install"
#define ACCOUNT_COMMENT "srt sandbox account: runs sandboxed commands (srt-win)"
#define GROUP_COMMENT "srt sandbox accounts (srt-win)"

/* Filter weights: the permits above the blocks. */
#define W_PERMIT 15
#define W_BLOCK 1

void
install_record_free(struct install_record *r)
{
	/* The sandbox account's password: gone from memory with the record. */
	if (r->password != NULL)
		explicit_bzero(r->password, strlen(r->password));
	free(r->password);
	free(r->user);
	free(r->sid);
	free(r->sublayer);
	memset(r, 0, sizeof(*r));
}

static char *
str_field(const struct json_value *o, const char *k)
{
	const struct json_value *v = json_tree_get(o, k);

	return v != NULL && v->type == JSON_STRING ? xstrdup(v->str) : NULL;
}

int
install_record_read(struct install_record *r)
{
	const struct json_value *pr, *lb, *ver;
	struct json_value *v;
	char *text = NULL, err[128];
	int rc;

	memset(r, 0, sizeof(*r));
	if ((rc = wa_record_get(REC_INSTALL, &text)) != 0) {
		if (rc < 0)
			sw_err("system", "srt-win: reading the install record: %s", wa_error());
		return rc;
	}
	v = json_tree_parse(text, strlen(text), err, sizeof(err));
	free(text);
	if (v == NULL || v->type != JSON_OBJECT)
		goto bad;
	r->user = str_field(v, "user");
	r->sid = str_field(v, "sid");
	r->password = str_field(v, "password");
	r->sublayer = str_field(v, "sublayer");
	pr = json_tree_get(v, "port_range");
	lb = json_tree_get(v, "allow_loopback");
	ver = json_tree_get(v, "version");
	if (r->user == NULL || r->sid == NULL || r->password == NULL || r->sublayer == NULL ||
	    pr == NULL || pr->type != JSON_ARRAY || pr->child == NULL ||
	    pr->child->type != JSON_NUMBER || pr->child->next == NULL ||
	    pr->child->next->type != JSON_NUMBER || lb == NULL || ver == NULL ||
	    ver->type != JSON_NUMBER)
		goto bad;
	r->port_lo = (int)pr->child->num;
	r->port_hi = (int)pr->child->next->num;
	r->allow_loopback = lb->type == JSON_TRUE;
	r->version = (int)ver->num;
	json_tree_free(v);
	return 0;
bad:
	json_tree_free(v);
	install_record_free(r);
	sw_err("system", "srt-win: the install record is damaged; run srt-win install --force");
	return -1;
}

int
install_record_need(const char *cmd, struct install_record *r)
{
	int rc = install_record_read(r);

	if (rc == 1)
		sw_err("not_provisioned",
		    "srt-win: %s: the sandbox account is not installed; "
		    "run srt-win install",
		    cmd);
	return rc == 0 ? SW_OK : rc == 1 ? SW_ENOTPROVISIONED : SW_ESYSTEM;
}

static char *
install_record_json(const struct install_record *r)
{
	struct buf b = { 0 };

	buf_addf(&b, "{\"version\":%d,\"user\":", r->version);
	buf_add_jstrs(&b, r->user);
	buf_add_jmember(&b, ",\"sid\":", r->sid);
	buf_add_jmember(&b, ",\"password\":", r->password);
	buf_add_jmember(&b, ",\"sublayer\":", r->sublayer);
	buf_addf(&b, ",\"port_range\":[%d,%d],\"allow_loopback\":%s}", r->port_lo, r->port_hi,
	    r->allow_loopback ? "true" : "false");
	return buf_steal(&b);
}

/* A Windows local account name: 1 to 20 characters, none of " / \ [ ] : ; | = , + * ? < >
 * @ or a control character, not only dots and spaces. */
static int
valid_user(const char *s)
{
	size_t chars = 0;
	int other = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f || strchr("\"/\\[]:;|=,+*?<>@", *p) != NULL)
			return 0;
		if ((*p & 0xc0) != 0x80)
			chars += *p >= 0xf0 ? 2 : 1;
		if (*p != '.' && *p != ' ')
			other = 1;
	}
	return chars >= 1 && chars <= 20 && other;
}

size_t
install_filters(const struct install_opts *o, const char *sid, struct wa_filter *f, size_t max)
{
	size_t n = 0;

	if (max < 6)
		return 0;
	for (int v6 = 0; v6 < 2; v6++) {
		f[n] = (struct wa_filter){ v6 ? "srt-win permit loopback proxy ports v6"
					      : "srt-win permit loopback proxy ports v4",
			v6, 1, sid, 1, o->port_lo, o->port_hi, W_PERMIT };
		n++;
		if (o->allow_loopback) {
			/* Every loopback port but one, which stays blocked so that the fence
			 * can still be seen to work (wfp verify --allow-loopback). */
			f[n] = (struct wa_filter){ v6 ? "srt-win permit loopback v6"
						      : "srt-win permit loopback v4",
				v6, 1, sid, 1, SW_PROBE_PORT + 1, 65535, W_PERMIT };
			n++;
		}
		f[n] = (struct wa_filter){ v6 ? "srt-win block v6" : "srt-win block v4", v6, 0,
			sid, 0, 0, 0, W_BLOCK };
		n++;
	}
	return n;
}

char *
install_dry_run_json(const struct install_opts *o)
{
	struct wa_filter f[8];
	size_t n = install_filters(o, o->user, f, 8);
	struct buf b = { 0 };

	buf_add_jmember(&b, "{\"account\":{\"name\":", o->user);
	buf_add_jmember(&b, ",\"comment\":", ACCOUNT_COMMENT);
	buf_add_jmember(&b, ",\"member_of\":[", SW_GROUP);
	buf_adds(&b,
	    "],\"password\":\"random, 32 characters, kept in the machine record\"},"
	    "\"group\":{\"name\":");
	buf_add_jstrs(&b, SW_GROUP);
	buf_add_jmember(&b, ",\"comment\":", GROUP_COMMENT);
	buf_add_jmember(&b, "},\"sublayer\":", o->sublayer);
	buf_addf(&b, ",\"port_range\":[%d,%d],\"allow_loopback\":%s,\"filters\":[", o->port_lo,
	    o->port_hi, o->allow_loopback ? "true" : "false");
	for (size_t i = 0; i < n; i++) {
		buf_add_jmember(&b, i ? ",{\"name\":" : "{\"name\":", f[i].name);
		buf_addf(&b,
		    ",\"layer\":\"FWPM_LAYER_ALE_AUTH_CONNECT_V%d\",\"action\":\"%s\","
		    "\"user\":",
		    f[i].v6 ? 6 : 4, f[i].permit ? "permit" : "block");
		buf_add_jstrs(&b, f[i].user_sid);
		if (f[i].loopback)
			buf_addf(&b, ",\"remote_address\":\"%s\"",
			    f[i].v6 ? "::1/128" : "127.0.0.0/8");
		if (f[i].port_lo != 0)
			buf_addf(&b, ",\"remote_ports\":[%d,%d]", f[i].port_lo, f[i].port_hi);
		buf_addf(&b, ",\"weight\":%u,\"persistent\":true}", (unsigned)f[i].weight);
	}
	buf_adds(&b, "]}\n");
	return buf_steal(&b);
}

static int
install_parse(const char *cmd, int argc, char **argv, struct install_opts *o, int install)
{
	const char *range = NULL;
	struct strlist rest = { 0 };
	const struct opt iopts[] = {
		{ "--sandbox-user", OT_STR, &o->user },
		{ "--sublayer-guid", OT_STR, &o->sublayer },
		{ "--proxy-port-range", OT_STR, &range },
		{ "--allow-loopback", OT_FLAG, &o->allow_loopback },
		{ "--force", OT_FLAG, &o->force },
		{ "--dry-run", OT_FLAG, &o->dry_run },
		{ "--elevated-step", OT_FLAG, &o->elevated_step },
		{ NULL, OT_FLAG, NULL },
	};
	const struct opt uopts[] = {
		{ "--sublayer-guid", OT_STR, &o->sublayer },
		{ "--keep-user", OT_FLAG, &o->keep_user },
		{ "--elevated-step", OT_FLAG, &o->elevated_step },
		{ NULL, OT_FLAG, NULL },
	};
	int rc = opts_parse(cmd, argc, argv, install ? iopts : uopts, &rest, 0);

	strlist_free(&rest);
	if (rc != 0)
		return -1;
	o->port_lo = SW_PORT_LO;
	o->port_hi = SW_PORT_HI;
	if (range != NULL && parse_port_range(range, &o->port_lo, &o->port_hi) != 0) {
		sw_err("usage",
		    "srt-win: %s: invalid --proxy-port-range \"%s\" (LO-HI, "
		    "1 <= LO <= HI <= 65535, at most %d ports wider)",
		    cmd, range, SW_PORT_RANGE_MAX);
		return -1;
	}
	if (o->user == NULL)
		o->user = SW_DEFAULT_USER;
	else if (!valid_user(o->user)) {
		sw_err("usage",
		    "srt-win: %s: --sandbox-user \"%s\" is not a Windows account "
		    "name (1 to 20 characters, none of \" / \\ [ ] : ; | = , + * ? < > @)",
		    cmd, o->user);
		return -1;
	}
	if (o->sublayer == NULL)
		o->sublayer = SW_DEFAULT_SUBLAYER;
	else if (!util_is_uuid(o->sublayer)) {
		sw_err("usage",
		    "srt-win: %s: --sublayer-guid \"%s\" is not a GUID "
		    "(8-4-4-4-12 hex digits)",
		    cmd, o->sublayer);
		return -1;
	}
	return 0;
}

/* Not elevated: run this same command elevated and relay its status. */
static int
elevate(const char *cmd, int argc, char **argv)
{
	struct strlist a = { 0 };
	char *self = NULL;
	int status, r;

	if (wa_self_path(&self) != 0) {
		sw_err("system", "srt-win: %s: own path: %s", cmd, wa_error());
		return SW_ESYSTEM;
	}
	strlist_push_owned(&a, self);
	strlist_push(&a, cmd);
	for (int i = 0; i < argc; i++)
		strlist_push(&a, argv[i]);
	strlist_push(&a, "--elevated-step");
	r = wa_run_elevated(a.v, &status);
	strlist_free(&a);
	if (r == 1) {
		sw_err("cancelled",
		    "srt-win: %s: the elevation prompt was declined; nothing "
		    "was changed",
		    cmd);
		return SW_ECANCELLED;
	}
	if (r < 0) {
		sw_err("system", "srt-win: %s: cannot start elevated: %s", cmd, wa_error());
		return SW_ESYSTEM;
	}
	/* The elevated copy's own messages went to its hidden console. */
	if (status != SW_OK)
		sw_err("elevated_step_failed",
		    "srt-win: %s: the elevated step failed with exit "
		    "status %d (see srt-win(1)); run `srt-win -d %s` from an elevated prompt to "
		    "see its messages",
		    cmd, status, cmd);
	return status;
}

static char *
random_password(void)
{
	static const char alpha[] = "ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
				    "23456789-_!#";
	unsigned char raw[32];
	char *p = xmalloc(37);

	if (wa_random(raw, sizeof(raw)) != 0) {
		free(p);
		return NULL;
	}
	/* A fixed prefix meets any complexity rule; the rest carries the entropy. */
	memcpy(p, "Aa1!", 4);
	for (size_t i = 0; i < sizeof(raw); i++)
		p[4 + i] = alpha[raw[i] % (sizeof(alpha) - 1)];
	p[36] = '\0';
	return p;
}

static int
same_install(const struct install_record *r, const struct install_opts *o)
{
	return strcmp(r->user, o->user) == 0 && strcmp(r->sublayer, o->sublayer) == 0 &&
	    r->port_lo == o->port_lo && r->port_hi == o->port_hi &&
	    r->allow_loopback == o->allow_loopback;
}

/* The sandbox account: made, or (only if srt-win made it) given the new password, in
 * srt-win's group; *sidp its SID. SW_OK, or the exit code (the reason printed). */
static int
install_account(const struct install_opts *o, const struct install_record *old, int had,
    const struct install_record *rec, char **sidp)
{
	int exists;

	exists = wa_account_sid(o->user, sidp) == 0;
	free(*sidp);
	*sidp = NULL;
	/* Only an account srt-win made gets a new password. */
	if (exists && !(had == 0 && strcmp(old->user, o->user) == 0)) {
		sw_err("user_failed",
		    "srt-win: install: an account named %s exists and was not "
		    "created by srt-win; pick another name with --sandbox-user",
		    o->user);
		return SW_EUSER;
	}
	if ((exists ? wa_user_set_password(o->user, rec->password)
		    : wa_user_create(o->user, rec->password, ACCOUNT_COMMENT)) != 0 ||
	    wa_group_add(SW_GROUP, o->user) != 0 || wa_account_sid(o->user, sidp) != 0) {
		sw_err("user_failed", "srt-win: install: account %s: %s", o->user, wa_error());
		return SW_EUSER;
	}
	return SW_OK;
}

int
cmd_install(int argc, char **argv)
{
	struct install_opts o = { 0 };
	struct install_record old = { 0 }, rec = { 0 };
	struct wa_filter f[8];
	char *sid = NULL, *json, *mdir = NULL;
	size_t n;
	int had, mexists, mmade, rc = SW_ESYSTEM;

	if (install_parse("install", argc, argv, &o, 1) != 0)
		return SW_EUSAGE;
	if (o.dry_run) {
		json = install_dry_run_json(&o);
		fputs(json, stdout);
		free(json);
		return SW_OK;
	}
	if (!wa_elevated()) {
		if (o.elevated_step) {
			sw_err("not_elevated",
			    "srt-win: install: the elevated step is not "
			    "elevated");
			return SW_ESYSTEM;
		}
		return elevate("install", argc, argv);
	}
	if ((had = install_record_read(&old)) < 0 && !o.force)
		return SW_ESYSTEM;
	if (had == 0 && !same_install(&old, &o) && !o.force) {
		sw_err("config_conflict",
		    "srt-win: install: already installed with account %s, "
		    "sublayer %s, ports %d-%d%s; pass --force to replace it",
		    old.user, old.sublayer, old.port_lo, old.port_hi,
		    old.allow_loopback ? ", loopback open" : "");
		rc = SW_ECONFLICT;
		goto out;
	}
	if (wa_group_create(SW_GROUP, GROUP_COMMENT) != 0) {
		sw_err("user_failed", "srt-win: install: group %s: %s", SW_GROUP, wa_error());
		rc = SW_EUSER;
		goto out;
	}
	rec.version = SW_SETUP_VERSION;
	rec.user = xstrdup(o.user);
	rec.sublayer = xstrdup(o.sublayer);
	rec.port_lo = o.port_lo;
	rec.port_hi = o.port_hi;
	rec.allow_loopback = o.allow_loopback;
	if ((rec.password = random_password()) == NULL) {
		sw_err("system", "srt-win: install: no random password: %s", wa_error());
		goto out;
	}
	if ((rc = install_account(&o, &old, had, &rec, &sid)) != SW_OK)
		goto out;
	rc = SW_ESYSTEM;
	rec.sid = xstrdup(sid);
	/* Replaced with another name: the old account was srt-win's, and its password is
	 * about to be forgotten with the old record. */
	if (had == 0 && strcmp(old.user, o.user) != 0 && wa_user_delete(old.user) != 0)
		sw_warn("install: the old account %s could not be removed: %s", old.user,
		    wa_error());
	/* The record first: an uninstall can then always find what to remove. */
	json = install_record_json(&rec);
	if (wa_record_set(REC_INSTALL, json) != 0) {
		free(json);
		sw_err(
		    "system", "srt-win: install: writing the install record: %s", wa_error());
		goto out;
	}
	free(json);
	if (had == 0 && strcmp(old.sublayer, o.sublayer) != 0)
		wa_wfp_remove(old.sublayer);
	n = install_filters(&o, sid, f, 8);
	if (wa_wfp_remove(o.sublayer) != 0 || wa_wfp_install(o.sublayer, f, n) != 0) {
		sw_err("wfp_failed", "srt-win: install: the WFP filters: %s", wa_error());
		rc = SW_EWFP;
		goto out;
	}
	/* Where srt.exe reads the managed policy: made now, so that no user can make it
	 * first (srt would then refuse to run until it is removed). */
	if (wa_managed_dir(1, &mdir, &mexists, &mmade) != 0) {
		sw_err("system", "srt-win: install: the managed policy's directory: %s",
		    wa_error());
		goto out;
	}
	if (!o.elevated_step)
		fprintf(stderr,
		    "srt-win: install: account %s (%s), %zu filters under %s, "
		    "proxy ports %d-%d; the managed policy's directory %s %s\n",
		    o.user, sid, n, o.sublayer, o.port_lo, o.port_hi, mdir,
		    mmade ? "made" : "left as it is");
	rc = SW_OK;
out:
	free(mdir);
	free(sid);
	install_record_free(&old);
	install_record_free(&rec);
	return rc;
}

static int
match_user_kept(const struct rec *r, const void *arg)
{
	(void)arg;
	return r->kind == RK_KEPT || r->kind == RK_PROFILE;
}

int
cmd_uninstall(int argc, char **argv)
{
	struct install_opts o = { 0 };
	struct install_record rec = { 0 };
	int had, rc = SW_OK;

	if (install_parse("uninstall", argc, argv, &o, 0) != 0)
		return SW_EUSAGE;
	if (!wa_elevated()) {
		struct state st;

		if (o.elevated_step) {
			sw_err("not_elevated",
			    "srt-win: uninstall: the elevated step is not "
			    "elevated");
			return SW_ESYSTEM;
		}
		/* The grants kept for this user are this user's to remove, here. */
		if (!o.keep_user && state_open(&st) == 0) {
			if (acl_release(&st, match_user_kept, NULL, NULL) != 0)
				sw_warn(
				    "some kept grants could not be removed; srt-win acl forget "
				    "--all and srt-win profile forget remove them later");
			state_save(&st);
			state_close(&st);
		}
		return elevate("uninstall", argc, argv);
	}
	if ((had = install_record_read(&rec)) < 0)
		rec.user = NULL;
	if (wa_wfp_remove(had == 0 ? rec.sublayer : o.sublayer) != 0) {
		sw_err("wfp_failed", "srt-win: uninstall: the WFP filters: %s", wa_error());
		rc = SW_EWFP;
	}
	if (strcmp(o.sublayer, SW_DEFAULT_SUBLAYER) != 0 && had == 0 &&
	    strcmp(o.sublayer, rec.sublayer) != 0)
		wa_wfp_remove(o.sublayer);
	if (!o.keep_user) {
		if (had == 0 && wa_user_delete(rec.user) != 0) {
			sw_err("user_failed", "srt-win: uninstall: account %s: %s", rec.user,
			    wa_error());
			rc = SW_EUSER;
		}
		wa_group_delete(SW_GROUP);
		wa_record_delete(REC_INSTALL);
	}
	install_record_free(&rec);
	return rc;
}

/* The user object of status and user status. */
static void
user_json(struct buf *b)
{
	struct install_record rec = { 0 };
	char *sid = NULL, *gsid = NULL, *me = NULL;
	const char *name;
	int had = install_record_read(&rec), exists, gexists;

	name = had == 0 ? rec.user : SW_DEFAULT_USER;
	exists = wa_account_sid(name, &sid) == 0;
	gexists = wa_account_sid(SW_GROUP, &gsid) == 0;
	buf_add_jmember(b, "{\"user\":{\"name\":", name);
	buf_addf(b, ",\"exists\":%s", exists ? "true" : "false");
	if (exists) {
		buf_add_jmember(b, ",\"sid\":", sid);
	}
	buf_addf(b, ",\"group_exists\":%s", gexists ? "true" : "false");
	if (gexists) {
		buf_add_jmember(b, ",\"group_sid\":", gsid);
	}
	buf_addf(b, ",\"in_sandbox_group\":%s}",
	    exists && gexists && wa_group_has(SW_GROUP, name) == 1 ? "true" : "false");
	buf_addf(b, ",\"cred_present\":%s", had == 0 ? "true" : "false");
	if (had == 0)
		buf_addf(b, ",\"marker_version\":%d", rec.version);
	buf_addf(b, ",\"setup_version\":%d", SW_SETUP_VERSION);
	if (wa_current_sid(&me) == 0) {
		buf_add_jmember(b, ",\"real_user_sid\":", me);
	}
	/* Only what this srt-win does, by the reference's names. */
	buf_adds(b, ",\"capabilities\":[\"profile-deny-expansion\",\"read-deny-except\"]}");
	free(sid);
	free(gsid);
	free(me);
	install_record_free(&rec);
}

static void
wfp_json(struct buf *b, const char *sublayer_opt)
{
	struct install_record rec = { 0 };
	int had = install_record_read(&rec), n;
	const char *sublayer = sublayer_opt ? sublayer_opt
	    : had == 0                      ? rec.sublayer
					    : SW_DEFAULT_SUBLAYER;

	if (wa_wfp_count(sublayer, &n) != 0) {
		buf_adds(b, "{\"state\":\"cannot-read\",\"filters\":0");
		buf_adds(b, ",\"hint\":");
		buf_add_jstrs(b,
		    wa_error_denied()
			? "enumerating WFP filters needs an "
			  "administrator; srt-win wfp verify checks the fence without one"
			: wa_error());
	} else
		buf_addf(
		    b, "{\"state\":\"%s\",\"filters\":%d", n > 0 ? "installed" : "absent", n);
	buf_add_jmember(b, ",\"sublayer\":", sublayer);
	if (had == 0) {
		buf_addf(b,
		    ",\"port_range\":[%d,%d],\"allow_loopback\":%s,\"user_sid\":", rec.port_lo,
		    rec.port_hi, rec.allow_loopback ? "true" : "false");
		buf_add_jstrs(b, rec.sid);
	} else
		buf_adds(b, ",\"allow_loopback\":false");
	buf_adds(b, "}");
	install_record_free(&rec);
}

/* The managed policy's directory (srt-settings(5), MANAGED POLICY): where it is, and
 * whether it and the file exist; srt.exe judges whether they are trusted. */
static void
managed_json(struct buf *b)
{
	char *dir = NULL, *file;
	enum wa_kind kind = WA_MISSING;
	int exists, made;

	if (wa_managed_dir(0, &dir, &exists, &made) != 0) {
		buf_add_jmember(b, "{\"state\":\"cannot-read\",\"hint\":", wa_error());
		buf_adds(b, "}");
		return;
	}
	file = xasprintf("%s%cmanaged-settings.json", dir, wa_path_sep());
	if (exists && wa_path_kind(file, &kind) != 0)
		kind = WA_MISSING;
	buf_add_jmember(b, "{\"dir\":", dir);
	buf_addf(b, ",\"dir_exists\":%s,\"file_exists\":%s}", exists ? "true" : "false",
	    kind == WA_FILE ? "true" : "false");
	free(file);
	free(dir);
}

int
cmd_status(int argc, char **argv)
{
	const char *sublayer = NULL;
	struct strlist rest = { 0 };
	struct buf b = { 0 };
	const struct opt o[] = {
		{ "--sublayer-guid", OT_STR, &sublayer },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("status", argc, argv, o, &rest, 0) != 0)
		return SW_EUSAGE;
	buf_adds(&b, "{\"user\":");
	user_json(&b);
	buf_adds(&b, ",\"wfp\":");
	wfp_json(&b, sublayer);
	buf_adds(&b, ",\"managed\":");
	managed_json(&b);
	buf_adds(&b, "}\n");
	fputs(buf_str(&b), stdout);
	buf_free(&b);
	return SW_OK;
}

/* A certificate file, PEM or DER, as DER. */
static int
read_cert(const char *path, uint8_t **out, size_t *outlen)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				  "0123456789+/";
	const char *b, *e;
	char *text = NULL;
	uint8_t *der;
	size_t len, n = 0;
	unsigned acc = 0;
	int bits = 0;
	FILE *f;

	if ((f = wa_fopen(path, "rb")) == NULL)
		return -1;
	if (read_all(f, 1u << 20, &text, &len) != 0) {
		fclose(f);
		return -1;
	}
	fclose(f);
	b = strstr(text, "-----BEGIN CERTIFICATE-----");
	if (b != NULL && (e = strstr(b, "-----END CERTIFICATE-----")) != NULL) {
		der = xmalloc(len);
		for (const char *p = b + 27; p < e; p++) {
			const char *q = *p ? strchr(b64, *p) : NULL;

			if (q == NULL)
				continue;
			acc = (acc << 6) | (unsigned)(q - b64);
			if ((bits += 6) >= 8) {
				bits -= 8;
				der[n++] = (uint8_t)(acc >> bits);
			}
		}
		free(text);
	} else {
		der = (uint8_t *)text;
		n = len;
	}
	/* A certificate is a DER SEQUENCE. */
	if (n < 4 || der[0] != 0x30) {
		free(der);
		return -1;
	}
	*out = der;
	*outlen = n;
	return 0;
}

/* In the sandbox account: add the certificate to its own Root store. */
static int
trust_ca_here(const char *hex)
{
	size_t n = strlen(hex) / 2;
	uint8_t *der;
	char *thumb = NULL;

	if (strlen(hex) % 2 != 0 || n < 4) {
		sw_err("usage", "srt-win: user trust-ca: bad --der-hex");
		return SW_EUSAGE;
	}
	der = xmalloc(n);
	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1) {
			free(der);
			sw_err("usage", "srt-win: user trust-ca: bad --der-hex");
			return SW_EUSAGE;
		}
		der[i] = (uint8_t)v;
	}
	if (wa_trust_cert(der, n, &thumb) != 0) {
		free(der);
		sw_err("trust_ca_failed", "srt-win: user trust-ca: %s", wa_error());
		return SW_ESYSTEM;
	}
	printf("{\"ca_cert_thumb\":\"%s\"}\n", thumb);
	free(thumb);
	free(der);
	return SW_OK;
}

/* The broker: read and check the certificate, then add it as the sandbox account (its
 * Root store is its own, in its own profile). */
/*
 * Run this program again as the sandbox account with args (NULL-terminated, after its
 * own path), for cmd, and wait: 0 with *status its exit status, or srt-win's exit status
 * with the error said: code, or seclogon_disabled when the Secondary Logon service is
 * off, "starting WHAT as USER".
 */
static int
run_self_as_account(const char *cmd, const char *what, const char *code,
    const struct install_record *rec, const char *const *args, int *status)
{
	struct wa_spawn sp = { 0 };
	struct strlist a = { 0 };
	enum wa_logon why;
	char *self;
	int seclogon, rc = SW_OK;

	if (wa_self_path(&self) != 0) {
		sw_err("system", "srt-win: %s: own path: %s", cmd, wa_error());
		return SW_ESYSTEM;
	}
	strlist_push_owned(&a, self);
	for (; *args != NULL; args++)
		strlist_push(&a, *args);
	sp.argv = a.v;
	if (wa_run_as_user(rec->user, rec->password, &sp, status, &why) < 0) {
		seclogon = why == WA_LOGON_SECLOGON_DISABLED ||
		    why == WA_LOGON_SECLOGON_MISSING;
		sw_err(seclogon ? "seclogon_disabled" : code,
		    "srt-win: %s: starting %sas %s: "
		    "%s",
		    cmd, what, rec->user, wa_error());
		rc = seclogon ? SW_ESECLOGON : SW_ESYSTEM;
	}
	strlist_free(&a);
	return rc;
}

static int
trust_ca(const char *path)
{
	struct install_record rec = { 0 };
	uint8_t *der = NULL;
	char *hex = NULL;
	size_t n;
	int rc, status;

	if ((rc = install_record_need("user trust-ca", &rec)) != SW_OK)
		return rc;
	if (read_cert(path, &der, &n) != 0) {
		sw_err("bad_input",
		    "srt-win: user trust-ca: %s is not a certificate (PEM or "
		    "DER)",
		    path);
		rc = SW_EUSAGE;
		goto out;
	}
	hex = xmalloc(2 * n + 1);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", der[i]);
	{
		const char *args[] = { "user", "trust-ca", "--der-hex", hex, NULL };

		rc = run_self_as_account(
		    "user trust-ca", "", "trust_ca_failed", &rec, args, &status);
	}
	if (rc == SW_OK)
		rc = status;
out:
	free(hex);
	free(der);
	install_record_free(&rec);
	return rc;
}

int
cmd_user(int argc, char **argv)
{
	struct buf b = { 0 };

	if (argc == 1 && strcmp(argv[0], "status") == 0) {
		user_json(&b);
		buf_adds(&b, "\n");
		fputs(buf_str(&b), stdout);
		buf_free(&b);
		return SW_OK;
	}
	if (argc == 2 && strcmp(argv[0], "trust-ca") == 0)
		return trust_ca(argv[1]);
	if (argc == 3 && strcmp(argv[0], "trust-ca") == 0 && strcmp(argv[1], "--der-hex") == 0)
		return trust_ca_here(argv[2]);
	sw_err("usage", "srt-win: user: status, or trust-ca CERT");
	return SW_EUSAGE;
}

static int
split_target(const char *t, char **host, int *port)
{
	const char *colon = strrchr(t, ':');
	unsigned long p;

	if (colon == NULL || colon == t || parse_uint(colon + 1, 65535, &p) != 0 || p == 0)
		return -1;
	*host = xstrndup(t, (size_t)(colon - t));
	*port = (int)p;
	return 0;
}

/* wfp verify: a connect to TARGET as the sandbox account must be refused by the filter. */
static int
wfp_verify(int argc, char **argv)
{
	struct install_record rec = { 0 };
	struct strlist rest = { 0 };
	const char *target = NULL, *outcome;
	char *host = NULL, *hostport = NULL;
	int loopback = 0, port, status = 0, rc = SW_EUSAGE;
	const struct opt o[] = {
		{ "--target", OT_STR, &target },
		{ "--allow-loopback", OT_FLAG, &loopback },
		{ NULL, OT_FLAG, NULL },
	};

	if (opts_parse("wfp verify", argc, argv, o, &rest, 0) != 0)
		return SW_EUSAGE;
	if (target == NULL || split_target(target, &host, &port) != 0) {
		sw_err("usage", "srt-win: wfp verify: --target HOST:PORT is required");
		return SW_EUSAGE;
	}
	if ((rc = install_record_need("wfp verify", &rec)) != SW_OK)
		goto out;
	if (rec.allow_loopback != loopback) {
		printf("{\"target\":\"%s:%d\",\"allow_loopback_mismatch\":true}\n", host, port);
		sw_err("wfp_loopback_mismatch",
		    "srt-win: wfp verify: the filters were installed "
		    "%s --allow-loopback",
		    rec.allow_loopback ? "with" : "without");
		rc = SW_ELOOPBACK;
		goto out;
	}
	hostport = xasprintf("%s:%d", host, port);
	{
		const char *args[] = { "probe", "connect", "--target", hostport, NULL };

		if ((rc = run_self_as_account("wfp verify", "the probe ", "spawn_failed", &rec,
			 args, &status)) != SW_OK)
			goto out;
	}
	outcome = status == 0 ? "blocked"
	    : status == 3     ? "connected"
	    : status == 2     ? "refused"
			      : "error";
	printf("{\"target\":\"%s:%d\",\"egress_probe\":\"%s\",\"allow_loopback\":%s}\n", host,
	    port, outcome, loopback ? "true" : "false");
	rc = status == 0 ? SW_OK : status == 3 ? SW_EFENCE : SW_EUSAGE;
	if (rc != SW_OK)
		sw_err("wfp_fence_inactive",
		    "srt-win: wfp verify: a direct connect to %s:%d as "
		    "%s was %s, not refused by the filters; run srt-win install again",
		    host, port, rec.user, outcome);
out:
	strlist_free(&rest);
	free(hostport);
	free(host);
	install_record_free(&rec);
	return rc;
}

int
cmd_wfp(int argc, char **argv)
{
	if (argc >= 1 && strcmp(argv[0], "status") == 0) {
		const char *sublayer = NULL;
		struct strlist rest = { 0 };
		struct buf b = { 0 };
		const struct opt o[] = {
			{ "--sublayer-guid", OT_STR, &sublayer },
			{ NULL, OT_FLAG, NULL },
		};

		if (opts_parse("wfp status", argc - 1, argv + 1, o, &rest, 0) != 0)
			return SW_EUSAGE;
		wfp_json(&b, sublayer);
		buf_adds(&b, "\n");
		fputs(buf_str(&b), stdout);
		buf_free(&b);
		return SW_OK;
	}
	if (argc >= 1 && strcmp(argv[0], "verify") == 0)
		return wfp_verify(argc - 1, argv + 1);
	sw_err("usage", "srt-win: wfp: status, or verify --target HOST:PORT");
	return SW_EUSAGE;
}

/* probe connect --target HOST:PORT: run by wfp verify as the sandbox account. Exits 0
 * when the filter refused the connect, 3 when it connected, 2 otherwise. */
int
cmd_probe(int argc, char **argv)
{
	const char *target = NULL;
	struct strlist rest = { 0 };
	char *host = NULL;
	int port, outcome;
	const struct opt o[] = {
		{ "--target", OT_STR, &target },
		{ NULL, OT_FLAG, NULL },
	};

	if (argc < 1 || strcmp(argv[0], "connect") != 0 ||
	    opts_parse("probe connect", argc - 1, argv + 1, o, &rest, 0) != 0 ||
	    target == NULL || split_target(target, &host, &port) != 0) {
		sw_err("usage", "srt-win: probe connect --target HOST:PORT");
		return SW_EUSAGE;
	}
	if (wa_connect_probe(host, port, &outcome) != 0) {
		sw_err("system", "srt-win: probe: %s", wa_error());
		free(host);
		return SW_EUSAGE;
	}
	free(host);
	return outcome == 1 ? 0 : outcome == 0 ? SW_EFENCE : SW_EUSAGE;
}
