/*
 * libFuzzer target for the git configuration reader behind the mandatory write denies
 * (the file may come from a command sandboxed in an earlier run). Properties: the parse
 * ends with 0 and no error line, or -1 with a line number within the input; every value
 * kept is a string with no NUL; worktreeConfig is -1, 0 or 1; the same input with a
 * complete "[core] hooksPath" line appended (after a newline) yields that value when the
 * input parsed cleanly (last assignment wins).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gitconfig.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
check(const struct gitconfig *c, int r, size_t lines)
{
	size_t i;

	if (r == 0 ? c->error_line != 0 : (c->error_line < 1 || (size_t)c->error_line > lines))
		abort();
	if (c->worktree_config < -1 || c->worktree_config > 1)
		abort();
	for (i = 0; i < c->includes.n; i++)
		if (*c->includes.v[i] == '\0')
			abort();
	if (c->hooks_path != NULL)
		(void)strlen(c->hooks_path);
	if (c->worktree != NULL)
		(void)strlen(c->worktree);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char tail[] = "\n[core]\nhooksPath = \"fuzz-last\"\n";
	struct gitconfig c;
	size_t i, lines = 1;
	char *buf;
	int r;

	for (i = 0; i < size; i++)
		if (data[i] == '\n')
			lines++;
	gitconfig_init(&c);
	r = gitconfig_parse((const char *)data, size, &c);
	check(&c, r, lines);
	gitconfig_free(&c);
	if (r != 0)
		return 0;
	/* Clean input, then one more assignment: it wins, unless the input ended inside a
	 * value continued by a trailing backslash. */
	if ((buf = malloc(size + sizeof(tail))) == NULL)
		abort();
	memcpy(buf, data, size);
	memcpy(buf + size, tail, sizeof(tail) - 1);
	gitconfig_init(&c);
	r = gitconfig_parse(buf, size + sizeof(tail) - 1, &c);
	if (r == 0 && (c.hooks_path == NULL || strcmp(c.hooks_path, "fuzz-last") != 0) &&
	    !(size > 0 && data[size - 1] == '\\'))
		abort();
	gitconfig_free(&c);
	free(buf);
	return 0;
}
