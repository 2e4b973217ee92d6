/*
 * The managed policy (managed.h): its own fields, the merge with a user's settings, what
 * policy.bin keeps of it, and the trust walk where it can be tested without root's files.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "guard.h"
#include "managed.h"
#include "policy.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

#define MNAME "/etc/srt/managed-settings.json"
#define UNAME "user.json"

/* A required list, empty unless the members given already hold it. */
static const char *
req(const char *members, const char *key)
{
	static char buf[4][64];
	static int k;
	char *b = buf[k++ % 4];

	snprintf(b, sizeof(buf[0]), "\"%s\"", key);
	if (members != NULL && strstr(members, b) != NULL)
		return "";
	snprintf(b, sizeof(buf[0]), "\"%s\":[],", key);
	return b;
}

/* A settings document from its network and filesystem members and root extras. */
static char *
doc(const char *net, const char *fs, const char *root)
{
	char *n, *f, *d;

	n = xasprintf(
	    "%s%s%s", req(net, "allowedDomains"), req(net, "deniedDomains"), net ? net : "");
	f = xasprintf("%s%s%s%s", req(fs, "denyRead"), req(fs, "allowWrite"),
	    req(fs, "denyWrite"), fs ? fs : "");
	/* Drop the comma a list left at the end. */
	if (*n && n[strlen(n) - 1] == ',')
		n[strlen(n) - 1] = '\0';
	if (*f && f[strlen(f) - 1] == ',')
		f[strlen(f) - 1] = '\0';
	d = xasprintf("{%s%s\"network\":{%s},\"filesystem\":{%s}}", root ? root : "",
	    root ? "," : "", n, f);
	free(n);
	free(f);
	return d;
}

/* A managed layer as managed_load leaves it, from text (no file). */
static void
mk_managed(struct managed *m, char *text)
{
	memset(m, 0, sizeof(*m));
	m->present = true;
	m->path = xstrdup(MNAME);
	m->text = text;
	m->len = strlen(text);
}

static int
parse_user(char *text, struct settings *s)
{
	struct diags errs = { 0 };
	int rc = settings_parse(text, strlen(text), UNAME, s, &errs, NULL);

	if (rc != 0)
		diags_print(&errs, stderr);
	diags_free(&errs);
	free(text);
	return rc;
}

/* Merge user text with managed text; errs and warns are the caller's. */
static int
merge(char *utext, char *mtext, struct settings *out, struct diags *errs, struct diags *warns)
{
	struct managed m;
	struct settings u;
	int rc;

	mk_managed(&m, mtext);
	if (parse_user(utext, &u) != 0) {
		managed_free(&m);
		memset(out, 0, sizeof(*out));
		return -2;
	}
	rc = managed_apply(&m, &u, UNAME, out, errs, warns);
	managed_free(&m);
	return rc;
}

static bool
diags_has(const struct diags *d, const char *a, const char *b)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		if (strstr(d->msgs.v[i], a) != NULL &&
		    (b == NULL || strstr(d->msgs.v[i], b) != NULL))
			return true;
	return false;
}

static const char *
dom_at(const struct settings *s, bool deny, size_t i)
{
	size_t n = deny ? s->net.ndenied : s->net.nallowed;

	return i < n ? (deny ? s->net.denied : s->net.allowed)[i].spelled : "(none)";
}

static void
test_own_fields(void)
{
	struct diags errs = { 0 };
	struct settings s;
	char *t = doc(NULL, NULL,
	    "\"allowManagedDomainsOnly\":true,"
	    "\"allowManagedReadPathsOnly\":false,\"allowUserWeakerOptions\":true");

	ok(settings_parse_managed(t, strlen(t), MNAME, &s, &errs, NULL) == 0 &&
		s.layers.flags == (SETTINGS_LAYER_DOMAINS_ONLY | SETTINGS_LAYER_USER_WEAKER),
	    "the managed file's own fields set their bits");
	settings_free(&s);
	ok(settings_parse(t, strlen(t), UNAME, &s, &errs, NULL) == -1 &&
		diags_has(&errs,
		    UNAME ": allowManagedDomainsOnly: only the managed policy file",
		    managed_path),
	    "in a user's file they are errors naming the managed file: %s",
	    errs.msgs.n ? errs.msgs.v[0] : "");
	free(t);
	diags_free(&errs);
	t = doc(NULL, NULL, "\"allowUserWeakerOptions\":1");
	ok(settings_parse_managed(t, strlen(t), MNAME, &s, &errs, NULL) == -1 &&
		diags_has(&errs, "allowUserWeakerOptions: expected true or false", NULL),
	    "their values are checked");
	free(t);
	diags_free(&errs);
}

static void
test_no_managed(void)
{
	struct diags errs = { 0 };
	struct settings u, out;
	struct managed none = { .present = false };
	char *t = doc("\"allowAllUnixSockets\":true", NULL, NULL), *j1, *j2;

	if (parse_user(t, &u) != 0)
		return;
	j1 = settings_to_json(&u);
	/* What a compiled image claims about layers is not believed. */
	u.layers.flags = SETTINGS_LAYER_MERGED | SETTINGS_LAYER_DOMAINS_ONLY;
	u.layers.managed[SL_ALLOWED_DOMAINS] = 0;
	strlist_push(&u.layers.options, "network.allowAllUnixSockets");
	ok(managed_apply(&none, &u, UNAME, &out, &errs, NULL) == 0, "no managed layer: merge");
	j2 = settings_to_json(&out);
	ok(strcmp(j1, j2) == 0 && out.layers.flags == 0 && out.layers.options.n == 0,
	    "no managed layer: the user's settings as they were, no layers");
	free(j1);
	free(j2);
	settings_free(&out);
	diags_free(&errs);
}

