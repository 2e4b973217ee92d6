/*
 * Every operating-system call of srt's Windows launch path (winlaunch.c), behind one small
 * interface with two implementations:
 *
 *   winsys_win32.c   Windows: handles, CreateProcessW with an explicit handle list
 *                    (STARTUPINFOEX, PROC_THREAD_ATTRIBUTE_HANDLE_LIST), a kill-on-close
 *                    job for the proxies, SetConsoleCtrlHandler, Winsock listeners
 *   winsys_posix.c   POSIX descriptors, fork and execve, signals: the tests run the whole
 *                    Windows path on Linux with it, and the macOS path (macos.c) uses its
 *                    listeners, anonymous file and spawn as well
 *
 * A handle is a descriptor on POSIX and a HANDLE (a SOCKET for a listener) on Windows;
 * either fits a long (Windows keeps handle values below 2^32).
 *
 * What a child inherits: exactly the handles named in ws_spawn's list, each at the same
 * value it has here, and the standard streams; nothing else, whatever else is open or
 * inheritable. That is the contract with the proxies on both systems: srt-httpd and
 * srt-socksd get the values on their command line, --listen-fd N (a listener's carrier,
 * ws_listen_carrier), --policy-fd N (a file, read from its start), --log-fd N (the write
 * end of a pipe for their decision lines) and --lifeline-fd N (the read end of a pipe
 * that reaches end-of-file when srt is gone).
 *
 * On POSIX a listener's carrier is the listening socket itself (a duplicate of it). On
 * Windows every N is a HANDLE value, --listen-fd's included: a socket is not handed over
 * by handle inheritance (Winsock does not promise that an inherited SOCKET works in the
 * child, a layered provider may break it, and Wine 8 answers WSAENOTSOCK to getsockopt
 * on one) but the way Microsoft documents for sharing a socket with another process. The carrier is the read end of a pipe; ws_spawn, once the child
 * exists and before it runs (it starts suspended), duplicates the socket for it with
 * WSADuplicateSocketW and writes the WSAPROTOCOL_INFOW, sizeof(WSAPROTOCOL_INFOW)
 * bytes, into the pipe, then closes the pipe's write end. The proxy reads exactly that
 * and makes its socket with WSASocketW(FROM_PROTOCOL_INFO, ..., &info, ...). The other
 * three a proxy turns into what it reads and writes with ReadFile, _open_osfhandle()
 * and a thread waiting for the lifeline's end of file. The Windows proxies are also in a
 * job that kills them when srt's last handle to it closes, however srt ends; the
 * lifeline is what ends them when a run ends in order.
 */
#ifndef SRT_WINSYS_H
#define SRT_WINSYS_H

#include <stdbool.h>
#include <stddef.h>

typedef long ws_handle;
#define WS_NONE (-1L)

#ifdef _WIN32
#define WS_SEP "\\" /* between a directory and a name */
#else
#define WS_SEP "/"
#endif

/* One started process (a pid, or a process HANDLE). */
struct ws_proc;

/* Before anything else: the termination notification (POSIX: SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT caught, SIGPIPE ignored; Windows: a console control handler for Ctrl-C,
 * Ctrl-Break, close, logoff and shutdown), and on Windows Winsock and the proxies' job.
 * ws_fini undoes what a caller may notice: the handlers. -1 with a message logged. */
int ws_init(void);
void ws_fini(void);

/*
 * Listen on 127.0.0.1:*port and, where the host has IPv6 loopback, [::1]:*port (*v6 is
 * WS_NONE where it has not). *port 0: the system picks a free IPv4 port and *port is set
 * to it. Returns 0; 1 when the port is taken on either address (nothing is left open);
 * -1 with a message logged on any other failure. Neither handle is inheritable.
 */
int ws_listen_loopback(int *port, ws_handle *v4, ws_handle *v6);

/*
 * What to pass a child for listener lis (from ws_listen_loopback): *carrier goes in
 * ws_spawn's list and after --listen-fd on its command line (see the top of the file).
 * POSIX: a duplicate of lis. Windows: a pipe's read end, filled by the one ws_spawn
 * that lists it. Not inheritable; close it with ws_close after that spawn, as lis. -1
 * with a message logged.
 */
