/*
 * srt's command line and policy, for every build of the launcher (srt-launch.c's main on
 * Linux and macOS, windows/winmain.c on Windows): the reference CLI's flags and
 * srt-launch's, the policy and settings as policy_source_load gives them (the managed
 * policy merged), and the command as one string.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "path.h"
#include "policy_source.h"
#include "sha256.h"

#ifndef _WIN32
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#endif

#define WARNED_FILE "managed-warned" /* under $XDG_STATE_HOME/srt */
#define WARNED_KEEP 32               /* hashes remembered */

/* Every descriptor -1, and srt_mode from the program's name. */
void
launch_init(struct launch *l, const char *argv0)
{
	const char *base = strrchr(argv0, '/');
	int i;

	memset(l, 0, sizeof(*l));
	base = base != NULL ? base + 1 : argv0;
	l->srt_mode = strcmp(base, "srt") == 0;
#ifdef _WIN32
	l->srt_mode = true; /* there is only srt.exe, whatever its file is called */
#endif
	for (i = 0; i < LS_MAX; i++)
		l->proxy.listen_fd[i] = -1;
	l->sandbox.netns_fd = l->sandbox.userns_fd = -1;
	l->sandbox.keeper_lifeline = -1;
	l->sandbox.bwrap_args_w = -1;
	l->proxy.lifeline_r = l->proxy.lifeline_w = l->proxy.log_r = l->proxy.log_w = -1;
	l->sandbox.status_r = -1;
	l->sandbox.lifeline_w = l->sandbox.lifeline_r = -1;
	l->sandbox.guard_fd = -1;
	l->sandbox.viol_r = l->sandbox.viol_w = -1;
	l->cred.w = -1;
	for (i = 0; i < H_MAX; i++)
		l->helper_fd[i] = -1;
	l->control.fd = l->proxy.decider_in = l->proxy.decider_out = -1;
	l->proxy.decider_ready[0] = l->proxy.decider_ready[1] = -1;
	for (i = 0; i < PK_MAX; i++)
		l->control.proxy[i] = l->proxy.handoff[i] = -1;
}

static noreturn void
usage(const struct launch *l, int status)
{
	FILE *f = status == 0 ? stdout : stderr;

#ifdef _WIN32
	/* Windows: the options of the Linux build that need descriptors are refused
	 * (cli_linux_only), and there is no proxy mode yet. */
	if (l->srt_mode)
		fprintf(f,
		    "usage: srt [-dhV] [-s SETTINGS] [--no-fs-violations]\n"
		    "           (-c STRING | CMD [ARGS...])\n");
	else
#endif
	    if (l->srt_mode)
		fprintf(f,
		    "usage: srt [-dhV] [-s SETTINGS] [--no-fs-violations] [--control-fd N]\n"
		    "           [--decider-fd N | --decider-in N --decider-out N] [--ask]\n"
		    "           (-c STRING | CMD [ARGS...])\n"
		    "       srt proxy --decider-fd N | --decider-in N --decider-out N\n"
		    "           (--listen-fd N | --listen HOST:PORT [--listen-any-interface])\n"
		    "           [--lifeline-fd N] [-d]\n");
	else
		fprintf(f,
		    "usage: srt-launch (-p POLICY | -s SETTINGS) [-dhV] "
		    "[--violations FILE] [--unguarded]\n"
		    "                  [--no-fs-violations] [--control-fd N]\n"
		    "                  [--decider-fd N | --decider-in N --decider-out N]\n"
		    "                  [--ask] (-c STRING | [--] CMD [ARGS...])\n");
	exit(status);
}

/* srt --help: the usage, then each option in one line (srt(1) has the details). */
static noreturn void
help(void)
{
	printf(
	    "usage: srt [options] (-c STRING | CMD [ARGS...])\n"
	    "       srt proxy [options]\n"
	    "Run a command in a sandbox: the filesystem read-only but for allowWrite, the\n"
	    "network through filtering proxies, as ~/.srt-settings.json (or -s) says.\n"
	    "\n"
	    "  -c STRING             run STRING with bash (or /bin/sh) -c, as given\n"
	    "  -s, --settings FILE   read the settings from FILE, not ~/.srt-settings.json\n"
	    "  -d, --debug           log what srt sets up, each allowed connection and each\n"
	    "                        refusal to stderr; twice (-dd) adds every guarded path\n"
	    "  --no-fs-violations    leave filesystem refusals out of the report\n"
#ifndef _WIN32
	    "  --control-fd N        read settings updates (JSON lines) from descriptor N\n"
	    "  --decider-fd N        ask an external decider on descriptor N about hosts\n"
	    "  --decider-in N, --decider-out N\n"
	    "                        the same with a descriptor for each direction\n"
	    "  --ask                 ask the decider about hosts the settings do not allow\n"
#endif
	    "  -h, --help            print this help and exit\n"
	    "  -V, --version         print the version and exit\n"
	    "\n"
	    "Exit status: the command's; 125 when srt itself fails; 1 with no command.\n"
	    "See srt(1), srt-settings(5) and srt-policy(1).\n");
	exit(0);
}

