/*
 * The macOS Seatbelt profile (plan_macos.c): paths as the reference handles them. Path
 * text as node's path module spells it ("~" and relative spellings made absolute, links
 * resolved only where the result stays within what was named), and what the disk says
 * of an entry: the names a glob spells where they exist, both spellings of a read rule.
 * With the containers of entries and ordered sets the other parts fill, it is the
 * bottom of the three: plan_macos.c calls it and plan_macos_rules.c, which calls it.
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "glob.h"
#include "path.h"
#include "plan.h"
#include "plan_macos_int.h"
#include "util.h"

/* --- entries and ordered sets: the containers every part of the plan fills ------- */

void
plan_macos_ments_add(struct ments *l, char *path, char *anchor, bool glob)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 16;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = (struct ment){ .path = path, .anchor = anchor, .glob = glob };
}

void
plan_macos_ments_add_copy(struct ments *l, const struct ment *e)
{
	plan_macos_ments_add(
	    l, xstrdup(e->path), e->anchor ? xstrdup(e->anchor) : NULL, e->glob);
}

void
plan_macos_ments_free(struct ments *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].anchor);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* An ordered set of strings (filters, paths): kept once, in first-seen order. */
void
plan_macos_set_add(struct strlist *s, const char *v)
{
	if (!strlist_contains(s, v))
		strlist_push(s, v);
}

void
plan_macos_set_add_owned(struct strlist *s, char *v)
{
	if (strlist_contains(s, v))
		free(v);
	else
		strlist_push_owned(s, v);
}

/* --- path text, as node's path module spells it ------------------------------------ */

/* path.normalize: separators collapsed, "." and ".." folded, a trailing "/" kept. */
static char *
js_normalize(const char *p)
{
	struct strlist parts = { 0 };
	size_t len = strlen(p), i = 0, k, o = 0, total = 2;
	bool abs = p[0] == '/', trail = len > 0 && p[len - 1] == '/';
	char *out;

	if (len == 0)
		return xstrdup(".");
	while (i < len) {
		size_t j;

		while (i < len && p[i] == '/')
			i++;
		for (j = i; j < len && p[j] != '/'; j++)
			;
		if (j == i)
			break;
		if (j - i == 1 && p[i] == '.')
			;
		else if (j - i == 2 && p[i] == '.' && p[i + 1] == '.') {
			if (parts.n > 0 && strcmp(parts.v[parts.n - 1], "..") != 0) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			} else if (!abs)
				strlist_push(&parts, "..");
		} else
			strlist_push_owned(&parts, xstrndup(p + i, j - i));
		i = j;
	}
	for (k = 0; k < parts.n; k++)
		total += strlen(parts.v[k]) + 1;
	out = xmalloc(total + 1);
	if (abs)
		out[o++] = '/';
	for (k = 0; k < parts.n; k++) {
		size_t n = strlen(parts.v[k]);

		if (k > 0)
			out[o++] = '/';
		memcpy(out + o, parts.v[k], n);
		o += n;
	}
	if (o == 0)
		out[o++] = '.';
	if (trail && !(o == 1 && out[0] == '/'))
		out[o++] = '/';
	out[o] = '\0';
	strlist_free(&parts);
	return out;
}

/* path.resolve(cwd, p): absolute, normalised, no trailing "/". */
char *
plan_macos_js_resolve(const char *cwd, const char *p)
{
	char *joined = p[0] == '/' ? xstrdup(p) : xasprintf("%s/%s", cwd, p);
	char *n = js_normalize(joined);
	size_t len = strlen(n);

	free(joined);
	if (len > 1 && n[len - 1] == '/')
		n[len - 1] = '\0';
	return n;
}

/* path.join(a, b) */
char *
plan_macos_js_join(const char *a, const char *b)
{
	char *joined = xasprintf("%s/%s", a, b), *n = js_normalize(joined);

	free(joined);
	return n;
}

/* path.dirname, for absolute paths */
char *
plan_macos_js_dirname(const char *p)
{
	size_t len = strlen(p);

	while (len > 1 && p[len - 1] == '/')
		len--;
	while (len > 0 && p[len - 1] != '/')
		len--;
	while (len > 1 && p[len - 1] == '/')
		len--;
	if (len == 0)
		return xstrdup(p[0] == '/' ? "/" : ".");
	return xstrndup(p, len);
}

/* path.basename */
char *
plan_macos_js_basename(const char *p)
{
	size_t len = strlen(p), start;

	while (len > 1 && p[len - 1] == '/')
		len--;
	start = len;
	while (start > 0 && p[start - 1] != '/')
		start--;
	if (len == 1 && p[0] == '/')
		return xstrdup("");
	return xstrndup(p + start, len - start);
}

