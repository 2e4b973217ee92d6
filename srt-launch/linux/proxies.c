/*
 * The filtering proxies (SPEC §5.3). They accept on the sockets that the child which made
 * the sandbox's network namespace opened there and handed over (netns.c), so connections
 * from inside reach them with no relay and no socket file, while they themselves dial out
 * from the host's namespace.
 *
 * Each proxy is started at the first connection to its sockets: the sockets already
 * listen, so a client is queued rather than refused until the proxy takes over, and a
 * command that never touches the network (`srt -c true`) costs no proxy at all.
 *
 * With httpProxyPort / socksProxyPort the sandbox's port leads instead to the user's own
 * proxy listening on that host loopback port, through the same program in its plain relay
 * mode (--relay-to PORT), exec'd and narrowed like the proxies.
 */
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "launch.h"
#include "proxy_fd.h"

static const char *const proxy_prog[PK_MAX] = { "srt-httpd", "srt-socksd" };

static int
proxy_external_port(const struct launch *l, enum proxy_kind k)
{
	return k == PK_HTTP ? l->set.net.http_proxy_port : l->set.net.socks_proxy_port;
}

/* The policy for one proxy: its own sealed memfd, so that no two readers share an
 * offset and nothing can change it under them. */
static int
proxy_policy_memfd(const struct launch *l)
{
	const uint8_t *p;
	size_t len;

	p = policy_bytes(l->pol, &len);
	return memfd_sealed("srt-policy", p, len);
}

/*
 * tlsTerminate: SOCKS CONNECTs are terminated by srt-httpd, which srt-socksd hands them
 * to over a socketpair of the two (--handoff-fd, handoff.h) when both are the filtering
 * proxies (not relays to the user's own). The pair is made for whichever starts first;
 * srt-httpd is started with srt-socksd, as nothing else would start it to read what
 * srt-socksd hands over. The descriptor of k's end, or -1 (without: no handoffs).
 */
static int
proxies_handoff(struct launch *l, enum proxy_kind k)
{
	if (l->ca.secret == NULL || proxy_external_port(l, PK_HTTP) != 0 ||
	    proxy_external_port(l, PK_SOCKS) != 0)
		return -1;
	if (!l->proxy.handoff_made) {
		int sv[2];

		l->proxy.handoff_made = true;
		if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1) {
			log_warn("socketpair: SOCKS tunnels will not be terminated");
			return -1;
		}
		l->proxy.handoff[PK_SOCKS] = sv[0];
		l->proxy.handoff[PK_HTTP] = sv[1];
	}
	if (k == PK_SOCKS && l->proxy.handoff[PK_SOCKS] != -1)
		(void)proxies_start(l, PK_HTTP);
	return l->proxy.handoff[k];
}

/* What a proxy's child is given: its descriptors (-1: none) and its environment. */
struct proxy_child {
	enum proxy_kind k;
	int port; /* --relay-to, or 0 */
	int polfd, cafd, ctl, hfd, credr, l4, l6, exec_report;
	pid_t launcher;
	char **env;
};

/* One descriptor option: the next number after 3, the descriptor in the table. */
static void
proxies_fd_arg(struct strlist *argv, int *fds, size_t *n, enum proxy_fd o, int fd)
{
	strlist_push(argv, proxy_fd_opt[o]);
	strlist_pushf(argv, "%zu", 3 + *n);
	fds[(*n)++] = fd;
}

/* The forked child: its descriptors arranged and its options, then the proxy. */
static noreturn void
proxies_child(struct launch *l, const struct proxy_child *c)
{
	/* At most: policy, log, CA, control, handoff, decider in and out, decider ready,
	 * credentials, lifeline, two listening sockets. */
	int fds[12], exe = l->helper_fd[c->k == PK_HTTP ? H_HTTPD : H_SOCKSD];
	size_t n = 0, i;
	struct strlist argv = { 0 };

	spawn_child_reset();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != c->launcher)
		_exit(LAUNCH_FAIL);
	strlist_push(&argv, proxy_prog[c->k]);
	if (c->port == 0) {
		fds[n++] = c->polfd;
		fds[n++] = l->proxy.log_w;
		strlist_push(&argv, proxy_fd_opt[PFD_POLICY]);
		strlist_push(&argv, "3");
		strlist_push(&argv, proxy_fd_opt[PFD_LOG]);
		strlist_push(&argv, "4");
		if (c->cafd != -1)
			proxies_fd_arg(&argv, fds, &n, PFD_CA, c->cafd);
		if (c->ctl != -1)
			proxies_fd_arg(&argv, fds, &n, PFD_CONTROL, c->ctl);
		if (c->hfd != -1)
			proxies_fd_arg(&argv, fds, &n, PFD_HANDOFF, c->hfd);
		if (c->k == PK_HTTP && l->proxy.decider_in != -1) {
			proxies_fd_arg(&argv, fds, &n, PFD_DECIDER_IN, l->proxy.decider_in);
			proxies_fd_arg(&argv, fds, &n, PFD_DECIDER_OUT, l->proxy.decider_out);
			if (l->proxy.ask)
				strlist_push(&argv, "--ask");
			/* The reference reads it when its proxy starts, as here. */
			if (l->set.net.allow_plaintext_header_set)
				strlist_push(&argv, "--plaintext-header-set");
			if (l->proxy.decider_ready[1] != -1)
				proxies_fd_arg(&argv, fds, &n, PFD_DECIDER_READY,
				    l->proxy.decider_ready[1]);
		}
	} else {
		strlist_push(&argv, "--relay-to");
		strlist_pushf(&argv, "%d", c->port);
	}
	if (c->credr != -1)
		proxies_fd_arg(&argv, fds, &n, PFD_CRED, c->credr);
	proxies_fd_arg(&argv, fds, &n, PFD_LIFELINE, l->proxy.lifeline_r);
	i = n;
	fds[n++] = c->l4;
	if (c->l6 != -1)
		fds[n++] = c->l6;
	spawn_arrange_fds(fds, n, c->exec_report, &exe);
	for (; i < n; i++) {
		strlist_push(&argv, proxy_fd_opt[PFD_LISTEN]);
		strlist_pushf(&argv, "%zu", 3 + i);
	}
	if (l->debug)
		strlist_push(&argv, "-d");
	/* By the descriptor opened at start (helpers.c), never by name again. */
	/* Without the masked variables: the real values go by the pipe only. */
	execveat(exe, "", argv.v, c->env != NULL ? c->env : environ, AT_EMPTY_PATH);
	spawn_report_errno(3 + (int)n);
	_exit(LAUNCH_FAIL);
}

