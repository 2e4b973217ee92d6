/* A flag-less JavaScript regular expression as a POSIX one (cred_rx.h). */
#include <regex.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "buf.h"
#include "cred_rx.h"
#include "util.h"

#define RX_PATTERN_MAX 4096

struct cred_rx {
	regex_t re;
	size_t ngroups; /* POSIX groups */
	size_t g1;      /* the POSIX group that is JavaScript's group 1 */
};

struct tr {
	const char *s;
	size_t i, n;
	struct buf out;
	int js_groups;
	size_t posix_groups, g1;
	const char *why;
};

typedef uint8_t cset[32];

static void
cset_add(uint8_t *c, unsigned lo, unsigned hi)
{
	for (; lo <= hi && lo < 256; lo++)
		c[lo >> 3] |= (uint8_t)(1u << (lo & 7));
}

static bool
cset_has(const uint8_t *c, unsigned b)
{
	return c[b >> 3] & (1u << (b & 7));
}

/* \d \w \s and their capitals into c; false for any other letter. */
static bool
cset_escape(uint8_t *c, char e)
{
	cset t = { 0 };
	unsigned i;

	switch (e | 0x20) {
	case 'd':
		cset_add(t, '0', '9');
		break;
	case 'w':
		cset_add(t, '0', '9');
		cset_add(t, 'a', 'z');
		cset_add(t, 'A', 'Z');
		cset_add(t, '_', '_');
		break;
	case 's':
		cset_add(t, '\t', '\r');
		cset_add(t, ' ', ' ');
		/* U+00A0 and the other Unicode spaces are multi-byte in UTF-8: not here. */
		break;
	default:
		return false;
	}
	for (i = 0; i < 32; i++)
		c[i] |= (e >= 'a') ? t[i] : (uint8_t)~t[i];
	c[0] &= (uint8_t)~1u; /* NUL never goes into a pattern */
	return true;
}

/* A class as a bracket expression. */
static int
tr_emit_set(struct tr *t, const uint8_t *c)
{
	size_t count = 0;
	unsigned b;

	for (b = 1; b < 256; b++)
		count += cset_has(c, b);
	if (count == 0) {
		t->why = "an empty class matches nothing";
		return -1;
	}
	if (count == 255) {
		buf_addc(&t->out, '.'); /* no REG_NEWLINE: "." is any byte */
		return 0;
	}
	if (count == 1 && cset_has(c, '^')) {
		buf_adds(&t->out, "\\^");
		return 0;
	}
	buf_addc(&t->out, '[');
	if (cset_has(c, ']'))
		buf_addc(&t->out, ']');
	for (b = 1; b < 256; b++)
		if (cset_has(c, b) && b != ']' && b != '[' && b != '-' && b != '^')
			buf_addc(&t->out, (char)b);
	if (cset_has(c, '^'))
		buf_addc(&t->out, '^');
	if (cset_has(c, '['))
		buf_addc(&t->out, '[');
	if (cset_has(c, '-'))
		buf_addc(&t->out, '-');
	buf_addc(&t->out, ']');
	return 0;
}

/*
 * One escaped character after a "\" at t->i (already past it): its code point in *cp,
 * or a class into set (returns 1), or -1. In a class, \b is a backspace.
 */
static int
tr_escape(struct tr *t, bool in_class, unsigned *cp, uint8_t *set)
{
	char e;
	int k, v;
	unsigned u = 0;

	if (t->i >= t->n) {
		t->why = "\\ at the end of the pattern";
		return -1;
	}
	e = t->s[t->i++];
	if (cset_escape(set, e))
		return 1;
	if ((v = util_escape_value(e, in_class ? "bfnrtv" : "fnrtv")) != -1) {
		*cp = (unsigned)v;
		return 0;
	}
	switch (e) {
	case 'b':
		break; /* a word boundary */
	case '0':
		if (t->i < t->n && t->s[t->i] >= '0' && t->s[t->i] <= '9')
			break;
		t->why = "\\0 (a NUL) cannot be matched by srt";
		return -1;
	case 'x':
	case 'u':
		k = e == 'x' ? 2 : 4;
		if (t->n - t->i < (size_t)k)
			break;
		for (int j = 0; j < k; j++) {
			if ((v = hex_digit_value((unsigned char)t->s[t->i + (size_t)j])) < 0)
				goto ident;
			u = u << 4 | (unsigned)v;
		}
		t->i += (size_t)k;
		if (u == 0) {
			t->why = "a NUL cannot be matched by srt";
			return -1;
		}
		*cp = u;
		return 0;
	ident:
		*cp = (unsigned char)e; /* Annex B: \x and \u alone are letters */
		return 0;
	case 'c':
	case 'p':
	case 'P':
	case 'k':
		t->why = "\\c, \\p, \\P and \\k escapes are not supported by srt";
		return -1;
	default:
		if (e >= '1' && e <= '9') {
			t->why = "back references are not supported by srt";
			return -1;
		}
		*cp = (unsigned char)e;
		return 0;
	}
	t->why = "this escape is not supported by srt";
	return -1;
}

