/* The proxies' command line for the macOS and Windows launch paths: see localproxy.h. */
#include <stdlib.h>

#include "localproxy.h"
#include "winsys.h"

const char *const localproxy_prog[PK_MAX] = { "srt-httpd", "srt-socksd" };

char **
localproxy_argv(
    const struct launch *l, const char *dir, enum proxy_kind k, const long fd[LPF_MAX])
{
	static const enum proxy_fd opt[LPF_MAX] = { PFD_POLICY, PFD_LOG, PFD_LIFELINE,
		PFD_LISTEN, PFD_LISTEN, PFD_READY };
	struct strlist a = { 0 };
	int i;

	strlist_pushf(&a, "%s" WS_SEP "%s", dir, localproxy_prog[k]);
	for (i = 0; i < LPF_MAX; i++) {
		if (fd[i] == -1)
			continue;
		strlist_push(&a, proxy_fd_opt[opt[i]]);
		strlist_pushf(&a, "%ld", fd[i]);
	}
	if (l->debug)
		strlist_push(&a, "-d");
	return a.v;
}

void
localproxy_argv_free(char **argv)
{
	char **p;

	for (p = argv; p != NULL && *p != NULL; p++)
		free(*p);
	free(argv);
}
