#!/usr/bin/env bats
# libsrt.a's global names: each carries its module's prefix (the name of a file of lib/,
# or one of the few prefixes below), so a helper that a split of a file left extern
# neither collides with a program's own name nor reads as a public interface. A helper
# shared by the files of one module takes the module's prefix (plan_linux_canon), one used
# by one file is static.
load ../helpers

# Prefixes older than this check that are not a file's name: the base runtime (util.c,
# log.c) and a few modules whose names are shorter than their files'.
EXTRA_PREFIXES="http ssh strlist diags evtimer evbe dom pathw macl mitm no_proxy ip_addr"
EXTRA_NAMES="fatal fatalx xmalloc xcalloc xreallocarray xstrdup xstrndup xasprintf
fd_close read_fd_all read_file shell_quote hex_lower hex_digit_value hmac_sha256 port_parse
host_canonicalise memfd_sealed json_check json_linecol route_describe viol_kind_name
verdict_name"

# The names the split of plan_linux.c and plan_macos.c leaked (review of 2026-12-06).
LEAKED="line rule exists canon canon_or normalize starts_with set_add set_add_owned json_quote
has_glob within_write is_kernel_dir ancestors fs_free fs_stat fs_lstat fs_link
mandatory_denies guard_chain"

# The compiler's own names (reserved: "__", as ASan's __odr_asan.NAME under SAN=1) left out.
globals() {
	nm -g --defined-only "$SRT_BUILD/libsrt.a" |
	    awk '$2 ~ /^[TDBRGSVW]$/ && $3 !~ /^__/ { print $3 }' | sort -u
}

@test "libsrt.a exports none of the helpers the file splits leaked" {
	[ -f "$SRT_BUILD/libsrt.a" ]
	syms=$(globals)
	bad=0
	for n in $LEAKED; do
		if grep -qx "$n" <<<"$syms"; then
			echo "libsrt.a exports $n"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}

@test "every global name of libsrt.a has a known module prefix" {
	[ -f "$SRT_BUILD/libsrt.a" ]
	prefixes=$(cd "$BATS_TEST_DIRNAME/../../lib" && ls -- *.c *.h | sed 's/\.[ch]$//' | sort -u)
	re="^($(echo $prefixes $EXTRA_PREFIXES | tr ' ' '|'))(_|\$)"
	names="^($(echo $EXTRA_NAMES | tr ' ' '|'))\$"
	n=$(globals | wc -l)
	out=$(globals | grep -Ev "$re" | grep -Ev "$names" || true)
	[ -z "$out" ] || echo "without a module prefix (static, or the owner's prefix):" $out
	echo "$n global names"
	[ "$n" -gt 100 ]
	[ -z "$out" ]
}
