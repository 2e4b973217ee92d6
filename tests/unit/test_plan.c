/*
 * The Linux filesystem plan: exact bwrap argument sequences for temp trees built here,
 * settings filled by hand.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gitconfig.h"
#include "glob.h"
#include "path.h"
#include "plan.h"
#include "settings.h"
#include "tap.h"
#include "util.h"

static char root[4096]; /* the temp tree, resolved */
static char proj[4200], home[4200];
static const char *ssh; /* "--tmpfs /etc/ssh/ssh_config.d " when the host has it */
static size_t sysnet;   /* directories of /sys hiding the host's network devices */

static char *
at(const char *rel)
{
	static char buf[8][8192];
	static int i;

	i = (i + 1) % 8;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", root, rel);
	return buf[i];
}

static void
mkd(const char *rel)
{
	char *p = xstrdup(at(rel)), *s;

	for (s = p + strlen(root) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
	free(p);
}

static void
mkf(const char *rel, const char *content)
{
	char *dir = path_dirname(at(rel));
	FILE *f;

	if (strlen(dir) > strlen(root))
		mkd(dir + strlen(root) + 1);
	free(dir);
	if ((f = fopen(at(rel), "w")) == NULL) {
		perror(at(rel));
		exit(2);
	}
	if (content != NULL)
		fputs(content, f);
	fclose(f);
}

static void
mkl(const char *rel, const char *target)
{
	if (symlink(target, at(rel)) == -1) {
		perror(at(rel));
		exit(2);
	}
}

static int
rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(p);
}

/* A fresh tree: root/proj (the cwd) and root/home. */
static void
fresh(void)
{
	if (*root != '\0')
		nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	mkdir(root, 0755);
	mkd("proj");
	mkd("home");
}

static void
pl_add(struct path_list *l, const char *path, int literal)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n].path = xstrdup(path);
	l->v[l->n].literal = literal;
	l->n++;
}

static void
pl_free(struct path_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].path);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

static void
st_init(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->deny_search_depth = 3;
}

static void
st_free(struct settings *s)
{
	pl_free(&s->fs.deny_read);
	pl_free(&s->fs.allow_read);
	pl_free(&s->fs.allow_write);
	pl_free(&s->fs.deny_write);
	pl_free(&s->cred.deny_files);
}

static struct plan_ctx ctx;
static struct plan_linux plan;
static struct strlist fsargs; /* the plan's filesystem arguments, less /sys's network */
static char *joined;

static char *
join_args(const struct strlist *l)
{
	size_t i, n = 1;
	char *s;

	for (i = 0; i < l->n; i++)
		n += strlen(l->v[i]) + 1;
	s = xmalloc(n);
	*s = '\0';
	for (i = 0; i < l->n; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, l->v[i]);
	}
	return s;
}

/* Build the plan; the arguments joined by spaces in `joined`, $R standing for the tree. */
static int
build(const struct settings *s)
{
	struct diags errs = { 0 };
	char *raw, *p, *o;
	size_t rl = strlen(root);
	int r;

	plan_linux_free(&plan);
	free(joined);
	joined = NULL;
	r = plan_linux_build(s, &ctx, &plan, &errs);
	for (size_t i = 0; i < errs.msgs.n; i++)
		printf("# plan: %s\n", errs.msgs.v[i]);
	diags_free(&errs);
	/* The filesystem arguments only (test_plan_sandbox.c checks the rest). The host's
	 * network devices hidden in /sys depend on the host: counted in `sysnet`, checked
	 * by test_sysfs_net, left out of what the others compare. */
	strlist_free(&fsargs);
	{
		size_t i;

		sysnet = 0;
		for (i = plan.fs_first; i < plan.fs_end; i++) {
			if (strcmp(plan.args.v[i], "--tmpfs") == 0 && i + 3 < plan.fs_end &&
			    strncmp(plan.args.v[i + 1], "/sys/", 5) == 0 &&
			    strcmp(plan.args.v[i + 2], "--remount-ro") == 0) {
				sysnet++;
				i += 3;
				continue;
			}
			strlist_push(&fsargs, plan.args.v[i]);
		}
	}
	raw = join_args(&fsargs);
	joined = xmalloc(strlen(raw) + 1);
	for (p = raw, o = joined; *p != '\0';) {
		if (strncmp(p, root, rl) == 0) {
			memcpy(o, "$R", 2);
			o += 2;
			p += rl;
		} else
			*o++ = *p++;
	}
	*o = '\0';
	free(raw);
	return r;
}

static int
args_are(const char *fmt, ...)
{
	char want[16384];
	va_list ap;
	int same;

	va_start(ap, fmt);
	vsnprintf(want, sizeof(want), fmt, ap);
	va_end(ap);
	same = strcmp(joined, want) == 0;
	if (!same)
		printf("#  want: %s\n#   got: %s\n", want, joined);
	return same;
}

static int
has(const char *needle)
{
	if (strstr(joined, needle) != NULL)
		return 1;
	printf("#  missing \"%s\" in: %s\n", needle, joined);
	return 0;
}

static int
lacks(const char *needle)
{
	if (strstr(joined, needle) == NULL)
		return 1;
	printf("#  unexpected \"%s\" in: %s\n", needle, joined);
	return 0;
}

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* Is p (a path under the temp tree, given relative to it) in the plan's write guard? */
static int
guarded(const char *rel)
{
	const char *p = at(rel);

	if (strlist_contains(&plan.guard.exact, p))
		return 1;
	printf("#  %s is not in the write guard\n", p);
	return 0;
}

/* The reason the write guard gives for rel, which it protects by name. */
static int
guard_why_is(const char *rel, const char *why)
{
	const char *p = at(rel);

	for (size_t i = 0; i < plan.guard.exact.n; i++)
		if (strcmp(plan.guard.exact.v[i], p) == 0) {
			if (strcmp(plan.guard.exact_why.v[i], why) == 0)
				return 1;
			printf("#  %s: %s\n", p, plan.guard.exact_why.v[i]);
			return 0;
		}
	printf("#  %s is not in the write guard\n", p);
	return 0;
}

/* Does the guard watch the read deny rel (as a reader spells it) at mask (NULL: missing)? */
static int
watched(const char *rel, const char *mask)
{
	const char *name = rel[0] == '/' ? rel : at(rel);
	char *m = mask == NULL ? NULL : xstrdup(mask[0] == '/' ? mask : at(mask));
	size_t i;
	int hit = 0;

	for (i = 0; i < plan.guard.watch.n && !hit; i++) {
		const struct wguard_watched *w = &plan.guard.watch.v[i];

		hit = strcmp(w->name, name) == 0 &&
		    (m == NULL ? w->mount == NULL
			       : w->mount != NULL && strcmp(w->mount, m) == 0);
	}
	if (!hit)
		printf("#  %s (%s) is not watched\n", name, m != NULL ? m : "missing");
	free(m);
	return hit;
}

static void
test_path_helpers(void)
{
	char *p;

	p = path_expand("~/a//b/./c/", "/home/u", "/w");
	ok(strcmp(p, "/home/u/a/b/c") == 0, "path_expand: tilde, // and /./ collapsed (%s)", p);
	free(p);
	p = path_expand("../x/./y", "/home/u", "/w/p");
	ok(strcmp(p, "/w/x/y") == 0, "path_expand: relative with .. (%s)", p);
	free(p);
	p = path_absolute("/a/link/../b", NULL, "/w");
	ok(strcmp(p, "/a/link/../b") == 0, "path_absolute keeps .. of an absolute entry");
	free(p);
	ok(path_expand("~", "", "/w") == NULL, "~ with an empty home expands to nothing");
	ok(path_expand("", "/h", "/w") == NULL, "an empty entry expands to nothing");
	p = path_expand("/..", NULL, NULL);
	ok(strcmp(p, "/") == 0, "the root's parent is the root");
	free(p);
	ok(path_is_under("/a/b", "/a") && path_is_under("/a", "/a") &&
		!path_is_under("/ab", "/a") && path_is_under("/x", "/"),
	    "path_is_under by component");
	ok(!path_is_strictly_under("/a", "/a") && path_is_strictly_under("/a/b", "/a"),
	    "path_is_strictly_under");
	ok(path_depth("/") == 0 && path_depth("/a/b") == 2, "path_depth");
	p = path_dirname("/a");
	ok(strcmp(p, "/") == 0, "dirname of /a is /");
	free(p);
}

static void
test_glob_match(void)
{
	ok(glob_match_path("/a/*.pem", "/a/x.pem"), "* in a name");
	ok(glob_match_path("/a/*.pem", "/a/.x.pem"), "* matches a leading dot");
	ok(!glob_match_path("/a/*.pem", "/a/b/x.pem"), "* stays in one name");
	ok(glob_match_path("/a/**/x", "/a/x") && glob_match_path("/a/**/x", "/a/b/c/x"),
	    "** is any number of directories");
	ok(glob_match_path("/a/?.c", "/a/b.c") && !glob_match_path("/a/?.c", "/a/bb.c"),
	    "? is one character");
	ok(glob_match_path("/a/[a-c]x", "/a/bx") && !glob_match_path("/a/[a-c]x", "/a/dx"),
	    "a set");
	ok(glob_match_path("/a/[!a]x", "/a/!x"), "no negation: ! is a member");
	ok(glob_match_path("/a/[]x", "/a/[]x"), "empty brackets are text");
	ok(glob_match_path("/a/[z-a]", "/a/[z-a]"), "a backwards range is text");
	ok(glob_has_magic("a*") && glob_has_magic("a]") && !glob_has_magic("abc"),
	    "glob_has_magic");
}

