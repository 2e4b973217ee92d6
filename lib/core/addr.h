/*
 * IP addresses and ranges: deniedResolvedAddresses entries, the built-in address classes
 * of BEHAVIOR §2.4, and IPv4 embedded in IPv6. Pure logic.
 */
#ifndef SRT_ADDR_H
#define SRT_ADDR_H

#include <stddef.h>
#include <stdint.h>

/* An address: family 4 uses bytes[0..3], family 6 all 16. */
struct ip_addr {
	uint8_t family;
	uint8_t bytes[16];
};

struct addr_range {
	struct ip_addr base; /* host bits cleared */
	uint8_t prefix;      /* 0..32 or 0..128 */
};

/* A deniedResolvedAddresses entry: IP or CIDR, IPv6 unbracketed, prefix 1-3 digits and not
 * above the family's maximum; "::ffff:a.b.c.d/N" needs N >= 96 and becomes the IPv4 range.
 * Returns 0, or -1 with *why a static message. */
int addr_range_parse(const char *s, struct addr_range *out, const char **why);
int addr_range_contains(const struct addr_range *r, const struct ip_addr *a);
/* Canonical text of a range: "10.0.0.0/8", "fe80::/10", a bare address when the prefix is
 * the full length. out holds at least 64 bytes. */
void addr_range_format(const struct addr_range *r, char *out, size_t outlen);

/* Parse a literal address (no brackets, no zone); 0 or -1. */
int ip_addr_parse(const char *s, struct ip_addr *out);
void ip_addr_format(const struct ip_addr *a, char *out, size_t outlen); /* >= 46 bytes */
int ip_addr_equal(const struct ip_addr *a, const struct ip_addr *b);

/* The IPv4 address an IPv6 address embeds (::ffff:a.b.c.d, ::a.b.c.d, ::ffff:0:a.b.c.d,
 * 64:ff9b::/96, 2002::/16); 1 and *v4 set when there is one, else 0. */
int addr_embedded_v4(const struct ip_addr *a, struct ip_addr *v4);

/* ::ffff:a.b.c.d only, the one IPv6 spelling that is the IPv4 address itself (other
 * embeddings above are different addresses); 1 and *v4 set when a is one, else 0. */
int addr_mapped_v4(const struct ip_addr *a, struct ip_addr *v4);

/* The value of one hexadecimal digit, or -1. */
int hex_digit_value(int c);

/* A port written as n bytes of s: 1 to 5 decimal digits, 1 to 65535, no sign or blank
 * (the CONNECT and request targets, srt-policy match). 0, or -1. Domain entries have a
 * stricter rule of their own (no leading zero, domain.c). */
int port_parse(const char *s, size_t n, uint16_t *port);

/* Built-in classes, a bit each. */
enum addr_class {
	ADDR_CLASS_LOOPBACK = 1 << 0,
	ADDR_CLASS_UNSPECIFIED = 1 << 1,
	ADDR_CLASS_LINK_LOCAL = 1 << 2,
	ADDR_CLASS_MULTICAST = 1 << 3,
	ADDR_CLASS_BROADCAST = 1 << 4,
	ADDR_CLASS_METADATA = 1 << 5,
};
/* Classes of the address itself and of the IPv4 it embeds. */
unsigned addr_builtin_classes(const struct ip_addr *a);
/* "a loopback address", "a cloud metadata address", ... for one class bit. */
const char *addr_class_words(unsigned one_class);

#endif
