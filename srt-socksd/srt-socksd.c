/*
 * srt-socksd: the SOCKS5 filtering proxy (SPEC §2, §4; BEHAVIOR §3.4). The shared core
 * (lib/proxyd/proxy.c) owns the command line, listeners, policy, log, dial and relay; this file
 * is the SOCKS5 conversation: handshake through lib/proxyd/socks5.c, the decision, the reply,
 * and the in-band SSH refusal for denied CONNECTs to port 22. The dial goes by its route:
 * a parent proxy or the inspection proxy is asked for a CONNECT to the destination.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "handoff.h"
#include "log.h"
#include "proxy.h"
#include "resolver.h"
#include "socks5.h"
#include "ssh_refusal.h"
#include "sys.h"
#include "util.h"

/* After the last reply: how long, and how many bytes, we read and discard before closing.
 * Closing a socket with unread input makes the kernel send RST, which can destroy the
 * reply (or the SSH refusal) before the client has read it. */
#define SOCKSD_LINGER_MS 5000u
#define SOCKSD_LINGER_BYTES (64u * 1024)
/* Bytes the client sent after its request, kept for upstream while we dial. */
#define SOCKSD_EARLY_MAX 16384u
#define SOCKSD_SSH_PORT 22
/* The reason of a refusal under refuseOpaqueTunnels. */
#define SOCKSD_OPAQUE_REASON "SOCKS tunnels cannot be inspected (refuseOpaqueTunnels)"
/* The route of a CONNECT handed to srt-httpd for TLS termination (as srt-httpd names a
 * terminated CONNECT's). */
#define SOCKSD_TERM_ROUTE "tls-terminated"

enum socksd_phase {
	SOCKSD_HANDSHAKE, /* greeting, auth, request */
	SOCKSD_DIALING,   /* allowed: proxy_dial() in progress */
	SOCKSD_FINISHING, /* writing the last reply */
	SOCKSD_LINGER,    /* reply sent and write side shut: draining the client */
};

struct socksd_conn {
	struct proxy *px;
	int fd;
	bool registered; /* fd is on the loop */
	bool client_eof; /* the client half-closed while we were dialing */
	enum socksd_phase phase;
	char client[PROXY_CLIENT_MAX];
	struct socks5 parser;
	struct ev_timer timer;
	struct proxy_policy *pp;
	struct proxy_request *rq;
	struct proxy_dial *dial;
	struct resolver_query *check; /* socksd_handoff_check's lookup, or NULL */
	size_t discarded;
	uint8_t in[SOCKSD_EARLY_MAX]; /* unparsed input, then the early data */
	size_t inlen;
	uint8_t out[2 + 2 + SOCKS5_REPLY_MAX + SSH_REFUSAL_MAX];
	size_t outoff, outlen;
};

/* --auth USER:PASS, split once for the parser (configuration, read-only afterwards). */
static struct {
	bool parsed;
	char *user, *pass;
} socksd_auth;

static void socksd_io(struct evloop *, int, unsigned, void *);
static void socksd_close(struct socksd_conn *c);

static void
socksd_auth_load(struct proxy *px)
{
	const struct proxy_opts *o = proxy_options(px);
	char *colon;

	if (socksd_auth.parsed)
		return;
	socksd_auth.parsed = true;
	if (o->auth == NULL)
		return;
	/* RFC 1929 credentials are USER:PASS split at the first colon (a password may hold
	 * colons, a username may not); the core has checked that there is one. */
	socksd_auth.user = xstrdup(o->auth);
	colon = strchr(socksd_auth.user, ':');
	if (colon == NULL)
		fatalx("--auth: expected USER:PASS");
	*colon = '\0';
	socksd_auth.pass = colon + 1;
	if (strlen(socksd_auth.user) > 255 || strlen(socksd_auth.pass) > 255)
		log_warnx("--auth: RFC 1929 allows at most 255 bytes each for user and "
			  "password; no client will authenticate");
}

