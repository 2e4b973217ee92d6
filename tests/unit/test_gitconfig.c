/*
 * git configuration: the reader (gitconfig_foreach) against the git on this machine, and
 * the judge of a change (gitcfg_check): the allowlist, the keys it refuses however they
 * are spelt, values, the submodule work tree, and what real git writes in everyday
 * workflows (tests/data/gitconfig/, made by tests/data/gen-gitconfig.sh with git 2.39).
 * The reader's part for the plan (gitconfig_parse) is in test_plan.c.
 */
#include <sys/wait.h>

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "gitconfig.h"
#include "tap.h"
#include "util.h"

/* --- the reader, against git ------------------------------------------------------- */

/* Each entry as git config --list --null writes it: "name\nvalue\0", or "name\0". */
struct listing {
	struct buf b;
	int verbatim; /* list what git 2.45 and later read */
};

static int
list_one(const struct gitconfig_entry *e, void *arg)
{
	struct listing *l = arg;

	buf_adds(&l->b, e->section);
	buf_addc(&l->b, '.');
	if (e->subsection != NULL) {
		buf_adds(&l->b, e->subsection);
		buf_addc(&l->b, '.');
	}
	buf_adds(&l->b, e->key);
	if (e->value != NULL) {
		buf_addc(&l->b, '\n');
		buf_adds(&l->b, l->verbatim ? e->verbatim : e->value);
	}
	buf_addc(&l->b, '\0');
	return 0;
}

