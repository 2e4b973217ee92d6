#!/usr/bin/env bats
# The proxies' Windows build under Wine: the unit tests of what builds for Windows so
# far (the event loop on WSAPoll, the resolver on getaddrinfo, the relay without splice,
# the SOCKS5 and upstream parsers, this host's addresses for the guard) as Windows programs, and the compiled
# policy read without mmap deciding as on Linux.
#
# Wine creates sockets in its server (wineserver), not in the program's process, so a
# network namespace around wine alone isolates nothing while the server runs outside it.
# Everything here, the server included, runs in one namespace with loopback only (a
# holder process keeps it; nsenter joins it), where the host allows one. One Wine prefix for the file, in its temp dir; its server is
# stopped at the end, so nothing is left running.
bats_require_minimum_version 1.5.0
load helpers

wine_bin() {
	command -v wine64 2>/dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }
}

wineserver_bin() {
	command -v wineserver 2>/dev/null || { [ -x /usr/lib/wine/wineserver64 ] &&
	    echo /usr/lib/wine/wineserver64; }
}

setup_file() {
	export WINE WINESERVER_BIN WINBUILD NS= NSPID=
	WINE=$(wine_bin) || WINE=
	WINESERVER_BIN=$(wineserver_bin) || WINESERVER_BIN=
	WINBUILD="$(cd "$BATS_TEST_DIRNAME/.." && pwd)/build/win"
	[ -n "$WINE" ] || return 0
	export WINEPREFIX="$BATS_FILE_TMPDIR/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	unset DISPLAY WAYLAND_DISPLAY
	if unshare -n true 2>/dev/null; then
		unshare -n sh -c 'ip link set lo up && exec sleep 3600' </dev/null >/dev/null 2>&1 &
		NSPID=$!
		NS="nsenter --net=/proc/$NSPID/ns/net"
		# Joined once lo is up in it.
		for _ in $(seq 1 50); do
			$NS ip -o link show lo 2>/dev/null | grep -q UP && break
			sleep 0.1
		done
	fi
	# The first start makes the prefix and its server, in the namespace (several
	# seconds); the tests then reuse both.
	$NS "$WINE" cmd.exe /c exit 0 >/dev/null 2>&1 || true
}

teardown_file() {
	[ -n "${WINESERVER_BIN:-}" ] && [ -n "${WINEPREFIX:-}" ] && $NS "$WINESERVER_BIN" -k 2>/dev/null
	[ -n "${NSPID:-}" ] && kill "$NSPID" 2>/dev/null
	return 0
}

setup() {
	[ -n "$WINE" ] || skip "Wine is not installed (scripts/deps installs wine64)"
	command -v x86_64-w64-mingw32-gcc >/dev/null ||
	    skip "mingw-w64 is not installed (scripts/deps installs it)"
	srt_setup
}

# A unit test built with mingw-w64 (make win), run under Wine: its TAP must be all ok.
win_unit() {
	local exe="$WINBUILD/tests/unit/$1.exe"
	[ -f "$exe" ] || { echo "$exe is not built (make win)"; return 1; }
	local tap last
	run --separate-stderr $NS "$WINE" "$exe"
	tap=${output//$'\r'/}          # the C runtime's text mode ends lines with CR LF
	echo "$tap"
	[ "$status" -eq 0 ]
	[[ "$tap" != *"not ok"* ]]
	last=$(tail -n 1 <<<"$tap")
	[[ "$last" =~ ^1\.\.[0-9]+$ ]]
	[ "$(grep -c '^ok ' <<<"$tap")" -eq "${last#1..}" ]
}

@test "wine: the event loop's unit test on WSAPoll (edge emulation, timers, control events)" {
	win_unit test_evloop
}

@test "wine: the resolver's unit test on getaddrinfo (answers from the loop, cancel, free)" {
	win_unit test_resolver
}

@test "wine: the SOCKS5 and upstream parsers' unit tests" {
	win_unit test_socks5
	win_unit test_upstream
}

@test "wine: the copying relay's unit test (both ways, half-close, counts, 4 at once)" {
	win_unit test_relay
}

@test "wine: the decision record's writer" {
	win_unit test_decision_format
}

@test "wine: the guard's list of this host's addresses (GetAdaptersAddresses)" {
	win_unit test_guard_local
}

@test "wine: policy.bin read without mmap decides as on Linux" {
	local native="$SRT_BUILD/tests/policy-decide" exe="$WINBUILD/tests/policy-decide.exe"
	[ -x "$native" ] || native="$(dirname "$WINBUILD")/tests/policy-decide"
	[ -x "$native" ] && [ -f "$exe" ] || { echo "policy-decide is not built"; return 1; }
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["allowed.test","*.wild.test","10.1.2.3","[2001:db8::1]"],
 "deniedDomains":["bad.wild.test","*.evil.test"],
 "deniedDomainReasons":{"bad.wild.test":"no bad","*.evil.test":"evil"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	set -- allowed.test 443 ALLOWED.test. 80 x.wild.test 80 bad.wild.test 80 \
	    a.evil.test 22 other.test 443 10.1.2.3 80 2001:db8::1 443 127.0.0.1 80
	"$native" "$T/p.bin" "$@" >"$T/linux"
	run --separate-stderr $NS "$WINE" "$exe" "Z:${T//\//\\}\\p.bin" "$@"
	[ "$status" -eq 0 ]
	printf '%s\n' "${output//$'\r'/}" >"$T/windows"
	diff -u "$T/linux" "$T/windows"
	grep -q '^bad.wild.test 80 deny bad.wild.test no bad$' "$T/windows"
	grep -q '^x.wild.test 80 allow \*.wild.test -$' "$T/windows"
}
