/*
 * win-launch: srt's Windows launch path (srt-launch/windows/winlaunch.c) run on this host
 * through winsys_posix.c, with the real srt-httpd and srt-socksd and whatever srt-win the
 * settings' windows.srtWin.path names (the tests: build/tests/srt-win-fake). What
 * windows_launch() does on Windows before windows_run() (its own directory, home, the
 * violations) is done here by hand; -c runs through the shell given with --shell.
 *
 *   win-launch [--shell SH] [--stop-ms N] [--violations FILE] [-d] -s SETTINGS
 *              (-c STRING | -- CMD...)
 *
 * The proxies (and srt-win, when srtWin.path is not set) are taken from the directory
 * of $SRT_BIN (build/bin). Prints the <sandbox_violations> block on stderr, as srt does;
 * exits with windows_run()'s status.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch-driver.h"
#include "windows/winlaunch.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: win-launch [--shell SH] [--stop-ms N] [--violations FILE] "
	    "[-d] -s SETTINGS (-c STRING | -- CMD...)\n");
	exit(LAUNCH_FAIL);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "shell", required_argument, NULL, 'S' },
		{ "stop-ms", required_argument, NULL, 't' },
		{ "violations", required_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	const char *shell[] = { "/bin/sh", "-c", NULL };
	struct windows_run r = { shell, WINDOWS_STOP_MS };
	struct launch l;
	const char *bin = getenv("SRT_BIN");
	int ch;

	memset(&l, 0, sizeof(l));
	log_init("win-launch", 0, LAUNCH_FAIL);
	while ((ch = getopt_long(argc, argv, "+s:c:d", lopts, NULL)) != -1) {
		switch (ch) {
		case 'S':
			shell[0] = optarg;
			break;
		case 't':
			r.stop_ms = atoi(optarg);
			break;
		case 'v':
			l.violations_arg = optarg;
			break;
		case 's':
			l.settings_arg = optarg;
			break;
		case 'c':
			l.cstring = optarg;
			break;
		case 'd':
			l.debug = true;
			break;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (l.settings_arg == NULL || bin == NULL || (l.cstring == NULL) == (argc == 0))
		usage();
	l.cmd = argc > 0 ? argv : NULL;
	if (driver_prepare(&l, "win-launch", bin) == -1)
		return LAUNCH_FAIL;
	return driver_finish(&l, windows_run(&l, &r));
}
