/*
 * A strict JSON reader (RFC 8259) for what srt-win is handed: the plan on stdin and its
 * own records. Text must be UTF-8; strings may not hold NUL (a Windows name cannot);
 * nesting is bounded; duplicate keys are refused (a plan must not be ambiguous). Bytes
 * come from other programs, so everything is bounds-checked and fuzzed
 * (tests/fuzz/fuzz_winjson.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"
#include "utf8.h"

struct jp {
	const unsigned char *p;
	size_t len, pos;
	char *err;
	size_t errlen;
	int failed;
};

static void
jp_fail(struct jp *j, const char *what)
{
	if (!j->failed)
		snprintf(j->err, j->errlen, "%s at byte %zu", what, j->pos);
	j->failed = 1;
}

static void
skip_ws(struct jp *j)
{
	while (j->pos < j->len && (j->p[j->pos] == ' ' || j->p[j->pos] == '\t' ||
	    j->p[j->pos] == '\n' || j->p[j->pos] == '\r'))
		j->pos++;
}

static long
hex4(struct jp *j)
{
	long v = 0;

	if (j->len - j->pos < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		unsigned char c = j->p[j->pos + (size_t)i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			v |= (c | 0x20) - 'a' + 10;
		else
			return -1;
	}
	j->pos += 4;
	return v;
}

/* At the opening quote; returns the string, or NULL. */
static char *
parse_string(struct jp *j)
{
	struct buf b = { 0 };
	long v, lo;
	size_t n;
	char u[4];

	j->pos++;
	buf_add(&b, "", 0);
	for (;;) {
		if (j->pos >= j->len) {
			jp_fail(j, "unterminated string");
			goto fail;
		}
		unsigned char c = j->p[j->pos];

		if (c == '"') {
			j->pos++;
			return buf_steal(&b);
		}
		if (c < 0x20) {
			jp_fail(j, "control character in a string");
			goto fail;
		}
		if (c != '\\') {
			n = utf8_decode(j->p + j->pos, j->len - j->pos, &v);
			if (v == UTF8_BAD) {
				jp_fail(j, "invalid UTF-8");
				goto fail;
			}
			buf_add(&b, (const char *)j->p + j->pos, n);
			j->pos += n;
			continue;
		}
		if (++j->pos >= j->len) {
			jp_fail(j, "unterminated string");
			goto fail;
		}
		c = j->p[j->pos++];
		switch (c) {
		case '"': buf_add(&b, "\"", 1); break;
		case '\\': buf_add(&b, "\\", 1); break;
		case '/': buf_add(&b, "/", 1); break;
		case 'b': buf_add(&b, "\b", 1); break;
		case 'f': buf_add(&b, "\f", 1); break;
		case 'n': buf_add(&b, "\n", 1); break;
		case 'r': buf_add(&b, "\r", 1); break;
		case 't': buf_add(&b, "\t", 1); break;
		case 'u':
			if ((v = hex4(j)) < 0) {
				jp_fail(j, "bad \\u escape");
				goto fail;
			}
			if (v == 0 || (v >= 0xdc00 && v <= 0xdfff)) {
				jp_fail(j, "\\u0000 or a lone low surrogate");
				goto fail;
			}
			if (v >= 0xd800 && v <= 0xdbff) {
				if (j->len - j->pos < 2 || j->p[j->pos] != '\\' ||
				    j->p[j->pos + 1] != 'u') {
					jp_fail(j, "a lone high surrogate");
					goto fail;
				}
				j->pos += 2;
				if ((lo = hex4(j)) < 0xdc00 || lo > 0xdfff) {
					jp_fail(j, "a lone high surrogate");
					goto fail;
				}
				v = 0x10000 + ((v - 0xd800) << 10) + (lo - 0xdc00);
			}
			buf_add(&b, u, utf8_encode(v, u));
			break;
		default:
			jp_fail(j, "bad escape");
			goto fail;
		}
	}
fail:
	buf_free(&b);
	return NULL;
}

static int
parse_number(struct jp *j, double *out)
{
	size_t start = j->pos;
	char buf[64];

	if (j->pos < j->len && j->p[j->pos] == '-')
		j->pos++;
	if (j->pos < j->len && j->p[j->pos] == '0')
		j->pos++;
	else if (j->pos < j->len && j->p[j->pos] >= '1' && j->p[j->pos] <= '9')
		while (j->pos < j->len && j->p[j->pos] >= '0' && j->p[j->pos] <= '9')
			j->pos++;
	else
		goto bad;
	if (j->pos < j->len && j->p[j->pos] == '.') {
		j->pos++;
		if (j->pos >= j->len || j->p[j->pos] < '0' || j->p[j->pos] > '9')
			goto bad;
		while (j->pos < j->len && j->p[j->pos] >= '0' && j->p[j->pos] <= '9')
			j->pos++;
	}
	if (j->pos < j->len && (j->p[j->pos] == 'e' || j->p[j->pos] == 'E')) {
		j->pos++;
		if (j->pos < j->len && (j->p[j->pos] == '+' || j->p[j->pos] == '-'))
			j->pos++;
		if (j->pos >= j->len || j->p[j->pos] < '0' || j->p[j->pos] > '9')
			goto bad;
		while (j->pos < j->len && j->p[j->pos] >= '0' && j->p[j->pos] <= '9')
			j->pos++;
	}
	if (j->pos - start >= sizeof(buf))
		goto bad;
	memcpy(buf, j->p + start, j->pos - start);
	buf[j->pos - start] = '\0';
	*out = strtod(buf, NULL);
	if (!isfinite(*out))
		goto bad;
	return 0;
bad:
	jp_fail(j, "bad number");
	return -1;
}

