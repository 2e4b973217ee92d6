/*
 * The read denies, held by Landlock for the whole run, whatever the host does to them.
 *
 * A mask (a /dev/null bind over a denied file, a tmpfs over a denied directory) is a
 * mount, and Linux detaches a mount from every namespace when the host unlinks or renames
 * over its mount point (a key rotated with `mv new token`, `rm -rf ~/.ssh`); a denied path
 * missing at the start has nothing to mount on, and the host may make it (`aws
 * configure`). Neither can be put back from inside, and ending the run after the fact
 * (watch.c) leaves a reader in a loop the moment in between.
 *
 * Landlock grants by inode, and beneath a directory it grants: the worker (and the
 * command after it) may read a file only through a directory or file it was granted
 * when the run started. Every directory on the way to a denied path (as watch.c walks
 * it: every link followed, every directory a link passes through) gets nothing itself;
 * each of its other entries gets LANDLOCK_ACCESS_FS_READ_FILE, and so does each mask.
 * Whatever the host puts at a denied name later is a new inode under directories with no
 * grant: it cannot be opened for reading (EACCES), not for a moment, and the run goes on.
 * What was there at the start keeps its mask, which follows it if it is moved.
 *
 * The price: an entry made during the run directly in a directory on such a way (the
 * home directory for ~/.ssh; the new ~/.aws itself) cannot be read inside, until the
 * next run (the command sees "Permission denied"; filesystem.denyReadHold false
 * turns the hold off, every deny then watched). So a deny whose way passes through a
 * directory the command may write (a write root) is not held here (the command's own
 * new files there must stay readable): the supervisor holds it (sup_read.c), every
 * open then going through it. Landlock also forbids mounting, so with nested user
 * namespaces allowed nothing is held here either: watch.c watches, and ends the run
 * when the host changes a deny.
 * Only LANDLOCK_ACCESS_FS_READ_FILE (and REFER, granted everywhere) is handled: listing a
 * directory is not refused, only reading what is in it.
 *
 * Built by PID 1 after the mounts, before the worker exists; the worker restricts itself
 * with it (readlock_restrict) after NO_NEW_PRIVS, before the filter. PID 1, the
 * supervisor, is not restricted.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/landlock.h>
#include <linux/mount.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "path.h"
#include "srt-seccomp.h"
#include "wguard.h"

#define READLOCK_TRIES 16 /* builds again when a way changes while it is built */

/* The ways of the denies held: the directories on them, and each name looked up there. */
struct ways {
	struct strlist dirs;
	struct strlist names;     /* as dir/name */
	bool writable;            /* a directory on the way can be written here */
	bool unlisted;            /* one cannot be listed */
	bool strange;             /* one was not on an earlier walk */
	const struct ways *known; /* that earlier walk, or NULL */
};

static char *
readlock_join(const char *dir, const char *name, size_t len)
{
	return xasprintf("%s%s%.*s", dir, strcmp(dir, "/") == 0 ? "" : "/", (int)len, name);
}

static int
readlock_visit(void *arg, const char *dir, const char *name, size_t len)
{
	struct ways *w = arg;
	char *p = readlock_join(dir, name, len);
	DIR *d;

	if (w->known != NULL &&
	    (!strlist_contains(&w->known->dirs, dir) || !strlist_contains(&w->known->names, p)))
		w->strange = true;
	if (!strlist_contains(&w->dirs, dir)) {
		strlist_push(&w->dirs, dir);
		if (faccessat(AT_FDCWD, dir, W_OK, AT_EACCESS) == 0)
			w->writable = true;
		if ((d = opendir(dir)) == NULL)
			w->unlisted = true;
		else
			closedir(d);
	}
	if (!strlist_contains(&w->names, p))
		strlist_push(&w->names, p);
	free(p);
	return 0;
}

static void
ways_free(struct ways *w)
{
	strlist_free(&w->dirs);
	strlist_free(&w->names);
	memset(w, 0, sizeof(*w));
}

