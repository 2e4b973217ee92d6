/*
 * lib/core/sys.h on Windows: Winsock behind POSIX-shaped calls, its errors mapped to errno.
 */
#ifdef _WIN32
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <bcrypt.h>

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "sys.h"

int
sys_errno_from_wsa(int e)
{
	switch (e) {
	case WSAEWOULDBLOCK:
		return EAGAIN;
	case WSAEINPROGRESS:
		return EINPROGRESS;
	case WSAEALREADY:
		return EALREADY;
	case WSAEINTR:
		return EINTR;
	case WSAEBADF:
	case WSAENOTSOCK:
		return EBADF;
	case WSAEACCES:
		return EACCES;
	case WSAEFAULT:
		return EFAULT;
	case WSAEINVAL:
		return EINVAL;
	case WSAEMFILE:
		return EMFILE;
	case WSAENOBUFS:
		return ENOBUFS;
	case WSAEMSGSIZE:
		return EMSGSIZE;
	case WSAEAFNOSUPPORT:
		return EAFNOSUPPORT;
	case WSAEADDRINUSE:
		return EADDRINUSE;
	case WSAEADDRNOTAVAIL:
		return EADDRNOTAVAIL;
	case WSAENETDOWN:
		return ENETDOWN;
	case WSAENETUNREACH:
		return ENETUNREACH;
	case WSAENETRESET:
		return ENETRESET;
	case WSAECONNABORTED:
		return ECONNABORTED;
	case WSAECONNRESET:
		return ECONNRESET;
	case WSAEISCONN:
		return EISCONN;
	case WSAENOTCONN:
		return ENOTCONN;
	case WSAESHUTDOWN:
		return EPIPE;
	case WSAETIMEDOUT:
		return ETIMEDOUT;
	case WSAECONNREFUSED:
		return ECONNREFUSED;
	case WSAEHOSTUNREACH:
		return EHOSTUNREACH;
	case WSAEHOSTDOWN:
		return EHOSTUNREACH;
	default:
		return EIO;
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
	if (!BCRYPT_SUCCESS(
		BCryptGenRandom(NULL, buf, (ULONG)n, BCRYPT_USE_SYSTEM_PREFERRED_RNG))) {
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

wchar_t *
sys_wide(const char *s)
{
	int n = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, NULL, 0);
	wchar_t *w;

	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if ((w = malloc((size_t)n * sizeof(*w))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, -1, w, n) != n) {
		free(w);
		errno = EILSEQ;
		return NULL;
	}
	return w;
}

char *
sys_utf8(const wchar_t *w)
{
	int n = WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, NULL, 0, NULL, NULL);
	char *s;

	if (n <= 0) {
		errno = EILSEQ;
		return NULL;
	}
	if ((s = malloc((size_t)n)) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (WideCharToMultiByte(CP_UTF8, WC_ERR_INVALID_CHARS, w, -1, s, n, NULL, NULL) != n) {
		free(s);
		errno = EILSEQ;
		return NULL;
	}
	return s;
}

int
sys_open_utf8(const char *path, int flags, ...)
{
	wchar_t *w;
	va_list ap;
	int mode = 0, fd, e;

	if (flags & O_CREAT) {
		va_start(ap, flags);
		mode = va_arg(ap, int);
		va_end(ap);
	}
	if ((w = sys_wide(path)) == NULL)
		return -1;
	fd = _wopen(w, flags, mode);
	e = errno;
	free(w);
	errno = e;
	return fd;
}

int
sys_stat_utf8(const char *path, struct stat *st)
{
	struct _stat64 s;
	wchar_t *w;
	int r, e;

	if ((w = sys_wide(path)) == NULL)
		return -1;
	r = _wstat64(w, &s);
	e = errno;
	free(w);
	errno = e;
	if (r == -1)
		return -1;
	memset(st, 0, sizeof(*st));
	st->st_dev = s.st_dev;
	st->st_ino = s.st_ino;
	st->st_mode = s.st_mode;
	st->st_nlink = s.st_nlink;
	st->st_uid = s.st_uid;
	st->st_gid = s.st_gid;
	st->st_rdev = s.st_rdev;
	st->st_size = (_off_t)s.st_size; /* a settings file is small; fstat for more */
	st->st_atime = s.st_atime;
	st->st_mtime = s.st_mtime;
	st->st_ctime = s.st_ctime;
	return 0;
}

static int
errno_from_win(DWORD e)
{
	switch (e) {
	case ERROR_FILE_NOT_FOUND:
	case ERROR_PATH_NOT_FOUND:
	case ERROR_INVALID_NAME:
	case ERROR_BAD_NETPATH:
	case ERROR_INVALID_DRIVE:
		return ENOENT;
	case ERROR_ACCESS_DENIED:
	case ERROR_SHARING_VIOLATION:
		return EACCES;
	case ERROR_NOT_ENOUGH_MEMORY:
	case ERROR_OUTOFMEMORY:
		return ENOMEM;
	case ERROR_FILENAME_EXCED_RANGE:
		return ENAMETOOLONG;
	default:
		return EIO;
	}
}

/* The final name of an open object, "\\?\" taken off; EXDEV without a drive letter. */
static char *
final_name(HANDLE h)
{
	const DWORD how = FILE_NAME_NORMALIZED | VOLUME_NAME_DOS;
	DWORD n = GetFinalPathNameByHandleW(h, NULL, 0, how), m;
	wchar_t *f, *p;
	char *out;

	if (n == 0) {
		errno = errno_from_win(GetLastError());
		return NULL;
	}
	if ((f = malloc(((size_t)n + 1) * sizeof(*f))) == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	m = GetFinalPathNameByHandleW(h, f, n + 1, how);
	if (m == 0 || m > n) {
		errno = m == 0 ? errno_from_win(GetLastError()) : EAGAIN;
		free(f);
		return NULL;
	}
	p = f;
	if (wcsncmp(p, L"\\\\?\\", 4) == 0)
		p += 4;
	if (!(((p[0] >= L'A' && p[0] <= L'Z') || (p[0] >= L'a' && p[0] <= L'z')) &&
		p[1] == L':' && p[2] == L'\\')) {
		free(f);
		errno = EXDEV;
		return NULL;
	}
	out = sys_utf8(p);
	free(f);
	return out;
}

/* realpath(3) (sys_file.h): in resolved (at least PATH_MAX bytes) or, when that is
 * NULL, in memory the caller frees. An ACE applies to the object, so the name wanted is
 * the one the object has, after every link and junction. */
char *
realpath(const char *path, char *resolved)
{
	wchar_t *w;
	HANDLE h;
	char *out;
	size_t n;

	if (path == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if ((w = sys_wide(path)) == NULL)
		return NULL;
	/* Backup semantics: a directory opens too. */
	h = CreateFileW(w, FILE_READ_ATTRIBUTES,
	    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
	    FILE_FLAG_BACKUP_SEMANTICS, NULL);
	free(w);
	if (h == INVALID_HANDLE_VALUE) {
		errno = errno_from_win(GetLastError());
		return NULL;
	}
	out = final_name(h);
	CloseHandle(h);
	if (out == NULL || resolved == NULL)
		return out;
	if ((n = strlen(out)) >= PATH_MAX) {
		free(out);
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(resolved, out, n + 1);
	free(out);
	return resolved;
}

#undef strerror
const char *
sys_strerror(int e)
{
	switch (e) {
	case EAGAIN:
		return "Resource temporarily unavailable";
	case EINPROGRESS:
		return "Operation now in progress";
	case EALREADY:
		return "Operation already in progress";
	case EMSGSIZE:
		return "Message too long";
	case EAFNOSUPPORT:
		return "Address family not supported by protocol";
	case EADDRINUSE:
		return "Address already in use";
	case EADDRNOTAVAIL:
		return "Cannot assign requested address";
	case ENETDOWN:
		return "Network is down";
	case ENETUNREACH:
		return "Network is unreachable";
	case ENETRESET:
		return "Network dropped connection on reset";
	case ECONNABORTED:
		return "Software caused connection abort";
	case ECONNRESET:
		return "Connection reset by peer";
	case ENOBUFS:
		return "No buffer space available";
	case EISCONN:
		return "Transport endpoint is already connected";
	case ENOTCONN:
		return "Transport endpoint is not connected";
	case ETIMEDOUT:
		return "Connection timed out";
	case ECONNREFUSED:
		return "Connection refused";
	case EHOSTUNREACH:
		return "No route to host";
	default:
		return strerror(e);
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

/* Who is told of a recv or send that would block (sys.h): set from above, called from
 * here, so that this layer names nothing above it. */
static sys_blocked_hook *sys_win_blocked;

void
sys_win_set_blocked_hook(sys_blocked_hook *hook)
{
	sys_win_blocked = hook;
}

/*
 * The end of a recv or send of len bytes that returned n: one that would block, or a short
 * one, leaves fd waiting in direction dir (callers take a short read for a drained socket,
 * as epoll's do, and wait).
 */
static ssize_t
sys_io_done(int fd, int n, size_t len, enum sys_io_dir dir)
{
	if (n == SOCKET_ERROR) {
		sys_fail();
		if (errno == EAGAIN && sys_win_blocked != NULL)
			sys_win_blocked(fd, dir);
		return -1;
	}
	if ((size_t)n < len && sys_win_blocked != NULL)
		sys_win_blocked(fd, dir);
	return n;
}

ssize_t
sys_recv(int fd, void *buf, size_t len)
{
	return sys_io_done(
	    fd, recv((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, 0), len, SYS_IO_RECV);
}

ssize_t
sys_send(int fd, const void *buf, size_t len)
{
	return sys_io_done(
	    fd, send((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, 0), len, SYS_IO_SEND);
}

/* The socket is non-blocking already (every one the proxies hold is). */
ssize_t
sys_sock_peek(int fd, void *buf, size_t len)
{
	int n = recv((SOCKET)fd, buf, len > INT_MAX ? INT_MAX : (int)len, MSG_PEEK);

	return n == SOCKET_ERROR ? sys_fail() : n;
}

/* s, made non-blocking; or closed, -1 and errno. */
static int
sys_nonblocking(SOCKET s)
{
	int e;

	if (sys_set_nonblock((int)s) == 0)
		return (int)s;
	e = errno;
	closesocket(s);
	errno = e;
	return -1;
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
	return sys_nonblocking(s);
}

int
sys_accept(int lfd, struct sockaddr *sa, socklen_t *salen)
{
	SOCKET s = accept((SOCKET)lfd, sa, salen);

	if (s == INVALID_SOCKET)
		return sys_fail();
	/* Accepted sockets inherit the listener's non-blocking mode: set it anyway. */
	return sys_nonblocking(s);
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
	return setsockopt((SOCKET)fd, level, name, (const char *)&value, sizeof(value)) == 0
	    ? 0
	    : sys_fail();
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