/* A code point as a literal: its UTF-8 bytes, each escaped when special. */
static void
tr_literal(struct tr *t, unsigned cp)
{
	char u[4];
	size_t n, k;

	if (cp < 0x80)
		u[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else
		u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	for (k = 0; k < n; k++) {
		if (strchr(".[]()*+?{}|^$\\", u[k]) != NULL)
			buf_addc(&t->out, '\\');
		buf_addc(&t->out, u[k]);
	}
}

/* One end of a class range at t->i (past it afterwards): its character in *cp, or 1 and
 * a class escape's set in sub, or -1. */
static int
tr_class_atom(struct tr *t, unsigned *cp, uint8_t *sub)
{
	int r;

	if (t->s[t->i] == '\\') {
		t->i++;
		if ((r = tr_escape(t, true, cp, sub)) != 0)
			return r;
	} else
		*cp = (unsigned char)t->s[t->i++];
	/* Multi-byte characters in a class cannot be matched byte-wise. */
	if (*cp > 0x7f) {
		t->why = "a non-ASCII character in a class is not supported by srt";
		return -1;
	}
	return 0;
}

static int
tr_class(struct tr *t)
{
	cset c = { 0 };
	bool neg = false;
	unsigned cp, i;
	int r;

	if (t->i < t->n && t->s[t->i] == '^')
		neg = true, t->i++;
	for (;;) {
		uint8_t sub[32] = { 0 };

		if (t->i >= t->n) {
			t->why = "unterminated character class";
			return -1;
		}
		if (t->s[t->i] == ']') {
			t->i++;
			break;
		}
		if ((r = tr_class_atom(t, &cp, sub)) < 0)
			return -1;
		if (r == 1) {
			for (i = 0; i < 32; i++)
				c[i] |= sub[i];
			continue;
		}
		if (t->i + 1 < t->n && t->s[t->i] == '-' && t->s[t->i + 1] != ']') {
			unsigned hi;
			uint8_t sub2[32] = { 0 };

			t->i++;
			if ((r = tr_class_atom(t, &hi, sub2)) < 0)
				return -1;
			if (r == 1) {
				/* Annex B: [a-\d] is a, -, and the digits. */
				cset_add(c, cp, cp);
				cset_add(c, '-', '-');
				for (i = 0; i < 32; i++)
					c[i] |= sub2[i];
				continue;
			}
			if (hi < cp) {
				t->why = "range out of order in character class";
				return -1;
			}
			cset_add(c, cp, hi);
			continue;
		}
		cset_add(c, cp, cp);
	}
	if (neg)
		for (i = 0; i < 32; i++)
			c[i] = (uint8_t)~c[i];
	c[0] &= (uint8_t)~1u;
	return tr_emit_set(t, c);
}

/* After an atom: a quantifier, copied; a lazy one refused. */
static int
tr_quant(struct tr *t)
{
	size_t j;
	char ch;

	if (t->i >= t->n)
		return 0;
	ch = t->s[t->i];
	if (ch == '*' || ch == '+' || ch == '?') {
		buf_addc(&t->out, ch);
		t->i++;
	} else if (ch == '{') {
		j = t->i + 1;
		while (j < t->n && t->s[j] >= '0' && t->s[j] <= '9')
			j++;
		if (j == t->i + 1)
			return 0;
		if (j < t->n && t->s[j] == ',') {
			j++;
			while (j < t->n && t->s[j] >= '0' && t->s[j] <= '9')
				j++;
		}
		if (j >= t->n || t->s[j] != '}')
			return 0; /* Annex B: a literal "{" */
		if (j - t->i > 12) {
			t->why = "a repeat count too large for srt";
			return -1;
		}
		buf_add(&t->out, t->s + t->i, j + 1 - t->i);
		t->i = j + 1;
	} else
		return 0;
	if (t->i < t->n && t->s[t->i] == '?') {
		t->why = "lazy quantifiers (*? +? ?? {n,m}?) are not supported by srt";
		return -1;
	}
	if (t->i < t->n && strchr("*+?", t->s[t->i]) != NULL) {
		t->why = "nothing to repeat";
		return -1;
	}
	return 0;
}

static int
tr_run(struct tr *t)
{
	int depth = 0, r;
	unsigned cp;
	char ch;

	while (t->i < t->n) {
		uint8_t set[32] = { 0 };
		bool atom = true;

		ch = t->s[t->i++];
		switch (ch) {
		case '\\':
			if (t->i < t->n && (t->s[t->i] == 'b' || t->s[t->i] == 'B')) {
				buf_addc(&t->out, '\\');
				buf_addc(&t->out, t->s[t->i++]);
				atom = false;
				break;
			}
			if ((r = tr_escape(t, false, &cp, set)) < 0)
				return -1;
			if (r == 1) {
				if (tr_emit_set(t, set) == -1)
					return -1;
			} else
				tr_literal(t, cp);
			break;
		case '[':
			if (tr_class(t) == -1)
				return -1;
			break;
		case '.':
			buf_adds(&t->out, "[^\n\r]");
			break;
		case '(':
			if (t->i < t->n && t->s[t->i] == '?') {
				if (t->i + 1 < t->n && t->s[t->i + 1] == ':')
					t->i += 2;
				else if (t->i + 2 < t->n && t->s[t->i + 1] == '<' &&
				    t->s[t->i + 2] != '=' && t->s[t->i + 2] != '!') {
					const char *e = memchr(t->s + t->i, '>', t->n - t->i);

					if (e == NULL) {
						t->why = "unterminated group name";
						return -1;
					}
					t->i = (size_t)(e - t->s) + 1;
					if (++t->js_groups == 1)
						t->g1 = t->posix_groups + 1;
				} else {
					t->why =
					    "lookahead and lookbehind are not supported by srt";
					return -1;
				}
			} else if (++t->js_groups == 1)
				t->g1 = t->posix_groups + 1;
			t->posix_groups++;
			depth++;
			buf_addc(&t->out, '(');
			atom = false;
			break;
		case ')':
			if (depth == 0) {
				t->why = "unmatched )";
				return -1;
			}
			depth--;
			buf_addc(&t->out, ')');
			break;
		case '|':
			buf_addc(&t->out, '|');
			atom = false;
			break;
		case '^':
		case '$':
			buf_addc(&t->out, ch);
			atom = false;
			break;
		case '*':
		case '+':
		case '?':
			t->why = "nothing to repeat";
			return -1;
		default:
			t->i--;
			/* A multi-byte character is copied whole (its bytes are literals). */
			tr_literal(t, (unsigned char)t->s[t->i++]);
			break;
		}
		if (atom && tr_quant(t) == -1)
			return -1;
	}
	if (depth != 0) {
		t->why = "unterminated group";
		return -1;
	}
	return 0;
}

int
cred_rx_compile(const char *pattern, struct cred_rx **out, int *groups, const char **why)
{
	struct tr t = { .s = pattern, .n = strlen(pattern) };
	struct cred_rx *rx;

	*out = NULL;
	if (t.n > RX_PATTERN_MAX) {
		*why = "the pattern is too long";
		return -1;
	}
	if (tr_run(&t) == -1) {
		*why = t.why;
		buf_free(&t.out);
		return -1;
	}
	rx = xcalloc(1, sizeof(*rx));
	if (regcomp(&rx->re, buf_str(&t.out), REG_EXTENDED) != 0) {
		*why = "the pattern cannot be compiled";
		buf_free(&t.out);
		free(rx);
		return -1;
	}
	buf_free(&t.out);
	rx->ngroups = t.posix_groups;
	rx->g1 = t.g1;
	if (groups != NULL)
		*groups = t.js_groups;
	*out = rx;
	return 0;
}

void
cred_rx_free(struct cred_rx *rx)
{
	if (rx == NULL)
		return;
	regfree(&rx->re);
	free(rx);
}

int
cred_rx_exec(const struct cred_rx *rx, const char *p, size_t len, size_t from, long m[4])
{
	regmatch_t pm[1 + 64];
	size_t np = rx->ngroups + 1 < 65 ? rx->ngroups + 1 : 65;

	if (from > len)
		return 0;
	pm[0].rm_so = (regoff_t)from;
	pm[0].rm_eo = (regoff_t)len;
	if (regexec(&rx->re, p, np, pm, REG_STARTEND | (from > 0 ? REG_NOTBOL : 0)) != 0)
		return 0;
	m[0] = pm[0].rm_so;
	m[1] = pm[0].rm_eo;
	if (rx->g1 > 0 && rx->g1 < np && pm[rx->g1].rm_so != -1) {
		m[2] = pm[rx->g1].rm_so;
		m[3] = pm[rx->g1].rm_eo;
	} else
		m[2] = m[3] = -1;
	return 1;
}
