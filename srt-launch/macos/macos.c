/*
 * The macOS launch path, in POSIX: see macos.h. Nothing here is macOS-only, so the tests
 * run all of it on Linux with stub programs for sandbox-exec and log.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/localproxy.h"
#include "macos.h"
#include "managed.h"
#include "plan.h"
#include "sbpl.h"
#include "common/winsys.h"

extern char **environ;

#define NO_PROXY_LIST \
	"localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12," \
	"192.168.0.0/16"
#define SSH_NO_MUX "-o ControlMaster=no -o ControlPath=none"
#define LISTEN_TRIES 32 /* ports tried for one free on both 127.0.0.1 and ::1 */
#define LOG_LINE_MAX (64u << 10)
#define PROXY_STOP_MS 3000

/* What a run holds beside struct launch. */
struct mac {
	struct launch *l;
	const struct macos_run *r;
	int port[PK_MAX]; /* in the profile and the environment */
	char *tag;
	int sig_r;    /* the signals, one byte each (ws_signal_fd) */
	pid_t logger; /* log stream */
	int logger_r;
	char *logbuf; /* a partial line of its output */
	size_t loglen;
	bool logskip; /* inside an over-long line */
	pid_t child;  /* sandbox-exec, then the command */
	int child_status;
	bool child_done;
};

/* --- small helpers ------------------------------------------------------------------- */

static int
set_cloexec(int fd)
{
	int f = fcntl(fd, F_GETFD);

	return f == -1 ? -1 : fcntl(fd, F_SETFD, f | FD_CLOEXEC);
}

static int
pipe_cloexec(int p[2])
{
	if (pipe(p) == -1)
		return -1;
	if (set_cloexec(p[0]) == -1 || set_cloexec(p[1]) == -1) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	return 0;
}

static void
wait_pid(pid_t pid, int *status)
{
	int st;

	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (status != NULL)
		*status = st;
}

char *
macos_log_tag(void)
{
	static const char alnum[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char rnd[10];
	char name[sizeof(rnd) + 1];
	size_t i;
	ssize_t n;
	int fd;

	if ((fd = open("/dev/urandom", O_RDONLY)) == -1)
		return NULL;
	n = read(fd, rnd, sizeof(rnd));
	close(fd);
	if (n != (ssize_t)sizeof(rnd))
		return NULL;
	for (i = 0; i < sizeof(rnd); i++)
		name[i] = alnum[rnd[i] % (sizeof(alnum) - 1)];
	name[sizeof(rnd)] = '\0';
	return xasprintf("SRT_%ld_%s_SBX", (long)getpid(), name);
}

/* --- environment and argv ------------------------------------------------------------ */

char **
macos_env(const struct launch *l, int http_port, int socks_port)
{
	struct strlist e = { 0 };
	const char *git_count = env_inherited(&l->set, "GIT_CONFIG_COUNT");
	const char *java = env_inherited(&l->set, "JAVA_TOOL_OPTIONS");
	bool git = l->set.git_safe_dirs.n > 0 &&
	    !(git_count != NULL && strcmp(git_count, "0") == 0);
	char **p;

	for (p = environ; *p != NULL; p++)
		if (strchr(*p, '=') != NULL && !env_is_owned(*p, git) &&
		    !env_is_denied(&l->set, *p))
			strlist_push(&e, *p);
	env_add_sandbox(&e, l->tmpdir, NO_PROXY_LIST, http_port, socks_port);
	/* The nc macOS ships speaks SOCKS5 (-X 5). */
	strlist_pushf(&e,
	    "GIT_SSH_COMMAND=ssh " SSH_NO_MUX " -o ProxyCommand='/usr/bin/nc "
	    "-X 5 -x localhost:%d %%h %%p'",
	    socks_port);
	/* The profile admits 127.0.0.1 and ::1 but not ::ffff:127.0.0.1, which a
	 * dual-stack Java socket dials: IPv4 sockets only. */
	env_add_java(&e, java, http_port, socks_port, "localhost|127.0.0.1|[::1]",
	    " -Djava.net.preferIPv4Stack=true");
	if (git)
		env_add_git(&e, &l->set, git_count);
	p = e.v;
	return p != NULL ? p : xcalloc(1, sizeof(char *));
}

char **
macos_sandbox_argv(const struct macos_run *r, const struct launch *l, const char *profile)
{
	struct strlist a = { 0 };
	size_t i;

	strlist_push(&a, r->sandbox_exec);
	strlist_push(&a, "-p");
	strlist_push(&a, profile);
	if (l->cstring != NULL) {
		strlist_push(&a, r->shell);
		strlist_push(&a, "-c");
		strlist_push(&a, l->cstring);
	} else
		for (i = 0; l->cmd[i] != NULL; i++)
			strlist_push(&a, l->cmd[i]);
	return a.v;
}

char **
macos_log_argv(const struct macos_run *r, const char *tag)
{
	struct strlist a = { 0 };

	strlist_push(&a, r->log_prog);
	strlist_push(&a, "stream");
	strlist_push(&a, "--predicate");
	strlist_pushf(&a, "(eventMessage ENDSWITH \"%s\")", tag);
	strlist_push(&a, "--style");
	strlist_push(&a, "compact");
	return a.v;
}

static void
argv_free(char **v)
{
	char **p;

	for (p = v; p != NULL && *p != NULL; p++)
		free(*p);
	free(v);
}

/* --- the temp directory -------------------------------------------------------------- */

static int
tmp_make(struct launch *l)
{
	char *base = ws_temp_dir(), *tmpl, *real;

	if (base == NULL) {
		log_warn("temp directory");
		return -1;
	}
	tmpl = xasprintf("%s/srt.XXXXXXXXXX", strcmp(base, "/") == 0 ? "" : base);
	free(base);
	if (mkdtemp(tmpl) == NULL || (real = realpath(tmpl, NULL)) == NULL) {
		log_warn("mkdtemp %s", tmpl);
		free(tmpl);
		return -1;
	}
	free(tmpl);
	free(l->tmpdir);
	l->tmpdir = real;
	l->tmp_made = true;
	return 0;
}

static int
rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	if ((flag == FTW_DP ? rmdir(p) : unlink(p)) == -1 && errno != ENOENT)
		log_warn("remove %s", p);
	return 0;
}

