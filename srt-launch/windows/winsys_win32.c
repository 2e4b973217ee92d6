/*
 * winsys.h on Windows (mingw-w64): built by `make win` with warnings as errors, and run
 * under Wine by tests/windows/srt-win-wine.bats through tests/helpers-win/winsys-drive.c. It is
 * not linked into an srt.exe yet: srt-launch does not build for Windows (winlaunch.h).
 *
 * Strings are UTF-8 at the interface and UTF-16 at the calls. Only the handles named in
 * a spawn reach the child (PROC_THREAD_ATTRIBUTE_HANDLE_LIST): they are made inheritable
 * for the one CreateProcessW and no longer after it; spawns are never concurrent here.
 * A listener reaches a child through its carrier, a pipe that the spawn fills with the
 * socket duplicated for the child (WSADuplicateSocketW) while the child is suspended.
 */
#define _CRT_RAND_S

#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <sddl.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "proxy_listen.h"
#include "sys_file.h"
#include "util.h"
#include "wincmdline.h"
#include "common/winsys.h"

#define SOCKETS_MAX 8      /* listeners open at once: two per proxy */
#define CTRL_GRACE_MS 4500 /* close/logoff/shutdown: time srt gets to clean up */
#define PIPE_LOOK_MS 50

struct ws_proc {
	HANDLE h;
	DWORD pid;
	int status;
	bool done;
};

static HANDLE job;        /* the proxies': they end when srt's handle closes */
static HANDLE term_event; /* set by the console control handler */
static HANDLE done_event; /* set by ws_fini: srt has cleaned up */
static volatile LONG term_sig;
static SOCKET sockets[SOCKETS_MAX]; /* ours, closed with closesocket */
static size_t nsockets;
/* The listeners' carriers (ws_listen_carrier): w is NULL once a spawn has filled r. */
static struct carrier {
	HANDLE r, w;
	SOCKET s;
} carriers[SOCKETS_MAX];
static size_t ncarriers;
static bool wsa_up;

/* --- strings and errors ---------------------------------------------------------------- */

/* what: Windows' message for err. */
static void
warn_win(DWORD err, const char *what)
{
	wchar_t *msg = NULL;
	char *m = NULL;
	size_t n;

	if (FormatMessageW(FORMAT_MESSAGE_ALLOCATE_BUFFER | FORMAT_MESSAGE_FROM_SYSTEM |
		    FORMAT_MESSAGE_IGNORE_INSERTS,
		NULL, err, 0, (LPWSTR)&msg, 0, NULL) != 0 &&
	    msg != NULL)
		m = sys_utf8(msg);
	if (msg != NULL)
		LocalFree(msg);
	for (n = m != NULL ? strlen(m) : 0; n > 0 &&
	     (m[n - 1] == '\n' || m[n - 1] == '\r' || m[n - 1] == '.' || m[n - 1] == ' ');
	     n--)
		m[n - 1] = '\0';
	log_warnx("%s: %s (error %lu)", what, m != NULL && *m != '\0' ? m : "failed",
	    (unsigned long)err);
	free(m);
}

static HANDLE
as_handle(ws_handle h)
{
	return (HANDLE)(intptr_t)h;
}

/* --- start and end ---------------------------------------------------------------------- */

static BOOL WINAPI
on_ctrl(DWORD type)
{
	/* Ctrl-C and Ctrl-Break reach srt-win through the console too: SIGINT, which srt
	 * waits on. Closing, logoff and shutdown: SIGTERM. */
	LONG sig = type == CTRL_C_EVENT || type == CTRL_BREAK_EVENT ? SIGINT : SIGTERM;

	(void)InterlockedCompareExchange(&term_sig, sig, 0);
	SetEvent(term_event);
	/* After these three Windows ends the process once the handler returns: wait here
	 * for srt's own clean-up (the proxies, the plan file), a while at most. */
	if (type == CTRL_CLOSE_EVENT || type == CTRL_LOGOFF_EVENT ||
	    type == CTRL_SHUTDOWN_EVENT)
		WaitForSingleObject(done_event, CTRL_GRACE_MS);
	return TRUE;
}

