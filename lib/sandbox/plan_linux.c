/*
 * The bubblewrap filesystem plan (BEHAVIOR §4.1, §4.3; SPEC §5, §7).
 *
 * Order of the arguments, as the reference emits them:
 *   --ro-bind / /            (--bind / / when the filesystem is not restricted)
 *   ancestor pins            (--ro-bind D D, beneath the allow binds)
 *   --bind W W               each allowed write root
 *   read denies              shallowest first: --tmpfs with the allowRead, then the write
 *                            paths inside it bound back, or --ro-bind /dev/null FILE
 *                            (with the guard srt-seccomp mounts both, when nothing is
 *                            brought back inside: readlock_place)
 *   write denies             configured, the settings file, then the mandatory denies
 *   re-applied read denies   those a write deny's read-only bind brought back
 *
 * Every path is resolved once (realpath, through a cache): every decision below is taken on
 * the same answer, and what is mounted is the resolved path, so bwrap has no name left to
 * re-resolve differently (no check-then-use race on names).
 *
 * This file orders and assembles the arguments; the plan's other files are
 * plan_linux_fs.c (that cache and the resolution of paths), plan_linux_mandatory.c (the
 * mandatory denies and git directories), plan_linux_guard.c (the write guard) and
 * plan_linux_sandbox.c (the rest of bwrap's command line, around these arguments), with
 * their shared declarations in plan_linux_int.h.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "glob.h"
#include "log.h"
#include "path.h"
#include "plan.h"
#include "gitconfig.h"
#include "plan_linux_int.h"
#include "util.h"
#include "wguard.h"

/*
 * How a write deny or a pin is bound: a file the plan found may be gone when bwrap
 * mounts (a shell, an editor or a tool on the host deletes its dotfiles at any time),
 * and bwrap's plain --ro-bind then refuses to start the run. Skipping a source that is
 * gone loses nothing: every deny is also in the write guard by name, which refuses the
 * command to make it again, and what the host puts there later is the host's.
 */
#define RO_BIND_DENY "--ro-bind-try"

/* --- write roots --------------------------------------------------------------------- */

/* p lies in a write root, or holds one (whose --bind a read-only bind of p then covers). */
static int
meets_write(struct pb *b, const char *p)
{
	size_t i;

	if (plan_linux_within_write(b, p))
		return 1;
	for (i = 0; i < b->writes.n; i++)
		if (path_is_strictly_under(b->writes.v[i], p))
			return 1;
	return 0;
}

/* The first component of target that is a link inside a write root: it can be replaced. */
static char *
symlink_in_path(struct pb *b, const char *target)
{
	struct strlist names = { 0 };
	struct stat st;
	char *cur = xstrdup(""), *next, *found = NULL;
	size_t i;

	plan_linux_split_names(target, &names);
	for (i = 0; i < names.n; i++) {
		if (*names.v[i] == '\0')
			continue;
		next = xasprintf("%s/%s", cur, names.v[i]);
		if (plan_linux_fs_lstat(b, next, &st) == -1) {
			free(next);
			break;
		}
		if (S_ISLNK(st.st_mode) && plan_linux_within_write(b, next)) {
			found = next;
			break;
		}
		free(cur);
		cur = next;
	}
	free(cur);
	strlist_free(&names);
	return found;
}

/* --- entries ------------------------------------------------------------------------- */

/* Does the spelling hold a ".." component? */
static int
has_dotdot(const char *p)
{
	size_t n = strlen(p);

	return strcmp(p, "..") == 0 || strncmp(p, "../", 3) == 0 || strstr(p, "/../") != NULL ||
	    (n >= 3 && strcmp(p + n - 3, "/..") == 0);
}

/*
 * Where the kernel takes a spelling with a "..": it follows a link before the ".." that
 * comes after it, where the text (and the reference) folds the two away, so
 * "d/link/../f" names the file beside the link's target, not d/f. The name as a reader
 * opens it (its directory resolved, its last component as written, or the directory a
 * trailing ".." leads to); NULL without a "..", when that directory cannot be resolved,
 * or when the two land in the same place.
 */
static char *
kernel_spelling(struct pb *b, const char *spelled)
{
	const char *home = b->ctx->home, *base, *c;
	char *raw, *dir, *folded, *out = NULL, *loc;
	int last_dots;

	if (!has_dotdot(spelled))
		return NULL;
	if (*spelled == '/')
		raw = xstrdup(spelled);
	else if (*spelled == '~' && (spelled[1] == '\0' || spelled[1] == '/')) {
		if (home == NULL || *home != '/')
			return NULL;
		raw = xasprintf("%s%s", home, spelled + 1);
	} else if (b->ctx->cwd != NULL && *b->ctx->cwd == '/')
		raw = path_join(b->ctx->cwd, spelled);
	else
		return NULL;
	base = path_basename(raw);
	last_dots = strcmp(base, "..") == 0 || strcmp(base, ".") == 0 || *base == '\0';
	if (last_dots) {
		if ((c = plan_linux_canon(b, raw)) != NULL)
			out = xstrdup(c);
	} else {
		dir = path_dirname(raw);
		if ((c = plan_linux_canon(b, dir)) != NULL)
			out = path_join(c, base);
		free(dir);
	}
	folded = path_normalize(raw);
	if (out != NULL && folded != NULL) {
		loc = last_dots ? xstrdup(plan_linux_canon_or(b, folded))
				: plan_linux_name_location(b, folded);
		if (strcmp(loc, out) == 0) {
			free(out);
			out = NULL;
		}
		free(loc);
	}
	free(folded);
	free(raw);
	return out;
}

/*
 * The plain absolute paths of one list: a trailing globstar component stripped, other
 * globs expanded against the disk (SPEC §5), each match then taken like a plain entry. A
 * glob that is also the name of something on disk is taken as that name too, as the
 * reference does. Literal entries are names, whatever they hold. A deny spelled with a
 * ".." after a link denies where the kernel takes it too (kernel_spelling): what the
 * text names is denied, as the reference has it, and so is the file a reader of that
 * spelling opens.
 */
static void
expand_list(
    struct pb *b, const struct path_list *l, const char *what, int deny, struct strlist *out)
{
	const char *home = b->ctx->home, *cwd = b->ctx->cwd;
	struct stat st;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct path_entry *e = &l->v[i];
		char *spelled, *abs;
		int r;

