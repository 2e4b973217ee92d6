/*
 * Settings parser and validator: the reference's vectors (whole documents and single list
 * entries), the messages, the JSON syntax errors, and the canonical round trip.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "settings.h"
#include "tap.h"

static const char *datadir;

/* A minimal valid document with these pieces appended to network, filesystem and the
 * root (each "" for none). */
static char *
doc(const char *net_extra, const char *fs_extra, const char *root_extra)
{
	return xasprintf(
	    "{\"network\": {\"allowedDomains\": [], \"deniedDomains\": []%s}, "
	    "\"filesystem\": {\"denyRead\": [], \"allowWrite\": [], \"denyWrite\": []%s}%s}",
	    net_extra, fs_extra, root_extra);
}

/* The same with whole network and filesystem bodies given. */
static char *
doc_bodies(const char *net, const char *fs)
{
	return xasprintf("{\"network\": {%s}, \"filesystem\": {%s}}",
	    net ? net : "\"allowedDomains\": [], \"deniedDomains\": []",
	    fs ? fs : "\"denyRead\": [], \"allowWrite\": [], \"denyWrite\": []");
}

#define FS_WITH(x) "\"allowWrite\": [], " x

struct result {
	int rc;
	struct settings s;
	struct diags errs, warns;
};

static void
run(struct result *r, const char *text)
{
	memset(r, 0, sizeof(*r));
	r->rc = settings_parse(text, strlen(text), "F", &r->s, &r->errs, &r->warns);
}

static void
result_free(struct result *r)
{
	settings_free(&r->s);
	diags_free(&r->errs);
	diags_free(&r->warns);
}

static int
has_msg(const struct diags *d, const char *want)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		if (strstr(d->msgs.v[i], want) != NULL)
			return 1;
	return 0;
}

static int
is_zero(const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return 0;
	return 1;
}

/* The documented differences from the reference: srt rejects unknown keys and the fields
 * it does not implement yet. */
static int
is_documented_difference(const char *msg)
{
	/* mitmProxy with tlsTerminate: the reference's schema takes the pair and its proxy
	 * refuses it when it starts; srt refuses it in the file (srt-settings(5)). */
	return strstr(msg, ": unknown key") != NULL ||
	    strstr(msg, " is not supported yet") != NULL ||
	    strstr(msg, "mitmProxy and tlsTerminate cannot be used together") != NULL;
}

static void
show(const struct diags *d)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		printf("#   %s\n", d->msgs.v[i]);
}

static FILE *
data_open(const char *name)
{
	char *path = xasprintf("%s/%s", datadir, name);
	FILE *f = fopen(path, "r");

	if (f == NULL)
		printf("# cannot open %s: %s\n", path, strerror(errno));
	free(path);
	return f;
}

static void
test_docs(void)
{
	FILE *f = data_open("settings-docs.jsonl");
	char *line = NULL, *text;
	size_t cap = 0, n = 0, diffs;
	cJSON *j;
	const char *expect, *change;
	struct result r;
	int good;

	ok(f != NULL, "settings-docs.jsonl opens");
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		n++;
		j = cJSON_Parse(line);
		if (j == NULL) {
			ok(0, "settings-docs line %zu is JSON", n);
			continue;
		}
		expect = cJSON_GetStringValue(cJSON_GetObjectItem(j, "expect"));
		change = cJSON_GetStringValue(cJSON_GetObjectItem(j, "change"));
		text = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "settings"));
		run(&r, text);
		diffs = 0;
		for (size_t i = 0; i < r.errs.msgs.n; i++)
			diffs += is_documented_difference(r.errs.msgs.v[i]);
		if (strcmp(expect, "valid") == 0)
			/* Rejected only for a documented difference, never for anything else. */
			good = r.rc == 0 || (r.errs.msgs.n > 0 && diffs == r.errs.msgs.n);
		else
			/* At least one problem that the reference would also call a problem. */
			good = r.rc == -1 && r.errs.msgs.n > diffs;
		good = good && (r.rc == 0) == (r.errs.msgs.n == 0) &&
		    (r.rc == 0 || is_zero(&r.s, sizeof(r.s)));
		ok(good, "doc %zu (%s): expect %s, got %s%s", n, change, expect,
		    r.rc == 0 ? "valid" : "invalid",
		    diffs == 0                   ? ""
			: diffs == r.errs.msgs.n ? " (only for a documented difference)"
						 : " (also an srt-only problem)");
		if (!good)
			show(&r.errs);
		result_free(&r);
		free(text);
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	ok(n == 150, "all 150 settings-docs vectors read (%zu)", n);
}

/* The reference's issue path ("windows.proxyPortRange.0") in srt's spelling
 * ("windows.proxyPortRange[0]"). Caller frees. */
static char *
srt_path(const char *ref)
{
	char *out = xmalloc(strlen(ref) * 2 + 1), *o = out;
	const char *p = ref;

	while (*p) {
		if (*p == '.' && p[1] >= '0' && p[1] <= '9') {
			*o++ = '[';
			for (p++; *p >= '0' && *p <= '9'; p++)
				*o++ = *p;
			*o++ = ']';
			continue;
		}
		*o++ = *p++;
	}
	*o = '\0';
	return out;
}

/* The path of an error message ("F: PATH: ..."), or NULL. Caller frees. */
static char *
msg_path(const char *msg)
{
	const char *p = strstr(msg, ": "), *e;

	if (p == NULL || (e = strstr(p + 2, ": ")) == NULL)
		return NULL;
	return xstrndup(p + 2, (size_t)(e - p - 2));
}

/*
 * Did srt name the reference's issue at path sp: an error there or beneath it, or a
 * documented difference (a field srt refuses as a whole) at a key above it?
 */
static int
names_path(const struct diags *errs, const char *sp)
{
	size_t n = strlen(sp);
	int hit = 0;

	for (size_t i = 0; i < errs->msgs.n && !hit; i++) {
		char *mp = msg_path(errs->msgs.v[i]);
		size_t m;

		if (mp == NULL)
			continue;
		m = strlen(mp);
		if (n == 0)
			hit = 1;
		else if (strncmp(mp, sp, n) == 0 &&
		    (mp[n] == '\0' || mp[n] == '.' || mp[n] == '['))
			hit = 1;
		else if (is_documented_difference(errs->msgs.v[i]) && m < n &&
		    strncmp(sp, mp, m) == 0 && (sp[m] == '.' || sp[m] == '['))
			hit = 1;
		free(mp);
	}
	return hit;
}

/*
 * Vectors of documents run through the reference's schema, with its verdict and issue
 * paths: windows-settings.jsonl (windows blocks, tests/data/gen-windows-settings.mjs) and
 * schema-settings.jsonl (every field of the schema, tests/data/gen-schema-settings.mjs).
 * srt accepts what the reference accepts (refusing only for a documented difference),
 * rejects what it rejects, and names the paths the reference named.
 */
static void
test_ref_docs(const char *file, size_t min)
{
	FILE *f = data_open(file);
	char *line = NULL, *text;
	size_t cap = 0, n = 0, nvalid = 0, diffs;
	const cJSON *iss, *e;
	cJSON *j;
	const char *expect, *change;
	struct result r;
	int good, paths;

	ok(f != NULL, "%s opens", file);
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		n++;
		if ((j = cJSON_Parse(line)) == NULL) {
			ok(0, "%s line %zu is JSON", file, n);
			continue;
		}
		expect = cJSON_GetStringValue(cJSON_GetObjectItem(j, "expect"));
		change = cJSON_GetStringValue(cJSON_GetObjectItem(j, "change"));
		iss = cJSON_GetObjectItem(j, "issues");
		text = cJSON_PrintUnformatted(cJSON_GetObjectItem(j, "settings"));
		run(&r, text);
		diffs = 0;
		for (size_t i = 0; i < r.errs.msgs.n; i++)
			diffs += is_documented_difference(r.errs.msgs.v[i]);
		/* A field srt refuses as a whole refuses what is wrong inside it too: the
		 * paths (below) tell whether that is where the reference saw the problem. */
		if (strcmp(expect, "valid") == 0) {
			nvalid++;
			good = r.rc == 0 || (r.errs.msgs.n > 0 && diffs == r.errs.msgs.n);
		} else
			good = r.rc == -1 &&
			    (r.errs.msgs.n > diffs || cJSON_GetArraySize(iss) > 0);
		paths = 1;
		cJSON_ArrayForEach(e, iss)
		{
			const char *msg = cJSON_GetStringValue(e), *colon = strstr(msg, ": ");
			char *ref = xstrndup(msg, (size_t)(colon - msg)), *sp = srt_path(ref);

			paths &= names_path(&r.errs, sp);
			free(sp);
			free(ref);
		}
		ok(good && paths, "%s %zu (%s): expect %s, got %s%s", file, n, change, expect,
		    r.rc == 0 ? "valid" : "invalid",
		    paths ? "" : " (not at the reference's paths)");
		if (!good || !paths)
			show(&r.errs);
		result_free(&r);
		free(text);
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	ok(n >= min && nvalid > 0 && nvalid < n, "the %s vectors read (%zu, %zu valid)", file,
	    n, nvalid);
}

