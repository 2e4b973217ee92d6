#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fdpass.h"
#include "log.h"

/* Room for FDPASS_MAX descriptors in one control message, aligned as a cmsghdr. */
union cmsg_room {
	struct cmsghdr hdr;
	char buf[CMSG_SPACE(sizeof(int) * FDPASS_MAX)];
};

int
fdpass_send(int sock, const void *data, size_t len, const int *fds, size_t nfds)
{
	union cmsg_room cm;
	struct msghdr msg;
	struct iovec iov;
	ssize_t n;

	if (len == 0 || nfds > FDPASS_MAX) {
		errno = EINVAL;
		return -1;
	}
	memset(&msg, 0, sizeof(msg));
	memset(&cm, 0, sizeof(cm));
	iov.iov_base = (void *)(uintptr_t)data;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	if (nfds > 0) {
		struct cmsghdr *c;

		msg.msg_control = cm.buf;
		msg.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

int
fdpass_recv(
    int sock, void *data, size_t len, size_t *got, int *fds, size_t maxfds, size_t *nfds)
{
	union cmsg_room cm;
	struct msghdr msg;
	struct iovec iov;
	struct cmsghdr *c;
	size_t n_in = 0, i;
	int in[FDPASS_MAX];
	int bad = 0;
	ssize_t n;

	*got = 0;
	*nfds = 0;
	memset(&msg, 0, sizeof(msg));
	iov.iov_base = data;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = cm.buf;
	msg.msg_controllen = sizeof(cm.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n == -1 && errno == EINTR);
	if (n == -1)
		return -1;
	/* Collect every descriptor that arrived, so none leaks whatever happens next. */
	for (c = CMSG_FIRSTHDR(&msg); c != NULL; c = CMSG_NXTHDR(&msg, c)) {
		size_t k;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
			bad = 1;
			continue;
		}
		k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < k; i++) {
			int fd;

			memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(int));
			if (n_in < FDPASS_MAX)
				in[n_in++] = fd;
			else {
				close(fd);
				bad = 1;
			}
		}
	}
	if (n == 0 && n_in == 0) {
		errno = ECONNRESET;
		return -1;
	}
	if (bad || n_in > maxfds || (msg.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
		for (i = 0; i < n_in; i++)
			close(in[i]);
		errno = EMSGSIZE;
		return -1;
	}
	memcpy(fds, in, n_in * sizeof(int));
	*nfds = n_in;
	*got = (size_t)n;
	return 0;
}

int
memfd_sealed(const char *name, const void *buf, size_t len)
{
	const char *p = buf;
	int fd;

	if ((fd = memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING)) == -1) {
		log_warn("memfd_create %s", name);
		return -1;
	}
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("write %s", name);
			close(fd);
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) ==
		-1 ||
	    lseek(fd, 0, SEEK_SET) == -1) {
		log_warn("seal %s", name);
		close(fd);
		return -1;
	}
	return fd;
}
