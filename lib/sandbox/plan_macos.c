/*
 * The macOS Seatbelt profile (BEHAVIOR §6, SPEC §6), rule for rule the reference's.
 *
 * Order of the profile:
 *   (version 1), deny by default with the log tag
 *   what ordinary programs need: processes, signals, a fixed list of Mach services,
 *   POSIX IPC, two IOKit classes, a fixed list of sysctls, the usual devices
 *   the switches: trustd (enableWeakerNetworkIsolation), Apple Events, allowMachLookup
 *   network: loopback binding (allowLocalBinding), Unix sockets, the proxy ports only
 *   reads:   allow all; deny denyRead; allow allowRead; deny again what those allows
 *            re-opened; the root's own entry; directory metadata; the denied paths and
 *            their ancestors kept from being moved; unlink/create again in write roots
 *   writes:  allow the write roots; deny denyWrite and the mandatory denies (each a
 *            subpath in the cwd and a regex for any depth), literal ones that share a
 *            shape folded into one regex; the same kept from being moved
 *   read-denied paths inside write roots kept from being moved, last
 *   pseudo-terminals (allowPty)
 *
 * Seatbelt takes the last rule that matches, which is why denies come back after allows.
 *
 * Paths are handled as the reference handles them, down to what it asks of the file
 * system: "~" and relative spellings made absolute, a name's links resolved only where
 * the result stays within what it named (or is /tmp or /var under /private), read rules
 * under both spellings of their path (as written, and with links resolved), and an entry
 * with glob characters read also as the name it spells where those names exist on disk.
 * Strings are quoted as JSON quotes them, which Seatbelt reads.
 *
 * This file holds the fixed tables, the settings' lists and the order of the profile;
 * plan_macos_paths.c handles the paths, plan_macos_rules.c writes the file system's
 * filters and rules (their shared declarations: plan_macos_int.h).
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "globre.h"
#include "path.h"
#include "plan.h"
#include "plan_macos_int.h"
#include "util.h"

/* Writable whatever the settings say: the command's own streams and devices, and the
 * TMPDIR the reference hands out. */
static const char *const own_write_paths[] = {
	"/dev/stdout",
	"/dev/stderr",
	"/dev/null",
	"/dev/tty",
	"/dev/dtracehelper",
	"/dev/autofs_nowait",
	"/tmp/claude",
	"/private/tmp/claude",
};
/* Writable under the home directory unless a read deny covers them. */
static const char *const home_write_dirs[] = { ".npm/_logs", ".claude/debug" };

static const char *const mach_services[] = {
	"com.apple.audio.systemsoundserver",
	"com.apple.distributed_notifications@Uv3",
	"com.apple.FontObjectsServer",
	"com.apple.fonts",
	"com.apple.logd",
	"com.apple.lsd.mapdb",
	"com.apple.PowerManagement.control",
	"com.apple.system.logger",
	"com.apple.system.notification_center",
	"com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership",
	"com.apple.bsd.dirhelper",
	"com.apple.securityd.xpc",
	"com.apple.coreservices.launchservicesd",
};
static const char *const sysctl_names[] = {
	"hw.activecpu",
	"hw.busfrequency_compat",
	"hw.byteorder",
	"hw.cacheconfig",
	"hw.cachelinesize_compat",
	"hw.cpufamily",
	"hw.cpufrequency",
	"hw.cpufrequency_compat",
	"hw.cputype",
	"hw.l1dcachesize_compat",
	"hw.l1icachesize_compat",
	"hw.l2cachesize_compat",
	"hw.l3cachesize_compat",
	"hw.logicalcpu",
	"hw.logicalcpu_max",
	"hw.machine",
	"hw.memsize",
	"hw.ncpu",
	"hw.nperflevels",
	"hw.packages",
	"hw.pagesize_compat",
	"hw.pagesize",
	"hw.physicalcpu",
	"hw.physicalcpu_max",
	"hw.tbfrequency_compat",
	"hw.vectorunit",
	"kern.argmax",
	"kern.bootargs",
	"kern.hostname",
	"kern.maxfiles",
	"kern.maxfilesperproc",
	"kern.maxproc",
	"kern.ngroups",
	"kern.osproductversion",
	"kern.osrelease",
	"kern.ostype",
	"kern.osvariant_status",
	"kern.osversion",
	"kern.secure_kernel",
	"kern.tcsm_available",
	"kern.tcsm_enable",
	"kern.usrstack64",
	"kern.version",
	"kern.willshutdown",
	"machdep.cpu.brand_string",
	"machdep.ptrauth_enabled",
	"security.mac.lockdown_mode_state",
	"sysctl.proc_cputype",
	"vm.loadavg",
};
static const char *const sysctl_prefixes[] = {
	"hw.optional.arm",
	"hw.optional.arm.",
	"hw.optional.armv8_",
	"hw.perflevel",
	"kern.proc.all",
	"kern.proc.pgrp.",
	"kern.proc.pid.",
	"machdep.cpu.",
	"net.routetable.",
};
static const char *const ioctl_devices[] = {
	"/dev/null",
	"/dev/zero",
	"/dev/random",
	"/dev/urandom",
	"/dev/dtracehelper",
	"/dev/tty",
};