/* srt may refuse an entry the reference accepts only if it can never match a valid
 * host: a character outside what a host name or a bracketed address can hold, or a "*"
 * past a leading "*." (a host holds no "*"). */
static int
never_matches(const char *e)
{
	if (strchr(strncmp(e, "*.", 2) == 0 ? e + 2 : e, '*') != NULL)
		return 1;
	for (const unsigned char *p = (const unsigned char *)e; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			(*p >= '0' && *p <= '9') || strchr(".-_*:[]%", *p) != NULL))
			return 1;
	return 0;
}

static void
test_list_entries(void)
{
	static const char *lists[] = { "allowedDomains", "deniedDomains" };
	FILE *f = data_open("list-entries.jsonl");
	char *line = NULL, *text, *want;
	size_t cap = 0, n = 0;
	cJSON *j, *d, *net, *fs;
	const char *entry, *expect;
	struct result r;
	int good;

	ok(f != NULL, "list-entries.jsonl opens");
	if (f == NULL)
		return;
	while (getline(&line, &cap, f) > 0) {
		n++;
		if ((j = cJSON_Parse(line)) == NULL) {
			ok(0, "list-entries line %zu is JSON", n);
			continue;
		}
		entry = cJSON_GetStringValue(cJSON_GetObjectItem(j, "entry"));
		for (int l = 0; l < 2; l++) {
			expect = cJSON_GetStringValue(cJSON_GetObjectItem(j, lists[l]));
			d = cJSON_CreateObject();
			net = cJSON_AddObjectToObject(d, "network");
			fs = cJSON_AddObjectToObject(d, "filesystem");
			cJSON_AddItemToObject(net, "allowedDomains", cJSON_CreateArray());
			cJSON_AddItemToObject(net, "deniedDomains", cJSON_CreateArray());
			cJSON_AddItemToArray(
			    cJSON_GetObjectItem(net, lists[l]), cJSON_CreateString(entry));
			cJSON_AddItemToObject(fs, "denyRead", cJSON_CreateArray());
			cJSON_AddItemToObject(fs, "allowWrite", cJSON_CreateArray());
			cJSON_AddItemToObject(fs, "denyWrite", cJSON_CreateArray());
			text = cJSON_Print(d);
			run(&r, text);
			if (strcmp(expect, "accept") == 0)
				good = r.rc == 0 || never_matches(entry);
			else {
				/* One message, naming the element and quoting the entry. */
				want = xasprintf("F: network.%s[0]: \"%s\": ", lists[l], entry);
				good = r.rc == -1 && r.errs.msgs.n == 1 &&
				    (never_matches(entry) ||
					strncmp(r.errs.msgs.v[0], want, strlen(want)) == 0);
				free(want);
			}
			ok(good, "entry \"%s\" in %s: expect %s, got %s", entry, lists[l],
			    expect, r.rc == 0 ? "accept" : "reject");
			if (!good)
				show(&r.errs);
			if (r.rc == 0)
				ok(strcmp(l ? r.s.net.denied[0].spelled
					    : r.s.net.allowed[0].spelled,
				       entry) == 0,
				    "entry \"%s\" kept as spelled", entry);
			result_free(&r);
			free(text);
			cJSON_Delete(d);
		}
		cJSON_Delete(j);
	}
	free(line);
	fclose(f);
	ok(n == 150, "all 150 list-entries vectors read (%zu)", n);
}

/* Exactly these messages, in any order. */
static void
expect_errs(const char *name, const char *text, const char *const *want, size_t nwant)
{
	struct result r;
	int good;

	run(&r, text);
	good = r.rc == -1 && r.errs.msgs.n == nwant && is_zero(&r.s, sizeof(r.s));
	for (size_t i = 0; good && i < nwant; i++)
		good = has_msg(&r.errs, want[i]);
	ok(good, "%s", name);
	if (!good) {
		show(&r.errs);
		for (size_t i = 0; i < nwant; i++)
			printf("#   wanted: %s\n", want[i]);
	}
	result_free(&r);
}

static void
expect_one(const char *name, const char *text, const char *want)
{
	expect_errs(name, text, &want, 1);
}