static void
test_domains(void)
{
	struct diags errs = { 0 }, warns = { 0 };
	struct settings out;
	struct policy_verdict v;
	struct policy *p = NULL;
	char err[256];

	ok(merge(doc("\"allowedDomains\":[\"example.org\",\"github.com\"],"
		     "\"deniedDomains\":[\"bad.example\"]",
		     NULL, NULL),
	       doc("\"allowedDomains\":[\"github.com\",\"*.npmjs.org\"],\"deniedDomains\":"
		   "[\"evil.example.com\",\"example.org:22\"],\"deniedDomainReasons\":"
		   "{\"evil.example.com\":\"blocked by IT\"}",
		   NULL, NULL),
	       &out, &errs, &warns) == 0,
	    "domains merge");
	ok(out.net.nallowed == 3 && strcmp(dom_at(&out, 0, 0), "github.com") == 0 &&
		strcmp(dom_at(&out, 0, 1), "*.npmjs.org") == 0 &&
		strcmp(dom_at(&out, 0, 2), "example.org") == 0 &&
		out.layers.managed[SL_ALLOWED_DOMAINS] == 2,
	    "allows: the managed file's first, then the user's not already there");
	ok(out.net.ndenied == 3 && strcmp(dom_at(&out, 1, 0), "evil.example.com") == 0 &&
		strcmp(dom_at(&out, 1, 2), "bad.example") == 0 &&
		out.layers.managed[SL_DENIED_DOMAINS] == 2 && warns.msgs.n == 0,
	    "denies: the managed file's always, first; nothing was dropped");
	p = policy_from_settings(&out, err, sizeof(err));
	ok(p != NULL, "the merge compiles: %s", p ? "" : err);
	if (p != NULL) {
		policy_decide(p, "evil.example.com", 16, 443, &v);
		ok(!v.allow && v.managed && strcmp(v.reason, "blocked by IT") == 0,
		    "a managed deny is marked managed, with its reason");
		policy_decide(p, "example.org", 11, 22, &v);
		ok(!v.allow && v.managed, "a managed deny beats a user allow");
		policy_decide(p, "example.org", 11, 443, &v);
		ok(v.allow, "the user's allow counts without allowManagedDomainsOnly");
		policy_decide(p, "bad.example", 11, 443, &v);
		ok(!v.allow && !v.managed, "a user deny is not marked managed");
		policy_decide(p, "elsewhere.example", 17, 443, &v);
		ok(!v.allow && !v.managed,
		    "not on the allow list: not managed without "
		    "allowManagedDomainsOnly");
		policy_free(p);
	}
	settings_free(&out);

	ok(merge(doc("\"allowedDomains\":[\"example.org\",\"github.com\"]", NULL, NULL),
	       doc("\"allowedDomains\":[\"github.com\"]", NULL,
		   "\"allowManagedDomainsOnly\":true"),
	       &out, &errs, &warns) == 0,
	    "allowManagedDomainsOnly: merge");
	ok(out.net.nallowed == 1 && strcmp(dom_at(&out, 0, 0), "github.com") == 0,
	    "allowManagedDomainsOnly: only the managed allows");
	ok(warns.msgs.n == 1 &&
		diags_has(&warns,
		    UNAME ": network.allowedDomains[0]: "
			  "\"example.org\" is ignored",
		    MNAME),
	    "the one left out is warned about, naming "
	    "both files: %s",
	    warns.msgs.n ? warns.msgs.v[0] : "");
	p = policy_from_settings(&out, err, sizeof(err));
	if (p != NULL) {
		policy_decide(p, "example.org", 11, 443, &v);
		ok(!v.allow && v.managed &&
			strcmp(v.reason, "host is not on the allow list") == 0,
		    "under allowManagedDomainsOnly a host off the managed list is a managed "
		    "deny");
		policy_free(p);
	}
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);

	/* A user's reason for a deny both files have, when the managed file gives none. */
	ok(merge(doc("\"deniedDomains\":[\"x.example\"],\"deniedDomainReasons\":"
		     "{\"x.example\":\"mine\"}",
		     NULL, NULL),
	       doc("\"deniedDomains\":[\"x.example\"]", NULL, NULL), &out, &errs,
	       &warns) == 0 &&
		out.net.ndenied == 1 && out.net.denied[0].reason != NULL &&
		strcmp(out.net.denied[0].reason, "mine") == 0 &&
		out.layers.managed[SL_DENIED_DOMAINS] == 1,
	    "a shared deny keeps the user's "
	    "reason when the managed file has none");
	settings_free(&out);
	ok(merge(doc("\"deniedDomains\":[\"x.example\"],\"deniedDomainReasons\":"
		     "{\"x.example\":\"mine\"}",
		     NULL, NULL),
	       doc("\"deniedDomains\":[\"x.example\"],"
		   "\"deniedDomainReasons\":{\"x.example\":\"theirs\"}",
		   NULL, NULL),
	       &out, &errs, &warns) == 0 &&
		strcmp(out.net.denied[0].reason, "theirs") == 0 && out.net.nreasons == 1 &&
		strcmp(out.net.reasons[0].reason, "theirs") == 0,
	    "the managed file's reason wins");
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);
}