static void
test_root_and_disabled(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	ok(build(&s) == 0 && args_are("--ro-bind / /%s%s", *ssh ? " " : "", ssh),
	    "default policy: read-only root only");
	ok(plan.guard.roots.n == 1 && strcmp(plan.guard.roots.v[0], at("proj")) == 0,
	    "the guard's names apply under the cwd");

	s.fs.disabled = true;
	pl_add(&s.fs.deny_read, "~", 0);
	ok(build(&s) == 0 && args_are("--bind / /"), "filesystem.disabled: --bind / / alone");
	mkf("proj/srt.json", "{}");
	ctx.settings_path = at("proj/srt.json");
	ok(build(&s) == 0 &&
		args_are("--bind / / --ro-bind $R/proj/srt.json "
			 "$R/proj/srt.json"),
	    "filesystem.disabled still keeps the settings file read-only");
	ctx.settings_path = NULL;
	st_free(&s);
}

static void
test_write_allows(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	mkd("proj/out");
	mkd("home/work");
	mkd("outside");
	mkl("proj/escape", "../outside");
	mkl("proj/deeper", "out");
	pl_add(&s.fs.allow_write, "out", 0);
	pl_add(&s.fs.allow_write, "~/work/", 0);
	pl_add(&s.fs.allow_write, "missing", 0);
	pl_add(&s.fs.allow_write, "/dev/shm", 0);
	pl_add(&s.fs.allow_write, "escape", 0);
	pl_add(&s.fs.allow_write, "deeper", 0);
	pl_add(&s.fs.allow_write, "./out/", 0);
	pl_add(&s.fs.allow_write, "../home/work/**", 0);
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/proj/out $R/proj/out "
			 "--bind $R/home/work $R/home/work%s%s",
		    *ssh ? " " : "", ssh),
	    "write allows: relative, tilde, /** stripped, deduplicated; missing, /dev and "
	    "links skipped");

	/* The private TMPDIR first, then ~/.npm/_logs when it exists. */
	mkd("tmp");
	mkd("home/.npm/_logs");
	ctx.tmpdir = at("tmp");
	pl_free(&s.fs.allow_write);
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/tmp $R/tmp --bind "
			 "$R/home/.npm/_logs $R/home/.npm/_logs%s%s",
		    *ssh ? " " : "", ssh),
	    "default writes: TMPDIR and ~/.npm/_logs (no /dev entries)");
	pl_add(&s.fs.deny_read, "~/.npm", 0);
	ok(build(&s) == 0 && lacks("--bind $R/home/.npm/_logs"),
	    "~/.npm/_logs is left out when a denyRead covers it");
	pl_add(&s.fs.allow_read, "~", 0);
	ok(build(&s) == 0 && lacks("--bind $R/home/.npm/_logs"),
	    "... an allowRead above the deny does not re-open it");
	pl_add(&s.fs.allow_read, "~/.npm/_logs", 0);
	ok(build(&s) == 0 && has("--bind $R/home/.npm/_logs"),
	    "... and back when an allowRead re-opens it");
	pl_add(&s.cred.deny_files, "~/.npm/*", 0);
	ok(build(&s) == 0 && lacks("--bind $R/home/.npm/_logs"),
	    "... but no allowRead re-opens what a credentials file covers");
	st_free(&s);

	/* The reference's other default writes: ~/.claude/debug and its TMPDIR, when they
	 * exist; the credentials files leave /tmp/claude alone, as read denies do. */
	st_init(&s);
	mkd("home/.claude/debug");
	mkd("reftmp");
	ctx.ref_tmpdir = at("reftmp");
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/tmp $R/tmp --bind $R/reftmp "
			 "$R/reftmp --bind $R/home/.npm/_logs $R/home/.npm/_logs --bind "
			 "$R/home/.claude/debug $R/home/.claude/debug%s%s",
		    *ssh ? " " : "", ssh),
	    "default writes: TMPDIR, the reference's TMPDIR, ~/.npm/_logs, ~/.claude/debug");
	pl_add(&s.fs.deny_read, "~/.claude", 0);
	pl_add(&s.cred.deny_files, at("reftmp"), 0);
	ok(build(&s) == 0 && lacks("--bind $R/home/.claude/debug $R") &&
		has("--bind $R/reftmp $R/reftmp"),
	    "~/.claude/debug left out under a denyRead; "
	    "the reference's TMPDIR kept whatever is read-denied");
	ctx.ref_tmpdir = NULL;
	ctx.tmpdir = NULL;
	st_free(&s);
}

/*
 * Is rel a mask srt-seccomp mounts (wguard 'F'), and not bwrap's? With the guard bwrap
 * gets no /dev/null bind for a read-denied file, nor a tmpfs for a denied directory with
 * nothing brought back inside (a path gone by its mounts would stop it).
 */
static int
masked(const char *rel)
{
	char *m = xstrdup(rel[0] == '/' ? rel : at(rel)), *arg = xasprintf("/dev/null %s", m);
	size_t i;
	int hit = 0;

	for (i = 0; i < plan.guard.watch.n && !hit; i++)
		hit = plan.guard.watch.v[i].place &&
		    strcmp(plan.guard.watch.v[i].mount, m) == 0;
	if (!hit)
		printf("#  %s is not a mask srt-seccomp mounts\n", m);
	if (hit && !lacks(arg))
		hit = 0;
	free(arg);
	free(m);
	return hit;
}

static void
test_read_denies(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	mkd("home/secrets/out");
	mkd("home/secrets/pub");
	mkf("home/key.pem", "k");
	mkd("home/a/b");
	pl_add(&s.fs.deny_read, "~/secrets", 0);
	pl_add(&s.fs.deny_read, "~/key.pem", 0);
	pl_add(&s.fs.deny_read, "~/nothing-here", 0);
	pl_add(&s.fs.allow_write, "~/secrets/out", 0);
	pl_add(&s.fs.allow_read, "~/secrets/pub", 0);
	/* /etc/ssh/ssh_config.d is shallower than the tree: it goes first. */
	ok(build(&s) == 0 &&
		args_are(
		    "--ro-bind / / --bind $R/home/secrets/out "
		    "$R/home/secrets/out %s%s--tmpfs $R/home/secrets --ro-bind $R/home/secrets/pub "
		    "$R/home/secrets/pub --bind $R/home/secrets/out $R/home/secrets/out",
		    ssh, *ssh ? " " : "") &&
		masked("home/key.pem") && watched("home/key.pem", "home/key.pem"),
	    "read deny dir: tmpfs, allowRead then write paths bound back; file: /dev/null "
	    "mounted by srt-seccomp; missing: nothing");
	ctx.unguarded = true;
	ok(build(&s) == 0 &&
		has("--bind $R/home/secrets/out $R/home/secrets/out "
		    "--ro-bind /dev/null $R/home/key.pem"),
	    "unguarded: bwrap masks the file (no srt-seccomp to)");
	ctx.unguarded = false;
	st_free(&s);

	/* A write path inside an allowRead one: bound after it, or the read-only bind
	 * would hide it (the reference's bwrap-mount-ordering case). */
	st_init(&s);
	mkd("home/b/project/state");
	pl_add(&s.fs.deny_read, "~/b", 0);
	pl_add(&s.fs.allow_read, "~/b/project", 0);
	pl_add(&s.fs.allow_write, "~/b/project/state", 0);
	ok(build(&s) == 0 &&
		args_are(
		    "--ro-bind / / --bind $R/home/b/project/state "
		    "$R/home/b/project/state %s%s--tmpfs $R/home/b --ro-bind $R/home/b/project "
		    "$R/home/b/project --bind $R/home/b/project/state $R/home/b/project/state",
		    ssh, *ssh ? " " : ""),
	    "a write path inside an allowRead path is bound back after it");
	st_free(&s);

	st_init(&s);
	pl_add(&s.fs.deny_read, "~/a/b", 0);
	pl_add(&s.fs.deny_read, "~/a", 0);
	ok(build(&s) == 0 && masked("home/a") && lacks("$R/home/a/b"),
	    "read denies sorted by depth; one inside an earlier tmpfs is dropped");
	st_free(&s);

	st_init(&s);
	pl_add(&s.fs.deny_read, "~/key.pem", 0);
	pl_add(&s.fs.allow_read, "~/key.pem", 0);
	ok(build(&s) == 0 && lacks("key.pem"), "an allowRead naming the file lifts its deny");
	st_free(&s);

	/* A link planted at an allowed path must not re-open what it points at. */
	st_init(&s);
	mkd("home/secrets/inner");
	mkl("home/secrets/pub/peek", "../inner");
	pl_add(&s.fs.deny_read, "~/secrets", 0);
	pl_add(&s.fs.deny_read, "~/secrets/inner", 0);
	pl_add(&s.fs.allow_read, "~/secrets/pub/peek", 0);
	ok(build(&s) == 0 && lacks("peek"),
	    "an allowRead link to a denied place restores nothing");
	st_free(&s);

	/* credentials files (mode "deny"): the same mounts as denyRead, no exceptions. */
	st_init(&s);
	mkd("home/.aws/sub");
	mkf("home/.aws/config", "c");
	mkf("home/.netrc", "n");
	mkd("home/keys");
	mkf("home/keys/a.pem", "a");
	mkf("home/keys/b.pem", "b");
	mkf("home/keys/c.txt", "c");
	pl_add(&s.cred.deny_files, "~/.aws", 0);
	pl_add(&s.cred.deny_files, "~/.netrc", 0);
	pl_add(&s.cred.deny_files, "~/keys/*.pem", 0);
	pl_add(&s.fs.allow_read, "~/.aws/config", 0);
	pl_add(&s.fs.allow_read, "~/.netrc", 0);
	pl_add(&s.fs.allow_write, "~/.aws/sub", 0);
	ok(build(&s) == 0 && masked("home/.aws") && lacks("--tmpfs $R/home/.aws") &&
		masked("home/.netrc") && masked("home/keys/a.pem") &&
		masked("home/keys/b.pem") && lacks("c.txt") &&
		lacks("--ro-bind $R/home/.aws/config") && !has("--tmpfs $R/home/.aws --bind"),
	    "credentials: a directory hidden, files and glob matches masked; allowRead "
	    "lifts nothing, nothing bound back beneath");
	pl_add(&s.fs.deny_read, "~", 0);
	pl_add(&s.fs.allow_read, "~/.aws", 0);
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/home/.aws/sub "
			 "$R/home/.aws/sub%s%s",
		    *ssh ? " " : "", ssh) &&
		masked("home"),
	    "nor by another deny's tmpfs above it (allowRead ~/.aws and the write path in "
	    "it stay hidden)");
	st_free(&s);
	st_init(&s);
	pl_add(&s.cred.deny_files, "~/.aws", 0);
	s.fs.disabled = true;
	ok(build(&s) == 0 && lacks(".aws"),
	    "filesystem.disabled drops the credentials files "
	    "too");
	st_free(&s);
}

