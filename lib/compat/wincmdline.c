/*
 * Windows command lines (wincmdline.h). Backslashes are literal except before a quote,
 * where 2n backslashes and a quote are n backslashes and a quote that opens or closes,
 * and 2n+1 are n backslashes and a literal quote.
 */
#include <stdlib.h>
#include <string.h>

#include "wincmdline.h"

struct cl {
	char *p;
	size_t len, cap;
	int oom;
};

static void
cl_add(struct cl *b, char c, size_t times)
{
	while (times-- > 0 && !b->oom) {
		if (b->len + 2 > b->cap) {
			size_t cap = b->cap ? b->cap * 2 : 64;
			char *p = realloc(b->p, cap);

			if (p == NULL) {
				b->oom = 1;
				return;
			}
			b->p = p;
			b->cap = cap;
		}
		b->p[b->len++] = c;
		b->p[b->len] = '\0';
	}
}

static void
quote_arg(struct cl *b, const char *a, int first)
{
	size_t bs = 0;

	if (*a != '\0' && strpbrk(a, " \t\n\v\"") == NULL) {
		for (; *a != '\0'; a++)
			cl_add(b, *a, 1);
		return;
	}
	cl_add(b, '"', 1);
	for (const char *p = a;; p++) {
		if (*p == '\\' && !first) {
			bs++;
			continue;
		}
		if (*p == '\0') {
			cl_add(b, '\\', bs * 2);
			break;
		}
		cl_add(b, '\\', *p == '"' ? bs * 2 + 1 : bs);
		bs = 0;
		cl_add(b, *p, 1);
	}
	cl_add(b, '"', 1);
}

char *
wincmdline_join(char *const *argv)
{
	struct cl b = { NULL, 0, 64, 0 };

	if ((b.p = malloc(b.cap)) == NULL)
		return NULL;
	b.p[0] = '\0'; /* an empty argv is an empty line */
	for (size_t i = 0; !b.oom && argv[i] != NULL; i++) {
		if (i > 0)
			cl_add(&b, ' ', 1);
		quote_arg(&b, argv[i], i == 0);
	}
	if (b.oom) {
		free(b.p);
		return NULL;
	}
	return b.p;
}
