/*
 * The Windows launch path: see winlaunch.h. Portable C on winsys.h; nothing here calls the
 * system directly, so the tests run it on Linux with winsys_posix.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/localproxy.h"
#include "path.h"
#include "winlaunch.h"
#include "common/winsys.h"

#define WAIT_SLICE_MS 1000 /* the proxies' log is read at least this often */
#define READY_MS 60000     /* a proxy says it serves within this (Wine is slow) */

/* What a run holds beside struct launch. */
struct win {
	struct launch *l;
	const struct windows_run *r;
	char *srt_win;
	int lo, hi; /* windows.proxyPortRange, or the default */
	int port[PK_MAX];
	ws_handle lis[LS_MAX];
	ws_handle pol, lifeline_r, lifeline_w, log_r, log_w;
	struct ws_proc *proxy[PK_MAX];
	ws_handle ready[PK_MAX]; /* the read end of each proxy's --ready-fd */
	struct ws_proc *runner;  /* srt-win launch */
	char *plan_path;
};

static void
win_init(struct win *w, struct launch *l, const struct windows_run *r)
{
	int i;

	memset(w, 0, sizeof(*w));
	w->l = l;
	w->r = r;
	for (i = 0; i < LS_MAX; i++)
		w->lis[i] = WS_NONE;
	for (i = 0; i < PK_MAX; i++)
		w->ready[i] = WS_NONE;
	w->pol = w->lifeline_r = w->lifeline_w = w->log_r = w->log_w = WS_NONE;
}

/* --- the windows block ----------------------------------------------------------------- */

static int
check_settings(struct win *w)
{
	const struct settings_windows *sw = &w->l->set.win;

	if (sw->backend == WIN_BACKEND_MXC) {
		log_warnx("windows.backend \"mxc\": srt has only the srt-win backend");
		return -1;
	}
	w->lo = sw->port_lo != 0 ? sw->port_lo : WIN_DEFAULT_PORT_LO;
	w->hi = sw->port_lo != 0 ? sw->port_hi : WIN_DEFAULT_PORT_HI;
	/* srt-win runs on the host, as the user: a relative name would be found in the
	 * working directory, where the sandboxed command may have written one. */
	if (sw->srt_win_path != NULL && sw->srt_win_path[0] != '/' &&
	    !pathw_is_drive_absolute(sw->srt_win_path)) {
		log_warnx(
		    "windows.srtWin.path \"%s\" is not an absolute path: srt runs "
		    "srt-win on the host, and would look a relative name up in the working "
		    "directory, where the sandboxed command may write",
		    sw->srt_win_path);
		return -1;
	}
	w->srt_win = sw->srt_win_path != NULL
	    ? xstrdup(sw->srt_win_path)
	    : xasprintf("%s" WS_SEP "%s", w->l->self_dir, WINDOWS_SRT_WIN);
	if (!ws_executable(w->srt_win)) {
		log_warnx("%s: no such program (%s)", w->srt_win,
		    sw->srt_win_path != NULL ? "windows.srtWin.path"
					     : "srt-win is looked for beside srt unless "
					       "windows.srtWin.path names it");
		return -1;
	}
	return 0;
}

/* The first port of the range from *next on that is free on 127.0.0.1 and ::1. */
static int
listen_in_range(struct win *w, enum proxy_kind k, int *next)
{
	ws_handle *v4 = &w->lis[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4];
	ws_handle *v6 = &w->lis[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6];

	for (; *next <= w->hi; (*next)++) {
		int port = *next, r = ws_listen_loopback(&port, v4, v6);

		if (r == -1)
			return -1;
		if (r == 0) {
			w->port[k] = port;
			(*next)++;
			return 0;
		}
		log_debug("port %d is taken", port);
	}
	log_warnx("windows.proxyPortRange %d-%d: no port left free on 127.0.0.1 and ::1 for "
		  "%s; free one or widen the range (and srt-win install --proxy-port-range to "
		  "match)",
	    w->lo, w->hi, localproxy_prog[k]);
	return -1;
}

static int
setup_ports(struct win *w)
{
	const struct settings *s = &w->l->set;
	int ext[PK_MAX] = { s->net.http_proxy_port, s->net.socks_proxy_port };
	int next = w->lo, k;

	for (k = 0; k < PK_MAX; k++) {
		if (ext[k] != 0)
			w->port[k] = ext[k]; /* the user's own proxy, straight */
		else if (listen_in_range(w, (enum proxy_kind)k, &next) == -1)
			return -1;
	}
	return 0;
}

