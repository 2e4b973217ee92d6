/*
 * policy_write_file: the compiled policy to disk, atomically (srt-policy compile). Apart
 * from policy.c, whose reader also builds for the proxies on Windows, where none of this
 * (mkostemp, fchmod, a directory's fsync) is needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "util.h"

int
policy_write_file(const char *path, const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	char *dcopy = NULL, *bcopy = NULL, *tmp = NULL;
	const char *dir;
	int fd = -1, rc = -1, dfd;
	size_t off = 0;

	dcopy = xstrdup(path);
	bcopy = xstrdup(path);
	dir = dirname(dcopy);
	/* Same directory, so rename(2) is atomic: readers see the old image or the new. */
	tmp = xasprintf("%s/.%s.XXXXXX", dir, basename(bcopy));
	if ((fd = mkostemp(tmp, O_CLOEXEC)) < 0) {
		policy_seterr(err, errlen, "%s: cannot create a temporary file in %s: %s", path,
		    dir, strerror(errno));
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (fchmod(fd, 0644) != 0) {
		policy_seterr(err, errlen, "%s: chmod: %s", tmp, strerror(errno));
		goto out;
	}
	while (off < len) {
		ssize_t w = write(fd, buf + off, len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			policy_seterr(err, errlen, "%s: write: %s", tmp, strerror(errno));
			goto out;
		}
		off += (size_t)w;
	}
	if (fsync(fd) != 0) {
		policy_seterr(err, errlen, "%s: fsync: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) != 0) {
		fd = -1;
		policy_seterr(err, errlen, "%s: close: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) != 0) {
		policy_seterr(err, errlen, "%s: rename: %s", path, strerror(errno));
		goto out;
	}
	free(tmp);
	tmp = NULL;
	/* Make the rename itself durable; a failure here does not undo a complete write. */
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		(void)fsync(dfd);
		close(dfd);
	}
	rc = 0;
out:
	if (fd >= 0)
		close(fd);
	if (tmp != NULL)
		unlink(tmp);
	free(tmp);
	free(dcopy);
	free(bcopy);
	return rc;
}
