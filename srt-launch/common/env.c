/*
 * The command's environment (SPEC §5.5): the launcher's own, with the proxy variables of
 * BEHAVIOR §4.5 pointing at the listeners inside the sandbox. Nothing outside the sandbox
 * can reach those sockets, so the URLs carry no credentials.
 */
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"
#include "sys_file.h"

extern char **environ;

/* After the loopback names of env_loopback, those not routed through the proxy. */
#define NO_PROXY_RANGES "169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16"
#define SSH_NO_MUX "-o ControlMaster=no -o ControlPath=none"
#define SAFE_DIR_WILDCARD_OVER 8 /* more safe directories than this: "*" */

/* Variables the launcher sets; an inherited value of the same name is dropped. */
static const char *const env_owned[] = { "SANDBOX_RUNTIME", "TMPDIR", "NO_PROXY", "no_proxy",
	"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "ALL_PROXY", "all_proxy",
	"GRPC_PROXY", "grpc_proxy", "FTP_PROXY", "ftp_proxy", "RSYNC_PROXY",
	"DOCKER_HTTP_PROXY", "DOCKER_HTTPS_PROXY", "CLOUDSDK_PROXY_TYPE",
	"CLOUDSDK_PROXY_ADDRESS", "CLOUDSDK_PROXY_PORT", "CLOUDSDK_PROXY_USERNAME",
	"CLOUDSDK_PROXY_PASSWORD", "GIT_SSH_COMMAND", "JAVA_TOOL_OPTIONS", NULL };

int
env_is_owned(const char *kv, bool git_count)
{
	size_t i, n = strcspn(kv, "=");

	for (i = 0; env_owned[i] != NULL; i++)
		if (strlen(env_owned[i]) == n && strncmp(kv, env_owned[i], n) == 0)
			return 1;
	return git_count && n == strlen("GIT_CONFIG_COUNT") &&
	    strncmp(kv, "GIT_CONFIG_COUNT", n) == 0;
}

/*
 * credentials.envVars with mode "deny" never reach the command. Denied before anything is
 * set, as the reference drops them: srt's own variables of the same name are still set,
 * and what srt composes from an inherited value (JAVA_TOOL_OPTIONS, GIT_CONFIG_COUNT)
 * starts without the denied one.
 */
int
env_is_denied(const struct settings *s, const char *kv)
{
	size_t i, n = strcspn(kv, "=");

	for (i = 0; i < s->cred.deny_env.n; i++)
		if (strlen(s->cred.deny_env.v[i]) == n &&
		    strncmp(kv, s->cred.deny_env.v[i], n) == 0)
			return 1;
	return 0;
}

/* getenv(name), as the command would have inherited it: NULL when denied. */
const char *
env_inherited(const struct settings *s, const char *name)
{
	return strlist_contains(&s->cred.deny_env, name) ? NULL : getenv(name);
}

static int
env_is_nc_openbsd(const char *path)
{
	char real[PATH_MAX];

	if (access(path, X_OK) == -1 || realpath(path, real) == NULL)
		return 0;
	return strstr(real, "openbsd") != NULL;
}

/*
 * A ProxyCommand for ssh that goes through the SOCKS listener, with a program the sandbox
 * has: it sees the host's root read-only, so the host's programs are the candidates.
 * OpenBSD netcat speaks SOCKS5 (-X 5); failing that, socat tunnels through the HTTP
 * proxy with CONNECT (its PROXY address works in every socat version). NULL: neither.
 */
const char *
env_ssh_proxy_tool(void)
{
	static const char *const ncs[] = { "/usr/bin/nc", "/bin/nc", "/usr/bin/nc.openbsd",
		"/bin/nc.openbsd", NULL };
	static const char *const socats[] = { "/usr/bin/socat", "/bin/socat", NULL };
	size_t i;

	for (i = 0; ncs[i] != NULL; i++)
		if (env_is_nc_openbsd(ncs[i]))
			return ncs[i];
	for (i = 0; socats[i] != NULL; i++)
		if (access(socats[i], X_OK) == 0)
			return socats[i];
	return NULL;
}

/* git refuses repositories owned by an unmapped uid ("dubious ownership") unless they
 * are safe directories: add git.safeDirectories through GIT_CONFIG_*, continuing any
 * numbering the caller already uses. GIT_CONFIG_COUNT=0 is an explicit opt-out. */