#ifdef _WIN32
/* An option of the Linux build that hands srt a descriptor (--control-fd, the decider)
 * or needs one (--ask): Windows has no such descriptors to pass yet. */
static noreturn void
cli_linux_only(const struct launch *l, int ch, const struct option *lopts)
{
	const char *name = "?";

	for (; lopts->name != NULL; lopts++)
		if (lopts->val == ch)
			name = lopts->name;
	log_warnx("--%s: not supported on Windows yet", name);
	usage(l, LAUNCH_FAIL);
}
#endif

/* An option of srt-launch's that srt, speaking the reference's command line, does not
 * take: say so, and where it is, rather than a bare usage. */
static noreturn void
srt_only_launch(const struct launch *l, const char *opt)
{
	log_warnx("%s is an option of srt-launch, not of srt: run srt-launch -s SETTINGS "
		  "%s ... (srt prints its violations in a <sandbox_violations> block)",
	    opt, opt);
	usage(l, LAUNCH_FAIL);
}

/* srt_only_launch for the options srt does not take, by their getopt value. */
static void
srt_refuse_launch_only(const struct launch *l, int ch)
{
	static const struct {
		int ch;
		const char *opt; /* as the message names it */
	} launch_only[] = {
		{ 'p', "-p POLICY" },
		{ 'v', "--violations FILE" },
		{ 'U', "--unguarded" },
	};
	size_t i;

	for (i = 0; i < sizeof(launch_only) / sizeof(launch_only[0]); i++)
		if (launch_only[i].ch == ch)
			srt_only_launch(l, launch_only[i].opt);
}

/* A descriptor number on the command line: an integer >= lo (0-2 are the command's). */
static int
fd_number(const struct launch *l, const char *opt, const char *s, int lo)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || s[0] < '0' || s[0] > '9' || v < lo ||
	    v > INT_MAX) {
		log_warnx("%s %s: must be an integer file descriptor >= %d (0-2 are stdin, "
			  "stdout and stderr)",
		    opt, s, lo);
		usage(l, LAUNCH_FAIL);
	}
	return (int)v;
}

