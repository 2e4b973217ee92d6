/*
 * The write guard's rules (lib/sandbox/wguard.c): the questions against a file system described
 * here in tables, the depth rule, git directories, and the encoding round trip with its
 * refusals of malformed bytes.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "path.h"
#include "tap.h"
#include "util.h"
#include "wguard.h"

/* The file system as the tests describe it. */
static const char *const git_dirs[] = {
	"/w/p/.git",
	"/w/p/.git/modules/sub",
	"/w/bare.git",
	"/w/fresh/.git",
	"/w/sep",
	"/w/bare.git/x",
	NULL,
};
static const char *const fresh_dirs[] = {
	/* made during the run */
	"/w/fresh",
	"/w/fresh/.git",
	"/w/p/new",
	"/w/home/proj",
	"/w/fresh/sub",
	"/w/p/.git/worktrees/wt",
	"/w/sep",
	"/w/bare.git/x",
	"/w/plain",
	"/w/home/.git",
	NULL,
};
static const char *const existing[] = {
	"/w/p/.git",
	"/w/p/.git/HEAD",
	"/w/p/.git/objects",
	"/w/p/.git/refs",
	"/w/p/old/HEAD",
	"/w/p/old/objects",
	"/w/p/wt/HEAD",
	"/w/fresh/.git",
	"/w/p/unk/objects",
	"/w/p/unk/refs",
	NULL,
};
/* Directories the caller cannot tell about (made unreachable by the command). */
static const char *const unknown[] = { "/w/p/unk", NULL };

static bool
in(const char *const *v, const char *p)
{
	for (; *v != NULL; v++)
		if (strcmp(*v, p) == 0)
			return true;
	return false;
}

static int
fake_is_git_dir(void *arg, const char *dir)
{
	(void)arg;
	return in(unknown, dir) ? -1 : in(git_dirs, dir);
}

static bool
fake_predates(void *arg, const char *dir)
{
	(void)arg;
	return !in(fresh_dirs, dir);
}

static bool
fake_exists(void *arg, const char *p)
{
	(void)arg;
	return in(existing, p);
}

static const struct wguard_fs fs = { NULL, fake_is_git_dir, fake_predates, fake_exists, NULL };

/* A link "up" anywhere, to /w/evil/a/b: its ".." are /w/evil's; /w/p/lnk, to /w/out. */
static char *
fake_resolve(void *arg, const char *p)
{
	const char *up = strstr(p, "/up/");
	char *n;

	(void)arg;
	if (up == NULL) {
		if ((n = path_normalize(p)) != NULL && strcmp(n, "/w/p/lnk") == 0) {
			free(n);
			return xstrdup("/w/out");
		}
		return n;
	}
	if (strcmp(up, "/up/../..") == 0)
		return xstrdup("/w/evil");
	errno = ENOENT;
	return NULL;
}

static const struct wguard_fs linkfs = { NULL, fake_is_git_dir, fake_predates, fake_exists,
	fake_resolve };

static void
build(struct wguard *g, int depth, bool allow_git_config)
{
	wguard_init(g);
	g->depth = depth;
	g->allow_git_config = allow_git_config;
	strlist_push(&g->roots, "/w/p");
	strlist_push(&g->roots, "/w/home");
	wguard_add_exact(g, "/w/p/deny/me", "denyWrite /w/p/deny/me", true);
	wguard_add_exact(g, "/w/p/settings.json", "settings file", true);
	wguard_add_exact(g, "/w/p/inc//../inc.cfg", "git include", true);
	wguard_add_exact(g, "/w/home/.cargo/config.toml", "home file", false);
	wguard_index(g);
}

#define P(path) wguard_protected(&g, &fs, path)
#define C(path, dir) wguard_may_create(&g, &fs, path, dir)
#define R(path) wguard_may_remove(&g, &fs, path)

static void
test_exact_and_ancestors(void)
{
	struct wguard g;

	build(&g, 3, false);
	ok(P("/w/p/deny/me") != NULL, "an exact path is protected");
	ok(P("/w/p/deny/me/below") != NULL, "so is what lies under it");
	ok(strcmp(P("/w/p/settings.json"), "settings file") == 0, "with its reason");
	ok(P("/w/p/inc.cfg") != NULL, "exact paths are normalised when added");
	ok(P("/w/p/deny/mex") == NULL, "a sibling with a longer name is not");
	ok(P("/w/p/deny") == NULL, "an ancestor can be written (its entries)");
	ok(R("/w/p/deny") != NULL, "but not removed or renamed away");
	ok(R("/w/p") != NULL && R("/") != NULL, "every ancestor up to the root");
	ok(C("/w/p/deny", false) != NULL, "nor made as a file or link where it is missing");
	ok(C("/w/p/deny", true) != NULL, "nor as a directory where the path is pinned");
	ok(C("/w/home/.cargo", true) == NULL, "where it is not, a directory may lead to it");
	ok(C("/w/home/.cargo", false) != NULL, "but nothing else");
	ok(P("/w/home/.cargo/config.toml") != NULL, "and the path is protected all the same");
	ok(R("/w/p/other") == NULL, "an unrelated path can go");
	wguard_free(&g);
}

