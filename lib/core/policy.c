/*
 * policy.bin: the compiled policy (SPEC §3).
 *
 * Format, version 4. Every integer is little-endian and read byte by byte, so the image
 * needs no alignment and reads the same on every host. There is no padding anywhere: the
 * sections follow the header and each other with no gap, so equal settings give equal
 * bytes and a reader can refuse any byte it did not expect.
 *
 *   header (104 bytes)
 *     0  magic       8 bytes  89 'S' 'R' 'T' 'P' 'O' 'L' 0a  (high bit and newline catch
 *                             7-bit and text-mode transfers, as PNG's magic does)
 *     8  version     u32      7 (1 had no windows block, 2 neither routes nor layers,
 *                             3 and 4 only some of routes, layers and credentials,
 *                             5 no tlsTerminate, 6 no denyReadHold, so its read
 *                             denies were held or not by when it was compiled:
 *                             images of every earlier kind are refused)
 *    12  nsections   u32      9
 *    16  length      u64      total image length in bytes
 *    24  checksum    u64      FNV-1a 64 over the whole image, these 8 bytes read as zero
 *    32  sections    9 x (u32 offset, u32 length), in the order below; the first starts
 *                             at 104, each next one where the previous ended, the last
 *                             ends at length
 *   0 strings   NUL-terminated strings; a string is named by its offset here, the
 *               value 0xffffffff stands for "none" (NULL). Starts and ends with NUL.
 *   1 rules     u32 nallowed, u32 ndenied, then nallowed + ndenied records of 16 bytes:
 *               u8 kind (0 exact, 1 *.base, 2 *, 3 IPv4, 4 IPv6), u8 0, u16 port (0 any),
 *               str host (none for *), str spelled (the entry as written), str reason
 *               (deny rules only). Rule number g: allowed entries 0.., then denied, each
 *               in list order, so a lower g is an earlier entry of the same list.
 *   2 index     u32 nbuckets (a power of two), u32 nentries (= number of rules),
 *               u32 start[nbuckets + 1], u32 rule[nentries]. Rule g is filed under the
 *               bucket FNV-1a 32(key) & (nbuckets - 1), key = its host (the base for
 *               *.base, "" for *); rule numbers ascend inside a bucket.
 *   3 iprules   u32 n, then n records of 24 bytes, one per IP-literal rule in rule order:
 *               u32 rule, u16 port, u8 family (4 or 6), u8 0, 16 address bytes (IPv4 in
 *               the first 4, the rest 0).
 *   4 ranges    u32 n, then n records of 20 bytes (deniedResolvedAddresses in file
 *               order): u8 family, u8 prefix, u16 0, 16 bytes (host bits clear).
 *   5 fs        denyRead, allowRead, allowWrite, denyWrite: each u32 n then n x
 *               (str path, u32 flags: bit 0 literal).
 *   6 options   u32 flags (one bit per boolean option: the BOOL rows of
 *               settings_schema.h; no other bit set), then one u32 per integer option
 *               (its INT rows, in their order: httpProxyPort, socksProxyPort (0 unset),
 *               mandatoryDenySearchDepth), str bwrapPath, then the string lists
 *               allowUnixSockets, allowMachLookup, git.safeDirectories (u32 n, n x str),
 *               deniedDomainReasons (u32 n, n x (str entry, str reason), file order),
 *               ignoreViolations (u32 n, n x (str pattern, u32 m, m x str)),
 *               then the windows block: u32 flags (bit 0 present, bits 1-2 backend: 0
 *               unset, 1 srt-win, 2 mxc), u32 proxyPortRange low, u32 high (both 0
 *               unset), str sandboxUser, str sublayerGuid, str wfpSublayerGuid, str
 *               srtWin.path; an absent block is all zero and none;
 *               then the routes: parentProxy (u32 flags, bit 0 present; str http, str
 *               https, str noProxy, each none when not set), mitmProxy (u32 flags, bit 0
 *               present; str socketPath; u32 n, n x str domains) and
 *               stripResponseHeaders (u32 n, n x str); an absent block is all zero and
 *               none;
 *               then tlsTerminate (issue #14): u32 flags (bit 0 present), str
 *               caCertPath, str caKeyPath (both or neither), excludeDomains (u32 n,
 *               n x str), extraCaCertPaths (u32 n, n x str), u32 maxTunnels, u32
 *               handshakeTimeoutMs (each 0 when not set); absent: all zero and none.
 *   7 layers    what came from the managed policy (managed.h): u32 flags (bit 0 a managed
 *               file was merged in; 1 its allowManagedDomainsOnly, 2
 *               allowManagedReadPathsOnly, 3 allowUserWeakerOptions), then for each list
 *               of enum settings_list in its order a u32: how many of the list's leading
 *               entries are the managed file's; then u32 n, n x str: the options the
 *               managed file set, as dotted paths of the schema ("network.httpProxyPort").
 *               Without bit 0 every other field is zero. A program that loads an image
 *               merges it with the managed file anew (policy_source.h): these say what
 *               the merge found, for the proxies' "(managed: ...)" and dump --layers.
 *   8 credentials  the "deny" entries of credentials: u32 n, n x str (files[].path, in
 *               file order), u32 m, m x str (envVars[].name, POSIX names).
 *
 * Why FNV-1a 64: the checksum catches accidental damage (a short write, a copy that
 * stopped half-way, a flipped bit), not an attacker, who could recompute any unkeyed sum;
 * protection against tampering comes from where the image lives and from handing it to
 * helpers as a descriptor. FNV-1a is a few lines, needs no table, and its 64-bit width
 * makes a random match far less likely than a CRC32's.
 *
 * A lookup of host h hashes h, each suffix of h after a dot (the bases of wildcards that
 * could match) and "", and looks only at those buckets: O(labels of h), not O(rules).
 * The reader trusts nothing: besides the bounds it checks that every rule re-parses from
 * its spelled text to the same kind, host and port, that every rule is filed exactly once
 * in its own bucket, and that the IP records are the rules' addresses, so an image that
 * passes cannot answer differently from the settings it prints with dump.
 */
#ifndef _WIN32
#include <sys/mman.h>
#endif
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "policy.h"
#include "sys.h"
#include "upstream.h"
#include "util.h"

#define POLICY_MAGIC "\x89SRTPOL\n"
#define POLICY_MAGIC_LEN 8
#define POLICY_VERSION 7
#define POLICY_HDR_FIXED 32
#define STR_NONE UINT32_MAX
#define RULE_REC 16
#define IPRULE_REC 24
#define RANGE_REC 20
#define MAX_IMAGE (UINT32_MAX - 1u) /* offsets are u32 */

enum policy_section {
	SEC_STRINGS,
	SEC_RULES,
	SEC_INDEX,
	SEC_IPRULES,
	SEC_RANGES,
	SEC_FS,
	SEC_OPTIONS,
	SEC_LAYERS,
	SEC_CREDENTIALS,
	SEC_COUNT
};

#define POLICY_HDR_LEN (POLICY_HDR_FIXED + 8 * SEC_COUNT)

static const char *const sec_names[SEC_COUNT] = { "strings", "rules", "index", "iprules",
	"ranges", "fs", "options", "layers", "credentials" };

/* Rule kinds as stored: fixed numbers, independent of enum dom_kind's order. */
enum rule_code {
	RC_EXACT = 0,
	RC_WILDCARD = 1,
	RC_ANY = 2,
	RC_IPV4 = 3,
	RC_IPV6 = 4,
};

#define PATH_LITERAL 1u

#define WIN_PRESENT 1u /* windows block flags */
#define WIN_BACKEND_SHIFT 1
#define WIN_FLAGS_ALL 7u

#define ROUTE_PRESENT 1u /* parentProxy / mitmProxy flags */

struct policy {
	uint8_t *copy; /* owned copy of the image, or NULL */
	void *map;     /* or the mapping */
	size_t maplen;
	const uint8_t *img;
	size_t len;
	const uint8_t *sec[SEC_COUNT];
	uint32_t seclen[SEC_COUNT];
	const char *str; /* strings section */
	uint32_t nallowed, ndenied;
	const uint8_t *rules; /* first record */
	uint32_t nbuckets;
	const uint8_t *buckets; /* start[] */
	const uint8_t *entries;
	uint32_t nip;
	const uint8_t *iprules;
	uint32_t nranges;
	const uint8_t *ranges;
	uint32_t option_flags; /* the options section's flags, read at open */
	size_t routes_off;     /* where the routes begin in the options section */
	uint32_t layer_flags;  /* the layers section's, read at open */
	uint32_t managed_allowed, managed_denied, managed_ranges;
	/* leading rules and ranges of the managed file's */
};

/* ---- bytes -------------------------------------------------------------------- */

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	    (uint32_t)p[3] << 24;
}

static uint64_t
get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static uint32_t
fnv1a32(const void *data, size_t n)
{
	const uint8_t *p = data;
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

static uint64_t
fnv1a64_update(uint64_t h, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 1099511628211ull;
	}
	return h;
}

