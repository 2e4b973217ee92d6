/*
 * The link to the external decider (--decider-fd, or --decider-in and --decider-out):
 * srt-httpd(8), THE DECIDER PROTOCOL; the frames are lib/proxyd/decider.c's.
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

#define ASK_OUT_MAX (64u << 20) /* queued for the decider: past it, it is gone */
#define ASK_REMEMBER 4096u      /* host:port answers kept by --ask */
/* Request-body bytes held for the decider at once, across all requests (the reference's
 * budget): a need_body past it is refused, not queued. */
#define ASK_BODY_HELD_MAX (2 * (size_t)DECIDER_BODY_MAX)

struct ask_wait {
	uint64_t id;
	ask_cb cb;
	void *arg;
	struct ask_wait **slot; /* the asker's pointer to this wait */
	struct conn *body;      /* whose request body a need_body shows, or NULL */
	struct ev_timer timer;
	bool body_sent;    /* need_body was answered */
	uint32_t body_max; /* need_body's max while the body is read, else 0 */
	size_t held;       /* of ASK_BODY_HELD_MAX, while the body is read */
	struct ask_wait *next;
	/* --ask: remember the answer under this key */
	char *key;
};

struct ask_memo {
	char *key; /* "host:port" */
	bool allow;
	int status;
	char *reason;
};

struct ask_link {
	struct proxy *px;
	struct evloop *loop;
	int in, out;
	struct buf rbuf, wbuf;
	struct buf early; /* requests asked before the decider's hello: sent
	                                   once it comes (their timers run already) */
	bool hello;       /* the decider's hello came */
	char *dead;       /* why the link ended, or NULL */
	uint64_t last_id;
	struct ask_wait *waits;
	uint64_t *late; /* ids given up on: their verdicts are dropped */
	size_t nlate;
	struct ask_memo *memo;
	size_t nmemo;
	unsigned timeout_ms;
	struct ev_timer fail_timer; /* fails the waits of a dead link, from the loop */
	int ready_fd;               /* --decider-ready-fd, until the hello or the end */
};

/* The process's one link (NULL without a decider): it is configuration, like the
 * policy. */
static struct ask_link *link_;
/* Request-body bytes reserved by the waits reading one. */
static size_t body_held;

static void ask_die(struct ask_link *k, const char *why);

