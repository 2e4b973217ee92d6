/*
 * The splice relay, driven on a real event loop over socket pairs: bytes arrive intact in
 * both directions at once, half-close is passed on, the end is reported with the byte
 * counts, and the same holds when no pipe may be had (pipe budget 0: every byte goes
 * through the user-space fallback) and when the budget is tiny and shared. Built with
 * mingw-w64 too (make win), where lib/proxyd/relay_copy.c copies without pipes, and run under
 * Wine by tests/windows/proxies-wine.bats: the pipe checks are Linux's only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evloop.h"
#include "relay.h"
#include "sys.h"
#include "tap.h"

#ifdef _WIN32
#define SHUT_WR SD_SEND

static int
mkpair(int sv[2])
{
	return sys_socketpair(sv) == -1 || sys_set_nonblock(sv[0]) == -1 ||
		sys_set_nonblock(sv[1]) == -1
	    ? -1
	    : 0;
}

static ssize_t
peer_send(int fd, const void *buf, size_t len)
{
	return sys_send(fd, buf, len);
}
#else
static int
mkpair(int sv[2])
{
	return socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, sv);
}

static ssize_t
peer_send(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL);
}
#endif

#define SIZE (3u << 20) /* bytes each way */
#define NRELAYS 4

/* One end the test drives: writes SIZE bytes of its pattern, then shuts down its write
 * side; reads and checks the other end's pattern until EOF. */
struct peer {
	int fd;
	uint8_t seed_out, seed_in;
	size_t sent, got;
	int bad, eof, shut;
};

struct pair {
	struct peer c, s;
	int done;
	enum relay_end how;
	struct relay_stats st;
};

static int nrunning; /* relays and peers still going */
static struct evloop *theloop;

static uint8_t
pattern(uint8_t seed, size_t i)
{
	return (uint8_t)(seed + i * 7 + (i >> 12));
}

static void
peer_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct peer *p = arg;
	uint8_t buf[65536];
	ssize_t n;
	size_t i;

	(void)events;
	while (p->sent < SIZE) {
		size_t want = SIZE - p->sent < sizeof(buf) ? SIZE - p->sent : sizeof(buf);

		for (i = 0; i < want; i++)
			buf[i] = pattern(p->seed_out, p->sent + i);
		n = peer_send(fd, buf, want);
		if (n <= 0)
			break;
		p->sent += (size_t)n;
	}
	if (p->sent == SIZE && !p->shut) {
		shutdown(fd, SHUT_WR);
		p->shut = 1;
	}
	for (;;) {
		n = sys_recv(fd, buf, sizeof(buf));
		if (n > 0) {
			for (i = 0; i < (size_t)n; i++)
				if (buf[i] != pattern(p->seed_in, p->got + i))
					p->bad = 1;
			p->got += (size_t)n;
			continue;
		}
		if (n == 0)
			p->eof = 1;
		break;
	}
	if (p->eof)
		evloop_mod(loop, fd, p->shut ? 0 : EV_WRITE);
	else
		evloop_mod(loop, fd, p->shut ? EV_READ : EV_READ | EV_WRITE);
	if (p->eof && p->shut) {
		evloop_del(loop, fd);
		sys_sockclose(fd);
		p->fd = -1;
		if (--nrunning == 0)
			evloop_break(loop);
	}
}

static void
relay_done(
    struct relay *r, enum relay_end how, int err, const struct relay_stats *st, void *arg)
{
	struct pair *pr = arg;

	(void)r;
	(void)err;
	pr->done = 1;
	pr->how = how;
	pr->st = *st;
	if (--nrunning == 0)
		evloop_break(theloop);
}

static void
stop_cb(struct evloop *loop, void *arg)
{
	*(int *)arg = 1;
	evloop_break(loop);
}

