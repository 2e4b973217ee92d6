/*
 * The proxies on Windows: what they take from srt's launcher, and what they refuse at
 * start.
 *
 * Taken from srt's Windows launcher (srt-launch/windows/winlaunch.c; the contract is in
 * srt-launch/common/winsys.h): --listen-fd, --policy-fd, --log-fd, --lifeline-fd and
 * --ready-fd, each the value of a HANDLE the launcher let the proxy inherit.
 * proxy_win_start turns them into what the shared core uses: the listener from the
 * WSAPROTOCOL_INFOW its carrier pipe holds (WSASocketW), the log and the ready pipe C
 * descriptors (_open_osfhandle), the lifeline a socket
 * that reaches end-of-file when the pipe does (a thread waits on the pipe, which WSAPoll
 * cannot); the policy file is read by proxy_win_policy_open, at offsets, as the two
 * proxies share the handle's file position.
 *
 * Refused, each with its reason, because it needs machinery the Windows build does not
 * have: -s (settings are read with cJSON, which has no mingw-w64 build: compile them
 * with srt-policy compile and pass -p), the other descriptor options of srt's Linux
 * launcher (--cred-fd, --ca-fd, --control-fd, --handoff-fd, the decider's), unix:
 * listeners, --relay-to, and in the policy an https:// parent proxy and srt-httpd's
 * tlsTerminate (OpenSSL) and mitmProxy (a Unix socket reached through a forked, confined
 * connector).
 *
 * Not done on Windows, and said so in the man pages: the proxy does not confine itself
 * (no seccomp: --no-sandbox is what it always is), it dials in its own process, the
 * managed policy is not merged at load (it is in the policy.bin srt-policy compiled),
 * and nothing reloads the policy (no SIGHUP: Ctrl-C, Ctrl-Break and the console closing
 * drain and exit).
 *
 * The refusals keep every path to the Linux-only modules the shared core links to
 * closed; lib/proxyd/proxy_absent_win.c stands in for them, in the proxies alone. (The
 * credentials' code, lib/core/cred.c, is built: with no --cred-fd its store is empty.)
 */
#ifdef _WIN32
#include <winsock2.h>
#include <windows.h>

#include <fcntl.h>
#include <io.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "proxy_win.h"
#include "sys.h"

static void
proxy_win_refuse(const char *prog, const char *what, const char *why)
{
	fprintf(stderr, "%s: %s is not available on Windows: %s\n", prog, what, why);
	exit(2);
}

static void proxy_win_fail(const char *prog, const char *fmt, ...) SRT_PRINTF(2, 3);

