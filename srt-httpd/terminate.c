/*
 * TLS termination (network.tlsTerminate, issue #14; BEHAVIOR §1.3).
 *
 * An allowed CONNECT to a host not in excludeDomains takes a tunnel slot (maxTunnels;
 * past it 503 with X-Proxy-Error: too-many-tunnels) and is answered 200 at once, without
 * a dial: the client's first bytes say what the tunnel carries. A TLS ClientHello is
 * terminated here with a leaf of the run's CA (tls_mitm.h) for its server name, or for
 * the CONNECT target when it names none or under requireHostMatch; the handshake must be
 * over handshakeTimeoutMs after the CONNECT. Anything else goes on as an opaque tunnel
 * (dialled now, like an excluded host's), or is refused under refuseOpaqueTunnels.
 *
 * Once the handshake is over, the socket and its session become a client connection of
 * conn.c with c->term and c->ctls set (conn_recv and conn_send read and write the clear
 * text straight from and into its buffers, with no bridge): its requests are read,
 * judged and logged like plain ones ("https" in the log), except that they are origin-
 * form and always go to the CONNECT target, over a new TLS connection that verifies the
 * real server (proxy_dial_https), possibly taken from the pool of idle ones.
 *
 * term_request and term_build_head are where a decrypted request is checked and its
 * upstream head written: the place for request edits that need the clear text (credential
 * substitution, issue #14 item 2). Its body goes up through forward_request_body
 * (forward.c), the response comes back through forward_response_head/_body, where
 * stripResponseHeaders applies, as for plain HTTP.
 *
 * Memory per tunnel is bounded: the session (its read-ahead buffer, TLS_READ_BUF, and
 * one record's write buffer), and the connection's buffers with their limits
 * (HTTPD_IN_MAX, HTTPD_OUT_MAX); likewise for its connection to the real server.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "httpd.h"
#include "tls_mitm.h"
#include "util.h"

#define TERM_ROUTE "tls-terminated"
/* A SOCKS tunnel whose client says nothing for this long is a service that speaks first
 * (SMTP, FTP, MySQL...): it goes on opaque, as every SOCKS tunnel did before termination.
 * A TLS client sends its ClientHello as soon as the tunnel is up. */
#define TERM_SOCKS_QUIET_MS 1000

static const char guard_headers[] = "Content-Type: text/plain\r\n"
				    "X-Proxy-Error: blocked-by-sandbox-runtime\r\n";

enum term_state {
	TS_REPLY,     /* sending "200 Connection Established" */
	TS_PEEK,      /* waiting for the first three bytes */
	TS_HANDSHAKE, /* TLS handshake as the server */
	TS_DIAL,      /* not TLS: the opaque tunnel's dial */
};

/* A CONNECT between its 200 and the end of its handshake (or its dial). */
struct term_setup {
	struct proxy *px;
	struct evloop *loop;
	int cfd;
	char client[PROXY_CLIENT_MAX];
	struct proxy_request *rq; /* the CONNECT's record */
	struct proxy_policy *pp;
	enum term_state st;
	char out[64];
	size_t outlen, outoff;
	bool eof; /* the client's EOF was reported */
	struct tls_mitm_hello hello;
	struct tls_conn *tc;
	struct proxy_dial *dial;
	struct route route;
	struct ev_timer deadline;
	struct ev_timer quiet; /* a SOCKS tunnel's silence (TERM_SOCKS_QUIET_MS) */
	bool socks;            /* handed over by srt-socksd */
	bool slot;             /* holds a tunnel slot */
	bool ask_opaque;       /* a decider is asked if the tunnel is not TLS */
	struct ask_wait *ask;  /* its verdict awaited */
	char *connect_req;     /* the CONNECT's head, kept for that question */
	size_t connect_req_len;
};

/* Tunnels terminated (or about to be) at once, against maxTunnels. */
static unsigned term_tunnels;

static void term_io(struct evloop *loop, int fd, unsigned events, void *arg);

void
term_free(struct term *t)
{
	if (t == NULL)
		return;
	term_tunnels--;
	free(t);
}

/* ---- the setup -------------------------------------------------------------------- */