static void
test_paths(void)
{
	struct diags errs = { 0 }, warns = { 0 };
	struct settings out;

	ok(merge(doc(NULL, "\"allowRead\":[\"~/.ssh/config\"],\"denyRead\":[\"/x\"]", NULL),
	       doc(NULL, "\"denyRead\":[\"~/.ssh\"],\"allowRead\":[\"~/.ssh/known_hosts\"]",
		   NULL),
	       &out, &errs, &warns) == 0 &&
		out.fs.deny_read.n == 2 && strcmp(out.fs.deny_read.v[0].path, "~/.ssh") == 0 &&
		out.fs.allow_read.n == 2 && out.layers.managed[SL_ALLOW_READ] == 1 &&
		strcmp(out.fs.allow_read.v[1].path, "~/.ssh/config") == 0,
	    "filesystem lists: both files' entries, the managed file's first");
	settings_free(&out);
	ok(merge(doc(NULL,
		     "\"allowRead\":[\"~/.ssh/config\",{\"path\":\"~/.ssh/known_hosts\","
		     "\"literal\":true},\"~/.ssh/known_hosts\"]",
		     NULL),
	       doc(NULL, "\"denyRead\":[\"~/.ssh\"],\"allowRead\":[\"~/.ssh/known_hosts\"]",
		   "\"allowManagedReadPathsOnly\":true"),
	       &out, &errs, &warns) == 0 &&
		out.fs.allow_read.n == 1 && !out.fs.allow_read.v[0].literal,
	    "allowManagedReadPathsOnly: only the managed allowRead entries");
	ok(warns.msgs.n == 2 &&
		diags_has(&warns,
		    "filesystem.allowRead[0]: "
		    "\"~/.ssh/config\" is ignored",
		    "allowManagedReadPathsOnly") &&
		diags_has(&warns, "filesystem.allowRead[1]", NULL),
	    "each user carve-out left out is warned about (a literal entry is another entry)");
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);
}

/* credentials "deny" entries: both files', the managed file's first; the user's file can
 * add to them and never take one away. */
static void
test_credentials(void)
{
	struct diags errs = { 0 }, warns = { 0 };
	struct settings out, back;
	struct policy *p = NULL;
	uint8_t *img = NULL;
	size_t len = 0;
	char err[256];
	const char *mcred =
	    "\"credentials\":{\"files\":[{\"path\":\"~/.aws\",\"mode\":"
	    "\"deny\"}],\"envVars\":[{\"name\":\"GH_TOKEN\",\"mode\":\"deny\"}]}";

	memset(&back, 0, sizeof(back));
	ok(merge(doc(NULL, NULL,
		     "\"credentials\":{\"files\":[{\"path\":\"~/.netrc\","
		     "\"mode\":\"deny\"},{\"path\":\"~/.aws\",\"mode\":\"deny\"}],\"envVars\":"
		     "[{\"name\":\"NPM_TOKEN\",\"mode\":\"deny\"}]}"),
	       doc(NULL, NULL, mcred), &out, &errs, &warns) == 0 &&
		out.cred.deny_files.n == 2 &&
		strcmp(out.cred.deny_files.v[0].path, "~/.aws") == 0 &&
		strcmp(out.cred.deny_files.v[1].path, "~/.netrc") == 0 &&
		out.cred.deny_env.n == 2 && strcmp(out.cred.deny_env.v[0], "GH_TOKEN") == 0 &&
		strcmp(out.cred.deny_env.v[1], "NPM_TOKEN") == 0 &&
		out.layers.managed[SL_CRED_FILES] == 1 &&
		out.layers.managed[SL_CRED_ENV] == 1 && errs.msgs.n == 0,
	    "credentials: both files' deny entries, the managed file's first");
	ok(policy_compile(&out, &img, &len) == 0 &&
		(p = policy_open_mem(img, len, err, sizeof(err))) != NULL &&
		policy_to_settings(p, &back) == 0 && back.cred.deny_files.n == 2 &&
		back.cred.deny_env.n == 2 && back.layers.managed[SL_CRED_FILES] == 1 &&
		back.layers.managed[SL_CRED_ENV] == 1,
	    "credentials and their managed counts survive policy.bin");
	settings_free(&back);
	policy_free(p);
	free(img);
	settings_free(&out);
	ok(merge(doc(NULL, NULL, NULL), doc(NULL, NULL, mcred), &out, &errs, &warns) == 0 &&
		out.cred.deny_files.n == 1 && out.cred.deny_env.n == 1 && errs.msgs.n == 0,
	    "a user file without credentials keeps the managed file's");
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);
}

/* The user's settings with one root/network/filesystem member set, merged with managed
 * root extras: the return of managed_apply. */
