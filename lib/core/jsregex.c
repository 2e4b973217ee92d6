/*
 * The syntax of a flag-less JavaScript regular expression (jsregex.h): a recursive
 * descent over the pattern's UTF-16 code units, as JavaScript sees a string.
 *
 * Without the u flag, Annex B makes most oddities literal: a "{" or "}" that is no
 * quantifier, a "]" outside a class, an escape of any character, a back reference to a
 * group that does not exist (an octal escape then). What stays an error, and is checked:
 * a quantifier with nothing to repeat (at the start, after "|", "(", another quantifier,
 * "^", "$", \b, \B or a lookbehind), "{n,m}" with n > m, a class range running
 * backwards, an unterminated group or class, an unmatched ")", "(?" followed by anything
 * but ":", "=", "!", "<=", "<!" or "<name>", "\" at the end; and, once a pattern has a
 * named group, a name that is no identifier, a name given twice, and a \k that names no
 * group (or stands alone, in a class too).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsregex.h"
#include "utf8.h"
#include "util.h"

#define QUANT_MAX 0x7fffffffu /* a bound saturates, as V8's does */
#define DEPTH_MAX 1000        /* V8 gives up on deeper nesting too */

struct rx {
	uint16_t *u;
	size_t n, i;
	bool named; /* the pattern has a named group */
	int groups;
	struct strlist names; /* group names, UTF-8 */
	struct strlist refs;  /* \k<name> references */
	const char *why;
};

/* UTF-8 to UTF-16 code units; an invalid byte (an overlong form too: "\xc0\xa8" is no
 * "(") becomes U+FFFD, as utf8_decode says. */
static uint16_t *
to_utf16(const char *s, size_t len, size_t *n)
{
	uint16_t *u = xcalloc(len + 1, sizeof(*u));
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0, o = 0;
	long cp;

	while (i < len) {
		i += utf8_decode(p + i, len - i, &cp);
		if (cp == UTF8_BAD)
			u[o++] = 0xfffd;
		else if (cp >= 0x10000) {
			cp -= 0x10000;
			u[o++] = (uint16_t)(0xd800 + (cp >> 10));
			u[o++] = (uint16_t)(0xdc00 + (cp & 0x3ff));
		} else
			u[o++] = (uint16_t)cp;
	}
	*n = o;
	return u;
}

static int
at(const struct rx *r, size_t k)
{
	return r->i + k < r->n ? r->u[r->i + k] : -1;
}

