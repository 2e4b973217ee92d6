/*
 * The link to the external decider (--decider-fd, or --decider-in and --decider-out):
 * srt-httpd(8), THE DECIDER PROTOCOL; the frames are lib/decider.c's.
 *
 * One link per process, made at start. It fails closed: a request is forwarded only on a
 * well-formed allow for its id that came in time. A verdict that does not come within
 * the timeout answers the request 503 and is dropped if it comes later; a frame that
 * breaks the protocol, or the decider closing its end, ends the link, and every request
 * waiting or still to come is answered 503. In proxy mode (srt proxy: the policy is the
 * decider's hello) the proxy then stops, as the reference's does.
 *
 * Which requests are asked: with --ask, those no rule of the policy decides (not on the
 * allow list, not on the deny list, and no strictAllowlist), each host:port once a run,
 * its answer remembered; without it, every request the rules allow.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "decider.h"
#include "httpd.h"
#include "settings.h"

#define ASK_OUT_MAX     (64u << 20)     /* queued for the decider: past it, it is gone */
#define ASK_REMEMBER    4096u           /* host:port answers kept by --ask */

struct ask_wait {
	uint64_t id;
	struct conn *c;                 /* NULL once the connection gave up */
	ask_cb cb;
	struct ev_timer timer;
	bool body_sent;                 /* need_body was answered */
	struct ask_wait *next;
	/* --ask: remember the answer under this key */
	char *key;
};

struct ask_memo {
	char *key;                      /* "host:port" */
	bool allow;
	int status;
	char *reason;
};

struct ask_link {
	struct proxy *px;
	struct evloop *loop;
	int in, out;
	struct buf rbuf, wbuf;
	struct buf early;               /* requests asked before the decider's hello: sent
	                                   once it comes (their timers run already) */
	bool hello;                     /* the decider's hello came */
	char *dead;                     /* why the link ended, or NULL */
	uint64_t last_id;
	struct ask_wait *waits;
	uint64_t *late;                 /* ids given up on: their verdicts are dropped */
	size_t nlate;
	struct ask_memo *memo;
	size_t nmemo;
	unsigned timeout_ms;
	struct ev_timer fail_timer;     /* fails the waits of a dead link, from the loop */
};

/* The process's one link (NULL without a decider): it is configuration, like the
 * policy. */
static struct ask_link *link_;

static void ask_die(struct ask_link *k, const char *why);
static void ask_fail_all(struct evloop *loop, void *arg);

static void
ask_late_add(struct ask_link *k, uint64_t id)
{
	size_t i, j = 0;

	/* Forget ids the window has passed. */
	for (i = 0; i < k->nlate; i++)
		if (k->last_id - k->late[i] < DECIDER_ID_WINDOW)
			k->late[j++] = k->late[i];
	k->nlate = j;
	k->late = xreallocarray(k->late, k->nlate + 1, sizeof(*k->late));
	k->late[k->nlate++] = id;
}

static bool
ask_late_take(struct ask_link *k, uint64_t id, bool keep)
{
	for (size_t i = 0; i < k->nlate; i++)
		if (k->late[i] == id) {
			if (!keep)
				k->late[i] = k->late[--k->nlate];
			return true;
		}
	return false;
}

