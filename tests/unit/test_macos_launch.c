/*
 * The pieces of the macOS launch path (srt-launch/macos/macos.c) that are pure: the log
 * tag, the command's environment, the argv of sandbox-exec and of log stream. The run
 * itself is tests/macos/launch.bats.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "macos/macos.h"
#include "tap.h"

static size_t
count_prefix(char **env, const char *name)
{
	size_t n = 0, k = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, k) == 0 && (*env)[k] == '=')
			n++;
	return n;
}

static const char *
value(char **env, const char *name)
{
	size_t k = strlen(name);

	for (; *env != NULL; env++)
		if (strncmp(*env, name, k) == 0 && (*env)[k] == '=')
			return *env + k + 1;
	return NULL;
}

static bool
is(const char *got, const char *want)
{
	return got != NULL && strcmp(got, want) == 0;
}

static void
test_tag(void)
{
	char *a = macos_log_tag(), *b = macos_log_tag(), pre[64];
	size_t i, n;

	snprintf(pre, sizeof(pre), "SRT_%ld_", (long)getpid());
	ok(a != NULL && b != NULL && strcmp(a, b) != 0, "two tags differ");
	n = a != NULL ? strlen(a) : 0;
	ok(a != NULL && strncmp(a, pre, strlen(pre)) == 0 && n == strlen(pre) + 14 &&
		strcmp(a + n - 4, "_SBX") == 0,
	    "tag SRT_<pid>_<10>_SBX: %s", a != NULL ? a : "");
	for (i = strlen(pre); a != NULL && i < n - 4; i++)
		if (!((a[i] >= 'a' && a[i] <= 'z') || (a[i] >= '0' && a[i] <= '9')))
			break;
	ok(a != NULL && i == n - 4, "the random part is [a-z0-9]");
	free(a);
	free(b);
}

static void
test_env(void)
{
	static const char *const owned[] = { "SANDBOX_RUNTIME", "TMPDIR", "NO_PROXY",
		"no_proxy", "HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy",
		"ALL_PROXY", "all_proxy", "GRPC_PROXY", "grpc_proxy", "FTP_PROXY", "ftp_proxy",
		"RSYNC_PROXY", "DOCKER_HTTP_PROXY", "DOCKER_HTTPS_PROXY", "CLOUDSDK_PROXY_TYPE",
		"CLOUDSDK_PROXY_ADDRESS", "CLOUDSDK_PROXY_PORT", "GIT_SSH_COMMAND",
		"JAVA_TOOL_OPTIONS", NULL };
	struct launch l;
	char **env;
	const char *j;
	size_t i, bad = 0;

	memset(&l, 0, sizeof(l));
	settings_init_default(&l.set);
	strlist_push(&l.set.git_safe_dirs, "/repo/top");
	l.tmpdir = "/private/tmp/srt.abc";
	setenv("HTTP_PROXY", "http://corp:8080", 1);
	setenv("TMPDIR", "/var/tmp", 1);
	setenv("SRT_TEST_KEEP", "kept", 1);
	setenv("JAVA_TOOL_OPTIONS", "-Xmx1g", 1);
	setenv("GIT_CONFIG_COUNT", "2", 1);
	setenv("CLOUDSDK_PROXY_USERNAME", "u", 1);

	env = macos_env(&l, 40001, 40002);
	for (i = 0; owned[i] != NULL; i++)
		if (count_prefix(env, owned[i]) != 1) {
			bad++;
			ok(0, "%s set once (%zu times)", owned[i], count_prefix(env, owned[i]));
		}
	ok(bad == 0, "each variable the launcher sets is there once, the caller's dropped");
	ok(count_prefix(env, "CLOUDSDK_PROXY_USERNAME") == 0,
	    "a proxy credential of the "
	    "caller's is not passed on");
	ok(is(value(env, "SRT_TEST_KEEP"), "kept"), "the rest of the environment is kept");
	ok(is(value(env, "TMPDIR"), "/private/tmp/srt.abc"), "TMPDIR is the run's own");
	ok(is(value(env, "SANDBOX_RUNTIME"), "1"), "SANDBOX_RUNTIME=1");
	ok(is(value(env, "HTTP_PROXY"), "http://localhost:40001") &&
		is(value(env, "https_proxy"), "http://localhost:40001") &&
		is(value(env, "ALL_PROXY"), "http://localhost:40001") &&
		is(value(env, "GRPC_PROXY"), "http://localhost:40001") &&
		is(value(env, "DOCKER_HTTPS_PROXY"), "http://localhost:40001"),
	    "the HTTP variables point at the HTTP proxy's port");
	ok(is(value(env, "FTP_PROXY"), "socks5h://localhost:40002") &&
		is(value(env, "RSYNC_PROXY"), "localhost:40002"),
	    "FTP and rsync go through the SOCKS proxy's port");
	ok(is(value(env, "CLOUDSDK_PROXY_PORT"), "40001") &&
		is(value(env, "CLOUDSDK_PROXY_TYPE"), "http"),
	    "gcloud");
	ok(is(value(env, "NO_PROXY"),
	       "localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,"
	       "172.16.0.0/12,192.168.0.0/16"),
	    "NO_PROXY");
	ok(is(value(env, "GIT_SSH_COMMAND"),
	       "ssh -o ControlMaster=no -o ControlPath=none "
	       "-o ProxyCommand='/usr/bin/nc -X 5 -x localhost:40002 %h %p'"),
	    "ssh through the SOCKS port with the nc macOS ships");
	j = value(env, "JAVA_TOOL_OPTIONS");
	ok(j != NULL &&
		strncmp(j, "-Xmx1g -Dhttp.proxyHost=localhost -Dhttp.proxyPort=40001 ", 57) ==
		    0 &&
		strstr(j, "-DsocksProxyPort=40002") != NULL &&
		strstr(j, " -Djava.net.preferIPv4Stack=true") != NULL,
	    "Java: the caller's options first, the proxies, IPv4 sockets: %s",
	    j != NULL ? j : "");
	ok(is(value(env, "GIT_CONFIG_COUNT"), "4") &&
		is(value(env, "GIT_CONFIG_KEY_2"), "safe.directory") &&
		is(value(env, "GIT_CONFIG_VALUE_2"), "/repo/top") &&
		is(value(env, "GIT_CONFIG_VALUE_3"), "/repo/top/*"),
	    "git.safeDirectories continue the caller's GIT_CONFIG_* numbering");
	env_free(env);
	strlist_free(&l.set.git_safe_dirs);
	settings_free(&l.set);
}

static void
test_argv(void)
{
	struct macos_run r = { "/usr/bin/sandbox-exec", "/usr/bin/log", "/bin/bash", 0, 0, 0 };
	struct launch l;
	char *cmd[] = { "printf", "%s\\n", "a b", NULL }, **a;

	memset(&l, 0, sizeof(l));
	l.cstring = "echo $HOME; exit 3";
	a = macos_sandbox_argv(&r, &l, "(version 1)\n(allow default)\n");
	ok(a != NULL && is(a[0], "/usr/bin/sandbox-exec") && is(a[1], "-p") &&
		is(a[2], "(version 1)\n(allow default)\n") && is(a[3], "/bin/bash") &&
		is(a[4], "-c") && is(a[5], "echo $HOME; exit 3") && a[6] == NULL,
	    "-c STRING: sandbox-exec -p PROFILE SHELL -c STRING");
	env_free(a);
	l.cstring = NULL;
	l.cmd = cmd;
	a = macos_sandbox_argv(&r, &l, "P");
	ok(a != NULL && is(a[2], "P") && is(a[3], "printf") && is(a[4], "%s\\n") &&
		is(a[5], "a b") && a[6] == NULL,
	    "CMD ARGS passed as they are, no shell");
	env_free(a);
	a = macos_log_argv(&r, "SRT_1_x_SBX");
	ok(a != NULL && is(a[0], "/usr/bin/log") && is(a[1], "stream") &&
		is(a[2], "--predicate") &&
		is(a[3], "(eventMessage ENDSWITH \"SRT_1_x_SBX\")") && is(a[4], "--style") &&
		is(a[5], "compact") && a[6] == NULL,
	    "log stream filtered on the tag, compact");
	env_free(a);
}

int
main(void)
{
	log_init("test_macos_launch", 0, 1);
	test_tag();
	test_env();
	test_argv();
	return tap_done();
}
