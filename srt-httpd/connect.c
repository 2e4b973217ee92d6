/*
 * CONNECT tunnels (BEHAVIOR §3.2): authority-form target, the decision, refuseOpaqueTunnels,
 * the dial by its route (direct, or a CONNECT through the parent or the inspection proxy),
 * then the shared splice relay. Every refusal ends the connection.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "httpd.h"
#include "util.h"


/* "host:port" or "[v6]:port": 0 or -1. */
static int
connect_parse_target(struct http_str t, const char **host, size_t *hostlen, uint16_t *port)
{
	const char *end = t.p + t.n, *colon;

	if (t.n == 0)
		return -1;
	if (t.p[0] == '[') {
		const char *rb = memchr(t.p, ']', t.n);

		if (rb == NULL || rb == t.p + 1 || rb + 1 >= end || rb[1] != ':')
			return -1;
		*host = t.p + 1;
		*hostlen = (size_t)(rb - t.p - 1);
		colon = rb + 1;
	} else {
		colon = memchr(t.p, ':', t.n);
		if (colon == NULL || colon == t.p ||
		    memchr(colon + 1, ':', (size_t)(end - colon - 1)))
			return -1;
		*host = t.p;
		*hostlen = (size_t)(colon - t.p);
	}
	return port_parse(colon + 1, (size_t)(end - colon - 1), port);
}

static void
connect_answered(void *arg, const struct ask_answer *a)
{
	struct conn *c = arg;

	if (!a->allow)
		httpd_ask_refuse(c, a, false);
	else {
		/* A tunnel has no head to edit: an allow's header edits do not apply. */
		httpd_ask_allowed(c, a);
		httpd_dial(c);
	}
	if (!a->sync)
		conn_run(c);
}

void
connect_ask_send(struct proxy *px, const struct http_head *h, const struct proxy_request *rq,
    ask_cb cb, void *arg, struct ask_wait **slot)
{
	const char *names[HTTP_HEADERS_MAX], *values[HTTP_HEADERS_MAX];
	size_t namelen[HTTP_HEADERS_MAX], valuelen[HTTP_HEADERS_MAX], first;
	struct decider_req r = { 0 };
	char *hosthdr = NULL, *path = xstrndup(h->target.p, h->target.n);

	if (http_field_count(h, "host", &first) > 0)
		hosthdr = xstrndup(h->fields[first].value.p, h->fields[first].value.n);
	r.method = "CONNECT";
	r.host = rq->host;
	r.port = rq->port;
	r.host_header = hosthdr;
	r.path = path;
	httpd_req_headers(h, &r, names, namelen, values, valuelen);
	ask_send(px, &r, cb, arg, slot, NULL);
	free(hosthdr);
	free(path);
}

static void
connect_ask(struct conn *c, const struct http_head *h)
{
	c->st = CONN_ASKING;
	connect_ask_send(c->px, h, c->rq, connect_answered, c, &c->ask);
}

void
connect_start(struct conn *c, const struct http_head *h)
{
	const char *host;
	size_t hostlen;
	uint16_t port;
	char line[600];
	bool allowed;

	/* Whatever follows the head is tunnel payload, whatever the head says. */
	c->req_framing = HTTP_BODY_NONE;
	c->req_done = true;
	if (!httpd_authorized(c, h, false))
		return;
	if (connect_parse_target(h->target, &host, &hostlen, &port) == -1) {
		httpd_deny(c, 400, NULL, "bad CONNECT target", NULL, false);
		return;
	}
	allowed = proxy_decide(c->px, c->pp, c->rq, host, hostlen, port) != 0;
	if (!allowed && ask_needed(c, false) == ASK_NO) {
		const char *r = c->rq->reason ? c->rq->reason : "Forbidden";

		/* The reason goes in the status line, where a client shows it. */
		proxy_sanitize_reason(r, strlen(r), line, sizeof(line));
		conn_reply(c, 403, line[0] ? line : "Forbidden",
		    "Content-Type: text/plain\r\n"
		    "X-Proxy-Error: blocked-by-allowlist\r\n",
		    "Connection blocked by network allowlist", false);
		return;
	}
	/*
	 * tlsTerminate: the tunnel is terminated if it carries TLS (terminate.c). Then, as
	 * the reference does, the decider is not asked about the CONNECT but about each
	 * request decrypted from it (term_request), with the TLS server name; a tunnel
	 * that turns out to carry something else is asked about then, as a CONNECT.
	 */
	if (proxy_term_wanted(c->pp, c->rq)) {
		bool ask = ask_needed(c, allowed) == ASK_YES;

		if (!allowed) {
			/* --ask, a host no rule decides: its requests will be asked. */
			c->rq->verdict = VERDICT_ALLOW;
			free(c->rq->rule);
			c->rq->rule = xstrdup("decider");
			proxy_request_set_reason(c->rq, NULL, 0);
		}
		term_connect(c, h, ask);
		return;
	}
	/* Not terminated (no tlsTerminate, or an excluded host): a tunnel srt cannot see
	 * into. */
	if (c->pp->refuse_opaque_tunnels) {
		free(c->rq->rule);
		c->rq->rule = xstrdup(DECISION_RULE_OPAQUE);
		proxy_request_set_reason(c->rq, OPAQUE_REASON, strlen(OPAQUE_REASON));
		if (!proxy_options(c->px)->audit) {
			c->rq->verdict = VERDICT_DENY;
			conn_reply(c, 403, "Forbidden",
			    "Content-Type: text/plain\r\n"
			    "X-Proxy-Error: blocked-by-sandbox-runtime\r\n",
			    OPAQUE_REASON, false);
			return;
		}
		c->rq->verdict = VERDICT_AUDIT_DENY;
		c->rq->would_deny = true;
	}
	proxy_route(c->pp, c->rq, true, &c->route);
	if (ask_needed(c, allowed) == ASK_YES) {
		connect_ask(c, h);
		return;
	}
	httpd_dial(c);
}
