/*
 * fs-op: one file-system operation that the shell's own tools cannot spell, for the
 * write-guard tests (tests/security/35-39). It prints one line and exits accordingly:
 *	OP: ok			exit 0
 *	OP: <strerror>		exit 1 (the call failed; the text is strerror(errno))
 *	usage errors exit 2 with a message on stderr.
 *
 * usage: fs-op OP ARGS...
 *	exchange A B		renameat2(A, B, RENAME_EXCHANGE): swap two names at once
 *	noreplace A B		renameat2(A, B, RENAME_NOREPLACE)
 *	openat2 PATH		openat2(PATH, O_WRONLY|O_CREAT) with no resolve flags, then
 *				one byte written
 *	pad DIR N		not a probe: make DIR and N entries in it, hard links to
 *				a few empty files (one inode per 60,000 names, below any file
 *				system's link limit), the fastest way to a huge directory
 *
 * Every operation acts only on the paths it is given, which the tests put in their own
 * temp directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	(1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE		(1 << 1)
#endif
#define PAD_LINKS	60000

static int
report(const char *op, int rc)
{
	if (rc == -1) {
		printf("%s: %s\n", op, strerror(errno));
		return 1;
	}
	printf("%s: ok\n", op);
	return 0;
}

static int
op_openat2(const char *path)
{
	struct open_how how;
	int fd;

	memset(&how, 0, sizeof(how));
	how.flags = O_WRONLY | O_CREAT | O_CLOEXEC;
	how.mode = 0644;
	fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof(how));
	if (fd == -1)
		return -1;
	if (write(fd, "x", 1) != 1) {
		close(fd);
		return -1;
	}
	return close(fd);
}

static int
op_pad(const char *dir, const char *count)
{
	char name[32], src[32] = "";
	long n, i;
	char *end;
	int dfd, fd;

	errno = 0;
	n = strtol(count, &end, 10);
	if (errno != 0 || *count == '\0' || *end != '\0' || n < 1 || n > 10000000) {
		fprintf(stderr, "fs-op: %s: not a count\n", count);
		exit(2);
	}
	if (mkdir(dir, 0755) == -1 && errno != EEXIST)
		return -1;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "p%08ld", i);
		if (i % PAD_LINKS == 0) {
			fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd == -1)
				goto fail;
			close(fd);
			memcpy(src, name, sizeof(src));
		} else if (linkat(dfd, src, dfd, name, 0) == -1)
			goto fail;
	}
	return close(dfd);
fail:
	fd = errno;
	close(dfd);
	errno = fd;
	return -1;
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if (strcmp(op, "exchange") == 0 && argc == 4)
		return report(op, (int)syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD,
		    argv[3], RENAME_EXCHANGE));
	if (strcmp(op, "noreplace") == 0 && argc == 4)
		return report(op, (int)syscall(SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD,
		    argv[3], RENAME_NOREPLACE));
	if (strcmp(op, "openat2") == 0 && argc == 3)
		return report(op, op_openat2(argv[2]));
	if (strcmp(op, "pad") == 0 && argc == 4)
		return report(op, op_pad(argv[2], argv[3]));
	fprintf(stderr, "usage: fs-op exchange|noreplace A B | openat2 PATH | pad DIR N\n");
	return 2;
}
