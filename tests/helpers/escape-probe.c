/*
 * escape-probe: one attempt to get out of the sandbox per run, for the security
 * battery (tests/security/). It prints exactly one line and exits accordingly:
 *	BLOCKED <why>		exit 0: the attempt was refused (or reached nothing)
 *	ESCAPED <what>		exit 1: the attempt got through
 *	usage errors and broken set-ups exit 2 with a message on stderr.
 *
 * usage: escape-probe PROBE [ARGS...]
 *	ptrace PID [MARKER]	PTRACE_ATTACH (detached again at once)
 *	proc-mem PID [MARKER]	open /proc/PID/mem read-only (nothing is read)
 *	proc-fd PID [MARKER]	open what /proc/PID/fd holds beyond 0, 1 and 2
 *	kill0 PID MARKER	kill(PID, 0) on a process whose cmdline holds MARKER
 *	signal PID MARKER	kill(PID, SIGCONT)
 *	proc-scan MARKER	look through /proc for a process whose cmdline holds MARKER
 *	tiocsti			TIOCSTI and TIOCLINUX on fds 0-2 and /dev/tty
 *	fds			any descriptor beyond 0, 1 and 2
 *	read PATH MARKER	read PATH, look for MARKER
 *	link SRC DST MARKER	hard-link SRC to DST, read DST (DST is left for the test)
 *	symlink TGT LNK MARKER	symlink LNK -> TGT, read through LNK (LNK is left)
 *	handle PATH		name_to_handle_at(PATH), then open_by_handle_at
 *	rename FROM TO		rename(2) (renamed back at once if it worked)
 *	userns			unshare, clone and clone3 with CLONE_NEWUSER
 *	tcp ADDR PORT BANNER	connect to a numeric address, wait for BANNER
 *	udp ADDR PORT BANNER	send one DNS query, wait for a reply holding BANNER
 *	unix PATH		connect to a Unix socket (@NAME: abstract)
 *	pidfd-getfd PID [MARKER] take a descriptor from PID with pidfd_getfd
 *	keyring DESC MARKER	find the "user" key DESC in the session and user keyrings
 *				and read it
 *	sysv-shm KEY MARKER	attach the System V shared memory segment KEY read-only
 *	shm-create KEY PAYLOAD	not a probe: make segment KEY (mode 0600) holding PAYLOAD,
 *				print its id (the test removes it with ipcrm)
 *	keyring-session DESC PAYLOAD CMD [ARGS...]
 *				not a probe: join a new anonymous session keyring, add
 *				the "user" key DESC holding PAYLOAD to it, exec CMD (the
 *				test's own keyring, so nothing of the user's is exposed)
 *
 * A MARKER is a random string the test put in the target (a file's content, an
 * outside process's argv), so that a pid or a path that means something else
 * inside the sandbox is never taken for the target. For the process probes it is
 * given with one '+' inside, which is removed before the search: the probe's own
 * command line (and its shell's) then never matches.
 *
 * Every probe is harmless if it ever gets through: ptrace detaches at once, /proc/PID/mem
 * is opened and closed, the only signal sent is SIGCONT and only to the pid given
 * (after its MARKER was checked where the pid is visible), TIOCSTI pushes a '#' into a
 * terminal the test created, a rename is undone, links are made in the test's own
 * directory, network probes carry one small request to a server the test runs.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/ptrace.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/keyctl.h>

#include "log.h"
#include "util.h"

#define READMAX 65536
#define NETWAIT_MS 3000

/* clone3's argument block, version 0 (64 bytes). */
struct probe_clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
};

static noreturn void blocked(const char *fmt, ...) SRT_PRINTF(1, 2);
static noreturn void escaped(const char *fmt, ...) SRT_PRINTF(1, 2);

static noreturn void
verdict(const char *word, int status, const char *fmt, va_list ap)
{
	printf("%s ", word);
	vprintf(fmt, ap);
	printf("\n");
	fflush(stdout);
	exit(status);
}

