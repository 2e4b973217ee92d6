/*
 * Stand-ins, in the proxies on Windows, for the Linux-only modules the shared core links
 * to: TLS, the connector and the policy opener, the narrowing, the handoff and descriptor
 * passing, the managed layer and the settings reader. lib/proxyd/proxy_win.c refuses at
 * start every option and setting that would reach them, and each ends the process loudly
 * if one is ever reached.
 *
 * Only the proxies' executables (srt-socksd.exe, srt-httpd.exe) link this object (the
 * Makefile's WINABSENT_OBJ; the Windows unit tests reach none of these names): srt.exe
 * has the real managed.c, policy_source.c and managed_path.c, and must never have a
 * second definition to choose from by link order. No archive holds it.
 */
#ifdef _WIN32
#include <stdbool.h>
#include <stdint.h>
#include <stdnoreturn.h>
#include <stdlib.h>

#include "fdpass.h"
#include "handoff.h"
#include "log.h"
#include "managed.h"
#include "policy_source.h"
#include "proxy_connector.h"
#include "proxy_sandbox.h"
#include "tls.h"
#include "tls_bridge.h"
#include "tls_mitm.h"

static noreturn void
proxy_win_absent(const char *what)
{
	fatalx("%s: not in the Windows build (an option or setting that needs it should have "
	       "been refused at start)",
	    what);
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
fdpass_recv(
    int sock, void *data, size_t len, size_t *got, int *fds, size_t maxfds, size_t *nfds)
{
	(void)sock, (void)data, (void)len, (void)got, (void)fds, (void)maxfds, (void)nfds;
	proxy_win_absent("--control-fd");
}

int
handoff_encode(
    const char *host, uint16_t port, const char *client, uint8_t out[HANDOFF_MSG_LEN])
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
policy_source_load(const struct policy_source *src, struct policy **polp, struct settings *set,
    char **pathp, struct diags *errs, struct diags *warns)
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