/* --- the settings' lists ------------------------------------------------------------ */

/* A list's spellings (a trailing "**" component dropped, once each when dedup) and its
 * marked entries. */
static void
split_list(
    const struct path_list *l, bool dedup, struct strlist *spelled, struct strlist *literal)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].literal) {
			strlist_push(literal, l->v[i].path);
			continue;
		}
		if (dedup)
			plan_macos_set_add_owned(spelled, glob_strip_globstar(l->v[i].path));
		else
			strlist_push_owned(spelled, glob_strip_globstar(l->v[i].path));
	}
}

/* A read rule's reach, for the home directories kept writable: a name and beneath it,
 * or what a glob's deny regex matches. */
struct cover {
	char *rule;
	bool glob;
};

static struct cover
cover_of(const struct mb *b, const char *p, bool literal)
{
	char *stripped;
	struct cover c;

	if (literal)
		return (struct cover){ plan_macos_normalize_for_sandbox(b, p, true), false };
	stripped = glob_strip_globstar(p);
	if (glob_has_magic(stripped)) {
		c.rule = plan_macos_normalize_for_sandbox(b, stripped, false);
		c.glob = true;
	} else {
		c.rule = plan_macos_normalize_for_sandbox(b, stripped, true);
		c.glob = false;
	}
	free(stripped);
	return c;
}

static bool
covers(const struct cover *c, const char *p)
{
	return c->glob ? glob_regex_match(c->rule, p, true) : path_is_under(p, c->rule);
}

/*
 * The convenience directories under home that stay writable: those no denyRead entry
 * covers (counting the names its glob spellings also are), or that an allowRead name
 * beneath the covering deny re-opens; and that no credentials file covers.
 */
/* The reach of each entry of a read-deny list, with the names its glob spellings also are. */
static void
covers_of(const struct mb *b, const struct path_list *l, struct cover **cv, size_t *ncv)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		struct ments names = { 0 };

		*cv = xreallocarray(*cv, *ncv + 1, sizeof(**cv));
		(*cv)[(*ncv)++] = cover_of(b, l->v[i].path, l->v[i].literal);
		if (l->v[i].literal)
			continue;
		plan_macos_literal_readings(b, l->v[i].path, K_DENY, &names);
		for (j = 0; j < names.n; j++)
			if (!names.v[j].glob) {
				*cv = xreallocarray(*cv, *ncv + 1, sizeof(**cv));
				(*cv)[(*ncv)++] = cover_of(b, names.v[j].path, true);
			}
		plan_macos_ments_free(&names);
	}
}

