/*
 * The proxies' narrowing (proxy_sandbox.h), on the real kernel: once narrowed, no file can
 * be opened, by any of the calls that open one, while the proxy's own work goes on; a
 * socket family outside the allowlist kills. The opener of -p/-s hands back its one file,
 * the file as it is now, and nothing else.
 */
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/un.h>

#include "evloop.h"
#include "log.h"
#include "proxy_connector.h"
#include "proxy_sandbox.h"
#include "tap.h"
#include "util.h"

/* Run fn in a child that narrows itself first; its wait status. */
static int
narrowed(int (*fn)(void *), void *arg)
{
	int status;
	pid_t pid = fork();

	if (pid == 0) {
		if (proxy_sandbox_enter(false) == -1)
			_exit(100);
		_exit(fn(arg));
	}
	if (pid == -1 || waitpid(pid, &status, 0) == -1)
		return -1;
	return status;
}

/* 0 when every way to open a file fails with EACCES and the rest still works. */
static int
try_opens(void *arg)
{
	struct open_how how = { .flags = O_RDONLY };
	int p[2], s;
	char c = 'x';

	(void)arg;
	if (open("/etc/hostname", O_RDONLY) != -1 || errno != EACCES)
		return 1;
	if (openat(AT_FDCWD, "/etc/passwd", O_RDONLY | O_CLOEXEC) != -1 || errno != EACCES)
		return 2;
	if (syscall(SYS_openat2, AT_FDCWD, "/etc/passwd", &how, sizeof(how)) != -1 ||
	    errno != EACCES)
		return 3;
	if (fopen("/proc/self/status", "r") != NULL)
		return 4;
	/* What a proxy does all day still works. */
	if (pipe2(p, O_CLOEXEC) == -1 || write(p[1], &c, 1) != 1 || read(p[0], &c, 1) != 1)
		return 5;
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1)
		return 6;
	close(s);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p) == -1)
		return 7;
	return 0;
}

static int
try_unix_socket(void *arg)
{
	(void)arg;
	(void)socket(AF_UNIX, SOCK_STREAM, 0);
	return 0; /* not reached: killed */
}

static void
test_narrowing(void)
{
	int st = narrowed(try_opens, NULL);

	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "narrowed: open, openat, openat2 and "
	    "fopen fail with EACCES, pipes, IP sockets and Unix socket pairs work (status %d)",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	st = narrowed(try_unix_socket, NULL);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGSYS, "narrowed: a Unix socket kills");
}

static char *
read_fd(int fd)
{
	char *text = NULL;
	size_t len;

	if (fd < 0 || read_fd_all(fd, 4096, &text, &len) != 0)
		return xstrdup("(unreadable)");
	close(fd);
	return text;
}

struct opener_case {
	struct proxy_opener *o;
	const char *path, *tmp;
};

/* In a narrowed child: the opener still reads the file, and only that file. */
static int
use_opener(void *arg)
{
	struct opener_case *c = arg;
	char *t;
	int rc = 0;

	t = read_fd(proxy_opener_open(c->o, c->path));
	if (strcmp(t, "one\n") != 0)
		rc = 1;
	free(t);
	/* Whatever path is asked for, the opener opens its own. */
	t = read_fd(proxy_opener_open(c->o, "/etc/passwd"));
	if (strcmp(t, "one\n") != 0)
		rc = 2;
	free(t);
	if (open(c->path, O_RDONLY) != -1 || errno != EACCES)
		rc = 3;
	return rc;
}

static void
test_opener(void)
{
	char dir[] = "/tmp/test_proxy_sandbox.XXXXXX", *path, *tmp, *t;
	struct opener_case c;
	struct proxy_opener *o;
	FILE *f;
	int st, fd;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	path = xasprintf("%s/policy", dir);
	tmp = xasprintf("%s/policy.new", dir);
	f = fopen(path, "w");
	fputs("one\n", f);
	fclose(f);
	if ((o = proxy_opener_start(path)) == NULL) {
		ok(0, "opener started");
		return;
	}
	c.o = o;
	c.path = path;
	c.tmp = tmp;
	f = fopen(tmp, "w");
	fputs("two\n", f);
	fclose(f);
	st = narrowed(use_opener, &c);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "a narrowed process gets its file from "
	    "the opener, and only that file (status %d)",
	    WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st));
	/* Replaced by rename: the opener opens the new one. */
	rename(tmp, path);
	t = read_fd(proxy_opener_open(o, path));
	ok(strcmp(t, "two\n") == 0, "after a rename the opener opens the new file: %.3s", t);
	free(t);
	unlink(path);
	fd = proxy_opener_open(o, path);
	ok(fd == -1 && errno == ENOENT, "a removed file: ENOENT from the opener");
	proxy_opener_free(o);
	rmdir(dir);
	free(path);
	free(tmp);
}

struct connector_case {
	struct evloop *loop;
	int fd, err, calls;
};

static void
connector_got(void *arg, int fd, int err)
{
	struct connector_case *c = arg;

	c->fd = fd;
	c->err = err;
	c->calls++;
	evloop_break(c->loop);
}

/* The connector hands back a socket connected to its path, as often as asked, and
 * ENOENT once the socket file is gone. */
static void
test_connector(void)
{
	char dir[] = "/tmp/test_proxy_sandbox.XXXXXX";
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct connector_case c = { 0 };
	struct proxy_connector *pc;
	int l, a;

	if (mkdtemp(dir) == NULL) {
		ok(0, "mkdtemp");
		return;
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/in.sock", dir);
	l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ok(l != -1 && bind(l, (struct sockaddr *)&sun, sizeof(sun)) == 0 && listen(l, 4) == 0,
	    "a listening Unix socket");
	c.loop = evloop_new();
	pc = proxy_connector_start(c.loop, sun.sun_path);
	ok(pc != NULL, "the connector starts");
	if (pc == NULL)
		goto out;
	for (int i = 0; i < 2; i++) {
		c.fd = -1;
		ok(proxy_connector_ask(pc, connector_got, &c) != NULL, "ask %d", i);
		evloop_run(c.loop);
		a = accept(l, NULL, NULL);
		ok(c.fd != -1 && a != -1 && write(c.fd, "x", 1) == 1 &&
			read(a, &sun.sun_path[0], 1) == 1 &&
			(fcntl(c.fd, F_GETFL) & O_NONBLOCK),
		    "connection %d: connected to "
		    "the path, non-blocking",
		    i);
		if (c.fd != -1)
			close(c.fd);
		if (a != -1)
			close(a);
	}
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s/in.sock", dir);
	unlink(sun.sun_path);
	c.fd = -1;
	(void)proxy_connector_ask(pc, connector_got, &c);
	evloop_run(c.loop);
	ok(c.fd == -1 && c.err == ENOENT && c.calls == 3, "the path gone: ENOENT");
	/* A cancelled request's socket is closed, its callback never runs. */
	proxy_connector_cancel(proxy_connector_ask(pc, connector_got, &c));
	(void)proxy_connector_ask(pc, connector_got, &c);
	evloop_run(c.loop);
	ok(c.calls == 4, "a cancelled request is skipped");
	proxy_connector_free(pc);
out:
	evloop_free(c.loop);
	close(l);
	rmdir(dir);
}

int
main(void)
{
	log_init("test_proxy_sandbox", 0, 1);
	test_narrowing();
	test_opener();
	test_connector();
	return tap_done();
}
