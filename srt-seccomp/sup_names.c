/*
 * The write guard's supervisor (supervise.c): the calls that make, remove or rename
 * names (mkdir, mknod, symlink, unlink, rename with the subtree a directory takes along,
 * link), done by the supervisor on the command's behalf.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "path.h"
#include "wguard.h"
#include "srt-seccomp.h"
#include "supervise.h"

#define WHY_GONE \
	"mandatory deny: a git directory pointer or .git of the user's removed " \
	"in this run (it may go, but is made again only in a later run)"

#define WHY_WAY_PENDING \
	"a .git, commondir or link that would lead git in a directory that predates the " \
	"run to a repository this run copied (cp -a, tar x), whose config is judged only " \
	"when the run ends (git there would read it first): do it in a later run; " \
	"allowGitConfig allows it"
#define WHY_CFG_AFTER_WAY \
	"git configuration copied by an open (cp -a, tar x) after this run gave git in a " \
	"directory that predates the run a way to the command's repositories (git there " \
	"would read it before it is judged; git clone, or a copy in a later run, goes; " \
	"allowGitConfig allows it)"

#define WHY_PENDING_MOVED \
	"git configuration made by an open, not judged yet, moved where git in a " \
	"directory that predates the run reads it (allowGitConfig allows it)"

#define SUBTREE_MAX 20000 /* entries a directory rename may look at */

/* --- names made, removed, renamed ------------------------------------------------------------ */


/* Resolve a path argument (never following the last link) and check the call may go on. */
static int
sup_resolve_arg(
    struct sup *s, uint64_t id, int dirfd, uint64_t addr, bool follow, struct res *r)
{
	char path[PATH_MAX];
	int e;

	if ((e = sup_path(s, addr, path)) < 0)
		return e;
	return sup_resolve_path(s, id, dirfd, path, follow, r);
}

/* The same, for a path read already. */
int
sup_resolve_path(
    struct sup *s, uint64_t id, int dirfd, const char *path, bool follow, struct res *r)
{
	int e;

	if (path[0] == '\0')
		return -ENOENT;
	if ((e = res_resolve(&s->rc, dirfd, path, follow, r)) < 0)
		return e;
	if (!sup_valid(s, id) || (r->objfd == -1 && sup_path_in_proc(r->path))) {
		e = sup_valid(s, id) ? -EACCES : -ENOENT;
		if (e == -EACCES)
			sup_proc_refused(s, r->path);
		res_free(r);
		return e;
	}
	return 0;
}

/* Is path one of the command's directories that holds one that predates the run, or
 * does one lie below it (holds_below)? */
static bool
sup_holds(const struct sup *s, const char *path, bool holds_below)
{
	size_t i;

	for (i = 0; i < s->holders.n; i++)
		if (holds_below ? path_is_under(s->holders.v[i], path)
				: strcmp(s->holders.v[i], path) == 0)
			return true;
	return false;
}

/*
 * Is dir a directory that predates the run (or one of the command's that holds one,
 * sup_hold_up), or in the work tree of a repository whose top one is (any .git there,
 * the command's git init included)? git there, the host's, enters a submodule its index
 * records: a .git in it is a way too.
 */
static bool
sup_git_work_tree(struct sup *s, const char *dir)
{
	const struct wguard_fs *fs = sup_fs(s);
	char *a = xstrdup(dir), *g;
	bool r = fs->predates(fs->arg, a) || sup_holds(s, a, false);

	while (!r && path_up(&a)) {
		g = path_join(a, ".git");
		r = (fs->predates(fs->arg, a) || sup_holds(s, a, false)) &&
		    fs->exists(fs->arg, g);
		free(g);
	}
	free(a);
	return r;
}

/*
 * Does making path (is_link: as a symbolic link, or what may be one: a hard link) give
 * git in a directory that predates the run (the host's, an editor's, while the command
 * still runs) a way to a git directory the command made: a .git of any kind (a file naming one, a link, a
 * directory, one moved in) there or in its work tree; a commondir in a git directory
 * (a linked worktree's, which git follows to another) or in a directory that predates
 * the run (which becomes a git directory by it, or by a HEAD next to it); a gitdir in a
 * git directory; a link where a directory that predated the run stood (git there
 * follows it)?
 */
