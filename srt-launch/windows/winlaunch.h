/*
 * The Windows launch path (SPEC §6): srt-win instead of namespaces.
 *
 *   srt ─┬─ srt-httpd     accept on 127.0.0.1:P and [::1]:P, the first free ports of
 *        ├─ srt-socksd    windows.proxyPortRange, on sockets srt hands them (winsys.h:
 *        │                WSADuplicateSocketW); in a job that kills them when srt
 *        │                ends, however it ends; srt-win starts once both said
 *        │                "ready" on their --ready-fd
 *        └─ srt-win launch --plan FILE --http-port P --socks-port Q ... -- COMMAND
 *                         grants the ACE plan for the command's lifetime and runs it as
 *                         the sandbox account (srt-win(1)); it sets the proxy variables
 *
 * The plan is lib/sandbox/plan_windows.c's, the same lines `srt-policy plan --target windows`
 * prints, in a private temp file removed at the end. The settings' windows block takes
 * effect here: backend (srt-win only), proxyPortRange (the ports), sandboxUser and the
 * range passed on for srt-win to check against its install, srtWin.path (the program;
 * else srt-win beside srt). -c STRING runs through cmd.exe /d /s /c, as the reference's
 * default shell on Windows.
 *
 * Every system call is behind winsys.h: with winsys_posix.c the tests run all of this on
 * Linux (tests/windows/launch.bats, build/tests/win-launch); winsys_win32.c is the Windows
 * side.
 */
#ifndef SRT_WINLAUNCH_H
#define SRT_WINLAUNCH_H

#include "launch.h"

#define WINDOWS_SRT_WIN "srt-win" /* beside srt when srtWin.path is unset */
#define WINDOWS_STOP_MS 3000      /* proxies, and srt-win after a request to end */

struct windows_run {
	const char *const *shell; /* -c: this argv, then STRING (on Windows
	                                   %SystemRoot%\System32\cmd.exe /d /s /c) */
	int stop_ms;              /* WINDOWS_STOP_MS */
};

/*
 * Run l's command: the windows block checked, the ports, the plan file, the proxies,
 * srt-win launch; then wait (passing Ctrl-C and termination on), end the proxies, remove
 * the plan. l has its settings, policy, config_path, cwd, home, self_dir and violations.
 * Returns the exit status of SPEC §2: srt-win's (the command's), 128+N when srt had to
 * end it after signal N, or LAUNCH_FAIL.
 */
int windows_run(struct launch *l, const struct windows_run *r);

#ifdef _WIN32
/* srt-launch's entry on Windows: l holds the loaded policy. */
int windows_launch(struct launch *l);
#endif

#endif