/* The image's checksum: the checksum field itself counts as eight zero bytes. */
static uint64_t
image_checksum(const uint8_t *img, size_t len)
{
	static const uint8_t zero[8];
	uint64_t h = 14695981039346656037ull;

	h = fnv1a64_update(h, img, 24);
	h = fnv1a64_update(h, zero, 8);
	return fnv1a64_update(h, img + 32, len - 32);
}

void
policy_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---- writer ------------------------------------------------------------------- */

static void
put32_at(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* Interned strings: equal strings share one offset, in first-use order (deterministic). */
struct strtab {
	struct buf data;
	uint32_t *slot; /* offset + 1, 0 empty */
	size_t nslot, nused;
	int overflow;
};

static void
strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	buf_u8(&t->data, 0); /* offset 0 is "" */
	t->nslot = 64;
	t->slot = xcalloc(t->nslot, sizeof(*t->slot));
}

static void
strtab_free(struct strtab *t)
{
	buf_free(&t->data);
	free(t->slot);
}

static void
strtab_grow(struct strtab *t)
{
	size_t n = t->nslot * 2;
	uint32_t *ns = xcalloc(n, sizeof(*ns));

	for (size_t i = 0; i < t->nslot; i++) {
		const char *s;
		size_t j;

		if (t->slot[i] == 0)
			continue;
		s = t->data.p + t->slot[i] - 1;
		for (j = fnv1a32(s, strlen(s)) & (n - 1); ns[j]; j = (j + 1) & (n - 1))
			;
		ns[j] = t->slot[i];
	}
	free(t->slot);
	t->slot = ns;
	t->nslot = n;
}

static uint32_t
strtab_add(struct strtab *t, const char *s)
{
	size_t n, j;
	uint32_t off;

	if (s == NULL)
		return STR_NONE;
	n = strlen(s);
	if (n == 0)
		return 0;
	for (j = fnv1a32(s, n) & (t->nslot - 1); t->slot[j]; j = (j + 1) & (t->nslot - 1)) {
		const char *o = t->data.p + t->slot[j] - 1;

		if (strcmp(o, s) == 0)
			return t->slot[j] - 1;
	}
	if (t->data.len + n + 1 >= MAX_IMAGE) {
		t->overflow = 1;
		return 0;
	}
	off = (uint32_t)t->data.len;
	buf_add(&t->data, s, n + 1);
	t->slot[j] = off + 1;
	if (++t->nused * 2 > t->nslot)
		strtab_grow(t);
	return off;
}

static int
rule_code(enum dom_kind k)
{
	switch (k) {
	case DOM_EXACT:
		return RC_EXACT;
	case DOM_WILDCARD:
		return RC_WILDCARD;
	case DOM_ANY:
		return RC_ANY;
	case DOM_IPV4:
		return RC_IPV4;
	case DOM_IPV6:
		return RC_IPV6;
	}
	return -1;
}

static const char *
rule_key(const struct dom_rule *r)
{
	return r->kind == DOM_ANY ? "" : r->host;
}

static uint32_t
bucket_count(size_t nrules)
{
	uint32_t nb = 1;

	while (nb < nrules)
		nb <<= 1;
	return nb;
}

static void
put_strlist(struct buf *b, struct strtab *st, const struct strlist *l)
{
	buf_u32le(b, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++)
		buf_u32le(b, strtab_add(st, l->v[i]));
}

static void
put_pathlist(struct buf *b, struct strtab *st, const struct path_list *l)
{
	buf_u32le(b, (uint32_t)l->n);
	for (size_t i = 0; i < l->n; i++) {
		buf_u32le(b, strtab_add(st, l->v[i].path));
		buf_u32le(b, l->v[i].literal ? PATH_LITERAL : 0);
	}
}

static int
compile_rules(const struct settings *s, struct strtab *st, struct buf *rules, struct buf *index,
    struct buf *iprules)
{
	size_t nrules = s->net.nallowed + s->net.ndenied;
	uint32_t nb = bucket_count(nrules), *bucket, *start, *fill;
	struct buf ips = { 0 };
	uint32_t nip = 0;
	int rc = -1;

	bucket = xcalloc(nrules, sizeof(*bucket));
	start = xcalloc((size_t)nb + 1, sizeof(*start));
	fill = xcalloc((size_t)nb, sizeof(*fill));
	buf_u32le(rules, (uint32_t)s->net.nallowed);
	buf_u32le(rules, (uint32_t)s->net.ndenied);
	for (size_t g = 0; g < nrules; g++) {
		int deny = g >= s->net.nallowed;
		const struct dom_rule *r = deny ? &s->net.denied[g - s->net.nallowed]
						: &s->net.allowed[g];
		int code = rule_code(r->kind);
		struct ip_addr a;

		if (code < 0 || r->spelled == NULL || (r->kind != DOM_ANY && r->host == NULL))
			goto out;
		buf_u8(rules, (uint8_t)code);
		buf_u8(rules, 0);
		buf_u16le(rules, r->port);
		buf_u32le(rules, strtab_add(st, r->kind == DOM_ANY ? NULL : r->host));
		buf_u32le(rules, strtab_add(st, r->spelled));
		buf_u32le(rules, strtab_add(st, deny ? r->reason : NULL));
		bucket[g] = fnv1a32(rule_key(r), strlen(rule_key(r))) & (nb - 1);
		start[bucket[g] + 1]++;
		if (r->kind != DOM_IPV4 && r->kind != DOM_IPV6)
			continue;
		memset(&a, 0, sizeof(a));
		if (ip_addr_parse(r->host, &a) != 0 ||
		    a.family != (r->kind == DOM_IPV4 ? 4 : 6))
			goto out;
		if (a.family == 4)
			memset(a.bytes + 4, 0, 12);
		buf_u32le(&ips, (uint32_t)g);
		buf_u16le(&ips, r->port);
		buf_u8(&ips, a.family);
		buf_u8(&ips, 0);
		buf_add(&ips, a.bytes, 16);
		nip++;
	}
	/* Counting sort by bucket keeps rule numbers ascending inside each bucket. */
	for (uint32_t b = 0; b < nb; b++)
		start[b + 1] += start[b];
	buf_u32le(index, nb);
	buf_u32le(index, (uint32_t)nrules);
	for (uint32_t b = 0; b <= nb; b++)
		buf_u32le(index, start[b]);
	{
		size_t base = index->len;

		for (size_t g = 0; g < nrules; g++)
			buf_u32le(index, 0);
		for (size_t g = 0; g < nrules; g++) {
			uint32_t b = bucket[g];

			put32_at(
			    (uint8_t *)index->p + base + 4 * ((size_t)start[b] + fill[b]++),
			    (uint32_t)g);
		}
	}
	buf_u32le(iprules, nip);
	buf_add(iprules, ips.p, ips.len);
	rc = 0;
out:
	buf_free(&ips);
	free(bucket);
	free(start);
	free(fill);
	return rc;
}

static void
compile_ranges(const struct settings *s, struct buf *b)
{
	buf_u32le(b, (uint32_t)s->net.ndenied_addrs);
	for (size_t i = 0; i < s->net.ndenied_addrs; i++) {
		const struct addr_range *r = &s->net.denied_addrs[i];
		uint8_t bytes[16] = { 0 };

		memcpy(bytes, r->base.bytes, r->base.family == 4 ? 4 : 16);
		buf_u8(b, r->base.family);
		buf_u8(b, r->prefix);
		buf_u16le(b, 0);
		buf_add(b, bytes, 16);
	}
}

/* Each BOOL and INT row of settings_schema.h, in the order the options are stored. */
#define FOR_EACH_OPTION(k) \
	for (size_t o_ = 0; o_ < 3; o_++) \
		for (const struct settings_key *k = settings_objects[o_]->keys; \
		     k < settings_objects[o_]->keys + settings_objects[o_]->nkeys; k++) \
			if (k->kind != SETTINGS_VALUE)