static void
term_setup_free(struct term_setup *ts, bool close_client)
{
	evtimer_del(ts->loop, &ts->deadline);
	evtimer_del(ts->loop, &ts->quiet);
	ask_cancel(&ts->ask);
	free(ts->connect_req);
	if (ts->dial != NULL)
		proxy_dial_cancel(ts->dial);
	tls_conn_free(ts->tc);
	if (ts->rq != NULL) {
		proxy_log(ts->px, ts->rq);
		proxy_request_clear(ts->rq);
		free(ts->rq);
	}
	proxy_policy_put(ts->pp);
	if (ts->slot)
		term_tunnels--;
	if (close_client) {
		evloop_forget(ts->loop, ts->cfd);
		sys_sockclose(ts->cfd);
		proxy_conn_closed(ts->px);
	}
	free(ts);
}

/* The tunnel ends before it began: log why (the 200 is out, so no status can say it). */
static void
term_fail(struct term_setup *ts, enum verdict v, const char *why)
{
	log_debug("%s: CONNECT %s port %u: %s", ts->client, ts->rq->host, ts->rq->port, why);
	if (ts->rq->verdict == VERDICT_ALLOW || v == VERDICT_DENY)
		ts->rq->verdict = v;
	proxy_request_set_reason(ts->rq, why, strlen(why));
	term_setup_free(ts, true);
}

static void
term_deadline_cb(struct evloop *loop, void *arg)
{
	struct term_setup *ts = arg;

	(void)loop;
	term_fail(ts, VERDICT_ERROR,
	    ts->st == TS_HANDSHAKE ? "TLS handshake not done within handshakeTimeoutMs"
				   : "no byte within handshakeTimeoutMs of the CONNECT");
}

/* The handshake is over: the socket and its session become a connection whose requests
 * are served like any other. */
static void
term_established(struct term_setup *ts)
{
	struct term *t;
	struct conn *c;

	t = xcalloc(1, sizeof(*t));
	snprintf(t->host, sizeof(t->host), "%s", ts->rq->host);
	t->kind = ts->rq->kind;
	t->port = ts->rq->port;
	snprintf(t->sni, sizeof(t->sni), "%s", ts->hello.sni);
	t->sni_bad = ts->hello.sni_bad;
	log_debug("%s: CONNECT %s port %u: TLS terminated (server name %s, leaf for %s)",
	    ts->client, t->host, t->port, t->sni[0] ? t->sni : "none", ts->hello.leaf);
	evloop_detach(ts->loop, ts->cfd);
	free(ts->rq->route);
	ts->rq->route = xstrdup(TERM_ROUTE);
	/* The slot goes with the connection (term_free). */
	ts->slot = false;
	if ((c = conn_new(ts->px, ts->cfd, ts->client)) == NULL) {
		/* conn_new closed the socket and counted the close. */
		term_tunnels--;
		free(t);
		term_setup_free(ts, false);
		return;
	}
	c->term = t;
	c->ctls = ts->tc;
	ts->tc = NULL;
	term_setup_free(ts, false);
	/* The session may have read the first request ahead with the handshake's last
	 * bytes: no event would report it, so the connection looks now. */
	c->c_ready = true;
	conn_run(c);
}

static void
term_handshake(struct term_setup *ts)
{
	char why[TLS_ERR_MAX + 64];

	switch (tls_handshake(ts->tc)) {
	case TLS_IO_WANT_READ:
	case TLS_IO_WANT_WRITE:
		return;
	case TLS_IO_OK:
		evtimer_del(ts->loop, &ts->deadline);
		term_established(ts);
		return;
	default:
		snprintf(why, sizeof(why), "TLS handshake with the client failed: %s",
		    ts->hello.failed ? "no certificate could be made for it"
				     : tls_conn_error(ts->tc));
		term_fail(ts, VERDICT_ERROR, why);
		return;
	}
}

