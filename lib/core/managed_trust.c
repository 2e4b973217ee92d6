/*
 * The managed policy (managed.h): finding and trusting the file, on a POSIX system. The
 * merge, which every build has, is managed.c; Windows has managed_win.c instead of this.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "managed.h"

#ifndef O_PATH
#define O_PATH O_RDONLY /* macOS: the walk needs search and read permission */
#endif

#define MANAGED_MAX_LINKS 40  /* as the kernel's own limit on a lookup */
#define MANAGED_MAX_DEPTH 256 /* directories on the way */

/* ------------------------------------------------------------------------------------ */
/* Trust */

/* Why st is not something only root can change, or NULL. */
static const char *
untrusted(const struct stat *st, char *buf, size_t len)
{
	if (st->st_uid != 0)
		snprintf(buf, len, "owned by uid %u, not by root", (unsigned)st->st_uid);
	else if ((st->st_mode & (S_IWGRP | S_IWOTH)) == (S_IWGRP | S_IWOTH))
		snprintf(buf, len, "writable by its group and by others (mode %04o)",
		    (unsigned)(st->st_mode & 07777));
	else if (st->st_mode & S_IWGRP)
		snprintf(buf, len, "writable by its group (mode %04o)",
		    (unsigned)(st->st_mode & 07777));
	else if (st->st_mode & S_IWOTH)
		snprintf(buf, len, "writable by others (mode %04o)",
		    (unsigned)(st->st_mode & 07777));
	else
		return NULL;
	return buf;
}

/* The directories walked so far, each open (O_PATH) and checked; the last is the one
 * the next name is looked up in. */
struct walk {
	int fd[MANAGED_MAX_DEPTH];
	char *shown[MANAGED_MAX_DEPTH];
	size_t n;
};

static void
walk_pop(struct walk *w)
{
	w->n--;
	close(w->fd[w->n]);
	free(w->shown[w->n]);
}

static void
walk_clear(struct walk *w)
{
	while (w->n > 0)
		walk_pop(w);
}

/* Push the directory fd (taken) named shown (taken), once it is checked. */
static int
walk_push(struct walk *w, int fd, char *shown, struct diags *errs)
{
	struct stat st;
	char why[96];

	if (fstat(fd, &st) == -1) {
		diags_add(errs, "%s: %s: %s", managed_path, shown, strerror(errno));
		goto bad;
	}
	if (!S_ISDIR(st.st_mode)) {
		diags_add(errs,
		    "%s: %s is not a directory; the managed policy cannot be "
		    "trusted",
		    managed_path, shown);
		goto bad;
	}
	if (untrusted(&st, why, sizeof(why)) != NULL) {
		diags_add(errs,
		    "%s: the managed policy cannot be trusted: the directory %s is "
		    "%s; it and every directory above it must be owned by root and writable "
		    "by nobody else",
		    managed_path, shown, why);
		goto bad;
	}
	if (w->n == MANAGED_MAX_DEPTH) {
		diags_add(errs, "%s: more than %d directories on the way", managed_path,
		    MANAGED_MAX_DEPTH);
		goto bad;
	}
	w->fd[w->n] = fd;
	w->shown[w->n++] = shown;
	return 0;
bad:
	close(fd);
	free(shown);
	return -1;
}

static int
walk_root(struct walk *w, struct diags *errs)
{
	int fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	walk_clear(w);
	if (fd == -1) {
		diags_add(errs, "%s: /: %s", managed_path, strerror(errno));
		return -1;
	}
	return walk_push(w, fd, xstrdup("/"), errs);
}