static void
test_cwd_mandatory(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/proj $R/proj%s%s", *ssh ? " " : "", ssh),
	    "writable cwd: no placeholder for a missing dangerous name");
	ok(guarded("proj/.bashrc") && guarded("proj/.claude/commands") &&
		guarded("proj/.claude/settings.json") && guarded("proj/.envrc") &&
		guarded("proj/.vscode"),
	    "the write guard holds every one of them instead");
	ok(strlist_contains(&plan.writes, at("proj")), "the write roots are in the plan");
	{
		struct stat st;

		ok(lstat(at("proj/.bashrc"), &st) == -1 && lstat(at("proj/.claude"), &st) == -1,
		    "nothing was made on the host");
	}

	/* Existing dangerous paths get a read-only self-bind. */
	fresh();
	mkf("proj/.bashrc", "x");
	mkd("proj/.vscode");
	mkd("proj/.claude/commands");
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/.bashrc $R/proj/.bashrc") &&
		has("--ro-bind-try $R/proj/.vscode $R/proj/.vscode") &&
		has("--ro-bind-try $R/proj/.claude/commands $R/proj/.claude/commands") &&
		lacks("$R/proj/.claude/agents") && guarded("proj/.claude/agents") &&
		lacks("--tmpfs $R/proj/.claude "),
	    "existing dangerous paths are bound read-only, missing siblings are guarded");
	ok(has("--ro-bind / / --ro-bind-try $R/proj/.claude $R/proj/.claude --bind $R/proj"),
	    "ancestor pin on .claude, before the allow binds");
	st_free(&s);
}

static void
test_git(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	mkf("proj/.git/HEAD", "ref: refs/heads/main\n");
	mkf("proj/.git/config", "[core]\n");
	mkf("proj/.git/hooks/pre-commit.sample", "#!/bin/sh\n");
	ok(build(&s) == 0 && lacks(".git/hooks") && guarded("proj/.git/hooks") &&
		lacks(".git/config"),
	    ".git directory: hooks of git's samples only and config left to the write guard "
	    "(rm -rf of the clone removes them; it judges config by content)");
	mkf("proj/.git/hooks/pre-commit", "#!/bin/sh\n");
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/.git/hooks $R/proj/.git/hooks") &&
		lacks(".git/config") &&
		has("--ro-bind / / --ro-bind-try $R/proj/.git $R/proj/.git --bind"),
	    ".git directory: hooks that hold a hook read-only, .git pinned, config left to "
	    "the write guard");
	ctx.unguarded = true;
	unlink(at("proj/.git/hooks/pre-commit"));
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/.git/hooks $R/proj/.git/hooks"),
	    "without the write guard hooks of samples only are bound read-only");
	ctx.unguarded = false;
	mkf("proj/.git/hooks/pre-commit", "#!/bin/sh\n");
	ctx.unguarded = true;
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/.git/config $R/proj/.git/config"),
	    "without the write guard config is bound read-only");
	ctx.unguarded = false;
	s.fs.allow_git_config = true;
	ok(build(&s) == 0 && lacks(".git/config") && has(".git/hooks"),
	    "allowGitConfig leaves .git/config writable");
	s.fs.allow_git_config = false;

	/* Another directory called hooks, empty, keeps its mount: no git directory's. */
	fresh();
	mkf("proj/.git/HEAD", "ref: refs/heads/main\n");
	mkf("proj/.git/config", "[core]\n\thooksPath = hooks\n");
	mkd("proj/hooks");
	mkd("proj/.claude/hooks");
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/hooks $R/proj/hooks") &&
		has("--ro-bind-try $R/proj/.claude/hooks $R/proj/.claude/hooks") &&
		lacks("$R/proj/.git/hooks "),
	    "an empty core.hooksPath or .claude/hooks called hooks stays read-only: only a "
	    "git directory's own hooks of samples only go to the guard");

	fresh();
	mkf("proj/.git", "gitdir: /elsewhere\n");
	ok(build(&s) == 0 && guarded("proj/.git") && lacks("$R/proj/.git ") &&
		lacks(".git/hooks"),
	    "a .git file (worktree) is itself protected, by the write "
	    "guard (a mount could not be removed by git worktree remove)");
	ctx.unguarded = true;
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/.git $R/proj/.git"),
	    "without the write guard it is bound read-only");
	ctx.unguarded = false;

	fresh();
	mkf("proj/sub/.git/HEAD", "x");
	mkf("proj/sub/.git/config", "[core]\n");
	mkf("proj/wt/.git", "gitdir: x");
	mkf("proj/a/b/.git", "gitdir: y");
	ok(build(&s) == 0 && guarded("proj/sub/.git/hooks") && lacks("sub/.git/config") &&
		guarded("proj/wt/.git") && lacks("$R/proj/wt/.git") &&
		lacks("$R/proj/a/b/.git"),
	    "nested repository: hooks guarded, config and a nested .git file within the "
	    "directory rule's depth left to the guard");
	ok(has("--ro-bind / / --bind $R/proj $R/proj") && lacks("$R/proj/wt "),
	    "no pin on wt: neither sub's config nor wt's .git file is a bound path to pin the "
	    "way to");
	ctx.unguarded = true;
	ok(build(&s) == 0 &&
		has("--ro-bind-try $R/proj/sub/.git/config $R/proj/sub/.git/config") &&
		has("--ro-bind / / --ro-bind-try $R/proj/sub $R/proj/sub --ro-bind-try $R/proj/wt $R/proj/wt "
		    "--ro-bind-try $R/proj/sub/.git $R/proj/sub/.git --bind"),
	    "unguarded: config bound, pins on sub, wt and sub/.git, shallowest first");
	ctx.unguarded = false;
	st_free(&s);
}

static void
test_depth_rule(void)
{
	static const char *lv[] = { "", "a/", "a/b/", "a/b/c/", "a/b/c/d/" };
	struct settings s;
	char rel[256], want[512];
	int d, l;

	for (d = 1; d <= 4; d++) {
		fresh();
		st_init(&s);
		s.deny_search_depth = d;
		pl_add(&s.fs.allow_write, ".", 0);
		for (l = 0; l <= 4; l++) {
			snprintf(rel, sizeof(rel), "proj/%s.envrc", lv[l]);
			mkf(rel, "x");
			snprintf(rel, sizeof(rel), "proj/%s.idea/x", lv[l]);
			mkf(rel, "x");
		}
		if (build(&s) == -1) {
			ok(0, "depth %d: plan", d);
			continue;
		}
		for (l = 0; l <= 4; l++) {
			int fwant = l <= d - 1, dwant = l == 0 || l <= d - 2;

			snprintf(want, sizeof(want), "--ro-bind-try $R/proj/%s.envrc ", lv[l]);
			ok((strstr(joined, want) != NULL) == fwant,
			    "depth %d: file with its directory %d levels down %s", d, l,
			    fwant ? "protected" : "not protected");
			snprintf(want, sizeof(want), "--ro-bind-try $R/proj/%s.idea ", lv[l]);
			ok((strstr(joined, want) != NULL) == dwant,
			    "depth %d: directory %d levels down %s", d, l,
			    dwant ? "protected" : "not protected");
		}
		st_free(&s);
	}

	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	mkf("proj/node_modules/.bashrc", "x");
	mkf("proj/x/node_modules/.vscode/s", "x");
	mkf("proj/x/.ZSHRC", "x");
	mkd("proj/x/.Claude/Commands");
	ok(build(&s) == 0 && lacks("node_modules"), "node_modules is not searched");
	ok(has("--ro-bind-try $R/proj/x/.ZSHRC $R/proj/x/.ZSHRC") &&
		has("--ro-bind-try $R/proj/x/.Claude/Commands $R/proj/x/.Claude/Commands"),
	    "names match case aside");
	st_free(&s);

	/* SPEC §5: every write root is searched, not only the cwd. */
	fresh();
	st_init(&s);
	mkf("home/lib/.bashrc", "x");
	mkf("home/lib/pkg/.mcp.json", "x");
	pl_add(&s.fs.allow_write, "~/lib", 0);
	ok(build(&s) == 0 && has("--ro-bind-try $R/home/lib/.bashrc $R/home/lib/.bashrc") &&
		has("--ro-bind-try $R/home/lib/pkg/.mcp.json"),
	    "mandatory denies found under another write root");
	st_free(&s);

	/* The cwd spelled through a link: relative entries resolve against the real one. */
	fresh();
	st_init(&s);
	mkl("cwdlink", "proj");
	mkf("proj/.gitconfig", "x");
	pl_add(&s.fs.allow_write, ".", 0);
	ctx.cwd = at("cwdlink");
	ok(build(&s) == 0 && has("--bind $R/proj $R/proj") &&
		has("--ro-bind-try $R/proj/.gitconfig $R/proj/.gitconfig") && lacks("cwdlink"),
	    "a cwd reached through a link is used as its real path");
	ctx.cwd = proj;
	st_free(&s);
}

