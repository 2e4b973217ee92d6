/*
 * try-syscall: attempt system calls that srt-seccomp refuses, and report what
 * happened, one line per probe:
 *	NAME: ok		the call succeeded
 *	NAME: errno=EPERM	the call failed with that errno
 *	NAME: signal=SIGSYS	the process making the call was killed
 *
 * usage: try-syscall [--userns] [--filter FILE] PROBE... | all
 *	--userns	first enter a new user and mount namespace (so capability
 *			checks pass and the filter alone decides)
 *	--filter FILE	set NO_NEW_PRIVS and install the BPF program in FILE
 *			(what srt-seccomp --emit-bpf writes)
 *
 * Every probe is harmless outside a sandbox: each runs in its own child process;
 * arguments are chosen so that an allowed call fails early with a distinctive errno
 * (EFAULT, EINVAL, EBADF) or succeeds without effect (a socket, a ring, an O_PATH-like
 * fd, an fs context never mounted, a child that exits at once); TIOCSTI pushes one
 * byte into a pseudo-terminal this program opened itself, never the real terminal.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "util.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif
#define HIBITS (1UL << 32)
/* An address no process has mapped: the kernel's copy-in fails with EFAULT. */
#define BADPTR ((void *)~0UL)
/* A flag no kernel defines, for calls that check their flags first. */
#define BADFLAG 0x80000000U
/* socket(2) rejects a type past SOCK_MAX before looking the family up (no module load). */
#define BADTYPE 15

/* clone3's argument block, version 0 (64 bytes). */
struct probe_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

#if defined(__SANITIZE_ADDRESS__)
/* The ia32 probe may die of SIGSEGV (no ia32 support): report it, do not intercept it. */
const char *__asan_default_options(void);
const char *
__asan_default_options(void)
{
	return "handle_segv=0";
}
#endif

static char probe_dir[64];

/* Each probe returns 0 for success or the errno it got. */
typedef int (*probe_fn)(void);

static int
result(long r)
{
	return r == -1 ? errno : 0;
}

static int
closing(long fd)
{
	if (fd == -1)
		return errno;
	close((int)fd);
	return 0;
}

static int
sock_try(unsigned long family, int type)
{
	return closing(syscall(SYS_socket, family, (unsigned long)type | SOCK_CLOEXEC, 0UL));
}

static int
p_socket_unix(void)
{
	return sock_try(AF_UNIX, SOCK_STREAM);
}
static int
p_socket_unix_hibits(void)
{
	return sock_try(HIBITS | AF_UNIX, SOCK_STREAM);
}
static int
p_socket_vsock(void)
{
	return sock_try(AF_VSOCK, BADTYPE);
}
static int
p_socket_vsock_hibits(void)
{
	return sock_try(HIBITS | AF_VSOCK, BADTYPE);
}
static int
p_socket_inet(void)
{
	return sock_try(AF_INET, SOCK_STREAM);
}
static int
p_socket_inet6(void)
{
	return sock_try(AF_INET6, SOCK_STREAM);
}

static int
p_socketpair_unix(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return errno;
	close(sv[0]);
	close(sv[1]);
	return 0;
}

static int
p_io_uring_setup(void)
{
	unsigned char params[120]; /* struct io_uring_params, zeroed */

	memset(params, 0, sizeof(params));
	return closing(syscall(SYS_io_uring_setup, 1UL, params));
}

static int
p_io_uring_enter(void)
{
	return result(syscall(SYS_io_uring_enter, -1L, 0UL, 0UL, 0UL, NULL, 0UL));
}

static int
p_io_uring_register(void)
{
	return result(syscall(SYS_io_uring_register, -1L, 0UL, NULL, 0UL));
}

/* The probe already runs in a child of its own, which exits right after. */
static int
p_unshare_newuser(void)
{
	return result(unshare(CLONE_NEWUSER));
}

static int
p_unshare_newuser_hibits(void)
{
	return result(syscall(SYS_unshare, HIBITS | CLONE_NEWUSER));
}

