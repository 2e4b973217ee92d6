/* Strict HTTP/1.x head parsing: see http_parse.h for the rules and why. */
#include <string.h>
#include <strings.h>

#include "addr.h"
#include "http_parse.h"

/* RFC 9110 tchar. */
static int
http_tchar(unsigned char c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

int
http_str_eq(struct http_str s, const char *lit)
{
	size_t n = strlen(lit);

	return s.n == n && strncasecmp(s.p, lit, n) == 0;
}

enum http_status
http_head_end(const char *buf, size_t len, size_t max, size_t *head_len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (buf[i] == '\n') {
			/* Every LF must close a CRLF. */
			if (i == 0 || buf[i - 1] != '\r')
				return HTTP_BAD;
			if (i >= 3 && buf[i - 2] == '\n' && buf[i - 3] == '\r') {
				if (i + 1 > max)
					return HTTP_TOO_LARGE;
				*head_len = i + 1;
				return HTTP_OK;
			}
		} else if (buf[i] == '\r' && i + 1 < len && buf[i + 1] != '\n')
			return HTTP_BAD;
		if (i + 1 >= max)
			return HTTP_TOO_LARGE;
	}
	return HTTP_INCOMPLETE;
}

/* Next line of the head starting at *pos; its length without CRLF. */
static struct http_str
http_next_line(const char *buf, size_t end, size_t *pos)
{
	struct http_str s = { buf + *pos, 0 };
	size_t i = *pos;

	while (i + 1 < end && !(buf[i] == '\r' && buf[i + 1] == '\n'))
		i++;
	s.n = i - *pos;
	*pos = i + 2;
	return s;
}

static enum http_status
http_parse_version(struct http_str v, int *minor)
{
	if (v.n != 8 || memcmp(v.p, "HTTP/1.", 7) != 0 || (v.p[7] != '0' && v.p[7] != '1'))
		return HTTP_BAD;
	*minor = v.p[7] - '0';
	return HTTP_OK;
}

static enum http_status
http_parse_fields(const char *buf, size_t pos, size_t end, struct http_head *h)
{
	for (;;) {
		struct http_str line = http_next_line(buf, end, &pos);
		struct http_field *f;
		size_t i = 0, vs, ve;

		if (line.n == 0)
			return HTTP_OK; /* the empty line closing the head */
		/* obs-fold: a continuation line is refused, not unfolded. */
		if (line.p[0] == ' ' || line.p[0] == '\t')
			return HTTP_BAD;
		while (i < line.n && http_tchar((unsigned char)line.p[i]))
			i++;
		if (i == 0 || i >= line.n || line.p[i] != ':')
			return HTTP_BAD;
		if (h->nfields == HTTP_HEADERS_MAX)
			return HTTP_TOO_LARGE;
		f = &h->fields[h->nfields++];
		f->name.p = line.p;
		f->name.n = i;
		vs = i + 1;
		while (vs < line.n && (line.p[vs] == ' ' || line.p[vs] == '\t'))
			vs++;
		ve = line.n;
		while (ve > vs && (line.p[ve - 1] == ' ' || line.p[ve - 1] == '\t'))
			ve--;
		for (i = vs; i < ve; i++) {
			unsigned char c = (unsigned char)line.p[i];

			if ((c < 0x20 && c != '\t') || c == 0x7f)
				return HTTP_BAD;
		}
		f->value.p = line.p + vs;
		f->value.n = ve - vs;
		if (pos >= end)
			return HTTP_BAD;
	}
}

size_t
http_field_count(const struct http_head *h, const char *name, size_t *first)
{
	size_t i, n = 0;

	for (i = 0; i < h->nfields; i++)
		if (http_str_eq(h->fields[i].name, name)) {
			if (n++ == 0 && first != NULL)
				*first = i;
		}
	return n;
}

/* Does a comma-separated list value contain token (case-insensitive)? */
static int
http_list_has(struct http_str v, struct http_str tok)
{
	size_t i = 0;

	while (i < v.n) {
		size_t s, e;

		while (i < v.n && (v.p[i] == ' ' || v.p[i] == '\t' || v.p[i] == ','))
			i++;
		s = i;
		while (i < v.n && v.p[i] != ',')
			i++;
		e = i;
		while (e > s && (v.p[e - 1] == ' ' || v.p[e - 1] == '\t'))
			e--;
		if (e > s && e - s == tok.n && strncasecmp(v.p + s, tok.p, tok.n) == 0)
			return 1;
	}
	return 0;
}

int
http_field_is_hop(const struct http_head *h, struct http_str name)
{
	static const char *const fixed[] = { "connection", "keep-alive", "proxy-authenticate",
		"proxy-authorization", "proxy-connection", "te", "trailer", "transfer-encoding",
		"upgrade" };
	size_t i;

	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (http_str_eq(name, fixed[i]))
			return 1;
	/* The fields that frame the message and name its authority are never the sender's
	 * to drop: a Connection field listing Content-Length would have the body framed by
	 * it here and sent on unframed, to be read as a request of its own. */
	if (http_str_eq(name, "content-length") || http_str_eq(name, "host"))
		return 0;
	for (i = 0; i < h->nfields; i++)
		if (http_str_eq(h->fields[i].name, "connection") &&
		    http_list_has(h->fields[i].value, name))
			return 1;
	return 0;
}