static noreturn void
blocked(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict("BLOCKED", 0, fmt, ap);
}

static noreturn void
escaped(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verdict("ESCAPED", 1, fmt, ap);
}

static const char *
ename(int e)
{
	const char *n = strerrorname_np(e);

	return n != NULL ? n : "E?";
}

static pid_t
pid_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v < 1 || v > 4194304)
		fatalx("%s: not a pid", s);
	return (pid_t)v;
}

/*
 * Reads up to len - 1 bytes of a file and NUL-terminates them; returns the byte
 * count, or -1 with errno when the file cannot be opened or read at all.
 */
static ssize_t
file_slurp(const char *path, char *buf, size_t len)
{
	ssize_t n = 0, got = 0;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) == -1)
		return -1;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += n;
	e = errno;
	if (n == -1 && got == 0) {
		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

/* Whether a byte string of length n holds the NUL-free string needle. */
static int
contains(const char *hay, size_t n, const char *needle)
{
	return memmem(hay, n, needle, strlen(needle)) != NULL;
}

/*
 * Whether /proc/PID/cmdline (as this process sees it) holds MARKER. -1 when it
 * cannot be read at all (no such process here).
 */
static int
pid_has_marker(pid_t pid, const char *marker)
{
	char path[64], buf[4096], needle[256];
	const char *plus;
	ssize_t n;

	if ((plus = strchr(marker, '+')) == NULL || strlen(marker) >= sizeof(needle))
		fatalx("%s: a process marker needs one '+' inside", marker);
	snprintf(needle, sizeof(needle), "%.*s%s", (int)(plus - marker), marker, plus + 1);
	snprintf(path, sizeof(path), "/proc/%ld/cmdline", (long)pid);
	if ((n = file_slurp(path, buf, sizeof(buf))) == -1)
		return -1;
	return contains(buf, (size_t)n, needle);
}

/*
 * A pid inside our pid namespace that is not the target is one of the sandbox's own
 * processes: acting on it proves nothing, so the probe stops there.
 */
static void
target_check(pid_t pid, const char *marker)
{
	if (marker != NULL && pid_has_marker(pid, marker) == 0)
		blocked(
		    "pid %ld is another process in this namespace, not the target", (long)pid);
}

static noreturn void
probe_ptrace(pid_t pid, const char *marker)
{
	int status;

	target_check(pid, marker);
	if (ptrace(PTRACE_ATTACH, pid, NULL, NULL) == -1)
		blocked("PTRACE_ATTACH %ld: %s", (long)pid, ename(errno));
	/* Let the attach-stop arrive, then let go: the target goes on as before. */
	waitpid(pid, &status, __WALL);
	ptrace(PTRACE_DETACH, pid, NULL, NULL);
	escaped("PTRACE_ATTACH %ld succeeded", (long)pid);
}

static noreturn void
probe_procmem(pid_t pid, const char *marker)
{
	char path[64];
	int fd;

	target_check(pid, marker);
	snprintf(path, sizeof(path), "/proc/%ld/mem", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		blocked("open %s: %s", path, ename(errno));
	close(fd);
	escaped("opened %s", path);
}

static noreturn void
probe_procfd(pid_t pid, const char *marker)
{
	char dir[64], path[320], link[256];
	struct dirent *de;
	ssize_t n;
	DIR *d;
	int fd;

	target_check(pid, marker);
	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
	if ((d = opendir(dir)) == NULL)
		blocked("opendir %s: %s", dir, ename(errno));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || atoi(de->d_name) <= 2)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if ((n = readlink(path, link, sizeof(link) - 1)) == -1)
			continue;
		link[n] = '\0';
		if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) == -1)
			continue;
		close(fd);
		closedir(d);
		escaped("opened %s -> %s", path, link);
	}
	closedir(d);
	blocked("nothing beyond fds 0-2 of pid %ld could be opened", (long)pid);
}

