/*
 * The Windows plan (BEHAVIOR §7): the access control entries srt-win adds for the sandbox
 * account, one per line of `srt-policy plan --target windows`.
 *
 * Each filesystem list becomes additive entries, inherited by everything beneath a
 * directory ((OI)(CI)):
 *   allowWrite  ALLOW modify (never delete-child: with it the account could delete any
 *               child of a writable directory, whatever that child's own DENY says)
 *   allowRead   ALLOW read, execute
 *   denyRead    DENY read on the target, DENY delete-child on its parent
 *   denyWrite   DENY write on the target, DENY delete-child on its parent
 *   credentials.files (mode "deny")   as denyRead, and no grant at or beneath it
 * The parent's entry stops the target being removed or renamed away and replaced; it is
 * set on the parent alone (no inheritance), since only the parent's own children are at
 * stake.
 *
 * That is not enough inside a write grant: MODIFY holds DELETE on every directory beneath
 * the root, and DELETE on an object is all a rename of it needs (the other way is
 * FILE_DELETE_CHILD on its parent). The account would move an ancestor of the deny away
 * (.git, with .git\hooks denied beneath it), or the root itself to any directory it may
 * add to, and make the path again with no deny on it. So every directory write root gets
 * DENY delete on itself, and for each deny beneath a write root each directory from that
 * root down to the deny's parent gets DENY delete, and its parent inside the grant DENY
 * delete-child; all on the object alone, so that the files beneath stay removable. (A
 * file's grant already includes removing it, and nothing lies beneath it.)
 *
 * Ranking, as on the other platforms: Windows puts the entries set on an object before
 * the ones it inherits, so an allow set beneath a deny is the one that counts there, and
 * an allowRead (or allowWrite) beneath a denyRead re-opens reads without anything done
 * here; at the very same path srt drops the read deny, as the Linux plan re-binds such a
 * path over its tmpfs. The opposite rank, denyWrite over allowWrite, is done here: a
 * write grant at or beneath a write deny becomes a read grant.
 *
 * Globs are expanded against the disk; a trailing globstar component stands for the
 * directory itself (its entry is inherited by all beneath it). A grant on a missing path
 * grants nothing and is left out. A deny on a missing path inside a write grant stays,
 * for srt-win to make a placeholder there (a directory when the entry ends in "/" or
 * another deny lies beneath it), so that the account cannot create it; outside every
 * write grant it could not create it anyway, and nothing is made, as on Linux. The
 * settings file is made read-only when it lies in a writable path, as on Linux.
 *
 * Beyond the reference, which has none on Windows, the mandatory denies of Linux are
 * written as write denies (mandatory_denies): git's files in every git directory under
 * a write root, and the dangerous names of the one list (wguard_names.c) where they
 * exist, by the same depth rule and switches.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "glob.h"
#include "path.h"
#include "plan.h"
#include "sys_file.h"
#include "utf8.h"
#include "util.h"
#include "wguard.h"

#define GIT_NEST_MAX 64 /* directories of names below a .git/modules */

struct wpath {
	char *path; /* absolute, normalised (resolved when it exists) */
	int dir;    /* an existing directory, or a missing one meant as such */
	int exists;
};

struct wlist {
	struct wpath *v;
	size_t n, cap;
};

struct wb {
	const struct settings *s;
	const struct plan_ctx *ctx;
	struct diags *errs;
	int bad;
	struct plan_windows *out;
};

static void
wlist_push(struct wlist *l, char *path, int dir, int exists)
{
	for (size_t i = 0; i < l->n; i++) {
		if (path_equal(l->v[i].path, path)) {
			free(path);
			return;
		}
	}
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n].path = path;
	l->v[l->n].dir = dir;
	l->v[l->n++].exists = exists;
}

