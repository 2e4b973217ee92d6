/*
 * The bubblewrap filesystem plan: the mandatory denies (BEHAVIOR §4.1; SPEC §5), found by
 * walking every writable root the settings name, with the git directories met on the way
 * (their hooks, configuration, modules and work trees) and the global git configuration.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gitconfig.h"
#include "glob.h"
#include "log.h"
#include "path.h"
#include "plan.h"
#include "plan_linux_int.h"
#include "util.h"
#include "wguard.h"

#define GIT_NEST_MAX 64 /* directories of names below a .git/modules */

/* --- mandatory denies ---------------------------------------------------------------- */

/*
 * The entry of wguard_names a file or directory name found at level is, or NULL.
 * guarded: the write guard runs, and owns the names it lets be written.
 */
static const struct wguard_name *
dangerous_at(int depth, const char *name, int isdir, int level, int guarded)
{
	size_t i;

	for (i = 0; i < wguard_nnames; i++) {
		const struct wguard_name *n = &wguard_names[i];

		if (strchr(n->name, '/') != NULL || strcasecmp(name, n->name) != 0 ||
		    (guarded && wguard_name_writable(n)))
			continue;
		if (n->kind == WG_FILE ? level <= depth - 1 : isdir && level <= depth - 2)
			return n;
	}
	return NULL;
}

/* Directory name under dfd as a stream, never through a symlink; NULL if it is none. */
static DIR *
opendir_at(int dfd, const char *name)
{
	DIR *d;
	int fd;

	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL)
		close(fd);
	return d;
}

/* The name in directory fd that equals want, case aside (the reference's scan ignores it). */
static char *
find_ci(int dfd, const char *name, const char *want)
{
	struct dirent *de;
	char *found = NULL;
	DIR *d;

	if ((d = opendir_at(dfd, name)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL)
		if (strcasecmp(de->d_name, want) == 0) {
			found = xstrdup(de->d_name);
			break;
		}
	closedir(d);
	return found;
}

struct mwalk {
	struct pb *b;
	int depth;
	struct glob_budget budget; /* WGUARD_WALK_MAX entries */
	struct strlist *out;
};

/* The type (S_IFDIR, S_IFREG, ...) of the entry de of directory d, links not followed; 0
 * when it cannot be had. */
static mode_t
entry_type(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return DTTOIF(de->d_type);
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0
	    ? st.st_mode & S_IFMT
	    : 0;
}

/* One more directory entry read; 0 once the walk's budget is spent. */
static int
mwalk_count(struct mwalk *w)
{
	if (w->budget.truncated)
		return 0;
	if (++w->budget.entries > w->budget.max) {
		w->budget.truncated = 1;
		return 0;
	}
	return 1;
}

/* The next entry of d that is a directory (not "." or ".."); every entry read, those two
 * too, is counted (mwalk_count). NULL at the end, or once the budget is spent. */
static struct dirent *
mwalk_next_dir(struct mwalk *w, DIR *d)
{
	struct dirent *de;

	while ((de = readdir(d)) != NULL && mwalk_count(w))
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
		    entry_type(d, de) == S_IFDIR)
			return de;
	return NULL;
}

/* --- git directories ------------------------------------------------------------------ */

/*
 * A git directory holds more than .git/hooks and .git/config that git acts on outside the
 * sandbox: the git directories of submodules (modules/NAME, NAME may hold "/", nested
 * submodules under modules/NAME/modules), config.worktree (read when
 * extensions.worktreeConfig is set), each linked worktree's config.worktree and commondir
 * (which says where that worktree's hooks and config are), the directory core.hooksPath
 * names and the files the configuration includes.
 */
enum gitkind {
	GIT_TOP,    /* the cwd's .git: its hooks are denied even before there is a HEAD */
	GIT_FOUND,  /* a .git the walk found: a repository if it has a HEAD or hooks */
	GIT_MODULE, /* an entry of modules/: a git directory if it has a HEAD, hooks or
	                   a config, else perhaps a directory of a submodule name with "/" */
};

/* The names in a git directory the denies are about, as spelt there (case aside). */
struct gitnames {
	char *head, *hooks, *config, *config_wt, *modules, *worktrees, *commondir;
};

static void
gitnames_free(struct gitnames *g)
{
	free(g->head);
	free(g->hooks);
	free(g->config);
	free(g->config_wt);
	free(g->modules);
	free(g->worktrees);
	free(g->commondir);
	memset(g, 0, sizeof(*g));
}

