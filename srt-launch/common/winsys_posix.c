/*
 * winsys.h in POSIX: the Windows launch path run on Linux by its tests, and the
 * listeners, anonymous file and spawn of the macOS path. POSIX calls only (make
 * macos-compile checks it as a Mac sees it).
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "exit.h"
#include "log.h"
#include "proxy_listen.h"
#include "util.h"
#include "winsys.h"

#define INHERIT_MAX 16

struct ws_proc {
	pid_t pid;
	int status; /* SPEC §2, once done */
	bool done;
};

static const int term_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };

/* The self-pipe the handler writes to, and the request that came. */
static int sig_r = -1;
static volatile sig_atomic_t sig_w = -1;
static volatile sig_atomic_t term_sig;

static int
set_cloexec(int fd)
{
	int f = fcntl(fd, F_GETFD);

	return f == -1 ? -1 : fcntl(fd, F_SETFD, f | FD_CLOEXEC);
}

static void
on_signal(int sig)
{
	int e = errno;
	unsigned char c = (unsigned char)sig;

	if (sig != SIGCHLD && term_sig == 0)
		term_sig = sig;
	if (sig_w != -1)
		(void)!write((int)sig_w, &c, 1);
	errno = e;
}

int
ws_init(void)
{
	struct sigaction sa;
	int p[2];
	size_t i;

	if (pipe(p) == -1 || set_cloexec(p[0]) == -1 || set_cloexec(p[1]) == -1) {
		log_warn("pipe");
		return -1;
	}
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(p[1], F_SETFL, O_NONBLOCK);
	sig_r = p[0];
	sig_w = p[1];
	term_sig = 0;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	for (i = 0; i < sizeof(term_sigs) / sizeof(term_sigs[0]); i++)
		(void)sigaction(term_sigs[i], &sa, NULL);
	sa.sa_flags |= SA_NOCLDSTOP;
	(void)sigaction(SIGCHLD, &sa, NULL);
	sa.sa_handler = SIG_IGN;
	(void)sigaction(SIGPIPE, &sa, NULL);
	return 0;
}

/* The dispositions ws_init changed, back to their defaults (SIGPIPE too with pipe). */
static void
signals_default(bool pipe_too)
{
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(term_sigs) / sizeof(term_sigs[0]); i++)
		(void)sigaction(term_sigs[i], &sa, NULL);
	(void)sigaction(SIGCHLD, &sa, NULL);
	if (pipe_too)
		(void)sigaction(SIGPIPE, &sa, NULL);
}

int
ws_signal_fd(void)
{
	return sig_r;
}

void
ws_fini(void)
{
	int w = (int)sig_w;

	signals_default(false);
	sig_w = -1;
	if (w != -1)
		close(w);
	if (sig_r != -1)
		close(sig_r);
	sig_r = -1;
}

/* --- listeners and files ------------------------------------------------------------- */

static int
listen_on(int family, int port, int *fd_out)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, e;

	if ((fd = socket(family, SOCK_STREAM, 0)) == -1)
		return -1;
	if (set_cloexec(fd) == -1)
		goto fail;
	if (family == AF_INET6)
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	len = proxy_listen_loopback(family, (uint16_t)port, &ss);
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 || listen(fd, 128) == -1)
		goto fail;
	*fd_out = fd;
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

int
ws_listen_loopback(int *port, ws_handle *v4, ws_handle *v6)
{
	struct sockaddr_in s4;
	socklen_t len = sizeof(s4);
	int fd4, fd6;

	*v4 = *v6 = WS_NONE;
	if (listen_on(AF_INET, *port, &fd4) == -1) {
		if (errno == EADDRINUSE)
			return 1;
		log_warn("listen on 127.0.0.1:%d", *port);
		return -1;
	}
	if (*port == 0) {
		if (getsockname(fd4, (struct sockaddr *)&s4, &len) == -1) {
			log_warn("getsockname");
			close(fd4);
			return -1;
		}
		*port = ntohs(s4.sin_port);
	}
	if (listen_on(AF_INET6, *port, &fd6) == -1) {
		int e = errno;

		if (e == EAFNOSUPPORT || e == EADDRNOTAVAIL) {
			*v4 = fd4; /* no IPv6 loopback here */
			return 0;
		}
		close(fd4);
		if (e == EADDRINUSE)
			return 1;
		errno = e;
		log_warn("listen on [::1]:%d", *port);
		return -1;
	}
	*v4 = fd4;
	*v6 = fd6;
	return 0;
}

int
ws_listen_carrier(ws_handle lis, ws_handle *carrier)
{
	int fd = fcntl((int)lis, F_DUPFD_CLOEXEC, 3);

	if (fd == -1) {
		log_warn("listener %ld", lis);
		return -1;
	}
	*carrier = fd;
	return 0;
}

int
ws_pipe(ws_handle *r, ws_handle *w)
{
	int p[2];

	if (pipe(p) == -1 || set_cloexec(p[0]) == -1 || set_cloexec(p[1]) == -1) {
		log_warn("pipe");
		return -1;
	}
	(void)fcntl(p[0], F_SETFL, O_NONBLOCK);
	*r = p[0];
	*w = p[1];
	return 0;
}

