/*
 * Client connections: reading request heads, dispatching them, queued writes, final
 * replies, lingering close, timeouts. One connection serves requests one after the other
 * (keep-alive); bytes of a pipelined next request wait in c->in until the current exchange
 * is over.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "httpd.h"
#include "util.h"

/* ---- life cycle ------------------------------------------------------------------ */

static void conn_head_timeout(struct conn *c);

static uint64_t
conn_head_ms(const struct conn *c)
{
	return (uint64_t)proxy_options(c->px)->head_timeout_s * 1000;
}

/*
 * One timer per connection. Between requests the limit is the keep-alive idle time; once
 * a head has begun it must be complete within --head-timeout of its start however the
 * bytes trickle in (a client sending one byte a second would otherwise hold the
 * connection forever); mid-exchange the limit is a stall; after a final reply the linger
 * is bounded from the shutdown, not from the last byte read.
 */
static void
conn_timer_cb(struct evloop *loop, void *arg)
{
	struct conn *c = arg;
	uint64_t limit, now = evloop_now(loop), idle = now - c->last;

	switch (c->st) {
	case CONN_READ_HEAD:
		if (c->head_start != 0) {
			uint64_t age = now - c->head_start, head_ms = conn_head_ms(c);

			if (age >= head_ms) {
				conn_head_timeout(c);
				return;
			}
			if (idle < HTTPD_KEEPALIVE_MS) {
				uint64_t left = HTTPD_KEEPALIVE_MS - idle;

				evtimer_add(loop, &c->timer,
				    head_ms - age < left ? head_ms - age : left);
				return;
			}
		}
		limit = HTTPD_KEEPALIVE_MS;
		break;
	case CONN_LINGER:
		if (now - c->linger_start >= HTTPD_LINGER_MS) {
			conn_free(c, true);
			return;
		}
		evtimer_add(loop, &c->timer, HTTPD_LINGER_MS - (now - c->linger_start));
		return;
	case CONN_CLOSING:
		limit = HTTPD_LINGER_MS;
		break;
	case CONN_ASKING:
	case CONN_DIALING:
		/* The dial has its own connect timeout, the decider its verdict timeout. */
		evtimer_add(loop, &c->timer, HTTPD_STALL_MS);
		return;
	default:
		limit = HTTPD_STALL_MS;
		break;
	}
	if (idle >= limit) {
		log_debug("%s: idle for %llu ms: closing", c->client, (unsigned long long)idle);
		conn_free(c, true);
		return;
	}
	evtimer_add(loop, &c->timer, limit - idle);
}

void
conn_accept(struct proxy *px, int fd, const char *client)
{
	(void)conn_new(px, fd, client);
}

struct conn *
conn_new(struct proxy *px, int fd, const char *client)
{
	struct conn *c;

	c = xcalloc(1, sizeof(*c));
	c->px = px;
	c->loop = proxy_loop(px);
	c->cfd = fd;
	c->ufd = -1;
	snprintf(c->client, sizeof(c->client), "%s", client);
	c->st = CONN_READ_HEAD;
	c->last = evloop_now(c->loop);
	evtimer_init(&c->timer, conn_timer_cb, c);
	evtimer_add(c->loop, &c->timer, HTTPD_KEEPALIVE_MS);
	c->cev = EV_READ | EV_WRITE | EV_EDGE;
	if (evloop_add(c->loop, fd, c->cev, conn_io_cb, c) == -1) {
		log_warn("%s: register", client);
		conn_free(c, true);
		return NULL;
	}
	return c;
}

void
conn_refuse(struct proxy *px, int fd)
{
	static const char msg[] =
	    "HTTP/1.1 503 Service Unavailable\r\n"
	    "Content-Type: text/plain\r\nX-Proxy-Error: too-many-connections\r\n"
	    "Connection: close\r\nContent-Length: 21\r\n\r\ntoo many connections\n";

	(void)px;
	/* Best effort, never blocking: a full socket buffer just loses the courtesy. */
	(void)!sys_sock_send(fd, msg, sizeof(msg) - 1); /* non-blocking (accepted so) */
	(void)sys_shutdown_wr(fd);
}