static void
tmp_rm(struct launch *l)
{
	if (!l->tmp_made)
		return;
	(void)nftw(l->tmpdir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	l->tmp_made = false;
}

/* --- sockets and proxies ------------------------------------------------------------- */

/*
 * One port with a listener on 127.0.0.1 and, where the host has IPv6, on ::1: the
 * profile's "localhost:PORT" admits both. The kernel picks the IPv4 port; ::1 may have it
 * taken, then another is tried.
 */
static int
listen_pair(int *fd4, int *fd6, int *port)
{
	int i;

	for (i = 0; i < LISTEN_TRIES; i++) {
		ws_handle h4, h6;
		int r;

		*port = 0;
		if ((r = ws_listen_loopback(port, &h4, &h6)) == -1)
			return -1;
		if (r == 0) {
			*fd4 = (int)h4;
			*fd6 = (int)h6;
			return 0;
		}
	}
	log_warnx("no port free on both 127.0.0.1 and ::1");
	return -1;
}

/* The policy for the proxies: an unlinked file nobody else can open. */
static int
policy_file(const struct launch *l)
{
	const uint8_t *p;
	size_t len;
	ws_handle h;

	p = policy_bytes(l->pol, &len);
	return ws_anon_file(p, len, &h) == -1 ? -1 : (int)h;
}

/* --- children ------------------------------------------------------------------------ */

/*
 * Start argv[0] with the descriptors fds (at their own numbers), stdout on out (-1: ours),
 * stdin on /dev/null when quiet_in, and nothing else (winsys_posix.c). A failed execve
 * is an error here rather than a status later.
 */
static pid_t
spawn(char *const argv[], char *const envp[], const int *fds, size_t n, int out, bool quiet_in)
{
	ws_handle h[LPF_MAX];
	struct ws_spawn sp = { argv, envp, h, n, out, quiet_in, false };
	size_t i;

	for (i = 0; i < n && i < LPF_MAX; i++)
		h[i] = fds[i];
	return ws_spawn_pid(&sp);
}

static int
proxies_start_all(struct mac *m)
{
	struct launch *l = m->l;
	int k, polfd;

	if ((polfd = policy_file(l)) == -1)
		return -1;
	for (k = 0; k < PK_MAX; k++) {
		int l4 = l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4];
		int l6 = l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6];
		int fds[LPF_MAX] = { polfd, l->proxy.log_w, l->proxy.lifeline_r, l4, l6, -1 };
		long num[LPF_MAX] = { polfd, l->proxy.log_w, l->proxy.lifeline_r, l4, l6, -1 };
		size_t n = l6 != -1 ? LPF_LISTEN6 + 1 : LPF_LISTEN6;
		char **argv;
		pid_t pid;

		if (l4 == -1)
			continue; /* the user's own proxy */
		argv = localproxy_argv(l, l->self_dir, (enum proxy_kind)k, num);
		log_debug("starting %s on port %d", argv[0], m->port[k]);
		pid = spawn(argv, NULL, fds, n, -1, true);
		localproxy_argv_free(argv);
		/* The proxy holds the sockets now (or nobody will: clients fail at once). */
		fd_close(&l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4]);
		fd_close(&l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6]);
		if (pid == -1) {
			close(polfd);
			return -1;
		}
		l->proxy.pid[k] = pid;
		l->proxy.started[k] = true;
	}
	close(polfd);
	return 0;
}

