/*
 * Glob -> regex translation for the macOS profile (lib/sandbox/globre.c): hand-written
 * cases for sets, "**" with and without "/", escaping and brackets that spell no set; then
 * every case of tests/data/macos/globre.tsv, which the reference printed (gen-globre.mjs):
 * the same regex and deny regex, and the matcher's answer the same as the reference's
 * regular expression's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "globre.h"
#include "tap.h"
#include "util.h"

static const char *
data_dir(void)
{
	const char *d = getenv("SRT_DATA");

	return d != NULL && *d != '\0' ? d : "tests/data";
}

static void
re_is(const char *pattern, const char *want)
{
	char *got = glob_to_regex(pattern, false);

	ok(strcmp(got, want) == 0, "%s -> %s (got %s)", pattern, want, got);
	free(got);
}

static void
deny_is(const char *pattern, const char *want)
{
	char *got = glob_to_regex(pattern, true);

	ok(strcmp(got, want) == 0, "deny %s -> %s (got %s)", pattern, want, got);
	free(got);
}

/* s for a test's name: control characters as \xNN, so that TAP keeps one line. */
static char *
shown(const char *s)
{
	char *out = xmalloc(strlen(s) * 4 + 1), *o = out;

	for (; *s != '\0'; s++) {
		if ((unsigned char)*s < 0x20)
			o += sprintf(o, "\\x%02x", (unsigned char)*s);
		else
			*o++ = *s;
	}
	*o = '\0';
	return out;
}

static void
matches(const char *pattern, const char *s, bool subtree, bool want)
{
	char *p = shown(pattern), *t = shown(s);

	ok(glob_regex_match(pattern, s, subtree) == want, "%s %s \"%s\"%s", p,
	    want ? "matches" : "does not match", t, subtree ? " (deny)" : "");
	free(p);
	free(t);
}

static void
test_translation(void)
{
	/* wildcards */
	re_is("*.ts", "^[^/]*\\.ts$");
	re_is("file?.txt", "^file[^/]\\.txt$");
	re_is("src/**/*.ts", "^src/(.*/)?[^/]*\\.ts$");
	re_is("a**b", "^a.*b$");
	re_is("**", "^.*$");
	re_is("x/**", "^x/.*$");
	deny_is("**/.env", "^(.*/)?\\.env(/.*)?$");
	/* adjacent wildcards folded */
	re_is("***/x", "^[^/]*(.*/)?x$");
	re_is("**/**/x", "^(.*/)?x$");
	re_is("*/**/*", "^[^/]*/(.*/)?[^/]*$");
	re_is("***/*", "^.*$");
	re_is("?*?", "^[^/][^/]*[^/]$");
	/* sets: kept, with what a class would read specially escaped; no negation */
	re_is("file[0-9].txt", "^file[0-9]\\.txt$");
	re_is("[!a]", "^[!a]$");
	re_is("[^a]", "^[\\^a]$");
	re_is("[a-]", "^[a-]$");
	re_is("[.-0]", "^[\\.-0]$");
	re_is("[$(|)+{}]", "^[\\$\\(\\|\\)\\+\\{\\}]$");
	re_is("[\\]", "^[\\\\]$");
	re_is("[[]", "^[[]$");
	/* brackets that spell no set are text */
	re_is("[z-a]", "^\\[z-a\\]$");
	re_is("[user-id]/*", "^\\[user-id\\]/[^/]*$");
	re_is("[]", "^\\[\\]$");
	re_is("[abc", "^\\[abc$");
	re_is("abc]", "^abc\\]$");
	re_is("[]x]", "^\\[\\]x\\]$");
	/* escaping */
	re_is("a+b(c)|d^$.{1}", "^a\\+b\\(c\\)\\|d\\^\\$\\.\\{1\\}$");
	re_is("", "^$");
	re_is("é/ü", "^é/ü$");

	char *e = glob_regex_escape_literal("/a.b[c]*d+e?(f)|{g}^$\\");

	ok(strcmp(e, "/a\\.b\\[c\\]\\*d\\+e\\?\\(f\\)\\|\\{g\\}\\^\\$\\\\") == 0,
	    "glob_regex_escape_literal escapes . [ ] * + ? ( ) | { } ^ $ \\ (got %s)", e);
	free(e);
}

static void
test_matching(void)
{
	matches("*.ts", "a.ts", false, true);
	matches("*.ts", "a/b.ts", false, false);
	matches("src/**/*.ts", "src/a.ts", false, true);
	matches("src/**/*.ts", "src/x/y/a.ts", false, true);
	matches("src/**/*.ts", "srcx/a.ts", false, false);
	matches("[.-0]", "/", false, true); /* a set may hold "/" */
	matches("a[b/c]d", "a/d", false, true);
	matches("[à-é]", "ä", false, true); /* characters, not bytes */
	matches("?", "é", false, true);
	matches("??", "é", false, false);
	matches("[z-a]", "[z-a]", false, true);
	matches("[z-a]", "z", false, false);
	/* deny: everything beneath a match too, and only beneath */
	matches("/x/*", "/x/a/b/c", true, true);
	matches("/x/*", "/x/a/b/c", false, false);
	matches("/x/*", "/xa", true, false);
	matches("/*", "/", true, true); /* that deny covers the root itself */
	/* "." takes no line terminator, "[^/]" does */
	matches("**", "a\nb", false, false);
	matches("*", "a\nb", false, true);
	matches("**/x", "a\r/x", false, false);
	matches("/d", "/d/\n", true, false);
	matches("/d", "/d/e", true, true);
	matches("a\xff*", "a\xff\xfe", false, true); /* bytes that are no UTF-8 */
}

/* Every reference case. */
static void
test_reference(void)
{
	char *path = xasprintf("%s/macos/globre.tsv", data_dir()), *buf = NULL;
	size_t n = 0, cap = 0, bad = 0;
	ssize_t len;
	FILE *f = fopen(path, "r");

	ok(f != NULL, "open %s", path);
	if (f == NULL) {
		free(path);
		return;
	}
	while ((len = getline(&buf, &cap, f)) > 0) {
		char *field[6], *p = buf, *re, *dre;
		int k;
		bool m, dm;

		if (buf[len - 1] == '\n')
			buf[len - 1] = '\0';
		for (k = 0; k < 6; k++) {
			field[k] = p;
			p = strchr(p, '\t');
			if (p == NULL)
				break;
			*p++ = '\0';
		}
		if (k != 5) {
			ok(0, "%s: a line without 6 fields", path);
			bad++;
			continue;
		}
		n++;
		re = glob_to_regex(field[0], false);
		dre = glob_to_regex(field[0], true);
		m = glob_regex_match(field[0], field[1], false);
		dm = glob_regex_match(field[0], field[1], true);
		if (strcmp(re, field[2]) != 0 || strcmp(dre, field[3]) != 0 ||
		    m != (field[4][0] == '1') || dm != (field[5][0] == '1')) {
			bad++;
			ok(0,
			    "reference case \"%s\" \"%s\": regex %s (want %s), deny %s (want %s), "
			    "match %d/%d (want %s/%s)",
			    field[0], field[1], re, field[2], dre, field[3], m, dm, field[4],
			    field[5]);
		}
		free(re);
		free(dre);
	}
	fclose(f);
	free(buf);
	ok(n >= 500 && bad == 0, "%zu reference cases, %zu differ", n, bad);
	free(path);
}

int
main(void)
{
	test_translation();
	test_matching();
	test_reference();
	return tap_done();
}
