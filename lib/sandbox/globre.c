/* Globs as regular expressions, and a matcher with the same answers: see globre.h. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "globre.h"
#include "buf.h"
#include "util.h"

enum gtok {
	G_TEXT,   /* characters that stand for themselves, no "/" among them */
	G_SEP,    /* "/" */
	G_ANY,    /* "?" */
	G_STAR,   /* "*" */
	G_GSTAR,  /* "**" */
	G_GSLASH, /* "**" with the "/" after it */
	G_SET,    /* "[...]" */
};

struct gtoken {
	enum gtok kind;
	char *text;            /* G_TEXT: the text; G_SET: the members */
	uint32_t (*ranges)[2]; /* G_SET: inclusive ranges of code points */
	size_t nranges;
};

struct globre {
	struct gtoken *t;
	size_t n, cap;
};

/* A byte that starts no UTF-8 sequence is a character of its own, above every code
 * point. */
#define BAD_BYTE(b) (0x110000u + (uint32_t)(b))

/* One character at s (n bytes left, n > 0): its code point in *cp; returns its length. */
static size_t
utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t need, i;
	uint32_t c;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		need = 2;
		c = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		need = 3;
		c = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		need = 4;
		c = s[0] & 0x07;
	} else
		goto bad;
	if (n < need)
		goto bad;
	for (i = 1; i < need; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if ((need == 2 && c < 0x80) || (need == 3 && c < 0x800) ||
	    (need == 4 && (c < 0x10000 || c > 0x10ffff)))
		goto bad;
	*cp = c;
	return need;
bad:
	*cp = BAD_BYTE(s[0]);
	return 1;
}

/* The code points of s, in *out (caller frees); returns how many. */
static size_t
utf8_decode(const char *s, size_t len, uint32_t **out)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t *v = xreallocarray(NULL, len + 1, sizeof(*v));
	size_t i = 0, n = 0;

	while (i < len)
		i += utf8_next(p + i, len - i, &v[n++]);
	*out = v;
	return n;
}

static struct gtoken *
tok_push(struct globre *g, enum gtok kind)
{
	struct gtoken *t;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 16;
		g->t = xreallocarray(g->t, g->cap, sizeof(*g->t));
	}
	t = &g->t[g->n++];
	memset(t, 0, sizeof(*t));
	t->kind = kind;
	return t;
}

static void
tok_clear(struct gtoken *t)
{
	free(t->text);
	free(t->ranges);
}

static void
tok_pop(struct globre *g)
{
	tok_clear(&g->t[--g->n]);
}

/* The kind of the token k places from the end (1: the last), or -1. */
static int
kind_at(const struct globre *g, size_t k)
{
	return g->n >= k ? (int)g->t[g->n - k].kind : -1;
}

/*
 * A wildcard after the last token. Side by side, wildcards are kept to the fewest that
 * match the same (two at most): a regular expression engine would otherwise try every
 * way of sharing a path out among them.
 */
static void
add_wildcard(struct globre *g, enum gtok kind)
{
	int is_globstar;

	/* "**" takes whatever follows it, and "** /" after "** /" adds nothing. */
	if (kind_at(g, 1) == G_GSTAR || kind_at(g, 1) == (int)kind)
		return;
	/* ... and whatever comes before it; "*" "** /" "*" is one "**" too. */
	is_globstar = kind == G_GSTAR ||
	    (kind_at(g, 2) == (int)kind &&
		(kind_at(g, 1) == G_STAR || kind_at(g, 1) == G_GSLASH));
	if (!is_globstar) {
		tok_push(g, kind);
		return;
	}
	while (kind_at(g, 1) == G_STAR || kind_at(g, 1) == G_GSLASH)
		tok_pop(g);
	tok_push(g, G_GSTAR);
}

/*
 * The ranges the members spell (a single character is a range of one; "-" is a member
 * where it comes first or last). -1 where they spell no set: none, or a range that runs
 * backwards ("[user-id]" has "r-i").
 */
static int
set_ranges(const char *members, size_t len, uint32_t (**out)[2], size_t *nout)
{
	uint32_t *cp, (*r)[2];
	size_t n = utf8_decode(members, len, &cp), i, k = 0;

	*out = NULL;
	*nout = 0;
	if (n == 0) {
		free(cp);
		return -1;
	}
	r = xreallocarray(NULL, n, sizeof(*r));
	for (i = 0; i < n; i++) {
		int is_range = i + 1 < n && cp[i + 1] == '-' && i + 2 < n;
		uint32_t from = cp[i];

		if (is_range)
			i += 2;
		if (cp[i] < from) {
			free(cp);
			free(r);
			return -1;
		}
		r[k][0] = from;
		r[k][1] = cp[i];
		k++;
	}
	free(cp);
	*out = r;
	*nout = k;
	return 0;
}