		spelled = e->literal ? xstrdup(e->path) : glob_strip_globstar(e->path);
		if ((abs = path_absolute(spelled, home, cwd)) == NULL) {
			/* An allow that names nothing grants nothing; a deny must not vanish. */
			if (deny) {
				diags_add(b->errs,
				    "%s[%zu]: \"%s\" cannot be made "
				    "absolute (no home directory or working directory)",
				    what, i, e->path);
				b->bad = 1;
			}
			free(spelled);
			continue;
		}
		if (e->literal || !glob_has_magic(spelled)) {
			char *k = deny ? kernel_spelling(b, spelled) : NULL;

			strlist_push_owned(out, abs);
			if (k != NULL) {
				log_debug(
				    "%s[%zu]: \"%s\": denied where the kernel takes it too, "
				    "%s",
				    what, i, e->path, k);
				strlist_push_owned(out, k);
			}
			free(spelled);
			continue;
		}
		if (plan_linux_fs_lstat(b, abs, &st) == 0)
			strlist_push(out, abs);
		r = glob_expand(abs, out);
		if (glob_report_limit(r, deny, b->errs, what, i, e->path))
			b->bad = 1;
		free(abs);
		free(spelled);
	}
}

/*
 * The denyWrite globs themselves, for the write guard: glob_expand found what matches
 * now, and a name that matches later (new.pem made by the command, by a rename, a link
 * or a mkdir) is refused by the guard. Anchored as the expansion is: a relative glob
 * against the cwd, "~/" against the home directory.
 */
static void
deny_globs(struct pb *b)
{
	const struct path_list *l = &b->s->fs.deny_write;
	char *spelled, *abs, *why;
	size_t i;

	for (i = 0; i < l->n; i++) {
		if (l->v[i].literal)
			continue;
		spelled = glob_strip_globstar(l->v[i].path);
		abs = glob_has_magic(spelled)
		    ? path_absolute(spelled, b->ctx->home, b->ctx->cwd)
		    : NULL;
		if (abs != NULL) {
			why = xasprintf("denyWrite %s", l->v[i].path);
			wguard_add_glob(&b->out->guard, abs, why);
			free(why);
		}
		free(abs);
		free(spelled);
	}
}

/* --- write allows -------------------------------------------------------------------- */

/* Whether a denyRead (or credentials) entry covers p (the home convenience directories are
 * left out then). */
static int
read_rule_covers(struct pb *b, const struct path_entry *e, const char *p)
{
	char *spelled, *abs, *n;
	int hit = 0;

	spelled = e->literal ? xstrdup(e->path) : glob_strip_globstar(e->path);
	abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd);
	if (abs == NULL)
		goto out;
	if (!e->literal && glob_has_magic(spelled)) {
		/* The glob covers p when it matches p or a directory above it. */
		char *cur = xstrdup(p);

		for (;;) {
			if (glob_match_path(abs, cur)) {
				hit = 1;
				break;
			}
			if (!path_up(&cur))
				break;
		}
		free(cur);
	} else {
		n = plan_linux_normalize(b, abs);
		hit = path_is_under(p, n);
		free(n);
	}
	free(abs);
out:
	free(spelled);
	return hit;
}

static int
home_dir_read_denied(struct pb *b, const char *p)
{
	const struct path_list *deny = &b->s->fs.deny_read, *allow = &b->s->fs.allow_read;
	const struct path_list *cred = &b->s->cred.deny_files;
	size_t i, j;

	/* A credential deny covering it: no allowRead re-opens that. */
	for (i = 0; i < cred->n; i++)
		if (read_rule_covers(b, &cred->v[i], p))
			return 1;
	for (i = 0; i < deny->n; i++) {
		int reopened = 0;

		if (!read_rule_covers(b, &deny->v[i], p))
			continue;
		for (j = 0; j < allow->n && !reopened; j++) {
			const struct path_entry *a = &allow->v[j];
			char *spelled = a->literal ? xstrdup(a->path)
						   : glob_strip_globstar(a->path);
			char *abs, *n;

			if (!a->literal && glob_has_magic(spelled)) {
				free(spelled);
				continue;
			}
			abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd);
			free(spelled);
			if (abs == NULL)
				continue;
			n = plan_linux_normalize(b, abs);
			free(abs);
			/* Re-opened only by an allowRead beneath the deny, above p. */
			if (path_is_under(p, n))
				reopened = read_rule_covers(b, &deny->v[i], n);
			free(n);
		}
		if (!reopened)
			return 1;
	}
	return 0;
}

static void
add_write(struct pb *b, const char *abs, int user)
{
	const char *r;
	char *n = plan_linux_normalize(b, abs);

	/* bwrap's --dev /dev replaces that tree; a bind there would fight it. */
	if (strncmp(n, "/dev/", 5) == 0 || !plan_linux_exists(b, n))
		goto skip;
	/* bwrap follows links: a link here would widen the grant to where it points. */
	if ((r = plan_linux_canon(b, n)) == NULL ||
	    (strcmp(r, n) != 0 && plan_linux_outside_boundary(n, r)))
		goto skip;
	if (user && !strlist_contains(&b->user_roots, n))
		strlist_push(&b->user_roots, n);
	if (strlist_contains(&b->writes, n)) {
		free(n);
		return;
	}
	strlist_push(&b->writes, n);
	strlist_push(&b->binds, "--bind");
	strlist_push(&b->binds, n);
	strlist_push(&b->binds, n);
	free(n);
	return;
skip:
	log_debug2("write path %s: skipped (missing, under /dev, or a link out)", abs);
	free(n);
}

/*
 * One allowWrite entry. One that names nothing yet (a cache directory on a fresh
 * account: ~/.npm) cannot be bound, and stays read-only for the run: warned here, once,
 * in the settings' words, and remembered for the violation monitor's reason
 * (wguard_readonly_why), which would otherwise blame the user ("not in allowWrite").
 * A glob is expanded to what exists now: a file made later that matches it is
 * read-only too, for the same reason.
 */
static void
plan_user_write(struct pb *b, const struct path_entry *e, size_t idx)
{
	struct path_entry copy = *e;
	struct path_list one = { &copy, 1 };
	struct strlist user = { 0 };
	bool glob = !e->literal && glob_has_magic(e->path);
	char *spelled, *abs, *n;
	size_t i;

	expand_list(b, &one, "filesystem.allowWrite", 0, &user);
	for (i = 0; i < user.n; i++)
		add_write(b, user.v[i], 1);
	if (glob) {
		spelled = glob_strip_globstar(e->path);
		if ((abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd)) != NULL) {
			n = path_normalize(abs);
			strlist_push_owned(&b->absent_writes, n);
			strlist_push(&b->absent_entries, e->path);
			strlist_push(&b->absent_globs, "1");
			if (user.n == 0)
				log_warnx(
				    "warning: filesystem.allowWrite[%zu]: \"%s\" matches "
				    "nothing: it grants nothing in this run (a file made later "
				    "that matches it stays read-only)",
				    idx, e->path);
		}
		free(abs);
		free(spelled);
	} else if (user.n > 0) {
		n = plan_linux_normalize(b, user.v[0]);
		if (!plan_linux_exists(b, n)) {
			log_warnx("warning: filesystem.allowWrite[%zu]: \"%s\" does not exist: "
				  "it stays read-only for this run (create it before the run)",
			    idx, e->path);
			strlist_push_owned(&b->absent_writes, n);
			strlist_push(&b->absent_entries, e->path);
			strlist_push(&b->absent_globs, "0");
		} else
			free(n);
	}
	strlist_free(&user);
}

