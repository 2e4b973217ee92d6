/*
 * The read denies neither Landlock (readlock.c) nor the supervisor (sup_read.c) holds,
 * watched for what the host does to them while the command runs: every one when nested
 * user namespaces are allowed (Landlock forbids the mounts they are for, and the
 * command's own mount namespaces are other trees than the supervisor's), or with
 * denyReadHold false.
 *
 * A denied file is masked with /dev/null bound over it, a denied directory with a tmpfs.
 * Linux detaches such a mount when the host unlinks or renames over its mount point (a
 * secret rotated with `mv tmp token`), and a mount point the host renames, or a directory
 * above it, takes its mount along, leaving the old name bare for whatever is made there
 * next. A name that reaches its mask through links (token -> ..data/token, ..data -> v1,
 * as Kubernetes' secret volumes rotate) can be re-pointed past it. A denied path missing
 * at the start has no mask at all (nothing to mount on), and the host may make it. Each
 * way the path would be readable. The masks cannot be put back from here (the sandbox
 * holds no capability), so the sandbox ends instead (fail closed):
 *   - a masked name (followed, as a reader opens it) and its mount point must still show
 *     the mount the mount point had at the start (statx STATX_MNT_ID);
 *   - a name missing at the start must stay missing; a directory on its way that was
 *     missing too ends the run as soon as it appears, unless the command could have made
 *     it itself (its directory is writable here; the write guard keeps the command from
 *     making the name).
 *
 * When to look: whenever the mount table changes (POLLPRI on /proc/self/mountinfo), and
 * whenever an entry that lies on the way to a watched name is made, removed or moved in
 * any directory of that way, up to "/" and through every link (inotify: the host's
 * changes reach these directories, inodes being shared). Each look walks every way again
 * (watch_way, which readlock.c walks too), watching each directory before it looks into
 * it, so a change right after the look is an event too; a directory that moved keeps its
 * old watch, and the one now at its name gets one. Events about other names (a busy
 * working directory) are read and dropped.
 *
 * This reacts after the fact: a reader that opens the path in the moment between the
 * host's rename and the look reads the new file (srt-launch(1), the write guard). That
 * is why Landlock, or else the supervisor, holds every deny it can.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/inotify.h>
#include <sys/stat.h>

#include "path.h"
#include "srt-seccomp.h"
#include "wguard.h"

#ifndef STATX_MNT_ID
#define STATX_MNT_ID 0x00001000U
#endif

#define WATCH_EVENTS \
	(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | \
	    IN_ONLYDIR | IN_DONT_FOLLOW)
#define WATCH_LINKS 40 /* the kernel's MAXSYMLINKS */
#define WATCH_TRIES 16 /* looks again when a directory goes while it is watched */

struct wentry {
	char *name;             /* as a reader spells it */
	char *mount;            /* its mask's mount point, or NULL: missing at the start */
	unsigned long long mnt; /* the mask's mount, as the mount point showed it first */
	char *gone;             /* missing: the first name of its way not there at the last
				   look (NULL before the first) */
	char *made;             /* missing: what appeared on its way, or NULL */
	int found;              /* missing: the whole way is there */
};

/* An entry of a watched directory that lies on some way: its events matter. */
struct wname {
	int wd;
	char *name;
};

/* One look: the directories watched and the names that matter, as found this time. */
struct look {
	struct strlist dirs;
	int *wds; /* of each of dirs */
	struct wname *names;
	size_t nnames, cap;
	char **gone; /* per entry: as the field of struct wentry */
	int *found;
	char *failed; /* the directory that could not be watched */
	int err;      /* and why */
};

struct watch {
	struct wentry *e;
	size_t n;
	struct look cur; /* the last look's */
	int started;
	int inotify;
	int mountinfo;
};

/* The mount dfd/path is on (flags as statx(2)'s: AT_EMPTY_PATH for dfd itself); also
 * readlock.c's. */
int
watch_mnt(int dfd, const char *path, int flags, unsigned long long *id)
{
	struct statx sx;

	if (statx(dfd, path, flags, STATX_MNT_ID, &sx) == -1)
		return -1;
	if (!(sx.stx_mask & STATX_MNT_ID)) {
		errno = ENOSYS;
		return -1;
	}
	*id = sx.stx_mnt_id;
	return 0;
}

