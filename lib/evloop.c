/*
 * The event loop: epoll for fds, a binary min-heap of timers, a signalfd for signals.
 * Registrations live in a table indexed by fd; each epoll event carries the fd and the
 * registration's generation so that events of an fd removed earlier in the same batch are
 * recognised as stale and dropped.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "evloop.h"
#include "util.h"

#define EVLOOP_BATCH 256

struct ev_slot {
	ev_io_cb cb;
	void *arg;
	uint32_t gen;
	unsigned events;
	int used;
	int kreg;               /* the kernel still has it registered (evloop_detach) */
};

struct evloop {
	int epfd;
	struct ev_slot *slots;
	size_t nslots;
	size_t nused;
	struct ev_timer **heap;
	size_t nheap, capheap;
	uint64_t now;
	int stop;
	int sigfd;
	sigset_t sigmask;
	ev_signal_cb sigcb[65];
	void *sigarg[65];
};

static uint64_t
evloop_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

struct evloop *
evloop_new(void)
{
	struct evloop *loop;

	loop = xcalloc(1, sizeof(*loop));
	loop->sigfd = -1;
	sigemptyset(&loop->sigmask);
	if ((loop->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		free(loop);
		return NULL;
	}
	loop->now = evloop_clock();
	return loop;
}

void
evloop_free(struct evloop *loop)
{
	if (loop == NULL)
		return;
	close(loop->epfd);
	if (loop->sigfd != -1)
		close(loop->sigfd);
	free(loop->slots);
	free(loop->heap);
	free(loop);
}

static uint32_t
evloop_epoll_bits(unsigned events)
{
	uint32_t e = EPOLLRDHUP;

	if (events & EV_READ)
		e |= EPOLLIN;
	if (events & EV_WRITE)
		e |= EPOLLOUT;
	if (events & EV_EDGE)
		e |= EPOLLET;
	return e;
}

int
evloop_add(struct evloop *loop, int fd, unsigned events, ev_io_cb cb, void *arg)
{
	struct epoll_event ev;
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
		memset(loop->slots + loop->nslots, 0, (n - loop->nslots) * sizeof(*loop->slots));
		loop->nslots = n;
	}
	s = &loop->slots[fd];
	if (s->used) {
		errno = EEXIST;
		return -1;
	}
	s->gen++;
	memset(&ev, 0, sizeof(ev));
	ev.events = evloop_epoll_bits(events);
	ev.data.u64 = (uint64_t)(uint32_t)fd | (uint64_t)s->gen << 32;
	/* A detached fd is still in the kernel's set: change it in place. ENOENT means it was
	 * closed (and the number reused) since: add it as new. */
	if (s->kreg) {
		s->kreg = 0;
		if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
			goto added;
	}
	if (epoll_ctl(loop->epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
		return -1;
added:
	s->cb = cb;
	s->arg = arg;
	s->events = events;
	s->used = 1;
	loop->nused++;
	return 0;
}

int
evloop_mod(struct evloop *loop, int fd, unsigned events)
{
	struct epoll_event ev;
	struct ev_slot *s;

	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used) {
		errno = ENOENT;
		return -1;
	}
	s = &loop->slots[fd];
	if (s->events == events)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.events = evloop_epoll_bits(events);
	ev.data.u64 = (uint64_t)(uint32_t)fd | (uint64_t)s->gen << 32;
	if (epoll_ctl(loop->epfd, EPOLL_CTL_MOD, fd, &ev) == -1)
		return -1;
	s->events = events;
	return 0;
}

int
evloop_rebind(struct evloop *loop, int fd, ev_io_cb cb, void *arg)
{
	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used) {
		errno = ENOENT;
		return -1;
	}
	loop->slots[fd].cb = cb;
	loop->slots[fd].arg = arg;
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
	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used)
		return;
	evloop_unslot(loop, &loop->slots[fd]);
}

void
evloop_detach(struct evloop *loop, int fd)
{
	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used)
		return;
	evloop_unslot(loop, &loop->slots[fd]);
	loop->slots[fd].kreg = 1;
}

void
evloop_del(struct evloop *loop, int fd)
{
	struct ev_slot *s;

	if (fd < 0 || (size_t)fd >= loop->nslots || !loop->slots[fd].used)
		return;
	s = &loop->slots[fd];
	(void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
	s->used = 0;
	s->gen++;
	s->cb = NULL;
	s->arg = NULL;
	loop->nused--;
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
		if (c + 1 < loop->nheap && loop->heap[c + 1]->deadline < loop->heap[c]->deadline)
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

static void
evloop_sigfd_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct signalfd_siginfo si;

	(void)events;
	(void)arg;
	while (read(fd, &si, sizeof(si)) == (ssize_t)sizeof(si)) {
		if (si.ssi_signo < 65 && loop->sigcb[si.ssi_signo] != NULL)
			loop->sigcb[si.ssi_signo](loop, (int)si.ssi_signo, loop->sigarg[si.ssi_signo]);
	}
}

int
evloop_signal(struct evloop *loop, int signo, ev_signal_cb cb, void *arg)
{
	int fd;

	if (signo <= 0 || signo >= 65) {
		errno = EINVAL;
		return -1;
	}
	sigaddset(&loop->sigmask, signo);
	if (sigprocmask(SIG_BLOCK, &loop->sigmask, NULL) == -1)
		return -1;
	fd = signalfd(loop->sigfd, &loop->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd == -1)
		return -1;
	if (loop->sigfd == -1) {
		loop->sigfd = fd;
		if (evloop_add(loop, fd, EV_READ, evloop_sigfd_cb, NULL) == -1)
			return -1;
		/* The signalfd alone does not keep the loop running. */
		loop->nused--;
	}
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
	struct epoll_event evs[EVLOOP_BATCH];
	int i, n, timeout;

	loop->stop = 0;
	while (!loop->stop) {
		if (loop->nused == 0 && loop->nheap == 0)
			break;
		timeout = -1;
		if (loop->nheap > 0) {
			uint64_t d = loop->heap[0]->deadline;

			timeout = d <= loop->now ? 0 : d - loop->now > 60000 ? 60000 :
			    (int)(d - loop->now);
		}
		n = epoll_wait(loop->epfd, evs, EVLOOP_BATCH, timeout);
		loop->now = evloop_clock();
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (i = 0; i < n && !loop->stop; i++) {
			int fd = (int)(uint32_t)evs[i].data.u64;
			uint32_t gen = (uint32_t)(evs[i].data.u64 >> 32);
			struct ev_slot *s;
			unsigned ready = 0;

			if ((size_t)fd >= loop->nslots)
				continue;
			s = &loop->slots[fd];
			if (!s->used && s->kreg) {
				/* Detached and not taken up again: stop its level-triggered
				 * reports. */
				(void)epoll_ctl(loop->epfd, EPOLL_CTL_DEL, fd, NULL);
				s->kreg = 0;
				continue;
			}
			if (!s->used || s->gen != gen)
				continue;
			if (evs[i].events & (EPOLLIN | EPOLLRDHUP))
				ready |= EV_READ;
			if (evs[i].events & EPOLLRDHUP)
				ready |= EV_RDHUP;
			if (evs[i].events & EPOLLOUT)
				ready |= EV_WRITE;
			if (evs[i].events & (EPOLLHUP | EPOLLERR))
				ready |= EV_HUP | EV_READ | EV_WRITE;
			s->cb(loop, fd, ready, s->arg);
		}
		evloop_run_timers(loop);
	}
	return 0;
}
