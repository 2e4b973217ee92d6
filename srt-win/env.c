/*
 * The environment of a sandboxed command. The runner starts as the sandbox account, with
 * that account's own logon environment; the command gets from it only what Windows
 * programs need to start (system directories, the account's profile and temporary
 * directories), plus PATH and the proxy variables the broker passes with --env, and
 * nothing of the real user's environment. Windows reads variable names without regard
 * to case, so each name is set once, in one spelling.
 */
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

/* Kept from the account's own environment. */
static const char *const essentials[] = { "ALLUSERSPROFILE", "APPDATA", "CommonProgramFiles",
	"CommonProgramFiles(x86)", "CommonProgramW6432", "COMPUTERNAME", "ComSpec", "HOMEDRIVE",
	"HOMEPATH", "LOCALAPPDATA", "NUMBER_OF_PROCESSORS", "OS", "PROCESSOR_ARCHITECTURE",
	"PROCESSOR_IDENTIFIER", "PROCESSOR_LEVEL", "PROCESSOR_REVISION", "ProgramData",
	"ProgramFiles", "ProgramFiles(x86)", "ProgramW6432", "PUBLIC", "SystemDrive",
	"SystemRoot", "TEMP", "TMP", "USERDOMAIN", "USERNAME", "USERPROFILE", "windir", NULL };

/* May be passed with --env, in the spelling they get. */
static const char *const allowed[] = { "PATH", "PATHEXT", "SANDBOX_RUNTIME", "http_proxy",
	"https_proxy", "ftp_proxy", "all_proxy", "no_proxy", "grpc_proxy", "RSYNC_PROXY",
	"DOCKER_HTTP_PROXY", "DOCKER_HTTPS_PROXY", "CLOUDSDK_PROXY_TYPE",
	"CLOUDSDK_PROXY_ADDRESS", "CLOUDSDK_PROXY_PORT", "NODE_USE_ENV_PROXY",
	"JAVA_TOOL_OPTIONS", "GIT_SSH_COMMAND", "GIT_CONFIG_COUNT", NULL };

static int
name_eq(const char *a, size_t an, const char *b)
{
	size_t bn = strlen(b);

	if (an != bn)
		return 0;
	for (size_t i = 0; i < an; i++) {
		char x = a[i], y = b[i];

		if (x >= 'a' && x <= 'z')
			x = (char)(x - 32);
		if (y >= 'a' && y <= 'z')
			y = (char)(y - 32);
		if (x != y)
			return 0;
	}
	return 1;
}

/* GIT_CONFIG_KEY_<n> and GIT_CONFIG_VALUE_<n> (the safe.directory entries). */
static int
git_config_pair(const char *name, size_t n)
{
	static const char *const pre[] = { "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_" };

	for (int k = 0; k < 2; k++) {
		size_t pl = strlen(pre[k]), i;

		if (n <= pl || !name_eq(name, pl, pre[k]))
			continue;
		for (i = pl; i < n && name[i] >= '0' && name[i] <= '9'; i++)
			;
		if (i == n && n - pl <= 6)
			return 1;
	}
	return 0;
}

static const char *
spelling(const char *name, size_t n)
{
	for (size_t i = 0; allowed[i] != NULL; i++)
		if (name_eq(name, n, allowed[i]))
			return allowed[i];
	return NULL;
}

int
env_name_allowed(const char *name)
{
	size_t n = strlen(name);

	return n > 0 && (spelling(name, n) != NULL || git_config_pair(name, n));
}

const char *
env_get(char *const *env, const char *name)
{
	size_t n = strlen(name);

	for (; env != NULL && *env != NULL; env++) {
		const char *eq = strchr(*env, '=');

		if (eq != NULL && eq != *env && name_eq(*env, (size_t)(eq - *env), name) &&
		    n == (size_t)(eq - *env))
			return eq + 1;
	}
	return NULL;
}