static void
wlist_free(struct wlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static char *
strip_globstar(const char *p)
{
	size_t n = strlen(p);

	/* The separator stays ("C:\**" is "C:\", not the drive-relative "C:"); making
	 * the entry absolute takes it off where it is not a root's. */
	if (n >= 3 && path_is_sep(p[n - 3]) && strcmp(p + n - 2, "**") == 0)
		return xstrndup(p, n - 2);
	return xstrdup(p);
}

/* The resolved path, unless resolving widens the spelled one (a link out of its own
 * tree, as plan_linux refuses for a write bind). NULL when it cannot be used. */
static char *
resolve_within(const char *spelled)
{
	char *r = path_resolve(spelled);

	if (r == NULL || path_equal(r, spelled))
		return r;
	if (path_depth(r) <= 1 || path_is_strictly_under(spelled, r) ||
	    !path_is_strictly_under(r, spelled)) {
		free(r);
		return NULL;
	}
	return r;
}

/* A missing path under the final name of its nearest existing ancestor, so that the
 * part that exists is spelled as the disk has it (case, links), as an existing path
 * is: on Windows the comparisons fold ASCII case only. As spelled when no ancestor
 * resolves. */
static char *
resolve_missing(const char *n)
{
	char *cur = xstrdup(n), *up, *r = NULL, *out;
	const char *rest;

	while (r == NULL) {
		up = path_dirname(cur);
		if (path_equal(up, cur)) {
			free(up);
			free(cur);
			return xstrdup(n);
		}
		free(cur);
		cur = up;
		r = path_resolve(cur);
	}
	for (rest = n + strlen(cur); path_is_sep(*rest); rest++)
		;
	out = path_join(r, rest);
	free(r);
	free(cur);
	return out;
}

/* One concrete path of a list: a grant must exist; a deny lands on what the name
 * resolves to, or on its existing ancestor's when it is missing, or stays as spelled
 * when it has no final name this plan can spell (a UNC share on Windows). -1 for a
 * deny with no absolute name at all. */
static int
take(const char *abs, int deny, int dir_hint, struct wlist *out)
{
	struct stat st;
	char *n = path_normalize(abs), *r;

	if (n == NULL) {
		log_debug("plan: %s: not an absolute path here; no entry", abs);
		return deny ? -1 : 0;
	}
	if (stat(n, &st) == -1) {
		if (deny) {
			wlist_push(out, resolve_missing(n), dir_hint, 0);
			free(n);
		} else {
			log_debug("plan: %s: %s; no grant", n, strerror(errno));
			free(n);
		}
		return 0;
	}
	if (deny && (r = path_resolve(n)) == NULL) {
		log_debug("plan: %s: %s; denied as spelled", n, strerror(errno));
		r = n;
		n = NULL;
	} else if (!deny && (r = resolve_within(n)) == NULL)
		log_debug("plan: %s resolves outside itself; no grant", n);
	free(n);
	if (r == NULL)
		return 0;
	wlist_push(out, r, S_ISDIR(st.st_mode), 1);
	return 0;
}

static void
unplaced(struct wb *b, const char *what, size_t i, const char *entry)
{
	diags_add(
	    b->errs, "%s[%zu]: \"%s\" has no absolute name the plan can spell", what, i, entry);
	b->bad = 1;
}

/* A list's entries made absolute and concrete (SPEC §5: globs expanded at launch). */
static void
expand(struct wb *b, const struct path_list *l, const char *what, int deny, struct wlist *out)
{
	struct strlist found = { 0 };
	struct stat st;

	for (size_t i = 0; i < l->n; i++) {
		const struct path_entry *e = &l->v[i];
		size_t len = strlen(e->path);
		int dir_hint = len > 0 && path_is_sep(e->path[len - 1]);
		char *spelled, *abs;
		int r;

		spelled = e->literal ? xstrdup(e->path) : strip_globstar(e->path);
		if ((abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd)) == NULL) {
			if (deny) {
				const char *why = path_refusal(spelled);

				diags_add(b->errs,
				    "%s[%zu]: \"%s\" cannot be made "
				    "absolute (%s)",
				    what, i, e->path,
				    why != NULL ? why
						: "no home directory or working directory");
				b->bad = 1;
			}
			free(spelled);
			continue;
		}
		if (e->literal || !glob_has_magic(spelled)) {
			if (take(abs, deny, dir_hint, out) == -1)
				unplaced(b, what, i, e->path);
			free(abs);
			free(spelled);
			continue;
		}
		/* A glob that is also the name of something on disk is taken as that name too. */
		if (lstat(abs, &st) == 0 && take(abs, deny, dir_hint, out) == -1)
			unplaced(b, what, i, e->path);
		r = glob_expand(abs, &found);
		if (r == -1 && deny) {
			diags_add(b->errs, "%s[%zu]: \"%s\" cannot be expanded as a glob", what,
			    i, e->path);
			b->bad = 1;
		} else if (glob_report_limit(r, deny, b->errs, what, i, e->path))
			b->bad = 1;
		for (size_t k = 0; k < found.n; k++)
			if (take(found.v[k], deny, 0, out) == -1)
				unplaced(b, what, i, e->path);
		strlist_free(&found);
		free(abs);
		free(spelled);
	}
}