/* git config --file - --list --null on text: its exit status, the listing in out. */
static int
git_list(const char *text, size_t len, struct buf *out)
{
	int in[2], res[2], st;
	char tmp[4096];
	ssize_t n;
	pid_t pid;

	if (pipe(in) == -1 || pipe(res) == -1)
		return -1;
	if ((pid = fork()) == 0) {
		dup2(in[0], 0);
		dup2(res[1], 1);
		close(2);
		open("/dev/null", O_WRONLY);
		close(in[1]);
		close(res[0]);
		execlp("git", "git", "config", "--file", "-", "--list", "--null", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	close(res[1]);
	/* The texts here are small: git reads them whole before its output fills a pipe. */
	if (write(in[1], text, len) != (ssize_t)len)
		st = -1;
	close(in[1]);
	while ((n = read(res[0], tmp, sizeof(tmp))) > 0)
		buf_add(out, tmp, (size_t)n);
	close(res[0]);
	if (waitpid(pid, &st, 0) == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* The first git to keep inner whitespace verbatim was 2.45. */
static int
git_is_verbatim(void)
{
	FILE *f;
	int maj = 0, min = 0;

	if ((f = popen("git --version", "r")) == NULL)
		return 0;
	if (fscanf(f, "git version %d.%d", &maj, &min) != 2)
		maj = min = 0;
	pclose(f);
	return maj > 2 || (maj == 2 && min >= 45);
}

enum agree {
	SAME,
	STRICTER
};

struct reading {
	const char *text;
	size_t len;       /* 0: strlen(text) */
	enum agree agree; /* STRICTER: git reads it, srt refuses it on purpose */
	const char *what;
};

static const struct reading readings[] = {
	{ "[core]\n\tbare = false\n", 0, SAME, "plain" },
	{ "\xef\xbb\xbf[core]\r\nbare = true\r\n", 0, SAME, "byte order mark, CRLF" },
	{ "\xef\xbb[core]\n", 0, SAME, "a part of a byte order mark" },
	{ "[CoRe] FsMonitor = x\n", 0, SAME, "names in any case, a key on the header's line" },
	{ "[core.X]\nk = 1\n", 0, SAME, "[section.sub]: the subsection lowercased" },
	{ "[core \"X\"]\nk = 1\n", 0, SAME, "[section \"Sub\"]: case kept" },
	{ "[a.b \"C\"]\nk=1\n", 0, SAME, "[a.b \"C\"]" },
	{ "[ \"x\"]\nk=1\n", 0, SAME, "[ \"x\"]: no section name" },
	{ "[.x]\nk=1\n", 0, SAME, "[.x]" },
	{ "[a.]\nk=1\n", 0, SAME, "[a.]" },
	{ "[a \"\"]\nk=1\n", 0, SAME, "[a \"\"]" },
	{ "[]\n", 0, SAME, "[]" },
	{ "[a_b]\n", 0, SAME, "a '_' in a section name" },
	{ "[a \"x\\\\y\\\"z\\q\"]k=1\n", 0, SAME, "escapes in a quoted subsection" },
	{ "[a \"x\" ]\n", 0, SAME, "a space before ']'" },
	{ "[a\n\"x\"]\n", 0, SAME, "a line end in a header" },
	{ "[a \"x\n\"]\n", 0, SAME, "a line end in a subsection" },
	{ "[a \"x\\\n\"]\n", 0, SAME, "an escaped line end in a subsection" },
	{ "[a \t \"x\"]k\n", 0, SAME, "tabs before a subsection" },
	{ "[a]\nk = a\\\n b\n", 0, SAME, "a continued line" },
	{ "[a]\nk = x\\\r\ny\n", 0, SAME, "a continued CRLF line" },
	{ "[a]\nk = x\\", 0, SAME, "a backslash at the end" },
	{ "[a]\nk = \"x;y\" ; c\n", 0, SAME, "a comment, not in quotes" },
	{ "[a]\nk = a \t b \t \n", 0, SAME, "inner whitespace" },
	{ "[a]\nk = 1\r2\n", 0, SAME, "a lone carriage return" },
	{ "[a]\r k=1\n", 0, SAME, "a lone carriage return before a key" },
	{ "[a]\nk\n", 0, SAME, "a key alone" },
	{ "[a]\nk =\n", 0, SAME, "an empty value" },
	{ "[a]\nk=\"\"\n", 0, SAME, "an empty quoted value" },
	{ "[a]\nk = \"a\"\"b\" \"\"  c\n", 0, SAME, "quotes side by side" },
	{ "[a]\nk = \\\"x\\\" \"\\t\\n\\b\\\\\"\n", 0, SAME, "value escapes" },
	{ "[a]\n\vk=1\n", 0, SAME, "a vertical tab is not whitespace" },
	{ "[a]\nk \r= 1\n", 0, SAME, "a carriage return after a key" },
	{ "[a]\nk = \"x\n", 0, SAME, "an unterminated quote" },
	{ "[a]\nk = a\\qb\n", 0, SAME, "an unknown escape" },
	{ "[a]\n9k=1\n", 0, SAME, "a key starting with a digit" },
	{ "[a]\nk-1 = 2\nK2=3\n", 0, SAME, "digits and '-' in keys" },
	{ "[a]\nk # c\n", 0, SAME, "a comment after a key alone" },
	{ "[a]k=1[b]j=2\n", 0, SAME, "a header-like text in a value" },
	{ "[a]\n# [core]\n; fsmonitor = x\nk = 1 # [core] fsmonitor\n", 0, SAME, "comments" },
	{ "[a]\n\tk\t=\tv\t\n", 0, SAME, "tabs around =" },
	{ "[user]\n\tname = a\r[core]\r\tfsmonitor = x\n", 0, SAME,
	    "a lone carriage return does not end a line" },
	{ "[user]\n\tname = a \\\\\n[core]\n\tfsmonitor = x\n", 0, SAME,
	    "an escaped backslash does not continue a line" },
	{ "[user]\n\tname = \"a\\\n[core] fsmonitor = x\"\n", 0, SAME,
	    "a continued line inside quotes" },
	{ "[remote \"origin\"]\n\turl = https://x/r\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n",
	    0, SAME, "a remote" },
	{ "k = 1\n[a]\n", 0, STRICTER, "a key before any section" },
	{ "[a]\n# \0\nk = 1\n", 9, STRICTER, "a NUL byte in a comment" },
	{ "[a]\nk = x\0y\n", 12, STRICTER, "a NUL byte in a value" },
};

static void
test_reader(void)
{
	struct listing ours;
	struct buf theirs = { 0 };
	const struct reading *r;
	size_t i, len;
	int ver, rc, mine, line;

	if (git_list("", 0, &theirs) != 0) {
		ok(1, "# SKIP no git to compare the reader with");
		return;
	}
	ver = git_is_verbatim();
	for (i = 0; i < sizeof(readings) / sizeof(readings[0]); i++) {
		r = &readings[i];
		len = r->len != 0 ? r->len : strlen(r->text);
		memset(&ours, 0, sizeof(ours));
		ours.verbatim = ver;
		buf_reset(&theirs);
		rc = git_list(r->text, len, &theirs);
		line = 0;
		mine = gitconfig_foreach(r->text, len, list_one, &ours, &line);
		if (r->agree == STRICTER)
			ok(rc == 0 && mine == -1 && line > 0,
			    "reader: %s: git reads it, srt refuses it", r->what);
		else if (rc != 0)
			ok(mine == -1 && line > 0, "reader: %s: git refuses it, so does srt",
			    r->what);
		else
			ok(mine == 0 && ours.b.len == theirs.len &&
				memcmp(buf_str(&ours.b), buf_str(&theirs), theirs.len) == 0,
			    "reader: %s: read as git reads it", r->what);
		buf_free(&ours.b);
	}
	buf_free(&theirs);
}

/* Texts made of the pieces git's parser cares about, after a header (a key before any
 * is refused on purpose): read as git reads them, or refused when git refuses them. */
static void
test_reader_random(void)
{
	static const char *const piece[] = {
		"[",
		"]",
		"\"",
		"\\",
		"\n",
		"\r\n",
		"\r",
		" ",
		"\t",
		"=",
		"#",
		";",
		"a",
		"B",
		"1",
		"-",
		".",
		"_",
		"core",
		"k",
		"\v",
		"x y",
		"\xef\xbb\xbf",
		"\\n",
		"\\\"",
	};
	/* Most texts from these, so that git reads many of them. */
	static const char *const common[] = {
		"\nk = ",
		"\nk",
		" ",
		"x",
		"\"",
		"\t",
		"\\\n",
		"#",
		"\r\n",
		"[t]",
		"[u \"v\"]",
	};
	struct listing ours;
	struct buf text = { 0 }, theirs = { 0 };
	unsigned seed = 28;
	int i, j, n, rc, mine, ver, bad = 0, read = 0;

	if (git_list("", 0, &theirs) != 0)
		return;
	ver = git_is_verbatim();
	for (i = 0; i < 600; i++) {
		buf_reset(&text);
		buf_adds(&text, "[s]\n");
		seed = seed * 1103515245 + 12345;
		n = 1 + (int)((seed >> 16) % 14);
		for (j = 0; j < n; j++) {
			seed = seed * 1103515245 + 12345;
			if ((seed >> 12) % 3 == 0)
				buf_adds(&text,
				    piece[(seed >> 16) % (sizeof(piece) / sizeof(piece[0]))]);
			else
				buf_adds(&text,
				    common[(seed >> 16) % (sizeof(common) / sizeof(common[0]))]);
		}
		memset(&ours, 0, sizeof(ours));
		ours.verbatim = ver;
		buf_reset(&theirs);
		rc = git_list(buf_str(&text), text.len, &theirs);
		mine = gitconfig_foreach(buf_str(&text), text.len, list_one, &ours, NULL);
		if (rc == 0 && mine == 0)
			read++;
		if ((rc == 0) != (mine == 0) ||
		    (rc == 0 &&
			(ours.b.len != theirs.len ||
			    memcmp(buf_str(&ours.b), buf_str(&theirs), theirs.len) != 0))) {
			if (bad++ < 5)
				printf("#  git %s, srt %s: \"%.*s\"\n",
				    rc == 0 ? "reads" : "refuses",
				    mine == 0 ? "reads" : "refuses", (int)text.len,
				    buf_str(&text));
		}
		buf_free(&ours.b);
	}
	ok(bad == 0 && read > 100,
	    "reader: 600 texts of git's punctuation read as git reads "
	    "them (%d read, %d disagreements)",
	    read, bad);
	buf_free(&text);
	buf_free(&theirs);
}

/* The two readings of inner whitespace, and a name too long. */
static void
test_reader_versions(void)
{
	struct listing l = { 0 };
	struct buf big = { 0 };
	int line = 0;
	size_t i;

	ok(gitconfig_foreach("[a]\nk = x\t y\n", 13, list_one, &l, NULL) == 0 &&
		strcmp(buf_str(&l.b), "a.k\nx  y") == 0,
	    "reader: before 2.45, inner tabs are spaces");
	buf_reset(&l.b);
	l.verbatim = 1;
	ok(gitconfig_foreach("[a]\nk = x\t y\t\n", 14, list_one, &l, NULL) == 0 &&
		strcmp(buf_str(&l.b), "a.k\nx\t y") == 0,
	    "reader: from 2.45, kept as they are");
	buf_free(&l.b);
	buf_adds(&big, "[a]\n");
	for (i = 0; i < GITCONFIG_NAME_MAX + 1; i++)
		buf_addc(&big, 'k');
	buf_adds(&big, " = 1\n");
	ok(gitconfig_foreach(buf_str(&big), big.len, list_one, &l, &line) == -1 && line == 2,
	    "reader: a key longer than GITCONFIG_NAME_MAX is refused at its line");
	buf_free(&l.b);
	buf_free(&big);
}

/* --- the judge --------------------------------------------------------------------- */

#define GITDIR "/w/p/.git"
#define SUBDIR "/w/p/.git/modules/sub"

static char why[512];

static int
judge(const char *old, const char *new_, const char *gitdir)
{
	struct gitcfg_ctx ctx = { gitdir, NULL };

	return gitcfg_check(
	    old, old != NULL ? strlen(old) : 0, new_, strlen(new_), &ctx, why, sizeof(why));
}

/* Accepted, or the refusal shown. */
static int
accepted(const char *old, const char *new_, const char *gitdir)
{
	if (judge(old, new_, gitdir) == 0)
		return 1;
	printf("#  refused: %s\n", why);
	return 0;
}

/* Refused, with every one of the NULL-ended words in why. */
static int
refused(const char *old, const char *new_, const char *gitdir, ...)
{
	va_list ap;
	const char *w;
	int good = 1;

	if (judge(old, new_, gitdir) == 0) {
		printf("#  accepted\n");
		return 0;
	}
	va_start(ap, gitdir);
	while ((w = va_arg(ap, const char *)) != NULL)
		if (strstr(why, w) == NULL) {
			printf("#  \"%s\" not in: %s\n", w, why);
			good = 0;
		}
	va_end(ap);
	return good;
}

/* Each key of the allowlist, with a value git writes for it. */
static const char *const allowed[] = {
	"[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = false\n"
	"\tlogallrefupdates = true\n\tignorecase = true\n\tsymlinks = false\n"
	"\tprecomposeunicode = true\n\tautocrlf = input\n",
	"[core]\n\tsparseCheckout = true\n\tsparseCheckoutCone = false\n",
	"[extensions]\n\tobjectformat = sha256\n\trefStorage = reftable\n"
	"\tworktreeConfig = true\n\tpartialClone = origin\n",
	"[remote \"origin\"]\n\turl = https://github.com/o/r.git\n"
	"\tpushurl = git@github.com:o/r.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n"
	"\tpush = refs/heads/main\n\ttagopt = --no-tags\n\tprune = true\n\tpruneTags = true\n"
	"\tmirror = false\n\tskipDefaultUpdate = false\n\tskipFetchAll = false\n"
	"\tpromisor = true\n\tpartialclonefilter = blob:none\n",
	"[remote \"t\"]\n\ttagOpt = --tags\n",
	"[branch \"main\"]\n\tremote = origin\n\tmerge = refs/heads/main\n\trebase = true\n"
	"\tpushRemote = fork\n\tdescription = A branch.\\n\\tIndented.\\n\n",
	"[branch \"x\"]\n\tremote = .\n",
	"[user]\n\tname = Some One\n\temail = someone@example.com\n",
	"[submodule]\n\tactive = .\n",
	"[submodule \"lib/x\"]\n\turl = ../x.git\n\tpath = lib/x\n\tactive = true\n"
	"\tupdate = rebase\n\tbranch = main\n\tfetchRecurseSubmodules = on-demand\n"
	"\tshallow = true\n\tignore = dirty\n",
	"[submodule \"y\"]\n\tupdate = checkout\n[submodule \"z\"]\n\tupdate = merge\n"
	"[submodule \"w\"]\n\tupdate = none\n",
	"[init]\n\tdefaultBranch = main\n[pull]\n\trebase = merges\n\tff = only\n"
	"[fetch]\n\tprune = true\n\tpruneTags = false\n[push]\n\tdefault = simple\n"
	"\tautoSetupRemote = true\n\tfollowTags = true\n[merge]\n\tff = false\n"
	"\tconflictStyle = zdiff3\n[rebase]\n\tautoStash = true\n\tautoSquash = true\n",
	"[gc]\n\tauto = 0\n[maintenance]\n\tauto = false\n\tstrategy = incremental\n"
	"[maintenance \"gc\"]\n\tenabled = true\n\tschedule = weekly\n",
	"[lfs]\n\trepositoryformatversion = 0\n"
	"[lfs \"https://github.com/o/r.git/info/lfs\"]\n\taccess = basic\n\tlocksverify = false\n",
	"[color]\n\tui = auto\n[diff]\n\trenames = copies\n[advice]\n\tdetachedHead = false\n",
};

/* Keys that run a program or reach elsewhere, spelt as the words the refusal names. */
static const struct {
	const char *text, *name;
} dangerous[] = {
	{ "[core]\n\tfsmonitor = ./x\n", "core.fsmonitor" },
	{ "[core]\n\tfsmonitor\n", "core.fsmonitor" },
	{ "[core]\n\thooksPath = .h\n", "core.hooksPath" },
	{ "[core]\n\tsshCommand = x\n", "core.sshCommand" },
	{ "[core]\n\tpager = x\n", "core.pager" },
	{ "[core]\n\teditor = x\n", "core.editor" },
	{ "[core]\n\taskPass = x\n", "core.askPass" },
	{ "[core]\n\tgitProxy = x\n", "core.gitProxy" },
	{ "[core]\n\talternateRefsCommand = x\n", "core.alternateRefsCommand" },
	{ "[core]\n\tsharedRepository = 0777\n", "core.sharedRepository" },
	{ "[core]\n\tworktree = /elsewhere\n", "core.worktree" },
	{ "[core]\n\tattributesFile = /x\n", "core.attributesFile" },
	{ "[core]\n\tsomethingNew = x\n", "core.somethingnew" },
	{ "[include]\n\tpath = ../x\n", "include.path" },
	{ "[includeIf \"gitdir:/w/\"]\n\tpath = /tmp/x\n", "includeif.gitdir:/w/.path" },
	{ "[includeIf \"onbranch:main\"]\n\tpath = x\n", "includeif.onbranch:main.path" },
	{ "[filter \"lfs\"]\n\tclean = x\n", "filter.lfs.clean" },
	{ "[filter \"lfs\"]\n\tsmudge = x\n", "filter.lfs.smudge" },
	{ "[filter \"lfs\"]\n\tprocess = x\n", "filter.lfs.process" },
	{ "[diff \"x\"]\n\ttextconv = x\n", "diff.x.textconv" },
	{ "[diff \"x\"]\n\tcommand = x\n", "diff.x.command" },
	{ "[diff]\n\texternal = x\n", "diff.external" },
	{ "[merge \"x\"]\n\tdriver = x\n", "merge.x.driver" },
	{ "[merge]\n\ttool = x\n", "merge.tool" },
	{ "[credential]\n\thelper = store\n", "credential.helper" },
	{ "[credential \"https://x\"]\n\thelper = x\n", "credential.https://x.helper" },
	{ "[alias]\n\tst = !x\n", "alias.st" },
	{ "[protocol]\n\tallow = always\n", "protocol.allow" },
	{ "[protocol \"ext\"]\n\tallow = always\n", "protocol.ext.allow" },
	{ "[url \"ext::sh -c x #\"]\n\tinsteadOf = https://\n", "insteadof" },
	{ "[url \"x\"]\n\tpushInsteadOf = y\n", "url.x.pushinsteadof" },
	{ "[gpg]\n\tprogram = x\n", "gpg.program" },
	{ "[gpg \"ssh\"]\n\tprogram = x\n", "gpg.ssh.program" },
	{ "[commit]\n\tgpgSign = true\n", "commit.gpgSign" },
	{ "[hook \"x\"]\n\tcommand = x\n", "hook.x.command" },
	{ "[uploadpack]\n\tpackObjectsHook = x\n", "uploadpack.packobjectshook" },
	{ "[receivepack]\n\tprocReceiveRefs = x\n", "receivepack.procreceiverefs" },
	{ "[sequence]\n\teditor = x\n", "sequence.editor" },
	{ "[web]\n\tbrowser = x\n", "web.browser" },
	{ "[http]\n\tproxy = x\n", "http.proxy" },
	{ "[http]\n\tsslKey = x\n", "http.sslkey" },
	{ "[http \"https://x\"]\n\textraHeader = x\n", "http.https://x.extraheader" },
	{ "[remote \"o\"]\n\tuploadpack = x\n", "remote.o.uploadpack" },
	{ "[remote \"o\"]\n\treceivepack = x\n", "remote.o.receivepack" },
	{ "[remote \"o\"]\n\tvcs = x\n", "remote.o.vcs" },
	{ "[remote \"o\"]\n\tproxy = x\n", "remote.o.proxy" },
	{ "[branch \"m\"]\n\tmergeOptions = -s x\n", "branch.m.mergeOptions" },
	{ "[pull]\n\ttwohead = x\n", "pull.twohead" },
	{ "[init]\n\ttemplateDir = x\n", "init.templateDir" },
	{ "[maintenance]\n\trepo = /x\n", "maintenance.repo" },
	{ "[safe]\n\tdirectory = *\n", "safe.directory" },
	{ "[user]\n\tsigningKey = x\n", "user.signingkey" },
	{ "[mergetool \"x\"]\n\tcmd = x\n", "mergetool.x.cmd" },
	{ "[pager]\n\tlog = x\n", "pager.log" },
	/* Spellings git reads the same, and a naive reader might not. */
	{ "[CoRe] FsMonitor = x\n", "core.fsmonitor" },
	{ "[core]fsmonitor=x", "core.fsmonitor" },
	{ "\xef\xbb\xbf[core]\r\n\tfsmonitor = x\r\n", "core.fsmonitor" },
	{ "[user]\n\tname = a\n[core] ; c\n\tfsmonitor = x\n", "core.fsmonitor" },
	{ "[user]\n\tname = a \\\\\n[core]\n\tfsmonitor = x\n", "core.fsmonitor" },
	{ "[user]\n\tname = a\\\n b\n[core]\n\tfsmonitor = x\n", "core.fsmonitor" },
	{ "[user]\n\tname = \"x ; y\" ; \"\n[core]\n\tfsmonitor = z\n", "core.fsmonitor" },
	{ "[filter.lfs]\n\tclean = x\n", "filter.lfs.clean" },
	{ "[Filter \"l\\fs\"]\n\tclean = x\n", "filter.lfs.clean" },
	{ "[filter \"a\\\"b\"]\n\tsmudge = x\n", "filter.a\"b.smudge" },
	{ "[remote.origin]\n\tuploadpack = x\n", "remote.origin.uploadpack" },
	{ "[includeIf.gitdir]\n\tpath = x\n", "includeif.gitdir.path" },
	{ "[core \"x\"]\n\tfsmonitor = x\n", "core.x.fsmonitor" },
	{ "[core.]\n\tfsmonitor = x\n", "core..fsmonitor" },
	{ "[remote \"o\"]\n\turl = https://x\n[url \"https://x\"]\n\tinsteadOf = ext::x\n",
	    "url.https://x.insteadof" },
};

static void
test_keys(void)
{
	size_t i;

	for (i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
		ok(accepted(NULL, allowed[i], GITDIR), "judge: allowed keys %zu", i);
	for (i = 0; i < sizeof(dangerous) / sizeof(dangerous[0]); i++)
		ok(refused(NULL, dangerous[i].text, GITDIR, dangerous[i].name, "allowGitConfig",
		       "in " GITDIR, (char *)NULL),
		    "judge: refused: %s", dangerous[i].name);
	ok(refused(NULL, "[core]\n\tfsmonitor = x\n", GITDIR,
	       "git configuration "
	       "core.fsmonitor in /w/p/.git: not on srt's list of settings a command may change "
	       "(it runs a program); allowGitConfig in the settings allows every key",
	       (char *)NULL),
	    "judge: the refusal names the key, the git directory, why, and the setting");
	ok(refused(NULL, "[user]\n\tname = x\n[core]\n\tbare = false\n\tfsmonitor = y\n",
	       GITDIR, "core.fsmonitor", (char *)NULL),
	    "judge: the first refused key is named");
}

/* What was already there, the same, is kept; anything else is judged. */
static void
test_existing(void)
{
	static const char old[] = "[core]\n\tbare = false\n\tfsmonitor = ./fs\n"
				  "[alias]\n\tx = !echo\n";
	struct buf b = { 0 };

	ok(accepted(old, old, GITDIR), "existing: unchanged");
	buf_adds(&b, old);
	buf_adds(&b, "[user]\n\temail = a@b\n[remote \"o\"]\n\turl = https://h/r\n");
	ok(accepted(old, buf_str(&b), GITDIR), "existing: kept, with allowed keys added");
	ok(accepted(old, "[CORE] FSMONITOR = \"./fs\"\n[alias] x = !echo\n", GITDIR),
	    "existing: the same settings in another spelling");
	ok(accepted(old, "[core]\n\tfsmonitor = ./fs\n[core]\n\tfsmonitor = ./fs\n", GITDIR),
	    "existing: duplicated");
	ok(accepted(old, "[core]\n\tbare = false\n", GITDIR) && accepted(old, "", GITDIR),
	    "existing: removed");
	ok(refused(
	       old, "[core]\n\tfsmonitor = ./other\n", GITDIR, "core.fsmonitor", (char *)NULL),
	    "existing: its value changed is refused");
	ok(refused(old, "[core]\n\tfsmonitor\n", GITDIR, "core.fsmonitor", (char *)NULL),
	    "existing: a value made a key alone is refused");
	ok(refused(old, "[core \"x\"]\n\tfsmonitor = ./fs\n", GITDIR, "core.x.fsmonitor",
	       (char *)NULL),
	    "existing: moved into a subsection is refused");
	ok(refused(old, "[alias]\n\tx = !echo\n\ty = !echo\n", GITDIR, "alias.y", (char *)NULL),
	    "existing: the value under another key is refused");
	ok(refused("[core]\n\tfsmonitor = ./fs\n[bad\n", "[core]\n\tfsmonitor = ./fs\n", GITDIR,
	       "core.fsmonitor", (char *)NULL),
	    "existing: old content git refuses counts for nothing");
	ok(refused("[core]\n\teditor = a b\n", "[core]\n\teditor = a\tb\n", GITDIR,
	       "core.editor", (char *)NULL) &&
		refused("[core]\n\teditor = a\tb\n", "[core]\n\teditor = a b\n", GITDIR,
		    "core.editor", (char *)NULL),
	    "existing: a tab that git versions read differently is never the same value");
	ok(accepted("[core]\n\teditor = a\tb\n", "[core]\n\teditor = a\tb\n", GITDIR),
	    "existing: ... but kept as it was, it is");
	ok(accepted(NULL, "", GITDIR) && accepted("", "", NULL) &&
		accepted(NULL, "# only a comment\n[core]\n", GITDIR),
	    "existing: no settings at all");
	buf_free(&b);
}

static void
test_urls(void)
{
	static const char *const good[] = {
		"https://github.com/o/r.git",
		"http://h/r",
		"git://h/r",
		"ssh://git@h:22/r",
		"git+ssh://h/r",
		"ssh+git://h/r",
		"file:///srv/r.git",
		"git@github.com:o/r.git",
		"h:r",
		"[git@h:22]:r",
		"/srv/r.git",
		"../r.git",
		"./x::y",
		"r",
		"https://u%40x@h/r",
	};
	static const struct {
		const char *url, *word;
	} bad[] = {
		{ "ext::sh -c x", "transport helper" },
		{ "fd::3", "transport helper" },
		{ "foo::bar", "transport helper" },
		{ "EXT::sh", "transport helper" },
		{ "git+x::y", "transport helper" },
		{ "-oProxyCommand=x", "'-'" },
		{ "--upload-pack=x", "'-'" },
		{ "git@-oProxyCommand=x:r", "host" },
		{ "-oProxyCommand=x@h:r", "'-'" },
		{ "[-oProxyCommand=x]:r", "host" },
		{ "ssh://-oProxyCommand=x/r", "host" },
		{ "ssh://u@-x/r", "host" },
		{ "ssh://%2doProxyCommand=x/r", "percent" },
		{ "foo://x/r", "scheme" },
		{ "HTTPS://x/r", "scheme" },
		{ "https://x\\ny", "control" },
		{ "", "needed" },
	};
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text),
		    "[remote \"o\"]\n\turl = %s\n\tpushurl = %s\n"
		    "[submodule \"s\"]\n\turl = %s\n",
		    good[i], good[i], good[i]);
		ok(accepted(NULL, text, GITDIR), "url: %s", good[i]);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[remote \"o\"]\n\turl = \"%s\"\n", bad[i].url);
		ok(refused(NULL, text, GITDIR, "remote.o.url", bad[i].word, (char *)NULL),
		    "url: remote.o.url %s refused", bad[i].url);
		snprintf(text, sizeof(text), "[submodule \"s\"]\n\turl = \"%s\"\n", bad[i].url);
		ok(refused(NULL, text, GITDIR, "submodule.s.url", (char *)NULL),
		    "url: submodule.s.url %s refused", bad[i].url);
	}
	ok(refused(
	       NULL, "[remote \"o\"]\n\tpushurl = ext::x\n", GITDIR, "pushurl", (char *)NULL),
	    "url: pushurl too");
	ok(refused(NULL, "[remote \"o\"]\n\turl\n", GITDIR, "remote.o.url", (char *)NULL),
	    "url: a url without a value");
	ok(refused(NULL, "[branch \"m\"]\n\tremote = ext::sh -c x\n", GITDIR, "branch.m.remote",
	       (char *)NULL) &&
		refused(NULL, "[branch \"m\"]\n\tpushRemote = fd::1\n", GITDIR,
		    "branch.m.pushRemote", (char *)NULL) &&
		refused(NULL, "[extensions]\n\tpartialClone = ext::x\n", GITDIR,
		    "extensions.partialClone", (char *)NULL),
	    "url: a remote named by URL follows the same rule");
}

static void
test_values(void)
{
	ok(refused(NULL, "[submodule \"s\"]\n\tupdate = !sh -c x\n", GITDIR,
	       "submodule.s.update", "\"!sh -c x\"", (char *)NULL),
	    "value: submodule update !command");
	ok(refused(NULL, "[submodule \"s\"]\n\tupdate\n", GITDIR, "submodule.s.update",
	       (char *)NULL),
	    "value: submodule update alone");
	ok(refused(NULL, "[remote \"o\"]\n\ttagOpt = --upload-pack=x\n", GITDIR,
	       "remote.o.tagOpt", (char *)NULL),
	    "value: tagOpt other than --tags/--no-tags");
	ok(refused(NULL, "[submodule \"s\"]\n\tpath = ../x\n", GITDIR, "submodule.s.path",
	       (char *)NULL) &&
		refused(NULL, "[submodule \"s\"]\n\tpath = a/.GIT/x\n", GITDIR, "path",
		    (char *)NULL) &&
		refused(
		    NULL, "[submodule \"s\"]\n\tpath = /x\n", GITDIR, "path", (char *)NULL) &&
		refused(NULL, "[submodule \"s\"]\n\tpath = -x\n", GITDIR, "path", (char *)NULL),
	    "value: a submodule path outside the work tree");
	ok(refused(NULL, "[user]\n\tname = a\\bb\n", GITDIR, "user.name", "control",
	       (char *)NULL) &&
		refused(
		    NULL, "[user]\n\tname = \"a\x1b[31m\"\n", GITDIR, "control", (char *)NULL),
	    "value: control characters");
	ok(refused(NULL, "[user]\n\tname = a\tb\n", GITDIR, "user.name", "differently",
	       (char *)NULL) &&
		accepted(NULL, "[user]\n\tname = a\\tb\n", GITDIR) &&
		accepted(NULL, "[user]\n\tname = a \t\n", GITDIR),
	    "value: an inner tab git versions read differently, not an escaped or trailing one");
	ok(accepted(NULL, "[branch \"m\"]\n\tdescription = \"line\\none\\tand\"\n", GITDIR) &&
		refused(NULL, "[branch \"m\"]\n\tdescription = a\\bb\n", GITDIR, "description",
		    (char *)NULL),
	    "value: a description may have line ends and tabs");
}

static void
test_worktree(void)
{
	static const char *const good[] = {
		"../../../sub",
		"../../../lib/sub",
		"/w/p/sub",
		"../../.././sub",
		"../../..//sub",
	};
	static const char *const bad[] = {
		"../../..",
		"../../../",
		"/w/p",
		"../../../.git",
		"../../../.git/x",
		"../../../../x",
		"../../../../p/sub",
		"../../x",
		"..",
		"../../../sub/../../x",
		"../../../sub/.git",
		"../../../sub/.GIT",
		"/w/p/../x",
		"/w/x",
		"/w/p/.git",
		"sub",
		"~/x",
		"",
	};
	char text[256];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		snprintf(text, sizeof(text), "[core]\n\tworktree = %s\n", good[i]);
		ok(accepted(NULL, text, SUBDIR), "worktree: %s of %s", good[i], SUBDIR);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "[core]\n\tworktree = \"%s\"\n", bad[i]);
		ok(refused(NULL, text, SUBDIR, "core.worktree", (char *)NULL),
		    "worktree: \"%s\" of %s refused", bad[i], SUBDIR);
	}
	ok(accepted(NULL, "[core]\n\tworktree = ../../../../../a/b\n",
	       "/w/p/.git/modules/a/modules/b"),
	    "worktree: a nested submodule's");
	ok(accepted(
	       NULL, "[core]\n\tworktree = ../../../../lib/x\n", "/w/p/.git/modules/lib/x"),
	    "worktree: a submodule whose name has a '/'");
	ok(refused(
	       NULL, "[core]\n\tworktree = ../sub\n", GITDIR, "core.worktree", (char *)NULL) &&
		refused(NULL, "[core]\n\tworktree = /w/p/sub\n", GITDIR, "core.worktree",
		    (char *)NULL),
	    "worktree: of a top-level git directory, refused");
	ok(refused(NULL, "[core]\n\tworktree = ../../../sub\n", NULL, "core.worktree",
	       (char *)NULL) &&
		refused(NULL, "[core]\n\tworktree = ../../../sub\n", "w/p/.git/modules/sub",
		    "core.worktree", (char *)NULL) &&
		refused(NULL, "[core]\n\tworktree = ../sub\n", "/.git/modules/sub",
		    "core.worktree", (char *)NULL),
	    "worktree: no git directory, a relative one, or one at /");
	ok(accepted("[core]\n\tworktree = /elsewhere\n",
	       "[core]\n\tworktree = /elsewhere\n"
	       "[user]\n\tname = a\n",
	       GITDIR),
	    "worktree: one the user had, kept");
}

