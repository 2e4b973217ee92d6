#!/usr/bin/env bats
# srt: the network from inside the sandbox. The upstreams listen on the host's loopback;
# the sandbox has a network namespace of its own, so it reaches them only through
# srt-httpd (HTTP, CONNECT) and srt-socksd (SOCKS5), and only where the policy allows.
load ../helpers
bats_require_minimum_version 1.5.0

# What the sandboxed command does to be refused: see its usage.
RO="$BATS_TEST_DIRNAME/../helpers/refused-ops.py"

setup_file() {
	export UT=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-net.XXXXXX")
	mkdir -p "$UT/www" "$UT/cgi-bin" "$UT/repos"
	echo hello-upstream > "$UT/www/index.html"
	UPORT=$(free_port)
	python3 -m http.server "$UPORT" --bind 127.0.0.1 --directory "$UT/www" \
	    >"$UT/www.log" 2>&1 &
	echo $! > "$UT/www.pid"
	export UPORT
	for i in $(seq 100); do curl -s "http://127.0.0.1:$UPORT/" >/dev/null && break; sleep 0.1; done
}

teardown_file() {
	[ -f "$UT/www.pid" ] && kill "$(cat "$UT/www.pid")" 2>/dev/null
	[ -f "$UT/git.pid" ] && kill "$(cat "$UT/git.pid")" 2>/dev/null
	[ -f "$UT/up.pid" ] && kill "$(cat "$UT/up.pid")" 2>/dev/null
	rm -rf "$UT"
}

setup() {
	srt_setup
	mkdir -p "$T/ws" "$T/tmp"
	export TMPDIR="$T/tmp"
	cd "$T/ws"
	write_settings "$T/allow.json" "[\"127.0.0.1:$UPORT\"]"
	write_settings "$T/none.json"
}

teardown() {
	cd /
	[ -f "$T/lo.pid" ] && kill "$(cat "$T/lo.pid")" 2>/dev/null
	srt_teardown
}

# curl inside, with NO_PROXY emptied (it names 127.0.0.1, which would bypass the proxy).
incurl() {
	local s=$1
	shift
	srt -s "$s" -c "NO_PROXY= no_proxy= curl -sS -m 10 $*"
}

@test "HTTP through srt-httpd to an upstream allowed by IP literal and port" {
	run incurl "$T/allow.json" "http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
}

@test "CONNECT through srt-httpd, and over the IPv6 listener" {
	run incurl "$T/allow.json" -p "http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
	run incurl "$T/allow.json" -p -x 'http://[::1]:3128' "http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
}

@test "SOCKS5 through srt-socksd, by address and by name resolved outside" {
	run incurl "$T/allow.json" -x socks5://localhost:1080 "http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
	run incurl "$T/allow.json" -x socks5h://127.0.0.1:1080 "http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
}

@test "a destination the policy does not allow is refused by each proxy" {
	run incurl "$T/none.json" "http://127.0.0.1:$UPORT/"
	[[ "$output" == *"Connection blocked by network allowlist"* ]]
	[[ "$output" == *"deny network-outbound 127.0.0.1:$UPORT (host is not on the allow list)"* ]]
	run incurl "$T/none.json" -p "http://127.0.0.1:$UPORT/"
	[ "$status" -ne 0 ]
	[[ "$output" == *403* ]]
	run incurl "$T/none.json" -x socks5h://localhost:1080 "http://127.0.0.1:$UPORT/"
	[ "$status" -ne 0 ]
	[[ "$output" != *hello-upstream* ]]
	# the right host on another port is refused too
	write_settings "$T/other.json" "[\"127.0.0.1:$((UPORT == 65535 ? 1 : UPORT + 1))\"]"
	run incurl "$T/other.json" "http://127.0.0.1:$UPORT/"
	[[ "$output" != *hello-upstream* ]]
}

@test "deniedDomains wins over allowedDomains, with its reason" {
	cat > "$T/d.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1"],"deniedDomains":["127.0.0.1:$UPORT"],
  "deniedDomainReasons":{"127.0.0.1:$UPORT":"not this one"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	run incurl "$T/d.json" "http://127.0.0.1:$UPORT/"
	[[ "$output" != *hello-upstream* ]]
	[[ "$output" == *"deny network-outbound 127.0.0.1:$UPORT (not this one)"* ]]
}

@test "direct connections fail: no route out of the sandbox" {
	run srt -s "$T/allow.json" -c "curl -sS -m 5 --noproxy '*' http://127.0.0.1:$UPORT/"
	[ "$status" -ne 0 ]
	[[ "$output" != *hello-upstream* ]]
	run srt -s "$T/allow.json" -- python3 "$RO" connect-to 127.0.0.1 "$UPORT" 1.1.1.1 80 ::1 "$UPORT"
	[[ "$output" != *CONNECTED* ]]
	[ "$(echo "$output" | grep -c failed)" -eq 3 ]
}