static void
term_dial_cb(void *arg, const struct proxy_dial_result *res)
{
	struct term_setup *ts = arg;
	struct proxy_request *rq = ts->rq;

	ts->dial = NULL;
	if (res->status != PROXY_DIAL_OK) {
		/* The dial recorded the verdict and the reason in rq. */
		term_setup_free(ts, true);
		return;
	}
	/* The tunnel takes the socket and the record from here (and logs it). */
	ts->rq = NULL;
	evloop_detach(ts->loop, ts->cfd);
	if (proxy_tunnel(ts->px, ts->cfd, res->fd, rq, res->early, res->early_len, NULL, 0) ==
	    -1)
		log_debug("tunnel could not start");
	term_setup_free(ts, false);
}

static void
term_opaque_dial(struct term_setup *ts)
{
	ts->dial = proxy_dial(ts->px, ts->pp, ts->rq, &ts->route, true, term_dial_cb, ts);
}

/* The decider's answer about an opaque tunnel: the 200 is out, so a refusal can only
 * close it. */
static void
term_opaque_answered(void *arg, const struct ask_answer *a)
{
	struct term_setup *ts = arg;
	const char *reason = a->reason != NULL ? a->reason : "denied by the request decider";

	if (!a->allow) {
		free(ts->rq->rule);
		ts->rq->rule = xstrdup("decider");
		term_fail(ts, VERDICT_DENY, reason);
		return;
	}
	if (ts->rq->verdict != VERDICT_ALLOW && ts->rq->verdict != VERDICT_AUDIT_DENY) {
		ts->rq->verdict = VERDICT_ALLOW;
		free(ts->rq->rule);
		ts->rq->rule = xstrdup("decider");
		proxy_request_set_reason(ts->rq, NULL, 0);
	}
	term_opaque_dial(ts);
}

/* Ask the decider about the opaque tunnel as about a plain CONNECT (connect.c). */
static void
term_opaque_ask(struct term_setup *ts)
{
	struct http_head *h = xmalloc(sizeof(*h));

	if (http_parse_request(ts->connect_req, ts->connect_req_len, h) != HTTP_OK) {
		/* It parsed when it came. */
		free(h);
		term_fail(ts, VERDICT_ERROR, "the CONNECT head could not be read again");
		return;
	}
	connect_ask_send(ts->px, h, ts->rq, term_opaque_answered, ts, &ts->ask);
	free(h);
}

/* The first bytes are not TLS: an opaque tunnel, which refuseOpaqueTunnels refuses. */
static void
term_opaque(struct term_setup *ts)
{
	struct proxy_request *rq = ts->rq;

	evtimer_del(ts->loop, &ts->deadline);
	evtimer_del(ts->loop, &ts->quiet);
	term_tunnels--;
	ts->slot = false;
	if (ts->pp->refuse_opaque_tunnels) {
		free(rq->rule);
		rq->rule = xstrdup(DECISION_RULE_OPAQUE);
		if (!proxy_options(ts->px)->audit) {
			term_fail(ts, VERDICT_DENY, OPAQUE_REASON);
			return;
		}
		proxy_request_set_reason(rq, OPAQUE_REASON, strlen(OPAQUE_REASON));
		rq->verdict = VERDICT_AUDIT_DENY;
		rq->would_deny = true;
	}
	log_debug("%s: CONNECT %s port %u: not TLS, tunnelled as it is", ts->client, rq->host,
	    rq->port);
	ts->st = TS_DIAL;
	proxy_route(ts->pp, rq, true, &ts->route);
	/* Nothing of it can be read: the decider is asked about the tunnel itself. */
	if (ts->ask_opaque) {
		term_opaque_ask(ts);
		return;
	}
	term_opaque_dial(ts);
}

/* A SOCKS tunnel still silent: not TLS, whatever it carries (term_opaque). */
static void
term_quiet_cb(struct evloop *loop, void *arg)
{
	struct term_setup *ts = arg;
	unsigned char b;
	ssize_t n;

	(void)loop;
	if (ts->st != TS_PEEK)
		return;
	n = sys_sock_peek(ts->cfd, &b, 1);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		log_debug("%s: SOCKS CONNECT %s port %u: nothing from the client within %d ms: "
			  "a service that speaks first",
		    ts->client, ts->rq->host, ts->rq->port, TERM_SOCKS_QUIET_MS);
		term_opaque(ts);
	}
	/* Else bytes came (the peek goes on) or the end did (term_step sees it). */
}