static noreturn void
probe_kill0(pid_t pid, const char *marker)
{
	target_check(pid, marker);
	if (kill(pid, 0) == -1)
		blocked("kill(%ld, 0): %s", (long)pid, ename(errno));
	escaped("kill(%ld, 0) succeeded", (long)pid);
}

/*
 * SIGCONT is the one signal sent: it does nothing to a running process, and the
 * test's target records its arrival. There is no kill(-1) broadcast: were the
 * sandbox to fail, that would reach every process on the host.
 */
static noreturn void
probe_signal(pid_t pid, const char *marker)
{
	target_check(pid, marker);
	if (kill(pid, SIGCONT) == -1)
		blocked("kill(%ld, SIGCONT): %s", (long)pid, ename(errno));
	escaped("kill(%ld, SIGCONT) succeeded", (long)pid);
}

static noreturn void
probe_procscan(const char *marker)
{
	struct dirent *de;
	DIR *d;
	char *end;
	long pid;
	int n = 0;

	if ((d = opendir("/proc")) == NULL)
		blocked("opendir /proc: %s", ename(errno));
	while ((de = readdir(d)) != NULL) {
		pid = strtol(de->d_name, &end, 10);
		if (*end != '\0' || pid <= 0)
			continue;
		n++;
		if (pid_has_marker((pid_t)pid, marker) == 1) {
			closedir(d);
			escaped("outside process visible as pid %ld", pid);
		}
	}
	closedir(d);
	blocked("%d processes visible, none of them the target", n);
}

static int
sti_try(int fd, char *what, size_t len)
{
	char c = '#';
	char sub = 7; /* TIOCL_GETSHIFTSTATE: a read-only subcode */

	if (!isatty(fd))
		return 0;
	if (ioctl(fd, TIOCSTI, &c) == 0) {
		snprintf(what, len, "TIOCSTI on fd %d", fd);
		return 1;
	}
	if (ioctl(fd, TIOCLINUX, &sub) == 0) {
		snprintf(what, len, "TIOCLINUX on fd %d", fd);
		return 1;
	}
	return 0;
}

static noreturn void
probe_tiocsti(void)
{
	char what[64];
	int fd, ttys = 0;

	for (fd = 0; fd <= 2; fd++) {
		ttys += isatty(fd);
		if (sti_try(fd, what, sizeof(what)))
			escaped("%s succeeded", what);
	}
	/* With setsid there is no controlling terminal to open. */
	if ((fd = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)) != -1) {
		if (sti_try(fd, what, sizeof(what)))
			escaped("%s (/dev/tty) succeeded", what);
		close(fd);
		escaped("/dev/tty opened: the sandbox kept a controlling terminal");
	}
	if (ttys == 0)
		fatalx("none of fds 0-2 is a terminal: the test must give one");
	blocked(
	    "TIOCSTI/TIOCLINUX refused on %d terminal fds, /dev/tty: %s", ttys, ename(errno));
}

static noreturn void
probe_fds(void)
{
	char path[64], link[256], list[1024] = "";
	struct dirent *de;
	DIR *d;
	ssize_t n;
	int fd, self;

	if ((d = opendir("/proc/self/fd")) == NULL)
		fatal("opendir /proc/self/fd");
	self = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd <= 2 || fd == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		if ((n = readlink(path, link, sizeof(link) - 1)) == -1)
			n = 0;
		link[n] = '\0';
		snprintf(list + strlen(list), sizeof(list) - strlen(list), " %d->%s", fd, link);
	}
	closedir(d);
	if (*list != '\0')
		escaped("descriptors leaked into the command:%s", list);
	blocked("only fds 0-2 are open");
}

static noreturn void
probe_read(const char *path, const char *marker)
{
	static char buf[READMAX];
	ssize_t n;

	if ((n = file_slurp(path, buf, sizeof(buf))) == -1)
		blocked("read %s: %s", path, ename(errno));
	if (contains(buf, (size_t)n, marker))
		escaped("read the secret through %s", path);
	blocked("%s gave %zd bytes without the secret", path, n);
}