/* Register, re-arm or drop fd on the loop according to what the phase waits for. */
static int
socksd_watch(struct socksd_conn *c)
{
	struct evloop *loop = proxy_loop(c->px);
	unsigned want = 0;

	if (c->outoff < c->outlen)
		want |= EV_WRITE;
	switch (c->phase) {
	case SOCKSD_HANDSHAKE:
	case SOCKSD_LINGER:
		want |= EV_READ;
		break;
	case SOCKSD_DIALING:
		/* Keep reading early data (and noticing a reset) while there is room. */
		if (!c->client_eof && c->inlen < sizeof(c->in))
			want |= EV_READ;
		break;
	case SOCKSD_FINISHING:
		break;
	}
	if (want == 0) {
		if (c->registered)
			evloop_del(loop, c->fd);
		c->registered = false;
		return 0;
	}
	if (c->registered)
		return evloop_mod(loop, c->fd, want);
	if (evloop_add(loop, c->fd, want, socksd_io, c) == -1)
		return -1;
	c->registered = true;
	return 0;
}

static void
socksd_queue(struct socksd_conn *c, const void *p, size_t n)
{
	/* out is sized for the largest sequence we ever queue: 2 + 2 + 10 + refusal. */
	if (n > sizeof(c->out) - c->outlen)
		fatalx("socks reply buffer overflow");
	memcpy(c->out + c->outlen, p, n);
	c->outlen += n;
}

/* Write what is queued; 0 when all is out, 1 when the socket is full, -1 on error. */
static int
socksd_flush(struct socksd_conn *c)
{
	ssize_t n;

	while (c->outoff < c->outlen) {
		n = sys_sock_send(c->fd, c->out + c->outoff, c->outlen - c->outoff);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 1;
		if (n == -1)
			return -1;
		c->outoff += (size_t)n;
	}
	c->outoff = c->outlen = 0;
	return 0;
}

static void
socksd_close(struct socksd_conn *c)
{
	struct proxy *px = c->px;

	if (c->dial != NULL)
		proxy_dial_cancel(c->dial);
	if (c->check != NULL)
		resolver_cancel(c->check);
	evtimer_del(proxy_loop(px), &c->timer);
	if (c->registered)
		evloop_forget(proxy_loop(px), c->fd);
	sys_sockclose(c->fd);
	proxy_request_release(&c->rq, &c->pp);
	explicit_bzero(&c->parser, sizeof(c->parser));
	free(c);
	proxy_conn_closed(px);
}

/* The last reply is queued: write it, then shut our side and linger (see above). */
static void
socksd_finish(struct socksd_conn *c)
{
	int r;

	c->phase = SOCKSD_FINISHING;
	evtimer_add(proxy_loop(c->px), &c->timer, SOCKSD_LINGER_MS);
	r = socksd_flush(c);
	if (r == -1) {
		socksd_close(c);
		return;
	}
	if (r == 0) {
		sys_shutdown_wr(c->fd);
		c->phase = SOCKSD_LINGER;
	}
	if (socksd_watch(c) == -1)
		socksd_close(c);
}

/* Log the decision now (a refusal's line is final at once) and send the last reply. */
static void
socksd_refuse(struct socksd_conn *c, enum socks5_rep rep)
{
	uint8_t reply[SOCKS5_REPLY_MAX];

	c->rq->status = (int)rep;
	proxy_log(c->px, c->rq);
	proxy_request_release(&c->rq, &c->pp);
	socksd_queue(c, reply, socks5_reply_build(reply, rep));
	socksd_finish(c);
}

/* BEHAVIOR §3.4: grant the CONNECT, then be an SSH server that refuses with the reason,
 * so that ssh(1) prints it ("Received disconnect from ...: <reason>"). */
static void
socksd_ssh_refuse(struct socksd_conn *c)
{
	uint8_t reply[SOCKS5_REPLY_MAX], refusal[SSH_REFUSAL_MAX];
	const char *reason = c->rq->reason != NULL ? c->rq->reason : DOM_REASON_NOT_ALLOWED;
	size_t n;

	n = ssh_refusal_build(reason, strlen(reason), refusal, sizeof(refusal));
	c->rq->status = SOCKS5_REP_SUCCEEDED;
	proxy_log(c->px, c->rq);
	proxy_request_release(&c->rq, &c->pp);
	socksd_queue(c, reply, socks5_reply_build(reply, SOCKS5_REP_SUCCEEDED));
	socksd_queue(c, refusal, n);
	socksd_finish(c);
}

