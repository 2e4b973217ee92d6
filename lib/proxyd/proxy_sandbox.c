/* Narrowing of the proxies: see proxy_sandbox.h for what is allowed and why. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdnoreturn.h>
#include <linux/netlink.h>
#include <seccomp.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fdpass.h"
#include "log.h"
#include "util.h"

/* gcc says __SANITIZE_ADDRESS__, clang __has_feature(address_sanitizer). */
#if defined(__SANITIZE_ADDRESS__)
#define PROXY_SANDBOX_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PROXY_SANDBOX_ASAN 1
#endif
#endif
#ifdef PROXY_SANDBOX_ASAN
#include <sanitizer/lsan_interface.h>
#endif
#include "proxy_sandbox.h"

static int
proxy_sandbox_caps(void)
{
	cap_t caps;
	cap_value_t c;
	int rc = 0;

	/* The bounding set can only shrink with CAP_SETPCAP; without it nothing is in the
	 * permitted set to lose either, so EPERM here is fine. */
	for (c = 0; c <= CAP_LAST_CAP; c++)
		if (cap_drop_bound(c) == -1 && errno != EPERM && errno != EINVAL)
			break;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if ((caps = cap_init()) == NULL)
		return -1;
	if (cap_set_proc(caps) == -1) {
		log_warn("dropping capabilities");
		rc = -1;
	}
	cap_free(caps);
	return rc;
}

/* Syscalls allowed without conditions. */
static const char *const proxy_sandbox_allow[] = {
	/* the loop and the sockets */
	"epoll_wait",
	"epoll_pwait",
	"epoll_pwait2",
	"epoll_ctl",
	"read",
	"readv",
	"write",
	"writev",
	"close",
	"accept4",
	"accept",
	"connect",
	"getsockopt",
	"setsockopt",
	"getsockname",
	"getpeername",
	"shutdown",
	"bind",
	"sendto",
	"recvfrom",
	"sendmsg",
	"recvmsg",
	"sendmmsg",
	"recvmmsg",
	"splice",
	"pipe2",
	"fcntl",
	"poll",
	"ppoll",
	"select",
	"pselect6",
	/* memory (executable mappings are handled below) */
	"brk",
	"munmap",
	"mremap",
	"madvise",
	/* files already open (policy reloads through --policy-fd or the opener); no open */
	"fstat",
	"newfstatat",
	"statx",
	"stat",
	"lstat",
	"lseek",
	"pread64",
	"access",
	"faccessat",
	"faccessat2",
	"readlink",
	/* time, signals, process bookkeeping */
	"clock_gettime",
	"clock_nanosleep",
	"nanosleep",
	"gettimeofday",
	"time",
	"rt_sigprocmask",
	"rt_sigreturn",
	"rt_sigaction",
	"sigaltstack",
	"restart_syscall",
	"getpid",
	"gettid",
	"getuid",
	"geteuid",
	"getgid",
	"getegid",
	"getrandom",
	"futex",
	"sched_yield",
	"uname",
	"getrlimit",
	"prlimit64",
	"exit",
	"exit_group",
	"tgkill",
};

/* Allow each syscall named (a name this architecture lacks is passed over). */
static int
seccomp_allow_names(scmp_filter_ctx ctx, const char *const *names, size_t n)
{
	size_t i;
	int nr;

	for (i = 0; i < n; i++) {
		nr = seccomp_syscall_resolve_name(names[i]);
		if (nr == __NR_SCMP_ERROR)
			continue; /* not on this architecture */
		if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0) < 0)
			return -1;
	}
	return 0;
}

static int
proxy_sandbox_seccomp(void)
{
	scmp_filter_ctx ctx;
	int rc = -1;

	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		return -1;
	if (seccomp_allow_names(ctx, proxy_sandbox_allow,
		sizeof(proxy_sandbox_allow) / sizeof(proxy_sandbox_allow[0])) == -1)
		goto out;
	/* Outbound sockets: IPv4 and IPv6 for dials and DNS; rtnetlink for getifaddrs. */
	if (seccomp_rule_add(
		ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET)) < 0 ||
	    seccomp_rule_add(
		ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 1, SCMP_A0(SCMP_CMP_EQ, AF_INET6)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socket), 2,
		SCMP_A0(SCMP_CMP_EQ, AF_NETLINK), SCMP_A2(SCMP_CMP_EQ, NETLINK_ROUTE)) < 0)
		goto out;
	/* The TLS bridge of an https:// parent proxy (tls_bridge.h): a connected pair of
	 * anonymous Unix sockets, which reach nothing outside the process. A Unix socket of
	 * any other kind, which could connect to a path, stays refused (the inspection
	 * proxy's comes from the connector, proxy_connector.h). */
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(socketpair), 1,
		SCMP_A0(SCMP_CMP_EQ, AF_UNIX)) < 0)
		goto out;
	/* No file opens at all (see proxy_sandbox.h). */
	if (seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat), 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(open), 0) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), SCMP_SYS(openat2), 0) < 0)
		goto out;
	/* No executable memory. */
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mmap), 1,
		SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(mprotect), 1,
		SCMP_A2(SCMP_CMP_MASKED_EQ, PROT_EXEC, 0)) < 0)
		goto out;
	/* c-ares and glibc ask a socket's pending bytes or set it non-blocking. */
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
		SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, FIONREAD)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(ioctl), 1,
		SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, FIONBIO)) < 0)
		goto out;
	if (seccomp_load(ctx) < 0)
		goto out;
	rc = 0;
