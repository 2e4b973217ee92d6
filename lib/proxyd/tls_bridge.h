/*
 * A TLS bridge on the event loop: the clear side of a TLS connection as a plain socket.
 *
 * tls_bridge_start takes a connected socket with an established TLS session on it and
 * gives back one end of a socketpair: what is written there leaves encrypted, what
 * arrives decrypted can be read there. So code that moves bytes between sockets (the
 * splice relay, srt-httpd's forwarder, the connection pool) works over TLS unchanged.
 * Half-close is kept: EOF on the clear side sends close_notify and shuts the TCP write
 * side; the peer's close_notify (or EOF) shuts the clear side's write direction. When
 * the clear end is closed whole, what was written there before still goes out, then
 * close_notify, for at most TLS_BRIDGE_CLOSE_MS: a peer that has stopped reading does
 * not keep the bridge (its TLS_BRIDGE_BUF and one record, the most it holds then) for
 * longer. When either side fails, the bridge closes everything.
 *
 * srt-httpd's terminated tunnels do not use it: the forwarder reads and writes their
 * sessions itself (srt-httpd/conn.c), a copy and two system calls fewer per chunk each
 * way. It carries an https:// parent proxy's session, under the relay and the forwarder.
 */
#ifndef SRT_TLS_BRIDGE_H
#define SRT_TLS_BRIDGE_H

#include "evloop.h"
#include "tls.h"

#define TLS_BRIDGE_BUF 16384      /* bytes buffered each way */
#define TLS_BRIDGE_CLOSE_MS 5000u /* to flush once the clear end is closed */

/* Bridge fd (owned from now on, in every case) and its session tc (likewise). The clear
 * end, non-blocking and close-on-exec, is returned; -1 with errno if the socketpair or
 * the registration failed. */
int tls_bridge_start(struct evloop *loop, int fd, struct tls_conn *tc);

#endif
