#!/usr/bin/env bats
# The proxies' Windows build under Wine: the unit tests of its parts as Windows programs
# (the event loop on WSAPoll, the resolver on getaddrinfo, the relay without splice, the
# decision record's writer, the SOCKS5 and upstream parsers, this host's addresses for
# the guard), the compiled policy read without mmap deciding as on Linux, and
# srt-socksd.exe and srt-httpd.exe themselves: curl through them, their refusals, their
# log, the guard; last, both started by srt's Windows system layer as srt starts them,
# on listeners, a policy, a log pipe and a lifeline handed over as handles.
#
# Wine creates sockets in its server (wineserver), not in the program's process, so a
# network namespace around wine alone isolates nothing while the server runs outside it.
# Everything here, the server included, runs in one network namespace with loopback only
# and a hosts file of its own (a holder process keeps the namespaces; nsenter joins
# them), where the host allows them: srt-socksd.exe dials what the policy allows, and
# only loopback is there to reach. One Wine prefix for the file, in its temp dir; its
# server is stopped at the end, so nothing is left running.
bats_require_minimum_version 1.5.0
load ../helpers

setup_file() {
	export WINE WINESERVER_BIN WINBUILD NS= NSPID=
	WINE=$(wine_bin) || WINE=
	WINESERVER_BIN=$(wineserver_bin) || WINESERVER_BIN=
	WINBUILD="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/build/win"
	[ -n "$WINE" ] || return 0
	wine_prefix
	# Its own hosts file too (a mount namespace of its own): names for the
	# resolved-address guard to judge.
	printf '127.0.0.1 localhost\n::1 localhost\n127.0.0.1 guarded.test\n' \
	    >"$BATS_FILE_TMPDIR/hosts"
	wine_netns "$BATS_FILE_TMPDIR/hosts"
	# The first start makes the prefix and its server, in the namespace (several
	# seconds); the tests then reuse both.
	$NS "$WINE" cmd.exe /c exit 0 >/dev/null 2>&1 || true
}

