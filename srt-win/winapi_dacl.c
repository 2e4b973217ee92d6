/*
 * A DACL as both system layers read it (winapi_win32.c from Windows, winapi_fake.c from
 * its records): one release for both, apart from the code that uses them, which they
 * do not call back.
 */
#include <stdlib.h>
#include <string.h>

#include "winapi.h"

void
wa_dacl_free(struct wa_dacl *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->v[i].sid);
		free(d->v[i].raw);
	}
	free(d->v);
	memset(d, 0, sizeof(*d));
}