/* A filtering proxy's inputs: its policy, tlsTerminate's CA (key included, for
 * srt-httpd alone: ca.c), its control socket, its end of the handoff channel. */
static int
proxies_inputs(struct launch *l, enum proxy_kind k, int *polfd, int *cafd, int ctl[2], int *hfd)
{
	if ((*polfd = proxy_policy_memfd(l)) == -1)
		return -1;
	if (k == PK_HTTP && l->ca.secret != NULL &&
	    (*cafd = memfd_sealed("srt-ca", l->ca.secret, strlen(l->ca.secret))) == -1)
		return -1;
	if (l->control.fd != -1 &&
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) == -1) {
		log_warn("socketpair");
		return -1;
	}
	*hfd = proxies_handoff(l, k);
	return 0;
}

int
proxies_start(struct launch *l, enum proxy_kind k)
{
	int l4 = l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4];
	int l6 = l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6];
	int port = proxy_external_port(l, k);
	int ep[2] = { -1, -1 }, cp[2] = { -1, -1 }, ctl[2] = { -1, -1 }, polfd = -1, cafd = -1;
	int hfd = -1;
	int err = 0, rc = -1;
	char **penv = cred_proxy_environ(l);
	enum helper h = k == PK_HTTP ? H_HTTPD : H_SOCKSD;
	const char *prog = l->helper_path[h];
	pid_t pid, launcher = getpid();

	if (l->proxy.started[k])
		return 0;
	l->proxy.started[k] = true;
	if (port == 0) {
		log_debug("starting %s for the sandbox's port %d", prog,
		    k == PK_HTTP ? LAUNCH_HTTP_PORT : LAUNCH_SOCKS_PORT);
		if (proxies_inputs(l, k, &polfd, &cafd, ctl, &hfd) == -1)
			goto out;
	} else
		log_debug("relaying the sandbox's port %d to the host's 127.0.0.1:%d (%s "
			  "--relay-to)",
		    k == PK_HTTP ? LAUNCH_HTTP_PORT : LAUNCH_SOCKS_PORT, port, prog);
	if (pipe2(ep, O_CLOEXEC) == -1) {
		log_warn("pipe");
		goto out;
	}
	/* Masked credentials: srt-httpd reads their store from a pipe (cred.c). */
	if (k == PK_HTTP && port == 0 && l->cred.store.n > 0 && pipe2(cp, O_CLOEXEC) == -1) {
		log_warn("pipe");
		goto out;
	}
	if ((pid = fork()) == -1) {
		log_warn("fork");
		goto out;
	}
	if (pid == 0) {
		struct proxy_child c = { k, port, polfd, cafd, ctl[1], hfd, cp[0], l4, l6,
			ep[1], launcher, penv };

		proxies_child(l, &c);
	}
	close(ep[1]);
	ep[1] = -1;
	if (spawn_wait_exec(ep[0], &err) == -1) {
		log_warnx("%s: %s", prog, strerror(err));
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			;
		goto out;
	}
	l->proxy.pid[k] = pid;
	if (ctl[0] != -1) {
		l->control.proxy[k] = ctl[0];
		ctl[0] = -1;
	}
	if (cp[1] != -1) {
		close(cp[0]);
		cp[0] = -1;
		if (cred_send(l, cp[1]) == -1)
			goto out;
		fd_close(&cp[1]);
		/* srt-httpd has them now. */
		cred_store_wipe(&l->cred.store);
	}
	rc = 0;
out:
	/* The proxy holds the sockets now. If it could not start, closing them makes
	 * the sandbox's clients fail at once instead of waiting forever. */
	if (l4 != -1)
		close(l4);
	if (l6 != -1)
		close(l6);
	l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4] = -1;
	l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6] = -1;
	if (polfd != -1)
		close(polfd);
	fd_close(&cp[0]);
	fd_close(&cp[1]);
	if (penv != NULL) {
		for (char **e = penv; *e != NULL; e++)
			free(*e);
		free(penv);
	}
	if (cafd != -1)
		close(cafd);
	fd_close(&ctl[0]);
	fd_close(&ctl[1]);
	/* The proxy has its end of the handoff channel, or never will. */
	if (hfd != -1)
		fd_close(&l->proxy.handoff[k]);
	/* Only srt-httpd writes the readiness line: its EOF says it is gone. */
	if (k == PK_HTTP)
		fd_close(&l->proxy.decider_ready[1]);
	if (ep[0] != -1)
		close(ep[0]);
	if (ep[1] != -1)
		close(ep[1]);
	return rc;
}

/* The command is over: the proxies end (common/proxypipes.c), a proxy still there after
 * timeout_ms killed. */
void
proxies_stop(struct launch *l, int timeout_ms)
{
	proxypipes_finish(l, proxy_prog, launch_now_ms() + timeout_ms);
}