static void
ace_add(struct plan_windows *p, int deny, const char *path, unsigned rights, int inherit)
{
	plan_ace_add(p, deny, path, rights, inherit, path_equal);
}

/* DENY on the target, and DENY delete-child on the directory holding it. */
static void
deny_add(struct plan_windows *p, const struct wpath *w, unsigned rights)
{
	char *parent = path_dirname(w->path);

	ace_add(p, 1, w->path, rights, w->dir);
	if (!path_equal(parent, w->path))
		ace_add(p, 1, parent, PLAN_R_DELETE_CHILD, 0);
	free(parent);
}

/* Whether p is in relation rel (path_is_under, path_equal) to an entry of l. */
static int
any_entry(const char *p, const struct wlist *l, int (*rel)(const char *, const char *))
{
	for (size_t i = 0; i < l->n; i++)
		if (rel(p, l->v[i].path))
			return 1;
	return 0;
}

/* A deny on a missing path matters only where the account could create it: inside a
 * write grant. There it is a directory when another deny lies beneath it. */
static void
missing_denies(struct wlist *dr, struct wlist *dw, const struct wlist *write)
{
	struct wlist *lists[2] = { dr, dw };

	for (int l = 0; l < 2; l++) {
		struct wlist *w = lists[l];

		for (size_t i = 0; i < w->n;) {
			struct wpath *e = &w->v[i];

			if (e->exists) {
				i++;
				continue;
			}
			if (!any_entry(e->path, write, path_is_under)) {
				log_debug(
				    "plan: %s is missing and not writable: no entry", e->path);
				free(e->path);
				memmove(e, e + 1, (w->n - i - 1) * sizeof(*e));
				w->n--;
				continue;
			}
			for (int m = 0; m < 2 && !e->dir; m++)
				for (size_t k = 0; k < lists[m]->n && !e->dir; k++)
					e->dir = path_is_strictly_under(
					    lists[m]->v[k].path, e->path);
			i++;
		}
	}
}

/*
 * The directories between a write root and a deny beneath it: their own DELETE (which
 * renames as well as deletes) denied on each, on the object alone, and delete-child on
 * each one's parent inside the grant. Without them the account moves an ancestor away
 * (a grant's MODIFY holds DELETE on every directory beneath it) and rebuilds the path
 * with no deny on it. The parent of the deny itself already has its delete-child deny.
 */
static void
ancestors_protect(struct plan_windows *p, const char *target, const struct wlist *write)
{
	for (size_t i = 0; i < write->n; i++) {
		const char *root = write->v[i].path;
		char *a, *up;

		if (!path_is_strictly_under(target, root))
			continue;
		a = path_dirname(target);
		for (;;) {
			ace_add(p, 1, a, PLAN_R_DELETE, 0);
			if (path_equal(a, root) || !path_is_strictly_under(a, root))
				break;
			up = path_dirname(a);
			ace_add(p, 1, up, PLAN_R_DELETE_CHILD, 0);
			free(a);
			a = up;
		}
		free(a);
	}
}

