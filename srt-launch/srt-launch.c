/*
 * srt-launch and srt: run one command in a sandbox (SPEC §2). main reads the command
 * line (common/cli.c, every build's) and hands the run to this system's launch_run:
 * linux/run.c (namespaces, bwrap, seccomp: SPEC §5), macos/macos_apple.c (Seatbelt:
 * SPEC §6). Windows has an entry of its own, windows/winmain.c.
 *
 *   srt-launch (-p POLICY | -s SETTINGS) [-d] [--violations FILE] (-c STRING | [--] CMD...)
 *   srt [-s SETTINGS] [-d] (-c STRING | CMD [ARGS...])
 *   srt proxy ...          the reference's proxy mode (common/proxycli.c)
 */
#include <string.h>

#include "launch.h"

int
main(int argc, char **argv)
{
	struct launch l;

	launch_init(&l, argv[0]);
	log_init(l.srt_mode ? "srt" : "srt-launch", 0, LAUNCH_FAIL);
	/* The reference's proxy mode, by its name. */
	if (l.srt_mode && argc > 1 && strcmp(argv[1], "proxy") == 0)
		return proxycli_main(argc - 1, argv + 1);
	launch_parse_args(&l, argc, argv);
	log_init(l.srt_mode ? "srt" : "srt-launch", l.debug, LAUNCH_FAIL);
	return launch_run(&l);
}
