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
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "globre.h"
#include "path.h"
#include "plan.h"
#include "util.h"

#define STRING_MAX      900     /* bytes of one regex inside a profile string: sandbox-exec
                                   refuses string literals over 1025 */
#define MIN_GROUP       4       /* fewer names than this are not worth one regex */

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

enum kind { K_ALLOW, K_DENY };

static const char *const dangerous_files[] = {
	".gitconfig", ".gitmodules", ".bashrc", ".bash_profile", ".zshrc", ".zprofile",
	".profile", ".ripgreprc", ".mcp.json",
};
static const char *const dangerous_dirs[] = {
	".vscode", ".idea", ".claude/commands", ".claude/agents",
};
/* Writable whatever the settings say: the command's own streams and devices, and the
 * TMPDIR the reference hands out. */
static const char *const own_write_paths[] = {
	"/dev/stdout", "/dev/stderr", "/dev/null", "/dev/tty", "/dev/dtracehelper",
	"/dev/autofs_nowait", "/tmp/claude", "/private/tmp/claude",
};
/* Writable under the home directory unless a read deny covers them. */
static const char *const home_write_dirs[] = { ".npm/_logs", ".claude/debug" };

static const char *const mach_services[] = {
	"com.apple.audio.systemsoundserver", "com.apple.distributed_notifications@Uv3",
	"com.apple.FontObjectsServer", "com.apple.fonts", "com.apple.logd",
	"com.apple.lsd.mapdb", "com.apple.PowerManagement.control", "com.apple.system.logger",
	"com.apple.system.notification_center", "com.apple.system.opendirectoryd.libinfo",
	"com.apple.system.opendirectoryd.membership", "com.apple.bsd.dirhelper",
	"com.apple.securityd.xpc", "com.apple.coreservices.launchservicesd",
};
static const char *const sysctl_names[] = {
	"hw.activecpu", "hw.busfrequency_compat", "hw.byteorder", "hw.cacheconfig",
	"hw.cachelinesize_compat", "hw.cpufamily", "hw.cpufrequency", "hw.cpufrequency_compat",
	"hw.cputype", "hw.l1dcachesize_compat", "hw.l1icachesize_compat",
	"hw.l2cachesize_compat", "hw.l3cachesize_compat", "hw.logicalcpu",
	"hw.logicalcpu_max", "hw.machine", "hw.memsize", "hw.ncpu", "hw.nperflevels",
	"hw.packages", "hw.pagesize_compat", "hw.pagesize", "hw.physicalcpu",
	"hw.physicalcpu_max", "hw.tbfrequency_compat", "hw.vectorunit", "kern.argmax",
	"kern.bootargs", "kern.hostname", "kern.maxfiles", "kern.maxfilesperproc",
	"kern.maxproc", "kern.ngroups", "kern.osproductversion", "kern.osrelease",
	"kern.ostype", "kern.osvariant_status", "kern.osversion", "kern.secure_kernel",
	"kern.tcsm_available", "kern.tcsm_enable", "kern.usrstack64", "kern.version",
	"kern.willshutdown", "machdep.cpu.brand_string", "machdep.ptrauth_enabled",
	"security.mac.lockdown_mode_state", "sysctl.proc_cputype", "vm.loadavg",
};
static const char *const sysctl_prefixes[] = {
	"hw.optional.arm", "hw.optional.arm.", "hw.optional.armv8_", "hw.perflevel",
	"kern.proc.all", "kern.proc.pgrp.", "kern.proc.pid.", "machdep.cpu.",
	"net.routetable.",
};
static const char *const ioctl_devices[] = {
	"/dev/null", "/dev/zero", "/dev/random", "/dev/urandom", "/dev/dtracehelper",
	"/dev/tty",
};

/* One filesystem entry: a name, or a glob; an anchored glob keeps its anchor (a name on
 * disk, which may hold glob characters of its own) literal in its regex. */
struct ment {
	char *path;
	char *anchor;           /* NULL unless anchored */
	bool glob;
};

struct ments {
	struct ment *v;
	size_t n, cap;
};

struct mb {
	const struct settings *s;
	const char *cwd, *home;
	struct strlist lines;
	char *tag;              /* the log tag, quoted */
};

/* --- entries --------------------------------------------------------------------- */

static void
ments_add(struct ments *l, char *path, char *anchor, bool glob)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = (struct ment){ .path = path, .anchor = anchor, .glob = glob };
}

static void
ments_add_copy(struct ments *l, const struct ment *e)
{
	ments_add(l, xstrdup(e->path), e->anchor ? xstrdup(e->anchor) : NULL, e->glob);
}

static void
ments_free(struct ments *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].anchor);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* An ordered set of strings (filters, paths): kept once, in first-seen order. */
static void
set_add(struct strlist *s, const char *v)
{
	if (!strlist_contains(s, v))
		strlist_push(s, v);
}

static void
set_add_owned(struct strlist *s, char *v)
{
	if (strlist_contains(s, v))
		free(v);
	else
		strlist_push_owned(s, v);
}

/* --- path text, as node's path module spells it ------------------------------------ */

static bool
has_glob(const char *p)
{
	return strpbrk(p, "*?[]") != NULL;
}

/* path.normalize: separators collapsed, "." and ".." folded, a trailing "/" kept. */
static char *
js_normalize(const char *p)
{
	struct strlist parts = { 0 };
	size_t len = strlen(p), i = 0, k, o = 0, total = 2;
	bool abs = p[0] == '/', trail = len > 0 && p[len - 1] == '/';
	char *out;

	if (len == 0)
		return xstrdup(".");
	while (i < len) {
		size_t j;

		while (i < len && p[i] == '/')
			i++;
		for (j = i; j < len && p[j] != '/'; j++)
			;
		if (j == i)
			break;
		if (j - i == 1 && p[i] == '.')
			;
		else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
			if (parts.n > 0 && strcmp(parts.v[parts.n - 1], "..") != 0) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			} else if (!abs)
				strlist_push(&parts, "..");
		} else
			strlist_push_owned(&parts, xstrndup(p + i, j - i));
		i = j;
	}
	for (k = 0; k < parts.n; k++)
		total += strlen(parts.v[k]) + 1;
	out = xmalloc(total + 1);
	if (abs)
		out[o++] = '/';
	for (k = 0; k < parts.n; k++) {
		size_t n = strlen(parts.v[k]);

		if (k > 0)
			out[o++] = '/';
		memcpy(out + o, parts.v[k], n);
		o += n;
	}
	if (o == 0)
		out[o++] = '.';
	if (trail && !(o == 1 && out[0] == '/'))
		out[o++] = '/';
	out[o] = '\0';
	strlist_free(&parts);
	return out;
}

/* path.resolve(cwd, p): absolute, normalised, no trailing "/". */
static char *
js_resolve(const char *cwd, const char *p)
{
	char *joined = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", cwd, p);
	char *n = js_normalize(joined);
	size_t len = strlen(n);

	free(joined);
	if (len > 1 && n[len - 1] == '/')
		n[len - 1] = '\0';
	return n;
}

/* path.join(a, b) */
static char *
js_join(const char *a, const char *b)
{
	char *joined = xasprintf("%s/%s", a, b), *n = js_normalize(joined);

	free(joined);
	return n;
}

