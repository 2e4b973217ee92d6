/* Seatbelt profiles read back, and sandbox denies in `log stream` output: see sbpl.h. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sbpl.h"
#include "addr.h"
#include "buf.h"
#include "util.h"

enum sx_kind {
	SX_LIST,
	SX_SYM,
	SX_STR,
	SX_RE
};

struct sx {
	enum sx_kind kind;
	char *s;          /* SX_SYM, SX_STR (decoded), SX_RE (as written) */
	struct sx **kids; /* SX_LIST */
	size_t n;
	int line;
};

struct reader {
	const char *p, *end;
	int line;
	struct diags *errs;
	int bad;
};

static const char *const known_ops[] = { "default", "file*", "file-read*", "file-read-data",
	"file-read-metadata", "file-read-xattr", "file-write*", "file-write-data",
	"file-write-create", "file-write-unlink", "file-write-mode", "file-write-owner",
	"file-write-xattr", "file-ioctl", "file-link", "process-exec", "process-exec*",
	"process-fork", "process-info*", "signal", "mach-lookup", "mach-priv-task-port",
	"ipc-posix-shm", "ipc-posix-sem", "iokit-open", "iokit-get-properties", "sysctl-read",
	"sysctl-write", "system-socket", "network*", "network-bind", "network-inbound",
	"network-outbound", "user-preference-read", "distributed-notification-post",
	"appleevent-send", "lsopen", "pseudo-tty", NULL };

/* Filters that take one string. */
static const char *const string_filters[] = { "literal", "subpath", "prefix", "global-name",
	"global-name-prefix", "sysctl-name", "sysctl-name-prefix", "iokit-registry-entry-class",
	"iokit-user-client-class", NULL };

static bool
in_list(const char *const *l, const char *s)
{
	for (; *l != NULL; l++)
		if (strcmp(*l, s) == 0)
			return true;
	return false;
}

static void
rd_err(struct reader *r, int line, const char *what)
{
	if (r->bad++ < 50)
		diags_add(r->errs, "line %d: %s", line, what);
}

static void
sx_free(struct sx *x)
{
	size_t i;

	if (x == NULL)
		return;
	for (i = 0; i < x->n; i++)
		sx_free(x->kids[i]);
	free(x->kids);
	free(x->s);
	free(x);
}

static void
skip_space(struct reader *r)
{
	while (r->p < r->end) {
		if (*r->p == '\n') {
			r->line++;
			r->p++;
		} else if (*r->p == ' ' || *r->p == '\t' || *r->p == '\r')
			r->p++;
		else if (*r->p == ';') {
			while (r->p < r->end && *r->p != '\n')
				r->p++;
		} else
			break;
	}
}

