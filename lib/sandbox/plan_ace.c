/* The entries of a Windows plan: plan_windows.c's and srt-win's (plan_ace.h). */
#include <stdlib.h>
#include <string.h>

#include "plan_ace.h"
#include "util.h"

const char *const plan_ace_right_names[PLAN_NRIGHTS] = {
	"read",
	"execute",
	"write",
	"modify",
	"delete_child",
	"delete",
};

void
plan_ace_add(struct plan_windows *p, int deny, const char *path, unsigned rights, int inherit,
    int (*same)(const char *, const char *))
{
	for (size_t i = 0; i < p->n; i++) {
		const struct plan_ace *a = &p->v[i];

		if (a->deny == deny && a->rights == rights && a->inherit == inherit &&
		    same(a->path, path))
			return;
	}
	p->v = util_grow(p->v, p->n, &p->cap, sizeof(*p->v));
	p->v[p->n].deny = deny;
	p->v[p->n].path = xstrdup(path);
	p->v[p->n].rights = rights;
	p->v[p->n++].inherit = inherit;
}

void
plan_windows_free(struct plan_windows *p)
{
	for (size_t i = 0; i < p->n; i++)
		free(p->v[i].path);
	free(p->v);
	memset(p, 0, sizeof(*p));
}
