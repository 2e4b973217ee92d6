/*
 * The few socket calls whose spelling differs between POSIX and Windows, behind one
 * header: inline on POSIX (the very calls the code made before, at no cost), in
 * lib/compat/sys_win.c on Windows, where a socket is a SOCKET (a kernel handle, which Windows
 * keeps below 2^32 and a multiple of 4, so it travels as an int here) and errors come
 * from WSAGetLastError(), mapped to errno values by sys_win.c.
 */
#ifndef SRT_SYS_H
#define SRT_SYS_H

#include <stddef.h>
#include <sys/types.h>

#ifdef _WIN32

/* The socket API: Winsock's headers stand for <sys/socket.h>, <netinet/in.h> and
 * <arpa/inet.h> (inet_pton, inet_ntop, htons). */
#include <winsock2.h>
#include <ws2tcpip.h>
#include <afunix.h> /* struct sockaddr_un, for unix: listeners to be refused */

#include "sys_file.h" /* O_CLOEXEC, O_NOCTTY */

/* glibc's, which the C runtime lacks (sys_win.c). */
void *memrchr(const void *s, int c, size_t n);
void *memmem(const void *h, size_t hlen, const void *n, size_t nlen);
/* Linux's getrandom(2), from BCryptGenRandom (flags are ignored: it never blocks). */
ssize_t getrandom(void *buf, size_t n, unsigned flags);
void explicit_bzero(void *p, size_t n);

/* WSAStartup, once; -1 with errno on failure. */
int sys_init(void);
/* A connected pair of stream sockets (Windows has no socketpair(2): two loopback TCP
 * sockets, the accepted end checked to be the connecting one); -1 with errno. */
int sys_socketpair(int sv[2]);
int sys_set_nonblock(int fd);
int sys_sockclose(int fd);
/* recv/send with errno set from the socket error; a would-block or short result calls
 * the blocked hook, if one is set, with fd and the direction. The event loop sets it
 * (lib/proxyd/evloop_wsapoll.c) so that its edge-triggered emulation polls fd that way
 * again: a seam that points down, as sys_win.c knows nothing of the loop. */
enum sys_io_dir {
	SYS_IO_RECV,
	SYS_IO_SEND
};
typedef void sys_blocked_hook(int fd, enum sys_io_dir dir);
void sys_win_set_blocked_hook(sys_blocked_hook *hook);
ssize_t sys_recv(int fd, void *buf, size_t len);
ssize_t sys_send(int fd, const void *buf, size_t len);
/* The proxies' socket calls (see the POSIX side below for what each is there). */
#define sys_sock_recv sys_recv
#define sys_sock_send sys_send
ssize_t sys_sock_peek(int fd, void *buf, size_t len);
int sys_socket(int family);
int sys_accept(int lfd, struct sockaddr *sa, socklen_t *salen);
int sys_connect(int fd, const struct sockaddr *sa, socklen_t salen);
int sys_shutdown_wr(int fd);
int sys_sock_error(int fd, int *err);
int sys_setsockopt_int(int fd, int level, int name, int value);
/* errno for a WSAGetLastError() value. */
int sys_errno_from_wsa(int wsaerr);

/* The C runtime's strerror knows none of the socket errors above (ECONNREFUSED is
 * "Unknown error" there): where this header is included, strerror names them as glibc
 * does, so that a log line reads the same on both systems. */
#include <string.h>
const char *sys_strerror(int e);
#define strerror(e) sys_strerror(e)

#else

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef O_BINARY
#define O_BINARY 0 /* Windows' C runtime: no text-mode translation */
#endif

static inline int
sys_init(void)
{
	return 0;
}

#if defined(__APPLE__) || !defined(SOCK_NONBLOCK)
/*
 * A POSIX system without Linux's socket flags (macOS: the launcher's local proxies): the
 * flags set after the call, which no other thread of those programs can race with an
 * exec. Without MSG_NOSIGNAL a send to a closed peer raises SIGPIPE, which the programs
 * that send ignore.
 */
#define SYS_SOCK_FLAGS_AFTER 1
#ifndef SOCK_NONBLOCK
#define SOCK_NONBLOCK 0
#define SOCK_CLOEXEC 0
#endif
#ifndef MSG_NOSIGNAL
#define MSG_NOSIGNAL 0
#endif
#endif

/* fd non-blocking (if nonblock) and close-on-exec where the call could not say so. */
static inline int
sys_sock_flags(int fd, int nonblock)
{
#ifdef SYS_SOCK_FLAGS_AFTER
	if (fd != -1 &&
	    ((nonblock && fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == -1) ||
		fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)) {
		close(fd);
		return -1;
	}
#else
	(void)nonblock;
#endif
	return fd;
}

static inline int
sys_socketpair(int sv[2])
{
#ifdef SYS_SOCK_FLAGS_AFTER
	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == -1)
		return -1;
#else
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
#endif
	if (sys_sock_flags(sv[0], 0) == -1) {
		close(sv[1]);
		return -1;
	}
	if (sys_sock_flags(sv[1], 0) == -1) {
		close(sv[0]);
		return -1;
	}
	return 0;
}

static inline int
sys_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	return fl == -1 ? -1 : fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static inline int
sys_sockclose(int fd)
{
	return close(fd);
}

static inline ssize_t
sys_recv(int fd, void *buf, size_t len)
{
	return read(fd, buf, len);
}

static inline ssize_t
sys_send(int fd, const void *buf, size_t len)
{
	return write(fd, buf, len);
}

/* The proxies' socket calls, as they were written before Windows: */

/* A TCP (stream) socket, non-blocking and close-on-exec. */
static inline int
sys_socket(int family)
{
#ifdef SYS_SOCK_FLAGS_AFTER
	return sys_sock_flags(socket(family, SOCK_STREAM, 0), 1);
#else
	return socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
#endif
}

/* The accepted socket non-blocking and close-on-exec. */
static inline int
sys_accept(int lfd, struct sockaddr *sa, socklen_t *salen)
{
#ifdef SYS_SOCK_FLAGS_AFTER
	return sys_sock_flags(accept(lfd, sa, salen), 1);
#else
	return accept4(lfd, sa, salen, SOCK_NONBLOCK | SOCK_CLOEXEC);
#endif
}

/* -1 with EINPROGRESS for a connection under way (Windows says WSAEWOULDBLOCK). */
static inline int
sys_connect(int fd, const struct sockaddr *sa, socklen_t salen)
{
	return connect(fd, sa, salen);
}

/* send without SIGPIPE. */
static inline ssize_t
sys_sock_send(int fd, const void *buf, size_t len)
{
	return send(fd, buf, len, MSG_NOSIGNAL);
}

static inline ssize_t
sys_sock_recv(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, 0);
}

/* The next bytes, left where they are, without blocking. */
static inline ssize_t
sys_sock_peek(int fd, void *buf, size_t len)
{
	return recv(fd, buf, len, MSG_PEEK | MSG_DONTWAIT);
}

static inline int
sys_shutdown_wr(int fd)
{
	return shutdown(fd, SHUT_WR);
}

/* The socket's pending error (SO_ERROR) in *err, as an errno value; -1 if it cannot be
 * asked. */
static inline int
sys_sock_error(int fd, int *err)
{
	socklen_t el = sizeof(*err);

	return getsockopt(fd, SOL_SOCKET, SO_ERROR, err, &el);
}

static inline int
sys_setsockopt_int(int fd, int level, int name, int value)
{
	return setsockopt(fd, level, name, &value, sizeof(value));
}

#endif

#endif
