/*
 * The bubblewrap filesystem plan: the write guard (wguard.h) it hands to srt-seccomp's
 * supervisor, which protects by name for the whole run what the mounts protect only as
 * they are at the start: the write denies and every link on the way to them, PATH's
 * directories, the read denies' names.
 */
#include <sys/stat.h>

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "log.h"
#include "path.h"
#include "plan.h"
#include "plan_linux_int.h"
#include "util.h"
#include "wguard.h"

/* --- the write guard ------------------------------------------------------------------ */

/*
 * p and everything on the way to it: each link a reader of p goes through, and the path
 * with that link followed (SPEC §7: protect the name the next reader opens, and what it
 * leads to). Missing names end the way; the guard keeps them from being made. A ".."
 * is taken as the kernel takes it: after the link before it is followed (a link's
 * target "../lnk/../x" with lnk a link leads beside lnk's target), so a spelling with
 * one is guarded only once it is walked, from the directory reached so far, which holds
 * no link.
 */
void
plan_linux_guard_chain(struct pb *b, const char *p, const char *why, bool pin, int depth)
{
	struct strlist names = { 0 };
	char *cur = xstrdup(""), *next, *onward, *end;
	const char *target;
	struct stat st;
	size_t i, j;
	bool link = false;

	if (strstr(p, "/../") == NULL &&
	    (strlen(p) < 3 || strcmp(p + strlen(p) - 3, "/..") != 0))
		wguard_add_exact(&b->out->guard, p, why, pin);
	plan_linux_split_names(p, &names);
	for (i = 0; i < names.n && depth < MAX_LINKS; i++) {
		if (*names.v[i] == '\0' || strcmp(names.v[i], ".") == 0)
			continue;
		if (strcmp(names.v[i], "..") == 0) {
			/* cur holds no link: its parent is where the kernel goes. */
			next = *cur != '\0' ? path_dirname(cur) : xstrdup("");
			free(cur);
			cur = strcmp(next, "/") == 0 ? xstrdup("") : next;
			if (cur != next)
				free(next);
			continue;
		}
		next = xasprintf("%s/%s", cur, names.v[i]);
		if (plan_linux_fs_lstat(b, next, &st) == -1) {
			free(next);
			break;
		}
		if (S_ISLNK(st.st_mode) && (target = plan_linux_fs_link(b, next)) != NULL) {
			wguard_add_exact(&b->out->guard, next, why, pin);
			onward = target[0] == '/' ? xstrdup(target) : path_join(cur, target);
			for (j = i + 1; j < names.n; j++) {
				char *t = xasprintf("%s/%s", onward, names.v[j]);

				free(onward);
				onward = t;
			}
			plan_linux_guard_chain(b, onward, why, pin, depth + 1);
			free(onward);
			free(next);
			link = true;
			break;
		}
		free(cur);
		cur = next;
	}
	/* No link after the last "..": the way as walked, and what was not come to. */
	if (!link && depth < MAX_LINKS) {
		end = xstrdup(*cur != '\0' ? cur : "/");
		for (; i < names.n; i++) {
			char *t = xasprintf("%s/%s", end, names.v[i]);

			free(end);
			end = t;
		}
		wguard_add_exact(&b->out->guard, end, why, pin);
		free(end);
	}
	free(cur);
	strlist_free(&names);
}

/* The reason a mandatory deny the search found is protected. */
const char *
plan_linux_mandatory_why(const char *p)
{
	const char *base = path_basename(p);
	size_t i, pl = strlen(p), nl;

	for (i = 0; i < wguard_nnames; i++) {
		const char *n = wguard_names[i].name;

		/* A two-part name by both parts: a git directory's hooks are not
		 * .claude/hooks. */
		nl = strlen(n);
		if (strchr(n, '/') == NULL
			? strcasecmp(base, n) == 0
			: pl > nl && p[pl - nl - 1] == '/' && strcasecmp(p + pl - nl, n) == 0)
			return wguard_names[i].why;
	}
	if (strcasecmp(base, "hooks") == 0)
		return "mandatory deny: git hooks";
	if (strncasecmp(base, "config", 6) == 0)
		return "mandatory deny: git configuration";
	if (strcasecmp(base, "commondir") == 0)
		return "mandatory deny: git commondir";
	if (strcasecmp(base, ".git") == 0)
		return "mandatory deny: git directory pointer";
	return "mandatory deny: named by git configuration";
}

#define WHY_EXEC_PATH "a directory on PATH: what is put there runs as a command"

/*
 * The directories of PATH: a program the command leaves in one (a bwrap, a git, an ls)
 * runs as the user's next command of that name, outside any sandbox, srt's own next
 * bwrap included. Each is protected like a denyWrite path, but where the directory is
 * itself a write root (PATH naming the cwd, "." or an empty entry) it cannot be without
 * refusing every write there: that is said, not hidden.
 */
