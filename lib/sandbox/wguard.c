/*
 * The write guard's rules, their encoding, and the questions of wguard.h.
 *
 * Encoding (a sealed memfd from srt-launch to srt-seccomp; decoded as untrusted bytes):
 *   "srt-wguard 2\n", then records, each a tag byte and NUL-terminated fields:
 *     'X' PATH WHY      an exact protected path and its reason, its way pinned
 *     'H' PATH WHY      the same, its way not pinned
 *     'R' PATH          a root of the name rules
 *     'A' PATH          a write root (bound writable), for the violation monitor
 *     'B' PATH ENTRY    an allowWrite entry missing at the start, for the monitor: its
 *                       absolute path and its spelling in the settings
 *     'C' PATTERN ENTRY the same for an allowWrite glob: new matches stay read-only
 *     'W' NAME MOUNT    a read deny to watch: its name as given, and the mask it leads to
 *     'F' NAME MOUNT    the same, a file whose mask srt-seccomp mounts (bwrap does not)
 *     'M' NAME          a read deny missing at the start: the sandbox ends if it appears
 *     'D' N             mandatoryDenySearchDepth, 1..10
 *     'G' 0|1           allowGitConfig
 *     'P' GLOB WHY      a denyWrite glob (absolute, normalised, with a wildcard) and why
 *   Paths are absolute and normalised (no "//", "." or ".." component, no trailing "/").
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gitconfig.h"
#include "glob.h"
#include "path.h"
#include "wguard.h"

#define WG_MAGIC "srt-wguard 2\n"
#define WG_MAX_RECORDS 1000000
#define nitems(a) (sizeof(a) / sizeof((a)[0]))

#define WHY_ANCESTOR "mandatory deny: on the way to a protected path"
#define WHY_NESTED \
	"mandatory deny: a git repository inside a repository that " \
	"predates the run (its git status would enter it; make it outside)"
#define WHY_HOOK "mandatory deny: git hooks"
/* Only the user's config goes: the command's own it may remove (see wg_git). */
#define WHY_CFG_REMOVE \
	"the removal of the git configuration of a repository that predates the run " \
	"(allowGitConfig allows it)"
#define WHY_POINTER \
	"mandatory deny: a git directory pointer of a repository that " \
	"predates the run"

/* The markers a question returns for what the supervisor decides by content. */
const char wguard_why_cfg_write[] =
    "git configuration written in place (only git's "
    "lock file renamed onto it is checked; allowGitConfig allows it)";
const char wguard_why_gitcfg[] =
    "git configuration made other than as git makes it (by renaming its config.lock, "
    "which is judged): copy or extract a repository into a new directory, or git "
    "clone it; allowGitConfig allows it";
const char wguard_why_cfg_new[] =
    "git configuration made other than by a rename of "
    "git's lock file or an open that creates it (allowGitConfig allows it)";
const char wguard_why_dotgit[] = "mandatory deny: the .git of a directory that predates the run";
const char wguard_why_pointer[] = "mandatory deny: a .git file inside a repository "
				  "that predates the run, made other than by writing it";
const char wguard_why_complete[] = "mandatory deny: a directory becomes a git "
				   "directory with configuration or hooks not checked";

bool
wguard_hook_sample(const char *name)
{
	size_t n = strlen(name);

	return n > 7 && strchr(name, '/') == NULL && strcmp(name + n - 7, ".sample") == 0;
}

/* --- a set of strings: open addressing, FNV-1a ------------------------------------------ */

struct wg_set {
	const char **key;
	size_t *klen; /* strlen of each key: a probe compares lengths first */
	size_t *val;
	size_t cap, n;
};

