/*
 * load-client: the load generator of the load and fault tests (tests/load/). One epoll
 * loop, level-triggered, non-blocking sockets, traffic to 127.0.0.1 only, bounded in
 * count and in time.
 *
 * usage: load-client [options] tunnels N
 *        load-client [options] requests N C
 *        load-client [options] slowloris N
 *        load-client [options] vanish N C
 *
 *	-x http|socks	the proxy's protocol (default http)
 *	-P PORT		the proxy's port on 127.0.0.1
 *	-U PORT		the upstream's port on 127.0.0.1 (load-upstream)
 *	-t SECONDS	give up after that long (default 60): what is unfinished fails
 *	-c N		tunnels: handshakes in flight at once (default 256)
 *	-k N		requests: requests per connection (default 1: one request per
 *			connection with "Connection: close"; N > 1 keeps it alive)
 *	-p PATH		requests: the target path (default "/")
 *	-b BYTES	requests: the body length the upstream sends (default 64)
 *	-m PREFIX	tunnels: what each tunnel's message starts with (default "tun")
 *	-H SECONDS	tunnels: hold every tunnel open that long after the check
 *	-S FILE		tunnels: write "holding" to FILE when the hold begins
 *	-i MS		slowloris: one byte per connection every MS (default 1000)
 *
 * tunnels N	open N tunnels at once (HTTP CONNECT or SOCKS5 CONNECT to the upstream
 *		echo server), keep them all open, then send a distinct message through
 *		each and check its echo, then hold them, then close them.
 * requests N C	N HTTP requests through the proxy (absolute-form GET), C connections
 *		at a time; each response must be 200 with the upstream's exact body.
 * slowloris N	N connections that send a request (HTTP head or SOCKS5 greeting and
 *		request) one byte per interval and never finish it; records when the
 *		proxy closes each.
 * vanish N C	N clients, C at a time, that connect and go away mid-exchange: a third
 *		close after half a request, a third reset (SO_LINGER 0) after half a
 *		request, a third reset an established tunnel with data in flight.
 *
 * Output: one line on stdout, "mode=... n=N ok=N fail=N elapsed_ms=N" followed by the
 * failures by kind (connect, refused, reset, eof, status, mismatch, timeout) and mode-
 * specific fields; the first few failures are described on stderr. Exit status 0 when
 * nothing failed, 1 otherwise, 2 on bad usage.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
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

#define LC_MSG_LEN 32 /* tunnels: bytes sent through each tunnel */
#define LC_HEAD_MAX 16384
#define LC_NOTES 10 /* failures described on stderr */

enum lc_mode {
	M_TUNNELS,
	M_REQUESTS,
	M_SLOWLORIS,
	M_VANISH
};
enum lc_proxy {
	P_HTTP,
	P_SOCKS
};

enum lc_fail {
	F_CONNECT,
	F_REFUSED,
	F_RESET,
	F_EOF,
	F_STATUS,
	F_MISMATCH,
	F_TIMEOUT,
	F_MAX
};
static const char *fail_name[F_MAX] = { "connect", "refused", "reset", "eof", "status",
	"mismatch", "timeout" };

enum lc_state {
	S_CONNECTING,
	S_PROXY_REPLY, /* http: CONNECT reply head; socks: method choice */
	S_SOCKS_REPLY, /* socks: the 10-byte CONNECT reply */
	S_OPEN,        /* tunnel established, waiting for the check */
	S_ECHO,        /* tunnel: message sent, reading its echo */
	S_HELD,        /* tunnel checked, held open */
	S_RESP_HEAD,   /* requests: reading a response head */
	S_RESP_BODY,   /* requests: reading a response body */
	S_SLOW,        /* slowloris: dripping bytes */
	S_DONE,
};

struct lc_conn {
	int fd;
	unsigned id;
	enum lc_state st;
	char *in;
	size_t inlen, incap;
	char out[512];
	size_t outoff, outlen;
	unsigned reqs; /* requests: done on this connection */
	bool last;     /* requests: this request asks to close */
	bool chunked;
	uint64_t body_left; /* Content-Length still to read, or UINT64_MAX */
	uint64_t body_seen; /* body bytes checked so far */
	size_t drip;        /* slowloris: bytes of the script sent */
	unsigned kind;      /* vanish: which way to go */
	uint32_t events;
};

