/*
 * Self-narrowing of the proxies after start-up (SPEC §4, §7): drop every capability
 * (effective, permitted, inheritable, ambient and, when allowed, the bounding set), set
 * NO_NEW_PRIVS, then install a seccomp allowlist of the syscalls an event-driven proxy
 * uses, with SCMP_ACT_KILL_PROCESS for everything else. Sockets: IPv4 and IPv6, rtnetlink
 * (getifaddrs), and pairs of anonymous Unix sockets (the TLS bridge); no other Unix socket.
 *
 * Files after start-up: none can be opened. open, openat and openat2 fail with EACCES
 * (rather than killing a proxy that carries other connections, should a library try);
 * what the proxy reads was read before: the resolver's configuration and hosts file
 * (resolver_new), the policy, and, when the policy names an https:// parent proxy, libssl
 * and the CA certificates (tls_ctx_new). Nothing can be created, written, renamed, unlinked,
 * executed or mapped executable.
 *
 * Reloading on SIGHUP reads the policy again: under the launcher from the descriptor the
 * proxy was given (--policy-fd), which needs no open. A proxy started with -p or -s
 * re-reads that file by name, and a writer replaces it by rename, so a descriptor kept
 * from start-up would name the old file: such a proxy keeps an opener (below).
 */
#ifndef SRT_PROXY_SANDBOX_H
#define SRT_PROXY_SANDBOX_H

#include <stdbool.h>
#include <sys/types.h>

/* skip_seccomp: drop capabilities and set NO_NEW_PRIVS only (--no-sandbox, debugging).
 * Returns 0, or -1 after printing why. */
int proxy_sandbox_enter(bool skip_seccomp);

/* Leave the process once everything is released. Release builds return and exit as usual
 * (exit_group and the stdio flush are allowed). Sanitizer builds flush stdio and _exit()
 * here: the runtime's exit hooks need syscalls the filter rightly forbids (LeakSanitizer
 * stops the world with ptrace from a cloned thread), and its leak check has already run
 * in proxy_sandbox_enter. */
void proxy_sandbox_exit(int status);

/*
 * The opener of a proxy started with -p FILE or -s FILE: a child started before the
 * proxy narrows itself, which holds that one path, opens it read-only each time it is
 * asked and passes the descriptor back. A request is one byte that means "again":
 * nothing the proxy sends can make it open another file, so a proxy taken over through
 * a parser bug gains no file but its own policy. The opener narrows itself too (no
 * syscall beyond reading a request, opening read-only, passing a descriptor, closing and
 * exiting) and ends when the proxy does.
 */
struct proxy_opener;
/* NULL with a warning on failure. */
struct proxy_opener *proxy_opener_start(const char *path);
/* A helper child of the proxy (the opener, the connector) that talks over sp[1] alone:
 * in the child (0 returned) sp[1] is descriptor 3, nothing of the proxy's but 0-2 is
 * open, and it dies with the proxy. In the proxy the child's pid, sp[1] closed; -1 with
 * both closed (logged as what) when fork fails. */
pid_t proxy_sandbox_fork(int sp[2], const char *what);
/* Such a child's seccomp filter (a scmp_filter_ctx), for it to add its own rules to and
 * load: the process is killed on every syscall but reading a request, sending the answer
 * (sendmsg), closing, exiting, and the n named in more (a name this architecture lacks is
 * passed over). NULL on failure. */
void *proxy_sandbox_child_filter(const char *const *more, size_t n);
/* A descriptor on the path (the file as it is now), or -1 with errno: the opener's own
 * errno from open(2), or EIO when it is gone. For policy_source's open_file. */
int proxy_opener_open(void *opener, const char *path);
void proxy_opener_free(struct proxy_opener *o);

#endif
