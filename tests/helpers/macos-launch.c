/*
 * macos-launch: srt's macOS launch path (srt-launch/macos/macos.c) run on this host, with
 * the programs it would start on a Mac replaced by whatever the caller names: the tests
 * give it stubs that record what they were given. What launch_run() does on a Mac before
 * macos_run() (the policy, its own directory, cwd, home, the violations) is done here by
 * hand.
 *
 *   macos-launch --sandbox-exec PROG [--log PROG] [--shell SH] [--start-ms N]
 *                [--drain-ms N] [--quiet-ms N] [--violations FILE] [-d] -s SETTINGS
 *                (-c STRING | -- CMD...)
 *
 * The proxies are taken from the directory of $SRT_BIN (build/bin). Prints the
 * <sandbox_violations> block on stderr, as srt does; exits with macos_run()'s status.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macos/macos.h"
#include "launch-driver.h"

static void
usage(void)
{
	fprintf(stderr,
	    "usage: macos-launch --sandbox-exec PROG [--log PROG] [--shell SH] "
	    "[--start-ms N] [--drain-ms N] [--quiet-ms N] [--violations FILE] [-d] -s SETTINGS "
	    "(-c STRING | -- CMD...)\n");
	exit(LAUNCH_FAIL);
}

int
main(int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "sandbox-exec", required_argument, NULL, 'x' },
		{ "log", required_argument, NULL, 'l' },
		{ "shell", required_argument, NULL, 'S' },
		{ "start-ms", required_argument, NULL, 'a' },
		{ "drain-ms", required_argument, NULL, 'b' },
		{ "quiet-ms", required_argument, NULL, 'q' },
		{ "violations", required_argument, NULL, 'v' },
		{ NULL, 0, NULL, 0 },
	};
	struct macos_run r = { NULL, NULL, "/bin/bash", 2000, 500, 150 };
	struct launch l;
	const char *bin = getenv("SRT_BIN");
	int ch, i;

	memset(&l, 0, sizeof(l));
	for (i = 0; i < LS_MAX; i++)
		l.proxy.listen_fd[i] = -1;
	log_init("macos-launch", 0, LAUNCH_FAIL);
	while ((ch = getopt_long(argc, argv, "+s:c:d", lopts, NULL)) != -1) {
		switch (ch) {
		case 'x':
			r.sandbox_exec = optarg;
			break;
		case 'l':
			r.log_prog = optarg;
			break;
		case 'S':
			r.shell = optarg;
			break;
		case 'a':
			r.log_start_ms = atoi(optarg);
			break;
		case 'b':
			r.log_drain_ms = atoi(optarg);
			break;
		case 'q':
			r.log_quiet_ms = atoi(optarg);
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
	if (r.sandbox_exec == NULL || l.settings_arg == NULL || bin == NULL ||
	    (l.cstring == NULL) == (argc == 0))
		usage();
	l.cmd = argc > 0 ? argv : NULL;
	if (driver_prepare(&l, "macos-launch", bin) == -1)
		return LAUNCH_FAIL;
	return driver_finish(&l, macos_run(&l, &r));
}