static int
weaker(const char *net, const char *fs, const char *uroot, const char *mnet, const char *mroot,
    struct diags *errs, struct settings *out)
{
	return merge(doc(net, fs, uroot), doc(mnet, NULL, mroot), out, errs, NULL);
}

static void
test_options(void)
{
	static const struct {
		const char *net, *fs, *root, *path;
	} weak[] = {
		{ "\"allowAllUnixSockets\":true", NULL, NULL, "network.allowAllUnixSockets" },
		{ "\"httpProxyPort\":8080", NULL, NULL, "network.httpProxyPort" },
		{ "\"socksProxyPort\":1081", NULL, NULL, "network.socksProxyPort" },
		{ NULL, "\"disabled\":true", NULL, "filesystem.disabled" },
		{ NULL, "\"allowGitConfig\":true", NULL, "filesystem.allowGitConfig" },
		{ NULL, NULL, "\"enableWeakerNestedSandbox\":true",
		    "enableWeakerNestedSandbox" },
		{ NULL, NULL, "\"allowNestedUserNamespaces\":true",
		    "allowNestedUserNamespaces" },
		{ NULL, NULL, "\"bwrapPath\":\"/opt/bwrap\"", "bwrapPath" },
		{ "\"parentProxy\":{\"http\":\"http://127.0.0.1:3128\"}", NULL, NULL,
		    "network.parentProxy" },
		{ "\"mitmProxy\":{\"socketPath\":\"/run/m.sock\",\"domains\":[\"a.test\"]}",
		    NULL, NULL, "network.mitmProxy" },
	};
	struct diags errs = { 0 };
	struct settings out;
	int rc;

	for (size_t i = 0; i < sizeof(weak) / sizeof(weak[0]); i++) {
		rc = weaker(weak[i].net, weak[i].fs, weak[i].root, NULL, NULL, &errs, &out);
		ok(rc == -1 &&
			diags_has(&errs, weak[i].path,
			    "not allowed by the managed "
			    "policy " MNAME) &&
			diags_has(&errs, UNAME ": ", NULL) && out.net.allowed == NULL,
		    "%s: refused unless allowed, naming both files", weak[i].path);
		diags_free(&errs);
		rc = weaker(weak[i].net, weak[i].fs, weak[i].root, NULL,
		    "\"allowUserWeakerOptions\":true", &errs, &out);
		ok(rc == 0, "%s: accepted under allowUserWeakerOptions", weak[i].path);
		settings_free(&out);
		diags_free(&errs);
	}
	/* The managed file sets it itself: the user may say the same. */
	rc = merge(doc("\"allowAllUnixSockets\":true", NULL, NULL),
	    doc("\"allowAllUnixSockets\":true", NULL, NULL), &out, &errs, NULL);
	ok(rc == 0 && out.net.allow_all_unix_sockets &&
		strlist_contains(&out.layers.options, "network.allowAllUnixSockets"),
	    "a weaker option the managed file sets: the user may set it too");
	settings_free(&out);
	rc = merge(doc(NULL, NULL, NULL), doc("\"httpProxyPort\":8080", NULL, NULL), &out,
	    &errs, NULL);
	ok(rc == 0 && out.net.http_proxy_port == 8080,
	    "a port only the managed file sets "
	    "is used");
	settings_free(&out);
	rc = merge(doc("\"httpProxyPort\":9090", NULL, NULL),
	    doc("\"httpProxyPort\":8080", NULL, "\"allowUserWeakerOptions\":true"), &out, &errs,
	    NULL);
	ok(rc == -1 &&
		diags_has(&errs,
		    "network.httpProxyPort: the managed policy " MNAME
		    " sets this to another value",
		    NULL),
	    "two different ports: an error, even when "
	    "weaker options are allowed");
	diags_free(&errs);
	rc = merge(doc(NULL, NULL, "\"bwrapPath\":\"/a/bwrap\""),
	    doc(NULL, NULL, "\"bwrapPath\":\"/a/bwrap\""), &out, &errs, NULL);
	ok(rc == 0 && strcmp(out.bwrap_path, "/a/bwrap") == 0,
	    "the same bwrapPath in both: "
	    "accepted (compared by value)");
	settings_free(&out);
	rc = merge(doc(NULL, NULL, "\"bwrapPath\":\"/b/bwrap\""),
	    doc(NULL, NULL, "\"bwrapPath\":\"/a/bwrap\""), &out, &errs, NULL);
	ok(rc == -1 && diags_has(&errs, "bwrapPath: the managed policy", NULL),
	    "another bwrapPath: refused");
	diags_free(&errs);

	/* A list that weakens: the user's entries must be the managed file's. */
	rc = merge(doc("\"allowUnixSockets\":[\"/run/a.sock\",\"/run/b.sock\"]", NULL, NULL),
	    doc("\"allowUnixSockets\":[\"/run/a.sock\"]", NULL, NULL), &out, &errs, NULL);
	ok(rc == -1 && errs.msgs.n == 1 &&
		diags_has(
		    &errs, "network.allowUnixSockets[1]: \"/run/b.sock\" is not allowed", NULL),
	    "allowUnixSockets: a user's entry the managed file lacks is refused");
	diags_free(&errs);

	/* Stronger options: either file; the deeper search. */
	rc = merge(doc(NULL, NULL, "\"mandatoryDenySearchDepth\":2"),
	    doc("\"requireHostMatch\":"
		"true,\"strictAllowlist\":true",
		NULL, "\"mandatoryDenySearchDepth\":6"),
	    &out, &errs, NULL);
	ok(rc == 0 && out.net.require_host_match && out.net.strict_allowlist &&
		out.deny_search_depth == 6,
	    "requireHostMatch, strictAllowlist: either file; "
	    "mandatoryDenySearchDepth: the larger");
	settings_free(&out);
	rc = merge(doc("\"requireHostMatch\":true", NULL, "\"mandatoryDenySearchDepth\":9"),
	    doc(NULL, NULL, "\"mandatoryDenySearchDepth\":6"), &out, &errs, NULL);
	ok(rc == 0 && out.net.require_host_match && out.deny_search_depth == 9,
	    "a user may always strengthen");
	settings_free(&out);

	/* The windows block is one value. */
	rc = merge(doc(NULL, NULL, "\"windows\":{\"sandboxUser\":\"a\"}"),
	    doc(NULL, NULL, "\"windows\":{\"sandboxUser\":\"b\"}"), &out, &errs, NULL);
	ok(rc == -1 && diags_has(&errs, "windows: the managed policy", NULL),
	    "two windows blocks that differ: refused");
	diags_free(&errs);
	rc = merge(doc(NULL, NULL, NULL),
	    doc(NULL, NULL, "\"windows\":{\"sandboxUser\":\"b\"}"), &out, &errs, NULL);
	ok(rc == 0 && out.win.present && strcmp(out.win.sandbox_user, "b") == 0,
	    "the managed windows block is used");
	settings_free(&out);
	diags_free(&errs);
}

