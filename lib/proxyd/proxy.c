/*
 * The shared core of srt-httpd and srt-socksd: command line, listeners, accept loop with a
 * connection cap, policy (re)loading, decisions, guarded dials, tunnels, the decision log,
 * lifeline, drain, and narrowing (proxy_sandbox.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#ifndef _WIN32
#include <malloc.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/un.h>
#endif

#include "cred.h"
#include "guard.h"
#include "buf.h"
#include "decider.h"
#include "fdpass.h"
#include "proxy.h"
#include "managed.h"
#include "policy_source.h"
#include "proxy_connector.h"
#include "proxy_fd.h"
#include "proxy_sandbox.h"
#include "proxy_win.h"
#include "resolver.h"
#include "sys.h"

struct proxy_listener {
	int fd;
	char *unix_path; /* a socket file we created, removed at exit */
};

struct proxy {
	const struct proxy_proto *proto;
	struct proxy_opts opts;
	struct evloop *loop;
	struct resolver *resolver;
	struct proxy_policy *pol;
	struct proxy_opener *opener; /* -p or -s while narrowed: reopens that file */
	struct cred_store creds;     /* --cred-fd */
	struct managed managed;      /* the managed layer, read with the first policy */
	bool managed_read;
	struct guard_local local;
	bool local_valid; /* local was read at local_at (loop time) */
	uint64_t local_at;
	struct proxy_listener *listeners;
	size_t nlisteners;
	int log_fd;
	unsigned nconns;
	unsigned spare_fds; /* proto->spare_fds as the descriptor limit allows */
	unsigned nrefused;  /* refused sockets lingering (proxy_refused_linger) */
	bool draining;
	bool accept_paused;
	struct ev_timer drain_timer;
	struct ev_timer accept_timer;
	uint64_t log_dropped;
	struct upstream_env env;           /* srt's own HTTP_PROXY ..., read at start */
	struct tls_ctx *tls;               /* for https:// parents, made at start or never */
	char tls_why[TLS_ERR_MAX + 128];   /* why there is none */
	struct proxy_connector *connector; /* mitmProxy's, started at start or never */
	struct tls_mitm *mitm_ca;          /* tlsTerminate's CA, loaded at start or never */
	struct tls_ctx *term_tls;          /* ... and its client side to the real servers */
	char term_why[TLS_ERR_MAX + 128];  /* why there is none */
};

/* ---- options --------------------------------------------------------------------- */

enum {
	OPT_POLICY_FD = 256,
	OPT_LISTEN_FD,
	OPT_LOG,
	OPT_LOG_FD,
	OPT_AUDIT,
	OPT_AUTH,
	OPT_LIFELINE_FD,
	OPT_MAX_CONNS,
	OPT_IDLE_TIMEOUT,
	OPT_HEAD_TIMEOUT,
	OPT_NO_SANDBOX,
	OPT_RELAY_TO,
	OPT_CRED_FD,
	OPT_CA_FD,
	OPT_CONTROL_FD,
	OPT_DECIDER_FD,
	OPT_DECIDER_IN,
	OPT_DECIDER_OUT,
	OPT_ASK,
	OPT_DECIDER_TIMEOUT,
	OPT_DECIDER_READY,
	OPT_HANDOFF_FD,
	OPT_PLAINTEXT_HEADER_SET,
	OPT_STRIP_RESPONSE_HEADER,
	OPT_READY_FD,
	OPT_LISTEN_ANY,
};

static const struct option proxy_longopts[] = {
	{ "policy", required_argument, NULL, 'p' },
	{ "settings", required_argument, NULL, 's' },
	{ "policy-fd", required_argument, NULL, OPT_POLICY_FD },
	{ "listen", required_argument, NULL, 'l' },
	{ "listen-fd", required_argument, NULL, OPT_LISTEN_FD },
	{ "listen-any-interface", no_argument, NULL, OPT_LISTEN_ANY },
	{ "log", required_argument, NULL, OPT_LOG },
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "audit", no_argument, NULL, OPT_AUDIT },
	{ "auth", required_argument, NULL, OPT_AUTH },
	{ "lifeline-fd", required_argument, NULL, OPT_LIFELINE_FD },
	{ "ready-fd", required_argument, NULL, OPT_READY_FD },
	{ "max-conns", required_argument, NULL, OPT_MAX_CONNS },
	{ "idle-timeout", required_argument, NULL, OPT_IDLE_TIMEOUT },
	{ "head-timeout", required_argument, NULL, OPT_HEAD_TIMEOUT },
	{ "no-sandbox", no_argument, NULL, OPT_NO_SANDBOX },
	{ "relay-to", required_argument, NULL, OPT_RELAY_TO },
	{ "cred-fd", required_argument, NULL, OPT_CRED_FD },
	{ "ca-fd", required_argument, NULL, OPT_CA_FD },
	{ "control-fd", required_argument, NULL, OPT_CONTROL_FD },
	{ "decider-fd", required_argument, NULL, OPT_DECIDER_FD },
	{ "decider-in", required_argument, NULL, OPT_DECIDER_IN },
	{ "decider-out", required_argument, NULL, OPT_DECIDER_OUT },
	{ "ask", no_argument, NULL, OPT_ASK },
	{ "decider-timeout", required_argument, NULL, OPT_DECIDER_TIMEOUT },
	{ "decider-ready-fd", required_argument, NULL, OPT_DECIDER_READY },
	{ "handoff-fd", required_argument, NULL, OPT_HANDOFF_FD },
	{ "plaintext-header-set", no_argument, NULL, OPT_PLAINTEXT_HEADER_SET },
	{ "strip-response-header", required_argument, NULL, OPT_STRIP_RESPONSE_HEADER },
	{ "debug", no_argument, NULL, 'd' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void
proxy_usage(const struct proxy_proto *proto, FILE *f)
{
	fprintf(f, "usage: %s\n", proto->usage);
}

static noreturn void
proxy_badusage(const struct proxy_proto *proto, const char *msg)
{
	fprintf(stderr, "%s: %s\n", proto->prog, msg);
	proxy_usage(proto, stderr);
	exit(2);
}

static long
proxy_number(const struct proxy_proto *proto, const char *opt, const char *s, long lo, long hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
		fprintf(stderr, "%s: %s: %s is not a number from %ld to %ld\n", proto->prog,
		    opt, s, lo, hi);
		exit(2);
	}
	return v;
}

/* A descriptor option's number (its rule is proxy_check_fds's, once all are read). */
static int
proxy_fd_number(const struct proxy_proto *proto, enum proxy_fd f, const char *s)
{
	return (int)proxy_number(proto, proxy_fd_opt[f], s, 0, INT_MAX);
}

/* The descriptor options' rule (proxy_fd.h), for every one of them. */
static void
proxy_check_fds(const struct proxy_opts *o, const struct proxy_proto *proto)
{
	int fd[PFD_MAX];
	char *why;
	int k;

	for (k = 0; k < PFD_MAX; k++)
		fd[k] = -1;
	fd[PFD_POLICY] = o->policy_fd;
	fd[PFD_LOG] = o->log_fd;
	fd[PFD_LIFELINE] = o->lifeline_fd;
	fd[PFD_READY] = o->ready_fd;
	fd[PFD_CRED] = o->cred_fd;
	fd[PFD_CA] = o->ca_fd;
	fd[PFD_CONTROL] = o->control_fd;
	fd[PFD_HANDOFF] = o->handoff_fd;
	/* --decider-fd N sets both ways (as --decider-in N --decider-out N would). */
	if (o->decider_in == o->decider_out)
		fd[PFD_DECIDER] = o->decider_in;
	else {
		fd[PFD_DECIDER_IN] = o->decider_in;
		fd[PFD_DECIDER_OUT] = o->decider_out;
	}
	fd[PFD_DECIDER_READY] = o->decider_ready_fd;
	if ((why = proxy_fd_check(fd, o->listen_fds, o->nlisten_fds)) != NULL)
		proxy_badusage(proto, why);
}

