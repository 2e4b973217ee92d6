/*
 * load-upstream: the destination server of the load and fault tests (tests/load/).
 * One epoll loop, level-triggered, non-blocking sockets, on 127.0.0.1 only.
 *
 * usage: load-upstream [-t SECONDS] [-b BODYLEN] echo|http
 *	echo	echo every byte back. A connection whose first bytes are "RST!" gets
 *		"partial" and is then reset (SO_LINGER 0): an upstream that dies
 *		mid-stream.
 *	http	a minimal HTTP/1.1 responder: every request head gets "200 OK" with a
 *		body of BODYLEN bytes (default 64), byte i being 'a' + i % 26, so that a
 *		client can check it. Request bodies (Content-Length) are read and
 *		dropped; "Connection: close" closes after the reply. The target "/rst"
 *		(or ".../rst") gets a head announcing 1 MiB and 4 KiB of body, then a
 *		reset.
 *	-t SECONDS	exit after that long (default 3600): the server never
 *			outlives a test that forgot it
 *
 * It listens on an ephemeral port and prints that port on stdout, then serves until
 * SIGTERM/SIGINT or the time limit. On exit it prints "accepted=N requests=N resets=N"
 * on stderr.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>

#define UP_HEAD_MAX 16384 /* a request head longer than this is refused */
#define UP_RST_ANNOUNCED (1024 * 1024)
#define UP_RST_SENT 4096

enum up_mode {
	UP_ECHO,
	UP_HTTP
};

struct up_conn {
	int fd;
	char *in; /* http: request bytes not yet used */
	size_t inlen, incap;
	char *out; /* bytes waiting for the socket */
	size_t outoff, outlen, outcap;
	uint64_t skip;    /* http: request body bytes still to drop */
	bool started;     /* echo: first bytes seen */
	bool close_after; /* close once out is flushed */
	bool reading;     /* EPOLLIN registered (else EPOLLOUT) */
};

static volatile sig_atomic_t up_stop;
static enum up_mode mode;
static size_t body_len = 64;
static char *body;
static int ep;
static unsigned long long n_accepted, n_requests, n_resets;

static void
up_on_signal(int sig)
{
	(void)sig;
	up_stop = 1;
}

static void *
up_realloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL) {
		fprintf(stderr, "load-upstream: out of memory\n");
		exit(1);
	}
	return q;
}

static uint64_t
up_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void
up_free(struct up_conn *c)
{
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
}

/* Abort the connection: the peer sees RST instead of FIN. */
static void
up_reset(struct up_conn *c)
{
	struct linger lg = { 1, 0 };

	(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	n_resets++;
	up_free(c);
}

static void
up_queue(struct up_conn *c, const void *p, size_t n)
{
	if (c->outoff > 0 && c->outoff == c->outlen)
		c->outoff = c->outlen = 0;
	if (c->outlen + n > c->outcap) {
		c->outcap = (c->outlen + n) * 2;
		c->out = up_realloc(c->out, c->outcap);
	}
	memcpy(c->out + c->outlen, p, n);
	c->outlen += n;
}

/* Write what is queued; 0 when everything is out, 1 when some is left, -1 on error. */
static int
up_flush(struct up_conn *c)
{
	ssize_t w;

	while (c->outoff < c->outlen) {
		w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 1;
			return -1;
		}
		c->outoff += (size_t)w;
	}
	c->outoff = c->outlen = 0;
	return 0;
}

/* Watch for input while nothing is queued, for output otherwise (back-pressure). */
static void
up_interest(struct up_conn *c)
{
	struct epoll_event ev = { 0 };
	bool want_read = c->outoff == c->outlen;

	if (want_read == c->reading)
		return;
	ev.events = want_read ? EPOLLIN : EPOLLOUT;
	ev.data.ptr = c;
	(void)epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
	c->reading = want_read;
}

