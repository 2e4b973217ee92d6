/*
 * The bubblewrap filesystem plan (BEHAVIOR §4.1, §4.3; SPEC §5, §7).
 *
 * Order of the arguments, as the reference emits them:
 *   --ro-bind / /            (--bind / / when the filesystem is not restricted)
 *   ancestor pins            (--ro-bind D D, beneath the allow binds)
 *   --bind W W               each allowed write root
 *   read denies              shallowest first: --tmpfs with the write and allowRead paths
 *                            inside it bound back, or --ro-bind /dev/null FILE
 *   write denies             configured, the settings file, then the mandatory denies
 *   re-applied read denies   those a write deny's read-only bind brought back
 *
 * Every path is resolved once (realpath, through a cache): every decision below is taken on
 * the same answer, and what is mounted is the resolved path, so bwrap has no name left to
 * re-resolve differently (no check-then-use race on names).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "gitconfig.h"
#include "glob.h"
#include "log.h"
#include "path.h"
#include "plan.h"
#include "util.h"
#include "wguard.h"

#define DENY_DEPTH_DEFAULT      3
#define MAX_LINKS               40      /* as many as the kernel follows */
#define WALK_MAX_ENTRIES        200000  /* directory entries one mandatory-deny walk reads */
#define GIT_NEST_MAX            64      /* directories of names below a .git/modules */

/* Remounted by bwrap itself (--proc, --dev) or the kernel's own: never pinned or walked. */
static const char *const kernel_dirs[] = { "/proc", "/dev", "/sys" };

#define nitems(a) (sizeof(a) / sizeof((a)[0]))

struct mount {
	char *src, *dest;
};
struct mounts {
	struct mount *v;
	size_t n;
};

/* A read-denied directory: its tmpfs and what was bound back over it. */
struct unit {
	char *landing;
	struct mounts writes, reads;
};

/* One denyRead entry: where its mount lands, if anywhere. */
struct rdeny {
	char *named;            /* the entry, normalised */
	char *given;            /* the entry as a reader spells it: its links kept */
	char *landing;          /* NULL: nothing is mounted for it */
	int isdir, standin, lifted;
	int missing;            /* not there at the start (landing NULL) */
	int internal;           /* the plan's own (ssh's configuration), not the settings' */
	size_t depth, order;
};

enum dkind {
	DK_SELF,                /* --ro-bind P P */
	DK_NULL,                /* --ro-bind /dev/null P: a link that cannot be settled */
};
struct dbind {
	enum dkind kind;
	char *dest, *raw;
};

struct pb {
	const struct settings *s;
	const struct plan_ctx *ctx;
	struct plan_linux *out;
	struct diags *errs;
	int bad;
	struct fsent *fs;               /* what the plan asked of the file system */
	size_t fs_cap, fs_n;            /* fs: open addressing, fs_cap a power of two */
	struct strlist writes;          /* allowed write roots, resolved, in order */
	struct strlist user_roots;      /* those allowWrite named: walked for mandatory denies */
	struct strlist reads;           /* allowRead paths, normalised */
	struct rdeny *rd;
	size_t nrd;
	struct unit *units;
	size_t nunits;
	struct strlist masks;           /* landings of read-deny file masks */
	struct strlist denied;          /* every location the read section hides */
	struct strlist tmpfs_pred;      /* every spelling of a read-deny tmpfs */
	struct strlist denies;          /* write-deny paths, normalised, in order */
	struct dbind *db;
	size_t ndb;
	struct strlist seen;            /* write-deny destinations handled */
	struct strlist deny_why;        /* the reason of each entry of denies */
	size_t npinned;                 /* the first entries of denies, whose way is kept */
	struct strlist symlinked;       /* destinations some deny reaches through a link */
	struct strlist rodirs, rodir_raw; /* existing denied directories bound read-only */
	struct strlist binds, rsec, dsec; /* argument sections, assembled at the end */
	struct strlist git_done;        /* git directories the mandatory denies handled */
	struct strlist git_global_rel;  /* relative core.hooksPath of the global config */
};

/* --- the file system, asked once per path ----------------------------------------------- */

/*
 * Every lstat(2), readlink(2) and realpath the plan needs goes through this cache, so each
 * path is asked of the file system once per plan: every decision below is then taken on
 * one view of it. It is also most of the plan's cost otherwise: realpath(3) and the walks
 * below go name by name from the root, and the mandatory denies alone look up a few dozen
 * names in every writable root, each time again through the same ancestors.
 */
struct fsent {
	char *path;                     /* NULL: a free slot */
	int lerr;                       /* lstat: 0 or its errno */
	struct stat st;
	char *link;                     /* the target when st is a link (NULL: unreadable) */
	int lnerr;                      /* readlink's errno when link is NULL */
	bool have_real;
	char *real;                     /* realpath, or NULL (rerr) */
	int rerr;
};

static size_t
fs_hash(const char *p)
{
	size_t h = 1469598103934665603ULL;

	for (; *p != '\0'; p++)
		h = (h ^ (unsigned char)*p) * 1099511628211ULL;
	return h;
}

static struct fsent *
fs_slot(struct pb *b, const char *p)
{
	size_t i;

	if (b->fs_n + 1 > b->fs_cap / 2) {
		struct fsent *old = b->fs;
		size_t oldcap = b->fs_cap, j;

		b->fs_cap = oldcap == 0 ? 256 : oldcap * 2;
		b->fs = xcalloc(b->fs_cap, sizeof(*b->fs));
		for (j = 0; j < oldcap; j++)
			if (old[j].path != NULL) {
				for (i = fs_hash(old[j].path) & (b->fs_cap - 1);
				    b->fs[i].path != NULL; i = (i + 1) & (b->fs_cap - 1))
					;
				b->fs[i] = old[j];
			}
		free(old);
	}
	for (i = fs_hash(p) & (b->fs_cap - 1); b->fs[i].path != NULL;
	    i = (i + 1) & (b->fs_cap - 1))
		if (strcmp(b->fs[i].path, p) == 0)
			return &b->fs[i];
	b->fs[i].path = xstrdup(p);
	b->fs[i].lerr = -1;             /* not asked yet */
	b->fs_n++;
	return &b->fs[i];
}

static void
fs_free(struct pb *b)
{
	size_t i;

	for (i = 0; i < b->fs_cap; i++)
		if (b->fs[i].path != NULL) {
			free(b->fs[i].path);
			free(b->fs[i].link);
			free(b->fs[i].real);
		}
	free(b->fs);
	b->fs = NULL;
	b->fs_cap = b->fs_n = 0;
}

/* lstat(2) of p, once. */
static const struct fsent *
fs_look(struct pb *b, const char *p)
{
	struct fsent *e = fs_slot(b, p);
	char target[PATH_MAX + 1];
	ssize_t n;

	if (e->lerr != -1)
		return e;
	e->lerr = lstat(p, &e->st) == -1 ? errno : 0;
	if (e->lerr == 0 && S_ISLNK(e->st.st_mode)) {
		/* A target that fills the buffer may be cut short: not settled. */
		if ((n = readlink(p, target, sizeof(target))) == -1 ||
		    (size_t)n >= sizeof(target))
			e->lnerr = n == -1 ? errno : ENAMETOOLONG;
		else
			e->link = xstrndup(target, (size_t)n);
	}
	return e;
}

static int
fs_lstat(struct pb *b, const char *p, struct stat *st)
{
	const struct fsent *e = fs_look(b, p);

	if (e->lerr != 0) {
		errno = e->lerr;
		return -1;
	}
	*st = e->st;
	return 0;
}