static bool
sup_git_way(struct sup *s, const char *path, bool is_link)
{
	const char *base = path_basename(path);
	char *dir;
	bool r;

	if (is_link && path_under_any(path, &s->vacated))
		return true;
	if (strcasecmp(base, "gitdir") == 0)
		return wguard_git_state(&s->g, sup_fs(s), path);
	if (strcasecmp(base, "commondir") != 0 && strcasecmp(base, ".git") != 0)
		return false;
	dir = path_dirname(path);
	if (strcasecmp(base, ".git") == 0)
		r = sup_git_work_tree(s, dir);
	else
		r = wguard_git_state(&s->g, sup_fs(s), path) ||
		    sup_fs(s)->predates(sup_fs(s)->arg, dir) || sup_holds(s, dir, false);
	free(dir);
	return r;
}

/*
 * A config made by an open is judged when the run ends (wguard_why_cfg_new), in a git
 * directory no directory of the user's leads to. So no way to one while such a config
 * waits, and none made by an open once there is a way: refused, or NULL.
 */
static const char *
sup_git_way_is(struct sup *s, bool way)
{
	if (!way)
		return NULL;
	if (s->new_configs.n > 0)
		return WHY_WAY_PENDING;
	s->git_way = true;
	return NULL;
}

const char *
sup_git_way_ok(struct sup *s, const char *path, bool is_link)
{
	return sup_git_way_is(s, sup_git_way(s, path, is_link));
}

/*
 * Does git, up from dir, find first a git directory the command made (a .git, or a git
 * directory itself, in a directory that does not predate the run)? A directory that
 * predates the run moved below dir takes the working directory of git run in it (a
 * shell's prompt, an editor's) along: git there reads that one's config.
 */
static bool
sup_git_finds_new(struct sup *s, const char *dir)
{
	const struct wguard_fs *fs = sup_fs(s);
	char *a = xstrdup(dir), *g;
	bool found, r = false;

	for (;;) {
		g = path_join(a, ".git");
		found = fs->exists(fs->arg, g) || fs->is_git_dir(fs->arg, a) != 0;
		free(g);
		if (found) {
			r = !fs->predates(fs->arg, a);
			break;
		}
		if (!path_up(&a))
			break;
	}
	free(a);
	return r;
}

/*
 * A directory that predates the run (or holds one) moved from `from` to path: path and
 * the directories of the command's above it hold one from now on, and so do the new
 * places of those below it, so a .git made in one is a way (sup_git_way).
 */
static void
sup_hold_up(struct sup *s, const char *from, const char *path)
{
	const struct wguard_fs *fs = sup_fs(s);
	char *a = xstrdup(path), *t;
	size_t i, n = s->holders.n, len = strlen(from);

	/* Each new name once: copied with their duplicates, the holders of a directory
	 * renamed back and forth grew as Fibonacci's numbers (the supervisor's memory,
	 * the host's). */
	for (i = 0; i < n; i++) {
		if (!path_is_under(s->holders.v[i], from))
			continue;
		t = xasprintf("%s%s", path, s->holders.v[i] + len);
		if (strlist_contains(&s->holders, t))
			free(t);
		else
			strlist_push_owned(&s->holders, t);
	}
	while (strcmp(a, "/") != 0 && (strcmp(a, path) == 0 || !fs->predates(fs->arg, a))) {
		if (!fs->predates(fs->arg, a) && !strlist_contains(&s->holders, a))
			strlist_push(&s->holders, a);
		(void)path_up(&a);
	}
	free(a);
}

/*
 * May the name r be made (is_dir: as a directory; by_open: as a regular file the
 * command writes through an open)? The guard's answer acted on: a directory that
 * becomes a git directory is looked at first (sup_git_complete), a .git file in the
 * user's work tree is made only by an open (what it says is checked later), so is a
 * config in a git directory the command made (judged as new when the run ends), a git
 * directory pointer is never made as a link or a device. 0 or -errno.
 */