static void
socksd_dialed(void *arg, const struct proxy_dial_result *res)
{
	struct socksd_conn *c = arg;
	struct proxy *px = c->px;
	struct proxy_request *rq;
	uint8_t *to_client;
	size_t n;

	c->dial = NULL;
	switch (res->status) {
	case PROXY_DIAL_OK:
		break;
	case PROXY_DIAL_BLOCKED:
		socksd_refuse(c, SOCKS5_REP_NOT_ALLOWED);
		return;
	default:
		socksd_refuse(c, SOCKS5_REP_HOST_UNREACHABLE);
		return;
	}
	/* Hand both sockets to the relay: whatever of our replies is still unsent goes first,
	 * then "granted", then what a parent sent after its own reply, then the upstream's
	 * bytes; the early data goes upstream first. */
	to_client = xmalloc(c->outlen - c->outoff + SOCKS5_REPLY_MAX + res->early_len);
	n = c->outlen - c->outoff;
	memcpy(to_client, c->out + c->outoff, n);
	n += socks5_reply_build(to_client + n, SOCKS5_REP_SUCCEEDED);
	if (res->early_len > 0)
		memcpy(to_client + n, res->early, res->early_len);
	n += res->early_len;
	evtimer_del(proxy_loop(px), &c->timer);
	if (c->registered)
		evloop_detach(proxy_loop(px), c->fd);
	rq = c->rq;
	rq->status = SOCKS5_REP_SUCCEEDED;
	c->rq = NULL;
	proxy_policy_put(c->pp);
	c->pp = NULL;
	explicit_bzero(&c->parser, sizeof(c->parser));
	/* proxy_tunnel owns fd, server fd and rq from here, even on failure, and reports the
	 * connection closed itself. */
	proxy_tunnel(px, c->fd, res->fd, rq, to_client, n, c->in, c->inlen);
	free(to_client);
	free(c);
}

/* Printable ASCII of a request host for the log, when no decision canonicalised it. */
static void
socksd_host_text(const struct socks5_request *r, char *out, size_t outlen)
{
	size_t i;

	for (i = 0; i < r->hostlen && i + 1 < outlen; i++)
		out[i] = r->host[i] >= 0x20 && r->host[i] < 0x7f ? r->host[i] : '?';
	out[i] = '\0';
}

/*
 * tlsTerminate (issue #14): an allowed CONNECT to a host srt terminates goes to srt-httpd
 * over --handoff-fd, which srt-launch made; srt-httpd decides again, then terminates the
 * TLS or, when the tunnel carries none, tunnels it opaque or refuses it under
 * refuseOpaqueTunnels, as for an HTTP CONNECT after its 200. Here: "succeeded" is sent,
 * the socket goes with a handoff message (handoff.h), and this record says where it went.
 */
static void
socksd_handoff(struct socksd_conn *c)
{
	struct proxy *px = c->px;
	uint8_t msg[HANDOFF_MSG_LEN], reply[SOCKS5_REPLY_MAX];
	const char *why = NULL;
	char *err = NULL;

	if (c->inlen > 0) {
		/* Bytes past the request: the TLS library must read the ClientHello first. */
		why = "bytes sent before the tunnel was established";
		c->rq->verdict = VERDICT_DENY;
		proxy_request_set_reason(c->rq, why, strlen(why));
		socksd_refuse(c, SOCKS5_REP_GENERAL_FAILURE);
		return;
	}
	if (handoff_encode(c->rq->host, c->rq->port, c->client, msg) == -1) {
		why = "cannot be handed to srt-httpd";
		c->rq->verdict = VERDICT_ERROR;
		proxy_request_set_reason(c->rq, why, strlen(why));
		socksd_refuse(c, SOCKS5_REP_GENERAL_FAILURE);
		return;
	}
	/* A few bytes to a client that waits for them: they go at once, or the client is
	 * not reading and the tunnel ends here. */
	socksd_queue(c, reply, socks5_reply_build(reply, SOCKS5_REP_SUCCEEDED));
	c->rq->status = SOCKS5_REP_SUCCEEDED;
	if (socksd_flush(c) != 0)
		why = "the SOCKS reply could not be sent";
	else if (handoff_send(proxy_options(px)->handoff_fd, msg, c->fd) == -1)
		why = err = xasprintf("srt-httpd did not take the tunnel: %s", strerror(errno));
	if (why != NULL) {
		c->rq->verdict = VERDICT_ERROR;
		proxy_request_set_reason(c->rq, why, strlen(why));
	} else {
		free(c->rq->route);
		c->rq->route = xstrdup(SOCKSD_TERM_ROUTE);
		log_debug("%s: CONNECT %s port %u handed to srt-httpd for TLS termination",
		    c->client, c->rq->host, c->rq->port);
	}
	free(err);
	proxy_log(px, c->rq);
	/* srt-httpd holds the socket now (or nobody will): ours goes, and so does its
	 * registration, which close(2) would not remove while the file lives on there. */
	if (c->registered)
		evloop_del(proxy_loop(px), c->fd);
	c->registered = false;
	socksd_close(c);
}