static size_t
put_utf8(char *o, uint32_t c)
{
	if (c < 0x80) {
		o[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		o[0] = (char)(0xc0 | (c >> 6));
		o[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	o[0] = (char)(0xe0 | (c >> 12));
	o[1] = (char)(0x80 | ((c >> 6) & 0x3f));
	o[2] = (char)(0x80 | (c & 0x3f));
	return 3;
}

/* A "..." string, JSON escapes decoded. */
static struct sx *
read_string(struct reader *r)
{
	const char *start = ++r->p;
	char *out = xmalloc((size_t)(r->end - r->p) + 1);
	size_t o = 0;
	struct sx *x;
	int line = r->line;

	while (r->p < r->end && *r->p != '"') {
		unsigned char c = (unsigned char)*r->p;

		if (c < 0x20) {
			rd_err(r, r->line, "a control character inside a string");
			goto fail;
		}
		if (c != '\\') {
			out[o++] = (char)c;
			r->p++;
			continue;
		}
		if (++r->p >= r->end)
			break;
		switch (*r->p) {
		case '"':
		case '\\':
		case '/':
			out[o++] = *r->p;
			break;
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't':
			out[o++] = (char)util_escape_value(*r->p, "bfnrt");
			break;
		case 'u': {
			uint32_t v = 0;
			int k, h;

			for (k = 1; k <= 4; k++) {
				if (r->p + k >= r->end ||
				    (h = hex_digit_value((unsigned char)r->p[k])) < 0) {
					rd_err(r, r->line, "a bad \\u escape in a string");
					goto fail;
				}
				v = v * 16 + (uint32_t)h;
			}
			if (v == 0 || (v >= 0xd800 && v <= 0xdfff)) {
				rd_err(r, r->line, "a \\u escape that is no character");
				goto fail;
			}
			o += put_utf8(out + o, v);
			r->p += 4;
			break;
		}
		default:
			rd_err(r, r->line, "an unknown escape in a string");
			goto fail;
		}
		r->p++;
	}
	if (r->p >= r->end) {
		rd_err(r, line, "a string that does not end");
		goto fail;
	}
	if (r->p - start > SBPL_STRING_MAX) {
		rd_err(r, line, "a string longer than sandbox-exec reads (1025 bytes)");
		goto fail;
	}
	r->p++;
	out[o] = '\0';
	x = xcalloc(1, sizeof(*x));
	x->kind = SX_STR;
	x->s = out;
	x->line = line;
	return x;
fail:
	free(out);
	return NULL;
}

/* A #"..." regular expression, taken as written (no escapes). */
static struct sx *
read_regex(struct reader *r)
{
	const char *start = r->p += 2;
	struct sx *x;

	while (r->p < r->end && *r->p != '"' && *r->p != '\n')
		r->p++;
	if (r->p >= r->end || *r->p != '"') {
		rd_err(r, r->line, "a #\"...\" expression that does not end on its line");
		return NULL;
	}
	if (r->p - start > SBPL_STRING_MAX) {
		rd_err(r, r->line, "a #\"...\" expression longer than sandbox-exec reads");
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->kind = SX_RE;
	x->s = xstrndup(start, (size_t)(r->p - start));
	x->line = r->line;
	r->p++;
	return x;
}

static struct sx *
read_sx(struct reader *r, int depth)
{
	struct sx *x;
	const char *start;

	skip_space(r);
	if (r->p >= r->end) {
		rd_err(r, r->line, "the text ends inside an expression");
		return NULL;
	}
	if (*r->p == ')') {
		rd_err(r, r->line, "a \")\" that closes nothing");
		return NULL;
	}
	if (*r->p == '"')
		return read_string(r);
	if (*r->p == '#' && r->p + 1 < r->end && r->p[1] == '"')
		return read_regex(r);
	if (*r->p != '(') {
		start = r->p;
		while (r->p < r->end && strchr(" \t\r\n();\"", *r->p) == NULL)
			r->p++;
		x = xcalloc(1, sizeof(*x));
		x->kind = SX_SYM;
		x->s = xstrndup(start, (size_t)(r->p - start));
		x->line = r->line;
		return x;
	}
	if (depth >= SBPL_DEPTH_MAX) {
		rd_err(r, r->line, "expressions nested too deep");
		return NULL;
	}
	x = xcalloc(1, sizeof(*x));
	x->kind = SX_LIST;
	x->line = r->line;
	r->p++;
	for (;;) {
		struct sx *k;

		skip_space(r);
		if (r->p >= r->end) {
			rd_err(r, x->line, "a \"(\" that is never closed");
			sx_free(x);
			return NULL;
		}
		if (*r->p == ')') {
			r->p++;
			return x;
		}
		if ((k = read_sx(r, depth + 1)) == NULL) {
			sx_free(x);
			return NULL;
		}
		x->kids = xreallocarray(x->kids, x->n + 1, sizeof(*x->kids));
		x->kids[x->n++] = k;
	}
}

/* --- canonical text ------------------------------------------------------------------ */

static void
sx_quoted(struct buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";

	buf_adds(b, "\"");
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;
		char u[7];

		if (c == '"' || c == '\\') {
			u[0] = '\\';
			u[1] = (char)c;
			buf_add(b, u, 2);
		} else if (c < 0x20) {
			memcpy(u, "\\u00", 4);
			u[4] = hex[c >> 4];
			u[5] = hex[c & 15];
			buf_add(b, u, 6);
		} else
			buf_add(b, s, 1);
	}
	buf_adds(b, "\"");
}

static void
sx_print(struct buf *b, const struct sx *x)
{
	size_t i;

	switch (x->kind) {
	case SX_SYM:
		buf_adds(b, x->s);
		break;
	case SX_STR:
		sx_quoted(b, x->s);
		break;
	case SX_RE:
		buf_adds(b, "#\"");
		buf_adds(b, x->s);
		buf_adds(b, "\"");
		break;
	case SX_LIST:
		buf_adds(b, "(");
		for (i = 0; i < x->n; i++) {
			if (i > 0)
				buf_adds(b, " ");
			sx_print(b, x->kids[i]);
		}
		buf_adds(b, ")");
		break;
	}
}

/* --- what a rule may hold ------------------------------------------------------------ */

static const char *
head(const struct sx *x)
{
	return x->kind == SX_LIST && x->n > 0 && x->kids[0]->kind == SX_SYM ? x->kids[0]->s
									    : NULL;
}

/* "localhost:3128", "*:*": Seatbelt takes only these two hosts, and a port or "*". */
static bool
ip_ok(const char *s)
{
	const char *colon = strrchr(s, ':'), *p;

	if (colon == NULL)
		return false;
	if (!((colon - s == 9 && strncmp(s, "localhost", 9) == 0) ||
		(colon - s == 1 && s[0] == '*')))
		return false;
	p = colon + 1;
	if (strcmp(p, "*") == 0)
		return true;
	if (*p == '\0' || strlen(p) > 5 || *p == '0')
		return false;
	for (; *p != '\0'; p++)
		if (*p < '0' || *p > '9')
			return false;
	return atoi(colon + 1) <= 65535;
}

static bool check_filter(struct reader *r, const struct sx *f, int depth);

static bool
one_arg(const struct sx *f, enum sx_kind a, enum sx_kind b)
{
	return f->n == 2 && (f->kids[1]->kind == a || f->kids[1]->kind == b);
}

static bool
check_filter(struct reader *r, const struct sx *f, int depth)
{
	const char *h = head(f);
	size_t i;

	if (h == NULL) {
		rd_err(r, f->line, "a filter must be a list that starts with its name");
		return false;
	}
	if (in_list(string_filters, h)) {
		if (!one_arg(f, SX_STR, SX_STR))
			goto arg;
		return true;
	}
	if (strcmp(h, "regex") == 0 || strcmp(h, "path-regex") == 0) {
		if (!one_arg(f, SX_STR, SX_RE))
			goto arg;
		return true;
	}
	if (strcmp(h, "target") == 0 || strcmp(h, "vnode-type") == 0 ||
	    strcmp(h, "socket-domain") == 0 || strcmp(h, "socket-protocol") == 0) {
		if (!one_arg(f, SX_SYM, SX_SYM))
			goto arg;
		return true;
	}
	if (strcmp(h, "require-all") == 0 || strcmp(h, "require-any") == 0 ||
	    strcmp(h, "require-not") == 0) {
		if (f->n < 2 || (strcmp(h, "require-not") == 0 && f->n != 2))
			goto arg;
		for (i = 1; i < f->n; i++)
			if (!check_filter(r, f->kids[i], depth + 1))
				return false;
		return true;
	}
	if (strcmp(h, "local") == 0 || strcmp(h, "remote") == 0) {
		if (f->n != 3 || f->kids[1]->kind != SX_SYM)
			goto arg;
		if (strcmp(f->kids[1]->s, "ip") == 0) {
			if (f->kids[2]->kind != SX_STR || !ip_ok(f->kids[2]->s)) {
				rd_err(r, f->line,
				    "an ip address must be \"localhost:PORT\" or "
				    "\"*:PORT\" (PORT a number or *)");
				return false;
			}
			return true;
		}
		if (strcmp(f->kids[1]->s, "unix-socket") == 0) {
			const char *k = head(f->kids[2]);

			if (k == NULL ||
			    !(strcmp(k, "path-regex") == 0 || strcmp(k, "subpath") == 0 ||
				strcmp(k, "literal") == 0))
				goto arg;
			return check_filter(r, f->kids[2], depth + 1);
		}
		goto arg;
	}
	{
		char *m = xasprintf("an unknown filter \"%s\"", h);

		rd_err(r, f->line, m);
		free(m);
	}
	return false;
arg : {
	char *m = xasprintf("wrong arguments to the filter \"%s\"", h);

	rd_err(r, f->line, m);
	free(m);
}
	return false;
}

static void
rule_free(struct sbpl_rule *ru)
{
	free(ru->action);
	strlist_free(&ru->ops);
	strlist_free(&ru->filters);
	free(ru->message);
}

static bool
take_rule(struct reader *r, const struct sx *x, struct sbpl_rule *ru)
{
	size_t i = 1;

	memset(ru, 0, sizeof(*ru));
	ru->action = xstrdup(x->kids[0]->s);
	for (; i < x->n && x->kids[i]->kind == SX_SYM; i++) {
		if (!in_list(known_ops, x->kids[i]->s)) {
			char *m = xasprintf("an unknown operation \"%s\"", x->kids[i]->s);

			rd_err(r, x->kids[i]->line, m);
			free(m);
			goto fail;
		}
		strlist_push(&ru->ops, x->kids[i]->s);
	}
	if (ru->ops.n == 0) {
		rd_err(r, x->line, "a rule without an operation");
		goto fail;
	}
	for (; i < x->n; i++) {
		const struct sx *f = x->kids[i];
		const char *h = head(f);
		struct buf b = { 0 };

		if (h != NULL && strcmp(h, "with") == 0) {
			if (f->n != 3 || f->kids[1]->kind != SX_SYM ||
			    strcmp(f->kids[1]->s, "message") != 0 ||
			    f->kids[2]->kind != SX_STR || ru->message != NULL ||
			    i != x->n - 1) {
				rd_err(r, f->line,
				    "a modifier other than one (with message "
				    "\"...\") at the end of its rule");
				goto fail;
			}
			ru->message = xstrdup(f->kids[2]->s);
			continue;
		}
		if (f->kind != SX_LIST) {
			rd_err(r, f->line, "an operation after a filter");
			goto fail;
		}
		if (!check_filter(r, f, 0))
			goto fail;
		sx_print(&b, f);
		strlist_push_owned(&ru->filters, buf_steal(&b));
	}
	return true;
fail:
	rule_free(ru);
	return false;
}

int
sbpl_parse(const char *text, size_t len, struct sbpl_profile *out, struct diags *errs)
{
	struct reader r = { text, text + len, 1, errs, 0 };
	bool version = false;

	memset(out, 0, sizeof(*out));
	if (memchr(text, '\0', len) != NULL) {
		diags_add(errs, "line 1: a NUL byte in the profile");
		return -1;
	}
	for (;;) {
		struct sx *x;
		const char *h;

		skip_space(&r);
		if (r.p >= r.end)
			break;
		if ((x = read_sx(&r, 0)) == NULL)
			break;
		h = head(x);
		if (h == NULL)
			rd_err(&r, x->line, "a top-level form must be (version 1) or a rule");
		else if (strcmp(h, "version") == 0) {
			if (version || out->n > 0 || x->n != 2 || x->kids[1]->kind != SX_SYM ||
			    strcmp(x->kids[1]->s, "1") != 0)
				rd_err(&r, x->line, "(version 1) must come once, first");
			version = true;
		} else if (strcmp(h, "allow") == 0 || strcmp(h, "deny") == 0) {
			struct sbpl_rule ru;

			if (!version)
				rd_err(&r, x->line, "a rule before (version 1)");
			if (take_rule(&r, x, &ru)) {
				out->rules = xreallocarray(
				    out->rules, out->n + 1, sizeof(*out->rules));
				out->rules[out->n++] = ru;
			}
		} else {
			char *m = xasprintf("an unknown top-level form \"%s\"", h);

			rd_err(&r, x->line, m);
			free(m);
		}
		sx_free(x);
	}
	if (r.bad == 0 && !version)
		rd_err(&r, r.line, "no (version 1)");
	if (r.bad == 0 && out->n == 0)
		rd_err(&r, r.line, "no rules");
	if (r.bad > 0) {
		sbpl_free(out);
		return -1;
	}
	return 0;
}

void
sbpl_free(struct sbpl_profile *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		rule_free(&p->rules[i]);
	free(p->rules);
	memset(p, 0, sizeof(*p));
}

char *
sbpl_rules_text(const struct sbpl_profile *p)
{
	struct buf b = { 0 };
	size_t i, j, k;

	buf_add(&b, "", 0);
	for (i = 0; i < p->n; i++) {
		const struct sbpl_rule *ru = &p->rules[i];
		size_t nf = ru->filters.n > 0 ? ru->filters.n : 1;

		for (k = 0; k < nf; k++) {
			buf_adds(&b, ru->action);
			for (j = 0; j < ru->ops.n; j++) {
				buf_adds(&b, " ");
				buf_adds(&b, ru->ops.v[j]);
			}
			buf_adds(&b, "\t");
			if (ru->filters.n > 0)
				buf_adds(&b, ru->filters.v[k]);
			buf_adds(&b, "\n");
		}
	}
	return buf_steal(&b);
}

/* --- log stream ------------------------------------------------------------------------- */

static bool
op_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '*';
}

/* Whether the n bytes at s hold the string w. */
static bool
contains(const char *s, size_t n, const char *w)
{
	size_t k = strlen(w), i;

	for (i = 0; i + k <= n; i++)
		if (memcmp(s + i, w, k) == 0)
			return true;
	return false;
}

/* The denies macOS itself causes in every sandboxed process: not the command's doing. */
static const char *const noise[] = { "mDNSResponder", "mach-lookup com.apple.diagnosticd",
	"mach-lookup com.apple.analyticsd", NULL };

int
sbpl_log_violation(const char *line, size_t len, const char *tag, char **out)
{
	const char *end = line + len, *p, *d, *op = NULL, *op_end = NULL, *t, *t_end;
	size_t taglen = tag != NULL ? strlen(tag) : 0, i;

	*out = NULL;
	/* "Sandbox: " then "PROC(PID) deny(N) OP TARGET"; PROC may hold anything. */
	for (p = line; p + 9 <= end && memcmp(p, "Sandbox: ", 9) != 0; p++)
		;
	if (p + 9 > end)
		return 0;
	p += 9;
	for (d = p; d + 6 <= end; d++) {
		if (memcmp(d, ") deny", 6) != 0)
			continue;
		op = d + 6;
		if (op < end && *op == '(') {
			const char *q = op + 1;

			while (q < end && *q >= '0' && *q <= '9')
				q++;
			if (q == op + 1 || q >= end || *q != ')')
				continue;
			op = q + 1;
		}
		if (op >= end || *op != ' ')
			continue;
		op++;
		for (op_end = op; op_end < end && op_char(*op_end); op_end++)
			;
		if (op_end == op || (op_end < end && *op_end != ' '))
			continue;
		break;
	}
	if (d + 6 > end)
		return 0;
	t = op_end;
	while (t < end && *t == ' ')
		t++;
	t_end = end;
	while (t_end > t && (t_end[-1] == ' ' || t_end[-1] == '\t' || t_end[-1] == '\r'))
		t_end--;
	if (taglen > 0 && (size_t)(t_end - t) >= taglen &&
	    memcmp(t_end - taglen, tag, taglen) == 0) {
		t_end -= taglen;
		while (t_end > t && t_end[-1] == ' ')
			t_end--;
	}
	for (i = 0; noise[i] != NULL; i++)
		if (contains(p, (size_t)(end - p), noise[i]))
			return 0;
	if (t == t_end)
		*out = xasprintf("deny %.*s", (int)(op_end - op), op);
	else
		*out = xasprintf("deny %.*s %.*s", (int)(op_end - op), op, (int)(t_end - t), t);
	return 1;
}
