/*
 * The proxies' two pipes on the POSIX hosts, Linux (linux/proxies.c) and macOS
 * (macos/macos.c): both start srt-httpd and srt-socksd as children that write their
 * decision lines to one pipe (l->proxy.log_r, which does not block) and exit once the
 * other, their lifeline, has no writer. Made before the first proxy starts; at the end,
 * the lifeline cut and the log read to its end. Also the monotonic clock the launcher
 * keeps its deadlines by.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "launch.h"

long
launch_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* A pipe, both ends closed on exec (the launcher is one thread: no exec comes between
 * the two calls); -1 with nothing open. */
static int
proxypipes_pipe(int p[2])
{
	if (pipe(p) == -1)
		return -1;
	if (fcntl(p[0], F_SETFD, FD_CLOEXEC) == -1 || fcntl(p[1], F_SETFD, FD_CLOEXEC) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return 0;
}

/* The lifeline and the decision log, its read end not blocking. 0, or -1 with a
 * warning. */
int
proxypipes_open(struct launch *l)
{
	int lf[2], lg[2];

	if (proxypipes_pipe(lf) == -1)
		goto fail;
	if (proxypipes_pipe(lg) == -1) {
		close(lf[0]);
		close(lf[1]);
		goto fail;
	}
	l->proxy.lifeline_r = lf[0];
	l->proxy.lifeline_w = lf[1];
	l->proxy.log_r = lg[0];
	l->proxy.log_w = lg[1];
	(void)fcntl(l->proxy.log_r, F_SETFL, O_NONBLOCK);
	return 0;
fail:
	log_warn("pipe");
	return -1;
}

/* What the decision log has now, to the violations; at its end, closed. */
static void
proxypipes_drain(struct launch *l)
{
	char buf[8192];
	ssize_t n;

	while (l->proxy.log_r != -1) {
		n = read(l->proxy.log_r, buf, sizeof(buf));
		if (n > 0) {
			violations_feed(l->viol, buf, (size_t)n);
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0)
			fd_close(&l->proxy.log_r);
		return;
	}
}

/* Proxy k, once it has exited; killed (SIGKILL) when it is still there at deadline. */
static void
proxypipes_reap(struct launch *l, enum proxy_kind k, const char *prog, long deadline)
{
	int status;

	if (l->proxy.pid[k] <= 0)
		return;
	while (waitpid(l->proxy.pid[k], &status, WNOHANG) == 0) {
		if (launch_now_ms() >= deadline) {
			log_warnx("%s did not exit: killing it", prog);
			(void)kill(l->proxy.pid[k], SIGKILL);
			while (waitpid(l->proxy.pid[k], &status, 0) == -1 && errno == EINTR)
				;
			break;
		}
		(void)nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
	}
	l->proxy.pid[k] = 0;
}

/*
 * The command is over: cut the lifeline, read the decision log to its end (every proxy
 * has exited once nobody holds its write end), and reap. A proxy still there at
 * deadline (launch_now_ms) is killed. prog: the proxies' names, by kind. Then nothing of
 * the proxies' is open here: listeners, pipes.
 */
void
proxypipes_finish(struct launch *l, const char *const prog[PK_MAX], long deadline)
{
	int k;

	for (k = 0; k < LS_MAX; k++)
		fd_close(&l->proxy.listen_fd[k]);
	fd_close(&l->proxy.lifeline_w);
	fd_close(&l->proxy.log_w);
	while (l->proxy.log_r != -1) {
		struct pollfd pfd = { .fd = l->proxy.log_r, .events = POLLIN };
		long left = deadline - launch_now_ms();

		if (left <= 0)
			break;
		if (poll(&pfd, 1, (int)left) == -1 && errno != EINTR)
			break;
		proxypipes_drain(l);
	}
	for (k = 0; k < PK_MAX; k++)
		proxypipes_reap(l, k, prog[k], deadline);
	proxypipes_drain(l);
	fd_close(&l->proxy.log_r);
	fd_close(&l->proxy.lifeline_r);
}
