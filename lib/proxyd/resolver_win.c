/*
 * The resolver's lookup back end on Windows (lib/proxyd/resolver_int.h), without c-ares (Debian
 * has no mingw-w64 build of it): each lookup is one getaddrinfo() on a thread of the system's pool, which consults the hosts
 * file (%SystemRoot%\System32\drivers\etc\hosts) and then DNS as Windows is configured.
 * The thread posts the finished query, as a pointer, to a socket pair whose reading end
 * the loop watches while lookups are outstanding; every callback runs on the loop.
 *
 * The writing end is shared with the threads under a lock: resolver_free marks it closed,
 * takes back the queries already posted and leaves those still running to free
 * themselves when they find it closed.
 */
#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "resolver_int.h"
#include "sys.h"
#include "util.h"

#define RESOLVER_ENODATA (-1) /* answered, but with no IPv4 or IPv6 address */

struct resolver_post {
	CRITICAL_SECTION lock;
	int closed;
	SOCKET w;
	LONG refs; /* the resolver's and each running lookup's */
};

struct resolver_be {
	int rd; /* the pair's reading end */
	struct resolver_post *post;
	size_t outstanding; /* posted to a thread, not yet read back */
	unsigned char part[sizeof(void *)];
	size_t npart; /* bytes of a pointer read so far */
};

static void
resolver_post_release(struct resolver_post *p)
{
	if (InterlockedDecrement(&p->refs) != 0)
		return;
	closesocket(p->w);
	DeleteCriticalSection(&p->lock);
	free(p);
}

/* On the pool's thread: the lookup, then the query back to the loop. */
static void
resolver_answer(struct resolver_query *q)
{
	struct addrinfo hints, *res = NULL, *ai;
	int st;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	st = getaddrinfo(q->name, NULL, &hints, &res);
	for (ai = st == 0 ? res : NULL; ai != NULL; ai = ai->ai_next)
		resolver_answer_add(q, ai->ai_addr, ai->ai_addrlen, ai->ai_family);
	if (res != NULL)
		freeaddrinfo(res);
	q->status = st != 0 ? st : q->naddrs == 0 ? RESOLVER_ENODATA : 0;
}

static VOID CALLBACK
resolver_work(PTP_CALLBACK_INSTANCE inst, PVOID arg)
{
	struct resolver_query *q = arg;
	struct resolver_post *p = q->post;
	int sent = 0;

	(void)inst;
	resolver_answer(q);
	EnterCriticalSection(&p->lock);
	/* A blocking socket: the pointer goes whole, or not at all. */
	if (!p->closed)
		sent = send(p->w, (const char *)&q, sizeof(q), 0) == (int)sizeof(q);
	LeaveCriticalSection(&p->lock);
	if (!sent)
		resolver_query_free(q);
	resolver_post_release(p);
}

/* Queries back from their threads, whole pointers only. */
static size_t
resolver_take(struct resolver_be *r, struct resolver_query **out, size_t max)
{
	size_t n = 0;
	ssize_t got;

	while (n < max) {
		got = sys_recv(r->rd, r->part + r->npart, sizeof(r->part) - r->npart);
		if (got <= 0)
			break;
		r->npart += (size_t)got;
		if (r->npart == sizeof(r->part)) {
			memcpy(&out[n++], r->part, sizeof(out[0]));
			r->npart = 0;
		}
	}
	return n;
}

static void
resolver_io_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct resolver_be *r = arg;
	struct resolver_query *qs[32];
	size_t i, n;

	(void)fd;
	(void)events;
	while ((n = resolver_take(r, qs, 32)) > 0) {
		for (i = 0; i < n; i++) {
			r->outstanding--;
			resolver_deliver(qs[i]);
		}
	}
	/* Watched only while a lookup is outstanding: an idle resolver does not keep the
	 * loop running (as c-ares's sockets do not). */
	if (r->outstanding == 0)
		evloop_del(loop, r->rd);
}

struct resolver_be *
resolver_be_new(struct resolver *res, char *err, size_t errlen)
{
	struct resolver_be *r;
	int sv[2];

	(void)res;
	if (sys_socketpair(sv) == -1 || sys_set_nonblock(sv[0]) == -1) {
		snprintf(err, errlen, "resolver: socket pair: %s", strerror(errno));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->rd = sv[0];
	r->post = xcalloc(1, sizeof(*r->post));
	InitializeCriticalSection(&r->post->lock);
	r->post->w = (SOCKET)sv[1];
	r->post->refs = 1;
	return r;
}

void
resolver_be_free(struct resolver *res)
{
	struct resolver_be *r = res->be;
	struct resolver_query *qs[32];
	size_t i, n;

	EnterCriticalSection(&r->post->lock);
	r->post->closed = 1;
	LeaveCriticalSection(&r->post->lock);
	/* What was posted before is ours; what was not, its thread frees. */
	while ((n = resolver_take(r, qs, 32)) > 0)
		for (i = 0; i < n; i++)
			resolver_query_free(qs[i]);
	evloop_del(res->loop, r->rd);
	sys_sockclose(r->rd);
	resolver_post_release(r->post);
	free(r);
}

int
resolver_be_lookup(struct resolver *res, struct resolver_query *q, const char *name)
{
	struct resolver_be *r = res->be;

	q->post = r->post;
	q->name = xstrdup(name);
	if (r->outstanding == 0 &&
	    evloop_add(res->loop, r->rd, EV_READ, resolver_io_cb, r) == -1)
		return -1;
	InterlockedIncrement(&r->post->refs);
	if (!TrySubmitThreadpoolCallback(resolver_work, q, NULL)) {
		InterlockedDecrement(&r->post->refs);
		if (r->outstanding == 0)
			evloop_del(res->loop, r->rd);
		return -1;
	}
	r->outstanding++;
	return 0;
}

const char *
resolver_be_strerror(int status)
{
	switch (status) {
	case RESOLVER_ENODATA:
	case EAI_NONAME:
	case WSANO_DATA:
		return "name not found";
	case EAI_AGAIN:
		return "lookup timed out";
	case EAI_FAIL:
		return "name server failure";
	default:
		return "lookup failed";
	}
}
#endif