static void
compile_options(const struct settings *s, struct strtab *st, struct buf *b)
{
	uint32_t flags = 0;

	FOR_EACH_OPTION(k)
	if (k->kind == SETTINGS_BOOL && settings_bool(s, k))
		flags |= 1u << k->bit;
	buf_u32le(b, flags);
	FOR_EACH_OPTION(k)
	if (k->kind == SETTINGS_INT)
		buf_u32le(b, (uint32_t)settings_int(s, k));
	buf_u32le(b, strtab_add(st, s->bwrap_path));
	put_strlist(b, st, &s->net.allow_unix_sockets);
	put_strlist(b, st, &s->net.allow_mach_lookup);
	put_strlist(b, st, &s->git_safe_dirs);
	buf_u32le(b, (uint32_t)s->net.nreasons);
	for (size_t i = 0; i < s->net.nreasons; i++) {
		buf_u32le(b, strtab_add(st, s->net.reasons[i].entry));
		buf_u32le(b, strtab_add(st, s->net.reasons[i].reason));
	}
	buf_u32le(b, (uint32_t)s->nignore);
	for (size_t i = 0; i < s->nignore; i++) {
		buf_u32le(b, strtab_add(st, s->ignore[i].pattern));
		put_strlist(b, st, &s->ignore[i].subs);
	}
	buf_u32le(b,
	    s->win.present ? WIN_PRESENT | (uint32_t)s->win.backend << WIN_BACKEND_SHIFT : 0);
	buf_u32le(b, (uint32_t)s->win.port_lo);
	buf_u32le(b, (uint32_t)s->win.port_hi);
	buf_u32le(b, strtab_add(st, s->win.sandbox_user));
	buf_u32le(b, strtab_add(st, s->win.sublayer_guid));
	buf_u32le(b, strtab_add(st, s->win.wfp_sublayer_guid));
	buf_u32le(b, strtab_add(st, s->win.srt_win_path));
	buf_u32le(b, s->net.parent.present ? ROUTE_PRESENT : 0);
	buf_u32le(b, strtab_add(st, s->net.parent.http));
	buf_u32le(b, strtab_add(st, s->net.parent.https));
	buf_u32le(b, strtab_add(st, s->net.parent.no_proxy));
	buf_u32le(b, s->net.mitm.present ? ROUTE_PRESENT : 0);
	buf_u32le(b, strtab_add(st, s->net.mitm.socket_path));
	put_strlist(b, st, &s->net.mitm.domains);
	put_strlist(b, st, &s->net.strip_headers);
	/* tlsTerminate (issue #14) */
	buf_u32le(b, s->net.tls.present ? ROUTE_PRESENT : 0);
	buf_u32le(b, strtab_add(st, s->net.tls.ca_cert_path));
	buf_u32le(b, strtab_add(st, s->net.tls.ca_key_path));
	put_strlist(b, st, &s->net.tls.exclude_domains);
	put_strlist(b, st, &s->net.tls.extra_ca_paths);
	buf_u32le(b, (uint32_t)s->net.tls.max_tunnels);
	buf_u32le(b, (uint32_t)s->net.tls.handshake_timeout_ms);
}

/* An environment variable name as settings.c accepts one: it reaches bwrap's and env's
 * command lines, where it must never read as an option. */