/* Tell srt the link is ready (why NULL) or ended before its hello: one line, then EOF. */
static void
ask_ready(struct ask_link *k, const char *why)
{
	char line[DECIDER_WHY_MAX + 300];
	int n;

	if (k->ready_fd == -1)
		return;
	n = why == NULL ? snprintf(line, sizeof(line), "ok\n")
			: snprintf(line, sizeof(line), "error: %s\n", why);
	/* A pipe srt reads at once: one short line never blocks. */
	(void)!write(
	    k->ready_fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
	close(k->ready_fd);
	k->ready_fd = -1;
}
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

/* A read or write of the decider's stream that moved nothing (n <= 0): true to try
 * again at once (EINTR); false to stop, the link dead unless it is for the descriptor to
 * be ready (EAGAIN). */
static bool
ask_io_retry(struct ask_link *k, ssize_t n)
{
	if (n == -1 && errno == EINTR)
		return true;
	if (n != -1 || errno != EAGAIN)
		ask_die(k, n == 0 ? "decider closed the stream" : strerror(errno));
	return false;
}

static void
ask_flush(struct ask_link *k)
{
	ssize_t n;

	while (k->wbuf.len > 0 && k->dead == NULL) {
		n = write(k->out, k->wbuf.p + k->wbuf.off, k->wbuf.len);
		if (n > 0)
			buf_consume(&k->wbuf, (size_t)n);
		else if (!ask_io_retry(k, n))
			break;
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
	body_held -= w->held;
	if (w->slot != NULL)
		*w->slot = NULL;
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
	ask_cb cb = w->cb;
	void *arg = w->arg;

	if (w->key != NULL && a->decided)
		ask_memo_put(k, w->key, a);
	ask_wait_unlink(k, w);
	cb(arg, a);
}

static void
ask_fail(struct ask_link *k, struct ask_wait *w, const char *why, bool sync)
{
	struct ask_answer a = {
		.allow = false, .status = 503, .unavailable = true, .sync = sync
	};
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
	ask_ready(k, why);
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
		ask_fail(k, k->waits, k->dead, false);
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
	/* The body a need_body asked for did not come in time: the client's doing, but
	 * the request is refused the same way (the decider still waits for the body and
	 * drops its id's later verdicts). */
	ask_fail(link_, w,
	    w->body_max != 0 ? "the request body did not come within the "
			       "verdict timeout"
			     : "decider timed out",
	    false);
}

/* The body frame: what was read ahead, at most max bytes; the verdict is awaited anew. */
static void
ask_body_send(
    struct ask_link *k, struct ask_wait *w, const struct buf *b, uint32_t max, bool cut)
{
	size_t have = b != NULL ? b->len : 0;

	if (have > max)
		have = max;
	decider_encode_body(&k->wbuf, w->id, have > 0 ? b->p + b->off : NULL, have, cut);
	body_held -= w->held;
	w->held = 0;
	w->body_max = 0;
	w->body_sent = true;
	evtimer_add(k->loop, &w->timer, k->timeout_ms);
	ask_flush(k);
}

bool
ask_reading(const struct ask_wait *w)
{
	return w != NULL && w->body_max != 0;
}

/* Called by the connection (conn_run) while it reads the body for the decider. */
void
ask_body_more(struct conn *c)
{
	struct ask_wait *w = c->ask;
	struct ask_answer a = { .status = 400,
		.bad_request = true,
		.sync = true,
		.reason = "malformed chunked request body" };
	bool cut = false;
	int r;

	if (link_ == NULL || !ask_reading(w))
		return;
	if ((r = forward_body_ahead(c, w->body_max, &cut)) == 0)
		return;
	if (r == -1) {
		/* The decider waits for a body that will not come: its verdicts for the id
		 * are dropped. */
		ask_late_add(link_, w->id);
		ask_finish(link_, w, &a);
		return;
	}
	ask_body_send(link_, w, &c->body, w->body_max, cut);
}

/*
 * need_body: the body is read (up to max bytes, with the rest of the verdict timeout to
 * come) and then shown; a request without one is shown an empty body at once. The bytes
 * wait in the connection's c->body and go upstream first on an allow.
 */
static void
ask_need_body(struct ask_link *k, struct ask_wait *w, uint32_t max)
{
	struct conn *c = w->body;
	struct ask_answer a = { .status = 503,
		.unavailable = true,
		.reason = "request decider: too many request bodies held for inspection" };
	size_t want;

	if (c == NULL || c->is_connect ||
	    (c->req_framing == HTTP_BODY_NONE && c->body.len == 0)) {
		ask_body_send(k, w, NULL, max, false);
		return;
	}
	want = c->req_framing == HTTP_BODY_LENGTH && c->req_left + c->body.len < max
	    ? (size_t)c->req_left + c->body.len
	    : max;
	if (body_held + want > ASK_BODY_HELD_MAX) {
		/* Refused, not queued: a queue of held bodies is the same memory. */
		ask_late_add(k, w->id);
		ask_finish(k, w, &a);
		return;
	}
	body_held += want;
	w->held = want;
	w->body_max = max;
	evtimer_add(k->loop, &w->timer, k->timeout_ms);
	/* What is there already is taken now; the connection reads on for the rest. */
	conn_run(c);
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
	if (w->body_max != 0 && v->action != DECIDER_DENY) {
		/* While the body is read only a deny may end the request. */
		ask_die(k, "a verdict other than deny while the body was read");
		return;
	}
	if (v->action == DECIDER_NEED_BODY) {
		if (w->body_sent) {
			ask_die(k, "a second need_body");
			return;
		}
		ask_need_body(k, w, v->max);
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
			log_info("decider: hello: %zu allowed and %zu denied entries",
			    h.allowed.n, h.denied.n);
		} else
			log_debug(
			    "decider: hello (its %zu + %zu entries are not used: the policy "
			    "decides which requests are asked)",
			    h.allowed.n, h.denied.n);
		decider_hello_free(&h);
		ask_ready(k, NULL);
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
			while (k->dead == NULL &&
			    (rc = decider_frame_next(&k->rbuf, &f, &n)) != 0) {
				if (rc == -1) {
					ask_die(k, "oversized frame");
					return;
				}
				ask_on_frame(k, f, n);
				buf_consume(&k->rbuf, 4 + (size_t)n);
			}
			if (k->dead != NULL)
				return;
		} else if (!ask_io_retry(k, r))
			return;
	}
}