static int
http_connection_has(const struct http_head *h, const char *tok)
{
	struct http_str t = { tok, strlen(tok) };
	size_t i;

	for (i = 0; i < h->nfields; i++)
		if (http_str_eq(h->fields[i].name, "connection") &&
		    http_list_has(h->fields[i].value, t))
			return 1;
	return 0;
}

/* Content-Length and Transfer-Encoding, refusing every ambiguous combination. */
static enum http_status
http_parse_framing(struct http_head *h, int is_response)
{
	size_t ncl, nte, icl = 0, ite = 0, i;

	ncl = http_field_count(h, "content-length", &icl);
	nte = http_field_count(h, "transfer-encoding", &ite);
	if (ncl > 1 || nte > 1 || (ncl && nte))
		return HTTP_BAD;
	if (nte) {
		/* Only "chunked" alone: any other coding would need to be undone to find the
		 * end of the message, and HTTP/1.0 has no chunked coding at all. */
		if (!http_str_eq(h->fields[ite].value, "chunked") || h->minor == 0)
			return HTTP_BAD;
		h->framing = HTTP_BODY_CHUNKED;
		return HTTP_OK;
	}
	if (ncl) {
		struct http_str v = h->fields[icl].value;
		uint64_t n = 0;

		if (v.n == 0 || v.n > 18)
			return HTTP_BAD;
		for (i = 0; i < v.n; i++) {
			if (v.p[i] < '0' || v.p[i] > '9')
				return HTTP_BAD;
			n = n * 10 + (uint64_t)(v.p[i] - '0');
		}
		h->content_length = n;
		h->framing = n > 0 ? HTTP_BODY_LENGTH : HTTP_BODY_NONE;
		return HTTP_OK;
	}
	h->framing = is_response ? HTTP_BODY_CLOSE : HTTP_BODY_NONE;
	return HTTP_OK;
}

enum http_status
http_parse_request(const char *buf, size_t len, struct http_head *h)
{
	enum http_status st;
	struct http_str line, ver;
	size_t pos = 0, i, sp1, sp2;

	memset(h, 0, sizeof(*h));
	if ((st = http_head_end(buf, len, HTTP_HEAD_MAX, &h->head_len)) != HTTP_OK)
		return st == HTTP_INCOMPLETE ? HTTP_INCOMPLETE : st;
	line = http_next_line(buf, h->head_len, &pos);
	for (i = 0; i < line.n && http_tchar((unsigned char)line.p[i]); i++)
		;
	if (i == 0 || i >= line.n || line.p[i] != ' ')
		return HTTP_BAD;
	sp1 = i;
	for (i = sp1 + 1; i < line.n; i++) {
		unsigned char c = (unsigned char)line.p[i];

		if (c == ' ')
			break;
		if (c <= 0x20 || c >= 0x7f)
			return HTTP_BAD;
	}
	if (i == sp1 + 1 || i >= line.n)
		return HTTP_BAD;
	sp2 = i;
	h->method.p = line.p;
	h->method.n = sp1;
	h->target.p = line.p + sp1 + 1;
	h->target.n = sp2 - sp1 - 1;
	ver.p = line.p + sp2 + 1;
	ver.n = line.n - sp2 - 1;
	if (http_parse_version(ver, &h->minor) != HTTP_OK)
		return HTTP_BAD;
	if ((st = http_parse_fields(buf, pos, h->head_len, h)) != HTTP_OK)
		return st;
	/* A request with two Host fields names two authorities (RFC 9112 3.2). */
	if (http_field_count(h, "host", NULL) > 1)
		return HTTP_BAD;
	if ((st = http_parse_framing(h, 0)) != HTTP_OK)
		return st;
	h->keep_alive = h->minor == 1 ? !http_connection_has(h, "close")
				      : http_connection_has(h, "keep-alive");
	return HTTP_OK;
}

enum http_status
http_parse_response(const char *buf, size_t len, int head_request, struct http_head *h)
{
	enum http_status st;
	struct http_str line;
	size_t pos = 0, i;

	memset(h, 0, sizeof(*h));
	if ((st = http_head_end(buf, len, HTTP_HEAD_MAX, &h->head_len)) != HTTP_OK)
		return st;
	line = http_next_line(buf, h->head_len, &pos);
	if (line.n < 12 ||
	    http_parse_version((struct http_str){ line.p, 8 }, &h->minor) != HTTP_OK ||
	    line.p[8] != ' ')
		return HTTP_BAD;
	for (i = 9; i < 12; i++)
		if (line.p[i] < '0' || line.p[i] > '9')
			return HTTP_BAD;
	h->status = (line.p[9] - '0') * 100 + (line.p[10] - '0') * 10 + (line.p[11] - '0');
	if (h->status < 100 || (line.n > 12 && line.p[12] != ' '))
		return HTTP_BAD;
	for (i = 12; i < line.n; i++) {
		unsigned char c = (unsigned char)line.p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return HTTP_BAD;
	}
	if ((st = http_parse_fields(buf, pos, h->head_len, h)) != HTTP_OK)
		return st;
	if ((st = http_parse_framing(h, 1)) != HTTP_OK)
		return st;
	if (head_request || (h->status >= 100 && h->status < 200) || h->status == 204 ||
	    h->status == 304)
		h->framing = HTTP_BODY_NONE;
	h->keep_alive = h->minor == 1 ? !http_connection_has(h, "close")
				      : http_connection_has(h, "keep-alive");
	return HTTP_OK;
}