void
env_add_git(struct strlist *e, const struct settings *s, const char *inherited_count)
{
	long start = 0;
	size_t i;
	long n;

	if (inherited_count != NULL) {
		char *end;

		if (strcmp(inherited_count, "0") == 0)
			return;
		start = strtol(inherited_count, &end, 10);
		if (*inherited_count == '\0' || *end != '\0' || start < 0 || start > 100000)
			start = 0;
	}
	n = start;
	if (s->git_safe_dirs.n > SAFE_DIR_WILDCARD_OVER) {
		strlist_pushf(e, "GIT_CONFIG_KEY_%ld=safe.directory", n);
		strlist_pushf(e, "GIT_CONFIG_VALUE_%ld=*", n++);
	} else {
		for (i = 0; i < s->git_safe_dirs.n; i++) {
			char *d = xstrdup(s->git_safe_dirs.v[i]);
			size_t len = strlen(d);

			while (len > 1 && d[len - 1] == '/')
				d[--len] = '\0';
			strlist_pushf(e, "GIT_CONFIG_KEY_%ld=safe.directory", n);
			strlist_pushf(e, "GIT_CONFIG_VALUE_%ld=%s", n++, d);
			/* git matches the top of the repository exactly; the glob form
			 * (git 2.46 and later) covers repositories below it too. */
			strlist_pushf(e, "GIT_CONFIG_KEY_%ld=safe.directory", n);
			strlist_pushf(e, "GIT_CONFIG_VALUE_%ld=%s%s*", n++, d,
			    strcmp(d, "/") == 0 ? "" : "/");
			free(d);
		}
	}
	strlist_pushf(e, "GIT_CONFIG_COUNT=%ld", n);
}

/* Windows has no env_build: srt-win sets the command's environment, and winlaunch.c
 * passes it git's variables (env_add_git) with --env. */

#ifndef _WIN32
/*
 * What srt sets in every sandbox of this host's (Linux and macOS) after what the command
 * inherits, in this order: SANDBOX_RUNTIME, TMPDIR, NO_PROXY (no_proxy, the hosts not
 * proxied) and the proxy variables of BEHAVIOR §4.5 for the listeners on localhost's
 * http_port and socks_port. ALL_PROXY is the HTTP URL, as the reference does: clients
 * that only speak CONNECT get one they understand, and some choke on socks5h:// in
 * ALL_PROXY.
 */
void
env_add_sandbox(
    struct strlist *e, const char *tmpdir, const char *no_proxy, int http_port, int socks_port)
{
	char *http = xasprintf("http://localhost:%d", http_port);
	char *socks = xasprintf("socks5h://localhost:%d", socks_port);
	char *rsync = xasprintf("localhost:%d", socks_port);
	char *port = xasprintf("%d", http_port);
	const struct {
		const char *name, *value;
	} var[] = {
		{ "SANDBOX_RUNTIME", "1" },
		{ "TMPDIR", tmpdir },
		{ "NO_PROXY", no_proxy },
		{ "no_proxy", no_proxy },
		{ "HTTP_PROXY", http },
		{ "HTTPS_PROXY", http },
		{ "http_proxy", http },
		{ "https_proxy", http },
		{ "ALL_PROXY", http },
		{ "all_proxy", http },
		{ "GRPC_PROXY", http },
		{ "grpc_proxy", http },
		{ "FTP_PROXY", socks },
		{ "ftp_proxy", socks },
		{ "RSYNC_PROXY", rsync },
		{ "DOCKER_HTTP_PROXY", http },
		{ "DOCKER_HTTPS_PROXY", http },
		{ "CLOUDSDK_PROXY_TYPE", "http" },
		{ "CLOUDSDK_PROXY_ADDRESS", "localhost" },
		{ "CLOUDSDK_PROXY_PORT", port },
	};
	size_t i;

	for (i = 0; i < sizeof(var) / sizeof(var[0]); i++)
		strlist_pushf(e, "%s=%s", var[i].name, var[i].value);
	free(http);
	free(socks);
	free(rsync);
	free(port);
}

/*
 * JAVA_TOOL_OPTIONS: JVMs ignore the variables of env_add_sandbox; system properties do
 * the same job. The caller's own options (java, NULL when there are none or they are
 * denied) come first so that ours, later, win; then the proxies, the hosts not proxied
 * in Java's spelling (direct) and extra (" -D...", or "").
 */
void
env_add_java(struct strlist *e, const char *java, int http_port, int socks_port,
    const char *direct, const char *extra)
{
	strlist_pushf(e,
	    "JAVA_TOOL_OPTIONS=%s%s-Dhttp.proxyHost=localhost "
	    "-Dhttp.proxyPort=%d -Dhttps.proxyHost=localhost -Dhttps.proxyPort=%d "
	    "-DsocksProxyHost=localhost -DsocksProxyPort=%d -Dhttp.nonProxyHosts=%s%s",
	    java != NULL ? java : "", java != NULL && *java != '\0' ? " " : "", http_port,
	    http_port, socks_port, direct, extra);
}

/*
 * The loopback names NO_PROXY sends to the sandbox's own loopback, as the reference
 * does, and their spelling in Java's nonProxyHosts. An allowedDomains entry naming one
 * with a port (and not denied) takes it out of both: its requests then go through the
 * proxy, which connects to that port of the host's loopback and refuses every other
 * port of it by name (srt-settings(5) "Loopback on the allow list").
 */