static void
proxy_win_fail(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

/* The HANDLE an option names: one this process has (inherited from srt). */
static HANDLE
proxy_win_handle(const char *prog, const char *opt, int v)
{
	HANDLE h = (HANDLE)(intptr_t)v;
	DWORD fl;

	if (!GetHandleInformation(h, &fl))
		proxy_win_fail(prog,
		    "%s %d: not a handle of this process (on Windows the value "
		    "of a handle srt's launcher lets it inherit)",
		    opt, v);
	return h;
}

/* --listen-fd: the socket from its carrier, a pipe holding its WSAPROTOCOL_INFOW
 * (srt-launch/common/winsys.h). Written before the proxy ran: nothing to wait for. */
static int
proxy_win_listener(const char *prog, int v)
{
	HANDLE h = proxy_win_handle(prog, "--listen-fd", v);
	WSAPROTOCOL_INFOW info;
	DWORD avail = 0, got = 0;
	SOCKET s;
	int type = 0, len = (int)sizeof(type);

	if (getsockopt((SOCKET)h, SOL_SOCKET, SO_TYPE, (char *)&type, &len) == 0)
		proxy_win_fail(prog,
		    "--listen-fd %d: a socket; on Windows it names the pipe "
		    "that carries the listener (WSADuplicateSocketW), as srt's launcher "
		    "passes it",
		    v);
	if (!PeekNamedPipe(h, NULL, 0, NULL, &avail, NULL) || avail < sizeof(info) ||
	    !ReadFile(h, &info, sizeof(info), &got, NULL) || got != sizeof(info))
		proxy_win_fail(prog,
		    "--listen-fd %d: not a pipe holding a listener's "
		    "WSAPROTOCOL_INFOW (%zu bytes)",
		    v, sizeof(info));
	CloseHandle(h);
	s = WSASocketW(FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO, FROM_PROTOCOL_INFO, &info, 0,
	    WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
	if (s == INVALID_SOCKET)
		proxy_win_fail(prog, "--listen-fd %d: WSASocketW: %s", v,
		    strerror(sys_errno_from_wsa(WSAGetLastError())));
	if ((uintptr_t)s > INT_MAX) {
		closesocket(s);
		proxy_win_fail(prog, "--listen-fd %d: a socket handle out of range", v);
	}
	return (int)s;
}

/* The lifeline's pipe and the socket the loop watches in its stead. */
struct proxy_win_lifeline {
	HANDLE pipe;
	int sock;
};

static DWORD WINAPI
proxy_win_lifeline_wait(LPVOID arg)
{
	struct proxy_win_lifeline *ll = arg;
	char buf[256];
	DWORD n;

	/* Until srt's write end closes (ERROR_BROKEN_PIPE) or the read fails. */
	while (ReadFile(ll->pipe, buf, sizeof(buf), &n, NULL))
		;
	sys_sockclose(ll->sock); /* the loop's end reads end-of-file */
	return 0;
}

/* --lifeline-fd: a socket at end-of-file once the pipe is. */
static int
proxy_win_lifeline(const char *prog, int v)
{
	struct proxy_win_lifeline *ll = xcalloc(1, sizeof(*ll));
	int sv[2];
	HANDLE t;

	ll->pipe = proxy_win_handle(prog, "--lifeline-fd", v);
	if (GetFileType(ll->pipe) != FILE_TYPE_PIPE)
		proxy_win_fail(prog, "--lifeline-fd %d: not a pipe", v);
	if (sys_socketpair(sv) == -1)
		fatal("--lifeline-fd %d: socket pair", v);
	ll->sock = sv[1];
	if ((t = CreateThread(NULL, 0, proxy_win_lifeline_wait, ll, 0, NULL)) == NULL)
		fatalx("--lifeline-fd %d: CreateThread: error %lu", v,
		    (unsigned long)GetLastError());
	CloseHandle(t);
	return sv[0];
}

/* --log-fd, --ready-fd: a C descriptor on the handle (a pipe's write end, or a file). */
static int
proxy_win_wfd(const char *prog, const char *opt, int v)
{
	HANDLE h = proxy_win_handle(prog, opt, v);
	int fd = _open_osfhandle((intptr_t)h, _O_WRONLY | _O_BINARY);

	if (fd == -1)
		proxy_win_fail(prog, "%s %d: %s", opt, v, strerror(errno));
	return fd;
}

struct policy *
proxy_win_policy_open(int v, char *err, size_t errlen)
{
	HANDLE h = (HANDLE)(intptr_t)v;
	LARGE_INTEGER size;
	struct policy *p;
	uint8_t *buf;
	size_t len, off = 0;
	DWORD fl;

	if (!GetHandleInformation(h, &fl) || GetFileType(h) != FILE_TYPE_DISK ||
	    !GetFileSizeEx(h, &size)) {
		snprintf(err, errlen, "--policy-fd %d: not a file handle of this process", v);
		return NULL;
	}
	if (size.QuadPart <= 0 || (uint64_t)size.QuadPart > UINT32_MAX - 1u) {
		snprintf(err, errlen, "policy.bin: %s",
		    size.QuadPart <= 0 ? "truncated: file is empty"
				       : "larger than any policy image");
		return NULL;
	}
	len = (size_t)size.QuadPart;
	buf = xmalloc(len);
	/* At offsets: the other proxy reads through the same file object. */
	while (off < len) {
		OVERLAPPED at;
		DWORD chunk = len - off > (1u << 30) ? (1u << 30) : (DWORD)(len - off), n = 0;

		memset(&at, 0, sizeof(at));
		at.Offset = (DWORD)((uint64_t)off & 0xffffffffu);
		at.OffsetHigh = (DWORD)((uint64_t)off >> 32);
		if (!ReadFile(h, buf + off, chunk, &n, &at) || n == 0) {
			snprintf(err, errlen, "policy.bin: read: error %lu",
			    (unsigned long)GetLastError());
			free(buf);
			return NULL;
		}
		off += n;
	}
	p = policy_open_mem(buf, len, err, errlen);
	free(buf);
	CloseHandle(h);
	return p;
}

void
proxy_win_start(struct proxy_opts *o, const char *prog)
{
	size_t i;

	if (o->settings_path != NULL)
		proxy_win_refuse(prog, "-s",
		    "settings files are read with cJSON, which this "
		    "build lacks; compile them with srt-policy compile -s FILE -o policy.bin "
		    "and pass -p policy.bin");
	if (o->cred_fd != -1)
		proxy_win_refuse(prog, "--cred-fd",
		    "masked credentials need OpenSSL and the "
		    "Linux launcher");
	if (o->ca_fd != -1)
		proxy_win_refuse(prog, "--ca-fd",
		    "TLS termination needs OpenSSL, which this "
		    "build lacks");
	if (o->control_fd != -1)
		proxy_win_refuse(prog, "--control-fd",
		    "srt's Linux launcher sends policy "
		    "updates over it with SCM_RIGHTS");
	if (o->decider_in != -1 || o->decider_out != -1 || o->decider_ready_fd != -1 || o->ask)
		proxy_win_refuse(prog, "a decider",
		    "its frames are read with cJSON, which this "
		    "build lacks");
	if (o->handoff_fd != -1)
		proxy_win_refuse(prog, "--handoff-fd",
		    "it passes sockets between processes "
		    "with SCM_RIGHTS");
	if (o->relay_port != 0)
		proxy_win_refuse(prog, "--relay-to",
		    "the launcher's plain relay is not part of "
		    "the Windows build");
	for (i = 0; i < o->listen.n; i++)
		if (strncmp(o->listen.v[i], "unix:", 5) == 0)
			proxy_win_refuse(prog, o->listen.v[i],
			    "listen on a loopback address "
			    "and port");
	/* Nothing confines the process here (no seccomp): say it is not narrowed, so that
	 * no opener is started for reloads and nothing is entered. */
	o->no_sandbox = true;
	if (sys_init() == -1)
		fatal("WSAStartup");
	/* The launcher's handles (srt-launch/common/winsys.h). */
	if (o->policy_fd != -1)
		(void)proxy_win_handle(prog, "--policy-fd", o->policy_fd);
	for (i = 0; i < o->nlisten_fds; i++)
		o->listen_fds[i] = proxy_win_listener(prog, o->listen_fds[i]);
	if (o->log_fd != -1)
		o->log_fd = proxy_win_wfd(prog, "--log-fd", o->log_fd);
	if (o->ready_fd != -1)
		o->ready_fd = proxy_win_wfd(prog, "--ready-fd", o->ready_fd);
	if (o->lifeline_fd != -1)
		o->lifeline_fd = proxy_win_lifeline(prog, o->lifeline_fd);
	/* The decision log's lines end with LF, as on Linux. */
	(void)_setmode(1, _O_BINARY);
	log_debug("Windows: not confined; dials in this process");
}

const char *
proxy_win_refused_routes(const struct upstream *up, bool terminate)
{
	if (upstream_needs_tls(up))
		return "network.parentProxy: an https:// parent proxy needs OpenSSL, which the "
		       "Windows build lacks";
	if (up->mitm_socket != NULL)
		return "network.mitmProxy: the inspection proxy is reached through a Unix "
		       "socket by a forked, confined connector, which the Windows build lacks";
	if (terminate)
		return "network.tlsTerminate needs OpenSSL, which the Windows build lacks";
	return NULL;
}
#endif