/* The routes of issue #12: the parent and the inspection proxy weaken the sandbox (they
 * are ways out); refuseOpaqueTunnels and stripResponseHeaders only strengthen it. */
static void
test_routes(void)
{
	static const char *const mparent =
	    "\"parentProxy\":{\"http\":\"http://proxy.corp:3128\",\"noProxy\":\".corp\"}";
	static const char *const mmitm = "\"mitmProxy\":{\"socketPath\":\"/run/inspect.sock\","
					 "\"domains\":[\"*.corp.example\"]}";
	static const char *const mtls = "\"tlsTerminate\":{\"maxTunnels\":8}";
	struct diags errs = { 0 };
	struct settings out, back;
	struct policy *p;
	uint8_t *img = NULL;
	size_t len = 0;
	char err[256];
	int rc;

	rc = merge(doc(NULL, NULL, NULL), doc(mparent, NULL, NULL), &out, &errs, NULL);
	ok(rc == 0 && out.net.parent.present &&
		strcmp(out.net.parent.http, "http://proxy.corp:3128") == 0 &&
		strcmp(out.net.parent.no_proxy, ".corp") == 0 &&
		strlist_contains(&out.layers.options, "network.parentProxy"),
	    "parentProxy only the managed file sets: used, and recorded as its");
	/* What a proxy asks of the image: whether the managed file set the parent. */
	p = rc == 0 && policy_compile(&out, &img, &len) == 0
	    ? policy_open_mem(img, len, err, sizeof(err))
	    : NULL;
	ok(p != NULL && policy_layer_sets(p, "network.parentProxy") &&
		!policy_layer_sets(p, "network.mitmProxy") &&
		(policy_layer_flags(p) & SETTINGS_LAYER_MERGED),
	    "policy.bin says the managed "
	    "file set parentProxy");
	ok(p != NULL && policy_routes(p, &back) == 0 && back.net.parent.present &&
		strcmp(back.net.parent.http, "http://proxy.corp:3128") == 0 &&
		(settings_free(&back), 1),
	    "and its routes give the managed parent");
	policy_free(p);
	free(img);
	settings_free(&out);
	rc = merge(doc(mparent, NULL, NULL), doc(mparent, NULL, NULL), &out, &errs, NULL);
	ok(rc == 0 && errs.msgs.n == 0, "the same parentProxy in both: accepted");
	settings_free(&out);
	rc = merge(doc("\"parentProxy\":{\"http\":\"http://other:3128\"}", NULL, NULL),
	    doc(mparent, NULL, "\"allowUserWeakerOptions\":true"), &out, &errs, NULL);
	ok(rc == -1 &&
		diags_has(&errs,
		    "network.parentProxy: the managed policy " MNAME
		    " sets this to another value",
		    NULL),
	    "another parentProxy: refused, even when "
	    "weaker options are allowed");
	diags_free(&errs);
	rc = merge(doc("\"parentProxy\":{\"http\":\"http://proxy.corp:3128\"}", NULL, NULL),
	    doc(mparent, NULL, NULL), &out, &errs, NULL);
	ok(rc == -1 && diags_has(&errs, "network.parentProxy: the managed policy", NULL),
	    "a parentProxy that leaves out the managed noProxy: refused (one value)");
	diags_free(&errs);

	rc = merge(doc("\"refuseOpaqueTunnels\":false", NULL, NULL),
	    doc("\"refuseOpaqueTunnels\":true", NULL, NULL), &out, &errs, NULL);
	ok(rc == 0 && out.net.refuse_opaque_tunnels,
	    "refuseOpaqueTunnels in the managed "
	    "file: on, whatever the user says");
	settings_free(&out);
	rc = merge(doc("\"refuseOpaqueTunnels\":true", NULL, NULL), doc(NULL, NULL, NULL), &out,
	    &errs, NULL);
	ok(rc == 0 && out.net.refuse_opaque_tunnels,
	    "refuseOpaqueTunnels: a user may "
	    "turn it on");
	settings_free(&out);

	/* mitmProxy and tlsTerminate, one in each file: refused as the pair in one file
	 * is, whichever file gives which, with both files named. */
	rc = merge(doc(mtls, NULL, NULL), doc(mmitm, NULL, NULL), &out, &errs, NULL);
	ok(rc == -1 &&
		diags_has(&errs,
		    UNAME ": network.tlsTerminate: the managed policy " MNAME
			  " sets network.mitmProxy: mitmProxy and tlsTerminate cannot be used "
			  "together",
		    NULL),
	    "the managed file's mitmProxy with a user's tlsTerminate: "
	    "refused");
	diags_free(&errs);
	rc = merge(doc(mmitm, NULL, NULL), doc(mtls, NULL, "\"allowUserWeakerOptions\":true"),
	    &out, &errs, NULL);
	ok(rc == -1 &&
		diags_has(&errs,
		    UNAME
		    ": network.mitmProxy: the managed policy " MNAME
		    " sets network.tlsTerminate: mitmProxy and tlsTerminate cannot be used "
		    "together",
		    NULL),
	    "the managed file's tlsTerminate with a user's mitmProxy "
	    "(weaker options allowed): refused");
	diags_free(&errs);
	rc = merge(doc(mtls, NULL, NULL), doc(mtls, NULL, NULL), &out, &errs, NULL);
	ok(rc == 0 && out.net.tls.present && !out.net.mitm.present,
	    "tlsTerminate in both "
	    "files, no mitmProxy: accepted");
	settings_free(&out);

	rc = merge(doc("\"stripResponseHeaders\":[\"X-User\",\"set-cookie\"]", NULL, NULL),
	    doc("\"stripResponseHeaders\":[\"set-cookie\",\"X-Corp\"]", NULL, NULL), &out,
	    &errs, NULL);
	ok(rc == 0 && out.net.strip_headers.n == 3 &&
		strcmp(out.net.strip_headers.v[0], "set-cookie") == 0 &&
		strcmp(out.net.strip_headers.v[1], "X-Corp") == 0 &&
		strcmp(out.net.strip_headers.v[2], "X-User") == 0 &&
		strlist_contains(&out.layers.options, "network.stripResponseHeaders"),
	    "stripResponseHeaders: every name of either file, the managed ones first");
	settings_free(&out);
	diags_free(&errs);
}

