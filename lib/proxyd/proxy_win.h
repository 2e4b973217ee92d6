/*
 * What the proxies refuse on Windows, where they run without the Linux-only machinery
 * (lib/proxyd/proxy_win.c says what each refusal is for). Nothing on other systems.
 */
#ifndef SRT_PROXY_WIN_H
#define SRT_PROXY_WIN_H

#include <stdbool.h>

#include "policy.h"
#include "proxy.h"
#include "upstream.h"

#ifdef _WIN32
/* At start, after the options are parsed: refuse (exit 2 with a message) what needs the
 * Linux-only machinery; set up sockets and the log's binary mode. */
void proxy_win_start(struct proxy_opts *o, const char *prog);
/* The policy's routes that need OpenSSL or the connector: a message, or NULL. */
const char *proxy_win_refused_routes(const struct upstream *up, bool terminate);
/* --policy-fd's file (a HANDLE value), read whole at offsets; NULL with err set. */
struct policy *proxy_win_policy_open(int handle, char *err, size_t errlen);
#else
static inline const char *
proxy_win_refused_routes(const struct upstream *up, bool terminate)
{
	(void)up;
	(void)terminate;
	return NULL;
}
#endif

#endif
