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

#endif