static void
test_every_key(void)
{
	size_t missing = 0;

	for (size_t o = 0; o < 3; o++) {
		const struct settings_object *obj = settings_objects[o];

		for (size_t i = 0; i < obj->nkeys; i++) {
			const struct settings_key *k = &obj->keys[i];
			char *path;

			if (k->flags &
			    (SETTINGS_UNSUPPORTED | SETTINGS_HELPER | SETTINGS_CALLBACK))
				continue;
			path = *obj->path ? xasprintf("%s.%s", obj->path, k->name)
					  : xstrdup(k->name);
			if (!managed_merges(path)) {
				ok(0, "%s: the merge has no rule for it (lib/core/managed.c)",
				    path);
				missing++;
			}
			free(path);
		}
	}
	ok(missing == 0, "the merge has a rule for every key of the schema");
}

/* Merging the result again gives the same settings, layers and bytes. */
static void
test_idempotent(void)
{
	static const char *const mroot =
	    "\"allowManagedDomainsOnly\":true,"
	    "\"mandatoryDenySearchDepth\":4,\"ignoreViolations\":{\"*\":[\"/usr\"]}";
	struct diags errs = { 0 }, warns = { 0 };
	struct settings once, twice, back;
	struct managed m;
	uint8_t *b1 = NULL, *b2 = NULL;
	size_t l1 = 0, l2 = 0;
	struct policy *p = NULL;
	char err[256], *j1, *j2;
	bool same_layers;

	if (merge(
		doc("\"allowedDomains\":[\"github.com\",\"x.org\"],\"deniedDomains\":"
		    "[\"b.org\"],\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"192.168.0.0/16\"]",
		    "\"denyRead\":[\"/s\"],\"allowWrite\":[\".\"]",
		    "\"ignoreViolations\":"
		    "{\"*\":[\"/tmp\"],\"npm\":[\"/x\"]},\"git\":{\"safeDirectories\":[\"/r\"]}"),
		doc("\"allowedDomains\":[\"github.com\"],\"deniedDomains\":[\"e.org\"],"
		    "\"deniedResolvedAddresses\":[\"10.0.0.0/8\"],\"httpProxyPort\":3000",
		    "\"denyWrite\":[\".env\"]", mroot),
		&once, &errs, &warns) != 0) {
		ok(0, "idempotence: first merge");
		return;
	}
	ok(once.layers.managed[SL_DENIED_ADDRS] == 1 && once.net.ndenied_addrs == 2 &&
		once.nignore == 2 && once.ignore[0].subs.n == 2 &&
		once.layers.managed[SL_IGNORE] == 1 &&
		once.layers.managed[SL_GIT_SAFE_DIRS] == 0,
	    "ranges, ignoreViolations (a shared pattern's lists joined) and git merged");
	ok(policy_compile(&once, &b1, &l1) == 0, "compile the merge");
	/* As a program does with a compiled policy: rebuilt, merged again. */
	p = policy_open_mem(b1, l1, err, sizeof(err));
	ok(p != NULL && policy_to_settings(p, &back) == 0, "open and rebuild: %s",
	    p ? "" : err);
	same_layers = p != NULL && back.layers.flags == once.layers.flags &&
	    memcmp(back.layers.managed, once.layers.managed, sizeof(once.layers.managed)) ==
		0 &&
	    back.layers.options.n == once.layers.options.n;
	ok(same_layers, "policy.bin keeps the layers");
	policy_free(p);
	diags_free(&warns);
	mk_managed(&m,
	    doc("\"allowedDomains\":[\"github.com\"],\"deniedDomains\":"
		"[\"e.org\"],\"deniedResolvedAddresses\":[\"10.0.0.0/8\"],\"httpProxyPort\":3000",
		"\"denyWrite\":[\".env\"]", mroot));
	ok(managed_apply(&m, &back, "policy.bin", &twice, &errs, &warns) == 0 &&
		warns.msgs.n == 0,
	    "merged again: no error, nothing to warn about");
	j1 = settings_to_json(&once);
	j2 = settings_to_json(&twice);
	ok(strcmp(j1, j2) == 0 &&
		memcmp(twice.layers.managed, once.layers.managed,
		    sizeof(once.layers.managed)) == 0,
	    "merged again: the same settings and layers");
	ok(policy_compile(&twice, &b2, &l2) == 0 && l1 == l2 && memcmp(b1, b2, l1) == 0,
	    "merged again: the same bytes");
	free(j1);
	free(j2);
	free(b1);
	free(b2);
	managed_free(&m);
	settings_free(&once);
	settings_free(&twice);
	diags_free(&errs);
	diags_free(&warns);
}

