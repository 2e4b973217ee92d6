#!/usr/bin/env bash
# What one round trip to a seccomp supervisor costs on this machine, the floor under
# the write guard's cost per file (bench/write.sh, srt-launch(1) WRITE GUARD): a child
# makes 20,000 intercepted calls, and a supervisor with nothing to decide answers each
#   send   with SECCOMP_IOCTL_NOTIF_SEND, as srt-seccomp answers a refusal or a mkdir;
#   addfd  with SECCOMP_IOCTL_NOTIF_ADDFD (FLAG_SEND), as it answers every open;
# both with SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP set, as srt-seccomp sets it, and each
# free to run on any CPU and then pinned, both processes, to one. Each round runs the
# four in turn (send free, send pinned, addfd free, addfd pinned), so that the load of
# the moment falls on all four; each line is the median of the rounds, in µs per call,
# with the lowest and highest.
#
# Usage: bench/notify-wake.sh [ROUNDS]   (needs cc and Linux 6.6 or later)
set -eu
rounds=${1:-7}
command -v cc >/dev/null || { echo "notify-wake: cc not found" >&2; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/srt-bench-wake.XXXXXX")
trap 'rm -rf "$work"' EXIT

cat > "$work/wake.c" <<'C'
#define _GNU_SOURCE
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SECCOMP_IOCTL_NOTIF_SET_FLAGS
#define SECCOMP_IOCTL_NOTIF_SET_FLAGS	SECCOMP_IOW(4, __u64)
#endif
#define CALLS	20000

static double
now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

/* One descriptor over a socket pair, so the child can give its listener away. */
static void
fd_send(int s, int fd)
{
	char c = 0, cb[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cb,
	    .msg_controllen = sizeof(cb) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&m);

	h->cmsg_level = SOL_SOCKET;
	h->cmsg_type = SCM_RIGHTS;
	h->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(h), &fd, sizeof(fd));
	if (sendmsg(s, &m, 0) != 1)
		_exit(2);
}

static int
fd_recv(int s)
{
	char c, cb[CMSG_SPACE(sizeof(int))];
	struct iovec io = { &c, 1 };
	struct msghdr m = { .msg_iov = &io, .msg_iovlen = 1, .msg_control = cb,
	    .msg_controllen = sizeof(cb) };
	int fd;

	if (recvmsg(s, &m, 0) != 1 || CMSG_FIRSTHDR(&m) == NULL)
		exit(2);
	memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&m)), sizeof(fd));
	return fd;
}

int
main(int argc, char **argv)
{
	int addfd = argc > 1 && strcmp(argv[1], "addfd") == 0, sp[2], lfd, i, st;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { 4, f };
	struct seccomp_notif req;
	struct seccomp_notif_resp resp;
	struct seccomp_notif_addfd a;
	double t;
	char go = 'g';
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == -1)
		return 2;
	if ((pid = fork()) == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    (lfd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) == -1)
			_exit(2);
		fd_send(sp[0], lfd);
		close(lfd);
		if (read(sp[0], &go, 1) != 1)
			_exit(2);
		t = now_us();
		for (i = 0; i < CALLS; i++) {
			long r = syscall(SYS_getppid);

			if (addfd)
				close((int)r);
		}
		printf("%.2f\n", (now_us() - t) / CALLS);
		fflush(stdout);
		_exit(0);
	}
	lfd = fd_recv(sp[1]);
	if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SET_FLAGS, 1UL, 0) == -1) {
		fprintf(stderr, "notify-wake: SECCOMP_USER_NOTIF_FD_SYNC_WAKE_UP: %s\n",
		    strerror(errno));
		return 1;
	}
	if (write(sp[1], &go, 1) != 1)
		return 2;
	for (i = 0; i < CALLS; i++) {
		memset(&req, 0, sizeof(req));
		if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_RECV, &req) == -1)
			return 2;
		if (addfd) {
			memset(&a, 0, sizeof(a));
			a.id = req.id;
			a.flags = SECCOMP_ADDFD_FLAG_SEND;
			a.srcfd = 0;
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_ADDFD, &a) == -1)
				return 2;
		} else {
			memset(&resp, 0, sizeof(resp));
			resp.id = req.id;
			if (ioctl(lfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == -1)
				return 2;
		}
	}
	return waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 2;
}
C
cc -O2 -o "$work/wake" "$work/wake.c"

: > "$work/results"
for r in $(seq "$rounds"); do
	for how in send addfd; do
		echo "free $how $("$work/wake" "$how" < /dev/null)" >> "$work/results"
		echo "pinned $how $(taskset -c 0 "$work/wake" "$how" < /dev/null)" >> "$work/results"
	done
done
for where in free pinned; do
	for how in send addfd; do
		awk -v w="$where" -v h="$how" '$1 == w && $2 == h { print $3 }' "$work/results" |
		    sort -n | awk -v name="$how, $where" -v n="$rounds" '
			{ v[NR] = $1 }
			END { printf "notify-wake: %-14s %6.1f us per call (median of %d, %.1f-%.1f)\n",
			    name, v[int((NR + 1) / 2)], n, v[1], v[NR] }'
	done
done
echo "notify-wake: $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
