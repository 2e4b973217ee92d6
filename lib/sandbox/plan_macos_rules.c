/*
 * The macOS Seatbelt profile (plan_macos.c): the file system's rules. Entries become
 * Seatbelt filters (strings quoted as JSON quotes them), then the read rules, the read
 * denies kept from being moved, and the write rules with the mandatory denies, literal
 * ones that share a shape folded into one regex.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "globre.h"
#include "path.h"
#include "plan.h"
#include "plan_macos_int.h"
#include "util.h"

#define STRING_MAX \
	900         /* bytes of one regex inside a profile string: sandbox-exec
                                   refuses string literals over 1025 */
#define MIN_GROUP 4 /* fewer names than this are not worth one regex */

static const char *const dangerous_files[] = {
	".gitconfig",
	".gitmodules",
	".bashrc",
	".bash_profile",
	".zshrc",
	".zprofile",
	".profile",
	".ripgreprc",
	".mcp.json",
};
static const char *const dangerous_dirs[] = {
	".vscode",
	".idea",
	".claude/commands",
	".claude/agents",
};

/* --- filters ----------------------------------------------------------------------- */

/* s as a JSON string (quotes included), which is how the profile spells strings. */
char *
plan_macos_json_quote(const char *s)
{
	static const char hex[] = "0123456789abcdef";
	size_t len = strlen(s), o = 0;
	char *out = xmalloc(len * 6 + 3);
	int e;

	out[o++] = '"';
	for (; *s != '\0'; s++) {
		unsigned char c = (unsigned char)*s;

		e = c == '"' || c == '\\' ? c : util_escape_letter(c, "bfnrt");
		if (e != -1) {
			out[o++] = '\\';
			out[o++] = (char)e;
		} else if (c < 0x20) {
			memcpy(out + o, "\\u00", 4);
			o += 4;
			out[o++] = hex[c >> 4];
			out[o++] = hex[c & 15];
		} else
			out[o++] = (char)c;
	}
	out[o++] = '"';
	out[o] = '\0';
	return out;
}

/* Bytes a fragment takes inside a profile string. */
static size_t
quoted_len(const char *s)
{
	char *q = plan_macos_json_quote(s);
	size_t n = strlen(q) - 2;

	free(q);
	return n;
}

/* The regex of a glob entry, its anchor taken as the literal it is. */
static char *
entry_regex(const struct ment *e, bool subtree)
{
	char *tail, *esc, *out;

	if (e->anchor == NULL)
		return glob_to_regex(e->path, subtree);
	tail = glob_to_regex(e->path + strlen(e->anchor), subtree);
	esc = glob_regex_escape_literal(e->anchor);
	out = xasprintf("^%s%s", esc, tail + 1);
	free(tail);
	free(esc);
	return out;
}

/* Whether that regex matches s. */
bool
plan_macos_entry_matches(const struct ment *e, const char *s, bool subtree)
{
	if (e->anchor == NULL)
		return glob_regex_match(e->path, s, subtree);
	if (!plan_macos_starts_with(s, e->anchor))
		return false;
	return glob_regex_match(e->path + strlen(e->anchor), s + strlen(e->anchor), subtree);
}

static char *
filter_of(const char *what, const char *value)
{
	char *q = plan_macos_json_quote(value), *f = xasprintf("(%s %s)", what, q);

	free(q);
	return f;
}

/* An allow: the regex of a glob, the subpath of a name. A deny: a glob's regex takes
 * everything beneath its matches too, as subpath does. */
static char *
entry_filter(const struct ment *e, bool deny)
{
	char *re, *f;

	if (!e->glob)
		return filter_of("subpath", e->path);
	re = entry_regex(e, deny);
	f = filter_of("regex", re);
	free(re);
	return f;
}

/* A path shaped like the ones e matches: each wildcard and set made an "x". */
static char *
sample_path(const struct ment *e)
{
	const char *anchor = e->anchor != NULL ? e->anchor : "", *p;
	size_t alen = strlen(anchor), o;
	char *out;

	if (!e->glob)
		return xstrdup(e->path);
	out = xmalloc(strlen(e->path) + 1);
	memcpy(out, e->path, alen);
	o = alen;
	for (p = e->path + alen; *p != '\0';) {
		const char *close;

		if (*p == '[' && (close = strchr(p + 1, ']')) != NULL) {
			out[o++] = 'x';
			p = close + 1;
		} else if (*p == '*' || *p == '?') {
			out[o++] = 'x';
			while (*p == '*' || *p == '?')
				p++;
		} else
			out[o++] = *p++;
	}
	out[o] = '\0';
	return out;
}