static void
test_write_denies(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	mkf("proj/secret.txt", "s");
	mkd("proj/sub");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_write, "secret.txt", 0);
	pl_add(&s.fs.deny_write, "./secret.txt", 0);
	pl_add(&s.fs.deny_write, at("proj/secret.txt"), 0);
	pl_add(&s.fs.deny_write, "sub/new/file", 0);
	pl_add(&s.fs.deny_write, "/etc/passwd", 0);
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --bind $R/proj $R/proj%s%s "
			 "--ro-bind-try $R/proj/secret.txt $R/proj/secret.txt",
		    *ssh ? " " : "", ssh),
	    "write denies: existing bound once, missing ones and outside write roots "
	    "nothing");
	ok(guarded("proj/sub/new/file") && guarded("proj/secret.txt"),
	    "the missing one is in the write guard, with the existing one");
	st_free(&s);

	/* Links. */
	fresh();
	st_init(&s);
	mkd("outside");
	mkf("outside/f", "x");
	mkd("proj/real");
	mkf("proj/real/f", "x");
	mkl("proj/out", at("outside/f"));
	mkl("proj/in", "real/f");
	mkl("proj/loop", "loop");
	mkl("proj/dang", "sub2/x");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_write, "out", 0);
	pl_add(&s.fs.deny_write, "in", 0);
	pl_add(&s.fs.deny_write, "loop", 0);
	pl_add(&s.fs.deny_write, "dang", 0);
	ok(build(&s) == 0 && lacks("outside") &&
		has("--ro-bind-try $R/proj/real/f $R/proj/real/f") &&
		has("--ro-bind /dev/null $R/proj/loop") &&
		has("--ro-bind / / --ro-bind-try $R/proj/real $R/proj/real --bind"),
	    "deny links: resolved first (outside: nothing; inside: the target, its "
	    "directory pinned), an unresolvable one masked");
	ok(guarded("proj/in") && guarded("proj/real/f") && guarded("proj/dang") &&
		guarded("proj/sub2/x") && guarded("proj/out") && guarded("outside/f"),
	    "the guard holds each link and where it leads, a dangling one's target too");
	st_free(&s);

	/* A file on the way: nothing can be made beneath it; it is held read-only. */
	fresh();
	st_init(&s);
	mkf("proj/plain", "x");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_write, "plain/child", 0);
	ok(build(&s) == 0 && lacks("plain/child") && guarded("proj/plain/child"),
	    "a file on the way: nothing is mounted, the guard holds the path");
	st_free(&s);

	/* A denied directory: nothing inside needs its own bind or placeholder. */
	fresh();
	st_init(&s);
	mkd("proj/locked");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_write, "locked", 0);
	pl_add(&s.fs.deny_write, "locked/missing", 0);
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/locked $R/proj/locked") &&
		lacks("locked/missing"),
	    "no placeholder inside a read-only denied directory");
	st_free(&s);

	/* The settings file inside a write root is made read-only (SPEC §7). */
	fresh();
	st_init(&s);
	mkf("proj/settings.json", "{}");
	pl_add(&s.fs.allow_write, ".", 0);
	ctx.settings_path = at("proj/settings.json");
	ok(build(&s) == 0 && has("--bind $R/proj $R/proj") &&
		has("--ro-bind-try $R/proj/settings.json $R/proj/settings.json"),
	    "settings file in a write root: read-only");
	ctx.settings_path = "settings.json";
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/settings.json $R/proj/settings.json"),
	    "a relative settings path is taken from the cwd");
	ctx.settings_path = at("home/settings.json");
	ok(build(&s) == 0 && lacks("settings.json"), "settings file elsewhere: nothing");

	ctx.settings_path = NULL;
	st_free(&s);

	/* A placeholder inside a read-denied directory: hidden, never made, never recorded. */
	fresh();
	st_init(&s);
	mkd("proj/hidden");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_read, "hidden", 0);
	pl_add(&s.fs.deny_write, "hidden/new", 0);
	ok(build(&s) == 0 && masked("proj/hidden") && lacks("hidden/new") &&
		guarded("proj/hidden/new") && watched("proj/hidden", "proj/hidden"),
	    "a deny under a read-deny tmpfs: guarded, and the tmpfs watched");
	st_free(&s);

	/* A write deny over a read-denied directory must not re-expose it. */
	fresh();
	st_init(&s);
	mkd("proj/d/private");
	mkf("proj/d/private/k", "x");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_read, "d/private", 0);
	pl_add(&s.fs.deny_write, "d", 0);
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/d $R/proj/d") &&
		masked("proj/d/private") && lacks("--tmpfs $R/proj/d/private"),
	    "read-deny tmpfs mounted last (by srt-seccomp), after a write deny's bind above it");
	ctx.unguarded = true;
	ok(build(&s) == 0 &&
		has("--tmpfs $R/proj/d/private --ro-bind-try $R/proj/d $R/proj/d") &&
		ends_with(joined, " --tmpfs $R/proj/d/private"),
	    "unguarded: bwrap's tmpfs re-applied last, after a write deny's bind above it");
	ctx.unguarded = false;
	st_free(&s);
}

static void
test_globs(void)
{
	struct settings s;

	fresh();
	st_init(&s);
	mkf("home/keys/a.pem", "x");
	mkf("home/keys/b.pem", "x");
	mkf("home/keys/c.txt", "x");
	mkf("home/keys/[x].pem", "x");
	mkd("proj/out1");
	mkd("proj/out2");
	mkd("proj/other");
	mkf("proj/x/y.lock", "x");
	mkf("proj/z.lock", "x");
	mkd("home/vault/pub1");
	mkd("home/vault/priv");
	pl_add(&s.fs.deny_read, "~/keys/*.pem", 0);
	pl_add(&s.fs.deny_read, "~/vault", 0);
	pl_add(&s.fs.allow_read, "~/vault/pub?", 0);
	pl_add(&s.fs.allow_write, "out*", 0);
	pl_add(&s.fs.deny_write, "out*/**/*.keep", 0);
	pl_add(&s.fs.deny_write, "**/*.lock", 0);
	ok(build(&s) == 0 && masked("home/keys/[x].pem") && masked("home/keys/a.pem") &&
		masked("home/keys/b.pem") && lacks("c.txt"),
	    "denyRead glob: each match masked");
	ok(has("--tmpfs $R/home/vault --ro-bind $R/home/vault/pub1 $R/home/vault/pub1") &&
		lacks("priv"),
	    "allowRead glob: matches bound back");
	ok(has("--bind $R/proj/out1 $R/proj/out1 --bind $R/proj/out2 $R/proj/out2") &&
		lacks("--bind $R/proj/other"),
	    "allowWrite glob: each match writable");
	ok(lacks(".lock"), "denyWrite glob outside any write root: nothing");
	pl_add(&s.fs.allow_write, ".", 0);
	ok(build(&s) == 0 && has("--ro-bind-try $R/proj/x/y.lock $R/proj/x/y.lock") &&
		has("--ro-bind-try $R/proj/z.lock $R/proj/z.lock"),
	    "denyWrite glob with **: every match read-only");
	ok(strlist_contains(&plan.guard.globs, at("proj/out*/**/*.keep")) &&
		strlist_contains(&plan.guard.globs, at("proj/**/*.lock")) &&
		strcmp(plan.guard.globs_why.v[1], "denyWrite **/*.lock") == 0,
	    "denyWrite globs themselves go to the write guard, anchored at the cwd");
	st_free(&s);

	/* Without a home, "~" grants nothing, and a deny naming it is an error. */
	st_init(&s);
	ctx.home = NULL;
	pl_add(&s.fs.allow_write, "~/x", 0);
	ok(build(&s) == 0 && lacks("~"), "allowWrite ~ without a home: nothing granted");
	pl_add(&s.fs.deny_write, "~/.ssh", 0);
	ok(build(&s) == -1 && plan.args.n == 0, "denyWrite ~ without a home: no plan");
	ctx.home = home;
	st_free(&s);

	/* Literal entries are names. */
	st_init(&s);
	pl_add(&s.fs.deny_read, "~/keys/*.pem", 1);
	ok(build(&s) == 0 && lacks("a.pem"), "a literal entry with * is not a glob");
	pl_add(&s.fs.deny_read, "~/keys/[x].pem", 1);
	ok(build(&s) == 0 && masked("home/keys/[x].pem") && lacks("a.pem"),
	    "a literal entry names the file it spells");
	st_free(&s);
}

