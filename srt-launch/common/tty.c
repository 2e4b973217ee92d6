/*
 * The caller's terminal and descriptors, put back as they were when we end.
 *
 * The command shares the open file descriptions of 0, 1 and 2 with us and with the
 * caller's shell: O_NONBLOCK set on its stdin (node does that) is set on the shell's, whose
 * next read then fails with EAGAIN. A terminal's modes belong to the terminal: a command
 * killed while it had echo or canonical mode off (a password prompt, an editor) leaves the
 * terminal so. The flags and modes are saved before anything starts and restored at every
 * exit (atexit: main's return, fatal()).
 *
 * Modes are restored only while our process group is the terminal's foreground one: a run
 * in the background leaves the terminal to whoever holds it now. Nothing here blocks:
 * TCSANOW does not wait for output to drain, and SIGTTOU is held off so that a job moved
 * to the background between the check and the restore is not stopped (the restore then
 * goes through: the window is that between two system calls).
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "launch.h"

static struct {
	pid_t pid;      /* the launcher: its children never restore */
	int flags[3];   /* F_GETFL of 0, 1, 2, or -1 */
	bool is_tty[3]; /* a terminal not saved through a lower fd */
	struct termios tio[3];
} tty_saved;

/* A closed 0, 1 or 2 would be taken by the first pipe we open and handed to the command
 * as its stdin or stdout. */
void
tty_std_open(void)
{
	int fd;

	while ((fd = open("/dev/null", O_RDWR)) != -1 && fd <= STDERR_FILENO)
		;
	if (fd > STDERR_FILENO)
		close(fd);
}

void
tty_save(void)
{
	struct stat st[3];
	int fd, j;

	tty_saved.pid = getpid();
	for (fd = 0; fd < 3; fd++) {
		tty_saved.flags[fd] = fcntl(fd, F_GETFL);
		tty_saved.is_tty[fd] = false;
		if (fstat(fd, &st[fd]) == -1 || !S_ISCHR(st[fd].st_mode) || !isatty(fd))
			continue;
		for (j = 0; j < fd; j++)
			if (tty_saved.is_tty[j] && st[j].st_rdev == st[fd].st_rdev)
				break;
		if (j == fd && tcgetattr(fd, &tty_saved.tio[fd]) == 0)
			tty_saved.is_tty[fd] = true;
	}
	(void)atexit(tty_restore);
}

void
tty_restore(void)
{
	struct termios now;
	sigset_t ttou, old;
	int fd, fl;

	if (tty_saved.pid != getpid())
		return;
	for (fd = 0; fd < 3; fd++) {
		if (tty_saved.flags[fd] != -1 && (fl = fcntl(fd, F_GETFL)) != -1 &&
		    fl != tty_saved.flags[fd])
			(void)fcntl(fd, F_SETFL, tty_saved.flags[fd]);
		memset(&now, 0, sizeof(now)); /* compared whole, padding included */
		if (!tty_saved.is_tty[fd] || tcgetpgrp(fd) != getpgrp() ||
		    tcgetattr(fd, &now) == -1 ||
		    memcmp(&now, &tty_saved.tio[fd], sizeof(now)) == 0)
			continue;
		sigemptyset(&ttou);
		sigaddset(&ttou, SIGTTOU);
		(void)sigprocmask(SIG_BLOCK, &ttou, &old);
		(void)tcsetattr(fd, TCSANOW, &tty_saved.tio[fd]);
		(void)sigprocmask(SIG_SETMASK, &old, NULL);
	}
}