/* The target of the link p, or NULL with errno (EINVAL: not a link). */
static const char *
fs_link(struct pb *b, const char *p)
{
	const struct fsent *e = fs_look(b, p);

	if (e->lerr != 0)
		errno = e->lerr;
	else if (!S_ISLNK(e->st.st_mode))
		errno = EINVAL;
	else if (e->link == NULL)
		errno = e->lnerr;
	return e->lerr == 0 ? e->link : NULL;
}

/*
 * realpath(3) of an absolute path through the cache: the same answer and the same errno.
 * Names are taken one by one, ".." goes up from what was resolved so far, and a link's
 * target takes the place of its name (from the root when absolute), at most MAX_LINKS in
 * all. A name followed by a slash must be a directory.
 */
static char *
fs_realpath(struct pb *b, const char *path)
{
	char out[PATH_MAX], rest[2 * PATH_MAX + 2], cand[PATH_MAX];
	size_t olen = 0, rlen;
	int links = 0;

	if (path[0] != '/')
		return path_resolve(path);
	if ((rlen = strlen(path)) >= sizeof(rest)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	memcpy(rest, path, rlen + 1);
	out[0] = '\0';
	for (;;) {
		const struct fsent *e;
		char *name = rest, *end;
		size_t nlen;
		bool slash;

		while (*name == '/')
			name++;
		if (*name == '\0')
			break;
		end = strchr(name, '/');
		nlen = end != NULL ? (size_t)(end - name) : strlen(name);
		slash = end != NULL;
		if (nlen == 1 && name[0] == '.') {
			memmove(rest, name + nlen, strlen(name + nlen) + 1);
			continue;
		}
		if (nlen == 2 && name[0] == '.' && name[1] == '.') {
			char *up = strrchr(out, '/');

			if (up != NULL) {
				*up = '\0';
				olen = (size_t)(up - out);
			}
			memmove(rest, name + nlen, strlen(name + nlen) + 1);
			continue;
		}
		if (olen + 1 + nlen >= sizeof(cand)) {
			errno = ENAMETOOLONG;
			return NULL;
		}
		memcpy(cand, out, olen);
		cand[olen] = '/';
		memcpy(cand + olen + 1, name, nlen);
		cand[olen + 1 + nlen] = '\0';
		memmove(rest, name + nlen, strlen(name + nlen) + 1);
		e = fs_look(b, cand);
		if (e->lerr != 0) {
			errno = e->lerr;
			return NULL;
		}
		if (S_ISLNK(e->st.st_mode)) {
			size_t tlen, left = strlen(rest);

			if (++links > MAX_LINKS) {
				errno = ELOOP;
				return NULL;
			}
			if (e->link == NULL) {
				errno = e->lnerr;
				return NULL;
			}
			tlen = strlen(e->link);
			if (tlen + 1 + left >= sizeof(rest)) {
				errno = ENAMETOOLONG;
				return NULL;
			}
			/* rest becomes target + "/" + what was left after the name */
			memmove(rest + tlen + 1, rest, left + 1);
			memcpy(rest, e->link, tlen);
			rest[tlen] = '/';
			if (left == 0 && !slash)
				rest[tlen] = '\0';
			if (e->link[0] == '/') {
				out[0] = '\0';
				olen = 0;
			}
			continue;
		}
		if (slash && !S_ISDIR(e->st.st_mode)) {
			errno = ENOTDIR;
			return NULL;
		}
		memcpy(out, cand, olen + 1 + nlen + 1);
		olen += 1 + nlen;
	}
	return xstrdup(olen == 0 ? "/" : out);
}

/* stat(2) through the cache: the links followed, then the lstat of where they lead. */
static int
fs_stat(struct pb *b, const char *p, struct stat *st)
{
	char *r = fs_realpath(b, p);
	int rc;

	if (r == NULL)
		return -1;
	rc = fs_lstat(b, r, st);
	free(r);
	return rc;
}

/* p with every link resolved, or NULL; asked of the file system once per plan. */
static const char *
canon(struct pb *b, const char *p)
{
	struct fsent *e = fs_slot(b, p);

	if (!e->have_real) {
		char *r = fs_realpath(b, p);

		if (r == NULL && errno == ENOMEM)
			fatalx("out of memory");
		/* fs_realpath may have grown the table: find the entry again. */
		e = fs_slot(b, p);
		e->have_real = true;
		e->real = r;
		e->rerr = r == NULL ? errno : 0;
	}
	return e->real;
}

static const char *
canon_or(struct pb *b, const char *p)
{
	const char *c = canon(b, p);

	return c != NULL ? c : p;
}

/*
 * The reference's test of whether following links from orig to res widens the scope: a
 * result at the root or one level below it, an ancestor of orig, or anywhere outside the
 * tree below orig.
 */
static int
outside_boundary(const char *orig, const char *res)
{
	if (strcmp(orig, res) == 0)
		return 0;
	if (path_depth(res) <= 1)
		return 1;
	if (path_is_strictly_under(orig, res))
		return 1;
	return !path_is_strictly_under(res, orig);
}

/* An absolute spelling resolved unless that widens it, ".." folded when it cannot be. */
static char *
normalize(struct pb *b, const char *abs)
{
	const char *r = canon(b, abs);
	char *folded = path_normalize(abs);

	if (r != NULL && !outside_boundary(folded, r)) {
		free(folded);
		return xstrdup(r);
	}
	return folded;
}

/* Where the name p lives: its directory resolved, its last component as written. */
static char *
name_location(struct pb *b, const char *p)
{
	char *dir, *out;

	if (strcmp(p, "/") == 0)
		return xstrdup("/");
	dir = path_dirname(p);
	out = path_join(canon_or(b, dir), path_basename(p));
	free(dir);
	return out;
}

static int
absence_errno(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG;
}

static int
exists(struct pb *b, const char *p)
{
	struct stat st;

	return fs_stat(b, p, &st) == 0;
}

static int
is_kernel_dir(const char *p)
{
	size_t i;

	for (i = 0; i < nitems(kernel_dirs); i++)
		if (path_is_under(p, kernel_dirs[i]))
			return 1;
	return 0;
}

static void
split_names(const char *p, struct strlist *out)
{
	while (*p != '\0') {
		const char *q = strchr(p, '/');
		size_t n = q != NULL ? (size_t)(q - p) : strlen(p);

		strlist_push_owned(out, xstrndup(p, n));
		p += n;
		if (*p == '/')
			p++;
	}
}

/*
 * The kernel's way to an absolute path, name by name, every link followed. *real is as far
 * as it leads ("" the root); rest holds the names not come to, the first of which is not
 * there (*err ENOENT/ENOTDIR) or may not be looked for (*err EACCES). -1 for any other
 * failure, a loop of links among them.
 */
static int
way_to(struct pb *b, const char *path, char **realp, struct strlist *rest, int *err)
{
	struct strlist stack = { 0 }, names = { 0 };
	char *real = xstrdup(""), *name, *next;
	const char *target;
	struct stat st;
	int links = 0, rc = -1;
	size_t i;

	*err = 0;
	split_names(path, &names);
	for (i = names.n; i > 0; i--)
		strlist_push(&stack, names.v[i - 1]);
	while (stack.n > 0) {
		name = stack.v[--stack.n];
		stack.v[stack.n] = NULL;
		if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			next = xasprintf("%s/.", real);
			if (fs_lstat(b, next, &st) == -1) {
				free(next);
				if (errno != EACCES) {
					free(name);
					goto out;
				}
				*err = EACCES;
				goto stop;
			}
			free(next);
			if (strcmp(name, "..") == 0 && strrchr(real, '/') != NULL)
				*strrchr(real, '/') = '\0';
			free(name);
			continue;
		}
		next = xasprintf("%s/%s", real, name);
		if (fs_lstat(b, next, &st) == -1) {
			int e = errno;

			free(next);
			if (e != ENOENT && e != ENOTDIR && e != EACCES) {
				free(name);
				goto out;
			}
			*err = e;
			goto stop;
		}
		if (!S_ISLNK(st.st_mode)) {
			free(real);
			real = next;
			free(name);
			continue;
		}
		if (++links > MAX_LINKS || (target = fs_link(b, next)) == NULL) {
			free(next);
			free(name);
			goto out;
		}
		free(next);
		free(name);
		if (target[0] == '/')
			*real = '\0';
		strlist_free(&names);
		split_names(target[0] == '/' ? target + 1 : target, &names);
		for (i = names.n; i > 0; i--)
			strlist_push(&stack, names.v[i - 1]);
	}
	rc = 0;
	goto out;
 stop:
	strlist_push_owned(rest, name);
	while (stack.n > 0) {
		strlist_push_owned(rest, stack.v[--stack.n]);
		stack.v[stack.n] = NULL;
	}
	rc = 0;
 out:
	strlist_free(&stack);
	strlist_free(&names);
	if (rc == 0)
		*realp = real;
	else
		free(real);
	return rc;
}