struct mwalk {
	struct wb *b;
	struct wlist *out;
	int depth;
	struct glob_budget budget;
};

/* Through links, as the C runtime's stat on Windows goes through a junction: a linked
 * .vscode is met as the directory it leads to, and take() denies that. */
static int
is_dir_path(const char *p, int *exists)
{
	struct stat st;

	*exists = stat(p, &st) == 0;
	return *exists && S_ISDIR(st.st_mode);
}

static void
mwalk_take(struct mwalk *w, const char *p, int dir)
{
	if (take(p, 1, dir, w->out) == -1)
		log_debug("plan: %s: no name the plan can spell; no mandatory deny", p);
}

static void mandatory_git(struct mwalk *, const char *, int, int);

/* The git directories under a modules/ (a submodule's name may hold "/", so an entry
 * with no HEAD and no config is looked into) or a worktrees/ (each linked worktree's
 * files: its config.worktree, commondir and gitdir). */
static void
git_subdirs(struct mwalk *w, const char *dir, int worktrees, int level)
{
	struct dirent *de;
	DIR *d;

	if (level > GIT_NEST_MAX || (d = opendir(dir)) == NULL)
		return;
	while ((de = glob_readdir(d, &w->budget)) != NULL) {
		char *child, *head, *cfg;
		int exists, hx, cx;

		child = path_join(dir, de->d_name);
		if (is_dir_path(child, &exists)) {
			head = path_join(child, "HEAD");
			cfg = path_join(child, "config");
			(void)is_dir_path(head, &hx);
			(void)is_dir_path(cfg, &cx);
			if (worktrees || hx || cx)
				mandatory_git(w, child, !worktrees, level + 1);
			else
				git_subdirs(w, child, 0, level + 1);
			free(head);
			free(cfg);
		}
		free(child);
	}
	closedir(d);
}

/*
 * A git directory's files that git acts on outside the sandbox (wguard_git_files): each
 * that exists, and (missing_too) its hooks and config even when missing, so that the
 * account cannot make them; then the git directories of its submodules and linked
 * worktrees. The lock files are not denied: git renames one over its file, which the
 * deny on that file refuses.
 */
static void
mandatory_git(struct mwalk *w, const char *gitdir, int missing_too, int level)
{
	int allow = w->b->s->fs.allow_git_config, exists, dir;
	char *p;

	for (size_t i = 0; i < wguard_ngit_files; i++) {
		const struct wguard_git_file *f = &wguard_git_files[i];
		size_t n = strlen(f->name);

		if ((f->config && allow) || (n > 5 && strcmp(f->name + n - 5, ".lock") == 0))
			continue;
		p = path_join(gitdir, f->name);
		dir = is_dir_path(p, &exists);
		if (exists)
			mwalk_take(w, p, dir);
		else if (missing_too &&
		    (strcmp(f->name, "hooks") == 0 || strcmp(f->name, "config") == 0))
			mwalk_take(w, p, strcmp(f->name, "hooks") == 0);
		free(p);
	}
	p = path_join(gitdir, "modules");
	git_subdirs(w, p, 0, level);
	free(p);
	p = path_join(gitdir, "worktrees");
	git_subdirs(w, p, 1, level);
	free(p);
}

/* The dangerous names (wguard_names) in dir by the Linux plan's depth rule, and the git
 * directories on the way; no node_modules, nothing beneath a .git. */