static void
gitnames_scan(struct mwalk *w, int fd, struct gitnames *g)
{
	static const struct {
		const char *name;
		size_t off;
	} want[] = {
		{ "HEAD", offsetof(struct gitnames, head) },
		{ "hooks", offsetof(struct gitnames, hooks) },
		{ "config", offsetof(struct gitnames, config) },
		{ "config.worktree", offsetof(struct gitnames, config_wt) },
		{ "modules", offsetof(struct gitnames, modules) },
		{ "worktrees", offsetof(struct gitnames, worktrees) },
		{ "commondir", offsetof(struct gitnames, commondir) },
	};
	struct dirent *de;
	char **slot;
	size_t i;
	DIR *d;
	int dfd;

	memset(g, 0, sizeof(*g));
	/* A description of its own: fd keeps its offset for the caller. */
	if ((dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL && mwalk_count(w))
		for (i = 0; i < nitems(want); i++) {
			slot = (char **)(void *)((char *)g + want[i].off);
			if (*slot == NULL && strcasecmp(de->d_name, want[i].name) == 0)
				*slot = xstrdup(de->d_name);
		}
	closedir(d);
}

/*
 * A path git reads from a configuration value: "~" and "~/..." against the home
 * directory, "~user/..." against that user's, an absolute path as it is, anything else
 * against base (NULL when git's base is not known here: nothing is denied).
 */
static char *
git_path(struct pb *b, const char *v, const char *base)
{
	char *user, *out, buf[16384];
	struct passwd pw, *res = NULL;
	const char *slash;

	if (*v == '\0')
		return NULL;
	if (*v == '~' && v[1] != '\0' && v[1] != '/') {
		slash = strchr(v, '/');
		user = xstrndup(v + 1, slash != NULL ? (size_t)(slash - v - 1) : strlen(v + 1));
		if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) != 0 || res == NULL ||
		    *pw.pw_dir != '/') {
			free(user);
			return NULL;
		}
		free(user);
		user = xasprintf("%s/%s", pw.pw_dir, slash != NULL ? slash + 1 : "");
		out = path_normalize(user);
		free(user);
		return out;
	}
	if (*v == '~')
		return b->ctx->home != NULL && *b->ctx->home == '/'
		    ? path_expand(v, b->ctx->home, NULL)
		    : NULL;
	if (*v == '/')
		return path_normalize(v);
	return base != NULL ? path_expand(v, NULL, base) : NULL;
}

static void
git_push(struct mwalk *w, char *p)
{
	if (p != NULL && !strlist_contains(w->out, p))
		strlist_push(w->out, p);
	free(p);
}

/*
 * Read a configuration file that denies depend on. A file git would refuse is still used
 * up to the line it refuses (what it names is protected for nothing at worst); one that
 * cannot be read at all names nothing we can know, so say so.
 */
static void
git_config_load(int dfd, const char *name, const char *shown, struct gitconfig *c)
{
	if (gitconfig_read(dfd, name, c) != -1)
		return;
	if (c->error_line > 0)
		log_warnx("%s: line %d is not git configuration; core.hooksPath and includes "
			  "are taken from the lines before it",
		    shown, c->error_line);
	else if (errno == EINVAL)
		log_warnx("%s: not a regular file; not read for core.hooksPath", shown);
	else
		log_warn("%s: cannot read it for core.hooksPath", shown);
}

/*
 * The configuration file shown (dfd/name), parsed once a plan: a git directory is
 * visited once for each work tree it is found with, and a file may be included many
 * times; read each time, a 1 MB config named by 1,000 .git files took 7 seconds.
 */
static const struct gitconfig *
git_config_get(struct pb *b, int dfd, const char *name, const char *shown)
{
	struct gitconfig *c;
	ssize_t i;

	if ((i = strlist_index(&b->cfg_paths, shown)) != -1)
		return b->cfgs[i];
	c = xmalloc(sizeof(*c));
	gitconfig_init(c);
	git_config_load(dfd, name, shown, c);
	if (b->ncfgs == b->capcfgs) {
		b->capcfgs = b->capcfgs ? b->capcfgs * 2 : 16;
		b->cfgs = xreallocarray(b->cfgs, b->capcfgs, sizeof(*b->cfgs));
	}
	b->cfgs[b->ncfgs++] = c;
	strlist_push(&b->cfg_paths, shown);
	return c;
}

#define GIT_INCLUDE_DEPTH 10 /* git's own limit on nested includes */

/* The hooks in dir that are links: what they lead to is what git runs (guard_chain). */
static void
git_hook_links(struct mwalk *w, const char *dir)
{
	struct dirent *de;
	DIR *d;
	int fd;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL && mwalk_count(w))
		if (de->d_type == DT_LNK)
			git_push(w, path_join(dir, de->d_name));
	closedir(d);
}

/* A command git runs (core.fsmonitor): its program, when it names one by a path. */
static char *
git_command_path(struct pb *b, const char *v, const char *base)
{
	char *word, *p;
	size_t n;

	if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0 ||
	    strcasecmp(v, "yes") == 0 || strcasecmp(v, "no") == 0 || strcmp(v, "1") == 0 ||
	    strcmp(v, "0") == 0 || *v == '\0')
		return NULL;
	n = strcspn(v, " \t");
	word = xstrndup(v, n);
	/* A bare name is looked up in PATH: not the work tree's to change. */
	p = strchr(word, '/') != NULL || *word == '~' ? git_path(b, word, base) : NULL;
	free(word);
	return p;
}