/*
 * Where a write to the deny path really lands (resolve before masking): its real path when
 * it exists, else its deepest resolvable ancestor with the missing names re-joined. A
 * dangling link on the way is followed to the first name that is not there; the answer ends
 * with that name and the one after it, so the placeholder on the first missing component is
 * a directory that keeps the whole way from being made. A way that climbs out of the missing
 * name at once ("missing/..") adds that name to also (when given) and is followed on.
 * NULL when it cannot be settled (a loop of links): callers fail closed.
 */
static char *
resolve_deny(struct pb *b, const char *raw, struct strlist *also)
{
	struct strlist remainder = { 0 }, rest = { 0 }, names = { 0 };
	char *ancestor, *parent, *rejoined = NULL, *onward = NULL, *first, *real;
	char *answer = NULL;
	const char *resolved = canon(b, raw);
	size_t i, j;
	int err;

	if (resolved != NULL)
		return xstrdup(resolved);
	ancestor = xstrdup(raw);
	for (;;) {
		parent = path_dirname(ancestor);
		if (strcmp(parent, ancestor) == 0) {
			free(parent);
			free(ancestor);
			goto out;
		}
		strlist_push(&remainder, path_basename(ancestor));
		free(ancestor);
		ancestor = parent;
		if ((resolved = canon(b, ancestor)) != NULL)
			break;
	}
	free(ancestor);
	rejoined = xstrdup(resolved);
	for (i = remainder.n; i > 0; i--) {
		char *t = path_join(rejoined, remainder.v[i - 1]);

		free(rejoined);
		rejoined = t;
	}
	first = path_join(resolved, remainder.v[remainder.n - 1]);
	if (fs_link(b, first) == NULL) {
		free(first);
		answer = rejoined;
		rejoined = NULL;
		goto out;
	}
	free(first);
	onward = xstrdup(rejoined);
	for (i = 0; i < MAX_LINKS; i++) {
		strlist_free(&rest);
		strlist_free(&names);
		if (way_to(b, onward, &real, &rest, &err) == -1)
			break;
		if (err == EACCES) {
			answer = *real != '\0' ? real : xstrdup("/");
			if (*real == '\0')
				free(real);
			goto out;
		}
		for (j = 0; j < rest.n; j++)
			if (*rest.v[j] != '\0' && strcmp(rest.v[j], ".") != 0)
				strlist_push(&names, rest.v[j]);
		if (names.n < 2 || strcmp(names.v[1], "..") != 0) {
			answer = real;
			for (j = 0; j < names.n && j < 2; j++) {
				char *t = xasprintf("%s/%s", answer, names.v[j]);

				free(answer);
				answer = t;
			}
			if (*answer == '\0') {
				free(answer);
				answer = xstrdup("/");
			}
			goto out;
		}
		if (also != NULL) {
			char *more = xasprintf("%s/%s", real, names.v[0]);

			if (strlist_contains(also, more))
				free(more);
			else
				strlist_push_owned(also, more);
		}
		free(onward);
		onward = real;
		for (j = 2; j < names.n; j++) {
			char *t = xasprintf("%s/%s", onward, names.v[j]);

			free(onward);
			onward = t;
		}
		if (*onward == '\0') {
			free(onward);
			onward = xstrdup("/");
		}
	}
	if (also == NULL)
		log_debug("where a write to %s would land cannot be settled; masking the "
		    "link on the way instead", raw);
 out:
	free(rejoined);
	free(onward);
	strlist_free(&remainder);
	strlist_free(&rest);
	strlist_free(&names);
	return answer;
}

/* --- write roots --------------------------------------------------------------------- */

static int
within_write(struct pb *b, const char *p)
{
	size_t i;

	for (i = 0; i < b->writes.n; i++)
		if (path_is_under(p, b->writes.v[i]))
			return 1;
	return 0;
}