static enum lc_mode mode;
static enum lc_proxy proxy = P_HTTP;
static unsigned proxy_port, up_port;
static unsigned long n_total, conc = 256, per_conn = 1, body_len = 64, interval_ms = 1000;
static unsigned long hold_s, limit_s = 60;
static const char *path = "/", *prefix = "tun", *signal_file;
static int ep;
static uint64_t t0, deadline;
static unsigned long n_started, n_ok, n_fail, fails[F_MAX], n_notes;
static unsigned long n_open;           /* sockets open now */
static unsigned long n_handshaking;    /* connecting or in the proxy handshake */
static unsigned long nslots;           /* entries of conns */
static unsigned long n_closed_by_peer; /* slowloris */
static uint64_t first_close_ms = UINT64_MAX, last_close_ms;
static struct lc_conn **conns; /* tunnels, slowloris: every connection */

static uint64_t
lc_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static void *
lc_alloc(void *p, size_t n)
{
	void *q = realloc(p, n);

	if (q == NULL) {
		fprintf(stderr, "load-client: out of memory\n");
		exit(1);
	}
	return q;
}

static void
lc_usage(void)
{
	fprintf(stderr,
	    "usage: load-client [-x http|socks] -P PORT -U PORT [-t SEC] [-c N] "
	    "[-k N] [-p PATH] [-b BYTES] [-m PREFIX] [-H SEC] [-S FILE] [-i MS]\n"
	    "                   tunnels N | requests N C | slowloris N | vanish N C\n");
	exit(2);
}

static unsigned long
lc_number(const char *s, unsigned long max)
{
	char *end;
	unsigned long v;

	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno != 0 || *s == '\0' || *end != '\0' || v > max) {
		fprintf(stderr, "load-client: %s: not a number up to %lu\n", s, max);
		exit(2);
	}
	return v;
}

static void
lc_watch(struct lc_conn *c, uint32_t events)
{
	struct epoll_event ev = { 0 };

	if (c->fd == -1 || events == c->events)
		return;
	ev.events = events;
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev) == -1) {
		perror("load-client: epoll_ctl");
		exit(1);
	}
	c->events = events;
}

/* Close the socket; with reset set the peer sees RST. */
static void
lc_close(struct lc_conn *c, bool reset)
{
	struct linger lg = { 1, 0 };

	if (c->fd == -1)
		return;
	if (reset)
		(void)setsockopt(c->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->events = 0;
	n_open--;
}

static void lc_note(struct lc_conn *, const char *, ...) __attribute__((format(printf, 2, 3)));

static void
lc_note(struct lc_conn *c, const char *fmt, ...)
{
	va_list ap;

	if (n_notes++ >= LC_NOTES)
		return;
	fprintf(stderr, "load-client: #%u: ", c->id);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static void
lc_fail(struct lc_conn *c, enum lc_fail kind, const char *what)
{
	lc_note(c, "%s (%s)", fail_name[kind], what);
	if (c->st == S_CONNECTING || c->st == S_PROXY_REPLY || c->st == S_SOCKS_REPLY)
		n_handshaking--;
	if (c->st == S_HELD)
		n_ok--; /* it was counted when its echo came back */
	fails[kind]++;
	n_fail++;
	lc_close(c, false);
	c->st = S_DONE;
}

/* A failure from errno of a socket call. */
static void
lc_fail_errno(struct lc_conn *c, int err, const char *what)
{
	char msg[128];

	snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));
	lc_fail(c,
	    err == ECONNREFUSED                     ? F_REFUSED
		: err == ECONNRESET || err == EPIPE ? F_RESET
						    : F_CONNECT,
	    msg);
}

static int
lc_connect(struct lc_conn *c)
{
	struct sockaddr_in sin = { 0 };
	struct epoll_event ev = { 0 };
	int one = 1;

	c->st = S_CONNECTING;
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd == -1) {
		n_handshaking++; /* lc_fail takes it back */
		lc_fail_errno(c, errno, "socket");
		return -1;
	}
	n_open++;
	n_handshaking++;
	(void)setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)proxy_port);
	c->events = EPOLLOUT;
	ev.events = EPOLLOUT;
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) == -1) {
		perror("load-client: epoll_ctl");
		exit(1);
	}
	if (connect(c->fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 &&
	    errno != EINPROGRESS) {
		lc_fail_errno(c, errno, "connect");
		return -1;
	}
	n_started++;
	return 0;
}

