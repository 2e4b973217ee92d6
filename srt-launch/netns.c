/*
 * The sandbox's network namespace (SPEC §5.2).
 *
 * A child (the keeper) creates it: as root a bare network namespace, otherwise a user and a
 * network namespace together, since an unprivileged process may only create a network
 * namespace inside a user namespace it owns. Capabilities in that user namespace do not
 * survive execve, so loopback is brought up here, in-process, with libnl. The keeper then
 * opens the four listening sockets inside and sends them, with descriptors of its
 * namespaces, to the launcher over SCM_RIGHTS.
 *
 * Why namespace descriptors rather than running bwrap under the keeper: bwrap stays a
 * direct child of the launcher, so its exit status, --die-with-parent and signal
 * forwarding need no relaying; its child process setns()es into the namespaces the
 * descriptors name (as the owner of the user namespace it holds every capability there)
 * and execs bwrap, whose own user namespace then nests inside ours.
 *
 * The keeper itself then has nothing more to do for the namespace (the descriptors and
 * the sockets keep it alive) and stays only as a janitor: when its lifeline pipe reaches
 * EOF, which happens however the launcher ends, SIGKILL included, it removes the run's
 * temp directory and placeholders, and, unless the launcher said that the sandbox had
 * ended, kills what is left of the sandbox (netns_sweep).
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <dirent.h>
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

#include <netlink/route/link.h>

#include "fdpass.h"
#include "launch.h"

struct netns_msg {
	int ok;
	unsigned slots;                 /* bit i: listen slot i follows in the fds */
	int have_userns;
	char why[200];                  /* when !ok: "step: reason" */
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