/* The mask at mount, opened: the root of a mount of its own there, or -1. */
static int
readlock_open_mask(const char *mount)
{
	unsigned long long mine, above;
	char *dir = path_dirname(mount);
	int fd;

	fd = open(mount, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	if (fd != -1 &&
	    (watch_mnt(fd, "", AT_EMPTY_PATH, &mine) == -1 ||
		watch_mnt(AT_FDCWD, dir, AT_SYMLINK_NOFOLLOW, &above) == -1 || mine == above)) {
		close(fd);
		fd = -1;
	}
	free(dir);
	return fd;
}

/*
 * Walks the ways of one deny into w (name, and the mask's mount point when it is spelled
 * otherwise). Could it be held? Its whole way there (a mask) or still missing (none),
 * every directory on it listable and none writable.
 */
static bool
readlock_entry(const struct wguard_watched *e, struct ways *w)
{
	char *gone;
	int rc, rc2 = 0;
	bool ok;

	rc = watch_way(e->name, readlock_visit, w, &gone);
	free(gone);
	if (e->mount != NULL && strcmp(e->mount, e->name) != 0) {
		rc2 = watch_way(e->mount, readlock_visit, w, &gone);
		free(gone);
	}
	ok = !w->writable && !w->unlisted;
	return ok && (e->mount != NULL ? rc == 0 && rc2 == 0 : rc == 1);
}

static int
readlock_rule(int ruleset, int fd, uint64_t access)
{
	struct landlock_path_beneath_attr pb = { .allowed_access = access, .parent_fd = fd };

	return (int)syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

/* Grants reading beneath every entry of dir that is on no way. */
static int
readlock_grant_dir(int ruleset, const char *dir, const struct ways *all, size_t *n)
{
	struct dirent *de;
	struct stat st;
	char *p;
	DIR *d;
	int fd, rc = 0;

	if ((d = opendir(dir)) == NULL)
		return -1;
	while (rc == 0 && (errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		p = readlock_join(dir, de->d_name, strlen(de->d_name));
		if (strlist_contains(&all->names, p)) {
			free(p);
			continue;
		}
		/* A link grants nothing: what it leads to is decided where that is. */
		if ((fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
			rc = errno == ENOENT ? 0 : -1;
		else if (fstat(fd, &st) == -1)
			rc = -1;
		else if (!S_ISLNK(st.st_mode)) {
			rc = readlock_rule(ruleset, fd, LANDLOCK_ACCESS_FS_READ_FILE);
			(*n)++;
		}
		if (rc == -1)
			log_warn("read deny: Landlock rule for %s", p);
		if (fd != -1)
			close(fd);
		free(p);
	}
	if (rc == 0 && errno != 0)
		rc = -1;
	closedir(d);
	return rc;
}

/*
 * One try: the ruleset holding every deny of list it can (held[i] set), or -1 with
 * nothing held. 0: built; 1: a way changed meanwhile, try again.
 */
static int
readlock_try(const struct wguard_watch *list, bool *held, int *ruleset)
{
	struct landlock_ruleset_attr ra = {
		.handled_access_fs = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_REFER,
	};
	struct ways all = { 0 }, one, again = { 0 };
	size_t i, j, nrules = 0;
	int rc = -1, fd;

	*ruleset = -1;
	for (i = 0; i < list->n; i++) {
		memset(&one, 0, sizeof(one));
		held[i] = readlock_entry(&list->v[i], &one);
		for (j = 0; held[i] && j < one.dirs.n; j++)
			if (!strlist_contains(&all.dirs, one.dirs.v[j]))
				strlist_push(&all.dirs, one.dirs.v[j]);
		for (j = 0; held[i] && j < one.names.n; j++)
			if (!strlist_contains(&all.names, one.names.v[j]))
				strlist_push(&all.names, one.names.v[j]);
		if (!held[i])
			log_debug("read deny %s: not held by Landlock (%s): by the "
				  "supervisor",
			    list->v[i].name,
			    one.writable       ? "writable on its way"
				: one.unlisted ? "a directory on its way cannot be listed"
					       : "changed since the plan");
		ways_free(&one);
	}
	if (all.dirs.n == 0) {
		rc = 0;
		goto out;
	}
	if ((*ruleset = (int)syscall(SYS_landlock_create_ruleset, &ra, sizeof(ra), 0)) == -1) {
		log_warn("read deny: landlock_create_ruleset");
		goto out;
	}
	/* Moving a file between directories: allowed wherever it gains no reading. */
	if ((fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    readlock_rule(*ruleset, fd, LANDLOCK_ACCESS_FS_REFER) == -1) {
		log_warn("read deny: Landlock rule for /");
		if (fd != -1)
			close(fd);
		goto out;
	}
	close(fd);
	for (i = 0; i < all.dirs.n; i++)
		if (readlock_grant_dir(*ruleset, all.dirs.v[i], &all, &nrules) == -1) {
			log_warn("read deny: Landlock rules for %s", all.dirs.v[i]);
			goto out;
		}
	for (i = 0; i < list->n; i++) {
		if (!held[i] || list->v[i].mount == NULL)
			continue;
		/* The mask itself stays readable as it was (an empty file, a directory of
		 * what allowRead brings back): granted by its own inode, never the name's. */
		if ((fd = readlock_open_mask(list->v[i].mount)) == -1) {
			log_warnx("read deny %s: its mask is not in place", list->v[i].name);
			goto out;
		}
		if (readlock_rule(*ruleset, fd, LANDLOCK_ACCESS_FS_READ_FILE) == -1) {
			log_warn("read deny: Landlock rule for %s", list->v[i].mount);
			close(fd);
			goto out;
		}
		close(fd);
	}
	/* Every way walked again: a name granted above that has since come onto a way (a
	 * link re-pointed meanwhile) means building again. */
	again.known = &all;
	for (i = 0; i < list->n; i++)
		if (held[i] && !readlock_entry(&list->v[i], &again))
			again.strange = true;
	rc = again.strange ? 1 : 0;
	log_debug("read denies held by Landlock: %zu directories on their ways, %zu rules",
	    all.dirs.n, nrules + 1);
	/* What the host makes directly in these during the run cannot be read inside. */
	for (i = 0; rc == 0 && i < all.dirs.n; i++)
		log_debug("read deny hold: a file made in %s during the run is unreadable "
			  "inside (denyReadHold)",
		    all.dirs.v[i]);
out:
	if (rc != 0 && *ruleset != -1) {
		close(*ruleset);
		*ruleset = -1;
	}
	if (rc == -1)
		memset(held, 0, list->n * sizeof(*held));
	ways_free(&all);
	ways_free(&again);
	return rc;
}

int
readlock_new(const struct wguard_watch *list, bool allow_userns, bool hold, bool *held)
{
	int abi, rc, ruleset = -1, tries;

	memset(held, 0, list->n * sizeof(*held));
	if (list->n == 0)
		return -1;
	if (!hold) {
		log_debug("read denies: not held by Landlock (denyReadHold is false): watched");
		return -1;
	}
	if (allow_userns) {
		log_debug(
		    "read denies: not held by Landlock (it forbids the mounts nested user "
		    "namespaces are allowed for): watched");
		return -1;
	}
	abi = (int)syscall(
	    SYS_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
	if (abi < 2) {
		log_debug("read denies: no Landlock with LANDLOCK_ACCESS_FS_REFER here (%s): "
			  "held by the supervisor",
		    abi == -1 ? strerror(errno) : "ABI 1");
		return -1;
	}
	for (tries = 0; (rc = readlock_try(list, held, &ruleset)) == 1; tries++)
		if (tries == READLOCK_TRIES) {
			memset(held, 0, list->n * sizeof(*held));
			break;
		}
	return ruleset;
}

/* A detached mount to put over a denied path: a read-only /dev/null for a file (nodev,
 * as bwrap's --ro-bind has it: opening it fails, as the reference's does), an empty
 * tmpfs for a directory (writable, as bwrap's --tmpfs: what is written there is lost). */
static int
readlock_mask_tree(bool dir)
{
	struct mount_attr ma = { .attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC };
	int fs, tree;

	if (!dir) {
		if ((tree = (int)syscall(SYS_open_tree, AT_FDCWD, "/dev/null",
			 OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC)) != -1 &&
		    syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH, &ma, sizeof(ma)) ==
			-1) {
			close(tree);
			tree = -1;
		}
		return tree;
	}
	if ((fs = (int)syscall(SYS_fsopen, "tmpfs", FSOPEN_CLOEXEC)) == -1)
		return -1;
	tree = -1;
	if (syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, "mode", "0755", 0) == 0 &&
	    syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0) == 0)
		tree = (int)syscall(
		    SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	close(fs);
	return tree;
}

/*
 * Mounts the mask of a denied path, by descriptor: on what was opened here, so that a
 * name the host moves meanwhile is never masked in the wrong place. 0: masked; 1: the
 * path is gone (ENOENT from the open, or from the mount: unlinked in between); -1: error.
 */
static int
readlock_mask_file(const char *path)
{
	struct stat st;
	int fd, tree = -1, rc = -1;

	if ((fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return errno == ENOENT || errno == ENOTDIR ? 1 : -1;
	if (fstat(fd, &st) == -1)
		goto out;
	/* A link (the host's, since the plan) is no file or directory to mask. */
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		goto out;
	}
	if ((tree = readlock_mask_tree(S_ISDIR(st.st_mode))) == -1)
		goto out;
	if (syscall(SYS_move_mount, tree, "", fd, "",
		MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == -1) {
		rc = errno == ENOENT ? 1 : -1;
		goto out;
	}
	rc = 0;
out:
	if (tree != -1)
		close(tree);
	close(fd);
	return rc;
}

/*
 * The masks bwrap left to srt-seccomp (wguard 'F': denied files, and directories with
 * nothing brought back inside), mounted by PID 1 while it may still mount, after bwrap's
 * mounts: a path the host deleted between the plan and now is not masked and becomes a
 * deny missing at the start (mount NULL), held or watched as those are; one it made
 * again is masked as it is now (a directory by a tmpfs, a file by /dev/null). -1: a
 * mask could not be mounted (the run must not start).
 */
int
readlock_place(struct wguard_watch *list)
{
	struct strlist done = { 0 };
	struct wguard_watched *e;
	size_t i;
	int r = 0, tries;

	for (i = 0; i < list->n; i++) {
		e = &list->v[i];
		if (!e->place)
			continue;
		if (strlist_contains(&done, e->mount))
			continue;
		/* Gone between our open and our mount: look again. Still there after
		 * that, it is not a file a mask can be mounted on: no run. */
		for (tries = 0; (r = readlock_mask_file(e->mount)) == 1 && tries < 3; tries++)
			if (access(e->mount, F_OK) == -1)
				break;
		if (r == 1 && access(e->mount, F_OK) == 0) {
			errno = ENOENT;
			r = -1;
		}
		if (r == -1) {
			log_warn("read deny %s: cannot mask %s", e->name, e->mount);
			break;
		}
		if (r == 1) {
			log_info("read deny %s: %s is gone since the plan (the host removed "
				 "it): denied as a path missing at the start",
			    e->name, e->mount);
			free(e->mount);
			e->mount = NULL;
			e->place = false;
			continue;
		}
		strlist_push(&done, e->mount);
	}
	/* Every entry of a file that went: another name of it (one mask, several names). */
	for (i = 0; r != -1 && i < list->n; i++) {
		e = &list->v[i];
		if (e->place && !strlist_contains(&done, e->mount)) {
			free(e->mount);
			e->mount = NULL;
			e->place = false;
		}
	}
	strlist_free(&done);
	return r == -1 ? -1 : 0;
}

int
readlock_restrict(int ruleset)
{
	if (ruleset == -1)
		return 0;
	if (syscall(SYS_landlock_restrict_self, ruleset, 0) == -1) {
		log_warn("landlock_restrict_self");
		return -1;
	}
	return 0;
}