static void
test_messages(void)
{
	struct dom_rule rule;
	const char *why = NULL;
	char *t, *want;
	struct result r;

	/* The domain message is dom_entry_parse's own, after the quoted entry. */
	ok(dom_entry_parse("*.com", 0, &rule, &why) == -1 && why != NULL,
	    "\"*.com\" is refused by dom_entry_parse");
	want = xasprintf("F: network.allowedDomains[2]: \"*.com\": %s", why);
	t = xasprintf(
	    "{\"network\": {\"allowedDomains\": [\"a.com\", \"b.com\", \"*.com\"], "
	    "\"deniedDomains\": []}, \"filesystem\": {\"denyRead\": [], \"allowWrite\": [], "
	    "\"denyWrite\": []}}");
	run(&r, t);
	ok(r.rc == -1 && r.errs.msgs.n == 1 && strcmp(r.errs.msgs.v[0], want) == 0,
	    "domain entry message: %s", r.errs.msgs.n ? r.errs.msgs.v[0] : "(none)");
	result_free(&r);
	free(t);
	free(want);

	{
		const char *w[] = {
			"F: network.allowedDomains[1]: \"http://x.com\": ",
			"F: network.deniedResolvedAddresses[0]: \"10.0.0.0/33\": ",
			"F: filesystem.denyRead[1]: the path is empty",
			"F: filesystem.allowWrite[0]: expected a path, or {\"path\": \"...\", "
			"\"literal\": true}, got the number 3",
			"F: mandatoryDenySearchDepth: expected an integer from 1 to 10, "
			"got the number 11",
			"F: network.httpProxyPort: expected an integer from 1 to 65535, "
			"got the number 1.5",
			"F: enableWeakerNestedSandbox: expected true or false, got the "
			"string \"yes\"",
			"F: filesystem.denyWrite: required field is missing",
		};
		expect_errs("every problem reported, each with its path",
		    "{\"network\": {\"allowedDomains\": [\"ok.com\", \"http://x.com\"], "
		    "\"deniedDomains\": [], \"deniedResolvedAddresses\": [\"10.0.0.0/33\"], "
		    "\"httpProxyPort\": 1.5}, \"filesystem\": {\"denyRead\": [\"/a\", \"\"], "
		    "\"allowWrite\": [3]}, \"mandatoryDenySearchDepth\": 11, "
		    "\"enableWeakerNestedSandbox\": \"yes\"}",
		    w, sizeof(w) / sizeof(w[0]));
	}
	{
		const char *w[] = { "F: network: required field is missing",
			"F: filesystem: required field is missing" };
		expect_errs("missing top-level fields", "{}", w, 2);
	}
	expect_one("root must be an object", "[1, 2]",
	    "F: (root): expected an object holding \"network\" and \"filesystem\", got an "
	    "array");
	expect_one("root string", "\"x\"", "F: (root): expected an object");

	/* Unknown keys: a close spelling is suggested, else the allowed keys are listed. */
	t = doc(", \"allowedDomain\": []", "", "");
	expect_one("unknown key with a suggestion", t,
	    "F: network.allowedDomain: unknown key; did you mean \"allowedDomains\"?");
	free(t);
	t = doc("", ", \"denyReads\": []", "");
	expect_one("typo denyReads", t,
	    "F: filesystem.denyReads: unknown key; did you mean \"denyRead\"?");
	free(t);
	t = doc("", "", ", \"zzzzzz\": 1");
	expect_one("unknown key lists the allowed ones", t,
	    "F: zzzzzz: unknown key; the keys allowed here are: network, filesystem, ");
	free(t);
	t = doc_bodies(NULL,
	    FS_WITH("\"denyWrite\": [], \"denyRead\": [{\"path\": \"/x\", "
		    "\"literal\": true, \"glob\": 1}]"));
	expect_one(
	    "unknown key in a path entry", t, "F: filesystem.denyRead[0].glob: unknown key");
	free(t);
	t = doc("", "", ", \"git\": {\"safeDirectories\": [], \"bogus\": 1}");
	expect_one("unknown key in git", t, "F: git.bogus: unknown key");
	free(t);
	t = doc("", "", ", \"a b\": 1");
	expect_one(
	    "a key that is not a name is quoted in the path", t, "F: [\"a b\"]: unknown key");
	free(t);

	{
		static const char *const errs[] = {
			"F: credentials.envVars[0].name: \"1X\" is not an environment variable "
			"name",
			"F: credentials.envVars[1].extract: \"(a\" is not a valid regular "
			"expression: Unterminated group",
			"F: credentials.envVars[2].extract: \"a\" has no capturing group",
			"F: credentials.envVars[3].mode: expected \"deny\" or \"mask\", got the "
			"string \"hide\"",
			"F: credentials.envVars[4].maskClaims: maskClaims requires decode",
			"F: credentials.envVars[5].maskClaims: maskClaims is empty",
			"F: credentials.envVars[6].injectHosts[0]: \"*.com\": a wildcard",
			"F: credentials.envVars[6].injectHosts[0]: \"*.com\" is not reachable",
			"F: credentials.envVars[7].mode: required field is missing",
			"F: credentials.files[0].path: the path is empty",
			"F: credentials.files[1].onExtractNoMatch: expected \"warn\", \"deny\" "
			"or \"error\"",
			"F: credentials.files[2].bogus: unknown key",
			"F: credentials.sigv4.streaming: expected \"deny\" or \"passthrough\"",
			"F: credentials.allowPlaintextInject: expected true or false",
			"F: credentials.awsPairs[0].sessionTokenVar: \"a-b\" is not an "
			"environment variable name",
			"F: credentials.injectHosts: unknown key",
			"F: credentials.awsPairs[0].accessKeyIdVar: \"K\" does not name a "
			"credentials.envVars entry",
			"F: credentials.awsPairs[0].secretAccessKeyVar: \"S\" does not name a "
			"credentials.envVars entry",
			"F: credentials.awsPairs[0].sessionTokenVar: \"a-b\" does not name a "
			"credentials.envVars entry",
		};

		t = doc("", "",
		    ", \"credentials\": {\"envVars\": ["
		    "{\"name\": \"1X\", \"mode\": \"deny\"}, "
		    "{\"name\": \"A\", \"mode\": \"deny\", \"extract\": \"(a\"}, "
		    "{\"name\": \"A\", \"mode\": \"deny\", \"extract\": \"a\"}, "
		    "{\"name\": \"A\", \"mode\": \"hide\"}, "
		    "{\"name\": \"A\", \"mode\": \"deny\", \"maskClaims\": [\"sub\"]}, "
		    "{\"name\": \"A\", \"mode\": \"deny\", \"decode\": \"jwt\", "
		    "\"maskClaims\": []}, "
		    "{\"name\": \"A\", \"mode\": \"deny\", \"injectHosts\": [\"*.com\"]}, "
		    "{\"name\": \"A\"}], "
		    "\"files\": [{\"path\": \"\", \"mode\": \"deny\"}, "
		    "{\"path\": \"/x\", \"mode\": \"deny\", \"onExtractNoMatch\": \"no\"}, "
		    "{\"path\": \"/x\", \"mode\": \"deny\", \"bogus\": 1}], "
		    "\"sigv4\": {\"streaming\": \"allow\"}, \"allowPlaintextInject\": 1, "
		    "\"awsPairs\": [{\"accessKeyIdVar\": \"K\", \"secretAccessKeyVar\": "
		    "\"S\", \"sessionTokenVar\": \"a-b\"}], \"injectHosts\": []}");
		expect_errs("every credentials field is checked", t, errs,
		    sizeof(errs) / sizeof(errs[0]));
		free(t);
	}
	{
		static const char *const errs[] = {
			"F: credentials.envVars[0].injectHosts[1]: \"other.org\" is not "
			"reachable through network.allowedDomains",
			"F: credentials.files[0].path: deny glob \"/data/*/\" ends in \"/\"",
			"F: credentials.awsPairs[0].accessKeyIdVar: \"K\" does not name a "
			"credentials.envVars entry with mode \"mask\"",
			"F: credentials.awsPairs[0].secretAccessKeyVar: \"K\" fills more than "
			"one awsPairs slot",
		};

		t = xasprintf("{\"network\": {\"allowedDomains\": [\"api.github.com\", "
			      "\"*.example.com:443\"], \"deniedDomains\": []}, \"filesystem\": "
			      "{\"denyRead\": [], \"allowWrite\": [], \"denyWrite\": []}%s}",
		    ", \"credentials\": {\"envVars\": [{\"name\": \"A\", \"mode\": "
		    "\"deny\", \"injectHosts\": [\"*.a.example.com\", \"other.org\", "
		    "\"API.github.com\"]}], \"files\": [{\"path\": \"/data/*/\", \"mode\": "
		    "\"deny\"}], \"awsPairs\": [{\"accessKeyIdVar\": \"K\", "
		    "\"secretAccessKeyVar\": \"K\"}]}");
		expect_errs("credentials against the rest of the file", t, errs,
		    sizeof(errs) / sizeof(errs[0]));
		free(t);
	}
	/* The deny glob check is off when the filesystem is not restricted. */
	t = doc("", ", \"disabled\": true",
	    ", \"credentials\": {\"files\": [{\"path\": "
	    "\"/data/*/\", \"mode\": \"deny\"}]}");
	run(&r, t);
	ok(r.rc == 0, "a slashed credential glob passes when the filesystem is not restricted");
	result_free(&r);
	free(t);
	/* Deny entries are kept, once each, in file order; what only masking uses warns. */
	t = doc("", "",
	    ", \"credentials\": {\"files\": [{\"path\": \"~/.netrc\", "
	    "\"mode\": \"deny\"}, {\"path\": \"~/.aws/*\", \"mode\": \"deny\"}, "
	    "{\"path\": \"~/.netrc\", \"mode\": \"deny\", \"extract\": \"(x)\"}], "
	    "\"envVars\": [{\"name\": \"GH_TOKEN\", \"mode\": \"deny\"}, {\"name\": "
	    "\"_x1\", \"mode\": \"deny\"}], \"sigv4\": {\"presigned\": \"passthrough\"}, "
	    "\"allowPlaintextInject\": false, \"awsPairs\": []}");
	run(&r, t);
	ok(r.rc == 0 && r.s.cred.deny_files.n == 2 &&
		strcmp(r.s.cred.deny_files.v[0].path, "~/.netrc") == 0 &&
		strcmp(r.s.cred.deny_files.v[1].path, "~/.aws/*") == 0 &&
		!r.s.cred.deny_files.v[1].literal && r.s.cred.deny_env.n == 2 &&
		strcmp(r.s.cred.deny_env.v[1], "_x1") == 0 && r.warns.msgs.n == 1 &&
		has_msg(&r.warns, "F: credentials.files[2]: accepted and ignored: extract"),
	    "credential denies kept once each; mask-only fields on a deny warn");
	result_free(&r);
	free(t);
	/* A field that acts only on a request filter: accepted with one warning.
	 * allowPlaintextHeaderSet is srt-httpd's (a decider's header sets). */
	t = doc(", \"allowPlaintextHeaderSet\": true, \"ambiguousRequestTarget\": "
		"\"asSpelled\"",
	    "", "");
	run(&r, t);
	ok(r.rc == 0 && r.warns.msgs.n == 1 &&
		has_msg(&r.warns, "F: network.ambiguousRequestTarget: accepted and ignored") &&
		r.s.net.allow_plaintext_header_set,
	    "allowPlaintextHeaderSet is honoured without a warning; ambiguousRequestTarget "
	    "warns once");
	result_free(&r);
	free(t);
	t = doc(", \"ambiguousRequestTarget\": \"strict\"", "", "");
	expect_one("ambiguousRequestTarget is checked", t,
	    "F: network.ambiguousRequestTarget: "
	    "expected \"refuse\", \"asSpelled\" or \"normalize\", got the string \"strict\"");
	free(t);
	t = doc(", \"allowPlaintextHeaderSet\": \"yes\"", "", "");
	expect_one("allowPlaintextHeaderSet is checked", t,
	    "F: network.allowPlaintextHeaderSet: expected true or false");
	free(t);
	t = doc("", "",
	    ", \"credentials\": {\"envVars\": [{\"name\": \"X\", "
	    "\"mode\": \"mask\"}]}");
	expect_one("credentials: a mask without a way back", t,
	    "F: credentials: masked "
	    "credentials need a way back into requests");
	free(t);
	t = doc("", "",
	    ", \"credentials\": {\"allowPlaintextInject\": true, \"envVars\": "
	    "[{\"name\": \"X\", \"mode\": \"mask\", \"extract\": \"(?=a)(b)\"}]}");
	expect_one("credentials: an extract srt cannot run", t,
	    "F: credentials.envVars[0]."
	    "extract: \"(?=a)(b)\": lookahead and lookbehind are not supported by srt");
	free(t);
	/* Masks are kept, with their fields, beside the denies; tlsTerminate is a way back. */
	t = xasprintf(
	    "{\"network\": {\"allowedDomains\": [\"api.github.com\"], "
	    "\"deniedDomains\": [], \"tlsTerminate\": {}}, \"filesystem\": {\"denyRead\": "
	    "[], \"allowWrite\": [], \"denyWrite\": []}, \"credentials\": {\"envVars\": "
	    "[{\"name\": \"GH_TOKEN\", \"mode\": \"mask\", \"injectHosts\": "
	    "[\"api.github.com\"]}, {\"name\": \"OLD\", \"mode\": \"deny\"}], \"files\": "
	    "[{\"path\": \"~/.netrc\", \"mode\": \"mask\", \"extract\": "
	    "\"password (\\\\S+)\", \"onExtractNoMatch\": \"error\", \"maskDuplicates\": "
	    "true}], \"sigv4\": {\"presigned\": \"passthrough\"}}}");
	run(&r, t);
	ok(r.rc == 0 && r.s.cred.nmask == 2 && !r.s.cred.mask[0].file &&
		strcmp(r.s.cred.mask[0].id, "GH_TOKEN") == 0 && r.s.cred.mask[0].inject_set &&
		r.s.cred.mask[0].inject.n == 1 && r.s.cred.mask[1].file &&
		strcmp(r.s.cred.mask[1].id, "~/.netrc") == 0 &&
		strcmp(r.s.cred.mask[1].extract, "password (\\S+)") == 0 &&
		r.s.cred.mask[1].no_match == SNM_ERROR && r.s.cred.mask[1].dups &&
		!r.s.cred.mask[1].inject_set && r.s.cred.deny_env.n == 1 &&
		strcmp(r.s.cred.deny_env.v[0], "OLD") == 0 && r.s.cred.deny_files.n == 0 &&
		r.s.cred.sigv4[1] == 1 && r.s.cred.sigv4[0] == 0 &&
		!r.s.cred.plaintext_inject && r.warns.msgs.n == 0,
	    "mask entries kept beside deny ones, under tlsTerminate");
	result_free(&r);
	free(t);
	t = doc("", "", ", \"windows\": {\"proxyPortRange\": [60080, 60145]}");
	expect_one("windows port range too wide", t,
	    "F: windows.proxyPortRange: [60080, "
	    "60145]: low must be at most high, and high at most low + 64");
	free(t);
	t = doc("", "",
	    ", \"windows\": {\"srtWin\": {\"path\": \"C:\\\\x.exe\", "
	    "\"argv0\": \"x\"}}");
	expect_one("unknown key in windows.srtWin", t, "F: windows.srtWin.argv0: unknown key");
	free(t);
	t = doc(", \"filterRequest\": \"x\"", "", "");
	expect_one("filterRequest cannot come from a file", t,
	    "F: network.filterRequest: filterRequest must be a function");
	free(t);

	/* Duplicate keys: JSON.parse keeps the last one silently; srt refuses. */
	expect_one("duplicate key at the root",
	    "{\"network\": {\"allowedDomains\": [], \"deniedDomains\": []}, \"filesystem\": "
	    "{\"denyRead\": [], \"allowWrite\": [], \"denyWrite\": []}, \"allowPty\": true, "
	    "\"allowPty\": false}",
	    "F: allowPty: the key appears more than once");
	t = doc(", \"allowedDomains\": [\"evil.com\"]", "", "");
	expect_one("duplicate nested key", t,
	    "F: network.allowedDomains: the key appears more than once");
	free(t);
	t = doc(", \"deniedDomainReasons\": {\"a.com\": \"x\", \"b.com\": \"y\", "
		"\"a.com\": \"z\"}",
	    "", "");
	expect_one("duplicate record key", t,
	    "F: network.deniedDomainReasons[\"a.com\"]: the key appears more than once");
	free(t);
	t = doc("", "", ", \"ignoreViolations\": {\"npm\": [], \"npm\": [\"/x\"]}");
	expect_one("duplicate ignoreViolations key", t,
	    "F: ignoreViolations.npm: the key appears more than once");
	free(t);

	/* Values the reference refuses. */
	t = doc("", "", ", \"mandatoryDenySearchDepth\": null");
	expect_one("null is not an optional value", t,
	    "F: mandatoryDenySearchDepth: expected an integer from 1 to 10, got null");
	free(t);
	t = doc("", "", ", \"bwrapPath\": \"bin/bwrap\"");
	expect_one(
	    "relative bwrapPath", t, "F: bwrapPath: \"bin/bwrap\" is not an absolute path");
	free(t);
	t = doc("", "", ", \"bwrapPath\": \"\"");
	expect_one("empty bwrapPath", t, "F: bwrapPath: the path is empty");
	free(t);
	t = doc_bodies(
	    NULL, FS_WITH("\"denyRead\": [\"/tmp/*/\"], \"denyWrite\": [\"~/a/[x]//\"]"));
	{
		const char *w[] = {
			"F: filesystem.denyRead[0]: deny glob \"/tmp/*/\" ends in "
			"\"/\", so as a pattern it can match no path; write \"/tmp/*\"",
			"F: filesystem.denyWrite[0]: deny glob \"~/a/[x]//\" ends in \"/\""
		};
		expect_errs("deny globs ending in /", t, w, 2);
	}
	free(t);
	/* Entries taken as written that would protect another path than meant (issue 31):
	 * each refused by entry, with why and the literal form for a real name. */
	t = doc_bodies(NULL,
	    "\"denyRead\": [\"$HOME/.ssh\", \"~user/.aws\", "
	    "\"/etc/shadow \", \" /etc/passwd\", \"/a/$(id)\", \"~\", \"~/x\", \"a$\", "
	    "\"/p$1\", {\"path\": \"$HOME\", \"literal\": true}], "
	    "\"allowWrite\": [\"${PWD}\"], \"denyWrite\": [\"\\t.env\"], "
	    "\"allowRead\": [\"~root\"]");
	{
		const char *w[] = {
			"F: filesystem.denyRead[0]: \"$HOME/.ssh\": srt expands no shell "
			"variables, so \"$\" would be taken as part of the name; write the "
			"path out (\"~/\" for the home directory); if a name really is spelt "
			"so, write {\"path\": \"$HOME/.ssh\", \"literal\": true}",
			"F: filesystem.denyRead[1]: \"~user/.aws\": only \"~\" and \"~/\" name "
			"the home directory, so \"~user\" would be taken as a name under the "
			"working directory; write the full path",
			"F: filesystem.denyRead[2]: \"/etc/shadow \": it ends with white space",
			"F: filesystem.denyRead[3]: \" /etc/passwd\": it starts with white space",
			"F: filesystem.denyRead[4]: \"/a/$(id)\": srt expands no shell variables",
			"F: filesystem.allowWrite[0]: \"${PWD}\": srt expands no shell variables",
			"F: filesystem.denyWrite[0]: \"\\t.env\": it starts with white space",
			"F: filesystem.allowRead[0]: \"~root\": only \"~\" and \"~/\"",
		};
		expect_errs("$-expansions, ~user and white space at either end", t, w, 8);
	}
	free(t);
	t = doc_bodies(NULL,
	    FS_WITH("\"disabled\": true, \"denyRead\": [\"/tmp/*/\"], "
		    "\"denyWrite\": [\"~/*/\"]"));
	run(&r, t);
	ok(r.rc == 0, "deny glob ending in / accepted when the filesystem is disabled");
	result_free(&r);
	free(t);
	t = doc_bodies(NULL,
	    "\"denyRead\": [\"src/*/\", \"/tmp/x/\"], \"allowWrite\": [\"/a/*/\"], "
	    "\"denyWrite\": [\"x/?/\"]");
	run(&r, t);
	ok(r.rc == 0, "relative deny globs, plain paths and allow globs may end in /");
	result_free(&r);
	free(t);
	t = doc_bodies(NULL,
	    FS_WITH("\"denyWrite\": [], \"denyRead\": [{\"path\": \"/x\", "
		    "\"literal\": false}, {\"path\": \"/y\"}]"));
	{
		const char *w[] = { "F: filesystem.denyRead[0].literal: \"literal\" can only "
				    "be true",
			"F: filesystem.denyRead[1].literal: required field is missing" };
		expect_errs("literal path entries", t, w, 2);
	}
	free(t);
	t = doc(", \"allowMachLookup\": [\"com.a.*\", \"*\", \"com.*.x\", \"a**\"]", "", "");
	{
		const char *w[] = { "F: network.allowMachLookup[2]: \"com.*.x\": \"*\" is "
				    "only allowed once, as the last character",
			"F: network.allowMachLookup[3]:" };
		expect_errs("allowMachLookup wildcards", t, w, 2);
	}
	free(t);
	t = doc(", \"deniedDomainReasons\": {\"x.com\": \"\"}", "", "");
	expect_one("empty reason", t,
	    "F: network.deniedDomainReasons[\"x.com\"]: the reason "
	    "is empty");
	free(t);
	t = doc(", \"allowUnixSockets\": [\"/a\", 2]", "", "");
	expect_one("string list element", t,
	    "F: network.allowUnixSockets[1]: expected a string, got the number 2");
	free(t);
	t = doc("", "", ", \"ignoreViolations\": {\"*\": \"x\"}");
	expect_one("ignoreViolations value", t,
	    "F: ignoreViolations[\"*\"]: expected an array of strings");
	free(t);
	t = doc("", "", ", \"ripgrep\": {\"args\": []}");
	expect_one("ripgrep needs a command", t,
	    "F: ripgrep.command: required field is "
	    "missing");
	free(t);
	t = doc("", "", ", \"socatPath\": \"socat\"");
	expect_one("socatPath must be absolute", t,
	    "F: socatPath: \"socat\" is not an "
	    "absolute path");
	free(t);
	t = doc_bodies("\"deniedDomains\": [], \"allowedDomains\": [\"\\u001b[31mred\"]", NULL);
	expect_one("control characters are escaped in messages", t,
	    "F: network.allowedDomains[0]: \"\\u001b[31mred\":");
	free(t);

	/* A flood of problems: the first 500 one by one, then a count. */
	{
		size_t off = 0, cap = 600 * 8 + 256;
		char *big = xmalloc(cap);

		off += snprintf(big + off, cap - off,
		    "{\"network\": {\"deniedDomains\": [], "
		    "\"allowedDomains\": [");
		for (int i = 0; i < 600; i++)
			off += snprintf(big + off, cap - off, "%s\"*.x\"", i ? "," : "");
		snprintf(big + off, cap - off,
		    "]}, \"filesystem\": {\"denyRead\": [], "
		    "\"allowWrite\": [], \"denyWrite\": []}}");
		run(&r, big);
		ok(r.rc == -1 && r.errs.msgs.n == 501 &&
			has_msg(&r.errs, "F: network.allowedDomains[499]: ") &&
			strcmp(r.errs.msgs.v[500], "F: 100 more problems not shown") == 0,
		    "problems past 500 are counted");
		result_free(&r);
		ok(settings_parse(big, strlen(big), "F", &r.s, NULL, NULL) == -1,
		    "errs and warns may be NULL");
		free(big);
	}

	/* Helper keys: validated, accepted, ignored with a warning. */
	t = doc("", "",
	    ", \"ripgrep\": {\"command\": \"rg\", \"args\": [\"-x\"]}, \"seccomp\": "
	    "{\"applyPath\": \"/x\"}, \"socatPath\": \"/usr/bin/socat\", \"javaAgentJarPath\": "
	    "\"/a.jar\"");
	run(&r, t);
	ok(r.rc == 0 && r.warns.msgs.n == 4 &&
		has_msg(&r.warns,
		    "F: ripgrep: accepted and "
		    "ignored") &&
		has_msg(&r.warns, "F: seccomp: accepted and ignored") &&
		has_msg(&r.warns, "F: socatPath: accepted and ignored") &&
		has_msg(&r.warns, "F: javaAgentJarPath: accepted and ignored"),
	    "helper keys accepted with one warning each");
	result_free(&r);
	free(t);

	/* Reasons reach their rules; an unused key is only a warning. */
	t = doc(
	    ", \"deniedDomains\": [\"a.com\", \"*:22\", \"a.com\"], \"deniedDomainReasons\": "
	    "{\"*:22\": \"no ssh\", \"a.com\": \"not a\", \"nothere.com\": \"x\"}",
	    "", "");
	run(&r, t);
	ok(r.rc == -1, "deniedDomains given twice is refused");
	result_free(&r);
	free(t);
	t = xasprintf(
	    "{\"network\": {\"allowedDomains\": [], \"deniedDomains\": [\"a.com\", "
	    "\"*:22\", \"a.com\", \"b.com\"], \"deniedDomainReasons\": {\"*:22\": \"no ssh\", "
	    "\"a.com\": \"not a\", \"nothere.com\": \"x\"}}, \"filesystem\": {\"denyRead\": "
	    "[], \"allowWrite\": [], \"denyWrite\": []}}");
	run(&r, t);
	ok(r.rc == 0 && r.s.net.ndenied == 4 && r.s.net.nreasons == 3 &&
		r.s.net.denied[0].reason && strcmp(r.s.net.denied[0].reason, "not a") == 0 &&
		r.s.net.denied[1].reason && strcmp(r.s.net.denied[1].reason, "no ssh") == 0 &&
		r.s.net.denied[2].reason && strcmp(r.s.net.denied[2].reason, "not a") == 0 &&
		r.s.net.denied[3].reason == NULL,
	    "reasons linked to their deny rules");
	ok(r.warns.msgs.n == 1 &&
		has_msg(&r.warns,
		    "F: network.deniedDomainReasons"
		    "[\"nothere.com\"]: no deniedDomains entry is written exactly \"nothere.com\""),
	    "unused reason key warned about");
	result_free(&r);
	free(t);
}