static void
conn_close_upstream(struct conn *c)
{
	ask_cancel(&c->ask);
	if (c->dial != NULL) {
		proxy_dial_cancel(c->dial);
		c->dial = NULL;
	}
	if (c->ufd != -1) {
		evloop_forget(c->loop, c->ufd);
		conn_close_fd(c->ufd, c->utls);
	}
	conn_upstream_reset(c);
}

void
conn_upstream_reset(struct conn *c)
{
	c->ufd = -1;
	c->utls = NULL;
	c->uev = 0;
	buf_free(&c->uout);
	buf_free(&c->uin);
}

/* End the request in progress: log it and forget it. */
void
conn_request_done(struct conn *c)
{
	/* Real values (a collected body, a signature's inputs) go with the exchange. */
	forward_creds_clear(c);
	if (c->rq != NULL)
		proxy_log(c->px, c->rq);
	proxy_request_release(&c->rq, &c->pp);
	/* It may hold real values (a credential, a substituted sentinel). */
	if (c->up_head != NULL)
		explicit_bzero(c->up_head, c->up_head_len);
	free(c->up_head);
	c->up_head = NULL;
	c->up_head_len = 0;
	/* A body read ahead for a request that never went out (refused) is not the next
	 * request's. */
	buf_free(&c->body);
	c->body_ahead = false;
}

void
conn_free(struct conn *c, bool close_client)
{
	conn_close_upstream(c);
	forward_creds_clear(c);
	if (c->rq != NULL && c->rq->status < 0 && c->rq->verdict == VERDICT_ALLOW)
		proxy_request_set_reason(c->rq, "client went away", 16);
	conn_request_done(c);
	evtimer_del(c->loop, &c->timer);
	if (close_client) {
		evloop_forget(c->loop, c->cfd);
		conn_close_fd(c->cfd, c->ctls);
		c->ctls = NULL;
		proxy_conn_closed(c->px);
	}
	buf_free(&c->in);
	buf_free(&c->cout);
	term_free(c->term);
	free(c);
}

/* ---- replies --------------------------------------------------------------------- */

void
conn_reply(struct conn *c, int status, const char *phrase, const char *headers,
    const char *body, bool keep)
{
	size_t blen = body ? strlen(body) : 0;

	/* A request body not yet read would be taken for the next request: close instead. */
	if (!c->client_keep_alive || proxy_draining(c->px) || c->is_connect ||
	    (c->req_framing != HTTP_BODY_NONE && !c->req_done))
		keep = false;
	buf_addf(&c->cout, "HTTP/1.1 %d %s\r\n", status, phrase);
	if (headers != NULL)
		buf_add(&c->cout, headers, strlen(headers));
	buf_addf(&c->cout, "Content-Length: %zu\r\n", blen);
	if (!keep)
		buf_addf(&c->cout, "Connection: close\r\n");
	buf_add(&c->cout, "\r\n", 2);
	if (blen)
		buf_add(&c->cout, body, blen);
	if (c->rq != NULL) {
		c->rq->status = status;
		c->rq->down += blen;
	}
	conn_close_upstream(c);
	conn_request_done(c);
	if (keep) {
		c->st = CONN_READ_HEAD;
	} else {
		c->close_after = true;
		c->st = CONN_CLOSING;
	}
}

/* ---- dispatch -------------------------------------------------------------------- */

static void
conn_bad_head(struct conn *c, enum http_status st)
{
	struct proxy_request rq;

	/* Nothing was decided, but the refusal is still worth a log line. */
	proxy_request_init(c->px, &rq, "http", c->client);
	rq.verdict = VERDICT_DENY;
	rq.status = st == HTTP_TOO_LARGE ? 431 : 400;
	proxy_request_set_reason(&rq,
	    st == HTTP_TOO_LARGE ? "request head too large" : "malformed request",
	    st == HTTP_TOO_LARGE ? 22 : 17);
	proxy_log(c->px, &rq);
	proxy_request_clear(&rq);
	c->client_keep_alive = false;
	c->req_framing = HTTP_BODY_NONE;
	c->head_start = 0;
	if (st == HTTP_TOO_LARGE)
		conn_reply(c, 431, "Request Header Fields Too Large", NULL, NULL, false);
	else
		conn_reply(c, 400, "Bad Request", NULL, NULL, false);
}

