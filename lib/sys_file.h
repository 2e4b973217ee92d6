/*
 * The few file calls whose spelling differs between POSIX and Windows, for the code that
 * builds for both without sockets (the settings reader, the plan, the launcher's shared
 * parts): on POSIX only the usual headers; on Windows the open flags the C runtime lacks,
 * lstat, and realpath (lib/sys_win.c). sys.h, the socket calls, includes this.
 */
#ifndef SRT_SYS_FILE_H
#define SRT_SYS_FILE_H

#include <fcntl.h>
#include <sys/stat.h>

#ifdef _WIN32

#ifndef O_CLOEXEC
#define O_CLOEXEC       _O_NOINHERIT
#endif
#ifndef O_NOCTTY
#define O_NOCTTY        0
#endif

/* The C runtime's stat does not tell a link from what it leads to: lstat is stat
 * there, and nothing is a link. */
#define lstat(p, st)    stat(p, st)
#ifndef S_ISLNK
#define S_ISLNK(m)      ((void)(m), 0)
#endif

/* realpath(3): the full path (GetFullPathNameA) of a path that exists. */
char *realpath(const char *path, char *resolved);

#endif

#endif