static void
lc_set_out(struct lc_conn *c, const void *p, size_t n)
{
	if (n > sizeof(c->out)) {
		fprintf(stderr, "load-client: message too long\n");
		exit(1);
	}
	memcpy(c->out, p, n);
	c->outoff = 0;
	c->outlen = n;
}

/* Send what is queued. 0 done, 1 more to send, -1 failed (and recorded). */
static int
lc_flush(struct lc_conn *c)
{
	ssize_t w;

	while (c->outoff < c->outlen) {
		w = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);
		if (w == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 1;
			lc_fail_errno(c, errno, "send");
			return -1;
		}
		c->outoff += (size_t)w;
	}
	return 0;
}

/* Read what is there into c->in: 1 read (or nothing there yet), 0 EOF (the caller
 * decides what it means), -1 failed (recorded). */
static int
lc_fill(struct lc_conn *c)
{
	ssize_t r;

	for (;;) {
		if (c->incap - c->inlen < 2048) {
			c->incap = c->incap == 0 ? 4096 : c->incap * 2;
			c->in = lc_alloc(c->in, c->incap + 1);
		}
		r = recv(c->fd, c->in + c->inlen, c->incap - c->inlen, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && errno == EAGAIN)
			return 1;
		if (r == -1) {
			lc_fail_errno(c, errno, "recv");
			return -1;
		}
		if (r == 0)
			return 0;
		c->inlen += (size_t)r;
		c->in[c->inlen] = '\0';
		if (c->inlen > 1024 * 1024)
			return 1;
	}
}

static void
lc_consume(struct lc_conn *c, size_t n)
{
	memmove(c->in, c->in + n, c->inlen - n);
	c->inlen -= n;
	if (c->in != NULL)
		c->in[c->inlen] = '\0';
}

/* ---- the first message on a connection ------------------------------------------ */

static void
lc_send_request(struct lc_conn *c)
{
	char req[512];
	int n;

	/* n_started already counts this request. */
	c->last = per_conn <= 1 || c->reqs + 1 >= per_conn || n_started >= n_total;
	n = snprintf(req, sizeof(req),
	    "GET http://127.0.0.1:%u%s HTTP/1.1\r\n"
	    "Host: 127.0.0.1:%u\r\nUser-Agent: load-client\r\n%s\r\n",
	    up_port, path, up_port, c->last ? "Connection: close\r\n" : "");
	lc_set_out(c, req, (size_t)n);
	c->st = S_RESP_HEAD;
	c->chunked = false;
	c->body_seen = 0;
	c->body_left = UINT64_MAX;
}

static const char slow_http_fmt[] = "GET http://127.0.0.1:%u/ HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
				    "X-Slow: ";

/* The byte of the slowloris script at position i: a head that never ends. */
static char
lc_slow_byte(size_t i)
{
	static char head[256];
	static size_t headlen;
	static unsigned char socks[3 + 5 + 255 + 2];

	if (proxy == P_HTTP) {
		if (headlen == 0)
			headlen = (size_t)snprintf(
			    head, sizeof(head), slow_http_fmt, up_port, up_port);
		return i < headlen ? head[i] : 'a';
	}
	if (socks[0] == 0) {
		/* Greeting, then a CONNECT to a 255-byte name: 265 bytes before the last. */
		memcpy(socks, "\x05\x01\x00\x05\x01\x00\x03\xff", 8);
		memset(socks + 8, 'a', 255);
	}
	return i < sizeof(socks) - 2 ? (char)socks[i] : 'a';
}

/* Connected: send the first bytes of the mode. */
static void
lc_start(struct lc_conn *c)
{
	char req[256];
	int n;

	switch (mode) {
	case M_TUNNELS:
	case M_VANISH:
		if (mode == M_VANISH && c->kind != 2) {
			/* Half a request, then gone. */
			if (proxy == P_HTTP)
				n = snprintf(req, sizeof(req),
				    "GET http://127.0.0.1:%u/ HTTP/1.1\r\n"
				    "Ho",
				    up_port);
			else
				n = (int)(memcpy(req, "\x05\x01\x00\x05\x01", 5), 5);
			lc_set_out(c, req, (size_t)n);
			c->st = S_PROXY_REPLY;
			if (lc_flush(c) == -1)
				return;
			n_handshaking--;
			lc_close(c, c->kind == 1);
			c->st = S_DONE;
			n_ok++;
			return;
		}
		if (proxy == P_HTTP)
			n = snprintf(req, sizeof(req),
			    "CONNECT 127.0.0.1:%u HTTP/1.1\r\n"
			    "Host: 127.0.0.1:%u\r\n\r\n",
			    up_port, up_port);
		else
			n = (int)(memcpy(req, "\x05\x01\x00", 3), 3);
		lc_set_out(c, req, (size_t)n);
		c->st = S_PROXY_REPLY;
		break;
	case M_REQUESTS:
		n_handshaking--;
		lc_send_request(c);
		break;
	case M_SLOWLORIS:
		n_handshaking--;
		c->st = S_SLOW;
		c->drip = 0;
		c->outlen = c->outoff = 0;
		lc_watch(c, EPOLLIN);
		return;
	}
	if (lc_flush(c) == -1)
		return;
	lc_watch(c, c->outoff < c->outlen ? EPOLLOUT : EPOLLIN);
}

