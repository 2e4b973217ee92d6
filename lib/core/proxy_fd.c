/* The proxies' descriptor options: see proxy_fd.h. */
#include <stdbool.h>
#include <stdlib.h>

#include "proxy_fd.h"
#include "util.h"

const char *const proxy_fd_opt[PFD_MAX] = {
	[PFD_POLICY] = "--policy-fd",
	[PFD_LOG] = "--log-fd",
	[PFD_LIFELINE] = "--lifeline-fd",
	[PFD_READY] = "--ready-fd",
	[PFD_CRED] = "--cred-fd",
	[PFD_CA] = "--ca-fd",
	[PFD_CONTROL] = "--control-fd",
	[PFD_HANDOFF] = "--handoff-fd",
	[PFD_DECIDER] = "--decider-fd",
	[PFD_DECIDER_IN] = "--decider-in",
	[PFD_DECIDER_OUT] = "--decider-out",
	[PFD_DECIDER_READY] = "--decider-ready-fd",
	[PFD_LISTEN] = "--listen-fd",
};

/* Whether options a and b may name one descriptor: the decider's, both ways. */
static bool
proxy_fd_may_share(enum proxy_fd a, enum proxy_fd b)
{
	return (a == PFD_DECIDER || a == PFD_DECIDER_IN || a == PFD_DECIDER_OUT) &&
	    (b == PFD_DECIDER || b == PFD_DECIDER_IN || b == PFD_DECIDER_OUT);
}

char *
proxy_fd_check(const int fd[PFD_MAX], const int *lfd, size_t nlfd)
{
	int all[PFD_MAX + 64];
	enum proxy_fd opt[PFD_MAX + 64];
	size_t n = 0, i, j;
	int k;

	for (k = 0; k < PFD_MAX; k++)
		if (fd[k] != -1) {
			opt[n] = (enum proxy_fd)k;
			all[n++] = fd[k];
		}
	for (i = 0; i < nlfd && n < sizeof(all) / sizeof(all[0]); i++) {
		opt[n] = PFD_LISTEN;
		all[n++] = lfd[i];
	}
	for (i = 0; i < n; i++) {
		if (all[i] == 0 || ((all[i] == 1 || all[i] == 2) && opt[i] != PFD_LOG))
			return xasprintf(
			    "%s %d: the proxy keeps standard input, output and error "
			    "for itself; pass another descriptor",
			    proxy_fd_opt[opt[i]], all[i]);
		for (j = 0; j < i; j++)
			if (all[j] == all[i] && !proxy_fd_may_share(opt[j], opt[i]))
				return xasprintf(
				    "%s %d is %s's descriptor too: each option needs "
				    "its own",
				    proxy_fd_opt[opt[i]], all[i], proxy_fd_opt[opt[j]]);
	}
	return NULL;
}
