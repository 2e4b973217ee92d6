/*
 * The bubblewrap filesystem plan: the file system as the plan sees it (plan_linux.c).
 * Every lstat, readlink and realpath goes through one cache, so each path is asked once
 * and every decision is taken on the same answer; the names of a path resolved link by
 * link (way_to) and a deny entry resolved to what it reaches (resolve_deny).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "path.h"
#include "plan.h"
#include "plan_linux_int.h"
#include "util.h"

/* --- the file system, asked once per path ----------------------------------------------- */

/*
 * Every lstat(2), readlink(2) and realpath the plan needs goes through this cache, so each
 * path is asked of the file system once per plan: every decision below is then taken on
 * one view of it. It is also most of the plan's cost otherwise: realpath(3) and the walks
 * below go name by name from the root, and the mandatory denies alone look up a few dozen
 * names in every writable root, each time again through the same ancestors.
 */
struct fsent {
	char *path; /* NULL: a free slot */
	int lerr;   /* lstat: 0 or its errno */
	struct stat st;
	char *link; /* the target when st is a link (NULL: unreadable) */
	int lnerr;  /* readlink's errno when link is NULL */
	bool have_real;
	char *real; /* realpath, or NULL (rerr) */
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
	b->fs[i].lerr = -1; /* not asked yet */
	b->fs_n++;
	return &b->fs[i];
}

void
plan_linux_fs_free(struct pb *b)
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

int
plan_linux_fs_lstat(struct pb *b, const char *p, struct stat *st)
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
const char *
plan_linux_fs_link(struct pb *b, const char *p)
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
int
plan_linux_fs_stat(struct pb *b, const char *p, struct stat *st)
{
	char *r = fs_realpath(b, p);
	int rc;

	if (r == NULL)
		return -1;
	rc = plan_linux_fs_lstat(b, r, st);
	free(r);
	return rc;
}

/* p with every link resolved, or NULL; asked of the file system once per plan. */
const char *
plan_linux_canon(struct pb *b, const char *p)
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

const char *
plan_linux_canon_or(struct pb *b, const char *p)
{
	const char *c = plan_linux_canon(b, p);

	return c != NULL ? c : p;
}

/*
 * The reference's test of whether following links from orig to res widens the scope: a
 * result at the root or one level below it, an ancestor of orig, or anywhere outside the
 * tree below orig.
 */
int
plan_linux_outside_boundary(const char *orig, const char *res)
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
char *
plan_linux_normalize(struct pb *b, const char *abs)
{
	const char *r = plan_linux_canon(b, abs);
	char *folded = path_normalize(abs);

	if (r != NULL && !plan_linux_outside_boundary(folded, r)) {
		free(folded);
		return xstrdup(r);
	}
	return folded;
}

/* Where the name p lives: its directory resolved, its last component as written. */
char *
plan_linux_name_location(struct pb *b, const char *p)
{
	char *dir, *out;

	if (strcmp(p, "/") == 0)
		return xstrdup("/");
	dir = path_dirname(p);
	out = path_join(plan_linux_canon_or(b, dir), path_basename(p));
	free(dir);
	return out;
}

int
plan_linux_absence_errno(int e)
{
	return e == ENOENT || e == ENOTDIR || e == ELOOP || e == ENAMETOOLONG;
}

int
plan_linux_exists(struct pb *b, const char *p)
{
	struct stat st;

	return plan_linux_fs_stat(b, p, &st) == 0;
}

void
plan_linux_split_names(const char *p, struct strlist *out)
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
	plan_linux_split_names(path, &names);
	for (i = names.n; i > 0; i--)
		strlist_push(&stack, names.v[i - 1]);
	while (stack.n > 0) {
		name = stack.v[--stack.n];
		stack.v[stack.n] = NULL;
		if (*name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0) {
			next = xasprintf("%s/.", real);
			if (plan_linux_fs_lstat(b, next, &st) == -1) {
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
		if (plan_linux_fs_lstat(b, next, &st) == -1) {
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
		if (++links > MAX_LINKS || (target = plan_linux_fs_link(b, next)) == NULL) {
			free(next);
			free(name);
			goto out;
		}
		free(next);
		free(name);
		if (target[0] == '/')
			*real = '\0';
		strlist_free(&names);
		plan_linux_split_names(target[0] == '/' ? target + 1 : target, &names);
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

/* dir (taken) with names->v[from..to) after it, "/" between; "/" for nothing at all. */
static char *
names_joined(char *dir, const struct strlist *names, size_t from, size_t to)
{
	char *t;

	for (; from < to; from++) {
		t = xasprintf("%s/%s", dir, names->v[from]);
		free(dir);
		dir = t;
	}
	if (*dir == '\0') {
		free(dir);
		dir = xstrdup("/");
	}
	return dir;
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
char *
plan_linux_resolve_deny(struct pb *b, const char *raw, struct strlist *also)
{
	struct strlist remainder = { 0 }, rest = { 0 }, names = { 0 };
	char *ancestor, *parent, *rejoined = NULL, *onward = NULL, *first, *real;
	char *answer = NULL;
	const char *resolved = plan_linux_canon(b, raw);
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
		if ((resolved = plan_linux_canon(b, ancestor)) != NULL)
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
	if (plan_linux_fs_link(b, first) == NULL) {
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
			answer = names_joined(real, &names, 0, names.n < 2 ? names.n : 2);
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
		onward = names_joined(real, &names, 2, names.n);
	}
	if (also == NULL)
		log_debug("where a write to %s would land cannot be settled; masking the "
			  "link on the way instead",
		    raw);
out:
	free(rejoined);
	free(onward);
	strlist_free(&remainder);
	strlist_free(&rest);
	strlist_free(&names);
	return answer;
}