/* ---- tunnels --------------------------------------------------------------------- */

static void
lc_tunnel_message(struct lc_conn *c, char *msg)
{
	snprintf(msg, LC_MSG_LEN + 1, "%s:%010u:%0*u", prefix, c->id,
	    (int)(LC_MSG_LEN - strlen(prefix) - 12), c->id * 2654435761u % 100000);
	msg[LC_MSG_LEN] = '\0';
}

static void
lc_tunnel_open(struct lc_conn *c)
{
	n_handshaking--;
	if (mode == M_VANISH) {
		char msg[LC_MSG_LEN + 1];

		/* Data in flight, then a reset: the upstream side must go too. */
		lc_tunnel_message(c, msg);
		lc_set_out(c, msg, LC_MSG_LEN);
		(void)lc_flush(c);
		if (c->fd != -1)
			lc_close(c, true);
		c->st = S_DONE;
		n_ok++;
		return;
	}
	c->st = S_OPEN;
	/* Still watch for input: a tunnel the proxy drops before the check is a failure. */
	lc_watch(c, EPOLLIN | EPOLLRDHUP);
}

static void
lc_proxy_reply(struct lc_conn *c)
{
	char *end;
	int r;

	if ((r = lc_fill(c)) == -1)
		return;
	if (proxy == P_HTTP) {
		if ((end = strstr(c->in != NULL ? c->in : "", "\r\n\r\n")) == NULL) {
			if (r == 0)
				lc_fail(c, F_EOF, "EOF before the CONNECT reply");
			else if (c->inlen > LC_HEAD_MAX)
				lc_fail(c, F_STATUS, "CONNECT reply head too long");
			return;
		}
		if (strncmp(c->in, "HTTP/1.1 200", 12) != 0 &&
		    strncmp(c->in, "HTTP/1.0 200", 12) != 0) {
			char what[80];

			snprintf(what, sizeof(what), "CONNECT reply: %.40s", c->in);
			what[strcspn(what, "\r\n")] = '\0';
			lc_fail(c, F_STATUS, what);
			return;
		}
		lc_consume(c, (size_t)(end - c->in) + 4);
		lc_tunnel_open(c);
		return;
	}
	if (c->st == S_PROXY_REPLY) {
		if (c->inlen < 2) {
			if (r == 0)
				lc_fail(c, F_EOF, "EOF before the SOCKS method reply");
			return;
		}
		if (c->in[0] != 5 || c->in[1] != 0) {
			lc_fail(c, F_STATUS, "SOCKS method refused");
			return;
		}
		lc_consume(c, 2);
		memcpy(c->out, "\x05\x01\x00\x01\x7f\x00\x00\x01", 8);
		c->out[8] = (char)(up_port >> 8);
		c->out[9] = (char)(up_port & 0xff);
		c->outoff = 0;
		c->outlen = 10;
		c->st = S_SOCKS_REPLY;
		if (lc_flush(c) == -1)
			return;
		lc_watch(c, c->outoff < c->outlen ? EPOLLOUT : EPOLLIN);
		return;
	}
	if (c->inlen < 10) {
		if (r == 0)
			lc_fail(c, F_EOF, "EOF before the SOCKS CONNECT reply");
		return;
	}
	if (c->in[0] != 5 || c->in[1] != 0) {
		char what[64];

		snprintf(what, sizeof(what), "SOCKS reply code %d", (unsigned char)c->in[1]);
		lc_fail(c, F_STATUS, what);
		return;
	}
	lc_consume(c, 10);
	lc_tunnel_open(c);
}