/* --- git configuration: the parser, then what it adds to the plan ----------------------- */

static int
cfg_parse(const char *text, struct gitconfig *c)
{
	gitconfig_free(c);
	gitconfig_init(c);
	return gitconfig_parse(text, strlen(text), c);
}

static int
str_is(const char *got, const char *want)
{
	if (got == NULL || want == NULL ? got == want : strcmp(got, want) == 0)
		return 1;
	printf("#  want \"%s\", got \"%s\"\n", want != NULL ? want : "(null)",
	    got != NULL ? got : "(null)");
	return 0;
}

static void
test_gitconfig_parse(void)
{
	static const char nul[] = "[core]\n\thooksPath = a\n\tx = \0\n\thooksPath = b\n";
	struct gitconfig c;

	gitconfig_init(&c);
	ok(cfg_parse("[core]\n\tbare = false\n\thooksPath = .husky\n", &c) == 0 &&
		str_is(c.hooks_path, ".husky") && c.worktree == NULL &&
		c.worktree_config == -1 && c.includes.n == 0,
	    "gitconfig: [core] hooksPath");
	ok(cfg_parse("[CoRe]\nHOOKSPATH=x\n", &c) == 0 && str_is(c.hooks_path, "x"),
	    "gitconfig: section and key names are case-insensitive");
	ok(cfg_parse("[core]\n\tfsmonitor = ./fs.sh\n[init]\ntemplateDir = ~/t\n"
		     "[init \"x\"]\ntemplateDir = no\n",
	       &c) == 0 &&
		str_is(c.fsmonitor, "./fs.sh") && str_is(c.template_dir, "~/t"),
	    "gitconfig: core.fsmonitor and init.templateDir");
	ok(cfg_parse("[core]\nfsmonitor\n", &c) == 0 && str_is(c.fsmonitor, "true"),
	    "gitconfig: a bare fsmonitor is true");
	ok(cfg_parse("[core \"x\"]\n\thooksPath = a\n[core.y]\nhooksPath = b\n"
		     "[core \"\"]\nhooksPath = c\n[core.]\nhooksPath = d\n",
	       &c) == 0 &&
		c.hooks_path == NULL,
	    "gitconfig: [core \"x\"], [core.y], [core \"\"] are not [core]");
	ok(cfg_parse("[other]\nhooksPath = a\n[core]\nworktree = w\n", &c) == 0 &&
		c.hooks_path == NULL && str_is(c.worktree, "w"),
	    "gitconfig: hooksPath in another section is not core.hooksPath");
	ok(cfg_parse("[core]\nhooksPath = a\n[x]\nhooksPath = b\n[core]\nhooksPath = c\n"
		     "hooksPath = d\n",
	       &c) == 0 &&
		str_is(c.hooks_path, "d"),
	    "gitconfig: the last assignment wins, across sections");
	ok(cfg_parse("[core] hooksPath = z\n", &c) == 0 && str_is(c.hooks_path, "z"),
	    "gitconfig: a key on the header's line");
	ok(cfg_parse("[core]\nhooksPath = \"my  hooks\" \n", &c) == 0 &&
		str_is(c.hooks_path, "my  hooks"),
	    "gitconfig: a quoted value keeps its spaces");
	ok(cfg_parse("[core]\nhooksPath =   a \t b  \n", &c) == 0 &&
		str_is(c.hooks_path, "a   b"),
	    "gitconfig: unquoted whitespace trimmed, each inner one a space");
	ok(cfg_parse("[core]\nhooksPath = x\"y\\\"z\"\\\\\\t\n", &c) == 0 &&
		str_is(c.hooks_path, "xy\"z\\\t"),
	    "gitconfig: quotes and escapes");
	ok(cfg_parse("[core]\nhooksPath = ab\\\ncd\n", &c) == 0 && str_is(c.hooks_path, "abcd"),
	    "gitconfig: a backslash at the end goes on");
	ok(cfg_parse("# [core] hooksPath = a\n; x\n[core] ; c\n  # c\n"
		     "hooksPath = b # c\nworktree = \"w # x\" ; c\n",
	       &c) == 0 &&
		str_is(c.hooks_path, "b") && str_is(c.worktree, "w # x"),
	    "gitconfig: # and ; comments, not inside quotes");
	ok(cfg_parse("\xef\xbb\xbf[core]\r\nhooksPath = crlf\r\n", &c) == 0 &&
		str_is(c.hooks_path, "crlf"),
	    "gitconfig: byte order mark and CRLF");
	ok(cfg_parse("[core]\nhooksPath = a\nhooksPath =\n", &c) == 0 &&
		str_is(c.hooks_path, ""),
	    "gitconfig: an empty value is kept (reset)");
	ok(cfg_parse("[extensions]\n\tworktreeConfig\n", &c) == 0 && c.worktree_config == 1,
	    "gitconfig: a boolean without value is true");
	ok(cfg_parse("[Extensions]\nworktreeconfig = off\n", &c) == 0 && c.worktree_config == 0,
	    "gitconfig: worktreeConfig = off");
	ok(cfg_parse("[extensions]\nworktreeConfig = 0\n[extensions]\nworktreeConfig = yes\n",
	       &c) == 0 &&
		c.worktree_config == 1,
	    "gitconfig: worktreeConfig, last wins");
	ok(cfg_parse("[include]\n\tpath = a.inc\n[includeIf \"gitdir:~/w/\"]\n\tpath = ~/b\n"
		     "[include \"x\"]\npath = c\n[includeif.old-form]\npath = d\n"
		     "[includeIf]\npath = e\n[other]\npath = f\n",
	       &c) == 0 &&
		c.includes.n == 3 && str_is(c.includes.v[0], "a.inc") &&
		str_is(c.includes.v[1], "~/b") && str_is(c.includes.v[2], "d"),
	    "gitconfig: [include] and [includeIf \"...\"] paths");

	/* Malformed: what came before is kept, the line is named. */
	ok(cfg_parse("[core]\nhooksPath = a\nhooksPath = \"b\n", &c) == -1 &&
		c.error_line == 3 && str_is(c.hooks_path, "a"),
	    "gitconfig: an unterminated quote is refused at its line, earlier values kept");
	ok(cfg_parse("[core\nhooksPath = a\n", &c) == -1 && c.error_line == 1,
	    "gitconfig: an unterminated header");
	ok(cfg_parse("hooksPath = a\n", &c) == -1 && c.hooks_path == NULL,
	    "gitconfig: a key before any section");
	ok(cfg_parse("[core]\nhooksPath = a\\q\n", &c) == -1, "gitconfig: an unknown escape");
	ok(cfg_parse("[core]\nhooksPath\n", &c) == -1, "gitconfig: a path without a value");
	ok(cfg_parse("[core]\n9key = a\n", &c) == -1 && cfg_parse("[co re]\n", &c) == -1 &&
		cfg_parse("[core \"x\" ]\n", &c) == -1 &&
		cfg_parse("[core]\nk # c\n", &c) == -1,
	    "gitconfig: bad key and header spellings");
	gitconfig_free(&c);
	gitconfig_init(&c);
	ok(gitconfig_parse(nul, sizeof(nul) - 1, &c) == -1 && str_is(c.hooks_path, "a"),
	    "gitconfig: a NUL byte stops the parse");

	/* Reading: only regular files, never blocking on a FIFO. */
	fresh();
	mkf("cfg", "[core]\nhooksPath = r\n");
	mkd("dir");
	mkfifo(at("fifo"), 0644);
	gitconfig_free(&c);
	gitconfig_init(&c);
	alarm(10);
	ok(gitconfig_read(AT_FDCWD, at("cfg"), &c) == 0 && str_is(c.hooks_path, "r"),
	    "gitconfig_read: a file");
	ok(gitconfig_read(AT_FDCWD, at("missing"), &c) == 1, "gitconfig_read: missing is 1");
	ok(gitconfig_read(AT_FDCWD, at("fifo"), &c) == -1 && errno == EINVAL &&
		gitconfig_read(AT_FDCWD, at("dir"), &c) == -1,
	    "gitconfig_read: a FIFO or a directory is refused without blocking");
	alarm(0);
	gitconfig_free(&c);
}

/* The plan has an argument that is exactly the tree path rel. */
static int
has_arg(const char *rel)
{
	/* Protected: bound read-only if it exists, in the write guard in any case. */
	if (strlist_contains(&plan.args, at(rel)) ||
	    strlist_contains(&plan.guard.exact, at(rel)))
		return 1;
	printf("#  no argument %s in: %s\n", rel, joined);
	return 0;
}

static int
lacks_arg(const char *rel)
{
	if (!strlist_contains(&plan.args, at(rel)) &&
	    !strlist_contains(&plan.guard.exact, at(rel)))
		return 1;
	printf("#  unexpected argument %s in: %s (or the write guard)\n", rel, joined);
	return 0;
}

/* A repository at rel (HEAD, hooks), its config text. */
static void
mkrepo(const char *rel, const char *config)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/HEAD", rel);
	mkf(p, "ref: refs/heads/main\n");
	snprintf(p, sizeof(p), "%s/hooks", rel);
	mkd(p);
	if (config != NULL) {
		snprintf(p, sizeof(p), "%s/config", rel);
		mkf(p, config);
	}
}