struct jcase {
	const char *text;
	const char *want; /* "F: line L, column C: not valid JSON: ..." prefix */
};

static void
test_json_errors(void)
{
	static const struct jcase cases[] = {
		{ "{\n  \"network\": {,\n}",
		    "F: line 2, column 15: not valid JSON: expected "
		    "a key in double quotes, found ','" },
		{ "{\"a\": [1, 2,]}",
		    "F: line 1, column 13: not valid JSON: a comma before "
		    "']' is not allowed" },
		{ "{\"a\": 1,}", "F: line 1, column 9: not valid JSON: a comma before '}'" },
		{ "{\"a\" 1}",
		    "F: line 1, column 6: not valid JSON: expected ':' after the "
		    "key, found a number" },
		{ "{\"a\": 1 \"b\": 2}",
		    "F: line 1, column 9: not valid JSON: expected ',' or "
		    "'}' after an object member, found a string" },
		{ "[1 2]", "F: line 1, column 4: not valid JSON: expected ',' or ']'" },
		{ "{\"a\": \"abc",
		    "F: line 1, column 7: not valid JSON: string is not "
		    "terminated" },
		{ "{\"a\": 01}", "F: line 1, column 7: not valid JSON: invalid number \"01\"" },
		{ "{\"a\": 1.}", "F: line 1, column 7: not valid JSON: invalid number \"1.\"" },
		{ "{\"a\": -.5}", "F: line 1, column 7: not valid JSON: invalid number" },
		{ "{\"a\": +1}",
		    "F: line 1, column 7: not valid JSON: unexpected character '+'" },
		{ "{\"a\": \"x\ty\"}",
		    "F: line 1, column 9: not valid JSON: control character "
		    "U+0009 inside a string" },
		{ "{\"a\": \"\\q\"}", "F: line 1, column 8: not valid JSON: invalid escape" },
		{ "{\"a\": \"\\u0000\"}", "F: line 1, column 8: not valid JSON: \\u0000" },
		{ "{\"a\": \"\\ud800\"}",
		    "F: line 1, column 8: not valid JSON: \\uD800 is half "
		    "of a UTF-16 surrogate pair" },
		{ "{\"a\": \"\xff\"}",
		    "F: line 1, column 8: not valid JSON: byte 0xFF inside a "
		    "string is not valid UTF-8" },
		{ "\xef\xbb\xbf{}",
		    "F: line 1, column 1: not valid JSON: the file starts with a "
		    "UTF-8 byte order mark" },
		{ "{'a': 1}", "F: line 1, column 2: not valid JSON: single quotes" },
		{ "{} // x", "F: line 1, column 4: not valid JSON: comments are not allowed" },
		{ "{}\n}",
		    "F: line 2, column 1: not valid JSON: unexpected '}' after the end of "
		    "the document" },
		{ "{\"a\": tru}",
		    "F: line 1, column 7: not valid JSON: unexpected word \"tru\"" },
		{ "{\"a\": True}", "F: line 1, column 7: not valid JSON: unexpected word" },
		{ "{\"é\": [\n\n   ",
		    "F: line 3, column 4: not valid JSON: expected a value, "
		    "found the end of the file" },
		{ "{\"é\":\v1}", "F: line 1, column 6: not valid JSON: unexpected byte 0x0B" },
		{ "{\"a\": 1}\0", "F: line 1, column 9: not valid JSON: unexpected byte 0x00" },
	};
	struct result r;
	size_t len;
	char *deep;
	int good;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&r, 0, sizeof(r));
		/* The last case carries a NUL byte inside the length. */
		len = strlen(cases[i].text) + (strstr(cases[i].want, "0x00") != NULL);
		r.rc = settings_parse(cases[i].text, len, "F", &r.s, &r.errs, &r.warns);
		good = r.rc == -1 && r.errs.msgs.n == 1 &&
		    strncmp(r.errs.msgs.v[0], cases[i].want, strlen(cases[i].want)) == 0;
		ok(good, "JSON error %zu: %s", i, r.errs.msgs.n ? r.errs.msgs.v[0] : "(none)");
		if (!good)
			printf("#   wanted: %s\n", cases[i].want);
		result_free(&r);
	}

	/* Nesting is bounded, and reported, not a crash. */
	deep = xmalloc(20001);
	memset(deep, '[', 10000);
	memset(deep + 10000, ']', 10000);
	deep[20000] = '\0';
	run(&r, deep);
	ok(r.rc == -1 && r.errs.msgs.n == 1 &&
		has_msg(&r.errs,
		    "F: line 1, column 257: not "
		    "valid JSON: nested more than 256 levels deep"),
	    "deep nesting refused");
	result_free(&r);
	free(deep);

	run(&r, "");
	ok(r.rc == -1 && r.errs.msgs.n == 1 && has_msg(&r.errs, "F: the file is empty"),
	    "empty text");
	result_free(&r);
	run(&r, " \n\t\r\n ");
	ok(r.rc == -1 && r.errs.msgs.n == 1 && has_msg(&r.errs, "F: the file is empty"),
	    "whitespace-only text");
	result_free(&r);
}

