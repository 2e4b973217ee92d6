/*
 * A strict RFC 8259 reader (json_strict.h): a lexer and a pushdown check of the grammar,
 * with a message for every way a document can be wrong. The check alone is json_check;
 * json_tree.c builds its trees from the same walk's events, so that one tokenizer and one
 * grammar judge every JSON text srt reads itself.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "addr.h"
#include "buf.h"
#include "json_strict.h"
#include "log.h"
#include "utf8.h"

#define JSON_MAX_DEPTH JSON_STRICT_MAX_DEPTH
#define JSON_MAX_NUMBER 63 /* cJSON reads at most 63 characters of a number */

enum tok {
	TOK_EOF,
	TOK_LBRACE, /* TOK_LBRACE to TOK_COLON: the punctuation, as lex_next spells it */
	TOK_RBRACE,
	TOK_LBRACKET,
	TOK_RBRACKET,
	TOK_COMMA,
	TOK_COLON,
	TOK_STRING,
	TOK_NUMBER,
	TOK_LITERAL,
};

struct lexer {
	const unsigned char *p;
	size_t len;
	size_t pos;    /* next byte to read */
	size_t tokpos; /* first byte of the current token */
	size_t errpos;
	char err[200];
};

static int lex_error(struct lexer *, size_t, const char *, ...) SRT_PRINTF(3, 4);