/* What policy.bin says about layers is checked like the rest of it. */
static void
test_image_layers(void)
{
	struct settings s;
	struct policy *p = NULL;
	uint8_t *b;
	size_t len;
	char err[256];
	struct ip_addr a;
	struct guard_result r;
	char *t = doc("\"allowedDomains\":[\"a.org\"],\"deniedResolvedAddresses\":"
		      "[\"10.0.0.0/8\",\"192.168.0.0/16\"]",
	    NULL, NULL);

	if (parse_user(t, &s) != 0)
		return;
	s.layers.flags = SETTINGS_LAYER_MERGED;
	s.layers.managed[SL_DENIED_ADDRS] = 1;
	ok(policy_compile(&s, &b, &len) == 0, "compile with layers");
	p = policy_open_mem(b, len, err, sizeof(err));
	memset(&a, 0, sizeof(a));
	ok(p != NULL && ip_addr_parse("10.1.2.3", &a) == 0 &&
		policy_addr_in_denied_ranges(p, &a) == POLICY_LISTED_MANAGED,
	    "a managed range is told apart");
	ok(p != NULL && ip_addr_parse("192.168.1.1", &a) == 0 &&
		policy_addr_in_denied_ranges(p, &a) == POLICY_LISTED_USER,
	    "a user's range too");
	if (p != NULL && ip_addr_parse("10.1.2.3", &a) == 0) {
		guard_check(p, "a.org", 443, &a, 1, NULL, NULL, &r);
		ok(strcmp(r.reason, "managed: resolved to a listed address") == 0,
		    "the guard's reason says managed: %s", r.reason);
	}
	policy_free(p);
	free(b);
	s.layers.managed[SL_DENIED_ADDRS] = 3;
	ok(policy_compile(&s, &b, &len) == -1, "a count beyond its list is not written");
	s.layers.managed[SL_DENIED_ADDRS] = 0;
	s.layers.flags = SETTINGS_LAYER_DOMAINS_ONLY;
	ok(policy_compile(&s, &b, &len) == -1, "flags without a merge are not written");
	s.layers.flags = SETTINGS_LAYER_MERGED;
	strlist_push(&s.layers.options, "network.noSuchKey");
	ok(policy_compile(&s, &b, &len) == -1, "an option the schema lacks is not written");
	settings_free(&s);
}

static void
test_trust(void)
{
	struct diags errs = { 0 };
	struct managed m;
	char dir[] = "/tmp/srt-managed.XXXXXX", *f;
	int rc;

	ok(managed_load_path("relative/managed.json", &m, &errs, NULL) == -1 &&
		diags_has(&errs, "not an absolute path", NULL),
	    "a relative path is refused");
	diags_free(&errs);
	/* The way ends at a name that does not exist in a directory only root can change. */
	rc = managed_load_path(
	    "/nonexistent-srt-test-dir/srt/managed-settings.json", &m, &errs, NULL);
	ok(rc == 0 && !m.present && errs.msgs.n == 0, "no such directory: no managed layer");
	diags_free(&errs);
	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	f = xasprintf("%s/managed-settings.json", dir);
	rc = managed_load_path(f, &m, &errs, NULL);
	ok(rc == -1 && !m.present &&
		diags_has(&errs, "the managed policy cannot be trusted", "/tmp is writable"),
	    "missing under a directory others may write (/tmp): "
	    "refused, its absence is not trusted: %s",
	    errs.msgs.n ? errs.msgs.v[0] : "");
	diags_free(&errs);
	free(f);
	rmdir(dir);
}