static void
test_depth_rule(void)
{
	struct wguard g;

	build(&g, 3, false);
	ok(P("/w/p/.bashrc") != NULL, "a start-up file at the top of a root");
	ok(P("/w/p/a/b/.bashrc") != NULL, "two levels down (depth 3)");
	ok(P("/w/p/a/b/c/.bashrc") == NULL, "three levels down is beyond depth 3");
	ok(P("/w/p/.BashRC") != NULL, "names compare case aside");
	ok(P("/w/p/.vscode/settings.json") != NULL, "inside a dangerous directory");
	ok(P("/w/p/a/.vscode/x") != NULL, "one level down (depth-2)");
	ok(P("/w/p/a/b/.vscode/x") == NULL, "two levels down is beyond it");
	ok(P("/w/p/.claude/commands/x.md") != NULL, "two-part directory names");
	ok(P("/w/p/.claude/settings.json") != NULL, ".claude/settings.json");
	ok(P("/w/p/.claude/settings.local.json") != NULL, ".claude/settings.local.json");
	ok(P("/w/p/.claude/other.json") == NULL, "other files in .claude");
	ok(P("/w/p/.claude/hooks/format.sh") != NULL, "the scripts in .claude/hooks");
	ok(P("/w/p/lefthook.yml") != NULL && P("/w/p/.overcommit.yml") != NULL,
	    "hook managers' configuration");
	/* The quick look at the components' first bytes (wg_first_may) lets none of these
	 * go: a name starting with a letter, in capitals; a name after components that
	 * start like no name. */
	ok(P("/w/p/LEFTHOOK.YML") != NULL, "a name starting with a letter, case aside");
	ok(P("/w/p/a/b/.Vscode/x") == NULL && P("/w/p/a/.VSCODE/x") != NULL,
	    "after components that start like no name");
	ok(C("/w/p/d000/f00001.txt", false) == NULL, "an ordinary file is let go");
	ok(P("/w/p/.devcontainer/devcontainer.json") != NULL, ".devcontainer");
	ok(C("/w/p/.claude", false) != NULL, ".claude made as a file or link is refused");
	ok(C("/w/p/.claude", true) == NULL, ".claude made as a directory is fine");
	ok(P("/w/home/.zshenv") != NULL, "every root: the names apply under each");
	ok(P("/w/other/.bashrc") == NULL, "outside the roots nothing applies");
	wguard_free(&g);
	build(&g, 1, false);
	ok(P("/w/p/.bashrc") != NULL && P("/w/p/a/.bashrc") == NULL, "depth 1: the top only");
	ok(P("/w/p/.vscode/x") == NULL, "depth 1: no directory rule reaches");
	wguard_free(&g);
	build(&g, 10, false);
	ok(P("/w/p/1/2/3/4/5/6/7/8/9/.bashrc") != NULL, "depth 10: nine levels down");
	ok(P("/w/p/1/2/3/4/5/6/7/8/9/10/.bashrc") == NULL, "but not ten");
	wguard_free(&g);
}

