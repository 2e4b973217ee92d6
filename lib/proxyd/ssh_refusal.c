/*
 * The SSH refusal sent to a client whose CONNECT to port 22 was denied (BEHAVIOR §3.4).
 * The description follows what the reference produces for the same reason text: runs of
 * control characters collapse into one space (a configured reason cannot fabricate extra
 * lines in the user's terminal or logs) and the text is cut at 1000 UTF-16 units.
 */
#include <string.h>

#include "ssh_refusal.h"
#include "utf8.h"

size_t
ssh_refusal_sanitise(const char *reason, size_t len, char *out)
{
	return utf8_sanitise(reason, len, 0, SSH_REFUSAL_DESC_CHARS, out);
}

static void
put_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

size_t
ssh_disconnect_packet(const char *desc, size_t desclen, uint8_t *out, size_t outlen)
{
	size_t payload, padding, total;
	uint8_t *p;

	if (desclen > SSH_REFUSAL_DESC_MAX)
		return 0;
	/* byte msg, uint32 reason, string description, string language */
	payload = 1 + 4 + 4 + desclen + 4;
	/* RFC 4253 §6: uint32 length + byte padding length + payload + padding must be a
	 * multiple of 8 (the cipher block size before key exchange), padding at least 4. */
	padding = 8 - (4 + 1 + payload) % 8;
	if (padding < 4)
		padding += 8;
	total = 4 + 1 + payload + padding;
	if (total > outlen)
		return 0;
	p = out;
	put_u32(p, (uint32_t)(1 + payload + padding));
	p += 4;
	*p++ = (uint8_t)padding;
	*p++ = SSH_MSG_DISCONNECT;
	put_u32(p, SSH_DISCONNECT_HOST_NOT_ALLOWED_TO_CONNECT);
	p += 4;
	put_u32(p, (uint32_t)desclen);
	p += 4;
	memcpy(p, desc, desclen);
	p += desclen;
	put_u32(p, 0); /* language tag: empty */
	p += 4;
	/* Zero padding: before key exchange nobody checks it, and zeros leak nothing. */
	memset(p, 0, padding);
	return total;
}

size_t
ssh_refusal_build(const char *reason, size_t len, uint8_t *out, size_t outlen)
{
	char desc[SSH_REFUSAL_DESC_MAX];
	size_t identlen = sizeof(SSH_REFUSAL_IDENT) - 1, desclen, n;

	if (outlen < identlen)
		return 0;
	memcpy(out, SSH_REFUSAL_IDENT, identlen);
	desclen = ssh_refusal_sanitise(reason, len, desc);
	n = ssh_disconnect_packet(desc, desclen, out + identlen, outlen - identlen);
	if (n == 0)
		return 0;
	return identlen + n;
}