/* --- the violation monitor ----------------------------------------------------------- */

static void
logger_line(struct mac *m, const char *line, size_t len)
{
	char *v = NULL;

	if (sbpl_log_violation(line, len, m->tag, &v) == 1) {
		violations_add(m->l->viol, v);
		free(v);
	}
}

/* Read what log stream has; false at its end. */
static bool
logger_read(struct mac *m)
{
	char buf[8192];
	ssize_t n, i;

	while ((n = read(m->logger_r, buf, sizeof(buf))) == -1 && errno == EINTR)
		;
	if (n <= 0) {
		fd_close(&m->logger_r);
		return false;
	}
	for (i = 0; i < n; i++) {
		if (buf[i] == '\n') {
			if (!m->logskip)
				logger_line(m, m->logbuf, m->loglen);
			m->loglen = 0;
			m->logskip = false;
		} else if (!m->logskip) {
			if (m->loglen == LOG_LINE_MAX)
				m->logskip = true;
			else
				m->logbuf[m->loglen++] = buf[i];
		}
	}
	return true;
}

/*
 * log stream, filtered on the tag: it prints a line of its own once it streams, and
 * the command starts after that line (or after log_start_ms), so that its first deny is
 * seen. Without it the command still runs, with a warning: only file and Mach denies go
 * unreported (the proxies report the network's).
 */
static void
logger_start(struct mac *m)
{
	char **argv;
	int p[2];
	long deadline;

	if (m->r->log_prog == NULL)
		return;
	if (pipe_cloexec(p) == -1) {
		log_warn("pipe");
		return;
	}
	argv = macos_log_argv(m->r, m->tag);
	m->logger = spawn(argv, NULL, NULL, 0, p[1], true);
	argv_free(argv);
	close(p[1]);
	if (m->logger == -1) {
		close(p[0]);
		m->logger = 0;
		log_warnx("sandbox violations on files will not be reported");
		return;
	}
	m->logger_r = p[0];
	m->logbuf = xmalloc(LOG_LINE_MAX);
	deadline = launch_now_ms() + m->r->log_start_ms;
	while (m->logger_r != -1) {
		struct pollfd pfd = { .fd = m->logger_r, .events = POLLIN };
		long left = deadline - launch_now_ms();
		char c;
		ssize_t n;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0) {
			log_debug("log stream: nothing within %d ms", m->r->log_start_ms);
			return;
		}
		/* One byte at a time up to the first line: what follows is the command's. */
		if ((n = read(m->logger_r, &c, 1)) == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			fd_close(&m->logger_r);
			log_warnx("%s ended at once: sandbox violations on files will not be "
				  "reported",
			    m->r->log_prog);
			return;
		}
		if (c == '\n')
			return;
	}
}

/*
 * After the command: late lines (log stream lags behind the kernel), for log_drain_ms at
 * most, less once it has been silent for log_quiet_ms; then stop it. Waiting costs every
 * run that much, so the two are short.
 */