static void
test_malformed(void)
{
	static const char *const bad[] = {
		"[core\n",
		"[core]\n\tbare = \"x\n",
		"[core]\n\tbare = a\\q\n",
		"[]\n",
		"bare = true\n[core]\n",
		"[core]\n\v\n",
		"[co re]\n",
		"[core \"x\" ]\n",
		"[core]\n9k = 1\n",
		"\xef\xbb[core]\n",
		"[core]\n\tfsmonitor \\\n= x\n",
	};
	static const char nul[] = "[user]\n\tname = a\0\n[core]\n\tfsmonitor = x\n";
	char *big;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ok(refused(
		       NULL, bad[i], GITDIR, "not git configuration", "line ", (char *)NULL),
		    "malformed: refused (%zu)", i);
	ok(refused(NULL, "[user]\nname = a\n[core\n", GITDIR, "line 3", (char *)NULL),
	    "malformed: the line is named");
	ok(gitcfg_check(NULL, 0, nul, sizeof(nul) - 1, &(struct gitcfg_ctx){ GITDIR, NULL },
	       why, sizeof(why)) == -1 &&
		strstr(why, "line 2") != NULL,
	    "malformed: a NUL byte");
	big = xmalloc(GITCONFIG_MAX + 2);
	memset(big, '#', GITCONFIG_MAX + 1);
	big[GITCONFIG_MAX + 1] = '\0';
	ok(refused(NULL, big, GITDIR, "more than", (char *)NULL), "malformed: too large");
	free(big);
}

