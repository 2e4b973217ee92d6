/*
 * lib/proxyd/resolver.h on Windows, without c-ares (Debian has no mingw-w64 build): each
 * lookup is one getaddrinfo() on a thread of the system's pool, which consults the hosts
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

#include "resolver.h"
#include "sys.h"
#include "util.h"

#define RESOLVER_MAX_ANSWERS 64
#define RESOLVER_ENODATA (-1)   /* answered, but with no IPv4 or IPv6 address */

struct resolver_post {
	CRITICAL_SECTION lock;
	int closed;
	SOCKET w;
	LONG refs;              /* the resolver's and each running lookup's */
};

struct resolver {
	struct evloop *loop;
	int rd;                 /* the pair's reading end */
	struct resolver_post *post;
	size_t outstanding;     /* posted to a thread, not yet read back */
	unsigned char part[sizeof(void *)];
	size_t npart;           /* bytes of a pointer read so far */
};

struct resolver_query {
	struct resolver_post *post;
	char *name;
	resolver_cb cb;
	void *arg;
	int cancelled;
	int status;
	struct ip_addr addrs[RESOLVER_MAX_ANSWERS];
	size_t naddrs;
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

static void
resolver_query_free(struct resolver_query *q)
{
	free(q->name);
	free(q);
}

/* On the pool's thread: the lookup, then the query back to the loop. */
static void
resolver_answer(struct resolver_query *q)
{
	struct addrinfo hints, *res = NULL, *ai;
	size_t i;
	int st;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	st = getaddrinfo(q->name, NULL, &hints, &res);
	for (ai = st == 0 ? res : NULL; ai != NULL && q->naddrs < RESOLVER_MAX_ANSWERS;
	    ai = ai->ai_next) {
		struct ip_addr a;

		memset(&a, 0, sizeof(a));
		if (ai->ai_family == AF_INET && ai->ai_addrlen >= sizeof(struct sockaddr_in)) {
			a.family = 4;
			memcpy(a.bytes, &((struct sockaddr_in *)(void *)ai->ai_addr)->sin_addr, 4);
		} else if (ai->ai_family == AF_INET6 &&
		    ai->ai_addrlen >= sizeof(struct sockaddr_in6)) {
			a.family = 6;
			memcpy(a.bytes, &((struct sockaddr_in6 *)(void *)ai->ai_addr)->sin6_addr,
			    16);
		} else
			continue;
		for (i = 0; i < q->naddrs; i++)
			if (ip_addr_equal(&q->addrs[i], &a))
				break;
		if (i == q->naddrs)
			q->addrs[q->naddrs++] = a;
	}
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
resolver_take(struct resolver *r, struct resolver_query **out, size_t max)
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
	struct resolver *r = arg;
	struct resolver_query *qs[32];
	size_t i, n;

	(void)fd;
	(void)events;
	while ((n = resolver_take(r, qs, 32)) > 0) {
		for (i = 0; i < n; i++) {
			r->outstanding--;
			if (!qs[i]->cancelled)
				qs[i]->cb(qs[i]->arg, qs[i]->status, qs[i]->addrs, qs[i]->naddrs);
			resolver_query_free(qs[i]);
		}
	}
	/* Watched only while a lookup is outstanding: an idle resolver does not keep the
	 * loop running (as c-ares's sockets do not). */
	if (r->outstanding == 0)
		evloop_del(loop, r->rd);
}

struct resolver *
resolver_new(struct evloop *loop, char *err, size_t errlen)
{
	struct resolver *r;
	int sv[2];

	if (sys_socketpair(sv) == -1 || sys_set_nonblock(sv[0]) == -1) {
		snprintf(err, errlen, "resolver: socket pair: %s", strerror(errno));
		return NULL;
	}
	r = xcalloc(1, sizeof(*r));
	r->loop = loop;
	r->rd = sv[0];
	r->post = xcalloc(1, sizeof(*r->post));
	InitializeCriticalSection(&r->post->lock);
	r->post->w = (SOCKET)sv[1];
	r->post->refs = 1;
	return r;
}

void
resolver_free(struct resolver *r)
{
	struct resolver_query *qs[32];
	size_t i, n;

	if (r == NULL)
		return;
	EnterCriticalSection(&r->post->lock);
	r->post->closed = 1;
	LeaveCriticalSection(&r->post->lock);
	/* What was posted before is ours; what was not, its thread frees. */
	while ((n = resolver_take(r, qs, 32)) > 0)
		for (i = 0; i < n; i++)
			resolver_query_free(qs[i]);
	evloop_del(r->loop, r->rd);
	sys_sockclose(r->rd);
	resolver_post_release(r->post);
	free(r);
}

struct resolver_query *
resolver_lookup(struct resolver *r, const char *name, resolver_cb cb, void *arg)
{
	struct resolver_query *q;

	q = xcalloc(1, sizeof(*q));
	q->post = r->post;
	q->name = xstrdup(name);
	q->cb = cb;
	q->arg = arg;
	if (r->outstanding == 0 &&
	    evloop_add(r->loop, r->rd, EV_READ, resolver_io_cb, r) == -1) {
		resolver_query_free(q);
		return NULL;
	}
	InterlockedIncrement(&r->post->refs);
	if (!TrySubmitThreadpoolCallback(resolver_work, q, NULL)) {
		InterlockedDecrement(&r->post->refs);
		if (r->outstanding == 0)
			evloop_del(r->loop, r->rd);
		resolver_query_free(q);
		return NULL;
	}
	r->outstanding++;
	return q;
}

/* The callback will not be called; the query is freed when its thread is done. */
void
resolver_cancel(struct resolver_query *q)
{
	q->cancelled = 1;
}

const char *
resolver_strerror(int status)
{
	switch (status) {
	case 0:
		return "success";
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
