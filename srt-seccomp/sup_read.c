/*
 * The read denies the supervisor holds itself, for the whole run, when Landlock cannot
 * hold one of them (readlock.c): a deny whose way passes through a directory the
 * command may write (its own new files there must stay readable, so no directory there
 * can go without a grant), one behind a directory that cannot be listed, or any on a
 * kernel without Landlock ABI 2. Then every open of the command comes here, read-only
 * ones too (filter_read_prefix), and is done by the supervisor (sup_open_read), which
 * hands the command the descriptor: what it opened is judged, not a name the command
 * or the host can change after the judgement.
 *
 * An object is refused when a denied path, looked up now as a reader would (links
 * followed), no longer leads to its mask (the host replaced, moved or deleted it, or
 * re-pointed a link on the way; Linux then detaches the mask), or was missing at the
 * start, and the object was reached by that name (or beneath it), or is what the name
 * leads to now (another hard link), or lies beneath that. The object is opened first and
 * the deny looked up after: a mask gone then was gone when the object was reached, or
 * the object came through the mask (masks are never put back), and a rotation in
 * between leaves the object reached by the denied name. What is not closed: a link on
 * the way re-pointed (a Kubernetes secret volume's ..data) between the reader's lookup
 * and ours, which makes the name lead elsewhere by then.
 * Renaming or linking a denied path's object elsewhere is refused the same way
 * (sup_names.c), so that it cannot be read under another name.
 *
 * Not held this way: with nested user namespaces allowed (the command's own mount
 * namespaces would make the supervisor's lookups another tree than the command's: the
 * watch, watch.c, ends the run instead), with denyReadHold false (the user's choice:
 * watched), and without the guard (nothing supervises; srt-launch says so).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "path.h"
#include "srt-seccomp.h"
#include "supervise.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

struct rentry {
	char *path;             /* a name of the deny (as given, or its mask's mount point) */
	unsigned long long mnt; /* the mask's mount, or 0: missing at the start */
};

struct rguard {
	struct rentry *e;
	size_t n;
};

static void
rguard_add(struct rguard *g, const char *path, unsigned long long mnt)
{
	size_t i;

	for (i = 0; i < g->n; i++)
		if (strcmp(g->e[i].path, path) == 0)
			return;
	g->e = xreallocarray(g->e, g->n + 1, sizeof(*g->e));
	g->e[g->n].path = xstrdup(path);
	g->e[g->n].mnt = mnt;
	g->n++;
}

/* Every deny of list, by its name and its mask's mount point, the mask's mount as it is
 * now (PID 1, after the mounts). NULL: a mask is not in place. */
struct rguard *
rguard_new(const struct wguard_watch *list)
{
	struct rguard *g = xcalloc(1, sizeof(*g));
	const struct wguard_watched *w;
	unsigned long long mnt;
	size_t i;

	for (i = 0; i < list->n; i++) {
		w = &list->v[i];
		mnt = 0;
		if (w->mount != NULL &&
		    watch_mnt(AT_FDCWD, w->mount, AT_SYMLINK_NOFOLLOW, &mnt) == -1) {
			log_warn("read deny %s: its mask %s", w->name, w->mount);
			rguard_free(g);
			return NULL;
		}
		rguard_add(g, w->name, mnt);
		if (w->mount != NULL)
			rguard_add(g, w->mount, mnt);
	}
	return g;
}

void
rguard_free(struct rguard *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->n; i++)
		free(g->e[i].path);
	free(g->e);
	free(g);
}

/* Where p's name lies now: its directory as the kernel names it, links on the way
 * followed, and its last component; p itself when its directory is not there. */
static char *
rguard_where(const char *p)
{
	char *dir = path_dirname(p), at[PATH_MAX], *w;
	const char *base = strrchr(p, '/') != NULL ? strrchr(p, '/') + 1 : p;
	int fd;

	if ((fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1 &&
	    res_fd_path(fd, at, sizeof(at)) == 0)
		w = xasprintf("%s%s%s", at, strcmp(at, "/") == 0 ? "" : "/", base);
	else
		w = xstrdup(p);
	if (fd != -1)
		close(fd);
	free(dir);
	return w;
}

/*
 * Must the object st, reached by the name path ("" unknown), be refused for entry e?
 * While e's mask is in place (its mount, as at the start, is what e leads to now) every
 * name through it is the sandbox's view: nothing. A mask is never put back once the host
 * took it away, so in place now means in place when the object was reached. Otherwise
 * (or for a deny missing at the start) the object is refused if it was reached by the
 * denied name or beneath it, or is what that name leads to now, or lies beneath that.
 */
static bool
rguard_entry_holds(const struct rentry *e, const struct stat *st, const char *path)
{
	struct statx sx;
	char at[PATH_MAX], *where;
	bool hit = false, there = false;
	int fd;

	if ((fd = open(e->path, O_PATH | O_CLOEXEC)) != -1) {
		if (statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID | STATX_TYPE | STATX_INO, &sx) ==
			-1 ||
		    !(sx.stx_mask & STATX_MNT_ID)) {
			close(fd);
			return true; /* cannot tell: refused */
		}
		if (e->mnt != 0 && sx.stx_mnt_id == e->mnt) {
			close(fd);
			return false; /* its mask, still in place */
		}
		there = true;
	}
	where = rguard_where(e->path);
	if (path[0] != '\0' && path_is_under(path, where))
		hit = true;
	else if (there && makedev(sx.stx_dev_major, sx.stx_dev_minor) == st->st_dev &&
	    sx.stx_ino == st->st_ino)
		hit = true;
	else if (there && S_ISDIR(sx.stx_mode) && path[0] != '\0' &&
	    res_fd_path(fd, at, sizeof(at)) == 0 && path_is_under(path, at))
		hit = true;
	free(where);
	if (fd != -1)
		close(fd);
	return hit;
}

/* Is the object fd (named path, "" when unknown) a denied path's, the host having changed
 * that path during the run? Its name then, for the refusal. */
const char *
rguard_refuses(const struct rguard *g, int fd, const char *path)
{
	struct stat st;
	size_t i;

	if (g == NULL)
		return NULL;
	if (fstat(fd, &st) == -1)
		return "";
	for (i = 0; i < g->n; i++)
		if (rguard_entry_holds(&g->e[i], &st, path))
			return g->e[i].path;
	return NULL;
}

/* The same for the name dirfd/name (not followed), named path. */
const char *
rguard_refuses_name(const struct rguard *g, int dirfd, const char *name, const char *path)
{
	const char *why;
	int fd;

	if (g == NULL)
		return NULL;
	if ((fd = openat(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return NULL;
	why = rguard_refuses(g, fd, path);
	close(fd);
	return why;
}
