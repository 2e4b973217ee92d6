/* Glob expansion for the filesystem lists: see glob.h. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "path.h"
#include "sys_file.h"
#include "util.h"

int
glob_has_magic(const char *s)
{
	return strpbrk(s, GLOB_MAGIC) != NULL;
}

/*
 * The set that starts at p ("["): its end (the first "]" after the "[") in *end and 1 when
 * c is a member, 0 when not; -1 when the brackets spell no set (empty, or a range running
 * backwards), and the "[" is then text.
 */
static int
set_match(const char *p, const char *pend, unsigned char c, const char **end)
{
	const char *q = p + 1, *close;
	int hit = 0;

	for (close = q; close < pend && *close != ']'; close++)
		;
	if (close >= pend || close == q)
		return -1;
	while (q < close) {
		unsigned char from = (unsigned char)*q, to = from;

		if (q + 2 < close && q[1] == '-') {
			to = (unsigned char)q[2];
			q += 3;
		} else
			q++;
		if (to < from)
			return -1;
		if (path_fold((char)c) >= path_fold((char)from) &&
		    path_fold((char)c) <= path_fold((char)to))
			hit = 1;
	}
	*end = close + 1;
	return hit;
}

/* One name against one pattern component [p, pend). Iterative, with one backtrack point. */
static int
name_match(const char *p, const char *pend, const char *s)
{
	const char *star_p = NULL, *star_s = NULL, *end;
	int r;

	while (*s != '\0' || p < pend) {
		if (p < pend && *p == '*') {
			while (p < pend && *p == '*')
				p++;
			star_p = p;
			star_s = s;
			continue;
		}
		if (*s != '\0' && p < pend) {
			if (*p == '?') {
				p++;
				s++;
				continue;
			}
			if (*p == '[' &&
			    (r = set_match(p, pend, (unsigned char)*s, &end)) >= 0) {
				if (r == 1) {
					p = end;
					s++;
					continue;
				}
			} else if (path_fold(*p) == path_fold(*s)) {
				p++;
				s++;
				continue;
			}
		}
		if (star_p == NULL || *star_s == '\0')
			return 0;
		p = star_p;
		s = ++star_s;
	}
	return 1;
}

/* Split an absolute spelling into its non-empty components. */
static void
split(const char *path, struct strlist *comps)
{
	const char *p = path;

	while (*p != '\0') {
		const char *q;

		while (path_is_sep(*p))
			p++;
		if (*p == '\0')
			break;
		for (q = p; *q != '\0' && !path_is_sep(*q); q++)
			;
		strlist_push_owned(comps, xstrndup(p, (size_t)(q - p)));
		p = q;
	}
}

static int
is_globstar(const char *c)
{
	return strcmp(c, "**") == 0;
}

static int
match_comps(char **pc, size_t np, char **sc, size_t ns)
{
	size_t k;

	if (np == 0)
		return ns == 0;
	if (is_globstar(pc[0])) {
		for (k = 0; k <= ns; k++) /* (no names: sc may be NULL) */
			if (match_comps(pc + 1, np - 1, ns > 0 ? sc + k : sc, ns - k))
				return 1;
		return 0;
	}
	if (ns == 0 || !name_match(pc[0], pc[0] + strlen(pc[0]), sc[0]))
		return 0;
	return match_comps(pc + 1, np - 1, sc + 1, ns - 1);
}

char *
glob_strip_globstar(const char *p)
{
	size_t len = strlen(p);

	if (len >= 3 && strcmp(p + len - 3, "/**") == 0)
		return len == 3 ? xstrdup("/") : xstrndup(p, len - 3);
	return xstrdup(p);
}

int
glob_match_path(const char *pattern, const char *path)
{
	struct strlist pc = { 0 }, sc = { 0 };
	int r;

	split(pattern, &pc);
	split(path, &sc);
	r = match_comps(pc.v, pc.n, sc.v, sc.n);
	strlist_free(&pc);
	strlist_free(&sc);
	return r;
}

int
glob_match_under(const char *pattern, const char *path)
{
	struct strlist pc = { 0 }, sc = { 0 };
	size_t k;
	int r = 0;

	split(pattern, &pc);
	split(path, &sc);
	for (k = sc.n + 1; k > 0 && !r; k--)
		r = match_comps(pc.v, pc.n, sc.v, k - 1);
	strlist_free(&pc);
	strlist_free(&sc);
	return r;
}

