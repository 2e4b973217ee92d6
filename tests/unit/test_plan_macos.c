/*
 * The macOS profile (lib/sandbox/plan_macos.c): every profile built here is read back with the
 * strict reader (lib/sandbox/sbpl.c), for each combination of the switches; srt's own additions
 * (its TMPDIR, the settings file); quoting of odd paths; refusals. Rule-for-rule parity
 * with the reference is tests/macos/profile.bats.
 */
#include <sys/stat.h>

#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plan.h"
#include "sbpl.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

static char root[4096], proj[4200], home[4200];

static int
load(const char *json, struct settings *s)
{
	struct diags errs = { 0 }, warns = { 0 };
	int r = settings_parse(json, strlen(json), "test", s, &errs, &warns);

	if (r != 0)
		diags_print(&errs, stdout);
	diags_free(&errs);
	diags_free(&warns);
	return r;
}

/* The profile for a settings document, or NULL; its rule lines in *rules. */
static char *
build(const char *json, const char *tmpdir, const char *settings_path, char **rules)
{
	struct settings s;
	struct plan_ctx ctx = {
		.cwd = proj, .home = home, .tmpdir = tmpdir, .settings_path = settings_path
	};
	struct plan_macos_opts o = { 40001, 40002, "srt_test_tag" };
	struct diags errs = { 0 };
	struct sbpl_profile p;
	char *out = NULL;

	*rules = NULL;
	if (load(json, &s) != 0)
		return NULL;
	if (plan_macos_build(&s, &ctx, &o, &out, &errs) != 0) {
		diags_print(&errs, stdout);
		goto done;
	}
	if (sbpl_parse(out, strlen(out), &p, &errs) != 0) {
		printf("# not well-formed:\n");
		diags_print(&errs, stdout);
		free(out);
		out = NULL;
		goto done;
	}
	*rules = sbpl_rules_text(&p);
	sbpl_free(&p);
done:
	diags_free(&errs);
	settings_free(&s);
	return out;
}

