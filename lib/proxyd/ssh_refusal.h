/*
 * The in-band SSH refusal of BEHAVIOR §3.4: when a SOCKS CONNECT to port 22 is denied, the
 * proxy grants the request and then plays an SSH server that refuses at once, so that
 * ssh(1) prints the deny reason instead of an opaque proxy error. What is sent: the
 * identification line, then one plaintext SSH_MSG_DISCONNECT (legal before key exchange,
 * RFC 4253 §11.1; no MAC, no encryption). Pure logic.
 */
#ifndef SRT_SSH_REFUSAL_H
#define SRT_SSH_REFUSAL_H

#include <stddef.h>
#include <stdint.h>

#define SSH_REFUSAL_IDENT "SSH-2.0-policy_refusal\r\n"
#define SSH_MSG_DISCONNECT 1
#define SSH_DISCONNECT_HOST_NOT_ALLOWED_TO_CONNECT 1
/* The description is cut at this many characters (UTF-16 units, as the reference counts). */
#define SSH_REFUSAL_DESC_CHARS 1000
/* A cut description is at most 1000 units of at most 3 UTF-8 bytes each. */
#define SSH_REFUSAL_DESC_MAX (3 * SSH_REFUSAL_DESC_CHARS)
/* Identification line + the largest packet (4 + 1 + 13 + desc + 11 padding). */
#define SSH_REFUSAL_MAX (sizeof(SSH_REFUSAL_IDENT) - 1 + 29 + SSH_REFUSAL_DESC_MAX)

/*
 * The description as sent: UTF-8, each run of control characters (C0, DEL, C1) becomes
 * one space, invalid UTF-8 becomes U+FFFD, cut after SSH_REFUSAL_DESC_CHARS characters.
 * out holds SSH_REFUSAL_DESC_MAX bytes; returns the length written.
 */
size_t ssh_refusal_sanitise(const char *reason, size_t len, char *out);

/* The binary packet (RFC 4253 §6) carrying SSH_MSG_DISCONNECT, reason 1, description
 * desc (already sanitised), empty language tag; padding of 4 to 11 zero bytes so that the
 * whole packet is a multiple of 8. Returns its length, 0 if outlen is too small. */
size_t ssh_disconnect_packet(const char *desc, size_t desclen, uint8_t *out, size_t outlen);

/* Identification line + disconnect packet for a deny reason; out holds SSH_REFUSAL_MAX. */
size_t ssh_refusal_build(const char *reason, size_t len, uint8_t *out, size_t outlen);

#endif
