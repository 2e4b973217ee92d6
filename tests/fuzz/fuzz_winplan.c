/*
 * libFuzzer target for what srt-win reads from other programs: the plan on stdin (JSON
 * lines or the reference's object, through the core's JSON tree reader) and its records.
 * A plan either fails with nothing kept, or gives entries that are absolute, clean and
 * never ALLOW delete_child; records that parse format and parse back to the same text.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	sw_quiet = 1; /* every refusal would print its JSON line */
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan_windows p;
	struct state st = { 0 }, st2 = { 0 };
	char *text = malloc(size + 1), *f1, *f2, err[128];
	struct json_value *v;

	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (plan_parse(text, size, &p) == 0) {
		for (size_t i = 0; i < p.n; i++) {
			char *c = sw_path_clean(p.v[i].path);

			if (c == NULL || strcmp(c, p.v[i].path) != 0 || p.v[i].rights == 0 ||
			    (!p.v[i].deny && (p.v[i].rights & SR_DELETE_CHILD)))
				abort();
			free(c);
		}
		plan_windows_free(&p);
	} else if (p.n != 0)
		abort();
	if ((v = json_tree_parse(text, size, err, sizeof(err))) != NULL)
		json_tree_free(v);
	else if (err[0] == '\0')
		abort();
	if (state_parse(text, size, &st) == 0) {
		f1 = state_format(&st);
		if (state_parse(f1, strlen(f1), &st2) != 0)
			abort();
		f2 = state_format(&st2);
		if (strcmp(f1, f2) != 0)
			abort();
		free(f1);
		free(f2);
	}
	for (size_t i = 0; i < st.n; i++)
		rec_free(&st.v[i]);
	for (size_t i = 0; i < st2.n; i++)
		rec_free(&st2.v[i]);
	free(st.v);
	free(st2.v);
	free(text);
	return 0;
}
