/*
 * Unit tests for lib/proxyd/evloop.c and its backend: handing a registered fd to another owner
 * (evloop_rebind), the generation rule, timers, edge-triggered interest and signals.
 * Built natively (epoll) and with mingw-w64 (WSAPoll; run under Wine by
 * tests/windows/proxies-wine.bats), so it speaks through lib/core/sys.h: pipes here, socket pairs
 * there, where only sockets can be polled.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>

#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>
#else
#include <fcntl.h>
#include <unistd.h>
#endif

#include "evloop.h"
#include "evloop_int.h" /* evbe_ctrl_event */
#include "sys.h"
#include "tap.h"

/* A non-blocking pair: [0] reads, [1] writes. */
static int
mkpair(int p[2])
{
#ifdef _WIN32
	if (sys_socketpair(p) == -1)
		return -1;
	return sys_set_nonblock(p[0]) == -1 || sys_set_nonblock(p[1]) == -1 ? -1 : 0;
#else
	return pipe2(p, O_NONBLOCK | O_CLOEXEC);
#endif
}

static void
closepair(int p[2])
{
	sys_sockclose(p[0]);
	sys_sockclose(p[1]);
}

struct seen {
	int calls_a, calls_b;
	int fd_b; /* the fd cb_b saw */
	void *arg_b;
	int swap[2]; /* cb_a, first call: rebind the one of these it was not
	                           called for to cb_b; -1: no rebinding */
	int rebound; /* the fd it rebound */
};

static struct seen seen;

static void
drain(int fd)
{
	char buf[16];

	while (sys_recv(fd, buf, sizeof(buf)) > 0)
		;
}

static void
cb_b(struct evloop *loop, int fd, unsigned events, void *arg)
{
	(void)events;
	seen.calls_b++;
	seen.fd_b = fd;
	seen.arg_b = arg;
	drain(fd);
	if (seen.calls_a + seen.calls_b >= 2)
		evloop_break(loop);
}

static void
cb_a(struct evloop *loop, int fd, unsigned events, void *arg)
{
	(void)events;
	(void)arg;
	seen.calls_a++;
	drain(fd);
	if (seen.swap[0] != -1) {
		/* The other fd's event is pending in this batch: it goes to the new owner. */
		seen.rebound = fd == seen.swap[0] ? seen.swap[1] : seen.swap[0];
		ok(evloop_rebind(loop, seen.rebound, cb_b, &seen) == 0,
		    "rebind inside a callback succeeds");
		seen.swap[0] = seen.swap[1] = -1;
	}
	if (seen.calls_a + seen.calls_b >= 2)
		evloop_break(loop);
}

static void
test_rebind(struct evloop *loop)
{
	int p1[2], p2[2], marker = 0;

	if (!ok(mkpair(p1) == 0 && mkpair(p2) == 0, "two pairs"))
		return;
	errno = 0;
	ok(evloop_rebind(loop, p1[0], cb_b, NULL) == -1 && errno == ENOENT,
	    "rebind of an unregistered fd: ENOENT");
	ok(evloop_rebind(loop, -1, cb_b, NULL) == -1 && errno == ENOENT,
	    "rebind of -1: ENOENT");

	/* A plain hand-over: the next event reaches the new callback and argument only. */
	memset(&seen, 0, sizeof(seen));
	seen.swap[0] = seen.swap[1] = -1;
	ok(evloop_add(loop, p1[0], EV_READ, cb_a, NULL) == 0, "p1 registered");
	ok(evloop_rebind(loop, p1[0], cb_b, &marker) == 0, "p1 rebound");
	ok(sys_send(p1[1], "x", 1) == 1, "byte written");
	seen.calls_a = 1; /* one callback is enough to stop */
	ok(evloop_run(loop) == 0, "loop ran");
	ok(seen.calls_b == 1 && seen.fd_b == p1[0] && seen.arg_b == &marker,
	    "the event went to the new callback with the new argument");

	/* A hand-over inside the batch: both fds are ready before the loop waits. */
	memset(&seen, 0, sizeof(seen));
	ok(evloop_rebind(loop, p1[0], cb_a, NULL) == 0, "p1 back to cb_a");
	ok(evloop_add(loop, p2[0], EV_READ, cb_a, NULL) == 0, "p2 registered");
	ok(sys_send(p1[1], "x", 1) == 1 && sys_send(p2[1], "y", 1) == 1, "both readable");
#ifdef _WIN32
	Sleep(50); /* loopback TCP: let both bytes arrive before the wait */
#endif
	seen.swap[0] = p1[0];
	seen.swap[1] = p2[0];
	ok(evloop_run(loop) == 0, "loop ran");
	ok(seen.calls_a == 1 && seen.calls_b == 1, "one event each (a=%d b=%d)", seen.calls_a,
	    seen.calls_b);
	ok(seen.fd_b == seen.rebound && seen.arg_b == &seen,
	    "the event pending for the rebound fd went to its new owner");

	evloop_del(loop, p1[0]);
	evloop_del(loop, p2[0]);
	ok(evloop_rebind(loop, p1[0], cb_b, NULL) == -1 && errno == ENOENT,
	    "rebind after evloop_del: ENOENT");
	closepair(p1);
	closepair(p2);
}