long
ws_read(ws_handle h, void *buf, size_t len)
{
	ssize_t n;

	while ((n = read((int)h, buf, len)) == -1 && errno == EINTR)
		;
	if (n >= 0)
		return (long)n;
	return errno == EAGAIN || errno == EWOULDBLOCK ? -1 : -2;
}

void
ws_close(ws_handle *h)
{
	if (*h != WS_NONE)
		(void)close((int)*h);
	*h = WS_NONE;
}

char *
ws_temp_dir(void)
{
	const char *base = getenv("TMPDIR");
	struct stat st;

	if (base == NULL || base[0] != '/' || stat(base, &st) == -1 || !S_ISDIR(st.st_mode))
		base = "/tmp";
	return realpath(base, NULL);
}

static int
write_all(int fd, const void *data, size_t len)
{
	const unsigned char *p = data;
	size_t off = 0;

	while (off < len) {
		ssize_t n = write(fd, p + off, len - off);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		off += (size_t)n;
	}
	return 0;
}

/* mkstemp in the temp directory: the descriptor, the name in *path. */
static int
tmp_create(const char *prefix, char **path)
{
	char *base = ws_temp_dir();
	int fd;

	if (base == NULL) {
		log_warn("temp directory");
		return -1;
	}
	*path = xasprintf("%s/%sXXXXXX", strcmp(base, "/") == 0 ? "" : base, prefix);
	free(base);
	if ((fd = mkstemp(*path)) == -1) {
		log_warn("mkstemp %s", *path);
		free(*path);
		*path = NULL;
	}
	return fd;
}

int
ws_anon_file(const void *data, size_t len, ws_handle *h)
{
	char *path;
	int fd, rc = -1;

	if ((fd = tmp_create("srt-anon.", &path)) == -1)
		return -1;
	(void)unlink(path);
	if (write_all(fd, data, len) == -1 || lseek(fd, 0, SEEK_SET) == -1 ||
	    set_cloexec(fd) == -1) {
		log_warn("write %s", path);
		close(fd);
		goto out;
	}
	*h = fd;
	rc = 0;
out:
	free(path);
	return rc;
}

int
ws_private_file(const char *prefix, const void *data, size_t len, char **path)
{
	int fd;

	if ((fd = tmp_create(prefix, path)) == -1)
		return -1;
	if (write_all(fd, data, len) == -1 || close(fd) == -1) {
		log_warn("write %s", *path);
		(void)unlink(*path);
		free(*path);
		*path = NULL;
		return -1;
	}
	return 0;
}

int
ws_remove(const char *path)
{
	if (unlink(path) == -1 && errno != ENOENT) {
		log_warn("remove %s", path);
		return -1;
	}
	return 0;
}

bool
ws_executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *
ws_self_dir(void)
{
	char *real = realpath("/proc/self/exe", NULL), *slash;

	if (real == NULL || (slash = strrchr(real, '/')) == NULL) {
		log_warn("cannot find my own directory");
		free(real);
		return NULL;
	}
	slash[slash == real ? 1 : 0] = '\0';
	return real;
}

/* --- processes ----------------------------------------------------------------------- */

static bool
kept(int fd, const int *keep, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (keep[i] == fd)
			return true;
	return false;
}

/* Close every descriptor from 3 up but those in keep: the child gets what it was given. */
static void
close_others(const int *keep, size_t n)
{
	struct rlimit rl;
	long max = 65536, fd;
	DIR *d;
	struct dirent *de;

	if ((d = opendir("/dev/fd")) != NULL) {
		int dfd = dirfd(d), found[1024];
		size_t nf = 0, i;

		while ((de = readdir(d)) != NULL && nf < sizeof(found) / sizeof(found[0])) {
			char *end;

			fd = strtol(de->d_name, &end, 10);
			if (*end == '\0' && end != de->d_name && fd > STDERR_FILENO &&
			    fd != dfd && !kept((int)fd, keep, n))
				found[nf++] = (int)fd;
		}
		closedir(d);
		if (de == NULL) {
			for (i = 0; i < nf; i++)
				(void)close(found[i]);
			return;
		}
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
	    rl.rlim_cur < (rlim_t)max)
		max = (long)rl.rlim_cur;
	for (fd = STDERR_FILENO + 1; fd < max; fd++)
		if (!kept((int)fd, keep, n))
			(void)close((int)fd);
}

