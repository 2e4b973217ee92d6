/*
 * The hosts file, read once, before the proxies narrow themselves (they cannot open files
 * afterwards). Answers follow c-ares 1.18's file lookup, which the resolver used to do on
 * every lookup: every line naming the host (case-insensitively, as its first name or an
 * alias) gives its address, in file order, IPv4 and IPv6 alike; '#' starts a comment
 * anywhere; a "/N" after an address is ignored. Where c-ares reads a short IPv4 form
 * ("127.1") it leaves stale bytes in the address: such lines are skipped here. When the
 * file exists but does not name "localhost", that name gets ::1 and 127.0.0.1, as c-ares
 * answers it.
 */
#ifndef SRT_HOSTS_H
#define SRT_HOSTS_H

#include <stdbool.h>
#include <stddef.h>

#include "addr.h"

#define HOSTS_PATH "/etc/hosts"
#define HOSTS_MAX_BYTES (16u << 20)

struct hosts_entry {
	struct ip_addr addr;
	char *names; /* the line's names, each followed by a NUL; "" ends them */
};

struct hosts {
	struct hosts_entry *v;
	size_t n;
	bool read; /* the file existed and was read */
};

/* Parse text (the file's contents) into h. */
void hosts_parse(struct hosts *h, const char *text, size_t len);
/* Read and parse the file; a missing or unreadable file leaves h empty (0, or -1 with
 * errno for anything but a missing file). */
int hosts_read(struct hosts *h, const char *path);
/* The addresses for name, at most max, duplicates left in as the file has them. */
size_t hosts_lookup(const struct hosts *h, const char *name, struct ip_addr *out, size_t max);
void hosts_free(struct hosts *h);

#endif