static int
cred_env_name_ok(const char *s)
{
	static const char first[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_";

	return s != NULL && *s != '\0' && strchr(first, *s) != NULL &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_0123456789") ==
	    strlen(s);
}

static void
compile_layers(const struct settings *s, struct strtab *st, struct buf *b)
{
	const struct settings_layers *l = &s->layers;

	buf_u32le(b, l->flags);
	for (int i = 0; i < SL_COUNT; i++)
		buf_u32le(b, (uint32_t)l->managed[i]);
	put_strlist(b, st, &l->options);
}

/* The port range as settings.c accepts it: unset, or 1 <= lo <= hi <= 65535, hi-lo <= 64. */
static int
win_ports_ok(uint32_t lo, uint32_t hi)
{
	if (lo == 0 && hi == 0)
		return 1;
	return lo >= 1 && lo <= hi && hi <= 65535 && hi - lo <= WIN_PORT_RANGE_MAX;
}

/* An option path as the schema spells one: "key" of the root or "object.key". */
static int
option_path_known(const char *path)
{
	for (size_t o = 0; o < 3; o++) {
		const struct settings_object *obj = settings_objects[o];
		size_t n = strlen(obj->path);

		if (n > 0 && (strncmp(path, obj->path, n) != 0 || path[n] != '.'))
			continue;
		for (size_t i = 0; i < obj->nkeys; i++)
			if (strcmp(path + (n > 0 ? n + 1 : 0), obj->keys[i].name) == 0)
				return 1;
	}
	return 0;
}

/* The layers as the writer and the reader accept them: nothing without a merge, no count
 * beyond its list, only options of the schema. */
static int
layers_ok(const struct settings *s, const struct settings_layers *l)
{
	if ((l->flags & ~SETTINGS_LAYER_ALL) != 0)
		return 0;
	for (int i = 0; i < SL_COUNT; i++)
		if (l->managed[i] > settings_list_len(s, (enum settings_list)i) ||
		    (!(l->flags & SETTINGS_LAYER_MERGED) && l->managed[i] != 0))
			return 0;
	if (!(l->flags & SETTINGS_LAYER_MERGED) && (l->flags != 0 || l->options.n != 0))
		return 0;
	for (size_t i = 0; i < l->options.n; i++)
		if (!option_path_known(l->options.v[i]))
			return 0;
	return 1;
}

static int
settings_compilable(const struct settings *s)
{
	/* Values the reader would refuse are refused here, so every image we write opens. */
	if (s->net.nallowed + s->net.ndenied > UINT32_MAX / RULE_REC)
		return 0;
	FOR_EACH_OPTION(k)
	if (k->kind == SETTINGS_INT && !settings_int_ok(k, settings_int(s, k)))
		return 0;
	for (size_t i = 0; i < s->net.ndenied_addrs; i++) {
		const struct addr_range *r = &s->net.denied_addrs[i];

		if ((r->base.family != 4 && r->base.family != 6) ||
		    r->prefix > (r->base.family == 4 ? 32 : 128))
			return 0;
	}
	for (size_t i = 0; i < s->net.nreasons; i++)
		if (s->net.reasons[i].entry == NULL || s->net.reasons[i].reason == NULL)
			return 0;
	for (size_t i = 0; i < s->nignore; i++)
		if (s->ignore[i].pattern == NULL)
			return 0;
	if (s->win.backend != WIN_BACKEND_UNSET && s->win.backend != WIN_BACKEND_SRT_WIN &&
	    s->win.backend != WIN_BACKEND_MXC)
		return 0;
	if (s->win.port_lo < 0 || s->win.port_hi < 0 ||
	    !win_ports_ok((uint32_t)s->win.port_lo, (uint32_t)s->win.port_hi))
		return 0;
	for (size_t i = 0; i < s->cred.deny_files.n; i++)
		if (s->cred.deny_files.v[i].path == NULL || s->cred.deny_files.v[i].literal)
			return 0;
	for (size_t i = 0; i < s->cred.deny_env.n; i++)
		if (!cred_env_name_ok(s->cred.deny_env.v[i]))
			return 0;
	/* An absent block has nothing set: one spelling for "no windows block". */
	if (!s->win.present &&
	    (s->win.backend != WIN_BACKEND_UNSET || s->win.port_lo != 0 ||
		s->win.sandbox_user != NULL || s->win.sublayer_guid != NULL ||
		s->win.wfp_sublayer_guid != NULL || s->win.srt_win_path != NULL))
		return 0;
	/* The routes as read_routes accepts them. */
	if (!s->net.parent.present &&
	    (s->net.parent.http != NULL || s->net.parent.https != NULL ||
		s->net.parent.no_proxy != NULL))
		return 0;
	if (s->net.mitm.present ? s->net.mitm.socket_path == NULL || s->net.mitm.domains.n == 0
				: s->net.mitm.socket_path != NULL || s->net.mitm.domains.n != 0)
		return 0;
	/* tlsTerminate as read_tls accepts it. */
	if (!s->net.tls.present &&
	    (s->net.tls.ca_cert_path != NULL || s->net.tls.ca_key_path != NULL ||
		s->net.tls.exclude_domains.n != 0 || s->net.tls.extra_ca_paths.n != 0 ||
		s->net.tls.max_tunnels != 0 || s->net.tls.handshake_timeout_ms != 0))
		return 0;
	if ((s->net.tls.ca_cert_path == NULL) != (s->net.tls.ca_key_path == NULL))
		return 0;
	if (s->net.tls.max_tunnels != 0 &&
	    (s->net.tls.max_tunnels < TLS_MAX_TUNNELS_LO ||
		s->net.tls.max_tunnels > TLS_MAX_TUNNELS_HI))
		return 0;
	if (s->net.tls.handshake_timeout_ms != 0 &&
	    (s->net.tls.handshake_timeout_ms < TLS_HANDSHAKE_MS_LO ||
		s->net.tls.handshake_timeout_ms > TLS_HANDSHAKE_MS_HI))
		return 0;
	if (!layers_ok(s, &s->layers))
		return 0;
	return 1;
}

int
policy_compile(const struct settings *s, uint8_t **out, size_t *outlen)
{
	struct buf sec[SEC_COUNT], img = { 0 };
	struct strtab st;
	int rc = -1;
	size_t total;

	*out = NULL;
	*outlen = 0;
	if (!settings_compilable(s))
		return -1;
	memset(sec, 0, sizeof(sec));
	strtab_init(&st);
	if (compile_rules(s, &st, &sec[SEC_RULES], &sec[SEC_INDEX], &sec[SEC_IPRULES]) != 0)
		goto out;
	compile_ranges(s, &sec[SEC_RANGES]);
	put_pathlist(&sec[SEC_FS], &st, &s->fs.deny_read);
	put_pathlist(&sec[SEC_FS], &st, &s->fs.allow_read);
	put_pathlist(&sec[SEC_FS], &st, &s->fs.allow_write);
	put_pathlist(&sec[SEC_FS], &st, &s->fs.deny_write);
	compile_options(s, &st, &sec[SEC_OPTIONS]);
	compile_layers(s, &st, &sec[SEC_LAYERS]);
	buf_u32le(&sec[SEC_CREDENTIALS], (uint32_t)s->cred.deny_files.n);
	for (size_t i = 0; i < s->cred.deny_files.n; i++)
		buf_u32le(&sec[SEC_CREDENTIALS], strtab_add(&st, s->cred.deny_files.v[i].path));
	put_strlist(&sec[SEC_CREDENTIALS], &st, &s->cred.deny_env);
	if (st.overflow)
		goto out;
	/* Strings end with a NUL already; the section is the interned data itself. */
	sec[SEC_STRINGS] = st.data;
	memset(&st.data, 0, sizeof(st.data));

	total = POLICY_HDR_LEN;
	for (int i = 0; i < SEC_COUNT; i++) {
		if (sec[i].len > MAX_IMAGE - total)
			goto out;
		total += sec[i].len;
	}
	buf_add(&img, POLICY_MAGIC, POLICY_MAGIC_LEN);
	buf_u32le(&img, POLICY_VERSION);
	buf_u32le(&img, SEC_COUNT);
	buf_u64le(&img, total);
	buf_u64le(&img, 0);
	{
		uint32_t off = POLICY_HDR_LEN;

		for (int i = 0; i < SEC_COUNT; i++) {
			buf_u32le(&img, off);
			buf_u32le(&img, (uint32_t)sec[i].len);
			off += (uint32_t)sec[i].len;
		}
	}
	for (int i = 0; i < SEC_COUNT; i++)
		buf_add(&img, sec[i].p, sec[i].len);
	{
		uint8_t *u = (uint8_t *)img.p;
		uint64_t sum = image_checksum(u, img.len);

		put32_at(u + 24, (uint32_t)sum);
		put32_at(u + 28, (uint32_t)(sum >> 32));
	}
	*outlen = img.len;
	*out = (uint8_t *)buf_steal(&img);
	rc = 0;
out:
	for (int i = 0; i < SEC_COUNT; i++)
		buf_free(&sec[i]);
	buf_free(&img);
	strtab_free(&st);
	return rc;
}

/* ---- reader ------------------------------------------------------------------- */

/* A bounded reader over one section; any read past the end sets bad. */
struct cur {
	const uint8_t *p;
	size_t len, off;
	int bad;
};

static uint32_t
cur_u32(struct cur *c)
{
	uint32_t v;

	if (c->bad || c->len - c->off < 4) {
		c->bad = 1;
		return 0;
	}
	v = get32(c->p + c->off);
	c->off += 4;
	return v;
}

static const char *
pstr(const struct policy *p, uint32_t off)
{
	return off == STR_NONE ? NULL : p->str + off;
}

/* Every string in bounds: the section ends with NUL, so any in-range offset is terminated. */
static int
str_ok(const struct policy *p, uint32_t off, int none_ok)
{
	if (off == STR_NONE)
		return none_ok;
	return off < p->seclen[SEC_STRINGS];
}

struct rule_view {
	int code;
	uint16_t port;
	uint32_t host, spelled, reason;
};

static void
rule_get(const struct policy *p, uint32_t g, struct rule_view *r)
{
	const uint8_t *q = p->rules + (size_t)g * RULE_REC;

	r->code = q[0];
	r->port = get16(q + 2);
	r->host = get32(q + 4);
	r->spelled = get32(q + 8);
	r->reason = get32(q + 12);
}

static enum dom_kind
code_kind(int code)
{
	static const enum dom_kind k[] = { DOM_EXACT, DOM_WILDCARD, DOM_ANY, DOM_IPV4,
		DOM_IPV6 };

	return k[code];
}

/* A dom_rule viewing the image. dom_rule's fields are not const; the matcher only reads
 * them, and the casts through uintptr_t say so without a qualifier warning. */
static void
rule_as_dom(const struct policy *p, const struct rule_view *v, struct dom_rule *r)
{
	memset(r, 0, sizeof(*r));
	r->kind = code_kind(v->code);
	r->host = (char *)(uintptr_t)pstr(p, v->host);
	r->port = v->port;
	r->spelled = (char *)(uintptr_t)pstr(p, v->spelled);
	r->reason = (char *)(uintptr_t)pstr(p, v->reason);
}

static int
verify_header(struct policy *p, char *err, size_t errlen)
{
	const uint8_t *img = p->img;
	size_t len = p->len;
	uint64_t total, sum, want;
	uint32_t version, nsec, expect;

	if (len < POLICY_MAGIC_LEN + 4) {
		if (len >= POLICY_MAGIC_LEN && memcmp(img, POLICY_MAGIC, POLICY_MAGIC_LEN) != 0)
			goto badmagic;
		policy_seterr(err, errlen,
		    "truncated: %zu bytes, shorter than the %d-byte header", len,
		    POLICY_HDR_LEN);
		return -1;
	}
	if (memcmp(img, POLICY_MAGIC, POLICY_MAGIC_LEN) != 0)
		goto badmagic;
	version = get32(img + 8);
	if (version != POLICY_VERSION) {
		policy_seterr(err, errlen, "unsupported format version %u (this srt reads %d)",
		    version, POLICY_VERSION);
		return -1;
	}
	if (len < POLICY_HDR_LEN) {
		policy_seterr(err, errlen,
		    "truncated: %zu bytes, shorter than the %d-byte header", len,
		    POLICY_HDR_LEN);
		return -1;
	}
	total = get64(img + 16);
	if (total > len) {
		policy_seterr(err, errlen, "truncated: header says %llu bytes, file has %zu",
		    (unsigned long long)total, len);
		return -1;
	}
	if (total < len) {
		policy_seterr(err, errlen,
		    "trailing data: header says %llu bytes, file has %zu",
		    (unsigned long long)total, len);
		return -1;
	}
	want = get64(img + 24);
	sum = image_checksum(img, len);
	if (sum != want) {
		policy_seterr(err, errlen, "bad checksum: stored %016llx, computed %016llx",
		    (unsigned long long)want, (unsigned long long)sum);
		return -1;
	}
	nsec = get32(img + 12);
	if (nsec != SEC_COUNT) {
		policy_seterr(err, errlen, "bad section count %u (format version %d has %d)",
		    nsec, POLICY_VERSION, SEC_COUNT);
		return -1;
	}
	/* Sections are contiguous and in order: no gap, no overlap, nothing after. */
	expect = POLICY_HDR_LEN;
	for (int i = 0; i < SEC_COUNT; i++) {
		uint32_t off = get32(img + POLICY_HDR_FIXED + 8 * i);
		uint32_t slen = get32(img + POLICY_HDR_FIXED + 8 * i + 4);

		if (off != expect || slen > len - off) {
			policy_seterr(err, errlen,
			    "section %s: offset %u length %u outside the image "
			    "or out of place (expected offset %u, image %zu bytes)",
			    sec_names[i], off, slen, expect, len);
			return -1;
		}
		p->sec[i] = img + off;
		p->seclen[i] = slen;
		expect = off + slen;
	}
	if (expect != len) {
		policy_seterr(
		    err, errlen, "sections end at %u but the image has %zu bytes", expect, len);
		return -1;
	}
	return 0;
badmagic:
	policy_seterr(err, errlen, "bad magic: not a compiled srt policy");
	return -1;
}

static int
verify_strings(struct policy *p, char *err, size_t errlen)
{
	uint32_t n = p->seclen[SEC_STRINGS];

	if (n == 0 || p->sec[SEC_STRINGS][0] != 0 || p->sec[SEC_STRINGS][n - 1] != 0) {
		policy_seterr(
		    err, errlen, "section strings: must start and end with a NUL byte");
		return -1;
	}
	p->str = (const char *)p->sec[SEC_STRINGS];
	return 0;
}

static int
verify_rules(struct policy *p, char *err, size_t errlen)
{
	const uint8_t *q = p->sec[SEC_RULES];
	uint32_t n = p->seclen[SEC_RULES];
	uint64_t nrules;

	if (n < 8) {
		policy_seterr(
		    err, errlen, "section rules: %u bytes, too short for its counts", n);
		return -1;
	}
	p->nallowed = get32(q);
	p->ndenied = get32(q + 4);
	nrules = (uint64_t)p->nallowed + p->ndenied;
	if (8 + nrules * RULE_REC != n) {
		policy_seterr(err, errlen,
		    "section rules: %u bytes, but %u allowed + %u denied rules "
		    "need %llu",
		    n, p->nallowed, p->ndenied, (unsigned long long)(8 + nrules * RULE_REC));
		return -1;
	}
	p->rules = q + 8;
	for (uint32_t g = 0; g < nrules; g++) {
		int deny = g >= p->nallowed;
		uint32_t li = deny ? g - p->nallowed : g;
		const char *list = deny ? "deniedDomains" : "allowedDomains";
		const uint8_t *rec = p->rules + (size_t)g * RULE_REC;
		struct rule_view v;
		struct dom_rule r;
		const char *why = NULL, *host;
		int same;

		rule_get(p, g, &v);
		if (v.code > RC_IPV6 || rec[1] != 0 || !str_ok(p, v.spelled, 0) ||
		    !str_ok(p, v.host, v.code == RC_ANY) ||
		    (v.code == RC_ANY) != (v.host == STR_NONE) || !str_ok(p, v.reason, 1) ||
		    (!deny && v.reason != STR_NONE)) {
			policy_seterr(
			    err, errlen, "section rules: %s[%u]: bad record", list, li);
			return -1;
		}
		/* The text dump prints must be the rule decide enforces. */
		if (dom_entry_parse(pstr(p, v.spelled), deny, &r, &why) != 0) {
			policy_seterr(err, errlen,
			    "section rules: %s[%u]: \"%s\" is not a valid entry: %s", list, li,
			    pstr(p, v.spelled), why ? why : "rejected");
			return -1;
		}
		host = pstr(p, v.host);
		same = r.kind == code_kind(v.code) && r.port == v.port &&
		    ((r.host == NULL && host == NULL) ||
			(r.host != NULL && host != NULL && strcmp(r.host, host) == 0));
		dom_rule_clear(&r);
		if (!same) {
			policy_seterr(err, errlen,
			    "section rules: %s[%u]: stored rule differs from its "
			    "entry \"%s\"",
			    list, li, pstr(p, v.spelled));
			return -1;
		}
	}
	return 0;
}

static uint32_t
rule_bucket(const struct policy *p, uint32_t g)
{
	struct rule_view v;
	const char *key;

	rule_get(p, g, &v);
	key = v.code == RC_ANY ? "" : pstr(p, v.host);
	return fnv1a32(key, strlen(key)) & (p->nbuckets - 1);
}

static int
verify_index(struct policy *p, char *err, size_t errlen)
{
	const uint8_t *q = p->sec[SEC_INDEX];
	uint32_t n = p->seclen[SEC_INDEX], nb, ne, nrules = p->nallowed + p->ndenied;
	uint8_t *seen = NULL;
	int rc = -1;

	if (n < 8) {
		policy_seterr(
		    err, errlen, "section index: %u bytes, too short for its counts", n);
		return -1;
	}
	nb = get32(q);
	ne = get32(q + 4);
	if (nb == 0 || (nb & (nb - 1)) != 0 || ne != nrules ||
	    8 + 4 * ((uint64_t)nb + 1) + 4 * (uint64_t)ne != n) {
		policy_seterr(err, errlen,
		    "section index: %u buckets, %u entries for %u rules in "
		    "%u bytes: inconsistent",
		    nb, ne, nrules, n);
		return -1;
	}
	p->nbuckets = nb;
	p->buckets = q + 8;
	p->entries = q + 8 + 4 * ((size_t)nb + 1);
	if (get32(p->buckets) != 0 || get32(p->buckets + 4 * (size_t)nb) != ne) {
		policy_seterr(
		    err, errlen, "section index: bucket table does not span the entries");
		return -1;
	}
	seen = xcalloc(nrules ? nrules : 1, 1);
	for (uint32_t b = 0; b < nb; b++) {
		uint32_t s = get32(p->buckets + 4 * (size_t)b);
		uint32_t e = get32(p->buckets + 4 * ((size_t)b + 1));

		if (s > e || e > ne) {
			policy_seterr(err, errlen,
			    "section index: bucket %u: range %u..%u out of order", b, s, e);
			goto out;
		}
		for (uint32_t i = s; i < e; i++) {
			uint32_t g = get32(p->entries + 4 * (size_t)i);

			if (g >= nrules || seen[g] ||
			    (i > s && g <= get32(p->entries + 4 * ((size_t)i - 1))) ||
			    rule_bucket(p, g) != b) {
				policy_seterr(err, errlen,
				    "section index: bucket %u entry %u: rule %u "
				    "missing, repeated, out of order or in the wrong bucket",
				    b, i, g);
				goto out;
			}
			seen[g] = 1;
		}
	}
	/* ne == nrules and no repeats: every rule is filed, none can be skipped by a lookup. */
	rc = 0;
out:
	free(seen);
	return rc;
}

static int
verify_iprules(struct policy *p, char *err, size_t errlen)
{
	const uint8_t *q = p->sec[SEC_IPRULES];
	uint32_t n = p->seclen[SEC_IPRULES], nrules = p->nallowed + p->ndenied, k = 0;

	if (n < 4 || 4 + (uint64_t)get32(q) * IPRULE_REC != n) {
		policy_seterr(
		    err, errlen, "section iprules: %u bytes do not hold its count", n);
		return -1;
	}
	p->nip = get32(q);
	p->iprules = q + 4;
	for (uint32_t g = 0; g < nrules; g++) {
		struct rule_view v;
		struct ip_addr a;
		const uint8_t *rec;

		rule_get(p, g, &v);
		if (v.code != RC_IPV4 && v.code != RC_IPV6)
			continue;
		if (k >= p->nip)
			goto bad;
		rec = p->iprules + (size_t)k * IPRULE_REC;
		memset(&a, 0, sizeof(a));
		if (get32(rec) != g || get16(rec + 4) != v.port || rec[7] != 0 ||
		    ip_addr_parse(pstr(p, v.host), &a) != 0 ||
		    a.family != (v.code == RC_IPV4 ? 4 : 6) || rec[6] != a.family)
			goto bad;
		if (a.family == 4)
			memset(a.bytes + 4, 0, 12);
		if (memcmp(rec + 8, a.bytes, 16) != 0)
			goto bad;
		k++;
	}
	if (k != p->nip)
		goto bad;
	return 0;
bad:
	policy_seterr(
	    err, errlen, "section iprules: record %u does not match the IP-literal rules", k);
	return -1;
}

static int
verify_ranges(struct policy *p, char *err, size_t errlen)
{
	const uint8_t *q = p->sec[SEC_RANGES];
	uint32_t n = p->seclen[SEC_RANGES];

	if (n < 4 || 4 + (uint64_t)get32(q) * RANGE_REC != n) {
		policy_seterr(err, errlen, "section ranges: %u bytes do not hold its count", n);
		return -1;
	}
	p->nranges = get32(q);
	p->ranges = q + 4;
	for (uint32_t i = 0; i < p->nranges; i++) {
		const uint8_t *rec = p->ranges + (size_t)i * RANGE_REC;
		unsigned fam = rec[0], pfx = rec[1], nbytes = fam == 4 ? 4 : 16;
		int ok = (fam == 4 || fam == 6) && pfx <= nbytes * 8 && get16(rec + 2) == 0;

		/* Host bits and unused bytes zero: one spelling per range. */
		for (unsigned bit = pfx; ok && bit < 128; bit++)
			if (rec[4 + bit / 8] & (0x80 >> (bit % 8)))
				ok = 0;
		if (!ok) {
			policy_seterr(
			    err, errlen, "section ranges: record %u: bad address range", i);
			return -1;
		}
	}
	return 0;
}

/*
 * The fs and options sections are each read by one walker: at open, to check them (out
 * NULL), and by policy_to_settings, to rebuild the settings (out set). So their layout is
 * read in one place, and what the checks accepted is what is rebuilt.
 */

/* u32 n, then n string offsets (none may be "none"). */
static int
read_strlist(const struct policy *p, struct cur *c, struct strlist *out)
{
	uint32_t n = cur_u32(c), s;

	if (c->bad || n > (c->len - c->off) / 4)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		s = cur_u32(c);
		if (!str_ok(p, s, 0))
			return -1;
		if (out != NULL)
			strlist_push(out, pstr(p, s));
	}
	return c->bad ? -1 : 0;
}