/* path.dirname, for absolute paths */
static char *
js_dirname(const char *p)
{
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		len--;
	while (len > 0 && p[len - 1] != '/')
		len--;
	while (len > 1 && p[len - 1] == '/')
		len--;
	if (len == 0)
		return xstrdup(p[0] == '/' ? "/" : ".");
	return xstrndup(p, len);
}

/* path.basename */
static char *
js_basename(const char *p)
{
	size_t len = strlen(p), start;

	while (len > 1 && p[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && p[start - 1] != '/')
		start--;
	if (len == 1 && p[0] == '/')
		return xstrdup("");
	return xstrndup(p + start, len - start);
}

/* The directories above p, nearest first, "/" not among them. */
static void
ancestors(const char *p, struct strlist *out)
{
	char *cur = js_dirname(p);

	while (strcmp(cur, "/") != 0 && strcmp(cur, ".") != 0) {
		char *parent = js_dirname(cur);

		strlist_push(out, cur);
		if (strcmp(parent, cur) == 0) {
			free(parent);
			break;
		}
		free(cur);
		cur = parent;
	}
	free(cur);
}

/* "~" and "~/..." against home; anything else as it is. */
static char *
expand_tilde(const char *p, const char *home)
{
	if (strcmp(p, "~") == 0)
		return xstrdup(home);
	if (strncmp(p, "~/", 2) == 0)
		return xasprintf("%s%s", home, p + 1);
	return xstrdup(p);
}

/* Runs of "/" made one and "/./" made "/", nothing else. */
static char *
collapse_interior(const char *p)
{
	size_t len = strlen(p), i, o = 0;
	char *a = xmalloc(len + 1), *b = xmalloc(len + 1);

	for (i = 0; i < len; i++)
		if (!(p[i] == '/' && o > 0 && a[o - 1] == '/'))
			a[o++] = p[i];
	a[o] = '\0';
	for (i = 0, o = 0; a[i] != '\0';) {
		if (a[i] == '/' && a[i + 1] == '.' && a[i + 2] == '/') {
			i += 2;
			continue;
		}
		b[o++] = a[i++];
	}
	b[o] = '\0';
	free(a);
	return b;
}

/* A trailing "**" component dropped (a directory and all beneath it is the directory);
 * an empty rest is "/". */
static char *
strip_globstar(const char *p)
{
	size_t len = strlen(p);

	if (len >= 3 && strcmp(p + len - 3, "/**") == 0)
		return len == 3 ? xstrdup("/") : xstrndup(p, len - 3);
	return xstrdup(p);
}

static bool
is_absence(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG;
}

/* p with every link resolved, after "." and ".." were folded in its text; NULL when
 * that cannot be done. */
static char *
real_path_of(const struct mb *b, const char *p)
{
	char *folded = js_resolve(b->cwd, p), *r = path_resolve(folded);

	free(folded);
	return r;
}

/* What a name resolves to, or the name itself. */
static char *
resolved_or_same(const struct mb *b, const char *p)
{
	char *r = real_path_of(b, p);

	return r != NULL ? r : xstrdup(p);
}

static bool
starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Whether resolving links took a name somewhere it did not name: anywhere but itself,
 * its /private twin (/tmp, /var) or beneath either. A link to an ancestor, or to a
 * directory of one component, would widen what a rule covers.
 */
static bool
outside_boundary(const char *orig, const char *res)
{
	char *o = js_normalize(orig), *r = js_normalize(res), *canon, *rs = NULL;
	size_t nparts = 0;
	bool out = true;
	const char *c;

	canon = (starts_with(o, "/tmp/") || starts_with(o, "/var/")) ?
	    xasprintf("/private%s", o) : xstrdup(o);
	if (strcmp(r, o) == 0 || (strcmp(canon, o) != 0 && strcmp(r, canon) == 0)) {
		out = false;
		goto done;
	}
	if (strcmp(r, "/") == 0)
		goto done;
	for (c = r; *c != '\0'; c++)
		if (c[0] != '/' && (c == r || c[-1] == '/'))
			nparts++;
	if (nparts <= 1)
		goto done;
	rs = xasprintf("%s/", r);
	if (starts_with(o, rs) || (strcmp(canon, o) != 0 && starts_with(canon, rs)))
		goto done;
	{
		char *os = xasprintf("%s/", o), *cs = xasprintf("%s/", canon);

		out = !(starts_with(r, os) || (strcmp(canon, o) != 0 && starts_with(r, cs)));
		free(os);
		free(cs);
	}
 done:
	free(rs);
	free(canon);
	free(o);
	free(r);
	return out;
}

/*
 * A spelling made absolute: "~" and relative ones expanded, "//" and "/./" collapsed. A
 * name (literal, or a spelling without glob characters) loses a trailing "/" and "/." and
 * is resolved where that stays within what it named; a pattern keeps its spelling, the
 * directory before its first glob character resolved under the same condition.
 */
static char *
normalize_for_sandbox(const struct mb *b, const char *spelling, bool literal)
{
	char *p = xstrdup(spelling), *n, *r;
	size_t len = strlen(p);

	if (len > 0 && p[len - 1] == '/' && !(!literal && has_glob(p))) {
		while (len > 0 && p[len - 1] == '/')
			p[--len] = '\0';
		if (len == 0) {
			free(p);
			p = xstrdup("/");
		}
	}
	n = expand_tilde(p, b->home);
	if (strcmp(n, p) == 0 && p[0] != '/') {
		free(n);
		n = js_resolve(b->cwd, p);
	}
	free(p);
	p = collapse_interior(n);
	free(n);
	n = p;
	if (!literal && has_glob(n)) {
		size_t plen = strcspn(n, "*?[]");
		char *prefix = xstrndup(n, plen), *base;

		if (plen > 0 && strcmp(prefix, "/") != 0) {
			base = prefix[plen - 1] == '/' ? xstrndup(prefix, plen - 1) :
			    js_dirname(prefix);
			if ((r = real_path_of(b, base)) != NULL && !outside_boundary(base, r)) {
				char *out = xasprintf("%s%s", r, n + strlen(base));

				free(r);
				free(base);
				free(prefix);
				free(n);
				return out;
			}
			free(r);
			free(base);
		}
		free(prefix);
		return n;
	}
	if (*n != '\0') {
		len = strlen(n);
		if (len >= 2 && strcmp(n + len - 2, "/.") == 0)
			n[len -= 2] = '\0';
		while (len > 0 && n[len - 1] == '/')
			n[--len] = '\0';
		if (len == 0) {
			free(n);
			n = xstrdup("/");
		}
	}
	if ((r = real_path_of(b, n)) != NULL && !outside_boundary(n, r)) {
		free(n);
		return r;
	}
	free(r);
	return n;
}

/* An entry from a spelling the user wrote: a pattern if it has glob characters. */
static void
add_spelled(const struct mb *b, struct ments *l, const char *spelling)
{
	bool glob = has_glob(spelling);

	ments_add(l, normalize_for_sandbox(b, spelling, !glob), NULL, glob);
}

/* An entry that names one path whatever its characters. */
static void
add_literal(const struct mb *b, struct ments *l, const char *p)
{
	ments_add(l, normalize_for_sandbox(b, p, true), NULL, false);
}

/* --- what the disk says ------------------------------------------------------------ */

/* Something may be at p (for a deny): a link counts, and so does what cannot be looked
 * at, or making a parent unsearchable would switch the deny off. */
static bool
may_be_there(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 || !is_absence(errno);
}

/* p is there and not a link (for an allow). */
static bool
there_unlinked(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 && !S_ISLNK(st.st_mode);
}

static bool
directory_for(enum kind k, const char *p)
{
	struct stat st;

	if (k == K_ALLOW)
		return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
	if (stat(p, &st) == 0)
		return S_ISDIR(st.st_mode);
	return !is_absence(errno);
}

/* The spelling split at "/" (empty parts kept), and its prefixes. */
struct parts {
	char **v;
	size_t n;
	const char *s;
};

static char *
parts_prefix(const struct parts *pp, size_t i)
{
	size_t len = 0, k;

	for (k = 0; k <= i; k++)
		len += strlen(pp->v[k]) + (k > 0);
	if (len == 0)
		return xstrdup("/");
	return xstrndup(pp->s, len);
}

/* No component after from, up to to, is a link or beyond looking at. */
static bool
rest_unlinked(const struct parts *pp, size_t from, size_t to)
{
	size_t i;

	for (i = from + 1; i <= to; i++) {
		char *p = parts_prefix(pp, i);
		struct stat st;
		int r = lstat(p, &st), err = errno;

		free(p);
		if (r == 0 && S_ISLNK(st.st_mode))
			return false;
		if (r != 0)
			return is_absence(err);
	}
	return true;
}

/*
 * The readings a spelling with glob characters has beside its pattern: where the
 * components that hold those characters exist on disk as spelled, the name they spell
 * (when all of them do), and the pattern beneath each existing one, the longest first.
 */
static void
literal_readings(const struct mb *b, const char *spelling, enum kind k, struct ments *out)
{
	char *stripped = strip_globstar(spelling), *expanded, *abs, *spelled, *copy, *tok;
	struct parts pp = { 0 };
	size_t *glob_at, nglob = 0, i, first, last;
	long reach;
	const char *set_aside;

	if (!has_glob(stripped)) {
		free(stripped);
		return;
	}
	expanded = expand_tilde(stripped, b->home);
	abs = strcmp(expanded, stripped) == 0 && stripped[0] != '/' ?
	    js_resolve(b->cwd, stripped) : xstrdup(expanded);
	spelled = collapse_interior(abs);
	free(expanded);
	free(abs);

	copy = xstrdup(spelled);
	pp.s = spelled;
	pp.v = xreallocarray(NULL, strlen(spelled) + 2, sizeof(char *));
	for (tok = copy;; ) {
		char *slash = strchr(tok, '/');

		if (slash != NULL)
			*slash = '\0';
		pp.v[pp.n++] = tok;
		if (slash == NULL)
			break;
		tok = slash + 1;
	}
	glob_at = xreallocarray(NULL, pp.n, sizeof(*glob_at));
	for (i = 0; i < pp.n; i++)
		if (has_glob(pp.v[i]))
			glob_at[nglob++] = i;
	if (nglob == 0)
		goto out;
	first = glob_at[0];
	last = glob_at[nglob - 1];
	reach = (long)first - 1;
	while (reach < (long)last) {
		char *p = parts_prefix(&pp, (size_t)(reach + 1));
		bool there = k == K_DENY ? may_be_there(p) : there_unlinked(p);

		free(p);
		if (!there)
			break;
		reach++;
	}
	if (reach < (long)first)
		goto out;
	if (reach == (long)last && (k == K_DENY || rest_unlinked(&pp, last, pp.n - 1)))
		add_literal(b, out, stripped);
	set_aside = strcmp(stripped, spelling) == 0 ? "" : "/**";
	for (i = nglob - 1; i-- > 0; ) {
		size_t at = glob_at[i], next = glob_at[i + 1];
		long end;
		char *pre, *anchor;

		if ((long)at > reach)
			continue;
		end = (long)next - 1 < reach ? (long)next - 1 : reach;
		while (end >= (long)at) {
			char *p = parts_prefix(&pp, (size_t)end);
			bool dir = directory_for(k, p);

			free(p);
			if (dir)
				break;
			end--;
		}
		if (end < (long)at)
			continue;
		if (k == K_ALLOW && !rest_unlinked(&pp, (size_t)end, next - 1))
			continue;
		pre = parts_prefix(&pp, (size_t)end);
		anchor = normalize_for_sandbox(b, pre, true);
		ments_add(out, xasprintf("%s%s%s", anchor, spelled + strlen(pre), set_aside),
		    xstrdup(anchor), true);
		free(anchor);
		free(pre);
	}
 out:
	free(glob_at);
	free(pp.v);
	free(copy);
	free(spelled);
	free(stripped);
}

/* A user's list as entries: each spelling, then the other readings of each, then the
 * entries marked literal. */
static void
caller_entries(const struct mb *b, enum kind k, const struct strlist *spelled,
    const struct strlist *literal, struct ments *out)
{
	size_t i;

	for (i = 0; i < spelled->n; i++)
		add_spelled(b, out, spelled->v[i]);
	for (i = 0; i < spelled->n; i++)
		literal_readings(b, spelled->v[i], k, out);
	for (i = 0; literal != NULL && i < literal->n; i++)
		add_literal(b, out, literal->v[i]);
}

/* The directory a glob cannot match above: its static prefix's. */
static char *
glob_base_dir(const char *g)
{
	size_t plen = strcspn(g, "*?[]");
	char *prefix, *base;

	if (plen == 0 || (plen == 1 && g[0] == '/'))
		return xstrdup("/");
	prefix = xstrndup(g, plen);
	base = prefix[plen - 1] == '/' ? xstrndup(prefix, plen - 1) : js_dirname(prefix);
	free(prefix);
	return base;
}

static char *
entry_base_dir(const struct ment *e)
{
	if (!e->glob)
		return xstrdup(e->path);
	return e->anchor != NULL ? xstrdup(e->anchor) : glob_base_dir(e->path);
}

/*
 * A read rule under both spellings of its path: as written, and with links resolved (a
 * deny to its end; an allow's last component stays the name it is; a pattern's base
 * directory). The root, and anything among the devices, is never a second spelling.
 */
static void
in_both_spellings(const struct mb *b, enum kind k, const struct ment *e, struct ments *out)
{
	char *base = entry_base_dir(e), *canon;

	if (k == K_DENY || e->glob)
		canon = resolved_or_same(b, base);
	else if (strcmp(base, "/") == 0)
		canon = xstrdup("/");
	else {
		char *dir = js_dirname(base), *name = js_basename(base);
		char *parent = resolved_or_same(b, dir);

		canon = xasprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name);
		free(parent);
		free(dir);
		free(name);
	}
	ments_add_copy(out, e);
	if (strcmp(canon, base) != 0 && strcmp(canon, "/") != 0 &&
	    !path_is_under(canon, "/dev")) {
		if (e->glob)
			ments_add(out, xasprintf("%s%s", canon, e->path + strlen(base)),
			    xstrdup(canon), true);
		else
			ments_add(out, xstrdup(canon), NULL, false);
	}
	free(canon);
	free(base);
}