int
ws_init(void)
{
	JOBOBJECT_EXTENDED_LIMIT_INFORMATION li;
	WSADATA wd;
	int r;

	if ((r = WSAStartup(MAKEWORD(2, 2), &wd)) != 0) {
		warn_win((DWORD)r, "WSAStartup");
		return -1;
	}
	wsa_up = true;
	if ((job = CreateJobObjectW(NULL, NULL)) == NULL) {
		warn_win(GetLastError(), "CreateJobObjectW");
		return -1;
	}
	memset(&li, 0, sizeof(li));
	li.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
	if (!SetInformationJobObject(job, JobObjectExtendedLimitInformation, &li, sizeof(li))) {
		warn_win(GetLastError(), "SetInformationJobObject (kill on close)");
		return -1;
	}
	if ((term_event = CreateEventW(NULL, TRUE, FALSE, NULL)) == NULL ||
	    (done_event = CreateEventW(NULL, TRUE, FALSE, NULL)) == NULL) {
		warn_win(GetLastError(), "CreateEventW");
		return -1;
	}
	term_sig = 0;
	if (!SetConsoleCtrlHandler(on_ctrl, TRUE)) {
		warn_win(GetLastError(), "SetConsoleCtrlHandler");
		return -1;
	}
	return 0;
}

void
ws_fini(void)
{
	(void)SetConsoleCtrlHandler(on_ctrl, FALSE);
	if (done_event != NULL)
		SetEvent(done_event);
	if (job != NULL)
		CloseHandle(job); /* whatever is left in it ends now */
	job = NULL;
	if (wsa_up)
		WSACleanup();
	wsa_up = false;
}

/* --- sockets ----------------------------------------------------------------------------- */

static bool
is_socket(ws_handle h, size_t *at)
{
	size_t i;

	for (i = 0; i < nsockets; i++)
		if ((ws_handle)sockets[i] == h) {
			if (at != NULL)
				*at = i;
			return true;
		}
	return false;
}

static void
socket_close(SOCKET s)
{
	size_t i;

	if (is_socket((ws_handle)s, &i))
		sockets[i] = sockets[--nsockets];
	closesocket(s);
}

/* 0 and *out listening; 1 the port is taken; -1 another failure (logged). */
static int
listen_on(int family, int port, SOCKET *out)
{
	struct sockaddr_storage ss;
	int len, one = 1, e;
	SOCKET s;

	if (nsockets == SOCKETS_MAX) {
		log_warnx("too many listeners");
		return -1;
	}
	s = WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, NULL, 0,
	    WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
	if (s == INVALID_SOCKET) {
		e = WSAGetLastError();
		if (family == AF_INET6 && e == WSAEAFNOSUPPORT)
			return 2;
		warn_win((DWORD)e, "WSASocketW");
		return -1;
	}
	/* Nobody else may bind the port beside us (Windows would let them otherwise). */
	(void)setsockopt(s, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&one, sizeof(one));
	if (family == AF_INET6)
		(void)setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, (const char *)&one, sizeof(one));
	len = (int)proxy_listen_loopback(family, (uint16_t)port, &ss);
	if (bind(s, (struct sockaddr *)&ss, len) == SOCKET_ERROR ||
	    listen(s, SOMAXCONN) == SOCKET_ERROR) {
		e = WSAGetLastError();
		closesocket(s);
		if (e == WSAEADDRINUSE || e == WSAEACCES)
			return 1;
		if (family == AF_INET6 && (e == WSAEADDRNOTAVAIL || e == WSAEAFNOSUPPORT))
			return 2;
		warn_win(
		    (DWORD)e, family == AF_INET ? "listen on 127.0.0.1" : "listen on [::1]");
		return -1;
	}
	sockets[nsockets++] = s;
	*out = s;
	return 0;
}

int
ws_listen_loopback(int *port, ws_handle *v4, ws_handle *v6)
{
	struct sockaddr_in s4;
	int len = (int)sizeof(s4), r;
	SOCKET s, t;

	*v4 = *v6 = WS_NONE;
	if ((r = listen_on(AF_INET, *port, &s)) != 0)
		return r;
	if (*port == 0) {
		if (getsockname(s, (struct sockaddr *)&s4, &len) == SOCKET_ERROR) {
			warn_win((DWORD)WSAGetLastError(), "getsockname");
			socket_close(s);
			return -1;
		}
		*port = ntohs(s4.sin_port);
	}
	switch (listen_on(AF_INET6, *port, &t)) {
	case 0:
		*v6 = (ws_handle)t;
		break;
	case 2:
		break; /* no IPv6 loopback here */
	case 1:
		socket_close(s);
		return 1;
	default:
		socket_close(s);
		return -1;
	}
	*v4 = (ws_handle)s;
	return 0;
}