static void
test_load(void)
{
	char dir[] = "/tmp/srt-test-settings.XXXXXX", *p, *t;
	struct settings s;
	struct diags errs = { 0 }, warns = { 0 };
	FILE *f;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp: %s", strerror(errno));
		return;
	}
	p = xasprintf("%s/missing.json", dir);
	ok(settings_load(p, &s, &errs, &warns) == -1 && errs.msgs.n == 1 &&
		has_msg(&errs, "missing.json: the settings file does not exist") &&
		is_zero(&s, sizeof(s)),
	    "missing file");
	diags_free(&errs);
	free(p);

	ok(settings_load(dir, &s, &errs, &warns) == -1 && errs.msgs.n == 1 &&
		has_msg(&errs, ": cannot be read: Is a directory"),
	    "unreadable (a directory): %s", errs.msgs.n ? errs.msgs.v[0] : "");
	diags_free(&errs);

	p = xasprintf("%s/empty.json", dir);
	f = fopen(p, "w");
	fputs("  \n", f);
	fclose(f);
	t = xasprintf("%s: the file is empty", p);
	ok(settings_load(p, &s, &errs, &warns) == -1 && errs.msgs.n == 1 && has_msg(&errs, t),
	    "empty file");
	diags_free(&errs);
	free(t);

	f = fopen(p, "w");
	t = doc("", "", "");
	fputs(t, f);
	fclose(f);
	free(t);
	ok(settings_load(p, &s, &errs, &warns) == 0 && errs.msgs.n == 0 &&
		s.deny_search_depth == 3,
	    "valid file loads");
	settings_free(&s);
	unlink(p);
	free(p);
	rmdir(dir);
}