static struct jval *parse_value(struct jp *j, int depth);

static int
literal(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if (j->len - j->pos < n || memcmp(j->p + j->pos, w, n) != 0) {
		jp_fail(j, "unexpected character");
		return -1;
	}
	j->pos += n;
	return 0;
}

static struct jval *
parse_container(struct jp *j, int depth, int obj)
{
	struct jval *v = xcalloc(1, sizeof(*v)), **tail = &v->child, *e;
	char *key = NULL;

	v->type = obj ? J_OBJECT : J_ARRAY;
	j->pos++;
	skip_ws(j);
	if (j->pos < j->len && j->p[j->pos] == (obj ? '}' : ']')) {
		j->pos++;
		return v;
	}
	for (;;) {
		skip_ws(j);
		if (obj) {
			if (j->pos >= j->len || j->p[j->pos] != '"') {
				jp_fail(j, "expected a key");
				goto fail;
			}
			if ((key = parse_string(j)) == NULL)
				goto fail;
			if (json_get(v, key) != NULL) {
				jp_fail(j, "duplicate key");
				goto fail;
			}
			skip_ws(j);
			if (j->pos >= j->len || j->p[j->pos] != ':') {
				jp_fail(j, "expected ':'");
				goto fail;
			}
			j->pos++;
		}
		if ((e = parse_value(j, depth + 1)) == NULL)
			goto fail;
		e->key = key;
		key = NULL;
		*tail = e;
		tail = &e->next;
		skip_ws(j);
		if (j->pos < j->len && j->p[j->pos] == ',') {
			j->pos++;
			continue;
		}
		if (j->pos < j->len && j->p[j->pos] == (obj ? '}' : ']')) {
			j->pos++;
			return v;
		}
		jp_fail(j, obj ? "expected ',' or '}'" : "expected ',' or ']'");
		goto fail;
	}
fail:
	free(key);
	json_free(v);
	return NULL;
}

static struct jval *
parse_value(struct jp *j, int depth)
{
	struct jval *v;
	unsigned char c;

	if (depth > JSON_MAX_DEPTH) {
		jp_fail(j, "nested too deeply");
		return NULL;
	}
	skip_ws(j);
	if (j->pos >= j->len) {
		jp_fail(j, "expected a value");
		return NULL;
	}
	c = j->p[j->pos];
	if (c == '{' || c == '[')
		return parse_container(j, depth, c == '{');
	v = xcalloc(1, sizeof(*v));
	if (c == '"') {
		v->type = J_STRING;
		if ((v->str = parse_string(j)) == NULL)
			goto fail;
	} else if (c == '-' || (c >= '0' && c <= '9')) {
		v->type = J_NUMBER;
		if (parse_number(j, &v->num) != 0)
			goto fail;
	} else if (c == 't') {
		v->type = J_TRUE;
		if (literal(j, "true") != 0)
			goto fail;
	} else if (c == 'f') {
		v->type = J_FALSE;
		if (literal(j, "false") != 0)
			goto fail;
	} else if (c == 'n') {
		v->type = J_NULL;
		if (literal(j, "null") != 0)
			goto fail;
	} else {
		jp_fail(j, "unexpected character");
		goto fail;
	}
	return v;
fail:
	json_free(v);
	return NULL;
}

struct jval *
json_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct jp j = { (const unsigned char *)text, len, 0, err, errlen, 0 };
	struct jval *v;

	if (errlen > 0)
		err[0] = '\0';
	if ((v = parse_value(&j, 0)) == NULL)
		return NULL;
	skip_ws(&j);
	if (j.pos != j.len) {
		jp_fail(&j, "trailing characters");
		json_free(v);
		return NULL;
	}
	return v;
}

void
json_free(struct jval *v)
{
	struct jval *next;

	for (; v != NULL; v = next) {
		next = v->next;
		json_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
	}
}

const struct jval *
json_get(const struct jval *obj, const char *key)
{
	if (obj == NULL || obj->type != J_OBJECT)
		return NULL;
	for (const struct jval *m = obj->child; m != NULL; m = m->next)
		if (m->key != NULL && strcmp(m->key, key) == 0)
			return m;
	return NULL;
}