static int
read_pathlist(const struct policy *p, struct cur *c, struct path_list *out)
{
	uint32_t n = cur_u32(c), s, fl;

	if (c->bad || n > (c->len - c->off) / 8)
		return -1;
	if (out != NULL) {
		out->n = n;
		out->v = n ? xcalloc(n, sizeof(*out->v)) : NULL;
	}
	for (uint32_t i = 0; i < n; i++) {
		s = cur_u32(c);
		fl = cur_u32(c);
		if (!str_ok(p, s, 0) || (fl & ~PATH_LITERAL) != 0)
			return -1;
		if (out != NULL) {
			out->v[i].path = xstrdup(pstr(p, s));
			out->v[i].literal = (fl & PATH_LITERAL) != 0;
		}
	}
	return 0;
}

static int
read_fs(const struct policy *p, struct settings *out)
{
	struct cur c = { p->sec[SEC_FS], p->seclen[SEC_FS], 0, 0 };

	if (read_pathlist(p, &c, out ? &out->fs.deny_read : NULL) != 0 ||
	    read_pathlist(p, &c, out ? &out->fs.allow_read : NULL) != 0 ||
	    read_pathlist(p, &c, out ? &out->fs.allow_write : NULL) != 0 ||
	    read_pathlist(p, &c, out ? &out->fs.deny_write : NULL) != 0)
		return -1;
	return !c.bad && c.off == c.len ? 0 : -1;
}