static void
test_why(void)
{
	char small[24];
	size_t i;
	int clean = 1;

	ok(refused(NULL, "[filter \"\x1b[31m\xe2\x80\xae\"]\n\tclean = x\n", GITDIR, "clean",
	       (char *)NULL),
	    "why: a subsection with control characters");
	for (i = 0; why[i] != '\0'; i++)
		if ((unsigned char)why[i] < 0x20 || why[i] == 0x7f)
			clean = 0;
	ok(clean && strstr(why, "\xe2\x80\xae") == NULL,
	    "why: ... shown without them or an invisible override: %s", why);
	ok(gitcfg_check(NULL, 0, "[core]fsmonitor=x\n", 18,
	       &(struct gitcfg_ctx){ GITDIR, NULL }, small, sizeof(small)) == -1 &&
		strlen(small) == sizeof(small) - 1 &&
		strncmp(small, "git configuration core", 22) == 0,
	    "why: cut to its size");
	ok(gitcfg_check(NULL, 0, "[core]fsmonitor=x\n", 18,
	       &(struct gitcfg_ctx){ GITDIR, NULL }, NULL, 0) == -1,
	    "why: none asked for");
}

/* With ctx.all, every refused key is said, and why keeps the first. */
static void
test_all(void)
{
	static const char text[] = "[core]\n\tpager = a\n\teditor = b\n[user]\n\tname = x\n"
				   "[alias]\n\tx = !sh\n[core]\n\tpager = a\n";
	struct strlist all = { 0 };
	struct gitcfg_ctx ctx = { GITDIR, &all };

	ok(gitcfg_check(NULL, 0, text, sizeof(text) - 1, &ctx, why, sizeof(why)) == -1 &&
		strstr(why, "core.pager") != NULL,
	    "all: refused, why the first: %s", why);
	ok(all.n == 3 && strstr(all.v[0], "core.pager") != NULL &&
		strstr(all.v[1], "core.editor") != NULL && strstr(all.v[2], "alias.x") != NULL,
	    "all: each refused key once, in order (%zu)", all.n);
	strlist_free(&all);
	ok(gitcfg_check(
	       text, sizeof(text) - 1, text, sizeof(text) - 1, &ctx, why, sizeof(why)) == 0 &&
		all.n == 0,
	    "all: nothing refused, nothing said");
	ok(gitcfg_check(NULL, 0, "[core]\n\tpager = a\n[bad\n", 22, &ctx, why, sizeof(why)) ==
		    -1 &&
		all.n == 2 && strstr(all.v[1], "line 3") != NULL,
	    "all: a part that does not parse after a refused key is said too");
	strlist_free(&all);
}