# Issue 31 item 6: curl honours NO_PROXY, which named localhost and so sent the request to
# the sandbox's own loopback, where nothing listens.
# reference 0.0.83: FAILS the same way (curl: (7) Failed to connect to localhost), no report.
@test "an allowedDomains loopback entry with a port reaches that port of the host's loopback" {
	local port
	mkdir "$T/lo"
	echo hello-host-loopback >"$T/lo/index.html"
	port=$(free_port)
	python3 -m http.server "$port" --bind 127.0.0.1 --directory "$T/lo" >"$T/lo.log" 2>&1 &
	echo $! >"$T/lo.pid"
	wait_listening "$port"
	write_settings "$T/lo.json" "[\"localhost:$port\"]"
	run srt -s "$T/lo.json" -c "curl -sS -m 10 http://localhost:$port/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-host-loopback ]
	# only that port: another one of localhost is refused by the proxy, and reported
	run srt -s "$T/lo.json" -c "curl -sS -m 10 -o /dev/null -w '%{http_code}\n' http://localhost:$((port == 65535 ? 1 : port + 1))/"
	[[ "${lines[0]}" == 403 ]]
	[[ "$output" == *"deny network-outbound localhost:"*"(host is not on the allow list)"* ]]
	# only that name: 127.0.0.1 is not listed, so it stays in NO_PROXY (the sandbox's own)
	run srt -s "$T/lo.json" -c 'printf "%s\n" "$NO_PROXY" "$no_proxy"'
	[ "${lines[0]}" = "127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16" ]
	[ "${lines[1]}" = "${lines[0]}" ]
	run srt -s "$T/lo.json" -c "curl -sS -m 10 http://127.0.0.1:$port/"
	[ "$status" -ne 0 ]
	# without a port, or denied, a loopback entry leaves NO_PROXY as it was
	write_settings "$T/lo2.json" '["localhost", "[::1]:8080", "127.0.0.1:8080"]' \
	    '["127.0.0.1"]'
	run srt -s "$T/lo2.json" -c 'printf "%s\n" "$NO_PROXY" "$JAVA_TOOL_OPTIONS"'
	[ "${lines[0]}" = "localhost,127.0.0.1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16" ]
	[[ "${lines[1]}" == *"-Dhttp.nonProxyHosts=localhost|127.0.0.1" ]]
}

@test "git clones over http through the proxy from a local git http-backend" {
	command -v git >/dev/null || skip "no git"
	backend=$(git --exec-path)/git-http-backend
	[ -x "$backend" ] || skip "no git-http-backend"
	git init -q --bare "$UT/repos/r.git"
	git init -q "$T/src"
	git -C "$T/src" -c user.name=t -c user.email=t@e commit -q --allow-empty -m first
	git -C "$T/src" push -q "$UT/repos/r.git" HEAD:refs/heads/main
	git -C "$UT/repos/r.git" symbolic-ref HEAD refs/heads/main
	cat > "$UT/cgi-bin/git" <<SH
#!/bin/sh
export GIT_PROJECT_ROOT="$UT/repos" GIT_HTTP_EXPORT_ALL=1
# python's CGI server runs scripts as nobody when it runs as root
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=safe.directory GIT_CONFIG_VALUE_0='*'
exec "$backend"
SH
	chmod 755 "$UT/cgi-bin/git" "$UT"
	chmod -R a+rX "$UT/repos"
	gport=$(free_port)
	(cd "$UT" && exec python3 -m http.server --cgi "$gport" --bind 127.0.0.1) >"$UT/git.log" 2>&1 &
	echo $! > "$UT/git.pid"
	for i in $(seq 100); do curl -s "http://127.0.0.1:$gport/" >/dev/null && break; sleep 0.1; done
	cat > "$T/g.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$gport"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	run srt -s "$T/g.json" -c "NO_PROXY= no_proxy= git clone -q http://127.0.0.1:$gport/cgi-bin/git/r.git clone && git -C clone log --format=%s"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = first ]
	# without the allowance the same clone is refused
	sed "s/127.0.0.1:$gport/127.0.0.1:1/" "$T/g.json" > "$T/g2.json"
	run srt -s "$T/g2.json" -c "NO_PROXY= no_proxy= git clone -q http://127.0.0.1:$gport/cgi-bin/git/r.git clone2"
	[ "$status" -ne 0 ]
	[ ! -d "$T/ws/clone2/.git" ]
}

@test "ssh through GIT_SSH_COMMAND reaches the SOCKS proxy and is refused with the reason" {
	command -v ssh >/dev/null || skip "no ssh"
	cat > "$T/s.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":["git.example:22"],
  "deniedDomainReasons":{"git.example:22":"ssh to git.example is not allowed"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	run srt -s "$T/s.json" -c 'export HOME=$TMPDIR; eval "$GIT_SSH_COMMAND -o BatchMode=yes -o StrictHostKeyChecking=no git@git.example true"'
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *"ssh to git.example is not allowed"* ]]
}