/* The windows block: what compile_options writes and nothing else. */
static int
read_windows(const struct policy *p, struct cur *c, struct settings_windows *out)
{
	uint32_t flags = cur_u32(c), lo = cur_u32(c), hi = cur_u32(c), str[4];
	uint32_t backend = flags >> WIN_BACKEND_SHIFT;
	int any = 0;

	for (int i = 0; i < 4; i++) {
		str[i] = cur_u32(c);
		if (!str_ok(p, str[i], 1))
			return -1;
		any |= str[i] != STR_NONE;
	}
	if (c->bad || (flags & ~WIN_FLAGS_ALL) != 0 || backend > WIN_BACKEND_MXC ||
	    !win_ports_ok(lo, hi))
		return -1;
	if (!(flags & WIN_PRESENT) && (flags != 0 || lo != 0 || any))
		return -1;
	if (out == NULL)
		return 0;
	out->present = (flags & WIN_PRESENT) != 0;
	out->backend = (enum win_backend)backend;
	out->port_lo = (int)lo;
	out->port_hi = (int)hi;
	out->sandbox_user = str[0] != STR_NONE ? xstrdup(pstr(p, str[0])) : NULL;
	out->sublayer_guid = str[1] != STR_NONE ? xstrdup(pstr(p, str[1])) : NULL;
	out->wfp_sublayer_guid = str[2] != STR_NONE ? xstrdup(pstr(p, str[2])) : NULL;
	out->srt_win_path = str[3] != STR_NONE ? xstrdup(pstr(p, str[3])) : NULL;
	return 0;
}

/* The routes (parentProxy, mitmProxy, stripResponseHeaders): what compile_options writes,
 * each value as the settings parser would accept it. out may be NULL (a check only); else
 * only those members of out are set. */
static int
read_routes(const struct policy *p, struct cur *c, struct settings *out)
{
	uint32_t pflags = cur_u32(c), http = cur_u32(c), https = cur_u32(c);
	uint32_t np = cur_u32(c), mflags = cur_u32(c), sock = cur_u32(c);
	struct strlist domains = { 0 }, strip = { 0 };
	const char *why;
	int rc = -1;

	if (c->bad || (pflags & ~ROUTE_PRESENT) != 0 || (mflags & ~ROUTE_PRESENT) != 0 ||
	    !str_ok(p, http, 1) || !str_ok(p, https, 1) || !str_ok(p, np, 1) ||
	    !str_ok(p, sock, 1))
		return -1;
	if (read_strlist(p, c, &domains) != 0 || read_strlist(p, c, &strip) != 0)
		goto out;
	if (!(pflags & ROUTE_PRESENT) &&
	    (http != STR_NONE || https != STR_NONE || np != STR_NONE))
		goto out;
	if ((http != STR_NONE &&
		proxy_url_check_setting(pstr(p, http), &why) == PROXY_URL_BAD) ||
	    (https != STR_NONE &&
		proxy_url_check_setting(pstr(p, https), &why) == PROXY_URL_BAD))
		goto out;
	if ((mflags & ROUTE_PRESENT)
		? sock == STR_NONE || pstr(p, sock)[0] == '\0' || domains.n == 0
		: sock != STR_NONE || domains.n != 0)
		goto out;
	for (size_t i = 0; i < domains.n; i++)
		if (mitm_pattern_check(domains.v[i], &why) != 0)
			goto out;
	for (size_t i = 0; i < strip.n; i++)
		if (strip.v[i][0] == '\0')
			goto out;
	if (out != NULL) {
		out->net.parent.present = (pflags & ROUTE_PRESENT) != 0;
		out->net.parent.http = http != STR_NONE ? xstrdup(pstr(p, http)) : NULL;
		out->net.parent.https = https != STR_NONE ? xstrdup(pstr(p, https)) : NULL;
		out->net.parent.no_proxy = np != STR_NONE ? xstrdup(pstr(p, np)) : NULL;
		out->net.mitm.present = (mflags & ROUTE_PRESENT) != 0;
		out->net.mitm.socket_path = sock != STR_NONE ? xstrdup(pstr(p, sock)) : NULL;
		out->net.mitm.domains = domains;
		out->net.strip_headers = strip;
		memset(&domains, 0, sizeof(domains));
		memset(&strip, 0, sizeof(strip));
	}
	rc = 0;
out:
	strlist_free(&domains);
	strlist_free(&strip);
	return rc;
}

/* tlsTerminate (issue #14): what compile_options writes, each value as the settings parser
 * would accept it. out may be NULL (a check only); else only out->net.tls is set. */
static int
read_tls(const struct policy *p, struct cur *c, struct settings *out)
{
	uint32_t flags = cur_u32(c), cert = cur_u32(c), key = cur_u32(c), maxt, hs;
	struct strlist excl = { 0 }, extra = { 0 };
	const char *why;
	int rc = -1;

	if (c->bad || (flags & ~ROUTE_PRESENT) != 0 || !str_ok(p, cert, 1) ||
	    !str_ok(p, key, 1))
		return -1;
	if (read_strlist(p, c, &excl) != 0 || read_strlist(p, c, &extra) != 0)
		goto out;
	maxt = cur_u32(c);
	hs = cur_u32(c);
	if (c->bad || (cert == STR_NONE) != (key == STR_NONE) ||
	    (cert != STR_NONE && (pstr(p, cert)[0] == '\0' || pstr(p, key)[0] == '\0')))
		goto out;
	if (!(flags & ROUTE_PRESENT) &&
	    (cert != STR_NONE || excl.n != 0 || extra.n != 0 || maxt != 0 || hs != 0))
		goto out;
	if ((maxt != 0 && (maxt < TLS_MAX_TUNNELS_LO || maxt > TLS_MAX_TUNNELS_HI)) ||
	    (hs != 0 && (hs < TLS_HANDSHAKE_MS_LO || hs > TLS_HANDSHAKE_MS_HI)))
		goto out;
	for (size_t i = 0; i < excl.n; i++)
		if (mitm_pattern_check(excl.v[i], &why) != 0)
			goto out;
	for (size_t i = 0; i < extra.n; i++)
		if (extra.v[i][0] == '\0')
			goto out;
	if (out != NULL) {
		out->net.tls.present = (flags & ROUTE_PRESENT) != 0;
		out->net.tls.ca_cert_path = cert != STR_NONE ? xstrdup(pstr(p, cert)) : NULL;
		out->net.tls.ca_key_path = key != STR_NONE ? xstrdup(pstr(p, key)) : NULL;
		out->net.tls.exclude_domains = excl;
		out->net.tls.extra_ca_paths = extra;
		out->net.tls.max_tunnels = (int)maxt;
		out->net.tls.handshake_timeout_ms = (int)hs;
		memset(&excl, 0, sizeof(excl));
		memset(&extra, 0, sizeof(extra));
	}
	rc = 0;
out:
	strlist_free(&excl);
	strlist_free(&extra);
	return rc;
}

static int
read_options(const struct policy *p, struct settings *out, uint32_t *flagsp, size_t *routes_off)
{
	struct cur c = { p->sec[SEC_OPTIONS], p->seclen[SEC_OPTIONS], 0, 0 };
	uint32_t flags, v, n, a, b;

	flags = cur_u32(&c);
	if (c.bad || (flags & ~settings_all_flags) != 0)
		return -1;
	FOR_EACH_OPTION(k)
	{
		if (k->kind == SETTINGS_BOOL) {
			if (out != NULL)
				settings_set_bool(out, k, (flags & 1u << k->bit) != 0);
			continue;
		}
		v = cur_u32(&c);
		if (c.bad || !settings_int_ok(k, v))
			return -1;
		if (out != NULL)
			settings_set_int(out, k, (int)v);
	}
	v = cur_u32(&c);
	if (!str_ok(p, v, 1))
		return -1;
	if (out != NULL && v != STR_NONE)
		out->bwrap_path = xstrdup(pstr(p, v));
	if (read_strlist(p, &c, out ? &out->net.allow_unix_sockets : NULL) != 0 ||
	    read_strlist(p, &c, out ? &out->net.allow_mach_lookup : NULL) != 0 ||
	    read_strlist(p, &c, out ? &out->git_safe_dirs : NULL) != 0)
		return -1;
	n = cur_u32(&c);
	if (c.bad || n > (c.len - c.off) / 8)
		return -1;
	if (out != NULL)
		out->net.reasons = n ? xcalloc(n, sizeof(*out->net.reasons)) : NULL;
	for (uint32_t i = 0; i < n; i++) {
		a = cur_u32(&c);
		b = cur_u32(&c);
		if (!str_ok(p, a, 0) || !str_ok(p, b, 0))
			return -1;
		if (out != NULL) {
			out->net.reasons[i].entry = xstrdup(pstr(p, a));
			out->net.reasons[i].reason = xstrdup(pstr(p, b));
			out->net.nreasons = i + 1;
		}
	}
	n = cur_u32(&c);
	if (c.bad || n > (c.len - c.off) / 8)
		return -1;
	if (out != NULL)
		out->ignore = n ? xcalloc(n, sizeof(*out->ignore)) : NULL;
	for (uint32_t i = 0; i < n; i++) {
		a = cur_u32(&c);
		if (!str_ok(p, a, 0))
			return -1;
		if (out != NULL) {
			out->ignore[i].pattern = xstrdup(pstr(p, a));
			out->nignore = i + 1;
		}
		if (read_strlist(p, &c, out ? &out->ignore[i].subs : NULL) != 0)
			return -1;
	}
	if (read_windows(p, &c, out ? &out->win : NULL) != 0 || c.bad)
		return -1;
	if (routes_off != NULL)
		*routes_off = c.off;
	if (read_routes(p, &c, out) != 0 || read_tls(p, &c, out) != 0 || c.bad ||
	    c.off != c.len)
		return -1;
	if (flagsp != NULL)
		*flagsp = flags;
	return 0;
}