/* An option that names a descriptor: false if c is none. */
static bool
proxy_opt_fd(
    struct proxy_opts *o, int c, const struct proxy_proto *proto, int *nsrc, int *ndecider)
{
	switch (c) {
	case OPT_POLICY_FD:
		o->policy_fd = proxy_fd_number(proto, PFD_POLICY, optarg);
		(*nsrc)++;
		break;
	case OPT_LISTEN_FD:
		o->listen_fds = xreallocarray(o->listen_fds, o->nlisten_fds + 1, sizeof(int));
		o->listen_fds[o->nlisten_fds++] = proxy_fd_number(proto, PFD_LISTEN, optarg);
		break;
	case OPT_LOG_FD:
		o->log_fd = proxy_fd_number(proto, PFD_LOG, optarg);
		break;
	case OPT_CRED_FD:
		o->cred_fd = proxy_fd_number(proto, PFD_CRED, optarg);
		break;
	case OPT_LIFELINE_FD:
		o->lifeline_fd = proxy_fd_number(proto, PFD_LIFELINE, optarg);
		break;
	case OPT_READY_FD:
		o->ready_fd = proxy_fd_number(proto, PFD_READY, optarg);
		break;
	case OPT_CA_FD:
		o->ca_fd = proxy_fd_number(proto, PFD_CA, optarg);
		break;
	case OPT_CONTROL_FD:
		o->control_fd = proxy_fd_number(proto, PFD_CONTROL, optarg);
		break;
	case OPT_DECIDER_FD:
		o->decider_in = o->decider_out = proxy_fd_number(proto, PFD_DECIDER, optarg);
		*ndecider += 2;
		break;
	case OPT_DECIDER_IN:
		o->decider_in = proxy_fd_number(proto, PFD_DECIDER_IN, optarg);
		(*ndecider)++;
		break;
	case OPT_DECIDER_OUT:
		o->decider_out = proxy_fd_number(proto, PFD_DECIDER_OUT, optarg);
		(*ndecider)++;
		break;
	case OPT_DECIDER_READY:
		o->decider_ready_fd = proxy_fd_number(proto, PFD_DECIDER_READY, optarg);
		break;
	case OPT_HANDOFF_FD:
		o->handoff_fd = proxy_fd_number(proto, PFD_HANDOFF, optarg);
		break;
	default:
		return false;
	}
	return true;
}

/* Any other option. */
static void
proxy_opt_other(struct proxy_opts *o, int c, const struct proxy_proto *proto, int *nsrc)
{
	const char *why;
	struct sockaddr_storage ss;
	socklen_t sslen;

	switch (c) {
	case 'p':
		o->policy_path = optarg;
		(*nsrc)++;
		break;
	case 's':
		o->settings_path = optarg;
		(*nsrc)++;
		break;
	case 'l':
		if (proxy_parse_listen(optarg, &ss, &sslen, &why) == -1)
			proxy_badusage(proto, xasprintf("-l %s: %s", optarg, why));
		strlist_push(&o->listen, optarg);
		break;
	case OPT_LISTEN_ANY:
		o->listen_any = true;
		break;
	case OPT_LOG:
		o->log_path = optarg;
		break;
	case OPT_AUDIT:
		o->audit = true;
		break;
	case OPT_AUTH:
		if (strchr(optarg, ':') == NULL || optarg[0] == ':')
			proxy_badusage(proto, "--auth: expected USER:PASS");
		o->auth = xstrdup(optarg);
		/* Keep the password out of /proc/PID/cmdline. */
		memset(optarg, 'x', strlen(optarg));
		break;
	case OPT_MAX_CONNS:
		o->max_conns = (unsigned)proxy_number(proto, "--max-conns", optarg, 1, 1000000);
		break;
	case OPT_IDLE_TIMEOUT:
		o->idle_timeout_s = (unsigned)proxy_number(
		    proto, "--idle-timeout", optarg, 0, 86400 * 365);
		break;
	case OPT_HEAD_TIMEOUT:
		o->head_timeout_s = (unsigned)proxy_number(
		    proto, "--head-timeout", optarg, 1, 3600);
		break;
	case OPT_NO_SANDBOX:
		o->no_sandbox = true;
		break;
	case OPT_RELAY_TO:
		o->relay_port = (unsigned)proxy_number(proto, "--relay-to", optarg, 1, 65535);
		break;
	case OPT_ASK:
		o->ask = true;
		break;
	case OPT_DECIDER_TIMEOUT:
		o->decider_timeout_ms = (unsigned)proxy_number(
		    proto, "--decider-timeout", optarg, 1, 600000);
		break;
	case OPT_PLAINTEXT_HEADER_SET:
		o->plaintext_header_set = true;
		break;
	case OPT_STRIP_RESPONSE_HEADER:
		/* The settings key's rule: a name of at least one character. */
		if (optarg[0] == '\0')
			proxy_badusage(proto, "--strip-response-header needs a header name");
		strlist_push(&o->strip_headers, optarg);
		break;
	case 'd':
		o->debug = true;
		break;
	case 'h':
		proxy_usage(proto, stdout);
		exit(0);
	case 'V':
		printf("%s %s\n", proto->prog, SRT_VERSION);
		exit(0);
	default:
		proxy_usage(proto, stderr);
		exit(2);
	}
}

/* What the options need of each other. */
static void
proxy_opts_check(struct proxy_opts *o, const struct proxy_proto *proto, int nsrc, int ndecider)
{
	const char *why;

	for (size_t i = 0; i < o->listen.n; i++)
		if ((why = proxy_listen_refusal(o->listen.v[i], o->listen_any)) != NULL)
			proxy_badusage(proto, xasprintf("-l %s: %s", o->listen.v[i], why));
	if (o->relay_port != 0 && proto->relay_accept == NULL)
		proxy_badusage(proto, "--relay-to is not available here");
	if (o->relay_port != 0) {
		if (nsrc != 0 || o->log_path != NULL || o->log_fd != -1 || o->audit ||
		    o->auth != NULL)
			proxy_badusage(proto,
			    "--relay-to relays without a policy: -p, -s, "
			    "--policy-fd, --log, --log-fd, --audit and --auth do not apply");
	} else if (nsrc > 1 || (nsrc == 0 && ndecider == 0))
		proxy_badusage(proto, "exactly one of -p, -s or --policy-fd is required");
	if (ndecider != 0 && !proto->takes_decider)
		proxy_badusage(
		    proto, "--decider-fd, --decider-in and --decider-out are srt-httpd's");
	if (ndecider != 0 && (ndecider != 2 || o->decider_in == -1 || o->decider_out == -1))
		proxy_badusage(proto,
		    "a decider is --decider-fd N, or --decider-in N with "
		    "--decider-out N");
	if (o->decider_ready_fd != -1 && ndecider == 0)
		proxy_badusage(proto, "--decider-ready-fd needs a decider");
	if (o->ask && (ndecider == 0 || nsrc == 0))
		proxy_badusage(proto,
		    "--ask needs a decider and a policy of its own (-p, -s or "
		    "--policy-fd): it asks about the hosts that policy does not decide");
	if (o->relay_port != 0 && (ndecider != 0 || o->control_fd != -1))
		proxy_badusage(proto, "--relay-to has no policy to decide or update");
	if (o->relay_port != 0 && o->handoff_fd != -1)
		proxy_badusage(proto, "--relay-to hands nothing over (--handoff-fd)");
	if (o->log_path != NULL && o->log_fd != -1)
		proxy_badusage(proto, "--log and --log-fd are exclusive");
	proxy_check_fds(o, proto);
	if (o->relay_port != 0 && (o->plaintext_header_set || o->strip_headers.n > 0))
		proxy_badusage(proto,
		    "--relay-to forwards bytes: --plaintext-header-set and "
		    "--strip-response-header do not apply");
	if ((o->plaintext_header_set || o->strip_headers.n > 0) && !proto->takes_decider)
		proxy_badusage(proto,
		    "--plaintext-header-set and --strip-response-header are "
		    "srt-httpd's");
	/* Proxy mode (the policy is the decider's hello): a CA means termination. */
	o->lists_terminate = o->ca_fd != -1 && ndecider != 0 && nsrc == 0;
}

static void
proxy_parse_opts(struct proxy_opts *o, int argc, char **argv, const struct proxy_proto *proto)
{
	int c, nsrc = 0, ndecider = 0;

	memset(o, 0, sizeof(*o));
	o->policy_fd = o->log_fd = o->lifeline_fd = o->cred_fd = o->ca_fd = -1;
	o->ready_fd = -1;
	o->control_fd = o->decider_in = o->decider_out = -1;
	o->decider_timeout_ms = DECIDER_TIMEOUT_MS;
	o->decider_ready_fd = -1;
	o->handoff_fd = -1;
	o->max_conns = 0;
	o->head_timeout_s = PROXY_HEAD_TIMEOUT_S;
	while ((c = getopt_long(argc, argv, "p:s:l:dhV", proxy_longopts, NULL)) != -1)
		if (!proxy_opt_fd(o, c, proto, &nsrc, &ndecider))
			proxy_opt_other(o, c, proto, &nsrc);
	if (optind < argc)
		proxy_badusage(proto, xasprintf("unexpected argument: %s", argv[optind]));
	proxy_opts_check(o, proto, nsrc, ndecider);
}

/*
 * One line on standard error saying where the listeners opened by address listen (the
 * ones of -l, or the default), with their ports as bound, and a warning for each that
 * other hosts can reach. Inherited listeners (--listen-fd: srt's runs) are their
 * owner's to describe.
 */
static void
proxy_listeners_say(struct proxy *px, const struct proxy_proto *proto, size_t first)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	struct buf b = { 0 };
	char name[PATH_MAX + 8];
	size_t i;

	if (first >= px->nlisteners)
		return;
	for (i = first; i < px->nlisteners; i++) {
		proxy_listener_name(
		    px->listeners[i].fd, px->listeners[i].unix_path, name, sizeof(name));
		buf_addf(&b, "%s%s", i > first ? ", " : "", name);
		sl = sizeof(ss);
		memset(&ss, 0, sizeof(ss));
		if (px->listeners[i].unix_path == NULL &&
		    getsockname(px->listeners[i].fd, (struct sockaddr *)&ss, &sl) == 0 &&
		    !proxy_listen_local(&ss))
			fprintf(stderr, "%s: warning: %s can be reached from other hosts%s\n",
			    proto->prog, name,
			    px->opts.auth != NULL
				? ""
				: ", and asks for no password (--auth USER:PASS)");
	}
	fprintf(stderr, "%s: listening on %s\n", proto->prog, buf_str(&b));
	buf_free(&b);
}