static int
ask_nonblock(int fd)
{
#ifdef _WIN32
	/* The decider is refused at start on Windows (lib/proxyd/proxy_win.c). */
	(void)fd;
	errno = ENOSYS;
	return -1;
#else
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
		fcntl(fd, F_SETFD, FD_CLOEXEC) == -1
	    ? -1
	    : 0;
#endif
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
	k->ready_fd = o->decider_ready_fd;
#ifndef _WIN32
	if (k->ready_fd != -1)
		(void)fcntl(k->ready_fd, F_SETFD, FD_CLOEXEC);
#endif
	evtimer_init(&k->fail_timer, ask_fail_all, k);
	if (ask_nonblock(k->in) == -1 || (k->out != k->in && ask_nonblock(k->out) == -1))
		fatal("decider descriptors");
	if (k->in == k->out) {
		if (evloop_add(k->loop, k->in, EV_READ | EV_WRITE | EV_EDGE, ask_io_cb, k) ==
		    -1)
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

void
ask_send(struct proxy *px, const struct decider_req *r0, ask_cb cb, void *arg,
    struct ask_wait **slot, struct conn *body)
{
	struct ask_link *k = link_;
	struct decider_req r = *r0;
	struct ask_answer a = { .sync = true };
	struct ask_wait *w;
	const char *why;
	char *key = NULL;

	if (k->dead != NULL) {
		a.status = 503;
		a.unavailable = true;
		a.reason = "request decider unavailable";
		cb(arg, &a);
		return;
	}
	if (proxy_options(px)->ask) {
		key = xasprintf("%s:%u", r.host, r.port);
		for (size_t i = 0; i < k->nmemo; i++)
			if (strcmp(k->memo[i].key, key) == 0) {
				a.decided = true;
				a.allow = k->memo[i].allow;
				a.status = k->memo[i].status;
				a.reason = k->memo[i].reason;
				a.remembered = true;
				free(key);
				cb(arg, &a);
				return;
			}
	}
	if (k->last_id >= DECIDER_ID_MAX) {
		free(key);
		ask_die(k, "request ids exhausted");
		a.status = 503;
		a.unavailable = true;
		a.reason = "request decider unavailable";
		cb(arg, &a);
		return;
	}
	r.id = k->last_id + 1;
	/* Before the decider's hello the request waits (its timer runs from now), so that
	 * the first requests of a run are not refused while the decider says hello. */
	if (decider_encode_req(&r, k->hello ? &k->wbuf : &k->early, &why) == -1) {
		free(key);
		a.status = 400;
		a.reason = why;
		a.bad_request = true;
		cb(arg, &a);
		return;
	}
	k->last_id = r.id;
	w = xcalloc(1, sizeof(*w));
	w->id = r.id;
	w->cb = cb;
	w->arg = arg;
	w->slot = slot;
	w->body = body;
	w->key = key;
	evtimer_init(&w->timer, ask_timeout, w);
	evtimer_add(k->loop, &w->timer, k->timeout_ms);
	w->next = k->waits;
	k->waits = w;
	*slot = w;
	if (k->hello)
		ask_flush(k);
	else if (k->early.len > ASK_OUT_MAX)
		ask_die(k, "no hello, and too many requests waiting for it");
}

void
ask_cancel(struct ask_wait **slot)
{
	struct ask_wait *w = *slot;

	if (w == NULL || link_ == NULL)
		return;
	*slot = NULL;
	w->slot = NULL;
	/* Its verdict may still come: dropped then, as a late one is. */
	ask_late_add(link_, w->id);
	ask_wait_unlink(link_, w);
}