/* The credentials section: paths and names, the names POSIX ones. */
static int
read_credentials(const struct policy *p, struct settings_cred *out)
{
	struct cur c = { p->sec[SEC_CREDENTIALS], p->seclen[SEC_CREDENTIALS], 0, 0 };
	struct strlist files = { 0 }, env = { 0 };
	int ret = -1;
	size_t i;

	if (read_strlist(p, &c, &files) != 0 || read_strlist(p, &c, &env) != 0 || c.bad ||
	    c.off != c.len)
		goto out;
	for (i = 0; i < env.n; i++)
		if (!cred_env_name_ok(env.v[i]))
			goto out;
	if (out != NULL) {
		out->deny_files.n = files.n;
		out->deny_files.v = files.n ? xcalloc(files.n, sizeof(*out->deny_files.v))
					    : NULL;
		for (i = 0; i < files.n; i++)
			out->deny_files.v[i].path = xstrdup(files.v[i]);
		out->deny_env = env;
		memset(&env, 0, sizeof(env));
	}
	ret = 0;
out:
	strlist_free(&files);
	strlist_free(&env);
	return ret;
}

static int
verify_credentials(struct policy *p, char *err, size_t errlen)
{
	if (read_credentials(p, NULL) == 0)
		return 0;
	policy_seterr(err, errlen, "section credentials: malformed");
	return -1;
}

/* The layers section, checked against the lists of lens (the image's own settings). */
static int
read_layers(const struct policy *p, const struct settings *lens, struct settings_layers *out)
{
	struct cur c = { p->sec[SEC_LAYERS], p->seclen[SEC_LAYERS], 0, 0 };
	struct settings_layers l;
	int rc = -1;

	memset(&l, 0, sizeof(l));
	l.flags = cur_u32(&c);
	for (int i = 0; i < SL_COUNT; i++)
		l.managed[i] = cur_u32(&c);
	if (c.bad || read_strlist(p, &c, &l.options) != 0 || c.off != c.len ||
	    !layers_ok(lens, &l))
		goto out;
	if (out != NULL) {
		*out = l;
		memset(&l, 0, sizeof(l));
	}
	rc = 0;
out:
	strlist_free(&l.options);
	return rc;
}

static int
verify_fs(struct policy *p, char *err, size_t errlen)
{
	if (read_fs(p, NULL) == 0)
		return 0;
	policy_seterr(err, errlen, "section fs: malformed path list");
	return -1;
}

static int
verify_options(struct policy *p, char *err, size_t errlen)
{
	if (read_options(p, NULL, &p->option_flags, &p->routes_off) == 0)
		return 0;
	policy_seterr(err, errlen, "section options: malformed");
	return -1;
}

/* The list lengths the counts are checked against: the rules and ranges are known at
 * this point, the rest are decoded when there is a managed layer to check. */
static int
verify_layers(struct policy *p, char *err, size_t errlen)
{
	struct settings lens;
	int rc;

	settings_init_default(&lens);
	if (p->seclen[SEC_LAYERS] >= 4 && get32(p->sec[SEC_LAYERS]) != 0 &&
	    (read_fs(p, &lens) != 0 || read_options(p, &lens, NULL, NULL) != 0 ||
		read_credentials(p, &lens.cred) != 0)) {
		settings_free(&lens);
		policy_seterr(err, errlen, "section layers: the lists cannot be read");
		return -1;
	}
	/* Only the lengths of the rules and ranges are looked at: no rule is decoded. */
	lens.net.nallowed = p->nallowed;
	lens.net.ndenied = p->ndenied;
	lens.net.ndenied_addrs = p->nranges;
	rc = read_layers(p, &lens, NULL);
	lens.net.nallowed = lens.net.ndenied = lens.net.ndenied_addrs = 0;
	settings_free(&lens);
	if (rc != 0) {
		policy_seterr(
		    err, errlen, "section layers: malformed, or a count beyond its list");
		return -1;
	}
	p->layer_flags = get32(p->sec[SEC_LAYERS]);
	p->managed_allowed = get32(p->sec[SEC_LAYERS] + 4 + 4 * SL_ALLOWED_DOMAINS);
	p->managed_denied = get32(p->sec[SEC_LAYERS] + 4 + 4 * SL_DENIED_DOMAINS);
	p->managed_ranges = get32(p->sec[SEC_LAYERS] + 4 + 4 * SL_DENIED_ADDRS);
	return 0;
}

static int
policy_verify(struct policy *p, char *err, size_t errlen)
{
	if (verify_header(p, err, errlen) != 0 || verify_strings(p, err, errlen) != 0 ||
	    verify_rules(p, err, errlen) != 0 || verify_index(p, err, errlen) != 0 ||
	    verify_iprules(p, err, errlen) != 0 || verify_ranges(p, err, errlen) != 0 ||
	    verify_fs(p, err, errlen) != 0 || verify_options(p, err, errlen) != 0 ||
	    verify_credentials(p, err, errlen) != 0 || verify_layers(p, err, errlen) != 0)
		return -1;
	return 0;
}

/* Verify, and on failure prefix the message with what was being read. */
static struct policy *
policy_finish(struct policy *p, const char *what, char *err, size_t errlen)
{
	char msg[512];

	msg[0] = '\0';
	if (policy_verify(p, msg, sizeof(msg)) != 0) {
		policy_seterr(err, errlen, "%s: %s", what, msg);
		policy_free(p);
		return NULL;
	}
	return p;
}

struct policy *
policy_open_mem(const uint8_t *buf, size_t len, char *err, size_t errlen)
{
	struct policy *p = xcalloc(1, sizeof(*p));

	/* A private copy: the caller's buffer may change after the checks (shared memory). */
	p->copy = xmalloc(len);
	if (len)
		memcpy(p->copy, buf, len);
	p->img = p->copy;
	p->len = len;
	return policy_finish(p, "policy.bin", err, errlen);
}

/* The image read into memory of its own. */
static struct policy *
policy_open_copy(int fd, const char *what, char *err, size_t errlen)
{
	struct policy *p;
	char *data = NULL;
	size_t len = 0;

	if (lseek(fd, 0, SEEK_SET) < 0 || read_fd_all(fd, MAX_IMAGE, &data, &len) != 0) {
		policy_seterr(err, errlen, "%s: read: %s", what, strerror(errno));
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->copy = (uint8_t *)data;
	p->img = p->copy;
	p->len = len;
	return policy_finish(p, what, err, errlen);
}

struct policy *
policy_open_fd_as(int fd, const char *what, char *err, size_t errlen)
{
	struct stat st;
#ifndef _WIN32
	struct policy *p;
	int seals;
#endif

	if (fstat(fd, &st) != 0) {
		policy_seterr(err, errlen, "%s: %s", what, strerror(errno));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		policy_seterr(err, errlen, "%s: not a regular file", what);
		return NULL;
	}
	if (st.st_size == 0) {
		policy_seterr(err, errlen, "%s: truncated: file is empty", what);
		return NULL;
	}
	if ((uint64_t)st.st_size > MAX_IMAGE) {
		policy_seterr(err, errlen, "%s: %lld bytes, larger than any policy image", what,
		    (long long)st.st_size);
		return NULL;
	}
#ifdef _WIN32
	/* Windows has no mmap(2): the image is read into memory (it is small; mapping it
	 * would take the file's HANDLE and CreateFileMapping for no gain). */
	return policy_open_copy(fd, what, err, errlen);
#else
	/* A memfd someone may still write to is copied, not mapped: the checks must hold
	 * for the bytes that are used. Files are replaced by rename, never rewritten. */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 &&
	    (seals & (F_SEAL_WRITE | F_SEAL_SHRINK)) != (F_SEAL_WRITE | F_SEAL_SHRINK))
		return policy_open_copy(fd, what, err, errlen);
	p = xcalloc(1, sizeof(*p));
	p->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p->map == MAP_FAILED) {
		policy_seterr(err, errlen, "%s: mmap: %s", what, strerror(errno));
		free(p);
		return NULL;
	}
	p->maplen = (size_t)st.st_size;
	p->img = p->map;
	p->len = p->maplen;
	return policy_finish(p, what, err, errlen);
#endif
}

struct policy *
policy_open_fd(int fd, char *err, size_t errlen)
{
	return policy_open_fd_as(fd, "policy.bin", err, errlen);
}

struct policy *
policy_open_file(const char *path, char *err, size_t errlen)
{
	struct policy *p;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_BINARY)) < 0) {
		policy_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	p = policy_open_fd_as(fd, path, err, errlen);
	close(fd);
	return p;
}

struct policy *
policy_from_settings(const struct settings *s, char *err, size_t errlen)
{
	struct policy *p;
	uint8_t *buf;
	size_t len;

	if (policy_compile(s, &buf, &len) != 0) {
		policy_seterr(err, errlen,
		    "cannot compile the settings into a policy (a value is out "
		    "of range or a rule is inconsistent)");
		return NULL;
	}
	p = xcalloc(1, sizeof(*p));
	p->copy = buf;
	p->img = buf;
	p->len = len;
	return policy_finish(p, "compiled policy", err, errlen);
}

