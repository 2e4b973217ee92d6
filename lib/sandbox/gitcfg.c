/*
 * The judge of a change a sandboxed command makes to git configuration (gitconfig.h,
 * gitcfg_check). Every setting of the new content, read as git reads it
 * (gitconfig_foreach), must either have been in the old content with the same value, or
 * be on the list below with a value its rule accepts. A list of what is known to run
 * nothing and point nowhere else, not a list of what is dangerous: git grows new keys
 * that run programs, and a denylist would miss the next one. The list is written down,
 * with a reason for each key, in srt-settings(5) "Git configuration": change both
 * together.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "gitconfig.h"
#include "utf8.h"
#include "util.h"

enum rule {
	RULE_REFUSE,   /* never: it runs a program or reaches beyond the repository */
	RULE_PLAIN,    /* any value without control characters (but tabs), or none */
	RULE_TEXT,     /* text: line ends too (a branch description) */
	RULE_URL,      /* a URL of a plain transport, or a local path */
	RULE_REMOTE,   /* a remote's name, or a URL as RULE_URL */
	RULE_TAGOPT,   /* --tags or --no-tags */
	RULE_UPDATE,   /* checkout, rebase, merge or none */
	RULE_PATH,     /* a relative path inside the work tree */
	RULE_WORKTREE, /* a submodule's work tree, inside its superproject */
};

enum sub {
	SUB_NONE, /* [section] */
	SUB_ANY,  /* [section "anything"] */
	SUB_EITHER,
};

struct key_rule {
	const char *section; /* lowercase */
	enum sub sub;
	const char *key; /* as git's documentation spells it; "*": every key */
	enum rule rule;
	const char *why; /* RULE_REFUSE: what the key does */
};

#define RUNS "it runs a program"