static void
end_text(struct globre *g, const char *p, size_t start, size_t at)
{
	if (start < at)
		tok_push(g, G_TEXT)->text = xstrndup(p + start, at - start);
}

struct globre *
globre_parse(const char *p)
{
	struct globre *g = xcalloc(1, sizeof(*g));
	size_t len = strlen(p), i = 0, text = 0, brackets_text_until = 0;

	while (i < len) {
		switch (p[i]) {
		case '/':
			end_text(g, p, text, i);
			tok_push(g, G_SEP);
			text = ++i;
			break;
		case '?':
			end_text(g, p, text, i);
			tok_push(g, G_ANY);
			text = ++i;
			break;
		case '*': {
			size_t start = i, rest;
			int with_sep;

			end_text(g, p, text, i);
			while (i < len && p[i] == '*')
				i++;
			/* Of a run, the last two go with a "/" that follows. */
			with_sep = i - start >= 2 && i < len && p[i] == '/';
			rest = i - start - (with_sep ? 2 : 0);
			if (rest >= 2)
				add_wildcard(g, G_GSTAR);
			if (rest == 1)
				add_wildcard(g, G_STAR);
			if (with_sep)
				add_wildcard(g, G_GSLASH);
			text = with_sep ? ++i : i;
			break;
		}
		case '[': {
			const char *close;
			uint32_t(*r)[2];
			size_t nr;
			struct gtoken *t;

			if (i < brackets_text_until) {
				i++;
				break;
			}
			if ((close = strchr(p + i + 1, ']')) == NULL) {
				brackets_text_until = len;
				i++;
				break;
			}
			if (set_ranges(p + i + 1, (size_t)(close - p) - i - 1, &r, &nr) == -1) {
				brackets_text_until = (size_t)(close - p) + 1;
				i++;
				break;
			}
			end_text(g, p, text, i);
			t = tok_push(g, G_SET);
			t->text = xstrndup(p + i + 1, (size_t)(close - p) - i - 1);
			t->ranges = r;
			t->nranges = nr;
			text = i = (size_t)(close - p) + 1;
			break;
		}
		default:
			i++;
		}
	}
	end_text(g, p, text, i);
	return g;
}

void
globre_free(struct globre *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		tok_clear(&g->t[i]);
	free(g->t);
	free(g);
}

/* Each character of s found in special gets a backslash before it. */
static void
re_escaped(struct buf *b, const char *s, const char *special)
{
	for (; *s != '\0'; s++) {
		if (strchr(special, *s) != NULL)
			buf_add(b, "\\", 1);
		buf_add(b, s, 1);
	}
}

#define RE_SPECIAL ".*+?^${}()|[]\\"
#define CLASS_SPECIAL ".^$+{}()|\\" /* what gets a backslash inside a set */

char *
glob_regex_escape_literal(const char *text)
{
	struct buf b = { 0 };

	buf_add(&b, "", 0);
	re_escaped(&b, text, RE_SPECIAL);
	return buf_steal(&b);
}

/* The atoms of the matcher (below): a character, one of each wildcard, a set. */
enum atom_kind {
	A_CHAR,
	A_ANY,
	A_STAR,
	A_GSTAR,
	A_GSLASH,
	A_SET
};

/* What each token without text of its own stands for: its regex, and its atom. */
static const struct {
	const char *regex;
	enum atom_kind atom;
} tok_meaning[] = {
	[G_SEP] = { "/", A_CHAR },
	[G_ANY] = { "[^/]", A_ANY },
	[G_STAR] = { "[^/]*", A_STAR },
	[G_GSTAR] = { ".*", A_GSTAR },
	[G_GSLASH] = { "(.*/)?", A_GSLASH },
};

char *
globre_regex(const struct globre *g, bool subtree)
{
	struct buf b = { 0 };
	size_t i;

	buf_adds(&b, "^");
	for (i = 0; i < g->n; i++) {
		const struct gtoken *t = &g->t[i];

		switch (t->kind) {
		case G_TEXT:
			re_escaped(&b, t->text, RE_SPECIAL);
			break;
		case G_SET:
			buf_adds(&b, "[");
			re_escaped(&b, t->text, CLASS_SPECIAL);
			buf_adds(&b, "]");
			break;
		default:
			buf_adds(&b, tok_meaning[t->kind].regex);
			break;
		}
	}
	buf_adds(&b, subtree ? "(/.*)?$" : "$");
	return buf_steal(&b);
}

/* --- the matcher ------------------------------------------------------------------ */

/*
 * A small NFA over characters. Atoms: one per character of text, one per other token.
 * State i is "before atom i", na is "after the last"; a "** /" atom i has a second state,
 * na + 1 + i, "inside the group, no '/' seen yet since it last could have ended".
 */
struct atom {
	enum atom_kind kind;
	uint32_t cp;              /* A_CHAR */
	const struct gtoken *set; /* A_SET */
};

