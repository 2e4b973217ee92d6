/*
 * The Windows ACE plan: every rule and ranking case of lib/sandbox/plan_windows.c, as the exact
 * JSON lines `srt-policy plan --target windows` prints, for temp trees built here, and
 * those lines read back by lib/sandbox/plan_windows_read.c.
 */
#include <sys/stat.h>

#include <errno.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "path.h"
#include "plan.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

static char root[4096]; /* the temp tree, resolved */

/* root-relative path; "~" stands for root itself in expectations */
static char *
at(const char *rel)
{
	static char buf[8][8192];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s%s%s", root, *rel ? "/" : "", rel);
	return buf[i];
}

static void
mkd(const char *rel)
{
	char *p = xstrdup(at(rel)), *s;

	for (s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}

static void
mkf(const char *rel)
{
	char *dir = path_dirname(at(rel));
	FILE *f;

	if (strlen(dir) > strlen(root))
		mkd(dir + strlen(root) + 1);
	free(dir);
	if ((f = fopen(at(rel), "w")) == NULL) {
		perror(at(rel));
		exit(2);
	}
	fclose(f);
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/*
 * Build the plan of a filesystem block (JSON body, "@" stands for the temp root) with
 * the working directory and home at root/proj and root/home, and compare its lines with
 * want (lines separated by "\n", "@" for the root again).
 */
static void
expect_plan(const char *what, const char *fs, const char *want, const char *settings_path)
{
	struct plan_windows plan;
	struct plan_ctx ctx = { 0 };
	struct diags errs = { 0 }, warns = { 0 };
	struct settings s;
	char *doc, *text, *got = NULL, *exp, *line;
	size_t glen = 0;
	char cwd[8200], home[8200];
	int rc;

	snprintf(cwd, sizeof(cwd), "%s/proj", root);
	snprintf(home, sizeof(home), "%s/home", root);
	doc = xasprintf("{\"network\": {\"allowedDomains\": [], \"deniedDomains\": []}, "
			"\"filesystem\": {%s}}",
	    fs);
	/* "@" -> root in both texts */
	text = xmalloc(strlen(doc) * 2 + strlen(root) * 64 + 1);
	text[0] = '\0';
	for (const char *p = doc; *p; p++) {
		if (*p == '@')
			strcat(text, root);
		else
			strncat(text, p, 1);
	}
	exp = xmalloc(strlen(want) + strlen(root) * 64 + 1);
	exp[0] = '\0';
	for (const char *p = want; *p; p++) {
		if (*p == '@')
			strcat(exp, root);
		else
			strncat(exp, p, 1);
	}
	if (settings_parse(text, strlen(text), "F", &s, &errs, &warns) != 0) {
		ok(0, "%s: settings parse", what);
		diags_print(&errs, stdout);
		goto out;
	}
	ctx.cwd = cwd;
	ctx.home = home;
	ctx.settings_path = settings_path;
	rc = plan_windows_build(&s, &ctx, &plan, &errs);
	if (rc != 0) {
		ok(0, "%s: plan builds", what);
		diags_print(&errs, stdout);
		settings_free(&s);
		goto out;
	}
	got = xstrdup("");
	for (size_t i = 0; i < plan.n; i++) {
		line = plan_ace_json(&plan.v[i]);
		got = xreallocarray(got, glen + strlen(line) + 2, 1);
		memcpy(got + glen, line, strlen(line));
		glen += strlen(line);
		got[glen++] = '\n';
		got[glen] = '\0';
		free(line);
	}
	ok(strcmp(got, exp) == 0, "%s", what);
	if (strcmp(got, exp) != 0)
		printf("#   want:\n%s#   got:\n%s", exp, got);
	plan_windows_free(&plan);
	settings_free(&s);
out:
	free(got);
	free(exp);
	free(text);
	free(doc);
	diags_free(&errs);
	diags_free(&warns);
}

#define FS(dr, ar, aw, dw) \
	"\"denyRead\": [" dr "], \"allowRead\": [" ar "], " \
	"\"allowWrite\": [" aw "], \"denyWrite\": [" dw "]"

#define ALLOW_RX(p, inh) \
	"{\"ace\":\"allow\",\"path\":\"" p "\",\"rights\":[\"read\"," \
	"\"execute\"],\"inherit\":\"" inh "\"}\n"
#define ALLOW_M(p, inh) \
	"{\"ace\":\"allow\",\"path\":\"" p "\",\"rights\":[\"modify\"]," \
	"\"inherit\":\"" inh "\"}\n"
#define DENY_R(p, inh) \
	"{\"ace\":\"deny\",\"path\":\"" p "\",\"rights\":[\"read\"]," \
	"\"inherit\":\"" inh "\"}\n"
#define DENY_W(p, inh) \
	"{\"ace\":\"deny\",\"path\":\"" p "\",\"rights\":[\"write\"]," \
	"\"inherit\":\"" inh "\"}\n"
#define DENY_DC(p) \
	"{\"ace\":\"deny\",\"path\":\"" p "\",\"rights\":[\"delete_child\"]," \
	"\"inherit\":\"\"}\n"
/* a directory's own DELETE (rename too), on the object alone: write roots and the
 * directories between a write root and a deny beneath it */
#define DENY_D(p) \
	"{\"ace\":\"deny\",\"path\":\"" p "\",\"rights\":[\"delete\"]," \
	"\"inherit\":\"\"}\n"

static void
test_rules(void)
{
	expect_plan("allowWrite, a directory: ALLOW modify, inherited",
	    FS("", "", "\"@/proj\"", ""), ALLOW_M("@/proj", "OICI") DENY_D("@/proj"), NULL);
	expect_plan("allowWrite, a file: ALLOW modify on the file alone",
	    FS("", "", "\"@/proj/a.txt\"", ""), ALLOW_M("@/proj/a.txt", ""), NULL);
	expect_plan("allowRead: ALLOW read and execute",
	    FS("", "\"@/home/tools\", \"@/proj/a.txt\"", "", ""),
	    ALLOW_RX("@/home/tools", "OICI") ALLOW_RX("@/proj/a.txt", ""), NULL);
	expect_plan(
	    "denyRead, a directory: DENY read inherited, DENY delete-child on the parent",
	    FS("\"@/home/.ssh\"", "", "", ""), DENY_R("@/home/.ssh", "OICI") DENY_DC("@/home"),
	    NULL);
	expect_plan("denyRead, a file: DENY read on the file, delete-child on its directory",
	    FS("\"@/proj/.env\"", "", "", ""), DENY_R("@/proj/.env", "") DENY_DC("@/proj"),
	    NULL);
	expect_plan("denyWrite, a directory: DENY write inherited, delete-child on the parent",
	    FS("", "", "", "\"@/proj/tool/hooks\""),
	    DENY_W("@/proj/tool/hooks", "OICI") DENY_DC("@/proj/tool"), NULL);
	expect_plan("denyWrite, a missing file in a write grant: kept as spelled, for a "
		    "file placeholder",
	    FS("", "", "\"@/proj\"", "\"@/proj/missing/x.cfg\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/missing/x.cfg", "")
		DENY_DC("@/proj/missing") DENY_D("@/proj/missing") DENY_DC("@/proj"),
	    NULL);
	expect_plan("denyRead, a missing directory (trailing /): inherited, for a directory",
	    FS("\"@/proj/gone/\"", "", "\"@/proj\"", ""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_R("@/proj/gone", "OICI")
		DENY_DC("@/proj"),
	    NULL);
	expect_plan("a missing deny above another deny is a directory",
	    FS("", "", "\"@/proj\"", "\"@/proj/gone\", \"@/proj/gone/x\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/gone", "OICI")
		DENY_DC("@/proj") DENY_W("@/proj/gone/x", "") DENY_DC("@/proj/gone")
		    DENY_D("@/proj/gone"),
	    NULL);
	expect_plan("a missing deny outside every write grant has no entry (nothing can "
		    "create it)",
	    FS("\"@/home/.aws\"", "", "\"@/proj\"", "\"@/home/.bashrc\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj"), NULL);
	expect_plan("grants on missing paths grant nothing",
	    FS("", "\"@/nowhere\"", "\"@/proj/nowhere\"", ""), "", NULL);
	expect_plan("relative entries and ~ resolve against the cwd and home",
	    FS("\"~/.ssh\"", "", "\".\"", "\".env\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_R("@/home/.ssh", "OICI")
		DENY_DC("@/home") DENY_W("@/proj/.env", "") DENY_DC("@/proj"),
	    NULL);
	expect_plan(
	    "denying / names no parent", FS("", "", "", "\"/\""), DENY_W("/", "OICI"), NULL);
	expect_plan("one delete-child deny per parent, entries in list order",
	    FS("\"@/proj/.env\", \"@/proj/a.txt\"", "", "", "\"@/proj/.env\""),
	    DENY_R("@/proj/.env", "") DENY_DC("@/proj") DENY_R("@/proj/a.txt", "")
		DENY_W("@/proj/.env", ""),
	    NULL);
	expect_plan(
	    "a write deny deep in a write grant: DENY delete on each directory from "
	    "the root down, delete-child on each one's parent (none can be renamed away)",
	    FS("", "", "\"@/proj\"", "\"@/proj/tool/hooks\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/tool/hooks", "OICI")
		DENY_DC("@/proj/tool") DENY_D("@/proj/tool") DENY_DC("@/proj"),
	    NULL);
	expect_plan("a read deny deep in a write grant: the same ancestors",
	    FS("\"@/proj/sub/deep\"", "", "\"@/proj\"", ""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_R("@/proj/sub/deep", "OICI")
		DENY_DC("@/proj/sub") DENY_D("@/proj/sub") DENY_DC("@/proj"),
	    NULL);
	expect_plan("nested write roots: each root's DELETE denied, ancestors once",
	    FS("", "", "\"@/proj\", \"@/proj/sub\"", "\"@/proj/sub/deep\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") ALLOW_M("@/proj/sub", "OICI")
		DENY_D("@/proj/sub") DENY_W("@/proj/sub/deep", "OICI") DENY_DC("@/proj/sub")
		    DENY_DC("@/proj"),
	    NULL);
	expect_plan("a deny outside every write grant gets no ancestor entries",
	    FS("", "", "\"@/proj/sub\"", "\"@/proj/tool/hooks\""),
	    ALLOW_M("@/proj/sub", "OICI") DENY_D("@/proj/sub")
		DENY_W("@/proj/tool/hooks", "OICI") DENY_DC("@/proj/tool"),
	    NULL);
	expect_plan("filesystem.disabled: no entries at all",
	    "\"disabled\": true, " FS(
		"\"@/home/.ssh\"", "\"@/home\"", "\"@/proj\"", "\"@/proj/.env\""),
	    "", NULL);
}

static void
test_ranking(void)
{
	expect_plan("allowRead beneath denyRead: both, the allow counts beneath (ACE order)",
	    FS("\"@/home\"", "\"@/home/tools\"", "", ""),
	    ALLOW_RX("@/home/tools", "OICI") DENY_R("@/home", "OICI") DENY_DC("@"), NULL);
	expect_plan("allowRead at the denyRead path: the allow wins, no read deny",
	    FS("\"@/home/tools\"", "\"@/home/tools\"", "", ""),
	    ALLOW_RX("@/home/tools", "OICI"), NULL);
	expect_plan("allowWrite at the denyRead path: the allow wins, no read deny",
	    FS("\"@/proj\"", "", "\"@/proj\"", ""), ALLOW_M("@/proj", "OICI") DENY_D("@/proj"),
	    NULL);
	expect_plan("allowWrite beneath denyRead: modify beneath, deny above",
	    FS("\"@/home\"", "", "\"@/home/tools\"", ""),
	    ALLOW_M("@/home/tools", "OICI") DENY_D("@/home/tools") DENY_R("@/home", "OICI")
		DENY_DC("@"),
	    NULL);
	expect_plan("denyRead beneath allowRead: the deny is set lower and counts",
	    FS("\"@/home/.ssh\"", "\"@/home\"", "", ""),
	    ALLOW_RX("@/home", "OICI") DENY_R("@/home/.ssh", "OICI") DENY_DC("@/home"), NULL);
	expect_plan("allowWrite inside denyWrite becomes read-only",
	    FS("", "", "\"@/proj/tool/hooks\"", "\"@/proj/tool\""),
	    ALLOW_RX("@/proj/tool/hooks", "OICI") DENY_W("@/proj/tool", "OICI")
		DENY_DC("@/proj"),
	    NULL);
	expect_plan("allowWrite at the denyWrite path becomes read-only",
	    FS("", "", "\"@/proj/tool\"", "\"@/proj/tool\""),
	    ALLOW_RX("@/proj/tool", "OICI") DENY_W("@/proj/tool", "OICI") DENY_DC("@/proj"),
	    NULL);
	expect_plan("denyWrite inside allowWrite: modify above, the deny lower",
	    FS("", "", "\"@/proj\"", "\"@/proj/.env\""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/.env", "")
		DENY_DC("@/proj"),
	    NULL);
	expect_plan("a demoted write grant at a denyRead path still beats the read deny",
	    FS("\"@/proj/tool\"", "", "\"@/proj/tool\"", "\"@/proj\""),
	    ALLOW_RX("@/proj/tool", "OICI") DENY_W("@/proj", "OICI") DENY_DC("@"), NULL);
	expect_plan("the settings file in a writable path is made read-only",
	    FS("", "", "\"@/proj\"", ""),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/settings.json", "")
		DENY_DC("@/proj"),
	    at("proj/settings.json"));
	expect_plan("the settings file outside every writable path is left alone",
	    FS("", "", "\"@/proj/sub\"", ""),
	    ALLOW_M("@/proj/sub", "OICI") DENY_D("@/proj/sub"), at("proj/settings.json"));
	/* credentials files (mode "deny"): a read deny that no grant at or beneath it beats;
	 * such a grant is not made at all. (The root's credentials key is spliced in after
	 * the filesystem block FS closes.) */
	expect_plan("a credentials file is read-denied, and no grant at or beneath it is made",
	    FS("", "\"@/home/tools\", \"@/home/.cloud/config\", \"@/home/.cloud\"",
		"\"@/proj\", \"@/home/.cloud/sub\"",
		"") "}, \"credentials\": {\"files\": "
		    "[{\"path\": \"@/home/.cloud\", \"mode\": \"deny\"}], \"envVars\": "
		    "[{\"name\": \"T\", \"mode\": \"deny\"}]",
	    ALLOW_RX("@/home/tools", "OICI") ALLOW_M("@/proj", "OICI") DENY_D("@/proj")
		DENY_R("@/home/.cloud", "OICI") DENY_DC("@/home"),
	    NULL);
}

static void
test_globs_and_links(void)
{
	expect_plan("a denyRead glob: one entry per match",
	    FS("\"@/proj/keys/*.pem\"", "", "", ""),
	    DENY_R("@/proj/keys/a.pem", "") DENY_DC("@/proj/keys")
		DENY_R("@/proj/keys/b.pem", ""),
	    NULL);
	expect_plan("a trailing /** is the directory itself",
	    FS("", "", "\"@/proj/sub/**\"", "\"@/proj/keys/**\""),
	    ALLOW_M("@/proj/sub", "OICI") DENY_D("@/proj/sub") DENY_W("@/proj/keys", "OICI")
		DENY_DC("@/proj"),
	    NULL);
	expect_plan("an allowWrite glob in the middle of a path",
	    FS("", "", "\"@/proj/*/deep\"", ""),
	    ALLOW_M("@/proj/sub/deep", "OICI") DENY_D("@/proj/sub/deep"), NULL);
	expect_plan("a literal entry is a name, not a pattern",
	    FS("", "", "\"@/proj\"", "{\"path\": \"@/proj/[x]\", \"literal\": true}"),
	    ALLOW_M("@/proj", "OICI") DENY_D("@/proj") DENY_W("@/proj/[x]", "")
		DENY_DC("@/proj"),
	    NULL);
	expect_plan("a write grant through a link out of its own tree grants nothing",
	    FS("", "", "\"@/proj/out\"", ""), "", NULL);
	expect_plan("a write grant through a link to a sibling grants nothing either",
	    FS("", "", "\"@/proj/side\"", ""), "", NULL);
	expect_plan("a deny through a link lands on what it names",
	    FS("", "", "", "\"@/proj/out\""), DENY_W("@/home", "OICI") DENY_DC("@"), NULL);
}

/* The mandatory denies, beyond the reference on Windows: git's files in every git
 * directory under a write root (hooks and config even when missing), the dangerous names
 * where they exist by the depth rule, and the ancestors of each. */
static void
test_mandatory(void)
{
	expect_plan(
	    "a repository in a write root: its hooks, its missing config (a "
	    "placeholder), the dangerous names that exist, sorted, with their ancestors",
	    FS("", "", "\"@/repo\"", ""),
	    ALLOW_M("@/repo", "OICI") DENY_D("@/repo") DENY_W("@/repo/.git/config", "") DENY_DC(
		"@/repo/.git") DENY_D("@/repo/.git") DENY_DC("@/repo")
		DENY_W("@/repo/.git/hooks", "OICI") DENY_W(
		    "@/repo/.git/modules/lib/config", "") DENY_DC("@/repo/.git/modules/lib")
		    DENY_D("@/repo/.git/modules/lib") DENY_DC("@/repo/.git/modules") DENY_D(
			"@/repo/.git/modules") DENY_W("@/repo/.git/modules/lib/hooks", "OICI")
			DENY_W("@/repo/.git/worktrees/wt/commondir", "") DENY_DC(
			    "@/repo/.git/worktrees/wt") DENY_D("@/repo/.git/worktrees/wt")
			    DENY_DC("@/repo/.git/worktrees") DENY_D("@/repo/.git/worktrees")
				DENY_W("@/repo/.gitmodules", "") DENY_W("@/repo/.vscode",
				    "OICI") DENY_W("@/repo/sub/.git", "") DENY_DC("@/repo/sub")
				    DENY_D("@/repo/sub") DENY_W("@/repo/sub/.npmrc", ""),
	    NULL);
	expect_plan("allowGitConfig leaves git's configuration writable, as on Linux",
	    FS("", "", "\"@/repo\"", "") ", \"allowGitConfig\": true",
	    ALLOW_M("@/repo", "OICI") DENY_D("@/repo") DENY_W("@/repo/.git/hooks", "OICI")
		DENY_DC("@/repo/.git") DENY_D("@/repo/.git") DENY_DC("@/repo") DENY_W(
		    "@/repo/.git/modules/lib/hooks", "OICI") DENY_DC("@/repo/.git/modules/lib")
		    DENY_D("@/repo/.git/modules/lib") DENY_DC("@/repo/.git/modules") DENY_D(
			"@/repo/.git/modules") DENY_W("@/repo/.git/worktrees/wt/commondir", "")
			DENY_DC("@/repo/.git/worktrees/wt") DENY_D("@/repo/.git/worktrees/wt")
			    DENY_DC("@/repo/.git/worktrees") DENY_D("@/repo/.git/worktrees")
				DENY_W("@/repo/.gitmodules", "") DENY_W("@/repo/.vscode",
				    "OICI") DENY_W("@/repo/sub/.git", "") DENY_DC("@/repo/sub")
				    DENY_D("@/repo/sub") DENY_W("@/repo/sub/.npmrc", ""),
	    NULL);
	expect_plan("mandatoryDenySearchDepth 1: the names at the top of the root alone",
	    FS("", "", "\"@/repo\"", "") "}, \"mandatoryDenySearchDepth\": 1, \"windows\": {",
	    ALLOW_M("@/repo", "OICI") DENY_D("@/repo") DENY_W("@/repo/.gitmodules", "")
		DENY_DC("@/repo"),
	    NULL);
	expect_plan("only what lies in a write grant: a root beneath the repository",
	    FS("", "", "\"@/repo/sub\"", ""),
	    ALLOW_M("@/repo/sub", "OICI") DENY_D("@/repo/sub") DENY_W("@/repo/sub/.git", "")
		DENY_DC("@/repo/sub") DENY_W("@/repo/sub/.npmrc", ""),
	    NULL);
	expect_plan("a write root inside a git directory: that directory's files still",
	    FS("", "", "\"@/repo/.git/modules\"", ""),
	    ALLOW_M("@/repo/.git/modules", "OICI") DENY_D("@/repo/.git/modules")
		DENY_W("@/repo/.git/modules/lib/config", "") DENY_DC("@/repo/.git/modules/lib")
		    DENY_D("@/repo/.git/modules/lib") DENY_DC("@/repo/.git/modules")
			DENY_W("@/repo/.git/modules/lib/hooks", "OICI"),
	    NULL);
	mkd("proj/.git");
	expect_plan("only .git writable, the cwd's repository: its hooks and config",
	    FS("", "", "\"@/proj/.git\"", ""),
	    ALLOW_M("@/proj/.git", "OICI") DENY_D("@/proj/.git") DENY_W("@/proj/.git/config",
		"") DENY_DC("@/proj/.git") DENY_W("@/proj/.git/hooks", "OICI"),
	    NULL);
	rmdir(at("proj/.git"));
	expect_plan("a repository only read: no mandatory deny", FS("", "\"@/repo\"", "", ""),
	    ALLOW_RX("@/repo", "OICI"), NULL);
	/* A .vscode (or .claude) that is a link to a directory in the root: the C runtime's
	 * stat on Windows follows a junction, so the walk must meet it as a directory and
	 * the deny land on what it leads to, as the Linux plan binds the target read-only.
	 * Not followed, the command writes cfg/tasks.json and the editor runs it through
	 * .vscode outside the sandbox. (The reference has no mandatory deny on Windows.) */
	mkf("lnk/cfg/tasks.json");
	mkf("lnk/agent/settings.json");
	if (symlink("cfg", at("lnk/.vscode")) != 0 || symlink("agent", at("lnk/.claude")) != 0)
		perror("symlink");
	expect_plan("a linked .vscode and .claude: the denies land on their targets",
	    FS("", "", "\"@/lnk\"", ""),
	    ALLOW_M("@/lnk", "OICI") DENY_D("@/lnk") DENY_W("@/lnk/agent/settings.json", "")
		DENY_DC("@/lnk/agent") DENY_D("@/lnk/agent") DENY_DC("@/lnk")
		    DENY_W("@/lnk/cfg", "OICI"),
	    NULL);
}

static void
test_json(void)
{
	struct plan_ace a = { 1, (char *)"C:\\a \"q\"\n\x01\xc3\xa9",
		PLAN_R_READ | PLAN_R_EXECUTE | PLAN_R_WRITE | PLAN_R_MODIFY |
		    PLAN_R_DELETE_CHILD | PLAN_R_DELETE,
		1 };
	char *j = plan_ace_json(&a);

	ok(j != NULL &&
		strcmp(j,
		    "{\"ace\":\"deny\",\"path\":\"C:\\\\a \\\"q\\\"\\u000a"
		    "\\u0001\xc3\xa9\",\"rights\":[\"read\",\"execute\",\"write\",\"modify\","
		    "\"delete_child\",\"delete\"],\"inherit\":\"OICI\"}") == 0,
	    "JSON line: escapes, every right in order: %s", j ? j : "(null)");
	free(j);
	a.path = (char *)"/bad/\xff";
	errno = 0;
	ok(plan_ace_json(&a) == NULL && errno == EILSEQ,
	    "a path that is not UTF-8 has no line");
	a.path = (char *)"/bad/\xc3";
	ok(plan_ace_json(&a) == NULL, "a cut UTF-8 sequence has no line");
}

static char *
clean_absolute(const char *p)
{
	return p[0] == '/' ? xstrdup(p) : NULL;
}

static int
same_letters(const char *a, const char *b)
{
	return strcmp(a, b) == 0;
}

/* What the writer writes, the reader (plan_windows_read.c, srt-win's) reads back. */
static void
test_read_back(void)
{
	static const struct plan_read_paths paths = { clean_absolute, same_letters };
	struct plan_ace in[] = {
		{ 0, (char *)"/p/a b\\c\t\xc3\xa9", PLAN_R_READ | PLAN_R_EXECUTE, 1 },
		{ 0, (char *)"/p/w", PLAN_R_MODIFY, 1 },
		{ 1, (char *)"/p/w", PLAN_R_DELETE, 0 },
		{ 1, (char *)"/p/w/.env", PLAN_R_READ | PLAN_R_WRITE, 0 },
		{ 1, (char *)"/p", PLAN_R_DELETE_CHILD, 0 },
	};
	size_t n = sizeof(in) / sizeof(in[0]), i;
	struct plan_windows out;
	struct diags errs = { 0 };
	struct buf b = { 0 };
	char *line;
	int r;

	for (i = 0; i < n; i++) {
		line = plan_ace_json(&in[i]);
		buf_adds(&b, line);
		buf_adds(&b, i % 2 ? "\r\n" : "\n\n");
		free(line);
	}
	r = plan_windows_read(b.p, b.len, &paths, &out, &errs);
	for (i = 0; r == 0 && i < n && out.n == n; i++)
		if (out.v[i].deny != in[i].deny || out.v[i].rights != in[i].rights ||
		    out.v[i].inherit != in[i].inherit || strcmp(out.v[i].path, in[i].path) != 0)
			break;
	ok(r == 0 && out.n == n && i == n && errs.msgs.n == 0,
	    "the plan's lines read back "
	    "as written (%zu of %zu)",
	    i, n);
	plan_windows_free(&out);
	buf_adds(&b,
	    "{\"ace\":\"deny\",\"path\":\"rel\",\"rights\":[\"read\"],"
	    "\"inherit\":\"\"}\n");
	r = plan_windows_read(b.p, b.len, &paths, &out, &errs);
	ok(r == -1 && out.n == 0 && errs.msgs.n == 1 &&
		strcmp(errs.msgs.v[0],
		    "line 9: not an absolute, normalised path (no \".\" or "
		    "\"..\")") == 0,
	    "a bad line is named by its number, and nothing is kept (%s)",
	    errs.msgs.n ? errs.msgs.v[0] : "");
	diags_free(&errs);
	buf_free(&b);
}

int
main(void)
{
	char tmpl[] = "/tmp/srt-planwin.XXXXXX", *r;

	if (mkdtemp(tmpl) == NULL || (r = realpath(tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	mkd("proj/sub/deep");
	mkd("proj/tool/hooks");
	mkd("proj/keys");
	mkd("home/.ssh");
	mkd("home/tools");
	mkd("home/.cloud/sub");
	mkf("home/.cloud/config");
	mkf("proj/a.txt");
	mkf("proj/.env");
	mkf("proj/settings.json");
	mkf("proj/keys/a.pem");
	mkf("proj/keys/b.pem");
	mkf("proj/keys/c.txt");
	/* a repository: no config yet, a submodule's and a worktree's git directories, a
	 * dangerous name at each depth, one too deep for the rule, one in node_modules */
	mkf("repo/.git/HEAD");
	mkd("repo/.git/hooks");
	mkf("repo/.git/modules/lib/HEAD");
	mkd("repo/.git/modules/lib/hooks");
	mkf("repo/.git/worktrees/wt/commondir");
	mkf("repo/.gitmodules");
	mkd("repo/.vscode");
	mkf("repo/sub/.npmrc");
	mkf("repo/sub/.git");
	mkd("repo/a/b/.vscode");
	mkf("repo/node_modules/.npmrc");
	if (symlink(at("home"), at("proj/out")) == -1 ||
	    symlink("down/x", at("proj/down2")) == -1) {
		perror("symlink");
		return 2;
	}
	/* proj/down is a directory; a link beneath it: */
	rmdir(at("proj/down/x"));
	mkd("proj/realx");
	rmdir(at("proj/down"));
	mkd("proj/down");
	unlink(at("proj/down2"));
	test_rules();
	test_ranking();
	test_globs_and_links();
	test_mandatory();
	test_json();
	test_read_back();
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