/* Run n relays at once; 1 if every one delivered everything both ways. */
static int
run(size_t budget, int n, const char *what)
{
	struct evloop *loop = evloop_new();
	struct pair prs[NRELAYS];
	int stopped = 0;
	struct ev_timer guard;
	int i, all = 1;

	relay_set_pipe_budget(budget);
	memset(prs, 0, sizeof(prs));
	theloop = loop;
	nrunning = 0;
	evtimer_init(&guard, stop_cb, &stopped);
	evtimer_add(loop, &guard, 60000);
	for (i = 0; i < n; i++) {
		struct pair *pr = &prs[i];
		struct relay_params p;
		int a[2], b[2];

		if (mkpair(a) == -1 || mkpair(b) == -1)
			return 0;
		pr->c.fd = a[0];
		pr->s.fd = b[0];
		pr->c.seed_out = pr->s.seed_in = (uint8_t)(1 + i);
		pr->s.seed_out = pr->c.seed_in = (uint8_t)(101 + i);
		memset(&p, 0, sizeof(p));
		p.done = relay_done;
		p.arg = pr;
		if (relay_start(loop, a[1], b[1], &p, NULL) == -1)
			return 0;
		nrunning += 3;
		evloop_add(loop, pr->c.fd, EV_READ | EV_WRITE, peer_io, &pr->c);
		evloop_add(loop, pr->s.fd, EV_READ | EV_WRITE, peer_io, &pr->s);
	}
	/* Until every relay and peer is done, or the 60 s guard fires. */
	if (evloop_run(loop) == -1 || stopped)
		printf("# %s: %s\n", what, stopped ? "timed out" : "event loop failed");
	for (i = 0; i < n; i++) {
		struct pair *pr = &prs[i];
		int ok1 = pr->done && pr->how == RELAY_END_CLOSED && pr->st.up == SIZE &&
		    pr->st.down == SIZE && pr->c.got == SIZE && pr->s.got == SIZE &&
		    !pr->c.bad && !pr->s.bad && pr->c.eof && pr->s.eof;

		if (!ok1)
			printf(
			    "# %s #%d: done %d how %d up %llu down %llu got %lu/%lu bad %d/%d\n",
			    what, i, pr->done, pr->how, (unsigned long long)pr->st.up,
			    (unsigned long long)pr->st.down, (unsigned long)pr->c.got,
			    (unsigned long)pr->s.got, pr->c.bad, pr->s.bad);
		all &= ok1;
		if (pr->c.fd != -1)
			sys_sockclose(pr->c.fd);
		if (pr->s.fd != -1)
			sys_sockclose(pr->s.fd);
	}
	evtimer_del(loop, &guard);
	evloop_free(loop);
	return all;
}

#ifndef _WIN32
/* Pipes this process has open (the relay's pool included). */
static int
open_pipes(void)
{
	char path[64], target[64];
	int fd, n = 0;
	ssize_t len;

	for (fd = 0; fd < 1024; fd++) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((len = readlink(path, target, sizeof(target) - 1)) <= 0)
			continue;
		target[len] = '\0';
		if (strncmp(target, "pipe:", 5) == 0)
			n++;
	}
	return n;
}

#endif

int
main(void)
{
#ifdef _WIN32
	ok(sys_init() == 0, "sockets ready");
	ok(run(0, 1, "copy"), "one relay: 3 MiB each way intact, half-close, counts");
	ok(run(0, NRELAYS, "many"), "%d relays at once all complete", NRELAYS);
#else
	int base = open_pipes(); /* stdout may be a pipe */

	ok(run(1024, 1, "splice"),
	    "one relay with pipes: 3 MiB each way intact, half-close, counts");
	ok(open_pipes() > base, "the pipes went back to the pool");
	ok(run(0, 1, "copy"),
	    "no pipe to be had: the user-space fallback moves the same bytes");
	ok(open_pipes() == base, "a budget of 0 leaves no pipe open");
	ok(run(2, NRELAYS, "shared"), "%d relays sharing a budget of 2 pipes all complete",
	    NRELAYS);
	ok(run(1024, NRELAYS, "many"), "%d relays with pipes at once all complete", NRELAYS);
#endif
	return tap_done();
}