void
launch_parse_args(struct launch *l, int argc, char **argv)
{
	static const struct option lopts[] = {
		{ "settings", required_argument, NULL, 's' },
		{ "policy", required_argument, NULL, 'p' },
		{ "debug", no_argument, NULL, 'd' },
		{ "violations", required_argument, NULL, 'v' },
		{ "unguarded", no_argument, NULL, 'U' },
		{ "no-fs-violations", no_argument, NULL, 'F' },
		{ "control-fd", required_argument, NULL, 'C' },
		{ "decider-fd", required_argument, NULL, 'D' },
		{ "decider-in", required_argument, NULL, 'I' },
		{ "decider-out", required_argument, NULL, 'O' },
		{ "ask", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 },
	};
	const char *env_debug = getenv("SRT_DEBUG");
	int ch;

	/* SRT_DEBUG with any value but "" is -d, as the reference reads it. */
	if (env_debug != NULL && *env_debug != '\0')
		l->debug = 1;
	/* "+": options end at the command, whose own options are its business. */
	while ((ch = getopt_long(argc, argv, "+p:s:c:dhV", lopts, NULL)) != -1) {
#ifdef _WIN32
		if (strchr("CDIOA", ch) != NULL)
			cli_linux_only(l, ch, lopts);
#endif
		if (l->srt_mode)
			srt_refuse_launch_only(l, ch);
		switch (ch) {
		case 's':
			l->settings_arg = optarg;
			break;
		case 'p':
			l->policy_arg = optarg;
			break;
		case 'c':
			l->cstring = optarg;
			break;
		case 'd':
			/* A second -d (-dd) adds the detail: the write guard's every path. */
			l->debug++;
			break;
		case 'v':
			l->violations_arg = optarg;
			break;
		case 'U':
			l->unguarded = true;
			break;
		case 'F':
			l->no_fs_violations = true;
			break;
		case 'C':
			l->control.fd = fd_number(l, "--control-fd", optarg, 3);
			break;
		case 'D':
			l->proxy.decider_in = l->proxy.decider_out = fd_number(
			    l, "--decider-fd", optarg, 3);
			break;
		case 'I':
			l->proxy.decider_in = fd_number(l, "--decider-in", optarg, 3);
			break;
		case 'O':
			l->proxy.decider_out = fd_number(l, "--decider-out", optarg, 3);
			break;
		case 'A':
			l->proxy.ask = true;
			break;
		case 'h':
			if (l->srt_mode)
				help();
			usage(l, 0);
		case 'V':
			printf("%s %s\n", l->srt_mode ? "srt" : "srt-launch", SRT_VERSION);
			exit(0);
		default:
			usage(l, LAUNCH_FAIL);
		}
	}
	argc -= optind;
	argv += optind;
	if (!l->srt_mode && (l->settings_arg == NULL) == (l->policy_arg == NULL)) {
		log_warnx("exactly one of -p POLICY and -s SETTINGS is needed");
		usage(l, LAUNCH_FAIL);
	}
	if (l->cstring != NULL && argc > 0) {
		log_warnx("-c STRING and CMD ARGS exclude each other");
		usage(l, LAUNCH_FAIL);
	}
	if (l->cstring == NULL && argc == 0) {
		/* srt answers as the reference does (status 1, no usage): callers that
		 * drive both tell "nothing to run" from a failure of the sandbox. */
		if (l->srt_mode) {
			log_warnx("no command specified: use -c STRING or CMD [ARGS...] "
				  "(srt --help lists the options)");
			exit(1);
		}
		log_warnx("no command given: use -c STRING or CMD [ARGS...]");
		usage(l, LAUNCH_FAIL);
	}
	if ((l->proxy.decider_in == -1) != (l->proxy.decider_out == -1)) {
		log_warnx(
		    "a decider is --decider-fd N, or --decider-in N with --decider-out N");
		usage(l, LAUNCH_FAIL);
	}
	if (l->proxy.ask && l->proxy.decider_in == -1) {
		log_warnx("--ask needs a decider (--decider-fd N)");
		usage(l, LAUNCH_FAIL);
	}
	l->cmd = argc > 0 ? argv : NULL;
}

#ifndef _WIN32
/* $XDG_STATE_HOME/srt (or ~/.local/state/srt), made when make is set; NULL without a
 * home to put it in. */
static char *
warned_dir(bool make)
{
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");
	char *base, *dir;

	if (state != NULL && *state == '/')
		base = xstrdup(state);
	else if (home != NULL && *home == '/')
		base = xasprintf("%s/.local/state", home);
	else
		return NULL;
	dir = xasprintf("%s/srt", base);
	if (make) {
		/* What is missing of the way, as the XDG base directory spec has it. */
		if (state == NULL || *state != '/') {
			char *local = xasprintf("%s/.local", home);

			(void)mkdir(local, 0700);
			free(local);
		}
		(void)mkdir(base, 0700);
		if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
			log_debug("managed policy warnings: %s: %s: they will be repeated", dir,
			    strerror(errno));
			free(dir);
			dir = NULL;
		}
	}
	free(base);
	return dir;
}
#endif

/*
 * The managed policy's warnings (a user's entry it overrides) hold as long as the two
 * files do: an agent that runs srt for each tool call would read them every time. They
 * are shown once for each set of warnings, remembered by a hash of their text in
 * $XDG_STATE_HOME/srt/managed-warned (the latest WARNED_KEEP sets); -d shows them
 * always. Without that file (no home, a read-only one), every run shows them.
 */
