/*
 * srt-policy: check, compile, dump and query srt policies, and print the platform plans
 * built from them (SPEC §2).
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "srt-policy.h"

enum opt_bit {
	O_SETTINGS = 1 << 0,
	O_POLICY = 1 << 1,
	O_OUTPUT = 1 << 2,
	O_TARGET = 1 << 3,
	O_CWD = 1 << 4,
	O_SHELL = 1 << 5,
	O_LAYERS = 1 << 6,
	O_TMPDIR = 1 << 7,
	O_UNGUARDED = 1 << 8,
};

struct command {
	const char *name;
	int (*run)(const struct opts *);
	unsigned allowed; /* enum opt_bit */
	int minargs, maxargs;
	const char *usage;
};

static const struct command commands[] = {
	{ "check", cmd_check, O_SETTINGS, 0, 0, "check [-d] [-s settings]" },
	{ "compile", cmd_compile, O_SETTINGS | O_OUTPUT, 0, 0,
	    "compile [-d] [-s settings] -o policy" },
	{ "dump", cmd_dump, O_POLICY | O_SETTINGS | O_LAYERS, 0, 0,
	    "dump [-d] [--layers] (-p policy | -s settings)" },
	{ "match", cmd_match, O_SETTINGS | O_POLICY, 1, 2,
	    "match [-d] [-p policy | -s settings] host port | -" },
	{ "plan", cmd_plan,
	    O_SETTINGS | O_POLICY | O_TARGET | O_CWD | O_SHELL | O_TMPDIR | O_UNGUARDED, 0, 0,
	    "plan [-d] --target linux|macos|windows [-p policy | -s settings] [--cwd dir] "
	    "[--tmpdir dir] [--unguarded] [--shell]" },
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

enum long_only {
	OPT_TARGET = 256,
	OPT_CWD,
	OPT_SHELL,
	OPT_LAYERS,
	OPT_TMPDIR,
	OPT_UNGUARDED,
};

static const struct option longopts[] = {
	{ "settings", required_argument, NULL, 's' },
	{ "policy", required_argument, NULL, 'p' },
	{ "output", required_argument, NULL, 'o' },
	{ "target", required_argument, NULL, OPT_TARGET },
	{ "cwd", required_argument, NULL, OPT_CWD },
	{ "shell", no_argument, NULL, OPT_SHELL },
	{ "layers", no_argument, NULL, OPT_LAYERS },
	{ "tmpdir", required_argument, NULL, OPT_TMPDIR },
	{ "unguarded", no_argument, NULL, OPT_UNGUARDED },
	{ "debug", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
usage_all(FILE *f)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		fprintf(
		    f, "%s srt-policy %s\n", i == 0 ? "usage:" : "      ", commands[i].usage);
	fprintf(f, "       srt-policy -h | -V\n");
}

static void
usage_cmd(const char *cmd)
{
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, cmd) == 0) {
			fprintf(stderr, "usage: srt-policy %s\n", commands[i].usage);
			return;
		}
	usage_all(stderr);
}

static noreturn void SRT_PRINTF(2, 3) usage_error(const char *cmd, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (cmd != NULL)
		log_warnx("%s: %s", cmd, msg);
	else
		log_warnx("%s", msg);
	if (cmd != NULL)
		usage_cmd(cmd);
	else
		usage_all(stderr);
	exit(EXIT_ERROR);
}

/* The subcommands' own options: the name a message gives each, and its bit in struct
 * command's allowed. */
static const struct subopt {
	int c;
	const char *name;
	unsigned bit;
} subopts[] = {
	{ 's', "-s", O_SETTINGS },
	{ 'p', "-p", O_POLICY },
	{ 'o', "-o", O_OUTPUT },
	{ OPT_TARGET, "--target", O_TARGET },
	{ OPT_CWD, "--cwd", O_CWD },
	{ OPT_SHELL, "--shell", O_SHELL },
	{ OPT_LAYERS, "--layers", O_LAYERS },
	{ OPT_TMPDIR, "--tmpdir", O_TMPDIR },
	{ OPT_UNGUARDED, "--unguarded", O_UNGUARDED },
};

static const struct subopt *
subopt(int c)
{
	for (size_t i = 0; i < sizeof(subopts) / sizeof(subopts[0]); i++)
		if (subopts[i].c == c)
			return &subopts[i];
	return NULL;
}