static void
ask_flush(struct ask_link *k)
{
	ssize_t n;

	while (k->wbuf.len > 0 && k->dead == NULL) {
		n = write(k->out, k->wbuf.p + k->wbuf.off, k->wbuf.len);
		if (n > 0) {
			buf_consume(&k->wbuf, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			break;
		ask_die(k, n == 0 ? "decider closed the stream" : strerror(errno));
		return;
	}
	if (k->wbuf.len > ASK_OUT_MAX)
		ask_die(k, "not reading: too many bytes queued");
}

static void
ask_wait_unlink(struct ask_link *k, struct ask_wait *w)
{
	struct ask_wait **pp;

	for (pp = &k->waits; *pp != NULL; pp = &(*pp)->next)
		if (*pp == w) {
			*pp = w->next;
			break;
		}
	evtimer_del(k->loop, &w->timer);
	free(w->key);
	free(w);
}

static void
ask_memo_put(struct ask_link *k, const char *key, const struct ask_answer *a)
{
	struct ask_memo *m;

	if (key == NULL || k->nmemo >= ASK_REMEMBER)
		return;
	k->memo = xreallocarray(k->memo, k->nmemo + 1, sizeof(*k->memo));
	m = &k->memo[k->nmemo++];
	m->key = xstrdup(key);
	m->allow = a->allow;
	m->status = a->status;
	m->reason = a->reason != NULL ? xstrdup(a->reason) : NULL;
}

/* Give w its answer (the connection, if still there, takes it from here). */
static void
ask_finish(struct ask_link *k, struct ask_wait *w, const struct ask_answer *a)
{
	struct conn *c = w->c;
	ask_cb cb = w->cb;

	if (w->key != NULL && a->decided)
		ask_memo_put(k, w->key, a);
	if (c != NULL)
		c->ask = NULL;
	ask_wait_unlink(k, w);
	if (c != NULL)
		cb(c, a);
}

static void
ask_fail(struct ask_link *k, struct ask_wait *w, const char *why)
{
	struct ask_answer a = { .allow = false, .status = 503, .unavailable = true };
	char reason[256];

	snprintf(reason, sizeof(reason), "request decider: %s", why);
	a.reason = reason;
	ask_finish(k, w, &a);
}

static void
ask_die(struct ask_link *k, const char *why)
{
	if (k->dead != NULL)
		return;
	k->dead = xstrdup(why);
	log_warnx("decider: %s: every request it would decide is refused from now on", why);
	evloop_del(k->loop, k->in);
	if (k->out != k->in)
		evloop_del(k->loop, k->out);
	/* The waits are answered from the loop: the link may die inside ask_send, under a
	 * connection that is still being set up. */
	evtimer_add(k->loop, &k->fail_timer, 0);
}

static void
ask_fail_all(struct evloop *loop, void *arg)
{
	struct ask_link *k = arg;

	(void)loop;
	while (k->waits != NULL)
		ask_fail(k, k->waits, k->dead);
	if (proxy_policy_from_decider(k->px))
		proxy_shutdown(k->px, "the decider is gone");
}

static void
ask_timeout(struct evloop *loop, void *arg)
{
	struct ask_wait *w = arg;

	(void)loop;
	log_debug("decider: no verdict for request %llu in %u ms", (unsigned long long)w->id,
	    link_->timeout_ms);
	ask_late_add(link_, w->id);
	ask_fail(link_, w, "decider timed out");
}

/* The request body a need_body asks for: what came with the head, at most max bytes
 * (cut when there is more). */
static void
ask_send_body(struct ask_link *k, struct ask_wait *w, uint32_t max)
{
	struct conn *c = w->c;
	size_t have = 0;
	bool cut = false;

	if (c != NULL && !c->is_connect && c->req_framing == HTTP_BODY_LENGTH) {
		have = c->in.len < c->req_left ? c->in.len : (size_t)c->req_left;
		cut = c->req_left > have;
	} else if (c != NULL && !c->is_connect && c->req_framing == HTTP_BODY_CHUNKED)
		cut = true;
	if (have > max) {
		have = max;
		cut = true;
	}
	decider_encode_body(&k->wbuf, w->id, c != NULL ? c->in.p + c->in.off : NULL, have, cut);
	w->body_sent = true;
	evtimer_add(k->loop, &w->timer, k->timeout_ms);
	ask_flush(k);
}

static void
ask_on_verdict(struct ask_link *k, struct decider_verdict *v)
{
	struct ask_wait *w;
	struct ask_answer a = { 0 };

	for (w = k->waits; w != NULL; w = w->next)
		if (w->id == v->id)
			break;
	if (w == NULL) {
		/* Given up on: a late verdict is dropped; a need_body keeps the id. */
		if (ask_late_take(k, v->id, v->action == DECIDER_NEED_BODY))
			return;
		if (v->id < k->last_id && k->last_id - v->id >= DECIDER_ID_WINDOW)
			return;
		ask_die(k, "verdict for an id nothing waits on");
		return;
	}
	if (v->action == DECIDER_NEED_BODY) {
		if (w->body_sent) {
			ask_die(k, "a second need_body");
			return;
		}
		ask_send_body(k, w, v->max);
		return;
	}
	a.decided = true;
	a.allow = v->action == DECIDER_ALLOW;
	a.status = v->status;
	a.reason = v->reason;
	a.v = v;
	ask_finish(k, w, &a);
}

static void
ask_on_frame(struct ask_link *k, const char *f, size_t n)
{
	char why[DECIDER_WHY_MAX];
	struct diags errs = { 0 };
	struct decider_hello h;
	struct decider_verdict v;

	if (!k->hello) {
		if (decider_parse_hello(f, n, &h, why) != 0) {
			ask_die(k, why);
			return;
		}
		k->hello = true;
		if (proxy_policy_from_decider(k->px)) {
			if (proxy_policy_set_lists(k->px, &h.allowed, &h.denied, &errs) != 0) {
				ask_die(k, errs.msgs.n > 0 ? errs.msgs.v[0] : "bad hello");
				diags_free(&errs);
				decider_hello_free(&h);
				return;
			}
			log_info("decider: hello: %zu allowed and %zu denied entries", h.allowed.n,
			    h.denied.n);
		} else
			log_debug("decider: hello (its %zu + %zu entries are not used: the policy "
			    "decides which requests are asked)", h.allowed.n, h.denied.n);
		decider_hello_free(&h);
		if (k->early.len > 0) {
			buf_add(&k->wbuf, k->early.p + k->early.off, k->early.len);
			buf_consume(&k->early, k->early.len);
			ask_flush(k);
		}
		return;
	}
	if (decider_parse_verdict(f, n, &v, why) != 0) {
		ask_die(k, why);
		return;
	}
	ask_on_verdict(k, &v);
	decider_verdict_free(&v);
}

static void
ask_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct ask_link *k = arg;
	const char *f;
	uint32_t n;
	ssize_t r;
	int rc;

	(void)loop;
	if (fd == k->out && (events & EV_WRITE))
		ask_flush(k);
	if (fd != k->in || !(events & (EV_READ | EV_HUP)))
		return;
	for (;;) {
		char tmp[65536];

		r = read(k->in, tmp, sizeof(tmp));
		if (r > 0) {
			buf_add(&k->rbuf, tmp, (size_t)r);
			while (k->dead == NULL && (rc = decider_frame_next(&k->rbuf, &f, &n)) != 0) {
				if (rc == -1) {
					ask_die(k, "oversized frame");
					return;
				}
				ask_on_frame(k, f, n);
				buf_consume(&k->rbuf, 4 + (size_t)n);
			}
			if (k->dead != NULL)
				return;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && errno == EAGAIN)
			return;
		ask_die(k, r == 0 ? "decider closed the stream" : strerror(errno));
		return;
	}
}

static int
ask_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1 ? -1 : 0;
}