static bool
has_line(const char *rules, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	for (p = rules; (p = strstr(p, line)) != NULL; p++)
		if ((p == rules || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

#define BASE_FS \
	"\"filesystem\": { \"denyRead\": [\"~/.ssh\", \"**/*.pem\"], " \
	"\"allowRead\": [\"~/.ssh/known_hosts\"], \"allowWrite\": [\".\", \"out/*.o\"], " \
	"\"denyWrite\": [\".env\"] }"

static void
test_switches(void)
{
	static const char *const sw[] = {
		"\"allowLocalBinding\": true",
		"\"allowAllUnixSockets\": true",
		"\"allowUnixSockets\": [\"/tmp/x.sock\", \"~/s/*.sock\"]",
		"\"allowMachLookup\": [\"com.a.b\", \"com.c.*\"]",
	};
	static const char *const top[] = {
		"\"enableWeakerNetworkIsolation\": true",
		"\"allowAppleEvents\": true",
		"\"allowPty\": true",
		"\"filesystem\": { \"disabled\": true, \"denyRead\": [], "
		"\"allowWrite\": [], \"denyWrite\": [] }",
	};
	unsigned mask, bad = 0, n = 0;

	/* Each of the 256 combinations makes a profile the reader accepts. */
	for (mask = 0; mask < 256; mask++) {
		char net[1024] = "", rest[1024] = "", *json, *prof, *rules;
		unsigned i;

		for (i = 0; i < 4; i++)
			if (mask & (1u << i)) {
				strcat(net, ", ");
				strcat(net, sw[i]);
			}
		for (i = 0; i < 4; i++)
			if (mask & (1u << (4 + i))) {
				strcat(rest, ", ");
				strcat(rest, top[i]);
			}
		json = xasprintf(
		    "{ \"network\": { \"allowedDomains\": [], \"deniedDomains\": []%s }%s%s }",
		    net, (mask & 0x80) ? "" : ", " BASE_FS, rest);
		prof = build(json, NULL, NULL, &rules);
		n++;
		if (prof == NULL) {
			bad++;
			ok(0, "combination %#x: %s", mask, json);
		} else {
			/* Each switch shows, and only when on. */
			bool want[8] = {
				has_line(rules, "allow network-bind\t(local ip \"*:*\")"),
				has_line(rules,
				    "allow network-bind\t(local unix-socket "
				    "(path-regex #\"^/\"))"),
				has_line(rules,
				    "allow network-bind\t(local unix-socket "
				    "(subpath \"/tmp/x.sock\"))"),
				has_line(rules,
				    "allow mach-lookup\t(global-name-prefix \"com.c.\")"),
				has_line(rules,
				    "allow mach-lookup\t(global-name "
				    "\"com.apple.trustd.agent\")"),
				has_line(rules, "allow appleevent-send\t"),
				has_line(rules, "allow pseudo-tty\t"),
				strstr(rules, "\ndeny file-read*\t") == NULL &&
				    has_line(rules, "allow file-write*\t"),
			};

			for (i = 0; i < 8; i++) {
				bool on = (mask & (1u << i)) != 0;

				/* Unix socket paths are not listed when all are allowed. */
				if (i == 2 && (mask & 2))
					on = false;
				if (want[i] != on) {
					bad++;
					ok(0, "combination %#x: switch %u is %s in the profile",
					    mask, i, want[i] ? "on" : "off");
				}
			}
		}
		free(prof);
		free(rules);
		free(json);
	}
	ok(bad == 0 && n == 256,
	    "256 combinations of the switches: well-formed, each "
	    "switch's rules there exactly when it is on (%u problems)",
	    bad);
}

static void
test_srt_additions(void)
{
	char *prof, *rules, *sp = xasprintf("%s/srt.json", proj), *want, *tmp;
	const char *json =
	    "{ \"network\": { \"allowedDomains\": [], \"deniedDomains\": [] }, "
	    "\"filesystem\": { \"denyRead\": [], \"allowWrite\": [\".\"], \"denyWrite\": [] } }";

	tmp = xasprintf("%s/tmpdir", root);
	prof = build(json, tmp, sp, &rules);
	ok(prof != NULL, "profile with a TMPDIR and a settings file in the cwd");
	want = xasprintf("allow file-write*\t(subpath \"%s\")", tmp);
	ok(rules != NULL && has_line(rules, want), "the private TMPDIR is a write root");
	free(want);
	want = xasprintf("deny file-write*\t(subpath \"%s\")", sp);
	ok(rules != NULL && has_line(rules, want),
	    "the settings file in a write root is "
	    "denied writes");
	free(want);
	free(prof);
	free(rules);

	free(sp);
	sp = xasprintf("%s/elsewhere/srt.json", root);
	prof = build(json, NULL, sp, &rules);
	ok(prof != NULL && strstr(prof, "srt.json") == NULL,
	    "a settings file outside the "
	    "write roots adds nothing");
	free(prof);
	free(rules);
	free(sp);
	free(tmp);
}

static void
test_quoting(void)
{
	char *prof, *rules;
	const char *json =
	    "{ \"network\": { \"allowedDomains\": [], \"deniedDomains\": [] }, "
	    "\"filesystem\": { \"denyRead\": [\"/q\\\"uote/back\\\\slash/new\\nline/\\u0001x\", "
	    "\"/g\\\"*\"], \"allowWrite\": [], \"denyWrite\": [] } }";

	prof = build(json, NULL, NULL, &rules);
	ok(prof != NULL,
	    "quotes, backslashes and control characters make a well-formed "
	    "profile");
	ok(prof != NULL &&
		strstr(prof,
		    "(subpath \"/q\\\"uote/back\\\\slash/new\\nline/"
		    "\\u0001x\")") != NULL,
	    "a name quoted as JSON quotes it");
	ok(prof != NULL && strstr(prof, "(regex \"^/g\\\"[^/]*(/.*)?$\")") != NULL,
	    "a glob's regex quoted the same way");
	free(prof);
	free(rules);
}

static void
test_refusals(void)
{
	struct settings s;
	struct plan_ctx ctx = { .cwd = proj, .home = home };
	struct plan_macos_opts o = { 3128, 1080, "ok_tag" };
	struct diags errs = { 0 };
	char *out = (char *)1;

	settings_init_default(&s);
	ctx.cwd = "relative";
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == -1 && out == NULL && errs.msgs.n == 1,
	    "a relative cwd is refused");
	ctx.cwd = proj;
	o.log_tag = "bad\"tag";
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == -1, "a tag with a quote is refused");
	o.log_tag = "";
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == -1, "an empty tag is refused");
	o.log_tag = "ok_tag";
	o.http_port = 0;
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == -1, "port 0 is refused");
	o.http_port = 3128;
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == 0 && out != NULL,
	    "the built-in defaults make a profile");
	ok(out != NULL &&
		strstr(out, "(allow network-outbound (remote ip \"localhost:1080\"))") != NULL,
	    "with both ports");
	free(out);
	o.socks_port = 3128;
	ok(plan_macos_build(&s, &ctx, &o, &out, &errs) == 0 && out != NULL &&
		strstr(out, "localhost:1080") == NULL,
	    "one port for both: one set of rules");
	free(out);
	diags_free(&errs);
	settings_free(&s);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(p);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");
	char tmpl[4096], *r;

	snprintf(tmpl, sizeof(tmpl), "%s/test_plan_macos.XXXXXX",
	    t != NULL && *t != '\0' ? t : "/tmp");
	if (mkdtemp(tmpl) == NULL || (r = realpath(tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	snprintf(proj, sizeof(proj), "%s/proj", root);
	snprintf(home, sizeof(home), "%s/home", root);
	mkdir(proj, 0755);
	mkdir(home, 0755);

	test_switches();
	test_srt_additions();
	test_quoting();
	test_refusals();

	if (nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
		printf("# could not remove %s\n", root);
	return tap_done();
}