static void
mwalk_dir(struct mwalk *w, const char *dir, int level)
{
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = glob_readdir(d, &w->budget)) != NULL) {
		const char *name = de->d_name;
		char *child;
		int isdir, exists;

		child = path_join(dir, name);
		isdir = is_dir_path(child, &exists);
		for (size_t i = 0; exists && i < wguard_nnames; i++) {
			const struct wguard_name *n = &wguard_names[i];
			const char *slash = strchr(n->name, '/');
			char *sub;
			int sdir, sex;

			if (slash == NULL) {
				if (strcasecmp(name, n->name) == 0 &&
				    (n->kind == WG_FILE ? level <= w->depth - 1
							: isdir && level <= w->depth - 2))
					mwalk_take(w, child, isdir);
				continue;
			}
			/* "X/Y": Y in a directory X at its level. */
			if (!isdir || level > w->depth - 2 ||
			    strncasecmp(name, n->name, (size_t)(slash - n->name)) != 0 ||
			    name[slash - n->name] != '\0')
				continue;
			sub = path_join(child, slash + 1);
			sdir = is_dir_path(sub, &sex);
			if (sex)
				mwalk_take(w, sub, sdir);
			free(sub);
		}
		if (exists && level <= w->depth - 2 && strcasecmp(name, ".git") == 0) {
			/* A directory is a git directory; a file, a worktree's or submodule's
			 * pointer to one, which git would follow. */
			if (isdir)
				mandatory_git(w, child, 1, 0);
			else
				mwalk_take(w, child, 0);
		}
		if (isdir && level + 1 <= w->depth - 1 && strcmp(name, "node_modules") != 0 &&
		    strcasecmp(name, ".git") != 0)
			mwalk_dir(w, child, level + 1);
		free(child);
	}
	closedir(d);
}

/* The nearest directory named .git at or above p, taken as a git directory. */
static void
git_above(struct mwalk *w, const char *p)
{
	char *a = xstrdup(p), *up;
	int exists;

	for (;;) {
		if (strcasecmp(path_basename(a), ".git") == 0 && is_dir_path(a, &exists)) {
			mandatory_git(w, a, 1, 0);
			break;
		}
		up = path_dirname(a);
		if (path_equal(up, a)) {
			free(up);
			break;
		}
		free(a);
		a = up;
	}
	free(a);
}

static int
wpath_cmp(const void *a, const void *b)
{
	return strcmp(((const struct wpath *)a)->path, ((const struct wpath *)b)->path);
}

/*
 * The mandatory denies (beyond the reference, which has none on Windows): under every
 * write root that is a directory, and under the working directory, the names of
 * wguard_names that exist there by the depth rule, and in each git directory met (and
 * the one a write root lies in) its hooks, configuration and pointers (hooks and config
 * even when missing). Entries outside every write grant are dropped: the account could not change
 * them anyway. Missing names other than git's get no placeholder: on Windows a
 * placeholder is a real file in the user's tree for the run's length.
 */
static void
mandatory_denies(struct wb *b, const struct wlist *write, struct wlist *dw)
{
	struct wlist found = { 0 }, roots = { 0 };
	struct mwalk w;
	char *cwd;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.b = b;
	w.out = &found;
	w.budget.max = WGUARD_WALK_MAX;
	w.depth = b->s->deny_search_depth > 0 ? b->s->deny_search_depth : WGUARD_DEPTH_DEFAULT;
	for (i = 0; i < write->n; i++)
		if (write->v[i].dir)
			wlist_push(&roots, xstrdup(write->v[i].path), 1, 1);
	/* The cwd's repository even when only a part of it is writable (.git alone), as
	 * on Linux. */
	if (write->n > 0 && b->ctx->cwd != NULL && (cwd = path_resolve(b->ctx->cwd)) != NULL)
		wlist_push(&roots, cwd, 1, 1);
	for (i = 0; i < roots.n && !w.budget.truncated; i++)
		mwalk_dir(&w, roots.v[i].path, 0);
	/* A write root in a git directory (.git\hooks, .git itself): that directory's
	 * files, which no walk beneath a root meets. */
	for (i = 0; i < write->n && !w.budget.truncated; i++)
		git_above(&w, write->v[i].path);
	if (w.budget.truncated) {
		diags_add(b->errs,
		    "the search for protected files under the write roots "
		    "stopped after %d entries: lower mandatoryDenySearchDepth (now %d), or "
		    "narrow allowWrite to the directories the command needs",
		    WGUARD_WALK_MAX, w.depth);
		b->bad = 1;
	}
	/* In a stable order, whatever order the directories were read in. */
	if (found.n > 1)
		qsort(found.v, found.n, sizeof(*found.v), wpath_cmp);
	for (i = 0; i < found.n; i++)
		if (any_entry(found.v[i].path, write, path_is_under))
			wlist_push(
			    dw, xstrdup(found.v[i].path), found.v[i].dir, found.v[i].exists);
	wlist_free(&found);
	wlist_free(&roots);
}