/* The lookup of socksd_handoff_check: hand over, or refuse as a blocked dial is. */
static void
socksd_checked(void *arg, int status, const struct ip_addr *addrs, size_t naddrs)
{
	struct socksd_conn *c = arg;
	struct guard_result gr;
	char why[DOM_HOST_MAX + 128];

	c->check = NULL;
	if (status != 0) {
		snprintf(why, sizeof(why), "lookup of %s failed: %s", c->rq->host,
		    resolver_strerror(status));
		c->rq->verdict = VERDICT_ERROR;
		proxy_request_set_reason(c->rq, why, strlen(why));
		socksd_refuse(c, SOCKS5_REP_HOST_UNREACHABLE);
		return;
	}
	if (guard_check(c->pp->pol, c->rq->host, c->rq->port, addrs, naddrs,
		proxy_local_addrs(c->px), NULL, &gr) == -1 &&
	    !proxy_options(c->px)->audit) {
		c->rq->verdict = VERDICT_DENY;
		proxy_request_set_reason(c->rq, gr.message, strlen(gr.message));
		socksd_refuse(c, SOCKS5_REP_NOT_ALLOWED);
		return;
	}
	socksd_handoff(c);
}

/*
 * srt-httpd's dial applies the resolved-address guard, but only after srt-socksd has
 * answered "succeeded" and handed the tunnel over: a refusal then could only close it,
 * which the client cannot tell from a network failure. So a direct tunnel to a name is
 * looked up and judged here first, and a refused address is refused in SOCKS ("not
 * allowed by ruleset", as the blocked dial of a tunnel kept here is). srt-httpd still
 * judges its own dial: this is for the answer, not the security.
 */
static void
socksd_handoff_check(struct socksd_conn *c)
{
	struct route route;

	proxy_route(c->pp, c->rq, true, &route);
	if (route.kind != ROUTE_DIRECT || c->rq->kind == HOST_IPV4 ||
	    c->rq->kind == HOST_IPV6) {
		socksd_handoff(c);
		return;
	}
	c->phase = SOCKSD_DIALING;
	c->check = resolver_lookup(proxy_resolver(c->px), c->rq->host, socksd_checked, c);
	if (c->check == NULL)
		fatalx("out of memory");
	if (socksd_watch(c) == -1)
		socksd_close(c);
}

static void
socksd_request(struct socksd_conn *c)
{
	const struct socks5_request *r = &c->parser.req;
	struct route route;
	bool allowed, handoff;

	c->pp = proxy_policy_get(c->px);
	c->rq = xmalloc(sizeof(*c->rq));
	proxy_request_init(c->px, c->rq, "socks5", c->client);
	evtimer_del(proxy_loop(c->px), &c->timer);
	allowed = proxy_decide(c->px, c->pp, c->rq, r->host, r->hostlen, r->port);
	/* tlsTerminate, with srt-httpd to hand it to: an allowed tunnel to a host not in
	 * excludeDomains is terminated there, so it is not opaque. */
	handoff = allowed && proxy_options(c->px)->handoff_fd != -1 &&
	    proxy_term_wanted(c->pp, c->rq);
	/* refuseOpaqueTunnels: any other SOCKS tunnel can never be seen into, so it is
	 * refused, whatever the lists say (the reference, which never terminates a SOCKS
	 * tunnel, refuses every one first). */
	if (c->pp->refuse_opaque_tunnels && !handoff) {
		free(c->rq->rule);
		c->rq->rule = xstrdup(DECISION_RULE_OPAQUE);
		proxy_request_set_reason(
		    c->rq, SOCKSD_OPAQUE_REASON, strlen(SOCKSD_OPAQUE_REASON));
		if (!proxy_options(c->px)->audit) {
			c->rq->verdict = VERDICT_DENY;
			socksd_refuse(c, SOCKS5_REP_GENERAL_FAILURE);
			return;
		}
		c->rq->verdict = VERDICT_AUDIT_DENY;
		c->rq->would_deny = true;
		allowed = c->rq->kind != HOST_MALFORMED;
	}
	if (!allowed) {
		/* A malformed host (a NUL, a control) is never answered in SSH: 02. */
		if (r->port == SOCKSD_SSH_PORT && c->rq->kind != HOST_MALFORMED)
			socksd_ssh_refuse(c);
		else
			socksd_refuse(c, SOCKS5_REP_NOT_ALLOWED);
		return;
	}
	if (handoff) {
		socksd_handoff_check(c);
		return;
	}
	c->phase = SOCKSD_DIALING;
	proxy_route(c->pp, c->rq, true, &route);
	c->dial = proxy_dial(c->px, c->pp, c->rq, &route, true, socksd_dialed, c);
	if (socksd_watch(c) == -1)
		socksd_close(c);
}

