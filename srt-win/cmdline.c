/*
 * A Windows program gets one command line, which its C runtime splits back into argv:
 * wincmdline_join makes it (lib/compat/wincmdline.c, shared with srt's Windows launch
 * path; the Win32 layer calls it) and cmdline_split reads one the way the Microsoft C
 * runtime does, for the tests and the fake.
 */
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

int
cmdline_split(const char *s, struct strlist *out)
{
	struct buf cur = { 0 };
	int inq, have;

	memset(out, 0, sizeof(*out));
	/* argv[0]: up to whitespace, or between quotes, taken as it is. */
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"') {
		const char *e = strchr(s + 1, '"');

		if (e == NULL)
			e = s + strlen(s);
		strlist_push_owned(out, xstrndup(s + 1, (size_t)(e - s - 1)));
		s = *e ? e + 1 : e;
	} else if (*s) {
		size_t n = strcspn(s, " \t");

		strlist_push_owned(out, xstrndup(s, n));
		s += n;
	}
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		inq = 0;
		have = 0;
		buf_add(&cur, "", 0);
		buf_reset(&cur);
		while (*s && (inq || (*s != ' ' && *s != '\t'))) {
			size_t bs = 0;

			while (*s == '\\') {
				bs++;
				s++;
			}
			if (*s == '"') {
				for (size_t i = 0; i < bs / 2; i++)
					buf_add(&cur, "\\", 1);
				if (bs % 2) {
					buf_add(&cur, "\"", 1);
					s++;
				} else if (inq && s[1] == '"') {
					buf_add(&cur, "\"", 1); /* "" inside quotes */
					s += 2;
				} else {
					inq = !inq;
					s++;
				}
			} else {
				for (size_t i = 0; i < bs; i++)
					buf_add(&cur, "\\", 1);
				if (*s && (inq || (*s != ' ' && *s != '\t')))
					buf_add(&cur, s++, 1);
			}
			have = 1;
		}
		if (have)
			strlist_push(out, buf_str(&cur));
	}
	buf_free(&cur);
	return 0;
}
