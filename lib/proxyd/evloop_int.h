/*
 * The event loop's inside, shared by its portable part (evloop.c: registrations,
 * timers, signals' callbacks, dispatch and the generation rule) and its backend, one per
 * platform: evloop_epoll.c (Linux: epoll and a signalfd) and evloop_wsapoll.c
 * (Windows: WSAPoll over sockets, the console control handler for signals). Nothing else
 * includes this header.
 */
#ifndef SRT_EVLOOP_INT_H
#define SRT_EVLOOP_INT_H

#include "evloop.h"

/* One registration, in a table indexed by fd. */
struct ev_slot {
	ev_io_cb cb;
	void *arg;
	uint32_t gen;
	unsigned events;
	int used;
	int kreg;       /* epoll: the kernel still has it registered (evloop_detach) */
	size_t bidx;    /* WSAPoll: index + 1 in the backend's poll array; 0: none */
	unsigned armed; /* WSAPoll: the EV_READ/EV_WRITE bits polled for (edge) */
	int hupped;     /* WSAPoll: its hang-up was reported (edge) */
};

/* What the backend's wait found for one fd. */
struct ev_fired {
	int fd;
	uint32_t gen;
	unsigned ready; /* EV_READ, EV_WRITE, EV_HUP, EV_RDHUP */
};

#define EVLOOP_BATCH 256
#define EVLOOP_NSIG 65

struct evbe;

struct evloop {
	struct evbe *be;
	struct ev_slot *slots;
	size_t nslots;
	size_t nused;
	struct ev_timer **heap;
	size_t nheap, capheap;
	uint64_t now;
	int stop;
	ev_signal_cb sigcb[EVLOOP_NSIG];
	void *sigarg[EVLOOP_NSIG];
};

/* The backend. -1 with errno on failure where an int is returned. */
int evbe_init(struct evloop *loop);
void evbe_free(struct evloop *loop);
uint64_t evbe_clock(void); /* monotonic milliseconds */
int evbe_add(struct evloop *loop, int fd, struct ev_slot *s, unsigned events);
int evbe_mod(struct evloop *loop, int fd, struct ev_slot *s, unsigned events);
/* Stop watching fd: del while it stays open, forget when it is closed right away,
 * detach when it stays open for its next registration (evloop.h). */
void evbe_del(struct evloop *loop, int fd, struct ev_slot *s);
void evbe_forget(struct evloop *loop, int fd, struct ev_slot *s);
void evbe_detach(struct evloop *loop, int fd, struct ev_slot *s);
/* Wait at most timeout ms (-1: no limit); fills out with at most max events; returns
 * their number, 0 when interrupted, -1 with errno on failure. */
int evbe_wait(struct evloop *loop, int timeout, struct ev_fired *out, int max);
/* Start delivering signo to the loop: *fd is set, the first time, to the descriptor the
 * loop is to watch for reading (registered without keeping the loop running), -1 after. */
int evbe_signal(struct evloop *loop, int signo, int *fd);
/* The next signal the descriptor holds; 0 when none is left. */
int evbe_signal_next(struct evloop *loop, int fd);

#ifdef _WIN32
/* The console control handler's work, on the thread Windows calls it on: TRUE when the
 * event goes to the loop. Apart for the unit test, which calls it from a thread of its
 * own (Wine delivers no control event to a process without a console). */
int evbe_ctrl_event(unsigned long type);
#endif

#endif