/* --- filters ----------------------------------------------------------------------- */

/* s as a JSON string (quotes included), which is how the profile spells strings. */
static char *
json_quote(const char *s)
{
	size_t len = strlen(s), o = 0;
	char *out = xmalloc(len * 6 + 3);

	out[o++] = '"';
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"':
			out[o++] = '\\';
			out[o++] = '"';
			break;
		case '\\':
			out[o++] = '\\';
			out[o++] = '\\';
			break;
		case '\b':
			out[o++] = '\\';
			out[o++] = 'b';
			break;
		case '\f':
			out[o++] = '\\';
			out[o++] = 'f';
			break;
		case '\n':
			out[o++] = '\\';
			out[o++] = 'n';
			break;
		case '\r':
			out[o++] = '\\';
			out[o++] = 'r';
			break;
		case '\t':
			out[o++] = '\\';
			out[o++] = 't';
			break;
		default:
			if (c < 0x20) {
				static const char hex[] = "0123456789abcdef";

				memcpy(out + o, "\\u00", 4);
				o += 4;
				out[o++] = hex[c >> 4];
				out[o++] = hex[c & 15];
			} else
				out[o++] = (char)c;
		}
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

/* Bytes a fragment takes inside a profile string. */
static size_t
quoted_len(const char *s)
{
	char *q = json_quote(s);
	size_t n = strlen(q) - 2;

	free(q);
	return n;
}

