/*
 * winsys-drive: srt's Windows system layer (srt-launch/windows/winsys_win32.c) run under
 * Wine by tests/windows/srt-win-wine.bats. Built by `make win` into
 * build/win/tests/winsys-drive.exe from winsys_win32.c itself and the three files of
 * libsrt it uses (wincmdline.c, log.c, util.c).
 *
 *   winsys-drive PROBE HOLDFILE OUTSIDEFILE
 *
 * With PROBE (winprobe.exe) it: listens on a loopback port the system picks and again on
 * the same port (taken); hands a child exactly an anonymous file, a pipe's write end and
 * the listener's carrier (and not one more inheritable handle) and prints what the child saw and
 * wrote back; relays a child's exit status; makes and removes a private file; ends a
 * child with ws_kill; and last starts `winprobe hold HOLDFILE` in the proxies' job and
 * `winprobe hold OUTSIDEFILE` outside it, and exits without ending either: the job's
 * closing must end the first, and nothing ends the second (the caller does).
 *
 *   winsys-drive proxy PROXY POLICY LOG STOPFILE [raw]
 *
 * srt's part in starting a proxy on Windows (tests/windows/proxies-wine.bats): listens on a
 * loopback port, starts PROXY (srt-socksd.exe or srt-httpd.exe) in the proxies' job as
 * winlaunch.c does, with the policy file POLICY as an anonymous file (--policy-fd), the
 * listeners by their carriers (--listen-fd), a pipe for the decisions (--log-fd, copied
 * to LOG as they come) and the lifeline (--lifeline-fd), and prints "port: N". Once
 * STOPFILE exists it cuts the lifeline, reads the log to its end and prints how the
 * proxy ended: "proxy: exit N", or "proxy: still running" (then ended). With "raw" the
 * IPv4 listener itself is passed (inherited) instead of its carrier, which the proxy
 * must refuse.
 */
#include <windows.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "common/winsys.h"

static int
run(char *const *argv, const ws_handle *inherit, size_t n, bool with_srt, ws_handle rd,
    struct ws_proc **keep)
{
	struct ws_spawn sp = { argv, NULL, inherit, n, WS_NONE, true, with_srt };
	struct ws_proc *p;
	char buf[256];
	int status = -1;

	if (ws_spawn(&sp, &p) == -1)
		return -1;
	if (keep != NULL) {
		*keep = p;
		return 0;
	}
	for (;;) {
		int ev = ws_wait(p, rd, 30000);
		long got;

		while (rd != WS_NONE && (got = ws_read(rd, buf, sizeof(buf) - 1)) > 0) {
			buf[got] = '\0';
			printf("read: %s", buf);
		}
		if (ev == 0 || (ev & WS_EV_EXIT))
			break;
	}
	if (!ws_ended(p, &status)) {
		printf("timed out\n");
		ws_kill(p);
	}
	ws_proc_free(p);
	return status;
}

static int
proxy(char **argv, bool raw)
{
	ws_handle v4, v6, c4 = WS_NONE, c6 = WS_NONE, pol, lr, lw, logr, logw;
	ws_handle inherit[5];
	char a[5][24], *pargv[16], *data = NULL, buf[4096];
	struct ws_proc *p;
	size_t n = 0, len = 0, np = 0, i;
	int port = 0, status;
	long long deadline;
	FILE *in, *out;
	long got;

	if ((in = fopen(argv[3], "rb")) == NULL)
		return 125;
	while ((got = (long)fread(buf, 1, sizeof(buf), in)) > 0) {
		data = xreallocarray(data, len + (size_t)got, 1);
		memcpy(data + len, buf, (size_t)got);
		len += (size_t)got;
	}
	fclose(in);
	if ((out = fopen(argv[4], "wb")) == NULL)
		return 125;
	if (ws_init() == -1 || ws_listen_loopback(&port, &v4, &v6) != 0 ||
	    ws_anon_file(data, len, &pol) == -1 || ws_pipe(&lr, &lw) == -1 ||
	    ws_pipe(&logr, &logw) == -1 || ws_listen_carrier(v4, &c4) == -1 ||
	    (v6 != WS_NONE && ws_listen_carrier(v6, &c6) == -1))
		return 125;
	free(data);
	{
		static char opt[5][16] = { "--policy-fd", "--log-fd", "--lifeline-fd",
			"--listen-fd", "--listen-fd" };
		ws_handle h[] = { pol, logw, lr, raw ? v4 : c4, c6 };

		pargv[np++] = argv[2];
		for (i = 0; i < 5; i++) {
			if (h[i] == WS_NONE)
				continue;
			inherit[n] = h[i];
			snprintf(a[n], sizeof(a[n]), "%ld", h[i]); /* the handle's own value */
			pargv[np++] = opt[i];
			pargv[np++] = a[n++];
		}
	}
	pargv[np] = NULL;
	{
		struct ws_spawn sp = { pargv, NULL, inherit, n, WS_NONE, true, true };

		if (ws_spawn(&sp, &p) == -1)
			return 125;
	}
	/* Theirs now, as in winlaunch.c. */
	ws_close(&c4);
	ws_close(&c6);
	ws_close(&v4);
	ws_close(&v6);
	ws_close(&pol);
	ws_close(&lr);
	printf("port: %d\n", port);
	while (GetFileAttributesA(argv[5]) == INVALID_FILE_ATTRIBUTES) {
		int ev = ws_wait(p, logr, 200);

		while ((got = ws_read(logr, buf, sizeof(buf))) > 0) {
			fwrite(buf, 1, (size_t)got, out);
			fflush(out);
		}
		if (ev & WS_EV_EXIT)
			break;
	}
	ws_close(&lw);
	ws_close(&logw);
	deadline = ws_now_ms() + 20000;
	while (ws_now_ms() < deadline && (got = ws_read(logr, buf, sizeof(buf))) != 0) {
		if (got > 0)
			fwrite(buf, 1, (size_t)got, out);
		else if (got == -2)
			break;
		else
			(void)ws_wait(NULL, logr, 200);
	}
	fclose(out);
	while (!ws_ended(p, &status) && ws_now_ms() < deadline)
		ws_sleep_ms(20);
	if (ws_ended(p, &status))
		printf("proxy: exit %d\n", status);
	else {
		printf("proxy: still running\n");
		ws_kill(p);
	}
	ws_proc_free(p);
	ws_fini();
	return 0;
}