#define HTTP_CHUNK_LINE_MAX 4096

/* Where a line's text (at its CR) or one byte of a line end takes the chunk parser. */
static const enum http_chunk_state chunk_after[] = {
	[HTTP_CH_EXT] = HTTP_CH_SIZE_LF,
	[HTTP_CH_DATA_CR] = HTTP_CH_DATA_LF,
	[HTTP_CH_DATA_LF] = HTTP_CH_SIZE,
	[HTTP_CH_TRAILER_LF] = HTTP_CH_DONE,
	[HTTP_CH_TRAILER_LINE] = HTTP_CH_TRAILER_LINE_LF,
	[HTTP_CH_TRAILER_LINE_LF] = HTTP_CH_TRAILER,
};

long
http_chunked_feed(
    struct http_chunked *c, const char *p, size_t n, http_chunk_data_cb cb, void *arg)
{
	size_t i = 0;

	while (i < n && c->st != HTTP_CH_DONE) {
		unsigned char ch = (unsigned char)p[i];
		int v;

		switch (c->st) {
		case HTTP_CH_SIZE:
			if ((v = hex_digit_value(ch)) >= 0) {
				/* 15 hex digits: far beyond any real chunk, never overflows. */
				if (++c->ndigits > 15)
					return -1;
				c->left = c->left * 16 + (uint64_t)v;
			} else if (c->ndigits > 0 && (ch == ';' || ch == ' ' || ch == '\t')) {
				c->st = HTTP_CH_EXT;
				c->line = 0;
			} else if (c->ndigits > 0 && ch == '\r')
				c->st = HTTP_CH_SIZE_LF;
			else
				return -1;
			i++;
			break;
		case HTTP_CH_EXT:
		case HTTP_CH_TRAILER_LINE:
			/* A chunk extension or a trailer field: text to its CR. */
			if (ch == '\r')
				c->st = chunk_after[c->st];
			else if ((ch < 0x20 && ch != '\t') || ch == 0x7f ||
			    ++c->line > HTTP_CHUNK_LINE_MAX)
				return -1;
			i++;
			break;
		case HTTP_CH_SIZE_LF:
			if (ch != '\n')
				return -1;
			i++;
			c->ndigits = 0;
			c->st = c->left == 0 ? HTTP_CH_TRAILER : HTTP_CH_DATA;
			break;
		case HTTP_CH_DATA: {
			size_t take = n - i < c->left ? n - i : (size_t)c->left;

			cb(arg, p + i, take);
			i += take;
			c->left -= take;
			if (c->left == 0)
				c->st = HTTP_CH_DATA_CR;
			break;
		}
		case HTTP_CH_DATA_CR:
		case HTTP_CH_DATA_LF:
		case HTTP_CH_TRAILER_LF:
		case HTTP_CH_TRAILER_LINE_LF:
			if (ch != (c->st == HTTP_CH_DATA_CR ? '\r' : '\n'))
				return -1;
			c->st = chunk_after[c->st];
			i++;
			break;
		case HTTP_CH_TRAILER:
			/* Start of a trailer line, or the final CRLF. */
			if (ch == '\r')
				c->st = HTTP_CH_TRAILER_LF;
			else if (ch == ' ' || ch == '\t' || !http_tchar(ch))
				return -1;
			else {
				c->st = HTTP_CH_TRAILER_LINE;
				c->line = 1;
			}
			i++;
			break;
		case HTTP_CH_DONE:
			break;
		}
	}
	return (long)i;
}

int
http_chunked_done(const struct http_chunked *c)
{
	return c->st == HTTP_CH_DONE;
}

int
http_tunnel_target(struct http_str t, struct http_str *path, struct http_str *auth)
{
	const char *p;

	auth->p = path->p = NULL;
	auth->n = path->n = 0;
	if (t.n == 0 || memchr(t.p, '#', t.n) != NULL)
		return -1;
	if (t.p[0] == '/' || (t.n == 1 && t.p[0] == '*')) {
		*path = t;
		return 0;
	}
	if (t.n < 9 || strncasecmp(t.p, "https://", 8) != 0)
		return -1;
	for (p = t.p + 8; p < t.p + t.n && *p != '/' && *p != '?'; p++)
		if (*p == '@' || *p == '\\')
			return -1;
	auth->p = t.p + 8;
	auth->n = (size_t)(p - auth->p);
	if (auth->n == 0)
		return -1;
	path->p = p;
	path->n = (size_t)(t.p + t.n - p);
	return 0;
}