static void
settings_file_deny(struct wb *b, const struct wlist *write, struct wlist *dw)
{
	const char *sp = b->ctx->settings_path;
	char *r;

	if (sp == NULL || (r = path_resolve(sp)) == NULL)
		return;
	if (any_entry(r, write, path_is_under))
		wlist_push(dw, r, 0, 1);
	else
		free(r);
}

int
plan_windows_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_windows *out, struct diags *errs)
{
	struct wb b = { s, ctx, errs, 0, out };
	struct wlist ar = { 0 }, aw = { 0 }, dr = { 0 }, dw = { 0 }, cd = { 0 };
	struct wlist read = { 0 }, write = { 0 };
	size_t i;

	memset(out, 0, sizeof(*out));
	/* filesystem.disabled: no grant and no deny, as the reference does on Windows. */
	if (s->fs.disabled)
		return 0;
	expand(&b, &s->fs.allow_read, "filesystem.allowRead", 0, &ar);
	expand(&b, &s->fs.allow_write, "filesystem.allowWrite", 0, &aw);
	expand(&b, &s->fs.deny_read, "filesystem.denyRead", 1, &dr);
	expand(&b, &s->fs.deny_write, "filesystem.denyWrite", 1, &dw);
	expand(&b, &s->cred.deny_files, "credentials.files", 1, &cd);
	if (b.bad)
		goto fail;

	/* A credentials file is read-denied like denyRead, and ranks above every grant: one
	 * at or beneath it is not made at all, as the reference has it. */
	for (i = 0; i < ar.n; i++)
		if (any_entry(ar.v[i].path, &cd, path_is_under))
			log_debug("plan: allowRead %s is at or beneath a credentials file: no "
				  "grant",
			    ar.v[i].path);
		else
			wlist_push(&read, xstrdup(ar.v[i].path), ar.v[i].dir, 1);
	for (i = 0; i < cd.n; i++)
		wlist_push(&dr, xstrdup(cd.v[i].path), cd.v[i].dir, cd.v[i].exists);
	for (i = 0; i < aw.n; i++) {
		if (any_entry(aw.v[i].path, &cd, path_is_under)) {
			log_debug("plan: allowWrite %s is at or beneath a credentials file: no "
				  "grant",
			    aw.v[i].path);
			continue;
		}
		/* denyWrite ranks above allowWrite: at or beneath one, a write grant reads. */
		if (any_entry(aw.v[i].path, &dw, path_is_under)) {
			log_debug("plan: allowWrite %s is at or beneath a denyWrite: read only",
			    aw.v[i].path);
			wlist_push(&read, xstrdup(aw.v[i].path), aw.v[i].dir, 1);
		} else
			wlist_push(&write, xstrdup(aw.v[i].path), aw.v[i].dir, 1);
	}
	settings_file_deny(&b, &write, &dw);
	mandatory_denies(&b, &write, &dw);
	if (b.bad)
		goto fail_all;
	missing_denies(&dr, &dw, &write);

	for (i = 0; i < read.n; i++)
		ace_add(out, 0, read.v[i].path, PLAN_R_READ | PLAN_R_EXECUTE, read.v[i].dir);
	for (i = 0; i < write.n; i++) {
		ace_add(out, 0, write.v[i].path, PLAN_R_MODIFY, write.v[i].dir);
		/* A directory root cannot be moved away and rebuilt without its denies. (A
		 * file's own grant includes removing it, and nothing lies beneath it.) */
		if (write.v[i].dir)
			ace_add(out, 1, write.v[i].path, PLAN_R_DELETE, 0);
	}
	for (i = 0; i < dr.n; i++) {
		/* An allow at the denied path itself ranks above the deny (and beneath it,
		 * Windows' own order does it). */
		if (any_entry(dr.v[i].path, &read, path_equal) ||
		    any_entry(dr.v[i].path, &write, path_equal)) {
			log_debug(
			    "plan: denyRead %s is also allowed: no read deny", dr.v[i].path);
			continue;
		}
		deny_add(out, &dr.v[i], PLAN_R_READ);
		ancestors_protect(out, dr.v[i].path, &write);
	}
	for (i = 0; i < dw.n; i++) {
		deny_add(out, &dw.v[i], PLAN_R_WRITE);
		ancestors_protect(out, dw.v[i].path, &write);
	}

	wlist_free(&ar);
	wlist_free(&aw);
	wlist_free(&dr);
	wlist_free(&dw);
	wlist_free(&cd);
	wlist_free(&read);
	wlist_free(&write);
	return 0;
fail_all:
	wlist_free(&read);
	wlist_free(&write);
fail:
	wlist_free(&ar);
	wlist_free(&aw);
	wlist_free(&dr);
	wlist_free(&dw);
	wlist_free(&cd);
	plan_windows_free(out);
	return -1;
}

