/*
 * A Windows program gets one command line, which its C runtime splits back into argv.
 * cmdline_join quotes each argument so that the split (CommandLineToArgvW, the Microsoft
 * C runtime) gives exactly the argument back: backslashes are literal except before a
 * quote, where 2n backslashes and a quote are n backslashes and a quote that opens or
 * closes, and 2n+1 are n backslashes and a literal quote.
 */
#include <stdlib.h>
#include <string.h>

#include "srt-win.h"

static void
quote_arg(struct sbuf *b, const char *a, int first)
{
	size_t bs = 0;

	if (*a != '\0' && strpbrk(a, " \t\n\v\"") == NULL) {
		sb_puts(b, a);
		return;
	}
	sb_add(b, "\"", 1);
	for (const char *p = a; ; p++) {
		if (*p == '\\' && !first) {
			bs++;
			continue;
		}
		if (*p == '\0') {
			for (size_t i = 0; i < bs * 2; i++)
				sb_add(b, "\\", 1);
			break;
		}
		if (*p == '"') {
			for (size_t i = 0; i < bs * 2 + 1; i++)
				sb_add(b, "\\", 1);
		} else {
			for (size_t i = 0; i < bs; i++)
				sb_add(b, "\\", 1);
		}
		bs = 0;
		sb_add(b, p, 1);
	}
	sb_add(b, "\"", 1);
}

char *
cmdline_join(char *const *argv)
{
	struct sbuf b = { 0 };

	sb_add(&b, "", 0);
	for (size_t i = 0; argv[i] != NULL; i++) {
		if (i > 0)
			sb_add(&b, " ", 1);
		/* The program name is read up to the closing quote, backslashes and all;
		 * a name cannot hold a quote. */
		quote_arg(&b, argv[i], i == 0);
	}
	return b.p;
}

int
cmdline_split(const char *s, struct strv *out)
{
	struct sbuf cur = { 0 };
	int inq, have;

	memset(out, 0, sizeof(*out));
	/* argv[0]: up to whitespace, or between quotes, taken as it is. */
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '"') {
		const char *e = strchr(s + 1, '"');

		if (e == NULL)
			e = s + strlen(s);
		strv_push_owned(out, xstrndup(s + 1, (size_t)(e - s - 1)));
		s = *e ? e + 1 : e;
	} else if (*s) {
		size_t n = strcspn(s, " \t");

		strv_push_owned(out, xstrndup(s, n));
		s += n;
	}
	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			break;
		inq = 0;
		have = 0;
		sb_add(&cur, "", 0);
		cur.len = 0;
		cur.p[0] = '\0';
		while (*s && (inq || (*s != ' ' && *s != '\t'))) {
			size_t bs = 0;

			while (*s == '\\') {
				bs++;
				s++;
			}
			if (*s == '"') {
				for (size_t i = 0; i < bs / 2; i++)
					sb_add(&cur, "\\", 1);
				if (bs % 2) {
					sb_add(&cur, "\"", 1);
					s++;
				} else if (inq && s[1] == '"') {
					sb_add(&cur, "\"", 1);      /* "" inside quotes */
					s += 2;
				} else {
					inq = !inq;
					s++;
				}
			} else {
				for (size_t i = 0; i < bs; i++)
					sb_add(&cur, "\\", 1);
				if (*s && (inq || (*s != ' ' && *s != '\t')))
					sb_add(&cur, s++, 1);
			}
			have = 1;
		}
		if (have)
			strv_push(out, cur.p);
	}
	free(cur.p);
	return 0;
}
