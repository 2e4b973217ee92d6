/* The last failure of a winapi.h call (wa_error), one record for both layers: the fake
 * and the Win32 one each only say what failed. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "winapi.h"

int wa_debug;

static char errbuf[768];
static int err_denied;

const char *
wa_error(void)
{
	return errbuf;
}

int
wa_error_denied(void)
{
	return err_denied;
}

int
wa_fail_v(int denied, const char *fmt, va_list ap)
{
	vsnprintf(errbuf, sizeof(errbuf), fmt, ap);
	err_denied = denied;
	return -1;
}

int
wa_fail(int denied, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	wa_fail_v(denied, fmt, ap);
	va_end(ap);
	return -1;
}

void
wa_error_append(const char *s)
{
	size_t n = strlen(errbuf);

	snprintf(errbuf + n, sizeof(errbuf) - n, "%s", s);
}
