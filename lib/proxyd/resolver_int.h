/*
 * The resolver's inside, shared by its front half (lib/proxyd/resolver.c: the lookup, the
 * hosts file before anything else, cancel), the query (lib/proxyd/resolver_query.c:
 * answers collected and delivered from the loop) and
 * its lookup back end, one per platform: lib/proxyd/resolver_ares.c (c-ares on the loop's
 * sockets) and lib/proxyd/resolver_win.c (Windows: getaddrinfo on the system's thread pool).
 * Nothing else includes this header.
 */
#ifndef SRT_RESOLVER_INT_H
#define SRT_RESOLVER_INT_H

#include <stddef.h>

#include "resolver.h"
#ifndef _WIN32
#include "hosts.h"
#endif

#define RESOLVER_MAX_ANSWERS 64

struct resolver_be;
struct resolver_post;

struct resolver {
	struct evloop *loop;
	struct resolver_be *be;
#ifndef _WIN32
	struct hosts hosts; /* read once, in resolver_new (Windows: getaddrinfo reads it) */
#endif
};

struct resolver_query {
	struct resolver *r;
	resolver_cb cb;
	void *arg;
	int cancelled;
	int status; /* the answer: 0 or the back end's code */
	struct ip_addr addrs[RESOLVER_MAX_ANSWERS];
	size_t naddrs;
	struct ev_timer defer;      /* an answer known at once goes out from the loop */
	int in_call;                /* c-ares: inside ares_getaddrinfo(), defer the answer */
	char *name;                 /* getaddrinfo: the name, for the thread */
	struct resolver_post *post; /* getaddrinfo: where the thread hands q back */
};

/* The back end. resolver_be_new fills r->be (NULL with a message in err on failure);
 * resolver_be_lookup starts the lookup of name for q, whose answer the back end gives
 * with resolver_deliver or resolver_defer, or frees q with resolver_query_free when the
 * resolver went first; -1 when it cannot start (q is then the caller's). */
struct resolver_be *resolver_be_new(struct resolver *r, char *err, size_t errlen);
void resolver_be_free(struct resolver *r);
int resolver_be_lookup(struct resolver *r, struct resolver_query *q, const char *name);
/* The message of a nonzero status of the back end's. */
const char *resolver_be_strerror(int status);

/* The query (resolver_query.c), for the front half and the back ends. */
struct resolver_query *resolver_query_new(struct resolver *r, resolver_cb cb, void *arg);
/* One answer's address (an IPv4 or IPv6 socket address of salen bytes; others are
 * skipped), unless q has it already or is full. Safe on any thread that owns q. */
void resolver_answer_add(struct resolver_query *q, const void *sa, size_t salen, int family);
/* The callback (unless cancelled), then q freed. */
void resolver_deliver(struct resolver_query *q);
/* The same from the loop, on a zero-delay timer. */
void resolver_defer(struct resolver_query *q);
void resolver_query_free(struct resolver_query *q);

#endif
