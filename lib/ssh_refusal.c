/*
 * The SSH refusal sent to a client whose CONNECT to port 22 was denied (BEHAVIOR §3.4).
 * The description follows what the reference produces for the same reason text: runs of
 * control characters collapse into one space (a configured reason cannot fabricate extra
 * lines in the user's terminal or logs) and the text is cut at 1000 UTF-16 units.
 */
#include <string.h>

#include "ssh_refusal.h"

/* Decode one UTF-8 sequence at s[0..len); returns its length and sets *cp, or returns 1
 * with *cp = U+FFFD for a byte that does not start a well-formed sequence. */
static size_t
utf8_decode(const uint8_t *s, size_t len, uint32_t *cp)
{
	size_t n, i;
	uint32_t c, min;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2, c = s[0] & 0x1f, min = 0x80;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3, c = s[0] & 0x0f, min = 0x800;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4, c = s[0] & 0x07, min = 0x10000;
	} else
		goto bad;
	if (n > len)
		goto bad;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			goto bad;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and values past U+10FFFF are not characters. */
	if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
		goto bad;
	*cp = c;
	return n;
bad:
	*cp = 0xfffd;
	return 1;
}

static size_t
utf8_encode(uint32_t c, char *out)
{
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

size_t
ssh_refusal_sanitise(const char *reason, size_t len, char *out)
{
	const uint8_t *s = (const uint8_t *)reason;
	size_t i = 0, o = 0, units = 0;
	int in_controls = 0;
	uint32_t c;

	while (i < len && units < SSH_REFUSAL_DESC_CHARS) {
		i += utf8_decode(s + i, len - i, &c);
		if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
			if (!in_controls) {
				out[o++] = ' ';
				units++;
			}
			in_controls = 1;
			continue;
		}
		in_controls = 0;
		if (c >= 0x10000 && units + 2 > SSH_REFUSAL_DESC_CHARS) {
			/* The cut falls inside a surrogate pair: the reference is left with a
			 * lone surrogate, which its UTF-8 encoder writes as U+FFFD. */
			c = 0xfffd;
		}
		o += utf8_encode(c, out + o);
		units += c >= 0x10000 ? 2 : 1;
	}
	return o;
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
	put_u32(p, 0);          /* language tag: empty */
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