int
main(int argc, char **argv)
{
	ws_handle v4, v6, v4b, v6b, pol, r, w, other, carrier;
	struct ws_proc *held = NULL, *victim = NULL;
	char a[4][24], *path = NULL;
	int port = 0, status;
	HANDLE ev;

	log_init("winsys-drive", 0, 125);
	setvbuf(stdout, NULL, _IONBF, 0);
	if ((argc == 6 || (argc == 7 && strcmp(argv[6], "raw") == 0)) &&
	    strcmp(argv[1], "proxy") == 0)
		return proxy(argv, argc == 7);
	if (argc != 4) {
		fprintf(stderr,
		    "usage: winsys-drive PROBE HOLDFILE OUTSIDEFILE | "
		    "winsys-drive proxy PROXY POLICY LOG STOPFILE [raw]\n");
		return 2;
	}
	if (ws_init() == -1)
		return 125;
	if (ws_listen_loopback(&port, &v4, &v6) != 0)
		return 125;
	printf(
	    "listen: %s%s\n", port > 0 ? "port" : "no port", v6 != WS_NONE ? " and ::1" : "");
	printf("again: %d\n", ws_listen_loopback(&port, &v4b, &v6b));
	if (ws_anon_file("policy-bytes", 12, &pol) == -1 || ws_pipe(&r, &w) == -1)
		return 125;
	/* Inheritable, and not in the list: it must not reach the child. */
	ev = CreateEventW(&(SECURITY_ATTRIBUTES){ sizeof(SECURITY_ATTRIBUTES), NULL, TRUE },
	    TRUE, FALSE, NULL);
	other = (ws_handle)(intptr_t)ev;
	if (ws_listen_carrier(v4, &carrier) == -1)
		return 125;
	snprintf(a[0], sizeof(a[0]), "%ld", pol);
	snprintf(a[1], sizeof(a[1]), "%ld", w);
	snprintf(a[2], sizeof(a[2]), "%ld", carrier);
	snprintf(a[3], sizeof(a[3]), "%ld", other);
	{
		char *cargv[] = { argv[1], "handles", a[0], a[1], a[2], a[3], NULL };
		ws_handle inherit[] = { pol, w, carrier };

		status = run(cargv, inherit, 3, true, WS_NONE, NULL);
		ws_close(&carrier);
		ws_close(&w);
		printf("status: %d\n", status);
		{
			char buf[64];
			long got = ws_read(r, buf, sizeof(buf) - 1);

			if (got > 0) {
				buf[got] = '\0';
				printf("from the pipe: %s", buf);
			}
			printf("then: %ld\n", ws_read(r, buf, sizeof(buf)));
		}
	}
	{
		char *cargv[] = { argv[1], "exit", "7", NULL };

		printf("exit status: %d\n", run(cargv, NULL, 0, false, WS_NONE, NULL));
	}
	{
		/* STATUS_CONTROL_C_EXIT, a program ended by Ctrl-C */
		char *cargv[] = { argv[1], "exit", "-1073741510", NULL };

		printf("after Ctrl-C: %d\n", run(cargv, NULL, 0, false, WS_NONE, NULL));
	}
	if (ws_private_file("srt-plan.", "{}\n", 3, &path) == -1)
		return 125;
	printf("private file: %s\n",
	    GetFileAttributesA(path) != INVALID_FILE_ATTRIBUTES ? "made" : "missing");
	(void)ws_remove(path);
	printf("removed: %s\n",
	    GetFileAttributesA(path) == INVALID_FILE_ATTRIBUTES ? "yes" : "no");
	free(path);
	{
		char *cargv[] = { argv[1], "hold", "NUL", NULL };

		if (run(cargv, NULL, 0, false, WS_NONE, &victim) == -1)
			return 125;
		Sleep(300);
		ws_kill(victim);
		printf("killed: %s\n", ws_ended(victim, &status) ? "yes" : "no");
		ws_proc_free(victim);
	}
	for (int k = 0; k < 2; k++) {
		char *cargv[] = { argv[1], "hold", argv[2 + k], NULL };

		if (run(cargv, NULL, 0, k == 0, WS_NONE, &held) == -1)
			return 125;
		for (int i = 0;
		     i < 600 && GetFileAttributesA(argv[2 + k]) == INVALID_FILE_ATTRIBUTES; i++)
			Sleep(50);
	}
	/* Exit with both running: the job's last handle closes with us. */
	return 0;
}