void
ask_start(struct proxy *px)
{
	const struct proxy_opts *o = proxy_options(px);
	struct ask_link *k;

	if (o->decider_in == -1)
		return;
	k = xcalloc(1, sizeof(*k));
	k->px = px;
	k->loop = proxy_loop(px);
	k->in = o->decider_in;
	k->out = o->decider_out;
	k->timeout_ms = o->decider_timeout_ms;
	evtimer_init(&k->fail_timer, ask_fail_all, k);
	if (ask_nonblock(k->in) == -1 || (k->out != k->in && ask_nonblock(k->out) == -1))
		fatal("decider descriptors");
	if (k->in == k->out) {
		if (evloop_add(k->loop, k->in, EV_READ | EV_WRITE | EV_EDGE, ask_io_cb, k) == -1)
			fatal("decider");
	} else if (evloop_add(k->loop, k->in, EV_READ | EV_EDGE, ask_io_cb, k) == -1 ||
	    evloop_add(k->loop, k->out, EV_WRITE | EV_EDGE, ask_io_cb, k) == -1)
		fatal("decider");
	link_ = k;
	decider_encode_hello(&k->wbuf);
	ask_flush(k);
}

bool
ask_active(void)
{
	return link_ != NULL;
}

/* Whether the policy let c's host through on a rule (then, without --ask, the decider
 * is asked too), or no rule decided it (then --ask asks). */