@test "httpProxyPort and socksProxyPort lead to the user's own proxy through a plain relay" {
	# The user's own proxy: an srt-httpd on the host with a policy of its own.
	write_settings "$T/user.json" "[\"127.0.0.1:$UPORT\"]"
	pport=$(free_port)
	srt-httpd -s "$T/user.json" -l "127.0.0.1:$pport" --log "$T/user.log" &
	echo $! > "$UT/up.pid"
	for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$pport/" && break; sleep 0.1; done
	sport=$(free_port)
	srt-socksd -s "$T/user.json" -l "127.0.0.1:$sport" --log "$T/user-socks.log" &
	spid=$!
	wait_listening "$sport"
	cat > "$T/e.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"httpProxyPort":$pport,"socksProxyPort":$sport},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	run incurl "$T/e.json" "http://127.0.0.1:$UPORT/"
	[ "$output" = hello-upstream ]
	run incurl "$T/e.json" -x socks5h://localhost:1080 "http://127.0.0.1:$UPORT/"
	kill "$spid" "$(cat "$UT/up.pid")"
	[ "$output" = hello-upstream ]
	grep -q "\"port\":$UPORT" "$T/user.log"
	grep -q "\"protocol\":\"socks5\"" "$T/user-socks.log"
}

@test "the host's network devices are not shown in /sys (issue #12 item 9)" {
	[ -d /sys/class/net ] || skip "no /sys/class/net here"
	[ -n "$(ls -A /sys/class/net)" ] || skip "the host shows no network device"
	run -0 srt -s "$T/none.json" -c 'ls -A /sys/class/net; cat /sys/class/net/*/address /sys/devices/virtual/net/*/statistics/rx_bytes 2>/dev/null; echo end'
	[ "$output" = end ]
	# Each device directory is hidden where /sys/class/net points, not only the list.
	for l in /sys/class/net/*; do
		dev=$(readlink -f "$l")
		run -0 srt -s "$T/none.json" -c "ls -A '$(dirname "$dev")'; echo end"
		[ "$output" = end ]
	done
	# The sandbox's own view is there: its loopback, in /proc/net/dev.
	run -0 srt -s "$T/none.json" -c 'grep -c "lo:" /proc/net/dev'
	[ "$output" = 1 ]
}

@test "the relay of httpProxyPort is srt-httpd --relay-to, exec'd and narrowed" {
	write_settings "$T/user.json" "[\"127.0.0.1:$UPORT\"]"
	pport=$(free_port)
	srt-httpd -s "$T/user.json" -l "127.0.0.1:$pport" --log "$T/user.log" &
	upid=$!
	for i in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$pport/" && break; sleep 0.1; done
	cat > "$T/e.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"httpProxyPort":$pport},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	srt -s "$T/e.json" -c "NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/ >\"\$TMPDIR/got\"; cp \"\$TMPDIR/got\" '$T/ws/got'; sleep 5" &
	spid=$!
	relay=
	for _ in $(seq 100); do
		for c in $(pgrep -P "$spid"); do
			[[ "$(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null)" == *"--relay-to $pport"* ]] && relay=$c
		done
		[ -n "$relay" ] && [ -s "$T/ws/got" ] && break
		sleep 0.1
	done
	echo "relay: $relay $(readlink "/proc/$relay/exe")"
	[ -n "$relay" ]
	[ "$(readlink "/proc/$relay/exe")" = "$(readlink -f "$SRT_BIN/srt-httpd")" ]
	grep -q "Seccomp:.2" "/proc/$relay/status"
	grep -q "NoNewPrivs:.1" "/proc/$relay/status"
	[ "$(cat "$T/ws/got")" = hello-upstream ]
	wait "$spid"
	kill "$upid"
	! kill -0 "$relay" 2>/dev/null
}

@test "-d names each allowed connection's entry; the write guard's paths wait for -d -d" {
	# reference 0.0.83 prints "Allowed by config rule: HOST:PORT" under --debug
	run -0 --separate-stderr srt -d -s "$T/allow.json" -c "NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/; NO_PROXY= no_proxy= curl -sS -m 10 -x socks5h://localhost:1080 http://127.0.0.1:$UPORT/"
	[ "$output" = "hello-upstream
hello-upstream" ]
	[ "$(grep -c "^srt: debug: allow network-outbound 127.0.0.1:$UPORT (allowed by allowedDomains \"127.0.0.1:$UPORT\")\$" <<<"$stderr")" -eq 2 ]
	# one line of the write guard (its count), none per path, nothing that reads as an error
	[ "$(grep -c 'debug: write guard: /' <<<"$stderr")" -eq 0 ]
	[[ "$stderr" == *"debug: write guard: "*" protected paths"* ]]
	[[ "$stderr" != *"unshare refused"* ]]
	[ "$(wc -l <<<"$stderr")" -lt 40 ]
	run -0 --separate-stderr srt -dd -s "$T/allow.json" -c true
	[ "$(grep -c 'debug: write guard: /' <<<"$stderr")" -gt 10 ]
	run -0 --separate-stderr srt -d -d -s "$T/allow.json" -c true
	[ "$(grep -c 'debug: write guard: /' <<<"$stderr")" -gt 10 ]
}