static void
home_write_paths(const struct mb *b, struct strlist *out)
{
	const struct path_list *ar = &b->s->fs.allow_read;
	struct cover *cv = NULL, *cc = NULL;
	struct strlist homes = { 0 }, reopened = { 0 };
	size_t ncv = 0, ncc = 0, i, j, h, r;

	covers_of(b, &b->s->fs.deny_read, &cv, &ncv);
	covers_of(b, &b->s->cred.deny_files, &cc, &ncc);
	for (i = 0; i < ar->n; i++) {
		struct ments names = { 0 };
		char *stripped;

		if (ar->v[i].literal) {
			strlist_push_owned(&reopened,
			    plan_macos_normalize_for_sandbox(b, ar->v[i].path, true));
			continue;
		}
		stripped = glob_strip_globstar(ar->v[i].path);
		if (!glob_has_magic(stripped))
			strlist_push_owned(
			    &reopened, plan_macos_normalize_for_sandbox(b, stripped, true));
		free(stripped);
		plan_macos_literal_readings(b, ar->v[i].path, K_ALLOW, &names);
		for (j = 0; j < names.n; j++)
			if (!names.v[j].glob)
				strlist_push_owned(&reopened,
				    plan_macos_normalize_for_sandbox(b, names.v[j].path, true));
		plan_macos_ments_free(&names);
	}
	plan_macos_set_add(&homes, b->home);
	plan_macos_set_add_owned(&homes, plan_macos_normalize_for_sandbox(b, b->home, true));
	for (i = 0; i < nitems(home_write_dirs); i++) {
		struct strlist sp = { 0 };
		bool denied = false;

		for (h = 0; h < homes.n; h++)
			strlist_push_owned(
			    &sp, plan_macos_js_join(homes.v[h], home_write_dirs[i]));
		for (j = 0; !denied && j < ncv; j++) {
			bool hit = false, reopen = false;

			for (h = 0; h < sp.n; h++)
				hit = hit || covers(&cv[j], sp.v[h]);
			if (!hit)
				continue;
			for (r = 0; !reopen && r < reopened.n; r++) {
				if (!covers(&cv[j], reopened.v[r]))
					continue;
				for (h = 0; h < sp.n; h++)
					if (path_is_under(sp.v[h], reopened.v[r]))
						reopen = true;
			}
			denied = !reopen;
		}
		/* A credentials file covering it, which nothing re-opens. */
		for (j = 0; !denied && j < ncc; j++)
			for (h = 0; h < sp.n && !denied; h++)
				denied = covers(&cc[j], sp.v[h]);
		if (!denied)
			strlist_push_owned(
			    out, plan_macos_js_join(b->home, home_write_dirs[i]));
		strlist_free(&sp);
	}
	for (i = 0; i < ncv; i++)
		free(cv[i].rule);
	free(cv);
	for (i = 0; i < ncc; i++)
		free(cc[i].rule);
	free(cc);
	strlist_free(&homes);
	strlist_free(&reopened);
}

/* --- the profile -------------------------------------------------------------------- */

static void
static_rules(struct mb *b)
{
	size_t i;

	strlist_pushf(&b->lines, "(deny default (with message %s))", b->tag);
	plan_macos_line(b, "");
	plan_macos_line(b, "; processes of this sandbox may run, fork and see each other");
	plan_macos_line(b, "(allow process-exec)");
	plan_macos_line(b, "(allow process-fork)");
	plan_macos_line(b, "(allow process-info* (target same-sandbox))");
	plan_macos_line(b, "(allow signal (target same-sandbox))");
	plan_macos_line(b, "(allow mach-priv-task-port (target same-sandbox))");
	plan_macos_line(b, "(allow user-preference-read)");
	plan_macos_line(b, "");
	plan_macos_line(b, "; the Mach services ordinary programs look up, by name");
	plan_macos_line(b, "(allow mach-lookup");
	for (i = 0; i < nitems(mach_services); i++)
		strlist_pushf(&b->lines, "  (global-name \"%s\")", mach_services[i]);
	plan_macos_line(b, ")");
}

static void
option_rules(struct mb *b)
{
	const struct settings *s = b->s;
	size_t i;

	if (s->weaker_network_isolation) {
		plan_macos_line(
		    b, "; enableWeakerNetworkIsolation: trustd, for TLS certificate checks");
		plan_macos_line(
		    b, "(allow mach-lookup (global-name \"com.apple.trustd.agent\"))");
	}
	if (s->allow_apple_events) {
		plan_macos_line(b,
		    "; allowAppleEvents: Apple Events and Launch Services (open, osascript)");
		plan_macos_line(b, "(allow appleevent-send)");
		plan_macos_line(b,
		    "(allow mach-lookup (global-name \"com.apple.coreservices.appleevents\"))");
		plan_macos_line(b, "(allow lsopen)");
		plan_macos_line(b,
		    "(allow mach-lookup (global-name \"com.apple.CoreServices.coreservicesd\"))");
		plan_macos_line(b,
		    "(allow mach-lookup "
		    "(global-name \"com.apple.coreservices.quarantine-resolver\"))");
	}
	if (s->net.allow_mach_lookup.n > 0) {
		plan_macos_line(b, "; allowMachLookup");
		for (i = 0; i < s->net.allow_mach_lookup.n; i++) {
			const char *name = s->net.allow_mach_lookup.v[i];
			size_t len = strlen(name);
			char *q;

			if (len > 0 && name[len - 1] == '*') {
				char *pre = xstrndup(name, len - 1);

				q = plan_macos_json_quote(pre);
				free(pre);
				strlist_pushf(&b->lines,
				    "(allow mach-lookup (global-name-prefix %s))", q);
			} else {
				q = plan_macos_json_quote(name);
				strlist_pushf(
				    &b->lines, "(allow mach-lookup (global-name %s))", q);
			}
			free(q);
		}
	}
}