static void
term_step(struct term_setup *ts)
{
	unsigned char b[3];
	char err[TLS_ERR_MAX];
	ssize_t n;

	if (ts->st == TS_REPLY) {
		while (ts->outoff < ts->outlen) {
			n = sys_sock_send(
			    ts->cfd, ts->out + ts->outoff, ts->outlen - ts->outoff);
			if (n > 0) {
				ts->outoff += (size_t)n;
				continue;
			}
			if (n == -1 && (errno == EAGAIN || errno == EINTR))
				return;
			term_fail(ts, VERDICT_ERROR, "client went away");
			return;
		}
		ts->st = TS_PEEK;
	}
	if (ts->st == TS_PEEK) {
		/* Peeked, not read: the TLS library reads the ClientHello itself. (The
		 * socket is non-blocking: the peek never waits.) */
		n = sys_sock_peek(ts->cfd, b, sizeof(b));
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n == 0 || (n == -1 && errno != EAGAIN)) {
			term_fail(ts, VERDICT_ALLOW, "client went away before sending a byte");
			return;
		}
		if ((size_t)n < sizeof(b) && !ts->eof)
			return; /* the next bytes are a new edge */
		if (!tls_mitm_looks_like_hello(b, (size_t)n)) {
			term_opaque(ts);
			return;
		}
		if ((ts->tc = tls_mitm_accept(&ts->hello, ts->cfd, err, sizeof(err))) == NULL) {
			term_fail(ts, VERDICT_ERROR, err);
			return;
		}
		ts->st = TS_HANDSHAKE;
	}
	if (ts->st == TS_HANDSHAKE)
		term_handshake(ts);
}

static void
term_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct term_setup *ts = arg;

	(void)loop;
	(void)fd;
	if (events & (EV_RDHUP | EV_HUP))
		ts->eof = true;
	if (ts->st != TS_DIAL)
		term_step(ts);
}

/* Can a tunnel be terminated now under pp? NULL (*mp the CA), or why not, with the
 * HTTP status and X-Proxy-Error that say it. */
static const char *
term_unavailable(struct proxy *px, const struct proxy_policy *pp, struct tls_mitm **mp,
    int *status, const char **error)
{
	const char *why = NULL;
	unsigned max = pp->tls.max_tunnels > 0 ? (unsigned)pp->tls.max_tunnels
					       : TLS_MAX_TUNNELS_DEFAULT;

	if ((*mp = proxy_tls_mitm(px, &why)) == NULL) {
		/* Never a tunnel srt was told to look into and cannot. */
		*status = 502;
		*error = "tls-termination-unavailable";
		return why;
	}
	if (term_tunnels >= max) {
		*status = 503;
		*error = "too-many-tunnels";
		return "too many TLS-terminated tunnels (maxTunnels)";
	}
	return NULL;
}

/*
 * The setup of a tunnel to rq's host under pp over cfd (registered to term_io already:
 * registered), from after its CONNECT was granted: reply (NULL: none) is sent first, then
 * the client's first bytes are awaited. Shared by an HTTP CONNECT (term_connect) and a
 * SOCKS CONNECT handed over by srt-socksd (term_handoff). Takes rq and pp.
 */
static struct term_setup *
term_setup_new(struct proxy *px, int cfd, const char *client, struct proxy_request *rq,
    struct proxy_policy *pp, struct tls_mitm *m, const char *reply)
{
	struct term_setup *ts = xcalloc(1, sizeof(*ts));

	ts->px = px;
	ts->loop = proxy_loop(px);
	ts->cfd = cfd;
	snprintf(ts->client, sizeof(ts->client), "%s", client);
	ts->rq = rq;
	ts->pp = pp;
	if (reply != NULL)
		ts->outlen = (size_t)snprintf(ts->out, sizeof(ts->out), "%s", reply);
	ts->st = ts->outlen > 0 ? TS_REPLY : TS_PEEK;
	ts->hello.m = m;
	snprintf(ts->hello.target, sizeof(ts->hello.target), "%s", rq->host);
	ts->hello.target_kind = rq->kind;
	ts->hello.pin_target = pp->require_host_match;
	ts->slot = true;
	term_tunnels++;
	evtimer_init(&ts->deadline, term_deadline_cb, ts);
	evtimer_init(&ts->quiet, term_quiet_cb, ts);
	return ts;
}