/* ---- policy ---------------------------------------------------------------------- */

/* The routes of a freshly loaded policy: its parentProxy with the environment's fallback,
 * mitmProxy, and the folded stripResponseHeaders. A URL that cannot be used is a warning
 * (the reference ignores it too). */
static void
proxy_policy_routes(struct proxy *px, struct proxy_policy *pp)
{
	const struct upstream_env none = { 0 }, *env = &px->env;
	uint32_t lf = policy_layer_flags(pp->pol);
	struct diags warns = { 0 };
	struct settings s;
	char *f;

	if (policy_routes(pp->pol, &s) != 0) {
		/* Checked when the image was opened: cannot happen. */
		log_warnx("policy: unreadable routes");
		return;
	}
	/* srt's own HTTP_PROXY and friends are the user's setting like a parentProxy in the
	 * user's file: under a managed policy they count only where it allows weaker user
	 * options, and never beside a parentProxy of its own. They are ambient, so they are
	 * ignored with a warning rather than refused as the file's would be. */
	if ((lf & SETTINGS_LAYER_MERGED) &&
	    (!(lf & SETTINGS_LAYER_USER_WEAKER) ||
		policy_layer_sets(pp->pol, "network.parentProxy"))) {
		const char *name[] = { px->env.http_name, px->env.https_name,
			px->env.no_proxy_name };

		for (size_t i = 0; i < sizeof(name) / sizeof(name[0]); i++)
			if (name[i] != NULL)
				log_warnx("warning: %s is ignored: the managed policy %s %s",
				    name[i], managed_path,
				    (lf & SETTINGS_LAYER_USER_WEAKER)
					? "sets network.parentProxy"
					: "does not set allowUserWeakerOptions");
		env = &none;
	}
	upstream_build(&s.net.parent, &s.net.mitm, env, &pp->up, &warns);
	for (size_t i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	diags_free(&warns);
	/* The policy's stripResponseHeaders, then --strip-response-header's, added to what
	 * every policy strips; folded once here. */
	for (size_t i = 0; i < s.net.strip_headers.n + px->opts.strip_headers.n; i++) {
		const char *h = i < s.net.strip_headers.n
		    ? s.net.strip_headers.v[i]
		    : px->opts.strip_headers.v[i - s.net.strip_headers.n];

		f = xmalloc(strlen(h) + 1);
		decider_fold(h, strlen(h), f);
		strlist_push_owned(&pp->strip_headers, f);
	}
	pp->tls = s.net.tls;
	memset(&s.net.tls, 0, sizeof(s.net.tls));
	settings_free(&s);
	if (pp->up.http != NULL)
		log_debug("parent proxy for plain HTTP: %s (%s)", pp->up.http->display,
		    pp->up.http_from);
	if (pp->up.https != NULL)
		log_debug("parent proxy for tunnels: %s (%s)", pp->up.https->display,
		    pp->up.https_from);
	else if (pp->up.http != NULL)
		log_debug("parent proxy for tunnels: the one for plain HTTP");
	if (pp->up.mitm_socket != NULL)
		log_debug("inspection proxy: unix:%s for %zu domain pattern(s)",
		    pp->up.mitm_socket, pp->up.mitm_domains.n);
}

/* What a reload cannot change: a narrowed proxy can load no library and open no file,
 * and its connector reaches one path. */
static void
proxy_routes_check(struct proxy *px, const struct proxy_policy *pp)
{
	if (upstream_needs_tls(&pp->up) && px->tls == NULL)
		log_warnx("warning: an https:// parent proxy needs TLS, which was not set up "
			  "when %s started; requests through it fail until it is restarted",
		    px->proto->prog);
	if (pp->tls.present && px->proto->tls_terminate && px->mitm_ca == NULL)
		log_warnx(
		    "warning: tlsTerminate needs a CA, which was not set up when %s "
		    "started; tunnels it would terminate are refused until it is restarted",
		    px->proto->prog);
	if (pp->up.mitm_socket != NULL &&
	    (px->connector == NULL ||
		strcmp(proxy_connector_path(px->connector), pp->up.mitm_socket) != 0))
		log_warnx(
		    "warning: mitmProxy.socketPath is %s, but %s connects only to the "
		    "socket it started with (%s); requests for its domains fail until it is "
		    "restarted",
		    pp->up.mitm_socket, px->proto->prog,
		    px->connector != NULL ? proxy_connector_path(px->connector) : "none");
}

static struct proxy_policy *proxy_policy_wrap(struct proxy *px, struct policy *pol);

bool
proxy_policy_from_decider(struct proxy *px)
{
	return px->opts.decider_in != -1 && px->opts.policy_path == NULL &&
	    px->opts.settings_path == NULL && px->opts.policy_fd == -1;
}

static void
proxy_json_list(struct buf *b, const struct strlist *l)
{
	buf_addc(b, '[');
	for (size_t i = 0; l != NULL && i < l->n; i++) {
		if (i > 0)
			buf_addc(b, ',');
		buf_add_jstr(b, l->v[i], strlen(l->v[i]));
	}
	buf_addc(b, ']');
}

/* Proxy mode's policy (srt proxy): the decider's lists, every Host checked against the
 * target, and the private and shared ranges never dialled by name, as the reference's
 * proxy-only mode has them. Made through the settings parser, so that an entry means
 * what it means in a settings file. */
static struct proxy_policy *
proxy_policy_lists(struct proxy *px, const struct strlist *allowed,
    const struct strlist *denied, struct diags *errs)
{
	struct policy_source src = { .policy_fd = -1,
		.settings_name = "decider hello",
		.fallback = POLICY_SOURCE_REQUIRED };
	struct diags warns = { 0 };
	struct policy *pol;
	struct buf b = { 0 };
	int rc = 0;

	buf_adds(&b, "{\"network\":{\"allowedDomains\":");
	proxy_json_list(&b, allowed);
	buf_adds(&b, ",\"deniedDomains\":");
	proxy_json_list(&b, denied);
	buf_adds(&b,
	    ",\"deniedResolvedAddresses\":[\"10.0.0.0/8\",\"172.16.0.0/12\","
	    "\"192.168.0.0/16\",\"100.64.0.0/10\",\"fc00::/7\"],\"requireHostMatch\":true");
	/* --ca-fd: CONNECT tunnels carrying TLS are terminated with that CA, and each
	 * request inside is asked; the defaults of tlsTerminate's limits apply. */
	if (px->opts.lists_terminate)
		buf_adds(&b, ",\"tlsTerminate\":{}");
	buf_adds(&b, "},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[],\"denyWrite\":[]}}");
	/* The hello's lists are a user's settings: merged with the managed policy, read
	 * once at start (before the proxy narrows itself), as a policy file would be. */
	if (!px->managed_read && (rc = managed_load(&px->managed, errs, &warns)) == 0)
		px->managed_read = true;
	src.settings_text = b.p;
	src.settings_len = b.len;
	src.managed = &px->managed;
	if (rc == 0)
		rc = policy_source_load(&src, &pol, NULL, NULL, errs, &warns);
	buf_free(&b);
	for (size_t i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	diags_free(&warns);
	if (rc != 0)
		return NULL;
	return proxy_policy_wrap(px, pol);
}

int
proxy_policy_set_lists(struct proxy *px, const struct strlist *allowed,
    const struct strlist *denied, struct diags *errs)
{
	struct proxy_policy *pp;

	if ((pp = proxy_policy_lists(px, allowed, denied, errs)) == NULL)
		return -1;
	proxy_policy_put(px->pol);
	px->pol = pp;
	return 0;
}

/* Load the policy from the source named on the command line; NULL with messages in errs.
 * The option the proxies need is read from the policy's flags: the image is not decoded
 * back into settings. */
static struct proxy_policy *
proxy_policy_load(struct proxy *px, struct diags *errs)
{
	struct policy_source src = { .policy_path = px->opts.policy_path,
		.settings_path = px->opts.settings_path,
		.policy_fd = px->opts.policy_fd,
		.fallback = POLICY_SOURCE_REQUIRED,
		.open_file = px->opener != NULL ? proxy_opener_open : NULL,
		.open_arg = px->opener };
	struct diags warns = { 0 };
	struct policy *pol;
	int rc = 0;

	if (proxy_policy_from_decider(px))
		return proxy_policy_lists(px, NULL, NULL, errs);
#ifdef _WIN32
	/* -p or --policy-fd, as compiled: no managed layer to merge here (proxy_win.h). */
	{
		char err[1024];

		(void)src;
		(void)warns;
		(void)rc;
		pol = px->opts.policy_fd != -1
		    ? proxy_win_policy_open(px->opts.policy_fd, err, sizeof(err))
		    : policy_open_file(px->opts.policy_path, err, sizeof(err));
		if (pol == NULL) {
			diags_add(errs, "%s", err);
			return NULL;
		}
		return proxy_policy_wrap(px, pol);
	}
#endif
	/* Read at start, before the proxy narrows itself (the trust checks walk the file
	 * system); every reload merges with this one, so none widens past it. */
	if (!px->managed_read && (rc = managed_load(&px->managed, errs, &warns)) == 0)
		px->managed_read = true;
	src.managed = &px->managed;
	if (rc == 0)
		rc = policy_source_load(&src, &pol, NULL, NULL, errs, &warns);
	for (size_t i = 0; i < warns.msgs.n; i++)
		log_warnx("warning: %s", warns.msgs.v[i]);
	diags_free(&warns);
	if (rc != 0)
		return NULL;
	return proxy_policy_wrap(px, pol);
}

/* The reference-counted policy around pol (taken). */
static struct proxy_policy *
proxy_policy_wrap(struct proxy *px, struct policy *pol)
{
	struct proxy_policy *pp;

	pp = xcalloc(1, sizeof(*pp));
	pp->pol = pol;
	pp->require_host_match = (policy_option_flags(pol) &
				     SETTINGS_FLAG(require_host_match)) != 0;
	pp->refuse_opaque_tunnels = (policy_option_flags(pol) &
					SETTINGS_FLAG(refuse_opaque_tunnels)) != 0;
	pp->refs = 1;
	proxy_policy_routes(px, pp);
	return pp;
}

struct proxy_policy *
proxy_policy_get(struct proxy *px)
{
	px->pol->refs++;
	return px->pol;
}

void
proxy_policy_put(struct proxy_policy *pp)
{
	if (pp == NULL || --pp->refs > 0)
		return;
	policy_free(pp->pol);
	upstream_free(&pp->up);
	strlist_free(&pp->strip_headers);
	free(pp->tls.ca_cert_path);
	free(pp->tls.ca_key_path);
	strlist_free(&pp->tls.exclude_domains);
	strlist_free(&pp->tls.extra_ca_paths);
	free(pp);
}

#ifdef SIGHUP
static void
proxy_reload(struct proxy *px)
{
	struct proxy_policy *pp;
	struct diags errs = { 0 };

	if (proxy_policy_from_decider(px)) {
		log_info(
		    "SIGHUP: the policy comes from the decider's hello; nothing to reload");
		return;
	}
	if ((pp = proxy_policy_load(px, &errs)) == NULL) {
		for (size_t i = 0; i < errs.msgs.n; i++)
			log_warnx(
			    "reload failed, keeping the current policy: %s", errs.msgs.v[i]);
		diags_free(&errs);
		return;
	}
	proxy_routes_check(px, pp);
	proxy_policy_put(px->pol);
	px->pol = pp;
	log_info("policy reloaded");
}
#endif

/*
 * The launcher's live updates (--control-fd): each message is the byte 'P' with a sealed
 * memfd holding the new policy.bin. It is verified and put in force for the requests
 * that start from now on (a request already decided keeps the policy it was decided
 * under: it holds a reference), and answered with one line, "ok" or "error: WHY". The
 * descriptor then stands for the policy a SIGHUP reloads.
 */
static void
proxy_control_reply(int fd, const char *line)
{
	size_t n = strlen(line);
	ssize_t w;

	do
		w = write(fd, line, n);
	while (w == -1 && errno == EINTR);
	if (w != (ssize_t)n)
		log_warn("control: reply");
}

static void
proxy_control_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy *px = arg;
	struct policy_source src = {
		.policy_path = NULL, .settings_path = NULL, .fallback = POLICY_SOURCE_REQUIRED
	};
	struct diags errs = { 0 }, warns = { 0 };
	struct proxy_policy *pp;
	struct policy *pol;
	char tag, *line;
	size_t got, nfds;
	int nfd = -1;

	(void)events;
	if (fdpass_recv(fd, &tag, 1, &got, &nfd, 1, &nfds) == -1) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		log_debug("control: channel closed (%s)", strerror(errno));
		evloop_del(loop, fd);
		close(fd);
		px->opts.control_fd = -1;
		return;
	}
	if (got != 1 || tag != 'P' || nfds != 1) {
		if (nfds == 1)
			close(nfd);
		proxy_control_reply(fd, "error: malformed control message\n");
		return;
	}
	src.policy_fd = nfd;
	/* The managed layer read at start: an update narrows under it like the file did. */
	src.managed = &px->managed;
	if (policy_source_load(&src, &pol, NULL, NULL, &errs, &warns) != 0) {
		line = xasprintf(
		    "error: %s\n", errs.msgs.n > 0 ? errs.msgs.v[0] : "cannot be loaded");
		proxy_control_reply(fd, line);
		free(line);
		close(nfd);
		goto out;
	}
	pp = proxy_policy_wrap(px, pol);
	proxy_routes_check(px, pp);
	proxy_policy_put(px->pol);
	px->pol = pp;
	/* What SIGHUP reads from now on. The launcher's first descriptor is ours to close
	 * too: it was made for this proxy alone. */
	if (px->opts.policy_fd != -1)
		close(px->opts.policy_fd);
	px->opts.policy_fd = nfd;
	log_debug("policy updated by the launcher");
	proxy_control_reply(fd, "ok\n");
out:
	diags_free(&errs);
	diags_free(&warns);
}