/* "." in an ECMAScript expression: anything but a line terminator. */
static int
re_dot(uint32_t c)
{
	return c != 0x0a && c != 0x0d && c != 0x2028 && c != 0x2029;
}

static int
in_set(const struct gtoken *t, uint32_t c)
{
	size_t i;

	for (i = 0; i < t->nranges; i++)
		if (c >= t->ranges[i][0] && c <= t->ranges[i][1])
			return 1;
	return 0;
}

static size_t
atoms_build(const struct globre *g, struct atom **out)
{
	struct atom *a = NULL;
	size_t n = 0, cap = 0, i, k;

	for (i = 0; i < g->n; i++) {
		const struct gtoken *t = &g->t[i];
		uint32_t *cp = NULL;
		size_t ncp = 1;

		if (t->kind == G_TEXT)
			ncp = utf8_decode(t->text, strlen(t->text), &cp);
		if (n + ncp > cap) {
			cap = (n + ncp) * 2;
			a = xreallocarray(a, cap, sizeof(*a));
		}
		switch (t->kind) {
		case G_TEXT:
			for (k = 0; k < ncp; k++)
				a[n++] = (struct atom){ .kind = A_CHAR, .cp = cp[k] };
			break;
		case G_SEP:
			a[n++] = (struct atom){ .kind = A_CHAR, .cp = '/' };
			break;
		case G_SET:
			a[n++] = (struct atom){ .kind = A_SET, .set = t };
			break;
		default:
			a[n++] = (struct atom){ .kind = tok_meaning[t->kind].atom };
			break;
		}
		free(cp);
	}
	*out = a;
	return n;
}

/* Follow the moves that take no character: past a "*", "**" or "** /" (only forwards). */
static void
closure(const struct atom *a, size_t na, unsigned char *s)
{
	size_t i;

	for (i = 0; i < na; i++)
		if (s[i] &&
		    (a[i].kind == A_STAR || a[i].kind == A_GSTAR || a[i].kind == A_GSLASH))
			s[i + 1] = 1;
}

static void
step(const struct atom *a, size_t na, const unsigned char *s, uint32_t c, unsigned char *t)
{
	size_t i, nst = 2 * na + 1;

	memset(t, 0, nst);
	for (i = 0; i < na; i++) {
		if (s[na + 1 + i]) { /* inside a "** /" group */
			if (re_dot(c))
				t[na + 1 + i] = 1;
			if (c == '/')
				t[i + 1] = 1;
		}
		if (!s[i])
			continue;
		switch (a[i].kind) {
		case A_CHAR:
			if (c == a[i].cp)
				t[i + 1] = 1;
			break;
		case A_ANY:
			if (c != '/')
				t[i + 1] = 1;
			break;
		case A_SET:
			if (in_set(a[i].set, c))
				t[i + 1] = 1;
			break;
		case A_STAR:
			if (c != '/')
				t[i] = 1;
			break;
		case A_GSTAR:
			if (re_dot(c))
				t[i] = 1;
			break;
		case A_GSLASH:
			if (re_dot(c))
				t[na + 1 + i] = 1;
			if (c == '/')
				t[i + 1] = 1;
			break;
		}
	}
	closure(a, na, t);
}

bool
globre_match(const struct globre *g, const char *str, bool subtree)
{
	struct atom *a;
	uint32_t *cp;
	size_t na = atoms_build(g, &a), n = utf8_decode(str, strlen(str), &cp), nst, k;
	unsigned char *s, *t, *tmp, *tail_ok;
	bool hit = false;

	nst = 2 * na + 1;
	s = xcalloc(nst, 1);
	t = xcalloc(nst, 1);
	/* tail_ok[k]: no line terminator from k on, so "/.*" can take it all. */
	tail_ok = xcalloc(n + 1, 1);
	tail_ok[n] = 1;
	for (k = n; k > 0; k--)
		tail_ok[k - 1] = tail_ok[k] && re_dot(cp[k - 1]);
	s[0] = 1;
	closure(a, na, s);
	for (k = 0; k < n; k++) {
		if (subtree && s[na] && cp[k] == '/' && tail_ok[k + 1]) {
			hit = true;
			goto out;
		}
		step(a, na, s, cp[k], t);
		tmp = s;
		s = t;
		t = tmp;
	}
	hit = s[na] != 0;
out:
	free(s);
	free(t);
	free(tail_ok);
	free(cp);
	free(a);
	return hit;
}

char *
glob_to_regex(const char *pattern, bool subtree)
{
	struct globre *g = globre_parse(pattern);
	char *r = globre_regex(g, subtree);

	globre_free(g);
	return r;
}

bool
glob_regex_match(const char *pattern, const char *s, bool subtree)
{
	struct globre *g = globre_parse(pattern);
	bool r = globre_match(g, s, subtree);

	globre_free(g);
	return r;
}