/* The first row that matches decides: specific keys before a section's "*". */
static const struct key_rule rules[] = {
	/* What git init, clone, submodule and sparse-checkout write; no other core key. */
	{ "core", SUB_NONE, "repositoryFormatVersion", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "fileMode", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "bare", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "logAllRefUpdates", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "ignoreCase", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "symlinks", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "precomposeUnicode", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "autocrlf", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "sparseCheckout", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "sparseCheckoutCone", RULE_PLAIN, NULL },
	{ "core", SUB_NONE, "worktree", RULE_WORKTREE, NULL },
	{ "core", SUB_NONE, "fsmonitor", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "hooksPath", RULE_REFUSE,
	    "git runs the hooks in the directory it names" },
	{ "core", SUB_NONE, "sshCommand", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "pager", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "editor", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "askPass", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "gitProxy", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "alternateRefsCommand", RULE_REFUSE, RUNS },
	{ "core", SUB_NONE, "sharedRepository", RULE_REFUSE,
	    "it opens the repository to other users" },
	{ "core", SUB_NONE, "attributesFile", RULE_REFUSE, "it reads a file elsewhere" },
	{ "core", SUB_NONE, "excludesFile", RULE_REFUSE, "it reads a file elsewhere" },

	{ "extensions", SUB_NONE, "objectFormat", RULE_PLAIN, NULL },
	{ "extensions", SUB_NONE, "refStorage", RULE_PLAIN, NULL },
	{ "extensions", SUB_NONE, "worktreeConfig", RULE_PLAIN, NULL },
	{ "extensions", SUB_NONE, "partialClone", RULE_REMOTE, NULL },

	{ "remote", SUB_ANY, "url", RULE_URL, NULL },
	{ "remote", SUB_ANY, "pushurl", RULE_URL, NULL },
	{ "remote", SUB_ANY, "fetch", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "push", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "tagOpt", RULE_TAGOPT, NULL },
	{ "remote", SUB_ANY, "prune", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "pruneTags", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "mirror", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "skipDefaultUpdate", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "skipFetchAll", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "promisor", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "partialCloneFilter", RULE_PLAIN, NULL },
	{ "remote", SUB_ANY, "uploadpack", RULE_REFUSE, RUNS },
	{ "remote", SUB_ANY, "receivepack", RULE_REFUSE, RUNS },
	{ "remote", SUB_ANY, "vcs", RULE_REFUSE, "it runs the program git-remote-<vcs>" },
	{ "remote", SUB_ANY, "proxy", RULE_REFUSE, "it sends the remote's traffic elsewhere" },

	{ "branch", SUB_ANY, "remote", RULE_REMOTE, NULL },
	{ "branch", SUB_ANY, "pushRemote", RULE_REMOTE, NULL },
	{ "branch", SUB_ANY, "merge", RULE_PLAIN, NULL },
	{ "branch", SUB_ANY, "rebase", RULE_PLAIN, NULL },
	{ "branch", SUB_ANY, "description", RULE_TEXT, NULL },
	{ "branch", SUB_ANY, "mergeOptions", RULE_REFUSE,
	    "a merge strategy it names runs a program" },

	{ "user", SUB_NONE, "name", RULE_PLAIN, NULL },
	{ "user", SUB_NONE, "email", RULE_PLAIN, NULL },

	{ "submodule", SUB_NONE, "active", RULE_PLAIN, NULL },
	{ "submodule", SUB_ANY, "url", RULE_URL, NULL },
	{ "submodule", SUB_ANY, "path", RULE_PATH, NULL },
	{ "submodule", SUB_ANY, "active", RULE_PLAIN, NULL },
	{ "submodule", SUB_ANY, "update", RULE_UPDATE, NULL },
	{ "submodule", SUB_ANY, "branch", RULE_PLAIN, NULL },
	{ "submodule", SUB_ANY, "fetchRecurseSubmodules", RULE_PLAIN, NULL },
	{ "submodule", SUB_ANY, "shallow", RULE_PLAIN, NULL },
	{ "submodule", SUB_ANY, "ignore", RULE_PLAIN, NULL },

	{ "init", SUB_NONE, "defaultBranch", RULE_PLAIN, NULL },
	{ "init", SUB_NONE, "templateDir", RULE_REFUSE,
	    "git copies the hooks in it into new repositories" },
	{ "pull", SUB_NONE, "rebase", RULE_PLAIN, NULL },
	{ "pull", SUB_NONE, "ff", RULE_PLAIN, NULL },
	{ "pull", SUB_NONE, "twohead", RULE_REFUSE, "a merge strategy runs a program" },
	{ "pull", SUB_NONE, "octopus", RULE_REFUSE, "a merge strategy runs a program" },
	{ "fetch", SUB_NONE, "prune", RULE_PLAIN, NULL },
	{ "fetch", SUB_NONE, "pruneTags", RULE_PLAIN, NULL },
	{ "push", SUB_NONE, "default", RULE_PLAIN, NULL },
	{ "push", SUB_NONE, "autoSetupRemote", RULE_PLAIN, NULL },
	{ "push", SUB_NONE, "followTags", RULE_PLAIN, NULL },
	{ "merge", SUB_NONE, "ff", RULE_PLAIN, NULL },
	{ "merge", SUB_NONE, "conflictStyle", RULE_PLAIN, NULL },
	{ "merge", SUB_ANY, "*", RULE_REFUSE, "a merge driver runs a program" },
	{ "rebase", SUB_NONE, "autoStash", RULE_PLAIN, NULL },
	{ "rebase", SUB_NONE, "autoSquash", RULE_PLAIN, NULL },
	{ "gc", SUB_NONE, "auto", RULE_PLAIN, NULL },
	{ "maintenance", SUB_NONE, "auto", RULE_PLAIN, NULL },
	{ "maintenance", SUB_NONE, "strategy", RULE_PLAIN, NULL },
	{ "maintenance", SUB_ANY, "enabled", RULE_PLAIN, NULL },
	{ "maintenance", SUB_ANY, "schedule", RULE_PLAIN, NULL },
	{ "maintenance", SUB_NONE, "repo", RULE_REFUSE, "it names other repositories" },
	{ "lfs", SUB_NONE, "repositoryFormatVersion", RULE_PLAIN, NULL },
	{ "lfs", SUB_ANY, "access", RULE_PLAIN, NULL },
	{ "lfs", SUB_ANY, "locksVerify", RULE_PLAIN, NULL },
	{ "color", SUB_NONE, "ui", RULE_PLAIN, NULL },
	{ "diff", SUB_NONE, "renames", RULE_PLAIN, NULL },
	{ "diff", SUB_NONE, "external", RULE_REFUSE, RUNS },
	{ "diff", SUB_ANY, "*", RULE_REFUSE, "a diff driver runs a program" },
	{ "advice", SUB_NONE, "*", RULE_PLAIN, NULL },

	/* Refused like every key not above; named for the reason a refusal gives. */
	{ "include", SUB_EITHER, "*", RULE_REFUSE, "git reads another file as configuration" },
	{ "includeif", SUB_EITHER, "*", RULE_REFUSE,
	    "git reads another file as configuration" },
	{ "filter", SUB_EITHER, "*", RULE_REFUSE, "a filter runs a program" },
	{ "credential", SUB_EITHER, "*", RULE_REFUSE, "it hands credentials to a program" },
	{ "alias", SUB_EITHER, "*", RULE_REFUSE, "an alias runs a command" },
	{ "protocol", SUB_EITHER, "*", RULE_REFUSE, "it lets transports run that git refuses" },
	{ "url", SUB_EITHER, "*", RULE_REFUSE, "it rewrites where remotes point" },
	{ "gpg", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "hook", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "uploadpack", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "receivepack", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "sequence", SUB_NONE, "editor", RULE_REFUSE, RUNS },
	{ "web", SUB_NONE, "browser", RULE_REFUSE, RUNS },
	{ "browser", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "mergetool", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "difftool", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "pager", SUB_EITHER, "*", RULE_REFUSE, RUNS },
	{ "commit", SUB_NONE, "gpgSign", RULE_REFUSE, RUNS },
	{ "tag", SUB_NONE, "gpgSign", RULE_REFUSE, RUNS },
	{ "http", SUB_EITHER, "*", RULE_REFUSE,
	    "it changes how git connects (proxies, certificates, keys, headers)" },
	{ "safe", SUB_EITHER, "*", RULE_REFUSE, "git reads it only outside repositories" },
};