static void
stop_cb(struct evloop *loop, void *arg)
{
	(void)arg;
	evloop_break(loop);
}

static void
edge_run(struct evloop *loop, uint64_t ms)
{
	struct ev_timer t;

	evtimer_init(&t, stop_cb, NULL);
	evtimer_add(loop, &t, ms);
	evloop_run(loop);
	evtimer_del(loop, &t);
}

/* --- the generation rule: a callback closes an fd whose event is pending ------------- */

static int gen_fds[2], gen_new[2] = { -1, -1 }, gen_calls, gen_stale, gen_reused;

static void
gen_victim_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	(void)arg;
	gen_stale++;
}

static void
gen_first_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	int *other = arg;

	(void)events;
	gen_calls++;
	drain(fd);
	/* The other read end is ready in this batch; remove and close it. */
	evloop_del(loop, *other);
	sys_sockclose(*other);
	/* A new owner, most likely of the same number (POSIX gives the lowest free one). */
	if (mkpair(gen_new) == 0) {
		gen_reused = gen_new[0] == *other;
		(void)evloop_add(loop, gen_new[0], EV_READ, gen_victim_cb, NULL);
	}
	*other = -1;
	evloop_del(loop, fd);
}

static void
test_generation(struct evloop *loop)
{
	int p1[2], p2[2];

	if (!ok(mkpair(p1) == 0 && mkpair(p2) == 0, "two pairs"))
		return;
	gen_fds[0] = p1[0];
	gen_fds[1] = p2[0];
	ok(evloop_add(loop, p1[0], EV_READ, gen_first_cb, &gen_fds[1]) == 0 &&
		evloop_add(loop, p2[0], EV_READ, gen_first_cb, &gen_fds[0]) == 0,
	    "both registered");
	ok(sys_send(p1[1], "x", 1) == 1 && sys_send(p2[1], "y", 1) == 1, "both readable");
#ifdef _WIN32
	Sleep(50);
#endif
	/* The first callback to run closes the other and registers a new fd; the closed
	 * one's pending event must reach neither. */
	edge_run(loop, 100);
	ok(gen_calls == 1 && gen_stale == 0,
	    "only the first callback ran (calls=%d, new owner's=%d, number reused: %s)",
	    gen_calls, gen_stale, gen_reused ? "yes" : "no");
	if (gen_new[0] != -1) {
		evloop_del(loop, gen_new[0]);
		closepair(gen_new);
	}
	if (gen_fds[0] != -1)
		sys_sockclose(gen_fds[0]);
	if (gen_fds[1] != -1)
		sys_sockclose(gen_fds[1]);
	sys_sockclose(p1[1]);
	sys_sockclose(p2[1]);
}

/* --- timers ------------------------------------------------------------------------- */

static char order[8];
static size_t norder;

static void
timer_cb(struct evloop *loop, void *arg)
{
	(void)loop;
	if (norder < sizeof(order) - 1)
		order[norder++] = *(const char *)arg;
}

static void
test_timers(struct evloop *loop)
{
	struct ev_timer a, b, c, d;
	uint64_t t0 = evloop_now(loop);

	evtimer_init(&a, timer_cb, "a");
	evtimer_init(&b, timer_cb, "b");
	evtimer_init(&c, timer_cb, "c");
	evtimer_init(&d, timer_cb, "d");
	evtimer_add(loop, &c, 60);
	evtimer_add(loop, &a, 20);
	evtimer_add(loop, &d, 30);
	evtimer_add(loop, &b, 40);
	evtimer_del(loop, &d);
	ok(evtimer_pending(&a) && !evtimer_pending(&d), "pending: armed yes, deleted no");
	ok(evloop_run(loop) == 0, "loop ran until no timer was left");
	ok(strcmp(order, "abc") == 0, "timers fired by deadline, the deleted one not (%s)",
	    order);
	ok(evloop_now(loop) - t0 >= 60, "no earlier than the last deadline (%llu ms)",
	    (unsigned long long)(evloop_now(loop) - t0));
}