static void
system_rules(struct mb *b)
{
	size_t i;

	plan_macos_line(b, "");
	plan_macos_line(b, "; POSIX shared memory and semaphores");
	plan_macos_line(b, "(allow ipc-posix-shm)");
	plan_macos_line(b, "(allow ipc-posix-sem)");
	plan_macos_line(b, "");
	plan_macos_line(b, "; IOKit: two classes, and properties");
	plan_macos_line(b, "(allow iokit-open");
	plan_macos_line(b, "  (iokit-registry-entry-class \"IOSurfaceRootUserClient\")");
	plan_macos_line(b, "  (iokit-registry-entry-class \"RootDomainUserClient\")");
	plan_macos_line(b, "  (iokit-user-client-class \"IOSurfaceSendRight\")");
	plan_macos_line(b, ")");
	plan_macos_line(b, "(allow iokit-get-properties)");
	plan_macos_line(b, "");
	plan_macos_line(b, "; AF_SYSTEM control sockets only (no network)");
	plan_macos_line(b,
	    "(allow system-socket (require-all (socket-domain AF_SYSTEM) "
	    "(socket-protocol 2)))");
	plan_macos_line(b, "");
	plan_macos_line(b, "; sysctls that runtimes read");
	plan_macos_line(b, "(allow sysctl-read");
	for (i = 0; i < nitems(sysctl_names); i++)
		strlist_pushf(&b->lines, "  (sysctl-name \"%s\")", sysctl_names[i]);
	for (i = 0; i < nitems(sysctl_prefixes); i++)
		strlist_pushf(&b->lines, "  (sysctl-name-prefix \"%s\")", sysctl_prefixes[i]);
	plan_macos_line(b, ")");
	plan_macos_line(b, "(allow sysctl-write");
	plan_macos_line(b, "  (sysctl-name \"kern.tcsm_enable\")");
	plan_macos_line(b, ")");
	plan_macos_line(b, "(allow distributed-notification-post)");
	plan_macos_line(b, "(allow mach-lookup (global-name \"com.apple.SecurityServer\"))");
	plan_macos_line(b, "");
	plan_macos_line(b, "; the usual devices");
	for (i = 0; i < nitems(ioctl_devices); i++)
		strlist_pushf(
		    &b->lines, "(allow file-ioctl (literal \"%s\"))", ioctl_devices[i]);
	plan_macos_line(b, "(allow file-ioctl file-read-data file-write-data");
	plan_macos_line(b, "  (require-all");
	plan_macos_line(b, "    (literal \"/dev/null\")");
	plan_macos_line(b, "    (vnode-type CHARACTER-DEVICE)");
	plan_macos_line(b, "  )");
	plan_macos_line(b, ")");
	plan_macos_line(b, "");
}

static void
port_rules(struct mb *b, int port)
{
	strlist_pushf(&b->lines, "(allow network-bind (local ip \"localhost:%d\"))", port);
	strlist_pushf(&b->lines, "(allow network-inbound (local ip \"localhost:%d\"))", port);
	strlist_pushf(&b->lines, "(allow network-outbound (remote ip \"localhost:%d\"))", port);
}

/*
 * The network: nothing but the proxy ports on loopback. allowLocalBinding lets the
 * command listen anywhere and reach any loopback port (outbound stays "localhost", as a
 * "local ip" filter on outbound would match every connection).
 */
static void
network_rules(struct mb *b, int http_port, int socks_port)
{
	const struct settings *s = b->s;
	size_t i;

	plan_macos_line(b, "; network: the proxies on loopback, nothing else");
	if (s->net.allow_local_binding) {
		plan_macos_line(b, "(allow network-bind (local ip \"*:*\"))");
		plan_macos_line(b, "(allow network-inbound (local ip \"*:*\"))");
		plan_macos_line(b, "(allow network-outbound (remote ip \"localhost:*\"))");
	}
	if (s->net.allow_all_unix_sockets) {
		plan_macos_line(b, "(allow system-socket (socket-domain AF_UNIX))");
		plan_macos_line(
		    b, "(allow network-bind (local unix-socket (path-regex #\"^/\")))");
		plan_macos_line(
		    b, "(allow network-outbound (remote unix-socket (path-regex #\"^/\")))");
	} else if (s->net.allow_unix_sockets.n > 0) {
		plan_macos_line(b, "(allow system-socket (socket-domain AF_UNIX))");
		for (i = 0; i < s->net.allow_unix_sockets.n; i++) {
			char *p = plan_macos_normalize_for_sandbox(
			    b, s->net.allow_unix_sockets.v[i], false);
			char *q = plan_macos_json_quote(p);

			strlist_pushf(&b->lines,
			    "(allow network-bind (local unix-socket (subpath %s)))", q);
			strlist_pushf(&b->lines,
			    "(allow network-outbound (remote unix-socket (subpath %s)))", q);
			free(q);
			free(p);
		}
	}
	port_rules(b, http_port);
	if (socks_port != http_port)
		port_rules(b, socks_port);
	plan_macos_line(b, "");
}