/* The value of header name in head (NUL-terminated), or NULL. */
static const char *
up_header(const char *head, const char *name, size_t *vlen)
{
	const char *l = strstr(head, "\r\n");
	size_t n = strlen(name);

	while (l != NULL && l[2] != '\r') {
		l += 2;
		if (strncasecmp(l, name, n) == 0 && l[n] == ':') {
			const char *v = l + n + 1, *e;

			while (*v == ' ' || *v == '\t')
				v++;
			e = strstr(v, "\r\n");
			*vlen = (size_t)(e - v);
			return v;
		}
		l = strstr(l, "\r\n");
	}
	return NULL;
}

/* Answer every complete request head in c->in. -1 if the connection is gone. */
static int
up_http_serve(struct up_conn *c)
{
	char hd[256], *end, *sp;
	const char *v;
	size_t used, vlen;
	int n;

	for (;;) {
		if (c->skip > 0) {
			used = c->inlen < c->skip ? c->inlen : (size_t)c->skip;
			memmove(c->in, c->in + used, c->inlen - used);
			c->inlen -= used;
			c->skip -= used;
			if (c->skip > 0)
				return 0;
		}
		if (c->inlen == 0 || c->close_after)
			return 0;
		c->in[c->inlen] = '\0';
		if ((end = strstr(c->in, "\r\n\r\n")) == NULL) {
			if (c->inlen >= UP_HEAD_MAX) {
				up_free(c);
				return -1;
			}
			return 0;
		}
		used = (size_t)(end - c->in) + 4;
		end[2] = '\0';
		n_requests++;
		/* The target is the second word of the request line. */
		sp = strchr(c->in, ' ');
		if (sp != NULL) {
			char *t = sp + 1, *te = strchr(t, ' ');
			size_t tl = te != NULL ? (size_t)(te - t) : 0;

			if (tl >= 4 && memcmp(t + tl - 4, "/rst", 4) == 0) {
				n = snprintf(hd, sizeof(hd),
				    "HTTP/1.1 200 OK\r\n"
				    "Content-Length: %d\r\n\r\n",
				    UP_RST_ANNOUNCED);
				up_queue(c, hd, (size_t)n);
				up_queue(
				    c, body, body_len < UP_RST_SENT ? body_len : UP_RST_SENT);
				(void)up_flush(c);
				up_reset(c);
				return -1;
			}
		}
		if ((v = up_header(c->in, "Content-Length", &vlen)) != NULL)
			c->skip = strtoull(v, NULL, 10);
		if ((v = up_header(c->in, "Connection", &vlen)) != NULL && vlen >= 5 &&
		    strncasecmp(v, "close", 5) == 0)
			c->close_after = true;
		n = snprintf(hd, sizeof(hd),
		    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
		    "Content-Length: %zu\r\n%s\r\n",
		    body_len, c->close_after ? "Connection: close\r\n" : "");
		up_queue(c, hd, (size_t)n);
		up_queue(c, body, body_len);
		memmove(c->in, c->in + used, c->inlen - used);
		c->inlen -= used;
	}
}

static void
up_read(struct up_conn *c)
{
	char buf[16384];
	ssize_t r;

	for (;;) {
		if (mode == UP_HTTP) {
			if (c->incap - c->inlen < 4096 + 1) {
				c->incap = c->incap == 0 ? 8192 : c->incap * 2;
				if (c->incap > UP_HEAD_MAX * 4) {
					up_free(c);
					return;
				}
				c->in = up_realloc(c->in, c->incap);
			}
			r = recv(c->fd, c->in + c->inlen, c->incap - c->inlen - 1, 0);
		} else
			r = recv(c->fd, buf, sizeof(buf), 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && errno == EAGAIN)
			break;
		if (r <= 0) {
			up_free(c);
			return;
		}
		if (mode == UP_ECHO) {
			if (!c->started && r >= 4 && memcmp(buf, "RST!", 4) == 0) {
				up_queue(c, "partial", 7);
				(void)up_flush(c);
				up_reset(c);
				return;
			}
			c->started = true;
			up_queue(c, buf, (size_t)r);
		} else {
			c->inlen += (size_t)r;
			if (up_http_serve(c) == -1)
				return;
		}
		if (c->outlen > c->outoff)
			break;
	}
	switch (up_flush(c)) {
	case -1:
		up_free(c);
		return;
	case 0:
		if (c->close_after) {
			up_free(c);
			return;
		}
		break;
	}
	up_interest(c);
}