/*
 * The TLS-termination handoff (--handoff-fd, handoff.h): srt-httpd's end. Each message
 * brings a client socket; a malformed one is logged and dropped with its descriptors,
 * and the channel stays. Its end (srt-socksd gone) just stops the handoffs.
 */
static void
proxy_handoff_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy *px = arg;
	struct handoff_msg m;
	const char *why = NULL;
	int cfd, r, n;

	(void)events;
	/* A bounded batch per wake-up; the registration is level-triggered. */
	for (n = 0; n < 64; n++) {
		r = handoff_recv(fd, &m, &cfd, &why);
		if (r == 0)
			return;
		if (r == -1) {
			log_debug("handoff: channel closed (%s)", strerror(errno));
			evloop_del(loop, fd);
			close(fd);
			px->opts.handoff_fd = -1;
			return;
		}
		if (r == -2) {
			log_warnx("handoff: malformed message dropped: %s", why);
			continue;
		}
		px->proto->handoff(px, cfd, &m);
	}
}

/* ---- decision log ---------------------------------------------------------------- */

void
proxy_request_init(
    struct proxy *px, struct proxy_request *rq, const char *protocol, const char *client)
{
	memset(rq, 0, sizeof(*rq));
	rq->protocol = protocol;
	snprintf(rq->client, sizeof(rq->client), "%s", client);
	rq->status = -1;
	rq->kind = HOST_MALFORMED;
	rq->start_ms = evloop_now(px->loop);
}

void
proxy_request_clear(struct proxy_request *rq)
{
	free(rq->rule);
	free(rq->reason);
	free(rq->route);
	free(rq->request);
	rq->rule = rq->reason = rq->route = rq->request = NULL;
}

void
proxy_request_release(struct proxy_request **rq, struct proxy_policy **pp)
{
	if (*rq != NULL) {
		proxy_request_clear(*rq);
		free(*rq);
		*rq = NULL;
	}
	if (*pp != NULL) {
		proxy_policy_put(*pp);
		*pp = NULL;
	}
}

void
proxy_request_set_reason(struct proxy_request *rq, const char *reason, size_t len)
{
	free(rq->reason);
	rq->reason = reason != NULL ? xstrndup(reason, len) : NULL;
}

void
proxy_log(struct proxy *px, const struct proxy_request *rq)
{
	struct buf b = { 0 };
	struct decision d;
	ssize_t n;

	if (px->log_fd == -1)
		return;
	util_time_now(d.time);
	d.protocol = rq->protocol;
	d.client = rq->client;
	d.host = rq->host;
	d.port = rq->port;
	d.verdict = rq->verdict;
	d.rule = rq->rule;
	d.reason = rq->reason;
	d.route = rq->route;
	d.request = rq->request;
	d.status = rq->status;
	d.bytes_up = rq->up;
	d.bytes_down = rq->down;
	d.duration_ms = evloop_now(px->loop) - rq->start_ms;
	decision_format(&b, &d);
	/* One write per line, so lines never interleave with another writer's. */
	do
		n = write(px->log_fd, b.p, b.len);
	while (n == -1 && errno == EINTR);
	if (n != (ssize_t)b.len && px->log_dropped++ == 0)
		log_warn("decision log: write failed, lines are being lost");
	buf_free(&b);
}

/* ---- decisions ------------------------------------------------------------------- */