static bool
sample_strictly_under(const struct ment *e, const char *dir)
{
	char *s = sample_path(e);
	bool r = path_is_strictly_under(s, dir);

	free(s);
	return r;
}

static bool
deny_covers(const struct ment *deny, const struct ment *e)
{
	char *s = sample_path(e);
	bool r = plan_macos_entry_matches(deny, s, true);

	free(s);
	return r;
}

/* filter, narrowed so that it no longer matches what the carve-outs match. */
static char *
carve(char *filter, struct strlist *carve_outs)
{
	size_t i, len = strlen(filter) + 16;
	char *out;

	if (carve_outs->n == 0)
		return filter;
	for (i = 0; i < carve_outs->n; i++)
		len += strlen(carve_outs->v[i]) + 16;
	out = xmalloc(len);
	strcpy(out, "(require-all ");
	strcat(out, filter);
	for (i = 0; i < carve_outs->n; i++) {
		strcat(out, " (require-not ");
		strcat(out, carve_outs->v[i]);
		strcat(out, ")");
	}
	strcat(out, ")");
	free(filter);
	return out;
}

/* --- rules --------------------------------------------------------------------------- */

void
plan_macos_line(struct mb *b, const char *s)
{
	strlist_push(&b->lines, s);
}

/* One rule for every filter, with the log tag; nothing for no filter (a rule without one
 * would match everything). The filters are spent: emptied for the next rule. */
static void
rule(struct mb *b, const char *action, const char *ops, struct strlist *filters)
{
	size_t i;

	if (filters->n > 0) {
		strlist_pushf(&b->lines, "(%s %s", action, ops);
		for (i = 0; i < filters->n; i++)
			strlist_pushf(&b->lines, "  %s", filters->v[i]);
		strlist_pushf(&b->lines, "  (with message %s))", b->tag);
	}
	strlist_free(filters);
}

static void
add_literal_filter(struct strlist *set, const char *dir)
{
	plan_macos_set_add_owned(set, filter_of("literal", dir));
}

/* Deny moving the entries and the directories above them (a deny must not be escaped by
 * renaming what it names, or a directory on the way to it). */
static void
move_blocking_filters(const struct ments *entries, struct strlist *set)
{
	size_t i, k;

	for (i = 0; i < entries->n; i++) {
		const struct ment *e = &entries->v[i];
		struct strlist anc = { 0 };
		char *base = plan_macos_entry_base_dir(e);

		plan_macos_set_add_owned(set, entry_filter(e, true));
		if (e->glob) {
			if (strcmp(base, "/") == 0) {
				free(base);
				continue;
			}
			add_literal_filter(set, base);
		}
		plan_macos_ancestors(base, &anc);
		for (k = 0; k < anc.n; k++)
			add_literal_filter(set, anc.v[k]);
		strlist_free(&anc);
		free(base);
	}
}


/*
 * The denies the allowRead block would re-open (the last rule wins): a name below a
 * name that is allowed, as it is; every glob, less the allows it covers; every
 * credentials file, whole. Only denies.
 */
static void
late_read_denies(const struct readcfg *rc, struct strlist *set, bool *covers_root)
{
	size_t i, j;

	*covers_root = false;
	for (i = 0; i < rc->denies.n; i++) {
		const struct ment *d = &rc->denies.v[i];
		bool cred = i >= rc->cred_from;
		struct strlist outs = { 0 };

		if (!d->glob && cred) {
			plan_macos_set_add_owned(set, entry_filter(d, true));
			continue;
		}
		if (!d->glob) {
			for (j = 0; j < rc->allows.n; j++)
				if (!rc->allows.v[j].glob &&
				    path_is_strictly_under(d->path, rc->allows.v[j].path))
					break;
			if (j < rc->allows.n)
				plan_macos_set_add_owned(set, entry_filter(d, true));
			continue;
		}
		if (plan_macos_entry_matches(d, "/", true))
			*covers_root = true;
		for (j = 0; j < rc->allows.n && !cred; j++)
			if (deny_covers(d, &rc->allows.v[j]))
				plan_macos_set_add_owned(
				    &outs, entry_filter(&rc->allows.v[j], false));
		plan_macos_set_add_owned(set, carve(entry_filter(d, true), &outs));
		strlist_free(&outs);
	}
}