/* The old content's entries, each encoded (entry_encode) into one string, sorted. */
struct span {
	const char *p;
	size_t n;
};

struct entry_set {
	struct buf data;     /* the encoded entries, one after the other */
	size_t *end, n, cap; /* where each ends in data */
	struct span *v;      /* then, sorted */
};

#define ALL_MAX 32 /* refusals gitcfg_ctx.all collects */

struct judge {
	struct entry_set old;
	const struct gitcfg_ctx *ctx;
	struct buf scratch;
	char *why;
	size_t whylen;
	int refused; /* why is set: an entry was refused (not a parse error) */
	int said;    /* why is set */
};

/*
 * Every field in one string: section NUL, "s" subsection (or nothing) NUL, key NUL, then
 * "v" value NUL verbatim, or nothing. No field holds a NUL (gitconfig_foreach refuses
 * them), so two entries encode the same exactly when they are the same.
 */
static void
entry_encode(struct buf *b, const struct gitconfig_entry *e)
{
	buf_adds(b, e->section);
	buf_addc(b, '\0');
	if (e->subsection != NULL) {
		buf_addc(b, 's');
		buf_adds(b, e->subsection);
	}
	buf_addc(b, '\0');
	buf_adds(b, e->key);
	buf_addc(b, '\0');
	if (e->value != NULL) {
		buf_addc(b, 'v');
		buf_adds(b, e->value);
		buf_addc(b, '\0');
		buf_adds(b, e->verbatim);
	}
}

