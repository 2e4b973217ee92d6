/*
 * git configuration files: see gitconfig.h. The grammar is git's own (config.c:
 * git_parse_source and the functions it calls): lines of "[section]",
 * "[section \"subsection\"]" (or the deprecated "[section.subsection]"), "key" or
 * "key = value"; section and key names are case-insensitive, a subsection is not (but the
 * deprecated dotted form lowercases it); "#" and ";" start a comment outside quotes; in a
 * value '"' toggles quoting, "\\" escapes one of \\ \" n t b or the end of the line (the
 * value goes on), unquoted whitespace is trimmed at both ends. git's character classes
 * are ASCII-only and its whitespace is space, tab, CR and LF (not \v or \f): so are ours,
 * whatever the locale.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "gitconfig.h"
#include "util.h"

#define CH_EOF (-1)
#define CH_NUL (-2)

struct cursor {
	const unsigned char *p, *end;
	int line;
};

/* The state of one walk: the current header's names, and the entry being read. */
struct reader {
	struct cursor c;
	struct buf section, subsection, key, value, verbatim;
	int has_sub;
};

static int
git_isspace(int ch)
{
	return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
}

static int
git_isalpha(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z');
}

/* git's iskeychar: what a section or key name is made of. */
static int
git_iskeychar(int ch)
{
	return git_isalpha(ch) || (ch >= '0' && ch <= '9') || ch == '-';
}