/* A protocol failure before any destination was judged, or BIND / UDP ASSOCIATE. */
static void
socksd_protocol_fail(struct socksd_conn *c)
{
	const struct socks5 *s = &c->parser;

	log_debug("%s: %s (in %s)", c->client, socks5_error_str(s->error),
	    socks5_state_str(s->state));
	if (s->error == SOCKS5_ERR_CMD) {
		/* A destination was named: record the refusal like any other. */
		c->rq = xmalloc(sizeof(*c->rq));
		proxy_request_init(c->px, c->rq, "socks5", c->client);
		socksd_host_text(&s->req, c->rq->host, sizeof(c->rq->host));
		c->rq->port = s->req.port;
		c->rq->kind = HOST_MALFORMED;
		c->rq->verdict = VERDICT_DENY;
		proxy_request_set_reason(
		    c->rq, socks5_error_str(s->error), strlen(socks5_error_str(s->error)));
		c->rq->status = SOCKS5_REP_CMD_UNSUPPORTED;
		proxy_log(c->px, c->rq);
		proxy_request_release(&c->rq, &c->pp);
	}
	if (s->replylen == 0) {
		socksd_close(c);
		return;
	}
	socksd_queue(c, s->reply, s->replylen);
	socksd_finish(c);
}

/* Run the parser over what has been read. */
static void
socksd_parse(struct socksd_conn *c)
{
	enum socks5_event ev;
	size_t used;

	for (;;) {
		ev = socks5_feed(&c->parser, c->in, c->inlen, &used);
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
		switch (ev) {
		case SOCKS5_EV_MORE:
			goto out;
		case SOCKS5_EV_REPLY:
			socksd_queue(c, c->parser.reply, c->parser.replylen);
			continue;
		case SOCKS5_EV_REQUEST:
			/* Replies queued so far go out with the final one (or the tunnel's). */
			socksd_request(c);
			return;
		case SOCKS5_EV_CLOSE:
			socksd_protocol_fail(c);
			return;
		}
	}
out:
	if (socksd_flush(c) == -1 || socksd_watch(c) == -1)
		socksd_close(c);
}

/* Read into c->in; 1 data, 0 EOF, -1 error or nothing to read (errno EAGAIN). */
static int
socksd_read(struct socksd_conn *c)
{
	ssize_t n;

	do
		n = sys_sock_recv(c->fd, c->in + c->inlen, sizeof(c->in) - c->inlen);
	while (n == -1 && errno == EINTR);
	if (n > 0) {
		c->inlen += (size_t)n;
		return 1;
	}
	return n == 0 ? 0 : -1;
}

static void
socksd_linger_read(struct socksd_conn *c)
{
	uint8_t sink[4096];
	ssize_t n;

	for (;;) {
		n = sys_sock_recv(c->fd, sink, sizeof(sink));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return;
		if (n <= 0)
			break;
		c->discarded += (size_t)n;
		if (c->discarded > SOCKSD_LINGER_BYTES)
			break;
	}
	socksd_close(c);
}

