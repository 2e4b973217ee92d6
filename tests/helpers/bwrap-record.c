/*
 * bwrap-record: stands in for bwrap (bwrapPath) and records what srt passes to it,
 * without running anything.
 *
 * It writes on standard output the words bwrap would parse, each followed by a NUL, with
 * the contents of `--args FD` (NUL-separated, read to EOF as bwrap reads them) in the
 * place of those two words. It then checks the descriptors the words name and exits 0;
 * on a broken contract it says what on standard error and exits 1:
 *	--json-status-fd, --args, --lifeline-fd, --guard-fd, --violations-fd,
 *	--ro-bind-fd: open;
 *	--ro-bind-fd FD PATH: FD is the file PATH names;
 *	--guard-fd FD: sealed against writes (srt seals the guard before the options go);
 *	--violations-fd FD: a pipe's write end (srt-seccomp's violation monitor);
 *	every descriptor above 2 is one of those: nothing else was handed over.
 *
 * usage: bwrap-record ARGS...
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

#define MAX_NAMED 16

static int named[MAX_NAMED];
static size_t nnamed;
static int failed;

static void SRT_PRINTF(1, 2) fail(const char *fmt, ...)
{
	va_list ap;

	fputs("bwrap-record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	failed = 1;
}

/* The descriptor a word names, which must be open; -1 otherwise. */
static int
take_fd(const char *opt, const char *w)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(w, &end, 10);
	if (errno != 0 || *end != '\0' || end == w || v < 3 || v > 1023) {
		fail("%s %s: not a descriptor number above 2", opt, w);
		return -1;
	}
	if (fcntl((int)v, F_GETFD) == -1) {
		fail("%s %s: not open", opt, w);
		return -1;
	}
	if (nnamed < MAX_NAMED)
		named[nnamed++] = (int)v;
	return (int)v;
}

/* bwrap's --args: the file's NUL-separated words, read to EOF. */
static void
splice_args(int fd, struct strlist *words)
{
	char *buf = NULL, *p;
	size_t len = 0;

	if (read_fd_all(fd, 1 << 24, &buf, &len) == -1) {
		fail("--args %d: %s", fd, strerror(errno));
		return;
	}
	if (len > 0 && buf[len - 1] != '\0')
		fail("--args %d: the last word has no NUL", fd);
	for (p = buf; p < buf + len; p += strlen(p) + 1)
		strlist_push(words, p);
	free(buf);
}

static void
check_same_file(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) == -1 || stat(path, &b) == -1)
		fail("--ro-bind-fd %d %s: %s", fd, path, strerror(errno));
	else if (a.st_dev != b.st_dev || a.st_ino != b.st_ino)
		fail("--ro-bind-fd %d %s: the descriptor is another file", fd, path);
}

static void
check_sealed(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	if (seals == -1 || (seals & F_SEAL_WRITE) == 0)
		fail("--guard-fd %d: not sealed against writes", fd);
}

static void
check_pipe_out(int fd)
{
	struct stat st;
	int fl = fcntl(fd, F_GETFL);

	if (fstat(fd, &st) == -1 || !S_ISFIFO(st.st_mode) || fl == -1 ||
	    (fl & O_ACCMODE) != O_WRONLY)
		fail("--violations-fd %d: not a pipe's write end", fd);
}

/* Every descriptor above 2 is one the words named. */
static void
check_no_others(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	size_t i;
	int fd;
	bool ok;

	if (d == NULL) {
		fail("/proc/self/fd: %s", strerror(errno));
		return;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		fd = atoi(e->d_name);
		if (fd <= 2 || fd == dirfd(d))
			continue;
		for (i = 0, ok = false; i < nnamed && !ok; i++)
			ok = named[i] == fd;
		if (!ok)
			fail("descriptor %d was handed over but no argument names it", fd);
	}
	closedir(d);
}

static bool
names_fd(const char *w)
{
	return strcmp(w, "--json-status-fd") == 0 || strcmp(w, "--lifeline-fd") == 0 ||
	    strcmp(w, "--guard-fd") == 0 || strcmp(w, "--violations-fd") == 0 ||
	    strcmp(w, "--ro-bind-fd") == 0;
}

int
main(int argc, char **argv)
{
	struct strlist words = { 0 };
	size_t i;
	int a, fd;

	for (a = 1; a < argc; a++) {
		if (strcmp(argv[a], "--args") == 0 && a + 1 < argc) {
			if ((fd = take_fd(argv[a], argv[a + 1])) != -1)
				splice_args(fd, &words);
			a++;
		} else
			strlist_push(&words, argv[a]);
	}
	for (i = 0; i < words.n; i++) {
		fputs(words.v[i], stdout);
		putchar('\0');
		if (!names_fd(words.v[i]) || i + 1 >= words.n)
			continue;
		if ((fd = take_fd(words.v[i], words.v[i + 1])) == -1)
			continue;
		if (strcmp(words.v[i], "--guard-fd") == 0)
			check_sealed(fd);
		if (strcmp(words.v[i], "--violations-fd") == 0)
			check_pipe_out(fd);
		if (strcmp(words.v[i], "--ro-bind-fd") == 0 && i + 2 < words.n)
			check_same_file(fd, words.v[i + 2]);
	}
	check_no_others();
	if (fflush(stdout) == EOF)
		fail("stdout: %s", strerror(errno));
	strlist_free(&words);
	return failed;
}