static void
lc_echo(struct lc_conn *c)
{
	char msg[LC_MSG_LEN + 1];
	int r;

	if ((r = lc_fill(c)) == -1)
		return;
	if (c->st != S_ECHO) {
		/* S_OPEN or S_HELD: nothing should arrive, and the tunnel must stay. */
		if (r == 0)
			lc_fail(c, F_EOF,
			    c->st == S_OPEN ? "tunnel closed before the check"
					    : "tunnel closed while held");
		else if (c->inlen > 0)
			lc_fail(c, F_MISMATCH, "unexpected bytes on an idle tunnel");
		return;
	}
	lc_tunnel_message(c, msg);
	if (c->inlen >= LC_MSG_LEN || r == 0) {
		if (c->inlen >= LC_MSG_LEN && memcmp(c->in, msg, LC_MSG_LEN) == 0) {
			lc_consume(c, LC_MSG_LEN);
			c->st = S_HELD;
			n_ok++;
			return;
		}
		if (c->inlen < LC_MSG_LEN)
			lc_fail(c, F_EOF, "EOF before the whole echo");
		else
			lc_fail(c, F_MISMATCH, "echo differs");
	}
}

/* Phase two: one message through every open tunnel. */
static void
lc_tunnels_check(void)
{
	char msg[LC_MSG_LEN + 1];
	unsigned long i;

	for (i = 0; i < nslots; i++) {
		struct lc_conn *c = conns[i];

		if (c->st != S_OPEN)
			continue;
		lc_tunnel_message(c, msg);
		lc_set_out(c, msg, LC_MSG_LEN);
		c->st = S_ECHO;
		if (lc_flush(c) == -1)
			continue;
		lc_watch(c, c->outoff < c->outlen ? EPOLLOUT : EPOLLIN | EPOLLRDHUP);
	}
}

/* ---- requests -------------------------------------------------------------------- */

static bool
lc_body_check(struct lc_conn *c, const char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != (char)('a' + (c->body_seen + i) % 26))
			return false;
	c->body_seen += n;
	return true;
}

static void lc_next(struct lc_conn *c);

static void
lc_response_done(struct lc_conn *c)
{
	if (c->body_seen != body_len) {
		char what[80];

		snprintf(what, sizeof(what), "body of %llu bytes, expected %lu",
		    (unsigned long long)c->body_seen, body_len);
		lc_fail(c, F_MISMATCH, what);
		return;
	}
	n_ok++;
	c->reqs++;
	if (c->last || c->inlen > 0) {
		lc_close(c, false);
		c->st = S_DONE;
		lc_next(c);
		return;
	}
	if (n_started >= n_total) {
		/* Nothing more to ask: this keep-alive connection is done. */
		lc_close(c, false);
		c->st = S_DONE;
		return;
	}
	n_started++;
	lc_send_request(c);
	if (lc_flush(c) == -1)
		return;
	lc_watch(c, c->outoff < c->outlen ? EPOLLOUT : EPOLLIN);
}

/* Parse as much of a chunked body as is there. 1 done, 0 more needed, -1 bad. */
static int
lc_chunked(struct lc_conn *c)
{
	char *nl, *end;
	unsigned long long sz;
	size_t take;

	for (;;) {
		if (c->body_left != UINT64_MAX && c->body_left > 0) {
			take = c->inlen < c->body_left ? c->inlen : (size_t)c->body_left;
			if (!lc_body_check(c, c->in, take))
				return -1;
			lc_consume(c, take);
			c->body_left -= take;
			if (c->body_left > 0)
				return 0;
		}
		if (c->body_left == 0) {
			/* The CRLF after a chunk's data. */
			if (c->inlen < 2)
				return 0;
			if (memcmp(c->in, "\r\n", 2) != 0)
				return -1;
			lc_consume(c, 2);
			c->body_left = UINT64_MAX;
		}
		if ((nl = strstr(c->in, "\r\n")) == NULL)
			return c->inlen > 64 ? -1 : 0;
		sz = strtoull(c->in, &end, 16);
		if (end == c->in)
			return -1;
		if (sz == 0) {
			/* No trailers from our upstream: the final CRLF follows. */
			if (c->inlen < (size_t)(nl - c->in) + 4)
				return 0;
			lc_consume(c, (size_t)(nl - c->in) + 4);
			return 1;
		}
		lc_consume(c, (size_t)(nl - c->in) + 2);
		c->body_left = sz;
	}
}