/* Writable under the home directory, as in the reference, unless a read deny covers them. */
static const char *const home_write_dirs[] = { ".npm/_logs", ".claude/debug" };

static void
plan_writes(struct pb *b)
{
	struct strlist user = { 0 };
	struct stat st;
	char *p;
	size_t i;

	/* The sandbox's own TMPDIR (TMPDIR inside), and the reference's, /tmp/claude, which
	 * commands written for it use by name: writable when it exists, whatever is
	 * read-denied. */
	if (b->ctx->tmpdir != NULL && *b->ctx->tmpdir == '/')
		add_write(b, b->ctx->tmpdir, 0);
	if (b->ctx->ref_tmpdir != NULL && *b->ctx->ref_tmpdir == '/') {
		/* /tmp is everyone's: another user can make /tmp/claude first, keep it
		 * writable to himself and swap what the command leaves there. Only a
		 * directory (not a link) of the user srt runs as is granted. */
		if (plan_linux_fs_lstat(b, b->ctx->ref_tmpdir, &st) == 0 &&
		    S_ISDIR(st.st_mode) && st.st_uid == geteuid())
			add_write(b, b->ctx->ref_tmpdir, 0);
		else
			log_debug2("write path %s: skipped (missing, or not a directory "
				   "of uid %u)",
			    b->ctx->ref_tmpdir, (unsigned)geteuid());
	}
	for (i = 0; i < nitems(home_write_dirs) && b->ctx->home != NULL && *b->ctx->home == '/';
	     i++) {
		p = path_join(b->ctx->home, home_write_dirs[i]);
		if (!home_dir_read_denied(b, p))
			add_write(b, p, 0);
		free(p);
	}
	for (i = 0; i < b->s->fs.allow_write.n; i++)
		plan_user_write(b, &b->s->fs.allow_write.v[i], i);
	if (b->s->layers.flags & SETTINGS_LAYER_READ_PATHS_ONLY) {
		struct path_list m = { b->s->fs.allow_write.v,
			b->s->layers.managed[SL_ALLOW_WRITE] };

		expand_list(b, &m, "allowWrite", 0, &user);
		for (i = 0; i < user.n; i++)
			strlist_push_owned(
			    &b->managed_writes, plan_linux_normalize(b, user.v[i]));
		strlist_free(&user);
	}
}

/* A write root comes back inside a read deny, but under the managed policy's
 * allowManagedReadPathsOnly a user's does not: only srt's defaults and the managed
 * file's own re-open what a denyRead hides (srt-settings(5), MANAGED POLICY). */
static int
write_reopens(struct pb *b, const char *w)
{
	return !(b->s->layers.flags & SETTINGS_LAYER_READ_PATHS_ONLY) ||
	    !strlist_contains(&b->user_roots, w) || strlist_contains(&b->managed_writes, w);
}

/* --- read denies --------------------------------------------------------------------- */

static int
cmp_rdeny(const void *x, const void *y)
{
	const struct rdeny *a = x, *c = y;

	if (a->depth != c->depth)
		return a->depth < c->depth ? -1 : 1;
	return a->order < c->order ? -1 : a->order > c->order;
}

/* A "/" entry stands for the root's children: a tmpfs on / would wipe every mount. Those
 * an allowRead covers are left out, except for a credential deny, which has no exceptions. */
static void
expand_root_deny(struct pb *b, struct strlist *entries, int cred)
{
	struct dirent *de;
	DIR *d;
	size_t i;

	if ((d = opendir("/")) == NULL) {
		diags_add(b->errs, "filesystem.denyRead: cannot list /: %s", strerror(errno));
		b->bad = 1;
		return;
	}
	while ((de = readdir(d)) != NULL) {
		char *child;
		int covered = 0;

		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		child = path_join("/", de->d_name);
		if (plan_linux_is_kernel_dir(child)) {
			free(child);
			continue;
		}
		for (i = 0; i < b->reads.n && !covered && !cred; i++) {
			char *loc = plan_linux_name_location(b, b->reads.v[i]);

			covered = path_is_under(plan_linux_canon_or(b, child), loc);
			free(loc);
		}
		if (!covered)
			strlist_push(entries, child);
		free(child);
	}
	closedir(d);
}

/*
 * An absolute entry as a reader spells it, folded in text; with a ".." the kernel folds
 * after following links, no spelling is that reader's: NULL.
 */
static char *
given_spelling(const char *abs)
{
	size_t n = strlen(abs);

	if (strstr(abs, "/../") != NULL || (n >= 3 && strcmp(abs + n - 3, "/..") == 0))
		return NULL;
	return path_normalize(abs);
}

/* One list of read denies, expanded, as entries and the spellings a reader gives. */
static void
read_deny_list(struct pb *b, const struct path_list *l, const char *what, int cred,
    struct strlist *entries, struct strlist *given)
{
	struct strlist raw = { 0 };
	size_t i, j;

	expand_list(b, l, what, 1, &raw);
	for (i = 0; i < raw.n; i++) {
		char *n = plan_linux_normalize(b, raw.v[i]), *g;

		if (strcmp(n, "/") == 0) {
			j = entries->n;
			expand_root_deny(b, entries, cred);
			for (; j < entries->n; j++)
				strlist_push(given, entries->v[j]);
		} else {
			strlist_push(entries, n);
			g = given_spelling(raw.v[i]);
			strlist_push(given, g != NULL ? g : n);
			free(g);
		}
		free(n);
	}
	strlist_free(&raw);
}

/* Where a read deny lands: the object its name leads to, or the nearest directory above
 * it that can be inspected. */
static void
rdeny_land(struct pb *b, struct rdeny *r)
{
	char *cand = xstrdup(r->named), *up;
	struct stat st;
	const char *landing;

	/*
	 * What cannot be inspected is stood in for by the nearest directory above it
	 * that can: a parent made unsearchable must not switch the deny off.
	 */
	for (;;) {
		if (strcmp(cand, "/") == 0 && strcmp(cand, r->named) != 0)
			break;
		if (plan_linux_fs_stat(b, cand, &st) == 0) {
			r->isdir = S_ISDIR(st.st_mode);
			r->standin = strcmp(cand, r->named) != 0;
			landing = plan_linux_canon_or(b, cand);
			if (strcmp(landing, "/") != 0)
				r->landing = xstrdup(landing);
			else {
				/* A link to "/": what holds the link stands in. */
				char *dir = path_dirname(cand);

				landing = plan_linux_canon_or(b, dir);
				free(dir);
				if (strcmp(landing, "/") != 0) {
					r->landing = xstrdup(landing);
					r->isdir = r->standin = 1;
				}
			}
			break;
		}
		if (plan_linux_absence_errno(errno)) {
			r->missing = strcmp(cand, r->named) == 0;
			break;
		}
		if (strcmp(cand, "/") == 0)
			break;
		up = path_dirname(cand);
		free(cand);
		cand = up;
	}
	free(cand);
}

