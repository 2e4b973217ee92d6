/*
 * srt-launch on macOS: the only code that needs a Mac (macos.h). After main's command
 * line (srt-launch.c) it loads the policy, finds the launcher's own directory, the
 * working and home directories, then runs the command through macos_run() with the
 * system's sandbox-exec and log.
 *
 * Built on Linux too, as a Mac would see it: `make macos-compile` compiles this file and
 * macos.c with __APPLE__ defined, POSIX declarations only (no _GNU_SOURCE), and a
 * declaration of the one Apple function used (tests/shim/apple).
 */
#ifdef __APPLE__

#include <sys/types.h>

#include <mach-o/dyld.h>

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macos.h"
#include "path.h"

/* The directory of this executable, links resolved: the proxies are beside it. */
static char *
self_dir(void)
{
	char buf[PATH_MAX], *real, *slash;
	uint32_t size = sizeof(buf);

	if (_NSGetExecutablePath(buf, &size) != 0 || (real = realpath(buf, NULL)) == NULL)
		return NULL;
	if ((slash = strrchr(real, '/')) == NULL) {
		free(real);
		return NULL;
	}
	*slash = '\0';
	if (real[0] == '\0') {
		free(real);
		return xstrdup("/");
	}
	return real;
}

/* The policy, srt's directory and the proxies in it, home, the violations: -1 with
 * the message logged. */
static int
macos_prepare(struct launch *l)
{
	const char *need[2];
	size_t n = 0, i;
	char *text;

	if ((l->cwd = getcwd(NULL, 0)) == NULL) {
		log_warn("getcwd");
		return -1;
	}
	if (launch_load_policy(l) == -1)
		return -1;
	if (l->set.no_fs_violations || l->unguarded)
		l->no_fs_violations = true;
	/* The real values would reach the command: the substitution and the masked
	 * copies are the Linux launcher's (linux/cred.c). */
	if (l->set.cred.nmask > 0) {
		log_warnx("credentials with mode \"mask\" are not supported on macOS yet; "
			  "use \"deny\", or remove them");
		return -1;
	}
	if ((l->self_dir = self_dir()) == NULL) {
		log_warn("cannot find my own directory");
		return -1;
	}
	if (l->set.net.http_proxy_port == 0)
		need[n++] = "srt-httpd";
	if (l->set.net.socks_proxy_port == 0)
		need[n++] = "srt-socksd";
	for (i = 0; i < n; i++) {
		char *p = xasprintf("%s/%s", l->self_dir, need[i]);
		int ok = access(p, X_OK) == 0;

		if (!ok)
			log_warn("%s", p);
		free(p);
		if (!ok)
			return -1;
	}
	if ((l->home = path_home()) == NULL) {
		log_warnx("cannot tell the home directory (set HOME)");
		return -1;
	}
	text = launch_command_text(l);
	l->viol = violations_new(&l->set, text, l->violations_arg);
	free(text);
	return l->viol != NULL ? 0 : -1;
}

int
launch_run(struct launch *l)
{
	struct macos_run r = {
		.sandbox_exec = MACOS_SANDBOX_EXEC,
		.log_prog = MACOS_LOG,
		.shell = access("/bin/bash", X_OK) == 0 ? "/bin/bash" : "/bin/sh",
		.log_start_ms = 2000,
		.log_drain_ms = 1000,
		.log_quiet_ms = 250,
	};
	int rc = LAUNCH_FAIL;

	tty_std_open();
	tty_save();
	if (macos_prepare(l) == 0)
		rc = macos_run(l, &r);
	/* As on Linux: the block unless the records go to --violations FILE. */
	if (l->viol != NULL)
		violations_finish(l->viol, l->srt_mode || l->violations_arg == NULL);
	return rc;
}

#endif /* __APPLE__ */
