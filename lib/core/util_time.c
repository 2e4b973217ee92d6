/* The records' time stamp (util.h), apart from util.c: clock_gettime is winpthreads' on
 * Windows, which srt-win does not link. */
#include <stdio.h>
#include <time.h>

#include "util.h"

void
util_time_now(char out[UTIL_TIME_MAX])
{
	struct timespec ts;
	struct tm tm;
	char t[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(t, sizeof(t), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out, UTIL_TIME_MAX, "%.19s.%03dZ", t, (int)(ts.tv_nsec / 1000000) % 1000);
}

bool
util_time_ok(const char *t)
{
	static const char form[] = "dddd-dd-ddTdd:dd:dd.dddZ";

	for (size_t i = 0; i < sizeof(form); i++)
		if (form[i] == 'd' ? t[i] < '0' || t[i] > '9' : t[i] != form[i])
			return false;
	return true;
}
