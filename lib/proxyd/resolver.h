/*
 * Asynchronous name lookups on c-ares, driven by the event loop (c-ares socket-state
 * callback + ares_process_fd, and a timer for its retransmissions). One lookup per dial
 * returns every answer, A and AAAA, in the resolver's order; names in the hosts file are
 * answered from it (files, then DNS), the file being read once, by resolver_new (hosts.h).
 */
#ifndef SRT_RESOLVER_H
#define SRT_RESOLVER_H

#include <stddef.h>

#include "addr.h"
#include "evloop.h"

struct resolver;
struct resolver_query;

/* status is 0 on success (naddrs >= 1), otherwise a nonzero code for resolver_strerror().
 * addrs are valid during the callback only. The query is freed after the callback. */
typedef void (*resolver_cb)(void *arg, int status, const struct ip_addr *addrs, size_t naddrs);

/* Reads the system resolver configuration and the hosts file now (call before narrowing
 * the process: it cannot open files afterwards).
 * NULL with a message in err on failure. */
struct resolver *resolver_new(struct evloop *loop, char *err, size_t errlen);
/* Cancels outstanding queries without calling their callbacks. */
void resolver_free(struct resolver *r);

/* Start a lookup of name (a host name, not an IP literal). cb is called exactly once, from
 * the loop, never from inside this call, unless the query is cancelled first.
 * NULL (and no callback) only on allocation failure. */
struct resolver_query *resolver_lookup(
    struct resolver *r, const char *name, resolver_cb cb, void *arg);
/* The callback will not be called; the query's memory is released when c-ares is done. */
void resolver_cancel(struct resolver_query *q);

/* "name not found", "lookup timed out", ... */
const char *resolver_strerror(int status);

#endif