static void
guard_exec_path(struct pb *b)
{
	const char *p = b->ctx->exec_path, *e;
	char *entry, *abs, *norm;
	size_t k;
	bool root;

	for (; p != NULL; p = *e != '\0' ? e + 1 : NULL) {
		e = strchrnul(p, ':');
		entry = xstrndup(p, (size_t)(e - p));
		abs = entry[0] == '/' ? xstrdup(entry) : path_join(b->ctx->cwd, entry);
		norm = path_normalize(abs);
		free(entry);
		free(abs);
		if (norm == NULL)
			continue;
		root = false;
		for (k = 0; k < b->writes.n && !root; k++)
			root = path_is_under(b->writes.v[k], norm);
		if (!root)
			plan_linux_guard_chain(b, norm, WHY_EXEC_PATH, false, 0);
		else
			for (k = 0; k < b->writes.n; k++)
				if (strcmp(b->writes.v[k], norm) == 0) {
					log_warnx(
					    "PATH directory %s is a write root: a program the "
					    "command leaves there runs outside the sandbox as your "
					    "next command of that name",
					    norm);
					break;
				}
		free(norm);
	}
}

/* Is some read-deny mount the one entry r's landing has? */
static int
read_deny_mounted(struct pb *b, const struct rdeny *r)
{
	size_t i;

	if (!r->isdir)
		return strlist_contains(&b->masks, r->landing);
	for (i = 0; i < b->nunits; i++)
		if (strcmp(b->units[i].landing, r->landing) == 0)
			return 1;
	return 0;
}

/*
 * The read denies srt-seccomp holds against the host's changes (readlock.c: Landlock;
 * watch.c for those it cannot hold): each mask by the name a reader opens (its links
 * kept: a link on the way can be re-pointed) and by where it lands, and each entry
 * missing at the start. Nothing is mounted for a missing one (BEHAVIOR §4.3); the command
 * may not make it either, so only the host can. Only what the settings deny: ssh's
 * configuration directory is hidden for ssh's sake, not as a secret.
 */
static void
guard_read_denies(struct pb *b)
{
	struct wguard *g = &b->out->guard;
	const struct rdeny *r;
	const char *name;
	char *loc;
	size_t i;

	for (i = 0; i < b->nrd; i++) {
		r = &b->rd[i];
		if (r->internal)
			continue;
		if (r->missing) {
			plan_linux_guard_chain(b, r->given,
			    r->cred ? "a credentials file" : "a denyRead path", false, 0);
			/* Made inside another deny's tmpfs, it would be the sandbox's own. */
			loc = plan_linux_name_location(b, r->given);
			if (!plan_linux_hidden_by_tmpfs(b, loc, 1))
				wguard_add_watch(g, r->given, NULL);
			free(loc);
			continue;
		}
		/* Lifted by an allowRead, or inside another deny's tmpfs: that one's watch. */
		if (r->landing == NULL || r->lifted || !read_deny_mounted(b, r))
			continue;
		/* A stand-in's name is not in the sandbox, nor one inside another's tmpfs. */
		loc = plan_linux_name_location(b, r->given);
		name = r->standin ||
			(strcmp(loc, r->landing) != 0 && plan_linux_hidden_by_tmpfs(b, loc, 1))
		    ? r->landing
		    : r->given;
		/* A file's mask srt-seccomp mounts (plan_read_section). */
		if (strlist_contains(&b->placed, r->landing))
			wguard_add_mask(g, name, r->landing);
		else
			wguard_add_watch(g, name, r->landing);
		free(loc);
	}
}

/*
 * The guard srt-seccomp enforces by name for the whole run (wguard.h): every write deny
 * and what leads to it, the home directory's own list, srt's files, the roots the names
 * apply under, and the read denies srt-seccomp holds.
 */
void
plan_guard(struct pb *b)
{
	struct wguard *g = &b->out->guard;
	const char *home = b->ctx->home;
	size_t i;

	g->depth = b->s->deny_search_depth > 0 ? b->s->deny_search_depth : WGUARD_DEPTH_DEFAULT;
	g->allow_git_config = b->s->fs.allow_git_config;
	for (i = 0; i < b->denies.n; i++)
		plan_linux_guard_chain(b, b->denies.v[i],
		    i < b->deny_why.n ? b->deny_why.v[i] : "mandatory deny", i < b->npinned, 0);
	if (home != NULL && *home == '/')
		for (i = 0; i < wguard_nhome_names; i++) {
			char *p = path_join(home, wguard_home_names[i].name);

			plan_linux_guard_chain(b, p, wguard_home_names[i].why, false, 0);
			free(p);
		}
	guard_exec_path(b);
	guard_read_denies(b);
	strlist_push(&g->roots, b->ctx->cwd);
	for (i = 0; i < b->user_roots.n; i++)
		if (!strlist_contains(&g->roots, b->user_roots.v[i]))
			strlist_push(&g->roots, b->user_roots.v[i]);
	/* What is bound writable: a refused write elsewhere is "not in allowWrite". */
	for (i = 0; i < b->writes.n; i++)
		strlist_push(&g->writable, b->writes.v[i]);
	for (i = 0; i < b->absent_writes.n; i++)
		wguard_add_absent(g, b->absent_writes.v[i], b->absent_entries.v[i],
		    b->absent_globs.v[i][0] == '1');
	wguard_index(g);
	for (i = 0; i < b->writes.n; i++) {
		size_t k;

		for (k = 0; k < g->exact.n; k++)
			if (path_is_under(b->writes.v[i], g->exact.v[k]))
				log_warnx("write path %s lies in %s, which is protected (%s): "
					  "nothing in it can be written",
				    b->writes.v[i], g->exact.v[k], g->exact_why.v[k]);
	}
}