static void
test_git(void)
{
	struct wguard g;

	build(&g, 3, false);
	ok(P("/w/p/.git/config") != NULL, "a repository's config");
	ok(P("/w/p/.git/config.lock") == NULL,
	    "its lock file is git's temporary (judged when renamed onto config)");
	ok(P("/w/p/.git/hooks/pre-commit") != NULL, "its hooks");
	ok(P("/w/p/.git/commondir") != NULL, "its commondir");
	ok(P("/w/p/.git/modules/sub/hooks/x") != NULL, "a submodule's git directory");
	ok(P("/w/p/.git/modules/sub/config") != NULL, "a submodule's config");
	ok(P("/w/bare.git/hooks/x") != NULL, "a bare repository's hooks, at any depth");
	ok(P("/w/p/.git/index") == NULL && P("/w/p/.git/objects/ab/cd") == NULL,
	    "what git writes in normal use stays writable");
	ok(P("/w/fresh/.git/config") != NULL && R("/w/fresh/.git/config") == NULL,
	    "a repository made during the run is git state too: its config is never "
	    "written in place, but it may go");
	ok(P("/w/p/config/app.yml") == NULL, "a config directory elsewhere is not git's");
	ok(C("/w/p/.git", true) != NULL, ".git in a directory that predates the run");
	ok(C("/w/p/sub/.git", false) != NULL, "as a file too (a gitdir pointer)");
	ok(C("/w/p/new/.git", true) != NULL,
	    "nor in a directory made during the run inside a repository that predates it");
	ok(C("/w/home/proj/.git", true) == NULL && C("/w/home/proj/.git", false) == NULL,
	    "in a directory made during the run elsewhere it is fine");
	ok(C("/w/fresh/sub/.git", true) == NULL, "so is one in a repository of the run's own");
	ok(P("/w/p/sub/.git") != NULL && R("/w/p/sub/.git") != NULL,
	    "an existing .git (a submodule's pointer) can be neither rewritten nor removed");
	ok(P("/w/p/.git") != NULL && R("/w/p/.git") != NULL, "nor the top one");
	ok(P("/w/fresh/.git") == NULL, "one made during the run can");
	ok(P("/w/p/unk/config") != NULL,
	    "a directory the caller cannot look into is taken for a git directory");
	ok(C("/w/p/unk/HEAD", false) != NULL,
	    "and not for one when a marker would complete it");
	ok(C("/w/p/old/refs", true) != NULL, "the last marker of a bare layout is refused");
	ok(C("/w/p/old/notes", true) == NULL, "other names in that directory are not");
	ok(C("/w/p/wt/commondir", false) != NULL, "HEAD and commondir make one too");
	ok(C("/w/p/x/HEAD", false) == NULL, "a lone HEAD is no repository");
	ok(C("/w/p/.git/HEAD", false) == NULL,
	    "HEAD made anew in a git directory (through HEAD.lock) plants nothing");
	wguard_free(&g);
	build(&g, 3, true);
	ok(P("/w/p/.git/config") == NULL, "allowGitConfig opens config");
	ok(P("/w/p/.git/hooks/x") != NULL && P("/w/p/.git/commondir") != NULL,
	    "but never hooks or commondir");
	ok(C("/w/p/.git", true) != NULL, "nor planting");
	wguard_free(&g);
}