/* --- edge-triggered interest -------------------------------------------------------- */

static int edge_reads, edge_writes, edge_drain;

static void
edge_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	char c;

	(void)loop;
	(void)arg;
	if (events & EV_WRITE)
		edge_writes++;
	if (events & EV_READ) {
		edge_reads++;
		if (edge_drain)
			drain(fd);
		else
			(void)sys_recv(fd, &c, 1); /* one byte of two: not drained */
	}
}

static void
test_edge(struct evloop *loop)
{
	int sv[2];

	if (!ok(sys_socketpair(sv) == 0 && sys_set_nonblock(sv[0]) == 0 &&
		    sys_set_nonblock(sv[1]) == 0,
		"socket pair"))
		return;
	ok(evloop_add(loop, sv[0], EV_READ | EV_WRITE | EV_EDGE, edge_cb, NULL) == 0,
	    "registered edge-triggered for both directions");
	edge_run(loop, 100);
	ok(edge_writes == 1 && edge_reads == 0,
	    "writable reported once, not at every turn (writes=%d reads=%d)", edge_writes,
	    edge_reads);
	ok(sys_send(sv[1], "ab", 2) == 2, "two bytes sent");
	edge_run(loop, 100);
	ok(edge_reads == 1, "readable reported once (reads=%d)", edge_reads);
	edge_run(loop, 100);
	ok(edge_reads == 1, "a byte is left, nothing new: not reported again (reads=%d)",
	    edge_reads);
	/* The contract (evloop.h): a direction is reported again once its I/O would block. */
	drain(sv[0]);
	edge_drain = 1;
	ok(sys_send(sv[1], "c", 1) == 1, "after a drain to would-block, one more byte");
	edge_run(loop, 100);
	ok(edge_reads == 2, "new data is reported again (reads=%d)", edge_reads);
	ok(sys_send(sv[1], "d", 1) == 1, "and another");
	edge_run(loop, 100);
	ok(edge_reads == 3, "reported (reads=%d)", edge_reads);
	evloop_del(loop, sv[0]);
	closepair(sv);
}

/* --- signals ------------------------------------------------------------------------ */

static int sig_seen;

static void
sig_cb(struct evloop *loop, int signo, void *arg)
{
	(void)arg;
	sig_seen = signo;
	evloop_break(loop);
}

#ifdef _WIN32
static DWORD WINAPI
ctrl_thread(LPVOID arg)
{
	(void)arg;
	return evbe_ctrl_event(CTRL_BREAK_EVENT) ? 0 : 1;
}
#endif

static void
test_signal(struct evloop *loop)
{
	struct ev_timer t;
#ifdef _WIN32
	int signo = SIGBREAK;
#else
	int signo = SIGTERM;
#endif

	ok(evloop_signal(loop, signo, sig_cb, NULL) == 0, "signal %d registered", signo);
	errno = 0;
	ok(evloop_signal(loop, 0, sig_cb, NULL) == -1 && errno == EINVAL, "signal 0: EINVAL");
#ifdef _WIN32
	ok(evloop_signal(loop, SIGSEGV, sig_cb, NULL) == -1 && errno == EINVAL,
	    "a signal no control event maps to: EINVAL");
	/* Windows calls the control handler on a thread of its own; Wine sends no control
	 * event to a process without a console, so a thread of ours calls it. */
	ok(evbe_ctrl_event(CTRL_C_EVENT) == FALSE, "Ctrl-C, not asked for: the default");
	ok(CreateThread(NULL, 0, ctrl_thread, NULL, 0, NULL) != NULL,
	    "Ctrl-Break from another thread");
#else
	ok(kill(getpid(), signo) == 0, "SIGTERM sent to ourselves");
#endif
	/* The signal alone does not keep the loop running: a timer bounds the wait. */
	evtimer_init(&t, stop_cb, NULL);
	evtimer_add(loop, &t, 2000);
	ok(evloop_run(loop) == 0, "loop ran");
	evtimer_del(loop, &t);
	ok(sig_seen == signo, "the callback had signal %d (%d)", signo, sig_seen);
}

int
main(void)
{
	struct evloop *loop = evloop_new();

	if (!ok(loop != NULL, "loop created"))
		return tap_done();
	test_rebind(loop);
	test_generation(loop);
	test_timers(loop);
	test_edge(loop);
	test_signal(loop);
	evloop_free(loop);
	return tap_done();
}
