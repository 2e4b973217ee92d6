/*
 * Platform plans built from the settings. Linux: the bubblewrap filesystem arguments of
 * BEHAVIOR §4.3 with the mandatory denies of §4.1 (SPEC §5: searched under every writable
 * root; globs expanded in all four lists). Windows: the access control entries of §7.
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

/*
 * Windows: the access control entries of BEHAVIOR §7 for the sandbox account, which
 * `srt-policy plan --target windows` prints one per line and srt-win applies.
 */
enum plan_right {
	PLAN_R_READ             = 1u << 0,
	PLAN_R_EXECUTE          = 1u << 1,
	PLAN_R_WRITE            = 1u << 2,
	PLAN_R_MODIFY           = 1u << 3,      /* read, write, execute, delete itself */
	PLAN_R_DELETE_CHILD     = 1u << 4,
};

struct plan_ace {
	int deny;               /* 0: ALLOW, 1: DENY */
	char *path;             /* absolute */
	unsigned rights;        /* enum plan_right */
	int inherit;            /* 1: (OI)(CI), also every file and directory beneath */
};

struct plan_windows {
	struct plan_ace *v;
	size_t n, cap;
};

int plan_windows_build(const struct settings *s, const struct plan_ctx *ctx,
    struct plan_windows *out, struct diags *errs);
void plan_windows_free(struct plan_windows *p);
/* One entry as its JSON line, without the newline:
 * {"ace":"allow","path":"/p","rights":["read","execute"],"inherit":"OICI"}.
 * NULL (errno EILSEQ) when the path is not UTF-8. Caller frees. */
char *plan_ace_json(const struct plan_ace *a);

/* Remove the placeholders bwrap left on the host (only empty files and directories). */
void plan_linux_cleanup(const struct plan_linux *p);
/* p's placeholders, deepest first, NULL-terminated; free() the array. */
const char **plan_linux_placeholders_deepest_first(const struct plan_linux *p);
/* One placeholder, if it is still what bwrap made; 0 or the errno that left it there.
 * Allocates and logs nothing. */
int plan_linux_remove_placeholder(const char *path);

#endif