/* Whose a directory is, and what the host's git executes (issue #28). */
static void
test_model(void)
{
	struct wguard g;

	build(&g, 3, false);
	ok(P("/w/fresh/.vscode/tasks.json") == NULL && C("/w/fresh/.envrc", false) == NULL &&
		C("/w/p/new/.husky", true) == NULL &&
		P("/w/fresh/.claude/settings.json") == NULL,
	    "dangerous names in the command's own directories are its files");
	ok(P("/w/p/.vscode/tasks.json") != NULL && C("/w/p/.envrc", false) != NULL,
	    "in the user's they are not");
	ok(C("/w/p/.gitmodules", false) == wguard_why_gitcfg && P("/w/p/.gitmodules") != NULL,
	    ".gitmodules is made by a judged rename, never written in place");
	ok(C("/w/fresh/.git/hooks/pre-commit.sample", false) == NULL &&
		C("/w/fresh/.git/hooks", true) == NULL,
	    "a new repository's hooks directory and samples");
	ok(C("/w/fresh/.git/hooks/post-checkout", false) != NULL &&
		P("/w/fresh/.git/hooks/x/y.sample") != NULL,
	    "but no hook git runs, in the command's repository either");
	ok(C("/w/fresh/.git/hooks", false) != NULL,
	    "nor a hooks that is a link (to a directory the command fills)");
	ok(C("/w/p/.git/modules/new/hooks/post-checkout", false) != NULL &&
		C("/w/p/.git/modules/new/config", false) == wguard_why_gitcfg,
	    "below a user's git directory, before it is complete too");
	ok(C("/w/p/.git/config", false) == wguard_why_gitcfg,
	    "config is made only by a rename the supervisor judges");
	ok(C("/w/fresh/.git/config", false) == wguard_why_cfg_new,
	    "or, in the command's git directory, by an open judged when the run ends");
	ok(C("/w/home/.git/config", false) == wguard_why_gitcfg,
	    "but not in a .git the command made in a directory that predates the run");
	ok(P("/w/p/.git/config") == wguard_why_cfg_write, "and never written in place");
	ok(R("/w/p/.git/config") != NULL && strstr(R("/w/p/.git/config"), "removal") != NULL &&
		strstr(R("/w/p/.git/config"), "allowGitConfig") != NULL &&
		R("/w/fresh/.git/config") == NULL,
	    "the user's config is not removed, and the refusal says removal, not written");
	ok(C("/w/home/.git", true) == NULL,
	    "git init in a directory that predates the run and lies in no repository");
	ok(C("/w/p/new/.git", true) != NULL && C("/w/p/new/.git", false) == wguard_why_pointer,
	    "in the user's work tree a .git file only, checked by content");
	ok(C("/w/fresh/.git/commondir", false) == NULL &&
		C("/w/p/.git/commondir", false) != NULL,
	    "commondir in a new git directory, never in the user's");
	ok(wguard_pointer_check(
	       &g, &fs, "/w/p/sub/.git", "gitdir: ../.git/modules/sub\n", 28) == NULL &&
		wguard_pointer_check(&g, &fs, "/w/p/sub/.git", "gitdir: /w/evil\n", 16) !=
		    NULL &&
		wguard_pointer_check(
		    &g, &fs, "/w/p/sub/.git", "gitdir: ../.git/modules\n", 24) != NULL,
	    "a .git file in the user's work tree names that repository's modules/");
	ok(wguard_pointer_check(
	       &g, &fs, "/w/home/wt/.git", "gitdir: /w/p/.git/worktrees/wt\n", 31) == NULL &&
		wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: /w/evil\n", 16) !=
		    NULL &&
		wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: /w/p/.git\n", 18) !=
		    NULL,
	    "elsewhere a .git directory made during the run, not the user's");
	ok(wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: /w/sep\n", 15) == NULL &&
		wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: ../../sep\n", 18) ==
		    NULL,
	    "or a git directory of any name made during the run (--separate-git-dir)");
	ok(wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: /w/plain\n", 17) != NULL &&
		wguard_pointer_check(&g, &fs, "/w/home/wt/.git", "gitdir: /w/bare.git\n", 20) !=
		    NULL &&
		wguard_pointer_check(
		    &g, &fs, "/w/home/wt/.git", "gitdir: /w/bare.git/x\n", 22) != NULL &&
		wguard_pointer_check(
		    &g, &linkfs, "/w/home/wt/.git", "gitdir: up/../..\n", 17) != NULL,
	    "but not a directory that is none, the user's, one below the user's, or through a "
	    "link");
	ok(wguard_pointer_check(&g, &fs, "/w/p/.git/worktrees/a/commondir", "../..\n", 6) ==
		    NULL &&
		wguard_pointer_check(&g, &fs, "/w/p/.git/worktrees/a/commondir",
		    "../../../../evil\n", 17) != NULL,
	    "a commondir names a git directory above it");
	ok(wguard_pointer_check(
	       &g, &fs, "/w/p/.git/worktrees/a/gitdir", "/w/home/wt/.git\n", 16) == NULL &&
		wguard_pointer_check(&g, &fs, "/w/p/.git/worktrees/a/gitdir", "/w/evil\n", 8) !=
		    NULL,
	    "a worktree's gitdir names a .git");
	ok(wguard_pointer_check(&g, &linkfs, "/w/p/.git/worktrees/a/commondir", "../..\n", 6) ==
		    NULL &&
		wguard_pointer_check(
		    &g, &linkfs, "/w/p/.git/worktrees/a/commondir", "up/../..\n", 9) != NULL,
	    "a commondir judged where git's realpath leads");
	ok(wguard_pointer_check(&g, &linkfs, "/w/p/.git/modules/lib/config",
	       "[core]\n\tworktree = ../../../lib\n", 32) == NULL &&
		wguard_pointer_check(&g, &linkfs, "/w/p/.git/modules/lib/config",
		    "[core]\n\tworktree = ../../../lnk\n", 32) != NULL,
	    "a submodule's core.worktree judged where git's chdir leads");
	ok(wguard_pointer_name(&g, &fs, "/w/p/.git/rebase-merge/git-rebase-todo") &&
		wguard_pointer_name(&g, &fs, "/w/p/.git/sequencer/todo") &&
		!wguard_pointer_name(&g, &fs, "/w/p/rebase-merge/git-rebase-todo") &&
		!wguard_pointer_name(&g, &fs, "/w/p/.git/todo"),
	    "a stopped rebase's steps are looked at when the run ends");
	ok(wguard_pointer_check(&g, &fs, "/w/p/.git/rebase-merge/git-rebase-todo",
	       "pick 123 a\n# exec make\nbreak\n", 29) == NULL &&
		wguard_pointer_check(&g, &fs, "/w/p/.git/rebase-merge/git-rebase-todo",
		    "pick 123 a\n  exec make\n", 23) != NULL &&
		wguard_pointer_check(&g, &fs, "/w/p/.git/sequencer/todo", "x\n", 2) != NULL,
	    "none of them runs a command");
	wguard_free(&g);
}