/*
 * The read denies: denyRead, then the files of credentials with mode "deny", which take
 * the same way (globs expanded, a directory hidden under a tmpfs, a file masked) but
 * allow no exception: no allowRead lifts or re-opens them, and no allowRead or
 * allowWrite path at or beneath one is bound back over any tmpfs, as the reference has it.
 */
static void
plan_read_entries(struct pb *b)
{
	struct strlist raw = { 0 }, entries = { 0 }, given = { 0 };
	size_t i, j, nlisted, nuser;

	expand_list(b, &b->s->fs.allow_read, "filesystem.allowRead", 0, &raw);
	for (i = 0; i < raw.n; i++)
		strlist_push_owned(&b->reads, plan_linux_normalize(b, raw.v[i]));
	strlist_free(&raw);

	read_deny_list(b, &b->s->fs.deny_read, "filesystem.denyRead", 0, &entries, &given);
	nlisted = entries.n;
	read_deny_list(b, &b->s->cred.deny_files, "credentials.files", 1, &entries, &given);
	/* tlsTerminate's own CA key signs every leaf the sandbox trusts: denied like a
	 * credentials file, with no exception (srt-httpd reads it outside). */
	if (b->s->net.tls.present && b->s->net.tls.ca_key_path != NULL) {
		const char *k = b->s->net.tls.ca_key_path;
		char *abs = *k == '/' || b->ctx->cwd == NULL ? xstrdup(k)
							     : path_join(b->ctx->cwd, k),
		     *g;

		/* The entry as srt-launch read it (the kernel's resolution, ".." after
		 * links); the watch's name absolute, or the resolved file when a ".."
		 * leaves no spelling of a reader's (a relative one would be taken from /). */
		g = given_spelling(abs);
		strlist_push_owned(
		    &given, g != NULL ? g : xstrdup(plan_linux_canon_or(b, abs)));
		strlist_push_owned(&entries, abs);
	}
	nuser = entries.n;
	/* ssh refuses configs whose owner looks wrong inside a user namespace. */
	if (plan_linux_exists(b, "/etc/ssh/ssh_config.d")) {
		strlist_push(&entries, "/etc/ssh/ssh_config.d");
		strlist_push(&given, "/etc/ssh/ssh_config.d");
	}

	b->rd = xcalloc(entries.n, sizeof(*b->rd));
	for (i = 0; i < entries.n; i++) {
		struct rdeny *r = &b->rd[b->nrd];

		r->named = xstrdup(entries.v[i]);
		r->given = xstrdup(given.v[i]);
		r->internal = i >= nuser;
		r->cred = i >= nlisted && i < nuser;
		r->order = i;
		r->depth = path_depth(plan_linux_canon_or(b, r->named));
		b->nrd++;
		rdeny_land(b, r);
		if (r->landing != NULL && !r->isdir && !r->cred) {
			for (j = 0; j < b->reads.n && !r->lifted; j++) {
				char *loc = plan_linux_name_location(b, b->reads.v[j]);

				r->lifted = strcmp(loc, r->landing) == 0;
				free(loc);
			}
		}
	}
	strlist_free(&entries);
	strlist_free(&given);
	if (b->nrd > 1)
		qsort(b->rd, b->nrd, sizeof(*b->rd), cmp_rdeny);
	for (i = 0; i < b->nrd; i++) {
		struct rdeny *r = &b->rd[i];

		if (r->landing == NULL)
			continue;
		if (!r->lifted)
			strlist_push(&b->denied, r->landing);
		if (r->isdir) {
			const char *c = plan_linux_canon_or(b, r->named);

			strlist_push(&b->tmpfs_pred, r->landing);
			if (strcmp(r->named, "/") != 0)
				strlist_push(&b->tmpfs_pred, r->named);
			if (strcmp(c, "/") != 0)
				strlist_push(&b->tmpfs_pred, c);
		}
	}
}

static void
mounts_add(struct mounts *m, const char *src, const char *dest)
{
	m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	m->v[m->n].src = xstrdup(src);
	m->v[m->n].dest = xstrdup(dest);
	m->n++;
}

/* Is location at or beneath where a credential deny lands? Nothing is bound back there. */
static int
under_credential_deny(struct pb *b, const char *loc)
{
	size_t i;

	for (i = 0; i < b->nrd; i++)
		if (b->rd[i].cred && b->rd[i].landing != NULL &&
		    path_is_under(loc, b->rd[i].landing))
			return 1;
	return 0;
}

/*
 * How p goes back over the tmpfs at landing, if it is a carve-out of it: its name and what
 * it resolves to both inside. Bound at the name, from the resolved source, so bwrap has
 * nothing left to re-resolve; a link planted at an allowed path pointing at something the
 * read section denies elsewhere restores nothing.
 */
static int
restore_placement(struct pb *b, const char *p, const char *landing, char **src, char **dest)
{
	const char *source;
	size_t i;

	*dest = plan_linux_name_location(b, p);
	if (!path_is_under(*dest, landing) || (source = plan_linux_canon(b, p)) == NULL ||
	    !path_is_under(source, landing) || under_credential_deny(b, *dest))
		goto no;
	if (strcmp(source, *dest) != 0) {
		for (i = 0; i < b->denied.n; i++) {
			const char *d = b->denied.v[i];

			if (!path_is_under(landing, d) &&
			    (path_is_under(d, source) || path_is_under(source, d)))
				goto no;
		}
	}
	*src = xstrdup(source);
	return 1;
no:
	free(*dest);
	*dest = NULL;
	return 0;
}

static void
push3(struct strlist *l, const char *a, const char *x, const char *y)
{
	strlist_push(l, a);
	strlist_push(l, x);
	strlist_push(l, y);
}

/*
 * A denied directory's tmpfs, then binds (what allowRead and allowWrite bring back inside
 * it; emptied). With the guard and nothing brought back, srt-seccomp mounts the tmpfs
 * instead, after bwrap's mounts (readlock_place): bwrap would stop at a directory the
 * host removed since the plan, or make one in its place in a write root.
 */