int
proxy_decide(struct proxy *px, struct proxy_policy *pp, struct proxy_request *rq,
    const char *host, size_t hostlen, uint16_t port)
{
	struct policy_verdict v;
	size_t i;

	policy_decide(pp->pol, host, hostlen, port, &v);
	rq->port = port;
	rq->kind = v.kind;
	if (v.kind != HOST_MALFORMED)
		snprintf(rq->host, sizeof(rq->host), "%s", v.canon);
	else {
		for (i = 0; i < hostlen && i < sizeof(rq->host) - 1; i++)
			rq->host[i] = host[i] >= 0x20 && host[i] < 0x7f ? host[i] : '?';
		rq->host[i] = '\0';
	}
	free(rq->rule);
	rq->rule = v.rule != NULL ? xstrndup(v.rule, v.rule_len) : NULL;
	proxy_request_set_reason(rq, v.reason, v.reason ? v.reason_len : 0);
	if (v.managed && !v.allow) {
		/* The organisation's rule: the log, the violation line and the refusal say so. */
		free(rq->reason);
		rq->reason = xasprintf("managed: %.*s", (int)v.reason_len, v.reason);
	}
	if (v.allow) {
		rq->verdict = VERDICT_ALLOW;
		return 1;
	}
	if (px->opts.audit && v.kind != HOST_MALFORMED) {
		rq->verdict = VERDICT_AUDIT_DENY;
		rq->would_deny = true;
		return 1;
	}
	rq->verdict = VERDICT_DENY;
	return 0;
}

