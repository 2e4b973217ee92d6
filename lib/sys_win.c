/*
 * lib/sys.h on Windows: Winsock behind POSIX-shaped calls, its errors mapped to errno.
 */
#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <bcrypt.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "evloop.h"
#include "sys.h"

int
sys_errno_from_wsa(int e)
{
	switch (e) {
	case WSAEWOULDBLOCK: return EAGAIN;
	case WSAEINPROGRESS: return EINPROGRESS;
	case WSAEALREADY: return EALREADY;
	case WSAEINTR: return EINTR;
	case WSAEBADF: case WSAENOTSOCK: return EBADF;
	case WSAEACCES: return EACCES;
	case WSAEFAULT: return EFAULT;
	case WSAEINVAL: return EINVAL;
	case WSAEMFILE: return EMFILE;
	case WSAENOBUFS: return ENOBUFS;
	case WSAEMSGSIZE: return EMSGSIZE;
	case WSAEAFNOSUPPORT: return EAFNOSUPPORT;
	case WSAEADDRINUSE: return EADDRINUSE;
	case WSAEADDRNOTAVAIL: return EADDRNOTAVAIL;
	case WSAENETDOWN: return ENETDOWN;
	case WSAENETUNREACH: return ENETUNREACH;
	case WSAENETRESET: return ENETRESET;
	case WSAECONNABORTED: return ECONNABORTED;
	case WSAECONNRESET: return ECONNRESET;
	case WSAEISCONN: return EISCONN;
	case WSAENOTCONN: return ENOTCONN;
	case WSAESHUTDOWN: return EPIPE;
	case WSAETIMEDOUT: return ETIMEDOUT;
	case WSAECONNREFUSED: return ECONNREFUSED;
	case WSAEHOSTUNREACH: return EHOSTUNREACH;
	case WSAEHOSTDOWN: return EHOSTUNREACH;
	default: return EIO;
	}
}

void *
memrchr(const void *s, int c, size_t n)
{
	const unsigned char *p = (const unsigned char *)s + n;

	while (n-- > 0)
		if (*--p == (unsigned char)c)
			return (void *)(uintptr_t)p;
	return NULL;
}

void *
memmem(const void *h, size_t hlen, const void *n, size_t nlen)
{
	const unsigned char *p = h;
	size_t i;

	if (nlen == 0)
		return (void *)(uintptr_t)h;
	for (i = 0; nlen <= hlen && i <= hlen - nlen; i++)
		if (p[i] == *(const unsigned char *)n && memcmp(p + i, n, nlen) == 0)
			return (void *)(uintptr_t)(p + i);
	return NULL;
}

