/*
 * The event loop's Windows backend: WSAPoll over sockets (Windows polls nothing else),
 * the console control handler for signals.
 *
 * The poll array is dense; each registration's slot holds its index. WSAPoll reports
 * levels only, so EV_EDGE is emulated: a direction that was reported is no longer polled
 * until the consumer's I/O in that direction would block or comes up short
 * (evbe_blocked, the hook this sets in lib/compat/sys_win.c, which its sys_recv and
 * sys_send call, as mio's Windows backend re-arms interest on WouldBlock) or it
 * registers or changes its interest again. A hang-up of an edge registration is
 * reported once; an edge registration polling for nothing leaves the poll set (its
 * entry's socket is INVALID_SOCKET, which WSAPoll skips).
 *
 * Control events arrive on a thread of their own: the handler writes the signal's number
 * as one byte to a socket pair whose other end the loop reads, the signalfd's part.
 */
#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "evloop_int.h"
#include "sys.h"
#include "util.h"

struct evbe {
	WSAPOLLFD *pfd;
	int *pfdfd; /* the fd of each entry, also while it is skipped */
	size_t n, cap;
	size_t start; /* where the next report starts: no entry starves */
	int wake[2];  /* [0] the loop reads, [1] the control handler writes */
};

/* The loop created last: the one evbe_blocked and the control handler serve (one loop
 * per process). The handler's thread reads only the flags and the socket below. */
static struct evloop *evbe_loop;
static volatile LONG evbe_wanted[EVLOOP_NSIG];
static volatile SOCKET evbe_wake_w = INVALID_SOCKET;
static HANDLE evbe_done;

static void evbe_blocked(int fd, enum sys_io_dir dir);

uint64_t
evbe_clock(void)
{
	return GetTickCount64();
}

int
evbe_init(struct evloop *loop)
{
	struct evbe *be;

	if (sys_init() == -1)
		return -1;
	be = xcalloc(1, sizeof(*be));
	be->wake[0] = be->wake[1] = -1;
	loop->be = be;
	evbe_loop = loop;
	sys_win_set_blocked_hook(evbe_blocked);
	return 0;
}

void
evbe_free(struct evloop *loop)
{
	struct evbe *be = loop->be;
	int i;

	if (be->wake[0] != -1) {
		for (i = 0; i < EVLOOP_NSIG; i++)
			evbe_wanted[i] = 0;
		evbe_wake_w = INVALID_SOCKET;
		SetEvent(evbe_done); /* a closing console's handler may return now */
		sys_sockclose(be->wake[0]);
		sys_sockclose(be->wake[1]);
	}
	if (evbe_loop == loop)
		evbe_loop = NULL;
	free(be->pfd);
	free(be->pfdfd);
	free(be);
}

/* Set entry s's poll bits from what it is armed for. */
static void
evbe_arm(struct evbe *be, int fd, struct ev_slot *s)
{
	WSAPOLLFD *p = &be->pfd[s->bidx - 1];
	SHORT ev = 0;

	if (s->armed & EV_READ)
		ev |= POLLRDNORM;
	if (s->armed & EV_WRITE)
		ev |= POLLWRNORM;
	p->events = ev;
	p->revents = 0;
	/* A level registration stays to hear of hang-ups and errors, which WSAPoll
	 * reports whatever is asked, as epoll does; an edge one has had its report. */
	p->fd = ev == 0 && (s->events & EV_EDGE) ? INVALID_SOCKET : (SOCKET)fd;
}

static void
evbe_interest(struct evbe *be, int fd, struct ev_slot *s, unsigned events)
{
	s->armed = events & (EV_READ | EV_WRITE);
	s->hupped = 0;
	s->events = events; /* evbe_arm reads it; evloop.c sets the same */
	evbe_arm(be, fd, s);
}

int
evbe_add(struct evloop *loop, int fd, struct ev_slot *s, unsigned events)
{
	struct evbe *be = loop->be;

	if (be->n == be->cap) {
		be->cap = be->cap ? be->cap * 2 : 64;
		be->pfd = xreallocarray(be->pfd, be->cap, sizeof(*be->pfd));
		be->pfdfd = xreallocarray(be->pfdfd, be->cap, sizeof(*be->pfdfd));
	}
	be->pfdfd[be->n] = fd;
	s->bidx = ++be->n;
	evbe_interest(be, fd, s, events);
	return 0;
}

int
evbe_mod(struct evloop *loop, int fd, struct ev_slot *s, unsigned events)
{
	evbe_interest(loop->be, fd, s, events);
	return 0;
}

/* Take s's entry out of the array: the last one takes its place. */
void
evbe_del(struct evloop *loop, int fd, struct ev_slot *s)
{
	struct evbe *be = loop->be;
	size_t i;

	(void)fd;
	if (s->bidx == 0)
		return;
	i = s->bidx - 1;
	s->bidx = 0;
	if (i != --be->n) {
		be->pfd[i] = be->pfd[be->n];
		be->pfdfd[i] = be->pfdfd[be->n];
		loop->slots[be->pfdfd[i]].bidx = i + 1;
	}
}

/* Nothing outside the array polls: forgetting and detaching are deleting. */
void
evbe_forget(struct evloop *loop, int fd, struct ev_slot *s)
{
	evbe_del(loop, fd, s);
}

void
evbe_detach(struct evloop *loop, int fd, struct ev_slot *s)
{
	evbe_del(loop, fd, s);
}

/*
 * An I/O call on fd found nothing (more) to do in direction dir: it would block (EAGAIN),
 * or moved fewer bytes than asked, which callers take for a drained socket as they may
 * with epoll. Poll that direction again.
 */