void
plan_macos_read_rules(struct mb *b, const struct readcfg *rc)
{
	struct strlist set = { 0 };
	bool denies_root = false, covers_root;
	size_t i;

	plan_macos_line(b, "(allow file-read*)");
	for (i = 0; i < rc->denies.n; i++) {
		if (strcmp(rc->denies.v[i].path, "/") == 0)
			denies_root = true;
		plan_macos_set_add_owned(&set, entry_filter(&rc->denies.v[i], true));
	}
	rule(b, "deny", "file-read*", &set);

	for (i = 0; i < rc->allows.n; i++)
		plan_macos_set_add_owned(&set, entry_filter(&rc->allows.v[i], false));
	rule(b, "allow", "file-read*", &set);

	late_read_denies(rc, &set, &covers_root);
	rule(b, "deny", "file-read*", &set);

	/* A deny of "/" itself would stop the loader before the command runs: the root's
	 * own entry (its names, not what is beneath them) stays readable. */
	if (denies_root || covers_root)
		plan_macos_line(b, "(allow file-read* (literal \"/\"))");
	/* realpath() needs to stat every directory on the way to an allowed path. */
	if (rc->denies.n > 0) {
		plan_macos_line(b, "(allow file-read-metadata");
		plan_macos_line(b, "  (vnode-type DIRECTORY))");
	}
	move_blocking_filters(&rc->denies, &set);
	rule(b, "deny", "file-write-unlink file-write-create", &set);

	/* The moves denied above would also stop rm inside the write roots, since a
	 * specific deny beats a later file-write*: they are allowed there again (and the
	 * read-denied paths in write roots denied once more at the end). */
	for (i = 0; i < rc->write_roots.n; i++)
		plan_macos_set_add_owned(&set, entry_filter(&rc->write_roots.v[i], false));
	rule(b, "allow", "file-write-unlink file-write-create", &set);
}

/* Read-denied paths inside write roots, and their directories there, kept in place; a
 * credentials file wherever it is, with nothing carved out of it, and the directories
 * above it that are write roots too. */
void
plan_macos_read_deny_unlink_rules(struct mb *b, const struct readcfg *rc)
{
	struct strlist set = { 0 };
	const struct ments *w = &rc->write_roots;
	size_t i, j, k;
	bool any_glob_root = false;

	if (w->n == 0)
		return;
	for (j = 0; j < w->n; j++)
		if (w->v[j].glob)
			any_glob_root = true;
	for (i = 0; i < rc->denies.n; i++) {
		const struct ment *d = &rc->denies.v[i];
		bool cred = i >= rc->cred_from;
		struct strlist outs = { 0 }, dirs = { 0 };

		if (d->glob) {
			char *base = plan_macos_entry_base_dir(d);
			bool meets = any_glob_root;

			for (j = 0; !meets && j < w->n; j++) {
				const char *r = w->v[j].path;

				if (!w->v[j].glob &&
				    (strcmp(base, r) == 0 || path_is_strictly_under(base, r) ||
					path_is_strictly_under(r, base)))
					meets = true;
			}
			if (!meets) {
				free(base);
				continue;
			}
			for (j = 0; j < rc->allows.n && !cred; j++)
				if (deny_covers(d, &rc->allows.v[j]))
					plan_macos_set_add_owned(
					    &outs, entry_filter(&rc->allows.v[j], false));
			for (j = 0; j < w->n && !cred; j++)
				if (deny_covers(d, &w->v[j]))
					plan_macos_set_add_owned(
					    &outs, entry_filter(&w->v[j], false));
			plan_macos_set_add_owned(&set, carve(entry_filter(d, true), &outs));
			if (strcmp(base, "/") != 0) {
				strlist_push(&dirs, base);
				plan_macos_ancestors(base, &dirs);
			}
			free(base);
		} else {
			bool below = false;

			for (j = 0; !below && j < w->n; j++)
				below = w->v[j].glob
				    ? plan_macos_entry_matches(&w->v[j], d->path, false)
				    : path_is_strictly_under(d->path, w->v[j].path);
			if (!below && !cred)
				continue;
			for (j = 0; j < rc->allows.n && !cred; j++)
				if (sample_strictly_under(&rc->allows.v[j], d->path))
					plan_macos_set_add_owned(
					    &outs, entry_filter(&rc->allows.v[j], false));
			for (j = 0; j < w->n && !cred; j++)
				if (sample_strictly_under(&w->v[j], d->path))
					plan_macos_set_add_owned(
					    &outs, entry_filter(&w->v[j], false));
			plan_macos_set_add_owned(&set, carve(entry_filter(d, true), &outs));
			plan_macos_ancestors(d->path, &dirs);
		}
		for (k = 0; k < dirs.n; k++) {
			bool below = false;

			for (j = 0; !below && j < w->n; j++)
				below = w->v[j].glob
				    ? plan_macos_entry_matches(&w->v[j], dirs.v[k], false)
				    : path_is_strictly_under(dirs.v[k], w->v[j].path) ||
					(cred && strcmp(dirs.v[k], w->v[j].path) == 0);
			if (below)
				add_literal_filter(&set, dirs.v[k]);
		}
		strlist_free(&dirs);
		strlist_free(&outs);
	}
	if (set.n > 0) {
		plan_macos_line(b, "");
		plan_macos_line(
		    b, "; read-denied paths inside write roots stay where they are");
		rule(b, "deny", "file-write-unlink", &set);
	}
	strlist_free(&set);
}