int
sup_create_ok(struct sup *s, const struct res *r, bool is_dir, const char *op, bool by_open)
{
	const char *why, *wy;
	char *dir = path_dirname(r->path);
	int e = 0;

	sup_hold(s, r->dirfd, dir);
	why = wguard_may_create(&s->g, sup_fs(s), r->path, is_dir);
	if ((why == NULL || why == wguard_why_pointer) && strlist_contains(&s->gone, r->path))
		why = WHY_GONE;
	/* (The commondir that completes a git directory is a way too.) */
	if (why == wguard_why_complete && !is_dir &&
	    (wy = sup_git_way_ok(s, r->path, false)) != NULL)
		why = wy;
	if (why == wguard_why_complete)
		e = sup_git_complete(s, r->dirfd, dir);
	else {
		if (why == wguard_why_pointer && by_open)
			why = NULL;
		else if (why == wguard_why_cfg_new && by_open && s->git_way)
			why = WHY_CFG_AFTER_WAY;
		else if (why == wguard_why_cfg_new && by_open) {
			why = NULL;
			sup_git_config_new(s, r->path);
		} else if (why == NULL && !is_dir && !by_open &&
		    wguard_pointer_name(&s->g, sup_fs(s), r->path))
			why = "mandatory deny: a git directory pointer made as a link "
			      "(git writes it as a file)";
		if (why == NULL)
			why = sup_git_way_ok(s, r->path, !is_dir && !by_open);
		if (why != NULL) {
			sup_refused(s, op, r->path, why);
			e = -EPERM;
		}
	}
	sup_unhold(s);
	free(dir);
	return e;
}

