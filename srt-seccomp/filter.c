/*
 * The seccomp program: built with libseccomp, then prefixed with a hand-written
 * architecture guard, so the bytes --emit-bpf writes are exactly the bytes the
 * worker installs.
 *
 * libseccomp runs at build time: the Makefile builds this program once with it
 * (build/gen/srt-seccomp-gen), has it emit the programs (with and without
 * --allow-unix-sockets, --allow-nested-userns, the write guard and the violation
 * monitor) into a header, and builds the
 * srt-seccomp that is installed with SRT_SECCOMP_PRECOMPILED, which embeds them. That
 * spares every launch building the program (about 0.3 ms on the development VM); the
 * programs are those libseccomp makes on the build machine, for its architecture.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <asm/unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SRT_SECCOMP_PRECOMPILED
#include <seccomp.h>
#else
#include "seccomp_programs.h"
#endif

#include "util.h"
#include "srt-seccomp.h"

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT 0x40000000
#endif

/* clone(2) takes its flags first everywhere but on s390, where the stack comes first. */
#if defined(__s390__) || defined(__s390x__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

#ifdef SRT_SECCOMP_PRECOMPILED
int
filter_build(const struct seccomp_opts *o, struct sock_fprog *out)
{
	int u = o->allow_unix ? 1 : 0, n = o->allow_userns ? 1 : 0, g = o->guard ? 1 : 0;
	int m = o->guard && o->monitor ? 1 : 0;
	const unsigned char *p = srt_seccomp_programs[u][n][g][m];
	size_t len = srt_seccomp_program_len[u][n][g][m];

	if (len == 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		log_warnx("embedded seccomp program of %zu bytes is not a program", len);
		return -1;
	}
	out->filter = xcalloc(len / sizeof(struct sock_filter), sizeof(struct sock_filter));
	memcpy(out->filter, p, len);
	out->len = (unsigned short)(len / sizeof(struct sock_filter));
	return 0;
}
#else
enum arg_test {
	ARG_ANY,     /* every call */
	ARG_EQ32,    /* the argument's low 32 bits equal value (the kernel reads an int) */
	ARG_HAS,     /* every bit of value is set in the argument */
	ARG_ACCMODE, /* the argument's O_ACCMODE bits equal value */
	ARG_NONZERO, /* the argument is not 0 (a pointer given) */
};

#define NOTIFY (-1) /* the rule's err: ask the supervisor (supervise.c) */

struct rule {
	const char *name;
	int err;
	unsigned int arg;
	enum arg_test test;
	uint64_t value;
};

/* A rule with two conditions, both of which must hold. */
struct rule2 {
	struct rule r;
	unsigned int arg2;
	enum arg_test test2;
	uint64_t value2;
};

/*
 * socket(2) and ioctl(2) declare family and cmd as int / unsigned int, so the kernel
 * ignores the upper half of the register: a rule comparing all 64 bits would let
 * (1 << 32) | AF_UNIX through. Hence the 32-bit masked compares.
 */
static const struct rule rules_always[] = {
	{ "socket", EPERM, 0, ARG_EQ32, AF_VSOCK },
	{ "io_uring_setup", EPERM, 0, ARG_ANY, 0 },
	{ "io_uring_enter", EPERM, 0, ARG_ANY, 0 },
	{ "io_uring_register", EPERM, 0, ARG_ANY, 0 },
	{ "ioctl", EPERM, 1, ARG_EQ32, TIOCSTI },
	{ "ioctl", EPERM, 1, ARG_EQ32, TIOCLINUX },
	/* Keyrings are not namespaced: refuse them as container runtimes do, so that no
	 * key of the user's (session, user or persistent keyring) can be read or added. */
	{ "keyctl", EPERM, 0, ARG_ANY, 0 },
	{ "add_key", EPERM, 0, ARG_ANY, 0 },
	{ "request_key", EPERM, 0, ARG_ANY, 0 },
};