/* Rich documents, every field set: to_json is a fixed point after one parse. */
static const char *rich[] = {
	"{\"network\": {\"allowedDomains\": [\"github.com\", \"*.npmjs.org\", "
	"\"registry.npmjs.org:443\", \"[::1]:8080\", \"1.2.3.4\", \"EXAMPLE.com\", "
	"\"localhost\", \"[fe80::1%eth0]\", \"a..b\"], "
	"\"deniedDomains\": [\"169.254.169.254\", \"*:22\", \"evil.example.com\", \"*\"], "
	"\"deniedDomainReasons\": {\"169.254.169.254\": \"cloud metadata\", \"*:22\": "
	"\"no ssh \\\"here\\\"\\n\", \"unused.example\": \"never\"}, \"strictAllowlist\": true, "
	"\"deniedResolvedAddresses\": [\"10.0.0.0/8\", \"fc00::/7\", \"::ffff:10.0.0.0/104\", "
	"\"192.168.1.10\"], \"allowUnixSockets\": [\"/run/x.sock\", \"\"], "
	"\"allowAllUnixSockets\": true, \"allowLocalBinding\": true, \"allowMachLookup\": "
	"[\"com.a.*\", \"*\"], \"httpProxyPort\": 3128, \"socksProxyPort\": 65535, "
	"\"requireHostMatch\": true}, "
	"\"filesystem\": {\"disabled\": false, \"denyRead\": [\"~/.ssh\", {\"path\": "
	"\"/odd[1]\", \"literal\": true}], \"allowRead\": [\"~/.ssh/known_hosts\"], "
	"\"allowWrite\": [\".\", \"/tmp\", \"~/x/*/\"], \"denyWrite\": [\".env\", {\"literal\": "
	"true, \"path\": \"/w/[WIP]/\"}], \"allowGitConfig\": true}, "
	"\"ignoreViolations\": {\"*\": [\"/usr/bin\"], \"npm test\": [], \"\\u00e9\": [\"\\t\"]}, "
	"\"enableWeakerNestedSandbox\": true, \"allowNestedUserNamespaces\": true, "
	"\"enableWeakerNetworkIsolation\": true, \"allowAppleEvents\": true, \"allowPty\": "
	"true, \"mandatoryDenySearchDepth\": 10, \"bwrapPath\": \"/usr/bin/bwrap\", \"git\": "
	"{\"safeDirectories\": [\"/repo\", \"*\"]}, \"ripgrep\": {\"command\": \"rg\"}, "
	"\"windows\": {\"backend\": \"mxc\", \"sandboxUser\": \"\\u00e9-sandbox\", "
	"\"sublayerGuid\": \"8D4C6D3E-1f2a-4b5c-9d6e-7f8091a2b3c4\", \"wfpSublayerGuid\": "
	"\"00000000-0000-0000-0000-000000000000\", \"proxyPortRange\": [65471, 65535], "
	"\"srtWin\": {\"path\": \"C:\\\\Tools\\\\srt-win.exe\"}}}",

	"{\"filesystem\": {\"denyWrite\": [], \"allowWrite\": [], \"denyRead\": []}, "
	"\"network\": {\"deniedDomains\": [], \"allowedDomains\": []}}",

	"{\"network\": {\"allowedDomains\": [\"*.co.uk:443\"], \"deniedDomains\": "
	"[\"[::1]\"], \"httpProxyPort\": 1e3}, \"filesystem\": {\"disabled\": true, "
	"\"denyRead\": [\"/a/**/\"], \"allowWrite\": [], \"denyWrite\": [\"~/*/\"]}, "
	"\"mandatoryDenySearchDepth\": 1, \"git\": {}, \"windows\": {}}",
};

