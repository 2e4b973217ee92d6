/*
 * Where a path lands in the bubblewrap plan: in a write root, beneath a read deny's
 * tmpfs, in a directory the kernel or bwrap mounts. The bottom of the plan's files:
 * plan_linux.c, plan_linux_mandatory.c and plan_linux_guard.c ask it, it asks none of
 * them.
 */
#include <stdbool.h>
#include <stddef.h>

#include "path.h"
#include "plan.h"
#include "plan_linux_int.h"
#include "util.h"

/* Mounted by bwrap itself (--proc, --dev, below) or the kernel's own: the filesystem
 * plan never pins or walks them. */
static const char *const kernel_dirs[] = { "/proc", "/dev", "/sys" };

int
plan_linux_is_kernel_dir(const char *p)
{
	size_t i;

	for (i = 0; i < nitems(kernel_dirs); i++)
		if (path_is_under(p, kernel_dirs[i]))
			return 1;
	return 0;
}

/* Is p in a write root? */
int
plan_linux_within_write(struct pb *b, const char *p)
{
	return path_under_any(p, &b->writes);
}

/* Is location beneath a read-deny tmpfs and not bound back since (bwrap: last mount wins)? */
int
plan_linux_hidden_by_tmpfs(struct pb *b, const char *loc, int with_reads)
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
