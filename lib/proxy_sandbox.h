/*
 * Self-narrowing of the proxies after start-up (SPEC §4, §7): drop every capability
 * (effective, permitted, inheritable, ambient and, when allowed, the bounding set), set
 * NO_NEW_PRIVS, then install a seccomp allowlist of the syscalls an event-driven proxy
 * uses, with SCMP_ACT_KILL_PROCESS for everything else.
 *
 * Files after start-up: only read-only opens remain possible (open/openat whose flags ask
 * for O_RDONLY without O_CREAT/O_TRUNC/O_APPEND/O_PATH-less write access), because two
 * things still read files: the resolver reads the hosts file on each lookup (c-ares 1.18
 * has no cache for it), and SIGHUP re-reads the policy or settings file by name (a writer
 * replaces it by rename, so a descriptor kept from start-up would name the old file).
 * Nothing can be created, written, renamed, unlinked, executed or mapped executable.
 */
#ifndef SRT_PROXY_SANDBOX_H
#define SRT_PROXY_SANDBOX_H

#include <stdbool.h>

/* skip_seccomp: drop capabilities and set NO_NEW_PRIVS only (--no-sandbox, debugging).
 * Returns 0, or -1 after printing why. */
int proxy_sandbox_enter(bool skip_seccomp);

/* Leave the process once everything is released. Release builds return and exit as usual
 * (exit_group and the stdio flush are allowed). Sanitizer builds flush stdio and _exit()
 * here: the runtime's exit hooks need syscalls the filter rightly forbids (LeakSanitizer
 * stops the world with ptrace from a cloned thread), and its leak check has already run
 * in proxy_sandbox_enter. */
void proxy_sandbox_exit(int status);

#endif
