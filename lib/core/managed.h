/*
 * The managed policy: an organisation's baseline, which user settings can narrow but
 * never widen (srt-settings(5), MANAGED POLICY).
 *
 * It lives at managed_path, SYSCONFDIR/srt/managed-settings.json, fixed when srt is built
 * (no flag or environment variable moves it). It is read only when it, and every
 * directory on the way to it, is owned by root and writable by nobody else, as sudo
 * treats sudoers; symbolic links on the way are followed only from such directories.
 * Where the file does not exist there is no managed layer, provided nobody but root could
 * have removed it: a directory on the way that someone else may write makes its absence
 * as untrusted as its presence, and srt refuses to run.
 *
 * The merge (managed_apply) is one function from (user settings, managed file) to the
 * settings that are compiled and enforced; every program loads its policy through it
 * (policy_source.h), and a live update of the policy must go through it too, so that no
 * update can widen past the managed file.
 */
#ifndef SRT_MANAGED_H
#define SRT_MANAGED_H

#include <stdbool.h>
#include <stddef.h>

#include "settings.h"
#include "util.h"

/* SYSCONFDIR "/srt/managed-settings.json", as built. */
extern const char managed_path[];

/* The managed layer as read at start: its bytes, parsed anew by each merge. */
struct managed {
	bool present; /* the file exists, is trusted and is valid */
	char *path;   /* where it was read from */
	char *text;   /* its contents */
	size_t len;
};

/*
 * Read managed_path with the trust checks above and check its contents. 0: m->present
 * says whether there is a managed layer; -1 with the reason in errs (the file is not
 * trusted, or not valid): the caller must refuse to run.
 */
int managed_load(struct managed *m, struct diags *errs, struct diags *warns);
/* The same for another path (the unit tests: no program takes one). */
int managed_load_path(
    const char *path, struct managed *m, struct diags *errs, struct diags *warns);
void managed_free(struct managed *m);

/*
 * Merge the user's settings with the managed layer into *out (user is consumed either
 * way; user_name names it in messages). Without a managed layer out is user as it was.
 * Otherwise:
 *  - every list holds the managed file's entries first, then the user's that are not
 *    already there, and out->layers counts the managed ones;
 *  - under allowManagedDomainsOnly (allowManagedReadPathsOnly) the user's
 *    allowedDomains (allowRead) entries do not count: each one is left out with a
 *    warning naming both files;
 *  - an option that weakens the sandbox (the table in managed.c) keeps the user's value
 *    only when the managed file allows it (allowUserWeakerOptions) or gives the same
 *    itself; a stronger option is the stronger of the two; a value that can only be one
 *    (a proxy port, bwrapPath) is the managed file's when it sets one;
 *  - a user setting the managed file forbids, or contradicts, is an error naming both
 *    files. Then -1, out empty.
 * Merging the result again with the same managed layer gives the same settings.
 */
int managed_apply(const struct managed *m, struct settings *user, const char *user_name,
    struct settings *out, struct diags *errs, struct diags *warns);

/* Whether the merge knows how to merge the settings key at path ("network.parentProxy");
 * a key it does not know would pass unmerged (tests/unit/test_managed.c asks for each). */
bool managed_merges(const char *path);

/* The value at a dotted path ("network.parentProxy") of a canonical JSON document, or
 * NULL: the merge's and srt-policy layers' way into a settings tree. */
struct cJSON;
const struct cJSON *managed_json_at(const struct cJSON *root, const char *path);

#endif