/* Start the clock (handshakeTimeoutMs from the CONNECT) and take the first step. */
static void
term_setup_go(struct term_setup *ts)
{
	unsigned ms = ts->pp->tls.handshake_timeout_ms > 0
	    ? (unsigned)ts->pp->tls.handshake_timeout_ms
	    : TLS_HANDSHAKE_MS_DEFAULT;

	evtimer_add(ts->loop, &ts->deadline, ms);
	if (ts->socks && (unsigned)TERM_SOCKS_QUIET_MS < ms)
		evtimer_add(ts->loop, &ts->quiet, TERM_SOCKS_QUIET_MS);
	term_step(ts);
}

void
term_connect(struct conn *c, const struct http_head *h, bool ask_opaque)
{
	struct term_setup *ts;
	struct tls_mitm *m;
	const char *why, *error;
	char body[TLS_ERR_MAX + 200], hdr[128];
	int status;

	if ((why = term_unavailable(c->px, c->pp, &m, &status, &error)) != NULL) {
		c->rq->verdict = status == 502 ? VERDICT_ERROR : VERDICT_DENY;
		proxy_request_set_reason(c->rq, why, strlen(why));
		snprintf(body, sizeof(body), "%s\n", status == 502 ? why : "too many tunnels");
		snprintf(hdr, sizeof(hdr), "Content-Type: text/plain\r\nX-Proxy-Error: %s\r\n",
		    error);
		conn_reply(c, status, status == 502 ? "Bad Gateway" : "Service Unavailable",
		    hdr, body, false);
		return;
	}
	if (c->in.len > 0) {
		/* Bytes sent before the 200: the TLS library could not read them first. */
		static const char r[] = "bytes sent before the tunnel was established";

		httpd_deny(c, 400, guard_headers, r, r, false);
		return;
	}
	c->rq->status = 200;
	ts = term_setup_new(c->px, c->cfd, c->client, c->rq, c->pp, m,
	    "HTTP/1.1 200 Connection Established\r\n\r\n");
	ts->ask_opaque = ask_opaque;
	if (ask_opaque) {
		ts->connect_req_len = h->head_len;
		ts->connect_req = xmalloc(h->head_len);
		memcpy(ts->connect_req, h->method.p, h->head_len);
	}
	c->rq = NULL;
	c->pp = NULL;
	/* The socket changes hands with its registration (edge-triggered, both ways). */
	(void)evloop_rebind(ts->loop, ts->cfd, term_io, ts);
	ts->eof = c->c_eof;
	c->st = CONN_HANDED; /* conn_run frees c */
	term_setup_go(ts);
}

/*
 * A SOCKS CONNECT srt-socksd allowed and answered, handed over for termination (--handoff-fd,
 * handoff.h). Nothing of it is taken on trust: the host is decided again under the policy
 * in force here, and a host that would not be terminated here is closed (fail closed:
 * srt-socksd tunnels an excluded host itself). The record is a "socks5" one; srt-socksd
 * logged its own, with the route "tls-terminated". Under --ask and with a decider the
 * tunnel's requests are asked like an HTTP CONNECT's; a tunnel that is not TLS is not
 * asked (srt-socksd decided it by the policy, as it decides every SOCKS tunnel).
 */