static void
test_git_submodules(void)
{
	struct settings s;

	/* The config binds are the plan without the write guard's: with it, the guard
	 * owns config and config.worktree by name (test_git). */
	ctx.unguarded = true;
	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	mkrepo("proj/.git", "[core]\n");
	mkrepo("proj/.git/modules/lib", "[core]\n\tworktree = ../../../lib\n");
	mkf("proj/lib/.git", "gitdir: ../.git/modules/lib\n");
	ok(build(&s) == 0 &&
		args_are(
		    "--ro-bind / / --ro-bind-try $R/proj/.git $R/proj/.git "
		    "--ro-bind-try $R/proj/lib $R/proj/lib "
		    "--ro-bind-try $R/proj/.git/modules $R/proj/.git/modules "
		    "--ro-bind-try $R/proj/.git/modules/lib $R/proj/.git/modules/lib "
		    "--bind $R/proj $R/proj%s%s "
		    "--ro-bind-try $R/proj/.git/hooks $R/proj/.git/hooks "
		    "--ro-bind-try $R/proj/.git/config $R/proj/.git/config "
		    "--ro-bind-try $R/proj/.git/modules/lib/hooks $R/proj/.git/modules/lib/hooks "
		    "--ro-bind-try $R/proj/.git/modules/lib/config $R/proj/.git/modules/lib/config "
		    "--ro-bind-try $R/proj/lib/.git $R/proj/lib/.git",
		    *ssh ? " " : "", ssh),
	    "submodule: .git/modules/lib hooks and config and lib/.git read-only, "
	    "their ancestors pinned");

	/* Nested submodules, names with "/", a hookless one, a directory of no repository. */
	mkrepo("proj/.git/modules/lib/modules/inner", NULL);
	mkf("proj/.git/modules/lib/modules/bare/HEAD", "ref: x\n");
	mkrepo("proj/.git/modules/libs/a/b", "[core]\n");
	mkd("proj/.git/modules/empty/objects");
	mkf("proj/.git/modules/lib/modules/inner/config.worktree", "[core]\n");
	ok(build(&s) == 0 && has_arg("proj/.git/modules/lib/modules/inner/hooks") &&
		has_arg("proj/.git/modules/lib/modules/inner/config.worktree") &&
		has_arg("proj/.git/modules/lib/modules/bare/hooks") &&
		has_arg("proj/.git/modules/libs/a/b/hooks") &&
		has_arg("proj/.git/modules/libs/a/b/config") &&
		lacks_arg("proj/.git/modules/libs/hooks") && lacks("modules/empty"),
	    "submodules: nested, with \"/\" in the name, without hooks yet");
	s.fs.allow_git_config = true;
	ok(build(&s) == 0 && has_arg("proj/.git/modules/lib/hooks") &&
		lacks_arg("proj/.git/modules/lib/config") &&
		lacks_arg("proj/.git/modules/lib/modules/inner/config.worktree"),
	    "submodules: allowGitConfig leaves their config writable, not their hooks");
	s.fs.allow_git_config = false;

	/* Depth: the walk admits the repository; below its .git, modules at any depth. */
	s.deny_search_depth = 1;
	ok(build(&s) == 0 && has_arg("proj/.git/modules/libs/a/b/hooks"),
	    "depth 1: the cwd's submodules are still protected");
	fresh();
	mkrepo("proj/x/.git", "[core]\n");
	mkrepo("proj/x/.git/modules/m/modules/n/modules/o", "[core]\n");
	mkrepo("proj/x/y/.git", "[core]\n");
	mkrepo("proj/x/y/.git/modules/m", "[core]\n");
	s.deny_search_depth = 3;
	ok(build(&s) == 0 && has_arg("proj/x/.git/modules/m/modules/n/modules/o/hooks") &&
		lacks("proj/x/y/.git"),
	    "depth 3: a repository one level down has all its submodules protected, "
	    "one two levels down is not looked at");
	s.deny_search_depth = 2;
	ok(build(&s) == 0 && lacks("proj/x/.git"), "depth 2: nothing one level down");
	s.deny_search_depth = 3;

	/* Linked worktrees: their commondir and config.worktree. */
	fresh();
	mkrepo("proj/.git", "[core]\n");
	mkf("proj/.git/worktrees/w/commondir", "../..\n");
	mkf("proj/.git/worktrees/w/gitdir", "/elsewhere/w/.git\n");
	mkf("proj/.git/worktrees/w/config.worktree", "[core]\n");
	mkf("proj/.git/worktrees/v/commondir", "../..\n");
	ok(build(&s) == 0 && has_arg("proj/.git/worktrees/w/commondir") &&
		has_arg("proj/.git/worktrees/w/config.worktree") &&
		has_arg("proj/.git/worktrees/v/commondir") &&
		lacks_arg("proj/.git/worktrees/v/config.worktree") &&
		lacks_arg("proj/.git/config.worktree"),
	    "worktrees: commondir and an existing config.worktree are read-only");
	ctx.unguarded = false;
	ok(build(&s) == 0 && guarded("proj/.git/worktrees/w/commondir") &&
		lacks("--ro-bind-try $R/proj/.git/worktrees/w/commondir"),
	    "worktrees: with the guard, commondir by the guard alone (git worktree remove "
	    "removes it)");
	ctx.unguarded = true;
	mkf("proj/.git/config", "[core]\n[extensions]\n\tworktreeConfig = true\n");
	ok(build(&s) == 0 && guarded("proj/.git/config.worktree") &&
		guarded("proj/.git/worktrees/v/config.worktree") &&
		lacks("--ro-bind /dev/null"),
	    "extensions.worktreeConfig: missing config.worktree files are guarded");
	mkf("proj/.git/config.worktree", "[core]\n");
	ok(build(&s) == 0 &&
		has("--ro-bind-try $R/proj/.git/config.worktree "
		    "$R/proj/.git/config.worktree"),
	    "an existing .git/config.worktree is read-only");
	st_free(&s);
	ctx.unguarded = false;
}

static void
test_git_hookspath(void)
{
	struct settings s;

	/* The config binds are the plan without the write guard's: with it, the guard
	 * owns config and config.worktree by name (test_git). */
	ctx.unguarded = true;
	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	mkrepo("proj/.git", "[core]\n\tbare = false\n\thooksPath = .husky\n");
	mkf("proj/.husky/pre-commit", "npm test\n");
	ok(build(&s) == 0 &&
		args_are("--ro-bind / / --ro-bind-try $R/proj/.git $R/proj/.git "
			 "--bind $R/proj $R/proj%s%s "
			 "--ro-bind-try $R/proj/.husky $R/proj/.husky "
			 "--ro-bind-try $R/proj/.git/hooks $R/proj/.git/hooks "
			 "--ro-bind-try $R/proj/.git/config $R/proj/.git/config",
		    *ssh ? " " : "", ssh),
	    "hooksPath = .husky: the directory is read-only (a dangerous name itself now)");
	mkf("proj/.git/config", "[core]\n\thooksPath = hooks/none\n");
	ok(build(&s) == 0 && lacks("$R/proj/hooks") && guarded("proj/hooks/none"),
	    "a missing hooksPath is guarded, nothing mounted");
	mkf("proj/.git/config", "[core]\n\thooksPath = gone\n");
	ok(build(&s) == 0 && lacks("$R/proj/gone") && guarded("proj/gone"),
	    "a missing hooksPath directory itself: guarded");
	mkf("proj/.git/config",
	    "[core]\nhooksPath = a\nhooksPath = b\n[core \"x\"]\n"
	    "hooksPath = c\n");
	ok(build(&s) == 0 && has_arg("proj/b") && lacks_arg("proj/a") && lacks_arg("proj/c"),
	    "only the last [core] hooksPath");
	mkf("proj/.git/config", "[core]\nhooksPath = \"../proj/sp ace\" # c\n");
	ok(build(&s) == 0 && has_arg("proj/sp ace"), "quoted, relative with \"..\"");
	mkf("proj/.git/config", "[core]\n");
	mkf("proj/.git/config.worktree", "[core]\nhooksPath = wt-hooks\n");
	ok(build(&s) == 0 && has_arg("proj/wt-hooks"), "hooksPath in config.worktree");
	unlink(at("proj/.git/config.worktree"));

	/* Absolute, "~", outside every write root. */
	mkd("outside/hooks");
	mkf("proj/.git/config", "[core]\nhooksPath = ");
	{
		FILE *f = fopen(at("proj/.git/config"), "a");

		fprintf(f, "%s\n", at("proj/abs"));
		fclose(f);
	}
	ok(build(&s) == 0 && has_arg("proj/abs"), "an absolute hooksPath in the write root");
	mkf("proj/.git/config", "[core]\n");
	{
		FILE *f = fopen(at("proj/.git/config"), "a");

		fprintf(f, "hooksPath = %s\n", at("outside/hooks"));
		fclose(f);
	}
	ok(build(&s) == 0 && lacks("outside"), "outside every write root: nothing to deny");
	mkf("proj/.git/config", "[core]\nhooksPath = ~/gh\n");
	ok(build(&s) == 0 && lacks("home/gh"), "~/gh with a read-only home: nothing");
	pl_add(&s.fs.allow_write, "~", 0);
	ok(build(&s) == 0 && has_arg("home/gh") && has_arg("home/.gitconfig") &&
		has_arg("home/.config/git/config"),
	    "~/gh in a writable home is denied, and the global git config files");

	/* A nested repository: relative to its own work tree; core.worktree moves it. */
	fresh();
	mkrepo("proj/sub/.git", "[core]\n\thooksPath = hk\n");
	mkrepo("proj/.git", "[core]\n");
	mkrepo(
	    "proj/.git/modules/lib", "[core]\n\tworktree = ../../../lib\n\thooksPath = hk\n");
	mkrepo("proj/.git/modules/nowt", "[core]\n\thooksPath = nowhere\n");
	mkd("proj/lib");
	ok(build(&s) == 0 && has_arg("proj/sub/hk") && has_arg("proj/lib/hk") &&
		lacks("nowhere"),
	    "relative hooksPath: the nested repository's tree, the submodule's core.worktree; "
	    "a submodule without core.worktree has no known tree");

	/* Global configuration: ~/.gitconfig and the XDG file. */
	mkf("home/.gitconfig", "[core]\n\thooksPath = .githooks\n");
	mkf("home/.config/git/config", "[core]\n");
	{
		FILE *f = fopen(at("home/.config/git/config"), "a");

		fprintf(f, "\thooksPath = %s\n", at("proj/global-abs"));
		fclose(f);
	}
	ok(build(&s) == 0 && has_arg("proj/.githooks") && has_arg("proj/sub/.githooks") &&
		has_arg("proj/global-abs") && lacks("proj/.git/modules/nowt/.githooks"),
	    "global hooksPath: relative for each work tree, absolute once");
	setenv("XDG_CONFIG_HOME", at("xdg"), 1);
	mkf("xdg/git/config", "[core]\nhooksPath = xdg-hooks\n");
	ok(build(&s) == 0 && has_arg("proj/xdg-hooks") && lacks_arg("proj/global-abs"),
	    "$XDG_CONFIG_HOME/git/config replaces ~/.config/git/config");
	unsetenv("XDG_CONFIG_HOME");

	/* Includes are not read: the files they name are protected instead. */
	fresh();
	mkrepo("proj/.git",
	    "[include]\n\tpath = ../shared.gitconfig\n"
	    "[includeIf \"gitdir:/x/\"]\n\tpath = inc/other\n[core]\n\thooksPath = h\n");
	mkf("proj/shared.gitconfig", "[core]\n\thooksPath = from-include\n");
	ok(build(&s) == 0 &&
		has("--ro-bind-try $R/proj/shared.gitconfig $R/proj/shared.gitconfig") &&
		lacks("$R/proj/.git/inc") && guarded("proj/.git/inc/other") &&
		has_arg("proj/h") && lacks("from-include"),
	    "include paths (relative to the file) are denied, not followed");

	/* A FIFO or a broken file where a config should be: no hang, what can be read. */
	fresh();
	mkrepo("proj/sub/.git", NULL);
	mkfifo(at("proj/sub/.git/config"), 0644);
	mkrepo("proj/bad/.git", "[core]\nhooksPath = before\n[core\nhooksPath = after\n");
	alarm(10);
	ok(build(&s) == 0 && has_arg("proj/sub/.git/config") && has_arg("proj/bad/before") &&
		lacks("after"),
	    "a FIFO config is not read; a broken one up to its bad line");
	alarm(0);
	st_free(&s);
	ctx.unguarded = false;
}

