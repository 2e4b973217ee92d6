/*
 * File descriptors over a Unix socket (SCM_RIGHTS), with a small payload so the receiver
 * knows what it got. Used by the launcher: the child that creates the sandbox's network
 * namespace hands back the listening sockets it opened there.
 */
#ifndef SRT_FDPASS_H
#define SRT_FDPASS_H

#include <stddef.h>

#define FDPASS_MAX 16

/* Send len bytes of data (at least one) and nfds descriptors in one message.
 * 0, or -1 with errno set. */
int fdpass_send(int sock, const void *data, size_t len, const int *fds, size_t nfds);

/* Receive one message: up to len bytes into data (*got set to the count) and up to maxfds
 * descriptors into fds (*nfds set), each made close-on-exec. A truncated message or one
 * carrying more descriptors than asked for is an error (EMSGSIZE) and whatever arrived
 * is closed. 0 at success, -1 with errno (0 bytes: ECONNRESET). */
int fdpass_recv(
    int sock, void *data, size_t len, size_t *got, int *fds, size_t maxfds, size_t *nfds);

/* A sealed memfd (no write, grow, shrink or further seals) holding buf, positioned at
 * its start, close-on-exec: what a helper reads its input from. -1 with a warning. */
int memfd_sealed(const char *name, const void *buf, size_t len);

#endif