static int
lex_error(struct lexer *lx, size_t pos, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(lx->err, sizeof(lx->err), fmt, ap);
	va_end(ap);
	lx->errpos = pos;
	return -1;
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool
is_alpha(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static long
hex4(const unsigned char *s, size_t n)
{
	long v = 0;

	if (n < 4)
		return -1;
	for (size_t i = 0; i < 4; i++) {
		int d = hex_digit_value(s[i]);

		if (d < 0)
			return -1;
		v = v << 4 | d;
	}
	return v;
}

static int
lex_string(struct lexer *lx)
{
	const unsigned char *p = lx->p;
	size_t i = lx->tokpos + 1, n;
	long v, lo, cp;

	for (;;) {
		if (i >= lx->len)
			return lex_error(
			    lx, lx->tokpos, "string is not terminated (missing closing '\"')");
		if (p[i] == '"') {
			lx->pos = i + 1;
			return 0;
		}
		if (p[i] < 0x20)
			return lex_error(lx, i,
			    "control character U+%04X inside a string; "
			    "write it as an escape such as \\n, \\t or \\u%04X",
			    p[i], p[i]);
		if (p[i] >= 0x80) {
			n = utf8_decode(p + i, lx->len - i, &cp);
			if (cp == UTF8_BAD)
				return lex_error(lx, i,
				    "byte 0x%02X inside a string is not valid UTF-8", p[i]);
			i += n;
			continue;
		}
		if (p[i] != '\\') {
			i++;
			continue;
		}
		if (i + 1 >= lx->len)
			return lex_error(
			    lx, lx->tokpos, "string is not terminated (missing closing '\"')");
		if (p[i + 1] != 'u') {
			if (p[i + 1] != 0 && strchr("\"\\/bfnrt", p[i + 1]) != NULL) {
				i += 2;
				continue;
			}
			return lex_error(lx, i,
			    "invalid escape sequence; JSON knows \\\" \\\\ "
			    "\\/ \\b \\f \\n \\r \\t and \\uXXXX");
		}
		if ((v = hex4(p + i + 2, lx->len - i - 2)) < 0)
			return lex_error(lx, i, "\\u must be followed by four hex digits");
		if (v == 0)
			return lex_error(lx, i,
			    "\\u0000 (a NUL character) cannot appear in a settings string");
		if (v >= 0xdc00 && v <= 0xdfff)
			return lex_error(lx, i,
			    "\\u%04lX is half of a UTF-16 surrogate pair "
			    "without its first half",
			    v);
		if (v >= 0xd800 && v <= 0xdbff) {
			if (i + 7 >= lx->len || p[i + 6] != '\\' || p[i + 7] != 'u' ||
			    (lo = hex4(p + i + 8, lx->len - i - 8)) < 0xdc00 || lo > 0xdfff)
				return lex_error(lx, i,
				    "\\u%04lX is half of a UTF-16 surrogate "
				    "pair without its second half",
				    v);
			i += 12;
			continue;
		}
		i += 6;
	}
}

static int
lex_number(struct lexer *lx)
{
	const unsigned char *p = lx->p;
	size_t i = lx->tokpos, end;
	bool bad = false;

	if (p[i] == '-')
		i++;
	if (i < lx->len && p[i] == '0')
		i++;
	else if (i < lx->len && is_digit(p[i]) && p[i] != '0')
		while (i < lx->len && is_digit(p[i]))
			i++;
	else
		bad = true;
	if (!bad && i < lx->len && p[i] == '.') {
		if (++i >= lx->len || !is_digit(p[i]))
			bad = true;
		while (i < lx->len && is_digit(p[i]))
			i++;
	}
	if (!bad && i < lx->len && (p[i] == 'e' || p[i] == 'E')) {
		i++;
		if (i < lx->len && (p[i] == '+' || p[i] == '-'))
			i++;
		if (i >= lx->len || !is_digit(p[i]))
			bad = true;
		while (i < lx->len && is_digit(p[i]))
			i++;
	}
	/* Whatever still looks like part of the number makes it malformed ("01", "1.", "2x"). */
	for (end = i; end < lx->len &&
	     (is_digit(p[end]) || is_alpha(p[end]) || p[end] == '.' || p[end] == '+' ||
		 p[end] == '-');
	     end++)
		bad = true;
	if (bad)
		return lex_error(lx, lx->tokpos,
		    "invalid number \"%.*s\"; JSON numbers look "
		    "like 3, -1, 2.5 or 1e3 (no leading zeros, no \"+\", digits on both "
		    "sides of \".\")",
		    (int)(end - lx->tokpos > 40 ? 40 : end - lx->tokpos),
		    (const char *)p + lx->tokpos);
	if (i - lx->tokpos > JSON_MAX_NUMBER)
		return lex_error(
		    lx, lx->tokpos, "number longer than %d characters", JSON_MAX_NUMBER);
	lx->pos = i;
	return 0;
}

static int
lex_word(struct lexer *lx)
{
	const unsigned char *p = lx->p;
	size_t i = lx->tokpos, n;

	while (i < lx->len && (is_alpha(p[i]) || is_digit(p[i]) || p[i] == '_'))
		i++;
	n = i - lx->tokpos;
	if ((n == 4 && memcmp(p + lx->tokpos, "true", 4) == 0) ||
	    (n == 5 && memcmp(p + lx->tokpos, "false", 5) == 0) ||
	    (n == 4 && memcmp(p + lx->tokpos, "null", 4) == 0)) {
		lx->pos = i;
		return 0;
	}
	return lex_error(lx, lx->tokpos,
	    "unexpected word \"%.*s\"; strings need double "
	    "quotes and the only bare words are true, false and null",
	    (int)(n > 40 ? 40 : n), (const char *)p + lx->tokpos);
}

static int
lex_next(struct lexer *lx, enum tok *t)
{
	static const char punct[] = "{}[],:"; /* TOK_LBRACE to TOK_COLON, in order */
	const unsigned char *p = lx->p;
	const char *q;
	unsigned char c;

	while (lx->pos < lx->len &&
	    (p[lx->pos] == ' ' || p[lx->pos] == '\t' || p[lx->pos] == '\n' ||
		p[lx->pos] == '\r'))
		lx->pos++;
	lx->tokpos = lx->pos;
	if (lx->pos >= lx->len) {
		*t = TOK_EOF;
		return 0;
	}
	c = p[lx->pos];
	if (c != '\0' && (q = strchr(punct, c)) != NULL) {
		*t = (enum tok)(TOK_LBRACE + (q - punct));
		lx->pos++;
		return 0;
	}
	if (c == '"') {
		*t = TOK_STRING;
		return lex_string(lx);
	}
	if (c == '-' || is_digit(c)) {
		*t = TOK_NUMBER;
		return lex_number(lx);
	}
	if (is_alpha(c)) {
		*t = TOK_LITERAL;
		return lex_word(lx);
	}
	if (lx->pos == 0 && lx->len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
		return lex_error(lx, 0,
		    "the file starts with a UTF-8 byte order mark; "
		    "remove it");
	if (c == '\'')
		return lex_error(lx, lx->pos, "single quotes are not JSON; use double quotes");
	if (c == '/')
		return lex_error(lx, lx->pos, "comments are not allowed in JSON");
	if (c > 0x20 && c < 0x7f)
		return lex_error(lx, lx->pos, "unexpected character '%c'", c);
	return lex_error(lx, lx->pos, "unexpected byte 0x%02X outside a string", c);
}

static const char *
tok_words(enum tok t)
{
	switch (t) {
	case TOK_EOF:
		return "the end of the file";
	case TOK_LBRACE:
		return "'{'";
	case TOK_RBRACE:
		return "'}'";
	case TOK_LBRACKET:
		return "'['";
	case TOK_RBRACKET:
		return "']'";
	case TOK_COMMA:
		return "','";
	case TOK_COLON:
		return "':'";
	case TOK_STRING:
		return "a string";
	case TOK_NUMBER:
		return "a number";
	case TOK_LITERAL:
		return "true, false or null";
	}
	return "something else";
}

/* The value of the string token just read, which lex_string has checked: its escapes
 * decoded, a surrogate pair as the one character it stands for. */
static void
string_value(const struct lexer *lx, struct buf *b)
{
	static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
	const unsigned char *p = lx->p;
	size_t i = lx->tokpos + 1, end = lx->pos - 1, start;
	long v;
	char u[4];

	while (i < end) {
		for (start = i; i < end && p[i] != '\\'; i++)
			;
		buf_add(b, p + start, i - start);
		if (i == end)
			break;
		if (p[i + 1] != 'u') {
			buf_addc(b, to[strchr(from, p[i + 1]) - from]);
			i += 2;
			continue;
		}
		v = hex4(p + i + 2, 4);
		i += 6;
		if (v >= 0xd800 && v <= 0xdbff) {
			v = 0x10000 + ((v - 0xd800) << 10) + (hex4(p + i + 2, 4) - 0xdc00);
			i += 6;
		}
		buf_add(b, u, utf8_encode(v, u));
	}
}

enum json_state {
	S_VALUE,
	S_ARR_FIRST,
	S_OBJ_FIRST,
	S_KEY,
	S_COLON,
	S_ARR_NEXT,
	S_OBJ_NEXT,
	S_END
};

struct walk {
	struct lexer lx;
	size_t max_depth;
	json_strict_event_fn fn; /* NULL: a check alone */
	void *arg;
	struct buf text;            /* the token handed to fn */
	char stack[JSON_MAX_DEPTH]; /* '{' or '[' for each open container */
	size_t depth;
};

/* Hand ev to the walk's consumer, with the current token's text; its refusal becomes
 * the walk's error, at the token. */
static int
walk_emit(struct walk *w, enum json_strict_event ev, enum tok t)
{
	char why[160];

	if (w->fn == NULL)
		return 0;
	buf_reset(&w->text);
	if (t == TOK_STRING)
		string_value(&w->lx, &w->text);
	else if (t == TOK_NUMBER || t == TOK_LITERAL)
		buf_add(&w->text, w->lx.p + w->lx.tokpos, w->lx.pos - w->lx.tokpos);
	why[0] = '\0';
	if (w->fn(w->arg, ev, buf_str(&w->text), w->text.len, why, sizeof(why)) == 0)
		return 0;
	return lex_error(&w->lx, w->lx.tokpos, "%s", why[0] != '\0' ? why : "refused");
}

/* Where a value may begin: 1 if t opens a container (now *st), 0 if t is a whole value,
 * -1 with the lexer's error if it is neither. */
static int
walk_value(struct walk *w, enum tok t, enum json_state *st)
{
	if (t == TOK_LBRACE || t == TOK_LBRACKET) {
		if (w->depth == w->max_depth) {
			lex_error(&w->lx, w->lx.tokpos, "nested more than %zu levels deep",
			    w->max_depth);
			return -1;
		}
		w->stack[w->depth++] = t == TOK_LBRACE ? '{' : '[';
		*st = t == TOK_LBRACE ? S_OBJ_FIRST : S_ARR_FIRST;
		if (walk_emit(w, t == TOK_LBRACE ? JSON_EV_OBJECT : JSON_EV_ARRAY, t) != 0)
			return -1;
		return 1;
	}
	if (t != TOK_STRING && t != TOK_NUMBER && t != TOK_LITERAL) {
		lex_error(&w->lx, w->lx.tokpos, "expected a value, found %s", tok_words(t));
		return -1;
	}
	return walk_emit(w,
	    t == TOK_STRING       ? JSON_EV_STRING
		: t == TOK_NUMBER ? JSON_EV_NUMBER
				  : JSON_EV_LITERAL,
	    t);
}

/* The container open at the top ends. */
static int
walk_close(struct walk *w)
{
	w->depth--;
	return walk_emit(w, JSON_EV_END, TOK_EOF);
}

/* After an element of an array or a member of an object: a comma, or its end. */
static int
walk_next(struct walk *w, enum tok t, enum json_state *st)
{
	int obj = *st == S_OBJ_NEXT;

	if (t == TOK_COMMA) {
		*st = obj ? S_KEY : S_VALUE;
		return 0;
	}
	if (t != (obj ? TOK_RBRACE : TOK_RBRACKET))
		return lex_error(&w->lx, w->lx.tokpos,
		    "expected ',' or '%c' after %s, "
		    "found %s",
		    obj ? '}' : ']', obj ? "an object member" : "an array element",
		    tok_words(t));
	return walk_close(w) == 0 ? 1 : -1;
}

/* One token in state *st: 1 when it completes a value, 0 when the walk goes on, 2 at the
 * end of the document, -1 on a fault. */
static int
walk_token(struct walk *w, enum tok t, enum json_state *st)
{
	struct lexer *lx = &w->lx;

	switch (*st) {
	case S_OBJ_FIRST:
		if (t == TOK_RBRACE)
			return walk_close(w) == 0 ? 1 : -1;
		/* FALLTHROUGH */
	case S_KEY:
		if (t != TOK_STRING)
			return lex_error(lx, lx->tokpos,
			    "expected a key in double quotes, "
			    "found %s",
			    tok_words(t));
		*st = S_COLON;
		return walk_emit(w, JSON_EV_KEY, t);
	case S_COLON:
		if (t != TOK_COLON)
			return lex_error(lx, lx->tokpos,
			    "expected ':' after the key, "
			    "found %s",
			    tok_words(t));
		*st = S_VALUE;
		return 0;
	case S_ARR_FIRST:
		if (t == TOK_RBRACKET)
			return walk_close(w) == 0 ? 1 : -1;
		/* FALLTHROUGH */
	case S_VALUE:
		switch (walk_value(w, t, st)) {
		case -1:
			return -1;
		case 1:
			return 0;
		}
		return 1;
	case S_ARR_NEXT:
	case S_OBJ_NEXT:
		return walk_next(w, t, st);
	case S_END:
		if (t == TOK_EOF)
			return 2;
		return lex_error(lx, lx->tokpos,
		    "unexpected %s after the end of the "
		    "document",
		    tok_words(t));
	}
	return -1;
}

int
json_strict_walk(const char *text, size_t len, size_t max_depth, json_strict_event_fn fn,
    void *arg, size_t *errpos, char *err, size_t errlen)
{
	struct walk w = { .lx = { .p = (const unsigned char *)text, .len = len },
		.max_depth = max_depth > JSON_MAX_DEPTH ? JSON_MAX_DEPTH : max_depth,
		.fn = fn,
		.arg = arg };
	enum json_state st = S_VALUE;
	enum tok t = TOK_EOF, prev = TOK_EOF;
	int r;

	for (;; prev = t) {
		if (lex_next(&w.lx, &t) == -1)
			goto fail;
		if (prev == TOK_COMMA && (t == TOK_RBRACE || t == TOK_RBRACKET)) {
			lex_error(&w.lx, w.lx.tokpos,
			    "a comma before %s is not allowed in "
			    "JSON",
			    tok_words(t));
			goto fail;
		}
		if ((r = walk_token(&w, t, &st)) == -1)
			goto fail;
		if (r == 2)
			break;
		if (r == 0)
			continue;
		/* A value is complete: what may follow depends on the enclosing container. */
		if (w.depth == 0)
			st = S_END;
		else
			st = w.stack[w.depth - 1] == '{' ? S_OBJ_NEXT : S_ARR_NEXT;
	}
	buf_free(&w.text);
	return 0;
fail:
	buf_free(&w.text);
	*errpos = w.lx.errpos;
	snprintf(err, errlen, "%s", w.lx.err);
	return -1;
}

int
json_check(const char *text, size_t len, size_t *errpos, char *err, size_t errlen)
{
	return json_strict_walk(text, len, JSON_MAX_DEPTH, NULL, NULL, errpos, err, errlen);
}

void
json_linecol(const char *text, size_t pos, size_t *line, size_t *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < pos; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if (((unsigned char)text[i] & 0xc0) != 0x80)
			(*col)++; /* columns count characters, not bytes */
	}
}