static struct carrier *
carrier_of(ws_handle h)
{
	size_t i;

	for (i = 0; i < ncarriers; i++)
		if ((ws_handle)(intptr_t)carriers[i].r == h)
			return &carriers[i];
	return NULL;
}

int
ws_listen_carrier(ws_handle lis, ws_handle *carrier)
{
	HANDLE r, w;

	if (!is_socket(lis, NULL)) {
		log_warnx("%ld: not a listener of this process", lis);
		return -1;
	}
	if (ncarriers == SOCKETS_MAX) {
		log_warnx("too many listeners to hand over");
		return -1;
	}
	/* Room for the one WSAPROTOCOL_INFOW: the write never waits for the reader. */
	if (!CreatePipe(&r, &w, NULL, 2 * (DWORD)sizeof(WSAPROTOCOL_INFOW))) {
		warn_win(GetLastError(), "CreatePipe");
		return -1;
	}
	carriers[ncarriers].r = r;
	carriers[ncarriers].w = w;
	carriers[ncarriers].s = (SOCKET)lis;
	ncarriers++;
	*carrier = (ws_handle)(intptr_t)r;
	return 0;
}

static void
carrier_close(struct carrier *c)
{
	CloseHandle(c->r);
	if (c->w != NULL)
		CloseHandle(c->w);
	*c = carriers[--ncarriers];
}

static int write_all(HANDLE h, const void *data, size_t len);

/* The listeners of the carriers in sp's list, duplicated for the (suspended) child pid:
 * each WSAPROTOCOL_INFOW written to its pipe, whose write end then closes. */
static int
carriers_fill(const struct ws_spawn *sp, DWORD pid)
{
	WSAPROTOCOL_INFOW info;
	struct carrier *c;
	size_t i;

	for (i = 0; i < sp->ninherit; i++) {
		if ((c = carrier_of(sp->inherit[i])) == NULL)
			continue;
		if (c->w == NULL) {
			log_warnx("%s: the listener's carrier %ld was handed over already",
			    sp->argv[0], sp->inherit[i]);
			return -1;
		}
		memset(&info, 0, sizeof(info));
		if (WSADuplicateSocketW(c->s, pid, &info) != 0) {
			warn_win((DWORD)WSAGetLastError(), "WSADuplicateSocketW");
			return -1;
		}
		if (write_all(c->w, &info, sizeof(info)) == -1) {
			warn_win(GetLastError(), "the listener's carrier");
			return -1;
		}
		CloseHandle(c->w);
		c->w = NULL;
	}
	return 0;
}

/* --- pipes and files -------------------------------------------------------------------- */

int
ws_pipe(ws_handle *r, ws_handle *w)
{
	HANDLE hr, hw;

	if (!CreatePipe(&hr, &hw, NULL, 0)) {
		warn_win(GetLastError(), "CreatePipe");
		return -1;
	}
	*r = (ws_handle)(intptr_t)hr;
	*w = (ws_handle)(intptr_t)hw;
	return 0;
}

long
ws_read(ws_handle h, void *buf, size_t len)
{
	DWORD avail = 0, got = 0, e;

	if (!PeekNamedPipe(as_handle(h), NULL, 0, NULL, &avail, NULL)) {
		e = GetLastError();
		return e == ERROR_BROKEN_PIPE ? 0 : -2;
	}
	if (avail == 0)
		return -1;
	if (len > avail)
		len = avail;
	if (!ReadFile(as_handle(h), buf, (DWORD)len, &got, NULL)) {
		e = GetLastError();
		return e == ERROR_BROKEN_PIPE ? 0 : -2;
	}
	return (long)got;
}