/* Masked credentials: the managed file's masks and policies are not weakened. */
static void
test_credential_masks(void)
{
	struct diags errs = { 0 }, warns = { 0 };
	struct settings out;
	/* injectHosts must be reachable through allowedDomains in each file. */
	const char *net = "\"allowedDomains\":[\"api.github.com\",\"evil.example\"]";
	const char *mcred =
	    "\"credentials\":{\"allowPlaintextInject\":true,\"envVars\":"
	    "[{\"name\":\"GH_TOKEN\",\"mode\":\"mask\",\"injectHosts\":[\"api.github.com\"]}]}";

	ok(merge(doc(net, NULL,
		     "\"credentials\":{\"allowPlaintextInject\":true,"
		     "\"envVars\":[{\"name\":\"GH_TOKEN\",\"mode\":\"mask\",\"injectHosts\":"
		     "[\"evil.example\"]},{\"name\":\"NPM_TOKEN\",\"mode\":\"mask\"}]}"),
	       doc(net, NULL, mcred), &out, &errs, &warns) == 0,
	    "credentials merge");
	ok(out.cred.nmask == 2 && strcmp(out.cred.mask[0].id, "GH_TOKEN") == 0 &&
		out.cred.mask[0].inject.n == 1 &&
		strcmp(out.cred.mask[0].inject.v[0], "api.github.com") == 0 &&
		strcmp(out.cred.mask[1].id, "NPM_TOKEN") == 0 && out.cred.plaintext_inject,
	    "the managed mask stands (its inject hosts), the user's other mask is added");
	ok(diags_has(&warns, UNAME ": credentials.envVars \"GH_TOKEN\": the managed policy",
	       "its entry is the one used"),
	    "the user's other entry for it is warned about");
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);
	/* allowPlaintextInject and a sigv4 passthrough weaken. */
	ok(merge(doc(NULL, NULL,
		     "\"credentials\":{\"allowPlaintextInject\":true,"
		     "\"sigv4\":{\"presigned\":\"passthrough\"},\"envVars\":[{\"name\":\"A\","
		     "\"mode\":\"mask\"}]}"),
	       doc(NULL, NULL, NULL), &out, &errs, NULL) == -1 &&
		diags_has(
		    &errs, UNAME ": credentials.allowPlaintextInject: not allowed", NULL) &&
		diags_has(&errs, UNAME ": credentials.sigv4.presigned: not allowed", NULL),
	    "a user's allowPlaintextInject or passthrough needs allowUserWeakerOptions");
	settings_free(&out);
	diags_free(&errs);
	ok(merge(doc(NULL, NULL,
		     "\"credentials\":{\"allowPlaintextInject\":true,"
		     "\"sigv4\":{\"presigned\":\"passthrough\"},\"envVars\":[{\"name\":\"A\","
		     "\"mode\":\"mask\"}]}"),
	       doc(NULL, NULL, "\"allowUserWeakerOptions\":true"), &out, &errs, NULL) == 0 &&
		out.cred.sigv4[1] == 1,
	    "... which lets them through");
	settings_free(&out);
	diags_free(&errs);
	/* Denies and masks side by side: the deny lists survive the masks' merge. */
	ok(merge(doc(NULL, NULL,
		     "\"credentials\":{\"allowPlaintextInject\":true,"
		     "\"envVars\":[{\"name\":\"NPM_TOKEN\",\"mode\":\"mask\"},{\"name\":"
		     "\"OLD\",\"mode\":\"deny\"}],\"files\":[{\"path\":\"~/.netrc\",\"mode\":"
		     "\"deny\"}]}"),
	       doc(net, NULL, mcred), &out, &errs, &warns) == 0 &&
		out.cred.nmask == 2 && strcmp(out.cred.mask[0].id, "GH_TOKEN") == 0 &&
		strcmp(out.cred.mask[1].id, "NPM_TOKEN") == 0 && out.cred.deny_env.n == 1 &&
		strcmp(out.cred.deny_env.v[0], "OLD") == 0 && out.cred.deny_files.n == 1 &&
		strcmp(out.cred.deny_files.v[0].path, "~/.netrc") == 0 &&
		out.layers.managed[SL_CRED_ENV] == 0 && out.layers.managed[SL_CRED_FILES] == 0,
	    "a user's denies are kept beside the managed file's masks");
	settings_free(&out);
	diags_free(&errs);
	diags_free(&warns);
}

int
main(void)
{
	test_own_fields();
	test_no_managed();
	test_domains();
	test_paths();
	test_credentials();
	test_options();
	test_routes();
	test_credential_masks();
	test_every_key();
	test_idempotent();
	test_image_layers();
	test_trust();
	return tap_done();
}
