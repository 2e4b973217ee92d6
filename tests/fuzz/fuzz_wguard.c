/*
 * The write guard's decoder on arbitrary bytes (srt-seccomp reads it from srt-launch, but
 * treats it as untrusted): wguard_decode must refuse or accept without crashing; an
 * accepted guard must answer every question and encode back to bytes that decode to
 * the same guard.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wguard.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool
yes(void *arg, const char *p)
{
	(void)arg;
	return p[1] != 'n';
}

/* 1, 0, or -1 (cannot tell), by the path's length. */
static int
git3(void *arg, const char *p)
{
	(void)arg;
	return (int)(strlen(p) % 3) - 1;
}

static const struct wguard_fs fs = { NULL, git3, yes, yes, NULL };

static const char *const probes[] = {
	"/",
	"/a",
	"/a/.bashrc",
	"/a/b/.git/config",
	"/a/.claude",
	"/a/.claude/commands/x",
	"/x/y/z/w/v/u/t/s/r/q/p/o/n/m/.bashrc",
	"/a/.git",
	"/a/HEAD",
	"/a/new.pem",
	"/a/b/c/d.key",
};

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct wguard g, h;
	char err[256], *buf;
	size_t i, len;

	if (wguard_decode((const char *)data, size, &g, err, sizeof(err)) == -1) {
		if (err[0] == '\0')
			abort(); /* a refusal always says why */
		return 0;
	}
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		(void)wguard_protected(&g, &fs, probes[i]);
		(void)wguard_may_create(&g, &fs, probes[i], i % 2 == 0);
		(void)wguard_may_remove(&g, &fs, probes[i]);
	}
	buf = wguard_encode(&g, &len);
	if (wguard_decode(buf, len, &h, err, sizeof(err)) == -1 || h.exact.n != g.exact.n ||
	    h.roots.n != g.roots.n || h.writable.n != g.writable.n || h.watch.n != g.watch.n ||
	    h.globs.n != g.globs.n || h.depth != g.depth ||
	    h.allow_git_config != g.allow_git_config)
		abort();
	for (i = 0; i < g.exact.n; i++)
		if (strcmp(g.exact.v[i], h.exact.v[i]) != 0 ||
		    strcmp(g.exact_why.v[i], h.exact_why.v[i]) != 0)
			abort();
	for (i = 0; i < g.globs.n; i++)
		if (strcmp(g.globs.v[i], h.globs.v[i]) != 0 ||
		    strcmp(g.globs_why.v[i], h.globs_why.v[i]) != 0)
			abort();
	for (i = 0; i < g.writable.n; i++) {
		if (strcmp(g.writable.v[i], h.writable.v[i]) != 0)
			abort();
		(void)wguard_readonly_why(&g, g.writable.v[i]);
	}
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++)
		(void)wguard_readonly_why(&g, probes[i]);
	for (i = 0; i < g.watch.n; i++)
		if (strcmp(g.watch.v[i].name, h.watch.v[i].name) != 0 ||
		    (g.watch.v[i].mount == NULL) != (h.watch.v[i].mount == NULL) ||
		    (g.watch.v[i].mount != NULL &&
			strcmp(g.watch.v[i].mount, h.watch.v[i].mount) != 0))
			abort();
	wguard_free(&h);
	free(buf);
	wguard_free(&g);
	return 0;
}