/* The directories above p, nearest first, "/" not among them. */
void
plan_macos_ancestors(const char *p, struct strlist *out)
{
	char *cur = plan_macos_js_dirname(p);

	while (strcmp(cur, "/") != 0 && strcmp(cur, ".") != 0) {
		char *parent = plan_macos_js_dirname(cur);

		strlist_push(out, cur);
		if (strcmp(parent, cur) == 0) {
			free(parent);
			break;
		}
		free(cur);
		cur = parent;
	}
	free(cur);
}

/* "~" and "~/..." against home; anything else as it is. */
static char *
expand_tilde(const char *p, const char *home)
{
	if (strcmp(p, "~") == 0)
		return xstrdup(home);
	if (strncmp(p, "~/", 2) == 0)
		return xasprintf("%s%s", home, p + 1);
	return xstrdup(p);
}

/* Runs of "/" made one and "/./" made "/", nothing else. */
static char *
collapse_interior(const char *p)
{
	size_t len = strlen(p), i, o = 0;
	char *a = xmalloc(len + 1), *b = xmalloc(len + 1);

	for (i = 0; i < len; i++)
		if (!(p[i] == '/' && o > 0 && a[o - 1] == '/'))
			a[o++] = p[i];
	a[o] = '\0';
	for (i = 0, o = 0; a[i] != '\0';) {
		if (a[i] == '/' && a[i + 1] == '.' && a[i + 2] == '/') {
			i += 2;
			continue;
		}
		b[o++] = a[i++];
	}
	b[o] = '\0';
	free(a);
	return b;
}

static bool
is_absence(int err)
{
	return err == ENOENT || err == ENOTDIR || err == ELOOP || err == ENAMETOOLONG;
}

/* p with every link resolved, after "." and ".." were folded in its text; NULL when
 * that cannot be done. */
static char *
real_path_of(const struct mb *b, const char *p)
{
	char *folded = plan_macos_js_resolve(b->cwd, p), *r = path_resolve(folded);

	free(folded);
	return r;
}

/* What a name resolves to, or the name itself. */
static char *
resolved_or_same(const struct mb *b, const char *p)
{
	char *r = real_path_of(b, p);

	return r != NULL ? r : xstrdup(p);
}

bool
plan_macos_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

/*
 * Whether resolving links took a name somewhere it did not name: anywhere but itself,
 * its /private twin (/tmp, /var) or beneath either. A link to an ancestor, or to a
 * directory of one component, would widen what a rule covers.
 */
static bool
outside_boundary(const char *orig, const char *res)
{
	char *o = js_normalize(orig), *r = js_normalize(res), *canon, *rs = NULL;
	size_t nparts = 0;
	bool out = true;
	const char *c;

	canon = (plan_macos_starts_with(o, "/tmp/") || plan_macos_starts_with(o, "/var/"))
	    ? xasprintf("/private%s", o)
	    : xstrdup(o);
	if (strcmp(r, o) == 0 || (strcmp(canon, o) != 0 && strcmp(r, canon) == 0)) {
		out = false;
		goto done;
	}
	if (strcmp(r, "/") == 0)
		goto done;
	for (c = r; *c != '\0'; c++)
		if (c[0] != '/' && (c == r || c[-1] == '/'))
			nparts++;
	if (nparts <= 1)
		goto done;
	rs = xasprintf("%s/", r);
	if (plan_macos_starts_with(o, rs) ||
	    (strcmp(canon, o) != 0 && plan_macos_starts_with(canon, rs)))
		goto done;
	{
		char *os = xasprintf("%s/", o), *cs = xasprintf("%s/", canon);

		out = !(plan_macos_starts_with(r, os) ||
		    (strcmp(canon, o) != 0 && plan_macos_starts_with(r, cs)));
		free(os);
		free(cs);
	}
done:
	free(rs);
	free(canon);
	free(o);
	free(r);
	return out;
}

/*
 * A spelling made absolute: "~" and relative ones expanded, "//" and "/./" collapsed. A
 * name (literal, or a spelling without glob characters) loses a trailing "/" and "/." and
 * is resolved where that stays within what it named; a pattern keeps its spelling, the
 * directory before its first glob character resolved under the same condition.
 */