static noreturn void
probe_link(const char *src, const char *dst, const char *marker)
{
	static char buf[READMAX];
	ssize_t n;

	if (link(src, dst) == -1)
		blocked("link %s: %s", src, ename(errno));
	if ((n = file_slurp(dst, buf, sizeof(buf))) != -1 && contains(buf, (size_t)n, marker))
		escaped("read the secret through the hard link %s", dst);
	blocked("link made, but %s does not show the secret", dst);
}

static noreturn void
probe_symlink(const char *target, const char *lnk, const char *marker)
{
	static char buf[READMAX];
	ssize_t n;

	if (symlink(target, lnk) == -1)
		fatal("symlink %s", lnk);
	if ((n = file_slurp(lnk, buf, sizeof(buf))) == -1)
		blocked("read through %s: %s", lnk, ename(errno));
	if (contains(buf, (size_t)n, marker))
		escaped("read the secret through the symlink %s", lnk);
	blocked("%s gave %zd bytes without the secret", lnk, n);
}

/*
 * open_by_handle_at needs CAP_DAC_READ_SEARCH; with it, handles can be forged for
 * any inode of the filesystem, whatever is mounted over the path (the "shocker"
 * escape). PATH is a file the sandbox may read, so the lookup itself succeeds.
 */
static noreturn void
probe_handle(const char *path)
{
	/* Static, not malloc'd: the verdicts exit() at once, and LeakSanitizer would
	 * report a heap block still held then (when no register happened to point at it). */
	static union {
		struct file_handle fh;
		char room[sizeof(struct file_handle) + MAX_HANDLE_SZ];
	} h;
	struct file_handle *fh = &h.fh;
	int mount_id, fd, mfd;

	fh->handle_bytes = MAX_HANDLE_SZ;
	if (name_to_handle_at(AT_FDCWD, path, fh, &mount_id, 0) == -1)
		blocked("name_to_handle_at %s: %s", path, ename(errno));
	if ((mfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fatal("open /");
	if ((fd = open_by_handle_at(mfd, fh, O_RDONLY | O_CLOEXEC)) == -1)
		blocked("open_by_handle_at: %s", ename(errno));
	close(fd);
	escaped("open_by_handle_at opened a file by handle");
}

static noreturn void
probe_rename(const char *from, const char *to)
{
	if (rename(from, to) == -1)
		blocked("rename %s: %s", from, ename(errno));
	if (rename(to, from) == -1)
		log_warn("rename %s back to %s", to, from);
	escaped("renamed %s to %s (and back)", from, to);
}

/* A child that exits at once: reaped here. */
static int
child_reap(long pid)
{
	int status;

	if (pid == -1)
		return -1;
	if (pid == 0)
		_exit(0);
	waitpid((pid_t)pid, &status, 0);
	return 0;
}

static noreturn void
probe_userns(void)
{
	struct probe_clone_args ca;
	int e1, e2, e3;
	pid_t pid;
	int status;

	/* unshare changes the caller, so it runs in a child. */
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0)
		_exit(unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
	if (waitpid(pid, &status, 0) == -1 || !WIFEXITED(status))
		fatalx("unshare child did not exit");
	if ((e1 = WEXITSTATUS(status)) == 0)
		escaped("unshare(CLONE_NEWUSER) succeeded");
	if (child_reap(syscall(SYS_clone, (unsigned long)(CLONE_NEWUSER | SIGCHLD), 0UL, NULL,
		NULL, 0UL)) == 0)
		escaped("clone(CLONE_NEWUSER) succeeded");
	e2 = errno;
	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_NEWUSER;
	ca.exit_signal = SIGCHLD;
	if (child_reap(syscall(SYS_clone3, &ca, sizeof(ca))) == 0)
		escaped("clone3(CLONE_NEWUSER) succeeded");
	e3 = errno;
	blocked("unshare: %s, clone: %s, clone3: %s", ename(e1), ename(e2), ename(e3));
}

/* A numeric IPv4 or IPv6 address and port; exits 2 on anything else. */
static socklen_t
addr_parse(const char *host, const char *port, struct sockaddr_storage *ss)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	char *end;
	long p;

	p = strtol(port, &end, 10);
	if (*port == '\0' || *end != '\0' || p < 1 || p > 65535)
		fatalx("%s: not a port", port);
	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)p);
		return sizeof(*sin);
	}
	if (inet_pton(AF_INET6, host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)p);
		return sizeof(*sin6);
	}
	fatalx("%s: not a numeric address", host);
}