/* Records one option of the subcommand's (already checked to apply to it). */
static void
opts_set(struct opts *o, int c, char *arg)
{
	switch (c) {
	case 's':
		o->settings = arg;
		break;
	case 'p':
		o->policy = arg;
		break;
	case 'o':
		o->output = arg;
		break;
	case OPT_TARGET:
		o->target = arg;
		break;
	case OPT_CWD:
		o->cwd = arg;
		break;
	case OPT_SHELL:
		o->shell = 1;
		break;
	case OPT_LAYERS:
		o->layers = 1;
		break;
	case OPT_TMPDIR:
		o->tmpdir = arg;
		break;
	case OPT_UNGUARDED:
		o->unguarded = 1;
		break;
	}
}

/* What the subcommand needs of its options and arguments together. */
static void
opts_check(const struct command *cmd, const struct opts *o)
{
	if (o->settings != NULL && o->policy != NULL)
		usage_error(cmd->name, "%s", "-p and -s cannot be used together");
	if (o->argc < cmd->minargs || o->argc > cmd->maxargs)
		usage_error(cmd->name, "%s",
		    o->argc < cmd->minargs ? "missing arguments" : "too many arguments");
	if (strcmp(cmd->name, "match") == 0 && o->argc == 1 && strcmp(o->argv[0], "-") != 0)
		usage_error(cmd->name, "%s", "give HOST PORT, or - to read queries from stdin");
	if ((cmd->allowed & O_OUTPUT) && o->output == NULL)
		usage_error(cmd->name, "%s", "-o is required");
	if (strcmp(cmd->name, "dump") == 0 && o->policy == NULL && o->settings == NULL)
		usage_error(cmd->name, "%s", "-p or -s is required");
	if ((cmd->allowed & O_TARGET) && o->target == NULL)
		usage_error(cmd->name, "%s", "--target is required");
	if (o->target != NULL && strcmp(o->target, "linux") != 0 &&
	    strcmp(o->target, "macos") != 0 && strcmp(o->target, "windows") != 0)
		usage_error(
		    cmd->name, "unknown target \"%s\" (linux, macos or windows)", o->target);
}

int
main(int argc, char *argv[])
{
	const struct command *cmd = NULL;
	const struct subopt *so;
	struct opts o;
	int c, first = 1;

	memset(&o, 0, sizeof(o));
	log_init("srt-policy", 0, EXIT_ERROR);
	/* Flags that may come before the subcommand. */
	for (; first < argc && argv[first][0] == '-'; first++) {
		const char *a = argv[first];

		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
			usage_all(stdout);
			return 0;
		}
		if (strcmp(a, "-V") == 0 || strcmp(a, "--version") == 0) {
			printf("srt-policy %s\n", SRT_VERSION);
			return 0;
		}
		if (strcmp(a, "-d") == 0 || strcmp(a, "--debug") == 0) {
			o.debug = 1;
			continue;
		}
		usage_error(NULL, "unknown option before the subcommand: %s", a);
	}
	if (first >= argc)
		usage_error(NULL, "%s", "no subcommand given");
	for (size_t i = 0; i < NCOMMANDS; i++)
		if (strcmp(commands[i].name, argv[first]) == 0)
			cmd = &commands[i];
	if (cmd == NULL)
		usage_error(NULL, "unknown subcommand: %s", argv[first]);
	o.cmd = cmd->name;

	argc -= first;
	argv += first;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":s:p:o:dhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'd':
			o.debug = 1;
			continue;
		case 'h':
			printf("usage: srt-policy %s\n", cmd->usage);
			return 0;
		case 'V':
			printf("srt-policy %s\n", SRT_VERSION);
			return 0;
		case ':':
			usage_error(cmd->name, "option %s needs an argument", argv[optind - 1]);
		case '?':
			usage_error(cmd->name, "unknown option %s", argv[optind - 1]);
		default:
			break;
		}
		if ((so = subopt(c)) == NULL)
			usage_error(cmd->name, "unknown option %s", argv[optind - 1]);
		if ((cmd->allowed & so->bit) == 0)
			usage_error(cmd->name, "option %s does not apply here", so->name);
		opts_set(&o, c, optarg);
	}
	o.argc = argc - optind;
	o.argv = argv + optind;
	log_init("srt-policy", o.debug, EXIT_ERROR);

	opts_check(cmd, &o);
	return cmd->run(&o);
}