static void
socksd_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct socksd_conn *c = arg;
	int r;

	(void)loop;
	(void)fd;
	if (events & EV_WRITE) {
		r = socksd_flush(c);
		if (r == -1) {
			socksd_close(c);
			return;
		}
		if (r == 0 && c->phase == SOCKSD_FINISHING) {
			sys_shutdown_wr(c->fd);
			c->phase = SOCKSD_LINGER;
		}
	}
	if (events & (EV_READ | EV_HUP)) {
		switch (c->phase) {
		case SOCKSD_HANDSHAKE:
			r = socksd_read(c);
			if (r == 1) {
				socksd_parse(c);
				return;
			}
			if (r == 0 || errno != EAGAIN) {
				/* The client left or broke off mid-handshake: nothing to log. */
				socksd_close(c);
				return;
			}
			break;
		case SOCKSD_DIALING:
			r = socksd_read(c);
			if (r == 0)
				c->client_eof = true; /* half-close: the relay will see it too */
			else if (r == -1 && errno != EAGAIN) {
				/* The client is gone: abandon the dial, log what happened. */
				c->rq->verdict = VERDICT_ERROR;
				proxy_request_set_reason(
				    c->rq, "client went away during the dial", 32);
				proxy_log(c->px, c->rq);
				socksd_close(c);
				return;
			}
			break;
		case SOCKSD_LINGER:
			socksd_linger_read(c);
			return;
		case SOCKSD_FINISHING:
			break;
		}
	}
	if (socksd_watch(c) == -1)
		socksd_close(c);
}

static void
socksd_timeout(struct evloop *loop, void *arg)
{
	struct socksd_conn *c = arg;

	(void)loop;
	if (c->phase == SOCKSD_HANDSHAKE)
		log_debug("%s: handshake timed out", c->client);
	socksd_close(c);
}

static void
socksd_accept(struct proxy *px, int fd, const char *client)
{
	struct socksd_conn *c;

	socksd_auth_load(px);
	c = xcalloc(1, sizeof(*c));
	c->px = px;
	c->fd = fd;
	c->phase = SOCKSD_HANDSHAKE;
	snprintf(c->client, sizeof(c->client), "%s", client);
	socks5_init(&c->parser, socksd_auth.user, socksd_auth.pass);
	evtimer_init(&c->timer, socksd_timeout, c);
	/* Greeting, auth and request must be complete within --head-timeout of the accept,
	 * however slowly the bytes come. */
	evtimer_add(
	    proxy_loop(px), &c->timer, (uint64_t)proxy_options(px)->head_timeout_s * 1000);
	if (socksd_watch(c) == -1) {
		log_warn("%s: event loop", client);
		socksd_close(c);
	}
}

/* Past the connection cap: "no acceptable methods" ends any SOCKS5 client's attempt
 * cleanly, whatever it offers. Then our side is shut, so the client sees the reply and
 * EOF; the core reads and drops its greeting before closing, so no reset destroys the
 * reply. */
static void
socksd_refuse_cap(struct proxy *px, int fd)
{
	static const uint8_t busy[2] = { SOCKS5_VERSION, SOCKS5_METHOD_REJECT };

	(void)px;
	/* Best effort, never blocking: a full socket buffer just loses the courtesy. */
	(void)!sys_sock_send(fd, busy, sizeof(busy)); /* non-blocking (accepted so) */
	(void)sys_shutdown_wr(fd);
}

static const struct proxy_proto socksd_proto = {
	.prog = "srt-socksd",
	.default_listen = "127.0.0.1:1080",
	.usage = "srt-socksd (-p POLICY | -s SETTINGS | --policy-fd N) [-l ADDR]... "
		 "[--listen-fd N]...\n"
		 "                  [--listen-any-interface]\n"
		 "                  [--log FILE | --log-fd N] [--audit] [--auth USER:PASS] "
		 "[--lifeline-fd N]\n"
		 "                  [--max-conns N] [--idle-timeout SEC] [--head-timeout SEC]\n"
		 "                  [--handoff-fd N] [--ready-fd N] [--no-sandbox] [-d]\n"
		 "       srt-socksd --relay-to PORT [-l ADDR]... [--listen-fd N]... "
		 "[--lifeline-fd N]\n"
		 "                  [--max-conns N] [--idle-timeout SEC] [--no-sandbox] [-d]",
	.accept = socksd_accept,
	.refuse = socksd_refuse_cap,
	.relay_accept = proxy_relay_accept,
};

int
main(int argc, char **argv)
{
	return proxy_main(argc, argv, &socksd_proto);
}