void
term_handoff(struct proxy *px, int fd, const struct handoff_msg *msg)
{
	struct proxy_request *rq = xmalloc(sizeof(*rq));
	struct proxy_policy *pp = proxy_policy_get(px);
	struct term_setup *ts;
	struct tls_mitm *m;
	const char *why = NULL, *error;
	int status, fl;

	proxy_request_init(px, rq, "socks5", msg->client);
	if (!proxy_conn_adopt(px)) {
		snprintf(rq->host, sizeof(rq->host), "%s", msg->host);
		rq->kind = msg->kind;
		rq->port = msg->port;
		rq->verdict = VERDICT_ERROR;
		why = "handed over past the connection cap, or while draining";
		proxy_request_set_reason(rq, why, strlen(why));
		sys_sockclose(fd);
		goto refused;
	}
	if (proxy_decide(px, pp, rq, msg->host, strlen(msg->host), msg->port) == 0) {
		why = rq->reason;
		goto close;
	}
	if (!proxy_term_wanted(pp, rq)) {
		why = "not to be TLS-terminated under the policy in force";
		rq->verdict = VERDICT_DENY;
		proxy_request_set_reason(rq, why, strlen(why));
		goto close;
	}
	if ((why = term_unavailable(px, pp, &m, &status, &error)) != NULL) {
		rq->verdict = status == 502 ? VERDICT_ERROR : VERDICT_DENY;
		proxy_request_set_reason(rq, why, strlen(why));
		goto close;
	}
	rq->status = 0; /* srt-socksd's "succeeded" went out */
	ts = term_setup_new(px, fd, msg->client, rq, pp, m, NULL);
	ts->socks = true;
	/* The interest a connection has (conn_new), so that the socket goes on to one
	 * with its registration. */
#ifdef _WIN32
	(void)fl; /* no handoff on Windows (lib/proxyd/proxy_win.c refuses --handoff-fd) */
	if (sys_set_nonblock(fd) == -1 ||
#else
	if ((fl = fcntl(fd, F_GETFL)) == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
#endif
	    evloop_add(ts->loop, fd, EV_READ | EV_WRITE | EV_EDGE, term_io, ts) == -1) {
		term_fail(ts, VERDICT_ERROR, "the handed-over socket cannot be registered");
		return;
	}
	log_debug("%s: SOCKS CONNECT %s port %u handed over by srt-socksd", ts->client,
	    rq->host, rq->port);
	term_setup_go(ts);
	return;
close:
	/* The descriptor came by SCM_RIGHTS: nothing else of ours refers to it. */
	sys_sockclose(fd);
	proxy_conn_closed(px);
refused:
	log_debug("%s: SOCKS CONNECT %s port %u handed over, closed: %s", msg->client,
	    msg->host, msg->port, why != NULL ? why : "denied");
	proxy_log(px, rq);
	proxy_request_clear(rq);
	free(rq);
	proxy_policy_put(pp);
}

/* ---- requests in a terminated tunnel ---------------------------------------------- */

/* The upstream head of a decrypted request: origin-form, Host the CONNECT target (the
 * name the policy judged, never the client's spelling), hop-by-hop fields removed, the
 * body framed by a field written here; masked credentials substituted and a SigV4
 * request signed again as on the plain path (forward_head_fields, resign.c). -1: the
 * request was refused. */
static int
term_build_head(struct conn *c, const struct http_head *h, struct http_str path)
{
	struct buf q = { 0 };
	char host[DOM_HOST_MAX + 16];
	int rc;

	if (c->term->kind == HOST_IPV6)
		snprintf(host, sizeof(host), "[%s]", c->term->host);
	else
		snprintf(host, sizeof(host), "%s", c->term->host);
	if (c->term->port != 443)
		snprintf(
		    host + strlen(host), sizeof(host) - strlen(host), ":%u", c->term->port);
	buf_add(&q, h->method.p, h->method.n);
	buf_add(&q, " ", 1);
	if (path.n == 0 || path.p[0] == '?')
		buf_add(&q, "/", 1);
	buf_add(&q, path.p, path.n);
	buf_addf(&q, " HTTP/1.1\r\nHost: %s\r\n", host);
	forward_head_fields(c, h, &q);
	rc = forward_head_end(c, h, host, &q);
	explicit_bzero(q.p, q.cap);
	buf_free(&q);
	return rc;
}

/* The credentials injectable here (always, over terminated TLS) and the SigV4 plan:
 * -1 when the request was refused. */
static int
term_creds(struct conn *c, const struct http_head *h, struct http_str path)
{
	struct buf tg = { 0 }, url = { 0 };
	int rc;

	forward_creds(c, true);
	if (proxy_creds(c->px)->naws == 0)
		return 0;
	if (path.n == 0 || path.p[0] == '?')
		buf_addc(&tg, '/');
	buf_add(&tg, path.p, path.n);
	buf_addf(
	    &url, c->term->kind == HOST_IPV6 ? "https://[%s]" : "https://%s", c->term->host);
	if (c->term->port != 443)
		buf_addf(&url, ":%u", c->term->port);
	buf_add(&url, tg.p + tg.off, tg.len);
	rc = resign_plan(c, h, tg.p + tg.off, tg.len, url.p + url.off, url.len, true);
	buf_free(&tg);
	buf_free(&url);
	return rc;
}

/* Refuse with status and why (logged, and the body), keeping the tunnel when it can. */
static void
term_refuse(struct conn *c, int status, const char *phrase, const char *why, bool keep)
{
	char *body = xasprintf("%s\n", why);

	if (c->rq->verdict != VERDICT_DENY)
		c->rq->verdict = VERDICT_DENY;
	proxy_request_set_reason(c->rq, why, strlen(why));
	conn_reply(c, status, phrase, guard_headers, body, keep);
	free(body);
}

void
term_request(struct conn *c, const struct http_head *h)
{
	struct http_str path, auth;
	const char *why;
	bool allowed;

	if (http_str_eq(h->method, "CONNECT")) {
		term_refuse(
		    c, 400, "Bad Request", "CONNECT inside a TLS-terminated tunnel", false);
		return;
	}
	if (http_tunnel_target(h->target, &path, &auth) == -1) {
		term_refuse(c, 400, "Bad Request", "bad request target", false);
		return;
	}
	/* The same decision as for a plain request, on the CONNECT target (a reload may
	 * have changed it since the tunnel opened); --ask sends a host no rule decides to
	 * the decider. */
	allowed = proxy_decide(c->px, c->pp, c->rq, c->term->host, strlen(c->term->host),
		      c->term->port) != 0;
	if (!allowed && ask_needed(c, false) == ASK_NO) {
		conn_reply(c, 403, "Forbidden",
		    "Content-Type: text/plain\r\n"
		    "X-Proxy-Error: blocked-by-allowlist\r\n",
		    "Connection blocked by network allowlist\n", true);
		return;
	}
	/* RFC 9112 §3.2, whatever requireHostMatch says. */
	if (h->minor == 1 && http_field_count(h, "host", NULL) == 0) {
		term_refuse(
		    c, 400, "Bad Request", "HTTP/1.1 request without a Host header", false);
		return;
	}
	if (c->pp->require_host_match) {
		if (c->term->sni_bad) {
			term_refuse(c, 421, "Misdirected Request",
			    "TLS server name could not be read", true);
			return;
		}
		if (c->term->sni[0] != '\0' && strcmp(c->term->sni, c->term->host) != 0) {
			term_refuse(c, 421, "Misdirected Request",
			    "TLS server name does not match the CONNECT target", true);
			return;
		}
		if ((why = forward_host_mismatch(h, c->rq, 443)) != NULL) {
			term_refuse(c, 421, "Misdirected Request", why, true);
			return;
		}
		if (auth.n > 0) {
			char a[DOM_HOST_MAX + 1];
			size_t hl = auth.n;
			const char *colon = memrchr(auth.p, ':', auth.n);

			if (colon != NULL && memchr(auth.p, ']', auth.n) <= (const void *)colon)
				hl = (size_t)(colon - auth.p);
			if (host_canonicalise(auth.p, hl, a) == HOST_MALFORMED ||
			    strcmp(a, c->term->host) != 0) {
				term_refuse(c, 421, "Misdirected Request",
				    "request target does not match the CONNECT target", true);
				return;
			}
		}
	}
	if (term_creds(c, h, path) == -1)
		return;
	proxy_route(c->pp, c->rq, true, &c->route);
	free(c->rq->route);
	c->rq->route = route_describe(&c->route);
	if (term_build_head(c, h, path) == -1)
		return;
	/* With a decider, each decrypted request is asked like a plain one, with the
	 * server name the client's TLS named; an allow's header edits apply to the head
	 * just built, a refusal is answered inside the TLS session. */
	if (ask_needed(c, allowed) == ASK_YES) {
		forward_ask(
		    c, h, path.p, path.n, c->term->sni[0] != '\0' ? c->term->sni : NULL);
		return;
	}
	forward_send(c, h);
}