/* p lies in a write root, or holds one (whose --bind a read-only bind of p then covers). */
static int
meets_write(struct pb *b, const char *p)
{
	size_t i;

	if (within_write(b, p))
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

	split_names(target, &names);
	for (i = 0; i < names.n; i++) {
		if (*names.v[i] == '\0')
			continue;
		next = xasprintf("%s/%s", cur, names.v[i]);
		if (fs_lstat(b, next, &st) == -1) {
			free(next);
			break;
		}
		if (S_ISLNK(st.st_mode) && within_write(b, next)) {
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

static char *
strip_globstar_suffix(const char *p)
{
	size_t n = strlen(p);

	if (n >= 3 && strcmp(p + n - 3, "/**") == 0)
		return n == 3 ? xstrdup("/") : xstrndup(p, n - 3);
	return xstrdup(p);
}

/*
 * The plain absolute paths of one list: a trailing globstar component stripped, other
 * globs expanded against the disk (SPEC §5), each match then taken like a plain entry. A
 * glob that is also the name of something on disk is taken as that name too, as the
 * reference does. Literal entries are names, whatever they hold.
 */
static void
expand_list(struct pb *b, const struct path_list *l, const char *what, int deny,
    struct strlist *out)
{
	const char *home = b->ctx->home, *cwd = b->ctx->cwd;
	struct stat st;
	size_t i;

	for (i = 0; i < l->n; i++) {
		const struct path_entry *e = &l->v[i];
		char *spelled, *abs;
		int r;

		spelled = e->literal ? xstrdup(e->path) : strip_globstar_suffix(e->path);
		if ((abs = path_absolute(spelled, home, cwd)) == NULL) {
			/* An allow that names nothing grants nothing; a deny must not vanish. */
			if (deny) {
				diags_add(b->errs, "filesystem.%s[%zu]: \"%s\" cannot be made "
				    "absolute (no home directory or working directory)",
				    what, i, e->path);
				b->bad = 1;
			}
			free(spelled);
			continue;
		}
		if (e->literal || !glob_has_magic(spelled)) {
			strlist_push_owned(out, abs);
			free(spelled);
			continue;
		}
		if (fs_lstat(b, abs, &st) == 0)
			strlist_push(out, abs);
		r = glob_expand(abs, out);
		if (r == 1 && deny) {
			diags_add(b->errs, "filesystem.%s[%zu]: \"%s\" matches too many paths to "
			    "expand (limit %d entries, %d matches); deny a directory instead",
			    what, i, e->path, GLOB_MAX_ENTRIES, GLOB_MAX_MATCHES);
			b->bad = 1;
		} else if (r == 1)
			log_warnx("filesystem.%s[%zu]: \"%s\": expansion stopped at its limit",
			    what, i, e->path);
		free(abs);
		free(spelled);
	}
}

/* --- write allows -------------------------------------------------------------------- */

/* Whether a denyRead entry covers p (the home convenience directories are left out then). */
static int
read_rule_covers(struct pb *b, const struct path_entry *e, const char *p)
{
	char *spelled, *abs, *n;
	int hit = 0;

	spelled = e->literal ? xstrdup(e->path) : strip_globstar_suffix(e->path);
	abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd);
	if (abs == NULL)
		goto out;
	if (!e->literal && glob_has_magic(spelled)) {
		/* The glob covers p when it matches p or a directory above it. */
		char *cur = xstrdup(p);

		for (;;) {
			char *up;

			if (glob_match_path(abs, cur)) {
				hit = 1;
				break;
			}
			if (strcmp(cur, "/") == 0)
				break;
			up = path_dirname(cur);
			free(cur);
			cur = up;
		}
		free(cur);
	} else {
		n = normalize(b, abs);
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
	size_t i, j;

	for (i = 0; i < deny->n; i++) {
		int reopened = 0;

		if (!read_rule_covers(b, &deny->v[i], p))
			continue;
		for (j = 0; j < allow->n && !reopened; j++) {
			const struct path_entry *a = &allow->v[j];
			char *spelled = a->literal ? xstrdup(a->path) :
			    strip_globstar_suffix(a->path);
			char *abs, *n;

			if (!a->literal && glob_has_magic(spelled)) {
				free(spelled);
				continue;
			}
			abs = path_absolute(spelled, b->ctx->home, b->ctx->cwd);
			free(spelled);
			if (abs == NULL)
				continue;
			n = normalize(b, abs);
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
	char *n = normalize(b, abs);

	/* bwrap's --dev /dev replaces that tree; a bind there would fight it. */
	if (strncmp(n, "/dev/", 5) == 0 || !exists(b, n))
		goto skip;
	/* bwrap follows links: a link here would widen the grant to where it points. */
	if ((r = canon(b, n)) == NULL ||
	    (strcmp(r, n) != 0 && outside_boundary(n, r)))
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
	log_debug("write path %s: skipped (missing, under /dev, or a link out)", abs);
	free(n);
}

static void
plan_writes(struct pb *b)
{
	struct strlist user = { 0 };
	char *npm;
	size_t i;

	/* The sandbox's own TMPDIR replaces the reference's /tmp/claude. */
	if (b->ctx->tmpdir != NULL && *b->ctx->tmpdir == '/')
		add_write(b, b->ctx->tmpdir, 0);
	if (b->ctx->home != NULL && *b->ctx->home == '/') {
		npm = path_join(b->ctx->home, ".npm/_logs");
		if (!home_dir_read_denied(b, npm))
			add_write(b, npm, 0);
		free(npm);
	}
	expand_list(b, &b->s->fs.allow_write, "allowWrite", 0, &user);
	for (i = 0; i < user.n; i++)
		add_write(b, user.v[i], 1);
	strlist_free(&user);
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

/* A "/" entry stands for the root's children: a tmpfs on / would wipe every mount. */
static void
expand_root_deny(struct pb *b, struct strlist *entries)
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
		if (is_kernel_dir(child)) {
			free(child);
			continue;
		}
		for (i = 0; i < b->reads.n && !covered; i++) {
			char *loc = name_location(b, b->reads.v[i]);

			covered = path_is_under(canon_or(b, child), loc);
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

static void
plan_read_entries(struct pb *b)
{
	struct strlist raw = { 0 }, entries = { 0 }, given = { 0 };
	size_t i, j, nuser;

	expand_list(b, &b->s->fs.allow_read, "allowRead", 0, &raw);
	for (i = 0; i < raw.n; i++)
		strlist_push_owned(&b->reads, normalize(b, raw.v[i]));
	strlist_free(&raw);

	expand_list(b, &b->s->fs.deny_read, "denyRead", 1, &raw);
	for (i = 0; i < raw.n; i++) {
		char *n = normalize(b, raw.v[i]), *g;

		if (strcmp(n, "/") == 0) {
			j = entries.n;
			expand_root_deny(b, &entries);
			for (; j < entries.n; j++)
				strlist_push(&given, entries.v[j]);
		} else {
			strlist_push(&entries, n);
			g = given_spelling(raw.v[i]);
			strlist_push(&given, g != NULL ? g : n);
			free(g);
		}
		free(n);
	}
	strlist_free(&raw);
	nuser = entries.n;
	/* ssh refuses configs whose owner looks wrong inside a user namespace. */
	if (exists(b, "/etc/ssh/ssh_config.d")) {
		strlist_push(&entries, "/etc/ssh/ssh_config.d");
		strlist_push(&given, "/etc/ssh/ssh_config.d");
	}

	b->rd = xcalloc(entries.n, sizeof(*b->rd));
	for (i = 0; i < entries.n; i++) {
		struct rdeny *r = &b->rd[b->nrd];
		char *cand = xstrdup(entries.v[i]), *up;
		struct stat st;
		const char *landing;

		r->named = xstrdup(entries.v[i]);
		r->given = xstrdup(given.v[i]);
		r->internal = i >= nuser;
		r->order = i;
		r->depth = path_depth(canon_or(b, r->named));
		b->nrd++;
		/*
		 * What cannot be inspected is stood in for by the nearest directory above it
		 * that can: a parent made unsearchable must not switch the deny off.
		 */
		for (;;) {
			if (strcmp(cand, "/") == 0 && strcmp(cand, r->named) != 0)
				break;
			if (fs_stat(b, cand, &st) == 0) {
				r->isdir = S_ISDIR(st.st_mode);
				r->standin = strcmp(cand, r->named) != 0;
				landing = canon_or(b, cand);
				if (strcmp(landing, "/") != 0)
					r->landing = xstrdup(landing);
				else {
					/* A link to "/": what holds the link stands in. */
					char *dir = path_dirname(cand);

					landing = canon_or(b, dir);
					free(dir);
					if (strcmp(landing, "/") != 0) {
						r->landing = xstrdup(landing);
						r->isdir = r->standin = 1;
					}
				}
				break;
			}
			if (absence_errno(errno)) {
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
		if (r->landing != NULL && !r->isdir) {
			for (j = 0; j < b->reads.n && !r->lifted; j++) {
				char *loc = name_location(b, b->reads.v[j]);

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
			const char *c = canon_or(b, r->named);

			strlist_push(&b->tmpfs_pred, r->landing);
			if (strcmp(r->named, "/") != 0)
				strlist_push(&b->tmpfs_pred, r->named);
			if (strcmp(c, "/") != 0)
				strlist_push(&b->tmpfs_pred, c);
		}
	}
}

/* Is location beneath a read-deny tmpfs and not bound back since (bwrap: last mount wins)? */
static int
hidden_by_tmpfs(struct pb *b, const char *loc, int with_reads)
{
	int hidden = 0;
	size_t i, j;

	for (i = 0; i < b->nunits; i++) {
		struct unit *u = &b->units[i];

		if (path_is_under(loc, u->landing))
			hidden = 1;
		for (j = 0; j < u->writes.n; j++)
			if (path_is_under(loc, u->writes.v[j].dest))
				hidden = 0;
		for (j = 0; with_reads && j < u->reads.n; j++)
			if (path_is_under(loc, u->reads.v[j].dest))
				hidden = 0;
	}
	return hidden;
}

static void
mounts_add(struct mounts *m, const char *src, const char *dest)
{
	m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
	m->v[m->n].src = xstrdup(src);
	m->v[m->n].dest = xstrdup(dest);
	m->n++;
}

/*
 * How p goes back over the tmpfs at landing, if it is a carve-out of it: its name and what
 * it resolves to both inside. Bound at the name, from the resolved source, so bwrap has
 * nothing left to re-resolve; a link planted at an allowed path pointing at something the
 * read section denies elsewhere restores nothing.
 */
static int
restore_placement(struct pb *b, const char *p, const char *landing, char **src,
    char **dest)
{
	const char *source;
	size_t i;

	*dest = name_location(b, p);
	if (!path_is_under(*dest, landing) || (source = canon(b, p)) == NULL ||
	    !path_is_under(source, landing))
		goto no;
	if (strcmp(source, *dest) != 0) {
		for (i = 0; i < b->denied.n; i++) {
			const char *d = b->denied.v[i];

			if (!path_is_under(landing, d) && (path_is_under(d, source) ||
			    path_is_under(source, d)))
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

static void
plan_read_section(struct pb *b)
{
	size_t i, j, k;

	b->units = xcalloc(b->nrd, sizeof(*b->units));
	for (i = 0; i < b->nrd; i++) {
		struct rdeny *r = &b->rd[i];
		struct unit *u;
		char *src, *dest;

		if (r->landing == NULL)
			continue;
		/* One mount per place: inside an earlier tmpfs it would change nothing. */
		if (hidden_by_tmpfs(b, r->landing, 1))
			continue;
		if (!r->isdir) {
			if (r->lifted || strlist_contains(&b->masks, r->landing))
				continue;
			strlist_push(&b->masks, r->landing);
			push3(&b->rsec, "--ro-bind", "/dev/null", r->landing);
			continue;
		}
		u = &b->units[b->nunits++];
		u->landing = xstrdup(r->landing);
		strlist_push(&b->rsec, "--tmpfs");
		strlist_push(&b->rsec, r->landing);
		/* A stand-in hides what could not be vouched for: nothing comes back. */
		if (r->standin)
			continue;
		for (j = 0; j < b->writes.n; j++) {
			if (!restore_placement(b, b->writes.v[j], r->landing, &src, &dest))
				continue;
			push3(&b->rsec, "--bind", src, dest);
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
				push3(&b->rsec, "--ro-bind", src, dest);
				mounts_add(&u->reads, src, dest);
			}
			free(src);
			free(dest);
		}
	}
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
		abs = link[0] == '/' ? path_normalize(link) :
		    path_expand(link, NULL, "/sys/class/net");
		if (abs == NULL)
			continue;
		dir = path_dirname(abs);
		free(abs);
		if (path_is_strictly_under(dir, "/sys/devices") && !strlist_contains(&dirs, dir))
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

/* --- mandatory denies ---------------------------------------------------------------- */

/* The entry of wguard_names a file or directory name found at level is, or NULL. */
static const struct wguard_name *
dangerous_at(int depth, const char *name, int isdir, int level)
{
	size_t i;

	for (i = 0; i < wguard_nnames; i++) {
		const struct wguard_name *n = &wguard_names[i];

		if (strchr(n->name, '/') != NULL || strcasecmp(name, n->name) != 0)
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
	size_t entries;
	int truncated;
	struct strlist *out;
};

/* One more directory entry read; 0 once the walk's budget is spent. */
static int
mwalk_count(struct mwalk *w)
{
	if (w->truncated)
		return 0;
	if (++w->entries > WALK_MAX_ENTRIES) {
		w->truncated = 1;
		return 0;
	}
	return 1;
}

/* The entry name of directory d is a directory (links are not: none is followed). */
static int
entry_is_dir(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_DIR;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode);
}

static int
entry_is_regular(DIR *d, const struct dirent *de)
{
	struct stat st;

	if (de->d_type != DT_UNKNOWN)
		return de->d_type == DT_REG;
	return fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISREG(st.st_mode);
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
	GIT_TOP,        /* the cwd's .git: its hooks are denied even before there is a HEAD */
	GIT_FOUND,      /* a .git the walk found: a repository if it has a HEAD or hooks */
	GIT_MODULE,     /* an entry of modules/: a git directory if it has a HEAD, hooks or
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
		return b->ctx->home != NULL && *b->ctx->home == '/' ?
		    path_expand(v, b->ctx->home, NULL) : NULL;
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
		    "are taken from the lines before it", shown, c->error_line);
	else if (errno == EINVAL)
		log_warnx("%s: not a regular file; not read for core.hooksPath", shown);
	else
		log_warn("%s: cannot read it for core.hooksPath", shown);
}

#define GIT_INCLUDE_DEPTH       10      /* git's own limit on nested includes */

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
	    strcasecmp(v, "yes") == 0 || strcasecmp(v, "no") == 0 ||
	    strcmp(v, "1") == 0 || strcmp(v, "0") == 0 || *v == '\0')
		return NULL;
	n = strcspn(v, " \t");
	word = xstrndup(v, n);
	/* A bare name is looked up in PATH: not the work tree's to change. */
	p = strchr(word, '/') != NULL || *word == '~' ? git_path(b, word, base) : NULL;
	free(word);
	return p;
}

/*
 * The denies a parsed configuration adds, and those of the files it includes, read in
 * turn (to git's depth of 10): its core.hooksPath (relative: against the work tree, as
 * git resolves it for a repository that is not bare) and the hooks there that are links,
 * the relative hooksPath of the global configuration for this work tree, its
 * core.fsmonitor program, its init.templateDir (copied into every repository made
 * later), and its included files (relative: against the file's own directory), which
 * the command must not be able to rewrite or create.
 */
static void
git_config_denies_at(struct mwalk *w, const struct gitconfig *c, const char *worktree,
    const char *filedir, int globals, int depth)
{
	struct pb *b = w->b;
	struct gitconfig inc;
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
		if (depth < GIT_INCLUDE_DEPTH) {
			gitconfig_init(&inc);
			git_config_load(AT_FDCWD, p, p, &inc);
			dir = path_dirname(p);
			git_config_denies_at(w, &inc, worktree, dir, 0, depth + 1);
			free(dir);
			gitconfig_free(&inc);
		}
		git_push(w, p);
	}
}

static void
git_config_denies(struct mwalk *w, const struct gitconfig *c, const char *worktree,
    const char *filedir, int globals)
{
	git_config_denies_at(w, c, worktree, filedir, globals, 0);
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

static int git_protect(struct mwalk *, int, const char *, const char *, const char *,
    enum gitkind, int);

/* modules/ of a git directory: every git directory below it, nested or with "/" names. */
static void
git_modules(struct mwalk *w, int pfd, const char *name, const char *dir, int level)
{
	struct dirent *de;
	char *child;
	DIR *d;

	if (level > GIT_NEST_MAX) {
		log_warnx("%s: submodules nested deeper than %d levels are not searched",
		    dir, GIT_NEST_MAX);
		return;
	}
	if ((d = opendir_at(pfd, name)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && mwalk_count(w)) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    !entry_is_dir(d, de))
			continue;
		child = path_join(dir, de->d_name);
		if (!git_protect(w, dirfd(d), de->d_name, child, NULL, GIT_MODULE, level))
			git_modules(w, dirfd(d), de->d_name, child, level + 1);
		free(child);
	}
	closedir(d);
}

/* worktrees/ of a git directory: each linked worktree's own files. */
static void
git_worktrees(struct mwalk *w, int pfd, const char *name, const char *dir, int wtconfig)
{
	struct gitconfig c;
	struct gitnames g;
	struct dirent *de;
	char *admin, *shown, *ptr, *wt;
	DIR *d;
	int afd;

	if ((d = opendir_at(pfd, name)) == NULL)
		return;
	while ((de = readdir(d)) != NULL && mwalk_count(w)) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 ||
		    !entry_is_dir(d, de))
			continue;
		afd = openat(dirfd(d), de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (afd == -1)
			continue;
		admin = path_join(dir, de->d_name);
		gitnames_scan(w, afd, &g);
		/* Rewritten, commondir would send that worktree's git to other hooks. */
		if (g.commondir != NULL)
			git_push(w, path_join(admin, g.commondir));
		if (!w->b->s->fs.allow_git_config && (g.config_wt != NULL || wtconfig))
			git_push(w, path_join(admin,
			    g.config_wt != NULL ? g.config_wt : "config.worktree"));
		if (g.config_wt != NULL) {
			/* The worktree's root: where its .git file is, as gitdir says. */
			wt = NULL;
			if ((ptr = read_line_at(afd, "gitdir")) != NULL && *ptr == '/')
				wt = path_dirname(ptr);
			free(ptr);
			gitconfig_init(&c);
			shown = path_join(admin, g.config_wt);
			git_config_load(afd, g.config_wt, shown, &c);
			git_config_denies(w, &c, wt, admin, 1);
			gitconfig_free(&c);
			free(shown);
			free(wt);
		}
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
	int allow = b->s->fs.allow_git_config, fd, repo;
	struct gitconfig c, cw;
	struct gitnames g;
	char *wt = NULL, *shown;

	if (strlist_contains(&b->git_done, gitdir))
		return 1;
	/* The cwd's .git is followed when it is a link, as stat(2) follows it. */
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC |
	    (kind == GIT_TOP ? 0 : O_NOFOLLOW));
	if (fd == -1)
		return 0;
	gitnames_scan(w, fd, &g);
	repo = g.head != NULL || g.hooks != NULL;
	if (kind == GIT_MODULE && !repo && g.config == NULL) {
		gitnames_free(&g);
		close(fd);
		return 0;
	}
	strlist_push(&b->git_done, gitdir);
	/* A repository is known by its HEAD: its hooks are denied before there are any,
	 * and where a hook is a link, what it leads to. */
	if (repo || kind == GIT_TOP) {
		char *hooks = path_join(gitdir, g.hooks != NULL ? g.hooks : "hooks");

		if (g.hooks != NULL)
			git_hook_links(w, hooks);
		git_push(w, hooks);
	}
	if ((g.config != NULL || kind == GIT_TOP) && !allow)
		git_push(w, path_join(gitdir, g.config != NULL ? g.config : "config"));
	gitconfig_init(&c);
	gitconfig_init(&cw);
	if (g.config != NULL) {
		shown = path_join(gitdir, g.config);
		git_config_load(fd, g.config, shown, &c);
		free(shown);
	}
	/* Read even without extensions.worktreeConfig: protecting more is harmless. */
	if (g.config_wt != NULL) {
		shown = path_join(gitdir, g.config_wt);
		git_config_load(fd, g.config_wt, shown, &cw);
		free(shown);
	}
	if (!allow && (g.config_wt != NULL || c.worktree_config == 1))
		git_push(w, path_join(gitdir,
		    g.config_wt != NULL ? g.config_wt : "config.worktree"));
	/* core.worktree (relative to the git directory) overrides where the tree is. */
	if (cw.worktree != NULL || c.worktree != NULL)
		wt = git_path(b, cw.worktree != NULL ? cw.worktree : c.worktree, gitdir);
	else if (worktree != NULL)
		wt = xstrdup(worktree);
	git_config_denies(w, &c, wt, gitdir, 1);
	git_config_denies(w, &cw, wt, gitdir, 0);
	if (g.modules != NULL) {
		shown = path_join(gitdir, g.modules);
		git_modules(w, fd, g.modules, shown, level + 1);
		free(shown);
	}
	if (g.worktrees != NULL) {
		shown = path_join(gitdir, g.worktrees);
		git_worktrees(w, fd, g.worktrees, shown, c.worktree_config == 1);
		free(shown);
	}
	gitconfig_free(&c);
	gitconfig_free(&cw);
	gitnames_free(&g);
	free(wt);
	close(fd);
	return 1;
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
	const char *r = canon(b, p);
	struct stat st;
	char *loc;
	int w;

	if (r != NULL)
		return within_write(b, r);
	if (fs_lstat(b, p, &st) == 0 && S_ISLNK(st.st_mode))
		return 1;
	loc = name_location(b, p);
	w = within_write(b, loc);
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
		if (c.hooks_path != NULL && *c.hooks_path != '\0' &&
		    *c.hooks_path != '/' && *c.hooks_path != '~')
			strlist_push(&b->git_global_rel, c.hooks_path);
		/* The rest as for any configuration, with no work tree known: an absolute
		 * hooksPath, fsmonitor, templateDir, and the includes, read in turn. */
		dir = path_dirname(files.v[i]);
		git_config_denies_at(&w, &c, NULL, dir, 0, 0);
		free(dir);
		gitconfig_free(&c);
	}
	strlist_free(&files);
}

/* --- the walk ------------------------------------------------------------------------- */

static void
mwalk_dir(struct mwalk *w, int fd, const char *path, int level)
{
	struct dirent *de;
	DIR *d;
	size_t i;

	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		const char *name = de->d_name;
		int isdir, cfd;
		char *child, *sub = NULL;

		if (strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
			continue;
		if (!mwalk_count(w))
			break;
		child = path_join(path, name);
		if (level == 0 && is_kernel_dir(child)) {
			free(child);
			continue;
		}
		isdir = entry_is_dir(d, de);
		/* A dangerous name by the depth rule (wguard.c has the table). */
		if (dangerous_at(w->depth, name, isdir, level) != NULL)
			strlist_push(w->out, child);
		/* A two-part name ("X/Y"): Y looked for in a directory X at its level. */
		for (i = 0; isdir && i < wguard_nnames; i++) {
			const struct wguard_name *n = &wguard_names[i];
			const char *slash = strchr(n->name, '/');

			if (slash == NULL || strncasecmp(name, n->name, (size_t)(slash - n->name)) != 0 ||
			    name[slash - n->name] != '\0' || level > w->depth - 2)
				continue;
			if ((sub = find_ci(dirfd(d), name, slash + 1)) != NULL)
				strlist_push_owned(w->out, xasprintf("%s/%s", child, sub));
			free(sub);
		}
		if (level <= w->depth - 2 && isdir && strcasecmp(name, ".git") == 0)
			git_protect(w, dirfd(d), name, child, path, GIT_FOUND, 0);
		/*
		 * A .git file (a submodule's or a linked worktree's pointer), by the
		 * directory rule. Not in the reference: pointed elsewhere, it would have
		 * git, and a superproject's git status, use a command-made git directory
		 * with its hooks and core.fsmonitor.
		 */
		if (level <= w->depth - 2 && !isdir && strcmp(name, ".git") == 0 &&
		    entry_is_regular(d, de))
			strlist_push(w->out, child);
		/* No links followed, node_modules skipped, .git handled above. */
		if (isdir && level + 1 <= w->depth - 1 && strcmp(name, "node_modules") != 0 &&
		    strcasecmp(name, ".git") != 0) {
			cfd = openat(dirfd(d), name,
			    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			if (cfd != -1)
				mwalk_dir(w, cfd, child, level + 1);
		}
		free(child);
		if (w->truncated)
			break;
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
	if (w->truncated) {
		diags_add(w->b->errs, "the search for protected files under %s stopped after "
		    "%d entries: lower mandatoryDenySearchDepth (now %d), or narrow allowWrite "
		    "to the directories the command needs", root, WALK_MAX_ENTRIES, w->depth);
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
	w->depth = b->s->deny_search_depth > 0 ? b->s->deny_search_depth : DENY_DEPTH_DEFAULT;
	w->out = found;
}

static void
mandatory_walk(struct pb *b, const char *root, struct strlist *out)
{
	struct strlist found = { 0 };
	struct mwalk w;
	int fd;

	mwalk_init(&w, b, &found);
	fd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return;
	mwalk_dir(&w, fd, root, 0);
	mwalk_merge(&w, root, &found, out);
}

/*
 * BEHAVIOR §4.1: the dangerous names at the top of the cwd (even when missing: they get
 * placeholders), the cwd's git directory, then what the walk finds, under the cwd and
 * (SPEC §5) every configured write root; last what the global git configuration names.
 */
static void
mandatory_denies(struct pb *b, const struct strlist *roots, struct strlist *out)
{
	const char *cwd = canon_or(b, b->ctx->cwd);
	struct strlist found = { 0 }, global = { 0 };
	struct mwalk w;
	struct stat st;
	char *git;
	size_t i;

	git_globals(b, &global);
	for (i = 0; i < wguard_nnames; i++)
		strlist_push_owned(out, path_join(cwd, wguard_names[i].name));
	git = path_join(cwd, ".git");
	if (fs_stat(b, git, &st) == 0) {
		if (S_ISDIR(st.st_mode)) {
			/* Its hooks and config first, as the reference lists them. */
			mwalk_init(&w, b, &found);
			git_protect(&w, AT_FDCWD, git, git, cwd, GIT_TOP, 0);
			for (i = 0; i < found.n; i++)
				if (!strlist_contains(out, found.v[i]))
					strlist_push(out, found.v[i]);
			strlist_free(&found);
		} else
			/* A worktree's pointer: while it is a file there are no hooks. */
			strlist_push(out, git);
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

static int
tmpfs_contains(struct pb *b, const char *p)
{
	size_t i;

	for (i = 0; i < b->tmpfs_pred.n; i++)
		if (path_is_under(p, b->tmpfs_pred.v[i]))
			return 1;
	return 0;
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
		    tmpfs_contains(b, b->writes.v[i]))
			return 1;
	for (i = 0; i < b->rodirs.n; i++)
		if (strcmp(b->rodirs.v[i], dir) == 0 &&
		    (tmpfs_contains(b, dir) || tmpfs_contains(b, b->rodir_raw.v[i])))
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
				if (!tmpfs_contains(b, p))
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
		    (res = resolve_deny(b, raw, &b->denies)) == NULL) {
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
		if (fs_stat(b, res, &st) == 0 && S_ISDIR(st.st_mode) && meets_write(b, res)) {
			strlist_push(&b->rodirs, res);
			strlist_push(&b->rodir_raw, raw);
		}
 next:
		free(res);
		free(raw);
	}
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
		if ((res = resolve_deny(b, raw, NULL)) == NULL) {
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
		if (!exists(b, res)) {
			free(res);
			continue;
		}
		/* Outside every write root the path is read-only from --ro-bind / / already. */
		if (meets_write(b, res) && (strlist_contains(&b->symlinked, res) ||
		    !covered_by_rodir(b, res))) {
			for (j = 0; j < b->writes.n; j++)
				if (path_is_strictly_under(b->writes.v[j], res))
					log_warnx("write deny %s covers allowed write path %s, "
					    "which will be read-only", res, b->writes.v[j]);
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
		if (hidden_by_tmpfs(b, d->dest, 0)) {
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
			push3(&b->dsec, "--ro-bind", d->dest, d->dest);
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
		if (again)
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

		if (rootw && is_kernel_dir(seeds.v[i]))
			continue;
		for (dir = path_dirname(seeds.v[i]); strcmp(dir, "/") != 0 &&
		    !strlist_contains(&visited, dir) && within_write(b, dir);) {
			char *up = path_dirname(dir);

			strlist_push(&visited, dir);
			if (rootw && strcmp(up, "/") == 0)
				strlist_push(covers, dir);
			else if ((rootw || !strlist_contains(&b->writes, dir)) &&
			    !(fs_stat(b, dir, &st) == -1 && absence_errno(errno)))
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

/* --- the write guard ------------------------------------------------------------------ */

/*
 * p and everything on the way to it: each link a reader of p goes through, and the path
 * with that link followed (SPEC §7: protect the name the next reader opens, and what it
 * leads to). Missing names end the way; the guard keeps them from being made.
 */
static void
guard_chain(struct pb *b, const char *p, const char *why, bool pin, int depth)
{
	struct strlist names = { 0 };
	char *cur = xstrdup(""), *next, *onward;
	const char *target;
	struct stat st;
	size_t i, j;

	wguard_add_exact(&b->out->guard, p, why, pin);
	split_names(p, &names);
	for (i = 0; i < names.n && depth < MAX_LINKS; i++) {
		if (*names.v[i] == '\0' || strcmp(names.v[i], ".") == 0)
			continue;
		next = xasprintf("%s/%s", cur, names.v[i]);
		if (fs_lstat(b, next, &st) == -1) {
			free(next);
			break;
		}
		if (S_ISLNK(st.st_mode) && (target = fs_link(b, next)) != NULL) {
			char *dir = path_dirname(next), *abs;

			wguard_add_exact(&b->out->guard, next, why, pin);
			abs = target[0] == '/' ? xstrdup(target) : path_join(dir, target);
			onward = abs;
			for (j = i + 1; j < names.n; j++) {
				char *t = path_join(onward, names.v[j]);

				free(onward);
				onward = t;
			}
			free(dir);
			free(next);
			next = path_normalize(onward);
			free(onward);
			if (next != NULL)
				guard_chain(b, next, why, pin, depth + 1);
			free(next);
			break;
		}
		free(cur);
		cur = next;
	}
	free(cur);
	strlist_free(&names);
}

/* The reason a mandatory deny the search found is protected. */
static const char *
mandatory_why(const char *p)
{
	const char *base = path_basename(p);
	size_t i;

	for (i = 0; i < wguard_nnames; i++) {
		const char *n = wguard_names[i].name, *slash = strchr(n, '/');

		if (strcasecmp(base, slash != NULL ? slash + 1 : n) == 0)
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

#define WHY_EXEC_PATH   "a directory on PATH: what is put there runs as a command"

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
			guard_chain(b, norm, WHY_EXEC_PATH, false, 0);
		else
			for (k = 0; k < b->writes.n; k++)
				if (strcmp(b->writes.v[k], norm) == 0) {
					log_warnx("PATH directory %s is a write root: a program the "
					    "command leaves there runs outside the sandbox as your "
					    "next command of that name", norm);
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
 * The read denies srt-seccomp watches (watch.c) for the host's changes: each mask by the
 * name a reader opens (its links kept: a link on the way can be re-pointed) and by where
 * it lands, and each entry missing at the start. Nothing is mounted for a missing one
 * (BEHAVIOR §4.3); the command may not make it either, so only the host can, and the
 * watch ends the run when it does. Only what the settings deny: ssh's configuration
 * directory is hidden for ssh's sake, not as a secret.
 */
static void
guard_read_denies(struct pb *b)
{
	struct wguard *g = &b->out->guard;
	const struct rdeny *r;
	char *loc;
	size_t i;

	for (i = 0; i < b->nrd; i++) {
		r = &b->rd[i];
		if (r->internal)
			continue;
		if (r->missing) {
			guard_chain(b, r->given, "a denyRead path", false, 0);
			/* Made inside another deny's tmpfs, it would be the sandbox's own. */
			loc = name_location(b, r->given);
			if (!hidden_by_tmpfs(b, loc, 1))
				wguard_add_watch(g, r->given, NULL);
			free(loc);
			continue;
		}
		/* Lifted by an allowRead, or inside another deny's tmpfs: that one's watch. */
		if (r->landing == NULL || r->lifted || !read_deny_mounted(b, r))
			continue;
		/* A stand-in's name is not in the sandbox, nor one inside another's tmpfs. */
		loc = name_location(b, r->given);
		if (r->standin || (strcmp(loc, r->landing) != 0 && hidden_by_tmpfs(b, loc, 1)))
			wguard_add_watch(g, r->landing, r->landing);
		else
			wguard_add_watch(g, r->given, r->landing);
		free(loc);
	}
}

/*
 * The guard srt-seccomp enforces by name for the whole run (wguard.h): every write deny
 * and what leads to it, the home directory's own list, srt's files, the roots the names
 * apply under, and the read denies whose loss ends the sandbox.
 */
static void
plan_guard(struct pb *b)
{
	struct wguard *g = &b->out->guard;
	const char *home = b->ctx->home;
	size_t i;

	g->depth = b->s->deny_search_depth > 0 ? b->s->deny_search_depth : DENY_DEPTH_DEFAULT;
	g->allow_git_config = b->s->fs.allow_git_config;
	for (i = 0; i < b->denies.n; i++)
		guard_chain(b, b->denies.v[i], i < b->deny_why.n ? b->deny_why.v[i] :
		    "mandatory deny", i < b->npinned, 0);
	if (home != NULL && *home == '/')
		for (i = 0; i < wguard_nhome_names; i++) {
			char *p = path_join(home, wguard_home_names[i].name);

			guard_chain(b, p, wguard_home_names[i].why, false, 0);
			free(p);
		}
	guard_exec_path(b);
	guard_read_denies(b);
	strlist_push(&g->roots, b->ctx->cwd);
	for (i = 0; i < b->user_roots.n; i++)
		if (!strlist_contains(&g->roots, b->user_roots.v[i]))
			strlist_push(&g->roots, b->user_roots.v[i]);
	wguard_index(g);
	for (i = 0; i < b->writes.n; i++) {
		size_t k;

		for (k = 0; k < g->exact.n; k++)
			if (path_is_under(b->writes.v[i], g->exact.v[k]))
				log_warnx("write path %s lies in %s, which is protected (%s): "
				    "nothing in it can be written", b->writes.v[i], g->exact.v[k],
				    g->exact_why.v[k]);
	}
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

	fs_free(b);
	strlist_free(&b->writes);
	strlist_free(&b->user_roots);
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
	strlist_free(&b->denied);
	strlist_free(&b->tmpfs_pred);
	strlist_free(&b->denies);
	strlist_free(&b->git_done);
	strlist_free(&b->git_global_rel);
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
	if (sp != NULL && (r = canon(b, sp)) != NULL)
		push3(&b->out->args, "--ro-bind", r, r);
	/* No names protected, but the policy and srt itself. */
	if (sp != NULL)
		guard_chain(b, sp, "settings file", true, 0);
	for (i = 0; i < PLAN_SELF_DIRS; i++)
		if (b->ctx->self_dirs[i] != NULL && *b->ctx->self_dirs[i] == '/')
			guard_chain(b, b->ctx->self_dirs[i], "srt's own programs", true, 0);
	wguard_index(&b->out->guard);
	free(sp);
}

int
plan_linux_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs)
{
	struct strlist cfg = { 0 }, mand = { 0 }, pins = { 0 }, covers = { 0 };
	struct plan_ctx lctx;
	char *cwd = NULL, *sp;
	struct pb b;
	size_t i;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	wguard_init(&out->guard);
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
	cwd = xstrdup(canon_or(&b, ctx->cwd));
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

	expand_list(&b, &s->fs.deny_write, "denyWrite", 1, &cfg);
	if (b.bad)
		goto out;
	for (i = 0; i < cfg.n; i++) {
		strlist_push_owned(&b.denies, normalize(&b, cfg.v[i]));
		strlist_pushf(&b.deny_why, "denyWrite %s", cfg.v[i]);
	}
	/* The settings file: a command must not rewrite the policy of the next run. */
	if ((sp = settings_abs(&b)) != NULL) {
		strlist_push_owned(&b.denies, normalize(&b, sp));
		strlist_push(&b.deny_why, "settings file");
		free(sp);
	}
	/* srt's own programs: the proxies start on first use, outside the sandbox, and the
	 * launcher itself runs again next time. */
	for (i = 0; i < PLAN_SELF_DIRS; i++) {
		char *n;

		if (ctx->self_dirs[i] == NULL || *ctx->self_dirs[i] != '/')
			continue;
		n = normalize(&b, ctx->self_dirs[i]);
		if (strlist_contains(&b.denies, n)) {
			free(n);
			continue;
		}
		strlist_push_owned(&b.denies, n);
		strlist_push(&b.deny_why, "srt's own programs");
	}
	/* What the user named, and srt's own: the way to those is kept (pinned) as the
	 * reference keeps it with placeholders. The mandatory names below are the name
	 * rules' business, which leave the way open (a .claude directory may be made). */
	b.npinned = b.denies.n;
	mandatory_denies(&b, &b.user_roots, &mand);
	if (b.bad)
		goto out;
	for (i = 0; i < mand.n; i++) {
		char *n = normalize(&b, mand.v[i]);

		if (strlist_contains(&b.denies, n))
			free(n);
		else {
			strlist_push_owned(&b.denies, n);
			strlist_push(&b.deny_why, mandatory_why(n));
		}
	}

	plan_read_section(&b);
	plan_hide_host_net(&b);
	plan_denies(&b);
	emit_denies(&b);
	plan_guard(&b);
	ancestor_pins(&b, &pins, &covers);

	push3(&out->args, "--ro-bind", "/", "/");
	if (!strlist_contains(&b.writes, "/"))
		for (i = 0; i < pins.n; i++)
			push3(&out->args, "--ro-bind", pins.v[i], pins.v[i]);
	append(&out->args, &b.binds);
	if (strlist_contains(&b.writes, "/")) {
		for (i = 0; i < pins.n; i++)
			push3(&out->args, "--ro-bind", pins.v[i], pins.v[i]);
		for (i = 0; i < covers.n; i++)
			push3(&out->args, "--bind", covers.v[i], covers.v[i]);
	}
	append(&out->args, &b.rsec);
	append(&out->args, &b.dsec);
	append(&out->writes, &b.writes);
	ret = 0;
 out:
	if (ret == -1)
		plan_linux_free(out);
	strlist_free(&cfg);
	strlist_free(&mand);
	strlist_free(&pins);
	strlist_free(&covers);
	pb_free(&b);
	free(cwd);
	return ret;
}

void
plan_linux_free(struct plan_linux *p)
{
	if (p == NULL)
		return;
	strlist_free(&p->args);
	strlist_free(&p->writes);
	wguard_free(&p->guard);
}