static void
plan_dir_mask(struct pb *b, const struct rdeny *r, struct strlist *binds)
{
	size_t i;

	if (binds->n == 0 && !b->ctx->unguarded && !r->internal) {
		strlist_push(&b->placed, r->landing);
		return;
	}
	strlist_push(&b->rsec, "--tmpfs");
	strlist_push(&b->rsec, r->landing);
	for (i = 0; i < binds->n; i++)
		strlist_push(&b->rsec, binds->v[i]);
	strlist_free(binds);
}

static void
plan_read_section(struct pb *b)
{
	struct strlist binds = { 0 };
	size_t i, j, k;

	b->units = xcalloc(b->nrd, sizeof(*b->units));
	for (i = 0; i < b->nrd; i++) {
		struct rdeny *r = &b->rd[i];
		struct unit *u;
		char *src, *dest;

		if (r->landing == NULL)
			continue;
		/* One mount per place: inside an earlier tmpfs it would change nothing. */
		if (plan_linux_hidden_by_tmpfs(b, r->landing, 1))
			continue;
		if (!r->isdir) {
			if (r->lifted || strlist_contains(&b->masks, r->landing))
				continue;
			strlist_push(&b->masks, r->landing);
			/* With the guard srt-seccomp mounts it, last, by descriptor: a file
			 * the host deletes before bwrap's mounts would stop bwrap. */
			if (!b->ctx->unguarded && !r->internal)
				strlist_push(&b->placed, r->landing);
			else
				push3(&b->rsec, "--ro-bind", "/dev/null", r->landing);
			continue;
		}
		u = &b->units[b->nunits++];
		u->landing = xstrdup(r->landing);
		/* A stand-in hides what could not be vouched for: nothing comes back. */
		if (r->standin) {
			plan_dir_mask(b, r, &binds);
			continue;
		}
		/* The writes are found first (a read inside one is covered by it) and bound
		 * last: a writable path inside an allowRead one (allowRead B/project,
		 * allowWrite B/project/state) stays writable over the read-only bind. */
		for (j = 0; j < b->writes.n; j++) {
			if (!write_reopens(b, b->writes.v[j]) ||
			    !restore_placement(b, b->writes.v[j], r->landing, &src, &dest))
				continue;
			mounts_add(&u->writes, src, dest);
			free(src);
			free(dest);
		}
		for (j = 0; j < b->reads.n; j++) {
			int covered = 0;

			if (!restore_placement(b, b->reads.v[j], r->landing, &src, &dest))
				continue;
			for (k = 0; k < u->writes.n; k++)
				if (path_is_under(dest, u->writes.v[k].dest))
					covered = 1;
			if (!covered) {
				push3(&binds, "--ro-bind", src, dest);
				mounts_add(&u->reads, src, dest);
			}
			free(src);
			free(dest);
		}
		for (j = 0; j < u->writes.n; j++)
			push3(&binds, "--bind", u->writes.v[j].src, u->writes.v[j].dest);
		plan_dir_mask(b, r, &binds);
	}
	strlist_free(&binds);
}

/* --- the host's network interfaces ------------------------------------------------------ */

/*
 * sysfs shows the network devices of the namespace it was mounted in: through the
 * read-only bind of /, the host's, with their MAC addresses and live traffic counters.
 * The sandbox has its own network namespace (loopback only), which sysfs cannot show
 * without a mount of its own there; so the host's are hidden: /sys/class/net and each
 * directory the devices it lists lie in (/sys/devices/.../net) get an empty read-only
 * tmpfs. The command still sees its own loopback through netlink and /proc/net.
 */
static void
plan_hide_host_net(struct pb *b)
{
	struct strlist dirs = { 0 };
	struct dirent *de;
	char link[PATH_MAX], *rel, *abs, *dir;
	ssize_t n;
	DIR *d;
	size_t i;

	if ((d = opendir("/sys/class/net")) == NULL)
		return;
	strlist_push(&dirs, "/sys/class/net");
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		rel = path_join("/sys/class/net", de->d_name);
		n = readlink(rel, link, sizeof(link) - 1);
		free(rel);
		if (n <= 0)
			continue;
		link[n] = '\0';
		abs = link[0] == '/' ? path_normalize(link)
				     : path_expand(link, NULL, "/sys/class/net");
		if (abs == NULL)
			continue;
		dir = path_dirname(abs);
		free(abs);
		if (path_is_strictly_under(dir, "/sys/devices") &&
		    !strlist_contains(&dirs, dir))
			strlist_push(&dirs, dir);
		free(dir);
	}
	closedir(d);
	for (i = 0; i < dirs.n; i++) {
		strlist_push(&b->rsec, "--tmpfs");
		strlist_push(&b->rsec, dirs.v[i]);
		strlist_push(&b->rsec, "--remount-ro");
		strlist_push(&b->rsec, dirs.v[i]);
	}
	strlist_free(&dirs);
}

/* --- write denies -------------------------------------------------------------------- */

static void
dbind_add(struct pb *b, enum dkind kind, const char *dest, const char *raw)
{
	b->db = xreallocarray(b->db, b->ndb + 1, sizeof(*b->db));
	b->db[b->ndb].kind = kind;
	b->db[b->ndb].dest = xstrdup(dest);
	b->db[b->ndb].raw = xstrdup(raw);
	b->ndb++;
}

/*
 * Whether a read-only denied directory's bind may not be the last word on its subtree: a
 * read-deny tmpfs holds it (its bind is dropped, restores happen around it), or a write path
 * beneath it lies under such a tmpfs.
 */
static int
rodir_unsafe(struct pb *b, const char *dir)
{
	size_t i;

	for (i = 0; i < b->writes.n; i++)
		if (path_is_strictly_under(b->writes.v[i], dir) &&
		    path_under_any(b->writes.v[i], &b->tmpfs_pred))
			return 1;
	for (i = 0; i < b->rodirs.n; i++)
		if (strcmp(b->rodirs.v[i], dir) == 0 &&
		    (path_under_any(dir, &b->tmpfs_pred) ||
			path_under_any(b->rodir_raw.v[i], &b->tmpfs_pred)))
			return 1;
	return 0;
}

/* Already unwritable: strictly under a denied directory that is bound read-only. */
static int
covered_by_rodir(struct pb *b, const char *p)
{
	int covered = 0;
	size_t i;

	for (i = 0; i < b->rodirs.n; i++) {
		const char *dir = b->rodirs.v[i];

		if (!path_is_strictly_under(p, dir))
			continue;
		if (rodir_unsafe(b, dir)) {
			if (strcmp(dir, "/") == 0) {
				if (!path_under_any(p, &b->tmpfs_pred))
					covered = 1;
				continue;
			}
			return 0;
		}
		covered = 1;
	}
	return covered;
}