char *
plan_macos_normalize_for_sandbox(const struct mb *b, const char *spelling, bool literal)
{
	char *p = xstrdup(spelling), *n, *r;
	size_t len = strlen(p);

	if (len > 0 && p[len - 1] == '/' && !(!literal && glob_has_magic(p))) {
		while (len > 0 && p[len - 1] == '/')
			p[--len] = '\0';
		if (len == 0) {
			free(p);
			p = xstrdup("/");
		}
	}
	n = expand_tilde(p, b->home);
	if (strcmp(n, p) == 0 && p[0] != '/') {
		free(n);
		n = plan_macos_js_resolve(b->cwd, p);
	}
	free(p);
	p = collapse_interior(n);
	free(n);
	n = p;
	if (!literal && glob_has_magic(n)) {
		size_t plen = strcspn(n, GLOB_MAGIC);
		char *prefix = xstrndup(n, plen), *base;

		if (plen > 0 && strcmp(prefix, "/") != 0) {
			base = prefix[plen - 1] == '/' ? xstrndup(prefix, plen - 1)
						       : plan_macos_js_dirname(prefix);
			if ((r = real_path_of(b, base)) != NULL && !outside_boundary(base, r)) {
				char *out = xasprintf("%s%s", r, n + strlen(base));

				free(r);
				free(base);
				free(prefix);
				free(n);
				return out;
			}
			free(r);
			free(base);
		}
		free(prefix);
		return n;
	}
	if (*n != '\0') {
		len = strlen(n);
		if (len >= 2 && strcmp(n + len - 2, "/.") == 0)
			n[len -= 2] = '\0';
		while (len > 0 && n[len - 1] == '/')
			n[--len] = '\0';
		if (len == 0) {
			free(n);
			n = xstrdup("/");
		}
	}
	if ((r = real_path_of(b, n)) != NULL && !outside_boundary(n, r)) {
		free(n);
		return r;
	}
	free(r);
	return n;
}

/* An entry from a spelling the user wrote: a pattern if it has glob characters. */
void
plan_macos_add_spelled(const struct mb *b, struct ments *l, const char *spelling)
{
	bool glob = glob_has_magic(spelling);

	plan_macos_ments_add(
	    l, plan_macos_normalize_for_sandbox(b, spelling, !glob), NULL, glob);
}

/* An entry that names one path whatever its characters. */
void
plan_macos_add_literal(const struct mb *b, struct ments *l, const char *p)
{
	plan_macos_ments_add(l, plan_macos_normalize_for_sandbox(b, p, true), NULL, false);
}

/* --- what the disk says ------------------------------------------------------------ */

/* Something may be at p (for a deny): a link counts, and so does what cannot be looked
 * at, or making a parent unsearchable would switch the deny off. */
static bool
may_be_there(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 || !is_absence(errno);
}

/* p is there and not a link (for an allow). */
static bool
there_unlinked(const char *p)
{
	struct stat st;

	return lstat(p, &st) == 0 && !S_ISLNK(st.st_mode);
}

static bool
directory_for(enum kind k, const char *p)
{
	struct stat st;

	if (k == K_ALLOW)
		return lstat(p, &st) == 0 && S_ISDIR(st.st_mode);
	if (stat(p, &st) == 0)
		return S_ISDIR(st.st_mode);
	return !is_absence(errno);
}

/* The spelling split at "/" (empty parts kept), and its prefixes. */
struct parts {
	char **v;
	size_t n;
	const char *s;
};

static char *
parts_prefix(const struct parts *pp, size_t i)
{
	size_t len = 0, k;

	for (k = 0; k <= i; k++)
		len += strlen(pp->v[k]) + (k > 0);
	if (len == 0)
		return xstrdup("/");
	return xstrndup(pp->s, len);
}

/* No component after from, up to to, is a link or beyond looking at. */
static bool
rest_unlinked(const struct parts *pp, size_t from, size_t to)
{
	size_t i;

	for (i = from + 1; i <= to; i++) {
		char *p = parts_prefix(pp, i);
		struct stat st;
		int r = lstat(p, &st), err = errno;

		free(p);
		if (r == 0 && S_ISLNK(st.st_mode))
			return false;
		if (r != 0)
			return is_absence(err);
	}
	return true;
}

/*
 * The readings a spelling with glob characters has beside its pattern: where the
 * components that hold those characters exist on disk as spelled, the name they spell
 * (when all of them do), and the pattern beneath each existing one, the longest first.
 */