void
proxy_sanitize_reason(const char *in, size_t len, char *out, size_t outlen)
{
	size_t i, o = 0, start, end, max = outlen - 1 < 500 ? outlen - 1 : 500;
	char tmp[1024];
	size_t t = 0;

	/* Controls become spaces, angle brackets go, then trim, cut, trim the end. */
	for (i = 0; i < len && t < sizeof(tmp) - 1; i++) {
		unsigned char c = (unsigned char)in[i];

		if (c == '<' || c == '>')
			continue;
		tmp[t++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	start = 0;
	while (start < t && tmp[start] == ' ')
		start++;
	end = t;
	while (end > start && tmp[end - 1] == ' ')
		end--;
	for (i = start; i < end && o < max; i++) {
		unsigned char c = (unsigned char)tmp[i];

		out[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
	}
	while (o > 0 && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

int
proxy_auth_check(struct proxy *px, const char *userpass, size_t len)
{
	const char *want = px->opts.auth;
	size_t wl, i;
	unsigned char diff;

	if (want == NULL)
		return 1;
	wl = strlen(want);
	diff = len != wl;
	/* Constant time in the length of the configured credentials. */
	for (i = 0; i < wl; i++)
		diff |= (unsigned char)want[i] ^ (unsigned char)(i < len ? userpass[i] : 0);
	return diff == 0;
}

/* ---- what the guarded dial (proxy_dial.c) needs ------------------------------------ */

#define PROXY_LOCAL_REFRESH_MS 1000u

/* This host's addresses for the guard, re-read at most every PROXY_LOCAL_REFRESH_MS
 * rather than for every lookup: getifaddrs costs a netlink socket and a dump of every
 * address. An address added to an interface is known within that time. */
const struct guard_local *
proxy_local_addrs(struct proxy *px)
{
	uint64_t now = evloop_now(px->loop);

	if (px->local_valid && now - px->local_at < PROXY_LOCAL_REFRESH_MS)
		return &px->local;
	if (guard_local_refresh(&px->local) == -1) {
		/* Try again at the next lookup; the fixed classes still apply meanwhile. */
		log_debug("getifaddrs: %s", strerror(errno));
		px->local_valid = false;
		return &px->local;
	}
	px->local_valid = true;
	px->local_at = now;
	return &px->local;
}

struct resolver *
proxy_resolver(struct proxy *px)
{
	return px->resolver;
}

struct tls_mitm *
proxy_tls_mitm(struct proxy *px, const char **why)
{
	if (px->mitm_ca == NULL)
		*why = px->term_why[0]
		    ? px->term_why
		    : "TLS termination is not available: "
		      "tlsTerminate was not in the policy when the proxy started";
	return px->mitm_ca;
}

struct tls_ctx *
proxy_term_tls(struct proxy *px)
{
	return px->term_tls;
}

struct tls_ctx *
proxy_tls_ctx(struct proxy *px, const char **why)
{
	if (px->tls == NULL)
		*why = px->tls_why[0]
		    ? px->tls_why
		    : "TLS is not available: no https:// parent "
		      "proxy was configured when the proxy started, and TLS is set up only then: "
		      "restart it";
	return px->tls;
}

struct proxy_connector *
proxy_mitm_connector(struct proxy *px, const char *path, const char **why)
{
	if (px->connector == NULL) {
		*why = "mitmProxy was not configured when the proxy started (its connector "
		       "starts only then): restart it";
		return NULL;
	}
	if (strcmp(proxy_connector_path(px->connector), path) != 0) {
		*why = "mitmProxy.socketPath changed since the proxy started (it connects only "
		       "to the socket it started with): restart it";
		return NULL;
	}
	return px->connector;
}

void
proxy_route(const struct proxy_policy *pp, const struct proxy_request *rq, bool tunnel,
    struct route *out)
{
	upstream_route(&pp->up, rq->host, rq->kind, tunnel, out);
}


/* ---- tunnels --------------------------------------------------------------------- */

struct proxy_tun {
	struct proxy *px;
	struct proxy_request *rq;
};

static void
proxy_tunnel_done(
    struct relay *r, enum relay_end how, int err, const struct relay_stats *st, void *arg)
{
	struct proxy_tun *t = arg;

	(void)r;
	t->rq->up += st->up;
	t->rq->down += st->down;
	if (how == RELAY_END_ERROR)
		log_debug("tunnel %s:%u ended: %s", t->rq->host, t->rq->port, strerror(err));
	proxy_log(t->px, t->rq);
	proxy_request_clear(t->rq);
	free(t->rq);
	proxy_conn_closed(t->px);
	free(t);
}

int
proxy_tunnel(struct proxy *px, int client_fd, int server_fd, struct proxy_request *rq,
    const void *to_client, size_t to_client_len, const void *to_server, size_t to_server_len)
{
	struct relay_params p;
	struct proxy_tun *t;

	t = xcalloc(1, sizeof(*t));
	t->px = px;
	t->rq = rq;
	memset(&p, 0, sizeof(p));
	p.to_client = to_client;
	p.to_client_len = to_client_len;
	p.to_server = to_server;
	p.to_server_len = to_server_len;
	p.idle_ms = (uint64_t)px->opts.idle_timeout_s * 1000;
	p.done = proxy_tunnel_done;
	p.arg = t;
	if (relay_start(px->loop, client_fd, server_fd, &p, NULL) == -1) {
		log_warn("tunnel to %s port %u", rq->host, rq->port);
		rq->verdict = VERDICT_ERROR;
		proxy_request_set_reason(rq, "cannot start the relay", 22);
		proxy_log(px, rq);
		proxy_request_clear(rq);
		free(rq);
		free(t);
		proxy_conn_closed(px);
		return -1;
	}
	return 0;
}

/* ---- accept loop, signals, lifeline ---------------------------------------------- */

struct evloop *
proxy_loop(struct proxy *px)
{
	return px->loop;
}

const struct proxy_opts *
proxy_options(struct proxy *px)
{
	return &px->opts;
}

unsigned
proxy_spare_fds(struct proxy *px)
{
	return px->spare_fds;
}

bool
proxy_draining(struct proxy *px)
{
	return px->draining;
}

bool
proxy_term_wanted(const struct proxy_policy *pp, const struct proxy_request *rq)
{
	if (!pp->tls.present || rq->kind == HOST_MALFORMED)
		return false;
	for (size_t i = 0; i < pp->tls.exclude_domains.n; i++)
		if (mitm_pattern_match(pp->tls.exclude_domains.v[i], rq->host, rq->kind))
			return false;
	return true;
}

bool
proxy_conn_adopt(struct proxy *px)
{
	if (px->draining || px->nconns >= px->opts.max_conns)
		return false;
	px->nconns++;
	return true;
}

void
proxy_conn_closed(struct proxy *px)
{
	if (px->nconns > 0)
		px->nconns--;
	if (px->draining && px->nconns == 0)
		evloop_break(px->loop);
}

static void
proxy_client_text(const struct sockaddr_storage *ss, char *out, size_t outlen)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		inet_ntop(AF_INET, &sin->sin_addr, a, sizeof(a));
		snprintf(out, outlen, "%s:%u", a, ntohs(sin->sin_port));
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const struct sockaddr_in6 *)ss;

		inet_ntop(AF_INET6, &sin6->sin6_addr, a, sizeof(a));
		snprintf(out, outlen, "[%s]:%u", a, ntohs(sin6->sin6_port));
	} else
		snprintf(out, outlen, "unix");
}

/*
 * Past the cap: the protocol writes its refusal and shuts the write side; then the socket
 * is kept a short, bounded time to read and drop what the client sends. Closing it with
 * the client's request unread would make the kernel answer with a reset, which can
 * destroy the refusal before the client reads it. At most PROXY_REFUSED_MAX sockets
 * linger at once, each at most PROXY_REFUSED_MS and PROXY_REFUSED_BYTES; past that the
 * socket is drained of what has arrived and closed at once.
 */
struct proxy_refused {
	struct proxy *px;
	int fd;
	size_t discarded;
	struct ev_timer timer;
};

/* Read and drop what is there: 1 when the socket should be closed now (EOF, error, too
 * many bytes), 0 when the client may still send. */
static int
proxy_refused_drain(int fd, size_t *discarded)
{
	char buf[4096];
	ssize_t n;

	for (;;) {
		n = sys_sock_recv(fd, buf, sizeof(buf));
		if (n > 0) {
			*discarded += (size_t)n;
			if (*discarded > PROXY_REFUSED_BYTES)
				return 1;
			continue;
		}
		if (n == -1 && errno == EINTR)
			continue;
		return n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : 1;
	}
}

static void
proxy_refused_close(struct proxy_refused *rf)
{
	struct proxy *px = rf->px;

	evtimer_del(px->loop, &rf->timer);
	evloop_forget(px->loop, rf->fd);
	sys_sockclose(rf->fd);
	px->nrefused--;
	free(rf);
}

static void
proxy_refused_io(struct evloop *loop, int fd, unsigned events, void *arg)
{
	struct proxy_refused *rf = arg;

	(void)loop;
	(void)events;
	if (proxy_refused_drain(fd, &rf->discarded))
		proxy_refused_close(rf);
}

static void
proxy_refused_timeout(struct evloop *loop, void *arg)
{
	struct proxy_refused *rf = arg;
	size_t ignored = 0;

	(void)loop;
	(void)proxy_refused_drain(rf->fd, &ignored);
	proxy_refused_close(rf);
}

static void
proxy_refused_linger(struct proxy *px, int fd)
{
	struct proxy_refused *rf;
	size_t discarded = 0;

	if (proxy_refused_drain(fd, &discarded) || px->nrefused >= PROXY_REFUSED_MAX) {
		sys_sockclose(fd);
		return;
	}
	rf = xcalloc(1, sizeof(*rf));
	rf->px = px;
	rf->fd = fd;
	rf->discarded = discarded;
	evtimer_init(&rf->timer, proxy_refused_timeout, rf);
	if (evloop_add(px->loop, fd, EV_READ, proxy_refused_io, rf) == -1) {
		sys_sockclose(fd);
		free(rf);
		return;
	}
	evtimer_add(px->loop, &rf->timer, PROXY_REFUSED_MS);
	px->nrefused++;
}

static void proxy_accept_cb(struct evloop *, int, unsigned, void *);

static void
proxy_accept_resume(struct evloop *loop, void *arg)
{
	struct proxy *px = arg;
	size_t i;

	(void)loop;
	px->accept_paused = false;
	if (px->draining)
		return;
	for (i = 0; i < px->nlisteners; i++)
		(void)evloop_mod(px->loop, px->listeners[i].fd, EV_READ);
}

static void
proxy_accept_cb(struct evloop *loop, int lfd, unsigned events, void *arg)
{
	struct proxy *px = arg;
	struct sockaddr_storage ss;
	socklen_t sl;
	char client[PROXY_CLIENT_MAX];
	int fd, n;
	size_t i;

	(void)events;
	/* A bounded batch per wake-up keeps one busy listener from starving the rest. */
	for (n = 0; n < 64 && !px->draining; n++) {
		sl = sizeof(ss);
		fd = sys_accept(lfd, (struct sockaddr *)&ss, &sl);
		if (fd == -1) {
			if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
				return;
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				/* Out of descriptors: stop accepting for a moment instead of
				 * spinning on a listener that stays readable. */
				log_warn("accept");
				for (i = 0; i < px->nlisteners; i++)
					(void)evloop_mod(loop, px->listeners[i].fd, 0);
				px->accept_paused = true;
				evtimer_add(loop, &px->accept_timer, 200);
				return;
			}
			log_warn("accept");
			return;
		}
		if (px->nconns >= px->opts.max_conns) {
			log_debug("connection cap (%u) reached: refusing", px->opts.max_conns);
			/* A plain relay speaks no protocol to refuse in. */
			if (px->opts.relay_port == 0)
				px->proto->refuse(px, fd);
			proxy_refused_linger(px, fd);
			continue;
		}
		px->nconns++;
		proxy_client_text(&ss, client, sizeof(client));
		if (px->opts.relay_port != 0)
			px->proto->relay_accept(px, fd, client);
		else
			px->proto->accept(px, fd, client);
	}
}

static void
proxy_stop_listening(struct proxy *px)
{
	size_t i;

	for (i = 0; i < px->nlisteners; i++) {
		evloop_del(px->loop, px->listeners[i].fd);
		sys_sockclose(px->listeners[i].fd);
		px->listeners[i].fd = -1;
	}
}

static void
proxy_drain_timeout(struct evloop *loop, void *arg)
{
	struct proxy *px = arg;

	log_info("%u connection(s) still open after the drain period: exiting", px->nconns);
	evloop_break(loop);
}

static void
proxy_signal_cb(struct evloop *loop, int signo, void *arg)
{
	struct proxy *px = arg;

	(void)loop;
#ifdef SIGHUP
	if (signo == SIGHUP) {
		proxy_reload(px);
		return;
	}
#endif
	if (!px->draining)
		log_debug("signal %d: draining %u connection(s)", signo, px->nconns);
	proxy_shutdown(px, NULL);
}

void
proxy_shutdown(struct proxy *px, const char *why)
{
	struct evloop *loop = px->loop;

	if (px->draining)
		return;
	if (why != NULL)
		log_info("stopping: %s", why);
	px->draining = true;
	proxy_stop_listening(px);
	if (px->proto->drain != NULL && px->opts.relay_port == 0)
		px->proto->drain(px);
	if (px->nconns == 0) {
		evloop_break(loop);
		return;
	}
	evtimer_add(loop, &px->drain_timer, PROXY_DRAIN_MS);
}

static void
proxy_lifeline_cb(struct evloop *loop, int fd, unsigned events, void *arg)
{
	char buf[256];
	ssize_t n;

	(void)events;
	(void)arg;
	n = sys_recv(fd, buf, sizeof(buf)); /* read(2), a socket on Windows */
	if (n > 0 || (n == -1 && (errno == EAGAIN || errno == EINTR)))
		return;
	/* The launcher is gone: nobody is left to serve. */
	log_debug("lifeline closed: exiting");
	evloop_del(loop, fd);
	evloop_break(loop);
}

static int
proxy_set_nonblock(int fd)
{
#ifdef _WIN32
	return sys_set_nonblock(fd);
#else
	int fl = fcntl(fd, F_GETFL);

	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
		return -1;
	return 0;
#endif
}

static void
proxy_add_listener(struct proxy *px, int fd, char *unix_path)
{
	px->listeners = xreallocarray(
	    px->listeners, px->nlisteners + 1, sizeof(*px->listeners));
	px->listeners[px->nlisteners].fd = fd;
	px->listeners[px->nlisteners].unix_path = unix_path;
	px->nlisteners++;
}

static void
proxy_open_listener(struct proxy *px, const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	const char *why;
	int fd;
	char *upath = NULL;

	if (proxy_parse_listen(spec, &ss, &sl, &why) == -1)
		fatalx("-l %s: %s", spec, why);
	fd = sys_socket(ss.ss_family);
	if (fd == -1)
		fatal("-l %s: socket", spec);
	if (ss.ss_family == AF_UNIX) {
#ifndef _WIN32
		struct sockaddr_un *sun = (struct sockaddr_un *)&ss;
		struct stat st;

		/* Replace a stale socket, never any other kind of file. */
		if (lstat(sun->sun_path, &st) == 0 && S_ISSOCK(st.st_mode))
			(void)unlink(sun->sun_path);
		upath = xstrdup(sun->sun_path);
#endif
	} else {
		(void)sys_setsockopt_int(fd, SOL_SOCKET, SO_REUSEADDR, 1);
		/* Accepted sockets inherit it: no call per connection. */
		(void)sys_setsockopt_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
		if (ss.ss_family == AF_INET6)
			(void)sys_setsockopt_int(fd, IPPROTO_IPV6, IPV6_V6ONLY, 1);
	}
	if (bind(fd, (struct sockaddr *)&ss, sl) == -1)
		fatal("-l %s: bind", spec);
	if (listen(fd, 4096) == -1)
		fatal("-l %s: listen", spec);
	proxy_add_listener(px, fd, upath);
}

static void
proxy_adopt_listener(struct proxy *px, int fd)
{
	int acc = 0;
	socklen_t sl = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, (void *)&acc, &sl) == -1)
		fatal("--listen-fd %d", fd);
	if (!acc)
		fatalx("--listen-fd %d: not a listening socket", fd);
	if (proxy_set_nonblock(fd) == -1)
		fatal("--listen-fd %d", fd);
	/* As for our own listeners (fails harmlessly on a unix socket). */
	(void)sys_setsockopt_int(fd, IPPROTO_TCP, TCP_NODELAY, 1);
	proxy_add_listener(px, fd, NULL);
}

/*
 * The connection cap from the descriptor limit (raised to the hard limit first). A tunnel
 * holds two sockets (an idle one nothing else); pipes for splice come from a process-wide
 * budget that the relay never exceeds (a direction without a pipe copies through user
 * space instead), refused clients linger in a bounded set, and a fixed reserve covers
 * listeners, the log, the resolver's sockets, the epoll and signal fds and dials in
 * flight; the daemon's spare descriptors (srt-httpd's idle upstream connections) come
 * on top. So: cap = (limit - reserve - refused - spare - 2 * pipes) / 2.
 */
