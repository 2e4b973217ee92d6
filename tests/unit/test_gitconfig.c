/*
 * git configuration: the reader (gitconfig_foreach) against the git on this machine.
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
	int verbatim;           /* list what git 2.45 and later read */
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

enum agree { SAME, STRICTER };

struct reading {
	const char *text;
	size_t len;             /* 0: strlen(text) */
	enum agree agree;       /* STRICTER: git reads it, srt refuses it on purpose */
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
			ok(mine == -1 && line > 0, "reader: %s: git refuses it, so does srt", r->what);
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
		"[", "]", "\"", "\\", "\n", "\r\n", "\r", " ", "\t", "=", "#", ";", "a", "B",
		"1", "-", ".", "_", "core", "k", "\v", "x y", "\xef\xbb\xbf", "\\n", "\\\"",
	};
	/* Most texts from these, so that git reads many of them. */
	static const char *const common[] = {
		"\nk = ", "\nk", " ", "x", "\"", "\t", "\\\n", "#", "\r\n", "[t]", "[u \"v\"]",
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
				buf_adds(&text, piece[(seed >> 16) % (sizeof(piece) / sizeof(piece[0]))]);
			else
				buf_adds(&text, common[(seed >> 16) % (sizeof(common) / sizeof(common[0]))]);
		}
		memset(&ours, 0, sizeof(ours));
		ours.verbatim = ver;
		buf_reset(&theirs);
		rc = git_list(buf_str(&text), text.len, &theirs);
		mine = gitconfig_foreach(buf_str(&text), text.len, list_one, &ours, NULL);
		if (rc == 0 && mine == 0)
			read++;
		if ((rc == 0) != (mine == 0) || (rc == 0 && (ours.b.len != theirs.len ||
		    memcmp(buf_str(&ours.b), buf_str(&theirs), theirs.len) != 0))) {
			if (bad++ < 5)
				printf("#  git %s, srt %s: \"%.*s\"\n", rc == 0 ? "reads" : "refuses",
				    mine == 0 ? "reads" : "refuses", (int)text.len, buf_str(&text));
		}
		buf_free(&ours.b);
	}
	ok(bad == 0 && read > 100, "reader: 600 texts of git's punctuation read as git reads "
	    "them (%d read, %d disagreements)", read, bad);
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
	    strcmp(buf_str(&l.b), "a.k\nx  y") == 0, "reader: before 2.45, inner tabs are spaces");
	buf_reset(&l.b);
	l.verbatim = 1;
	ok(gitconfig_foreach("[a]\nk = x\t y\t\n", 14, list_one, &l, NULL) == 0 &&
	    strcmp(buf_str(&l.b), "a.k\nx\t y") == 0, "reader: from 2.45, kept as they are");
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

int
main(void)
{
	test_reader();
	test_reader_random();
	test_reader_versions();
	return tap_done();
}