/* The write guard the plan builds (wguard.h): links, the home list, srt's own files, the
 * read denies watched, and the budget of the walk. */
static void
test_guard(void)
{
	const struct wguard_fs nofs = { NULL, NULL, NULL, NULL, NULL };
	struct settings s;
	char *selfd[2];
	size_t i;
	int pinned = -1, loose = -1;

	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.allow_write, "~", 0);
	mkf("proj/dotfiles/bashrc", "x");
	mkl("proj/.bashrc", "dotfiles/bashrc");
	mkd("proj/shared");
	mkl("proj/.vscode", "shared");
	mkd("proj/bin");
	mkd("proj/libexec/srt");
	ctx.self_dirs[0] = selfd[0] = xstrdup(at("proj/bin"));
	ctx.self_dirs[1] = selfd[1] = xstrdup(at("proj/libexec/srt"));
	pl_add(&s.fs.deny_write, "deny/here", 0);
	ok(build(&s) == 0 && guarded("proj/.bashrc") && guarded("proj/dotfiles/bashrc") &&
		guarded("proj/.vscode") && guarded("proj/shared"),
	    "a dangerous name that is a link: the link and what it leads to");
	ok(guarded("proj/bin") && has("--ro-bind-try $R/proj/bin $R/proj/bin"),
	    "srt's own directory in a write root: guarded and bound read-only");
	ok(guarded("proj/libexec/srt") &&
		has("--ro-bind-try $R/proj/libexec/srt $R/proj/libexec/srt"),
	    "and its helpers' directory, where that is another one (LIBEXECDIR)");
	ok(guarded("home/.ssh") && guarded("home/.local/bin") &&
		guarded("home/.srt-settings.json") &&
		wguard_protected(&plan.guard, &nofs, at("home/.zshenv")) != NULL &&
		wguard_protected(&plan.guard, &nofs, at("home/.claude/commands/x")) != NULL,
	    "the home directory's files, and the names under a write root, by rule");
	for (i = 0; i < plan.guard.exact.n; i++) {
		if (strcmp(plan.guard.exact.v[i], at("home/.cargo/config.toml")) == 0)
			loose = plan.guard.exact_pin[i];
		if (strcmp(plan.guard.exact.v[i], at("proj/deny/here")) == 0)
			pinned = plan.guard.exact_pin[i];
	}
	ok(loose == 0 && pinned == 1,
	    "the home list and the mandatory names leave the way open, denyWrite pins it");
	ok(wguard_may_create(&plan.guard, &nofs, at("home/.cargo"), true) == NULL &&
		wguard_may_create(&plan.guard, &nofs, at("proj/.claude"), true) == NULL &&
		wguard_may_create(&plan.guard, &nofs, at("proj/deny"), true) != NULL,
	    "so ~/.cargo and the cwd's .claude may be made, the way to a denyWrite not");
	ok(strlist_contains(&plan.guard.roots, at("proj")) &&
		strlist_contains(&plan.guard.roots, at("home")),
	    "the roots: cwd and write roots");
	ctx.self_dirs[0] = ctx.self_dirs[1] = NULL;
	free(selfd[0]);
	free(selfd[1]);
	st_free(&s);

	/* PATH's directories: a program left in one runs as the user's next command. */
	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.allow_write, "~", 0);
	mkd("home/.cargo/bin");
	mkd("home/real-bin");
	mkl("home/bin", "real-bin");
	{
		char *ep = xasprintf("%s:%s:/usr/bin::tools/bin:%s", at("home/.cargo/bin"),
		    at("home/bin"), at("home"));

		ctx.exec_path = ep;
		ok(build(&s) == 0 && guarded("home/.cargo/bin") && guarded("home/bin") &&
			guarded("home/real-bin") && guarded("proj/tools/bin") &&
			strlist_contains(&plan.guard.exact, "/usr/bin"),
		    "PATH's directories are protected, links and relative entries resolved");
		ok(!strlist_contains(&plan.guard.exact, at("proj")) &&
			!strlist_contains(&plan.guard.exact, at("home")) &&
			wguard_may_create(&plan.guard, &nofs, at("proj/x"), false) == NULL &&
			wguard_may_create(&plan.guard, &nofs, at("home/x"), false) == NULL,
		    "but not one that is a write root itself (the empty entry, the home)");
		ctx.exec_path = NULL;
		free(ep);
	}
	st_free(&s);

	fresh();
	st_init(&s);
	mkf("proj/secret", "s");
	mkd("proj/vault");
	pl_add(&s.fs.deny_read, "secret", 0);
	pl_add(&s.fs.deny_read, "vault", 0);
	ok(build(&s) == 0 && watched("proj/secret", "proj/secret") &&
		watched("proj/vault", "proj/vault") && plan.guard.watch.n == 2,
	    "every read-deny mask is watched, ssh's configuration directory is not");
	st_free(&s);

	/* Reached through links (Kubernetes' ..data): the name as given, and the mask. */
	fresh();
	st_init(&s);
	mkd("proj/sec/v1");
	mkf("proj/sec/v1/token", "s");
	mkl("proj/sec/..data", "v1");
	mkl("proj/sec/token", "..data/token");
	mkl("proj/vlink", "sec/v1");
	pl_add(&s.fs.deny_read, "sec/token", 0);
	pl_add(&s.fs.deny_read, "vlink", 0);
	ok(build(&s) == 0 && masked("proj/sec/v1") && lacks("/dev/null $R/proj/sec") &&
		watched("proj/vlink", "proj/sec/v1") && plan.guard.watch.n == 1,
	    "a name through links is watched with the mask it leads to; inside another "
	    "deny's tmpfs, that one's watch covers it");
	st_free(&s);
	fresh();
	st_init(&s);
	mkd("proj/sec/v1");
	mkf("proj/sec/v1/token", "s");
	mkl("proj/sec/..data", "v1");
	mkl("proj/sec/token", "..data/token");
	pl_add(&s.fs.deny_read, "sec/token", 0);
	pl_add(&s.fs.deny_read, "sec/v1/token", 0);
	ok(build(&s) == 0 && watched("proj/sec/token", "proj/sec/v1/token") &&
		watched("proj/sec/v1/token", "proj/sec/v1/token") && plan.guard.watch.n == 2,
	    "two names of one mask: both watched");
	st_free(&s);

	/* Missing at the start: nothing mounted, watched, and the command may not make it. */
	fresh();
	st_init(&s);
	mkd("proj/vault");
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.deny_read, "later/token", 0);
	pl_add(&s.fs.deny_read, "vault", 0);
	pl_add(&s.fs.deny_read, "vault/missing", 0);
	ok(build(&s) == 0 && lacks("later") && watched("proj/later/token", NULL) &&
		watched("proj/vault", "proj/vault") && plan.guard.watch.n == 2,
	    "a missing denyRead path: no mount, watched; one inside a tmpfs is not");
	ok(guarded("proj/later/token") &&
		wguard_may_create(&plan.guard, &nofs, at("proj/later"), true) == NULL &&
		wguard_may_create(&plan.guard, &nofs, at("proj/later/token"), false) != NULL,
	    "its way may be made, the path itself not");
	st_free(&s);

	/* What git's configuration leads to: includes read in turn, core.fsmonitor,
	 * init.templateDir, and hooks that are links. */
	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.allow_write, "~", 0);
	mkrepo("proj/.git",
	    "[include]\n\tpath = ../inc1.cfg\n[core]\n"
	    "\tfsmonitor = ./tools/fsmon.sh --fast\n");
	mkf("proj/inc1.cfg",
	    "[includeIf \"gitdir:x/\"]\n\tpath = inc2.cfg\n[core]\n"
	    "\thooksPath = hk\n");
	mkf("proj/inc2.cfg", "[core]\n\tfsmonitor = tools/other\n");
	mkf("proj/scripts/pre-commit.sh", "x");
	mkl("proj/.git/hooks/pre-commit", "../../scripts/pre-commit.sh");
	mkf("home/.gitconfig", "[init]\n\ttemplateDir = ~/tmpl\n[core]\n\tfsmonitor = true\n");
	ok(build(&s) == 0 && guarded("proj/inc1.cfg") && guarded("proj/inc2.cfg") &&
		guarded("proj/hk"),
	    "includes of includes, and the hooksPath one sets");
	ok(guarded("proj/tools/fsmon.sh") && guarded("proj/tools/other"),
	    "core.fsmonitor's program, from the config and from an included file");
	ok(guarded("proj/.git/hooks/pre-commit") && guarded("proj/scripts/pre-commit.sh"),
	    "a hook that is a link, and the script it leads to");
	ok(guarded("home/tmpl"), "init.templateDir of the global configuration");
	st_free(&s);

	/* The global configuration's hooksPath: its hooks that are links are read as a
	 * repository's are, by git_globals' own walk (with the budget of every other walk:
	 * one of none read nothing, and left the links to the protected-links search). */
	fresh();
	st_init(&s);
	pl_add(&s.fs.allow_write, ".", 0);
	pl_add(&s.fs.allow_write, "~", 0);
	mkf("proj/scripts/pre-push.sh", "x");
	mkf("home/ghooks/post-merge", "x");
	mkl("home/ghooks/pre-push", "../../proj/scripts/pre-push.sh");
	mkf("home/.gitconfig", "[core]\n\thooksPath = ~/ghooks\n");
	ok(build(&s) == 0 && guarded("home/ghooks/pre-push") &&
		guarded("proj/scripts/pre-push.sh") &&
		guard_why_is(
		    "home/ghooks/pre-push", "mandatory deny: named by git configuration") &&
		guard_why_is(
		    "proj/scripts/pre-push.sh", "mandatory deny: named by git configuration"),
	    "a hook of the global hooksPath that is a link, and the script it leads to: "
	    "named by git configuration");
	st_free(&s);
}