static void
evbe_blocked(int fd, enum sys_io_dir dir)
{
	struct evloop *loop = evbe_loop;
	struct ev_slot *s;
	unsigned bits = dir == SYS_IO_RECV ? EV_READ : EV_WRITE;

	if (loop == NULL || fd < 0 || (size_t)fd >= loop->nslots)
		return;
	s = &loop->slots[fd];
	if (!s->used || s->bidx == 0 || !(s->events & EV_EDGE))
		return;
	bits &= s->events & (EV_READ | EV_WRITE);
	if ((s->armed & bits) == bits)
		return;
	s->armed |= bits;
	evbe_arm(loop->be, fd, s);
}

static unsigned
evbe_ready(SHORT re)
{
	unsigned ready = 0;

	if (re & POLLRDNORM)
		ready |= EV_READ;
	if (re & POLLWRNORM)
		ready |= EV_WRITE;
	/* WSAPoll's hang-up is the peer's end of the stream (its FIN): what is queued,
	 * then EOF, as epoll's RDHUP. An error or a reset: read or write to learn which. */
	if (re & POLLHUP)
		ready |= EV_READ | EV_RDHUP;
	if (re & (POLLERR | POLLNVAL))
		ready |= EV_HUP | EV_READ | EV_WRITE;
	return ready;
}

int
evbe_wait(struct evloop *loop, int timeout, struct ev_fired *out, int max)
{
	struct evbe *be = loop->be;
	size_t i, k, active = 0;
	int r, n = 0;

	for (i = 0; i < be->n; i++)
		active += be->pfd[i].fd != INVALID_SOCKET;
	if (active == 0) {
		/* WSAPoll wants at least one socket to watch. */
		Sleep(timeout < 0 ? INFINITE : (DWORD)timeout);
		return 0;
	}
	r = WSAPoll(be->pfd, (ULONG)be->n, timeout);
	if (r == SOCKET_ERROR) {
		errno = sys_errno_from_wsa(WSAGetLastError());
		return errno == EINTR ? 0 : -1;
	}
	if (be->start >= be->n)
		be->start = 0;
	for (k = 0; k < be->n && r > 0 && n < max; k++) {
		WSAPOLLFD *p;
		struct ev_slot *s;
		unsigned ready;
		int fd;

		i = (be->start + k) % be->n;
		p = &be->pfd[i];
		if (p->fd == INVALID_SOCKET || p->revents == 0)
			continue;
		r--;
		fd = be->pfdfd[i];
		s = &loop->slots[fd];
		ready = evbe_ready(p->revents);
		p->revents = 0;
		if (s->events & EV_EDGE) {
			if (s->hupped)
				ready &= ~(EV_RDHUP | EV_HUP);
			if (ready & (EV_RDHUP | EV_HUP))
				s->hupped = 1;
			/* Report only what it is armed for, then stop polling that way. */
			ready &= s->armed | EV_RDHUP | EV_HUP;
			if (ready & EV_HUP)
				s->armed = 0;
			s->armed &= ~ready;
			evbe_arm(be, fd, s);
			if (ready == 0)
				continue;
		}
		out[n].fd = fd;
		out[n].gen = s->gen;
		out[n].ready = ready;
		n++;
	}
	be->start = be->n ? (be->start + k) % be->n : 0;
	return n;
}

/* --- signals: the console's control events ------------------------------------------ */

int
evbe_ctrl_event(unsigned long type)
{
	SOCKET w = evbe_wake_w;
	int signo;
	char b;

	switch (type) {
	case CTRL_C_EVENT:
		signo = SIGINT;
		break;
	case CTRL_BREAK_EVENT:
		signo = SIGBREAK;
		break;
	case CTRL_CLOSE_EVENT:
	case CTRL_LOGOFF_EVENT:
	case CTRL_SHUTDOWN_EVENT:
		signo = SIGTERM;
		break;
	default:
		return FALSE;
	}
	if (!evbe_wanted[signo] || w == INVALID_SOCKET)
		return FALSE; /* the default: the process ends */
	b = (char)signo;
	(void)send(w, &b, 1, 0);
	/* For these three Windows ends the process when the handler returns. */
	if (signo == SIGTERM)
		WaitForSingleObject(evbe_done, 4500);
	return TRUE;
}

static BOOL WINAPI
evbe_ctrl(DWORD type)
{
	return evbe_ctrl_event(type);
}

int
evbe_signal_next(struct evloop *loop, int fd)
{
	unsigned char b;

	(void)loop;
	return sys_recv(fd, &b, 1) == 1 ? b : 0;
}

int
evbe_signal(struct evloop *loop, int signo, int *newfd)
{
	struct evbe *be = loop->be;

	*newfd = -1;
	if (signo != SIGINT && signo != SIGBREAK && signo != SIGTERM) {
		errno = EINVAL;
		return -1;
	}
	if (be->wake[0] == -1) {
		if (evbe_done == NULL &&
		    (evbe_done = CreateEventW(NULL, TRUE, FALSE, NULL)) == NULL) {
			errno = ENOMEM;
			return -1;
		}
		if (sys_socketpair(be->wake) == -1)
			return -1;
		if (sys_set_nonblock(be->wake[0]) == -1) {
			sys_sockclose(be->wake[0]);
			sys_sockclose(be->wake[1]);
			be->wake[0] = be->wake[1] = -1;
			return -1;
		}
		ResetEvent(evbe_done);
		evbe_wake_w = (SOCKET)be->wake[1];
		if (!SetConsoleCtrlHandler(evbe_ctrl, TRUE)) {
			errno = EINVAL;
			return -1;
		}
		*newfd = be->wake[0];
	}
	evbe_wanted[signo] = 1;
	return 0;
}
#endif
