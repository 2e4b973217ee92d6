/*
 * git's configuration format, read as git reads it (config.c): the one reader srt has.
 * gitconfig_foreach walks the entries of a file; on it sit gitconfig_parse, just enough
 * to find what the mandatory write denies must protect (core.hooksPath: git runs the
 * hooks it names, outside any sandbox; core.fsmonitor, a command git runs;
 * init.templateDir, copied into every new repository; core.worktree, where a relative
 * hooksPath resolves; extensions.worktreeConfig, whether git reads config.worktree; the
 * path of every [include] and [includeIf]), and gitcfg_check, the judge of a change the
 * sandboxed command makes to a git directory's configuration. A strict, bounded reader
 * of untrusted bytes: the file may have been written by a sandboxed command.
 */
#ifndef SRT_GITCONFIG_H
#define SRT_GITCONFIG_H

#include <stddef.h>

#include "util.h"

#define GITCONFIG_MAX (1024 * 1024) /* bytes of one file read; larger ones are refused */
#define GITCONFIG_NAME_MAX \
	256 /* section and key names; git has no limit, sane
                                           files do */

/* One setting, as git reads it. */
struct gitconfig_entry {
	const char *section;    /* lowercase; empty only in git's odd [.sub] and [ "sub"] */
	const char *subsection; /* NULL: none. As written, but lowercase in the deprecated
	                           [section.sub] spelling */
	const char *key;        /* lowercase */
	const char *value;      /* NULL: the key stood alone (git reads a boolean true) */
	const char *verbatim;   /* the value as git 2.45 and later read it: they keep an
	                           unquoted tab or carriage return inside a value, which
	                           earlier gits (and value) turn into a space. Otherwise
	                           the same string as value */
	int line;               /* the line the key is on */
};

/*
 * Call fn for each entry of len bytes of text, in order, as git's parser reads them
 * (a UTF-8 byte order mark, CRLF line ends, comments, quotes, escapes and continued
 * lines, key = value, a key alone, a key on its header's line). Stops at the first thing
 * git would refuse, or that srt does not read the way every git does: a NUL byte, a name
 * longer than GITCONFIG_NAME_MAX, a key before any section header (git reads it as a key
 * without a section). fn returns 0 to go on, -1 to stop. 0 when every entry was read;
 * -1 with *line (unless NULL) the line where the text was refused or fn stopped.
 */
int gitconfig_foreach(const char *text, size_t len,
    int (*fn)(const struct gitconfig_entry *, void *), void *arg, int *line);

struct gitconfig {
	char *hooks_path;        /* core.hooksPath, the last assignment; NULL when unset */
	char *worktree;          /* core.worktree, the last assignment; NULL when unset */
	char *fsmonitor;         /* core.fsmonitor, the last assignment; NULL when unset */
	char *template_dir;      /* init.templateDir, the last assignment; NULL when unset */
	int worktree_config;     /* extensions.worktreeConfig: -1 unset, 0 false, 1 true */
	struct strlist includes; /* include.path and includeIf.*.path values, in order */
	int error_line;          /* first line not understood (parsing stopped there), or 0 */
};

void gitconfig_init(struct gitconfig *c);
void gitconfig_free(struct gitconfig *c);

/*
 * Parse len bytes of text into c (gitconfig_init first). Values set on the lines before a
 * malformed one are kept: git refuses such a file, but what was read is at worst
 * protected for nothing. A value is kept as git before 2.45 reads it. 0, or -1 with
 * c->error_line set.
 */
int gitconfig_parse(const char *text, size_t len, struct gitconfig *c);

/*
 * Read and parse the file name in directory dfd (AT_FDCWD with an absolute name). Only a
 * regular file is read (a FIFO or device planted there cannot stall the launcher), links
 * are followed as git follows them. 0 parsed, 1 no such file, -1 unreadable, too large or
 * malformed (errno EINVAL then).
 */
int gitconfig_read(int dfd, const char *name, struct gitconfig *c);

/*
 * Git configuration judged by content (issue #28): the write guard lets a sandboxed
 * command change a git directory's config (and config.worktree) only to content whose
 * every setting is either on an allowlist of keys known to run nothing and point nowhere
 * else (srt-settings(5), "Git configuration"), with a value its rule accepts, or was
 * already there with the same value (removing settings is always fine). The caller
 * (srt-seccomp's supervisor) reads the old and the new content, asks here, and on
 * acceptance writes what it checked itself, so the command cannot change it afterwards.
 */
struct gitcfg_ctx {
	const char *gitdir;  /* absolute, normalised path of the git directory holding
	                           the file: relative values (core.worktree) are taken
	                           from it, and the refusal names it. NULL: unknown
	                           (core.worktree is refused). Resolved by name: the
	                           caller sees to it that no link is on the way */
	struct strlist *all; /* not NULL: the judge goes on past the first refusal and
	                           pushes each one here (every refused key, then a part
	                           that does not parse), so that each is reported */
};

/*
 * May the file holding old (oldlen bytes; old NULL: there was none) now hold new_?
 * 0: yes. -1: no, with why set to one line naming the first refused key in git's
 * spelling, the git directory and the way forward, e.g. "git configuration
 * core.fsmonitor in /repo/.git: not on srt's list of settings a command may change (it
 * runs a program); allowGitConfig in the settings allows every key". Content that does
 * not parse as git parses it is refused (so is content over GITCONFIG_MAX); old content
 * that does not counts as empty. why holds no control character.
 */
int gitcfg_check(const char *old, size_t oldlen, const char *new_, size_t newlen,
    const struct gitcfg_ctx *ctx, char *why, size_t whylen);

#endif