void
policy_free(struct policy *p)
{
	if (p == NULL)
		return;
#ifndef _WIN32
	if (p->map != NULL)
		munmap(p->map, p->maplen);
#endif
	free(p->copy);
	free(p);
}

const uint8_t *
policy_bytes(const struct policy *p, size_t *len)
{
	*len = p->len;
	return p->img;
}

/* ---- decision ----------------------------------------------------------------- */

/* Look at the rules filed under key; keep the earliest matching rule of each list. */
static void
policy_probe(const struct policy *p, const char *key, size_t keylen, const char *canon,
    enum host_kind kind, uint16_t port, uint32_t *best_allow, uint32_t *best_deny)
{
	uint32_t b = fnv1a32(key, keylen) & (p->nbuckets - 1);
	uint32_t s = get32(p->buckets + 4 * (size_t)b);
	uint32_t e = get32(p->buckets + 4 * ((size_t)b + 1));

	for (uint32_t i = s; i < e; i++) {
		uint32_t g = get32(p->entries + 4 * (size_t)i);
		uint32_t *best = g < p->nallowed ? best_allow : best_deny;
		struct rule_view v;
		struct dom_rule r;
		const char *rk;

		if (g >= *best)
			continue;
		rule_get(p, g, &v);
		if (v.code == RC_ANY) {
			if (keylen != 0)
				continue;
		} else {
			if (keylen + 1 > p->seclen[SEC_STRINGS] - v.host)
				continue;
			rk = p->str + v.host;
			if (memcmp(rk, key, keylen) != 0 || rk[keylen] != '\0')
				continue;
		}
		rule_as_dom(p, &v, &r);
		if (dom_rule_matches(&r, canon, kind, port))
			*best = g;
	}
}

void
policy_decide(const struct policy *p, const char *host, size_t hostlen, uint16_t port,
    struct policy_verdict *v)
{
	uint32_t best_allow = UINT32_MAX, best_deny = UINT32_MAX;
	struct rule_view rv;
	size_t n;

	memset(v, 0, sizeof(*v));
	v->kind = host_canonicalise(host, hostlen, v->canon);
	if (v->kind == HOST_MALFORMED) {
		v->canon[0] = '\0';
		v->reason = DOM_REASON_MALFORMED;
		v->reason_len = strlen(v->reason);
		return;
	}
	n = strnlen(v->canon, DOM_HOST_MAX);
	/* The name itself (exact and IP rules), each suffix after a dot (wildcard bases),
	 * then "" (the "*" rules). */
	policy_probe(p, v->canon, n, v->canon, v->kind, port, &best_allow, &best_deny);
	for (size_t i = 0; i < n; i++)
		if (v->canon[i] == '.')
			policy_probe(p, v->canon + i + 1, n - i - 1, v->canon, v->kind, port,
			    &best_allow, &best_deny);
	policy_probe(p, "", 0, v->canon, v->kind, port, &best_allow, &best_deny);

	if (best_deny != UINT32_MAX) {
		rule_get(p, best_deny, &rv);
		v->reason = rv.reason != STR_NONE ? pstr(p, rv.reason) : DOM_REASON_DENY_LIST;
		v->managed = best_deny - p->nallowed < p->managed_denied;
	} else if (best_allow != UINT32_MAX) {
		rule_get(p, best_allow, &rv);
		v->allow = 1;
	} else {
		v->reason = DOM_REASON_NOT_ALLOWED;
		v->reason_len = strlen(v->reason);
		v->managed = (p->layer_flags & SETTINGS_LAYER_DOMAINS_ONLY) != 0;
		return;
	}
	v->rule = pstr(p, rv.spelled);
	v->rule_len = strlen(v->rule);
	v->reason_len = v->reason ? strlen(v->reason) : 0;
}

/* ---- resolved-address guard helpers ------------------------------------------- */

static int
ip_same(const struct ip_addr *a, unsigned fam, const uint8_t *bytes)
{
	return a->family == fam && memcmp(a->bytes, bytes, fam == 4 ? 4 : 16) == 0;
}

int
policy_addr_listed(const struct policy *p, int denied, const struct ip_addr *a, uint16_t port)
{
	struct ip_addr alt;
	int has_alt;

	/* As resolved-address-guard.js: a deny-listed literal also refuses the IPv4 an IPv6
	 * answer carries (NAT64, 6to4, compatible, mapped); an allow-listed literal is
	 * earned only by the address itself or its IPv4-mapped spelling, never by another
	 * embedding (::1 must not ride an allowance for 0.0.0.1). */
	has_alt = denied ? addr_embedded_v4(a, &alt) : addr_mapped_v4(a, &alt);
	for (uint32_t k = 0; k < p->nip; k++) {
		const uint8_t *rec = p->iprules + (size_t)k * IPRULE_REC;
		uint32_t g = get32(rec);
		uint16_t rport = get16(rec + 4);

		if ((g >= p->nallowed) != (denied != 0))
			continue;
		if (rport != 0 && rport != port)
			continue;
		/* Records are in rule order, the managed file's rules first in each list. */
		if (ip_same(a, rec[6], rec + 8) || (has_alt && ip_same(&alt, rec[6], rec + 8)))
			return (denied ? g - p->nallowed < p->managed_denied
				       : g < p->managed_allowed)
			    ? POLICY_LISTED_MANAGED
			    : POLICY_LISTED_USER;
	}
	return 0;
}

static void
range_get(const struct policy *p, uint32_t i, struct addr_range *r)
{
	const uint8_t *rec = p->ranges + (size_t)i * RANGE_REC;

	memset(r, 0, sizeof(*r));
	r->base.family = rec[0];
	r->prefix = rec[1];
	memcpy(r->base.bytes, rec + 4, 16);
}

int
policy_addr_in_denied_ranges(const struct policy *p, const struct ip_addr *a)
{
	struct ip_addr v4;
	int has_v4 = addr_embedded_v4(a, &v4);

	for (uint32_t i = 0; i < p->nranges; i++) {
		struct addr_range r;

		range_get(p, i, &r);
		if (addr_range_contains(&r, a) || (has_v4 && addr_range_contains(&r, &v4)))
			return i < p->managed_ranges ? POLICY_LISTED_MANAGED
						     : POLICY_LISTED_USER;
	}
	return 0;
}

/* ---- back to settings --------------------------------------------------------- */

uint32_t
policy_option_flags(const struct policy *p)
{
	return p->option_flags;
}

int
policy_routes(const struct policy *p, struct settings *out)
{
	struct cur c = { p->sec[SEC_OPTIONS], p->seclen[SEC_OPTIONS], p->routes_off, 0 };

	/* Checked at open (verify_options); read again from where they begin. */
	settings_init_default(out);
	if (read_routes(p, &c, out) != 0 || read_tls(p, &c, out) != 0) {
		settings_free(out);
		return -1;
	}
	return 0;
}

uint32_t
policy_layer_flags(const struct policy *p)
{
	return p->layer_flags;
}

int
policy_layer_sets(const struct policy *p, const char *path)
{
	struct cur c = { p->sec[SEC_LAYERS], p->seclen[SEC_LAYERS], 4 + 4 * SL_COUNT, 0 };
	struct strlist opts = { 0 };
	int found = 0;

	/* Checked at open (verify_layers); only the list of options is read again. */
	if (!(p->layer_flags & SETTINGS_LAYER_MERGED) || read_strlist(p, &c, &opts) != 0)
		return 0;
	for (size_t i = 0; i < opts.n && !found; i++)
		found = strcmp(opts.v[i], path) == 0;
	strlist_free(&opts);
	return found;
}

static int
get_rules(const struct policy *p, int deny, struct dom_rule **out, size_t *nout)
{
	uint32_t n = deny ? p->ndenied : p->nallowed, first = deny ? p->nallowed : 0;
	struct dom_rule *v = n ? xcalloc(n, sizeof(*v)) : NULL;

	*out = v;
	*nout = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct rule_view rv;
		const char *why;

		rule_get(p, first + i, &rv);
		if (dom_entry_parse(pstr(p, rv.spelled), deny, &v[i], &why) != 0)
			return -1;
		*nout = i + 1;
		free(v[i].reason);
		v[i].reason = rv.reason != STR_NONE ? xstrdup(pstr(p, rv.reason)) : NULL;
	}
	return 0;
}

int
policy_to_settings(const struct policy *p, struct settings *out)
{
	settings_init_default(out);
	/* The fs and options sections were checked at open by the same walkers. */
	if (get_rules(p, 0, &out->net.allowed, &out->net.nallowed) != 0 ||
	    get_rules(p, 1, &out->net.denied, &out->net.ndenied) != 0 || read_fs(p, out) != 0 ||
	    read_options(p, out, NULL, NULL) != 0 || read_credentials(p, &out->cred) != 0) {
		settings_free(out);
		return -1;
	}
	out->net.ndenied_addrs = p->nranges;
	out->net.denied_addrs = p->nranges ? xcalloc(p->nranges, sizeof(*out->net.denied_addrs))
					   : NULL;
	for (uint32_t i = 0; i < p->nranges; i++)
		range_get(p, i, &out->net.denied_addrs[i]);
	if (read_layers(p, out, &out->layers) != 0) {
		settings_free(out);
		return -1;
	}
	return 0;
}
