/*
 * The macOS launch path (SPEC §6): Seatbelt instead of namespaces.
 *
 *   srt ─┬─ srt-httpd     accepts on 127.0.0.1:P and [::1]:P, P chosen at start, from
 *        ├─ srt-socksd    sockets it inherits (the same for its own port)
 *        ├─ log stream    the kernel's sandbox denies that carry this run's log tag
 *        └─ sandbox-exec -p PROFILE  the command (execve, no shell of ours)
 *
 * The profile allows the command the two proxy ports on loopback and nothing else on the
 * network; its environment points at them. Everything in macos.c is POSIX and is run on
 * Linux by the tests, with recording stubs in place of sandbox-exec and log
 * (tests/macos/launch.bats). The only macOS-only code is macos_apple.c, behind one
 * function, launch_run() (launch.h).
 */
#ifndef SRT_MACOS_H
#define SRT_MACOS_H

#include <stdbool.h>

#include "launch.h"

#define MACOS_SANDBOX_EXEC "/usr/bin/sandbox-exec"
#define MACOS_LOG "/usr/bin/log"

/* The programs a run uses, and its timings. */
struct macos_run {
	const char *sandbox_exec; /* MACOS_SANDBOX_EXEC */
	const char *log_prog;     /* MACOS_LOG; NULL: no file-access violations */
	const char *shell;        /* for -c: bash, where there is one */
	int log_start_ms;         /* how long log stream may take to start */
	int log_drain_ms;         /* after the command: how long late lines may take */
	int log_quiet_ms;         /* ... and the silence that ends the wait sooner */
};

/* A fresh log tag: SRT_<pid>_<random>_SBX. Caller frees. NULL if no randomness. */
char *macos_log_tag(void);

/* The command's environment: the launcher's own, less what it sets, and the proxy
 * variables pointing at localhost:http_port and localhost:socks_port. */
char **macos_env(const struct launch *l, int http_port, int socks_port);

/* argv for execve: sandbox-exec -p PROFILE, then SHELL -c STRING or CMD ARGS. */
char **macos_sandbox_argv(
    const struct macos_run *r, const struct launch *l, const char *profile);

/* argv of the violation monitor: log stream, filtered on the tag. */
char **macos_log_argv(const struct macos_run *r, const char *tag);

/*
 * Run l's command: temp dir, listening sockets, profile, proxies, log stream, the
 * sandbox, then wait (forwarding SIGINT, SIGTERM, SIGHUP, SIGQUIT) and clean up. l has
 * its settings, policy, cwd, home, self_dir and violations. Returns the exit status of
 * SPEC §2: the command's, 128+N, 126, 127, or LAUNCH_FAIL.
 */
int macos_run(struct launch *l, const struct macos_run *r);

#endif