/* Waits up to NETWAIT_MS for data on fd; returns what arrived (0 for nothing). */
static ssize_t
net_wait(int fd, char *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;

	if (poll(&pfd, 1, NETWAIT_MS) <= 0)
		return 0;
	if ((n = recv(fd, buf, len - 1, 0)) <= 0)
		return 0;
	buf[n] = '\0';
	return n;
}

static noreturn void
probe_tcp(const char *host, const char *port, const char *banner)
{
	struct sockaddr_storage ss;
	struct pollfd pfd;
	char buf[512];
	socklen_t sl, el = sizeof(int);
	ssize_t n;
	int fd, err = 0;

	sl = addr_parse(host, port, &ss);
	if ((fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0)) == -1)
		blocked("socket: %s", ename(errno));
	if (connect(fd, (struct sockaddr *)&ss, sl) == -1) {
		if (errno != EINPROGRESS)
			blocked("connect %s port %s: %s", host, port, ename(errno));
		pfd.fd = fd;
		pfd.events = POLLOUT;
		if (poll(&pfd, 1, NETWAIT_MS) <= 0)
			blocked("connect %s port %s: timed out", host, port);
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) == -1 || err != 0)
			blocked("connect %s port %s: %s", host, port, ename(err ? err : errno));
	}
	n = net_wait(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && contains(buf, (size_t)n, banner))
		escaped("connected to the outside server at %s port %s", host, port);
	blocked(
	    "connected to %s port %s inside the sandbox, not the outside server", host, port);
}

