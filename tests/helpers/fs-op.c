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
 *	held-write HOLD LOCK NAME TEXT
 *				open HOLD (O_PATH), chmod LOCK to 0 (a directory on the
 *				way to HOLD, so that nothing can walk to HOLD by its path),
 *				then openat(HOLD, NAME, O_WRONLY|O_CREAT|O_TRUNC, 0755) and
 *				write TEXT and a newline; LOCK gets 0755 back either way
 *	userns-bind SRC DST NAME TEXT
 *				in a user and mount namespace of its own (when the sandbox
 *				allows them), bind SRC (recursively) on DST, then write TEXT
 *				and a newline to DST/NAME (O_WRONLY|O_CREAT|O_TRUNC)
 *	readloop FILE NEEDLE OUT SECS
 *				open OUT for writing first, then read FILE over and over
 *				until what it holds contains NEEDLE (copied to OUT) or SECS
 *				seconds pass: a reader as fast as a reader can be
 *	lease-stall FILE OTHER	take a read lease on FILE, have a child open it for
 *				writing (the lease must be broken first: up to the kernel's
 *				lease-break-time), then time open(OTHER, O_WRONLY|O_CREAT);
 *				the lease is given up after 3 s. Fails if that open waited
 *				more than 2 s for a call that has nothing to do with FILE
 *
 * Every operation acts only on the paths it is given, which the tests put in their own
 * temp directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/openat2.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif
#define PAD_LINKS 60000

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

static int
op_held_write(const char *hold, const char *lock, const char *name, const char *text)
{
	int dfd, fd, rc = -1, saved;

	if ((dfd = open(hold, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	if (chmod(lock, 0) == -1) {
		close(dfd);
		return -1;
	}
	if ((fd = openat(dfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755)) != -1) {
		if (write(fd, text, strlen(text)) == (ssize_t)strlen(text) &&
		    write(fd, "\n", 1) == 1)
			rc = 0;
		close(fd);
	}
	saved = errno;
	/* Back by its path: the command's own walk to it needs the search bit. */
	(void)chmod(lock, 0755);
	close(dfd);
	errno = saved;
	return rc;
}

static int
op_userns_bind(const char *src, const char *dst, const char *name, const char *text)
{
	char p[4096];
	int fd, rc;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1)
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount(src, dst, NULL, MS_BIND | MS_REC, NULL) == -1)
		return -1;
	snprintf(p, sizeof(p), "%s/%s", dst, name);
	if ((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) && write(fd, "\n", 1) == 1
	    ? 0
	    : -1;
	close(fd);
	return rc;
}

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
op_readloop(const char *file, const char *needle, const char *out, const char *secs)
{
	double end = now() + atof(secs);
	char buf[4096];
	ssize_t n;
	int ofd, fd;

	if ((ofd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644)) == -1)
		return -1;
	for (;;) {
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) != -1) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
			if (n > 0) {
				buf[n] = '\0';
				if (strstr(buf, needle) != NULL) {
					n = write(ofd, buf, (size_t)n);
					close(ofd);
					return n > 0 ? 0 : -1;
				}
			}
		}
		if (now() > end) {
			close(ofd);
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

static int lease_fd = -1;

static void *
lease_give_up(void *arg)
{
	(void)arg;
	sleep(3);
	(void)fcntl(lease_fd, F_SETLEASE, F_UNLCK);
	return NULL;
}

static int
op_lease_stall(const char *file, const char *other)
{
	pthread_t th;
	double t0, waited;
	pid_t pid;
	int fd;

	signal(SIGIO, SIG_IGN);
	if ((lease_fd = open(file, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fcntl(lease_fd, F_SETLEASE, F_RDLCK) == -1)
		return -1;
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		/* Waits until the lease is broken or given up. */
		fd = open(file, O_WRONLY | O_CLOEXEC);
		_exit(fd == -1);
	}
	usleep(300 * 1000);
	if (pthread_create(&th, NULL, lease_give_up, NULL) != 0)
		return -1;
	t0 = now();
	fd = open(other, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	waited = now() - t0;
	if (fd != -1)
		close(fd);
	pthread_join(th, NULL);
	waitpid(pid, NULL, 0);
	if (waited > 2.0) {
		printf("lease-stall: open(%s) waited %.1f s behind another process's open\n",
		    other, waited);
		exit(1);
	}
	return fd == -1 ? -1 : 0;
}

int
main(int argc, char **argv)
{
	const char *op = argc > 1 ? argv[1] : "";

	if (strcmp(op, "exchange") == 0 && argc == 4)
		return report(op,
		    (int)syscall(
			SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], RENAME_EXCHANGE));
	if (strcmp(op, "noreplace") == 0 && argc == 4)
		return report(op,
		    (int)syscall(
			SYS_renameat2, AT_FDCWD, argv[2], AT_FDCWD, argv[3], RENAME_NOREPLACE));
	if (strcmp(op, "openat2") == 0 && argc == 3)
		return report(op, op_openat2(argv[2]));
	if (strcmp(op, "pad") == 0 && argc == 4)
		return report(op, op_pad(argv[2], argv[3]));
	if (strcmp(op, "held-write") == 0 && argc == 6)
		return report(op, op_held_write(argv[2], argv[3], argv[4], argv[5]));
	if (strcmp(op, "userns-bind") == 0 && argc == 6)
		return report(op, op_userns_bind(argv[2], argv[3], argv[4], argv[5]));
	if (strcmp(op, "readloop") == 0 && argc == 6)
		return report(op, op_readloop(argv[2], argv[3], argv[4], argv[5]));
	if (strcmp(op, "lease-stall") == 0 && argc == 4)
		return report(op, op_lease_stall(argv[2], argv[3]));
	fprintf(stderr,
	    "usage: fs-op exchange|noreplace A B | openat2 PATH | pad DIR N |\n"
	    "\theld-write HOLD LOCK NAME TEXT | userns-bind SRC DST NAME TEXT |\n"
	    "\treadloop FILE NEEDLE OUT SECS | lease-stall FILE OTHER\n");
	return 2;
}
