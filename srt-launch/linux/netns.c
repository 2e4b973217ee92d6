/*
 * The sandbox's network namespace (SPEC §5.2).
 *
 * A child creates it: as root a bare network namespace, otherwise a user and a network
 * namespace together, since an unprivileged process may only create a network namespace
 * inside a user namespace it owns. Capabilities in that user namespace do not survive
 * execve, so loopback is brought up here, in-process, with libnl. The child then opens the
 * four listening sockets inside and sends them, with descriptors of its namespaces, to the
 * launcher over SCM_RIGHTS, and exits: from then on those descriptors hold the namespaces.
 *
 * As root the child shares our memory and we wait while it runs (clone(2) with CLONE_VM
 * and CLONE_VFORK, as vfork() does): it costs no copy of the page tables and no
 * copy-on-write faults afterwards, which are most of what a fork costs. Unprivileged it
 * must be a real fork: unshare(CLONE_NEWUSER) refuses a process that shares its memory.
 *
 * Why namespace descriptors rather than running bwrap under the child: bwrap stays a
 * direct child of the launcher, so its exit status, --die-with-parent and signal
 * forwarding need no relaying; its child process setns()es into the namespaces the
 * descriptors name (as the owner of the user namespace it holds every capability there)
 * and execs bwrap, whose own user namespace then nests inside ours.
 */
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <net/if.h>
#include <netinet/in.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <netlink/netlink.h>

#include <netlink/attr.h>
#include <netlink/msg.h>

#include <linux/if_link.h>
#include <linux/rtnetlink.h>

#include "fdpass.h"
#include "launch.h"
#include "proxy_listen.h"

#define NETNS_STACK (256 * 1024)

/* The root child's stack (CLONE_VFORK: one child at a time, and only while we wait). */
static char netns_stack[NETNS_STACK] __attribute__((aligned(64)));

struct netns_msg {
	int ok;
	unsigned slots; /* bit i: listen slot i follows in the fds */
	int have_userns;
	int userns_err; /* when !ok: the errno of a failed step of the new
	                                   user namespace (userns.h), else 0 */
	char why[200];  /* when !ok: "step: reason" */
};

static const struct {
	int family;
	int port;
} netns_listen[LS_MAX] = {
	[LS_HTTP4] = { AF_INET, LAUNCH_HTTP_PORT },
	[LS_HTTP6] = { AF_INET6, LAUNCH_HTTP_PORT },
	[LS_SOCKS4] = { AF_INET, LAUNCH_SOCKS_PORT },
	[LS_SOCKS6] = { AF_INET6, LAUNCH_SOCKS_PORT },
};

static int
netns_write_file(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t n;
	int fd;

	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	n = write(fd, text, len);
	if (close(fd) == -1 || n != (ssize_t)len)
		return -1;
	return 0;
}

/* Enter fresh namespaces: user + net unprivileged (identity maps), net alone as root.
 * A failed step of the user namespace leaves its errno in *err. */