/* The plan of `srt-policy plan --target windows` for these settings, in a file. */
static int
write_plan(struct win *w)
{
	struct launch *l = w->l;
	struct plan_ctx ctx;
	struct diags errs = { 0 };
	char *text = NULL;
	int rc = -1;
	size_t i;

	memset(&ctx, 0, sizeof(ctx));
	ctx.cwd = l->cwd;
	ctx.home = l->home;
	ctx.settings_path = l->config_path;
	if (plan_windows_text(&l->set, &ctx, &text, &errs) != 0) {
		for (i = 0; i < errs.msgs.n; i++)
			log_warnx("%s", errs.msgs.v[i]);
		goto out;
	}
	if (ws_private_file("srt-plan.", text, strlen(text), &w->plan_path) == -1)
		goto out;
	log_debug("plan: %s", w->plan_path);
	rc = 0;
out:
	free(text);
	diags_free(&errs);
	return rc;
}

/* --- the proxies ------------------------------------------------------------------------ */

static int
win_proxies_start(struct win *w)
{
	struct launch *l = w->l;
	const uint8_t *p;
	size_t len;
	int k;

	if (ws_pipe(&w->lifeline_r, &w->lifeline_w) == -1 ||
	    ws_pipe(&w->log_r, &w->log_w) == -1)
		return -1;
	p = policy_bytes(l->pol, &len);
	if (ws_anon_file(p, len, &w->pol) == -1)
		return -1;
	for (k = 0; k < PK_MAX; k++) {
		ws_handle *v4 = &w->lis[k == PK_HTTP ? LS_HTTP4 : LS_SOCKS4];
		ws_handle *v6 = &w->lis[k == PK_HTTP ? LS_HTTP6 : LS_SOCKS6];
		ws_handle c4 = WS_NONE, c6 = WS_NONE, ready_w = WS_NONE;
		long fd[LPF_MAX], inherit[LPF_MAX];
		struct ws_spawn sp = { NULL, NULL, inherit, 0, WS_NONE, true, true };
		char **argv;
		int rc = -1, i;

		if (*v4 == WS_NONE)
			continue; /* the user's own proxy */
		/* The listeners go over by their carriers (winsys.h). */
		if (ws_listen_carrier(*v4, &c4) == 0 &&
		    (*v6 == WS_NONE || ws_listen_carrier(*v6, &c6) == 0) &&
		    ws_pipe(&w->ready[k], &ready_w) == 0) {
			fd[LPF_POLICY] = w->pol;
			fd[LPF_LOG] = w->log_w;
			fd[LPF_LIFELINE] = w->lifeline_r;
			fd[LPF_LISTEN4] = c4;
			fd[LPF_LISTEN6] = c6;
			fd[LPF_READY] = ready_w;
			for (i = 0; i < LPF_MAX; i++)
				if (fd[i] != WS_NONE)
					inherit[sp.ninherit++] = fd[i];
			argv = localproxy_argv(l, l->self_dir, (enum proxy_kind)k, fd);
			sp.argv = argv;
			log_debug("starting %s on port %d", argv[0], w->port[k]);
			rc = ws_spawn(&sp, &w->proxy[k]);
			localproxy_argv_free(argv);
		}
		/* The proxy holds the sockets now (or nobody will: clients fail at once). */
		ws_close(&c4);
		ws_close(&c6);
		ws_close(v4);
		ws_close(v6);
		ws_close(&ready_w); /* only the proxy holds it: its end is end of file */
		if (rc == -1)
			return -1;
	}
	ws_close(&w->pol);
	ws_close(&w->lifeline_r);
	return 0;
}

/*
 * Each proxy we started says "ready" on its --ready-fd once it serves. End of file
 * without it is a proxy that failed at start (its reason is on our standard error, which
 * it shares): the command would run with its traffic failing closed and the user not
 * told, so nothing is launched, as the Linux launcher stops when a proxy cannot start.
 * 0 when all serve; else the status to exit with.
 */