/*
 * The files one configuration's includes read, each with the least depth it was read
 * at: a file included again at that depth or deeper adds nothing new. Read each time,
 * a config that includes itself 8 times is read 8^10 times (srt never started).
 */
struct incseen {
	struct strlist paths;
	int *depth;
	size_t cap;
};

/* Is p to be read at depth: not yet, or only deeper? Then it is, from now on. */
static bool
inc_first(struct incseen *seen, const char *p, int depth)
{
	ssize_t i;

	if ((i = strlist_index(&seen->paths, p)) != -1) {
		if (seen->depth[i] <= depth)
			return false;
		seen->depth[i] = depth;
		return true;
	}
	if (seen->paths.n == seen->cap) {
		seen->cap = seen->cap ? seen->cap * 2 : 16;
		seen->depth = xreallocarray(seen->depth, seen->cap, sizeof(*seen->depth));
	}
	seen->depth[seen->paths.n] = depth;
	strlist_push(&seen->paths, p);
	return true;
}

static void
inc_free(struct incseen *seen)
{
	strlist_free(&seen->paths);
	free(seen->depth);
}

/*
 * The denies a parsed configuration adds, and those of the files it includes, read in
 * turn (to git's depth of 10, each file once at a depth; seen): its core.hooksPath (relative: against the work tree, as
 * git resolves it for a repository that is not bare) and the hooks there that are links,
 * the relative hooksPath of the global configuration for this work tree, its
 * core.fsmonitor program, its init.templateDir (copied into every repository made
 * later), and its included files (relative: against the file's own directory), which
 * the command must not be able to rewrite or create.
 */
static void
git_config_denies_at(struct mwalk *w, const struct gitconfig *c, const char *worktree,
    const char *filedir, int globals, int depth, struct incseen *seen)
{
	struct pb *b = w->b;
	char *p, *dir;
	size_t i;

	if (c->hooks_path != NULL && (p = git_path(b, c->hooks_path, worktree)) != NULL) {
		git_hook_links(w, p);
		git_push(w, p);
	}
	for (i = 0; globals && worktree != NULL && i < b->git_global_rel.n; i++)
		git_push(w, git_path(b, b->git_global_rel.v[i], worktree));
	if (c->fsmonitor != NULL)
		git_push(w, git_command_path(b, c->fsmonitor, worktree));
	if (c->template_dir != NULL)
		git_push(w, git_path(b, c->template_dir, filedir));
	for (i = 0; i < c->includes.n; i++) {
		if ((p = git_path(b, c->includes.v[i], filedir)) == NULL)
			continue;
		/* Read as git reads it, where it exists: what it sets counts too. */
		if (depth < GIT_INCLUDE_DEPTH && inc_first(seen, p, depth + 1)) {
			dir = path_dirname(p);
			git_config_denies_at(w, git_config_get(b, AT_FDCWD, p, p), worktree,
			    dir, 0, depth + 1, seen);
			free(dir);
		}
		git_push(w, p);
	}
}

static void
git_config_denies(struct mwalk *w, const struct gitconfig *c, const char *worktree,
    const char *filedir, int globals)
{
	struct incseen seen = { 0 };

	git_config_denies_at(w, c, worktree, filedir, globals, 0, &seen);
	inc_free(&seen);
}

/* A small file's first line (a linked worktree's gitdir pointer), or NULL. */
static char *
read_line_at(int dfd, const char *name)
{
	char *text = NULL, *nl, *out = NULL;
	struct stat st;
	size_t len;
	int fd;

	fd = openat(dfd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return NULL;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    read_fd_all(fd, PATH_MAX + 1, &text, &len) == 0 &&
	    memchr(text, '\0', len) == NULL) {
		if ((nl = strchr(text, '\n')) != NULL)
			*nl = '\0';
		out = xstrdup(text);
	}
	free(text);
	close(fd);
	return out;
}

static int git_protect(
    struct mwalk *, int, const char *, const char *, const char *, enum gitkind, int);

/*
 * Is a git config bound read-only? Only without the write guard: with it, the guard
 * owns config and config.worktree by name and lets them change by content (git's lock
 * file renamed onto them, judged and installed by the supervisor; lib/sandbox/wguard.h), which
 * a read-only mount would make fail. Never with allowGitConfig.
 */
static int
git_config_bound(const struct pb *b)
{
	return !b->s->fs.allow_git_config && b->ctx->unguarded;
}

/* modules/ of a git directory: every git directory below it, nested or with "/" names. */
static void
git_modules(struct mwalk *w, int pfd, const char *name, const char *dir, int level)
{
	struct dirent *de;
	char *child;
	DIR *d;

	if (level > GIT_NEST_MAX) {
		log_warnx("%s: submodules nested deeper than %d levels are not searched", dir,
		    GIT_NEST_MAX);
		return;
	}
	if ((d = opendir_at(pfd, name)) == NULL)
		return;
	while ((de = mwalk_next_dir(w, d)) != NULL) {
		child = path_join(dir, de->d_name);
		if (!git_protect(w, dirfd(d), de->d_name, child, NULL, GIT_MODULE, level))
			git_modules(w, dirfd(d), de->d_name, child, level + 1);
		free(child);
	}
	closedir(d);
}

