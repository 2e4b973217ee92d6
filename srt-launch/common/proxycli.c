/*
 * `srt proxy ...`: the reference's name and flags for a proxy with no sandbox whose every
 * request an external decider decides (srt(1) PROXY MODE). It is srt-httpd in proxy mode
 * (its policy is the decider's hello): this turns the reference's flags into srt-httpd's
 * and executes it from srt's helper directory.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "layout.h"
#include "proxy_fd.h"
#include "proxy_listen.h"

static noreturn void SRT_PRINTF(1, 2) proxycli_fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "srt proxy: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	exit(2);
}

/* The descriptor s given to option f, kept in fd[f] for proxy_fd_check; s itself. */
static const char *
proxycli_fd(int fd[PFD_MAX], enum proxy_fd f, const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (end == s || *end != '\0' || v < 0 || v > INT_MAX || s[0] < '0' || s[0] > '9')
		proxycli_fail("%s needs a descriptor number", proxy_fd_opt[f]);
	fd[f] = (int)v;
	return s;
}

/* A response header's name for --strip-response-header. */
static const char *
proxycli_header(const char *s)
{
	if (s[0] == '\0')
		proxycli_fail("--strip-response-header needs a header name");
	return s;
}

/* --listen as srt-httpd's -l reads it (proxy_listen.h), said in this command's words;
 * srt-httpd warns when other hosts can reach it. */
static void
proxycli_listen(const char *s, bool any)
{
	const char *why = proxy_listen_refusal(s, any);

	if (why != NULL)
		proxycli_fail("--listen %s: %s", s, why);
}

/* srt-httpd's listener: an inherited one, or an address (development only). */
static void
proxycli_listen_args(struct strlist *av, const char *listen_fd, const char *listen, bool any)
{
	if (listen_fd != NULL) {
		strlist_push(av, proxy_fd_opt[PFD_LISTEN]);
		strlist_push(av, listen_fd);
	} else if (listen != NULL) {
		proxycli_listen(listen, any);
		strlist_push(av, "-l");
		strlist_push(av, listen);
		if (any)
			strlist_push(av, "--listen-any-interface");
	} else
		proxycli_fail("--listen-fd (or --listen for development) is required");
}

/* The decider: one descriptor both ways, or one each. */
static void
proxycli_decider_args(struct strlist *av, const char *din, const char *dout)
{
	if (din == dout) {
		strlist_push(av, proxy_fd_opt[PFD_DECIDER]);
		strlist_push(av, din);
	} else {
		strlist_push(av, proxy_fd_opt[PFD_DECIDER_IN]);
		strlist_push(av, din);
		strlist_push(av, proxy_fd_opt[PFD_DECIDER_OUT]);
		strlist_push(av, dout);
	}
}

static void
proxycli_usage(void)
{
	printf("usage: srt proxy --decider-fd N | --decider-in N --decider-out N\n"
	       "           (--listen-fd N | --listen HOST:PORT [--listen-any-interface])\n"
	       "           [--lifeline-fd N] [--ca-fd N] [--strip-response-header NAME...]\n"
	       "           [--plaintext-header-set] [-d] [--version]\n");
}

