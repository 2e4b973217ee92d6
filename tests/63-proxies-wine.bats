#!/usr/bin/env bats
# The proxies' Windows build under Wine: the unit tests of the event loop (WSAPoll
# backend) and of the resolver (getaddrinfo on the thread pool) as Windows programs. Wine
# runs in a network namespace of its own (unshare -n, loopback only) where the host
# allows one, so that nothing a test looks up or dials can leave the machine. One Wine prefix for the file, in its temp dir; its server is
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
	export WINE WINESERVER_BIN WINBUILD
	WINE=$(wine_bin) || WINE=
	WINESERVER_BIN=$(wineserver_bin) || WINESERVER_BIN=
	WINBUILD="$(cd "$BATS_TEST_DIRNAME/.." && pwd)/build/win"
	[ -n "$WINE" ] || return 0
	export WINEPREFIX="$BATS_FILE_TMPDIR/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	unset DISPLAY WAYLAND_DISPLAY
	# The first start makes the prefix (several seconds); the tests then reuse it.
	"$WINE" cmd.exe /c exit 0 >/dev/null 2>&1 || true
}

teardown_file() {
	[ -n "${WINESERVER_BIN:-}" ] && [ -n "${WINEPREFIX:-}" ] && "$WINESERVER_BIN" -k 2>/dev/null
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
	if unshare -n true 2>/dev/null; then
		run --separate-stderr unshare -n sh -c 'ip link set lo up && exec "$@"' sh "$WINE" "$exe"
	else
		run --separate-stderr "$WINE" "$exe"
	fi
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