static void
test_encoding(void)
{
	struct wguard g, h;
	char err[256], *buf, *bad;
	size_t len, i;
	int rc;

	build(&g, 4, true);
	strlist_push(&g.writable, "/w/p");
	strlist_push(&g.writable, "/tmp/run");
	wguard_add_mask(&g, "/w/p/secret", "/w/p/secret");
	wguard_add_watch(&g, "/w/p/sec//token/", "/w/p/sec/v1/./token");
	wguard_add_watch(&g, "/w/p/later/token", NULL);
	ok(g.watch.n == 3 && strcmp(g.watch.v[1].name, "/w/p/sec/token") == 0 &&
		strcmp(g.watch.v[1].mount, "/w/p/sec/v1/token") == 0,
	    "read denies to watch are normalised");
	buf = wguard_encode(&g, &len);
	rc = wguard_decode(buf, len, &h, err, sizeof(err));
	ok(rc == 0, "a guard decodes (%s)", rc == 0 ? "" : err);
	ok(h.exact.n == g.exact.n && h.roots.n == 2 && h.watch.n == 3 && h.depth == 4 &&
		h.allow_git_config,
	    "with everything in it");
	ok(h.writable.n == 2 && strcmp(h.writable.v[0], "/w/p") == 0 &&
		strcmp(h.writable.v[1], "/tmp/run") == 0,
	    "and its write roots");
	ok(strcmp(h.watch.v[0].name, "/w/p/secret") == 0 &&
		strcmp(h.watch.v[0].mount, "/w/p/secret") == 0 &&
		strcmp(h.watch.v[1].name, "/w/p/sec/token") == 0 &&
		strcmp(h.watch.v[1].mount, "/w/p/sec/v1/token") == 0 &&
		strcmp(h.watch.v[2].name, "/w/p/later/token") == 0 &&
		h.watch.v[2].mount == NULL,
	    "a read deny keeps its name and mask, a missing one stays missing");
	ok(h.watch.v[0].place && !h.watch.v[1].place && !h.watch.v[2].place,
	    "a mask srt-seccomp mounts stays one (F), bwrap's stay bwrap's (W)");
	ok(wguard_may_create(&h, &fs, "/w/home/.cargo", true) == NULL &&
		wguard_may_create(&h, &fs, "/w/p/deny", true) != NULL,
	    "pins survive the trip");
	ok(wguard_protected(&h, &fs, "/w/p/deny/me/x") != NULL &&
		wguard_may_remove(&h, &fs, "/w/p/deny") != NULL,
	    "and indexed");
	wguard_free(&h);
	/* Every truncation is refused, never read past. */
	for (i = 0, rc = 0; i < len; i++) {
		bad = xmalloc(i + 1);
		memcpy(bad, buf, i);
		/* A cut right after the magic or after a record's last NUL is whole. */
		if (wguard_decode(bad, i, &h, err, sizeof(err)) == 0 &&
		    i != strlen("srt-wguard 2\n") && buf[i - 1] != '\0')
			rc++;
		wguard_free(&h);
		free(bad);
	}
	ok(rc == 0, "no truncation in the middle of a record decodes");
	bad = xmalloc(len);
	memcpy(bad, buf, len);
	bad[strlen("srt-wguard 2\n") + 1] = 'x'; /* a relative path */
	ok(wguard_decode(bad, len, &h, err, sizeof(err)) == -1, "a relative path: %s", err);
	memcpy(bad, buf, len);
	bad[0] = 'S';
	ok(wguard_decode(bad, len, &h, err, sizeof(err)) == -1, "bad magic: %s", err);
	free(bad);
	{
		const char t[] = "srt-wguard 2\nR/a/../b";
		const char d[] = "srt-wguard 2\nD11";
		const char q[] = "srt-wguard 2\nZ/x";
		const char old[] = "srt-wguard 1\nR/a";

		ok(wguard_decode(t, sizeof(t), &h, err, sizeof(err)) == -1, "..: %s", err);
		ok(wguard_decode(d, sizeof(d), &h, err, sizeof(err)) == -1, "depth 11: %s",
		    err);
		ok(wguard_decode(q, sizeof(q), &h, err, sizeof(err)) == -1, "a tag: %s", err);
		ok(wguard_decode(old, sizeof(old), &h, err, sizeof(err)) == -1,
		    "the format before the read denies' names: %s", err);
	}
	{
		/* Whole records, one field each; sizeof counts the last NUL. */
		const char w1[] = "srt-wguard 2\nW/a/secret";
		const char w2[] = "srt-wguard 2\nW/a/secret\0b";
		const char w3[] = "srt-wguard 2\nW/a/secret\0/b/./c";
		const char w4[] = "srt-wguard 2\nW\0/a";
		const char m1[] = "srt-wguard 2\nM/a/x\0M/a/../x";
		const char m2[] = "srt-wguard 2\nM/a/x\0W/a/y\0/m/y\0M/";
		const char m3[] = "srt-wguard 2\nMa";
		const char a1[] = "srt-wguard 2\nAtmp";
		const char a2[] = "srt-wguard 2\nA/tmp/../etc";

		ok(wguard_decode(w1, sizeof(w1), &h, err, sizeof(err)) == -1,
		    "a read deny without its mask: %s", err);
		ok(wguard_decode(w2, sizeof(w2), &h, err, sizeof(err)) == -1,
		    "a relative mask: %s", err);
		ok(wguard_decode(w3, sizeof(w3), &h, err, sizeof(err)) == -1,
		    "a mask not normalised: %s", err);
		ok(wguard_decode(w4, sizeof(w4), &h, err, sizeof(err)) == -1,
		    "an empty name: %s", err);
		ok(wguard_decode(m1, sizeof(m1), &h, err, sizeof(err)) == -1,
		    "a missing read deny with ..: %s", err);
		ok(wguard_decode(m3, sizeof(m3), &h, err, sizeof(err)) == -1,
		    "a relative missing read deny: %s", err);
		ok(wguard_decode(a1, sizeof(a1), &h, err, sizeof(err)) == -1,
		    "a relative write root: %s", err);
		ok(wguard_decode(a2, sizeof(a2), &h, err, sizeof(err)) == -1,
		    "a write root with ..: %s", err);
		rc = wguard_decode(m2, sizeof(m2), &h, err, sizeof(err));
		ok(rc == 0 && h.watch.n == 3 && h.watch.v[0].mount == NULL &&
			strcmp(h.watch.v[1].mount, "/m/y") == 0 &&
			strcmp(h.watch.v[2].name, "/") == 0 && h.watch.v[2].mount == NULL,
		    "missing and masked read denies decode (%s)", rc == 0 ? "" : err);
		wguard_free(&h);
	}
	free(buf);
	wguard_free(&g);
}

