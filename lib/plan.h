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
#include "wguard.h"

struct plan_ctx {
	const char *cwd;        /* relative entries resolve against this */
	const char *home;       /* "~" expands to this */
	const char *tmpdir;     /* the sandbox's private TMPDIR (writable), or NULL */
	const char *settings_path; /* made read-only inside when it lies in a writable root, or NULL */
	const char *self_dir;   /* srt's own programs: read-only inside, or NULL */
};

/*
 * The mounts protect what exists when the run starts; the write guard (wguard.h),
 * enforced by srt-seccomp's supervisor, protects by name for the run's whole length,
 * missing paths included: nothing is created on the host for them.
 */
struct plan_linux {
	struct strlist args;            /* bwrap filesystem arguments, in order */
	struct strlist writes;          /* the write roots bound writable */
	struct wguard guard;            /* the write guard, indexed */
};

int plan_linux_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_linux *out, struct diags *errs);
void plan_linux_free(struct plan_linux *p);

#endif
