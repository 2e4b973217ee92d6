/*
 * What the files of winapi.h on Windows share (winapi_win32.c, winapi_win32_process.c,
 * winapi_win32_machine.c): the string conversions, the error text and SIDs as text.
 * They are the layer beneath srt-win: they see winapi.h and the core, never srt-win.h.
 */
#ifndef SRT_WINAPI_WIN32_H
#define SRT_WINAPI_WIN32_H

#include <windows.h>

#include "buf.h"
#include "util.h"
#include "winapi.h"

/* winapi_win32.c */
wchar_t *W(const char *s);
char *U(const wchar_t *w);
/* Free a converted secret (a password), wiped first. */
void free_secret(wchar_t *w);
int fail_code(DWORD code, const char *fmt, ...) SRT_PRINTF(2, 3);
PSID sid_from(const char *s);
char *sid_str(PSID sid);

#define fail_last(...) fail_code(GetLastError(), __VA_ARGS__)

#endif /* SRT_WINAPI_WIN32_H */