/*
 * denyWrite globs: a name that matches, made now or later, or lies under a match, is
 * refused like an exact path; the glob goes through the encoding, and a malformed one
 * is refused.
 */
static void
test_globs(void)
{
	struct wguard g, h;
	char err[256], *buf;
	size_t len;
	int rc;

	build(&g, 3, false);
	wguard_add_glob(&g, "/w/p/*.pem", "denyWrite *.pem");
	wguard_add_glob(&g, "/w/p/**/*.key", "denyWrite **/*.key");
	wguard_add_glob(&g, "/w/p/./sec[0-9]*", "denyWrite sec[0-9]*");
	wguard_add_glob(&g, "/w/p/*.pem", "again");
	wguard_index(&g);
	ok(g.globs.n == 3 && strcmp(g.globs.v[2], "/w/p/sec[0-9]*") == 0,
	    "globs are normalised, each once");
	ok(P("/w/p/new.pem") != NULL && strcmp(P("/w/p/new.pem"), "denyWrite *.pem") == 0 &&
		C("/w/p/new.pem", false) != NULL && R("/w/p/old.pem") != NULL,
	    "a name the glob matches cannot be made, written or removed");
	ok(P("/w/p/sub/new.pem") == NULL && P("/w/p/new.pem.txt") == NULL &&
		C("/w/p/pem", false) == NULL && P("/w/new.pem") == NULL,
	    "\"*.pem\" against the cwd only: not in a subdirectory, not another name");
	ok(C("/w/p/a.key", false) != NULL && C("/w/p/x/y/z.key", false) != NULL &&
		C("/w/p/x/y/z.keys", false) == NULL,
	    "\"**/*.key\" at any depth");
	ok(C("/w/p/sec1", true) != NULL && C("/w/p/sec1/inner", false) != NULL &&
		P("/w/p/sec1/a/b") != NULL && C("/w/p/secx", true) == NULL,
	    "a directory the glob matches cannot be made, nor anything under it");
	buf = wguard_encode(&g, &len);
	rc = wguard_decode(buf, len, &h, err, sizeof(err));
	ok(rc == 0 && h.globs.n == 3 && strcmp(h.globs_why.v[1], "denyWrite **/*.key") == 0 &&
		wguard_may_create(&h, &fs, "/w/p/q/r.key", false) != NULL,
	    "globs survive the encoding (%s)", rc == 0 ? "" : err);
	wguard_free(&h);
	free(buf);
	{
		const char p1[] = "srt-wguard 2\nP*.pem\0why";
		const char p2[] = "srt-wguard 2\nP/w/plain\0why";
		const char p3[] = "srt-wguard 2\nP/w/*.pem\0";
		const char p4[] = "srt-wguard 2\nP/w/../*.pem\0why";
		const char p5[] = "srt-wguard 2\nP/w/*.pem";

		ok(wguard_decode(p1, sizeof(p1), &h, err, sizeof(err)) == -1,
		    "a relative glob: %s", err);
		ok(wguard_decode(p2, sizeof(p2), &h, err, sizeof(err)) == -1,
		    "a glob without a wildcard: %s", err);
		ok(wguard_decode(p3, sizeof(p3), &h, err, sizeof(err)) == -1,
		    "a glob without a reason: %s", err);
		ok(wguard_decode(p4, sizeof(p4), &h, err, sizeof(err)) == -1,
		    "a glob with ..: %s", err);
		ok(wguard_decode(p5, sizeof(p5), &h, err, sizeof(err)) == -1,
		    "a glob cut short: %s", err);
	}
	wguard_free(&g);
}