/* The head did not arrive in time: 408, logged like the other refusals of a head. */
static void
conn_head_timeout(struct conn *c)
{
	struct proxy_request rq;
	static const char why[] = "request head timed out";

	log_debug("%s: %s", c->client, why);
	proxy_request_init(c->px, &rq, "http", c->client);
	rq.start_ms = c->head_start;
	rq.verdict = VERDICT_DENY;
	rq.status = 408;
	proxy_request_set_reason(&rq, why, sizeof(why) - 1);
	proxy_log(c->px, &rq);
	proxy_request_clear(&rq);
	c->client_keep_alive = false;
	c->req_framing = HTTP_BODY_NONE;
	c->head_start = 0;
	/* What was read of the head is dropped: it will never be served. */
	buf_free(&c->in);
	conn_reply(c, 408, "Request Timeout", NULL, NULL, false);
	conn_run(c);
}

static void
conn_dispatch(struct conn *c)
{
	struct http_head *h;
	enum http_status st;

	h = xmalloc(sizeof(*h));
	st = http_parse_request(c->in.p + c->in.off, c->in.len, h);
	if (st == HTTP_INCOMPLETE) {
		free(h);
		return;
	}
	if (st != HTTP_OK) {
		free(h);
		conn_bad_head(c, st);
		return;
	}
	/* The head is used up now; h still points into c->in, which stays put until the
	 * next buf_add on it. */
	buf_consume(&c->in, h->head_len);
	c->head_start = 0;
	c->client_minor = h->minor;
	c->client_keep_alive = h->keep_alive != 0;
	c->req_framing = h->framing;
	c->req_left = h->content_length;
	memset(&c->req_ch, 0, sizeof(c->req_ch));
	c->req_done = h->framing == HTTP_BODY_NONE;
	c->resp_head_done = c->resp_done = c->resp_started = false;
	/* Inside a terminated tunnel a CONNECT is a request like another (term_request
	 * refuses it). */
	c->is_connect = c->term == NULL && http_str_eq(h->method, "CONNECT");
	c->head_method = http_str_eq(h->method, "HEAD");
	c->rq = xmalloc(sizeof(*c->rq));
	proxy_request_init(c->px, c->rq,
	    c->term != NULL     ? "https"
		: c->is_connect ? "connect"
				: "http",
	    c->client);
	c->pp = proxy_policy_get(c->px);
	if (c->term != NULL)
		term_request(c, h);
	else if (c->is_connect)
		connect_start(c, h);
	else
		forward_start(c, h);
	free(h);
}

/* ---- the I/O loop ---------------------------------------------------------------- */

void
conn_close_fd(int fd, struct tls_conn *tls)
{
	if (tls != NULL) {
		/* The last bytes went out whole (conn_send); close_notify follows them if
		 * the socket takes it now, so a client can tell the end from a cut. */
		(void)tls_shutdown_write(tls);
		tls_conn_free(tls);
	}
	sys_sockclose(fd);
}

ssize_t
conn_send(int fd, struct tls_conn *tls, const void *p, size_t len)
{
	size_t n;

	if (tls == NULL)
		return sys_sock_send(fd, p, len);
	switch (tls_write(tls, p, len, &n)) {
	case TLS_IO_OK:
		return (ssize_t)n;
	case TLS_IO_WANT_READ:
	case TLS_IO_WANT_WRITE:
		/* Retried on the socket's next event: both directions are registered. */
		errno = EAGAIN;
		return -1;
	default:
		log_debug("TLS write: %s", tls_conn_error(tls));
		errno = EPIPE;
		return -1;
	}
}

