/* The hosts file, read once (hosts.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "buf.h"
#include "hosts.h"
#include "util.h"

static bool
hosts_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

/* An address as c-ares reads one in a hosts file: IPv4 in four decimal parts (leading
 * zeros read as decimal), or IPv6; a "/N" after it is dropped. */
static int
hosts_addr(const char *s, size_t n, struct ip_addr *a)
{
	char buf[64];
	const char *slash = memchr(s, '/', n);
	unsigned long part;
	size_t i, parts = 0, digits = 0;

	if (slash != NULL)
		n = (size_t)(slash - s);
	if (n == 0 || n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (strchr(buf, ':') != NULL)
		return ip_addr_parse(buf, a) == 0 && a->family == 6 ? 0 : -1;
	memset(a, 0, sizeof(*a));
	a->family = 4;
	for (i = 0, part = 0; i <= n; i++) {
		if (i == n || buf[i] == '.') {
			if (digits == 0 || part > 255 || parts == 4)
				return -1;
			a->bytes[parts++] = (uint8_t)part;
			part = 0;
			digits = 0;
		} else if (buf[i] >= '0' && buf[i] <= '9' && digits < 4) {
			part = part * 10 + (unsigned long)(buf[i] - '0');
			digits++;
		} else
			return -1;
	}
	return parts == 4 ? 0 : -1;
}

static void
hosts_line(struct hosts *h, const char *p, const char *end)
{
	const char *hash = memchr(p, '#', (size_t)(end - p)), *w;
	struct ip_addr a;
	struct buf names = { 0 };

	if (hash != NULL)
		end = hash;
	while (p < end && hosts_blank(*p))
		p++;
	for (w = p; p < end && !hosts_blank(*p); p++)
		;
	if (p == w || hosts_addr(w, (size_t)(p - w), &a) != 0)
		return;
	for (;;) {
		while (p < end && hosts_blank(*p))
			p++;
		if (p == end)
			break;
		for (w = p; p < end && !hosts_blank(*p); p++)
			;
		buf_add(&names, w, (size_t)(p - w));
		buf_addc(&names, '\0');
	}
	if (names.len == 0)
		return; /* an address without a name names nothing */
	buf_addc(&names, '\0');
	h->v = xreallocarray(h->v, h->n + 1, sizeof(*h->v));
	h->v[h->n].addr = a;
	h->v[h->n].names = buf_steal(&names);
	h->n++;
}

void
hosts_parse(struct hosts *h, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		hosts_line(h, p, nl != NULL ? nl : end);
		p = nl != NULL ? nl + 1 : end;
	}
	h->read = true;
}

int
hosts_read(struct hosts *h, const char *path)
{
	char *text;
	size_t len;

	memset(h, 0, sizeof(*h));
	if (read_file(path, HOSTS_MAX_BYTES, &text, &len) != 0)
		return errno == ENOENT ? 0 : -1;
	hosts_parse(h, text, len);
	free(text);
	return 0;
}

size_t
hosts_lookup(const struct hosts *h, const char *name, struct ip_addr *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < h->n && n < max; i++) {
		for (const char *nm = h->v[i].names; *nm != '\0'; nm += strlen(nm) + 1) {
			if (strcasecmp(nm, name) == 0) {
				out[n++] = h->v[i].addr;
				break;
			}
		}
	}
	/* No line names it: c-ares answers "localhost" itself (RFC 6761 6.3), spelled so. */
	if (n == 0 && h->read && strcmp(name, "localhost") == 0 && max >= 2) {
		memset(out, 0, 2 * sizeof(*out));
		out[0].family = 6;
		out[0].bytes[15] = 1;
		out[1].family = 4;
		out[1].bytes[0] = 127;
		out[1].bytes[3] = 1;
		n = 2;
	}
	return n;
}

void
hosts_free(struct hosts *h)
{
	for (size_t i = 0; i < h->n; i++)
		free(h->v[i].names);
	free(h->v);
	memset(h, 0, sizeof(*h));
}