#define PROXY_FD_RESERVE 64u
#define PROXY_PIPES_MIN 16u
#define PROXY_PIPES_MAX 1024u

#ifdef _WIN32
/* Windows has no descriptor limit to size the cap from (sockets are handles) and no
 * pipes: the default cap, unless --max-conns says otherwise. */
static void
proxy_limits(struct proxy *px)
{
	px->spare_fds = px->proto->spare_fds;
	if (px->opts.max_conns == 0)
		px->opts.max_conns = PROXY_DEFAULT_MAX_CONNS;
}
#else
static void
proxy_limits(struct proxy *px)
{
	struct rlimit rl;
	rlim_t lim, pipes, fixed;
	unsigned fit;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
			log_debug("cannot raise the descriptor limit: %s", strerror(errno));
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		rl.rlim_cur = 1024;
	lim = rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (1u << 24) ? (1u << 24)
								       : rl.rlim_cur;
	/* About one pipe per 32 descriptors: plenty for the connections that move bytes at
	 * the same moment; the others are idle or fall back to copying. */
	pipes = lim / 32;
	pipes = pipes < PROXY_PIPES_MIN ? PROXY_PIPES_MIN
	    : pipes > PROXY_PIPES_MAX ? PROXY_PIPES_MAX
				      : pipes;
	/* Spare descriptors: at most one per 32 as well. */
	px->spare_fds = px->proto->spare_fds < lim / 32 ? px->proto->spare_fds
							: (unsigned)(lim / 32);
	fixed = PROXY_FD_RESERVE + PROXY_REFUSED_MAX + px->spare_fds + 2 * pipes;
	if (lim >= fixed + 2 * 16)
		fit = (unsigned)((lim - fixed) / 2);
	else {
		/* A tiny limit: fewer pipes, no spares, still a few connections. */
		pipes = 4;
		px->spare_fds = 0;
		fit = lim > PROXY_FD_RESERVE / 2 + 2 * pipes + 2
		    ? (unsigned)((lim - PROXY_FD_RESERVE / 2 - 2 * pipes) / 2)
		    : 1;
	}
	relay_set_pipe_budget((size_t)pipes);
	if (px->opts.max_conns == 0)
		px->opts.max_conns = fit < PROXY_DEFAULT_MAX_CONNS ? fit
								   : PROXY_DEFAULT_MAX_CONNS;
	else if (px->opts.max_conns > fit)
		log_warnx("--max-conns %u is more than the descriptor limit (%llu) allows (%u)",
		    px->opts.max_conns, (unsigned long long)lim, fit);
}
#endif

static void proxy_tls_start(struct proxy *px);

/* What the routes of the starting policy need before the proxy narrows itself: the TLS
 * client (libssl and the CA certificates are files) and the connector to the inspection
 * proxy (a child, forked while that is allowed). A failure is a warning, and the
 * requests that need the piece fail with its reason. */
static void
proxy_routes_start(struct proxy *px)
{
	char err[TLS_ERR_MAX];

	if (upstream_needs_tls(&px->pol->up)) {
		if ((px->tls = tls_ctx_new(err, sizeof(err))) == NULL) {
			snprintf(
			    px->tls_why, sizeof(px->tls_why), "TLS is not available: %s", err);
			log_warnx("warning: TLS for the https:// parent proxy: %s", err);
		} else
			log_debug("TLS for parent proxies: CA certificates from %s",
			    tls_ctx_ca_file(px->tls));
	}
	if (px->pol->tls.present && px->proto->tls_terminate)
		proxy_tls_start(px);
	if (px->pol->up.mitm_socket != NULL &&
	    (px->connector = proxy_connector_start(px->loop, px->pol->up.mitm_socket)) == NULL)
		log_warnx("warning: no connector to the inspection proxy %s",
		    px->pol->up.mitm_socket);
}

#define PROXY_CA_MAX (1u << 20) /* a CA file, or what --ca-fd hands over */

/*
 * tlsTerminate: the CA from --ca-fd (the launcher's, which never goes through a file),
 * else the pair the settings name; and the client context that verifies the real
 * servers, with extraCaCertPaths (missing files skipped, as the reference does). A
 * failure leaves termination off, and the tunnels it would have terminated are refused
 * with its reason (connect.c).
 */
static void
proxy_tls_start(struct proxy *px)
{
	const struct settings_tls *t = &px->pol->tls;
	char err[TLS_ERR_MAX + 64], *cert = NULL, *key = NULL;
	size_t clen = 0, klen = 0;

	if (px->opts.ca_fd != -1) {
		cert = util_read_secret(px->opts.ca_fd, PROXY_CA_MAX, &clen);
		close(px->opts.ca_fd);
		px->opts.ca_fd = -1;
		if (cert == NULL) {
			snprintf(err, sizeof(err), "--ca-fd: cannot read the CA");
			goto fail;
		}
		key = cert;
		klen = clen;
	} else if (t->ca_cert_path != NULL) {
		if ((cert = util_read_secret_file(t->ca_cert_path, PROXY_CA_MAX, &clen)) ==
		    NULL) {
			snprintf(err, sizeof(err), "tlsTerminate.caCertPath %s: %s",
			    t->ca_cert_path, strerror(errno));
			goto fail;
		}
		if ((key = util_read_secret_file(t->ca_key_path, PROXY_CA_MAX, &klen)) ==
		    NULL) {
			snprintf(err, sizeof(err), "tlsTerminate.caKeyPath %s: %s",
			    t->ca_key_path, strerror(errno));
			goto fail;
		}
	} else {
		snprintf(err, sizeof(err),
		    "tlsTerminate has no CA: name caCertPath and "
		    "caKeyPath, or let srt make one for the run (srt-httpd --ca-fd)");
		goto fail;
	}
	if ((px->mitm_ca = tls_mitm_new(cert, clen, key, klen, err, sizeof(err))) == NULL)
		goto fail;
	if ((px->term_tls = tls_ctx_new(err, sizeof(err))) == NULL) {
		tls_mitm_free(px->mitm_ca);
		px->mitm_ca = NULL;
		goto fail;
	}
	for (size_t i = 0; i < t->extra_ca_paths.n; i++) {
		if (access(t->extra_ca_paths.v[i], R_OK) == -1) {
			log_debug("tlsTerminate.extraCaCertPaths: %s: %s: skipped",
			    t->extra_ca_paths.v[i], strerror(errno));
			continue;
		}
		if (tls_ctx_add_ca_file(
			px->term_tls, t->extra_ca_paths.v[i], err, sizeof(err)) == -1)
			log_debug("tlsTerminate.extraCaCertPaths: %s: skipped", err);
	}
	log_debug("TLS termination: real servers verified with %s%s",
	    tls_ctx_ca_file(px->term_tls), t->extra_ca_paths.n ? " and extraCaCertPaths" : "");
	goto out;
fail:
	snprintf(
	    px->term_why, sizeof(px->term_why), "TLS termination is not available: %s", err);
	log_warnx("warning: %s", px->term_why + strlen("TLS termination is not available: "));
out:
	if (key != NULL && key != cert)
		tls_mitm_pem_free(key);
	tls_mitm_pem_free(cert);
}

/* Release what proxy_main built; any part may be missing (an early error). */
static void
proxy_free(struct proxy *px)
{
	size_t i;

	cred_store_free(&px->creds);
	for (i = 0; i < px->nlisteners; i++) {
		if (px->listeners[i].fd != -1) {
			if (px->loop != NULL)
				evloop_del(px->loop, px->listeners[i].fd);
			sys_sockclose(px->listeners[i].fd);
		}
		free(px->listeners[i].unix_path);
	}
	free(px->listeners);
	if (px->loop != NULL) {
		evtimer_del(px->loop, &px->accept_timer);
		evtimer_del(px->loop, &px->drain_timer);
	}
	resolver_free(px->resolver);
	proxy_connector_free(px->connector);
	tls_ctx_free(px->tls);
	tls_mitm_free(px->mitm_ca);
	tls_ctx_free(px->term_tls);
	evloop_free(px->loop);
	proxy_policy_put(px->pol);
	proxy_opener_free(px->opener);
	managed_free(&px->managed);
	guard_local_free(&px->local);
	if (px->log_fd != -1 && px->opts.log_path != NULL)
		close(px->log_fd);
	strlist_free(&px->opts.listen);
	strlist_free(&px->opts.strip_headers);
	free(px->opts.listen_fds);
	if (px->opts.auth != NULL) {
		explicit_bzero(px->opts.auth, strlen(px->opts.auth));
		free(px->opts.auth);
	}
	free(px);
}

/*
 * The masked credentials, read whole from --cred-fd before anything else: the real
 * values live in this process's memory only, so it is made undumpable (no core file,
 * no ptrace or /proc/PID/mem by another process of the user) before they arrive.
 */