static int
wname_cmp(const void *a, const void *b)
{
	const struct wname *x = a, *y = b;

	if (x->wd != y->wd)
		return x->wd < y->wd ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The first name of l at or after (wd, name), or l->nnames. */
static size_t
look_lower(const struct look *l, int wd, const char *name)
{
	struct wname key = { wd, (char *)(uintptr_t)name };
	size_t lo = 0, hi = l->nnames, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (wname_cmp(&l->names[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void
look_free(struct look *l, size_t nentries)
{
	size_t i;

	strlist_free(&l->dirs);
	free(l->wds);
	for (i = 0; i < l->nnames; i++)
		free(l->names[i].name);
	free(l->names);
	for (i = 0; l->gone != NULL && i < nentries; i++)
		free(l->gone[i]);
	free(l->gone);
	free(l->found);
	free(l->failed);
	memset(l, 0, sizeof(*l));
}

/* Watches dir (once per look): its watch descriptor, or -1. */
static int
look_dir(struct watch *w, struct look *l, const char *dir)
{
	size_t i;
	int wd;

	for (i = 0; i < l->dirs.n; i++)
		if (strcmp(l->dirs.v[i], dir) == 0)
			return l->wds[i];
	if ((wd = inotify_add_watch(w->inotify, dir, WATCH_EVENTS)) == -1)
		return -1;
	strlist_push(&l->dirs, dir);
	l->wds = xreallocarray(l->wds, l->dirs.n, sizeof(*l->wds));
	l->wds[l->dirs.n - 1] = wd;
	return wd;
}

static void
look_name(struct look *l, int wd, const char *name, size_t len)
{
	if (l->nnames == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 64;
		l->names = xreallocarray(l->names, l->cap, sizeof(*l->names));
	}
	l->names[l->nnames].wd = wd;
	l->names[l->nnames].name = xstrndup(name, len);
	l->nnames++;
}

/*
 * Follows path as the kernel would, name by name and every link, handing visit each
 * directory it looks into and the name it looks up there, before it looks (the watch
 * watches the directory then: whatever changes on the way after the look makes an event;
 * readlock.c takes the same ways). 0: the whole way is there; 1: *gone is the first name
 * that is not (or cannot be looked at); -1: visit said no (its errno).
 */
int
watch_way(const char *path, int (*visit)(void *, const char *, const char *, size_t), void *arg,
    char **gone)
{
	char cur[PATH_MAX] = "", next[PATH_MAX] = "", target[PATH_MAX], *rest, *p, *end;
	struct stat st;
	int links = 0, rc = 0, isdir = 1;
	size_t len;
	ssize_t n;

	*gone = NULL;
	rest = xstrdup(path);
	for (p = rest;;) {
		while (*p == '/')
			p++;
		if (*p == '\0')
			break;
		len = (end = strchr(p, '/')) != NULL ? (size_t)(end - p) : strlen(p);
		if (len == 1 && p[0] == '.' && isdir) {
			p += len;
			continue;
		}
		if (len == 2 && p[0] == '.' && p[1] == '.' && isdir) {
			/* cur has no link in it: its parent is its text's. */
			*(strrchr(cur, '/') != NULL ? strrchr(cur, '/') : cur) = '\0';
			p += len;
			continue;
		}
		/* Nothing lies below what is not a directory (ENOTDIR): the way ends. */
		if ((size_t)snprintf(next, sizeof(next), "%s/%.*s", cur, (int)len, p) >=
			sizeof(next) ||
		    !isdir) {
			rc = 1;
			break;
		}
		if (visit(arg, cur[0] != '\0' ? cur : "/", p, len) == -1) {
			rc = -1;
			break;
		}
		if (lstat(next, &st) == -1) {
			rc = 1;
			break;
		}
		p += len;
		if (!S_ISLNK(st.st_mode)) {
			memcpy(cur, next, sizeof(cur));
			isdir = S_ISDIR(st.st_mode);
			continue;
		}
		if (++links > WATCH_LINKS ||
		    (n = readlink(next, target, sizeof(target) - 1)) <= 0) {
			rc = 1;
			break;
		}
		target[n] = '\0';
		/* The link's target takes the place of its name, from "/" when absolute. */
		end = xasprintf("%s/%s", target, p);
		free(rest);
		p = rest = end;
		if (target[0] == '/')
			cur[0] = '\0';
	}
	if (rc == 1)
		*gone = xstrdup(next);
	free(rest);
	return rc;
}

struct walkarg {
	struct watch *w;
	struct look *l;
};

/* Watches dir, then notes name there as one that matters. */
static int
watch_visit(void *arg, const char *dir, const char *name, size_t len)
{
	struct walkarg *a = arg;
	int wd;

	if ((wd = look_dir(a->w, a->l, dir)) == -1) {
		a->l->err = errno;
		free(a->l->failed);
		a->l->failed = xstrdup(dir);
		return -1;
	}
	look_name(a->l, wd, name, len);
	return 0;
}

/* watch_way, watching: -1 when a directory could not be watched (l->err, l->failed). */
static int
watch_walk(struct watch *w, struct look *l, const char *path, char **gone)
{
	struct walkarg a = { w, l };

	return watch_way(path, watch_visit, &a, gone);
}

/* Could the command have made path itself? Its directory is writable here. */
static int
watch_command_could_make(const char *path)
{
	char *dir = path_dirname(path);
	int ok = faccessat(AT_FDCWD, dir, W_OK | X_OK, AT_EACCESS) == 0;

	free(dir);
	return ok;
}

/* One look at every way; -1: a directory could not be watched (l->err, l->failed). */
static int
watch_look_once(struct watch *w, struct look *l)
{
	struct wentry *e;
	char *gone;
	size_t i;
	int rc;

	l->gone = xcalloc(w->n, sizeof(*l->gone));
	l->found = xcalloc(w->n, sizeof(*l->found));
	for (i = 0; i < w->n; i++) {
		e = &w->e[i];
		if ((rc = watch_walk(w, l, e->name, &l->gone[i])) == -1)
			return -1;
		l->found[i] = rc == 0;
		if (e->mount == NULL || strcmp(e->mount, e->name) == 0)
			continue;
		rc = watch_walk(w, l, e->mount, &gone);
		free(gone);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/*
 * Walks every way again (watching as it goes), then takes the look in: what the missing
 * names show, and the watches of directories no longer on any way given up. -1: a
 * directory on a way cannot be watched, and the sandbox must end (or not start).
 */
static int
watch_refresh(struct watch *w)
{
	struct look l = { 0 };
	struct wentry *e;
	struct stat st;
	size_t i, k;
	int tries;

	for (tries = 0; watch_look_once(w, &l) == -1; tries++) {
		/* A directory went between its look and its watch: the way changed. */
		if ((l.err == ENOENT || l.err == ENOTDIR) && tries < WATCH_TRIES) {
			look_free(&l, w->n);
			continue;
		}
		errno = l.err;
		if (errno == ENOSPC)
			log_warnx("read deny: cannot watch %s: the limit of inotify watches "
				  "(fs.inotify.max_user_watches) is reached; %s",
			    l.failed,
			    w->started ? "ending the sandbox" : "not starting the command");
		else
			log_warn("read deny: cannot watch %s (every directory on the way to a "
				 "denyRead path is watched; %s)",
			    l.failed,
			    w->started ? "ending the sandbox" : "not starting the command");
		look_free(&l, w->n);
		return -1;
	}
	for (i = 0; i < w->n; i++) {
		e = &w->e[i];
		if (e->mount != NULL)
			continue;
		e->found = l.found[i];
		/* A name missing at the last look that is there now, where the command could
		 * not have made it. */
		if (e->gone != NULL && l.gone[i] != NULL && strcmp(e->gone, l.gone[i]) != 0 &&
		    e->made == NULL && lstat(e->gone, &st) == 0 &&
		    !watch_command_could_make(e->gone))
			e->made = xstrdup(e->gone);
		free(e->gone);
		e->gone = l.gone[i];
		l.gone[i] = NULL;
	}
	/* Sorted, once each: ways share their upper directories. */
	qsort(l.names, l.nnames, sizeof(*l.names), wname_cmp);
	for (i = k = 0; i < l.nnames; i++) {
		if (k > 0 && wname_cmp(&l.names[k - 1], &l.names[i]) == 0)
			free(l.names[i].name);
		else
			l.names[k++] = l.names[i];
	}
	l.nnames = k;
	/* A directory moved off every way, or gone, is no longer watched. */
	for (i = 0; i < w->cur.dirs.n; i++) {
		for (k = 0; k < l.dirs.n && l.wds[k] != w->cur.wds[i]; k++)
			;
		if (k == l.dirs.n)
			(void)inotify_rm_watch(w->inotify, w->cur.wds[i]);
	}
	look_free(&w->cur, w->n);
	w->cur = l;
	return 0;
}

/* Is every mask still where it was, every missing name still missing? Else say which. */
static int
watch_verify(struct watch *w)
{
	unsigned long long id;
	struct wentry *e;
	size_t i;

	for (i = 0; i < w->n; i++) {
		e = &w->e[i];
		if (e->mount == NULL) {
			if (e->found) {
				log_warnx(
				    "%s: a denyRead path that did not exist when the run "
				    "started, and so is not masked, was created by the host "
				    "during the run; ending the sandbox",
				    e->name);
				return -1;
			}
			if (e->made != NULL) {
				log_warnx(
				    "%s: a denyRead path that did not exist when the run "
				    "started: the host created %s on its way during the run; "
				    "ending the sandbox",
				    e->name, e->made);
				return -1;
			}
			continue;
		}
		if (watch_mnt(AT_FDCWD, e->name, 0, &id) == -1 || id != e->mnt ||
		    watch_mnt(AT_FDCWD, e->mount, AT_SYMLINK_NOFOLLOW, &id) == -1 ||
		    id != e->mnt) {
			log_warnx(
			    "%s: its read protection was lost: the host "
			    "replaced, moved or deleted it%s while the command ran; ending the "
			    "sandbox",
			    e->name,
			    strcmp(e->name, e->mount) != 0 ? ", or a link on its way," : "");
			return -1;
		}
	}
	return 0;
}

struct watch *
watch_new(const struct wguard_watch *list)
{
	struct watch *w = xcalloc(1, sizeof(*w));
	struct wentry *e;
	size_t i;

	w->inotify = w->mountinfo = -1;
	w->e = xcalloc(list->n, sizeof(*w->e));
	for (w->n = 0; w->n < list->n; w->n++) {
		e = &w->e[w->n];
		e->name = xstrdup(list->v[w->n].name);
		if (list->v[w->n].mount != NULL)
			e->mount = xstrdup(list->v[w->n].mount);
	}
	for (i = 0; i < w->n; i++) {
		e = &w->e[i];
		if (e->mount != NULL &&
		    watch_mnt(AT_FDCWD, e->mount, AT_SYMLINK_NOFOLLOW, &e->mnt) == -1) {
			log_warn("read deny %s: statx %s", e->name, e->mount);
			goto fail;
		}
	}
	if ((w->mountinfo = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC)) == -1) {
		log_warn("/proc/self/mountinfo");
		goto fail;
	}
	if ((w->inotify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) == -1) {
		log_warn("read deny: inotify_init1%s",
		    errno == EMFILE ? " (the limit of "
				      "inotify instances, fs.inotify.max_user_instances)"
				    : "");
		goto fail;
	}
	/* Watched before the first check: nothing between the two goes unseen. */
	if (watch_refresh(w) == -1 || watch_verify(w) == -1)
		goto fail;
	w->started = 1;
	log_debug("read deny watch: %zu paths, %zu directories", w->n, w->cur.dirs.n);
	return w;
fail:
	watch_free(w);
	return NULL;
}

int
watch_fds(struct watch *w, struct pollfd *p, int max)
{
	if (max < 2)
		return 0;
	p[0] = (struct pollfd){ .fd = w->inotify, .events = POLLIN };
	p[1] = (struct pollfd){ .fd = w->mountinfo, .events = POLLPRI };
	return 2;
}

/* Does the event touch a way: a name on it, or a directory of it itself? */
static int
watch_matters(const struct watch *w, const struct inotify_event *ev)
{
	const struct look *l = &w->cur;
	size_t i;

	if (ev->mask & IN_Q_OVERFLOW)
		return 1; /* events were lost: look */
	if (ev->len == 0 || ev->name[0] == '\0') {
		/* Moved, removed, or no longer watched (IN_IGNORED) itself. */
		i = look_lower(l, ev->wd, "");
		return i < l->nnames && l->names[i].wd == ev->wd;
	}
	i = look_lower(l, ev->wd, ev->name);
	return i < l->nnames && l->names[i].wd == ev->wd &&
	    strcmp(l->names[i].name, ev->name) == 0;
}

/* Reads every pending event: does one of them matter? */
static int
watch_drain(struct watch *w)
{
	char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	ssize_t n;
	size_t off;
	int seen = 0;

	while ((n = read(w->inotify, buf, sizeof(buf))) > 0)
		for (off = 0; off + sizeof(*ev) <= (size_t)n; off += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(const void *)(buf + off);
			if (!seen)
				seen = watch_matters(w, ev);
		}
	return seen;
}

int
watch_check(struct watch *w, const struct pollfd *p, int n)
{
	int i, seen = 0;

	for (i = 0; i < n; i++) {
		if (p[i].revents == 0)
			continue;
		if (p[i].fd == w->inotify)
			seen |= watch_drain(w);
		else if (p[i].fd == w->mountinfo)
			seen = 1; /* poll(2) itself took note of the change */
	}
	if (!seen)
		return 0;
	if (watch_refresh(w) == -1)
		return -1;
	return watch_verify(w);
}

void
watch_free(struct watch *w)
{
	size_t i;

	if (w == NULL)
		return;
	fd_close(&w->inotify);
	fd_close(&w->mountinfo);
	look_free(&w->cur, w->n);
	for (i = 0; i < w->n; i++) {
		free(w->e[i].name);
		free(w->e[i].mount);
		free(w->e[i].gone);
		free(w->e[i].made);
	}
	free(w->e);
	free(w);
}