/* srt proxy's options, each put to srt-httpd as its own. */
static const struct option proxycli_opts[] = {
	{ "listen-fd", required_argument, NULL, 'F' },
	{ "listen", required_argument, NULL, 'L' },
	{ "listen-any-interface", no_argument, NULL, 'Y' },
	{ "decider-fd", required_argument, NULL, 'D' },
	{ "decider-in", required_argument, NULL, 'I' },
	{ "decider-out", required_argument, NULL, 'O' },
	{ "lifeline-fd", required_argument, NULL, 'E' },
	{ "ca-fd", required_argument, NULL, 'C' },
	{ "strip-response-header", required_argument, NULL, 'S' },
	{ "plaintext-header-set", no_argument, NULL, 'P' },
	{ "debug", no_argument, NULL, 'd' },
	{ "version", no_argument, NULL, 'V' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
proxycli_run(int argc, char **argv, const char *self_dir)
{
	struct strlist av = { 0 };
	const char *listen = NULL, *listen_fd = NULL, *din = NULL, *dout = NULL;
	char *dir, *path, *why;
	bool any = false;
	int ch, fd[PFD_MAX];

	/* --version anywhere: one line, nothing else looked at. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--version") == 0) {
			printf("srt-proxy %s\n", SRT_VERSION);
			return 0;
		}
	for (ch = 0; ch < PFD_MAX; ch++)
		fd[ch] = -1;
	strlist_push(&av, "srt-httpd");
	/* "+": no reordering, so that the names after --strip-response-header can be
	 * taken from argv as they come (a word that is no option is refused anyway). */
	while ((ch = getopt_long(argc, argv, "+dh", proxycli_opts, NULL)) != -1) {
		switch (ch) {
		case 'F':
			listen_fd = proxycli_fd(fd, PFD_LISTEN, optarg);
			break;
		case 'L':
			listen = optarg;
			break;
		case 'Y':
			any = true;
			break;
		case 'D':
			din = dout = proxycli_fd(fd, PFD_DECIDER, optarg);
			break;
		case 'I':
			din = proxycli_fd(fd, PFD_DECIDER_IN, optarg);
			break;
		case 'O':
			dout = proxycli_fd(fd, PFD_DECIDER_OUT, optarg);
			break;
		case 'E':
			strlist_push(&av, proxy_fd_opt[PFD_LIFELINE]);
			strlist_push(&av, proxycli_fd(fd, PFD_LIFELINE, optarg));
			break;
		case 'C':
			/* srt-httpd reads the CA from it; in proxy mode that turns
			 * tlsTerminate on. */
			strlist_push(&av, proxy_fd_opt[PFD_CA]);
			strlist_push(&av, proxycli_fd(fd, PFD_CA, optarg));
			break;
		case 'S':
			/* One name or more, as the reference's variadic option takes them:
			 * the words up to the next option. */
			strlist_push(&av, "--strip-response-header");
			strlist_push(&av, proxycli_header(optarg));
			while (optind < argc && argv[optind][0] != '-') {
				strlist_push(&av, "--strip-response-header");
				strlist_push(&av, proxycli_header(argv[optind++]));
			}
			break;
		case 'P':
			strlist_push(&av, "--plaintext-header-set");
			break;
		case 'd':
			strlist_push(&av, "-d");
			break;
		case 'h':
			proxycli_usage();
			return 0;
		default:
			return 2;
		}
	}
	if (optind < argc)
		proxycli_fail("unexpected argument: %s", argv[optind]);
	if (din == NULL || dout == NULL)
		proxycli_fail("a decider is required (--decider-fd, or --decider-in and "
			      "--decider-out)");
	/* srt-httpd's own log goes to standard error (below), which the rule allows. */
	if ((why = proxy_fd_check(fd, NULL, 0)) != NULL)
		proxycli_fail("%s", why);
	proxycli_listen_args(&av, listen_fd, listen, any);
	proxycli_decider_args(&av, din, dout);
	/* The reference's proxy logs no decisions; srt-httpd's go to stderr here, not into
	 * the stream a caller may read. */
	strlist_push(&av, proxy_fd_opt[PFD_LOG]);
	strlist_push(&av, "2");
	dir = layout_helpers_dir(self_dir);
	path = xasprintf("%s/" LAYOUT_HTTPD, dir);
	execv(path, av.v);
	fprintf(stderr, "srt proxy: %s: %s\n", path, strerror(errno));
	return 1;
}

/* srt's own directory first, as the helpers are found from it. */
int
proxycli_main(int argc, char **argv)
{
	char *dir = layout_self_dir();
	int rc;

	if (dir == NULL) {
		log_warnx("cannot find my own directory through /proc/self/exe");
		return LAUNCH_FAIL;
	}
	rc = proxycli_run(argc, argv, dir);
	free(dir);
	return rc;
}