teardown_file() {
	wine_stop
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

# srt-socksd.exe on a free loopback port with the compiled policy $T/p.bin; extra
# arguments follow. The Windows paths are Wine's Z: drive.
start_socksd_exe() {
	PORT=$(free_port)
	$NS "$WINE" "$WINBUILD/srt-socksd.exe" -p "$(winpath "$T/p.bin")" -l "127.0.0.1:$PORT" \
	    --log "$(winpath "$T/log")" "$@" >"$T/out" 2>"$T/err" 3>&- &
	SOCKSD_PID=$!
	for _ in $(seq 1 100); do
		$NS python3 "$NETPROBE" open 127.0.0.1 "$PORT" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$T/err"
	return 1
}

winpath() {
	printf 'Z:%s' "${1//\//\\}"
}

# records LOG FORMAT: the array REC, one element for each record of the decision log LOG,
# in FORMAT (tests/helpers/jsonl.py print: "%(host)s|%(verdict)s", read back with
# IFS='|'). Fails where a line is not JSON or a record lacks a field FORMAT names.
records() {
	python3 "$JSONL" print "$1" "$2" >"$T/records" || return 1
	mapfile -t REC <"$T/records"
}

stop_all() {
	[ -n "${DRIVE_PID:-}" ] && touch "$T/stop"
	[ -n "${SOCKSD_PID:-}" ] && kill "$SOCKSD_PID" 2>/dev/null
	[ -n "${UP_PID:-}" ] && kill "$UP_PID" 2>/dev/null
	wait 2>/dev/null
	return 0
}

teardown() {
	stop_all
	srt_teardown
}

@test "wine: srt-socksd.exe lets an allowed name through and refuses a denied one, and logs both" {
	[ -f "$WINBUILD/srt-socksd.exe" ] || { echo "srt-socksd.exe is not built (make win)"; return 1; }
	[ -n "$NS" ] || skip "no network namespace here (unshare -n): srt-socksd.exe would dial out"
	mkdir -p "$T/www"
	echo "hello through srt-socksd.exe" >"$T/www/index.html"
	UP=$(free_port)
	$NS python3 -m http.server "$UP" --bind 127.0.0.1 --directory "$T/www" >/dev/null 2>&1 3>&- &
	UP_PID=$!
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["localhost:$UP"],"deniedDomains":["denied.example"],
 "deniedDomainReasons":{"denied.example":"not this one"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	start_socksd_exe
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://localhost:$UP/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello through srt-socksd.exe" ]
	# Denied by name (reply 02) and not on the allow list: nothing is dialled.
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://denied.example/"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(2)"* ]]
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://localhost:1/"
	[ "$status" -ne 0 ]
	for _ in $(seq 1 50); do [ "$(wc -l <"$T/log")" -ge 3 ] && break; sleep 0.1; done
	cat "$T/log"
	records "$T/log" \
	    '%(protocol)s|%(host)s|%(port)s|%(verdict)s|%(rule)s|%(route)s|%(bytes_down)s|%(reason)s|%(client)s'
	[ "${#REC[@]}" -eq 3 ]
	# In order: the allowed name, the denied name, the port not on the allow list.
	IFS='|' read -r protocol host port verdict rule route down _ _ <<<"${REC[0]}"
	[ "$protocol|$host|$port|$verdict|$rule|$route" = "socks5|localhost|$UP|allow|localhost:$UP|direct" ]
	[ "$down" -gt 0 ]
	IFS='|' read -r _ host _ verdict rule _ _ reason _ <<<"${REC[1]}"
	[ "$host|$verdict|$rule|$reason" = "denied.example|deny|denied.example|not this one" ]
	IFS='|' read -r _ _ _ verdict _ _ _ reason _ <<<"${REC[2]}"
	[ "$verdict|$reason" = "deny|host is not on the allow list" ]
	for r in "${REC[@]}"; do
		[[ "${r##*|}" == 127.0.0.1:* ]]
	done
}

@test "wine: srt-socksd.exe refuses at start what needs Linux-only machinery" {
	[ -f "$WINBUILD/srt-socksd.exe" ] || { echo "srt-socksd.exe is not built (make win)"; return 1; }
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["example.com"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	local exe="$WINBUILD/srt-socksd.exe" p
	p=$(winpath "$T/p.bin")
	run --separate-stderr $NS "$WINE" "$exe" -s "$(winpath "$T/s.json")"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"srt-socksd: -s is not available on Windows: settings files are read with cJSON"*"srt-policy compile"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" -l unix:/tmp/x.sock
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"unix:/tmp/x.sock is not available on Windows"* ]]
	# The launcher's options take handles this process has (and a socket is not a
	# listener's carrier).
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --lifeline-fd 999996
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--lifeline-fd 999996: not a handle of this process"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --listen-fd 999996
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--listen-fd 999996: not a handle of this process"* ]]
	run --separate-stderr $NS "$WINE" "$exe" --policy-fd 999996
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--policy-fd 999996: not a handle of this process"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --control-fd 4
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--control-fd is not available on Windows: srt's Linux launcher sends policy updates"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --handoff-fd 3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--handoff-fd is not available on Windows"* ]]
	# In the policy: an https:// parent (OpenSSL) and mitmProxy (the connector).
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["example.com"],"deniedDomains":[],
 "parentProxy":{"https":"https://parent.example:3128"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" -l 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"network.parentProxy: an https:// parent proxy needs OpenSSL"* ]]
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["example.com"],"deniedDomains":[],
 "mitmProxy":{"socketPath":"/tmp/mitm.sock","domains":["example.com"]}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" -l 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"network.mitmProxy: the inspection proxy is reached through a Unix socket"* ]]
}

@test "wine: srt-socksd.exe keeps the resolved-address guard; a name that does not resolve is 04" {
	[ -f "$WINBUILD/srt-socksd.exe" ] || { echo "srt-socksd.exe is not built (make win)"; return 1; }
	[ -n "$NS" ] || skip "no network and mount namespaces here (unshare -n -m)"
	mkdir -p "$T/www"
	echo inside >"$T/www/index.html"
	UP=$(free_port)
	$NS python3 -m http.server "$UP" --bind 127.0.0.1 --directory "$T/www" >/dev/null 2>&1 3>&- &
	UP_PID=$!
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["guarded.test","missing.test"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	start_socksd_exe
	# guarded.test is allowed by name, but resolves (the namespace's hosts file) to
	# loopback: refused, 02, and nothing reaches the server.
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://guarded.test:$UP/"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(2)"* ]]
	run $NS curl -sS --max-time 30 --socks5-hostname "127.0.0.1:$PORT" "http://missing.test:$UP/"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(4)"* ]]
	for _ in $(seq 1 50); do [ "$(wc -l <"$T/log")" -ge 2 ] && break; sleep 0.1; done
	cat "$T/log"
	grep -q '"host":"guarded.test".*"verdict":"deny".*blocked: resolved to a loopback address' "$T/log"
	grep -q '"host":"missing.test".*"verdict":"error"' "$T/log"
}

@test "wine: srt-socksd.exe answers a refused dial with 04 and the system's reason" {
	[ -f "$WINBUILD/srt-socksd.exe" ] || { echo "srt-socksd.exe is not built (make win)"; return 1; }
	[ -n "$NS" ] || skip "no network namespace here (unshare -n)"
	DEAD=$(free_port)
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["localhost:$DEAD"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	start_socksd_exe
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://localhost:$DEAD/"
	echo "curl: $output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(4)"* ]]
	for _ in $(seq 1 50); do [ -s "$T/log" ] && break; sleep 0.1; done
	cat "$T/log"
	grep -q '"verdict":"error".*failed: Connection refused".*"status":4' "$T/log"
}

# srt-httpd.exe the same way.
start_httpd_exe() {
	PORT=$(free_port)
	$NS "$WINE" "$WINBUILD/srt-httpd.exe" -p "$(winpath "$T/p.bin")" -l "127.0.0.1:$PORT" \
	    --log "$(winpath "$T/log")" "$@" >"$T/out" 2>"$T/err" 3>&- &
	SOCKSD_PID=$!
	for _ in $(seq 1 100); do
		$NS python3 "$NETPROBE" open 127.0.0.1 "$PORT" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$T/err"
	return 1
}

@test "wine: srt-httpd.exe forwards and tunnels to an allowed name, 403 for a denied one" {
	[ -f "$WINBUILD/srt-httpd.exe" ] || { echo "srt-httpd.exe is not built (make win)"; return 1; }
	[ -n "$NS" ] || skip "no network namespace here (unshare -n): srt-httpd.exe would dial out"
	mkdir -p "$T/www"
	echo "hello through srt-httpd.exe" >"$T/www/index.html"
	# Big enough to fill the sockets' buffers many times over (the loop's edge emulation
	# must poll again after a short read, as the forwarder takes it for a drained socket).
	head -c $((8 << 20)) /dev/urandom >"$T/www/big"
	UP=$(free_port)
	$NS python3 -m http.server "$UP" --bind 127.0.0.1 --directory "$T/www" >/dev/null 2>&1 3>&- &
	UP_PID=$!
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["localhost:$UP"],"deniedDomains":["denied.example"],
 "deniedDomainReasons":{"denied.example":"not this one"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	start_httpd_exe
	run $NS curl -sS --max-time 20 -x "http://127.0.0.1:$PORT" "http://localhost:$UP/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello through srt-httpd.exe" ]
	run $NS curl -sS --max-time 20 -p -x "http://127.0.0.1:$PORT" "http://localhost:$UP/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello through srt-httpd.exe" ]
	$NS curl -sS --max-time 60 -x "http://127.0.0.1:$PORT" "http://localhost:$UP/big" -o "$T/big.1"
	cmp "$T/big.1" "$T/www/big"
	$NS curl -sS --max-time 60 -p -x "http://127.0.0.1:$PORT" "http://localhost:$UP/big" -o "$T/big.2"
	cmp "$T/big.2" "$T/www/big"
	run $NS curl -sS -i --max-time 20 -x "http://127.0.0.1:$PORT" "http://denied.example/"
	[ "$status" -eq 0 ]
	[[ "$output" == "HTTP/1.1 403 "* ]]
	[[ "$output" == *"X-Proxy-Error: blocked-by-"* ]]
	run $NS curl -sS --max-time 20 -p -x "http://127.0.0.1:$PORT" "http://denied.example/"
	[ "$status" -ne 0 ]
	[[ "$output" == *"403"* ]]
	for _ in $(seq 1 50); do [ "$(wc -l <"$T/log")" -ge 6 ] && break; sleep 0.1; done
	cat "$T/log"
	records "$T/log" \
	    '%(protocol)s|%(host)s|%(verdict)s|%(route)s|%(bytes_down)s|%(status)s|%(reason)s'
	[ "${#REC[@]}" -eq 6 ]
	[ "$(printf '%s\n' "${REC[@]%%|*}" | paste -sd' ')" = "http connect http connect http connect" ]
	for r in "${REC[@]:0:4}"; do
		IFS='|' read -r _ host verdict route _ <<<"$r"
		[ "$host|$verdict|$route" = "localhost|allow|direct" ]
	done
	# The two big bodies: by the proxy, then through its tunnel.
	for r in "${REC[@]:2:2}"; do
		IFS='|' read -r _ _ _ _ down _ <<<"$r"
		[ "$down" -ge $((8 << 20)) ]
	done
	for r in "${REC[@]:4}"; do
		IFS='|' read -r _ host verdict _ _ st reason <<<"$r"
		[ "$host|$verdict|$st|$reason" = "denied.example|deny|403|not this one" ]
	done
}

@test "wine: srt-httpd.exe refuses at start what needs OpenSSL or a decider" {
	[ -f "$WINBUILD/srt-httpd.exe" ] || { echo "srt-httpd.exe is not built (make win)"; return 1; }
	local exe="$WINBUILD/srt-httpd.exe" p
	cat >"$T/s.json" <<'JSON'
{"network":{"allowedDomains":["example.com"],"deniedDomains":[],
 "tlsTerminate":{"caCertPath":"/x/ca.pem","caKeyPath":"/x/ca.key"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	p=$(winpath "$T/p.bin")
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" -l 127.0.0.1:0
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"network.tlsTerminate needs OpenSSL"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --ca-fd 3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--ca-fd is not available on Windows: TLS termination needs OpenSSL"* ]]
	run --separate-stderr $NS "$WINE" "$exe" --decider-fd 3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"a decider is not available on Windows"* ]]
	run --separate-stderr $NS "$WINE" "$exe" -p "$p" --cred-fd 3
	[ "$status" -eq 2 ]
	[[ "$stderr" == *"--cred-fd is not available on Windows"* ]]
}

# srt's part: the Windows system layer (srt-launch/windows/winsys_win32.c, driven by
# build/win/tests/winsys-drive.exe as winlaunch.c drives it) starts the proxy in its job
# with everything by handle: the listeners by their carriers (WSADuplicateSocketW), the
# compiled policy as an anonymous file, the decision log's pipe and the lifeline. Then
# curl from the namespace, the log as srt reads it, and the lifeline's cut ending the
# proxy by itself (exit 0, not the drive's kill).
drive_proxy() {
	local drive="$WINBUILD/tests/winsys-drive.exe"
	[ -f "$drive" ] && [ -f "$WINBUILD/$1" ] || { echo "$1 or winsys-drive.exe is not built (make win)"; return 1; }
	rm -f "$T/stop" "$T/dlog"
	: >"$T/dout"
	$NS "$WINE" "$drive" proxy "$(winpath "$WINBUILD/$1")" "$(winpath "$T/p.bin")" \
	    "$(winpath "$T/dlog")" "$(winpath "$T/stop")" >"$T/dout" 2>"$T/derr" 3>&- &
	DRIVE_PID=$!
	for _ in $(seq 1 300); do
		PORT=$(tr -d '\r' <"$T/dout" | sed -n 's/^port: //p')
		[ -n "$PORT" ] && return 0
		kill -0 "$DRIVE_PID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/dout" "$T/derr"
	return 1
}

drive_stop() {
	touch "$T/stop"
	wait "$DRIVE_PID"
	DRIVE_PID=
	cat "$T/dout" "$T/derr"
	grep -qx 'proxy: exit 0' < <(tr -d '\r' <"$T/dout")
}

drive_policy() {
	mkdir -p "$T/www"
	echo "hello through the handed-over listener" >"$T/www/index.html"
	UP=$(free_port)
	$NS python3 -m http.server "$UP" --bind 127.0.0.1 --directory "$T/www" >/dev/null 2>&1 3>&- &
	UP_PID=$!
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["localhost:$UP"],"deniedDomains":["denied.example"],
 "deniedDomainReasons":{"denied.example":"not this one"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	"$SRT_BUILD/bin/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	# The server up before anything is asked of it.
	for _ in $(seq 1 100); do
		$NS python3 "$NETPROBE" open 127.0.0.1 "$UP" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

@test "wine: srt's winsys_win32 starts srt-socksd.exe on a handed-over listener, policy, log and lifeline" {
	[ -n "$NS" ] || skip "no network namespace here (unshare -n): srt-socksd.exe would dial out"
	drive_policy
	drive_proxy srt-socksd.exe
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://localhost:$UP/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello through the handed-over listener" ]
	run $NS curl -sS --max-time 20 --socks5-hostname "127.0.0.1:$PORT" "http://denied.example/"
	[ "$status" -ne 0 ]
	[[ "$output" == *"(2)"* ]]
	drive_stop
	cat "$T/dlog"
	records "$T/dlog" '%(protocol)s|%(host)s|%(port)s|%(verdict)s|%(bytes_down)s|%(reason)s'
	[ "${#REC[@]}" -eq 2 ]
	IFS='|' read -r protocol host port verdict down _ <<<"${REC[0]}"
	[ "$protocol|$host|$port|$verdict" = "socks5|localhost|$UP|allow" ]
	[ "$down" -gt 0 ]
	IFS='|' read -r _ host _ verdict _ reason <<<"${REC[1]}"
	[ "$host|$verdict|$reason" = "denied.example|deny|not this one" ]
}

@test "wine: srt's winsys_win32 starts srt-httpd.exe on handed-over listeners (127.0.0.1 and ::1)" {
	[ -n "$NS" ] || skip "no network namespace here (unshare -n): srt-httpd.exe would dial out"
	drive_policy
	drive_proxy srt-httpd.exe
	run $NS curl -sS --max-time 20 -x "http://127.0.0.1:$PORT" "http://localhost:$UP/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello through the handed-over listener" ]
	local n=2
	# The second listener, where the namespace has IPv6 loopback.
	if $NS python3 "$NETPROBE" v6 2>/dev/null; then
		run $NS curl -sS --max-time 20 -x "http://[::1]:$PORT" "http://localhost:$UP/"
		[ "$status" -eq 0 ]
		[ "$output" = "hello through the handed-over listener" ]
		n=3
	fi
	run $NS curl -sS -i --max-time 20 -x "http://127.0.0.1:$PORT" "http://denied.example/"
	[ "$status" -eq 0 ]
	[[ "$output" == "HTTP/1.1 403 "* ]]
	drive_stop
	cat "$T/dlog"
	records "$T/dlog" '%(host)s|%(verdict)s|%(status)s|%(client)s'
	[ "${#REC[@]}" -eq "$n" ]
	for r in "${REC[@]:0:n-1}"; do
		IFS='|' read -r host verdict st _ <<<"$r"
		[ "$host|$verdict|$st" = "localhost|allow|200" ]
	done
	# The request to ::1 came from ::1.
	if [ "$n" -eq 3 ]; then
		[[ "${REC[1]##*|}" == "[::1]:"* ]]
	fi
	IFS='|' read -r host _ st _ <<<"${REC[n-1]}"
	[ "$host|$st" = "denied.example|403" ]
}

@test "wine: a Windows proxy refuses a listener inherited as a socket rather than by its carrier" {
	local drive="$WINBUILD/tests/winsys-drive.exe" exe
	[ -n "$NS" ] || skip "no network namespace here (unshare -n)"
	drive_policy
	for exe in srt-socksd.exe srt-httpd.exe; do
		[ -f "$drive" ] && [ -f "$WINBUILD/$exe" ] || { echo "$exe or winsys-drive.exe is not built (make win)"; return 1; }
		touch "$T/stop"
		run --separate-stderr $NS "$WINE" "$drive" proxy "$(winpath "$WINBUILD/$exe")" \
		    "$(winpath "$T/p.bin")" "$(winpath "$T/dlog")" "$(winpath "$T/stop")" raw 3>&-
		echo "$output"
		echo "$stderr"
		[ "$status" -eq 0 ]
		grep -qx 'proxy: exit 2' < <(tr -d '\r' <<<"$output")
		# Windows' Winsock knows the socket; Wine 8's does not, and it is no pipe.
		[[ "$stderr" =~ "${exe%.exe}: --listen-fd "[0-9]+": "("a socket; on Windows it names the pipe that carries the listener"|"not a pipe holding a listener's WSAPROTOCOL_INFOW") ]]
	done
}