static void
pty_rules(struct mb *b)
{
	plan_macos_line(b, "");
	plan_macos_line(b, "; allowPty: pseudo-terminals");
	plan_macos_line(b, "(allow pseudo-tty)");
	plan_macos_line(b, "(allow file-ioctl");
	plan_macos_line(b, "  (literal \"/dev/ptmx\")");
	plan_macos_line(b, "  (regex #\"^/dev/ttys\")");
	plan_macos_line(b, ")");
	plan_macos_line(b, "(allow file-read* file-write*");
	plan_macos_line(b, "  (literal \"/dev/ptmx\")");
	plan_macos_line(b, "  (regex #\"^/dev/ttys\")");
	plan_macos_line(b, ")");
}

/* Whether p lies in one of the write roots (a name's subtree, or a glob's matches). */
static bool
in_write_root(const struct ments *roots, const char *p)
{
	size_t i;

	for (i = 0; i < roots->n; i++)
		if (roots->v[i].glob ? plan_macos_entry_matches(&roots->v[i], p, false)
				     : path_is_under(p, roots->v[i].path))
			return true;
	return false;
}

static void
filesystem_rules(struct mb *b, const struct plan_ctx *ctx)
{
	const struct settings *s = b->s;
	struct readcfg rc;
	struct strlist allow_spelled = { 0 }, allow_literal = { 0 };
	struct strlist deny_spelled = { 0 }, deny_literal = { 0 };
	struct strlist rd_spelled = { 0 }, rd_literal = { 0 };
	struct strlist ra_spelled = { 0 }, ra_literal = { 0 };
	struct strlist cr_spelled = { 0 }, none = { 0 };
	size_t i;

	memset(&rc, 0, sizeof(rc));
	if (s->fs.disabled) {
		plan_macos_line(b, "; filesystem: not restricted");
		plan_macos_line(b, "(allow file-read*)");
		plan_macos_line(b, "");
		plan_macos_line(b, "(allow file-write*)");
		return;
	}
	/* The write roots: the defaults, then allowWrite; srt's private TMPDIR. */
	for (i = 0; i < nitems(own_write_paths); i++)
		strlist_push(&allow_spelled, own_write_paths[i]);
	home_write_paths(b, &allow_spelled);
	split_list(&s->fs.allow_write, false, &allow_spelled, &allow_literal);
	if (ctx->tmpdir != NULL)
		strlist_push(&allow_literal, ctx->tmpdir);
	split_list(&s->fs.deny_write, false, &deny_spelled, &deny_literal);
	plan_macos_caller_entries(b, K_ALLOW, &allow_spelled, &allow_literal, &rc.write_roots);
	/* srt keeps its settings file read-only where the command could write it. */
	if (ctx->settings_path != NULL && in_write_root(&rc.write_roots, ctx->settings_path))
		strlist_push(&deny_literal, ctx->settings_path);
	if (ctx->managed_path != NULL && in_write_root(&rc.write_roots, ctx->managed_path))
		strlist_push(&deny_literal, ctx->managed_path);

	split_list(&s->fs.deny_read, true, &rd_spelled, &rd_literal);
	split_list(&s->fs.allow_read, true, &ra_spelled, &ra_literal);
	/* The credentials files, last and apart; a denyRead spelling that is also one is
	 * taken as the credentials file only. */
	split_list(&s->cred.deny_files, true, &cr_spelled, &none);
	for (i = rd_spelled.n; i-- > 0;)
		if (strlist_contains(&cr_spelled, rd_spelled.v[i])) {
			free(rd_spelled.v[i]);
			memmove(&rd_spelled.v[i], &rd_spelled.v[i + 1],
			    (rd_spelled.n - i - 1) * sizeof(*rd_spelled.v));
			rd_spelled.v[--rd_spelled.n] = NULL;
		}
	{
		struct ments tmp = { 0 };

		plan_macos_caller_entries(b, K_DENY, &rd_spelled, &rd_literal, &tmp);
		for (i = 0; i < tmp.n; i++)
			plan_macos_in_both_spellings(b, K_DENY, &tmp.v[i], &rc.denies);
		plan_macos_ments_free(&tmp);
		rc.cred_from = rc.denies.n;
		plan_macos_caller_entries(b, K_DENY, &cr_spelled, &none, &tmp);
		for (i = 0; i < tmp.n; i++)
			plan_macos_in_both_spellings(b, K_DENY, &tmp.v[i], &rc.denies);
		plan_macos_ments_free(&tmp);
		plan_macos_caller_entries(b, K_ALLOW, &ra_spelled, &ra_literal, &tmp);
		for (i = 0; i < tmp.n; i++)
			plan_macos_in_both_spellings(b, K_ALLOW, &tmp.v[i], &rc.allows);
		plan_macos_ments_free(&tmp);
	}
	plan_macos_line(b, "; filesystem reads");
	plan_macos_read_rules(b, &rc);
	plan_macos_line(b, "");
	plan_macos_line(b, "; filesystem writes");
	plan_macos_write_rules(b, &rc, &deny_spelled, &deny_literal, s->fs.allow_git_config);
	plan_macos_read_deny_unlink_rules(b, &rc);

	plan_macos_ments_free(&rc.denies);
	plan_macos_ments_free(&rc.allows);
	plan_macos_ments_free(&rc.write_roots);
	strlist_free(&allow_spelled);
	strlist_free(&allow_literal);
	strlist_free(&deny_spelled);
	strlist_free(&deny_literal);
	strlist_free(&rd_spelled);
	strlist_free(&rd_literal);
	strlist_free(&ra_spelled);
	strlist_free(&ra_literal);
	strlist_free(&cr_spelled);
}