int ws_listen_carrier(ws_handle lis, ws_handle *carrier);

/* A pipe, neither end inheritable; the read end does not block (ws_read). */
int ws_pipe(ws_handle *r, ws_handle *w);
/* What is there to read: > 0 bytes, 0 at end of file, -1 nothing now, -2 failure. */
long ws_read(ws_handle h, void *buf, size_t len);
void ws_close(ws_handle *h);

/* An anonymous file holding data, positioned at its start, not inheritable; nothing
 * else can open it, and it is gone once its last handle closes. */
int ws_anon_file(const void *data, size_t len, ws_handle *h);

/* The temp directory, resolved: POSIX $TMPDIR when it is an absolute path to a
 * directory, else /tmp; Windows GetTempPath (with its trailing backslash). Caller frees;
 * NULL when it cannot be told. */
char *ws_temp_dir(void);

/* A new file holding data in the temp directory (POSIX: $TMPDIR or /tmp; Windows:
 * GetTempPath), named prefix and random characters, readable and writable by its owner
 * only; its path in *path (caller frees). */
int ws_private_file(const char *prefix, const void *data, size_t len, char **path);
int ws_remove(const char *path);

/* Whether path names a program this system can start (Windows: also path.exe). */
bool ws_executable(const char *path);
/* This program's directory, links resolved (the POSIX side reads /proc/self/exe, which
 * is Linux's). Caller frees; NULL with a message logged. */
char *ws_self_dir(void);

struct ws_spawn {
	char *const *argv;        /* argv[0] is a path */
	char *const *envp;        /* NULL: ours */
	const ws_handle *inherit; /* inherited at their own values */
	size_t ninherit;
	ws_handle out; /* standard output; WS_NONE: ours */
	bool null_in;  /* standard input from the null device */
	bool with_srt; /* ends when srt ends (Windows: the proxies' job) */
};

/* Start a program. A program that cannot be started is an error here (message logged),
 * not a status later. */
int ws_spawn(const struct ws_spawn *sp, struct ws_proc **out);

enum {
	WS_EV_EXIT = 1,
	WS_EV_TERM = 2,
	WS_EV_READ = 4
};

/*
 * Wait up to timeout_ms (-1: no limit) for p to end, a termination request, or h (may
 * be WS_NONE) to have something to read. Returns what happened (WS_EV_*), 0 at the
 * time-out. Windows cannot wait on an anonymous pipe: it looks at h every 50 ms.
 */
int ws_wait(struct ws_proc *p, ws_handle h, int timeout_ms);
/* The termination request that came, once: its signal number (Windows: SIGINT for
 * Ctrl-C and Ctrl-Break, SIGTERM for closing, logoff and shutdown), 0 if none. */
int ws_term_take(void);
/* Whether p has ended; its status as SPEC §2 has it (POSIX: 128+N after signal N;
 * Windows: 128+SIGINT for STATUS_CONTROL_C_EXIT, a program ended by Ctrl-C). */
bool ws_ended(struct ws_proc *p, int *status);
/* Pass a termination request on (POSIX: signal sig; Windows: nothing, the console
 * delivers Ctrl-C to every process attached to it). */
void ws_forward(struct ws_proc *p, int sig);
/* End p now and collect it. */
void ws_kill(struct ws_proc *p);
/* Collect p (ws_kill first if it may still run) and free it; NULL is fine. */
void ws_proc_free(struct ws_proc *p);
/* This process's id, as srt-win --held-by takes it. */
unsigned long ws_self_pid(void);
long long ws_now_ms(void); /* a monotonic clock */
void ws_sleep_ms(int ms);

#ifndef _WIN32
#include <sys/types.h>
/* The POSIX core of ws_spawn for a caller that reaps its children itself (macos.c):
 * the pid, or -1 with a message logged. */
pid_t ws_spawn_pid(const struct ws_spawn *sp);
/* For such a caller's own loop: the read end of the pipe on which ws_init's handler
 * writes each signal's number as one byte, SIGCHLD included (non-blocking; -1 before
 * ws_init). Reading it there leaves ws_wait and ws_term_take to nobody. */
int ws_signal_fd(void);
#endif

#endif