/* The regex of a glob entry, its anchor taken as the literal it is. */
static char *
entry_regex(const struct ment *e, bool subtree)
{
	char *tail, *esc, *out;

	if (e->anchor == NULL)
		return glob_to_regex(e->path, subtree);
	tail = glob_to_regex(e->path + strlen(e->anchor), subtree);
	esc = regex_escape_literal(e->anchor);
	out = xasprintf("^%s%s", esc, tail + 1);
	free(tail);
	free(esc);
	return out;
}

/* Whether that regex matches s. */
static bool
entry_matches(const struct ment *e, const char *s, bool subtree)
{
	if (e->anchor == NULL)
		return glob_regex_match(e->path, s, subtree);
	if (!starts_with(s, e->anchor))
		return false;
	return glob_regex_match(e->path + strlen(e->anchor), s + strlen(e->anchor), subtree);
}

static char *
filter_of(const char *what, const char *value)
{
	char *q = json_quote(value), *f = xasprintf("(%s %s)", what, q);

	free(q);
	return f;
}

/* An allow: the regex of a glob, the subpath of a name. */
static char *
path_filter(const struct ment *e)
{
	char *re, *f;

	if (!e->glob)
		return filter_of("subpath", e->path);
	re = entry_regex(e, false);
	f = filter_of("regex", re);
	free(re);
	return f;
}

/* A deny: a glob's regex takes everything beneath its matches too, as subpath does. */
static char *
deny_filter(const struct ment *e)
{
	char *re, *f;

	if (!e->glob)
		return filter_of("subpath", e->path);
	re = entry_regex(e, true);
	f = filter_of("regex", re);
	free(re);
	return f;
}

/* A path shaped like the ones e matches: each wildcard and set made an "x". */
static char *
sample_path(const struct ment *e)
{
	const char *anchor = e->anchor != NULL ? e->anchor : "", *p;
	size_t alen = strlen(anchor), o;
	char *out;

	if (!e->glob)
		return xstrdup(e->path);
	out = xmalloc(strlen(e->path) + 1);
	memcpy(out, e->path, alen);
	o = alen;
	for (p = e->path + alen; *p != '\0';) {
		const char *close;

		if (*p == '[' && (close = strchr(p + 1, ']')) != NULL) {
			out[o++] = 'x';
			p = close + 1;
		} else if (*p == '*' || *p == '?') {
			out[o++] = 'x';
			while (*p == '*' || *p == '?')
				p++;
		} else
			out[o++] = *p++;
	}
	out[o] = '\0';
	return out;
}

static bool
sample_strictly_under(const struct ment *e, const char *dir)
{
	char *s = sample_path(e);
	bool r = path_is_strictly_under(s, dir);

	free(s);
	return r;
}

static bool
deny_covers(const struct ment *deny, const struct ment *e)
{
	char *s = sample_path(e);
	bool r = entry_matches(deny, s, true);

	free(s);
	return r;
}

/* filter, narrowed so that it no longer matches what the carve-outs match. */
static char *
carve(char *filter, struct strlist *carve_outs)
{
	size_t i, len = strlen(filter) + 16;
	char *out;

	if (carve_outs->n == 0)
		return filter;
	for (i = 0; i < carve_outs->n; i++)
		len += strlen(carve_outs->v[i]) + 16;
	out = xmalloc(len);
	strcpy(out, "(require-all ");
	strcat(out, filter);
	for (i = 0; i < carve_outs->n; i++) {
		strcat(out, " (require-not ");
		strcat(out, carve_outs->v[i]);
		strcat(out, ")");
	}
	strcat(out, ")");
	free(filter);
	return out;
}

/* --- rules --------------------------------------------------------------------------- */

static void
line(struct mb *b, const char *s)
{
	strlist_push(&b->lines, s);
}

/* One rule for every filter, with the log tag; nothing for no filter (a rule without one
 * would match everything). */
static void
rule(struct mb *b, const char *action, const char *ops, const struct strlist *filters)
{
	size_t i;

	if (filters->n == 0)
		return;
	strlist_pushf(&b->lines, "(%s %s", action, ops);
	for (i = 0; i < filters->n; i++)
		strlist_pushf(&b->lines, "  %s", filters->v[i]);
	strlist_pushf(&b->lines, "  (with message %s))", b->tag);
}

static void
add_literal_filter(struct strlist *set, const char *dir)
{
	set_add_owned(set, filter_of("literal", dir));
}

/* Deny moving the entries and the directories above them (a deny must not be escaped by
 * renaming what it names, or a directory on the way to it). */
static void
move_blocking_filters(const struct ments *entries, struct strlist *set)
{
	size_t i, k;

	for (i = 0; i < entries->n; i++) {
		const struct ment *e = &entries->v[i];
		struct strlist anc = { 0 };
		char *base = entry_base_dir(e);

		set_add_owned(set, deny_filter(e));
		if (e->glob) {
			if (strcmp(base, "/") == 0) {
				free(base);
				continue;
			}
			add_literal_filter(set, base);
		}
		ancestors(base, &anc);
		for (k = 0; k < anc.n; k++)
			add_literal_filter(set, anc.v[k]);
		strlist_free(&anc);
		free(base);
	}
}

struct readcfg {
	struct ments denies, allows, write_roots;
};

/*
 * The denies the allowRead block would re-open (the last rule wins): a name below a
 * name that is allowed, as it is; every glob, less the allows it covers. Only denies.
 */
static void
late_read_denies(const struct readcfg *rc, struct strlist *set, bool *covers_root)
{
	size_t i, j;

	*covers_root = false;
	for (i = 0; i < rc->denies.n; i++) {
		const struct ment *d = &rc->denies.v[i];
		struct strlist outs = { 0 };

		if (!d->glob) {
			for (j = 0; j < rc->allows.n; j++)
				if (!rc->allows.v[j].glob &&
				    path_is_strictly_under(d->path, rc->allows.v[j].path))
					break;
			if (j < rc->allows.n)
				set_add_owned(set, deny_filter(d));
			continue;
		}
		if (entry_matches(d, "/", true))
			*covers_root = true;
		for (j = 0; j < rc->allows.n; j++)
			if (deny_covers(d, &rc->allows.v[j]))
				set_add_owned(&outs, path_filter(&rc->allows.v[j]));
		set_add_owned(set, carve(deny_filter(d), &outs));
		strlist_free(&outs);
	}
}