/* Enter fresh namespaces: user + net unprivileged (identity maps), net alone as root. */
static int
netns_unshare(char *why, size_t whylen)
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
		snprintf(why, whylen, "unshare(CLONE_NEWUSER|CLONE_NEWNET): %s",
		    strerror(errno));
		return -1;
	}
	/* An unprivileged writer of gid_map must first give up setgroups(2). */
	if (netns_write_file("/proc/self/setgroups", "deny") == -1) {
		snprintf(why, whylen, "/proc/self/setgroups: %s", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)uid, (unsigned)uid);
	if (netns_write_file("/proc/self/uid_map", map) == -1) {
		snprintf(why, whylen, "/proc/self/uid_map: %s", strerror(errno));
		return -1;
	}
	snprintf(map, sizeof(map), "%u %u 1\n", (unsigned)gid, (unsigned)gid);
	if (netns_write_file("/proc/self/gid_map", map) == -1) {
		snprintf(why, whylen, "/proc/self/gid_map: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ip link set lo up, through rtnetlink. */
static int
netns_loopback_up(char *why, size_t whylen)
{
	struct nl_sock *sk;
	struct rtnl_link *link = NULL, *change = NULL;
	const char *step = "nl_socket_alloc";
	int r = -NLE_NOMEM;

	if ((sk = nl_socket_alloc()) == NULL)
		goto out;
	step = "nl_connect";
	if ((r = nl_connect(sk, NETLINK_ROUTE)) < 0)
		goto out;
	step = "rtnl_link_get_kernel(lo)";
	if ((r = rtnl_link_get_kernel(sk, 0, "lo", &link)) < 0)
		goto out;
	step = "rtnl_link_alloc";
	r = -NLE_NOMEM;
	if ((change = rtnl_link_alloc()) == NULL)
		goto out;
	rtnl_link_set_flags(change, IFF_UP);
	step = "rtnl_link_change(lo up)";
	r = rtnl_link_change(sk, link, change, 0);
 out:
	if (r < 0)
		snprintf(why, whylen, "loopback: %s: %s", step, nl_geterror(r));
	if (change != NULL)
		rtnl_link_put(change);
	if (link != NULL)
		rtnl_link_put(link);
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

	memset(&ss, 0, sizeof(ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sl = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		sin6->sin6_addr = in6addr_loopback;
		sl = sizeof(*sin6);
	}
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

/*
 * Once the launcher is gone without saying that the sandbox had ended: SIGKILL every
 * process of the run that may still be running. Two marks find them:
 *   - membership of the sandbox's network namespace (inode net_ino), which bwrap and all
 *     it starts are in from the start, whatever the settings (with allowAllUnixSockets
 *     there is no srt-seccomp and no lifeline in the sandbox); only the keeper itself,
 *     which made the namespace, is in it besides them;
 *   - holding the sandbox lifeline's read end (pipe inode pipe_ino; the write end is the
 *     launcher's, and a launcher still exiting is left alone), which also covers a
 *     process that moved to a network namespace of its own. srt-seccomp acts on the
 *     lifeline itself, but a bwrap child whose parent was killed early waits for it
 *     forever (it waits for the parent to write its uid maps, and arms
 *     --die-with-parent only after that), holding the pipe it was meant to pass on.
 * Only processes of this run carry either mark: the namespace and the pipe stay this
 * run's own while we hold them (see netns_keeper). Each process is checked again through
 * a pidfd before the signal, so a reused pid is never hit. A process may fork while
 * /proc is read, so passes repeat until one finds nobody (bounded).
 */
/* Does the symbolic link path read exactly want? */
static bool
netns_link_is(const char *path, const char *want)
{
	char link[64];
	ssize_t n = readlink(path, link, sizeof(link) - 1);

	if (n <= 0)
		return false;
	link[n] = '\0';
	return strcmp(link, want) == 0;
}

/* Is descriptor fd of process pid open for writing only (the launcher's end)? */
static bool
netns_fd_write_only(long pid, const char *fd)
{
	char path[64], buf[256];
	unsigned long flags;
	const char *f;
	ssize_t n;
	int in;

	snprintf(path, sizeof(path), "/proc/%ld/fdinfo/%.16s", pid, fd);
	if ((in = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return false;
	n = read(in, buf, sizeof(buf) - 1);
	close(in);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	if ((f = strstr(buf, "flags:")) == NULL || sscanf(f + 6, "%lo", &flags) != 1)
		return false;
	return (flags & O_ACCMODE) == O_WRONLY;
}

/* The mark of the run that process pid carries (want_net or want_pipe), or NULL; *path
 * gets the link that showed it. */
static const char *
netns_of_run(long pid, const char *want_net, const char *want_pipe, char *path,
    size_t pathlen)
{
	struct dirent *fe;
	DIR *fds;
	bool hit = false;

	snprintf(path, pathlen, "/proc/%ld/ns/net", pid);
	if (want_net != NULL && netns_link_is(path, want_net))
		return want_net;
	if (want_pipe == NULL)
		return NULL;
	snprintf(path, pathlen, "/proc/%ld/fd", pid);
	if ((fds = opendir(path)) == NULL)
		return NULL;
	while (!hit && (fe = readdir(fds)) != NULL) {
		if (fe->d_name[0] == '.')
			continue;
		snprintf(path, pathlen, "/proc/%ld/fd/%s", pid, fe->d_name);
		hit = netns_link_is(path, want_pipe) && !netns_fd_write_only(pid, fe->d_name);
	}
	closedir(fds);
	return hit ? want_pipe : NULL;
}

/* One pass over /proc; the number of processes signalled. */
static unsigned
netns_sweep_pass(const char *want_net, const char *want_pipe)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *proc;
	pid_t self = getpid();
	unsigned killed = 0;

	if ((proc = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(proc)) != NULL) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		const char *mark;
		int pidfd;

		if (*end != '\0' || pid <= 0 || pid == self ||
		    (mark = netns_of_run(pid, want_net, want_pipe, path, sizeof(path))) == NULL ||
		    (pidfd = (int)syscall(SYS_pidfd_open, (pid_t)pid, 0)) == -1)
			continue;
		/* Still the same process (the pidfd pins it): does it still carry it? */
		if (netns_link_is(path, mark) &&
		    syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0) == 0)
			killed++;
		close(pidfd);
	}
	closedir(proc);
	return killed;
}

static void
netns_sweep(unsigned long net_ino, unsigned long pipe_ino)
{
	char want_net[64], want_pipe[64];
	int pass;

	snprintf(want_net, sizeof(want_net), "net:[%lu]", net_ino);
	snprintf(want_pipe, sizeof(want_pipe), "pipe:[%lu]", pipe_ino);
	/* A killed process keeps its marks until it has exited: give it a moment before
	 * the next pass rather than signalling it again at once. */
	for (pass = 0; pass < 50; pass++) {
		if (netns_sweep_pass(net_ino != 0 ? want_net : NULL,
		    pipe_ino != 0 ? want_pipe : NULL) == 0)
			break;
		usleep(2000);
	}
}

/* The keeper: set the namespace up, report, then wait for the launcher to go. */
static noreturn void
netns_keeper(int sock, int lifeline, int sandbox_r, unsigned long sandbox_ino)
{
	struct netns_msg m;
	struct strlist placeholders = { 0 };
	char *tmpdir = NULL;
	int fds[LS_MAX + 2];
	size_t nfds = 0;
	int i, fd, devnull, sent;
	bool sandbox_gone = false;
	unsigned long net_ino = 0;
	struct stat nst;
	char c;
	pid_t launcher = getppid();

	spawn_child_reset();
	(void)signal(SIGINT, SIG_IGN);
	(void)signal(SIGQUIT, SIG_IGN);
	(void)signal(SIGHUP, SIG_IGN);
	(void)signal(SIGTERM, SIG_IGN);
	(void)signal(SIGPIPE, SIG_IGN);
	/* Keep only the socket, the lifeline and stderr: holding the launcher's stdout
	 * would keep a reader of it waiting until the keeper is gone. */
	if ((devnull = open("/dev/null", O_RDWR | O_CLOEXEC)) != -1) {
		(void)dup2(devnull, STDIN_FILENO);
		(void)dup2(devnull, STDOUT_FILENO);
	}
	{
		/* The sandbox lifeline's read end too: held until we exit, it keeps the
		 * pipe, and so its inode number, from being reused by another run's pipe
		 * while netns_sweep looks for it. */
		int keep[3] = { sock, lifeline, sandbox_r };

		spawn_arrange_fds(keep, 3, -1);
		sock = 3;
		lifeline = 4;
	}

	/*
	 * The run's temp directory is made here, by the janitor that removes it, and its
	 * name is the first message: however early the launcher is killed, no directory
	 * exists that nobody will remove. The launcher reads it (netns_tmpdir) when it
	 * first needs it; "" says it could not be made (the reason is on stderr).
	 */
	if (tmp_create(&tmpdir) == -1)
		tmpdir = NULL;
	(void)send(sock, tmpdir != NULL ? tmpdir : "", tmpdir != NULL ? strlen(tmpdir) + 1 : 1,
	    MSG_NOSIGNAL);

	memset(&m, 0, sizeof(m));
	if (netns_unshare(m.why, sizeof(m.why)) == -1 ||
	    netns_loopback_up(m.why, sizeof(m.why)) == -1)
		goto report;
	for (i = 0; i < LS_MAX; i++) {
		char why[sizeof(m.why)];

		fd = netns_listen_one(netns_listen[i].family, netns_listen[i].port, why,
		    sizeof(why));
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
	/* The sandbox's namespace, by which netns_sweep knows its processes. */
	if (fstat(fd, &nst) == 0)
		net_ino = (unsigned long)nst.st_ino;
	if (geteuid() != 0) {
		if ((fd = open("/proc/self/ns/user", O_RDONLY | O_CLOEXEC)) == -1) {
			snprintf(m.why, sizeof(m.why), "/proc/self/ns/user: %s",
			    strerror(errno));
			goto report;
		}
		fds[nfds++] = fd;
		m.have_userns = 1;
	}
	m.ok = 1;
 report:
	/*
	 * The keeper is started before the launcher has read its policy, so the launcher
	 * may be gone already (a bad settings file, a signal): then the send fails, with
	 * EPIPE rather than SIGPIPE, and the keeper goes on to its janitor's work all the
	 * same, as it does when the namespace could not be set up.
	 */
	sent = fdpass_send(sock, &m, sizeof(m), fds, m.ok ? nfds : 0) == 0;
	while (nfds > 0)
		close(fds[--nfds]);
	/* The launcher builds the plan meanwhile and sends its placeholders, one per
	 * message, then closes the socket. */
	for (; sent && m.ok;) {
		char path[PATH_MAX];
		ssize_t n = recv(sock, path, sizeof(path) - 1, 0);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		path[n] = '\0';
		strlist_push(&placeholders, path);
	}
	close(sock);

	/* Janitor: wait until every write end of the lifeline is gone. A launcher that
	 * ends normally says first, with a "d", that no sandbox is left to look for. */
	for (;;) {
		ssize_t n = read(lifeline, &c, 1);

		if (n == 1 && c == 'd') {
			sandbox_gone = true;
			continue;
		}
		if (n == 0 || (n == -1 && errno != EINTR))
			break;
	}
	/*
	 * Our lifeline ends as the launcher's descriptors close, a moment before the
	 * kernel sends its children (bwrap) their death signal; in that moment bwrap may
	 * still start its child. Once we are reparented that signal has been sent and no
	 * new process of the run can appear: sweep only then (at most a second later).
	 */
	for (i = 0; i < 1000 && getppid() == launcher; i++)
		usleep(1000);
	if (!sandbox_gone)
		netns_sweep(net_ino, sandbox_ino);
	/* If the launcher was killed, the sandbox is dying with it (bwrap's
	 * --die-with-parent) and may still write for a moment: retry a few times. */
	for (i = 0; i < 5; i++) {
		struct plan_linux pl;
		struct stat st;

		memset(&pl, 0, sizeof(pl));
		pl.placeholders = placeholders;
		plan_linux_cleanup(&pl);
		tmp_remove(tmpdir);
		if (tmpdir == NULL || lstat(tmpdir, &st) == -1)
			break;
		usleep(100 * 1000);
	}
	_exit(0);
}

int
netns_create(struct launch *l)
{
	int sp[2], kl[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) == -1) {
		log_warn("socketpair");
		return -1;
	}
	if (pipe2(kl, O_CLOEXEC) == -1) {
		log_warn("pipe");
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("fork");
		close(sp[0]);
		close(sp[1]);
		close(kl[0]);
		close(kl[1]);
		return -1;
	}
	if (pid == 0)
		netns_keeper(sp[1], kl[0], l->sandbox_lifeline_r, l->sandbox_lifeline_ino);
	close(sp[1]);
	close(kl[0]);
	l->keeper_pid = pid;
	l->keeper_lifeline = kl[1];
	l->keeper_sock = sp[0];
	return 0;
}

/* The keeper's report: the listening sockets and the namespaces, or why it failed. */
int
netns_collect(struct launch *l)
{
	struct netns_msg m;
	int fds[LS_MAX + 2];
	size_t got, nfds, k = 0;
	int i;

	memset(&m, 0, sizeof(m));
	if (fdpass_recv(l->keeper_sock, &m, sizeof(m), &got, fds, LS_MAX + 2, &nfds) == -1 ||
	    got != sizeof(m)) {
		log_warnx("network namespace: the child failed without a report");
		return -1;
	}
	m.why[sizeof(m.why) - 1] = '\0';
	if (!m.ok) {
		log_warnx("network namespace: %s", m.why);
		return -1;
	}
	for (i = 0; i < LS_MAX; i++)
		l->listen_fd[i] = (m.slots & (1u << i)) && k < nfds ? fds[k++] : -1;
	if (k >= nfds || nfds - k != (size_t)(m.have_userns ? 2 : 1)) {
		log_warnx("network namespace: malformed report from the child");
		while (nfds > 0)
			close(fds[--nfds]);
		return -1;
	}
	l->netns_fd = fds[k++];
	l->userns_fd = m.have_userns ? fds[k++] : -1;
	log_debug("network namespace ready: loopback up, listening on 3128 and 1080%s",
	    m.slots == 0xf ? " (IPv4 and IPv6)" : " (IPv4 only)");
	return 0;
}

/*
 * The run's temp directory, made by the keeper (netns_keeper): its first message. -1
 * when it could not be made (the keeper said why) or the keeper is gone; quiet keeps
 * this function from adding a message of its own (the clean-up path).
 */
int
netns_tmpdir(struct launch *l, bool quiet)
{
	char path[PATH_MAX + 1];
	ssize_t n;

	if (l->tmpdir != NULL)
		return 0;
	if (l->keeper_sock == -1)
		return -1;
	while ((n = recv(l->keeper_sock, path, sizeof(path) - 1, 0)) == -1 && errno == EINTR)
		;
	if (n <= 0) {
		if (!quiet)
			log_warnx("network namespace: the child ended without making the "
			    "temp directory");
		return -1;
	}
	path[n] = '\0';
	if (path[0] != '/')
		return -1;
	l->tmpdir = xstrdup(path);
	return 0;
}

/* Tell the keeper which placeholders bwrap may create, then close the socket. */
void
netns_send_plan(struct launch *l)
{
	size_t i;

	for (i = 0; l->plan_built && i < l->plan.placeholders.n; i++) {
		const char *p = l->plan.placeholders.v[i];

		if (send(l->keeper_sock, p, strlen(p), MSG_NOSIGNAL) == -1) {
			log_warn("cannot hand the placeholders to the keeper");
			break;
		}
	}
	fd_close(&l->keeper_sock);
}
