/*
 * cred_rx.h on Windows, for the settings reader in srt.exe: the C runtime has no
 * regcomp(3), and the launcher's Windows path refuses credentials with mode "mask"
 * (winlaunch.c) before anything would run an extract. So a pattern is not checked here
 * (the run is refused for the mask itself, with its own message), and nothing is ever
 * matched: cred_rx_exec ends the process if that changes without this file.
 */
#ifdef _WIN32
#include <stddef.h>

#include "cred_rx.h"
#include "log.h"

int
cred_rx_compile(const char *pattern, struct cred_rx **out, int *groups, const char **why)
{
	(void)pattern;
	*out = NULL;
	*groups = 1;
	*why = NULL;
	return 0;
}

void
cred_rx_free(struct cred_rx *rx)
{
	(void)rx;
}

int
cred_rx_exec(const struct cred_rx *rx, const char *p, size_t len, size_t from, long m[4])
{
	(void)rx;
	(void)p;
	(void)len;
	(void)from;
	(void)m;
	fatalx("cred_rx_exec: no regular expressions on Windows (lib/core/cred_rx_win.c)");
}
#endif