static void
lc_response(struct lc_conn *c)
{
	char *end, *cl, *te;
	int r, st;

	if ((r = lc_fill(c)) == -1)
		return;
	if (c->st == S_RESP_HEAD) {
		if (c->in == NULL || (end = strstr(c->in, "\r\n\r\n")) == NULL) {
			if (r == 0)
				lc_fail(c, c->inlen == 0 ? F_EOF : F_STATUS,
				    "EOF before the response head");
			else if (c->inlen > LC_HEAD_MAX)
				lc_fail(c, F_STATUS, "response head too long");
			return;
		}
		if (sscanf(c->in, "HTTP/1.%*d %d", &st) != 1 || st != 200) {
			char what[80];

			snprintf(what, sizeof(what), "response: %.40s", c->in);
			what[strcspn(what, "\r\n")] = '\0';
			lc_fail(c, F_STATUS, what);
			return;
		}
		end[2] = '\0';
		cl = strcasestr(c->in, "\r\nContent-Length:");
		te = strcasestr(c->in, "\r\nTransfer-Encoding: chunked");
		if (te != NULL) {
			c->chunked = true;
			c->body_left = UINT64_MAX;
		} else if (cl != NULL)
			c->body_left = strtoull(cl + 17, NULL, 10);
		else
			c->body_left = UINT64_MAX; /* to EOF */
		lc_consume(c, (size_t)(end - c->in) + 4);
		c->st = S_RESP_BODY;
	}
	if (c->chunked) {
		int k = lc_chunked(c);

		if (k == -1) {
			lc_fail(c, F_MISMATCH, "bad chunked body");
			return;
		}
		if (k == 1) {
			lc_response_done(c);
			return;
		}
	} else {
		size_t take = c->inlen;

		if (c->body_left != UINT64_MAX && take > c->body_left)
			take = (size_t)c->body_left;
		if (!lc_body_check(c, c->in, take)) {
			lc_fail(c, F_MISMATCH, "body bytes differ");
			return;
		}
		lc_consume(c, take);
		if (c->body_left != UINT64_MAX) {
			c->body_left -= take;
			if (c->body_left == 0) {
				lc_response_done(c);
				return;
			}
		}
	}
	if (r == 0) {
		if (c->body_left == UINT64_MAX && !c->chunked) {
			lc_response_done(c);
			return;
		}
		lc_fail(c, F_EOF, "EOF in the response body");
	}
}

/* ---- the loop -------------------------------------------------------------------- */

/* requests and vanish: start the next client on this slot, if any is left. */
static void
lc_next(struct lc_conn *c)
{
	while (n_started < n_total && lc_now() < deadline) {
		c->id = (unsigned)n_started;
		c->reqs = 0;
		c->inlen = 0;
		c->kind = (unsigned)(n_started % 3);
		if (lc_connect(c) == 0)
			return;
		n_started++; /* that one failed at once: the next */
	}
}

static void
lc_connected(struct lc_conn *c)
{
	int err = 0;
	socklen_t sl = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &sl) == -1)
		err = errno;
	if (err != 0) {
		lc_fail_errno(c, err, "connect");
		return;
	}
	lc_start(c);
}

static void
lc_event(struct lc_conn *c, uint32_t events)
{
	if (c->st == S_CONNECTING) {
		lc_connected(c);
	} else if (c->outoff < c->outlen && (events & EPOLLOUT)) {
		if (lc_flush(c) == 0)
			lc_watch(c, EPOLLIN | (c->st == S_ECHO ? EPOLLRDHUP : 0));
		return;
	} else {
		switch (c->st) {
		case S_PROXY_REPLY:
		case S_SOCKS_REPLY:
			lc_proxy_reply(c);
			break;
		case S_OPEN:
		case S_ECHO:
		case S_HELD:
			lc_echo(c);
			break;
		case S_RESP_HEAD:
		case S_RESP_BODY:
			lc_response(c);
			break;
		case S_SLOW: {
			char buf[4096];
			ssize_t r = recv(c->fd, buf, sizeof(buf), 0);

			/* SOCKS answers the greeting; anything else ends it. */
			if (r > 0 || (r == -1 && (errno == EAGAIN || errno == EINTR)))
				break;
			{
				uint64_t t = lc_now() - t0;

				if (t < first_close_ms)
					first_close_ms = t;
				if (t > last_close_ms)
					last_close_ms = t;
			}
			n_closed_by_peer++;
			lc_close(c, false);
			c->st = S_DONE;
			break;
		}
		default:
			break;
		}
	}
	if (c->st == S_DONE && (mode == M_REQUESTS || mode == M_VANISH))
		lc_next(c);
}

