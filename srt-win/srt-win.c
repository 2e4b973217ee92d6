/*
 * srt-win: the Windows helper of srt (SPEC §2, BEHAVIOR §7). It installs the sandbox
 * account and its network filters, applies the ACE plan of `srt-policy plan --target
 * windows` for the sandbox account with refcounts per holder, and runs commands as that
 * account with a write-restricted token in a job that kills them all when it closes.
 * srt-win(1) documents every subcommand and exit status.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

static const struct {
	const char *name;
	int (*run)(int, char **);
} commands[] = {
	{ "install", cmd_install },
	{ "uninstall", cmd_uninstall },
	{ "status", cmd_status },
	{ "user", cmd_user },
	{ "wfp", cmd_wfp },
	{ "acl", cmd_acl },
	{ "profile", cmd_profile },
	{ "exec", cmd_exec },
	{ "runner", cmd_runner },
	{ "launch", cmd_launch },
	{ "probe", cmd_probe },
};

static void
usage(FILE *f)
{
	fputs(
	    "usage: srt-win [-d] install [--sandbox-user NAME] [--sublayer-guid GUID]\n"
	    "                 [--proxy-port-range LO-HI] [--allow-loopback] [--force] [--dry-run]\n"
	    "       srt-win [-d] uninstall [--sublayer-guid GUID] [--keep-user]\n"
	    "       srt-win [-d] status [--sublayer-guid GUID]\n"
	    "       srt-win [-d] user status | user trust-ca CERT\n"
	    "       srt-win [-d] wfp status [--sublayer-guid GUID]\n"
	    "       srt-win [-d] wfp verify --target HOST:PORT [--allow-loopback]\n"
	    "       srt-win [-d] acl grant|stamp --holder-pid N --sandbox-user-sid SID\n"
	    "                 [--persistent] [--json] < PLAN\n"
	    "       srt-win [-d] acl revoke|restore --holder-pid N --sandbox-user-sid SID [--json]\n"
	    "       srt-win [-d] acl forget ROOT... | --all [--force] [--json]\n"
	    "       srt-win [-d] acl recover [--json] | acl list\n"
	    "       srt-win [-d] profile status | grant [--include P]... [--exclude P]... [--json]\n"
	    "                 | forget [--json] | retry-stale [--json] [--budget-ms N]\n"
	    "       srt-win [-d] exec [options] -- COMMAND [ARG...]\n"
	    "       srt-win [-d] runner [--write-restricted-token] [--write-root R]...\n"
	    "                 [--env NAME=VALUE]... [--cwd DIR] -- PROGRAM [ARG...]\n"
	    "       srt-win [-d] launch --plan FILE --http-port N --socks-port N\n"
	    "                 [--proxy-port-range LO-HI] [--sandbox-user NAME] [--backend B]\n"
	    "                 [--sublayer-guid GUID] [exec options] -- COMMAND [ARG...]\n"
	    "       srt-win -h | -V\n",
	    f);
}

int
srtwin_main(int argc, char **argv)
{
	int i = 1;

	/* The core's fatal errors (out of memory in its allocator) as srt-win's JSON line. */
	log_init("srt-win", 0, SW_ESYSTEM);
	log_fatal_emit(sw_fatal_line);
	/* A program that embeds srt-win routes to it on this first argument. */
	if (i < argc && strcmp(argv[i], SW_DISPATCH_ARG1) == 0)
		i++;
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (strcmp(argv[i], "-d") == 0 || strcmp(argv[i], "--debug") == 0)
			sw_debug = wa_debug = 1;
		else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			usage(stdout);
			return SW_OK;
		} else if (strcmp(argv[i], "-V") == 0 || strcmp(argv[i], "--version") == 0) {
			printf("srt-win %s\n", SRT_VERSION);
			return SW_OK;
		} else {
			sw_err("usage", "srt-win: unknown option \"%s\"", argv[i]);
			usage(stderr);
			return SW_EUSAGE;
		}
	}
	if (i >= argc) {
		sw_err("usage", "srt-win: no subcommand");
		usage(stderr);
		return SW_EUSAGE;
	}
	for (size_t k = 0; k < sizeof(commands) / sizeof(commands[0]); k++)
		if (strcmp(argv[i], commands[k].name) == 0)
			return commands[k].run(argc - i - 1, argv + i + 1);
	sw_err("usage", "srt-win: unknown subcommand \"%s\"", argv[i]);
	usage(stderr);
	return SW_EUSAGE;
}

#ifdef _WIN32
int wmain(int argc, wchar_t **wargv);

/* The arguments come as UTF-16: the layer gives them as UTF-8. */
int
wmain(int argc, wchar_t **wargv)
{
	return srtwin_main(argc, wa_main_args(argc, wargv));
}
#else
int
main(int argc, char **argv)
{
	return srtwin_main(argc, argv);
}
#endif