out:
	seccomp_release(ctx);
	return rc;
}

int
proxy_sandbox_enter(bool skip_seccomp)
{
	if (proxy_sandbox_caps() == -1)
		return -1;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		log_warn("PR_SET_NO_NEW_PRIVS");
		return -1;
	}
	if (skip_seccomp)
		return 0;
#ifdef PROXY_SANDBOX_ASAN
	/* LeakSanitizer's exit-time check stops the process with ptrace from a cloned
	 * thread, which the filter rightly forbids: run the check now (it runs only once),
	 * so the sanitizer build exercises the same filter as the real one. */
	__lsan_do_leak_check();
#endif
	if (proxy_sandbox_seccomp() == -1) {
		log_warnx("seccomp: cannot install the filter");
		return -1;
	}
	return 0;
}

void
proxy_sandbox_exit(int status)
{
#ifdef PROXY_SANDBOX_ASAN
	fflush(NULL);
	_exit(status);
#else
	(void)status;
#endif
}

/* ---- the opener ------------------------------------------------------------------ */

struct proxy_opener {
	pid_t pid;
	int sock;
};

void *
proxy_sandbox_child_filter(const char *const *more, size_t n)
{
	static const char *const child_allow[] = {
		"read",
		"sendmsg",
		"close",
		"exit",
		"exit_group",
		"rt_sigreturn",
		"restart_syscall",
	};
	scmp_filter_ctx ctx;

	if ((ctx = seccomp_init(SCMP_ACT_KILL_PROCESS)) == NULL)
		return NULL;
	if (seccomp_allow_names(
		ctx, child_allow, sizeof(child_allow) / sizeof(child_allow[0])) == -1 ||
	    seccomp_allow_names(ctx, more, n) == -1) {
		seccomp_release(ctx);
		return NULL;
	}
	return ctx;
}

/* The opener's whole life: one byte in, the file's descriptor (or errno) out. */
static noreturn void
proxy_opener_main(int sock, const char *path)
{
	scmp_filter_ctx ctx;
	char c;
	int fd, err;

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    (ctx = proxy_sandbox_child_filter(NULL, 0)) == NULL)
		_exit(1);
	if (seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(openat), 1,
		SCMP_A2(SCMP_CMP_EQ, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 ||
	    seccomp_rule_add(ctx, SCMP_ACT_ALLOW, SCMP_SYS(open), 1,
		SCMP_A1(SCMP_CMP_EQ, O_RDONLY | O_CLOEXEC | O_NOCTTY)) < 0 ||
	    seccomp_load(ctx) < 0)
		_exit(1);
	while (read(sock, &c, 1) == 1) {
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		err = fd == -1 ? errno : 0;
		if (fdpass_send(sock, &err, sizeof(err), &fd, fd == -1 ? 0 : 1) == -1)
			_exit(1);
		if (fd != -1)
			close(fd);
	}
	_exit(0);
}

struct proxy_opener *
proxy_opener_start(const char *path)
{
	struct proxy_opener *o;
	int sp[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("opener: socketpair");
		return NULL;
	}
	o = xcalloc(1, sizeof(*o));
	if ((o->pid = proxy_sandbox_fork(sp, "opener")) == -1) {
		free(o);
		return NULL;
	}
	if (o->pid == 0)
		proxy_opener_main(3, path);
	o->sock = sp[0];
	return o;
}

pid_t
proxy_sandbox_fork(int sp[2], const char *what)
{
	pid_t pid, parent = getpid();

	if ((pid = fork()) == -1) {
		log_warn("%s: fork", what);
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (pid == 0) {
		(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(0);
		/* Nothing of the proxy's: no listener, no log, no policy. */
		if (sp[1] != 3 && dup2(sp[1], 3) == -1)
			_exit(1);
		if (close_range(4, ~0U, 0) == -1)
			_exit(1);
		return 0;
	}
	close(sp[1]);
	return pid;
}

int
proxy_opener_open(void *arg, const char *path)
{
	struct proxy_opener *o = arg;
	int err = 0, fd = -1;
	size_t got = 0, nfds = 0;
	ssize_t n;

	(void)path; /* the opener knows its path; it opens no other */
	do
		n = write(o->sock, "o", 1);
	while (n == -1 && errno == EINTR);
	if (n != 1 || fdpass_recv(o->sock, &err, sizeof(err), &got, &fd, 1, &nfds) == -1 ||
	    got != sizeof(err) || (err == 0) != (nfds == 1)) {
		if (nfds == 1)
			close(fd);
		errno = EIO;
		return -1;
	}
	if (err != 0) {
		errno = err;
		return -1;
	}
	return fd;
}

void
proxy_opener_free(struct proxy_opener *o)
{
	if (o == NULL)
		return;
	/* Its end of the socket sees EOF and it exits; it is not waited for (it may be
	 * the last thing this process does, and wait4 is not in the filter). */
	close(o->sock);
	free(o);
}
