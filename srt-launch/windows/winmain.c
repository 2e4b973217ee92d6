/*
 * srt.exe's entry (Windows): the command line and the policy as on Linux and macOS
 * (cli.c: the reference CLI's flags, the settings reader, the managed merge, the policy
 * compiled), then the Windows path (winlaunch.h). What linux/run.c does with namespaces,
 * bwrap, seccomp, signalfd and /proc has no part here; the options that hand srt a
 * descriptor are refused (cli.c), and so is the proxy mode.
 *
 * The arguments come in as UTF-16 (wmain) and go on as UTF-8, which is what winsys_win32.c
 * turns back into UTF-16 for CreateProcessW.
 */
#ifdef _WIN32
#include <windows.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include "launch.h"
#include "sys_file.h"
#include "winlaunch.h"

int wmain(int argc, wchar_t **wargv);

static char *
utf8(const wchar_t *w)
{
	char *s = sys_utf8(w);

	if (s == NULL)
		fatalx("an argument is not valid UTF-16");
	return s;
}

/* The working directory, UTF-8 (getcwd gives the ANSI code page's). */
static char *
cwd_utf8(void)
{
	wchar_t *w = _wgetcwd(NULL, 0);
	char *s;

	if (w == NULL)
		return NULL;
	s = sys_utf8(w);
	free(w);
	return s;
}

static int
srt_main(int argc, char **argv)
{
	struct launch l;
	int rc = LAUNCH_FAIL;

	launch_init(&l, argv[0]);
	log_init("srt", 0, LAUNCH_FAIL);
	if (argc > 1 && strcmp(argv[1], "proxy") == 0) {
		log_warnx("srt proxy: not supported on Windows yet");
		return LAUNCH_FAIL;
	}
	launch_parse_args(&l, argc, argv);
	log_init("srt", l.debug, LAUNCH_FAIL);
	if ((l.cwd = cwd_utf8()) == NULL)
		log_warn("getcwd");
	else if (launch_load_policy(&l) == 0)
		rc = windows_launch(&l);
	if (l.viol != NULL)
		violations_finish(l.viol, l.srt_mode);
	violations_free(l.viol);
	if (l.pol != NULL)
		policy_free(l.pol);
	settings_free(&l.set);
	free(l.config_path);
	free(l.self_dir);
	free(l.cwd);
	free(l.home);
	return rc;
}

int
wmain(int argc, wchar_t **wargv)
{
	char **argv;
	int i, rc;

	log_init("srt", 0, LAUNCH_FAIL);
	argv = xcalloc((size_t)argc + 1, sizeof(char *));
	for (i = 0; i < argc; i++)
		argv[i] = utf8(wargv[i]);
	rc = srt_main(argc, argv);
	for (i = 0; i < argc; i++)
		free(argv[i]);
	free(argv);
	return rc;
}
#endif
