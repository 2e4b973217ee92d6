/*
 * For build/win/srt-nomanaged.exe only: srt.exe with a managed layer that reads
 * nothing. Wine derives every file's security descriptor from its Unix owner, so every
 * directory there is owned by the Wine user and the real srt.exe refuses to run
 * (tests/windows/srt-win-wine.bats checks that); the tests of what comes after the managed
 * layer run this one. Linked before build/win/srt/libsrt-core.a, these stand in for
 * lib/core/managed_win.c. Never installed.
 */
#include <string.h>

#include "log.h"
#include "managed.h"

const char managed_path[] = "(no managed policy: a test build)";

int
managed_load(struct managed *m, struct diags *errs, struct diags *warns)
{
	(void)errs;
	(void)warns;
	memset(m, 0, sizeof(*m));
	log_debug("managed policy: not read (a test build)");
	return 0;
}

int
managed_load_path(const char *path, struct managed *m, struct diags *errs, struct diags *warns)
{
	(void)warns;
	memset(m, 0, sizeof(*m));
	diags_add(errs, "%s: not read (a test build)", path);
	return -1;
}
