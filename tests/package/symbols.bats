#!/usr/bin/env bats
# The global names of lib/'s archives (libsrt-DIR.a, one per directory of lib/): each
# carries its module's prefix (the name of a file of lib/DIR/, or one of the few prefixes
# below), so a helper that a split of a file left extern
# neither collides with a program's own name nor reads as a public interface. A helper
# shared by the files of one module takes the module's prefix (plan_linux_canon), one used
# by one file is static.
load ../helpers

# Prefixes older than this check that are not a file's name: the base runtime (util.c,
# log.c) and a few modules whose names are shorter than their files'.
EXTRA_PREFIXES="http ssh strlist diags evtimer evbe dom pathw macl mitm no_proxy ip_addr"
EXTRA_NAMES="fatal fatalx xmalloc xcalloc xreallocarray xstrdup xstrndup xasprintf
fd_close read_fd_all read_file shell_quote hex_lower hex_digit_value hmac_sha256 port_parse
host_canonicalise memfd_sealed json_check json_linecol route_describe
verdict_name"

# The names the split of plan_linux.c and plan_macos.c leaked (review of 2026-12-06).
LEAKED="line rule exists canon canon_or normalize starts_with set_add set_add_owned json_quote
has_glob within_write is_kernel_dir ancestors fs_free fs_stat fs_lstat fs_link
mandatory_denies guard_chain"

# lib/'s archives, one per directory: each must be there.
archives() {
	local d
	for d in "$BATS_TEST_DIRNAME"/../../lib/*/; do
		d=${d%/}
		echo "$SRT_BUILD/libsrt-${d##*/}.a"
	done
}

# The compiler's own names (reserved: "__", as ASan's __odr_asan.NAME under SAN=1) left out.
globals() {
	nm -g --defined-only "$1" |
	    awk '$2 ~ /^[TDBRGSVW]$/ && $3 !~ /^__/ { print $3 }' | sort -u
}

@test "lib/ has role directories only, each its own archive" {
	run bash -c "ls -p '$BATS_TEST_DIRNAME/../../lib' | grep -v /"
	[ -z "$output" ]
	[ "$(archives | wc -l)" -ge 4 ]
	for a in $(archives); do
		[ -f "$a" ] || { echo "no $a"; return 1; }
	done
}

@test "no archive of lib/ exports the helpers the file splits leaked" {
	bad=0
	for a in $(archives); do
		syms=$(globals "$a")
		for n in $LEAKED; do
			if grep -qx "$n" <<<"$syms"; then
				echo "${a##*/} exports $n"
				bad=1
			fi
		done
	done
	[ "$bad" -eq 0 ]
}

@test "every global name of lib/'s archives has a known module prefix" {
	prefixes=$(cd "$BATS_TEST_DIRNAME/../../lib" && ls -- */*.c */*.h | sed 's,.*/,,; s/\.[ch]$//' |
	    sort -u)
	re="^($(echo $prefixes $EXTRA_PREFIXES | tr ' ' '|'))(_|\$)"
	names="^($(echo $EXTRA_NAMES | tr ' ' '|'))\$"
	total=0 bad=0
	for a in $(archives); do
		[ -f "$a" ]
		n=$(globals "$a" | wc -l)
		total=$((total + n))
		out=$(globals "$a" | grep -Ev "$re" | grep -Ev "$names" || true)
		if [ -n "$out" ]; then
			echo "${a##*/}: without a module prefix (static, or the owner's prefix):" $out
			bad=1
		fi
	done
	echo "$total global names"
	[ "$total" -gt 100 ]
	[ "$bad" -eq 0 ]
}

