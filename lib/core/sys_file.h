/*
 * The few file calls whose spelling differs between POSIX and Windows, for the code that
 * builds for both without sockets (the settings reader, the plan, the launcher's shared
 * parts): on POSIX only the usual headers; on Windows the open flags the C runtime lacks,
 * lstat, realpath, and open and stat taking UTF-8 names (lib/compat/sys_win.c) where the C
 * runtime's take the ANSI code page's. sys.h, the socket calls, includes this.
 */
#ifndef SRT_SYS_FILE_H
#define SRT_SYS_FILE_H

#include <fcntl.h>
#include <sys/stat.h>

#ifdef _WIN32
#include <io.h>
#include <wchar.h>

#ifndef O_CLOEXEC
#define O_CLOEXEC _O_NOINHERIT
#endif
#ifndef O_NOCTTY
#define O_NOCTTY 0
#endif

/* open(2) and stat(2) of a UTF-8 name, through the C runtime's wide calls. srt.exe's
 * code (its names are UTF-8: wmain, _wgetcwd, _wgetenv) is built with SRT_UTF8_NAMES
 * and calls these for open and stat; the proxies' names come from main's argv, in the
 * ANSI code page, and keep the C runtime's narrow calls. */
int sys_open_utf8(const char *path, int flags, ...);
int sys_stat_utf8(const char *path, struct stat *st);
#ifdef SRT_UTF8_NAMES
#define open(...) sys_open_utf8(__VA_ARGS__)
#define stat(p, st) sys_stat_utf8(p, st)
#endif

/* The C runtime's stat does not tell a link from what it leads to: lstat is stat
 * there, and nothing is a link. */
#define lstat(p, st) stat(p, st)
#ifndef S_ISLNK
#define S_ISLNK(m) ((void)(m), 0)
#endif

/* realpath(3) of a UTF-8 name: the final object's full name, with the links and
 * junctions on the way followed (GetFinalPathNameByHandleW), without its "\\?\"
 * prefix. EXDEV for an object with no drive-letter name (a UNC share). */
char *realpath(const char *path, char *resolved);

/* UTF-8 to UTF-16 and back, allocated; NULL with errno EILSEQ for a bad sequence. */
wchar_t *sys_wide(const char *s);
char *sys_utf8(const wchar_t *w);

#endif

#endif