static int
proxy_creds_read(struct proxy *px)
{
#ifndef _WIN32
	struct rlimit no_core = { 0, 0 };
#endif
	const char *why;
	char *data = NULL;
	size_t len = 0;
	int rc;

#ifndef _WIN32
	if (prctl(PR_SET_DUMPABLE, 0) == -1 || setrlimit(RLIMIT_CORE, &no_core) == -1) {
		log_warn("--cred-fd: cannot make the process undumpable");
		return -1;
	}
#endif
	if (read_fd_all(px->opts.cred_fd, 16u << 20, &data, &len) == -1) {
		log_warn("--cred-fd %d", px->opts.cred_fd);
		return -1;
	}
	close(px->opts.cred_fd);
	px->opts.cred_fd = -1;
	rc = cred_store_decode(data, len, &px->creds, &why);
	explicit_bzero(data, len);
	free(data);
	if (rc == -1)
		log_warnx("--cred-fd: %s", why);
	else {
		/* The forms of each value a response is scrubbed of (forward.c). */
		cred_scrub_prepare(&px->creds);
		log_debug("%zu masked credential(s), %zu AWS pair(s), %zu form(s) scrubbed "
			  "from responses",
		    px->creds.n, px->creds.naws, px->creds.nscrub);
	}
	return rc;
}

const struct cred_store *
proxy_creds(struct proxy *px)
{
	return &px->creds;
}

/* --ready-fd: the launcher starts the command only once each proxy serves; a proxy that
 * fails before this closes the descriptor by exiting, without the line. */
static void
proxy_ready(struct proxy *px)
{
	static const char line[] = "ready\n";

	if (px->opts.ready_fd == -1)
		return;
	if (write(px->opts.ready_fd, line, sizeof(line) - 1) != (ssize_t)(sizeof(line) - 1))
		log_warn("--ready-fd %d", px->opts.ready_fd);
	close(px->opts.ready_fd);
	px->opts.ready_fd = -1;
}

/* Where the log lines go: --log, --log-fd, or standard output (none for a relay). */
static void
proxy_log_open(struct proxy *px)
{
	if (px->opts.log_path != NULL) {
		px->log_fd = open(px->opts.log_path,
		    O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_BINARY, 0600);
		if (px->log_fd == -1)
			fatal("--log %s", px->opts.log_path);
	} else if (px->opts.log_fd != -1) {
		px->log_fd = px->opts.log_fd;
#ifndef _WIN32
		if (fcntl(px->log_fd, F_SETFD, FD_CLOEXEC) == -1)
			fatal("--log-fd %d", px->log_fd);
#endif
	} else if (px->opts.relay_port == 0)
		px->log_fd = STDOUT_FILENO;
}

/* The listeners, the lifeline, control and handoff descriptors and the signals, each
 * in the event loop. */
static void
proxy_watch_fds(struct proxy *px, const struct proxy_proto *proto)
{
	size_t i;

	for (i = 0; i < px->opts.nlisten_fds; i++)
		proxy_adopt_listener(px, px->opts.listen_fds[i]);
	for (i = 0; i < px->opts.listen.n; i++)
		proxy_open_listener(px, px->opts.listen.v[i]);
	if (px->nlisteners == 0)
		proxy_open_listener(px, proto->default_listen);
	proxy_listeners_say(px, proto, px->opts.nlisten_fds);
	for (i = 0; i < px->nlisteners; i++)
		if (evloop_add(px->loop, px->listeners[i].fd, EV_READ, proxy_accept_cb, px) ==
		    -1)
			fatal("listener");
	if (px->opts.lifeline_fd != -1) {
		if (proxy_set_nonblock(px->opts.lifeline_fd) == -1 ||
		    evloop_add(
			px->loop, px->opts.lifeline_fd, EV_READ, proxy_lifeline_cb, px) == -1)
			fatal("--lifeline-fd %d", px->opts.lifeline_fd);
	}
	if (px->opts.control_fd != -1 &&
	    (proxy_set_nonblock(px->opts.control_fd) == -1 ||
		evloop_add(px->loop, px->opts.control_fd, EV_READ, proxy_control_cb, px) == -1))
		fatal("--control-fd %d", px->opts.control_fd);
	if (px->opts.handoff_fd != -1 &&
	    (proxy_set_nonblock(px->opts.handoff_fd) == -1 ||
		(proto->handoff != NULL &&
		    evloop_add(px->loop, px->opts.handoff_fd, EV_READ, proxy_handoff_cb, px) ==
			-1)))
		fatal("--handoff-fd %d", px->opts.handoff_fd);
	if (proto->start != NULL)
		proto->start(px);
#ifdef _WIN32
	/* The console's Ctrl-C, Ctrl-Break and close drain and exit; nothing reloads. */
	if (evloop_signal(px->loop, SIGBREAK, proxy_signal_cb, px) == -1 ||
#else
	if (evloop_signal(px->loop, SIGHUP, proxy_signal_cb, px) == -1 ||
#endif
	    evloop_signal(px->loop, SIGTERM, proxy_signal_cb, px) == -1 ||
	    evloop_signal(px->loop, SIGINT, proxy_signal_cb, px) == -1)
		fatal("signalfd");
}

int
proxy_main(int argc, char **argv, const struct proxy_proto *proto)
{
	struct proxy *px;
	struct diags errs = { 0 };
	char err[2048];
	const char *why;
	size_t i;
	int rc = 0;
	bool narrowed = false;

	px = xcalloc(1, sizeof(*px));
	px->proto = proto;
	px->log_fd = -1;
	log_init(proto->prog, 0, 1);
	proxy_parse_opts(&px->opts, argc, argv, proto);
	log_init(proto->prog, px->opts.debug, 1);
#ifdef _WIN32
	proxy_win_start(&px->opts, proto->prog);
#else
	signal(SIGPIPE, SIG_IGN);
	/* Connections come and go by the thousand, each with a few small buffers: without
	 * some slack at the top of the heap, malloc gives memory back with brk() after a
	 * burst and asks for it again with the next (a few hundred brk calls per 10,000
	 * requests, each costing page faults). A megabyte of slack bounds what an idle
	 * proxy keeps. */
	(void)mallopt(M_TRIM_THRESHOLD, 1 << 20);
	(void)mallopt(M_TOP_PAD, 256 << 10);
#endif
	proxy_limits(px);

	if (px->opts.cred_fd != -1 && proxy_creds_read(px) == -1) {
		rc = 2;
		goto out;
	}
	/* srt's own environment: the parent proxy when the policy names none. */
	upstream_env_read(&px->env);
	/* A plain relay (--relay-to) has no policy, no lookups and no log. */
	if (px->opts.relay_port == 0 && (px->pol = proxy_policy_load(px, &errs)) == NULL) {
		for (i = 0; i < errs.msgs.n; i++)
			log_warnx("%s", errs.msgs.v[i]);
		diags_free(&errs);
		rc = 2;
		goto out;
	}
	/* Windows: what the policy routes through OpenSSL or the connector (proxy_win.h). */
	if (px->pol != NULL &&
	    (why = proxy_win_refused_routes(
		 &px->pol->up, px->pol->tls.present && proto->tls_terminate)) != NULL) {
		log_warnx("%s", why);
		rc = 2;
		goto out;
	}
	/* allowPlaintextHeaderSet is read once, from the policy the proxy starts with (as
	 * the reference reads it when its proxy starts): a reload does not change it. */
	if (px->pol != NULL &&
	    (policy_option_flags(px->pol->pol) & SETTINGS_FLAG(allow_plaintext_header_set)) !=
		0)
		px->opts.plaintext_header_set = true;
	/* Narrowed, the proxy cannot open the file of -p or -s again for a reload. */
	if (!px->opts.no_sandbox &&
	    (px->opts.policy_path != NULL || px->opts.settings_path != NULL) &&
	    (px->opener = proxy_opener_start(px->opts.policy_path != NULL
		     ? px->opts.policy_path
		     : px->opts.settings_path)) == NULL) {
		rc = 1;
		goto out;
	}
	if ((px->loop = evloop_new()) == NULL)
		fatal("epoll");
	evtimer_init(&px->accept_timer, proxy_accept_resume, px);
	evtimer_init(&px->drain_timer, proxy_drain_timeout, px);
	if (px->opts.relay_port == 0 &&
	    (px->resolver = resolver_new(px->loop, err, sizeof(err))) == NULL)
		fatalx("resolver: %s", err);
	if (px->opts.relay_port == 0)
		proxy_routes_start(px);

	proxy_log_open(px);
	proxy_watch_fds(px, proto);

	if (proxy_sandbox_enter(px->opts.no_sandbox) == -1)
		fatalx("cannot narrow the process");
	log_debug(
	    "ready: %zu listener(s), up to %u connections", px->nlisteners, px->opts.max_conns);
	proxy_ready(px);

	if (evloop_run(px->loop) == -1) {
		log_warn("event loop");
		rc = 1;
	}
	/* A unix socket file stays behind (unlink is outside the narrowed syscall set); the
	 * next start replaces it. Connections still open after the drain end with the
	 * process: their state is not released one by one. */
	narrowed = !px->opts.no_sandbox;
out:
	proxy_free(px);
	if (narrowed)
		proxy_sandbox_exit(rc);
	return rc;
}