static int
remember(const struct gitconfig_entry *e, void *arg)
{
	struct entry_set *s = arg;

	entry_encode(&s->data, e);
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->end = xreallocarray(s->end, s->cap, sizeof(*s->end));
	}
	s->end[s->n++] = s->data.len;
	return 0;
}

static int
span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;
	int c;

	c = memcmp(x->p, y->p, x->n < y->n ? x->n : y->n);
	if (c != 0)
		return c;
	return x->n < y->n ? -1 : x->n > y->n;
}

/* The spans of s, sorted, once data no longer moves. */
static void
set_sort(struct entry_set *s)
{
	size_t i, start = 0;

	if (s->n == 0)
		return;
	s->v = xreallocarray(NULL, s->n, sizeof(*s->v));
	for (i = 0; i < s->n; i++) {
		s->v[i].p = s->data.p + s->data.off + start;
		s->v[i].n = s->end[i] - start;
		start = s->end[i];
	}
	qsort(s->v, s->n, sizeof(*s->v), span_cmp);
}

static void
set_free(struct entry_set *s)
{
	buf_free(&s->data);
	free(s->end);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static const struct key_rule *
rule_find(const struct gitconfig_entry *e)
{
	const struct key_rule *r;
	size_t i;

	for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
		r = &rules[i];
		if (strcmp(r->section, e->section) != 0 ||
		    (r->sub == SUB_NONE && e->subsection != NULL) ||
		    (r->sub == SUB_ANY && e->subsection == NULL))
			continue;
		if (strcmp(r->key, "*") == 0 || strcasecmp(r->key, e->key) == 0)
			return r;
	}
	return NULL;
}

#define CTL_TAB 0x1 /* has_control: a tab is fine */
#define CTL_NL 0x2  /* a line end is fine */

/* A control character (C0 or DEL), but those allow says. */
static int
has_control(const char *v, int allow)
{
	const unsigned char *p;

	for (p = (const unsigned char *)v; *p != '\0'; p++) {
		if ((*p == '\t' && (allow & CTL_TAB)) || (*p == '\n' && (allow & CTL_NL)))
			continue;
		if (*p < 0x20 || *p == 0x7f)
			return 1;
	}
	return 0;
}

/* The ssh or scp-like host in len bytes at h ("user@host:port", "[host]"): one that
 * starts with '-' reaches ssh as an option. */
static const char *
host_refusal(const char *h, size_t len)
{
	const char *at;

	if (len > 0 && *h == '[') {
		h++;
		len--;
	}
	if ((at = memrchr(h, '@', len)) != NULL) {
		len -= (size_t)(at + 1 - h);
		h = at + 1;
	}
	if (len == 0 || *h == '-')
		return "its host is empty or starts with '-', which ssh reads as an option";
	return NULL;
}

/*
 * A URL git reaches with a transport of its own (transport.c): https, http, git, ssh,
 * file, a scp-like host:path, or a local path. Never "<helper>::address" or an unknown
 * scheme://, which run the program git-remote-<helper> (ext:: and fd:: run anything).
 */