static noreturn void
probe_udp(const char *host, const char *port, const char *banner)
{
	/* A DNS query for "srt-probe.test" IN A, id 0x5254. */
	static const unsigned char query[] = {
		0x52,
		0x54,
		0x01,
		0x00,
		0x00,
		0x01,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		0x00,
		9,
		's',
		'r',
		't',
		'-',
		'p',
		'r',
		'o',
		'b',
		'e',
		4,
		't',
		'e',
		's',
		't',
		0,
		0x00,
		0x01,
		0x00,
		0x01,
	};
	struct sockaddr_storage ss;
	char buf[512];
	socklen_t sl;
	ssize_t n;
	int fd;

	sl = addr_parse(host, port, &ss);
	if ((fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		blocked("socket: %s", ename(errno));
	if (sendto(fd, query, sizeof(query), 0, (struct sockaddr *)&ss, sl) == -1)
		blocked("sendto %s port %s: %s", host, port, ename(errno));
	n = net_wait(fd, buf, sizeof(buf));
	close(fd);
	if (n > 0 && contains(buf, (size_t)n, banner))
		escaped("the outside server at %s port %s answered", host, port);
	blocked("no answer from the outside server at %s port %s", host, port);
}

static noreturn void
probe_unix(const char *path)
{
	struct sockaddr_un sun;
	socklen_t sl;
	size_t len = strlen(path);
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (len == 0 || len >= sizeof(sun.sun_path))
		fatalx("%s: bad socket path", path);
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = '\0'; /* abstract name */
	sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		blocked("socket(AF_UNIX): %s", ename(errno));
	if (connect(fd, (struct sockaddr *)&sun, sl) == -1)
		blocked("connect %s: %s", path, ename(errno));
	close(fd);
	escaped("connected to the Unix socket %s", path);
}

static noreturn void
probe_pidfd_getfd(pid_t pid, const char *marker)
{
	long pfd, fd;
	int n;

	target_check(pid, marker);
	if ((pfd = syscall(SYS_pidfd_open, pid, 0)) == -1)
		blocked("pidfd_open %ld: %s", (long)pid, ename(errno));
	for (n = 0; n < 64; n++) {
		if ((fd = syscall(SYS_pidfd_getfd, pfd, n, 0)) != -1) {
			close((int)fd);
			escaped("pidfd_getfd took fd %d of pid %ld", n, (long)pid);
		}
		if (errno != EBADF)
			break;
	}
	blocked("pidfd_getfd on pid %ld: %s", (long)pid, ename(errno));
}

/*
 * A key in the keyring of the session that started srt is readable by whoever
 * possesses that keyring: a command that inherits the session inherits the keys
 * (credentials some tools keep there).
 */
static noreturn void
probe_keyring(const char *desc, const char *marker)
{
	static const struct {
		long spec;
		const char *name;
	} rings[] = {
		{ KEY_SPEC_SESSION_KEYRING, "session" },
		{ KEY_SPEC_USER_KEYRING, "user" },
		{ KEY_SPEC_USER_SESSION_KEYRING, "user-session" },
	};
	char buf[512], why[256] = "";
	size_t i;
	long id, n;

	for (i = 0; i < sizeof(rings) / sizeof(rings[0]); i++) {
		id = syscall(SYS_keyctl, KEYCTL_SEARCH, rings[i].spec, "user", desc, 0L);
		if (id == -1) {
			snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s: %s",
			    i ? ", " : "", rings[i].name, ename(errno));
			continue;
		}
		n = syscall(SYS_keyctl, KEYCTL_READ, id, buf, (long)sizeof(buf) - 1);
		if (n >= 0 && contains(buf, (size_t)(n < (long)sizeof(buf) ? n : 0), marker))
			escaped("read the key %s from the %s keyring", desc, rings[i].name);
		snprintf(why + strlen(why), sizeof(why) - strlen(why), "%s%s: found, read: %s",
		    i ? ", " : "", rings[i].name, n >= 0 ? "no secret" : ename(errno));
	}
	blocked("%s", why);
}

static noreturn void
keyring_session(const char *desc, const char *payload, char *cmd[])
{
	if (syscall(SYS_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1)
		fatal("keyctl join session keyring");
	if (syscall(SYS_add_key, "user", desc, payload, strlen(payload),
		KEY_SPEC_SESSION_KEYRING) == -1)
		fatal("add_key %s", desc);
	execvp(cmd[0], cmd);
	fatal("%s", cmd[0]);
}

static key_t
key_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 0);
	if (errno != 0 || *s == '\0' || *end != '\0' || v <= 0 || v > 0x7fffffff)
		fatalx("%s: not a System V IPC key", s);
	return (key_t)v;
}

/* Without an IPC namespace of its own, the command shares the host's segments. */
static noreturn void
probe_sysv_shm(key_t key, const char *marker)
{
	struct shmid_ds ds;
	void *p;
	int id;

	if ((id = shmget(key, 0, 0)) == -1)
		blocked("shmget %#x: %s", (unsigned)key, ename(errno));
	if (shmctl(id, IPC_STAT, &ds) == -1)
		blocked("segment %#x is visible (id %d), IPC_STAT: %s", (unsigned)key, id,
		    ename(errno));
	if ((p = shmat(id, NULL, SHM_RDONLY)) == (void *)-1)
		blocked("segment %#x is visible (id %d), shmat: %s", (unsigned)key, id,
		    ename(errno));
	if (contains(p, ds.shm_segsz, marker))
		escaped("read the host's shared memory segment %#x", (unsigned)key);
	shmdt(p);
	blocked("segment %#x attached, no secret in it", (unsigned)key);
}