static int
netns_unshare(char *why, size_t whylen, int *err)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (uid == 0) {
		if (unshare(CLONE_NEWNET) == -1) {
			snprintf(why, whylen, "unshare(CLONE_NEWNET): %s", strerror(errno));
			return -1;
		}
		return 0;
	}
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == -1) {
		*err = errno;
		snprintf(
		    why, whylen, "unshare(CLONE_NEWUSER|CLONE_NEWNET): %s", strerror(errno));
		return -1;
	}
	/* An unprivileged writer of gid_map must first give up setgroups(2). */
	if (netns_write_file("/proc/self/setgroups", "deny") == -1) {
		*err = errno;
		snprintf(why, whylen, "/proc/self/setgroups: %s", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (netns_write_file("/proc/self/uid_map", map) == -1) {
		*err = errno;
		snprintf(why, whylen, "/proc/self/uid_map: %s", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (netns_write_file("/proc/self/gid_map", map) == -1) {
		*err = errno;
		snprintf(why, whylen, "/proc/self/gid_map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * ip link set lo up, through rtnetlink: one RTM_NEWLINK naming the device, which the kernel
 * applies to the existing link, and its acknowledgement. (Fetching the link first, to
 * change it through libnl-route's object, parsed a dump of every attribute of lo.)
 */
static int
netns_loopback_up(char *why, size_t whylen, int *err)
{
	struct ifinfomsg ifi = {
		.ifi_family = AF_UNSPEC,
		.ifi_flags = IFF_UP,
		.ifi_change = IFF_UP,
	};
	struct nl_sock *sk;
	struct nl_msg *msg = NULL;
	const char *step = "nl_socket_alloc";
	int r = -NLE_NOMEM;

	if ((sk = nl_socket_alloc()) == NULL)
		goto out;
	step = "nl_connect";
	if ((r = nl_connect(sk, NETLINK_ROUTE)) < 0)
		goto out;
	step = "RTM_NEWLINK(lo up)";
	r = -NLE_NOMEM;
	if ((msg = nlmsg_alloc_simple(RTM_NEWLINK, NLM_F_REQUEST)) == NULL ||
	    nlmsg_append(msg, &ifi, sizeof(ifi), NLMSG_ALIGNTO) < 0 ||
	    nla_put_string(msg, IFLA_IFNAME, "lo") < 0)
		goto out;
	/* nl_send_sync asks for the acknowledgement, waits for it and frees msg. */
	r = nl_send_sync(sk, msg);
	msg = NULL;
out:
	if (r < 0)
		snprintf(why, whylen, "loopback: %s: %s", step, nl_geterror(r));
	/* Without CAP_NET_ADMIN in the new user namespace: one AppArmor gave no
	 * capabilities (userns.h). */
	if (r == -NLE_PERM)
		*err = EPERM;
	if (msg != NULL)
		nlmsg_free(msg);
	if (sk != NULL)
		nl_socket_free(sk);
	return r < 0 ? -1 : 0;
}

/* A listening socket on the loopback address of family, inside the new namespace. */
static int
netns_listen_one(int family, int port, char *why, size_t whylen)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	sl = proxy_listen_loopback(family, (uint16_t)port, &ss);
	if ((fd = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		goto fail;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		goto fail;
	if (family == AF_INET6 &&
	    setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) == -1)
		goto fail;
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1 || listen(fd, SOMAXCONN) == -1)
		goto fail;
	return fd;
fail:
	snprintf(why, whylen, "listen on %s port %d: %s",
	    family == AF_INET ? "127.0.0.1" : "[::1]", port, strerror(errno));
	if (fd != -1)
		close(fd);
	return -1;
}

/* What the child is given: the launcher's pid and its end of the socket pair. */
struct netns_arg {
	pid_t launcher;
	int sock;
};

/*
 * The child: set the namespace up, report, exit.
 *
 * It dies with the launcher, before anything else. As root it shares the launcher's
 * memory, thread control block included, and a launcher killed meanwhile has the kernel
 * clear the thread id there (its clear_child_tid, set for every thread by the C
 * library). A lock that records its owner by that id is then never released again:
 * libnl's port map lock, taken and released around every netlink socket, is one, and a
 * child left on its own hung there for good, reparented, with our descriptors.
 */
static int
netns_child(void *arg)
{
	const struct netns_arg *a = arg;
	struct netns_msg m;
	int sock = a->sock;
	int fds[LS_MAX + 2];
	size_t nfds = 0;
	int i, fd;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != a->launcher)
		(void)syscall(SYS_exit_group, 1);
	memset(&m, 0, sizeof(m));
	if (netns_unshare(m.why, sizeof(m.why), &m.userns_err) == -1)
		goto report;
	if (netns_loopback_up(m.why, sizeof(m.why), &m.userns_err) == -1) {
		/* As root there is no new user namespace to blame. */
		if (geteuid() == 0)
			m.userns_err = 0;
		goto report;
	}
	for (i = 0; i < LS_MAX; i++) {
		char why[sizeof(m.why)];

		fd = netns_listen_one(
		    netns_listen[i].family, netns_listen[i].port, why, sizeof(why));
		if (fd == -1) {
			/* A host without IPv6 gives a namespace without ::1: do without. */
			if (netns_listen[i].family == AF_INET6 &&
			    (errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT))
				continue;
			memcpy(m.why, why, sizeof(m.why));
			goto report;
		}
		fds[nfds++] = fd;
		m.slots |= 1u << i;
	}
	if ((fd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(m.why, sizeof(m.why), "/proc/self/ns/net: %s", strerror(errno));
		goto report;
	}
	fds[nfds++] = fd;
	if (geteuid() != 0) {
		if ((fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(
			    m.why, sizeof(m.why), "/proc/self/ns/user: %s", strerror(errno));
			goto report;
		}
		fds[nfds++] = fd;
		m.have_userns = 1;
	}
	m.ok = 1;
report:
	(void)fdpass_send(sock, &m, sizeof(m), fds, m.ok ? nfds : 0);
	/* No exit handlers: sharing our memory, the child must not run ours. (The system
	 * call itself rather than _exit(), whose noreturn makes ASan look for the stack
	 * of our main thread, and warn, on this one.) */
	(void)syscall(SYS_exit_group, 0);
	return 0;
}

/* After a step of a new user namespace failed with err: name AppArmor's restriction and
 * its fix when that is the cause (userns.h). */
static void
netns_userns_hint(int err)
{
	char exe[PATH_MAX], *cause, *fix;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		(void)snprintf(exe, sizeof(exe), "srt-launch");
	else
		exe[n] = '\0';
	if (!userns_apparmor_hint(
		err, userns_apparmor_restricted(USERNS_APPARMOR_SYSCTL), exe, &cause, &fix))
		return;
	log_warnx("%s", cause);
	log_warnx("%s", fix);
	free(cause);
	free(fix);
}

/*
 * Have the child make the namespace and read its report: the listening sockets and the
 * namespaces, or why it failed.
 */
int
netns_create(struct launch *l)
{
	struct netns_msg m;
	struct netns_arg a;
	int sp[2], fds[LS_MAX + 2], status, i, rc = -1;
	size_t got = 0, nfds = 0, k = 0;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("socketpair");
		return -1;
	}
	a.launcher = getpid();
	a.sock = sp[1];
	if (geteuid() == 0) {
		/* We resume once the child has exited (CLONE_VFORK). */
		pid = clone(netns_child, netns_stack + NETNS_STACK,
		    CLONE_VM | CLONE_VFORK | SIGCHLD, &a);
	} else if ((pid = fork()) == 0) {
		(void)netns_child(&a);
	}
	if (pid == -1) {
		log_warn("network namespace: cannot start the child");
		goto out;
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	memset(&m, 0, sizeof(m));
	if (fdpass_recv(sp[0], &m, sizeof(m), &got, fds, LS_MAX + 2, &nfds) == -1 ||
	    got != sizeof(m)) {
		log_warnx("network namespace: the child failed without a report");
		goto out;
	}
	m.why[sizeof(m.why) - 1] = '\0';
	if (!m.ok) {
		log_warnx("network namespace: %s", m.why);
		if (m.userns_err != 0)
			netns_userns_hint(m.userns_err);
		goto out;
	}
	for (i = 0; i < LS_MAX; i++)
		l->proxy.listen_fd[i] = (m.slots & (1u << i)) && k < nfds ? fds[k++] : -1;
	if (k >= nfds || nfds - k != (size_t)(m.have_userns ? 2 : 1)) {
		log_warnx("network namespace: malformed report from the child");
		while (nfds > 0)
			close(fds[--nfds]);
		for (i = 0; i < LS_MAX; i++)
			l->proxy.listen_fd[i] = -1;
		goto out;
	}
	l->sandbox.netns_fd = fds[k++];
	l->sandbox.userns_fd = m.have_userns ? fds[k++] : -1;
	log_debug("network namespace ready: loopback up, listening on 3128 and 1080%s",
	    m.slots == 0xf ? " (IPv4 and IPv6)" : " (IPv4 only)");
	rc = 0;
out:
	close(sp[0]);
	close(sp[1]);
	return rc;
}
