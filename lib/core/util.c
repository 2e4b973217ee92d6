#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys.h"
#include "util.h"

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatalx("out of memory");
	return p;
}

void *
xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		fatalx("out of memory");
	return p;
}

void *
xreallocarray(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		fatalx("out of memory");
	p = realloc(p, (n * size) != 0 ? n * size : 1);
	if (p == NULL)
		fatalx("out of memory");
	return p;
}

void *
util_grow(void *v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return v;
	*cap = *cap ? *cap * 2 : 16;
	return xreallocarray(v, *cap, size);
}

static const char esc_letters[] = "bfnrtv", esc_values[] = "\b\f\n\r\t\v";

int
util_escape_value(int letter, const char *allowed)
{
	const char *p;

	if (letter == '\0' || strchr(allowed, letter) == NULL ||
	    (p = strchr(esc_letters, letter)) == NULL)
		return -1;
	return esc_values[p - esc_letters];
}

int
util_escape_letter(int c, const char *allowed)
{
	const char *p;

	if (c == '\0' || (p = strchr(esc_values, c)) == NULL ||
	    strchr(allowed, esc_letters[p - esc_values]) == NULL)
		return -1;
	return esc_letters[p - esc_values];
}

const char *
util_enum_name(const char *const *names, size_t n, unsigned v, const char *dflt)
{
	return v < n && names[v] != NULL ? names[v] : dflt;
}

int
util_enum_value(const char *const *names, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] != NULL && strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

/* The reference's uuid rule. */
int
util_is_uuid(const char *s)
{
	static const int groups[] = { 8, 4, 4, 4, 12 };

	for (size_t g = 0; g < 5; g++) {
		for (int i = 0; i < groups[g]; i++, s++)
			if (!((*s >= '0' && *s <= '9') ||
				((*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')))
				return 0;
		if (*s != (g < 4 ? '-' : '\0'))
			return 0;
		s++;
	}
	return 1;
}

char *
xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

static char *
xvasprintf(const char *fmt, va_list ap)
{
	char *s;

	if (vasprintf(&s, fmt, ap) < 0)
		fatalx("out of memory");
	return s;
}

char *
xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	return s;
}

void
strlist_push_owned(struct strlist *l, char *s)
{
	if (l->n + 2 > l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = s;
	l->v[l->n] = NULL;
}

void
strlist_push(struct strlist *l, const char *s)
{
	strlist_push_owned(l, xstrdup(s));
}

void
strlist_pushf(struct strlist *l, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strlist_push_owned(l, xvasprintf(fmt, ap));
	va_end(ap);
}

ssize_t
strlist_index(const struct strlist *l, const char *s)
{
	for (size_t i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return (ssize_t)i;
	return -1;
}

int
strlist_contains(const struct strlist *l, const char *s)
{
	return strlist_index(l, s) != -1;
}

void
strlist_free(struct strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

void
diags_add(struct diags *d, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strlist_push_owned(&d->msgs, xvasprintf(fmt, ap));
	va_end(ap);
}

void
diags_print(const struct diags *d, FILE *f)
{
	for (size_t i = 0; i < d->msgs.n; i++)
		fprintf(f, "%s\n", d->msgs.v[i]);
}

void
diags_free(struct diags *d)
{
	strlist_free(&d->msgs);
}

int
read_fd_all(int fd, size_t max, char **out, size_t *outlen)
{
	size_t len = 0, cap = 4096;
	char *buf = xmalloc(cap + 1);
	ssize_t r;

	for (;;) {
		if (len == cap) {
			if (cap > max) {
				free(buf);
				errno = EFBIG;
				return -1;
			}
			cap *= 2;
			buf = xreallocarray(buf, cap + 1, 1);
		}
		r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int saved = errno;
			free(buf);
			errno = saved;
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
		if (len > max) {
			free(buf);
			errno = EFBIG;
			return -1;
		}
	}
	buf[len] = '\0';
	*out = buf;
	*outlen = len;
	return 0;
}

int
read_file(const char *path, size_t max, char **out, size_t *outlen)
{
	int fd, rc, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -1;
	rc = read_fd_all(fd, max, out, outlen);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

void
util_wipe(void *p, size_t n)
{
	volatile unsigned char *v = p;

	while (n-- > 0)
		*v++ = 0;
}

char *
util_read_secret(int fd, size_t max, size_t *len)
{
	size_t n = 0, cap = 4096;
	char *p = xmalloc(cap + 1), *q;
	ssize_t r;
	int e = 0;

	for (;;) {
		if (n == cap) {
			q = xmalloc(2 * cap + 1);
			memcpy(q, p, n);
			util_wipe(p, cap + 1);
			free(p);
			p = q;
			cap *= 2;
		}
		r = read(fd, p + n, cap - n);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0) {
			e = r == 0 ? 0 : errno;
			break;
		}
		if ((n += (size_t)r) > max) {
			e = EFBIG;
			break;
		}
	}
	if (e != 0) {
		util_wipe(p, cap + 1);
		free(p);
		errno = e;
		return NULL;
	}
	p[n] = '\0';
	*len = n;
	return p;
}

char *
util_read_secret_file(const char *path, size_t max, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY), e;
	char *t;

	if (fd == -1)
		return NULL;
	t = util_read_secret(fd, max, len);
	e = errno;
	close(fd);
	errno = e;
	return t;
}

char *
shell_quote(const char *w)
{
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
				   "0123456789_./:@+,-";
	size_t n = 3;
	char *q, *o;

	if (*w != '\0' && strspn(w, safe) == strlen(w))
		return xstrdup(w);
	for (const char *p = w; *p != '\0'; p++)
		n += *p == '\'' ? 4 : 1;
	o = q = xmalloc(n);
	*o++ = '\'';
	for (const char *p = w; *p != '\0'; p++) {
		if (*p == '\'') {
			memcpy(o, "'\\''", 4);
			o += 4;
		} else
			*o++ = *p;
	}
	*o++ = '\'';
	*o = '\0';
	return q;
}

void
fd_close(int *fd)
{
	if (*fd != -1) {
		(void)close(*fd);
		*fd = -1;
	}
}