void
ws_close(ws_handle *h)
{
	struct carrier *c;

	if (*h == WS_NONE)
		return;
	if (is_socket(*h, NULL))
		socket_close((SOCKET)*h);
	else if ((c = carrier_of(*h)) != NULL)
		carrier_close(c);
	else
		CloseHandle(as_handle(*h));
	*h = WS_NONE;
}

char *
ws_temp_dir(void)
{
	wchar_t dir[MAX_PATH + 1];
	DWORD n = GetTempPathW(MAX_PATH + 1, dir);

	return n == 0 || n > MAX_PATH ? NULL : sys_utf8(dir);
}

/* A DACL of one entry for the user srt runs as (and one for the system), protected from
 * what the directory would pass on. LocalFree it. */
static PSECURITY_DESCRIPTOR
user_only_sd(void)
{
	PSECURITY_DESCRIPTOR sd = NULL;
	TOKEN_USER *tu = NULL;
	HANDLE tok;
	DWORD n = 0;
	LPWSTR wsid = NULL;
	char *sid = NULL, *sddl;
	wchar_t *w;

	if (!OpenProcessToken(GetCurrentProcess(), TOKEN_QUERY, &tok)) {
		warn_win(GetLastError(), "OpenProcessToken");
		return NULL;
	}
	(void)GetTokenInformation(tok, TokenUser, NULL, 0, &n);
	tu = xcalloc(1, n > 0 ? n : 1);
	if (!GetTokenInformation(tok, TokenUser, tu, n, &n) ||
	    !ConvertSidToStringSidW(tu->User.Sid, &wsid) || (sid = sys_utf8(wsid)) == NULL) {
		warn_win(GetLastError(), "the user's SID");
		goto out;
	}
	sddl = xasprintf("D:P(A;;FA;;;%s)(A;;FA;;;SY)", sid);
	w = sys_wide(sddl);
	if (w == NULL ||
	    !ConvertStringSecurityDescriptorToSecurityDescriptorW(
		w, SDDL_REVISION_1, &sd, NULL)) {
		warn_win(
		    GetLastError(), "ConvertStringSecurityDescriptorToSecurityDescriptorW");
		sd = NULL;
	}
	free(w);
	free(sddl);
out:
	if (wsid != NULL)
		LocalFree(wsid);
	free(sid);
	free(tu);
	CloseHandle(tok);
	return sd;
}

/* A new file in the temp directory, prefix and random hex, for srt's user only (and the
 * system): delete_on_close makes it the anonymous kind. */
static HANDLE
tmp_create(const char *prefix, bool delete_on_close, char **path)
{
	SECURITY_ATTRIBUTES sa = { sizeof(sa), NULL, FALSE };
	PSECURITY_DESCRIPTOR sd = NULL;
	HANDLE h = INVALID_HANDLE_VALUE;
	char *base;
	int tries;

	*path = NULL;
	if ((base = ws_temp_dir()) == NULL) {
		warn_win(GetLastError(), "GetTempPathW");
		return NULL;
	}
	if ((sd = user_only_sd()) == NULL) {
		free(base);
		return NULL;
	}
	sa.lpSecurityDescriptor = sd;
	for (tries = 0; tries < 16 && h == INVALID_HANDLE_VALUE; tries++) {
		unsigned int a = 0, b = 0;
		wchar_t *w;

		if (rand_s(&a) != 0 || rand_s(&b) != 0)
			break;
		free(*path);
		*path = xasprintf("%s%s%08x%08x", base, prefix, a, b);
		if ((w = sys_wide(*path)) == NULL)
			break;
		h = CreateFileW(w, GENERIC_READ | GENERIC_WRITE,
		    delete_on_close ? 0 : FILE_SHARE_READ, &sa, CREATE_NEW,
		    FILE_ATTRIBUTE_TEMPORARY |
			(delete_on_close ? FILE_FLAG_DELETE_ON_CLOSE : 0),
		    NULL);
		free(w);
		if (h == INVALID_HANDLE_VALUE && GetLastError() != ERROR_FILE_EXISTS)
			break;
	}
	if (h == INVALID_HANDLE_VALUE) {
		warn_win(GetLastError(), *path != NULL ? *path : "temp file");
		free(*path);
		*path = NULL;
	}
	LocalFree(sd);
	free(base);
	return h == INVALID_HANDLE_VALUE ? NULL : h;
}

