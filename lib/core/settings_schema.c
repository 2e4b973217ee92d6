/* The rows of settings_schema.h as data. */
#include <stdbool.h>
#include <stddef.h>

#include "settings.h"

#define ROW_KEY(name, flags, note) { #name, flags, note, SETTINGS_VALUE, 0, 0, 0, 0, 0 },
#define ROW_BOOL(path, name, bit) \
	{ #name, 0, NULL, SETTINGS_BOOL, offsetof(struct settings, path), bit, 0, 1, 0 },
#define ROW_INT(path, name, lo, hi, dflt) \
	{ #name, 0, NULL, SETTINGS_INT, offsetof(struct settings, path), 0, lo, hi, dflt },

#define ROOT_BOOL(name, member, bit) ROW_BOOL(member, name, bit)
#define ROOT_INT(name, member, lo, hi, dflt) ROW_INT(member, name, lo, hi, dflt)
#define NET_BOOL(name, member, bit) ROW_BOOL(net.member, name, bit)
#define NET_INT(name, member, lo, hi, dflt) ROW_INT(net.member, name, lo, hi, dflt)
#define FS_BOOL(name, member, bit) ROW_BOOL(fs.member, name, bit)
#define FS_INT(name, member, lo, hi, dflt) ROW_INT(fs.member, name, lo, hi, dflt)

static const struct settings_key root_keys[SR_COUNT] = { SETTINGS_ROOT_KEYS(
    ROW_KEY, ROOT_BOOL, ROOT_INT) };
static const struct settings_key network_keys[SN_COUNT] = { SETTINGS_NETWORK_KEYS(
    ROW_KEY, NET_BOOL, NET_INT) };
static const struct settings_key filesystem_keys[SF_COUNT] = { SETTINGS_FILESYSTEM_KEYS(
    ROW_KEY, FS_BOOL, FS_INT) };

const struct settings_object settings_root = { "", root_keys, SR_COUNT };
const struct settings_object settings_network = { "network", network_keys, SN_COUNT };
const struct settings_object settings_filesystem = { "filesystem", filesystem_keys, SF_COUNT };
const struct settings_object *const settings_objects[3] = {
	&settings_network,
	&settings_filesystem,
	&settings_root,
};

/* The bits are distinct (their sum has no carry, so it equals their union) and run from
 * 0 without a gap: a new row that reuses or skips a bit does not compile. */
#define BIT_SUM(name, member, bit) +(1ull << (bit))
#define BIT_OR(name, member, bit) | (1ull << (bit))
#define BIT_COUNT(name, member, bit) +1
#define ALL_BOOLS(B) \
	SETTINGS_NETWORK_KEYS(SETTINGS_NO_KEY, B, SETTINGS_NO_INT) \
	SETTINGS_FILESYSTEM_KEYS(SETTINGS_NO_KEY, B, SETTINGS_NO_INT) \
	SETTINGS_ROOT_KEYS(SETTINGS_NO_KEY, B, SETTINGS_NO_INT)

_Static_assert(
    (0 ALL_BOOLS(BIT_SUM)) == (0 ALL_BOOLS(BIT_OR)), "two boolean settings share a bit");
_Static_assert((0 ALL_BOOLS(BIT_OR)) == (1ull << (0 ALL_BOOLS(BIT_COUNT))) - 1,
    "the bits of the boolean settings leave a gap");
_Static_assert((0 ALL_BOOLS(BIT_COUNT)) <= 32, "policy.bin has 32 option bits");

const unsigned settings_all_flags = (unsigned)(0 ALL_BOOLS(BIT_OR));

int
settings_int_ok(const struct settings_key *k, long long v)
{
	return (v >= k->lo && v <= k->hi) || v == k->dflt;
}

int
settings_int_unset(const struct settings_key *k, int v)
{
	return v == k->dflt && (v < k->lo || v > k->hi);
}

bool
settings_bool(const struct settings *s, const struct settings_key *k)
{
	return *(const bool *)(const void *)((const char *)s + k->off);
}

int
settings_int(const struct settings *s, const struct settings_key *k)
{
	return *(const int *)(const void *)((const char *)s + k->off);
}

void
settings_set_bool(struct settings *s, const struct settings_key *k, bool v)
{
	*(bool *)(void *)((char *)s + k->off) = v;
}

void
settings_set_int(struct settings *s, const struct settings_key *k, int v)
{
	*(int *)(void *)((char *)s + k->off) = v;
}