void
plan_macos_literal_readings(
    const struct mb *b, const char *spelling, enum kind k, struct ments *out)
{
	char *stripped = glob_strip_globstar(spelling), *expanded, *abs, *spelled, *copy, *tok;
	struct parts pp = { 0 };
	size_t *glob_at, nglob = 0, i, first, last;
	long reach;
	const char *set_aside;

	if (!glob_has_magic(stripped)) {
		free(stripped);
		return;
	}
	expanded = expand_tilde(stripped, b->home);
	abs = strcmp(expanded, stripped) == 0 && stripped[0] != '/'
	    ? plan_macos_js_resolve(b->cwd, stripped)
	    : xstrdup(expanded);
	spelled = collapse_interior(abs);
	free(expanded);
	free(abs);

	copy = xstrdup(spelled);
	pp.s = spelled;
	pp.v = xreallocarray(NULL, strlen(spelled) + 2, sizeof(char *));
	for (tok = copy;;) {
		char *slash = strchr(tok, '/');

		if (slash != NULL)
			*slash = '\0';
		pp.v[pp.n++] = tok;
		if (slash == NULL)
			break;
		tok = slash + 1;
	}
	glob_at = xreallocarray(NULL, pp.n, sizeof(*glob_at));
	for (i = 0; i < pp.n; i++)
		if (glob_has_magic(pp.v[i]))
			glob_at[nglob++] = i;
	if (nglob == 0)
		goto out;
	first = glob_at[0];
	last = glob_at[nglob - 1];
	reach = (long)first - 1;
	while (reach < (long)last) {
		char *p = parts_prefix(&pp, (size_t)(reach + 1));
		bool there = k == K_DENY ? may_be_there(p) : there_unlinked(p);

		free(p);
		if (!there)
			break;
		reach++;
	}
	if (reach < (long)first)
		goto out;
	if (reach == (long)last && (k == K_DENY || rest_unlinked(&pp, last, pp.n - 1)))
		plan_macos_add_literal(b, out, stripped);
	set_aside = strcmp(stripped, spelling) == 0 ? "" : "/**";
	for (i = nglob - 1; i-- > 0;) {
		size_t at = glob_at[i], next = glob_at[i + 1];
		long end;
		char *pre, *anchor;

		if ((long)at > reach)
			continue;
		end = (long)next - 1 < reach ? (long)next - 1 : reach;
		while (end >= (long)at) {
			char *p = parts_prefix(&pp, (size_t)end);
			bool dir = directory_for(k, p);

			free(p);
			if (dir)
				break;
			end--;
		}
		if (end < (long)at)
			continue;
		if (k == K_ALLOW && !rest_unlinked(&pp, (size_t)end, next - 1))
			continue;
		pre = parts_prefix(&pp, (size_t)end);
		anchor = plan_macos_normalize_for_sandbox(b, pre, true);
		plan_macos_ments_add(out,
		    xasprintf("%s%s%s", anchor, spelled + strlen(pre), set_aside),
		    xstrdup(anchor), true);
		free(anchor);
		free(pre);
	}
out:
	free(glob_at);
	free(pp.v);
	free(copy);
	free(spelled);
	free(stripped);
}

/* A user's list as entries: each spelling, then the other readings of each, then the
 * entries marked literal. */
void
plan_macos_caller_entries(const struct mb *b, enum kind k, const struct strlist *spelled,
    const struct strlist *literal, struct ments *out)
{
	size_t i;

	for (i = 0; i < spelled->n; i++)
		plan_macos_add_spelled(b, out, spelled->v[i]);
	for (i = 0; i < spelled->n; i++)
		plan_macos_literal_readings(b, spelled->v[i], k, out);
	for (i = 0; literal != NULL && i < literal->n; i++)
		plan_macos_add_literal(b, out, literal->v[i]);
}

/* The directory a glob cannot match above: its static prefix's. */
static char *
glob_base_dir(const char *g)
{
	size_t plen = strcspn(g, GLOB_MAGIC);
	char *prefix, *base;

	if (plen == 0 || (plen == 1 && g[0] == '/'))
		return xstrdup("/");
	prefix = xstrndup(g, plen);
	base = prefix[plen - 1] == '/' ? xstrndup(prefix, plen - 1)
				       : plan_macos_js_dirname(prefix);
	free(prefix);
	return base;
}

char *
plan_macos_entry_base_dir(const struct ment *e)
{
	if (!e->glob)
		return xstrdup(e->path);
	return e->anchor != NULL ? xstrdup(e->anchor) : glob_base_dir(e->path);
}

/*
 * A read rule under both spellings of its path: as written, and with links resolved (a
 * deny to its end; an allow's last component stays the name it is; a pattern's base
 * directory). The root, and anything among the devices, is never a second spelling.
 */
void
plan_macos_in_both_spellings(
    const struct mb *b, enum kind k, const struct ment *e, struct ments *out)
{
	char *base = plan_macos_entry_base_dir(e), *canon;

	if (k == K_DENY || e->glob)
		canon = resolved_or_same(b, base);
	else if (strcmp(base, "/") == 0)
		canon = xstrdup("/");
	else {
		char *dir = plan_macos_js_dirname(base), *name = plan_macos_js_basename(base);
		char *parent = resolved_or_same(b, dir);

		canon = xasprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, name);
		free(parent);
		free(dir);
		free(name);
	}
	plan_macos_ments_add_copy(out, e);
	if (strcmp(canon, base) != 0 && strcmp(canon, "/") != 0 &&
	    !path_is_under(canon, "/dev")) {
		if (e->glob)
			plan_macos_ments_add(out,
			    xasprintf("%s%s", canon, e->path + strlen(base)), xstrdup(canon),
			    true);
		else
			plan_macos_ments_add(out, xstrdup(canon), NULL, false);
	}
	free(canon);
	free(base);
}