static int
win_proxies_ready(struct win *w)
{
	long long deadline = ws_now_ms() + READY_MS;
	char buf[16];
	int k, s, st;

	for (k = 0; k < PK_MAX; k++) {
		size_t got = 0;
		long n;

		if (w->proxy[k] == NULL)
			continue; /* the user's own proxy */
		while (w->ready[k] != WS_NONE) {
			long long left = deadline - ws_now_ms();
			int ev;

			if (left <= 0) {
				log_warnx("%s did not start within %d s; nothing was launched",
				    localproxy_prog[k], READY_MS / 1000);
				return LAUNCH_FAIL;
			}
			ev = ws_wait(NULL, w->ready[k], (int)left);
			if ((ev & WS_EV_TERM) && (s = ws_term_take()) != 0) {
				log_debug("signal %d while the proxies start", s);
				return EXIT_SIGNALED(s);
			}
			if ((n = ws_read(w->ready[k], buf + got, sizeof(buf) - 1 - got)) > 0)
				got += (size_t)n;
			if (n == 0 || n == -2 || got == sizeof(buf) - 1 ||
			    (got > 0 && buf[got - 1] == '\n'))
				ws_close(&w->ready[k]);
		}
		buf[got] = '\0';
		if (strcmp(buf, "ready\n") != 0) {
			/* Collect it for its status: it has ended or is about to. */
			long long until = ws_now_ms() + w->r->stop_ms;

			while (!ws_ended(w->proxy[k], &st) && ws_now_ms() < until)
				ws_sleep_ms(2);
			if (ws_ended(w->proxy[k], &st))
				log_warnx(
				    "%s exited at start (status %d); nothing was launched",
				    localproxy_prog[k], st);
			else
				log_warnx("%s failed at start; nothing was launched",
				    localproxy_prog[k]);
			return LAUNCH_FAIL;
		}
		log_debug("%s serves on port %d", localproxy_prog[k], w->port[k]);
	}
	return 0;
}

static void
log_drain(struct win *w)
{
	char buf[8192];
	long n;

	while (w->log_r != WS_NONE && (n = ws_read(w->log_r, buf, sizeof(buf))) != -1) {
		if (n <= 0) {
			ws_close(&w->log_r);
			break;
		}
		violations_feed(w->l->viol, buf, (size_t)n);
	}
}

/* The command is over: cut the lifeline, read the decisions to their end, collect. */
static void
win_proxies_end(struct win *w)
{
	long long deadline = ws_now_ms() + w->r->stop_ms;
	int k;

	ws_close(&w->lifeline_w);
	ws_close(&w->log_w);
	while (w->log_r != WS_NONE) {
		long long left = deadline - ws_now_ms();

		if (left <= 0)
			break;
		(void)ws_term_take(); /* ending already: a request now changes nothing */
		(void)ws_wait(NULL, w->log_r, (int)left);
		log_drain(w);
	}
	for (k = 0; k < PK_MAX; k++) {
		if (w->proxy[k] == NULL)
			continue;
		while (!ws_ended(w->proxy[k], NULL)) {
			if (ws_now_ms() >= deadline) {
				log_warnx("%s did not exit: ending it", localproxy_prog[k]);
				ws_kill(w->proxy[k]);
				break;
			}
			ws_sleep_ms(2);
		}
		ws_proc_free(w->proxy[k]);
		w->proxy[k] = NULL;
	}
	ws_close(&w->log_r);
}

/* --- srt-win ---------------------------------------------------------------------------- */

static char **
runner_argv(const struct win *w)
{
	const struct launch *l = w->l;
	const struct settings_windows *sw = &l->set.win;
	struct strlist a = { 0 }, git = { 0 };
	size_t i;

	strlist_push(&a, w->srt_win);
	strlist_push(&a, "launch");
	strlist_push(&a, "--plan");
	strlist_push(&a, w->plan_path);
	strlist_push(&a, "--http-port");
	strlist_pushf(&a, "%d", w->port[PK_HTTP]);
	strlist_push(&a, "--socks-port");
	strlist_pushf(&a, "%d", w->port[PK_SOCKS]);
	/* What the settings say of the install, for srt-win to check against it. */
	if (sw->port_lo != 0) {
		strlist_push(&a, "--proxy-port-range");
		strlist_pushf(&a, "%d-%d", sw->port_lo, sw->port_hi);
	}
	if (sw->sandbox_user != NULL) {
		strlist_push(&a, "--sandbox-user");
		strlist_push(&a, sw->sandbox_user);
	}
	if (sw->sublayer_guid != NULL || sw->wfp_sublayer_guid != NULL) {
		strlist_push(&a, "--sublayer-guid");
		strlist_push(
		    &a, sw->sublayer_guid != NULL ? sw->sublayer_guid : sw->wfp_sublayer_guid);
	}
	if (sw->backend == WIN_BACKEND_SRT_WIN) {
		strlist_push(&a, "--backend");
		strlist_push(&a, "srt-win");
	}
	/* srt ending first takes the command with it (and srt-win revokes the plan). */
	strlist_push(&a, "--held-by");
	strlist_pushf(&a, "%lu", ws_self_pid());
	if (l->set.git_safe_dirs.n > 0)
		env_add_git(&git, &l->set, NULL);
	for (i = 0; i < git.n; i++) {
		strlist_push(&a, "--env");
		strlist_push(&a, git.v[i]);
	}
	strlist_free(&git);
	strlist_push(&a, "--");
	if (l->cstring != NULL) {
		for (i = 0; w->r->shell[i] != NULL; i++)
			strlist_push(&a, w->r->shell[i]);
		strlist_push(&a, l->cstring);
	} else
		for (i = 0; l->cmd[i] != NULL; i++)
			strlist_push(&a, l->cmd[i]);
	return a.v;
}