/* A fork-like clone/clone3 whose child exits at once. */
static int
child_reap(long pid)
{
	int status;

	if (pid == -1)
		return errno;
	if (pid == 0)
		_exit(0);
	if (waitpid((pid_t)pid, &status, 0) == -1)
		return errno;
	return 0;
}

static int
p_clone_newuser(void)
{
	return child_reap(
	    syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0UL, NULL, NULL, 0UL));
}

static int
p_clone3(void)
{
	struct probe_clone_args ca;

	memset(&ca, 0, sizeof(ca));
	ca.exit_signal = SIGCHLD;
	return child_reap(syscall(SYS_clone3, &ca, sizeof(ca)));
}

static int
p_setns(void)
{
	return result(syscall(SYS_setns, -1L, 0L));
}

static int
p_mount(void)
{
	return result(syscall(SYS_mount, "srt-probe", probe_dir, BADPTR, 0UL, NULL));
}

static int
p_umount2(void)
{
	return result(syscall(SYS_umount2, probe_dir, BADFLAG));
}
static int
p_pivot_root(void)
{
	return result(syscall(SYS_pivot_root, BADPTR, BADPTR));
}

static int
p_open_tree(void)
{
	return closing(syscall(SYS_open_tree, AT_FDCWD, probe_dir, OPEN_TREE_CLOEXEC));
}

static int
p_move_mount(void)
{
	return result(syscall(SYS_move_mount, -1L, "", -1L, "", MOVE_MOUNT_F_EMPTY_PATH));
}

static int
p_fsopen(void)
{
	return closing(syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC));
}

static int
p_fsconfig(void)
{
	return result(syscall(SYS_fsconfig, -1L, FSCONFIG_SET_FLAG, "ro", NULL, 0L));
}

static int
p_fsmount(void)
{
	return closing(syscall(SYS_fsmount, -1L, 0UL, 0UL));
}

static int
p_fspick(void)
{
	return closing(syscall(SYS_fspick, AT_FDCWD, probe_dir, FSPICK_CLOEXEC));
}

static int
p_mount_setattr(void)
{
	struct mount_attr attr;

	memset(&attr, 0, sizeof(attr));
	return result(syscall(SYS_mount_setattr, -1L, "", BADFLAG, &attr, sizeof(attr)));
}

/*
 * A pseudo-terminal of our own, made the controlling terminal of a new session,
 * so that TIOCSTI gets past its "not your terminal" check when it is allowed.
 * Returns the slave fd, or -1 with errno set.
 */
static int
pty_own(void)
{
	char *name;
	int m, s;

	if (setsid() == -1)
		return -1;
	if ((m = posix_openpt(O_RDWR | O_NOCTTY | O_CLOEXEC)) == -1)
		return -1;
	if (grantpt(m) == -1 || unlockpt(m) == -1 || (name = ptsname(m)) == NULL)
		return -1;
	if ((s = open(name, O_RDWR | O_CLOEXEC)) == -1)
		return -1;
	return s;
}

static int
ioctl_try(unsigned long cmd, void *arg)
{
	int fd;

	if ((fd = pty_own()) == -1)
		return errno + 1000; /* setup failure: reported as an odd errno */
	return result(syscall(SYS_ioctl, (long)fd, cmd, arg));
}

static int
p_tiocsti(void)
{
	char c = ' ';
	return ioctl_try(TIOCSTI, &c);
}
static int
p_tiocsti_hibits(void)
{
	char c = ' ';
	return ioctl_try(HIBITS | TIOCSTI, &c);
}
/* Subcode 7 (TIOCL_GETSHIFTSTATE) only reads; a pty has no TIOCLINUX at all. */
static int
p_tioclinux(void)
{
	char c = 7;
	return ioctl_try(TIOCLINUX, &c);
}
static int
p_tioclinux_hibits(void)
{
	char c = 7;
	return ioctl_try(HIBITS | TIOCLINUX, &c);
}

