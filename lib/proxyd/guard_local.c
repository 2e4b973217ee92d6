/*
 * guard_local_refresh on POSIX: this host's interface addresses from getifaddrs(3).
 * (Windows: guard_local_win.c.)
 */
#ifndef _WIN32
#include <ifaddrs.h>
#include <netinet/in.h>
#include <string.h>

#include "guard.h"
#include "util.h"

int
guard_local_refresh(struct guard_local *l)
{
	struct ifaddrs *ifa, *i;
	size_t n = 0;

	guard_local_free(l);
	if (getifaddrs(&ifa) == -1)
		return -1;
	for (i = ifa; i != NULL; i = i->ifa_next)
		if (i->ifa_addr != NULL &&
		    (i->ifa_addr->sa_family == AF_INET || i->ifa_addr->sa_family == AF_INET6))
			n++;
	l->v = n ? xcalloc(n, sizeof(*l->v)) : NULL;
	for (i = ifa; i != NULL; i = i->ifa_next) {
		struct ip_addr *a;

		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			a = &l->v[l->n++];
			a->family = 4;
			memcpy(a->bytes, &((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr,
			    4);
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			a = &l->v[l->n++];
			a->family = 6;
			memcpy(a->bytes,
			    &((struct sockaddr_in6 *)(void *)i->ifa_addr)->sin6_addr, 16);
		}
	}
	freeifaddrs(ifa);
	return 0;
}
#endif
