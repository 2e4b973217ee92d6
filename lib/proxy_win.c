/*
 * The proxies on Windows: what they refuse at start, and the Linux-only parts they are
 * built without.
 *
 * Refused, each with its reason, because it needs machinery the Windows build does not
 * have: -s (settings are read with cJSON, which has no mingw-w64 build: compile them
 * with srt-policy compile and pass -p), the descriptor options of srt's Linux launcher
 * (--policy-fd, --listen-fd, --log-fd, --lifeline-fd, --cred-fd, --ca-fd,
 * --control-fd, --handoff-fd, the decider's), unix: listeners, --relay-to, and in the
 * policy an https:// parent proxy and srt-httpd's tlsTerminate (OpenSSL) and mitmProxy
 * (a Unix socket reached through a forked, confined connector).
 *
 * Not done on Windows, and said so in the man pages: the proxy does not confine itself
 * (no seccomp: --no-sandbox is what it always is), it dials in its own process, the
 * managed policy is not merged at load (it is in the policy.bin srt-policy compiled),
 * and nothing reloads the policy (no SIGHUP: Ctrl-C, Ctrl-Break and the console closing
 * drain and exit).
 *
 * The functions at the end stand in for the Linux-only modules the shared core links
 * to; the refusals above keep every path to them closed, and each ends the process
 * loudly if one is ever reached. (The credentials' code, lib/cred.c, is built: with no
 * --cred-fd its store is empty.)
 */
#ifdef _WIN32
#include <fcntl.h>
#include <io.h>
#include <stdnoreturn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fdpass.h"
#include "handoff.h"
#include "log.h"
#include "managed.h"
#include "policy_source.h"
#include "proxy_connector.h"
#include "proxy_sandbox.h"
#include "proxy_win.h"
#include "sys.h"
#include "tls.h"
#include "tls_bridge.h"
#include "tls_mitm.h"

static void
proxy_win_refuse(const char *prog, const char *what, const char *why)
{
	fprintf(stderr, "%s: %s is not available on Windows: %s\n", prog, what, why);
	exit(2);
}

void
proxy_win_start(struct proxy_opts *o, const char *prog)
{
	static const char fds[] = "srt's Linux launcher hands over descriptors; on Windows "
	    "give -p, -l and --log";
	size_t i;

	if (o->settings_path != NULL)
		proxy_win_refuse(prog, "-s", "settings files are read with cJSON, which this "
		    "build lacks; compile them with srt-policy compile -s FILE -o policy.bin "
		    "and pass -p policy.bin");
	if (o->policy_fd != -1)
		proxy_win_refuse(prog, "--policy-fd", fds);
	if (o->nlisten_fds != 0)
		proxy_win_refuse(prog, "--listen-fd", fds);
	if (o->log_fd != -1)
		proxy_win_refuse(prog, "--log-fd", fds);
	if (o->lifeline_fd != -1)
		proxy_win_refuse(prog, "--lifeline-fd", fds);
	if (o->cred_fd != -1)
		proxy_win_refuse(prog, "--cred-fd", "masked credentials need OpenSSL and the "
		    "Linux launcher");
	if (o->ca_fd != -1)
		proxy_win_refuse(prog, "--ca-fd", "TLS termination needs OpenSSL, which this "
		    "build lacks");
	if (o->control_fd != -1)
		proxy_win_refuse(prog, "--control-fd", fds);
	if (o->decider_in != -1 || o->decider_out != -1 || o->decider_ready_fd != -1 ||
	    o->ask)
		proxy_win_refuse(prog, "a decider", "its frames are read with cJSON, which this "
		    "build lacks");
	if (o->handoff_fd != -1)
		proxy_win_refuse(prog, "--handoff-fd", "it passes sockets between processes "
		    "with SCM_RIGHTS");
	if (o->relay_port != 0)
		proxy_win_refuse(prog, "--relay-to", "the launcher's plain relay is not part of "
		    "the Windows build");
	for (i = 0; i < o->listen.n; i++)
		if (strncmp(o->listen.v[i], "unix:", 5) == 0)
			proxy_win_refuse(prog, o->listen.v[i], "listen on a loopback address "
			    "and port");
	/* Nothing confines the process here (no seccomp): say it is not narrowed, so that
	 * no opener is started for reloads and nothing is entered. */
	o->no_sandbox = true;
	if (sys_init() == -1)
		fatal("WSAStartup");
	/* The decision log's lines end with LF, as on Linux. */
	(void)_setmode(1, _O_BINARY);
	log_debug("Windows: not confined; dials in this process");
}

const char *
proxy_win_refused_routes(const struct upstream *up, bool terminate)
{
	if (upstream_needs_tls(up))
		return "network.parentProxy: an https:// parent proxy needs OpenSSL, which the "
		    "Windows build lacks";
	if (up->mitm_socket != NULL)
		return "network.mitmProxy: the inspection proxy is reached through a Unix "
		    "socket by a forked, confined connector, which the Windows build lacks";
	if (terminate)
		return "network.tlsTerminate needs OpenSSL, which the Windows build lacks";
	return NULL;
}

/* ---- the Linux-only modules: closed paths ----------------------------------------- */

static noreturn void
proxy_win_absent(const char *what)
{
	fatalx("%s: not in the Windows build (an option or setting that needs it should have "
	    "been refused at start)", what);
}

/* Reached by proxy_free whatever was set up: releasing nothing is right. */
void
managed_free(struct managed *m)
{
	(void)m;
}

void
proxy_connector_free(struct proxy_connector *pc)
{
	(void)pc;
}

void
proxy_opener_free(struct proxy_opener *o)
{
	(void)o;
}

