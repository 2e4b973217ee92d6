/* Unit tests for lib/evloop.c: handing a registered fd to another owner (evloop_rebind). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "evloop.h"
#include "tap.h"

struct seen {
	int calls_a, calls_b;
	int fd_b;               /* the fd cb_b saw */
	void *arg_b;
	int swap[2];            /* cb_a, first call: rebind the one of these it was not
	                           called for to cb_b; -1: no rebinding */
	int rebound;            /* the fd it rebound */
};

static struct seen seen;

static void
drain(int fd)
{
	char buf[16];

	while (read(fd, buf, sizeof(buf)) > 0)
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

int
main(void)
{
	struct evloop *loop = evloop_new();
	int p1[2], p2[2], marker = 0;

	ok(loop != NULL, "loop created");
	if (pipe2(p1, O_NONBLOCK | O_CLOEXEC) == -1 || pipe2(p2, O_NONBLOCK | O_CLOEXEC) == -1)
		return 1;

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
	ok(write(p1[1], "x", 1) == 1, "byte written");
	seen.calls_a = 1;       /* one callback is enough to stop */
	ok(evloop_run(loop) == 0, "loop ran");
	ok(seen.calls_b == 1 && seen.fd_b == p1[0] && seen.arg_b == &marker,
	    "the event went to the new callback with the new argument");

	/* A hand-over inside the batch: both fds are ready before the loop waits. */
	memset(&seen, 0, sizeof(seen));
	ok(evloop_rebind(loop, p1[0], cb_a, NULL) == 0, "p1 back to cb_a");
	ok(evloop_add(loop, p2[0], EV_READ, cb_a, NULL) == 0, "p2 registered");
	ok(write(p1[1], "x", 1) == 1 && write(p2[1], "y", 1) == 1, "both readable");
	seen.swap[0] = p1[0];
	seen.swap[1] = p2[0];
	ok(evloop_run(loop) == 0, "loop ran");
	ok(seen.calls_a == 1 && seen.calls_b == 1, "one event each (a=%d b=%d)",
	    seen.calls_a, seen.calls_b);
	ok(seen.fd_b == seen.rebound && seen.arg_b == &seen,
	    "the event pending for the rebound fd went to its new owner");

	evloop_del(loop, p1[0]);
	evloop_del(loop, p2[0]);
	ok(evloop_rebind(loop, p1[0], cb_b, NULL) == -1 && errno == ENOENT,
	    "rebind after evloop_del: ENOENT");
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	evloop_free(loop);
	return tap_done();
}
