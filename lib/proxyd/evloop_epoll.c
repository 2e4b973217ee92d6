/*
 * The event loop's Linux backend: epoll for the fds, a signalfd for the signals. Each
 * epoll event carries the fd and the registration's generation (evloop.c drops stale
 * ones).
 */
#ifndef _WIN32
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include "evloop_int.h"
#include "util.h"

struct evbe {
	int epfd;
	int sigfd;
	sigset_t sigmask;
};

uint64_t
evbe_clock(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int
evbe_init(struct evloop *loop)
{
	struct evbe *be;

	be = xcalloc(1, sizeof(*be));
	be->sigfd = -1;
	sigemptyset(&be->sigmask);
	if ((be->epfd = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		free(be);
		return -1;
	}
	loop->be = be;
	return 0;
}

void
evbe_free(struct evloop *loop)
{
	close(loop->be->epfd);
	if (loop->be->sigfd != -1)
		close(loop->be->sigfd);
	free(loop->be);
}

static uint32_t
evbe_bits(unsigned events)
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

/* epoll_ctl's op for fd, its data the fd and its slot's generation (a stale event is
 * told from one of the fd's next use). */
static int
evbe_ctl(struct evloop *loop, int op, int fd, const struct ev_slot *s, unsigned events)
{
	struct epoll_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.events = evbe_bits(events);
	ev.data.u64 = (uint64_t)(uint32_t)fd | (uint64_t)s->gen << 32;
	return epoll_ctl(loop->be->epfd, op, fd, &ev);
}

int
evbe_add(struct evloop *loop, int fd, struct ev_slot *s, unsigned events)
{
	/* A detached fd is still in the kernel's set: change it in place. ENOENT means it was
	 * closed (and the number reused) since: add it as new. */
	if (s->kreg) {
		s->kreg = 0;
		if (evbe_ctl(loop, EPOLL_CTL_MOD, fd, s, events) == 0)
			return 0;
	}
	return evbe_ctl(loop, EPOLL_CTL_ADD, fd, s, events);
}

int
evbe_mod(struct evloop *loop, int fd, struct ev_slot *s, unsigned events)
{
	return evbe_ctl(loop, EPOLL_CTL_MOD, fd, s, events);
}

void
evbe_del(struct evloop *loop, int fd, struct ev_slot *s)
{
	(void)s;
	(void)epoll_ctl(loop->be->epfd, EPOLL_CTL_DEL, fd, NULL);
}

/* close(2) takes the fd out of the epoll set. */
void
evbe_forget(struct evloop *loop, int fd, struct ev_slot *s)
{
	(void)loop;
	(void)fd;
	(void)s;
}

void
evbe_detach(struct evloop *loop, int fd, struct ev_slot *s)
{
	(void)loop;
	(void)fd;
	s->kreg = 1;
}

int
evbe_wait(struct evloop *loop, int timeout, struct ev_fired *out, int max)
{
	struct epoll_event evs[EVLOOP_BATCH];
	int i, n;

	if (max > EVLOOP_BATCH)
		max = EVLOOP_BATCH;
	n = epoll_wait(loop->be->epfd, evs, max, timeout);
	if (n == -1)
		return errno == EINTR ? 0 : -1;
	for (i = 0; i < n; i++) {
		uint32_t e = evs[i].events;
		unsigned ready = 0;

		out[i].fd = (int)(uint32_t)evs[i].data.u64;
		out[i].gen = (uint32_t)(evs[i].data.u64 >> 32);
		if (e & (EPOLLIN | EPOLLRDHUP))
			ready |= EV_READ;
		if (e & EPOLLRDHUP)
			ready |= EV_RDHUP;
		if (e & EPOLLOUT)
			ready |= EV_WRITE;
		if (e & (EPOLLHUP | EPOLLERR))
			ready |= EV_HUP | EV_READ | EV_WRITE;
		out[i].ready = ready;
	}
	return n;
}

/* --- signals: one signalfd for all of them ------------------------------------------ */

int
evbe_signal_next(struct evloop *loop, int fd)
{
	struct signalfd_siginfo si;

	(void)loop;
	if (read(fd, &si, sizeof(si)) != (ssize_t)sizeof(si))
		return 0;
	return (int)si.ssi_signo;
}

int
evbe_signal(struct evloop *loop, int signo, int *newfd)
{
	struct evbe *be = loop->be;
	int fd;

	*newfd = -1;
	sigaddset(&be->sigmask, signo);
	if (sigprocmask(SIG_BLOCK, &be->sigmask, NULL) == -1)
		return -1;
	fd = signalfd(be->sigfd, &be->sigmask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (fd == -1)
		return -1;
	if (be->sigfd == -1)
		be->sigfd = *newfd = fd;
	return 0;
}
#endif