static bool
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static bool
is_hex(int c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int
hex_val(int c)
{
	return is_digit(c) ? c - '0' : (c | 0x20) - 'a' + 10;
}

static int
fail(struct rx *r, const char *why)
{
	if (r->why == NULL)
		r->why = why;
	return -1;
}

/* Decimal digits at r->i, saturating; how many were read. */
static size_t
read_number(struct rx *r, uint32_t *v)
{
	size_t k = 0;

	*v = 0;
	while (is_digit(at(r, 0))) {
		uint32_t d = (uint32_t)(at(r, 0) - '0');

		*v = *v > (QUANT_MAX - d) / 10 ? QUANT_MAX : *v * 10 + d;
		r->i++;
		k++;
	}
	return k;
}

/*
 * A "{n}", "{n,}" or "{n,m}" at r->i: 1 and r->i past it when it is one, 0 with r->i
 * unchanged when the "{" is only a character, -1 when its bounds run backwards.
 */
static int
brace_quantifier(struct rx *r)
{
	size_t start = r->i;
	uint32_t lo, hi;

	if (at(r, 0) != '{')
		return 0;
	r->i++;
	if (read_number(r, &lo) == 0)
		goto no;
	hi = lo;
	if (at(r, 0) == ',') {
		r->i++;
		if (!is_digit(at(r, 0)))
			hi = QUANT_MAX;
		else
			read_number(r, &hi);
	}
	if (at(r, 0) != '}')
		goto no;
	r->i++;
	if (hi < lo)
		return fail(r, "numbers out of order in {} quantifier");
	return 1;
no:
	r->i = start;
	return 0;
}

/* Is there a quantifier at r->i (without consuming it)? */
static bool
quantifier_here(struct rx *r)
{
	size_t start = r->i;
	int q;

	if (at(r, 0) == '*' || at(r, 0) == '+' || at(r, 0) == '?')
		return true;
	q = brace_quantifier(r);
	r->i = start;
	return q != 0;
}

static bool
id_start(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '$' || c == '_' ||
	    c >= 0x80;
}

/* A group name after "(?<" or "\k<", up to its ">": appended to out as UTF-8. */
static int
group_name(struct rx *r, struct strlist *out)
{
	char buf[256];
	size_t o = 0;
	int c;

	for (;;) {
		c = at(r, 0);
		if (c == '>')
			break;
		if (c == -1)
			return fail(r, "Invalid capture group name");
		if (c == '\\') {
			/* \uXXXX or \u{X...} spells a character of the name. */
			uint32_t cp = 0;
			size_t k;

			if (at(r, 1) != 'u')
				return fail(r, "Invalid capture group name");
			if (at(r, 2) == '{') {
				for (k = 3; is_hex(at(r, k)) && cp <= 0x10ffff; k++)
					cp = cp * 16 + (uint32_t)hex_val(at(r, k));
				if (k == 3 || at(r, k) != '}' || cp > 0x10ffff)
					return fail(r, "Invalid capture group name");
				r->i += k + 1;
			} else {
				for (k = 2; k < 6; k++) {
					if (!is_hex(at(r, k)))
						return fail(r, "Invalid capture group name");
					cp = cp * 16 + (uint32_t)hex_val(at(r, k));
				}
				r->i += 6;
			}
			c = cp < 0x80 ? (int)cp : 0x80;
		} else
			r->i++;
		if (!(o == 0 ? id_start(c) : id_start(c) || is_digit(c)))
			return fail(r, "Invalid capture group name");
		/* Names are compared, not printed: each unit as a few bytes is enough. */
		if (o + 6 >= sizeof(buf))
			return fail(r, "Invalid capture group name");
		if (c < 0x80)
			buf[o++] = (char)c;
		else
			o += (size_t)snprintf(
			    buf + o, sizeof(buf) - o, "\\%04x", (unsigned)r->u[r->i - 1]);
		buf[o] = '\0';
	}
	if (o == 0)
		return fail(r, "Invalid capture group name");
	r->i++; /* ">" */
	strlist_push(out, buf);
	return 0;
}

/*
 * An escape after "\" (r->i at the character after it). *value is the code unit it
 * stands for, or -1 for a class (\d \D \s \S \w \W) or an assertion. in_class: inside
 * "[...]", where \b is a backspace and \- a hyphen.
 */
static int
escape(struct rx *r, bool in_class, int *value, bool *assertion)
{
	int c = at(r, 0), v;
	size_t k;

	*assertion = false;
	if (c == -1)
		return fail(r, "\\ at end of pattern");
	r->i++;
	switch (c) {
	case 'b':
	case 'B':
		if (in_class) {
			*value = c == 'b' ? 8 : c;
			return 0;
		}
		*assertion = true;
		*value = -1;
		return 0;
	case 'd':
	case 'D':
	case 's':
	case 'S':
	case 'w':
	case 'W':
		*value = -1;
		return 0;
	case 'f':
	case 'n':
	case 'r':
	case 't':
	case 'v':
		*value = util_escape_value(c, "fnrtv");
		return 0;
	case 'c':
		v = at(r, 0);
		if ((v | 0x20) >= 'a' && (v | 0x20) <= 'z') {
			r->i++;
			*value = v % 32;
			return 0;
		}
		if (in_class && (is_digit(v) || v == '_')) {
			r->i++;
			*value = v % 32;
			return 0;
		}
		/* "\c" alone is a backslash, and the "c" is read next. */
		r->i--;
		*value = '\\';
		return 0;
	case 'x':
		if (is_hex(at(r, 0)) && is_hex(at(r, 1))) {
			*value = hex_val(at(r, 0)) * 16 + hex_val(at(r, 1));
			r->i += 2;
			return 0;
		}
		*value = 'x';
		return 0;
	case 'u':
		for (k = 0, v = 0; k < 4 && is_hex(at(r, (size_t)k)); k++)
			v = v * 16 + hex_val(at(r, k));
		if (k == 4) {
			r->i += 4;
			*value = v;
			return 0;
		}
		*value = 'u';
		return 0;
	case 'k':
		if (!r->named) {
			*value = 'k';
			return 0;
		}
		if (in_class || at(r, 0) != '<')
			return fail(r, "Invalid named reference");
		r->i++;
		if (group_name(r, &r->refs) != 0) {
			r->why = NULL;
			return fail(r, "Invalid named capture referenced");
		}
		*value = -1;
		return 0;
	case '0':
	case '1':
	case '2':
	case '3':
	case '4':
	case '5':
	case '6':
	case '7':
		/* An octal escape (in a class always; outside, when it is no back
		 * reference, which does not change whether the pattern is valid). */
		v = c - '0';
		if (is_digit(at(r, 0)) && at(r, 0) < '8') {
			v = v * 8 + at(r, 0) - '0';
			r->i++;
			if (c < '4' && is_digit(at(r, 0)) && at(r, 0) < '8') {
				v = v * 8 + at(r, 0) - '0';
				r->i++;
			}
		}
		if (!in_class && c != '0')
			while (is_digit(at(r, 0)))
				r->i++;
		*value = in_class || c == '0' ? v : -1;
		return 0;
	default:
		if (!in_class && (c == '8' || c == '9'))
			while (is_digit(at(r, 0)))
				r->i++;
		*value = c;
		return 0;
	}
}

/* One end of a class range, at r->i (past it afterwards): its character in *value, -1
 * for a class escape such as \d. */
static int
class_atom(struct rx *r, int *value)
{
	int c = at(r, 0);
	bool assertion;

	r->i++;
	if (c == '\\')
		return escape(r, true, value, &assertion);
	*value = c;
	return 0;
}

/* "[...]" with r->i just past the "[". */
static int
char_class(struct rx *r)
{
	int lo, hi, c;
	bool range;

	if (at(r, 0) == '^')
		r->i++;
	for (;;) {
		c = at(r, 0);
		if (c == -1)
			return fail(r, "Unterminated character class");
		if (c == ']') {
			r->i++;
			return 0;
		}
		if (class_atom(r, &lo) != 0)
			return -1;
		if (at(r, 0) != '-' || at(r, 1) == ']' || at(r, 1) == -1)
			continue;
		r->i++;
		if (class_atom(r, &hi) != 0)
			return -1;
		/* A class escape at either end makes the "-" a character (Annex B). */
		range = lo != -1 && hi != -1;
		if (range && lo > hi)
			return fail(r, "Range out of order in character class");
	}
}

static int disjunction(struct rx *r, int depth);

/* "(" with r->i just past it. *quantifiable: whether a quantifier may follow. */
static int
group(struct rx *r, int depth, bool *quantifiable)
{
	*quantifiable = true;
	if (at(r, 0) == '?') {
		int c = at(r, 1);

		if (c == ':' || c == '=' || c == '!')
			r->i += 2;
		else if (c == '<' && (at(r, 2) == '=' || at(r, 2) == '!')) {
			r->i += 3;
			*quantifiable = false;
		} else if (c == '<') {
			r->i += 2;
			if (group_name(r, &r->names) != 0)
				return -1;
			r->groups++;
		} else
			return fail(r, "Invalid group");
	} else
		r->groups++;
	if (disjunction(r, depth + 1) != 0)
		return -1;
	if (at(r, 0) != ')')
		return fail(r, "Unterminated group");
	r->i++;
	return 0;
}

static int
disjunction(struct rx *r, int depth)
{
	bool quantifiable, assertion;
	int c, v;

	if (depth > DEPTH_MAX)
		return fail(r, "Regular expression too large");
	for (;;) {
		c = at(r, 0);
		if (c == -1 || c == ')')
			return 0;
		if (c == '|') {
			r->i++;
			continue;
		}
		quantifiable = true;
		switch (c) {
		case '^':
		case '$':
			r->i++;
			quantifiable = false;
			break;
		case '\\':
			r->i++;
			if (escape(r, false, &v, &assertion) != 0)
				return -1;
			quantifiable = !assertion;
			break;
		case '(':
			r->i++;
			if (group(r, depth, &quantifiable) != 0)
				return -1;
			break;
		case '[':
			r->i++;
			if (char_class(r) != 0)
				return -1;
			break;
		case '*':
		case '+':
		case '?':
			return fail(r, "Nothing to repeat");
		case '{':
			if (quantifier_here(r))
				return fail(r, "Nothing to repeat");
			r->i++;
			break;
		default:
			r->i++;
			break;
		}
		if (!quantifier_here(r))
			continue;
		if (!quantifiable)
			return fail(r, "Nothing to repeat");
		if (at(r, 0) == '{') {
			if (brace_quantifier(r) != 1)
				return -1;
		} else
			r->i++;
		if (at(r, 0) == '?')
			r->i++;
		/* A second quantifier has nothing to repeat. */
		if (quantifier_here(r))
			return fail(r, "Nothing to repeat");
	}
}

/* Does the pattern have a named group? (V8 asks first, then parses with the answer.) */
static bool
has_named_group(const struct rx *r)
{
	bool in_class = false;
	size_t i;

	for (i = 0; i < r->n; i++) {
		uint16_t c = r->u[i];

		if (c == '\\')
			i++;
		else if (in_class)
			in_class = c != ']';
		else if (c == '[')
			in_class = true;
		else if (c == '(' && i + 2 < r->n && r->u[i + 1] == '?' && r->u[i + 2] == '<' &&
		    (i + 3 >= r->n || (r->u[i + 3] != '=' && r->u[i + 3] != '!')))
			return true;
	}
	return false;
}

int
jsregex_check(const char *text, size_t len, int *groups, const char **why)
{
	struct rx r;
	size_t i, j;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.u = to_utf16(text, len, &r.n);
	r.named = has_named_group(&r);
	*groups = 0;
	if (disjunction(&r, 0) != 0)
		goto out;
	if (r.i < r.n) {
		fail(&r, "Unmatched ')'");
		goto out;
	}
	for (i = 0; i < r.names.n; i++)
		for (j = i + 1; j < r.names.n; j++)
			if (strcmp(r.names.v[i], r.names.v[j]) == 0) {
				fail(&r, "Duplicate capture group name");
				goto out;
			}
	for (i = 0; i < r.refs.n; i++)
		if (!strlist_contains(&r.names, r.refs.v[i])) {
			fail(&r, "Invalid named capture referenced");
			goto out;
		}
	*groups = r.groups;
	ret = 0;
out:
	*why = r.why;
	free(r.u);
	strlist_free(&r.names);
	strlist_free(&r.refs);
	return ret;
}