static void
managed_warn_once(const struct launch *l, const struct diags *w)
{
	struct sha256 h;
	uint8_t sum[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1];
	size_t i;
#ifndef _WIN32
	struct strlist keep = { 0 };
	char *dir, *file = NULL, *tmp = NULL, line[SHA256_HEX_LEN + 2];
	FILE *f;
	int fd;
#endif

	if (w->msgs.n == 0)
		return;
	sha256_init(&h);
	for (i = 0; i < w->msgs.n; i++)
		sha256_update(&h, w->msgs.v[i], strlen(w->msgs.v[i]) + 1);
	sha256_final(&h, sum);
	hex_lower(sum, SHA256_LEN, hex);
	hex[SHA256_HEX_LEN] = '\0';
#ifndef _WIN32
	if ((dir = warned_dir(false)) != NULL) {
		file = xasprintf("%s/%s", dir, WARNED_FILE);
		if ((f = fopen(file, "re")) != NULL) {
			while (fgets(line, sizeof(line), f) != NULL) {
				line[strcspn(line, "\n")] = '\0';
				if (strlen(line) == SHA256_HEX_LEN)
					strlist_push(&keep, line);
			}
			fclose(f);
		}
		free(dir);
	}
	if (strlist_contains(&keep, hex) && !l->debug) {
		strlist_free(&keep);
		free(file);
		return;
	}
#else
	(void)l;
#endif
	for (i = 0; i < w->msgs.n; i++)
		log_warnx("warning: %s", w->msgs.v[i]);
#ifndef _WIN32
	if (strlist_contains(&keep, hex) || (dir = warned_dir(true)) == NULL)
		goto out;
	free(dir);
	tmp = xasprintf("%s.%ld", file, (long)getpid());
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600)) ==
		-1 ||
	    (f = fdopen(fd, "w")) == NULL) {
		if (fd != -1) {
			close(fd);
			(void)unlink(tmp);
		}
		log_debug("managed policy warnings: %s: %s: they will be repeated", tmp,
		    strerror(errno));
		goto out;
	}
	for (i = keep.n >= WARNED_KEEP ? keep.n - WARNED_KEEP + 1 : 0; i < keep.n; i++)
		fprintf(f, "%s\n", keep.v[i]);
	fprintf(f, "%s\n", hex);
	if (fclose(f) != 0 || rename(tmp, file) == -1) {
		log_debug("managed policy warnings: %s: %s: they will be repeated", file,
		    strerror(errno));
		(void)unlink(tmp);
	}
out:
	strlist_free(&keep);
	free(tmp);
	free(file);
#endif
}

/* The policy: a compiled file (-p), a settings file (-s), or for srt the default settings
 * file, or the built-in defaults when that does not exist (policy_source_load). A file
 * the user named is never replaced by defaults. */
int
launch_load_policy(struct launch *l)
{
	struct policy_source src = { .policy_path = l->policy_arg,
		.settings_path = l->settings_arg,
		.policy_fd = -1,
		.fallback = l->srt_mode ? POLICY_SOURCE_DEFAULT_OR_BUILTIN
					: POLICY_SOURCE_REQUIRED };
	struct diags errs = { 0 }, warns = { 0 }, mwarns = { 0 };
	char *path = NULL;
	size_t i;
	int rc;

	src.managed_warns = &mwarns;
	rc = policy_source_load(&src, &l->pol, &l->set, &path, &errs, &warns);
	for (i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	managed_warn_once(l, &mwarns);
	diags_free(&mwarns);
	for (i = 0; i < errs.msgs.n; i++)
		log_warnx("%s", errs.msgs.v[i]);
	/* As named (made absolute against the working directory, not resolved): the plan
	 * protects the name, and what it leads to. A name that cannot be made absolute
	 * would leave the file unprotected: on Windows, one lib/core/path_win.c refuses (a UNC
	 * share, "C:name"), which the plan could not name either. */
	if (rc == 0 && path != NULL &&
	    (l->config_path = path_absolute(path, NULL, l->cwd)) == NULL) {
		const char *why = path_refusal(path);

		log_warnx("%s: cannot be made an absolute path for the sandbox's plan, which "
			  "protects the settings file by its name%s%s",
		    path, why != NULL ? ": " : "", why != NULL ? why : "");
		rc = -1;
	}
	free(path);
	diags_free(&errs);
	diags_free(&warns);
	return rc;
}

/* The command as one string, as the reference spells it (for ignoreViolations):
 * -c verbatim, else each word single-quoted unless it is plainly safe. */
char *
launch_command_text(const struct launch *l)
{
	struct buf b = { 0 };
	char *q;

	if (l->cstring != NULL)
		return xstrdup(l->cstring);
	for (size_t i = 0; l->cmd[i] != NULL; i++) {
		q = shell_quote(l->cmd[i]);
		if (i > 0)
			buf_addc(&b, ' ');
		buf_adds(&b, q);
		free(q);
	}
	return buf_steal(&b);
}