static bool
tag_ok(const char *t)
{
	if (*t == '\0')
		return false;
	for (; *t != '\0'; t++)
		if (!((*t >= 'A' && *t <= 'Z') || (*t >= 'a' && *t <= 'z') ||
			(*t >= '0' && *t <= '9') || *t == '_' || *t == '-' || *t == '.'))
			return false;
	return true;
}

int
plan_macos_build(const struct settings *s, const struct plan_ctx *ctx,
    const struct plan_macos_opts *o, char **profile, struct diags *errs)
{
	struct mb b;
	size_t i, len = 1;
	int http_port, socks_port;
	char *out;

	*profile = NULL;
	if (ctx->cwd == NULL || ctx->cwd[0] != '/' || ctx->home == NULL ||
	    ctx->home[0] != '/') {
		diags_add(errs, "the macOS profile needs an absolute cwd and home directory");
		return -1;
	}
	if (o->log_tag == NULL || !tag_ok(o->log_tag)) {
		diags_add(errs, "the log tag must be made of letters, digits, '_', '-', '.'");
		return -1;
	}
	http_port = s->net.http_proxy_port != 0 ? s->net.http_proxy_port : o->http_port;
	socks_port = s->net.socks_proxy_port != 0 ? s->net.socks_proxy_port : o->socks_port;
	if (http_port < 1 || http_port > 65535 || socks_port < 1 || socks_port > 65535) {
		diags_add(errs, "proxy ports must be 1-65535 (http %d, socks %d)", http_port,
		    socks_port);
		return -1;
	}
	memset(&b, 0, sizeof(b));
	b.s = s;
	b.cwd = ctx->cwd;
	b.home = ctx->home;
	b.tag = plan_macos_json_quote(o->log_tag);

	plan_macos_line(&b, "(version 1)");
	static_rules(&b);
	plan_macos_line(&b, "");
	option_rules(&b);
	system_rules(&b);
	network_rules(&b, http_port, socks_port);
	filesystem_rules(&b, ctx);
	if (s->allow_pty)
		pty_rules(&b);

	for (i = 0; i < b.lines.n; i++)
		len += strlen(b.lines.v[i]) + 1;
	out = xmalloc(len);
	for (len = 0, i = 0; i < b.lines.n; i++) {
		size_t n = strlen(b.lines.v[i]);

		memcpy(out + len, b.lines.v[i], n);
		len += n;
		out[len++] = '\n';
	}
	out[len] = '\0';
	strlist_free(&b.lines);
	free(b.tag);
	*profile = out;
	return 0;
}
