/*
 * The proxies' descriptor options: one table for the launchers that pass descriptors
 * (srt-launch/linux/proxies.c, common/localproxy.c, common/proxycli.c) and the proxies
 * that take them (lib/proxyd/proxy.c proxy_parse_opts), and one rule for which numbers
 * they may be.
 */
#ifndef SRT_PROXY_FD_H
#define SRT_PROXY_FD_H

#include <stddef.h>

enum proxy_fd {
	PFD_POLICY,        /* policy.bin, read from its start */
	PFD_LOG,           /* the decision lines */
	PFD_LIFELINE,      /* end of file once the launcher is gone */
	PFD_READY,         /* "ready" once serving, then closed */
	PFD_CRED,          /* the masked credentials' store (srt-httpd) */
	PFD_CA,            /* tlsTerminate's CA, key included (srt-httpd) */
	PFD_CONTROL,       /* live policies from the launcher */
	PFD_HANDOFF,       /* the TLS-termination handoff channel */
	PFD_DECIDER,       /* the external decider, both ways (srt-httpd) */
	PFD_DECIDER_IN,    /* the decider's answers */
	PFD_DECIDER_OUT,   /* the questions to the decider */
	PFD_DECIDER_READY, /* "ok" once the decider's hello is read */
	PFD_LISTEN,        /* a listening socket; may be given more than once */
	PFD_MAX
};

/* The option that passes each: "--policy-fd" and so on. */
extern const char *const proxy_fd_opt[PFD_MAX];

/*
 * The rule for the numbers, fd[] by option (-1: not given), and more of PFD_LISTEN's in
 * lfd[] (nlfd of them): none is 0, 1 or 2 (the proxy keeps those: its log is standard
 * output by default, its diagnostics standard error, and its policy opener holds all
 * three, so an end of file there would never be seen), except that the log may be 1 or
 * 2; and no two options name one descriptor (but --decider-fd, --decider-in and
 * --decider-out, which name the decider's, one or both ways). NULL when they keep it,
 * else a message in the options' words.
 */
char *proxy_fd_check(const int fd[PFD_MAX], const int *lfd, size_t nlfd);

#endif
