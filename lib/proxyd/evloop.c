/*
 * The event loop's portable part: registrations in a table indexed by fd, a binary
 * min-heap of timers, signals' callbacks, and the dispatch. The backend (evloop_int.h)
 * watches the fds and reports each event with the fd and the registration's generation,
 * so that events of an fd removed earlier in the same batch are recognised as stale and
 * dropped.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "evloop_int.h"
#include "util.h"

struct evloop *
evloop_new(void)
{
	struct evloop *loop;

	loop = xcalloc(1, sizeof(*loop));
	if (evbe_init(loop) == -1) {
		free(loop);
		return NULL;
	}
	loop->now = evbe_clock();
	return loop;
}

void
evloop_free(struct evloop *loop)
{
	if (loop == NULL)
		return;
	evbe_free(loop);
	free(loop->slots);
	free(loop->heap);
	free(loop);
}

static struct ev_slot *
evloop_slot(struct evloop *loop, int fd)
{
	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used)
		return NULL;
	return &loop->slots[fd];
}

/* Registers fd without counting it as something that keeps the loop running. */
static int
evloop_add_internal(struct evloop *loop, int fd, unsigned events, ev_io_cb cb, void *arg)
{
	struct ev_slot *s;

	if (fd < 0) {
		errno = EBADF;
		return -1;
	}
	if ((size_t)fd >= loop->nslots) {
		size_t n = loop->nslots ? loop->nslots : 64;

		while (n <= (size_t)fd)
			n *= 2;
		loop->slots = xreallocarray(loop->slots, n, sizeof(*loop->slots));
		memset(
		    loop->slots + loop->nslots, 0, (n - loop->nslots) * sizeof(*loop->slots));
		loop->nslots = n;
	}
	s = &loop->slots[fd];
	if (s->used) {
		errno = EEXIST;
		return -1;
	}
	s->gen++;
	if (evbe_add(loop, fd, s, events) == -1)
		return -1;
	s->cb = cb;
	s->arg = arg;
	s->events = events;
	s->used = 1;
	return 0;
}

int
evloop_add(struct evloop *loop, int fd, unsigned events, ev_io_cb cb, void *arg)
{
	if (evloop_add_internal(loop, fd, events, cb, arg) == -1)
		return -1;
	loop->nused++;
	return 0;
}

int
evloop_mod(struct evloop *loop, int fd, unsigned events)
{
	struct ev_slot *s;

	if ((s = evloop_slot(loop, fd)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	if (s->events == events)
		return 0;
	if (evbe_mod(loop, fd, s, events) == -1)
		return -1;
	s->events = events;
	return 0;
}

int
evloop_rebind(struct evloop *loop, int fd, ev_io_cb cb, void *arg)
{
	struct ev_slot *s;

	if ((s = evloop_slot(loop, fd)) == NULL) {
		errno = ENOENT;
		return -1;
	}
	s->cb = cb;
	s->arg = arg;
	return 0;
}

static void
evloop_unslot(struct evloop *loop, struct ev_slot *s)
{
	s->used = 0;
	s->gen++;
	s->cb = NULL;
	s->arg = NULL;
	loop->nused--;
}

void
evloop_forget(struct evloop *loop, int fd)
{
	struct ev_slot *s;

	if ((s = evloop_slot(loop, fd)) == NULL)
		return;
	evbe_forget(loop, fd, s);
	evloop_unslot(loop, s);
}

void
evloop_detach(struct evloop *loop, int fd)
{
	struct ev_slot *s;

	if ((s = evloop_slot(loop, fd)) == NULL)
		return;
	evbe_detach(loop, fd, s);
	evloop_unslot(loop, s);
}

void
evloop_del(struct evloop *loop, int fd)
{
	struct ev_slot *s;

	if ((s = evloop_slot(loop, fd)) == NULL)
		return;
	evbe_del(loop, fd, s);
	evloop_unslot(loop, s);
}

uint64_t
evloop_now(struct evloop *loop)
{
	return loop->now;
}

/* --- timers: a binary min-heap on deadline; slot is the 1-based heap index ----------- */

void
evtimer_init(struct ev_timer *t, ev_timer_cb cb, void *arg)
{
	memset(t, 0, sizeof(*t));
	t->cb = cb;
	t->arg = arg;
}

int
evtimer_pending(const struct ev_timer *t)
{
	return t->slot != 0;
}

static void
heap_set(struct evloop *loop, size_t i, struct ev_timer *t)
{
	loop->heap[i] = t;
	t->slot = i + 1;
}

static void
heap_up(struct evloop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];

	while (i > 0) {
		size_t parent = (i - 1) / 2;

		if (loop->heap[parent]->deadline <= t->deadline)
			break;
		heap_set(loop, i, loop->heap[parent]);
		i = parent;
	}
	heap_set(loop, i, t);
}

static void
heap_down(struct evloop *loop, size_t i)
{
	struct ev_timer *t = loop->heap[i];

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= loop->nheap)
			break;
		if (c + 1 < loop->nheap &&
		    loop->heap[c + 1]->deadline < loop->heap[c]->deadline)
			c++;
		if (t->deadline <= loop->heap[c]->deadline)
			break;
		heap_set(loop, i, loop->heap[c]);
		i = c;
	}
	heap_set(loop, i, t);
}