/* A name to make: it must not be there, and the guard must let it be made. */
int
sup_check_new(struct sup *s, struct res *r, bool is_dir, const char *op)
{
	struct stat st;

	if (r->objfd != -1 || fstatat(r->dirfd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
		return -EEXIST;
	if (errno != ENOENT)
		return -errno;
	return sup_create_ok(s, r, is_dir, op, false);
}

/*
 * mkdir. Most of a package manager's or mkdir -p's are for a directory that is there
 * (node-tar asks for each file's): that answer, EEXIST, changes nothing and needs no
 * decision by name, only the lookup (res_found), which the full way would make too and
 * then answer the same; the id check is not needed either (an answer to a call that is
 * gone goes nowhere).
 */
int
sup_mkdir(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode)
{
	char path[PATH_MAX];
	struct res r;
	int e;

	if ((e = sup_path(s, addr, path)) < 0)
		return e;
	if (res_found(&s->rc, path))
		return -EEXIST;
	if ((e = sup_resolve_path(s, id, dirfd, path, false, &r)) < 0)
		return e;
	/* The kernel takes neither S_ISUID nor S_ISGID from mkdir's mode; S_IWOTH it
	 * takes, past the umask. */
	if ((e = sup_check_new(s, &r, true, "mkdir")) == 0) {
		if (mkdirat(r.dirfd, r.name, sup_mode_strip(s, r.path, mode, true, true)) == -1)
			e = -errno;
		else
			sup_made_add(s, r.dirfd, r.name);
	}
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}

int
sup_mknod(struct sup *s, uint64_t id, int dirfd, uint64_t addr, mode_t mode, dev_t dev)
{
	struct res r;
	int e;

	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if (r.must_be_dir)
		e = -ENOENT;
	else if ((e = sup_check_new(s, &r, false, "mknod")) == 0) {
		if (mknodat(r.dirfd, r.name, sup_mode_strip(s, r.path, mode, false, true),
			dev) == -1)
			e = -errno;
	}
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}

int
sup_symlink(struct sup *s, uint64_t id, uint64_t taddr, int dirfd, uint64_t addr)
{
	char target[PATH_MAX];
	struct res r;
	int e;

	if ((e = res_read_string(s->rc.tid, taddr, target, sizeof(target))) < 0)
		return e;
	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if ((e = sup_check_new(s, &r, false, "symlink")) == 0 &&
	    symlinkat(target, r.dirfd, r.name) == -1)
		e = -errno;
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}

/*
 * The error the kernel gives a removal that could never succeed, before any rule: an
 * unlink of a directory, an rmdir of what is none or of a directory that holds
 * entries. 0 when the removal could succeed. (git stash, git init and git gc try to
 * remove each directory a file left, .git and .git/worktrees among them, and expect
 * ENOTEMPTY: a refusal there refuses nothing and is no violation.)
 */
static int
unlink_futile(int dfd, const char *name, const struct stat *st, int flags)
{
	struct dirent *de;
	DIR *d;
	int fd, e = 0;

	if (!(flags & AT_REMOVEDIR))
		return S_ISDIR(st->st_mode) ? -EISDIR : 0;
	if (!S_ISDIR(st->st_mode))
		return -ENOTDIR;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (e == 0 && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			e = -ENOTEMPTY;
	closedir(d);
	return e;
}

int
sup_unlink(struct sup *s, uint64_t id, int dirfd, uint64_t addr, int flags)
{
	const char *why;
	struct res r;
	struct stat st;
	bool made;
	int e;

	if ((e = sup_resolve_arg(s, id, dirfd, addr, false, &r)) < 0)
		return e;
	if (r.objfd != -1) {
		e = (flags & AT_REMOVEDIR) ? -EBUSY : -EISDIR;
		goto out;
	}
	if (fstatat(r.dirfd, r.name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		goto out;
	}
	if ((why = wguard_may_remove(&s->g, sup_fs(s), r.path)) != NULL) {
		if (!wguard_removable(&s->g, sup_fs(s), r.path, S_ISDIR(st.st_mode))) {
			if ((e = unlink_futile(r.dirfd, r.name, &st, flags)) != 0)
				goto out;
			sup_refused(
			    s, (flags & AT_REMOVEDIR) ? "rmdir" : "unlink", r.path, why);
			e = -EPERM;
			goto out;
		}
		/* A pointer of the user's goes, but is never replaced (sup_create_ok); nor
		 * is the user's .git directory, by a .git file naming the command's or a
		 * git directory made there again. */
		if ((!S_ISDIR(st.st_mode) || strcmp(path_basename(r.path), ".git") == 0) &&
		    !strlist_contains(&s->gone, r.path))
			strlist_push(&s->gone, r.path);
	}
	made = S_ISDIR(st.st_mode) && sup_made(s, st.st_dev, st.st_ino);
	if (S_ISDIR(st.st_mode))
		sup_bases_flush(s); /* it may be one held */
	sup_files_flush(s);
	if (unlinkat(r.dirfd, r.name, flags & AT_REMOVEDIR) == -1) {
		e = -errno;
		goto out;
	}
	if (S_ISDIR(st.st_mode)) {
		sup_made_del(s, st.st_dev, st.st_ino);
		sup_vacate(s, r.path, made);
	} else if (st.st_nlink <= 1)
		sup_made_del(s, st.st_dev, st.st_ino); /* a .git file made (sup_open) */
out:
	sup_readonly(s, r.path, e);
	res_free(&r);
	return e;
}

/* A walk of the directory a rename moves: nothing protected may leave its place
 * (from) or land on one (to). 0, -EPERM, or -EXDEV when there is too much to look at
 * (mv(1) then copies, and every file it makes is asked about on its own); what cannot
 * be opened or read fails the rename with that error. */
static int
sup_subtree(struct sup *s, int dfd, const char *from, const char *to, const char *top_from,
    const char *top_to, size_t *budget, int level)
{
	char f[PATH_MAX], t[PATH_MAX];
	const char *why;
	struct dirent *de;
	struct stat st;
	unsigned char type;
	DIR *d;
	int fd, e = 0;

	if (level > 64)
		return -EXDEV;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -errno;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -errno;
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL) {
			e = errno != 0 ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if ((*budget)-- == 0) {
			e = -EXDEV;
			break;
		}
		if (snprintf(f, sizeof(f), "%s/%s", from, de->d_name) >= (int)sizeof(f) ||
		    snprintf(t, sizeof(t), "%s/%s", to, de->d_name) >= (int)sizeof(t)) {
			e = -EXDEV;
			break;
		}
		type = de->d_type;
		if (type == DT_UNKNOWN) {
			if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
				e = -errno;
				break;
			}
			type = S_ISDIR(st.st_mode) ? DT_DIR : DT_REG;
		}
		if ((why = wguard_may_remove(&s->g, sup_fs(s), f)) == NULL) {
			s->map_from = top_from;
			s->map_to = top_to;
			why = wguard_may_create(&s->g, sup_fs(s), t, type == DT_DIR);
			s->map_from = s->map_to = NULL;
			if ((why == NULL || why == wguard_why_pointer) &&
			    strlist_contains(&s->gone, t))
				why = WHY_GONE;
			if (why == NULL) {
				s->map_from = top_from;
				s->map_to = top_to;
				why = sup_git_way_ok(s, t, type == DT_LNK);
				s->map_from = s->map_to = NULL;
			}
			/* One made by an open, not judged yet, goes nowhere it would be
			 * judged at once (where the host's git reads it: a git directory
			 * where a directory that predated the run stood). */
			if (why == wguard_why_gitcfg && strlist_contains(&s->new_configs, f))
				why = WHY_PENDING_MOVED;
			/* A git config moves along with its git directory: it was judged
			 * where it was. One that was not git state is refused, as a hook
			 * is: a directory prepared elsewhere does not become git state by
			 * a rename. */
			if ((why == wguard_why_gitcfg || why == wguard_why_cfg_new) &&
			    type != DT_DIR && wguard_git_state(&s->g, sup_fs(s), f))
				why = NULL;
			/* A pointer moves with its directory: what it says is read
			 * from its new place, where it may mean another thing. */
			if (why == NULL && type == DT_REG) {
				s->map_from = top_from;
				s->map_to = top_to;
				/* A config noted for its core.worktree: read from
				 * its new place too. */
				if (wguard_pointer_name(&s->g, sup_fs(s), t) ||
				    strlist_contains(&s->pointers, f))
					sup_git_pointer(s, t);
				/* A config created by an open: judged where it went. */
				if (strlist_contains(&s->new_configs, f))
					sup_git_config_new(s, t);
				s->map_from = s->map_to = NULL;
			}
		}
		if (why != NULL) {
			sup_refused(s, "rename", f, why);
			e = -EPERM;
			break;
		}
		if (type == DT_DIR) {
			int cfd = openat(dirfd(d), de->d_name,
			    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

			/* What we cannot look at, we cannot let move (fail closed). */
			if (cfd == -1) {
				e = -errno;
				break;
			}
			e = sup_subtree(s, cfd, f, t, top_from, top_to, budget, level + 1);
			close(cfd);
			if (e != 0)
				break;
		}
	}
	closedir(d);
	return e;
}

/* The directory at (dirfd, name) moves from `from` to `to`. */
static int
sup_subtree_check(struct sup *s, int dirfd, const char *name, const char *from, const char *to)
{
	size_t budget = SUBTREE_MAX;
	int fd, e;

	if ((fd = openat(dirfd, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return -errno;
	/* Our own opens below may list a denied directory's mask: not the command's. */
	monitor_reads(s->mon, true);
	e = sup_subtree(s, fd, from, to, from, to, &budget, 0);
	monitor_reads(s->mon, false);
	close(fd);
	if (e == -EXDEV)
		log_debug("rename %s: too much below it to look at; EXDEV", from);
	return e;
}

int
sup_rename(struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr,
    unsigned flags)
{
	struct res o, n;
	struct stat ost, nst;
	const char *why = NULL;
	char *opar = NULL, *npar = NULL;
	bool nexists, omade = false, nmade = false, judge = false, omoved = false,
		      nmoved = false;
	int e;

	if ((e = sup_resolve_arg(s, id, odir, oaddr, false, &o)) < 0)
		return e;
	if ((e = sup_resolve_arg(s, id, ndir, naddr, false, &n)) < 0) {
		res_free(&o);
		return e;
	}
	if (o.objfd != -1 || n.objfd != -1) {
		e = -EBUSY;
		goto out;
	}
	if (fstatat(o.dirfd, o.name, &ost, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		goto out;
	}
	nexists = fstatat(n.dirfd, n.name, &nst, AT_SYMLINK_NOFOLLOW) == 0;
	if ((flags & RENAME_EXCHANGE) && !nexists) {
		e = -ENOENT;
		goto out;
	}
	if ((flags & RENAME_NOREPLACE) && nexists) {
		e = -EEXIST;
		goto out;
	}
	opar = path_dirname(o.path);
	npar = path_dirname(n.path);
	sup_hold(s, o.dirfd, opar);
	why = wguard_may_remove(&s->g, sup_fs(s), o.path);
	sup_hold(s, n.dirfd, npar);
	if (why == NULL)
		why = wguard_may_create(&s->g, sup_fs(s), n.path, S_ISDIR(ost.st_mode));
	/* What the guard lets be made only as it checks it by content. */
	if ((why == wguard_why_gitcfg || why == wguard_why_cfg_new) && S_ISREG(ost.st_mode) &&
	    !(flags & RENAME_EXCHANGE))
		why = NULL, judge = true;
	else if (why == wguard_why_pointer && S_ISREG(ost.st_mode) &&
	    !(flags & RENAME_EXCHANGE))
		why = strlist_contains(&s->gone, n.path) ? WHY_GONE : NULL;
	else if (why == wguard_why_complete && !(flags & RENAME_EXCHANGE)) {
		sup_unhold(s);
		if ((e = sup_git_complete(s, n.dirfd, npar)) < 0)
			goto out;
		why = NULL;
	}
	/* A directory that predates the run, replaced (an empty one) or exchanged: what
	 * comes in stands where it stood, and is asked as such (a link, or a .git in it,
	 * is a way for git run there: sup_git_way_ok). Kept if the rename fails: it only
	 * protects. */
	if (nexists && S_ISDIR(nst.st_mode))
		sup_vacate(s, n.path, sup_made(s, nst.st_dev, nst.st_ino));
	if ((flags & RENAME_EXCHANGE) && S_ISDIR(ost.st_mode))
		sup_vacate(s, o.path, sup_made(s, ost.st_dev, ost.st_ino));
	/* (Asked of the old name too: an exchange moves the new name's entry there.) */
	if (why == NULL && !judge) {
		if (flags & RENAME_EXCHANGE) {
			sup_hold(s, o.dirfd, opar);
			why = sup_git_way_ok(s, o.path, S_ISLNK(nst.st_mode));
		}
		sup_hold(s, n.dirfd, npar);
		if (why == NULL)
			why = sup_git_way_ok(s, n.path, S_ISLNK(ost.st_mode));
	}
	/* A directory that predates the run (or holds one) moved (either way of an
	 * exchange). */
	if (why == NULL && !judge && S_ISDIR(ost.st_mode)) {
		sup_hold(s, o.dirfd, opar);
		if ((omoved = sup_fs(s)->predates(sup_fs(s)->arg, o.path) ||
			    sup_holds(s, o.path, true))) {
			sup_hold(s, n.dirfd, npar);
			why = sup_git_way_is(s, sup_git_finds_new(s, npar));
		}
	}
	if (why == NULL && !judge && (flags & RENAME_EXCHANGE) && S_ISDIR(nst.st_mode)) {
		sup_hold(s, n.dirfd, npar);
		if ((nmoved = sup_fs(s)->predates(sup_fs(s)->arg, n.path) ||
			    sup_holds(s, n.path, true))) {
			sup_hold(s, o.dirfd, opar);
			why = sup_git_way_is(s, sup_git_finds_new(s, opar));
		}
	}
	/* Nothing of any kind where a pointer or a .git of the user's went: a git
	 * directory moved there would not be the user's, nor checked as such. (A config
	 * removed comes back by git's rename, judged by its content.) */
	if (why == NULL && !judge &&
	    (strlist_contains(&s->gone, n.path) ||
		((flags & RENAME_EXCHANGE) && strlist_contains(&s->gone, o.path))))
		why = WHY_GONE;
	if (why == NULL && nexists && !judge)
		why = wguard_may_remove(&s->g, sup_fs(s), n.path);
	sup_hold(s, o.dirfd, opar);
	if (why == NULL && (flags & RENAME_EXCHANGE))
		why = wguard_may_create(&s->g, sup_fs(s), o.path, S_ISDIR(nst.st_mode));
	sup_unhold(s);
	/* A denied path's object the host put there: not to be read under another name,
	 * the old one's, nor the new one's, which an exchange moves to the old name. */
	if (why == NULL &&
	    (rguard_refuses_name(s->rg, o.dirfd, o.name, o.path) != NULL ||
		((flags & RENAME_EXCHANGE) &&
		    rguard_refuses_name(s->rg, n.dirfd, n.name, n.path) != NULL)))
		why = "denyRead: a denied path the host changed during the run";
	if (why != NULL) {
		sup_refused(s, "rename", o.path, why);
		e = -EPERM;
		goto out;
	}
	if (judge) {
		e = sup_git_config_rename(s, o.dirfd, o.name, n.dirfd, n.name, n.path);
		goto out;
	}
	if (S_ISDIR(ost.st_mode) &&
	    (e = sup_subtree_check(s, o.dirfd, o.name, o.path, n.path)) < 0)
		goto out;
	if ((flags & RENAME_EXCHANGE) && S_ISDIR(nst.st_mode) &&
	    (e = sup_subtree_check(s, n.dirfd, n.name, n.path, o.path)) < 0)
		goto out;
	omade = S_ISDIR(ost.st_mode) && sup_made(s, ost.st_dev, ost.st_ino);
	nmade = nexists && S_ISDIR(nst.st_mode) && sup_made(s, nst.st_dev, nst.st_ino);
	sup_bases_flush(s); /* a directory held may move with it */
	sup_files_flush(s);
	if (syscall(SYS_renameat2, o.dirfd, o.name, n.dirfd, n.name, flags) == -1) {
		e = -errno;
		goto out;
	}
	/* Where a directory that predates the run stood, nothing new is the command's. */
	if (S_ISDIR(ost.st_mode))
		sup_vacate(s, o.path, omade);
	if (nexists && S_ISDIR(nst.st_mode)) {
		sup_vacate(s, n.path, nmade);
		if (!(flags & RENAME_EXCHANGE))
			sup_made_del(s, nst.st_dev, nst.st_ino);
	}
	if (S_ISREG(ost.st_mode) && wguard_pointer_name(&s->g, sup_fs(s), n.path))
		sup_git_pointer(s, n.path);
	if (omoved)
		sup_hold_up(s, o.path, n.path);
	if (nmoved)
		sup_hold_up(s, n.path, o.path);
out:
	sup_unhold(s);
	sup_readonly(s, o.path, e);
	free(opar);
	free(npar);
	res_free(&o);
	res_free(&n);
	return e;
}

int
sup_link(
    struct sup *s, uint64_t id, int odir, uint64_t oaddr, int ndir, uint64_t naddr, int flags)
{
	char opath[PATH_MAX], p[64];
	const char *why;
	struct res o, n;
	struct stat st;
	int e;

	memset(&o, 0, sizeof(o));
	o.dirfd = o.objfd = o.fd_flags = -1;
	if ((e = sup_path(s, oaddr, opath)) < 0)
		return e;
	if (opath[0] == '\0' && (flags & AT_EMPTY_PATH)) {
		/* linkat(fd, "", ...): the command's descriptor itself. */
		if ((e = res_fd_open(s->rc.tid, odir, &o.objfd, &o.fd_flags)) < 0)
			return e;
		if ((e = res_fd_path(o.objfd, o.path, sizeof(o.path))) < 0)
			o.path[0] = '\0';
		if ((e = res_same(&s->rc, o.objfd, o.path)) < 0) {
			res_free(&o);
			return e;
		}
	} else if ((e = res_resolve(
			&s->rc, odir, opath, (flags & AT_SYMLINK_FOLLOW) != 0, &o)) < 0)
		return e;
	if (!sup_valid(s, id)) {
		res_free(&o);
		return -ENOENT;
	}
	/* No new name for something protected: writes through it would change it; nor
	 * for a denied path's object the host put there: it could be read by that name. */
	why = o.path[0] != '\0' ? wguard_protected(&s->g, sup_fs(s), o.path) : NULL;
	if (why == NULL && s->rg != NULL &&
	    (o.objfd != -1 ? rguard_refuses(s->rg, o.objfd, o.path)
			   : rguard_refuses_name(s->rg, o.dirfd, o.name, o.path)) != NULL)
		why = "denyRead: a denied path the host changed during the run";
	if (why != NULL) {
		sup_refused(s, "link", o.path, why);
		res_free(&o);
		return -EPERM;
	}
	if (o.objfd == -1 && fstatat(o.dirfd, o.name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e = -errno;
		res_free(&o);
		return e;
	}
	if ((e = sup_resolve_arg(s, id, ndir, naddr, false, &n)) < 0) {
		res_free(&o);
		return e;
	}
	if ((e = sup_check_new(s, &n, false, "link")) == 0) {
		if (o.objfd != -1) {
			snprintf(p, sizeof(p), "/proc/self/fd/%d", o.objfd);
			e = linkat(AT_FDCWD, p, n.dirfd, n.name, AT_SYMLINK_FOLLOW);
		} else
			e = linkat(o.dirfd, o.name, n.dirfd, n.name, 0);
		e = e == -1 ? -errno : 0;
	}
	sup_readonly(s, n.path, e);
	res_free(&o);
	res_free(&n);
	return e;
}