# A directory's *_int.h declares what its files share and no other directory may call:
# every directory's headers are on the include path, so nothing but this keeps it private.
# The unit tests may look inside.
@test "a directory's *_int.h is included by that directory's files only" {
	cd "$BATS_TEST_DIRNAME/../.."
	bad=0
	for h in lib/*/*_int.h; do
		d=${h%/*}
		for f in $(grep -rlF --include='*.[ch]' "#include \"${h##*/}\"" lib srt-* tests); do
			case $f in
			"$d"/* | tests/unit/*) ;;
			*) echo "$f includes $h"; bad=1 ;;
			esac
		done
	done
	[ "$bad" -eq 0 ]
}

# The layering: an archive calls only itself and those after it in the Makefile's
# LIB_DIRS (the link order), so core calls neither sandbox nor proxyd and the launcher,
# which links no proxyd, cannot come to need it through another archive.
# layered NM GLOBALS ARCHIVE...: 0 when each archive, in the order given, calls none of
# those before it (GLOBALS lists an archive's defined names).
layered() {
	local nm=$1 globals=$2 a o bad=0 before="" defs used out
	shift 2
	defs=$(for a in "$@"; do
		$globals "$a" | sed "s|^|$a |"
	done)
	for a in "$@"; do
		before="$before $a"
		used=$($nm -u "$a" | awk 'NF == 2 { print $2 }' | sort -u)
		for o in $before; do
			[ "$o" != "$a" ] || continue
			out=$(grep -Fx -f <(awk -v o="$o" '$1 == o { print $2 }' <<<"$defs") <<<"$used" ||
			    true)
			if [ -n "$out" ]; then
				echo "${a#"$SRT_BUILD"/} calls ${o#"$SRT_BUILD"/}:" $out
				bad=1
			fi
		done
	done
	return $bad
}

@test "each archive of lib/ calls only those after it in the link order" {
	order=$(sed -n 's/^LIB_DIRS := //p' "$BATS_TEST_DIRNAME/../../Makefile")
	[ -n "$order" ]
	layered nm globals $(for d in $order; do echo "$SRT_BUILD/libsrt-$d.a"; done)
}

# --- the Windows build (make win), where it was built ------------------------------------
# What the Makefile links build/win/EXE from (its link line, as make would run it now):
# the objects and the archives, in their order.
win_link_inputs() {
	make -C "$BATS_TEST_DIRNAME/../.." -n -W build/win/libsrt-compat.a "build/win/$1" 2>/dev/null |
	    sed -e :a -e '/\\$/N; s/\\\n//; ta' | grep -F -- "-o build/win/$1 " |
	    tr ' ' '\n' | grep -E '^build/win/.*\.[ao]$'
}

win_globals() {
	x86_64-w64-mingw32-nm -g --defined-only "$@" 2>/dev/null |
	    awk '$2 ~ /^[TDBRGSVW]$/ && $3 !~ /^(__|\.refptr\.)/ { print $3 }'
}

# Each name one program links is defined once among the archives it links, so which
# definition it gets never depends on their order; the proxies' stand-ins for the
# Linux-only modules (lib/proxyd/proxy_absent_win.c) are on the proxies' link lines
# alone, never in an archive, and never in srt.exe (which has the real managed.c and
# policy_source.c) or srt-win.exe.
@test "the Windows programs: no name defined twice among the archives one links" {
	win="$BATS_TEST_DIRNAME/../../build/win"
	command -v x86_64-w64-mingw32-nm >/dev/null || skip "no mingw-w64 (make win)"
	[ -f "$win/srt.exe" ] || skip "the Windows build is not made (make win)"
	bad=0
	for exe in srt.exe srt-nomanaged.exe srt-win.exe srt-socksd.exe srt-httpd.exe; do
		inputs=$(win_link_inputs "$exe")
		[ -n "$inputs" ] || { echo "no link line for $exe"; return 1; }
		archives=$(grep '\.a$' <<<"$inputs")
		[ -n "$archives" ]
		for a in $archives; do
			if (cd "$win/../.." && win_globals "$a" | grep -qx tls_ctx_new); then
				echo "$exe: $a holds the proxies' stand-ins"
				bad=1
			fi
		done
		dups=$(cd "$win/../.." && for a in $archives; do win_globals "$a" | sort -u; done |
		    sort | uniq -d)
		if [ -n "$dups" ]; then
			echo "$exe: defined in more than one of its archives:" $dups
			bad=1
		fi
		absent=$(grep -c 'proxy_absent_win\.o$' <<<"$inputs" || true)
		case $exe in
		srt-socksd.exe | srt-httpd.exe) want=1 ;;
		*) want=0 ;;
		esac
		if [ "$absent" -ne "$want" ]; then
			echo "$exe links proxy_absent_win.o $absent times, not $want"
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
}

# The Windows archives are layered as Linux's are: one per role (build/win/libsrt-DIR.a),
# srt.exe's own part of a role (build/win/srt/libsrt-DIR.a, its settings reader) before
# that role's shared one, in LIB_DIRS's order; compat, the shims under lib/core/sys.h,
# calls nothing in lib/.
@test "each Windows archive calls only those after it in the link order" {
	win="$BATS_TEST_DIRNAME/../../build/win"
	command -v x86_64-w64-mingw32-nm >/dev/null || skip "no mingw-w64 (make win)"
	[ -f "$win/srt.exe" ] || skip "the Windows build is not made (make win)"
	order=$(sed -n 's/^LIB_DIRS := //p' "$BATS_TEST_DIRNAME/../../Makefile")
	cd "$win"
	archives=$(for d in $order; do
		for a in "srt/libsrt-$d.a" "libsrt-$d.a"; do
			[ ! -f "$a" ] || echo "$a"
		done
	done)
	[ "$(wc -l <<<"$archives")" -ge 5 ]
	layered x86_64-w64-mingw32-nm win_globals $archives
	used=$(x86_64-w64-mingw32-nm -u libsrt-compat.a | awk 'NF == 2 { print $2 }' | sort -u)
	out=$(for a in $archives; do win_globals "$a"; done | sort -u | comm -12 - <(echo "$used"))
	[ -z "$out" ] || { echo "libsrt-compat.a calls into lib/:" $out; return 1; }
}