/* slowloris: one more byte on every connection still open. */
static void
lc_drip(void)
{
	unsigned long i;
	char b;

	for (i = 0; i < nslots; i++) {
		struct lc_conn *c = conns[i];

		if (c->st != S_SLOW)
			continue;
		b = lc_slow_byte(c->drip);
		if (send(c->fd, &b, 1, MSG_NOSIGNAL) == 1)
			c->drip++;
		else if (errno != EAGAIN && errno != EINTR) {
			uint64_t t = lc_now() - t0;

			if (t < first_close_ms)
				first_close_ms = t;
			if (t > last_close_ms)
				last_close_ms = t;
			n_closed_by_peer++;
			lc_close(c, false);
			c->st = S_DONE;
		}
	}
}

static unsigned long
lc_count(enum lc_state st)
{
	unsigned long i, n = 0;

	for (i = 0; i < nslots; i++)
		if (conns[i]->st == st)
			n++;
	return n;
}

/* Run the loop until done() says so or the deadline passes. */
static void
lc_run(bool (*done)(void), uint64_t until)
{
	struct epoll_event evs[512];
	uint64_t now, next_drip = lc_now() + interval_ms;
	int n, i, wait;

	while (!done() && (now = lc_now()) < until) {
		wait = (int)(until - now > 200 ? 200 : until - now);
		if (mode == M_SLOWLORIS) {
			if (now >= next_drip) {
				lc_drip();
				next_drip = now + interval_ms;
			}
			if ((int)(next_drip - now) < wait)
				wait = (int)(next_drip - now);
		}
		n = epoll_wait(ep, evs, 512, wait);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			perror("load-client: epoll_wait");
			exit(1);
		}
		for (i = 0; i < n; i++)
			lc_event(evs[i].data.ptr, evs[i].events);
	}
}

static unsigned long open_next; /* tunnels: the next connection to open */

static bool
tunnels_opened(void)
{
	/* At most conc handshakes in flight: a burst of SYNs past the proxy's accept
	 * backlog would only be retried a second later. */
	while (open_next < n_total && n_handshaking < conc)
		(void)lc_connect(conns[open_next++]);
	return open_next >= n_total && n_handshaking == 0;
}

static bool
tunnels_checked(void)
{
	return lc_count(S_ECHO) == 0;
}

static bool
never(void)
{
	return false;
}

static bool
all_done(void)
{
	return n_started >= n_total && n_open == 0;
}

static bool
slow_all_closed(void)
{
	return n_closed_by_peer + fails[F_CONNECT] + fails[F_REFUSED] >= n_total;
}

/* Whatever is still unfinished at the deadline failed by timing out. */
static void
lc_expire(void)
{
	unsigned long i;

	for (i = 0; i < nslots; i++) {
		struct lc_conn *c = conns[i];

		if (c->st != S_DONE && c->st != S_OPEN && c->st != S_HELD && c->st != S_SLOW &&
		    c->fd != -1)
			lc_fail(c, F_TIMEOUT, "deadline passed");
	}
}