/*
 * Before the denies are emitted: the existing denied directories that will be bound
 * read-only (nothing can be created under them), and the ancestors of every deny path.
 */
static void
deny_prepass(struct pb *b)
{
	struct stat st;
	size_t i;

	for (i = 0; i < b->denies.n; i++) {
		char *raw = xstrdup(b->denies.v[i]), *res, *link;

		if (strncmp(raw, "/dev/", 5) == 0 ||
		    (res = plan_linux_resolve_deny(b, raw, &b->denies)) == NULL) {
			free(raw);
			continue;
		}
		if (strncmp(res, "/dev/", 5) == 0)
			goto next;
		if ((link = symlink_in_path(b, res)) != NULL) {
			free(link);
			goto next;
		}
		if (strcmp(res, raw) != 0 && !strlist_contains(&b->symlinked, res))
			strlist_push(&b->symlinked, res);
		if (plan_linux_fs_stat(b, res, &st) == 0 && S_ISDIR(st.st_mode) &&
		    meets_write(b, res)) {
			strlist_push(&b->rodirs, res);
			strlist_push(&b->rodir_raw, raw);
		}
	next:
		free(res);
		free(raw);
	}
}

/* Does the hooks directory dir hold only regular files named *.sample (git's, never
 * run), or nothing? Anything else, or what cannot be read, is a hook. */
static bool
hooks_only_samples(const char *dir)
{
	struct dirent *de;
	struct stat st;
	bool r = true;
	DIR *d;
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return false;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return false;
	}
	while (r && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = wguard_hook_sample(de->d_name) &&
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode);
	}
	closedir(d);
	return r;
}

/*
 * Is dir a git directory's own hooks directory: hooks in a .git, or next to a HEAD (a
 * submodule's git directory)? Not another directory of that name the plan denies
 * (.claude/hooks, what a core.hooksPath names), which no rm -rf of a clone removes:
 * its mount stays.
 */
static bool
git_hooks_dir(struct pb *b, const char *dir)
{
	char *gitdir = path_dirname(dir), *head = path_join(gitdir, "HEAD");
	struct stat st;
	bool r;

	r = strcasecmp(path_basename(gitdir), ".git") == 0 ||
	    plan_linux_fs_lstat(b, head, &st) == 0;
	free(head);
	free(gitdir);
	return r;
}

/*
 * A mandatory deny the write guard owns by name and lets go, which a mount would keep:
 * a git directory pointer that is a file (a submodule's or linked worktree's .git) and
 * a linked worktree's commondir, and a hooks directory that holds no hook (only git's
 * samples, which git never runs). With the guard they are not bound, as config is
 * not: git worktree remove and git submodule deinit remove them, rm -rf of a clone an
 * earlier run made removes the samples (a mount cannot be removed, nor what is below a
 * read-only one), and the guard refuses every write and creation of them
 * (wguard_removable; a hook's name made in such a directory, by any call).
 */
static bool
deny_guard_owned(struct pb *b, size_t i, const char *res)
{
	struct stat st;
	const char *base = path_basename(res);
	char *dir, *up;
	bool r;

	if (b->ctx->unguarded || i < b->npinned || plan_linux_fs_lstat(b, res, &st) != 0)
		return false;
	if (S_ISDIR(st.st_mode))
		return strcasecmp(base, "hooks") == 0 && git_hooks_dir(b, res) &&
		    hooks_only_samples(res);
	if (!S_ISREG(st.st_mode))
		return false;
	if (strcmp(base, ".git") == 0)
		return true;
	if (strcmp(base, "commondir") != 0)
		return false;
	dir = path_dirname(res);
	up = path_dirname(dir);
	r = strcmp(path_basename(up), "worktrees") == 0;
	free(up);
	free(dir);
	return r;
}

static void
plan_denies(struct pb *b)
{
	char *raw, *res, *link;
	size_t i, j;

	deny_prepass(b);
	for (i = 0; i < b->denies.n; i++) {
		raw = b->denies.v[i];
		if (strncmp(raw, "/dev/", 5) == 0)
			continue;
		if ((res = plan_linux_resolve_deny(b, raw, NULL)) == NULL) {
			/* Unsettled: mask the link so bwrap refuses to start (fail closed). */
			link = symlink_in_path(b, raw);
			if (link != NULL && !strlist_contains(&b->seen, link)) {
				strlist_push(&b->seen, link);
				dbind_add(b, DK_NULL, link, raw);
			}
			free(link);
			continue;
		}
		if (strncmp(res, "/dev/", 5) == 0 || strlist_contains(&b->seen, res)) {
			free(res);
			continue;
		}
		strlist_push(&b->seen, res);
		/* Resolved, the path holds no link; one seen now was put there since. */
		if ((link = symlink_in_path(b, res)) != NULL) {
			if (!strlist_contains(&b->seen, link)) {
				strlist_push(&b->seen, link);
				dbind_add(b, DK_NULL, link, raw);
			}
			free(link);
			free(res);
			continue;
		}
		/* Missing: nothing to mount on, and nothing is made on the host for it. The
		 * write guard keeps the name from being made (the plan's guard, below). */
		if (!plan_linux_exists(b, res)) {
			free(res);
			continue;
		}
		/* Outside every write root the path is read-only from --ro-bind / / already. */
		if (meets_write(b, res) && !deny_guard_owned(b, i, res) &&
		    (strlist_contains(&b->symlinked, res) || !covered_by_rodir(b, res))) {
			for (j = 0; j < b->writes.n; j++)
				if (path_is_strictly_under(b->writes.v[j], res))
					log_warnx("write deny %s covers allowed write path %s, "
						  "which will be read-only",
					    res, b->writes.v[j]);
			dbind_add(b, DK_SELF, res, raw);
		}
		free(res);
	}
}

/*
 * Emit the write denies after the read section, so a read-deny tmpfs over an ancestor
 * cannot wipe them; then put back every read deny a write deny's bind re-exposed.
 */
