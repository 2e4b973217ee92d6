/*
 * Just enough of git's configuration format to find what the mandatory write denies must
 * protect: core.hooksPath (git runs the hooks it names, outside any sandbox),
 * core.fsmonitor (a command git runs), init.templateDir (copied into every new
 * repository), core.worktree (where a relative hooksPath resolves),
 * extensions.worktreeConfig (whether git reads config.worktree) and the path of every
 * [include] and [includeIf] section (the plan reads those files in turn). A strict,
 * bounded reader of untrusted bytes: the file may have been written by the sandboxed
 * command of an earlier run.
 */
#ifndef SRT_GITCONFIG_H
#define SRT_GITCONFIG_H

#include <stddef.h>

#include "util.h"

#define GITCONFIG_MAX   (1024 * 1024)   /* bytes of one file read; larger ones are refused */

struct gitconfig {
	char *hooks_path;       /* core.hooksPath, the last assignment; NULL when unset */
	char *worktree;         /* core.worktree, the last assignment; NULL when unset */
	char *fsmonitor;        /* core.fsmonitor, the last assignment; NULL when unset */
	char *template_dir;     /* init.templateDir, the last assignment; NULL when unset */
	int worktree_config;    /* extensions.worktreeConfig: -1 unset, 0 false, 1 true */
	struct strlist includes; /* include.path and includeIf.*.path values, in order */
	int error_line;         /* first line not understood (parsing stopped there), or 0 */
};

void gitconfig_init(struct gitconfig *c);
void gitconfig_free(struct gitconfig *c);

/*
 * Parse len bytes of text into c (gitconfig_init first). Values set on the lines before a
 * malformed one are kept: git refuses such a file, but what was read is at worst
 * protected for nothing. 0, or -1 with c->error_line set.
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
 * else (srt-settings(5)), or was already there with the same value. The caller
 * (srt-seccomp's supervisor) reads the old and the new content, asks here, and on
 * acceptance writes what it checked itself, so the command cannot change it afterwards.
 */
struct gitcfg_ctx {
	const char *gitdir;     /* absolute, normalised path of the git directory holding
	                           the file: relative values (core.worktree) are taken
	                           from it */
};

/*
 * May the file holding old (oldlen bytes; old NULL: there was none) now hold new_?
 * 0: yes. -1: no, with why set to a sentence naming the first refused key (or the line
 * that does not parse), e.g. "git configuration core.fsmonitor (runs a program;
 * allowGitConfig allows it)". Content that does not parse as git parses it is refused.
 */
int gitcfg_check(const char *old, size_t oldlen, const char *new_, size_t newlen,
    const struct gitcfg_ctx *ctx, char *why, size_t whylen);

#endif
