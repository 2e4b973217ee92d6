/*
 * Platform plans built from the settings. Linux: the bubblewrap filesystem arguments of
 * BEHAVIOR §4.3 with the mandatory denies of §4.1 (SPEC §5: searched under every writable
 * root; globs expanded in all four lists).
 */
#ifndef SRT_PLAN_H
#define SRT_PLAN_H

#include <sys/types.h>

#include "settings.h"
#include "util.h"

struct plan_ctx {
	const char *cwd;        /* relative entries resolve against this */
	const char *home;       /* "~" expands to this */
	const char *tmpdir;     /* the sandbox's private TMPDIR (writable), or NULL */
	const char *settings_path; /* made read-only inside when it lies in a writable root, or NULL */
};

struct plan_linux {
	struct strlist args;            /* bwrap filesystem arguments, in order */
	struct strlist placeholders;    /* host paths bwrap will create for missing denied
	                                   paths; remove them after the run if still empty */
};

int plan_linux_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs);
void plan_linux_free(struct plan_linux *p);

/* Remove the placeholders bwrap left on the host (only empty files and directories). */
void plan_linux_cleanup(const struct plan_linux *p);
/* p's placeholders, deepest first, NULL-terminated; free() the array. */
const char **plan_linux_placeholders_deepest_first(const struct plan_linux *p);
/* One placeholder, if it is still what bwrap made; 0 or the errno that left it there.
 * Allocates and logs nothing. */
int plan_linux_remove_placeholder(const char *path);

#endif