static char
git_tolower(int ch)
{
	return (char)(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
}

/* The next character, "\r\n" read as "\n" (a lone "\r" stays); CH_EOF at the end,
 * CH_NUL for a NUL byte (git reads one, then cuts the value there: refused). */
static int
cursor_get(struct cursor *c)
{
	int ch;

	if (c->p >= c->end)
		return CH_EOF;
	ch = *c->p++;
	if (ch == '\r' && c->p < c->end && *c->p == '\n')
		ch = *c->p++;
	if (ch == '\n')
		c->line++;
	return ch == '\0' ? CH_NUL : ch;
}

/*
 * After '[': the header up to ']', into r's section and subsection. git reads
 * "[a.b \"c\"]" as section a, subsection "b.c", and "[ \"c\"]" as an empty section with
 * subsection c: so do we. 0, or -1.
 */
static int
parse_header(struct reader *r)
{
	struct buf quoted = { 0 };
	const char *nm, *dot;
	int ch, ext = 0, ret = -1;

	buf_reset(&r->section);
	buf_reset(&r->subsection);
	for (;;) {
		ch = cursor_get(&r->c);
		if (ch == ']')
			break;
		if (ch >= 0 && git_isspace(ch)) {
			/* [name "subsection"]: whitespace (not a line end), a quoted string, ']'. */
			while (ch >= 0 && git_isspace(ch) && ch != '\n')
				ch = cursor_get(&r->c);
			if (ch != '"')
				goto out;
			for (;;) {
				ch = cursor_get(&r->c);
				if (ch == '"')
					break;
				if (ch == '\\')
					ch = cursor_get(&r->c);
				if (ch < 0 || ch == '\n')
					goto out;
				buf_addc(&quoted, (char)ch);
			}
			if (cursor_get(&r->c) != ']')
				goto out;
			ext = 1;
			break;
		}
		if (ch < 0 || (!git_iskeychar(ch) && ch != '.') ||
		    r->section.len >= GITCONFIG_NAME_MAX)
			goto out;
		buf_addc(&r->section, git_tolower(ch));
	}
	if (r->section.len == 0 && !ext)
		goto out; /* "[]" */
	nm = buf_str(&r->section);
	/* The deprecated [section.subsection], or both spellings at once. */
	r->has_sub = ext;
	if ((dot = strchr(nm, '.')) != NULL) {
		buf_adds(&r->subsection, dot + 1);
		if (ext)
			buf_addc(&r->subsection, '.');
		r->section.len = (size_t)(dot - nm);
		r->has_sub = 1;
	}
	buf_add(&r->subsection, quoted.p != NULL ? quoted.p + quoted.off : "", quoted.len);
	ret = 0;
out:
	buf_free(&quoted);
	return ret;
}

/*
 * After '=': the value up to the end of its line (or of its last continued line), into
 * r->value as git before 2.45 reads it (each unquoted whitespace character inside the
 * value becomes a space) and into r->verbatim as later gits read it (kept as it is).
 * Pending unquoted whitespace is held in verbatim, counted in run, and dropped at the end.
 * 0, or -1.
 */
static int
parse_value(struct reader *r)
{
	struct buf *v = &r->value, *vv = &r->verbatim;
	int ch, quote = 0, comment = 0;
	size_t run = 0;

	buf_reset(v);
	buf_reset(vv);
	for (;;) {
		ch = cursor_get(&r->c);
		if (ch == CH_NUL)
			return -1;
		if (ch == CH_EOF || ch == '\n') {
			if (quote)
				return -1;
			vv->len -= run;
			return 0;
		}
		if (comment)
			continue;
		if (git_isspace(ch) && !quote) {
			if (v->len > 0) {
				run++;
				buf_addc(vv, (char)ch);
			}
			continue;
		}
		if (!quote && (ch == ';' || ch == '#')) {
			comment = 1;
			continue;
		}
		for (; run > 0; run--)
			buf_addc(v, ' ');
		if (ch == '\\') {
			switch ((ch = cursor_get(&r->c))) {
			case CH_EOF: /* git reads the end as a line end: nothing follows */
			case '\n':
				continue;
			case 't':
			case 'b':
			case 'n':
				ch = util_escape_value(ch, "tbn");
				break;
			case '\\':
			case '"':
				break;
			default:
				return -1;
			}
		} else if (ch == '"') {
			quote = !quote;
			continue;
		}
		buf_addc(v, (char)ch);
		buf_addc(vv, (char)ch);
	}
}

/* The key starting with ch, and its value, into r. 0, or -1. */
static int
parse_entry(struct reader *r, int ch, int *has_value)
{
	buf_reset(&r->key);
	do {
		if (r->key.len >= GITCONFIG_NAME_MAX)
			return -1;
		buf_addc(&r->key, git_tolower(ch));
		ch = cursor_get(&r->c);
	} while (ch >= 0 && git_iskeychar(ch));
	while (ch == ' ' || ch == '\t')
		ch = cursor_get(&r->c);
	*has_value = 0;
	if (ch == CH_EOF || ch == '\n')
		return 0;
	if (ch != '=')
		return -1;
	*has_value = 1;
	return parse_value(r);
}

int
gitconfig_foreach(const char *text, size_t len,
    int (*fn)(const struct gitconfig_entry *, void *), void *arg, int *line)
{
	struct reader r;
	struct gitconfig_entry e;
	int ch, comment = 0, ret = -1, at = 1, has_section = 0, has_value;

	memset(&r, 0, sizeof(r));
	r.c.p = (const unsigned char *)text;
	r.c.end = r.c.p + len;
	r.c.line = 1;
	/* A UTF-8 byte order mark, which git skips (a part of one is an error: below, as a
	 * character that starts nothing). */
	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		r.c.p += 3;
	for (;;) {
		at = r.c.line;
		ch = cursor_get(&r.c);
		if (ch == CH_EOF) {
			ret = 0;
			break;
		}
		if (ch == CH_NUL)
			break;
		if (ch == '\n') {
			comment = 0;
			continue;
		}
		if (comment || git_isspace(ch))
			continue;
		if (ch == '#' || ch == ';') {
			comment = 1;
			continue;
		}
		if (ch == '[') {
			if (parse_header(&r) == -1)
				break;
			has_section = 1;
			continue;
		}
		if (!git_isalpha(ch) || !has_section || parse_entry(&r, ch, &has_value) == -1)
			break;
		e.section = buf_str(&r.section);
		e.subsection = r.has_sub ? buf_str(&r.subsection) : NULL;
		e.key = buf_str(&r.key);
		e.value = has_value ? buf_str(&r.value) : NULL;
		e.verbatim = has_value ? buf_str(&r.verbatim) : NULL;
		e.line = at;
		if (fn(&e, arg) == -1)
			break;
	}
	if (ret == -1 && line != NULL)
		*line = at;
	buf_free(&r.section);
	buf_free(&r.subsection);
	buf_free(&r.key);
	buf_free(&r.value);
	buf_free(&r.verbatim);
	return ret;
}

/* --- what the mandatory denies need --------------------------------------------------- */

/* git's boolean: no value or an empty one aside, anything not plainly false is true. */
static int
parse_bool(const char *v)
{
	char *end;
	long n;

	if (v == NULL)
		return 1;
	if (*v == '\0' || strcasecmp(v, "false") == 0 || strcasecmp(v, "no") == 0 ||
	    strcasecmp(v, "off") == 0)
		return 0;
	n = strtol(v, &end, 10);
	if (end != v && *end == '\0')
		return n != 0;
	/* "true", "yes", "on", and what git would refuse: counted as set, to be safe. */
	return 1;
}

static void
set_str(char **dst, const char *v)
{
	free(*dst);
	*dst = xstrdup(v);
}

/* One entry into the struct gitconfig arg. 0, or -1 (a path without a value: git
 * refuses it). */
static int
assign(const struct gitconfig_entry *e, void *arg)
{
	struct gitconfig *gc = arg;
	const char *sec = e->section, *key = e->key, *v = e->value;

	if (e->subsection == NULL && strcmp(sec, "core") == 0) {
		if (strcmp(key, "hookspath") == 0 || strcmp(key, "worktree") == 0) {
			if (v == NULL)
				return -1;
			set_str(key[0] == 'h' ? &gc->hooks_path : &gc->worktree, v);
		} else if (strcmp(key, "fsmonitor") == 0)
			/* A boolean (the built-in daemon) or a command; kept as written. */
			set_str(&gc->fsmonitor, v != NULL ? v : "true");
	} else if (e->subsection == NULL && strcmp(sec, "init") == 0) {
		if (strcmp(key, "templatedir") == 0) {
			if (v == NULL)
				return -1;
			set_str(&gc->template_dir, v);
		}
	} else if (e->subsection == NULL && strcmp(sec, "extensions") == 0) {
		if (strcmp(key, "worktreeconfig") == 0)
			gc->worktree_config = parse_bool(v);
	} else if ((e->subsection == NULL && strcmp(sec, "include") == 0) ||
	    (e->subsection != NULL && strcmp(sec, "includeif") == 0)) {
		if (strcmp(key, "path") == 0) {
			if (v == NULL)
				return -1;
			if (*v != '\0')
				strlist_push(&gc->includes, v);
		}
	}
	return 0;
}

void
gitconfig_init(struct gitconfig *c)
{
	memset(c, 0, sizeof(*c));
	c->worktree_config = -1;
}

void
gitconfig_free(struct gitconfig *c)
{
	if (c == NULL)
		return;
	free(c->hooks_path);
	free(c->worktree);
	free(c->fsmonitor);
	free(c->template_dir);
	strlist_free(&c->includes);
	gitconfig_init(c);
}

int
gitconfig_parse(const char *text, size_t len, struct gitconfig *gc)
{
	return gitconfig_foreach(text, len, assign, gc, &gc->error_line);
}

int
gitconfig_read(int dfd, const char *name, struct gitconfig *gc)
{
	struct stat st;
	char *text = NULL;
	size_t len;
	int fd, ret = -1, saved;

	fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	if (fstat(fd, &st) == -1)
		goto out;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto out;
	}
	if (read_fd_all(fd, GITCONFIG_MAX, &text, &len) == -1)
		goto out;
	if (gitconfig_parse(text, len, gc) == -1) {
		errno = EINVAL;
		goto out;
	}
	ret = 0;
out:
	saved = errno;
	close(fd);
	free(text);
	errno = saved;
	return ret;
}