static void
emit_denies(struct pb *b)
{
	struct strlist emitted = { 0 }, restored_ro = { 0 };
	size_t i, j, k;

	for (i = 0; i < b->ndb; i++) {
		struct dbind *d = &b->db[i];

		if (strlist_contains(&b->masks, d->dest))
			continue;
		if (plan_linux_hidden_by_tmpfs(b, d->dest, 0)) {
			/* Hidden already; a write path restored beneath it comes back
			 * read-only, being inside this deny. */
			for (j = 0; j < b->nunits; j++) {
				struct unit *u = &b->units[j];

				for (k = 0; k < u->writes.n; k++) {
					const char *wp = u->writes.v[k].dest;

					if ((!path_is_under(wp, d->dest) &&
						!path_is_under(wp, d->raw)) ||
					    strlist_contains(&b->masks, wp) ||
					    strlist_contains(&restored_ro, wp))
						continue;
					strlist_push(&restored_ro, wp);
					push3(&b->dsec, "--ro-bind", u->writes.v[k].src, wp);
					strlist_push(&emitted, wp);
				}
			}
			continue;
		}
		switch (d->kind) {
		case DK_SELF:
			push3(&b->dsec, RO_BIND_DENY, d->dest, d->dest);
			break;
		case DK_NULL:
			push3(&b->dsec, "--ro-bind", "/dev/null", d->dest);
			break;
		}
		strlist_push(&emitted, d->dest);
		if (strcmp(d->raw, d->dest) != 0)
			strlist_push(&emitted, d->raw);
	}
	for (i = 0; i < b->nunits; i++) {
		struct unit *u = &b->units[i];
		int again = 0;

		/* srt-seccomp's tmpfs comes after every bwrap mount anyway. */
		if (strlist_contains(&b->placed, u->landing))
			continue;
		for (j = 0; j < emitted.n && !again; j++)
			again = path_is_strictly_under(u->landing, emitted.v[j]);
		if (!again)
			continue;
		strlist_push(&b->dsec, "--tmpfs");
		strlist_push(&b->dsec, u->landing);
		for (j = 0; j < u->writes.n; j++)
			push3(&b->dsec, "--ro-bind", u->writes.v[j].src, u->writes.v[j].dest);
		for (j = 0; j < u->reads.n; j++)
			push3(&b->dsec, "--ro-bind", u->reads.v[j].src, u->reads.v[j].dest);
	}
	for (i = 0; i < b->masks.n; i++) {
		int again = 0;

		for (j = 0; j < emitted.n && !again; j++)
			again = path_is_under(b->masks.v[i], emitted.v[j]);
		if (again && !strlist_contains(&b->placed, b->masks.v[i]))
			push3(&b->dsec, "--ro-bind", "/dev/null", b->masks.v[i]);
	}
	strlist_free(&emitted);
	strlist_free(&restored_ro);
}

/* --- ancestor pins ------------------------------------------------------------------- */

static int
cmp_depth(const void *a, const void *c)
{
	size_t da = path_depth(*(char *const *)a), dc = path_depth(*(char *const *)c);

	return da < dc ? -1 : da > dc;
}

/*
 * The directories between each mount and the write root holding it carry no mount, so a
 * rename(2) of one would carry the mount along and let the path be made again unprotected.
 * A self-bind on each ("pin") makes its dentry a mount point: rename and rmdir fail with
 * EBUSY, wherever the bind ends up buried. Under a "/" write root the pins go after the allow
 * binds, and the top-level directory of each chain gets a writable cover bind.
 */
static void
ancestor_pins(struct pb *b, struct strlist *pins, struct strlist *covers)
{
	struct strlist seeds = { 0 }, visited = { 0 };
	int rootw = strlist_contains(&b->writes, "/");
	struct stat st;
	size_t i, n;

	for (i = 0; i < b->ndb; i++)
		strlist_push(&seeds, b->db[i].dest);
	for (i = 0; i < b->masks.n; i++)
		strlist_push(&seeds, b->masks.v[i]);
	for (i = 0; i < b->nunits; i++)
		strlist_push(&seeds, b->units[i].landing);
	for (i = 0; i < seeds.n; i++) {
		char *dir;

		if (rootw && plan_linux_is_kernel_dir(seeds.v[i]))
			continue;
		for (dir = path_dirname(seeds.v[i]); strcmp(dir, "/") != 0 &&
		     !strlist_contains(&visited, dir) && plan_linux_within_write(b, dir);) {
			char *up = path_dirname(dir);

			strlist_push(&visited, dir);
			if (rootw && strcmp(up, "/") == 0)
				strlist_push(covers, dir);
			else if ((rootw || !strlist_contains(&b->writes, dir)) &&
			    !(plan_linux_fs_stat(b, dir, &st) == -1 &&
				plan_linux_absence_errno(errno)))
				strlist_push(pins, dir);
			free(dir);
			dir = up;
		}
		free(dir);
	}
	/* Shallowest first; insertion keeps equal depths in the order found. */
	for (i = 1; i < pins->n; i++)
		for (n = i; n > 0 && cmp_depth(&pins->v[n - 1], &pins->v[n]) > 0; n--) {
			char *t = pins->v[n];

			pins->v[n] = pins->v[n - 1];
			pins->v[n - 1] = t;
		}
	strlist_free(&seeds);
	strlist_free(&visited);
}

/* --- assembly ------------------------------------------------------------------------ */

static void
append(struct strlist *to, const struct strlist *from)
{
	size_t i;

	for (i = 0; i < from->n; i++)
		strlist_push(to, from->v[i]);
}

static void
pb_free(struct pb *b)
{
	size_t i, j;

	plan_linux_fs_free(b);
	strlist_free(&b->writes);
	strlist_free(&b->user_roots);
	strlist_free(&b->managed_writes);
	strlist_free(&b->absent_writes);
	strlist_free(&b->absent_entries);
	strlist_free(&b->absent_globs);
	strlist_free(&b->reads);
	for (i = 0; i < b->nrd; i++) {
		free(b->rd[i].named);
		free(b->rd[i].given);
		free(b->rd[i].landing);
	}
	free(b->rd);
	for (i = 0; i < b->nunits; i++) {
		struct unit *u = &b->units[i];

		for (j = 0; j < u->writes.n; j++) {
			free(u->writes.v[j].src);
			free(u->writes.v[j].dest);
		}
		for (j = 0; j < u->reads.n; j++) {
			free(u->reads.v[j].src);
			free(u->reads.v[j].dest);
		}
		free(u->writes.v);
		free(u->reads.v);
		free(u->landing);
	}
	free(b->units);
	for (i = 0; i < b->ndb; i++) {
		free(b->db[i].dest);
		free(b->db[i].raw);
	}
	free(b->db);
	strlist_free(&b->masks);
	strlist_free(&b->placed);
	strlist_free(&b->denied);
	strlist_free(&b->tmpfs_pred);
	strlist_free(&b->denies);
	strlist_free(&b->git_done);
	strlist_free(&b->git_global_rel);
	for (i = 0; i < b->ncfgs; i++) {
		gitconfig_free(b->cfgs[i]);
		free(b->cfgs[i]);
	}
	free(b->cfgs);
	strlist_free(&b->cfg_paths);
	strlist_free(&b->seen);
	strlist_free(&b->deny_why);
	strlist_free(&b->symlinked);
	strlist_free(&b->rodirs);
	strlist_free(&b->rodir_raw);
	strlist_free(&b->binds);
	strlist_free(&b->rsec);
	strlist_free(&b->dsec);
}