/*
 * With the write guard: every call that makes, changes, removes or renames a name by
 * path goes to the supervisor. open and openat only when they may write (an access
 * mode other than O_RDONLY, or O_CREAT, or O_TRUNC). Calls on a descriptor alone act
 * on a file the command opened already: write and ftruncate need it open for writing,
 * which the supervisor decided; but a descriptor opened read-only (never asked about)
 * reaches protected files as well (fchmod setting an execute bit makes a disabled
 * hook runnable again; S_ISUID or S_ISGID, which the supervisor removes from a file
 * that is not a directory, and S_IWOTH, as from every mode it makes or sets:
 * supervise.c sup_mode_strip), and a descriptor the command was given from outside
 * the sandbox (srt's standard input, a directory) lies on the host's writable mount,
 * with every file opened through it: fchmod, fchown and fsetxattr/fremovexattr go to
 * the supervisor too, which decides by the sandbox's view (resolve.c res_view).
 * Times (utime, utimes, futimesat, utimensat, by path or on a descriptor) are left to
 * the kernel and the mounts: a time makes no name and nothing runs for it, no answer
 * of the guard's depends on one (whose a directory is goes by device and inode,
 * sup_fs.c), and a read-only mount refuses it as before (EROFS, now unreported). On a
 * file reached through a descriptor from outside the sandbox a time changes as it
 * always could with futimens. tar x, cp -a and git clone set times for every file
 * they make (issue #29; the clone by name, for each object it copies).
 * bind makes a socket's name in the file system (a unix socket from socketpair(2),
 * which is always allowed): the supervisor binds, for every family (it reads the
 * address once, and the kernel never reads it again). umask is noted by the
 * supervisor (who makes files with the caller's umask), not decided. openat2 passes
 * its flags in memory: ENOSYS, and libcs and tools fall back to openat. fchmodat2
 * (452) and the *xattrat calls (463...) are newer than the libseccomp that builds
 * this: the guard before the program refuses them by number.
 */