static char *
walk_name(const struct walk *w, const char *name)
{
	const char *dir = w->shown[w->n - 1];

	return xasprintf("%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
}

/* Ends the name at name at its first slash: the rest after the slashes, or NULL. */
static char *
walk_split(char *name)
{
	char *next = strchr(name, '/');

	if (next != NULL)
		*next++ = '\0';
	while (next != NULL && *next == '/')
		next++;
	return next != NULL && *next == '\0' ? NULL : next;
}

/* The file at the end of the walk, open as fd: 1 with *fdp if it is a regular file
 * that can be trusted, -1 with the reason (fd closed) if not. */
static int
walk_last(int fd, const struct stat *st, const char *shown, int *fdp, struct diags *errs)
{
	char why[96];

	if (!S_ISREG(st->st_mode)) {
		diags_add(errs, "%s: %s is not a regular file", managed_path, shown);
	} else if (untrusted(st, why, sizeof(why)) != NULL) {
		diags_add(errs,
		    "%s: the managed policy cannot be trusted: the file %s is "
		    "%s; it must be owned by root and writable by nobody else (as every "
		    "directory above it)",
		    managed_path, shown, why);
	} else {
		*fdp = fd;
		return 1;
	}
	close(fd);
	return -1;
}

/*
 * Open path for reading if it exists, looking up each name from the directory before it,
 * never by the whole path, so that what is checked is what is read. A symbolic link is
 * followed (its directory is trusted, so root made it), and where it leads is checked
 * in turn. 1 with *fdp; 0 when a name on the way does not exist; -1 with the reason.
 */
static int
managed_open(const char *path, int *fdp, struct diags *errs)
{
	struct walk w = { .n = 0 };
	char *rest, *name, *next, *shown, target[PATH_MAX];
	struct stat st;
	int fd, links = 0, rc = -1;
	ssize_t n;

	*fdp = -1;
	if (path[0] != '/') {
		diags_add(errs, "%s: not an absolute path", path);
		return -1;
	}
	if (walk_root(&w, errs) == -1)
		return -1;
	rest = xstrdup(path);
	name = rest;
	for (;;) {
		while (*name == '/')
			name++;
		if (*name == '\0') {
			diags_add(errs, "%s: names a directory, not a file", managed_path);
			goto out;
		}
		next = walk_split(name);
		if (strcmp(name, ".") == 0 && next != NULL) {
			name = next;
			continue;
		}
		if (strcmp(name, "..") == 0 && next != NULL) {
			if (w.n > 1)
				walk_pop(&w);
			name = next;
			continue;
		}
		shown = walk_name(&w, name);
		if (next == NULL)
			fd = openat(w.fd[w.n - 1], name,
			    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		else
			fd = openat(w.fd[w.n - 1], name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT) {
			log_debug("managed policy: %s does not exist: no managed layer", shown);
			free(shown);
			rc = 0;
			goto out;
		}
		if (fd == -1 && errno != ELOOP) {
			diags_add(errs, "%s: %s: %s; the managed policy cannot be read",
			    managed_path, shown, strerror(errno));
			free(shown);
			goto out;
		}
		if (fd != -1 && fstat(fd, &st) == -1) {
			diags_add(errs, "%s: %s: %s", managed_path, shown, strerror(errno));
			close(fd);
			free(shown);
			goto out;
		}
		if (fd == -1 || S_ISLNK(st.st_mode)) {
			if (fd != -1)
				close(fd);
			n = readlinkat(w.fd[w.n - 1], name, target, sizeof(target) - 1);
			if (n <= 0 || ++links > MANAGED_MAX_LINKS) {
				diags_add(errs, "%s: %s: %s", managed_path, shown,
				    n <= 0 ? strerror(errno) : "too many symbolic links");
				free(shown);
				goto out;
			}
			target[n] = '\0';
			log_debug("managed policy: %s -> %s", shown, target);
			free(shown);
			name = xasprintf("%s%s%s", target, next != NULL ? "/" : "",
			    next != NULL ? next : "");
			free(rest);
			rest = name;
			if (*name == '/' && walk_root(&w, errs) == -1)
				goto out;
			continue;
		}
		if (next != NULL) {
			if (walk_push(&w, fd, shown, errs) == -1)
				goto out;
			name = next;
			continue;
		}
		rc = walk_last(fd, &st, shown, fdp, errs);
		free(shown);
		goto out;
	}
out:
	walk_clear(&w);
	free(rest);
	return rc;
}

int
managed_load_path(const char *path, struct managed *m, struct diags *errs, struct diags *warns)
{
	struct settings s;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	if ((rc = managed_open(path, &fd, errs)) <= 0)
		return rc;
	if (read_fd_all(fd, SETTINGS_MAX_BYTES, &m->text, &m->len) == -1) {
		diags_add(errs, "%s: cannot be read: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	/* Checked now, so that a broken managed file stops every program at its start. */
	if (settings_parse_managed(m->text, m->len, path, &s, errs, warns) != 0) {
		managed_free(m);
		return -1;
	}
	settings_free(&s);
	m->path = xstrdup(path);
	m->present = true;
	log_debug("managed policy: %s", path);
	return 0;
}

int
managed_load(struct managed *m, struct diags *errs, struct diags *warns)
{
	return managed_load_path(managed_path, m, errs, warns);
}
