/*
 * guard_local_refresh on Windows: this host's unicast addresses from
 * GetAdaptersAddresses, every adapter (loopback and those down included, as getifaddrs
 * lists them).
 */
#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#include <iphlpapi.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "guard.h"
#include "util.h"

int
guard_local_refresh(struct guard_local *l)
{
	IP_ADAPTER_ADDRESSES *all = NULL, *ad;
	IP_ADAPTER_UNICAST_ADDRESS *u;
	ULONG len = 16 << 10, rc;
	size_t n = 0;
	int tries;

	guard_local_free(l);
	/* The list may grow between the size query and the call: try again, a few times. */
	for (tries = 0; tries < 4; tries++) {
		all = xmalloc(len);
		rc = GetAdaptersAddresses(AF_UNSPEC,
		    GAA_FLAG_SKIP_ANYCAST | GAA_FLAG_SKIP_MULTICAST | GAA_FLAG_SKIP_DNS_SERVER,
		    NULL, all, &len);
		if (rc != ERROR_BUFFER_OVERFLOW)
			break;
		free(all);
		all = NULL;
	}
	if (rc == ERROR_NO_DATA) {
		free(all);
		return 0;
	}
	if (rc != NO_ERROR) {
		free(all);
		errno = rc == ERROR_NOT_ENOUGH_MEMORY ? ENOMEM : EIO;
		return -1;
	}
	for (ad = all; ad != NULL; ad = ad->Next)
		for (u = ad->FirstUnicastAddress; u != NULL; u = u->Next)
			n++;
	l->v = n ? xcalloc(n, sizeof(*l->v)) : NULL;
	for (ad = all; ad != NULL; ad = ad->Next) {
		for (u = ad->FirstUnicastAddress; u != NULL; u = u->Next) {
			const struct sockaddr *sa = u->Address.lpSockaddr;
			struct ip_addr *a;

			if (sa == NULL)
				continue;
			if (sa->sa_family == AF_INET) {
				a = &l->v[l->n++];
				a->family = 4;
				memcpy(a->bytes,
				    &((const struct sockaddr_in *)(const void *)sa)->sin_addr,
				    4);
			} else if (sa->sa_family == AF_INET6) {
				a = &l->v[l->n++];
				a->family = 6;
				memcpy(a->bytes,
				    &((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr,
				    16);
			}
		}
	}
	free(all);
	return 0;
}
#endif