static void
up_write(struct up_conn *c)
{
	switch (up_flush(c)) {
	case -1:
		up_free(c);
		return;
	case 0:
		if (c->close_after) {
			up_free(c);
			return;
		}
		/* Requests that waited behind the reply. */
		if (mode == UP_HTTP && up_http_serve(c) == -1)
			return;
		if (up_flush(c) == -1) {
			up_free(c);
			return;
		}
		break;
	}
	up_interest(c);
}

static void
up_accept(int lfd)
{
	struct epoll_event ev = { 0 };
	struct up_conn *c;
	int fd, one = 1;

	for (;;) {
		fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EMFILE || errno == ENFILE)
				fprintf(stderr, "load-upstream: accept: %s\n", strerror(errno));
			return;
		}
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = up_realloc(NULL, sizeof(*c));
		memset(c, 0, sizeof(*c));
		c->fd = fd;
		c->reading = true;
		ev.events = EPOLLIN;
		ev.data.ptr = c;
		if (epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) == -1) {
			close(fd);
			free(c);
			continue;
		}
		n_accepted++;
	}
}

static void
up_usage(void)
{
	fprintf(stderr, "usage: load-upstream [-t SECONDS] [-b BODYLEN] echo|http\n");
	exit(2);
}

int
main(int argc, char **argv)
{
	struct sockaddr_in sin = { 0 };
	socklen_t sl = sizeof(sin);
	struct epoll_event ev = { 0 }, evs[256];
	struct rlimit rl;
	struct sigaction sa = { 0 };
	uint64_t deadline, now;
	unsigned long secs = 3600;
	size_t i;
	int lfd, ch, n, one = 1;

	while ((ch = getopt(argc, argv, "t:b:")) != -1) {
		switch (ch) {
		case 't':
			secs = strtoul(optarg, NULL, 10);
			break;
		case 'b':
			body_len = strtoul(optarg, NULL, 10);
			if (body_len > 64 * 1024 * 1024)
				up_usage();
			break;
		default:
			up_usage();
		}
	}
	if (optind + 1 != argc)
		up_usage();
	if (strcmp(argv[optind], "echo") == 0)
		mode = UP_ECHO;
	else if (strcmp(argv[optind], "http") == 0)
		mode = UP_HTTP;
	else
		up_usage();

	body = up_realloc(NULL, body_len + 1);
	for (i = 0; i < body_len; i++)
		body[i] = (char)('a' + i % 26);

	/* Thousands of concurrent connections need as many descriptors as allowed. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	sa.sa_handler = up_on_signal;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	if ((lfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) == -1 ||
	    setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1) {
		perror("load-upstream: socket");
		return 1;
	}
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 || listen(lfd, 4096) == -1 ||
	    getsockname(lfd, (struct sockaddr *)&sin, &sl) == -1) {
		perror("load-upstream: listen");
		return 1;
	}
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		perror("load-upstream: epoll");
		return 1;
	}
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
	printf("%u\n", ntohs(sin.sin_port));
	fflush(stdout);

	deadline = up_now_ms() + secs * 1000;
	while (!up_stop && (now = up_now_ms()) < deadline) {
		uint64_t left = deadline - now;

		n = epoll_wait(ep, evs, 256, left > 1000 ? 1000 : (int)left);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			perror("load-upstream: epoll_wait");
			return 1;
		}
		for (i = 0; i < (size_t)n; i++) {
			struct up_conn *c = evs[i].data.ptr;

			if (c == NULL)
				up_accept(lfd);
			else if (evs[i].events & (EPOLLIN | EPOLLERR | EPOLLHUP))
				c->reading ? up_read(c) : up_write(c);
			else if (evs[i].events & EPOLLOUT)
				up_write(c);
		}
	}
	fprintf(stderr, "load-upstream: accepted=%llu requests=%llu resets=%llu\n", n_accepted,
	    n_requests, n_resets);
	return 0;
}