/* conn_recv over a TLS session: the clear text goes straight into q. */
static int
conn_recv_tls(struct tls_conn *tls, bool *ready, struct buf *q, size_t want)
{
	size_t n;

	switch (tls_read(tls, buf_tail(q, want), want, &n)) {
	case TLS_IO_OK:
		/* A short read says nothing about the socket: the session may hold more
		 * records it read ahead. Only WANT_READ means all is drained. */
		buf_grow(q, n);
		return 1;
	case TLS_IO_WANT_READ:
		*ready = false;
		return 0;
	case TLS_IO_WANT_WRITE:
		return 0; /* *ready kept: the next event of either direction retries */
	case TLS_IO_EOF:
		return -1;
	default:
		log_debug("TLS read: %s", tls_conn_error(tls));
		return -2;
	}
}

int
conn_recv(int fd, struct tls_conn *tls, bool *ready, bool eof, struct buf *q, size_t room)
{
	size_t want = room < 65536 ? room : 65536;
	ssize_t n;

	if (room == 0 || !*ready)
		return 0;
	if (tls != NULL)
		return conn_recv_tls(tls, ready, q, want);
	/* Straight into the buffer: a download's bytes are copied once fewer. */
	n = sys_sock_recv(fd, buf_tail(q, want), want);
	if (n > 0) {
		/* Less than asked: the socket had no more at that moment, unless an EOF
		 * waits behind the data (its edge has been reported already). */
		if ((size_t)n < want && !eof)
			*ready = false;
		buf_grow(q, (size_t)n);
		return 1;
	}
	if (n == 0)
		return -1;
	if (errno == EAGAIN || errno == EINTR) {
		*ready = errno == EINTR;
		return 0;
	}
	return -2;
}

/* The client side of conn_recv: 1 progress, 0 nothing now, -1 EOF or error. */
static int
conn_read(struct conn *c, struct buf *q, size_t room)
{
	int r = conn_recv(c->cfd, c->ctls, &c->c_ready, c->c_eof, q, room);

	return r < 0 ? -1 : r;
}

/* Write q to fd (through tls when not NULL). 1 progress, 0 blocked or empty, -1 error. */
static int
conn_write(int fd, struct tls_conn *tls, struct buf *q, uint64_t *count)
{
	ssize_t n;

	if (q->len == 0)
		return 0;
	n = conn_send(fd, tls, q->p + q->off, q->len);
	if (n > 0) {
		buf_consume(q, (size_t)n);
		if (count != NULL)
			*count += (uint64_t)n;
		return 1;
	}
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return 0;
	return -1;
}

/*
 * The steps of conn_run, one per state: each returns 1 if it made progress, 0 if not,
 * and -1 if the connection has ended (c is freed).
 */
static int
conn_step_head(struct conn *c)
{
	int r;

	if (c->in.len > 0 && c->head_start == 0) {
		/* A head has begun (or was waiting when the previous exchange ended): from
		 * now on it has --head-timeout to complete. */
		c->head_start = evloop_now(c->loop);
		evtimer_add(c->loop, &c->timer, conn_head_ms(c));
	}
	if (c->cout.len >= HTTPD_OUT_MAX)
		return 0;
	if (c->in.len > 0) {
		size_t before = c->in.len;
		enum conn_state was = c->st;

		conn_dispatch(c);
		if (c->st == CONN_HANDED) {
			conn_free(c, false);
			return -1;
		}
		if (c->st != was || c->in.len != before)
			return 1;
	}
	if (proxy_draining(c->px) && c->in.len == 0 && c->cout.len == 0) {
		conn_free(c, true);
		return -1;
	}
	r = conn_read(c, &c->in, HTTPD_IN_MAX - c->in.len);
	if (r == -1) {
		/* EOF between requests is the normal end of keep-alive. */
		conn_free(c, true);
		return -1;
	}
	if (r == 0 && c->in.len >= HTTPD_IN_MAX) {
		conn_bad_head(c, HTTP_TOO_LARGE);
		return 1;
	}
	return r;
}