int
main(int argc, char **argv)
{
	struct rlimit rl;
	unsigned long i;
	int ch, k;
	FILE *f;

	while ((ch = getopt(argc, argv, "x:P:U:t:c:k:p:b:m:H:S:i:")) != -1) {
		switch (ch) {
		case 'x':
			if (strcmp(optarg, "http") == 0)
				proxy = P_HTTP;
			else if (strcmp(optarg, "socks") == 0)
				proxy = P_SOCKS;
			else
				lc_usage();
			break;
		case 'P':
			proxy_port = (unsigned)lc_number(optarg, 65535);
			break;
		case 'U':
			up_port = (unsigned)lc_number(optarg, 65535);
			break;
		case 't':
			limit_s = lc_number(optarg, 86400);
			break;
		case 'c':
			conc = lc_number(optarg, 1000000);
			break;
		case 'k':
			per_conn = lc_number(optarg, 1000000000);
			break;
		case 'p':
			path = optarg;
			if (path[0] != '/' || strlen(path) > 200 ||
			    strpbrk(path, " \r\n") != NULL)
				lc_usage();
			break;
		case 'b':
			body_len = lc_number(optarg, 1UL << 30);
			break;
		case 'm':
			prefix = optarg;
			if (strlen(prefix) < 1 || strlen(prefix) > 8)
				lc_usage();
			break;
		case 'H':
			hold_s = lc_number(optarg, 3600);
			break;
		case 'S':
			signal_file = optarg;
			break;
		case 'i':
			interval_ms = lc_number(optarg, 60000);
			if (interval_ms == 0)
				lc_usage();
			break;
		default:
			lc_usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc < 2 || proxy_port == 0 || up_port == 0)
		lc_usage();
	if (strcmp(argv[0], "tunnels") == 0 && argc == 2)
		mode = M_TUNNELS;
	else if (strcmp(argv[0], "requests") == 0 && argc == 3)
		mode = M_REQUESTS;
	else if (strcmp(argv[0], "slowloris") == 0 && argc == 2)
		mode = M_SLOWLORIS;
	else if (strcmp(argv[0], "vanish") == 0 && argc == 3)
		mode = M_VANISH;
	else
		lc_usage();
	n_total = lc_number(argv[1], 100000000);
	if (argc == 3)
		conc = lc_number(argv[2], 100000);
	if (n_total == 0 || conc == 0)
		lc_usage();

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	signal(SIGPIPE, SIG_IGN);
	if ((ep = epoll_create1(EPOLL_CLOEXEC)) == -1) {
		perror("load-client: epoll");
		return 1;
	}
	t0 = lc_now();
	deadline = t0 + limit_s * 1000;

	nslots = mode == M_TUNNELS || mode == M_SLOWLORIS ? n_total
							  : (conc < n_total ? conc : n_total);
	conns = lc_alloc(NULL, nslots * sizeof(*conns));
	for (i = 0; i < nslots; i++) {
		conns[i] = lc_alloc(NULL, sizeof(**conns));
		memset(conns[i], 0, sizeof(**conns));
		conns[i]->fd = -1;
		conns[i]->id = (unsigned)i;
		conns[i]->st = S_DONE;
	}

	switch (mode) {
	case M_TUNNELS:
		lc_run(tunnels_opened, deadline);
		fprintf(stderr, "load-client: %lu tunnels open after %llu ms\n",
		    lc_count(S_OPEN), (unsigned long long)(lc_now() - t0));
		/* Connections never started count as timed out. */
		for (i = open_next; i < n_total; i++) {
			conns[i]->st = S_DONE;
			fails[F_TIMEOUT]++;
			n_fail++;
		}
		lc_expire();
		lc_tunnels_check();
		lc_run(tunnels_checked, deadline);
		lc_expire();
		if (signal_file != NULL && (f = fopen(signal_file, "w")) != NULL) {
			fprintf(f, "holding %lu\n", lc_count(S_HELD));
			fclose(f);
		}
		/* A held tunnel that closes during the hold fails (lc_echo). */
		lc_run(never, lc_now() + hold_s * 1000);
		break;
	case M_REQUESTS:
	case M_VANISH:
		for (i = 0; i < nslots; i++)
			lc_next(conns[i]);
		lc_run(all_done, deadline);
		lc_expire();
		if (n_started < n_total) {
			fails[F_TIMEOUT] += n_total - n_started;
			n_fail += n_total - n_started;
		}
		break;
	case M_SLOWLORIS:
		for (i = 0; i < n_total; i++)
			(void)lc_connect(conns[i]);
		lc_run(slow_all_closed, deadline);
		n_ok = n_closed_by_peer;
		break;
	}

	printf("mode=%s proxy=%s n=%lu ok=%lu fail=%lu elapsed_ms=%llu", argv[0],
	    proxy == P_HTTP ? "http" : "socks", n_total, n_ok, n_fail,
	    (unsigned long long)(lc_now() - t0));
	for (k = 0; k < F_MAX; k++)
		printf(" %s=%lu", fail_name[k], fails[k]);
	if (mode == M_SLOWLORIS)
		printf(" closed=%lu still_open=%lu first_close_ms=%llu last_close_ms=%llu",
		    n_closed_by_peer, lc_count(S_SLOW),
		    (unsigned long long)(first_close_ms == UINT64_MAX ? 0 : first_close_ms),
		    (unsigned long long)last_close_ms);
	printf("\n");
	fflush(stdout);
	for (i = 0; i < nslots; i++) {
		lc_close(conns[i], false);
		free(conns[i]->in);
		free(conns[i]);
	}
	free(conns);
	if (mode == M_SLOWLORIS)
		return 0;
	return n_fail == 0 && n_ok == n_total ? 0 : 1;
}
