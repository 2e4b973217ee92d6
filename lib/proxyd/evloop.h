/*
 * One event loop per process: fd readiness callbacks, timers in a binary heap, and
 * signals. Single-threaded; callbacks run on the loop. On Linux the fds are watched with
 * epoll and signals arrive through a signalfd; on Windows the fds are sockets watched
 * with WSAPoll, and "signals" are the console's control events (evloop_signal).
 *
 * Lifetime rule: a callback may remove (evloop_del) and close any fd, including one that has
 * another event pending in the same batch; a stale event for a removed fd is dropped (each
 * registration carries a generation number), so an fd number reused within one batch never
 * receives the old owner's events.
 */
#ifndef SRT_EVLOOP_H
#define SRT_EVLOOP_H

#include <stddef.h>
#include <stdint.h>

struct evloop;

/* Interest and readiness bits. */
#define EV_READ 0x01u
#define EV_WRITE 0x02u
#define EV_EDGE 0x04u /* edge-triggered (interest only): report each transition once */
#define EV_HUP 0x08u  /* readiness only: peer hung up or error; read/write to learn which */
#define EV_RDHUP \
	0x10u /* readiness only: the peer shut down its writing (EOF is queued
                            behind any data); comes with EV_READ */

typedef void (*ev_io_cb)(struct evloop *loop, int fd, unsigned events, void *arg);
typedef void (*ev_timer_cb)(struct evloop *loop, void *arg);
typedef void (*ev_signal_cb)(struct evloop *loop, int signo, void *arg);

/* A timer; embed it in the owning object and initialise it with evtimer_init. */
struct ev_timer {
	uint64_t deadline; /* loop clock, milliseconds */
	size_t slot;       /* heap index + 1; 0 when not armed */
	ev_timer_cb cb;
	void *arg;
};

/* NULL with errno set on failure. */
struct evloop *evloop_new(void);
/* Closes the epoll and signal fds; does not close registered fds. */
void evloop_free(struct evloop *loop);

/* Register fd (which should be O_NONBLOCK) for events; -1 with errno on failure (EEXIST if
 * already registered). */
int evloop_add(struct evloop *loop, int fd, unsigned events, ev_io_cb cb, void *arg);
/* Change the interest set of a registered fd; -1 with errno on failure. */
int evloop_mod(struct evloop *loop, int fd, unsigned events);
/* Hand a registered fd to another owner: its callback and argument change, its interest
 * set and registration stay as they are, with no system call. An event of fd still
 * pending in the batch being dispatched goes to the new owner, which must take a spurious
 * report calmly (a read that finds nothing). -1 with errno ENOENT if fd is not registered. */
int evloop_rebind(struct evloop *loop, int fd, ev_io_cb cb, void *arg);
/* Forget fd (call before close(2)); a no-op for an unregistered fd. */
void evloop_del(struct evloop *loop, int fd);
/* Forget fd that the caller closes right away, without a system call: close(2) takes it
 * out of the epoll set. Only for an fd whose open file nothing else refers to (no dup,
 * no fork since it was opened, not passed on): otherwise use evloop_del. */
void evloop_forget(struct evloop *loop, int fd);
/* Forget fd that stays open and is about to be registered again by its next owner (a
 * dialled socket handed to the relay): the next evloop_add of fd changes the kernel's
 * registration in place instead of deleting and adding it. If the fd is closed instead,
 * that costs nothing but a failed call at its next registration. */
void evloop_detach(struct evloop *loop, int fd);

/* Milliseconds on CLOCK_MONOTONIC, refreshed once per loop iteration. */
uint64_t evloop_now(struct evloop *loop);

void evtimer_init(struct ev_timer *t, ev_timer_cb cb, void *arg);
/* (Re)arm t to fire once, ms milliseconds from now. */
void evtimer_add(struct evloop *loop, struct ev_timer *t, uint64_t ms);
/* Disarm t; harmless when not armed. Must be called before the timer's memory is freed. */
void evtimer_del(struct evloop *loop, struct ev_timer *t);
int evtimer_pending(const struct ev_timer *t);

/* Deliver signo through the loop's signalfd (the signal is blocked for the process);
 * -1 with errno on failure. On Windows signo is SIGINT (Ctrl-C), SIGBREAK (Ctrl-Break)
 * or SIGTERM (the console closing, the user logging off, the system shutting down: the
 * handler then holds the process until the loop has ended, as long as Windows lets it,
 * about 5 seconds); another signal is EINVAL. */
int evloop_signal(struct evloop *loop, int signo, ev_signal_cb cb, void *arg);

/* Run until evloop_break() or until nothing is registered and no timer is armed.
 * Returns 0, or -1 with errno if epoll_wait failed. */
int evloop_run(struct evloop *loop);
void evloop_break(struct evloop *loop);

#endif