static void
logger_end(struct mac *m)
{
	long end = launch_now_ms() + m->r->log_drain_ms,
	     quiet = launch_now_ms() + m->r->log_quiet_ms;

	while (m->logger_r != -1) {
		struct pollfd pfd = { .fd = m->logger_r, .events = POLLIN };
		long t = launch_now_ms(), left = (quiet < end ? quiet : end) - t;

		if (left <= 0 || poll(&pfd, 1, (int)left) <= 0)
			break;
		if (logger_read(m))
			quiet = launch_now_ms() + m->r->log_quiet_ms;
	}
	if (m->logger > 0) {
		long deadline = launch_now_ms() + PROXY_STOP_MS;
		int st;

		(void)kill(m->logger, SIGTERM);
		while (waitpid(m->logger, &st, WNOHANG) == 0) {
			if (launch_now_ms() >= deadline) {
				log_warnx("%s did not stop: killing it", m->r->log_prog);
				(void)kill(m->logger, SIGKILL);
				wait_pid(m->logger, NULL);
				break;
			}
			(void)nanosleep(&(struct timespec){ 0, 2000000 }, NULL);
		}
		m->logger = 0;
	}
	fd_close(&m->logger_r);
	free(m->logbuf);
	m->logbuf = NULL;
}

/* --- the command --------------------------------------------------------------------- */

/* PATH lookup for a command run without -c: 127 and 126 are ours to tell. */
static int
command_check(const struct launch *l)
{
	const char *path = getenv("PATH"), *p, *cmd;
	bool seen = false;

	if (l->cmd == NULL)
		return 0;
	cmd = l->cmd[0];
	if (strchr(cmd, '/') != NULL) {
		if (access(cmd, X_OK) == 0)
			return 0;
		log_warnx("%s: %s", cmd,
		    access(cmd, F_OK) == 0 ? "not executable" : "command not found");
		return access(cmd, F_OK) == 0 ? EXIT_NOEXEC : EXIT_NOTFOUND;
	}
	for (p = path != NULL ? path : "/usr/bin:/bin";; p++) {
		size_t n = strcspn(p, ":");
		char *full = xasprintf("%.*s/%s", (int)n, n > 0 ? p : ".", cmd);
		struct stat st;

		if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
			seen = true;
			if (access(full, X_OK) == 0) {
				free(full);
				return 0;
			}
		}
		free(full);
		p += n;
		if (*p == '\0')
			break;
	}
	log_warnx("%s: %s", cmd, seen ? "not executable" : "command not found");
	return seen ? EXIT_NOEXEC : EXIT_NOTFOUND;
}

static void
reap(struct mac *m)
{
	struct launch *l = m->l;
	pid_t pid;
	int st, k;

	while ((pid = waitpid(-1, &st, WNOHANG)) > 0) {
		if (pid == m->child) {
			m->child_status = st;
			m->child_done = true;
		} else if (pid == m->logger) {
			m->logger = 0;
			log_debug("log stream ended while the command runs");
		}
		for (k = 0; k < PK_MAX; k++)
			if (pid == l->proxy.pid[k]) {
				l->proxy.pid[k] = 0;
				log_warnx("%s ended while the command runs (status %d)",
				    localproxy_prog[k],
				    WIFEXITED(st) ? WEXITSTATUS(st)
						  : EXIT_SIGNALED(WTERMSIG(st)));
			}
	}
}

/* Wait for the command, forwarding signals and reading the decisions and the log. */
static void
wait_loop(struct mac *m)
{
	struct launch *l = m->l;

	while (!m->child_done) {
		struct pollfd pfd[3];
		nfds_t n = 0, i;

		pfd[n++] = (struct pollfd){ .fd = m->sig_r, .events = POLLIN };
		if (l->proxy.log_r != -1)
			pfd[n++] = (struct pollfd){ .fd = l->proxy.log_r, .events = POLLIN };
		if (m->logger_r != -1)
			pfd[n++] = (struct pollfd){ .fd = m->logger_r, .events = POLLIN };
		if (poll(pfd, n, -1) == -1) {
			if (errno == EINTR)
				continue;
			log_warn("poll");
			(void)kill(m->child, SIGKILL);
			reap(m);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (pfd[i].revents == 0)
				continue;
			if (pfd[i].fd == m->sig_r) {
				unsigned char c;

				while (read(m->sig_r, &c, 1) == 1) {
					if (c == SIGCHLD)
						reap(m);
					else if (m->child > 0) {
						/* One that came during the set-up too. */
						log_debug("forwarding signal %d", c);
						(void)kill(m->child, c);
					}
				}
			} else if (pfd[i].fd == l->proxy.log_r) {
				char buf[8192];
				ssize_t r = read(l->proxy.log_r, buf, sizeof(buf));

				if (r > 0)
					violations_feed(l->viol, buf, (size_t)r);
				else if (r == 0)
					fd_close(&l->proxy.log_r);
			} else if (pfd[i].fd == m->logger_r)
				(void)logger_read(m);
		}
	}
}