static noreturn void
shm_create(key_t key, const char *payload)
{
	size_t len = strlen(payload) + 1;
	void *p;
	int id;

	if ((id = shmget(key, len, IPC_CREAT | IPC_EXCL | 0600)) == -1)
		fatal("shmget %#x", (unsigned)key);
	if ((p = shmat(id, NULL, 0)) == (void *)-1)
		fatal("shmat");
	memcpy(p, payload, len);
	shmdt(p);
	printf("%d\n", id);
	exit(0);
}

static noreturn void
usage(void)
{
	fprintf(stderr,
	    "usage: escape-probe ptrace|proc-mem|proc-fd PID [MARKER] |"
	    " kill0|signal PID MARKER | proc-scan MARKER | tiocsti | fds |"
	    " read PATH MARKER | link SRC DST MARKER | symlink TARGET LINK MARKER |"
	    " handle PATH | rename FROM TO | userns | tcp|udp ADDR PORT BANNER |"
	    " unix PATH | pidfd-getfd PID [MARKER] | keyring DESC MARKER |"
	    " sysv-shm KEY MARKER | shm-create KEY PAYLOAD |"
	    " keyring-session DESC PAYLOAD CMD [ARGS...]\n");
	exit(2);
}

int
main(int argc, char *argv[])
{
	const char *p;
	int n;

	log_init("escape-probe", 0, 2);
	if (argc < 2)
		usage();
	p = argv[1];
	n = argc - 2;
	argv += 2;
	if (strcmp(p, "ptrace") == 0 && (n == 1 || n == 2))
		probe_ptrace(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "proc-mem") == 0 && (n == 1 || n == 2))
		probe_procmem(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "proc-fd") == 0 && (n == 1 || n == 2))
		probe_procfd(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "kill0") == 0 && n == 2)
		probe_kill0(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "signal") == 0 && n == 2)
		probe_signal(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "proc-scan") == 0 && n == 1)
		probe_procscan(argv[0]);
	if (strcmp(p, "tiocsti") == 0 && n == 0)
		probe_tiocsti();
	if (strcmp(p, "fds") == 0 && n == 0)
		probe_fds();
	if (strcmp(p, "read") == 0 && n == 2)
		probe_read(argv[0], argv[1]);
	if (strcmp(p, "link") == 0 && n == 3)
		probe_link(argv[0], argv[1], argv[2]);
	if (strcmp(p, "symlink") == 0 && n == 3)
		probe_symlink(argv[0], argv[1], argv[2]);
	if (strcmp(p, "handle") == 0 && n == 1)
		probe_handle(argv[0]);
	if (strcmp(p, "rename") == 0 && n == 2)
		probe_rename(argv[0], argv[1]);
	if (strcmp(p, "userns") == 0 && n == 0)
		probe_userns();
	if (strcmp(p, "tcp") == 0 && n == 3)
		probe_tcp(argv[0], argv[1], argv[2]);
	if (strcmp(p, "udp") == 0 && n == 3)
		probe_udp(argv[0], argv[1], argv[2]);
	if (strcmp(p, "unix") == 0 && n == 1)
		probe_unix(argv[0]);
	if (strcmp(p, "pidfd-getfd") == 0 && (n == 1 || n == 2))
		probe_pidfd_getfd(pid_arg(argv[0]), argv[1]);
	if (strcmp(p, "sysv-shm") == 0 && n == 2)
		probe_sysv_shm(key_arg(argv[0]), argv[1]);
	if (strcmp(p, "shm-create") == 0 && n == 2)
		shm_create(key_arg(argv[0]), argv[1]);
	if (strcmp(p, "keyring") == 0 && n == 2)
		probe_keyring(argv[0], argv[1]);
	if (strcmp(p, "keyring-session") == 0 && n >= 3)
		keyring_session(argv[0], argv[1], argv + 2);
	usage();
}