/*
 * Wait for srt-win, reading the proxies' decisions and passing termination on. A Ctrl-C
 * (SIGINT) reaches the command as well, and srt-win relays what the command makes of it:
 * srt waits for that as long as it takes, as a shell waits for its foreground job. Any
 * other request to end gives srt-win stop_ms before srt ends it.
 */
static int
wait_runner(struct win *w)
{
	long long kill_at = 0;
	int sig = 0, status = LAUNCH_FAIL;

	for (;;) {
		int ev = ws_wait(w->runner, w->log_r, WAIT_SLICE_MS), s;

		if (ev & WS_EV_READ)
			log_drain(w);
		if (ev & WS_EV_EXIT) {
			(void)ws_ended(w->runner, &status);
			return status;
		}
		if ((ev & WS_EV_TERM) && (s = ws_term_take()) != 0) {
			log_debug("passing signal %d on", s);
			ws_forward(w->runner, s);
			if (sig == 0 && s != SIGINT) {
				sig = s;
				kill_at = ws_now_ms() + w->r->stop_ms;
			}
		}
		if (sig != 0 && ws_now_ms() >= kill_at) {
			log_warnx("%s did not end after signal %d: ending it", w->srt_win, sig);
			ws_kill(w->runner);
			return EXIT_SIGNALED(sig);
		}
	}
}

/* --- the run ---------------------------------------------------------------------------- */

int
windows_run(struct launch *l, const struct windows_run *r)
{
	struct win w;
	char **argv = NULL;
	int rc = LAUNCH_FAIL, i;
	struct ws_spawn sp = { NULL, NULL, NULL, 0, WS_NONE, false, false };

	win_init(&w, l, r);
	if (check_settings(&w) == -1)
		goto out_early;
	if (ws_init() == -1)
		goto out_early;
	if (setup_ports(&w) == -1 || write_plan(&w) == -1 || win_proxies_start(&w) == -1)
		goto out;
	if ((rc = win_proxies_ready(&w)) != 0)
		goto out;
	rc = LAUNCH_FAIL;
	log_debug("proxies on ports %d and %d of %d-%d", w.port[PK_HTTP], w.port[PK_SOCKS],
	    w.lo, w.hi);
	argv = runner_argv(&w);
	sp.argv = argv;
	if (ws_spawn(&sp, &w.runner) == -1)
		goto out;
	rc = wait_runner(&w);
	log_debug("%s ended: status %d", w.srt_win, rc);
out:
	if (w.runner != NULL)
		ws_kill(w.runner);
	ws_proc_free(w.runner);
	win_proxies_end(&w);
	for (i = 0; i < LS_MAX; i++)
		ws_close(&w.lis[i]);
	for (i = 0; i < PK_MAX; i++)
		ws_close(&w.ready[i]);
	ws_close(&w.pol);
	ws_close(&w.lifeline_r);
	ws_close(&w.lifeline_w);
	ws_close(&w.log_w);
	if (w.plan_path != NULL)
		(void)ws_remove(w.plan_path);
	ws_fini();
out_early:
	localproxy_argv_free(argv);
	free(w.plan_path);
	free(w.srt_win);
	return rc;
}

#ifdef _WIN32
int
windows_launch(struct launch *l)
{
	const char *root = getenv("SystemRoot");
	char *cmd = xasprintf("%s\\System32\\cmd.exe", root != NULL ? root : "C:\\Windows");
	const char *shell[] = { cmd, "/d", "/s", "/c", NULL };
	struct windows_run r = { shell, WINDOWS_STOP_MS };
	char *text;
	int rc = LAUNCH_FAIL;

	if (l->set.cred.nmask > 0) {
		log_warnx("credentials with mode \"mask\" are not supported on Windows yet; "
			  "use \"deny\", or remove them");
		goto out;
	}
	if ((l->self_dir = ws_self_dir()) == NULL)
		goto out;
	if ((l->home = path_home()) == NULL) {
		log_warnx("cannot tell the home directory (set HOME or USERPROFILE)");
		goto out;
	}
	text = launch_command_text(l);
	l->viol = violations_new(&l->set, text, l->violations_arg);
	free(text);
	if (l->viol != NULL)
		rc = windows_run(l, &r);
out:
	free(cmd);
	return rc;
}
#endif