/* --- what git writes --------------------------------------------------------------- */

static char *
slurp(const char *path, size_t *len)
{
	char *text = NULL;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (read_fd_all(fd, GITCONFIG_MAX, &text, len) == -1)
		text = NULL;
	close(fd);
	return text;
}

static void
test_workflows(void)
{
	const char *dir = getenv("SRT_DATA") != NULL ? getenv("SRT_DATA") : "tests/data";
	char line[512], name[256], gitdir[256], *path, *old, *new_;
	size_t oldlen, newlen, cases = 0, bad = 0;
	struct buf evil = { 0 };
	struct gitcfg_ctx ctx = { NULL, NULL };
	FILE *f;

	path = xasprintf("%s/gitconfig/cases", dir);
	f = fopen(path, "r");
	free(path);
	if (!ok(f != NULL, "workflows: %s/gitconfig/cases", dir))
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (line[0] == '#' || sscanf(line, "%255s %255s", name, gitdir) != 2)
			continue;
		cases++;
		ctx.gitdir = gitdir;
		path = xasprintf("%s/gitconfig/%s.old", dir, name);
		old = slurp(path, &oldlen);
		free(path);
		path = xasprintf("%s/gitconfig/%s.new", dir, name);
		new_ = slurp(path, &newlen);
		free(path);
		if (new_ == NULL ||
		    gitcfg_check(old, oldlen, new_, newlen, &ctx, why, sizeof(why)) == -1) {
			printf("#  %s: %s\n", name, new_ == NULL ? "no .new" : why);
			bad++;
		}
		/* The same write with one more setting that runs a program: refused. */
		buf_reset(&evil);
		if (new_ != NULL)
			buf_add(&evil, new_, newlen);
		buf_adds(&evil, "[core]\n\tfsmonitor = ./x\n");
		if (gitcfg_check(
			old, oldlen, buf_str(&evil), evil.len, &ctx, why, sizeof(why)) == 0) {
			printf("#  %s: core.fsmonitor added, accepted\n", name);
			bad++;
		}
		free(old);
		free(new_);
	}
	fclose(f);
	buf_free(&evil);
	ok(cases >= 50 && bad == 0,
	    "workflows: each of the %zu writes git makes in git init, "
	    "clone, remote add, config user.*, push -u, branch, submodule add and update, "
	    "sparse-checkout, maintenance is accepted (and refused with core.fsmonitor added)",
	    cases);
}

int
main(void)
{
	test_reader();
	test_reader_random();
	test_reader_versions();
	test_keys();
	test_existing();
	test_urls();
	test_values();
	test_worktree();
	test_malformed();
	test_why();
	test_all();
	test_workflows();
	return tap_done();
}