static int
conn_step_closing(struct conn *c)
{
	if (c->cout.len == 0 && c->clean_end) {
		/* Nothing unread (forward_finish): a plain close sends our FIN after the
		 * reply, with no lingering read. */
		conn_free(c, true);
		return -1;
	}
	if (c->cout.len != 0)
		return 0;
	/* A TLS client gets close_notify before the FIN; one that does not fit now waits
	 * for the socket (within this state's limit). */
	if (c->ctls != NULL && tls_shutdown_write(c->ctls) == TLS_IO_WANT_WRITE)
		return 0;
	(void)sys_shutdown_wr(c->cfd);
	c->st = CONN_LINGER;
	c->last = c->linger_start = evloop_now(c->loop);
	evtimer_add(c->loop, &c->timer, HTTPD_LINGER_MS);
	return 1;
}

static int
conn_step_linger(struct conn *c)
{
	struct buf sink = { 0 };
	int r;

	/* Read and drop what the client still sends, so that closing with unread input
	 * does not reset the connection before it has read our reply. */
	r = conn_read(c, &sink, 65536);
	buf_free(&sink);
	if (r == -1)
		conn_free(c, true);
	return r;
}

static int
conn_step_asking(struct conn *c)
{
	int r;

	/* need_body: the body is read for the decider (ask.c). */
	if (!ask_reading(c->ask))
		return 0;
	ask_body_more(c);
	if (c->st != CONN_ASKING || !ask_reading(c->ask))
		return 1;
	r = conn_read(c, &c->in, HTTPD_IN_MAX - c->in.len);
	if (r == -1) {
		proxy_request_set_reason(c->rq, "client closed during the request", 32);
		conn_free(c, true);
	}
	return r;
}

static int
conn_step_forward(struct conn *c)
{
	int r;

	if ((r = forward_pump(c)) == -1)
		return -1;
	if (c->st == CONN_FORWARD && c->resp_done && c->cout.len == 0)
		return 1;
	return r;
}

/* What each state does when the sockets may have moved (nothing in CONN_DIALING and
 * CONN_HANDED). */
static int (*const conn_steps[])(struct conn *) = {
	[CONN_READ_HEAD] = conn_step_head,
	[CONN_ASKING] = conn_step_asking,
	[CONN_FORWARD] = conn_step_forward,
	[CONN_CLOSING] = conn_step_closing,
	[CONN_LINGER] = conn_step_linger,
};

void
conn_run(struct conn *c)
{
	int (*step)(struct conn *);
	int r, progress;

	do {
		if ((progress = conn_write(c->cfd, c->ctls, &c->cout, NULL)) == -1) {
			conn_free(c, true);
			return;
		}
		step = (size_t)c->st < sizeof(conn_steps) / sizeof(conn_steps[0])
		    ? conn_steps[c->st]
		    : NULL;
		r = step != NULL ? step(c) : 0;
		if (r == -1)
			return;
		progress |= r;
		if (progress)
			c->last = evloop_now(c->loop);
	} while (progress);
	/* Both sockets are edge-triggered for reading and writing, registered once: every
	 * step above runs until the kernel says EAGAIN (or our own buffer limit, which a
	 * later event on the other socket lifts), so no interest change is needed. */
}

void
conn_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct conn *c = arg;

	(void)loop;
	if (fd == c->cfd) {
		c->c_ready |= (events & (EV_READ | EV_HUP)) != 0;
		c->c_eof |= (events & (EV_RDHUP | EV_HUP)) != 0;
	} else if (fd == c->ufd) {
		c->u_ready |= (events & (EV_READ | EV_HUP)) != 0;
		c->u_eof |= (events & (EV_RDHUP | EV_HUP)) != 0;
	}
	conn_run(c);
}

/* ---- shared request steps -------------------------------------------------------- */