ssize_t
getrandom(void *buf, size_t n, unsigned flags)
{
	(void)flags;
	if (n > ULONG_MAX)
		n = ULONG_MAX;
	if (!BCRYPT_SUCCESS(BCryptGenRandom(NULL, buf, (ULONG)n,
	    BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
		errno = EIO;
		return -1;
	}
	return (ssize_t)n;
}

void
explicit_bzero(void *p, size_t n)
{
	SecureZeroMemory(p, n);
}

/* realpath(3): the full path of one that exists (ENOENT otherwise), in resolved (at
 * least PATH_MAX bytes) or, when that is NULL, in memory the caller frees. */
char *
realpath(const char *path, char *resolved)
{
	char buf[PATH_MAX], *out;
	struct stat st;
	DWORD n;

	if (path == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (stat(path, &st) == -1)
		return NULL;
	n = GetFullPathNameA(path, sizeof(buf), buf, NULL);
	if (n == 0 || n >= sizeof(buf)) {
		errno = n == 0 ? ENOENT : ENAMETOOLONG;
		return NULL;
	}
	if (resolved != NULL)
		return memcpy(resolved, buf, (size_t)n + 1);
	if ((out = malloc((size_t)n + 1)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	return memcpy(out, buf, (size_t)n + 1);
}

#undef strerror
const char *
sys_strerror(int e)
{
	switch (e) {
	case EAGAIN: return "Resource temporarily unavailable";
	case EINPROGRESS: return "Operation now in progress";
	case EALREADY: return "Operation already in progress";
	case EMSGSIZE: return "Message too long";
	case EAFNOSUPPORT: return "Address family not supported by protocol";
	case EADDRINUSE: return "Address already in use";
	case EADDRNOTAVAIL: return "Cannot assign requested address";
	case ENETDOWN: return "Network is down";
	case ENETUNREACH: return "Network is unreachable";
	case ENETRESET: return "Network dropped connection on reset";
	case ECONNABORTED: return "Software caused connection abort";
	case ECONNRESET: return "Connection reset by peer";
	case ENOBUFS: return "No buffer space available";
	case EISCONN: return "Transport endpoint is already connected";
	case ENOTCONN: return "Transport endpoint is not connected";
	case ETIMEDOUT: return "Connection timed out";
	case ECONNREFUSED: return "Connection refused";
	case EHOSTUNREACH: return "No route to host";
	default: return strerror(e);
	}
}

static int
sys_fail(void)
{
	errno = sys_errno_from_wsa(WSAGetLastError());
	return -1;
}

int
sys_init(void)
{
	static int done;
	WSADATA wd;
	int e;

	if (done)
		return 0;
	if ((e = WSAStartup(MAKEWORD(2, 2), &wd)) != 0) {
		errno = sys_errno_from_wsa(e);
		return -1;
	}
	done = 1;
	return 0;
}

int
sys_set_nonblock(int fd)
{
	u_long on = 1;

	return ioctlsocket((SOCKET)fd, FIONBIO, &on) == 0 ? 0 : sys_fail();
}

int
sys_sockclose(int fd)
{
	return closesocket((SOCKET)fd) == 0 ? 0 : sys_fail();
}

ssize_t
sys_recv(int fd, void *buf, size_t len)
{
	int n = recv((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, 0);

	if (n == SOCKET_ERROR) {
		sys_fail();
		if (errno == EAGAIN)
			evloop_blocked(fd, EV_READ);
		return -1;
	}
	/* A short read: callers take it for a drained socket (as epoll's do) and wait. */
	if ((size_t)n < len)
		evloop_blocked(fd, EV_READ);
	return n;
}

ssize_t
sys_send(int fd, const void *buf, size_t len)
{
	int n = send((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, 0);

	if (n == SOCKET_ERROR) {
		sys_fail();
		if (errno == EAGAIN)
			evloop_blocked(fd, EV_WRITE);
		return -1;
	}
	if ((size_t)n < len)
		evloop_blocked(fd, EV_WRITE);
	return n;
}

/* The socket is non-blocking already (every one the proxies hold is). */
ssize_t
sys_sock_peek(int fd, void *buf, size_t len)
{
	int n = recv((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, MSG_PEEK);

	return n == SOCKET_ERROR ? sys_fail() : n;
}

int
sys_socket(int family)
{
	SOCKET s;

	if (sys_init() == -1)
		return -1;
	s = WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, NULL, 0, WSA_FLAG_NO_HANDLE_INHERIT);
	if (s == INVALID_SOCKET)
		return sys_fail();
	if (sys_set_nonblock((int)s) == -1) {
		int e = errno;

		closesocket(s);
		errno = e;
		return -1;
	}
	return (int)s;
}

int
sys_accept(int lfd, struct sockaddr *sa, socklen_t *salen)
{
	SOCKET s = accept((SOCKET)lfd, sa, salen);

	if (s == INVALID_SOCKET)
		return sys_fail();
	/* Accepted sockets inherit the listener's non-blocking mode: set it anyway. */
	if (sys_set_nonblock((int)s) == -1) {
		int e = errno;

		closesocket(s);
		errno = e;
		return -1;
	}
	return (int)s;
}

int
sys_connect(int fd, const struct sockaddr *sa, socklen_t salen)
{
	if (connect((SOCKET)fd, sa, salen) == 0)
		return 0;
	sys_fail();
	if (errno == EAGAIN)
		errno = EINPROGRESS;
	return -1;
}

int
sys_shutdown_wr(int fd)
{
	return shutdown((SOCKET)fd, SD_SEND) == 0 ? 0 : sys_fail();
}

int
sys_sock_error(int fd, int *err)
{
	int e = 0, el = sizeof(e);

	if (getsockopt((SOCKET)fd, SOL_SOCKET, SO_ERROR, (char *)&e, &el) != 0)
		return sys_fail();
	*err = e == 0 ? 0 : sys_errno_from_wsa(e);
	return 0;
}

int
sys_setsockopt_int(int fd, int level, int name, int value)
{
	return setsockopt((SOCKET)fd, level, name, (const char *)&value, sizeof(value)) == 0 ?
	    0 : sys_fail();
}

/* Listen on a loopback port of the system's choosing, connect to it, accept; the accepted
 * socket must be the one that connected (its peer is our own local address), or another
 * local process raced us to the port. */
int
sys_socketpair(int sv[2])
{
	struct sockaddr_in a, local, peer;
	int alen = sizeof(a), llen = sizeof(local), plen = sizeof(peer);
	SOCKET l = INVALID_SOCKET, c = INVALID_SOCKET, s = INVALID_SOCKET;
	int saved;

	if (sys_init() == -1)
		return -1;
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((l = WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
	    WSA_FLAG_NO_HANDLE_INHERIT)) == INVALID_SOCKET ||
	    bind(l, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(l, (struct sockaddr *)&a, &alen) != 0 || listen(l, 1) != 0)
		goto fail;
	if ((c = WSASocketW(AF_INET, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
	    WSA_FLAG_NO_HANDLE_INHERIT)) == INVALID_SOCKET ||
	    connect(c, (struct sockaddr *)&a, sizeof(a)) != 0 ||
	    getsockname(c, (struct sockaddr *)&local, &llen) != 0 ||
	    (s = accept(l, (struct sockaddr *)&peer, &plen)) == INVALID_SOCKET)
		goto fail;
	if (peer.sin_port != local.sin_port || peer.sin_addr.s_addr != local.sin_addr.s_addr) {
		WSASetLastError(WSAECONNREFUSED);
		goto fail;
	}
	closesocket(l);
	sv[0] = (int)s;
	sv[1] = (int)c;
	return 0;
fail:
	saved = WSAGetLastError();
	if (s != INVALID_SOCKET)
		closesocket(s);
	if (c != INVALID_SOCKET)
		closesocket(c);
	if (l != INVALID_SOCKET)
		closesocket(l);
	errno = sys_errno_from_wsa(saved);
	return -1;
}
#endif