static int
write_all(HANDLE h, const void *data, size_t len)
{
	const char *p = data;

	while (len > 0) {
		DWORD chunk = len > (1u << 30) ? (1u << 30) : (DWORD)len, n = 0;

		if (!WriteFile(h, p, chunk, &n, NULL) || n == 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

int
ws_anon_file(const void *data, size_t len, ws_handle *h)
{
	char *path;
	HANDLE f = tmp_create("srt-anon.", true, &path);

	if (f == NULL)
		return -1;
	if (write_all(f, data, len) == -1 ||
	    SetFilePointer(f, 0, NULL, FILE_BEGIN) == INVALID_SET_FILE_POINTER) {
		warn_win(GetLastError(), path);
		CloseHandle(f);
		free(path);
		return -1;
	}
	free(path);
	*h = (ws_handle)(intptr_t)f;
	return 0;
}

int
ws_private_file(const char *prefix, const void *data, size_t len, char **path)
{
	HANDLE f = tmp_create(prefix, false, path);

	if (f == NULL)
		return -1;
	if (write_all(f, data, len) == -1) {
		warn_win(GetLastError(), *path);
		CloseHandle(f);
		(void)ws_remove(*path);
		free(*path);
		*path = NULL;
		return -1;
	}
	CloseHandle(f);
	return 0;
}

int
ws_remove(const char *path)
{
	wchar_t *w = sys_wide(path);
	BOOL ok = w != NULL && DeleteFileW(w);
	DWORD e = GetLastError();

	free(w);
	if (!ok && e != ERROR_FILE_NOT_FOUND) {
		warn_win(e, path);
		return -1;
	}
	return 0;
}

static bool
is_file(const char *path)
{
	wchar_t *w = sys_wide(path);
	DWORD a = w != NULL ? GetFileAttributesW(w) : INVALID_FILE_ATTRIBUTES;

	free(w);
	return a != INVALID_FILE_ATTRIBUTES && !(a & FILE_ATTRIBUTE_DIRECTORY);
}

bool
ws_executable(const char *path)
{
	char *exe;
	bool ok;

	if (is_file(path))
		return true;
	exe = xasprintf("%s.exe", path);
	ok = is_file(exe);
	free(exe);
	return ok;
}

char *
ws_self_dir(void)
{
	wchar_t buf[32768];
	DWORD n = GetModuleFileNameW(NULL, buf, sizeof(buf) / sizeof(buf[0]));
	char *s, *slash;

	if (n == 0 || n >= sizeof(buf) / sizeof(buf[0]) || (s = sys_utf8(buf)) == NULL) {
		warn_win(GetLastError(), "GetModuleFileNameW");
		return NULL;
	}
	if ((slash = strrchr(s, '\\')) != NULL)
		*slash = '\0';
	return s;
}

/* --- processes -------------------------------------------------------------------------- */

/* A CreateProcessW environment block: NAME=value\0...\0\0, UTF-16. */
static wchar_t *
env_block(char *const *envp)
{
	size_t total = 1, n, i;
	wchar_t *block, *p;

	for (i = 0; envp[i] != NULL; i++)
		total += strlen(envp[i]) + 1;
	block = xcalloc(total, sizeof(wchar_t));
	for (p = block, i = 0; envp[i] != NULL; i++) {
		n = (size_t)MultiByteToWideChar(
		    CP_UTF8, 0, envp[i], -1, p, (int)(total - (size_t)(p - block)));
		if (n == 0) {
			free(block);
			return NULL;
		}
		p += n;
	}
	*p = L'\0';
	return block;
}

/* Make the listed handles inheritable (on) or not (off). */
static int
set_inherit(const struct ws_spawn *sp, bool on)
{
	size_t i;

	for (i = 0; i < sp->ninherit; i++)
		if (!SetHandleInformation(as_handle(sp->inherit[i]), HANDLE_FLAG_INHERIT,
			on ? HANDLE_FLAG_INHERIT : 0) &&
		    on) {
			warn_win(GetLastError(), "SetHandleInformation");
			return -1;
		}
	return 0;
}

int
ws_spawn(const struct ws_spawn *sp, struct ws_proc **out)
{
	STARTUPINFOEXW si;
	PROCESS_INFORMATION pi;
	HANDLE list[32], nul = INVALID_HANDLE_VALUE;
	SECURITY_ATTRIBUTES inh = { sizeof(inh), NULL, TRUE };
	SIZE_T asize = 0;
	wchar_t *cmd = NULL, *env = NULL;
	char *line = NULL;
	size_t n = 0, i;
	int rc = -1;
	bool suspend = sp->with_srt;
	BOOL ok;

	memset(&si, 0, sizeof(si));
	memset(&pi, 0, sizeof(pi));
	si.StartupInfo.cb = sizeof(si);
	si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
	si.StartupInfo.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
	si.StartupInfo.hStdOutput = sp->out != WS_NONE ? as_handle(sp->out)
						       : GetStdHandle(STD_OUTPUT_HANDLE);
	si.StartupInfo.hStdError = GetStdHandle(STD_ERROR_HANDLE);
	if (sp->null_in) {
		nul = CreateFileW(L"NUL", GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE,
		    &inh, OPEN_EXISTING, 0, NULL);
		if (nul == INVALID_HANDLE_VALUE) {
			warn_win(GetLastError(), "NUL");
			return -1;
		}
		si.StartupInfo.hStdInput = nul;
	}
	if (sp->ninherit + 3 > sizeof(list) / sizeof(list[0])) {
		log_warnx("%s: too many handles to pass", sp->argv[0]);
		goto out;
	}
	for (i = 0; i < sp->ninherit; i++) {
		list[n++] = as_handle(sp->inherit[i]);
		suspend = suspend || carrier_of(sp->inherit[i]) != NULL;
	}
	/* The standard handles go in the list too; a console handle is not a kernel
	 * object to inherit (Windows duplicates those itself), and neither is nothing. */
	{
		HANDLE std[3] = { si.StartupInfo.hStdInput, si.StartupInfo.hStdOutput,
			si.StartupInfo.hStdError };

		for (i = 0; i < 3; i++) {
			DWORD fl;
			size_t j;
			bool seen = false;

			if (std[i] == NULL || std[i] == INVALID_HANDLE_VALUE ||
			    !GetHandleInformation(std[i], &fl) || !(fl & HANDLE_FLAG_INHERIT))
				continue;
			for (j = 0; j < n; j++)
				seen = seen || list[j] == std[i];
			if (!seen)
				list[n++] = std[i];
		}
	}
	if ((line = wincmdline_join(sp->argv)) == NULL || (cmd = sys_wide(line)) == NULL) {
		log_warnx("%s: the command line is not UTF-8", sp->argv[0]);
		goto out;
	}
	if (sp->envp != NULL && (env = env_block(sp->envp)) == NULL) {
		log_warnx("%s: the environment is not UTF-8", sp->argv[0]);
		goto out;
	}
	(void)InitializeProcThreadAttributeList(NULL, 1, 0, &asize);
	si.lpAttributeList = xcalloc(1, asize);
	if (!InitializeProcThreadAttributeList(si.lpAttributeList, 1, 0, &asize)) {
		warn_win(GetLastError(), "InitializeProcThreadAttributeList");
		free(si.lpAttributeList);
		si.lpAttributeList = NULL;
		goto out;
	}
	if (n > 0 &&
	    !UpdateProcThreadAttribute(si.lpAttributeList, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST,
		list, n * sizeof(HANDLE), NULL, NULL)) {
		warn_win(GetLastError(), "UpdateProcThreadAttribute (handle list)");
		goto out;
	}
	if (set_inherit(sp, true) == -1)
		goto out;
	/* Suspended until it is in the job (nothing it starts can be outside it) and its
	 * listeners' carriers are filled (they need its process id). The program is found
	 * as the command line's first word (".exe" added). */
	ok = CreateProcessW(NULL, cmd, NULL, NULL, n > 0,
	    CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT |
		(suspend ? CREATE_SUSPENDED : 0),
	    env, NULL, &si.StartupInfo, &pi);
	(void)set_inherit(sp, false);
	if (!ok) {
		warn_win(GetLastError(), sp->argv[0]);
		goto out;
	}
	if (sp->with_srt && (job == NULL || !AssignProcessToJobObject(job, pi.hProcess))) {
		warn_win(job == NULL ? ERROR_INVALID_HANDLE : GetLastError(),
		    "AssignProcessToJobObject");
		ok = FALSE;
	} else
		ok = carriers_fill(sp, pi.dwProcessId) == 0;
	if (!ok) {
		TerminateProcess(pi.hProcess, 1);
		WaitForSingleObject(pi.hProcess, INFINITE);
		CloseHandle(pi.hProcess);
		CloseHandle(pi.hThread);
		goto out;
	}
	if (suspend)
		ResumeThread(pi.hThread);
	CloseHandle(pi.hThread);
	*out = xcalloc(1, sizeof(**out));
	(*out)->h = pi.hProcess;
	(*out)->pid = pi.dwProcessId;
	rc = 0;
out:
	if (si.lpAttributeList != NULL) {
		DeleteProcThreadAttributeList(si.lpAttributeList);
		free(si.lpAttributeList);
	}
	if (nul != INVALID_HANDLE_VALUE)
		CloseHandle(nul);
	free(line);
	free(cmd);
	free(env);
	return rc;
}

bool
ws_ended(struct ws_proc *p, int *status)
{
	DWORD code;

	if (!p->done && WaitForSingleObject(p->h, 0) == WAIT_OBJECT_0) {
		p->done = true;
		p->status = GetExitCodeProcess(p->h, &code) ? (int)code : 125;
		/* A program ended by Ctrl-C: 128 + SIGINT, as srt on Linux reports it. */
		if (p->status == (int)STATUS_CONTROL_C_EXIT)
			p->status = 128 + SIGINT;
	}
	if (p->done && status != NULL)
		*status = p->status;
	return p->done;
}

int
ws_wait(struct ws_proc *p, ws_handle h, int timeout_ms)
{
	DWORD start = GetTickCount();

	for (;;) {
		HANDLE w[2];
		DWORD nw = 0, slice = h != WS_NONE ? PIPE_LOOK_MS : INFINITE, elapsed;
		int ev = 0;

		if (p != NULL && ws_ended(p, NULL))
			ev |= WS_EV_EXIT;
		if (term_sig != 0)
			ev |= WS_EV_TERM;
		if (h != WS_NONE) {
			DWORD avail = 0;

			/* Data or the writer's end both make a read worth it. */
			if (!PeekNamedPipe(as_handle(h), NULL, 0, NULL, &avail, NULL) ||
			    avail > 0)
				ev |= WS_EV_READ;
		}
		if (ev != 0)
			return ev;
		elapsed = GetTickCount() - start;
		if (timeout_ms >= 0) {
			if (elapsed >= (DWORD)timeout_ms)
				return 0;
			if (slice == INFINITE || (DWORD)timeout_ms - elapsed < slice)
				slice = (DWORD)timeout_ms - elapsed;
		}
		if (p != NULL && !p->done)
			w[nw++] = p->h;
		if (term_event != NULL)
			w[nw++] = term_event;
		if (nw == 0)
			Sleep(slice == INFINITE ? PIPE_LOOK_MS : slice);
		else
			(void)WaitForMultipleObjects(nw, w, FALSE, slice);
	}
}

int
ws_term_take(void)
{
	LONG s = InterlockedExchange(&term_sig, 0);

	if (term_event != NULL)
		ResetEvent(term_event);
	return (int)s;
}

void
ws_forward(struct ws_proc *p, int sig)
{
	/* The console has given Ctrl-C to every process attached to it, srt-win too. */
	(void)p;
	(void)sig;
}

void
ws_kill(struct ws_proc *p)
{
	if (p == NULL || p->done)
		return;
	(void)TerminateProcess(p->h, 1);
	(void)WaitForSingleObject(p->h, INFINITE);
	(void)ws_ended(p, NULL);
}

void
ws_proc_free(struct ws_proc *p)
{
	if (p == NULL)
		return;
	if (!p->done)
		(void)WaitForSingleObject(p->h, INFINITE);
	CloseHandle(p->h);
	free(p);
}

unsigned long
ws_self_pid(void)
{
	return (unsigned long)GetCurrentProcessId();
}

long long
ws_now_ms(void)
{
	return (long long)GetTickCount64();
}

void
ws_sleep_ms(int ms)
{
	Sleep((DWORD)ms);
}