static int
b64_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* --auth: Proxy-Authorization: Basic base64(user:pass). */
static bool
httpd_auth_ok(struct conn *c, const struct http_head *h)
{
	char dec[1024];
	size_t i, n = 0, idx = 0, k;
	struct http_str v;
	uint32_t acc = 0;
	int bits = 0, ok;

	if (proxy_options(c->px)->auth == NULL)
		return true;
	if (http_field_count(h, "proxy-authorization", &idx) != 1)
		return false;
	v = h->fields[idx].value;
	if (v.n < 6 || strncasecmp(v.p, "basic", 5) != 0 || (v.p[5] != ' ' && v.p[5] != '\t'))
		return false;
	for (k = 6; k < v.n && (v.p[k] == ' ' || v.p[k] == '\t'); k++)
		;
	for (i = k; i < v.n && v.p[i] != '='; i++) {
		int d = b64_val((unsigned char)v.p[i]);

		if (d < 0)
			return false;
		acc = acc << 6 | (uint32_t)d;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n == sizeof(dec))
				return false;
			dec[n++] = (char)((acc >> bits) & 0xff);
		}
	}
	for (; i < v.n; i++)
		if (v.p[i] != '=')
			return false;
	ok = proxy_auth_check(c->px, dec, n);
	explicit_bzero(dec, sizeof(dec));
	return ok != 0;
}

static const char *httpd_status_phrase(int status);

/* c's request refused: the verdict, the reason logged, and the reply (body may be NULL;
 * keep as conn_reply's). */
void
httpd_deny(struct conn *c, int status, const char *headers, const char *reason,
    const char *body, bool keep)
{
	c->rq->verdict = VERDICT_DENY;
	proxy_request_set_reason(c->rq, reason, strlen(reason));
	conn_reply(c, status, httpd_status_phrase(status), headers, body, keep);
}

/* Whether the request carries the credentials --auth names; if not, refused (407). */
bool
httpd_authorized(struct conn *c, const struct http_head *h, bool keep)
{
	if (httpd_auth_ok(c, h))
		return true;
	httpd_deny(c, 407, "Proxy-Authenticate: Basic realm=\"srt\"\r\n",
	    "proxy authentication required", NULL, keep);
	return false;
}

/* The reply to a CONNECT that went through: "200", then what the parent sent after its
 * own "200" (it belongs to the tunnel). Caller frees. */
static char *
httpd_established(const struct proxy_dial_result *res, size_t *len)
{
	static const char ok[] = "HTTP/1.1 200 Connection Established\r\n\r\n";
	char *b = xmalloc(sizeof(ok) - 1 + res->early_len);

	memcpy(b, ok, sizeof(ok) - 1);
	if (res->early_len > 0)
		memcpy(b + sizeof(ok) - 1, res->early, res->early_len);
	*len = sizeof(ok) - 1 + res->early_len;
	return b;
}

static void
httpd_dial_cb(void *arg, const struct proxy_dial_result *res)
{
	struct conn *c = arg;
	char line[600], body[1200];

	c->dial = NULL;
	if (res->status == PROXY_DIAL_OK) {
		if (c->is_connect) {
			struct proxy_request *rq = c->rq;
			struct proxy *px = c->px;
			int cfd = c->cfd;
			size_t oklen;
			char *okb = httpd_established(res, &oklen);

			rq->status = 200;
			c->rq = NULL;
			/* The tunnel takes the client socket, the request record and the bytes
			 * the client sent after its CONNECT head. */
			evloop_detach(c->loop, cfd);
			conn_request_done(c);
			if (proxy_tunnel(px, cfd, res->fd, rq, okb, oklen,
				c->in.p ? c->in.p + c->in.off : NULL, c->in.len) == -1)
				log_debug("tunnel could not start");
			free(okb);
			conn_free(c, false);
			return;
		}
		forward_dialed(c, res->fd, res->tls);
		conn_run(c);
		return;
	}
	if (res->status == PROXY_DIAL_BLOCKED) {
		if (c->is_connect) {
			proxy_sanitize_reason(
			    res->short_reason, strlen(res->short_reason), line, sizeof(line));
			proxy_sanitize_reason(
			    res->message, strlen(res->message), body, sizeof(body));
			conn_reply(c, 403, line,
			    "Content-Type: text/plain\r\n"
			    "X-Proxy-Error: blocked-by-sandbox-runtime\r\n",
			    body, false);
		} else {
			snprintf(body, sizeof(body), "%s\n", res->message);
			conn_reply(c, 403, "Forbidden",
			    "Content-Type: text/plain\r\n"
			    "X-Proxy-Error: blocked-by-sandbox-runtime\r\n",
			    body, true);
		}
	} else if (res->route != ROUTE_DIRECT) {
		/* Say which parent failed and how: the client cannot see it otherwise. */
		log_debug("%s: %s", c->client, res->message);
		proxy_sanitize_reason(
		    res->message, strlen(res->message), body, sizeof(body) - 1);
		strcat(body, "\n");
		conn_reply(c, 502, "Bad Gateway",
		    "Content-Type: text/plain\r\n"
		    "X-Proxy-Error: parent-proxy-failed\r\n",
		    body, !c->is_connect);
	} else {
		log_debug("%s: %s", c->client, res->message);
		conn_reply(c, 502, "Bad Gateway", "Content-Type: text/plain\r\n",
		    c->is_connect ? NULL : "Bad Gateway", !c->is_connect);
	}
	conn_run(c);
}