static const char *
url_refusal(const char *v)
{
	static const char *const schemes[] = {
		"https",
		"http",
		"git",
		"ssh",
		"git+ssh",
		"ssh+git",
		"file",
	};
	const char *p, *colon, *slash, *end;
	size_t i, n;

	if (v == NULL || *v == '\0')
		return "a URL is needed";
	if (has_control(v, 0))
		return "a control character in it";
	if (*v == '-')
		return "it starts with '-', which a program reads as an option";
	/* git's is_urlschemechar: a letter, then letters, digits, '+', '-', '.'. */
	p = v;
	if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z'))
		for (p++; *p != '\0' &&
		     (strchr("+-.", *p) != NULL || (*p >= 'a' && *p <= 'z') ||
			 (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9'));
		     p++)
			;
	if (p > v && p[0] == ':' && p[1] == ':')
		return "a transport helper (<name>::) runs the program git-remote-<name>";
	if (p > v && strncmp(p, "://", 3) == 0) {
		n = (size_t)(p - v);
		for (i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++)
			if (strlen(schemes[i]) == n && memcmp(schemes[i], v, n) == 0)
				break;
		if (i == sizeof(schemes) / sizeof(schemes[0]))
			return "only https, http, git, ssh and file URLs and paths are accepted "
			       "(another scheme runs the program git-remote-<scheme>)";
		p += 3;
		end = p + strcspn(p, "/");
		/* git decodes an ssh URL's host: "%2d" would be a '-' */
		if (strstr(schemes[i], "ssh") != NULL &&
		    memchr(p, '%', (size_t)(end - p)) != NULL)
			return "a percent sign in an ssh host";
		return strcmp(schemes[i], "file") == 0 ? NULL
						       : host_refusal(p, (size_t)(end - p));
	}
	/* git's url_is_local_not_ssh: no ':' before the first '/' is a local path. */
	colon = strchr(v, ':');
	slash = strchr(v, '/');
	if (colon == NULL || (slash != NULL && slash < colon))
		return NULL;
	/* [user@]host:path, or [user@host:port]:path */
	if (*v == '[' && (end = strchr(v, ']')) != NULL)
		return host_refusal(v, (size_t)(end - v));
	return host_refusal(v, (size_t)(colon - v));
}

/* submodule.<name>.path: a relative path in the work tree, as git's .gitmodules checks. */
static const char *
path_refusal(const char *v)
{
	const char *p;
	size_t n;

	if (v == NULL || *v == '\0' || *v == '/' || *v == '-' || has_control(v, 0))
		return "a relative path inside the work tree is needed";
	for (p = v; *p != '\0'; p += n + (p[n] == '/')) {
		n = strcspn(p, "/");
		if ((n == 2 && memcmp(p, "..", 2) == 0) ||
		    (n == 4 && strncasecmp(p, ".git", 4) == 0))
			return "a path inside the work tree is needed (no .. or .git)";
	}
	return NULL;
}

/* Whether one of the components of path is .git, in any case. */
static int
has_dotgit(const char *path)
{
	const char *p;
	size_t n;

	for (p = path; *p != '\0'; p += n + (p[n] == '/')) {
		n = strcspn(p, "/");
		if (n == 4 && strncasecmp(p, ".git", 4) == 0)
			return 1;
	}
	return 0;
}

/*
 * core.worktree: what git submodule writes into a submodule's git directory
 * <top>/.git/modules/<name> (nested: .../modules/<a>/modules/<b>), the submodule's path
 * inside the superproject <top>, relative to the git directory ("../../../sub") or, from
 * older gits, absolute. git chdir()s to the git directory, then to the value: taken here
 * by name. Leading ".." only, never above <top>; the result inside <top>, neither <top>
 * itself nor anything in a .git.
 */
static const char *
worktree_refusal(const char *v, const char *gitdir)
{
	static const char mod[] = "/.git/modules/";
	const char *ret = "it moves the work tree elsewhere (only a submodule's, inside its "
			  "superproject, as git submodule writes it, is accepted)";
	const char *m = NULL, *p, *q;
	char *path = NULL;
	size_t toplen, len = 0, n;
	int up;

	if (v == NULL || *v == '\0' || has_control(v, 0) || gitdir == NULL || *gitdir != '/')
		return ret;
	for (p = gitdir; (p = strstr(p, mod)) != NULL; p++)
		m = p;
	if (m == NULL || m == gitdir || m[sizeof(mod) - 1] == '\0')
		return ret;
	toplen = (size_t)(m - gitdir);
	path = xmalloc(strlen(gitdir) + strlen(v) + 2);
	if (*v != '/') {
		len = strlen(gitdir);
		memcpy(path, gitdir, len);
	}
	up = *v != '/';
	for (p = v; *p != '\0'; p = q) {
		while (*p == '/')
			p++;
		q = p + strcspn(p, "/");
		n = (size_t)(q - p);
		if (n == 0 || (n == 1 && *p == '.'))
			continue;
		if (n == 2 && memcmp(p, "..", 2) == 0) {
			if (!up)
				goto out;
			while (len > 0 && path[len - 1] != '/')
				len--;
			if (len > 0)
				len--;
			if (len < toplen)
				goto out;
			continue;
		}
		up = 0;
		path[len++] = '/';
		memcpy(path + len, p, n);
		len += n;
	}
	path[len] = '\0';
	if (len > toplen && memcmp(path, gitdir, toplen) == 0 && path[toplen] == '/' &&
	    !has_dotgit(path + toplen + 1))
		ret = NULL;
out:
	free(path);
	return ret;
}

/* Why the value of e, which rule r lists, is refused; NULL: it is not. */
static const char *
value_refusal(
    const struct key_rule *r, const struct gitconfig_entry *e, const struct gitcfg_ctx *ctx)
{
	const char *v = e->value;

	if (v != NULL && strcmp(v, e->verbatim) != 0)
		return "git versions read it differently: an unquoted tab or carriage return "
		       "inside it (git config writes \\t)";
	switch (r->rule) {
	case RULE_REFUSE:
		return r->why;
	case RULE_PLAIN:
		return v != NULL && has_control(v, CTL_TAB) ? "a control character in it"
							    : NULL;
	case RULE_TEXT:
		return v != NULL && has_control(v, CTL_TAB | CTL_NL)
		    ? "a control character in it"
		    : NULL;
	case RULE_URL:
	case RULE_REMOTE:
		return url_refusal(v);
	case RULE_TAGOPT:
		return v != NULL && (strcmp(v, "--tags") == 0 || strcmp(v, "--no-tags") == 0)
		    ? NULL
		    : "only --tags or --no-tags";
	case RULE_UPDATE:
		return v != NULL &&
			(strcmp(v, "checkout") == 0 || strcmp(v, "rebase") == 0 ||
			    strcmp(v, "merge") == 0 || strcmp(v, "none") == 0)
		    ? NULL
		    : "only checkout, rebase, merge or none (\"!command\" runs a program)";
	case RULE_PATH:
		return path_refusal(v);
	case RULE_WORKTREE:
		return worktree_refusal(v, ctx != NULL ? ctx->gitdir : NULL);
	}
	return "unknown rule";
}

/* s, as a person may be shown it (no control or invisible characters), cut at max. */
static void
add_shown(struct buf *b, const char *s, size_t max)
{
	size_t len = strlen(s);
	char *out;

	out = xmalloc(3 * (len < max ? len : max) + 1);
	buf_add(b, out, utf8_sanitise(s, len, UTF8_INVISIBLE, max, out));
	if (len > max)
		buf_adds(b, "...");
	free(out);
}

/* "git configuration NAME in GITDIR: " (name: NULL for the file as a whole), the reason,
 * and the way forward, into j->why, cut at a character's boundary. */
static void
say(struct judge *j, const char *name, const char *fmt, ...)
{
	struct buf b = { 0 };
	va_list ap;
	size_t n;
	char *s;

	buf_adds(&b, "git configuration");
	if (name != NULL) {
		buf_addc(&b, ' ');
		buf_adds(&b, name);
	}
	if (j->ctx != NULL && j->ctx->gitdir != NULL) {
		buf_adds(&b, " in ");
		add_shown(&b, j->ctx->gitdir, 200);
	}
	buf_adds(&b, ": ");
	va_start(ap, fmt);
	buf_vaddf(&b, fmt, ap);
	va_end(ap);
	buf_adds(&b, "; allowGitConfig in the settings allows every key");
	s = buf_str(&b);
	/* At most ALL_MAX: a file of many refused keys costs no more than one of many
	 * keys, and makes no more lines than a person reads. */
	if (j->ctx != NULL && j->ctx->all != NULL && j->ctx->all->n < ALL_MAX &&
	    !strlist_contains(j->ctx->all, s))
		strlist_push(j->ctx->all, s);
	if (j->said) {
		buf_free(&b);
		return; /* why keeps the first */
	}
	j->said = 1;
	if (j->whylen > 0) {
		n = b.len < j->whylen ? b.len : j->whylen - 1;
		while (n > 0 && n < b.len && ((unsigned char)s[n] & 0xc0) == 0x80)
			n--;
		memcpy(j->why, s, n);
		j->why[n] = '\0';
	}
	buf_free(&b);
}

/* An entry of the new content: accepted, or refused with j->why said. */
static int
judge_entry(const struct gitconfig_entry *e, void *arg)
{
	struct judge *j = arg;
	const struct key_rule *r;
	struct span key;
	struct buf name = { 0 }, shown = { 0 };
	const char *why;

	buf_reset(&j->scratch);
	entry_encode(&j->scratch, e);
	key.p = buf_str(&j->scratch);
	key.n = j->scratch.len;
	if (j->old.n > 0 && bsearch(&key, j->old.v, j->old.n, sizeof(key), span_cmp) != NULL)
		return 0;
	r = rule_find(e);
	why = r == NULL ? NULL : value_refusal(r, e, j->ctx);
	if (r != NULL && r->rule != RULE_REFUSE && why == NULL)
		return 0;
	/* git's spelling: section[.subsection].key, the key as documented when known. */
	buf_adds(&name, e->section);
	buf_addc(&name, '.');
	if (e->subsection != NULL) {
		add_shown(&name, e->subsection, 80);
		buf_addc(&name, '.');
	}
	buf_adds(&name, r != NULL && strcmp(r->key, "*") != 0 ? r->key : e->key);
	if (r == NULL || r->rule == RULE_REFUSE)
		say(j, buf_str(&name),
		    "not on srt's list of settings a command may change%s%s%s",
		    why != NULL ? " (" : "", why != NULL ? why : "", why != NULL ? ")" : "");
	else {
		if (e->value != NULL)
			add_shown(&shown, e->value, 80);
		say(j, buf_str(&name), "the value %s%s%s is refused: %s",
		    e->value != NULL ? "\"" : "", e->value != NULL ? buf_str(&shown) : "(none)",
		    e->value != NULL ? "\"" : "", why);
	}
	buf_free(&name);
	buf_free(&shown);
	j->refused = 1;
	/* Every refusal is wanted: the others are judged too (the verdict stays no). */
	return j->ctx != NULL && j->ctx->all != NULL ? 0 : -1;
}

int
gitcfg_check(const char *old, size_t oldlen, const char *new_, size_t newlen,
    const struct gitcfg_ctx *ctx, char *why, size_t whylen)
{
	struct judge j;
	int line = 0, ret = -1;

	memset(&j, 0, sizeof(j));
	j.ctx = ctx;
	j.why = why;
	j.whylen = whylen;
	if (whylen > 0)
		why[0] = '\0';
	if (newlen > GITCONFIG_MAX) {
		say(&j, NULL, "more than %d bytes", GITCONFIG_MAX);
		goto out;
	}
	/* Old content git refuses ran nothing: none of it counts as already there. */
	if (old != NULL &&
	    (oldlen > GITCONFIG_MAX ||
		gitconfig_foreach(old, oldlen, remember, &j.old, NULL) == -1))
		set_free(&j.old);
	set_sort(&j.old);
	if (gitconfig_foreach(new_ != NULL ? new_ : "", newlen, judge_entry, &j, &line) == -1) {
		/* (With ctx->all, judge_entry never stops the walk: this is a parse error.) */
		if (!j.refused || (ctx != NULL && ctx->all != NULL))
			say(&j, NULL, "line %d is not git configuration as every git reads it",
			    line);
		goto out;
	}
	ret = j.refused ? -1 : 0;
out:
	set_free(&j.old);
	buf_free(&j.scratch);
	return ret;
}