static const struct {
	const char *name, *java;
} env_loopback[] = {
	{ "localhost", "localhost" },
	{ "127.0.0.1", "127.0.0.1" },
	{ "::1", "[::1]" },
};

static bool
env_loopback_routed(const struct launch *l, const char *name)
{
	const struct dom_rule *r;
	struct policy_verdict v;
	size_t i;

	for (i = 0; i < l->set.net.nallowed; i++) {
		r = &l->set.net.allowed[i];
		if (r->port == 0 || r->host == NULL || strcmp(r->host, name) != 0 ||
		    (r->kind != DOM_EXACT && r->kind != DOM_IPV4 && r->kind != DOM_IPV6))
			continue;
		policy_decide(l->pol, name, strlen(name), r->port, &v);
		if (v.allow)
			return true;
	}
	return false;
}

/* NO_PROXY's list and Java's nonProxyHosts, without the routed loopback names. */
static void
env_no_proxy(const struct launch *l, char **list, char **java)
{
	struct buf b = { 0 }, j = { 0 };
	size_t i;

	for (i = 0; i < sizeof(env_loopback) / sizeof(env_loopback[0]); i++) {
		if (env_loopback_routed(l, env_loopback[i].name))
			continue;
		buf_addf(&b, "%s,", env_loopback[i].name);
		buf_addf(&j, "%s%s", j.len > 0 ? "|" : "", env_loopback[i].java);
	}
	buf_addf(&b, "%s", NO_PROXY_RANGES);
	*list = buf_steal(&b);
	*java = buf_steal(&j);
}

static void
env_add_ssh(struct strlist *e)
{
	const char *tool = env_ssh_proxy_tool();

	if (tool == NULL) {
		log_debug("no OpenBSD nc or socat on this host: GIT_SSH_COMMAND not set");
		return;
	}
	if (strstr(tool, "socat") != NULL)
		strlist_pushf(e,
		    "GIT_SSH_COMMAND=ssh " SSH_NO_MUX " -o ProxyCommand='%s - "
		    "PROXY:localhost:%%h:%%p,proxyport=%d'",
		    tool, LAUNCH_HTTP_PORT);
	else
		strlist_pushf(e,
		    "GIT_SSH_COMMAND=ssh " SSH_NO_MUX " -o ProxyCommand='%s -X 5 "
		    "-x localhost:%d %%h %%p'",
		    tool, LAUNCH_SOCKS_PORT);
}

/* Is NAME=... (entry) one of the variables masked credentials took over
 * (l->cred.hidden, linux/cred.c)? None elsewhere: macOS refuses masked credentials. */
bool
env_cred_owned(const struct launch *l, const char *entry)
{
	const char *eq = strchr(entry, '=');
	size_t i, n = eq != NULL ? (size_t)(eq - entry) : strlen(entry);

	for (i = 0; i < l->cred.hidden.n; i++)
		if (strlen(l->cred.hidden.v[i]) == n &&
		    strncmp(l->cred.hidden.v[i], entry, n) == 0)
			return true;
	return false;
}

char **
env_build(const struct launch *l)
{
	struct strlist e = { 0 };
	const char *git_count = env_inherited(&l->set, "GIT_CONFIG_COUNT");
	const char *java = env_inherited(&l->set, "JAVA_TOOL_OPTIONS");
	bool git = l->set.git_safe_dirs.n > 0 &&
	    !(git_count != NULL && strcmp(git_count, "0") == 0);
	char **p, *no_proxy, *java_direct;

	env_no_proxy(l, &no_proxy, &java_direct);
	for (p = environ; *p != NULL; p++)
		if (strchr(*p, '=') != NULL && !env_is_owned(*p, git) &&
		    !env_is_denied(&l->set, *p) && !env_cred_owned(l, *p) &&
		    !ca_env_owned(l, *p))
			strlist_push(&e, *p);
	/* Masked credentials: the sentinel text instead (cred.c), unless either file
	 * denies the variable, which keeps even the stand-in out. */
	for (size_t i = 0; i < l->cred.env.n; i++)
		if (!env_is_denied(&l->set, l->cred.env.v[i]))
			strlist_push(&e, l->cred.env.v[i]);

	env_add_sandbox(&e, l->tmpdir, no_proxy, LAUNCH_HTTP_PORT, LAUNCH_SOCKS_PORT);
	env_add_ssh(&e);
	/* With tlsTerminate, Java's trust store too. */
	env_add_java(
	    &e, java, LAUNCH_HTTP_PORT, LAUNCH_SOCKS_PORT, java_direct, ca_java_options(l));
	free(no_proxy);
	free(java_direct);
	if (git)
		env_add_git(&e, &l->set, git_count);
	ca_env(l, &e);

	p = e.v; /* NULL-terminated; ownership passes to the caller */
	return p != NULL ? p : xcalloc(1, sizeof(char *));
}
#endif

void
env_free(char **envp)
{
	char **p;

	for (p = envp; p != NULL && *p != NULL; p++)
		free(*p);
	free(envp);
}