void
evtimer_del(struct evloop *loop, struct ev_timer *t)
{
	size_t i;
	struct ev_timer *last;

	if (t->slot == 0)
		return;
	i = t->slot - 1;
	t->slot = 0;
	last = loop->heap[--loop->nheap];
	if (i == loop->nheap)
		return;
	heap_set(loop, i, last);
	heap_up(loop, i);
	heap_down(loop, last->slot - 1);
}

void
evtimer_add(struct evloop *loop, struct ev_timer *t, uint64_t ms)
{
	evtimer_del(loop, t);
	t->deadline = loop->now + ms;
	if (loop->nheap == loop->capheap) {
		loop->capheap = loop->capheap ? loop->capheap * 2 : 64;
		loop->heap = xreallocarray(loop->heap, loop->capheap, sizeof(*loop->heap));
	}
	loop->heap[loop->nheap] = t;
	t->slot = ++loop->nheap;
	heap_up(loop, loop->nheap - 1);
}

static void
evloop_run_timers(struct evloop *loop)
{
	while (loop->nheap > 0 && loop->heap[0]->deadline <= loop->now && !loop->stop) {
		struct ev_timer *t = loop->heap[0];

		evtimer_del(loop, t);
		t->cb(loop, t->arg);
	}
}

/* --- signals ------------------------------------------------------------------------ */

/* The backend's signal descriptor is readable: each signal it holds to its callback. */
static void
evloop_signal_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	int signo;

	(void)events;
	(void)arg;
	while ((signo = evbe_signal_next(loop, fd)) > 0)
		if (signo < EVLOOP_NSIG && loop->sigcb[signo] != NULL)
			loop->sigcb[signo](loop, signo, loop->sigarg[signo]);
}

int
evloop_signal(struct evloop *loop, int signo, ev_signal_cb cb, void *arg)
{
	int fd = -1;

	if (signo <= 0 || signo >= EVLOOP_NSIG) {
		errno = EINVAL;
		return -1;
	}
	if (evbe_signal(loop, signo, &fd) == -1)
		return -1;
	/* The first signal's descriptor: it alone does not keep the loop running. */
	if (fd != -1 && evloop_add_internal(loop, fd, EV_READ, evloop_signal_cb, NULL) == -1)
		return -1;
	loop->sigcb[signo] = cb;
	loop->sigarg[signo] = arg;
	return 0;
}

/* --- the loop ----------------------------------------------------------------------- */

void
evloop_break(struct evloop *loop)
{
	loop->stop = 1;
}

int
evloop_run(struct evloop *loop)
{
	struct ev_fired evs[EVLOOP_BATCH];
	int i, n, timeout;

	loop->stop = 0;
	while (!loop->stop) {
		if (loop->nused == 0 && loop->nheap == 0)
			break;
		timeout = -1;
		if (loop->nheap > 0) {
			uint64_t d = loop->heap[0]->deadline;

			timeout = d <= loop->now    ? 0
			    : d - loop->now > 60000 ? 60000
						    : (int)(d - loop->now);
		}
		n = evbe_wait(loop, timeout, evs, EVLOOP_BATCH);
		loop->now = evbe_clock();
		if (n == -1)
			return -1;
		for (i = 0; i < n && !loop->stop; i++) {
			int fd = evs[i].fd;
			struct ev_slot *s;

			if ((size_t)fd >= loop->nslots)
				continue;
			s = &loop->slots[fd];
			if (!s->used && s->kreg) {
				/* Detached and not taken up again: stop its level-triggered
				 * reports. */
				evbe_del(loop, fd, s);
				s->kreg = 0;
				continue;
			}
			if (!s->used || s->gen != evs[i].gen)
				continue;
			s->cb(loop, fd, evs[i].ready, s->arg);
		}
		evloop_run_timers(loop);
	}
	return 0;
}