/* parentProxy, mitmProxy, stripResponseHeaders and refuseOpaqueTunnels beyond the
 * reference's verdicts (route-settings.jsonl): srt's messages, its warnings, and what is
 * kept. */
static void
test_routes(void)
{
	struct result r, r2;
	char *t, *j1, *j2;

	t = doc(", \"parentProxy\": {\"http\": \"127.0.0.1:3128\"}", "", "");
	expect_one("a parent URL needs a scheme in the file", t,
	    "F: network.parentProxy.http: "
	    "\"127.0.0.1:3128\": not a URL: start it with http:// or https://");
	free(t);
	t = doc(", \"parentProxy\": {\"https\": \"http://p.example.com:99999\"}", "", "");
	expect_one("a parent URL with a bad port", t,
	    "F: network.parentProxy.https: "
	    "\"http://p.example.com:99999\": the port is larger than 65535");
	free(t);
	t = doc(
	    ", \"parentProxy\": {\"https\": \"http://me:pa55@p.example.com:99999\"}", "", "");
	expect_one("a password is not repeated in a message", t,
	    "F: network.parentProxy.https: "
	    "\"http://me:***@p.example.com:99999\": the port is larger than 65535");
	free(t);
	t = doc(
	    ", \"parentProxy\": {\"http\": \"http://p.example.com\", \"htps\": \"x\"}", "", "");
	expect_one("an unknown key in parentProxy", t,
	    "F: network.parentProxy.htps: unknown key; did you mean \"https\"?");
	free(t);
	t = doc(
	    ", \"mitmProxy\": {\"socketPath\": \"/x.sock\", \"domains\": [\"a.example.com\"]}"
	    ", \"tlsTerminate\": {}",
	    "", "");
	expect_one("mitmProxy and tlsTerminate are exclusive", t,
	    "F: network.mitmProxy: mitmProxy and tlsTerminate cannot be used together");
	free(t);
	t = doc(
	    ", \"mitmProxy\": {\"socketPath\": \"/x.sock\", \"domains\": [\"a.example.com\", "
	    "\"*.com\"]}",
	    "", "");
	expect_one("a bad mitmProxy domain", t,
	    "F: network.mitmProxy.domains[1]: \"*.com\": "
	    "not a domain pattern");
	free(t);

	/* Accepted with a warning: the reference takes the file and ignores the URL. */
	t = doc(", \"parentProxy\": {\"http\": \"socks5://127.0.0.1:1080\", \"noProxy\": "
		"\"a.example.com, 10.0.0.0/33\"}",
	    "", "");
	run(&r, t);
	ok(r.rc == 0 && r.warns.msgs.n == 2 &&
		has_msg(&r.warns,
		    "F: network.parentProxy.http: "
		    "\"socks5://127.0.0.1:1080\": only http:// and https:// proxies are supported") &&
		has_msg(&r.warns,
		    "F: network.parentProxy.noProxy: \"10.0.0.0/33\" is not an "
		    "address range"),
	    "an unusable parent URL and a bad range are warnings");
	if (r.rc != 0 || r.warns.msgs.n != 2) {
		show(&r.errs);
		show(&r.warns);
	}
	result_free(&r);
	free(t);

	/* Kept as written, and written back: "noProxy": "" differs from no noProxy (it turns
	 * NO_PROXY off), and an empty parentProxy from none (no difference at run time,
	 * but dump gives back what was compiled). */
	t = doc(", \"mitmProxy\": {\"socketPath\": \"rel/in.sock\", \"domains\": [\"::1\", "
		"\"*.Example.org\"]}, \"parentProxy\": {\"https\": \"http://u:p@[::1]:3128/\", "
		"\"noProxy\": \"\"}, \"refuseOpaqueTunnels\": true, \"stripResponseHeaders\": "
		"[\"Set-Cookie\", \"x_a.b\"]",
	    "", "");
	run(&r, t);
	ok(r.rc == 0 && r.s.net.mitm.present &&
		strcmp(r.s.net.mitm.socket_path, "rel/in.sock") == 0 &&
		r.s.net.mitm.domains.n == 2 && r.s.net.parent.present &&
		r.s.net.parent.http == NULL &&
		strcmp(r.s.net.parent.https, "http://u:p@[::1]:3128/") == 0 &&
		r.s.net.parent.no_proxy != NULL && r.s.net.parent.no_proxy[0] == '\0' &&
		r.s.net.refuse_opaque_tunnels && r.s.net.strip_headers.n == 2,
	    "the routes read as written");
	j1 = r.rc == 0 ? settings_to_json(&r.s) : xstrdup("");
	run(&r2, j1);
	j2 = r2.rc == 0 ? settings_to_json(&r2.s) : xstrdup("x");
	ok(strcmp(j1, j2) == 0 &&
		strstr(j1,
		    "\"parentProxy\": {\n      \"https\": "
		    "\"http://u:p@[::1]:3128/\",\n      \"noProxy\": \"\"\n    }") != NULL &&
		strstr(j1, "\"refuseOpaqueTunnels\": true") != NULL,
	    "the routes round-trip");
	free(j1);
	free(j2);
	result_free(&r);
	result_free(&r2);
	free(t);
	t = doc(", \"parentProxy\": {}", "", "");
	run(&r, t);
	j1 = settings_to_json(&r.s);
	ok(r.rc == 0 && r.s.net.parent.present && strstr(j1, "\"parentProxy\": {}") != NULL &&
		strstr(j1, "mitmProxy") == NULL &&
		strstr(j1, "\"stripResponseHeaders\": []") != NULL,
	    "an empty parentProxy is kept; no mitmProxy is none");
	free(j1);
	result_free(&r);
	free(t);
}