/* The violation monitor's reasons: a read-only mount outside the write roots is "not
 * in allowWrite"; a guard that refuses nothing (the monitor alone) refuses nothing. */
static void
test_monitor_reasons(void)
{
	struct wguard g;

	build(&g, 3, false);
	ok(wguard_way("/w/.bashrc", "denyWrite /w/.bashrc") == NULL &&
		wguard_way("/w/x", "not in allowWrite") == NULL,
	    "way: none for what is no mandatory deny");
	ok(strcmp(wguard_way("/w/.bashrc", "mandatory deny: shell start-up file"),
	       "no setting lifts it: change it outside srt") == 0 &&
		strcmp(wguard_way("/w/.gitconfig", "mandatory deny: git configuration"),
		    "no setting lifts it: change it outside srt") == 0 &&
		strcmp(wguard_way("/w/s.json", "settings file"),
		    "no setting lifts it: change it outside srt") == 0,
	    "way: a mandatory deny no setting lifts says so");
	ok(strcmp(wguard_way("/w/.git/CONFIG", "mandatory deny: git configuration"),
	       "allowGitConfig allows it") == 0 &&
		wguard_way("/w/.git/config",
		    "git configuration written in place (...; "
		    "allowGitConfig allows it)") == NULL,
	    "way: a git directory's config names allowGitConfig, once");
	ok(strcmp(wguard_readonly_why(&g, "/usr/x"), "read-only file system") == 0,
	    "no write roots known: a plain reason");
	strlist_push(&g.writable, "/w/p");
	strlist_push(&g.writable, "/tmp/run");
	ok(strcmp(wguard_readonly_why(&g, "/usr/x"), "not in allowWrite") == 0 &&
		strcmp(wguard_readonly_why(&g, "/w/pp"), "not in allowWrite") == 0 &&
		strcmp(wguard_readonly_why(&g, "/w"), "not in allowWrite") == 0,
	    "outside every write root (a sibling with the same prefix, a parent)");
	ok(strcmp(wguard_readonly_why(&g, "/w/p/masked/x"),
	       "a read-only mount inside allowWrite") == 0 &&
		strcmp(wguard_readonly_why(&g, "/tmp/run"),
		    "a read-only mount inside allowWrite") == 0,
	    "inside one: a mount there");
	ok(strcmp(wguard_readonly_why(&g, "/w/p/deny/me/x"), "denyWrite /w/p/deny/me") == 0 &&
		strcmp(wguard_readonly_why(&g, "/w/p/settings.json"), "settings file") == 0,
	    "inside one, a protected path's mount: its reason");
	/* allowWrite entries missing at the start, through the encoding as srt-seccomp
	 * gets them: the reason names the entry as the settings spell it. */
	{
		struct wguard h;
		char err[256], *buf;
		size_t len;

		wguard_add_absent(&g, "/home/u/.npm", "~/.npm", false);
		wguard_add_absent(&g, "/w/p/logs/*.log", "logs/*.log", true);
		buf = wguard_encode(&g, &len);
		ok(wguard_decode(buf, len, &h, err, sizeof(err)) == 0 && h.absent.n == 2,
		    "missing allowWrite entries survive the trip");
		free(buf);
		ok(strcmp(wguard_readonly_why(&h, "/home/u/.npm"),
		       "allowWrite ~/.npm did not exist when the run started") == 0 &&
			strcmp(wguard_readonly_why(&h, "/home/u/.npm/_cacache/x"),
			    "allowWrite ~/.npm did not exist when the run started") == 0 &&
			strcmp(wguard_readonly_why(&h, "/home/u/.npmrc"),
			    "not in allowWrite") == 0,
		    "a missing allowWrite path: its reason, for it and beneath it only");
		ok(strcmp(wguard_readonly_why(&h, "/w/p/logs/new.log"),
		       "allowWrite logs/*.log matches only what existed when the run started") ==
			    0 &&
			strcmp(wguard_readonly_why(&h, "/w/p/logs/new.txt"),
			    "a read-only mount inside allowWrite") == 0,
		    "a new file matching an allowWrite glob: the glob's reason");
		wguard_free(&h);
	}
	ok(P("/w/p/.bashrc") != NULL, "the guard refuses");
	g.inert = true;
	ok(P("/w/p/.bashrc") == NULL && C("/w/p/.git", true) == NULL &&
		R("/w/p/deny") == NULL && P("/w/p/.git/hooks/x") == NULL,
	    "an inert guard refuses nothing");
	wguard_free(&g);
}