static int
run_command(struct mac *m, const char *profile)
{
	char **argv = macos_sandbox_argv(m->r, m->l, profile), **envp;

	envp = macos_env(m->l, m->port[PK_HTTP], m->port[PK_SOCKS]);
	m->child = spawn(argv, envp, NULL, 0, -1, false);
	argv_free(argv);
	env_free(envp);
	return m->child == -1 ? -1 : 0;
}

/* --- the run ------------------------------------------------------------------------- */

static int
setup_network(struct mac *m)
{
	struct launch *l = m->l;
	int ext[PK_MAX] = { l->set.net.http_proxy_port, l->set.net.socks_proxy_port };
	int k;

	for (k = 0; k < PK_MAX; k++) {
		int *fd4 = &l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4];
		int *fd6 = &l->proxy.listen_fd[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6];

		if (ext[k] != 0) {
			m->port[k] = ext[k]; /* the user's own proxy, straight */
			continue;
		}
		if (listen_pair(fd4, fd6, &m->port[k]) == -1)
			return -1;
	}
	return proxypipes_open(l);
}

static char *
build_profile(struct mac *m)
{
	struct launch *l = m->l;
	struct plan_ctx ctx;
	struct plan_macos_opts o = { m->port[PK_HTTP], m->port[PK_SOCKS], m->tag };
	struct diags errs = { 0 };
	char *profile = NULL;
	size_t i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = l->cwd;
	ctx.home = l->home;
	ctx.tmpdir = l->tmpdir;
	ctx.settings_path = l->config_path;
	ctx.managed_path = managed_path;
	if (plan_macos_build(&l->set, &ctx, &o, &profile, &errs) == -1) {
		for (i = 0; i < errs.msgs.n; i++)
			log_warnx("%s", errs.msgs.v[i]);
		profile = NULL;
	}
	diags_free(&errs);
	return profile;
}

static int
exit_status(const struct mac *m)
{
	if (WIFEXITED(m->child_status))
		return WEXITSTATUS(m->child_status);
	if (WIFSIGNALED(m->child_status))
		return EXIT_SIGNALED(WTERMSIG(m->child_status));
	return LAUNCH_FAIL;
}

int
macos_run(struct launch *l, const struct macos_run *r)
{
	struct mac m;
	char *profile = NULL;
	int rc = LAUNCH_FAIL, i;

	memset(&m, 0, sizeof(m));
	m.l = l;
	m.r = r;
	m.sig_r = m.logger_r = -1;
	for (i = 0; i < LS_MAX; i++)
		l->proxy.listen_fd[i] = -1;
	l->proxy.lifeline_r = l->proxy.lifeline_w = l->proxy.log_r = l->proxy.log_w = -1;

	if ((rc = command_check(l)) != 0)
		return rc;
	rc = LAUNCH_FAIL;
	if (access(r->sandbox_exec, X_OK) == -1) {
		log_warn("%s", r->sandbox_exec);
		return LAUNCH_FAIL;
	}
	if ((m.tag = macos_log_tag()) == NULL) {
		log_warn("/dev/urandom");
		return LAUNCH_FAIL;
	}
	if (ws_init() == -1)
		goto out;
	m.sig_r = ws_signal_fd();
	if (tmp_make(l) == -1 || setup_network(&m) == -1)
		goto out;
	if ((profile = build_profile(&m)) == NULL)
		goto out;
	log_debug("profile: %zu bytes, proxies on ports %d and %d, log tag %s", strlen(profile),
	    m.port[PK_HTTP], m.port[PK_SOCKS], m.tag);
	if (proxies_start_all(&m) == -1)
		goto out;
	fd_close(&l->proxy.lifeline_r);
	logger_start(&m);
	if (run_command(&m, profile) == -1)
		goto out;
	wait_loop(&m);
	rc = exit_status(&m);
	log_debug("command ended: status %d", rc);
out:
	if (m.child > 0 && !m.child_done) {
		(void)kill(m.child, SIGKILL);
		wait_pid(m.child, NULL);
	}
	logger_end(&m);
	proxypipes_finish(l, localproxy_prog, launch_now_ms() + PROXY_STOP_MS);
	tmp_rm(l);
	ws_fini();
	free(profile);
	free(m.tag);
	return rc;
}