/*
 * Literal denies that share a shape, DIR/NAME/LEAF for four or more NAMEs with the same
 * LEAFs, folded into one regex per chunk of names: sandbox-exec compiles thousands of
 * path filters slowly, a few regexes fast.
 */
struct group {
	char *dir;
	struct strlist names, leaves; /* leaves sorted */
};

struct dir_names {
	char *dir;
	struct strlist names;
	struct strlist *leaves; /* one set per name */
};

static char *
group_prefix(const struct group *g)
{
	char *esc = glob_regex_escape_literal(g->dir), *s = xasprintf("^%s/(", esc);

	free(esc);
	return s;
}

static char *
group_tail(const struct group *g)
{
	struct strlist parts = { 0 };
	size_t i, len = 16;
	char *s;

	for (i = 0; i < g->leaves.n; i++) {
		strlist_push_owned(&parts, glob_regex_escape_literal(g->leaves.v[i]));
		len += strlen(parts.v[i]) + 1;
	}
	s = xmalloc(len);
	strcpy(s, ")/(");
	for (i = 0; i < parts.n; i++) {
		if (i > 0)
			strcat(s, "|");
		strcat(s, parts.v[i]);
	}
	strcat(s, ")(/.*)?$");
	strlist_free(&parts);
	return s;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
same_list(const struct strlist *a, const struct strlist *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

/* The literal denies DIR/NAME/LEAF by DIR, each with its NAMEs and each NAME's LEAFs. */
static struct dir_names *
collect_dir_names(const struct ments *entries, size_t *ndnp)
{
	struct dir_names *dn = NULL;
	size_t ndn = 0, i, j, at;

	for (i = 0; i < entries->n; i++) {
		const struct ment *e = &entries->v[i];
		char *parent, *dir, *name;

		if (e->glob)
			continue;
		parent = plan_macos_js_dirname(e->path);
		dir = plan_macos_js_dirname(parent);
		if (strcmp(dir, parent) == 0 || strcmp(parent, e->path) == 0 ||
		    strcmp(dir, "/") == 0) {
			free(parent);
			free(dir);
			continue;
		}
		for (j = 0; j < ndn && strcmp(dn[j].dir, dir) != 0; j++)
			;
		if (j == ndn) {
			dn = xreallocarray(dn, ndn + 1, sizeof(*dn));
			memset(&dn[ndn], 0, sizeof(*dn));
			dn[ndn++].dir = xstrdup(dir);
		}
		name = plan_macos_js_basename(parent);
		for (at = 0; at < dn[j].names.n && strcmp(dn[j].names.v[at], name) != 0; at++)
			;
		if (at == dn[j].names.n) {
			strlist_push(&dn[j].names, name);
			dn[j].leaves = xreallocarray(
			    dn[j].leaves, dn[j].names.n, sizeof(*dn[j].leaves));
			memset(&dn[j].leaves[at], 0, sizeof(dn[j].leaves[at]));
		}
		plan_macos_set_add_owned(&dn[j].leaves[at], plan_macos_js_basename(e->path));
		free(name);
		free(parent);
		free(dir);
	}
	*ndnp = ndn;
	return dn;
}

/*
 * Keeps of a group the names short enough for one regex; a group left too small is
 * freed (false), one kept adds every path it covers to grouped (true).
 */
static bool
group_trim(struct group *g, struct strlist *grouped)
{
	char *pre = group_prefix(g), *tail = group_tail(g);
	size_t fixed = quoted_len(pre) + quoted_len(tail), j, m;
	struct strlist kept = { 0 };

	for (j = 0; j < g->names.n; j++) {
		char *esc = glob_regex_escape_literal(g->names.v[j]);

		if (fixed + quoted_len(esc) <= STRING_MAX)
			strlist_push(&kept, g->names.v[j]);
		free(esc);
	}
	free(pre);
	free(tail);
	strlist_free(&g->names);
	g->names = kept;
	if (g->names.n < MIN_GROUP) {
		free(g->dir);
		strlist_free(&g->names);
		strlist_free(&g->leaves);
		return false;
	}
	for (j = 0; j < g->names.n; j++)
		for (m = 0; m < g->leaves.n; m++) {
			char *a = plan_macos_js_join(g->dir, g->names.v[j]);

			plan_macos_set_add_owned(
			    grouped, plan_macos_js_join(a, g->leaves.v[m]));
			free(a);
		}
	return true;
}

static void
group_literal_denies(
    const struct ments *entries, struct group **gout, size_t *ngout, struct strlist *grouped)
{
	struct dir_names *dn;
	struct group *groups = NULL;
	size_t ndn, ng = 0, kept_groups = 0, i, j, k;

	dn = collect_dir_names(entries, &ndn);
	for (i = 0; i < ndn; i++) {
		size_t first = ng;

		for (k = 0; k < dn[i].names.n; k++) {
			struct strlist *lv = &dn[i].leaves[k];

			qsort(lv->v, lv->n, sizeof(char *), cmp_str);
			for (j = first; j < ng && !same_list(&groups[j].leaves, lv); j++)
				;
			if (j == ng) {
				groups = xreallocarray(groups, ng + 1, sizeof(*groups));
				memset(&groups[ng], 0, sizeof(*groups));
				groups[ng].dir = xstrdup(dn[i].dir);
				for (size_t m = 0; m < lv->n; m++)
					strlist_push(&groups[ng].leaves, lv->v[m]);
				ng++;
			}
			strlist_push(&groups[j].names, dn[i].names.v[k]);
		}
	}
	/* Names too long for one regex stay filters of their own; so do groups too small. */
	for (i = 0; i < ng; i++)
		if (group_trim(&groups[i], grouped))
			groups[kept_groups++] = groups[i];
	for (i = 0; i < ndn; i++) {
		for (k = 0; k < dn[i].names.n; k++)
			strlist_free(&dn[i].leaves[k]);
		free(dn[i].leaves);
		strlist_free(&dn[i].names);
		free(dn[i].dir);
	}
	free(dn);
	*gout = groups;
	*ngout = kept_groups;
}

/* A group's filters: the denies (each DIR/NAME/LEAF and beneath) and the pins (each
 * DIR/NAME itself), chunked so that no string is too long. */
static void
group_filters(const struct group *g, struct strlist *deny, struct strlist *pins)
{
	char *pre = group_prefix(g), *tail = group_tail(g);
	size_t fixed = quoted_len(pre) + quoted_len(tail), chunk_len = 0, i, start = 0;
	struct strlist esc = { 0 };

	for (i = 0; i < g->names.n; i++)
		strlist_push_owned(&esc, glob_regex_escape_literal(g->names.v[i]));
	for (i = 0; i <= esc.n; i++) {
		size_t nlen = i < esc.n ? quoted_len(esc.v[i]) + (i > start) : 0;

		if (i == esc.n || (i > start && fixed + chunk_len + nlen > STRING_MAX)) {
			size_t len = 1, m;
			char *alt, *re;

			for (m = start; m < i; m++)
				len += strlen(esc.v[m]) + 1;
			alt = xmalloc(len);
			alt[0] = '\0';
			for (m = start; m < i; m++) {
				if (m > start)
					strcat(alt, "|");
				strcat(alt, esc.v[m]);
			}
			re = xasprintf("%s%s%s", pre, alt, tail);
			strlist_push_owned(deny, filter_of("regex", re));
			free(re);
			re = xasprintf("%s%s)$", pre, alt);
			strlist_push_owned(pins, filter_of("regex", re));
			free(re);
			free(alt);
			if (i == esc.n)
				break;
			start = i;
			chunk_len = 0;
			nlen = quoted_len(esc.v[i]);
		}
		chunk_len += i == start ? quoted_len(esc.v[i]) : nlen;
	}
	strlist_free(&esc);
	free(pre);
	free(tail);
}

/* The mandatory denies: each name in the cwd, and the same name at any depth below. */
static void
mandatory_denies(const struct mb *b, bool allow_git_config, struct ments *out)
{
	char *cwd = plan_macos_normalize_for_sandbox(b, b->cwd, true);
	struct strlist rel = { 0 }, pat = { 0 };
	size_t i;

	for (i = 0; i < nitems(dangerous_files); i++) {
		strlist_push(&rel, dangerous_files[i]);
		strlist_pushf(&pat, "**/%s", dangerous_files[i]);
	}
	for (i = 0; i < nitems(dangerous_dirs); i++) {
		strlist_push(&rel, dangerous_dirs[i]);
		strlist_pushf(&pat, "**/%s/**", dangerous_dirs[i]);
	}
	strlist_push(&rel, ".git/hooks");
	strlist_push(&pat, "**/.git/hooks/**");
	if (!allow_git_config) {
		strlist_push(&rel, ".git/config");
		strlist_push(&pat, "**/.git/config");
	}
	for (i = 0; i < rel.n; i++) {
		char *p = plan_macos_js_resolve(cwd, rel.v[i]);

		plan_macos_add_literal(b, out, p);
		free(p);
		plan_macos_ments_add(
		    out, plan_macos_js_join(cwd, pat.v[i]), xstrdup(cwd), true);
	}
	strlist_free(&rel);
	strlist_free(&pat);
	free(cwd);
}

void
plan_macos_write_rules(struct mb *b, const struct readcfg *rc,
    const struct strlist *deny_spelled, const struct strlist *deny_literal,
    bool allow_git_config)
{
	struct ments denies = { 0 }, rest = { 0 };
	struct strlist set = { 0 }, grouped = { 0 }, pins = { 0 };
	struct group *groups;
	size_t ng, i, k;

	for (i = 0; i < rc->write_roots.n; i++)
		plan_macos_set_add_owned(&set, entry_filter(&rc->write_roots.v[i], false));
	rule(b, "allow", "file-write*", &set);

	for (i = 0; i < deny_spelled->n; i++)
		plan_macos_add_spelled(b, &denies, deny_spelled->v[i]);
	for (i = 0; i < deny_literal->n; i++)
		plan_macos_add_literal(b, &denies, deny_literal->v[i]);
	mandatory_denies(b, allow_git_config, &denies);
	for (i = 0; i < deny_spelled->n; i++)
		plan_macos_literal_readings(b, deny_spelled->v[i], K_DENY, &denies);

	group_literal_denies(&denies, &groups, &ng, &grouped);
	for (i = 0; i < denies.n; i++)
		if (!strlist_contains(&grouped, denies.v[i].path))
			plan_macos_ments_add_copy(&rest, &denies.v[i]);
	for (i = 0; i < ng; i++) {
		struct strlist d = { 0 }, p = { 0 };

		group_filters(&groups[i], &d, &p);
		for (k = 0; k < d.n; k++)
			plan_macos_set_add(&set, d.v[k]);
		for (k = 0; k < p.n; k++)
			strlist_push(&pins, p.v[k]);
		strlist_free(&d);
		strlist_free(&p);
	}
	for (i = 0; i < rest.n; i++)
		plan_macos_set_add_owned(&set, entry_filter(&rest.v[i], true));
	rule(b, "deny", "file-write*", &set);

	move_blocking_filters(&rest, &set);
	for (i = 0; i < ng; i++) {
		struct strlist d = { 0 }, p = { 0 }, anc = { 0 };

		group_filters(&groups[i], &d, &p);
		for (k = 0; k < d.n; k++)
			plan_macos_set_add(&set, d.v[k]);
		for (k = 0; k < p.n; k++)
			plan_macos_set_add(&set, p.v[k]);
		add_literal_filter(&set, groups[i].dir);
		plan_macos_ancestors(groups[i].dir, &anc);
		for (k = 0; k < anc.n; k++)
			add_literal_filter(&set, anc.v[k]);
		strlist_free(&anc);
		strlist_free(&d);
		strlist_free(&p);
	}
	rule(b, "deny", "file-write-unlink file-write-create", &set);

	for (i = 0; i < ng; i++) {
		free(groups[i].dir);
		strlist_free(&groups[i].names);
		strlist_free(&groups[i].leaves);
	}
	free(groups);
	strlist_free(&pins);
	strlist_free(&grouped);
	plan_macos_ments_free(&denies);
	plan_macos_ments_free(&rest);
}