enum ask_need
ask_needed(struct conn *c, bool allowed)
{
	const struct proxy_opts *o;

	if (link_ == NULL)
		return ASK_NO;
	o = proxy_options(c->px);
	if (!o->ask)
		return allowed ? ASK_YES : ASK_NO;
	if (allowed || c->rq->rule != NULL || c->rq->kind == HOST_MALFORMED ||
	    (policy_option_flags(c->pp->pol) & SETTINGS_FLAG(strict_allowlist)) != 0)
		return ASK_NO;
	return ASK_YES;
}

int
ask_send(struct conn *c, const struct decider_req *r0, ask_cb cb)
{
	struct ask_link *k = link_;
	struct decider_req r = *r0;
	struct ask_answer a = { 0 };
	struct ask_wait *w;
	const char *why;
	char *key = NULL;

	if (k->dead != NULL) {
		a.status = 503;
		a.unavailable = true;
		a.reason = "request decider unavailable";
		cb(c, &a);
		return 0;
	}
	if (proxy_options(c->px)->ask) {
		key = xasprintf("%s:%u", r.host, r.port);
		for (size_t i = 0; i < k->nmemo; i++)
			if (strcmp(k->memo[i].key, key) == 0) {
				a.decided = true;
				a.allow = k->memo[i].allow;
				a.status = k->memo[i].status;
				a.reason = k->memo[i].reason;
				a.remembered = true;
				free(key);
				cb(c, &a);
				return 0;
			}
	}
	if (k->last_id >= DECIDER_ID_MAX) {
		free(key);
		ask_die(k, "request ids exhausted");
		a.status = 503;
		a.unavailable = true;
		a.reason = "request decider unavailable";
		cb(c, &a);
		return 0;
	}
	r.id = k->last_id + 1;
	/* Before the decider's hello the request waits (its timer runs from now), so that
	 * the first requests of a run are not refused while the decider says hello. */
	if (decider_encode_req(&r, k->hello ? &k->wbuf : &k->early, &why) == -1) {
		free(key);
		a.status = 400;
		a.reason = why;
		a.bad_request = true;
		cb(c, &a);
		return 0;
	}
	k->last_id = r.id;
	w = xcalloc(1, sizeof(*w));
	w->id = r.id;
	w->c = c;
	w->cb = cb;
	w->key = key;
	evtimer_init(&w->timer, ask_timeout, w);
	evtimer_add(k->loop, &w->timer, k->timeout_ms);
	w->next = k->waits;
	k->waits = w;
	c->ask = w;
	c->st = CONN_ASKING;
	if (k->hello)
		ask_flush(k);
	else if (k->early.len > ASK_OUT_MAX)
		ask_die(k, "no hello, and too many requests waiting for it");
	return 0;
}

void
ask_cancel(struct conn *c)
{
	struct ask_wait *w = c->ask;

	if (w == NULL || link_ == NULL)
		return;
	c->ask = NULL;
	/* Its verdict may still come: dropped then, as a late one is. */
	ask_late_add(link_, w->id);
	ask_wait_unlink(link_, w);
}