/* The settings file as an absolute spelling (a relative -s is relative to the cwd). */
static char *
settings_abs(struct pb *b)
{
	if (b->ctx->settings_path == NULL)
		return NULL;
	return path_absolute(b->ctx->settings_path, NULL, b->ctx->cwd);
}

/* Unrestricted filesystem: everything writable, but never the settings file (SPEC §7). */
static void
plan_disabled(struct pb *b)
{
	char *sp = settings_abs(b);
	const char *r;
	size_t i;

	push3(&b->out->args, "--bind", "/", "/");
	if (sp != NULL && (r = plan_linux_canon(b, sp)) != NULL)
		push3(&b->out->args, "--ro-bind", r, r);
	if (b->ctx->managed_path != NULL &&
	    (r = plan_linux_canon(b, b->ctx->managed_path)) != NULL)
		push3(&b->out->args, "--ro-bind", r, r);
	/* No names protected, but the policy and srt itself. */
	if (sp != NULL)
		plan_linux_guard_chain(b, sp, "settings file", true, 0);
	if (b->ctx->managed_path != NULL)
		plan_linux_guard_chain(b, b->ctx->managed_path, "managed policy", true, 0);
	for (i = 0; i < PLAN_SELF_DIRS; i++)
		if (b->ctx->self_dirs[i] != NULL && *b->ctx->self_dirs[i] == '/')
			plan_linux_guard_chain(
			    b, b->ctx->self_dirs[i], "srt's own programs", true, 0);
	wguard_index(&b->out->guard);
	free(sp);
}

/* srt's own files among the write denies: the settings file, the managed policy and
 * srt's programs, each once. */
static void
deny_srt_files(struct pb *b)
{
	char *sp;
	size_t i;

	/* The settings file: a command must not rewrite the policy of the next run. */
	if ((sp = settings_abs(b)) != NULL) {
		strlist_push_owned(&b->denies, plan_linux_normalize(b, sp));
		strlist_push(&b->deny_why, "settings file");
		free(sp);
	}
	/* The managed policy, as the settings file: it bounds every next run. */
	if (b->ctx->managed_path != NULL && *b->ctx->managed_path == '/') {
		char *n = plan_linux_normalize(b, b->ctx->managed_path);

		if (strlist_contains(&b->denies, n))
			free(n);
		else {
			strlist_push_owned(&b->denies, n);
			strlist_push(&b->deny_why, "managed policy");
		}
	}
	/* srt's own programs: the proxies start on first use, outside the sandbox, and the
	 * launcher itself runs again next time. */
	for (i = 0; i < PLAN_SELF_DIRS; i++) {
		char *n;

		if (b->ctx->self_dirs[i] == NULL || *b->ctx->self_dirs[i] != '/')
			continue;
		n = plan_linux_normalize(b, b->ctx->self_dirs[i]);
		if (strlist_contains(&b->denies, n)) {
			free(n);
			continue;
		}
		strlist_push_owned(&b->denies, n);
		strlist_push(&b->deny_why, "srt's own programs");
	}
}

/* The filesystem arguments, appended to out->args, the write roots and the write guard
 * (plan_linux_finish frees out on failure). */
int
plan_linux_fs(const struct settings *s, const struct plan_ctx *ctx, struct plan_linux *out,
    struct diags *errs)
{
	struct strlist cfg = { 0 }, mand = { 0 }, pins = { 0 }, covers = { 0 };
	struct plan_ctx lctx;
	char *cwd = NULL;
	struct pb b;
	size_t i;
	int ret = -1;

	memset(&b, 0, sizeof(b));
	b.s = s;
	b.out = out;
	b.errs = errs;
	if (ctx->cwd == NULL || *ctx->cwd != '/') {
		diags_add(errs, "plan: the working directory must be an absolute path");
		goto out;
	}
	/* Relative entries resolve against the real cwd, as getcwd(3) spells it. */
	lctx = *ctx;
	cwd = xstrdup(plan_linux_canon_or(&b, ctx->cwd));
	lctx.cwd = cwd;
	b.ctx = ctx = &lctx;
	if (s->fs.disabled) {
		plan_disabled(&b);
		ret = 0;
		goto out;
	}

	plan_read_entries(&b);
	plan_writes(&b);
	if (b.bad)
		goto out;

	expand_list(&b, &s->fs.deny_write, "filesystem.denyWrite", 1, &cfg);
	if (b.bad)
		goto out;
	deny_globs(&b);
	for (i = 0; i < cfg.n; i++) {
		strlist_push_owned(&b.denies, plan_linux_normalize(&b, cfg.v[i]));
		strlist_pushf(&b.deny_why, "denyWrite %s", cfg.v[i]);
	}
	b.nconfigured = b.denies.n;
	deny_srt_files(&b);
	/* What the user named, and srt's own: the way to those is kept (pinned) as the
	 * reference keeps it with placeholders. The mandatory names below are the name
	 * rules' business, which leave the way open (a .claude directory may be made). */
	b.npinned = b.denies.n;
	plan_linux_mandatory_denies(&b, &b.user_roots, &mand);
	if (b.bad)
		goto out;
	for (i = 0; i < mand.n; i++) {
		char *n = plan_linux_normalize(&b, mand.v[i]);

		if (strlist_contains(&b.denies, n))
			free(n);
		else {
			strlist_push_owned(&b.denies, n);
			strlist_push(&b.deny_why, plan_linux_mandatory_why(n));
		}
	}
	/* What links in the protected directories lead to, and their files' other names. */
	plan_linux_protected_links(&b);
	if (b.bad)
		goto out;

	plan_read_section(&b);
	plan_hide_host_net(&b);
	plan_denies(&b);
	emit_denies(&b);
	plan_guard(&b);
	ancestor_pins(&b, &pins, &covers);

	push3(&out->args, "--ro-bind", "/", "/");
	if (!strlist_contains(&b.writes, "/"))
		for (i = 0; i < pins.n; i++)
			push3(&out->args, RO_BIND_DENY, pins.v[i], pins.v[i]);
	append(&out->args, &b.binds);
	if (strlist_contains(&b.writes, "/")) {
		for (i = 0; i < pins.n; i++)
			push3(&out->args, RO_BIND_DENY, pins.v[i], pins.v[i]);
		for (i = 0; i < covers.n; i++)
			push3(&out->args, "--bind", covers.v[i], covers.v[i]);
	}
	append(&out->args, &b.rsec);
	append(&out->args, &b.dsec);
	append(&out->writes, &b.writes);
	ret = 0;
out:
	strlist_free(&cfg);
	strlist_free(&mand);
	strlist_free(&pins);
	strlist_free(&covers);
	pb_free(&b);
	free(cwd);
	return ret;
}