/*
 * Keyrings: keyctl only asks the session keyring's id; add_key and request_key name a
 * key type that does not exist, so without a filter they fail with ENODEV and change
 * nothing, even outside a sandbox.
 */
static int
p_keyctl(void)
{
	return result(
	    syscall(SYS_keyctl, 0 /* KEYCTL_GET_KEYRING_ID */, -3L /* session */, 0L));
}
static int
p_add_key(void)
{
	return result(syscall(SYS_add_key, "srt-probe-no-such-type", "x", NULL, 0L, -3L));
}
static int
p_request_key(void)
{
	return result(syscall(SYS_request_key, "srt-probe-no-such-type", "x", NULL, 0L));
}

static int
p_x32_getpid(void)
{
	return result(syscall(__X32_SYSCALL_BIT | SYS_getpid));
}
static int
p_nr_minus1(void)
{
	return result(syscall(-1L));
}

static int
p_ia32_getpid(void)
{
#if defined(__x86_64__)
	long r;

	/* int $0x80 enters the kernel through the 32-bit ABI: getpid is 20 there. */
	__asm__ __volatile__("int $0x80"
			     : "=a"(r)
			     : "a"(20L)
			     : "memory", "rcx", "r8", "r9", "r10", "r11");
	if (r < 0 && r > -4096)
		return (int)-r;
	return 0;
#else
	return ENOSYS;
#endif
}

static const struct probe {
	const char *name;
	probe_fn fn;
} probes[] = {
	{ "socket-unix", p_socket_unix },
	{ "socket-unix-hibits", p_socket_unix_hibits },
	{ "socket-vsock", p_socket_vsock },
	{ "socket-vsock-hibits", p_socket_vsock_hibits },
	{ "socket-inet", p_socket_inet },
	{ "socket-inet6", p_socket_inet6 },
	{ "socketpair-unix", p_socketpair_unix },
	{ "io_uring_setup", p_io_uring_setup },
	{ "io_uring_enter", p_io_uring_enter },
	{ "io_uring_register", p_io_uring_register },
	{ "unshare-newuser", p_unshare_newuser },
	{ "unshare-newuser-hibits", p_unshare_newuser_hibits },
	{ "clone-newuser", p_clone_newuser },
	{ "clone3", p_clone3 },
	{ "setns", p_setns },
	{ "mount", p_mount },
	{ "umount2", p_umount2 },
	{ "pivot_root", p_pivot_root },
	{ "open_tree", p_open_tree },
	{ "move_mount", p_move_mount },
	{ "fsopen", p_fsopen },
	{ "fsconfig", p_fsconfig },
	{ "fsmount", p_fsmount },
	{ "fspick", p_fspick },
	{ "mount_setattr", p_mount_setattr },
	{ "tiocsti", p_tiocsti },
	{ "tiocsti-hibits", p_tiocsti_hibits },
	{ "tioclinux", p_tioclinux },
	{ "tioclinux-hibits", p_tioclinux_hibits },
	{ "keyctl", p_keyctl },
	{ "add_key", p_add_key },
	{ "request_key", p_request_key },
	{ "x32-getpid", p_x32_getpid },
	{ "ia32-getpid", p_ia32_getpid },
	{ "nr-minus1", p_nr_minus1 },
};

#define NPROBES (sizeof(probes) / sizeof(probes[0]))

static void
report(const char *name, int err)
{
	const char *e;

	if (err == 0)
		printf("%s: ok\n", name);
	else if (err > 1000)
		printf(
		    "%s: setup-errno=%s\n", name, (e = strerrorname_np(err - 1000)) ? e : "?");
	else if ((e = strerrorname_np(err)) != NULL)
		printf("%s: errno=%s\n", name, e);
	else
		printf("%s: errno=%d\n", name, err);
}

