/*
 * libFuzzer target for the judge of git configuration changes (gitcfg_check): the old and
 * the new content both come from a sandboxed command. The first byte picks the git
 * directory (a top-level one, a submodule's, a nested submodule's, none) and the next two
 * where the rest splits into old and new (0xffff: no old file). Properties: no crash; a
 * refusal says why in one line without control characters; content that gitconfig_foreach
 * reads is always accepted unchanged (old and new the same), and the new content is
 * accepted over itself with its entries repeated (duplicates of what was there).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
count(const struct gitconfig_entry *e, void *arg)
{
	(void)e;
	(*(size_t *)arg)++;
	return 0;
}

static void
check_why(int r, const char *why)
{
	const unsigned char *p;

	if (r != 0 && r != -1)
		abort();
	if (r == -1 && strncmp(why, "git configuration", 17) != 0)
		abort();
	for (p = (const unsigned char *)why; *p != '\0'; p++)
		if (*p < 0x20 || *p == 0x7f)
			abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dirs[] = {
		"/w/p/.git",
		"/w/p/.git/modules/sub",
		"/w/p/.git/modules/a/modules/b",
		NULL,
	};
	struct strlist all = { 0 };
	struct gitcfg_ctx ctx;
	const char *old, *new_;
	size_t split, oldlen, newlen, n = 0;
	char why[256], *twice;
	int r;

	if (size < 3)
		return 0;
	ctx.gitdir = dirs[data[0] % 4];
	/* Every refusal collected, or the first only: the verdict is the same. */
	ctx.all = (data[0] & 4) != 0 ? &all : NULL;
	split = (size_t)data[1] << 8 | data[2];
	data += 3;
	size -= 3;
	if (split == 0xffff) {
		old = NULL;
		oldlen = 0;
		new_ = (const char *)data;
		newlen = size;
	} else {
		if (split > size)
			split = size;
		old = (const char *)data;
		oldlen = split;
		new_ = (const char *)data + split;
		newlen = size - split;
	}
	r = gitcfg_check(old, oldlen, new_, newlen, &ctx, why, sizeof(why));
	check_why(r, why);
	if (ctx.all != NULL && (r == 0) != (all.n == 0))
		abort();
	strlist_free(&all);
	ctx.all = NULL;

	/* What parses is accepted over itself, and so is it written twice over. */
	if (gitconfig_foreach(new_, newlen, count, &n, NULL) != 0)
		return 0;
	r = gitcfg_check(new_, newlen, new_, newlen, &ctx, why, sizeof(why));
	check_why(r, why);
	if (r != 0)
		abort();
	if ((twice = malloc(2 * newlen + 1)) == NULL)
		abort();
	memcpy(twice, new_, newlen);
	twice[newlen] = '\n';
	memcpy(twice + newlen + 1, new_, newlen);
	/* (Unless the text ended inside a continued value, which the line end continues.) */
	if (newlen == 0 || new_[newlen - 1] != '\\') {
		r = gitcfg_check(new_, newlen, twice, 2 * newlen + 1, &ctx, why, sizeof(why));
		check_why(r, why);
		if (r != 0 && gitconfig_foreach(twice, 2 * newlen + 1, count, &n, NULL) == 0)
			abort();
	}
	free(twice);
	return 0;
}