void
httpd_dial(struct conn *c)
{
	c->st = CONN_DIALING;
	/* A terminated tunnel's request goes on over TLS to the real server. */
	if (c->term != NULL)
		c->dial = proxy_dial_https(c->px, c->pp, c->rq, &c->route, httpd_dial_cb, c);
	else
		c->dial = proxy_dial(
		    c->px, c->pp, c->rq, &c->route, c->is_connect, httpd_dial_cb, c);
}

/* ---- the decider's answers ------------------------------------------------------- */

static const char *
httpd_status_phrase(int status)
{
	switch (status) {
	case 400:
		return "Bad Request";
	case 401:
		return "Unauthorized";
	case 403:
		return "Forbidden";
	case 404:
		return "Not Found";
	case 407:
		return "Proxy Authentication Required";
	case 429:
		return "Too Many Requests";
	case 451:
		return "Unavailable For Legal Reasons";
	case 500:
		return "Internal Server Error";
	case 502:
		return "Bad Gateway";
	case 503:
		return "Service Unavailable";
	case 504:
		return "Gateway Timeout";
	default:
		return status < 500 ? "Request Denied" : "Proxy Error";
	}
}

void
httpd_ask_refuse(struct conn *c, const struct ask_answer *a, bool keep)
{
	const char *reason = a->reason != NULL ? a->reason : "denied by the request decider";
	char body[600];
	const char *hdr = a->unavailable ? "Content-Type: text/plain\r\n"
					   "X-Proxy-Error: decider-unavailable\r\n"
	    : a->bad_request ? "Content-Type: text/plain\r\nX-Proxy-Error: bad-request\r\n"
	    : a->plaintext_set
	    ? "Content-Type: text/plain\r\nX-Proxy-Error: plaintext-header-set\r\n"
	    : "Content-Type: text/plain\r\nX-Proxy-Error: blocked-by-decider\r\n";

	c->rq->verdict = VERDICT_DENY;
	free(c->rq->rule);
	c->rq->rule = xstrdup("decider");
	proxy_request_set_reason(c->rq, reason, strlen(reason));
	proxy_sanitize_reason(reason, strlen(reason), body, sizeof(body) - 1);
	strcat(body, "\n");
	conn_reply(c, a->status, httpd_status_phrase(a->status), hdr, body, keep);
}

void
httpd_ask_allowed(struct conn *c, const struct ask_answer *a)
{
	(void)a;
	if (c->rq->verdict == VERDICT_ALLOW)
		return;
	c->rq->verdict = VERDICT_ALLOW;
	c->rq->would_deny = false;
	free(c->rq->rule);
	c->rq->rule = xstrdup("decider");
	proxy_request_set_reason(c->rq, NULL, 0);
}

void
httpd_req_headers(const struct http_head *h, struct decider_req *r, const char **names,
    size_t *namelen, const char **values, size_t *valuelen)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nfields; i++) {
		const struct http_field *f = &h->fields[i];

		if (http_str_eq(f->name, "host") || http_str_eq(f->name, "proxy-authorization"))
			continue;
		names[n] = f->name.p;
		namelen[n] = f->name.n;
		values[n] = f->value.p;
		valuelen[n] = f->value.n;
		n++;
	}
	r->hnames = names;
	r->hnamelen = namelen;
	r->hvalues = values;
	r->hvaluelen = valuelen;
	r->nheaders = n;
}