static void
test_round_trip(void)
{
	struct result r, r2;
	char *j1, *j2;

	for (size_t i = 0; i < sizeof(rich) / sizeof(rich[0]); i++) {
		run(&r, rich[i]);
		ok(r.rc == 0, "rich document %zu is valid", i);
		if (r.rc != 0) {
			show(&r.errs);
			result_free(&r);
			continue;
		}
		j1 = settings_to_json(&r.s);
		run(&r2, j1);
		ok(r2.rc == 0 && !has_msg(&r2.warns, "accepted and ignored"),
		    "rich document "
		    "%zu: to_json output parses, helper keys gone",
		    i);
		if (r2.rc != 0)
			show(&r2.errs);
		j2 = settings_to_json(&r2.s);
		ok(strcmp(j1, j2) == 0,
		    "rich document %zu: to_json -> parse -> to_json "
		    "identical",
		    i);
		ok(j1[strlen(j1) - 1] == '\n' && strchr(j1, '\t') == NULL,
		    "rich document %zu: two-space indent, trailing newline", i);
		if (i == 0) {
			printf("# canonical form of document 0:\n");
			for (char *l = j1, *e; *l; l = e + 1) {
				e = strchr(l, '\n');
				printf("#   %.*s\n", (int)(e - l), l);
			}
			ok(r.s.net.nallowed == 9 && r.s.net.ndenied == 4 &&
				r.s.net.nreasons == 3 && r.s.net.strict_allowlist &&
				r.s.net.ndenied_addrs == 4 &&
				r.s.net.allow_unix_sockets.n == 2 &&
				r.s.net.allow_all_unix_sockets && r.s.net.allow_local_binding &&
				r.s.net.allow_mach_lookup.n == 2 &&
				r.s.net.http_proxy_port == 3128 &&
				r.s.net.socks_proxy_port == 65535 &&
				r.s.net.require_host_match && !r.s.fs.disabled &&
				r.s.fs.deny_read.n == 2 && r.s.fs.deny_read.v[1].literal &&
				!r.s.fs.deny_read.v[0].literal && r.s.fs.allow_read.n == 1 &&
				r.s.fs.allow_write.n == 3 && r.s.fs.deny_write.n == 2 &&
				r.s.fs.allow_git_config && r.s.nignore == 3 &&
				r.s.ignore[1].subs.n == 0 &&
				strcmp(r.s.ignore[2].pattern, "\xc3\xa9") == 0 &&
				r.s.weaker_nested_sandbox && r.s.allow_nested_userns &&
				r.s.weaker_network_isolation && r.s.allow_apple_events &&
				r.s.allow_pty && r.s.deny_search_depth == 10 &&
				strcmp(r.s.bwrap_path, "/usr/bin/bwrap") == 0 &&
				r.s.git_safe_dirs.n == 2 && r.warns.msgs.n == 2,
			    "rich document 0: every field read");
			ok(r.s.win.present && r.s.win.backend == WIN_BACKEND_MXC &&
				strcmp(r.s.win.sandbox_user, "\xc3\xa9-sandbox") == 0 &&
				strcmp(r.s.win.sublayer_guid,
				    "8D4C6D3E-1f2a-4b5c-9d6e-7f8091a2b3c4") == 0 &&
				strcmp(r.s.win.wfp_sublayer_guid,
				    "00000000-0000-0000-0000-000000000000") == 0 &&
				r.s.win.port_lo == 65471 && r.s.win.port_hi == 65535 &&
				strcmp(r.s.win.srt_win_path, "C:\\Tools\\srt-win.exe") == 0,
			    "rich document 0: the windows block read as written");
			ok(strstr(j1,
			       "\"10.0.0.0/8\",\n      \"fc00::/7\",\n      "
			       "\"10.0.0.0/8\"") != NULL,
			    "ranges written canonically");
			ok(strstr(j1,
			       "{\n        \"path\": \"/odd[1]\",\n        \"literal\": "
			       "true\n      }") != NULL,
			    "literal entries written as objects");
		}
		if (i == 1) {
			ok(strstr(j1, "\"httpProxyPort\"") == NULL &&
				strstr(j1, "\"bwrapPath\"") == NULL &&
				strstr(j1, "\"mandatoryDenySearchDepth\": 3,") != NULL,
			    "unset optional fields omitted, defaults written");
			ok(strstr(j1, "\"windows\"") == NULL && !r.s.win.present,
			    "no windows block: none written");
		}
		if (i == 2)
			ok(r.s.win.present && strstr(j1, "\"windows\": {}\n") != NULL,
			    "an empty windows block is kept as one");
		free(j2);
		free(j1);
		result_free(&r2);
		result_free(&r);
	}
}

static void
test_defaults(void)
{
	struct settings s;
	char *p, *saved = getenv("HOME") ? xstrdup(getenv("HOME")) : NULL, *j;
	struct result r;

	memset(&s, 0xa5, sizeof(s));
	settings_init_default(&s);
	ok(s.deny_search_depth == 3 && s.net.nallowed == 0 && s.net.allowed == NULL &&
		s.fs.deny_read.n == 0 && s.bwrap_path == NULL && !s.fs.disabled &&
		s.net.http_proxy_port == 0 && s.nignore == 0,
	    "defaults: empty lists, depth 3");
	j = settings_to_json(&s);
	run(&r, j);
	ok(r.rc == 0, "the default policy's JSON is a valid settings file");
	result_free(&r);
	free(j);
	settings_free(&s);
	ok(is_zero(&s, sizeof(s)), "settings_free leaves the struct empty");

	setenv("HOME", "/home/someone", 1);
	p = settings_default_path();
	ok(p && strcmp(p, "/home/someone/.srt-settings.json") == 0, "default path from HOME");
	free(p);
	setenv("HOME", "/", 1);
	p = settings_default_path();
	ok(p && strcmp(p, "/.srt-settings.json") == 0, "default path with HOME=/");
	free(p);
	unsetenv("HOME");
	p = settings_default_path();
	ok(p == NULL || (p[0] == '/' && strstr(p, "/.srt-settings.json") != NULL),
	    "default path from the passwd entry: %s", p ? p : "(none)");
	{
		char *q;

		/* One rule for every program: a relative HOME is not a home directory. */
		setenv("HOME", "relhome", 1);
		q = settings_default_path();
		ok((p == NULL && q == NULL) || (p != NULL && q != NULL && strcmp(p, q) == 0),
		    "HOME=relhome: the passwd entry's, as without HOME: %s", q ? q : "(none)");
		free(q);
		setenv("HOME", "", 1);
		q = settings_default_path();
		ok((p == NULL && q == NULL) || (p != NULL && q != NULL && strcmp(p, q) == 0),
		    "HOME empty: the passwd entry's too");
		free(q);
	}
	free(p);
	if (saved != NULL) {
		setenv("HOME", saved, 1);
		free(saved);
	}
}

/*
 * srt-settings(5) documents every boolean and integer option of settings_schema.h, each
 * in a ".It Ic KEY [, Ic KEY ...] Pq TYPE ..." entry whose TYPE says "boolean", or
 * "integer LO to HI" with the row's bounds. A row added without its page text fails here.
 */
static int
man_entry(char *const *lines, size_t n, const char *key, const char **pq)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < n; i++) {
		const char *l = lines[i], *end, *q;

		if (strncmp(l, ".It Ic ", 7) != 0 || (end = strstr(l, " Pq ")) == NULL)
			continue;
		/* The names, between "Ic" and "Pq", are joined by " , ". */
		for (q = l + 7; q < end; q += 3) {
			const char *e = strstr(q, " , ");

			if (e == NULL || e > end)
				e = end;
			if ((size_t)(e - q) == kl && strncmp(q, key, kl) == 0) {
				*pq = end + 4;
				return 1;
			}
			q = e;
		}
	}
	return 0;
}

static void
test_man_page(void)
{
	const char *man = getenv("SRT_MAN") ? getenv("SRT_MAN") : "man/srt-settings.5";
	char *text = NULL, *line, *save = NULL, want[64];
	struct strlist lines = { 0 };
	const char *pq;
	size_t len, nopt = 0;

	if (read_file(man, 1 << 20, &text, &len) != 0) {
		ok(0, "%s: %s", man, strerror(errno));
		return;
	}
	for (line = strtok_r(text, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save))
		strlist_push(&lines, line);
	for (size_t o = 0; o < 3; o++) {
		const struct settings_object *obj = settings_objects[o];

		for (size_t i = 0; i < obj->nkeys; i++) {
			const struct settings_key *k = &obj->keys[i];

			if (k->kind == SETTINGS_VALUE)
				continue;
			nopt++;
			if (!man_entry(lines.v, lines.n, k->name, &pq)) {
				ok(0, "%s: no .It Ic entry for %s%s%s", man, obj->path,
				    *obj->path ? "." : "", k->name);
				continue;
			}
			if (k->kind == SETTINGS_BOOL)
				snprintf(want, sizeof(want), "boolean");
			else
				snprintf(want, sizeof(want), "integer %d to %d", k->lo, k->hi);
			ok(strncmp(pq, want, strlen(want)) == 0,
			    "%s: %s is documented as "
			    "\"%s\" (the page says \"%s\")",
			    man, k->name, want, pq);
		}
	}
	ok(nopt >= 14, "the schema has its %zu options", nopt);
	strlist_free(&lines);
	free(text);
}

int
main(void)
{
	datadir = getenv("SRT_DATA");
	if (datadir == NULL)
		datadir = "tests/data";
	test_docs();
	test_ref_docs("windows-settings.jsonl", 60);
	test_ref_docs("route-settings.jsonl", 78);
	test_ref_docs("schema-settings.jsonl", 1500);
	test_list_entries();
	test_messages();
	test_json_errors();
	test_load();
	test_round_trip();
	test_routes();
	test_defaults();
	test_man_page();
	return tap_done();
}