struct walk {
	char **comps;
	size_t ncomps;
	struct strlist *out;
	struct glob_budget budget;
};

static void walk_at(struct walk *w, const char *dir, size_t idx, int depth);

static void
found(struct walk *w, const char *path)
{
	if (w->out->n >= GLOB_MAX_MATCHES) {
		w->budget.truncated = 1;
		return;
	}
	strlist_push(w->out, path);
}

/* Whether path names a directory; a link counts only when follow is set. */
static int
is_dir(const char *path, int follow)
{
	struct stat st;

	if ((follow ? stat(path, &st) : lstat(path, &st)) == -1)
		return 0;
	return S_ISDIR(st.st_mode);
}

/* The entries of dir matching comps[idx], each taken on to the next component. */
static void
walk_list(struct walk *w, const char *dir, size_t idx, int depth)
{
	const char *pat = w->comps[idx];
	int globstar = is_globstar(pat), last = idx + 1 == w->ncomps;
	struct dirent *de;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = glob_readdir(d, &w->budget)) != NULL) {
		char *child;

		child = path_join(dir, de->d_name);
		if (globstar) {
			/* "**" goes down real directories only: a link could loop. */
			if (is_dir(child, 0))
				walk_at(w, child, idx, depth + 1);
		} else if (name_match(pat, pat + strlen(pat), de->d_name)) {
			if (last)
				found(w, child);
			else if (is_dir(child, 1))
				walk_at(w, child, idx + 1, depth + 1);
		}
		free(child);
	}
	closedir(d);
}

static void
walk_at(struct walk *w, const char *dir, size_t idx, int depth)
{
	const char *pat;
	char *child;

	if (w->budget.truncated)
		return;
	if (idx == w->ncomps) {
		found(w, dir);
		return;
	}
	if (depth > GLOB_MAX_DEPTH) {
		w->budget.truncated = 1;
		return;
	}
	pat = w->comps[idx];
	if (is_globstar(pat)) {
		walk_at(w, dir, idx + 1, depth); /* no directory at all */
		walk_list(w, dir, idx, depth);
		return;
	}
	if (!glob_has_magic(pat)) {
		struct stat st;

		child = path_join(dir, pat);
		if (idx + 1 == w->ncomps) {
			if (lstat(child, &st) == 0)
				found(w, child);
		} else if (is_dir(child, 1))
			walk_at(w, child, idx + 1, depth + 1);
		free(child);
		return;
	}
	walk_list(w, dir, idx, depth);
}

struct dirent *
glob_readdir(DIR *d, struct glob_budget *b)
{
	struct dirent *de;

	while (!b->truncated && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		if (++b->entries > b->max) {
			b->truncated = 1;
			break;
		}
		return de;
	}
	return NULL;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
glob_expand(const char *pattern, struct strlist *out)
{
	struct strlist comps = { 0 }, got = { 0 };
	struct walk w;
	size_t i, root;
	char *top;

	if (pattern == NULL || (root = path_root_len(pattern)) == 0)
		return -1;
	split(pattern + root, &comps);
	memset(&w, 0, sizeof(w));
	w.comps = comps.v;
	w.ncomps = comps.n;
	w.out = &got;
	w.budget.max = GLOB_MAX_ENTRIES;
	top = xstrndup(pattern, root); /* "/", or "C:\" on Windows */
	walk_at(&w, top, 0, 0);
	free(top);
	if (got.n > 1)
		qsort(got.v, got.n, sizeof(*got.v), cmp_str);
	for (i = 0; i < got.n; i++)
		if (i == 0 || strcmp(got.v[i], got.v[i - 1]) != 0)
			strlist_push(out, got.v[i]);
	strlist_free(&got);
	strlist_free(&comps);
	return w.budget.truncated ? 1 : 0;
}

int
glob_report_limit(
    int r, int deny, struct diags *errs, const char *what, size_t i, const char *path)
{
	if (r != 1)
		return 0;
	if (!deny) {
		log_warnx("%s[%zu]: \"%s\": expansion stopped at its limit", what, i, path);
		return 0;
	}
	diags_add(errs,
	    "%s[%zu]: \"%s\" matches too many paths to expand (limit %d "
	    "entries, %d matches); deny a directory instead",
	    what, i, path, GLOB_MAX_ENTRIES, GLOB_MAX_MATCHES);
	return 1;
}