static void
read_rules(struct mb *b, const struct readcfg *rc)
{
	struct strlist set = { 0 };
	bool denies_root = false, covers_root;
	size_t i;

	line(b, "(allow file-read*)");
	for (i = 0; i < rc->denies.n; i++) {
		if (strcmp(rc->denies.v[i].path, "/") == 0)
			denies_root = true;
		set_add_owned(&set, deny_filter(&rc->denies.v[i]));
	}
	rule(b, "deny", "file-read*", &set);
	strlist_free(&set);

	for (i = 0; i < rc->allows.n; i++)
		set_add_owned(&set, path_filter(&rc->allows.v[i]));
	rule(b, "allow", "file-read*", &set);
	strlist_free(&set);

	late_read_denies(rc, &set, &covers_root);
	rule(b, "deny", "file-read*", &set);
	strlist_free(&set);

	/* A deny of "/" itself would stop the loader before the command runs: the root's
	 * own entry (its names, not what is beneath them) stays readable. */
	if (denies_root || covers_root)
		line(b, "(allow file-read* (literal \"/\"))");
	/* realpath() needs to stat every directory on the way to an allowed path. */
	if (rc->denies.n > 0) {
		line(b, "(allow file-read-metadata");
		line(b, "  (vnode-type DIRECTORY))");
	}
	move_blocking_filters(&rc->denies, &set);
	rule(b, "deny", "file-write-unlink file-write-create", &set);
	strlist_free(&set);

	/* The moves denied above would also stop rm inside the write roots, since a
	 * specific deny beats a later file-write*: they are allowed there again (and the
	 * read-denied paths in write roots denied once more at the end). */
	for (i = 0; i < rc->write_roots.n; i++)
		set_add_owned(&set, path_filter(&rc->write_roots.v[i]));
	rule(b, "allow", "file-write-unlink file-write-create", &set);
	strlist_free(&set);
}

/* Read-denied paths inside write roots, and their directories there, kept in place. */
static void
read_deny_unlink_rules(struct mb *b, const struct readcfg *rc)
{
	struct strlist set = { 0 };
	const struct ments *w = &rc->write_roots;
	size_t i, j, k;
	bool any_glob_root = false;

	if (w->n == 0)
		return;
	for (j = 0; j < w->n; j++)
		if (w->v[j].glob)
			any_glob_root = true;
	for (i = 0; i < rc->denies.n; i++) {
		const struct ment *d = &rc->denies.v[i];
		struct strlist outs = { 0 }, dirs = { 0 };

		if (d->glob) {
			char *base = entry_base_dir(d);
			bool meets = any_glob_root;

			for (j = 0; !meets && j < w->n; j++) {
				const char *r = w->v[j].path;

				if (!w->v[j].glob && (strcmp(base, r) == 0 ||
				    path_is_strictly_under(base, r) ||
				    path_is_strictly_under(r, base)))
					meets = true;
			}
			if (!meets) {
				free(base);
				continue;
			}
			for (j = 0; j < rc->allows.n; j++)
				if (deny_covers(d, &rc->allows.v[j]))
					set_add_owned(&outs, path_filter(&rc->allows.v[j]));
			for (j = 0; j < w->n; j++)
				if (deny_covers(d, &w->v[j]))
					set_add_owned(&outs, path_filter(&w->v[j]));
			set_add_owned(&set, carve(deny_filter(d), &outs));
			if (strcmp(base, "/") != 0) {
				strlist_push(&dirs, base);
				ancestors(base, &dirs);
			}
			free(base);
		} else {
			bool below = false;

			for (j = 0; !below && j < w->n; j++)
				below = w->v[j].glob ? entry_matches(&w->v[j], d->path, false) :
				    path_is_strictly_under(d->path, w->v[j].path);
			if (!below)
				continue;
			for (j = 0; j < rc->allows.n; j++)
				if (sample_strictly_under(&rc->allows.v[j], d->path))
					set_add_owned(&outs, path_filter(&rc->allows.v[j]));
			for (j = 0; j < w->n; j++)
				if (sample_strictly_under(&w->v[j], d->path))
					set_add_owned(&outs, path_filter(&w->v[j]));
			set_add_owned(&set, carve(deny_filter(d), &outs));
			ancestors(d->path, &dirs);
		}
		for (k = 0; k < dirs.n; k++) {
			bool below = false;

			for (j = 0; !below && j < w->n; j++)
				below = w->v[j].glob ? entry_matches(&w->v[j], dirs.v[k], false) :
				    path_is_strictly_under(dirs.v[k], w->v[j].path);
			if (below)
				add_literal_filter(&set, dirs.v[k]);
		}
		strlist_free(&dirs);
		strlist_free(&outs);
	}
	if (set.n > 0) {
		line(b, "");
		line(b, "; read-denied paths inside write roots stay where they are");
		rule(b, "deny", "file-write-unlink", &set);
	}
	strlist_free(&set);
}

/*
 * Literal denies that share a shape, DIR/NAME/LEAF for four or more NAMEs with the same
 * LEAFs, folded into one regex per chunk of names: sandbox-exec compiles thousands of
 * path filters slowly, a few regexes fast.
 */
struct group {
	char *dir;
	struct strlist names, leaves;   /* leaves sorted */
};

struct dir_names {
	char *dir;
	struct strlist names;
	struct strlist *leaves;         /* one set per name */
};

static char *
group_prefix(const struct group *g)
{
	char *esc = regex_escape_literal(g->dir), *s = xasprintf("^%s/(", esc);

	free(esc);
	return s;
}

