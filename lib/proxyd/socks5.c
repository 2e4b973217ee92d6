/*
 * SOCKS5 server-side parser (RFC 1928, RFC 1929). Each message is assembled in s->buf up
 * to a "checkpoint" (the next length at which a field tells us more: the version byte,
 * a count, an address type); the checkpoint is validated as soon as it is reached, so a
 * SOCKS4 client or a bad length is refused without waiting for bytes that may never come.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "socks5.h"
#include "sys.h"

/* The message boundary or the next checkpoint of the current message; 0 when the bytes
 * so far cannot start a valid message (s->error says why, s->reply may hold a reply). */
static size_t socks5_need(struct socks5 *s);
static enum socks5_event socks5_complete(struct socks5 *s);

void
socks5_init(struct socks5 *s, const char *user, const char *pass)
{
	memset(s, 0, sizeof(*s));
	s->state = SOCKS5_ST_GREETING;
	s->error = SOCKS5_ERR_NONE;
	if (user != NULL) {
		s->user = user;
		s->userlen = strlen(user);
		s->pass = pass != NULL ? pass : "";
		s->passlen = strlen(s->pass);
	}
}

size_t
socks5_reply_build(uint8_t *out, enum socks5_rep rep)
{
	/* The bound address is never meaningful to our clients: 0.0.0.0:0 like the reference. */
	out[0] = SOCKS5_VERSION;
	out[1] = (uint8_t)rep;
	out[2] = 0x00;
	out[3] = SOCKS5_ATYP_IPV4;
	memset(out + 4, 0, 6);
	return 10;
}

static enum socks5_event
socks5_fail(struct socks5 *s, enum socks5_error e)
{
	s->state = SOCKS5_ST_FAILED;
	s->error = e;
	return SOCKS5_EV_CLOSE;
}

static size_t
socks5_need_greeting(struct socks5 *s)
{
	if (s->len < 2)
		return 2;
	if (s->buf[1] == 0) {
		s->error = SOCKS5_ERR_NO_METHODS;
		return 0;
	}
	return 2 + (size_t)s->buf[1];
}

static size_t
socks5_need_auth(struct socks5 *s)
{
	size_t ulen;

	if (s->len < 2)
		return 2;
	ulen = s->buf[1];
	if (s->len < 2 + ulen + 1)
		return 2 + ulen + 1;
	return 2 + ulen + 1 + (size_t)s->buf[2 + ulen];
}

static size_t
socks5_need_request(struct socks5 *s)
{
	if (s->len < 4)
		return 4;
	switch (s->buf[3]) {
	case SOCKS5_ATYP_IPV4:
		return 4 + 4 + 2;
	case SOCKS5_ATYP_IPV6:
		return 4 + 16 + 2;
	case SOCKS5_ATYP_DOMAIN:
		if (s->len < 5)
			return 5;
		return 5 + (size_t)s->buf[4] + 2;
	default:
		/* The length of an unknown address is unknowable: answer now and close. */
		s->error = SOCKS5_ERR_ATYP;
		s->replylen = socks5_reply_build(s->reply, SOCKS5_REP_ATYP_UNSUPPORTED);
		return 0;
	}
}

/* Bytes the message of this state takes, once its first ones are in; 0 with s->error
 * when it cannot be read. Each starts with its version, checked here. */
static size_t
socks5_need(struct socks5 *s)
{
	bool auth = s->state == SOCKS5_ST_AUTH;

	if (s->state != SOCKS5_ST_GREETING && !auth && s->state != SOCKS5_ST_REQUEST) {
		s->error = SOCKS5_ERR_STATE;
		return 0;
	}
	if (s->len < 1)
		return 1;
	if (s->buf[0] != (auth ? SOCKS5_AUTH_VERSION : SOCKS5_VERSION)) {
		s->error = auth ? SOCKS5_ERR_AUTH_VERSION : SOCKS5_ERR_VERSION;
		return 0;
	}
	switch (s->state) {
	case SOCKS5_ST_GREETING:
		return socks5_need_greeting(s);
	case SOCKS5_ST_AUTH:
		return socks5_need_auth(s);
	case SOCKS5_ST_REQUEST:
		return socks5_need_request(s);
	default:
		return 0; /* not reached */
	}
}

/* Compare without an early exit, so the time taken does not reveal a matching prefix. */
static int
socks5_secret_equal(const uint8_t *a, size_t alen, const char *b, size_t blen)
{
	volatile uint8_t diff = alen != blen;
	size_t i;

	for (i = 0; i < alen; i++)
		diff |= a[i] ^ (uint8_t)(i < blen ? b[i] : 0);
	return diff == 0;
}

static enum socks5_event
socks5_complete_greeting(struct socks5 *s)
{
	uint8_t want = s->user != NULL ? SOCKS5_METHOD_USERPASS : SOCKS5_METHOD_NONE;
	size_t i, n = s->buf[1];

	s->method = SOCKS5_METHOD_REJECT;
	for (i = 0; i < n; i++)
		if (s->buf[2 + i] == want)
			s->method = want;
	s->reply[0] = SOCKS5_VERSION;
	s->reply[1] = s->method;
	s->replylen = 2;
	if (s->method == SOCKS5_METHOD_REJECT)
		return socks5_fail(s, SOCKS5_ERR_NO_ACCEPTABLE);
	s->state = s->method == SOCKS5_METHOD_USERPASS ? SOCKS5_ST_AUTH : SOCKS5_ST_REQUEST;
	return SOCKS5_EV_REPLY;
}