void
tls_ctx_free(struct tls_ctx *ctx)
{
	(void)ctx;
}

void
tls_conn_free(struct tls_conn *c)
{
	(void)c;
}

void
tls_mitm_free(struct tls_mitm *m)
{
	(void)m;
}

void
tls_mitm_pem_free(char *pem)
{
	free(pem);
}

/* Named in a message about the policy's layers. */
const char managed_path[] = "(the managed policy compiled into policy.bin)";

/* Not confined (see the top of the file): nothing to enter; never narrowed, so the
 * exit is a plain one. */
int
proxy_sandbox_enter(bool skip_seccomp)
{
	(void)skip_seccomp;
	return 0;
}

void
proxy_sandbox_exit(int status)
{
	exit(status);
}

int
fdpass_recv(int sock, void *data, size_t len, size_t *got, int *fds, size_t maxfds,
    size_t *nfds)
{
	(void)sock, (void)data, (void)len, (void)got, (void)fds, (void)maxfds, (void)nfds;
	proxy_win_absent("--control-fd");
}

int
handoff_encode(const char *host, uint16_t port, const char *client,
    uint8_t out[HANDOFF_MSG_LEN])
{
	(void)host, (void)port, (void)client, (void)out;
	proxy_win_absent("--handoff-fd");
}

int
handoff_recv(int sock, struct handoff_msg *m, int *fd, const char **why)
{
	(void)sock, (void)m, (void)fd, (void)why;
	proxy_win_absent("--handoff-fd");
}

int
handoff_send(int sock, const uint8_t msg[HANDOFF_MSG_LEN], int fd)
{
	(void)sock, (void)msg, (void)fd;
	proxy_win_absent("--handoff-fd");
}

int
managed_load(struct managed *m, struct diags *errs, struct diags *warns)
{
	(void)m, (void)errs, (void)warns;
	proxy_win_absent("the managed policy");
}

int
policy_source_load(const struct policy_source *src, struct policy **polp,
    struct settings *set, char **pathp, struct diags *errs, struct diags *warns)
{
	(void)src, (void)polp, (void)set, (void)pathp, (void)errs, (void)warns;
	proxy_win_absent("-s and --policy-fd");
}

struct proxy_connector_req *
proxy_connector_ask(struct proxy_connector *pc, proxy_connector_cb cb, void *arg)
{
	(void)pc, (void)cb, (void)arg;
	proxy_win_absent("network.mitmProxy");
}

/* A dial's cleanup cancels its request, which is NULL without a connector. */
void
proxy_connector_cancel(struct proxy_connector_req *r)
{
	if (r != NULL)
		proxy_win_absent("network.mitmProxy");
}

const char *
proxy_connector_path(const struct proxy_connector *pc)
{
	(void)pc;
	proxy_win_absent("network.mitmProxy");
}

struct proxy_connector *
proxy_connector_start(struct evloop *loop, const char *path)
{
	(void)loop, (void)path;
	proxy_win_absent("network.mitmProxy");
}

struct proxy_opener *
proxy_opener_start(const char *path)
{
	(void)path;
	proxy_win_absent("the policy opener");
}

int
tls_bridge_start(struct evloop *loop, int fd, struct tls_conn *tc)
{
	(void)loop, (void)fd, (void)tc;
	proxy_win_absent("TLS");
}

const char *
tls_conn_error(const struct tls_conn *c)
{
	(void)c;
	proxy_win_absent("TLS");
}

struct tls_conn *
tls_conn_new(struct tls_ctx *ctx, int fd, const char *host, enum host_kind kind, char *err,
    size_t errlen)
{
	(void)ctx, (void)fd, (void)host, (void)kind, (void)err, (void)errlen;
	proxy_win_absent("TLS");
}

int
tls_ctx_add_ca_file(struct tls_ctx *ctx, const char *path, char *err, size_t errlen)
{
	(void)ctx, (void)path, (void)err, (void)errlen;
	proxy_win_absent("TLS");
}

const char *
tls_ctx_ca_file(const struct tls_ctx *ctx)
{
	(void)ctx;
	proxy_win_absent("TLS");
}

struct tls_ctx *
tls_ctx_new(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	proxy_win_absent("TLS");
}

enum tls_io
tls_handshake(struct tls_conn *c)
{
	(void)c;
	proxy_win_absent("TLS");
}

struct tls_mitm *
tls_mitm_new(const char *cert_pem, size_t cert_len, const char *key_pem, size_t key_len,
    char *err, size_t errlen)
{
	(void)cert_pem, (void)cert_len, (void)key_pem, (void)key_len, (void)err, (void)errlen;
	proxy_win_absent("TLS termination");
}

enum tls_io
tls_shutdown_write(struct tls_conn *c)
{
	(void)c;
	proxy_win_absent("TLS");
}

enum tls_io
tls_write(struct tls_conn *c, const void *buf, size_t len, size_t *n)
{
	(void)c, (void)buf, (void)len, (void)n;
	proxy_win_absent("TLS");
}

enum tls_io
tls_read(struct tls_conn *c, void *buf, size_t len, size_t *n)
{
	(void)c, (void)buf, (void)len, (void)n;
	proxy_win_absent("TLS");
}

bool
tls_pending(const struct tls_conn *c)
{
	(void)c;
	proxy_win_absent("TLS");
}

bool
tls_mitm_looks_like_hello(const unsigned char *buf, size_t len)
{
	(void)buf, (void)len;
	proxy_win_absent("TLS termination");
}

struct tls_conn *
tls_mitm_accept(struct tls_mitm_hello *hello, int fd, char *err, size_t errlen)
{
	(void)hello, (void)fd, (void)err, (void)errlen;
	proxy_win_absent("TLS termination");
}
#endif