/* Runs one probe in a child: its result, or the signal that killed it. */
static void
probe_run(const struct probe *p)
{
	const char *abbrev;
	pid_t pid;
	int status;

	fflush(stdout);
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		report(p->name, p->fn());
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) == -1)
		fatal("waitpid");
	if (WIFSIGNALED(status)) {
		abbrev = sigabbrev_np(WTERMSIG(status));
		if (abbrev != NULL)
			printf("%s: signal=SIG%s\n", p->name, abbrev);
		else
			printf("%s: signal=%d\n", p->name, WTERMSIG(status));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		printf("%s: probe-failed\n", p->name);
}

static int
write_string(const char *path, const char *s)
{
	int fd, rc = 0;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		rc = -1;
	if (close(fd) == -1)
		rc = -1;
	return rc;
}

/* A user and mount namespace of our own (identity maps), with a private tree. */
static void
userns_enter(void)
{
	char map[64];
	uid_t uid = geteuid();
	gid_t gid = getegid();

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		fatal("unshare");
	if (write_string("/proc/self/setgroups", "deny") == -1)
		fatal("setgroups");
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	if (write_string("/proc/self/uid_map", map) == -1)
		fatal("uid_map");
	snprintf(map, sizeof(map), "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
	if (write_string("/proc/self/gid_map", map) == -1)
		fatal("gid_map");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1)
		fatal("mount / private");
}

/* Loads a program the way bwrap --seccomp does: whole file, non-empty, 8-byte records. */
static void
filter_load(const char *path)
{
	struct sock_fprog prog;
	size_t len;
	char *buf;

	if (read_file(path, BPF_MAXINSNS * sizeof(struct sock_filter), &buf, &len) == -1)
		fatal("%s", path);
	if (len == 0 || len % sizeof(struct sock_filter) != 0)
		fatalx("%s: %zu bytes is not a BPF program", path, len);
	prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	prog.filter = (struct sock_filter *)(void *)buf;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fatal("prctl PR_SET_NO_NEW_PRIVS");
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) == -1)
		fatal("seccomp %s", path);
	free(buf);
}

static noreturn void
usage(void)
{
	size_t i;

	fprintf(stderr,
	    "usage: try-syscall [--userns] [--filter FILE] PROBE... | all\n"
	    "probes:");
	for (i = 0; i < NPROBES; i++)
		fprintf(stderr, " %s", probes[i].name);
	fprintf(stderr, "\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *filter = NULL, *tmp;
	int i, userns = 0;
	size_t j;

	log_init("try-syscall", 0, 2);
	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "--userns") == 0)
			userns = 1;
		else if (strcmp(argv[i], "--filter") == 0 && i + 1 < argc)
			filter = argv[++i];
		else
			usage();
	}
	if (i == argc)
		usage();
	for (int k = i; k < argc; k++) {
		if (strcmp(argv[k], "all") == 0)
			continue;
		for (j = 0; j < NPROBES && strcmp(argv[k], probes[j].name) != 0; j++)
			;
		if (j == NPROBES) {
			log_warnx("%s: unknown probe", argv[k]);
			usage();
		}
	}

	/* Before any filter: mkdtemp needs no blocked call, but be independent of it. */
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	if ((size_t)snprintf(probe_dir, sizeof(probe_dir), "%s/try-syscall.XXXXXX", tmp) >=
	    sizeof(probe_dir))
		fatalx("TMPDIR too long");
	if (mkdtemp(probe_dir) == NULL)
		fatal("mkdtemp %s", probe_dir);
	if (userns)
		userns_enter();
	if (filter != NULL)
		filter_load(filter);

	for (; i < argc; i++) {
		if (strcmp(argv[i], "all") == 0) {
			for (j = 0; j < NPROBES; j++)
				probe_run(&probes[j]);
			continue;
		}
		for (j = 0; j < NPROBES; j++)
			if (strcmp(argv[i], probes[j].name) == 0)
				probe_run(&probes[j]);
	}
	fflush(stdout);
	if (rmdir(probe_dir) == -1)
		log_warn("rmdir %s", probe_dir);
	return 0;
}
