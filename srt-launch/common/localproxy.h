/*
 * The proxies on the host's loopback, for the launch paths without a network namespace
 * of their own (macOS: macos.c, Windows: winlaunch.c): what srt-httpd and srt-socksd are
 * given. Both paths hand them the same five things by number (winsys.h says what a
 * number is on each system); the Windows path a sixth, the pipe on which each says it
 * serves. This enum is the order in which they are handed over; the option that passes
 * each is proxy_fd.h's.
 */
#ifndef SRT_LOCALPROXY_H
#define SRT_LOCALPROXY_H

#include "launch.h"
#include "proxy_fd.h"

enum localproxy_fd {
	LPF_POLICY,   /* --policy-fd: policy.bin, read from its start */
	LPF_LOG,      /* --log-fd: their decision lines, to srt */
	LPF_LIFELINE, /* --lifeline-fd: end of file once srt is gone */
	LPF_LISTEN4,  /* --listen-fd: 127.0.0.1:PORT */
	LPF_LISTEN6,  /* --listen-fd: [::1]:PORT, or -1 without IPv6 */
	LPF_READY,    /* --ready-fd: "ready" once serving (Windows), or -1 */
	LPF_MAX
};

extern const char *const localproxy_prog[PK_MAX];

/* The proxy's argv: the program in dir, then the options above and -d with l->debug.
 * Caller frees with localproxy_argv_free. */
char **localproxy_argv(
    const struct launch *l, const char *dir, enum proxy_kind k, const long fd[LPF_MAX]);
void localproxy_argv_free(char **argv);

#endif
