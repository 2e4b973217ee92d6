/*
 * The managed policy on Windows (managed.h): not read there yet. Where an organisation
 * would keep it on Windows, and the trust check that stands for managed_trust.c's (the
 * file's owner and DACL, and its directories'), are not designed; so srt.exe has no
 * managed layer, says so with -d, and the merge (managed.c) passes the user's settings
 * through unchanged, as it does on any system without the file.
 */
#ifdef _WIN32
#include <string.h>

#include "log.h"
#include "managed.h"

const char managed_path[] = "(no managed policy on Windows yet)";

int
managed_load_path(const char *path, struct managed *m, struct diags *errs,
    struct diags *warns)
{
	(void)warns;
	memset(m, 0, sizeof(*m));
	diags_add(errs, "%s: the managed policy is not read on Windows yet", path);
	return -1;
}

int
managed_load(struct managed *m, struct diags *errs, struct diags *warns)
{
	(void)errs;
	(void)warns;
	memset(m, 0, sizeof(*m));
	log_debug("managed policy: not read on Windows yet (no managed layer)");
	return 0;
}
#endif