void
env_set(struct strlist *env, const char *name, const char *value)
{
	size_t n = strlen(name);
	const char *sp = spelling(name, n);

	for (size_t i = 0; i < env->n;) {
		const char *eq = strchr(env->v[i], '=');

		if (eq != NULL && name_eq(env->v[i], (size_t)(eq - env->v[i]), name) &&
		    (size_t)(eq - env->v[i]) == n) {
			free(env->v[i]);
			memmove(&env->v[i], &env->v[i + 1], (env->n - i) * sizeof(char *));
			env->n--;
		} else
			i++;
	}
	strlist_push_owned(env, xasprintf("%s=%s", sp != NULL ? sp : name, value));
}

static int
name_cmp(const void *a, const void *b)
{
	const char *x = *(char *const *)a, *y = *(char *const *)b;

	for (;; x++, y++) {
		char c = *x == '=' ? '\0' : *x, d = *y == '=' ? '\0' : *y;

		if (c >= 'a' && c <= 'z')
			c = (char)(c - 32);
		if (d >= 'a' && d <= 'z')
			d = (char)(d - 32);
		if (c != d || c == '\0')
			return (unsigned char)c - (unsigned char)d;
	}
}

void
env_build(char *const *base, char *const *overlay, struct strlist *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; essentials[i] != NULL; i++) {
		const char *v = env_get(base, essentials[i]);

		if (v != NULL)
			env_set(out, essentials[i], v);
	}
	for (; overlay != NULL && *overlay != NULL; overlay++) {
		const char *eq = strchr(*overlay, '=');
		char *name;

		if (eq == NULL || eq == *overlay)
			continue;
		name = xstrndup(*overlay, (size_t)(eq - *overlay));
		env_set(out, name, eq + 1);
		free(name);
	}
	/* Windows keeps an environment block sorted by name, ignoring case. */
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(char *), name_cmp);
}

void
env_proxies(struct strlist *overlay, int http_port, int socks_port)
{
	char *http = xasprintf("http://127.0.0.1:%d", http_port);
	char *socks = xasprintf("socks5h://127.0.0.1:%d", socks_port);

	env_set(overlay, "SANDBOX_RUNTIME", "1");
	if (http_port > 0) {
		/* NO_PROXY stays unset: the filters refuse every direct connect, loopback
		 * included, so a client that bypassed the proxy would only fail. */
		env_set(overlay, "http_proxy", http);
		env_set(overlay, "https_proxy", http);
		env_set(overlay, "all_proxy", http);
		env_set(overlay, "grpc_proxy", http);
		env_set(overlay, "DOCKER_HTTP_PROXY", http);
		env_set(overlay, "DOCKER_HTTPS_PROXY", http);
		env_set(overlay, "CLOUDSDK_PROXY_TYPE", "http");
		env_set(overlay, "CLOUDSDK_PROXY_ADDRESS", "127.0.0.1");
		free(http);
		http = xasprintf("%d", http_port);
		env_set(overlay, "CLOUDSDK_PROXY_PORT", http);
		env_set(overlay, "NODE_USE_ENV_PROXY", "1");
	}
	if (socks_port > 0) {
		env_set(overlay, "ftp_proxy", socks);
		free(socks);
		socks = xasprintf("127.0.0.1:%d", socks_port);
		env_set(overlay, "RSYNC_PROXY", socks);
	}
	if (http_port > 0 && socks_port > 0) {
		char *java = xasprintf(
		    "-Dhttp.proxyHost=127.0.0.1 -Dhttp.proxyPort=%d "
		    "-Dhttps.proxyHost=127.0.0.1 -Dhttps.proxyPort=%d -DsocksProxyHost=127.0.0.1 "
		    "-DsocksProxyPort=%d",
		    http_port, http_port, socks_port);

		env_set(overlay, "JAVA_TOOL_OPTIONS", java);
		free(java);
	}
	free(http);
	free(socks);
}