static uint64_t
wg_hash(const char *s, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	while (len-- > 0) {
		h ^= (unsigned char)*s++;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static struct wg_set *
wg_set_new(size_t want)
{
	struct wg_set *s = xcalloc(1, sizeof(*s));

	s->cap = 16;
	while (s->cap < want * 2 + 1)
		s->cap *= 2;
	s->key = xcalloc(s->cap, sizeof(*s->key));
	s->klen = xcalloc(s->cap, sizeof(*s->klen));
	s->val = xcalloc(s->cap, sizeof(*s->val));
	return s;
}

static void
wg_set_free(struct wg_set *s)
{
	if (s == NULL)
		return;
	free(s->key);
	free(s->klen);
	free(s->val);
	free(s);
}

/* The slot of (p, len), or the free slot where it would go. */
static size_t
wg_set_slot(const struct wg_set *s, const char *p, size_t len)
{
	size_t i = (size_t)wg_hash(p, len) & (s->cap - 1);

	while (s->key[i] != NULL && (s->klen[i] != len || memcmp(s->key[i], p, len) != 0))
		i = (i + 1) & (s->cap - 1);
	return i;
}

/* Keys are borrowed: they must outlive the set. */
static void
wg_set_add(struct wg_set *s, const char *key, size_t val)
{
	size_t len = strlen(key), i = wg_set_slot(s, key, len);

	if (s->key[i] != NULL)
		return;
	s->key[i] = key;
	s->klen[i] = len;
	s->val[i] = val;
	s->n++;
}

/* The value of the first len bytes of p, or (size_t)-1. */
static size_t
wg_set_get(const struct wg_set *s, const char *p, size_t len)
{
	size_t i;

	if (s == NULL || s->n == 0)
		return (size_t)-1;
	i = wg_set_slot(s, p, len);
	return s->key[i] != NULL ? s->val[i] : (size_t)-1;
}

/* --- building ----------------------------------------------------------------------------- */

void
wguard_init(struct wguard *g)
{
	memset(g, 0, sizeof(*g));
	g->depth = WGUARD_DEPTH_DEFAULT;
}

void
wguard_free(struct wguard *g)
{
	size_t i;

	if (g == NULL)
		return;
	strlist_free(&g->exact);
	strlist_free(&g->exact_why);
	strlist_free(&g->globs);
	strlist_free(&g->globs_why);
	strlist_free(&g->roots);
	strlist_free(&g->writable);
	strlist_free(&g->absent);
	strlist_free(&g->absent_entry);
	strlist_free(&g->absent_why);
	strlist_free(&g->absent_glob);
	for (i = 0; i < g->watch.n; i++) {
		free(g->watch.v[i].name);
		free(g->watch.v[i].mount);
	}
	free(g->watch.v);
	g->watch.v = NULL;
	g->watch.n = 0;
	strlist_free(&g->anc);
	free(g->exact_pin);
	g->exact_pin = NULL;
	free(g->name_len);
	g->name_len = NULL;
	wg_set_free(g->exact_set);
	wg_set_free(g->anc_set);
	wg_set_free(g->pin_set);
	g->exact_set = g->anc_set = g->pin_set = NULL;
}

/* Add without normalising (the decoder has checked the spelling). */
static void
wg_push(struct wguard *g, const char *path, const char *why, bool pin)
{
	size_t i = wg_set_get(g->exact_set, path, strlen(path)), k;

	if (i != (size_t)-1) {
		g->exact_pin[i] |= pin; /* pinned if any wants it */
		return;
	}
	/* The set grows with the list (keys are the list's strings). */
	if (g->exact_set == NULL || (g->exact.n + 1) * 2 > g->exact_set->cap) {
		wg_set_free(g->exact_set);
		g->exact_set = wg_set_new(g->exact.n + 1);
		for (k = 0; k < g->exact.n; k++)
			wg_set_add(g->exact_set, g->exact.v[k], k);
	}
	strlist_push(&g->exact, path);
	strlist_push(&g->exact_why, why);
	g->exact_pin = xreallocarray(g->exact_pin, g->exact.n, 1);
	g->exact_pin[g->exact.n - 1] = pin;
	wg_set_add(g->exact_set, g->exact.v[g->exact.n - 1], g->exact.n - 1);
}

void
wguard_add_exact(struct wguard *g, const char *path, const char *why, bool pin)
{
	char *n = path_normalize(path);

	if (n != NULL)
		wg_push(g, n, why, pin);
	free(n);
}

void
wguard_add_glob(struct wguard *g, const char *pattern, const char *why)
{
	char *n = path_normalize(pattern);

	if (n != NULL && !strlist_contains(&g->globs, n)) {
		strlist_push(&g->globs, n);
		strlist_push(&g->globs_why, why);
	}
	free(n);
}

/* Add without normalising (a pair twice costs the watch one more look, nothing else). */
static void
wg_push_watch(struct wguard *g, const char *name, const char *mount, bool place)
{
	struct wguard_watched *w;

	g->watch.v = xreallocarray(g->watch.v, g->watch.n + 1, sizeof(*g->watch.v));
	w = &g->watch.v[g->watch.n++];
	w->name = xstrdup(name);
	w->mount = mount != NULL ? xstrdup(mount) : NULL;
	w->place = place && mount != NULL;
}

static void
wg_add_watch(struct wguard *g, const char *name, const char *mount, bool place)
{
	char *n = path_normalize(name), *m = mount != NULL ? path_normalize(mount) : NULL;

	if (n != NULL && (mount == NULL || m != NULL))
		wg_push_watch(g, n, m, place);
	free(n);
	free(m);
}

void
wguard_add_watch(struct wguard *g, const char *name, const char *mount)
{
	wg_add_watch(g, name, mount, false);
}

void
wguard_add_mask(struct wguard *g, const char *name, const char *mount)
{
	wg_add_watch(g, name, mount, true);
}

static void
wg_first_add(struct wguard *g, unsigned char c)
{
	unsigned char l = (unsigned char)tolower(c), u = (unsigned char)toupper(c);

	g->name_first[l / 8] |= (unsigned char)(1u << (l % 8));
	g->name_first[u / 8] |= (unsigned char)(1u << (u % 8));
}

/* Might a component starting with c be one of the names? Always, before the index. */
static bool
wg_first_may(const struct wguard *g, unsigned char c)
{
	return g->name_len == NULL || (g->name_first[c / 8] & (1u << (c % 8))) != 0;
}

void
wguard_index(struct wguard *g)
{
	size_t i, n = 0, len;
	const char *p, *slash;
	char *a;

	wg_set_free(g->exact_set);
	wg_set_free(g->anc_set);
	wg_set_free(g->pin_set);
	strlist_free(&g->anc);
	/* The names' parts, measured once: every write-intent call compares them. */
	if (g->name_len == NULL) {
		g->name_len = xcalloc(2 * wguard_nnames, sizeof(*g->name_len));
		for (i = 0; i < wguard_nnames; i++) {
			len = strlen(wguard_names[i].name);
			slash = strchr(wguard_names[i].name, '/');
			g->name_len[2 * i] = slash != NULL
			    ? (size_t)(slash - wguard_names[i].name)
			    : len;
			g->name_len[2 * i + 1] = len;
			wg_first_add(g, (unsigned char)wguard_names[i].name[0]);
		}
	}
	g->exact_set = wg_set_new(g->exact.n);
	for (i = 0; i < g->exact.n; i++) {
		wg_set_add(g->exact_set, g->exact.v[i], i);
		n += path_depth(g->exact.v[i]);
	}
	/* Every proper ancestor once; the sets borrow the strings g->anc owns. */
	g->anc_set = wg_set_new(n + 1);
	g->pin_set = wg_set_new(n + 1);
	for (i = 0; i < g->exact.n; i++) {
		p = g->exact.v[i];
		if (strcmp(p, "/") == 0)
			continue;
		for (slash = strrchr(p, '/'); slash != NULL;
		     slash = slash > p ? memrchr(p, '/', (size_t)(slash - p)) : NULL) {
			len = slash > p ? (size_t)(slash - p) : 1;
			if (wg_set_get(g->anc_set, p, len) == (size_t)-1) {
				a = xstrndup(p, len);
				strlist_push_owned(&g->anc, a);
				wg_set_add(g->anc_set, a, 0);
			}
			if (!g->exact_pin[i])
				continue;
			if (wg_set_get(g->pin_set, p, len) != (size_t)-1)
				break; /* and so are its own ancestors */
			a = g->anc.v[g->anc.n - 1];
			if (strlen(a) != len || memcmp(a, p, len) != 0) {
				a = xstrndup(p, len);
				strlist_push_owned(&g->anc, a);
			}
			wg_set_add(g->pin_set, a, 0);
		}
	}
}

/* --- encoding ------------------------------------------------------------------------------ */

struct wg_buf {
	char *p;
	size_t len, cap;
};

static void
wg_buf_add(struct wg_buf *b, const void *p, size_t n)
{
	if (b->cap - b->len < n) {
		while (b->cap - b->len < n)
			b->cap = b->cap ? b->cap * 2 : 4096;
		b->p = xreallocarray(b->p, b->cap, 1);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

/* One record: its tag, then each field with its NUL. */
static void
wg_record(struct wg_buf *b, char tag, const char *f1, const char *f2)
{
	wg_buf_add(b, &tag, 1);
	wg_buf_add(b, f1, strlen(f1) + 1);
	if (f2 != NULL)
		wg_buf_add(b, f2, strlen(f2) + 1);
}

char *
wguard_encode(const struct wguard *g, size_t *len)
{
	struct wg_buf b = { 0 };
	char num[16];
	size_t i;

	wg_buf_add(&b, WG_MAGIC, strlen(WG_MAGIC));
	for (i = 0; i < g->exact.n; i++)
		wg_record(&b, g->exact_pin[i] ? 'X' : 'H', g->exact.v[i], g->exact_why.v[i]);
	for (i = 0; i < g->globs.n; i++)
		wg_record(&b, 'P', g->globs.v[i], g->globs_why.v[i]);
	for (i = 0; i < g->roots.n; i++)
		wg_record(&b, 'R', g->roots.v[i], NULL);
	for (i = 0; i < g->writable.n; i++)
		wg_record(&b, 'A', g->writable.v[i], NULL);
	for (i = 0; i < g->absent.n; i++)
		wg_record(&b, g->absent_glob.v[i][0] == '1' ? 'C' : 'B', g->absent.v[i],
		    g->absent_entry.v[i]);
	for (i = 0; i < g->watch.n; i++)
		wg_record(&b,
		    g->watch.v[i].mount == NULL ? 'M'
			: g->watch.v[i].place   ? 'F'
						: 'W',
		    g->watch.v[i].name, g->watch.v[i].mount);
	snprintf(num, sizeof(num), "%d", g->depth);
	wg_record(&b, 'D', num, NULL);
	wg_record(&b, 'G', g->allow_git_config ? "1" : "0", NULL);
	*len = b.len;
	return b.p;
}

/* A field at *off: NUL-terminated within len; its start, and *off past it. */
static const char *
wg_field(const char *buf, size_t len, size_t *off)
{
	const char *f = buf + *off, *nul;

	if (*off >= len || (nul = memchr(f, '\0', len - *off)) == NULL)
		return NULL;
	*off += (size_t)(nul - f) + 1;
	return f;
}

/* Absolute and normalised, as the encoder writes every path. */
static bool
wg_path_ok(const char *p)
{
	size_t n = strlen(p);

	if (n == 0 || n >= 4096 || p[0] != '/' || (n > 1 && p[n - 1] == '/'))
		return false;
	return strstr(p, "//") == NULL && strstr(p, "/./") == NULL &&
	    strstr(p, "/../") == NULL && strcmp(p + (n >= 2 ? n - 2 : 0), "/.") != 0 &&
	    strcmp(p + (n >= 3 ? n - 3 : 0), "/..") != 0;
}

int
wguard_decode(const char *buf, size_t len, struct wguard *g, char *err, size_t errlen)
{
	size_t off = strlen(WG_MAGIC), records = 0;
	const char *f1, *f2;
	char tag, *end;
	long v;

	wguard_init(g);
	if (len < off || memcmp(buf, WG_MAGIC, off) != 0) {
		snprintf(err, errlen, "not a write guard (bad magic)");
		return -1;
	}
	while (off < len) {
		if (++records > WG_MAX_RECORDS) {
			snprintf(err, errlen, "more than %d records", WG_MAX_RECORDS);
			goto bad;
		}
		tag = buf[off++];
		if ((f1 = wg_field(buf, len, &off)) == NULL) {
			snprintf(err, errlen, "record %zu: truncated", records);
			goto bad;
		}
		switch (tag) {
		case 'X':
		case 'H':
			if ((f2 = wg_field(buf, len, &off)) == NULL || !wg_path_ok(f1) ||
			    *f2 == '\0') {
				snprintf(
				    err, errlen, "record %zu: malformed exact path", records);
				goto bad;
			}
			wg_push(g, f1, f2, tag == 'X');
			break;
		case 'P':
			if ((f2 = wg_field(buf, len, &off)) == NULL || !wg_path_ok(f1) ||
			    !glob_has_magic(f1) || *f2 == '\0') {
				snprintf(err, errlen, "record %zu: malformed glob", records);
				goto bad;
			}
			strlist_push(&g->globs, f1);
			strlist_push(&g->globs_why, f2);
			break;
		case 'R':
		case 'A':
			if (!wg_path_ok(f1)) {
				snprintf(err, errlen, "record %zu: malformed %s", records,
				    tag == 'R' ? "path" : "write root");
				goto bad;
			}
			strlist_push(tag == 'R' ? &g->roots : &g->writable, f1);
			break;
		case 'B':
		case 'C':
			if ((f2 = wg_field(buf, len, &off)) == NULL || !wg_path_ok(f1) ||
			    *f2 == '\0') {
				snprintf(err, errlen,
				    "record %zu: malformed missing allowWrite", records);
				goto bad;
			}
			wguard_add_absent(g, f1, f2, tag == 'C');
			break;
		case 'W':
		case 'F':
			if ((f2 = wg_field(buf, len, &off)) == NULL || !wg_path_ok(f1) ||
			    !wg_path_ok(f2)) {
				snprintf(
				    err, errlen, "record %zu: malformed read deny", records);
				goto bad;
			}
			wg_push_watch(g, f1, f2, tag == 'F');
			break;
		case 'M':
			if (!wg_path_ok(f1)) {
				snprintf(err, errlen, "record %zu: malformed missing read deny",
				    records);
				goto bad;
			}
			wg_push_watch(g, f1, NULL, false);
			break;
		case 'D':
			errno = 0;
			v = strtol(f1, &end, 10);
			if (errno != 0 || end == f1 || *end != '\0' || v < 1 || v > 10) {
				snprintf(
				    err, errlen, "record %zu: depth out of 1..10", records);
				goto bad;
			}
			g->depth = (int)v;
			break;
		case 'G':
			if (strcmp(f1, "0") != 0 && strcmp(f1, "1") != 0) {
				snprintf(err, errlen, "record %zu: allowGitConfig not 0 or 1",
				    records);
				goto bad;
			}
			g->allow_git_config = f1[0] == '1';
			break;
		default:
			snprintf(err, errlen, "record %zu: unknown tag 0x%02x", records,
			    (unsigned char)tag);
			goto bad;
		}
	}
	wguard_index(g);
	return 0;
bad:
	wguard_free(g);
	wguard_init(g);
	return -1;
}

/* --- questions ------------------------------------------------------------------------------ */

/* two: the name has two parts (".claude/commands"). */
static int
wg_maxlevel(const struct wguard *g, const struct wguard_name *n, bool two)
{
	int d = g->depth > 0 ? g->depth : WGUARD_DEPTH_DEFAULT;

	if (n->kind == WG_DIR || two)
		return d - 2;
	return d - 1;
}

/* Does component c (clen bytes) equal the name s (case aside, as the reference)? */
static bool
wg_ceq(const char *c, size_t clen, const char *s, size_t slen)
{
	return clen == slen && strncasecmp(c, s, clen) == 0;
}

/*
 * The first (at most max) components of path below root: starts and lengths in comp[],
 * their count; -1 if path is not under root.
 */
static int
wg_split(const char *path, const char *root, const char **comp, size_t *clen, int max)
{
	const char *p, *slash;
	int n = 0;

	if (!path_is_under(path, root))
		return -1;
	p = path + (strcmp(root, "/") == 0 ? 1 : strlen(root));
	while (*p == '/')
		p++;
	while (*p != '\0') {
		if (n == max)
			return n;
		slash = strchr(p, '/');
		comp[n] = p;
		clen[n] = slash != NULL ? (size_t)(slash - p) : strlen(p);
		n++;
		p += clen[n - 1];
		while (*p == '/')
			p++;
	}
	return n;
}

#define WG_MAXCOMP 12 /* deeper than any depth rule reaches (depth <= 10) */

/*
 * Is the directory of component comp (in path) the user's: one that predates the run?
 * The dangerous names are about what the user's tools read in the user's tree; in a
 * directory the command made (a clone, an unpacked archive) they are the command's
 * files, like a download's.
 */
static bool
wg_users(const struct wguard_fs *fs, const char *path, const char *comp)
{
	char dir[4096];
	size_t len = comp > path + 1 ? (size_t)(comp - path - 1) : 1;

	if (fs == NULL || fs->predates == NULL || len >= sizeof(dir))
		return true;
	memcpy(dir, path, len);
	dir[len] = '\0';
	return fs->predates(fs->arg, dir);
}

/*
 * The dangerous names below each root, in the user's directories. lead: also refuse
 * path when it is the first part of a two-part name (".claude" of ".claude/commands"),
 * for entries made as anything but a directory.
 */
static const char *
wg_names(const struct wguard *g, const struct wguard_fs *fs, const char *path, bool lead)
{
	const char *comp[WG_MAXCOMP];
	size_t clen[WG_MAXCOMP], i, k, l1, len;
	int n, c;

	for (i = 0; i < g->roots.n; i++) {
		/* Only the first maxlevel+2 components can match. */
		if ((n = wg_split(path, g->roots.v[i], comp, clen, WG_MAXCOMP)) == -1)
			continue;
		/* Most paths have no component that starts like a name (the names are
		 * dot files, and lefthook's): none can match then. */
		for (c = 0; c < n && !wg_first_may(g, (unsigned char)comp[c][0]); c++)
			;
		if (c == n)
			continue;
		for (k = 0; k < wguard_nnames; k++) {
			const struct wguard_name *nm = &wguard_names[k];
			int max;

			if (g->name_len != NULL) {
				l1 = g->name_len[2 * k];
				len = g->name_len[2 * k + 1];
			} else {
				len = strlen(nm->name);
				l1 = strcspn(nm->name, "/");
			}
			max = wg_maxlevel(g, nm, l1 < len);
			for (c = 0; c < n && c <= max; c++) {
				if (!wg_ceq(comp[c], clen[c], nm->name, l1))
					continue;
				if (l1 == len ||
				    (c + 1 < n &&
					wg_ceq(comp[c + 1], clen[c + 1], nm->name + l1 + 1,
					    len - l1 - 1)) ||
				    (lead && c + 1 == n)) {
					if (wg_users(fs, path, comp[c]))
						return nm->why;
				}
			}
		}
	}
	return NULL;
}

/* The length of the parent of path's first len bytes ("/" for a top directory); len
 * itself at "/". */
static size_t
wg_up_len(const char *path, size_t len)
{
	while (len > 1 && path[len - 1] != '/')
		len--;
	if (len > 1)
		len--; /* the "/" before the last component */
	return len;
}

/* The reason of the exact path path is, or lies under (users: only one of a user's
 * rule, not a mandatory deny). */
static const char *
wg_exact_up(const struct wguard *g, const char *path, bool users)
{
	size_t len = strlen(path), v;

	for (;;) {
		if ((v = wg_set_get(g->exact_set, path, len)) != (size_t)-1 &&
		    (!users || strncmp(g->exact_why.v[v], "mandatory deny", 14) != 0))
			return g->exact_why.v[v];
		if (len <= 1)
			return NULL;
		len = wg_up_len(path, len);
	}
}

static const char *
wg_exact(const struct wguard *g, const char *path)
{
	return wg_exact_up(g, path, false);
}

enum wg_op {
	WG_WRITE,
	WG_CREATE,
	WG_REMOVE
};

/* The directory of the component at comp in path, into buf; NULL when too long. */
static const char *
wg_dir_of(const char *path, const char *comp, char *buf, size_t size)
{
	size_t len = comp > path + 1 ? (size_t)(comp - path - 1) : 1;

	if (len >= size)
		return NULL;
	memcpy(buf, path, len);
	buf[len] = '\0';
	return buf;
}

/* The component of a path at c or after its slashes, *len its length; NULL at the end. */
static const char *
wg_component(const char *c, size_t *len)
{
	while (*c == '/')
		c++;
	if (*c == '\0')
		return NULL;
	*len = strcspn(c, "/");
	return c;
}

/*
 * Is dir inside a git directory by its place: below a component ".git", or below a
 * "modules" or "worktrees" of a git directory (a submodule's or a linked worktree's git
 * directory, before it is complete too)? Every write there was asked about as git state.
 */
static bool
wg_gitctx_named(const struct wguard_fs *fs, const char *dir)
{
	char parent[4096];
	const char *c = dir;
	size_t len;

	for (; (c = wg_component(c, &len)) != NULL; c += len) {
		if (wg_ceq(c, len, ".git", 4))
			return true;
		if ((wg_ceq(c, len, "modules", 7) || wg_ceq(c, len, "worktrees", 9)) &&
		    wg_dir_of(dir, c, parent, sizeof(parent)) != NULL &&
		    fs->is_git_dir(fs->arg, parent) != 0)
			return true;
	}
	return false;
}

/* Does git state live in dir: a git directory, or inside one? */
static bool
wg_gitctx(const struct wguard_fs *fs, const char *dir)
{
	return wg_gitctx_named(fs, dir) || fs->is_git_dir(fs->arg, dir) != 0;
}

/* Does a git directory of the user's (one that predates the run) hold dir? */
static bool
wg_below_users_git(const struct wguard_fs *fs, const char *dir)
{
	char a[4096];
	size_t len = strlen(dir);

	if (len >= sizeof(a))
		return true;
	memcpy(a, dir, len + 1);
	while (len > 1) {
		len = wg_up_len(a, len);
		a[len] = '\0';
		if (fs->predates(fs->arg, a) && wg_gitctx(fs, a))
			return true;
	}
	return false;
}

/*
 * Is dir the .git of a directory that predates the run (git init in the project
 * directory)? Its work tree is one the host's git, an editor's or the agent's, may
 * enter while the command still runs, so its config cannot wait for the run's end to
 * be judged (wguard_why_cfg_new).
 */
static bool
wg_in_users_dir(const struct wguard_fs *fs, const char *dir)
{
	char *work;
	bool r;

	if (strcasecmp(path_basename(dir), ".git") != 0)
		return false;
	work = path_dirname(dir);
	r = fs->predates(fs->arg, work);
	free(work);
	return r;
}

/*
 * git's own files, in every git directory (the user's, and the ones the command makes:
 * a git directory is never just the command's, the host's git executes what it says):
 *   hooks/NAME   nothing git runs: only *.sample (what init and clone copy) is made or
 *                written, in a git directory the command made; the user's hooks
 *                directory and all in it stay as they are;
 *   config, config.worktree   never written in place; made only by the rename of a
 *                file the supervisor judges by content (wguard_why_gitcfg), unless
 *                allowGitConfig; in a git directory the command made, below none of
 *                the user's and not the .git of a directory that predates the run,
 *                also by an open that creates it (cp, tar: the supervisor judges it
 *                as new once the command is gone, wguard_why_cfg_new);
 *   commondir, gitdir   made new only where the directory is not the user's (the
 *                supervisor checks what they point to), never rewritten.
 * What the command made in its own git directories it may remove; nothing of the
 * user's.
 */
static const char *
wg_git(const struct wguard *g, const struct wguard_fs *fs, const char *path, enum wg_op op)
{
	const char *c = path, *e, *last = path_basename(path);
	char dir[4096];
	size_t len;
	bool users;

	/* The .git entry itself (a directory, or a file naming one: a submodule's) of a
	 * directory that predates the run: rewritten, it points git elsewhere. */
	if (op != WG_CREATE && strcasecmp(last, ".git") == 0 &&
	    wg_dir_of(path, last, dir, sizeof(dir)) != NULL && fs->predates(fs->arg, dir))
		return wguard_why_dotgit;
	for (; (c = wg_component(c, &len)) != NULL; c = e) {
		e = c + len;
		if (!wg_ceq(c, len, "hooks", 5) &&
		    (*e != '\0' ||
			(!wg_ceq(c, len, "config", 6) &&
			    !wg_ceq(c, len, "config.worktree", 15) &&
			    !wg_ceq(c, len, "commondir", 9) && !wg_ceq(c, len, "gitdir", 6))))
			continue;
		if (wg_dir_of(path, c, dir, sizeof(dir)) == NULL)
			return WHY_HOOK; /* too long to look at: protect */
		if (!wg_gitctx(fs, dir))
			continue;
		users = fs->predates(fs->arg, dir);
		if (wg_ceq(c, len, "hooks", 5)) {
			const char *name;

			/* The user's hooks directory stays as it is, samples too. */
			if (users)
				return WHY_HOOK;
			if (*e == '\0' || op == WG_REMOVE)
				return NULL;
			name = e + 1; /* past the '/' only now: *e may end the string */
			if (wguard_hook_sample(name))
				return NULL;
			return WHY_HOOK;
		}
		if (wg_ceq(c, len, "config", 6) || wg_ceq(c, len, "config.worktree", 15)) {
			if (g->allow_git_config)
				return NULL;
			if (op == WG_CREATE)
				return users || wg_below_users_git(fs, dir) ||
					wg_in_users_dir(fs, dir)
				    ? wguard_why_gitcfg
				    : wguard_why_cfg_new;
			if (op == WG_REMOVE)
				return users ? WHY_CFG_REMOVE : NULL;
			return op == WG_WRITE || users ? wguard_why_cfg_write : NULL;
		}
		return op == WG_WRITE || users ? WHY_POINTER : NULL;
	}
	return NULL;
}

/* The denyWrite glob path matches, or lies under a match of. */
static const char *
wg_glob(const struct wguard *g, const char *path)
{
	size_t i;

	for (i = 0; i < g->globs.n; i++)
		if (glob_match_under(g->globs.v[i], path))
			return g->globs_why.v[i];
	return NULL;
}

const char *
wguard_protected(const struct wguard *g, const struct wguard_fs *fs, const char *path)
{
	const char *why;

	if (g->inert)
		return NULL;
	if ((why = wg_glob(g, path)) != NULL)
		return why;
	if ((why = wg_exact(g, path)) != NULL || (why = wg_names(g, fs, path, false)) != NULL)
		return why;
	return wg_git(g, fs, path, WG_WRITE);
}

void
wguard_add_absent(struct wguard *g, const char *path, const char *entry, bool glob)
{
	strlist_push(&g->absent, path);
	strlist_push(&g->absent_entry, entry);
	strlist_push_owned(&g->absent_why,
	    xasprintf(glob ? "allowWrite %s matches only "
			     "what existed when the run started"
			   : "allowWrite %s did not exist when the "
			     "run started",
		entry));
	strlist_push(&g->absent_glob, glob ? "1" : "0");
}

const char *
wguard_readonly_why(const struct wguard *g, const char *path)
{
	const char *why;
	size_t i;

	/* Before the write roots: a missing entry inside one is still the reason. */
	for (i = 0; i < g->absent.n; i++)
		if (g->absent_glob.v[i][0] == '1' ? glob_match_path(g->absent.v[i], path)
						  : path_is_under(path, g->absent.v[i]))
			return g->absent_why.v[i];
	if (g->writable.n == 0)
		return "read-only file system";
	if (!path_under_any(path, &g->writable))
		return "not in allowWrite";
	/* A protected path's mount (a hooks directory that holds a hook): its reason. */
	if ((why = wg_exact(g, path)) != NULL)
		return why;
	return "a read-only mount inside allowWrite";
}

#define WAY_GITCFG "allowGitConfig allows it"
#define WAY_NONE "no setting lifts it: change it outside srt"

const char *
wguard_way(const char *path, const char *why)
{
	const char *base = path_basename(path);

	if (strstr(why, "allowGitConfig") != NULL ||
	    (strncmp(why, "mandatory deny", 14) != 0 && strcmp(why, "settings file") != 0))
		return NULL;
	/* A git directory's config (not ~/.gitconfig, .gitmodules, ~/.config/git):
	 * what allowGitConfig opens. */
	if ((strstr(why, "git configuration") != NULL ||
		strstr(why, "core.worktree") != NULL) &&
	    (strcasecmp(base, "config") == 0 || strcasecmp(base, "config.lock") == 0 ||
		strcasecmp(base, "config.worktree") == 0 ||
		strcasecmp(base, "config.worktree.lock") == 0))
		return WAY_GITCFG;
	return WAY_NONE;
}

bool
wguard_git_marker(const char *name)
{
	return strcasecmp(name, ".git") == 0 || strcasecmp(name, "HEAD") == 0 ||
	    strcasecmp(name, "objects") == 0 || strcasecmp(name, "refs") == 0 ||
	    strcasecmp(name, "commondir") == 0;
}

/* Would an entry called name make dir a git directory? */
static bool
wg_completes(const struct wguard_fs *fs, const char *dir, const char *name)
{
	static const char *const marks[] = { "HEAD", "objects", "refs", "commondir" };
	bool has[4];
	size_t i;

	for (i = 0; i < nitems(marks); i++) {
		char *p = path_join(dir, marks[i]);

		has[i] = strcasecmp(name, marks[i]) == 0 || fs->exists(fs->arg, p);
		free(p);
	}
	return has[0] && (has[3] || (has[1] && has[2]));
}

/*
 * The user's repository whose work tree dir lies in: the nearest of dir and its
 * ancestors that predates the run and has a .git that predates it too (a .git the
 * command made, as git init in a directory that was no repository does, is the
 * command's). Its path into root (root[0] '\0': none); false when there is none. A
 * repository made there, once the user's index records it (git add, which the command
 * may run), is a submodule the user's next git status enters, with that repository's
 * configuration.
 */
static bool
wg_in_repo(const struct wguard_fs *fs, const char *dir, char *root, size_t rootlen)
{
	char a[4096], p[4096 + 6];
	size_t len = strlen(dir);

	if (rootlen > 0)
		root[0] = '\0';
	if (len >= sizeof(a))
		return true;
	memcpy(a, dir, len + 1);
	for (;;) {
		snprintf(p, sizeof(p), "%s/.git", strcmp(a, "/") == 0 ? "" : a);
		if (fs->exists(fs->arg, p) && fs->predates(fs->arg, a) &&
		    fs->predates(fs->arg, p)) {
			if (rootlen > 0)
				snprintf(root, rootlen, "%s", a);
			return true;
		}
		if (len <= 1)
			return false;
		len = wg_up_len(a, len);
		a[len] = '\0';
	}
}

/*
 * A new git directory may appear where the host's git finds none of the user's
 * repositories: a .git, or the marker that completes a bare layout, in a directory
 * that lies in no work tree of the user's (git init in the project directory, a clone
 * into a new or an empty directory). Where it would find one (a subdirectory of the
 * user's work tree, an uninitialised submodule's directory) it would take over the
 * user's view of their repository: refused, but for a .git file the supervisor writes
 * down and checks (wguard_why_pointer: it must name a git directory of that same
 * repository, as git worktree add and git submodule add write). Whatever completes a
 * git directory asks the supervisor to look at its hooks and config first
 * (wguard_why_complete): they may have been written before the directory was git state
 * (a bare layout anywhere, or one in modules/ of a directory that became a git
 * directory only later).
 */
static const char *
wg_new_repo(const struct wguard_fs *fs, const char *path, bool is_dir)
{
	const char *name = path_basename(path), *why = NULL;
	char *dir = path_dirname(path);

	if (strcasecmp(name, ".git") == 0) {
		if (wg_in_repo(fs, dir, NULL, 0))
			why = is_dir ? WHY_NESTED : wguard_why_pointer;
	} else if (fs->is_git_dir(fs->arg, dir) != 1 && wg_completes(fs, dir, name))
		why = !wg_gitctx_named(fs, dir) && wg_in_repo(fs, dir, NULL, 0)
		    ? WHY_NESTED
		    : wguard_why_complete;
	free(dir);
	return why;
}

const char *
wguard_may_create(
    const struct wguard *g, const struct wguard_fs *fs, const char *path, bool is_dir)
{
	const char *why;

	if (g->inert)
		return NULL;
	if ((why = wg_glob(g, path)) != NULL || (why = wg_exact(g, path)) != NULL)
		return why;
	/* .gitmodules is git configuration too: made, like config, by a rename of a file
	 * the supervisor judges (git submodule add writes it so). */
	if ((why = wg_names(g, fs, path, false)) != NULL)
		return strcasecmp(path_basename(path), ".gitmodules") == 0 ? wguard_why_gitcfg
									   : why;
	if ((why = wg_git(g, fs, path, WG_CREATE)) != NULL)
		return why;
	/* A hooks that is no directory (a link to one the command fills) is its hooks. */
	if (!is_dir && strcasecmp(path_basename(path), "hooks") == 0 &&
	    wguard_git_state(g, fs, path))
		return WHY_HOOK;
	if (wg_set_get(is_dir ? g->pin_set : g->anc_set, path, strlen(path)) != (size_t)-1)
		return WHY_ANCESTOR;
	if (!is_dir && (why = wg_names(g, fs, path, true)) != NULL)
		return why;
	if (!wguard_git_marker(path_basename(path)))
		return NULL;
	return wg_new_repo(fs, path, is_dir);
}

const char *
wguard_may_remove(const struct wguard *g, const struct wguard_fs *fs, const char *path)
{
	const char *why;

	if (g->inert)
		return NULL;
	if ((why = wg_glob(g, path)) != NULL || (why = wg_exact(g, path)) != NULL ||
	    (why = wg_names(g, fs, path, false)) != NULL ||
	    (why = wg_git(g, fs, path, WG_REMOVE)) != NULL)
		return why;
	if (wg_set_get(g->anc_set, path, strlen(path)) != (size_t)-1)
		return WHY_ANCESTOR;
	return NULL;
}

/* Is a linked worktree's admin file: DIR/worktrees/NAME/commondir or gitdir, DIR a git
 * directory, or a .git that was one (rm -rf of a repository with a linked worktree
 * may have taken its HEAD first: wg_git still refuses these by the name .git)? */
static bool
wg_admin_file(const struct wguard_fs *fs, const char *path)
{
	const char *base = path_basename(path);
	char *admin, *wts, *gitdir;
	bool r;

	if (strcmp(base, "commondir") != 0 && strcmp(base, "gitdir") != 0)
		return false;
	admin = path_dirname(path);
	wts = path_dirname(admin);
	gitdir = path_dirname(wts);
	r = strcmp(path_basename(wts), "worktrees") == 0 &&
	    (fs->is_git_dir(fs->arg, gitdir) == 1 || wg_gitctx_named(fs, gitdir));
	free(gitdir);
	free(wts);
	free(admin);
	return r;
}

/*
 * What a git directory may lose by unlink or rmdir without anything git runs coming of
 * it, the user's too (rm -rf of a clone an earlier run made): a hook sample (git runs a
 * hook by its name, and no sample's is one), the hooks directory and the .git directory
 * once empty (the kernel's rmdir removes no other; the supervisor keeps the place the
 * user's, sup_vacate, so nothing git runs is made there again), config and
 * config.worktree (the rename wguard_why_gitcfg judges may already replace either by
 * an empty file: a judged file must add nothing, not keep what was there).
 */
static bool
wg_git_leftover(const struct wguard_fs *fs, const char *path, bool is_dir)
{
	const char *base = path_basename(path);
	char *dir = path_dirname(path), *gitdir;
	bool r;

	if (is_dir && strcmp(base, ".git") == 0)
		r = true;
	else if (is_dir)
		r = strcmp(base, "hooks") == 0 && wg_gitctx(fs, dir);
	else if (strcmp(base, "config") == 0 || strcmp(base, "config.worktree") == 0)
		r = wg_gitctx(fs, dir);
	else if (wguard_hook_sample(base) && strcmp(path_basename(dir), "hooks") == 0) {
		gitdir = path_dirname(dir);
		r = wg_gitctx(fs, gitdir);
		free(gitdir);
	} else
		r = false;
	free(dir);
	return r;
}

bool
wguard_removable(
    const struct wguard *g, const struct wguard_fs *fs, const char *path, bool is_dir)
{
	const char *why;
	char *dir;
	size_t v;
	bool under;

	/* Nothing a user's rule protects, or a protected directory holds. */
	if (g->inert || wg_glob(g, path) != NULL)
		return false;
	if (wg_git_leftover(fs, path, is_dir))
		return wg_exact_up(g, path, true) == NULL &&
		    wg_names(g, fs, path, false) == NULL &&
		    wg_set_get(g->pin_set, path, strlen(path)) == (size_t)-1;
	dir = path_dirname(path);
	under = wg_exact(g, dir) != NULL;
	free(dir);
	if (under)
		return false;
	v = wg_set_get(g->exact_set, path, strlen(path));
	why = v != (size_t)-1 ? g->exact_why.v[v] : NULL;
	if ((why != NULL && strncmp(why, "mandatory deny", 14) != 0) ||
	    wg_names(g, fs, path, false) != NULL)
		return false;
	/* An empty directory on the way to protected paths, whose names stay protected:
	 * the kernel removes no other. Not the way a denyWrite keeps (pinned). */
	if (is_dir)
		return why == NULL && wg_git(g, fs, path, WG_REMOVE) == NULL &&
		    wg_set_get(g->pin_set, path, strlen(path)) == (size_t)-1;
	/* A git directory pointer, which makes no code run by going (the supervisor sees
	 * that it is not made again): a submodule's or linked worktree's .git below a
	 * root (a root's own stays: the working directory is no worktree to remove), a
	 * linked worktree's commondir and gitdir. */
	if (why != NULL && strncmp(why, "mandatory deny: git", 19) != 0)
		return false;
	if (strcmp(path_basename(path), ".git") != 0)
		return wg_admin_file(fs, path);
	dir = path_dirname(path);
	under = strlist_contains(&g->roots, dir);
	free(dir);
	return !under;
}

/* The text of a pointer without its line end, into buf; NULL when it is not one line. */
static const char *
wg_pointer_text(const char *text, size_t len, char *buf, size_t size)
{
	while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
		len--;
	if (len == 0 || len >= size || memchr(text, '\0', len) != NULL ||
	    memchr(text, '\n', len) != NULL)
		return NULL;
	memcpy(buf, text, len);
	buf[len] = '\0';
	return buf;
}

/*
 * A git config the judge accepted with a core.worktree (a submodule's, checked as text
 * against its superproject): git chdir()s to the git directory, then through the value,
 * following every link on the way, and checks out there. The text must lead where it says.
 */
static const char *
wg_worktree_check(const struct wguard_fs *fs, const char *dir, const char *text, size_t len)
{
	struct gitconfig c;
	const char *why = NULL;
	char *j, *t, *r;

	gitconfig_init(&c);
	if (gitconfig_parse(text, len, &c) == -1)
		why = "mandatory deny: a git configuration that does not parse";
	else if (c.worktree != NULL && fs->resolve != NULL) {
		j = c.worktree[0] == '/' ? xstrdup(c.worktree) : path_join(dir, c.worktree);
		t = path_normalize(j);
		r = fs->resolve(fs->arg, j);
		if (t == NULL)
			why = "mandatory deny: a core.worktree that does not parse";
		else if (r == NULL && errno != ENOENT && errno != ENOTDIR)
			why = "mandatory deny: a core.worktree whose target cannot be looked at";
		else if (r != NULL && strcmp(r, t) != 0)
			why = "mandatory deny: a core.worktree that leads through a link";
		free(r);
		free(t);
		free(j);
	}
	gitconfig_free(&c);
	return why;
}

/*
 * Is path the list of steps an interrupted rebase or cherry-pick takes up again
 * (rebase-merge/git-rebase-todo, sequencer/todo)? The user's git rebase --continue
 * runs its exec steps on the host.
 */
static bool
wg_todo_name(const char *path)
{
	const char *name = path_basename(path), *d;
	size_t n = (size_t)(name - path);

	if (n < 2)
		return false;
	for (d = name - 1; d > path && d[-1] != '/'; d--)
		;
	n = (size_t)(name - 1 - d);
	return (strcmp(name, "git-rebase-todo") == 0 && wg_ceq(d, n, "rebase-merge", 12)) ||
	    (strcmp(name, "todo") == 0 && wg_ceq(d, n, "sequencer", 9));
}

/* A list of rebase steps: none that runs a command (exec, x). */
static const char *
wg_todo_check(const char *text, size_t len)
{
	const char *p = text, *end = text + len, *w;
	size_t n;

	while (p < end) {
		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		for (w = p; w < end && *w != ' ' && *w != '\t' && *w != '\n' && *w != '\r'; w++)
			;
		n = (size_t)(w - p);
		if ((n == 4 && strncmp(p, "exec", 4) == 0) || (n == 1 && *p == 'x'))
			return "mandatory deny: a rebase step that runs a command (exec), left "
			       "for the user's git rebase --continue";
		while (p < end && *p != '\n')
			p++;
		p++;
	}
	return NULL;
}

/*
 * Is dir a git directory by its files (HEAD with objects and refs, or commondir), under
 * no git directory? What git clone or git init --separate-git-dir makes may be called
 * anything; one inside another git directory is that repository's state, which only the
 * places wg_gitctx_named knows hold.
 */
static bool
wg_lone_git_dir(const struct wguard_fs *fs, const char *dir)
{
	char *up, *next;
	bool r;

	if (fs->is_git_dir(fs->arg, dir) != 1)
		return false;
	for (up = path_dirname(dir), r = true; r && strcmp(up, "/") != 0; up = next) {
		r = fs->is_git_dir(fs->arg, up) == 0;
		next = path_dirname(up);
		free(up);
	}
	free(up);
	return r;
}

const char *
wguard_pointer_check(const struct wguard *g, const struct wguard_fs *fs, const char *path,
    const char *text, size_t len)
{
	const char *name = path_basename(path), *why = NULL, *v;
	char buf[4096], root[4096], *dir = path_dirname(path), *t = NULL, *j;

	if (g->inert)
		goto out;
	if (strcasecmp(name, "config") == 0 || strcasecmp(name, "config.worktree") == 0) {
		why = wg_worktree_check(fs, dir, text, len);
		goto out;
	}
	if (wg_todo_name(path)) {
		why = wg_todo_check(text, len);
		goto out;
	}
	if ((v = wg_pointer_text(text, len, buf, sizeof(buf))) == NULL) {
		why = "mandatory deny: a git directory pointer that is not one line";
		goto out;
	}
	if (strcasecmp(name, ".git") == 0) {
		if (strncmp(v, "gitdir: ", 8) != 0) {
			why = "mandatory deny: a .git file that is no gitdir line";
			goto out;
		}
		v += 8;
	}
	j = *v == '/' ? xstrdup(v) : path_join(dir, v);
	t = path_normalize(j);
	if (t == NULL) {
		free(j);
		why = "mandatory deny: a git directory pointer that does not parse";
		goto out;
	}
	/* git follows a link on the way before it takes the ".." after it ("up/../.."
	 * with up a link leads wherever up's target's parents are): the text must lead
	 * where it says. One that leads nowhere yet is judged by its text. */
	if (fs->resolve != NULL) {
		char *r = fs->resolve(fs->arg, j);

		if (r == NULL && errno != ENOENT && errno != ENOTDIR)
			why = "mandatory deny: a git directory pointer whose target cannot be "
			      "looked at";
		else if (r != NULL && strcmp(r, t) != 0)
			why =
			    "mandatory deny: a git directory pointer that leads through a link";
		free(r);
	}
	free(j);
	if (why != NULL)
		goto out;
	if (strcasecmp(name, ".git") == 0) {
		/* In the user's work tree: a git directory of that repository (a submodule's,
		 * a linked worktree's). Elsewhere: a git directory by its place, whose every
		 * file was judged as git state. */
		char *up = path_dirname(dir);
		bool in = strcmp(dir, "/") != 0 && wg_in_repo(fs, up, root, sizeof(root));

		/* Asked from the directory above: the .git in dir is this very file. */
		free(up);
		if (in) {
			char *m = path_join(root, ".git/modules"),
			     *w = path_join(root, ".git/worktrees");

			if ((!path_is_under(t, m) || strcmp(t, m) == 0) &&
			    (!path_is_under(t, w) || strcmp(t, w) == 0))
				why = WHY_NESTED;
			free(m);
			free(w);
		} else if (!wg_gitctx_named(fs, t) &&
		    strcasecmp(path_basename(t), ".git") != 0 && !wg_lone_git_dir(fs, t))
			why = "mandatory deny: a .git file naming no git directory";
		/* Not one of the user's: the host's git would run that repository's hooks
		 * and configuration (a core.hooksPath relative to the work tree included)
		 * on this directory, which is the command's. */
		else if (fs->predates(fs->arg, t))
			why = "mandatory deny: a .git file naming a git directory that predates "
			      "the run";
	} else if (strcasecmp(name, "commondir") == 0) {
		/* git worktree add writes "../..": the git directory holding this one, whose
		 * every file was judged as git state (a directory of a .git, or a git
		 * directory: complete before the run, or checked as it became one). */
		if (!path_is_under(dir, t) || strcmp(dir, t) == 0 ||
		    (!wg_gitctx_named(fs, t) && fs->is_git_dir(fs->arg, t) != 1))
			why = "mandatory deny: a commondir outside its repository";
	} else if (*v != '/' || strcasecmp(path_basename(t), ".git") != 0)
		why = "mandatory deny: a worktree gitdir that names no .git";
out:
	free(t);
	free(dir);
	return why;
}

bool
wguard_pointer_name(const struct wguard *g, const struct wguard_fs *fs, const char *path)
{
	const char *name = path_basename(path);
	char *dir;
	bool r;

	if (g->inert)
		return false;
	if (strcasecmp(name, ".git") == 0)
		return true;
	if (strcasecmp(name, "commondir") != 0 && strcasecmp(name, "gitdir") != 0 &&
	    !wg_todo_name(path))
		return false;
	dir = path_dirname(path);
	r = wg_gitctx(fs, dir);
	free(dir);
	return r;
}

bool
wguard_git_state(const struct wguard *g, const struct wguard_fs *fs, const char *path)
{
	char *dir;
	bool r;

	if (g->inert)
		return false;
	dir = path_dirname(path);
	r = wg_gitctx(fs, dir);
	free(dir);
	return r;
}