/* In a child: the dispositions and mask srt changed, back to their defaults. */
static void
child_signals(void)
{
	sigset_t none;

	signals_default(true);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

/* In the child, after fork: never returns. The exec error goes up errfd. */
static void
child_exec(const struct ws_spawn *sp, int errfd)
{
	int keep[INHERIT_MAX + 1], devnull, e;
	size_t i, n = 0;

	child_signals();
	for (i = 0; i < sp->ninherit; i++) {
		int fd = (int)sp->inherit[i], f = fcntl(fd, F_GETFD);

		if (f == -1 || fcntl(fd, F_SETFD, f & ~FD_CLOEXEC) == -1)
			goto fail;
		keep[n++] = fd;
	}
	keep[n++] = errfd;
	if (sp->out != WS_NONE && dup2((int)sp->out, STDOUT_FILENO) == -1)
		goto fail;
	if (sp->null_in) {
		if ((devnull = open("/dev/null", O_RDONLY)) == -1 ||
		    dup2(devnull, STDIN_FILENO) == -1)
			goto fail;
		if (devnull > STDERR_FILENO && !kept(devnull, keep, n))
			close(devnull);
	}
	close_others(keep, n);
	if (sp->envp != NULL)
		execve(sp->argv[0], sp->argv, sp->envp);
	else
		execv(sp->argv[0], sp->argv);
fail:
	e = errno;
	(void)!write(errfd, &e, sizeof(e));
	_exit(EXIT_SELF);
}

pid_t
ws_spawn_pid(const struct ws_spawn *sp)
{
	int ep[2], err = 0;
	pid_t pid;
	ssize_t r;

	if (sp->ninherit > INHERIT_MAX) {
		log_warnx("%s: too many descriptors to pass", sp->argv[0]);
		return -1;
	}
	/* A new pipe cannot be one of the open descriptors passed on. */
	if (pipe(ep) == -1 || set_cloexec(ep[0]) == -1 || set_cloexec(ep[1]) == -1) {
		log_warn("pipe");
		return -1;
	}
	if ((pid = fork()) == -1) {
		log_warn("fork");
		close(ep[0]);
		close(ep[1]);
		return -1;
	}
	if (pid == 0)
		child_exec(sp, ep[1]);
	close(ep[1]);
	while ((r = read(ep[0], &err, sizeof(err))) == -1 && errno == EINTR)
		;
	close(ep[0]);
	if (r > 0) {
		log_warnx("%s: %s", sp->argv[0], strerror(err));
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		return -1;
	}
	return pid;
}

int
ws_spawn(const struct ws_spawn *sp, struct ws_proc **out)
{
	pid_t pid = ws_spawn_pid(sp);

	if (pid == -1)
		return -1;
	*out = xcalloc(1, sizeof(**out));
	(*out)->pid = pid;
	return 0;
}

static void
collect(struct ws_proc *p, int options)
{
	int st;
	pid_t r;

	if (p->done)
		return;
	while ((r = waitpid(p->pid, &st, options)) == -1 && errno == EINTR)
		;
	if (r != p->pid)
		return;
	p->done = true;
	p->status = WIFEXITED(st) ? WEXITSTATUS(st)
	    : WIFSIGNALED(st)     ? EXIT_SIGNALED(WTERMSIG(st))
				  : EXIT_SELF;
}

bool
ws_ended(struct ws_proc *p, int *status)
{
	collect(p, WNOHANG);
	if (p->done && status != NULL)
		*status = p->status;
	return p->done;
}

int
ws_wait(struct ws_proc *p, ws_handle h, int timeout_ms)
{
	long long deadline = timeout_ms < 0 ? 0 : ws_now_ms() + timeout_ms;

	for (;;) {
		struct pollfd pfd[2];
		nfds_t n = 0;
		unsigned char c;
		int ev = 0, left = -1;

		if (p != NULL && ws_ended(p, NULL))
			ev |= WS_EV_EXIT;
		if (term_sig != 0)
			ev |= WS_EV_TERM;
		pfd[n++] = (struct pollfd){ .fd = sig_r, .events = POLLIN };
		if (h != WS_NONE)
			pfd[n++] = (struct pollfd){ .fd = (int)h, .events = POLLIN };
		if (ev != 0)
			left = 0;
		else if (timeout_ms >= 0 && (left = (int)(deadline - ws_now_ms())) < 0)
			left = 0;
		if (poll(pfd, n, left) == -1 && errno != EINTR) {
			log_warn("poll");
			return ev | WS_EV_TERM;
		}
		while (sig_r != -1 && read(sig_r, &c, 1) == 1)
			;
		if (n > 1 && pfd[1].revents != 0)
			ev |= WS_EV_READ;
		if (ev != 0 || (timeout_ms >= 0 && ws_now_ms() >= deadline))
			return ev;
	}
}

int
ws_term_take(void)
{
	int s = term_sig;

	term_sig = 0;
	return s;
}

void
ws_forward(struct ws_proc *p, int sig)
{
	if (p != NULL && !p->done)
		(void)kill(p->pid, sig);
}

void
ws_kill(struct ws_proc *p)
{
	if (p == NULL || p->done)
		return;
	(void)kill(p->pid, SIGKILL);
	collect(p, 0);
}

void
ws_proc_free(struct ws_proc *p)
{
	if (p == NULL)
		return;
	collect(p, 0);
	free(p);
}

unsigned long
ws_self_pid(void)
{
	return (unsigned long)getpid();
}

long long
ws_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000L;
}

void
ws_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}