/*
 * A linked worktree's root, from the gitdir file of its admin directory afd (admin):
 * where its .git file is (a relative path, worktree.useRelativePaths, is taken against
 * admin), or NULL.
 */
static char *
git_worktree_root(int afd, const char *admin)
{
	char *ptr, *abs, *norm, *wt = NULL;

	if ((ptr = read_line_at(afd, "gitdir")) == NULL || *ptr == '\0') {
		free(ptr);
		return NULL;
	}
	abs = *ptr == '/' ? xstrdup(ptr) : path_join(admin, ptr);
	if ((norm = path_normalize(abs)) != NULL)
		wt = path_dirname(norm);
	free(norm);
	free(abs);
	free(ptr);
	return wt;
}

/*
 * worktrees/ of the git directory gitdir: each linked worktree's own files, and what
 * the repository's configuration main (and the global one) names relative to a work
 * tree, taken against each worktree's root as git there takes it (core.hooksPath
 * .githooks is the worktree's own .githooks, a file of its checkout).
 */
static void
git_worktrees(struct mwalk *w, int pfd, const char *name, const char *dir, const char *gitdir,
    const struct gitconfig *main)
{
	struct gitnames g;
	struct dirent *de;
	char *admin, *shown, *wt;
	DIR *d;
	int afd;

	if ((d = opendir_at(pfd, name)) == NULL)
		return;
	while ((de = mwalk_next_dir(w, d)) != NULL) {
		afd = openat(
		    dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (afd == -1)
			continue;
		admin = path_join(dir, de->d_name);
		gitnames_scan(w, afd, &g);
		/* Rewritten, commondir would send that worktree's git to other hooks. */
		if (g.commondir != NULL)
			git_push(w, path_join(admin, g.commondir));
		if (git_config_bound(w->b) &&
		    (g.config_wt != NULL || main->worktree_config == 1))
			git_push(w,
			    path_join(
				admin, g.config_wt != NULL ? g.config_wt : "config.worktree"));
		wt = git_worktree_root(afd, admin);
		if (wt != NULL)
			git_config_denies(w, main, wt, gitdir, 1);
		if (g.config_wt != NULL) {
			shown = path_join(admin, g.config_wt);
			git_config_denies(
			    w, git_config_get(w->b, afd, g.config_wt, shown), wt, admin, 1);
			free(shown);
		}
		free(wt);
		gitnames_free(&g);
		free(admin);
		close(afd);
	}
	closedir(d);
}

/*
 * The denies of the git directory name in pfd, spelt gitdir, whose work tree is worktree
 * (NULL: not known, unless its core.worktree says). 0 when a GIT_MODULE entry is no git
 * directory. The walk's depth rule decides which .git directories are looked at; below
 * one, every git directory in modules/ is protected however deep it lies (up to
 * GIT_NEST_MAX directories of names): git uses it whenever the submodule's work tree
 * is used, and that work tree lies within the repository the rule admitted.
 */
static int
git_protect(struct mwalk *w, int pfd, const char *name, const char *gitdir,
    const char *worktree, enum gitkind kind, int level)
{
	struct pb *b = w->b;
	int bound = git_config_bound(b), fd, repo;
	const struct gitconfig *c = NULL, *cw = NULL;
	struct gitconfig none;
	struct gitnames g;
	char *wt = NULL, *shown, *done;

	/* Each git directory once for each work tree it is found with (a separate git
	 * directory is found by its own name and by the .git file of its work tree). */
	done = xasprintf("%s\n%s", gitdir, worktree != NULL ? worktree : "");
	if (strlist_contains(&b->git_done, done)) {
		free(done);
		return 1;
	}
	/* The cwd's .git is followed when it is a link, as stat(2) follows it. */
	fd = openat(
	    pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | (kind == GIT_TOP ? 0 : O_NOFOLLOW));
	if (fd == -1) {
		free(done);
		return 0;
	}
	gitnames_scan(w, fd, &g);
	repo = g.head != NULL || g.hooks != NULL;
	if (kind == GIT_MODULE && !repo && g.config == NULL) {
		gitnames_free(&g);
		close(fd);
		free(done);
		return 0;
	}
	strlist_push_owned(&b->git_done, done);
	/* A repository is known by its HEAD: its hooks are denied before there are any,
	 * and where a hook is a link, what it leads to. */
	if (repo || kind == GIT_TOP) {
		char *hooks = path_join(gitdir, g.hooks != NULL ? g.hooks : "hooks");

		if (g.hooks != NULL)
			git_hook_links(w, hooks);
		git_push(w, hooks);
	}
	if ((g.config != NULL || kind == GIT_TOP) && bound)
		git_push(w, path_join(gitdir, g.config != NULL ? g.config : "config"));
	gitconfig_init(&none);
	c = cw = &none;
	if (g.config != NULL) {
		shown = path_join(gitdir, g.config);
		c = git_config_get(b, fd, g.config, shown);
		free(shown);
	}
	/* Read even without extensions.worktreeConfig: protecting more is harmless. */
	if (g.config_wt != NULL) {
		shown = path_join(gitdir, g.config_wt);
		cw = git_config_get(b, fd, g.config_wt, shown);
		free(shown);
	}
	if (bound && (g.config_wt != NULL || c->worktree_config == 1))
		git_push(w,
		    path_join(gitdir, g.config_wt != NULL ? g.config_wt : "config.worktree"));
	/* core.worktree (relative to the git directory) overrides where the tree is. */
	if (cw->worktree != NULL || c->worktree != NULL)
		wt = git_path(b, cw->worktree != NULL ? cw->worktree : c->worktree, gitdir);
	else if (worktree != NULL)
		wt = xstrdup(worktree);
	git_config_denies(w, c, wt, gitdir, 1);
	git_config_denies(w, cw, wt, gitdir, 0);
	if (g.modules != NULL) {
		shown = path_join(gitdir, g.modules);
		git_modules(w, fd, g.modules, shown, level + 1);
		free(shown);
	}
	if (g.worktrees != NULL) {
		shown = path_join(gitdir, g.worktrees);
		git_worktrees(w, fd, g.worktrees, shown, gitdir, c);
		free(shown);
	}
	gitconfig_free(&none);
	gitnames_free(&g);
	free(wt);
	close(fd);
	return 1;
}

/*
 * The git directory a .git file (dotgit: dfd/name) names, protected as one the walk
 * found: a linked worktree's common repository, whose worktrees/ then gives this
 * worktree the names its configuration takes against a work tree (a core.hooksPath
 * .githooks, the global one's: the worktree's own checkout), or a submodule's git
 * directory, with the .git file's directory for its work tree. The repository may lie
 * outside every write root (git worktree add ../wt, srt run in wt): what it names in
 * the worktree is the command's to write all the same.
 */
static void
git_follow_pointer(struct mwalk *w, int dfd, const char *name, const char *dotgit)
{
	char *line, *abs, *admin, *dir, *common = NULL, *cd, *wt = NULL;
	const char *target, *real;
	int afd;

	if ((line = read_line_at(dfd, name)) == NULL)
		return;
	if (strncmp(line, "gitdir:", 7) != 0) {
		free(line);
		return;
	}
	for (target = line + 7; *target == ' ' || *target == '\t'; target++)
		;
	dir = path_dirname(dotgit);
	abs = *target == '/' ? xstrdup(target) : path_join(dir, target);
	admin = path_normalize(abs);
	free(abs);
	free(line);
	if (admin == NULL) {
		free(dir);
		return;
	}
	afd = open(admin, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (afd != -1 && (cd = read_line_at(afd, "commondir")) != NULL) {
		abs = *cd == '/' ? xstrdup(cd) : path_join(admin, cd);
		common = path_normalize(abs);
		free(abs);
		free(cd);
	}
	if (afd != -1)
		close(afd);
	if (common != NULL) {
		real = plan_linux_canon_or(w->b, common);
		if (strcmp(path_basename(real), ".git") == 0)
			wt = path_dirname(real);
		git_protect(w, AT_FDCWD, real, real, wt, GIT_FOUND, 0);
	} else {
		real = plan_linux_canon_or(w->b, admin);
		git_protect(w, AT_FDCWD, real, real, dir, GIT_FOUND, 0);
	}
	free(wt);
	free(common);
	free(admin);
	free(dir);
}

/*
 * Whether the command could change the file p: where it leads, or where it would be
 * made. Asked here, not left to the deny pass, because these files are seldom in a
 * write root and the pass costs a dozen system calls a path. A dangling link is left
 * to the pass, which knows how to hold it.
 */
static int
git_file_writable(struct pb *b, const char *p)
{
	const char *r = plan_linux_canon(b, p);
	struct stat st;
	char *loc;
	int w;

	if (r != NULL)
		return plan_linux_within_write(b, r);
	if (plan_linux_fs_lstat(b, p, &st) == 0 && S_ISLNK(st.st_mode))
		return 1;
	loc = plan_linux_name_location(b, p);
	w = plan_linux_within_write(b, loc);
	free(loc);
	return w;
}

/*
 * The global configuration (git reads it for every repository, wherever it is): its
 * files are denied themselves (they matter where the home directory is writable), an
 * absolute core.hooksPath is denied once, a relative one is kept for each work tree.
 * Read before any repository so their relative hooksPath applies to each. The system
 * file cannot be a write root's in any sane setup but is read for its hooksPath.
 */
static void
git_globals(struct pb *b, struct strlist *out)
{
	struct strlist files = { 0 };
	const char *home = b->ctx->home, *e;
	struct gitconfig c;
	struct mwalk w;
	char *dir;
	size_t i;

	memset(&w, 0, sizeof(w));
	w.b = b;
	w.out = out;
	/* git_hook_links counts what it reads: a budget of 0 would read nothing. */
	w.budget.max = WGUARD_WALK_MAX;
	strlist_push(&files, "/etc/gitconfig");
	if ((e = getenv("XDG_CONFIG_HOME")) != NULL && *e == '/')
		strlist_push_owned(&files, path_join(e, "git/config"));
	else if (home != NULL && *home == '/')
		strlist_push_owned(&files, path_join(home, ".config/git/config"));
	if (home != NULL && *home == '/')
		strlist_push_owned(&files, path_join(home, ".gitconfig"));
	if ((e = getenv("GIT_CONFIG_GLOBAL")) != NULL && *e == '/')
		strlist_push(&files, e);
	for (i = 0; i < files.n; i++) {
		if (i > 0 && git_file_writable(b, files.v[i]))
			git_push(&w, path_normalize(files.v[i]));
		gitconfig_init(&c);
		git_config_load(AT_FDCWD, files.v[i], files.v[i], &c);
		if (c.hooks_path != NULL && *c.hooks_path != '\0' && *c.hooks_path != '/' &&
		    *c.hooks_path != '~')
			strlist_push(&b->git_global_rel, c.hooks_path);
		/* The rest as for any configuration, with no work tree known: an absolute
		 * hooksPath, fsmonitor, templateDir, and the includes, read in turn. */
		dir = path_dirname(files.v[i]);
		git_config_denies(&w, &c, NULL, dir, 0);
		free(dir);
		gitconfig_free(&c);
	}
	strlist_free(&files);
}

/* --- the walk ------------------------------------------------------------------------- */

/* Does dir (from dfd) hold an entry called name, of any kind? */
static bool
entry_at(int dfd, const char *dir, const char *name)
{
	struct stat st;
	char *p = xasprintf("%s/%s", dir, name);
	bool r = fstatat(dfd, p, &st, AT_SYMLINK_NOFOLLOW) == 0;

	free(p);
	return r;
}

/* Is name in dfd a git directory by git's own test: a HEAD, objects and refs (or a
 * commondir)? Only a HEAD is looked for in most directories. */
static bool
git_dir_at(int dfd, const char *name)
{
	return entry_at(dfd, name, "HEAD") &&
	    (entry_at(dfd, name, "commondir") ||
		(entry_at(dfd, name, "objects") && entry_at(dfd, name, "refs")));
}

/* The directory name in dfd, whose path is path, links not followed. */
static void
mwalk_dir(struct mwalk *w, int dfd, const char *dname, const char *path, int level)
{
	struct dirent *de;
	DIR *d;
	size_t i;

	if ((d = opendir_at(dfd, dname)) == NULL)
		return;
	while ((de = glob_readdir(d, &w->budget)) != NULL) {
		const char *name = de->d_name;
		int isdir;
		char *child, *sub = NULL;

		child = path_join(path, name);
		if (level == 0 && plan_linux_is_kernel_dir(child)) {
			free(child);
			continue;
		}
		isdir = entry_type(d, de) == S_IFDIR;
		/* A dangerous name by the depth rule (wguard.c has the table). */
		if (dangerous_at(w->depth, name, isdir, level, !w->b->ctx->unguarded) != NULL)
			strlist_push(w->out, child);
		/* A two-part name ("X/Y"): Y looked for in a directory X at its level. */
		for (i = 0; isdir && i < wguard_nnames; i++) {
			const struct wguard_name *n = &wguard_names[i];
			const char *slash = strchr(n->name, '/');

			if (slash == NULL ||
			    strncasecmp(name, n->name, (size_t)(slash - n->name)) != 0 ||
			    name[slash - n->name] != '\0' || level > w->depth - 2)
				continue;
			if ((sub = find_ci(dirfd(d), name, slash + 1)) != NULL)
				strlist_push_owned(w->out, xasprintf("%s/%s", child, sub));
			free(sub);
		}
		if (level <= w->depth - 2 && isdir && strcasecmp(name, ".git") == 0)
			git_protect(w, dirfd(d), name, child, path, GIT_FOUND, 0);
		/* A git directory by another name (a bare repository, which git push
		 * enters and runs hooks in): what its configuration names relative to a
		 * work tree, git takes against the git directory itself. */
		else if (level <= w->depth - 2 && isdir && git_dir_at(dirfd(d), name))
			git_protect(w, dirfd(d), name, child, child, GIT_FOUND, 0);
		/*
		 * A .git file (a submodule's or a linked worktree's pointer), by the
		 * directory rule. Not in the reference: pointed elsewhere, it would have
		 * git, and a superproject's git status, use a command-made git directory
		 * with its hooks and core.fsmonitor.
		 */
		if (level <= w->depth - 2 && !isdir && strcmp(name, ".git") == 0 &&
		    entry_type(d, de) == S_IFREG) {
			strlist_push(w->out, child);
			git_follow_pointer(w, dirfd(d), name, child);
		}
		/* No links followed, node_modules skipped, .git handled above. */
		if (isdir && level + 1 <= w->depth - 1 && strcmp(name, "node_modules") != 0 &&
		    strcasecmp(name, ".git") != 0)
			mwalk_dir(w, dirfd(d), name, child, level + 1);
		free(child);
	}
	closedir(d);
}

static int
cmp_str(const void *a, const void *c)
{
	return strcmp(*(char *const *)a, *(char *const *)c);
}

/* What one search adds to out: sorted, without what out has. */
static void
mwalk_merge(struct mwalk *w, const char *root, struct strlist *found, struct strlist *out)
{
	size_t i;

	/* Never run with what a padded directory let it find (fail closed). */
	if (w->budget.truncated) {
		diags_add(w->b->errs,
		    "the search for protected files under %s stopped after "
		    "%d entries: lower mandatoryDenySearchDepth (now %d), or narrow allowWrite "
		    "to the directories the command needs",
		    root, WGUARD_WALK_MAX, w->depth);
		w->b->bad = 1;
	}
	if (found->n > 1)
		qsort(found->v, found->n, sizeof(*found->v), cmp_str);
	for (i = 0; i < found->n; i++)
		if (!strlist_contains(out, found->v[i]))
			strlist_push(out, found->v[i]);
	strlist_free(found);
}

static void
mwalk_init(struct mwalk *w, struct pb *b, struct strlist *found)
{
	memset(w, 0, sizeof(*w));
	w->b = b;
	w->depth = b->s->deny_search_depth > 0 ? b->s->deny_search_depth : WGUARD_DEPTH_DEFAULT;
	w->out = found;
	w->budget.max = WGUARD_WALK_MAX;
}

static void
mandatory_walk(struct pb *b, const char *root, struct strlist *out)
{
	struct strlist found = { 0 };
	struct mwalk w;

	mwalk_init(&w, b, &found);
	mwalk_dir(&w, AT_FDCWD, root, root, 0);
	mwalk_merge(&w, root, &found, out);
}

/*
 * BEHAVIOR §4.1: the dangerous names at the top of the cwd (even when missing: they get
 * placeholders), the cwd's git directory, then what the walk finds, under the cwd and
 * (SPEC §5) every configured write root; last what the global git configuration names.
 */
void
plan_linux_mandatory_denies(struct pb *b, const struct strlist *roots, struct strlist *out)
{
	const char *cwd = plan_linux_canon_or(b, b->ctx->cwd);
	struct strlist found = { 0 }, global = { 0 };
	struct mwalk w;
	struct stat st;
	char *git;
	size_t i;

	git_globals(b, &global);
	for (i = 0; i < wguard_nnames; i++)
		if (b->ctx->unguarded || !wguard_name_writable(&wguard_names[i]))
			strlist_push_owned(out, path_join(cwd, wguard_names[i].name));
	git = path_join(cwd, ".git");
	if (plan_linux_fs_stat(b, git, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			/* Its hooks and config first, as the reference lists them. */
			mwalk_init(&w, b, &found);
			git_protect(&w, AT_FDCWD, git, git, cwd, GIT_TOP, 0);
			for (i = 0; i < found.n; i++)
				if (!strlist_contains(out, found.v[i]))
					strlist_push(out, found.v[i]);
			strlist_free(&found);
		} else {
			/* A worktree's pointer: while it is a file there are no hooks
			 * here, but its repository's configuration names some. */
			strlist_push(out, git);
			mwalk_init(&w, b, &found);
			git_follow_pointer(&w, AT_FDCWD, git, git);
			for (i = 0; i < found.n; i++)
				if (!strlist_contains(out, found.v[i]))
					strlist_push(out, found.v[i]);
			strlist_free(&found);
		}
	}
	free(git);
	mandatory_walk(b, cwd, out);
	for (i = 0; i < roots->n; i++)
		if (strcmp(roots->v[i], cwd) != 0)
			mandatory_walk(b, roots->v[i], out);
	for (i = 0; i < global.n; i++)
		if (!strlist_contains(out, global.v[i]))
			strlist_push(out, global.v[i]);
	strlist_free(&global);
}

/* --- what protected directories hold ------------------------------------------------ */

/*
 * A protected directory protects its own entries, but a symbolic link among them leads a
 * reader (VS Code opening .vscode/tasks.json, git running .git/hooks/pre-commit) to a
 * file elsewhere, which the command could write; and a file in it with hard links has
 * other names, which write the same inode. One walk of each directory, links not
 * followed, at most WGUARD_WALK_MAX entries, as the mandatory-deny walk.
 */
#define LINK_WALK_DEPTH 64 /* directories below a protected one */

struct lwalk {
	struct pb *b;
	const char *why;           /* the protected directory's reason */
	struct glob_budget budget; /* WGUARD_WALK_MAX entries */
	struct strlist links;      /* the links found, by their real path */
};

/*
 * A protected file in a write root with another name (a hard link): a read-only mount
 * protects the inode only through that mount, and the other name, on a writable one,
 * writes it; link(2) cannot make one during the run (across mounts: EXDEV; the guard
 * refuses it too), so only one that exists at the start needs refusing, and the run is.
 */
static void
hardlink_check(struct pb *b, const char *p, const struct stat *st, const char *why)
{
	if (!S_ISREG(st->st_mode) || st->st_nlink < 2 || !plan_linux_within_write(b, p))
		return;
	diags_add(b->errs,
	    "%s is protected (%s) but has %ju other name%s (hard links) "
	    "that a command could write it through: give it a name of its own (cp -p it to a "
	    "new file and mv that over it) before running srt",
	    p, why, (uintmax_t)st->st_nlink - 1, st->st_nlink > 2 ? "s" : "");
	b->bad = 1;
}

/* The directory name in dfd, whose path is path, links not followed. */
static void
lwalk_dir(struct lwalk *w, int dfd, const char *name, const char *path, int level)
{
	struct dirent *de;
	struct stat st;
	char *child;
	DIR *d;

	if ((d = opendir_at(dfd, name)) == NULL)
		return;
	while ((de = glob_readdir(d, &w->budget)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		child = path_join(path, de->d_name);
		if (S_ISLNK(st.st_mode))
			strlist_push(&w->links, child);
		else if (S_ISREG(st.st_mode))
			hardlink_check(w->b, child, &st, w->why);
		else if (S_ISDIR(st.st_mode) && level < LINK_WALK_DEPTH)
			lwalk_dir(w, dirfd(d), de->d_name, child, level + 1);
		free(child);
	}
	closedir(d);
}

/* Does p hold a write root (is it one, or above one)? */
static const char *
holds_write(struct pb *b, const char *p)
{
	size_t i;

	for (i = 0; i < b->writes.n; i++)
		if (path_is_under(b->writes.v[i], p))
			return b->writes.v[i];
	return NULL;
}

/*
 * One link found in a protected directory: what it leads to becomes a write deny of its
 * own (bound read-only where it exists in a write root, its name and the links on the
 * way guarded: plan_guard's guard_chain), as the directory's entry would be. A link that
 * leads nowhere the plan can settle (a loop) is guarded by name only: masking it would
 * stop the run. One that leads to a write root or above it is left, said: protecting it
 * would leave the command nothing to write.
 */
static void
link_target(struct pb *b, const char *link, const char *why)
{
	char *res = plan_linux_resolve_deny(b, link, NULL), *reason;
	const char *w;

	reason = xasprintf("%s: where %s leads", why, link);
	if (res != NULL && (w = holds_write(b, res)) != NULL)
		log_warnx("%s (%s) leads to %s, which holds the write path %s: not protected",
		    link, why, res, w);
	else if (res == NULL)
		plan_linux_guard_chain(b, link, reason, false, 0);
	else if (!strlist_contains(&b->denies, link)) {
		strlist_push(&b->denies, link);
		strlist_push(&b->deny_why, reason);
	}
	free(reason);
	free(res);
}

/*
 * For every denyWrite or mandatory deny that is a directory at the start: the targets of
 * the links inside it (and, as they become denies themselves, of the links inside
 * those); and hard links to the files in it, or to a deny that is a file. srt's own
 * directory and the settings file are not searched: they are srt's, not what a tool
 * reads through a link. A directory too large to search fails the run where the
 * command could write in or beside it (in, or holding, a write root); elsewhere it is
 * said, and what the search found is kept.
 */
void
plan_linux_protected_links(struct pb *b)
{
	struct strlist walked = { 0 };
	struct lwalk w;
	struct stat st;
	const char *real;
	size_t i, k;
	char *why;

	for (i = 0; i < b->denies.n; i++) {
		if (strncmp(b->denies.v[i], "/dev/", 5) == 0 ||
		    (real = plan_linux_canon(b, b->denies.v[i])) == NULL ||
		    plan_linux_fs_stat(b, real, &st) == -1)
			continue;
		why = xstrdup(b->deny_why.v[i]);
		if (!S_ISDIR(st.st_mode)) {
			hardlink_check(b, real, &st, why);
			free(why);
			continue;
		}
		if ((i >= b->nconfigured && i < b->npinned) ||
		    strlist_contains(&walked, real)) {
			free(why);
			continue;
		}
		strlist_push(&walked, real);
		memset(&w, 0, sizeof(w));
		w.b = b;
		w.why = why;
		w.budget.max = WGUARD_WALK_MAX;
		lwalk_dir(&w, AT_FDCWD, real, real, 0);
		if (w.budget.truncated &&
		    (plan_linux_within_write(b, real) || holds_write(b, real) != NULL)) {
			diags_add(b->errs,
			    "the search for links in %s (%s) stopped after %d "
			    "entries: deny a smaller directory",
			    real, why, WGUARD_WALK_MAX);
			b->bad = 1;
		} else if (w.budget.truncated)
			log_warnx("the search for links in %s (%s) stopped after %d entries: "
				  "what links beyond lead to is not protected",
			    real, why, WGUARD_WALK_MAX);
		for (k = 0; k < w.links.n; k++)
			link_target(b, w.links.v[k], why);
		strlist_free(&w.links);
		free(why);
	}
	strlist_free(&walked);
}
