/*
 * libFuzzer target for lib/core/jsregex.c (the extract patterns of a settings file's
 * credentials). Properties: no crash on any bytes; a valid pattern has a group count from
 * 0 to its number of "(", and an invalid one says why; wrapping a valid pattern in a
 * capturing group keeps it valid with one group more.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsregex.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *why;
	int groups, wrapped;
	size_t parens = 0, i;
	char *w;

	if (size > 4096)
		return 0;
	for (i = 0; i < size; i++)
		parens += data[i] == '(';
	if (jsregex_check((const char *)data, size, &groups, &why) != 0) {
		if (why == NULL)
			abort();
		return 0;
	}
	if (groups < 0 || (size_t)groups > parens)
		abort();
	w = xmalloc(size + 3);
	w[0] = '(';
	memcpy(w + 1, data, size);
	w[size + 1] = ')';
	if (jsregex_check(w, size + 2, &wrapped, &why) != 0 || wrapped != groups + 1)
		abort();
	free(w);
	return 0;
}