static char *
group_tail(const struct group *g)
{
	struct strlist parts = { 0 };
	size_t i, len = 16;
	char *s;

	for (i = 0; i < g->leaves.n; i++) {
		strlist_push_owned(&parts, regex_escape_literal(g->leaves.v[i]));
		len += strlen(parts.v[i]) + 1;
	}
	s = xmalloc(len);
	strcpy(s, ")/(");
	for (i = 0; i < parts.n; i++) {
		if (i > 0)
			strcat(s, "|");
		strcat(s, parts.v[i]);
	}
	strcat(s, ")(/.*)?$");
	strlist_free(&parts);
	return s;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
same_list(const struct strlist *a, const struct strlist *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

static void
group_literal_denies(const struct ments *entries, struct group **gout, size_t *ngout,
    struct strlist *grouped)
{
	struct dir_names *dn = NULL;
	struct group *groups = NULL;
	size_t ndn = 0, ng = 0, kept_groups = 0, i, j, k;

	for (i = 0; i < entries->n; i++) {
		const struct ment *e = &entries->v[i];
		char *parent, *dir, *name, *leaf;
		size_t at;

		if (e->glob)
			continue;
		parent = js_dirname(e->path);
		dir = js_dirname(parent);
		if (strcmp(dir, parent) == 0 || strcmp(parent, e->path) == 0 ||
		    strcmp(dir, "/") == 0) {
			free(parent);
			free(dir);
			continue;
		}
		for (j = 0; j < ndn && strcmp(dn[j].dir, dir) != 0; j++)
			;
		if (j == ndn) {
			dn = xreallocarray(dn, ndn + 1, sizeof(*dn));
			memset(&dn[ndn], 0, sizeof(*dn));
			dn[ndn++].dir = xstrdup(dir);
		}
		name = js_basename(parent);
		for (at = 0; at < dn[j].names.n && strcmp(dn[j].names.v[at], name) != 0; at++)
			;
		if (at == dn[j].names.n) {
			strlist_push(&dn[j].names, name);
			dn[j].leaves = xreallocarray(dn[j].leaves, dn[j].names.n,
			    sizeof(*dn[j].leaves));
			memset(&dn[j].leaves[at], 0, sizeof(dn[j].leaves[at]));
		}
		leaf = js_basename(e->path);
		set_add_owned(&dn[j].leaves[at], leaf);
		free(name);
		free(parent);
		free(dir);
	}
	for (i = 0; i < ndn; i++) {
		size_t first = ng;

		for (k = 0; k < dn[i].names.n; k++) {
			struct strlist *lv = &dn[i].leaves[k];

			qsort(lv->v, lv->n, sizeof(char *), cmp_str);
			for (j = first; j < ng && !same_list(&groups[j].leaves, lv); j++)
				;
			if (j == ng) {
				groups = xreallocarray(groups, ng + 1, sizeof(*groups));
				memset(&groups[ng], 0, sizeof(*groups));
				groups[ng].dir = xstrdup(dn[i].dir);
				for (size_t m = 0; m < lv->n; m++)
					strlist_push(&groups[ng].leaves, lv->v[m]);
				ng++;
			}
			strlist_push(&groups[j].names, dn[i].names.v[k]);
		}
	}
	/* Names too long for one regex stay filters of their own; so do groups too small. */
	for (i = 0; i < ng; i++) {
		struct group *g = &groups[i];
		char *pre = group_prefix(g), *tail = group_tail(g);
		size_t fixed = quoted_len(pre) + quoted_len(tail);
		struct strlist kept = { 0 };

		for (j = 0; j < g->names.n; j++) {
			char *esc = regex_escape_literal(g->names.v[j]);

			if (fixed + quoted_len(esc) <= STRING_MAX)
				strlist_push(&kept, g->names.v[j]);
			free(esc);
		}
		free(pre);
		free(tail);
		strlist_free(&g->names);
		g->names = kept;
		if (g->names.n < MIN_GROUP) {
			free(g->dir);
			strlist_free(&g->names);
			strlist_free(&g->leaves);
			continue;
		}
		for (j = 0; j < g->names.n; j++)
			for (size_t m = 0; m < g->leaves.n; m++) {
				char *a = js_join(g->dir, g->names.v[j]);

				set_add_owned(grouped, js_join(a, g->leaves.v[m]));
				free(a);
			}
		groups[kept_groups++] = *g;
	}
	for (i = 0; i < ndn; i++) {
		for (k = 0; k < dn[i].names.n; k++)
			strlist_free(&dn[i].leaves[k]);
		free(dn[i].leaves);
		strlist_free(&dn[i].names);
		free(dn[i].dir);
	}
	free(dn);
	*gout = groups;
	*ngout = kept_groups;
}

/* A group's filters: the denies (each DIR/NAME/LEAF and beneath) and the pins (each
 * DIR/NAME itself), chunked so that no string is too long. */
static void
group_filters(const struct group *g, struct strlist *deny, struct strlist *pins)
{
	char *pre = group_prefix(g), *tail = group_tail(g);
	size_t fixed = quoted_len(pre) + quoted_len(tail), chunk_len = 0, i, start = 0;
	struct strlist esc = { 0 };

	for (i = 0; i < g->names.n; i++)
		strlist_push_owned(&esc, regex_escape_literal(g->names.v[i]));
	for (i = 0; i <= esc.n; i++) {
		size_t nlen = i < esc.n ? quoted_len(esc.v[i]) + (i > start) : 0;

		if (i == esc.n || (i > start && fixed + chunk_len + nlen > STRING_MAX)) {
			size_t len = 1, m;
			char *alt, *re;

			for (m = start; m < i; m++)
				len += strlen(esc.v[m]) + 1;
			alt = xmalloc(len);
			alt[0] = '\0';
			for (m = start; m < i; m++) {
				if (m > start)
					strcat(alt, "|");
				strcat(alt, esc.v[m]);
			}
			re = xasprintf("%s%s%s", pre, alt, tail);
			strlist_push_owned(deny, filter_of("regex", re));
			free(re);
			re = xasprintf("%s%s)$", pre, alt);
			strlist_push_owned(pins, filter_of("regex", re));
			free(re);
			free(alt);
			if (i == esc.n)
				break;
			start = i;
			chunk_len = 0;
			nlen = quoted_len(esc.v[i]);
		}
		chunk_len += i == start ? quoted_len(esc.v[i]) : nlen;
	}
	strlist_free(&esc);
	free(pre);
	free(tail);
}

/* The mandatory denies: each name in the cwd, and the same name at any depth below. */
static void
mandatory_denies(const struct mb *b, bool allow_git_config, struct ments *out)
{
	char *cwd = normalize_for_sandbox(b, b->cwd, true);
	struct strlist rel = { 0 }, pat = { 0 };
	size_t i;

	for (i = 0; i < nitems(dangerous_files); i++) {
		strlist_push(&rel, dangerous_files[i]);
		strlist_pushf(&pat, "**/%s", dangerous_files[i]);
	}
	for (i = 0; i < nitems(dangerous_dirs); i++) {
		strlist_push(&rel, dangerous_dirs[i]);
		strlist_pushf(&pat, "**/%s/**", dangerous_dirs[i]);
	}
	strlist_push(&rel, ".git/hooks");
	strlist_push(&pat, "**/.git/hooks/**");
	if (!allow_git_config) {
		strlist_push(&rel, ".git/config");
		strlist_push(&pat, "**/.git/config");
	}
	for (i = 0; i < rel.n; i++) {
		char *p = js_resolve(cwd, rel.v[i]);

		add_literal(b, out, p);
		free(p);
		ments_add(out, js_join(cwd, pat.v[i]), xstrdup(cwd), true);
	}
	strlist_free(&rel);
	strlist_free(&pat);
	free(cwd);
}

static void
write_rules(struct mb *b, const struct readcfg *rc, const struct strlist *deny_spelled,
    const struct strlist *deny_literal, bool allow_git_config)
{
	struct ments denies = { 0 }, rest = { 0 };
	struct strlist set = { 0 }, grouped = { 0 }, pins = { 0 };
	struct group *groups;
	size_t ng, i, k;

	for (i = 0; i < rc->write_roots.n; i++)
		set_add_owned(&set, path_filter(&rc->write_roots.v[i]));
	rule(b, "allow", "file-write*", &set);
	strlist_free(&set);

	for (i = 0; i < deny_spelled->n; i++)
		add_spelled(b, &denies, deny_spelled->v[i]);
	for (i = 0; i < deny_literal->n; i++)
		add_literal(b, &denies, deny_literal->v[i]);
	mandatory_denies(b, allow_git_config, &denies);
	for (i = 0; i < deny_spelled->n; i++)
		literal_readings(b, deny_spelled->v[i], K_DENY, &denies);

	group_literal_denies(&denies, &groups, &ng, &grouped);
	for (i = 0; i < denies.n; i++)
		if (!strlist_contains(&grouped, denies.v[i].path))
			ments_add_copy(&rest, &denies.v[i]);
	for (i = 0; i < ng; i++) {
		struct strlist d = { 0 }, p = { 0 };

		group_filters(&groups[i], &d, &p);
		for (k = 0; k < d.n; k++)
			set_add(&set, d.v[k]);
		for (k = 0; k < p.n; k++)
			strlist_push(&pins, p.v[k]);
		strlist_free(&d);
		strlist_free(&p);
	}
	for (i = 0; i < rest.n; i++)
		set_add_owned(&set, deny_filter(&rest.v[i]));
	rule(b, "deny", "file-write*", &set);
	strlist_free(&set);

	move_blocking_filters(&rest, &set);
	for (i = 0; i < ng; i++) {
		struct strlist d = { 0 }, p = { 0 }, anc = { 0 };

		group_filters(&groups[i], &d, &p);
		for (k = 0; k < d.n; k++)
			set_add(&set, d.v[k]);
		for (k = 0; k < p.n; k++)
			set_add(&set, p.v[k]);
		add_literal_filter(&set, groups[i].dir);
		ancestors(groups[i].dir, &anc);
		for (k = 0; k < anc.n; k++)
			add_literal_filter(&set, anc.v[k]);
		strlist_free(&anc);
		strlist_free(&d);
		strlist_free(&p);
	}
	rule(b, "deny", "file-write-unlink file-write-create", &set);
	strlist_free(&set);

	for (i = 0; i < ng; i++) {
		free(groups[i].dir);
		strlist_free(&groups[i].names);
		strlist_free(&groups[i].leaves);
	}
	free(groups);
	strlist_free(&pins);
	strlist_free(&grouped);
	ments_free(&denies);
	ments_free(&rest);
}

/* --- the settings' lists ------------------------------------------------------------ */

/* A list's spellings (a trailing "**" component dropped, once each when dedup) and its
 * marked entries. */
static void
split_list(const struct path_list *l, bool dedup, struct strlist *spelled,
    struct strlist *literal)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].literal) {
			strlist_push(literal, l->v[i].path);
			continue;
		}
		if (dedup)
			set_add_owned(spelled, strip_globstar(l->v[i].path));
		else
			strlist_push_owned(spelled, strip_globstar(l->v[i].path));
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
		return (struct cover){ normalize_for_sandbox(b, p, true), false };
	stripped = strip_globstar(p);
	if (has_glob(stripped)) {
		c.rule = normalize_for_sandbox(b, stripped, false);
		c.glob = true;
	} else {
		c.rule = normalize_for_sandbox(b, stripped, true);
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
 * beneath the covering deny re-opens.
 */
static void
home_write_paths(const struct mb *b, struct strlist *out)
{
	const struct path_list *dr = &b->s->fs.deny_read, *ar = &b->s->fs.allow_read;
	struct cover *cv = NULL;
	struct strlist homes = { 0 }, reopened = { 0 };
	size_t ncv = 0, i, j, h, r;

	for (i = 0; i < dr->n; i++) {
		struct ments names = { 0 };

		cv = xreallocarray(cv, ncv + 1, sizeof(*cv));
		cv[ncv++] = cover_of(b, dr->v[i].path, dr->v[i].literal);
		if (dr->v[i].literal)
			continue;
		literal_readings(b, dr->v[i].path, K_DENY, &names);
		for (j = 0; j < names.n; j++)
			if (!names.v[j].glob) {
				cv = xreallocarray(cv, ncv + 1, sizeof(*cv));
				cv[ncv++] = cover_of(b, names.v[j].path, true);
			}
		ments_free(&names);
	}
	for (i = 0; i < ar->n; i++) {
		struct ments names = { 0 };
		char *stripped;

		if (ar->v[i].literal) {
			strlist_push_owned(&reopened,
			    normalize_for_sandbox(b, ar->v[i].path, true));
			continue;
		}
		stripped = strip_globstar(ar->v[i].path);
		if (!has_glob(stripped))
			strlist_push_owned(&reopened, normalize_for_sandbox(b, stripped, true));
		free(stripped);
		literal_readings(b, ar->v[i].path, K_ALLOW, &names);
		for (j = 0; j < names.n; j++)
			if (!names.v[j].glob)
				strlist_push_owned(&reopened,
				    normalize_for_sandbox(b, names.v[j].path, true));
		ments_free(&names);
	}
	set_add(&homes, b->home);
	set_add_owned(&homes, normalize_for_sandbox(b, b->home, true));
	for (i = 0; i < nitems(home_write_dirs); i++) {
		struct strlist sp = { 0 };
		bool denied = false;

		for (h = 0; h < homes.n; h++)
			strlist_push_owned(&sp, js_join(homes.v[h], home_write_dirs[i]));
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
		if (!denied)
			strlist_push_owned(out, js_join(b->home, home_write_dirs[i]));
		strlist_free(&sp);
	}
	for (i = 0; i < ncv; i++)
		free(cv[i].rule);
	free(cv);
	strlist_free(&homes);
	strlist_free(&reopened);
}

/* --- the profile -------------------------------------------------------------------- */

static void
static_rules(struct mb *b)
{
	size_t i;

	strlist_pushf(&b->lines, "(deny default (with message %s))", b->tag);
	line(b, "");
	line(b, "; processes of this sandbox may run, fork and see each other");
	line(b, "(allow process-exec)");
	line(b, "(allow process-fork)");
	line(b, "(allow process-info* (target same-sandbox))");
	line(b, "(allow signal (target same-sandbox))");
	line(b, "(allow mach-priv-task-port (target same-sandbox))");
	line(b, "(allow user-preference-read)");
	line(b, "");
	line(b, "; the Mach services ordinary programs look up, by name");
	line(b, "(allow mach-lookup");
	for (i = 0; i < nitems(mach_services); i++)
		strlist_pushf(&b->lines, "  (global-name \"%s\")", mach_services[i]);
	line(b, ")");
}

static void
option_rules(struct mb *b)
{
	const struct settings *s = b->s;
	size_t i;

	if (s->weaker_network_isolation) {
		line(b, "; enableWeakerNetworkIsolation: trustd, for TLS certificate checks");
		line(b, "(allow mach-lookup (global-name \"com.apple.trustd.agent\"))");
	}
	if (s->allow_apple_events) {
		line(b, "; allowAppleEvents: Apple Events and Launch Services (open, osascript)");
		line(b, "(allow appleevent-send)");
		line(b, "(allow mach-lookup (global-name \"com.apple.coreservices.appleevents\"))");
		line(b, "(allow lsopen)");
		line(b, "(allow mach-lookup (global-name \"com.apple.CoreServices.coreservicesd\"))");
		line(b, "(allow mach-lookup "
		    "(global-name \"com.apple.coreservices.quarantine-resolver\"))");
	}
	if (s->net.allow_mach_lookup.n > 0) {
		line(b, "; allowMachLookup");
		for (i = 0; i < s->net.allow_mach_lookup.n; i++) {
			const char *name = s->net.allow_mach_lookup.v[i];
			size_t len = strlen(name);
			char *q;

			if (len > 0 && name[len - 1] == '*') {
				char *pre = xstrndup(name, len - 1);

				q = json_quote(pre);
				free(pre);
				strlist_pushf(&b->lines,
				    "(allow mach-lookup (global-name-prefix %s))", q);
			} else {
				q = json_quote(name);
				strlist_pushf(&b->lines, "(allow mach-lookup (global-name %s))", q);
			}
			free(q);
		}
	}
}

static void
system_rules(struct mb *b)
{
	size_t i;

	line(b, "");
	line(b, "; POSIX shared memory and semaphores");
	line(b, "(allow ipc-posix-shm)");
	line(b, "(allow ipc-posix-sem)");
	line(b, "");
	line(b, "; IOKit: two classes, and properties");
	line(b, "(allow iokit-open");
	line(b, "  (iokit-registry-entry-class \"IOSurfaceRootUserClient\")");
	line(b, "  (iokit-registry-entry-class \"RootDomainUserClient\")");
	line(b, "  (iokit-user-client-class \"IOSurfaceSendRight\")");
	line(b, ")");
	line(b, "(allow iokit-get-properties)");
	line(b, "");
	line(b, "; AF_SYSTEM control sockets only (no network)");
	line(b, "(allow system-socket (require-all (socket-domain AF_SYSTEM) "
	    "(socket-protocol 2)))");
	line(b, "");
	line(b, "; sysctls that runtimes read");
	line(b, "(allow sysctl-read");
	for (i = 0; i < nitems(sysctl_names); i++)
		strlist_pushf(&b->lines, "  (sysctl-name \"%s\")", sysctl_names[i]);
	for (i = 0; i < nitems(sysctl_prefixes); i++)
		strlist_pushf(&b->lines, "  (sysctl-name-prefix \"%s\")", sysctl_prefixes[i]);
	line(b, ")");
	line(b, "(allow sysctl-write");
	line(b, "  (sysctl-name \"kern.tcsm_enable\")");
	line(b, ")");
	line(b, "(allow distributed-notification-post)");
	line(b, "(allow mach-lookup (global-name \"com.apple.SecurityServer\"))");
	line(b, "");
	line(b, "; the usual devices");
	for (i = 0; i < nitems(ioctl_devices); i++)
		strlist_pushf(&b->lines, "(allow file-ioctl (literal \"%s\"))",
		    ioctl_devices[i]);
	line(b, "(allow file-ioctl file-read-data file-write-data");
	line(b, "  (require-all");
	line(b, "    (literal \"/dev/null\")");
	line(b, "    (vnode-type CHARACTER-DEVICE)");
	line(b, "  )");
	line(b, ")");
	line(b, "");
}

static void
port_rules(struct mb *b, int port)
{
	strlist_pushf(&b->lines, "(allow network-bind (local ip \"localhost:%d\"))", port);
	strlist_pushf(&b->lines, "(allow network-inbound (local ip \"localhost:%d\"))", port);
	strlist_pushf(&b->lines, "(allow network-outbound (remote ip \"localhost:%d\"))",
	    port);
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

	line(b, "; network: the proxies on loopback, nothing else");
	if (s->net.allow_local_binding) {
		line(b, "(allow network-bind (local ip \"*:*\"))");
		line(b, "(allow network-inbound (local ip \"*:*\"))");
		line(b, "(allow network-outbound (remote ip \"localhost:*\"))");
	}
	if (s->net.allow_all_unix_sockets) {
		line(b, "(allow system-socket (socket-domain AF_UNIX))");
		line(b, "(allow network-bind (local unix-socket (path-regex #\"^/\")))");
		line(b, "(allow network-outbound (remote unix-socket (path-regex #\"^/\")))");
	} else if (s->net.allow_unix_sockets.n > 0) {
		line(b, "(allow system-socket (socket-domain AF_UNIX))");
		for (i = 0; i < s->net.allow_unix_sockets.n; i++) {
			char *p = normalize_for_sandbox(b, s->net.allow_unix_sockets.v[i], false);
			char *q = json_quote(p);

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
	line(b, "");
}

static void
pty_rules(struct mb *b)
{
	line(b, "");
	line(b, "; allowPty: pseudo-terminals");
	line(b, "(allow pseudo-tty)");
	line(b, "(allow file-ioctl");
	line(b, "  (literal \"/dev/ptmx\")");
	line(b, "  (regex #\"^/dev/ttys\")");
	line(b, ")");
	line(b, "(allow file-read* file-write*");
	line(b, "  (literal \"/dev/ptmx\")");
	line(b, "  (regex #\"^/dev/ttys\")");
	line(b, ")");
}

/* Whether p lies in one of the write roots (a name's subtree, or a glob's matches). */
static bool
in_write_root(const struct ments *roots, const char *p)
{
	size_t i;

	for (i = 0; i < roots->n; i++)
		if (roots->v[i].glob ? entry_matches(&roots->v[i], p, false) :
		    path_is_under(p, roots->v[i].path))
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
	size_t i;

	memset(&rc, 0, sizeof(rc));
	if (s->fs.disabled) {
		line(b, "; filesystem: not restricted");
		line(b, "(allow file-read*)");
		line(b, "");
		line(b, "(allow file-write*)");
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
	caller_entries(b, K_ALLOW, &allow_spelled, &allow_literal, &rc.write_roots);
	/* srt keeps its settings file read-only where the command could write it. */
	if (ctx->settings_path != NULL && in_write_root(&rc.write_roots, ctx->settings_path))
		strlist_push(&deny_literal, ctx->settings_path);

	split_list(&s->fs.deny_read, true, &rd_spelled, &rd_literal);
	split_list(&s->fs.allow_read, true, &ra_spelled, &ra_literal);
	{
		struct ments tmp = { 0 };

		caller_entries(b, K_DENY, &rd_spelled, &rd_literal, &tmp);
		for (i = 0; i < tmp.n; i++)
			in_both_spellings(b, K_DENY, &tmp.v[i], &rc.denies);
		ments_free(&tmp);
		caller_entries(b, K_ALLOW, &ra_spelled, &ra_literal, &tmp);
		for (i = 0; i < tmp.n; i++)
			in_both_spellings(b, K_ALLOW, &tmp.v[i], &rc.allows);
		ments_free(&tmp);
	}
	line(b, "; filesystem reads");
	read_rules(b, &rc);
	line(b, "");
	line(b, "; filesystem writes");
	write_rules(b, &rc, &deny_spelled, &deny_literal, s->fs.allow_git_config);
	read_deny_unlink_rules(b, &rc);

	ments_free(&rc.denies);
	ments_free(&rc.allows);
	ments_free(&rc.write_roots);
	strlist_free(&allow_spelled);
	strlist_free(&allow_literal);
	strlist_free(&deny_spelled);
	strlist_free(&deny_literal);
	strlist_free(&rd_spelled);
	strlist_free(&rd_literal);
	strlist_free(&ra_spelled);
	strlist_free(&ra_literal);
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
	b.tag = json_quote(o->log_tag);

	line(&b, "(version 1)");
	static_rules(&b);
	line(&b, "");
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