/* What may go although the rules protect its name: it plants nothing by going. */
static void
test_removable(void)
{
	struct wguard g;

	build(&g, 3, false);
	wguard_add_exact(&g, "/w/p/sub/.git", "mandatory deny: git directory pointer", false);
	wguard_add_exact(
	    &g, "/w/p/.git/worktrees/w1/commondir", "mandatory deny: git commondir", false);
	wguard_add_exact(&g, "/w/p/dw/.git", "denyWrite /w/p/dw/.git", false);
	wguard_index(&g);
	ok(R("/w/p/sub/.git") != NULL && wguard_removable(&g, &fs, "/w/p/sub/.git", false),
	    "removable: a submodule's .git file");
	ok(R("/w/p/.git/worktrees/w1/commondir") != NULL &&
		wguard_removable(&g, &fs, "/w/p/.git/worktrees/w1/commondir", false) &&
		wguard_removable(&g, &fs, "/w/p/.git/worktrees/w1/gitdir", false),
	    "removable: a linked worktree's commondir and gitdir");
	ok(R("/w/q/.git/worktrees/w1/gitdir") != NULL &&
		wguard_removable(&g, &fs, "/w/q/.git/worktrees/w1/gitdir", false) &&
		wguard_removable(&g, &fs, "/w/q/.git/worktrees/w1/commondir", false),
	    "removable: a linked worktree's commondir and gitdir in a .git rm -rf took "
	    "the HEAD of");
	ok(wguard_removable(&g, &fs, "/w/p/.git/worktrees/w1", true) &&
		wguard_removable(&g, &fs, "/w/p/.git/worktrees", true) &&
		wguard_removable(&g, &fs, "/w/p/sub", true),
	    "removable: an empty directory on the way to them");
	ok(!wguard_removable(&g, &fs, "/w/p/.git", false) &&
		!wguard_removable(&g, &fs, "/w/home/.git", false),
	    "not: a root's own .git (the working directory is no worktree to remove)");
	ok(!wguard_removable(&g, &fs, "/w/p/.gitmodules", false) &&
		!wguard_removable(&g, &fs, "/w/p/sub/.gitmodules", false),
	    "not: .gitmodules, a dangerous name");
	ok(!wguard_removable(&g, &fs, "/w/p/dw/.git", false) &&
		!wguard_removable(&g, &fs, "/w/p/deny", true) &&
		!wguard_removable(&g, &fs, "/w/p/deny/me", false) &&
		!wguard_removable(&g, &fs, "/w/p/settings.json", false),
	    "not: what a user's rule protects, nor a pinned way");
	ok(wguard_removable(&g, &fs, "/w/p/.git/hooks", true) &&
		wguard_removable(&g, &fs, "/w/p/.git/hooks/pre-commit.sample", false) &&
		wguard_removable(&g, &fs, "/w/p/.git/config", false) &&
		wguard_removable(&g, &fs, "/w/p/.git/config.worktree", false) &&
		wguard_removable(&g, &fs, "/w/p/sub/.git", true),
	    "removable: what git never runs, a clone's leftovers (hooks' samples, the "
	    "hooks directory and a .git once empty, config)");
	ok(!wguard_removable(&g, &fs, "/w/p/.git/hooks/pre-commit", false) &&
		!wguard_removable(&g, &fs, "/w/p/.git/hooks/pre-commit.sample/x", false) &&
		!wguard_removable(&g, &fs, "/w/p/dw/.git/config", false) &&
		!wguard_removable(&g, &fs, "/w/p/.git/hooks.sample", false) &&
		!wguard_removable(&g, &fs, "/w/p/.git/commondir", false) &&
		!wguard_removable(&g, &fs, "/w/p/.bashrc", false) &&
		!wguard_removable(&g, &fs, "/w/p/.vscode", true) &&
		!wguard_removable(&g, &fs, "/w/p/.vscode/tasks.json", false),
	    "not: a hook, what a user's rule protects, a commondir of no worktree, the "
	    "dangerous names");
	wguard_free(&g);
}

int
main(void)
{
	test_exact_and_ancestors();
	test_depth_rule();
	test_git();
	test_model();
	test_encoding();
	test_globs();
	test_monitor_reasons();
	test_removable();
	return tap_done();
}