static const struct rule rules_guard[] = {
	{ "open", NOTIFY, 1, ARG_ACCMODE, O_WRONLY },
	{ "open", NOTIFY, 1, ARG_ACCMODE, O_RDWR },
	{ "open", NOTIFY, 1, ARG_ACCMODE, O_ACCMODE },
	{ "open", NOTIFY, 1, ARG_HAS, O_CREAT },
	{ "open", NOTIFY, 1, ARG_HAS, O_TRUNC },
	{ "openat", NOTIFY, 2, ARG_ACCMODE, O_WRONLY },
	{ "openat", NOTIFY, 2, ARG_ACCMODE, O_RDWR },
	{ "openat", NOTIFY, 2, ARG_ACCMODE, O_ACCMODE },
	{ "openat", NOTIFY, 2, ARG_HAS, O_CREAT },
	{ "openat", NOTIFY, 2, ARG_HAS, O_TRUNC },
	{ "creat", NOTIFY, 0, ARG_ANY, 0 },
	{ "truncate", NOTIFY, 0, ARG_ANY, 0 },
	{ "rename", NOTIFY, 0, ARG_ANY, 0 },
	{ "renameat", NOTIFY, 0, ARG_ANY, 0 },
	{ "renameat2", NOTIFY, 0, ARG_ANY, 0 },
	{ "link", NOTIFY, 0, ARG_ANY, 0 },
	{ "linkat", NOTIFY, 0, ARG_ANY, 0 },
	{ "symlink", NOTIFY, 0, ARG_ANY, 0 },
	{ "symlinkat", NOTIFY, 0, ARG_ANY, 0 },
	{ "unlink", NOTIFY, 0, ARG_ANY, 0 },
	{ "unlinkat", NOTIFY, 0, ARG_ANY, 0 },
	{ "rmdir", NOTIFY, 0, ARG_ANY, 0 },
	{ "mkdir", NOTIFY, 0, ARG_ANY, 0 },
	{ "mkdirat", NOTIFY, 0, ARG_ANY, 0 },
	{ "mknod", NOTIFY, 0, ARG_ANY, 0 },
	{ "mknodat", NOTIFY, 0, ARG_ANY, 0 },
	{ "chmod", NOTIFY, 0, ARG_ANY, 0 },
	{ "fchmodat", NOTIFY, 0, ARG_ANY, 0 },
	{ "chown", NOTIFY, 0, ARG_ANY, 0 },
	{ "lchown", NOTIFY, 0, ARG_ANY, 0 },
	{ "fchownat", NOTIFY, 0, ARG_ANY, 0 },
	{ "setxattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "lsetxattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "removexattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "lremovexattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "fsetxattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "fremovexattr", NOTIFY, 0, ARG_ANY, 0 },
	{ "fchmod", NOTIFY, 0, ARG_ANY, 0 },
	{ "fchown", NOTIFY, 0, ARG_ANY, 0 },
	{ "bind", NOTIFY, 0, ARG_ANY, 0 },
	{ "umask", NOTIFY, 0, ARG_ANY, 0 },
	{ "openat2", ENOSYS, 0, ARG_ANY, 0 },
	/* A file handle opens by inode, past every name (and needs a capability). */
	{ "open_by_handle_at", EPERM, 0, ARG_ANY, 0 },
	/* A fault the command handles itself would stall the supervisor's reads. */
	{ "userfaultfd", EPERM, 0, ARG_ANY, 0 },
};

/* Limits of another process: PID 1 runs with the command's ids, and its RLIMIT_NOFILE
 * lowered would make the supervisor's own opens fail. Reading them, and setting one's
 * own (pid 0, as libcs do), stays allowed. */
static const struct rule2 rules2_guard[] = {
	{ { "prlimit64", EPERM, 0, ARG_NONZERO, 0 }, 2, ARG_NONZERO, 0 },
};

/*
 * Without the write guard, no supervisor sees a mode: S_ISUID and S_ISGID are refused
 * by argument (EPERM) in every call that sets or makes a mode, so that no program the
 * command leaves runs with its owner's rights (root's, when root runs srt) for whoever
 * runs it next. The filter cannot tell a directory from a file, so chmod g+s of a
 * directory is refused too (the guard's supervisor lets a directory keep it). mkdir
 * needs no rule: the kernel ignores both bits in its mode. open, openat only when they
 * make a file (O_CREAT, O_TMPFILE), whose mode argument is otherwise unused; openat2
 * keeps its mode in memory: ENOSYS, as with the guard. fchmodat2 (452), unknown to
 * libseccomp 2.5, is decided by argument before the program (guard_build).
 * File capabilities (the security.capability attribute) need CAP_SETFCAP, which the
 * command does not hold. S_IWOTH is not refused: mkdir and open take a mode the umask
 * narrows after us (0777 and 0666 are what every program asks for), and refusing it
 * in chmod alone would leave those; the guard's supervisor removes it.
 */
static const struct rule rules_setid[] = {
	{ "chmod", EPERM, 1, ARG_HAS, S_ISUID },
	{ "chmod", EPERM, 1, ARG_HAS, S_ISGID },
	{ "fchmod", EPERM, 1, ARG_HAS, S_ISUID },
	{ "fchmod", EPERM, 1, ARG_HAS, S_ISGID },
	{ "fchmodat", EPERM, 2, ARG_HAS, S_ISUID },
	{ "fchmodat", EPERM, 2, ARG_HAS, S_ISGID },
	{ "creat", EPERM, 1, ARG_HAS, S_ISUID },
	{ "creat", EPERM, 1, ARG_HAS, S_ISGID },
	{ "mknod", EPERM, 1, ARG_HAS, S_ISUID },
	{ "mknod", EPERM, 1, ARG_HAS, S_ISGID },
	{ "mknodat", EPERM, 2, ARG_HAS, S_ISUID },
	{ "mknodat", EPERM, 2, ARG_HAS, S_ISGID },
	{ "openat2", ENOSYS, 0, ARG_ANY, 0 },
};

static const struct rule2 rules2_setid[] = {
	{ { "open", EPERM, 1, ARG_HAS, O_CREAT }, 2, ARG_HAS, S_ISUID },
	{ { "open", EPERM, 1, ARG_HAS, O_CREAT }, 2, ARG_HAS, S_ISGID },
	{ { "open", EPERM, 1, ARG_HAS, O_TMPFILE }, 2, ARG_HAS, S_ISUID },
	{ { "open", EPERM, 1, ARG_HAS, O_TMPFILE }, 2, ARG_HAS, S_ISGID },
	{ { "openat", EPERM, 2, ARG_HAS, O_CREAT }, 3, ARG_HAS, S_ISUID },
	{ { "openat", EPERM, 2, ARG_HAS, O_CREAT }, 3, ARG_HAS, S_ISGID },
	{ { "openat", EPERM, 2, ARG_HAS, O_TMPFILE }, 3, ARG_HAS, S_ISUID },
	{ { "openat", EPERM, 2, ARG_HAS, O_TMPFILE }, 3, ARG_HAS, S_ISGID },
};

/*
 * With the violation monitor (--violations-fd): the calls that name a destination go
 * to the supervisor, which reports one outside the sandbox's loopback and lets the call
 * go on (SECCOMP_USER_NOTIF_FLAG_CONTINUE; supervise.c sup_net). sendto(2) only with an
 * address (send(2) is sendto without one). sendmsg(2) and sendmmsg(2) keep theirs in
 * memory, where the filter cannot tell a datagram to another host from a message
 * between the command's own processes: every one would cost a round trip (about 30
 * µs), so they are not reported; the network namespace refuses them all the same.
 */
static const struct rule rules_monitor[] = {
	{ "connect", NOTIFY, 0, ARG_ANY, 0 },
	{ "sendto", NOTIFY, 4, ARG_NONZERO, 0 },
};

static const struct rule rules_unix[] = {
	{ "socket", EPERM, 0, ARG_EQ32, AF_UNIX },
};

/*
 * clone3(2) passes its flags in memory that seccomp cannot read, so it fails with
 * ENOSYS: libcs then fall back to clone(2), whose flags can be checked.
 * "umount" does not exist on every architecture; libseccomp skips it where it does not.
 */
static const struct rule rules_userns[] = {
	{ "unshare", EPERM, 0, ARG_HAS, CLONE_NEWUSER },
	{ "clone", EPERM, CLONE_FLAGS_ARG, ARG_HAS, CLONE_NEWUSER },
	{ "clone3", ENOSYS, 0, ARG_ANY, 0 },
	{ "setns", EPERM, 0, ARG_ANY, 0 },
	{ "mount", EPERM, 0, ARG_ANY, 0 },
	{ "umount", EPERM, 0, ARG_ANY, 0 },
	{ "umount2", EPERM, 0, ARG_ANY, 0 },
	{ "pivot_root", EPERM, 0, ARG_ANY, 0 },
	{ "open_tree", EPERM, 0, ARG_ANY, 0 },
	{ "move_mount", EPERM, 0, ARG_ANY, 0 },
	{ "fsopen", EPERM, 0, ARG_ANY, 0 },
	{ "fsconfig", EPERM, 0, ARG_ANY, 0 },
	{ "fsmount", EPERM, 0, ARG_ANY, 0 },
	{ "fspick", EPERM, 0, ARG_ANY, 0 },
	{ "mount_setattr", EPERM, 0, ARG_ANY, 0 },
};

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

/* Guard instructions placed before libseccomp's program (see guard_build). */
#define GUARD_MAX 16

/* System calls libseccomp 2.5 does not know, refused by number with the write guard:
 * fchmodat2 (a chmod by path), and everything from setxattrat on (xattrs by path);
 * without it, fchmodat2 by its mode argument. */
#define NR_FCHMODAT2 452
#define NR_FIRST_UNKNOWN 463

/* One condition of a rule as libseccomp's comparison; 0, or -EINVAL. */
static int
rule_cmp(unsigned int arg, enum arg_test test, uint64_t value, struct scmp_arg_cmp *cmp)
{
	memset(cmp, 0, sizeof(*cmp));
	cmp->arg = arg;
	cmp->op = SCMP_CMP_MASKED_EQ;
	switch (test) {
	case ARG_EQ32:
		cmp->datum_a = 0xffffffffULL;
		cmp->datum_b = value;
		return 0;
	case ARG_HAS:
		cmp->datum_a = value;
		cmp->datum_b = value;
		return 0;
	case ARG_ACCMODE:
		cmp->datum_a = O_ACCMODE;
		cmp->datum_b = value;
		return 0;
	case ARG_NONZERO:
		cmp->op = SCMP_CMP_NE;
		cmp->datum_a = 0;
		return 0;
	default:
		return -EINVAL;
	}
}

/* rules (n of them, each size bytes apart: struct rule or struct rule2, two conditions). */
static int
rules_add_n(scmp_filter_ctx ctx, const void *rules, size_t n, size_t size)
{
	struct scmp_arg_cmp cmp[2];
	unsigned int ncmp;
	uint32_t act;
	size_t i;
	int nr, r;

	for (i = 0; i < n; i++) {
		const struct rule *ru = (const struct rule *)((const char *)rules + i * size);
		const struct rule2 *r2 = (const struct rule2 *)(const void *)ru;

		nr = seccomp_syscall_resolve_name(ru->name);
		if (nr == __NR_SCMP_ERROR) {
			/* A libseccomp too old to know the call cannot block it: refuse. */
			log_warnx(
			    "seccomp_syscall_resolve_name %s: unknown system call", ru->name);
			return -1;
		}
		act = ru->err == NOTIFY ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(ru->err);
		ncmp = 0;
		r = 0;
		if (ru->test != ARG_ANY)
			r = rule_cmp(ru->arg, ru->test, ru->value, &cmp[ncmp++]);
		if (r == 0 && size == sizeof(struct rule2))
			r = rule_cmp(r2->arg2, r2->test2, r2->value2, &cmp[ncmp++]);
		if (r == 0)
			r = seccomp_rule_add_array(ctx, act, nr, ncmp, ncmp > 0 ? cmp : NULL);
		if (r != 0) {
			errno = -r;
			log_warn("seccomp_rule_add %s", ru->name);
			return -1;
		}
	}
	return 0;
}

#define rules_add(ctx, rules, n) rules_add_n(ctx, rules, n, sizeof((rules)[0]))

/* libseccomp 2.5 can only export to a file descriptor: use an anonymous file. */
static int
filter_export(scmp_filter_ctx ctx, char **buf, size_t *len)
{
	int fd, r, rc = -1;

	*buf = NULL;
	*len = 0;
	if ((fd = memfd_create("srt-seccomp-bpf", MFD_CLOEXEC)) == -1) {
		log_warn("memfd_create");
		return -1;
	}
	if ((r = seccomp_export_bpf(ctx, fd)) != 0) {
		errno = -r;
		log_warn("seccomp_export_bpf");
		goto out;
	}
	if (lseek(fd, 0, SEEK_SET) == -1) {
		log_warn("lseek");
		goto out;
	}
	if (read_fd_all(fd, BPF_MAXINSNS * sizeof(struct sock_filter), buf, len) == -1) {
		log_warn("read compiled filter");
		goto out;
	}
	if (*len == 0 || *len % sizeof(struct sock_filter) != 0) {
		log_warnx("seccomp_export_bpf: %zu bytes is not a program", *len);
		free(*buf);
		*buf = NULL;
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

/* The low 32 bits of argument i, where the kernel reads an int or a mode_t. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i) + 4)
#else
#define ARG_LO(i) (offsetof(struct seccomp_data, args) + 8 * (i))
#endif

/*
 * The architecture check comes first and kills anything that is not the native
 * ABI (ia32 on x86_64, AArch32 on arm64). On x86_64 the x32 ABI shares the native
 * audit token and marks its calls with __X32_SYSCALL_BIT: those are killed too.
 * libseccomp 2.5 emits the same x32 check, but only while no x32 architecture is
 * added to the context; this guard does not depend on that. Like libseccomp, it
 * lets nr == -1 through (the kernel answers ENOSYS; tracers use it to skip calls).
 * Then the calls libseccomp does not know: with the write guard, fchmodat2 and the
 * *xattrat calls fail with ENOSYS; without it, fchmodat2 with S_ISUID or S_ISGID in
 * its mode fails with EPERM, as chmod does (rules_setid).
 */
static size_t
guard_build(struct sock_filter *g, int write_guard)
{
	size_t n = 0;

	g[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	g[n++] = (struct sock_filter)BPF_JUMP(
	    BPF_JMP | BPF_JEQ | BPF_K, seccomp_arch_native(), 1, 0);
	g[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#if defined(__x86_64__) && !defined(__ILP32__)
	g[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	g[n++] = (struct sock_filter)BPF_JUMP(
	    BPF_JMP | BPF_JGE | BPF_K, __X32_SYSCALL_BIT, 0, 2);
	g[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 1, 0);
	g[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
#endif
	g[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
	if (write_guard) {
		/* nr == 452, or 463 <= nr < 0xffffffff: ENOSYS; the rest to the program. */
		g[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, NR_FCHMODAT2, 2, 0);
		g[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, 0xffffffffU, 2, 0);
		g[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JGE | BPF_K, NR_FIRST_UNKNOWN, 0, 1);
		g[n++] = (struct sock_filter)BPF_STMT(
		    BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA));
	} else {
		/* fchmodat2(dirfd, path, mode, flags) with mode & 06000: EPERM. */
		g[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JEQ | BPF_K, NR_FCHMODAT2, 0, 3);
		g[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2));
		g[n++] = (struct sock_filter)BPF_JUMP(
		    BPF_JMP | BPF_JSET | BPF_K, S_ISUID | S_ISGID, 0, 1);
		g[n++] = (struct sock_filter)BPF_STMT(
		    BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	}
	return n;
}

int
filter_build(const struct seccomp_opts *o, struct sock_fprog *out)
{
	struct sock_filter guard[GUARD_MAX];
	scmp_filter_ctx ctx = NULL;
	char *body = NULL;
	size_t nguard, nbody, blen;
	int r, rc = -1;

	out->filter = NULL;
	out->len = 0;
	if ((ctx = seccomp_init(SCMP_ACT_ALLOW)) == NULL) {
		errno = ENOMEM;
		log_warn("seccomp_init");
		goto out;
	}
	if ((r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS)) != 0) {
		errno = -r;
		log_warn("seccomp_attr_set SCMP_FLTATR_ACT_BADARCH");
		goto out;
	}
	if (rules_add(ctx, rules_always, nitems(rules_always)) == -1)
		goto out;
	if (!o->allow_unix && rules_add(ctx, rules_unix, nitems(rules_unix)) == -1)
		goto out;
	if (!o->allow_userns && rules_add(ctx, rules_userns, nitems(rules_userns)) == -1)
		goto out;
	if (o->guard &&
	    (rules_add(ctx, rules_guard, nitems(rules_guard)) == -1 ||
		rules_add(ctx, rules2_guard, nitems(rules2_guard)) == -1))
		goto out;
	if (!o->guard &&
	    (rules_add(ctx, rules_setid, nitems(rules_setid)) == -1 ||
		rules_add(ctx, rules2_setid, nitems(rules2_setid)) == -1))
		goto out;
	if (o->guard && o->monitor &&
	    rules_add(ctx, rules_monitor, nitems(rules_monitor)) == -1)
		goto out;
	if (filter_export(ctx, &body, &blen) == -1)
		goto out;

	/* BPF jumps are relative, so libseccomp's program runs unchanged after the guard. */
	nguard = guard_build(guard, o->guard);
	nbody = blen / sizeof(struct sock_filter);
	if (nguard + nbody > BPF_MAXINSNS) {
		errno = E2BIG;
		log_warn("seccomp filter of %zu instructions", nguard + nbody);
		goto out;
	}
	out->filter = xcalloc(nguard + nbody, sizeof(struct sock_filter));
	memcpy(out->filter, guard, nguard * sizeof(struct sock_filter));
	memcpy(out->filter + nguard, body, blen);
	out->len = (unsigned short)(nguard + nbody);
	rc = 0;
out:
	free(body);
	if (ctx != NULL)
		seccomp_release(ctx);
	return rc;
}

#endif /* SRT_SECCOMP_PRECOMPILED */

/* Writes the program as raw struct sock_filter records ("-" is standard output). */
int
filter_write(const struct sock_fprog *prog, const char *path)
{
	const char *p = (const char *)prog->filter;
	size_t left = (size_t)prog->len * sizeof(struct sock_filter);
	ssize_t n;
	int fd, tostdout = strcmp(path, "-") == 0;

	if (tostdout)
		fd = STDOUT_FILENO;
	else if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1) {
		log_warn("open %s", path);
		return -1;
	}
	while (left > 0) {
		if ((n = write(fd, p, left)) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("write %s", path);
			if (!tostdout)
				close(fd);
			return -1;
		}
		p += n;
		left -= (size_t)n;
	}
	if (!tostdout && close(fd) == -1) {
		log_warn("close %s", path);
		return -1;
	}
	return 0;
}

/*
 * prog with every open(2) and openat(2) of the native ABI sent to the supervisor, the
 * read-only ones too: while it holds read denies Landlock cannot (sup_read.c). Put in
 * front of the program, which starts with the architecture guard (guard_build): its
 * second instruction names the native architecture, and anything else goes on to it
 * unchanged (BPF jumps are relative). Built at run time: one more program per
 * combination would double the embedded ones for a case few runs have.
 */
int
filter_read_prefix(const struct sock_fprog *in, struct sock_fprog *out)
{
	struct sock_filter pre[8];
	size_t n = 0, ret, i;

	if (in->len < 2 || in->filter[0].code != (BPF_LD | BPF_W | BPF_ABS) ||
	    in->filter[0].k != offsetof(struct seccomp_data, arch) ||
	    in->filter[1].code != (BPF_JMP | BPF_JEQ | BPF_K)) {
		log_warnx("seccomp program: no architecture guard to put the opens before");
		return -1;
	}
	pre[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch));
	pre[n++] = (struct sock_filter)BPF_JUMP(
	    BPF_JMP | BPF_JEQ | BPF_K, in->filter[1].k, 0, 0); /* jf: to the program, below */
	pre[n++] = (struct sock_filter)BPF_STMT(
	    BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr));
#ifdef __NR_open
	pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_open, 0, 0);
#endif
	pre[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_openat, 0, 0);
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_JMP | BPF_JA, 1);
	ret = n;
	pre[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF);
	pre[1].jf = (unsigned char)(n - 2);
	for (i = 3; i < ret - 1; i++)
		pre[i].jt = (unsigned char)(ret - i - 1);
	if (n + in->len > BPF_MAXINSNS) {
		log_warnx("seccomp program of %zu instructions", n + in->len);
		return -1;
	}
	out->filter = xcalloc(n + in->len, sizeof(struct sock_filter));
	memcpy(out->filter, pre, n * sizeof(struct sock_filter));
	memcpy(out->filter + n, in->filter, in->len * sizeof(struct sock_filter));
	out->len = (unsigned short)(n + in->len);
	return 0;
}

/*
 * The caller has set NO_NEW_PRIVS, which lets an unprivileged process do this. With
 * listener non-NULL the filter's notifications go to a new listener, *listener: once
 * the supervisor has taken a call, only a fatal signal interrupts the caller's wait
 * (WAIT_KILLABLE_RECV, Linux 5.19), so a call we have done is never restarted by
 * a signal and done twice.
 */
int
filter_install(const struct sock_fprog *prog, int *listener)
{
	unsigned long fl = SECCOMP_FILTER_FLAG_NEW_LISTENER;
	int r;

	if (listener == NULL) {
		if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog) == -1) {
			log_warn("seccomp SECCOMP_SET_MODE_FILTER");
			return -1;
		}
		return 0;
	}
	r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    fl | SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (r == -1 && errno == EINVAL)
		r = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, fl, prog);
	if (r == -1) {
		log_warn("seccomp SECCOMP_SET_MODE_FILTER with a listener (Linux 5.14 or "
			 "later is needed for the write guard)");
		return -1;
	}
	*listener = r;
	return 0;
}

void
filter_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}