/* The format's names are plan_ace.h's, which plan_windows_read.c reads back. */
char *
plan_ace_json(const struct plan_ace *a)
{
	const unsigned char *p = (const unsigned char *)a->path;
	size_t left = strlen(a->path), cap = left * 6 + 160, n = 0, k;
	char *buf = xmalloc(cap);
	const char *sep = "";
	long cp;

	n += (size_t)snprintf(buf + n, cap - n, "{\"%s\":\"%s\",\"%s\":\"", PLAN_KEY_ACE,
	    a->deny ? PLAN_ACE_DENY : PLAN_ACE_ALLOW, PLAN_KEY_PATH);
	for (; left > 0; left -= k) {
		k = utf8_decode(p, left, &cp);
		if (cp == UTF8_BAD) {
			/* Windows names are Unicode: a path that is not cannot be planned. */
			free(buf);
			errno = EILSEQ;
			return NULL;
		}
		if (*p == '"' || *p == '\\') {
			buf[n++] = '\\';
			buf[n++] = (char)*p;
		} else if (*p < 0x20 || *p == 0x7f)
			n += (size_t)snprintf(buf + n, cap - n, "\\u%04x", *p);
		else {
			memcpy(buf + n, p, k);
			n += k;
		}
		p += k;
	}
	n += (size_t)snprintf(buf + n, cap - n, "\",\"%s\":[", PLAN_KEY_RIGHTS);
	for (size_t i = 0; i < PLAN_NRIGHTS; i++) {
		if (!(a->rights & (1u << i)))
			continue;
		n += (size_t)snprintf(
		    buf + n, cap - n, "%s\"%s\"", sep, plan_ace_right_names[i]);
		sep = ",";
	}
	snprintf(buf + n, cap - n, "],\"%s\":\"%s\"}", PLAN_KEY_INHERIT,
	    a->inherit ? PLAN_INHERIT_ALL : "");
	return buf;
}

int
plan_windows_text(
    const struct settings *s, const struct plan_ctx *ctx, char **text, struct diags *errs)
{
	struct plan_windows p = { 0 };
	struct buf b = { 0 };
	char *line;
	int rc = -1;

	*text = NULL;
	if (plan_windows_build(s, ctx, &p, errs) != 0) {
		if (errs->msgs.n == 0)
			diags_add(errs, "cannot build the Windows plan");
		goto out;
	}
	buf_adds(&b, "");
	for (size_t i = 0; i < p.n; i++) {
		if ((line = plan_ace_json(&p.v[i])) == NULL) {
			diags_add(errs, "%s: not UTF-8, so no Windows name", p.v[i].path);
			goto out;
		}
		buf_adds(&b, line);
		buf_addc(&b, '\n');
		free(line);
	}
	*text = buf_steal(&b);
	rc = 0;
out:
	buf_free(&b);
	plan_windows_free(&p);
	return rc;
}