/* The host's network devices: /sys/class/net and where its entries lead, empty. */
/*
 * What the links in a protected directory lead to (relative, absolute, chained, a
 * directory) is protected too; a link to the write root itself is said and left; a file
 * in a protected directory with another name refuses the run.
 */
static void
test_protected_links(void)
{
	struct settings s;
	char *abs;

	fresh();
	st_init(&s);
	mkf("proj/conf/tasks.json", "{}");
	mkf("proj/conf2/abs.json", "{}");
	mkf("proj/chain/end.json", "{}");
	mkf("proj/dir/f", "x");
	mkf("outside/o.json", "{}");
	mkf("proj/hooks-src/pre-commit", "#!/bin/sh\n");
	mkd("proj/.vscode");
	mkl("proj/.vscode/tasks.json", "../conf/tasks.json");
	abs = xstrdup(at("proj/conf2/abs.json"));
	mkl("proj/.vscode/settings.json", abs);
	free(abs);
	mkl("proj/.vscode/launch.json", "../chain/mid");
	mkl("proj/chain/mid", "end.json");
	mkl("proj/.vscode/d", "../dir");
	abs = xstrdup(at("outside/o.json"));
	mkl("proj/.vscode/o.json", abs);
	free(abs);
	mkl("proj/.vscode/up", "..");
	mkl("proj/.vscode/loop", "loop");
	mkd("proj/.husky/sub");
	mkl("proj/.husky/sub/pre-commit", "../../hooks-src/pre-commit");
	mkd("proj/sub/deeper");
	mkl("proj/lnk", "sub/deeper");
	mkl("proj/.vscode/dd.json", "../lnk/../conf3/x.json");
	pl_add(&s.fs.allow_write, ".", 0);
	ok(build(&s) == 0 &&
		has("--ro-bind-try $R/proj/conf/tasks.json $R/proj/conf/tasks.json") &&
		has("--ro-bind-try $R/proj/conf2/abs.json $R/proj/conf2/abs.json") &&
		has("--ro-bind-try $R/proj/chain/end.json $R/proj/chain/end.json") &&
		has("--ro-bind-try $R/proj/dir $R/proj/dir") &&
		has("--ro-bind-try $R/proj/hooks-src/pre-commit $R/proj/hooks-src/pre-commit") &&
		lacks("outside") && lacks("--ro-bind-try $R/proj $R/proj ") &&
		lacks("/dev/null $R/proj/.vscode"),
	    "link targets in protected directories are bound read-only (relative, absolute, "
	    "chained, a directory, deeper down); outside, the write root and a loop: not");
	ok(guarded("proj/conf/tasks.json") && guarded("proj/chain/mid") &&
		guarded("proj/chain/end.json") && guarded("proj/dir") &&
		guarded("proj/.vscode/loop") && !guarded("proj"),
	    "and guarded by name, with the links on the way");
	ok(guarded("proj/lnk") && guarded("proj/sub/conf3/x.json") &&
		!guarded("proj/conf3/x.json"),
	    "a \"..\" after a link in a target is taken where the kernel takes it");
	st_free(&s);

	fresh();
	st_init(&s);
	mkf("proj/other.json", "{}");
	mkd("proj/.vscode");
	if (link(at("proj/other.json"), at("proj/.vscode/tasks.json")) == -1) {
		perror("link");
		exit(2);
	}
	pl_add(&s.fs.allow_write, ".", 0);
	ok(build(&s) == -1, "a protected file with a hard link in a write root: refused");
	st_free(&s);
	fresh();
	st_init(&s);
	mkf("proj/f.txt", "x");
	if (link(at("proj/f.txt"), at("proj/g.txt")) == -1) {
		perror("link");
		exit(2);
	}
	pl_add(&s.fs.allow_write, ".", 0);
	ok(build(&s) == 0, "hard links elsewhere: nothing to say");
	pl_add(&s.fs.deny_write, "g.txt", 0);
	ok(build(&s) == -1, "a denyWrite file with a hard link: refused");
	st_free(&s);
}

static void
test_sysfs_net(void)
{
	struct settings s;
	struct stat st;

	fresh();
	st_init(&s);
	ok(build(&s) == 0 && (stat("/sys/class/net", &st) == -1 || sysnet >= 1),
	    "the host's network devices in /sys are hidden (%zu directories)", sysnet);
	st_free(&s);
}

int
main(void)
{
	const char *t = getenv("TMPDIR");
	char tmpl[4096], *r;
	struct stat st;

	snprintf(
	    tmpl, sizeof(tmpl), "%s/test_plan.XXXXXX", t != NULL && *t != '\0' ? t : "/tmp");
	if (mkdtemp(tmpl) == NULL || (r = realpath(tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 2;
	}
	snprintf(root, sizeof(root), "%s", r);
	free(r);
	snprintf(proj, sizeof(proj), "%s/proj", root);
	snprintf(home, sizeof(home), "%s/home", root);
	ssh = stat("/etc/ssh/ssh_config.d", &st) == 0 ? "--tmpfs /etc/ssh/ssh_config.d" : "";
	ctx.cwd = proj;
	ctx.home = home;
	ctx.seccomp_path = "/usr/libexec/srt/srt-seccomp";
	/* The global git configuration is taken from the tree's home only. */
	unsetenv("XDG_CONFIG_HOME");
	unsetenv("GIT_CONFIG_GLOBAL");

	test_path_helpers();
	test_glob_match();
	test_root_and_disabled();
	test_write_allows();
	test_read_denies();
	test_cwd_mandatory();
	test_git();
	test_depth_rule();
	test_gitconfig_parse();
	test_git_submodules();
	test_git_hookspath();
	test_write_denies();
	test_guard();
	test_sysfs_net();
	test_globs();
	test_protected_links();

	plan_linux_free(&plan);
	strlist_free(&fsargs);
	free(joined);
	nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	return tap_done();
}