static enum socks5_event
socks5_complete_auth(struct socks5 *s)
{
	size_t ulen = s->buf[1], plen = s->buf[2 + ulen];
	int uok, pok;

	/* Both compared, whatever the first answer, for the same reason as above. */
	uok = socks5_secret_equal(s->buf + 2, ulen, s->user, s->userlen);
	pok = socks5_secret_equal(s->buf + 3 + ulen, plen, s->pass, s->passlen);
	s->reply[0] = SOCKS5_AUTH_VERSION;
	s->reply[1] = uok && pok ? 0x00 : 0x01;
	s->replylen = 2;
	/* The credentials are no longer needed in our buffer. */
	memset(s->buf, 0, s->len);
	if (!(uok && pok))
		return socks5_fail(s, SOCKS5_ERR_AUTH_FAILED);
	s->state = SOCKS5_ST_REQUEST;
	return SOCKS5_EV_REPLY;
}

static enum socks5_event
socks5_complete_request(struct socks5 *s)
{
	struct socks5_request *r = &s->req;
	const uint8_t *p;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->cmd = s->buf[1];
	r->atyp = s->buf[3];
	p = s->buf + 4;
	switch (r->atyp) {
	case SOCKS5_ATYP_IPV4:
		memcpy(r->addr, p, 4);
		inet_ntop(AF_INET, r->addr, r->host, sizeof(r->host));
		p += 4;
		break;
	case SOCKS5_ATYP_IPV6:
		memcpy(r->addr, p, 16);
		inet_ntop(AF_INET6, r->addr, r->host, sizeof(r->host));
		p += 16;
		break;
	default: /* SOCKS5_ATYP_DOMAIN: socks5_need let nothing else through */
		n = *p++;
		memcpy(r->host, p, n);
		r->host[n] = '\0';
		r->hostlen = n;
		p += n;
		break;
	}
	if (r->atyp != SOCKS5_ATYP_DOMAIN)
		r->hostlen = strlen(r->host);
	r->port = (uint16_t)(p[0] << 8 | p[1]);
	if (r->cmd != SOCKS5_CMD_CONNECT) {
		s->replylen = socks5_reply_build(s->reply, SOCKS5_REP_CMD_UNSUPPORTED);
		return socks5_fail(s, SOCKS5_ERR_CMD);
	}
	s->replylen = 0;
	s->state = SOCKS5_ST_DONE;
	return SOCKS5_EV_REQUEST;
}

static enum socks5_event
socks5_complete(struct socks5 *s)
{
	enum socks5_event ev;

	switch (s->state) {
	case SOCKS5_ST_GREETING:
		ev = socks5_complete_greeting(s);
		break;
	case SOCKS5_ST_AUTH:
		ev = socks5_complete_auth(s);
		break;
	default:
		ev = socks5_complete_request(s);
		break;
	}
	s->len = 0;
	return ev;
}

enum socks5_event
socks5_feed(struct socks5 *s, const uint8_t *data, size_t len, size_t *used)
{
	size_t need, take;

	*used = 0;
	s->replylen = 0;
	for (;;) {
		need = socks5_need(s);
		if (need == 0)
			return socks5_fail(s, s->error);
		if (s->len == need)
			return socks5_complete(s);
		/* Checkpoints never exceed SOCKS5_MSG_MAX; this keeps it so if they ever did. */
		if (need > sizeof(s->buf))
			return socks5_fail(s, SOCKS5_ERR_STATE);
		if (*used == len)
			return SOCKS5_EV_MORE;
		take = need - s->len;
		if (take > len - *used)
			take = len - *used;
		memcpy(s->buf + s->len, data + *used, take);
		s->len += take;
		*used += take;
	}
}

const char *
socks5_error_str(enum socks5_error e)
{
	switch (e) {
	case SOCKS5_ERR_NONE:
		return "no error";
	case SOCKS5_ERR_VERSION:
		return "not a SOCKS5 client";
	case SOCKS5_ERR_NO_METHODS:
		return "greeting offers no methods";
	case SOCKS5_ERR_NO_ACCEPTABLE:
		return "no acceptable authentication method offered";
	case SOCKS5_ERR_AUTH_VERSION:
		return "bad username/password subnegotiation version";
	case SOCKS5_ERR_AUTH_FAILED:
		return "authentication failed";
	case SOCKS5_ERR_CMD:
		return "command not supported";
	case SOCKS5_ERR_ATYP:
		return "address type not supported";
	case SOCKS5_ERR_STATE:
		return "message out of sequence";
	}
	return "unknown error";
}

const char *
socks5_state_str(enum socks5_state st)
{
	switch (st) {
	case SOCKS5_ST_GREETING:
		return "greeting";
	case SOCKS5_ST_AUTH:
		return "auth";
	case SOCKS5_ST_REQUEST:
		return "request";
	case SOCKS5_ST_DONE:
		return "done";
	case SOCKS5_ST_FAILED:
		return "failed";
	}
	return "unknown";
}
