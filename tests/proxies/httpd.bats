#!/usr/bin/env bats
# srt-httpd: the filtering HTTP proxy, driven by curl and raw sockets against a local
# upstream that echoes what it received (tests/helpers/http-upstream.py; the clients curl
# cannot be are tests/helpers/http-client.py).

load ../helpers

HU="$BATS_TEST_DIRNAME/../helpers/http-upstream.py"
HC="$BATS_TEST_DIRNAME/../helpers/http-client.py"

setup() {
	srt_setup
	UP=$(free_port)
	PP=$(free_port)
	python3 "$HU" echo "$UP" "$T/up.log" &
	UPID=$!
	wait_listening "$UP"
	HPID=
}

teardown() {
	[ -f "$T/pids" ] && kill $(cat "$T/pids") 2>/dev/null
	[ -n "${HPID:-}" ] && kill "$HPID" 2>/dev/null
	[ -n "${UPID:-}" ] && kill "$UPID" 2>/dev/null
	wait 2>/dev/null
	srt_teardown
}

# settings with $1 = allowedDomains JSON, $2 = deniedDomains, $3 = extra network JSON
settings() {
	cat >"$T/s.json" <<JSON
{
  "network": { "allowedDomains": ${1:-[]}, "deniedDomains": ${2:-[]} ${3:+, $3} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] }
}
JSON
}

start_proxy() {
	srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" "$@" 2>"$T/err" &
	HPID=$!
	for _ in $(seq 50); do
		python3 "$NETPROBE" open 127.0.0.1 "$PP" 2>/dev/null && return 0
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.1
	done
	cat "$T/err"
	return 1
}

raw() { python3 "$HC" send "$PP" "$@"; }

# The last log line's field $1.
logfield() {
	tail -n 1 "$T/log" | python3 "$JSONL" field "$1"
}

# Issue 31 item 7: -l 0.0.0.0:PORT listened on every interface with no word and no
# password, -l localhost:PORT was "not an IPv4 address" while srt proxy --listen took it,
# and nothing said where the proxy listened. Both proxies and srt proxy now read a listen
# address one way (lib/core/proxy_listen.c). reference 0.0.83: srt proxy only (same rule).
@test "-l: localhost is taken, an address other hosts reach needs --listen-any-interface, and one line says where each proxy listens" {
	local prog port pid
	settings '["example.com"]'
	for prog in srt-httpd srt-socksd; do
		# localhost is 127.0.0.1; port 0 is reported as bound
		"$prog" -s "$T/s.json" -l localhost:0 -l '[::1]:0' 2>"$T/$prog.err" &
		pid=$!
		echo "$pid" >>"$T/pids"
		wait_grep "^$prog: listening on 127\.0\.0\.1:[1-9][0-9]*, \[::1\]:[1-9][0-9]*$" "$T/$prog.err"
		[ "$(wc -l <"$T/$prog.err")" -eq 1 ]
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$T/$prog.err")
		wait_listening "$port"
		kill "$pid"
		wait "$pid" 2>/dev/null || true
	done
	# The rest binds addresses other hosts could reach: only in a network namespace of
	# the test's own (and under timeout, as a proxy that took one would run on).
	[ "$(id -u)" -eq 0 ] && unshare -n true 2>/dev/null || skip "cannot create a network namespace"
	for prog in srt-httpd srt-socksd; do
		run timeout 10 unshare -n "$prog" -s "$T/s.json" -l 0.0.0.0:3130
		[ "$status" -eq 2 ]
		[ "${lines[0]}" = "$prog: -l 0.0.0.0:3130: not a loopback address (127.0.0.0/8, [::1] or localhost), so other hosts could use the proxy; pass --listen-any-interface to listen there anyway" ]
		run timeout 10 unshare -n "$prog" -s "$T/s.json" -l '[::]:3130'
		[ "$status" -eq 2 ]
		[[ "${lines[0]}" == "$prog: -l [::]:3130: not a loopback address"* ]]
	done
	# srt proxy reads --listen the same way, in its own words
	run timeout 10 unshare -n srt proxy --decider-fd 3 --listen 0.0.0.0:3130
	[ "$status" -eq 2 ]
	[[ "$output" == *"--listen 0.0.0.0:3130: not a loopback address (127.0.0.0/8, [::1] or localhost), so other hosts could use the proxy; pass --listen-any-interface"* ]]
	# Given the flag, it listens there and warns.
	run timeout 20 unshare -n sh -c '
	    ip link set lo up
	    srt-httpd -s "$1" -l 0.0.0.0:0 --listen-any-interface 2>"$2" & p=$!
	    for i in $(seq 100); do grep -qs listening "$2" && break; sleep 0.05; done
	    kill $p
	    srt-socksd -s "$1" -l 0.0.0.0:0 --listen-any-interface --auth u:p 2>"$2.s" & p=$!
	    for i in $(seq 100); do grep -qs listening "$2.s" && break; sleep 0.05; done
	    kill $p
	    cat "$2" "$2.s"' sh "$T/s.json" "$T/any.err"
	printf '%s\n' "$output"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" =~ ^srt-httpd:\ warning:\ 0\.0\.0\.0:[0-9]+\ can\ be\ reached\ from\ other\ hosts,\ and\ asks\ for\ no\ password\ \(--auth\ USER:PASS\)$ ]]
	[[ "${lines[1]}" =~ ^srt-httpd:\ listening\ on\ 0\.0\.0\.0:[0-9]+$ ]]
	[[ "${lines[2]}" =~ ^srt-socksd:\ warning:\ 0\.0\.0\.0:[0-9]+\ can\ be\ reached\ from\ other\ hosts$ ]]
	[[ "${lines[3]}" =~ ^srt-socksd:\ listening\ on\ 0\.0\.0\.0:[0-9]+$ ]]
}

@test "allowed GET is forwarded, logged as JSON" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run curl -sS -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/a?b=c"
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "GET /a?b=c" ]]
	[ "$(logfield verdict)" = allow ]
	[ "$(logfield protocol)" = http ]
	[ "$(logfield status)" = 200 ]
	[ "$(logfield rule)" = "127.0.0.1:$UP" ]
	python3 "$JSONL" valid "$T/log"
}

@test "POST bodies: Content-Length and chunked both arrive intact" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run curl -sS -x "http://127.0.0.1:$PP" --data-binary 'hello=world' "http://127.0.0.1:$UP/p"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hello=world"* ]]
	run curl -sS -x "http://127.0.0.1:$PP" -H 'Transfer-Encoding: chunked' --data-binary 'chunky-body' "http://127.0.0.1:$UP/c"
	[ "$status" -eq 0 ]
	[[ "$output" == *"chunky-body"* ]]
	[[ "$output" == *"Transfer-Encoding: chunked"* ]]
	[ "$(logfield bytes_up)" = 11 ]
}

@test "client keep-alive: two requests on one connection" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run curl -sS -v -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/one" "http://127.0.0.1:$UP/two"
	[ "$status" -eq 0 ]
	[[ "$output" == *"GET /one"* ]]
	[[ "$output" == *"GET /two"* ]]
	[[ "$output" == *"Re-using existing connection"* || "$output" == *"Reusing existing"* ]]
	[ "$(cut -d'"' -f12 "$T/log" | sort -u | wc -l)" -eq 1 ]
}

@test "a close-delimited response is re-framed and HEAD has no body" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run curl -sS -D - -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/close"
	[ "$status" -eq 0 ]
	[[ "$output" == *"Transfer-Encoding: chunked"* ]]
	[[ "$output" == *"GET /close"* ]]
	run curl -sS -I -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/h"
	[ "$status" -eq 0 ]
	[[ "$output" == *"200 OK"* ]]
}

@test "a Content-Length body to a slow client arrives whole though the upstream closed right after it" {
	local bp
	bp=$(free_port)
	# Sends 6 MiB framed by Content-Length at once, then closes: the proxy holds the
	# rest while the client takes 4 MiB/s, and must not take the close for a cut.
	python3 "$HU" big "$bp" &
	local bpid=$!
	wait_listening "$bp"
	settings "[\"127.0.0.1:$bp\"]"
	start_proxy
	run curl -sS --limit-rate 4M -x "http://127.0.0.1:$PP" "http://127.0.0.1:$bp/big" \
	    -o "$T/got"
	kill "$bpid" 2>/dev/null || true
	[ "$status" -eq 0 ]
	python3 "$HU" big-body >"$T/want"
	cmp "$T/want" "$T/got"
	[ "$(logfield status)" = 200 ]
	[ "$(logfield reason)" = null ]
}

@test "the last reply arrives whole: plain close when nothing is unread, lingering when bytes follow" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	# nothing follows the request: the proxy closes at once after the reply
	run raw "GET http://127.0.0.1:$UP/last HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\nConnection: close\r\n\r\n" \
	    --pad 0 --wait 10 --until-eof --summary "GET /last"
	[ "$status" -eq 0 ]
	[ "$output" = "EOF HTTP/1.1 200 OK True" ]
	# bytes follow it (unread when the reply ends): the close still must not reset
	run raw "GET http://127.0.0.1:$UP/last HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\nConnection: close\r\n\r\n" \
	    --pad 20000 --wait 10 --until-eof --summary "GET /last"
	[ "$status" -eq 0 ]
	[ "$output" = "EOF HTTP/1.1 200 OK True" ]
}

@test "denied host: 403 with X-Proxy-Error, connection kept alive" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run raw "GET http://example.com/ HTTP/1.1\r\nHost: example.com\r\n\r\nGET http://127.0.0.1:$UP/after HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 403 Forbidden"* ]]
	[[ "$output" == *"X-Proxy-Error: blocked-by-allowlist"* ]]
	[[ "$output" == *"Connection blocked by network allowlist"* ]]
	[[ "$output" == *"GET /after"* ]]
	grep -q '"verdict":"deny".*"reason":"host is not on the allow list"' "$T/log"
}

@test "CONNECT: allowed tunnel, denied with the reason in the status line" {
	settings "[\"127.0.0.1:$UP\"]" '["blocked.example.com"]' '"deniedDomainReasons": {"blocked.example.com": "no <way>\u0007 here"}'
	start_proxy
	run curl -sS -p -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/tunnelled"
	[ "$status" -eq 0 ]
	[[ "$output" == *"GET /tunnelled"* ]]
	# written when the proxy sees the tunnel close, maybe just after curl exits
	wait_grep '"protocol":"connect".*"verdict":"allow".*"status":200' "$T/log"
	run raw "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"
	[ "${lines[0]}" = $'HTTP/1.1 403 host is not on the allow list\r' ]
	[[ "$output" == *"X-Proxy-Error: blocked-by-allowlist"* ]]
	run raw "CONNECT blocked.example.com:443 HTTP/1.1\r\n\r\n"
	[ "${lines[0]}" = $'HTTP/1.1 403 no way  here\r' ]
	run raw "CONNECT nonsense HTTP/1.1\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
}

@test "CONNECT: bytes sent with the head are forwarded, half-close honoured" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run raw "CONNECT 127.0.0.1:$UP HTTP/1.1\r\n\r\nGET /early HTTP/1.1\r\nHost: x\r\n\r\n" \
	    --half-close --wait 5 --until-eof
	[ "$status" -eq 0 ]
	[[ "$output" == *"200 Connection Established"* ]]
	[[ "$output" == *"GET /early"* ]]
}

@test "dial failure is 502" {
	local dead
	dead=$(free_port)
	settings "[\"127.0.0.1:$dead\"]"
	start_proxy
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$dead/"
	[ "$output" = 502 ]
	[ "$(logfield verdict)" = error ]
	run raw "CONNECT 127.0.0.1:$dead HTTP/1.1\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 502 Bad Gateway"* ]]
}

@test "garbage, origin-form and oversized heads: 400, 400, 431" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run raw "\x16\x03\x01garbage\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 Bad Request"* ]]
	run raw "GET / HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 Bad Request"* ]]
	run raw "GET https://127.0.0.1:$UP/ HTTP/1.1\r\nHost: x\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 Bad Request"* ]]
	big="X-Big: $(head -c 40000 /dev/zero | tr '\0' a)"
	run raw "GET http://127.0.0.1:$UP/ HTTP/1.1\r\n$big\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 431 "* ]]
	[ ! -e "$T/up.log" ] || ! grep -q . "$T/up.log"
}

@test "ambiguous framing is refused and never reaches the upstream" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	local u="http://127.0.0.1:$UP"
	run raw "POST $u/clte HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "POST $u/dupcl HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "GET $u/fold HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "GET $u/barecr HTTP/1.1\r\nHost: x\rX-A: b\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "GET $u/barelf HTTP/1.1\nHost: x\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "POST $u/te HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "GET $u/space HTTP/1.1\r\nHost : x\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "G@T $u/method HTTP/1.1\r\nHost: x\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "GET $u/nul HTTP/1.1\r\nX-A: a\x00b\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 400 "* ]]
	run raw "POST $u/badchunk HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"
	[[ "$output" != *"200 OK"* ]]
	run cat "$T/up.log"
	[[ "$output" != *clte* && "$output" != *dupcl* && "$output" != *fold* ]]
	[[ "$output" != *barecr* && "$output" != *barelf* && "$output" != *"/te "* ]]
	[[ "$output" != *space* && "$output" != *method* && "$output" != *nul* ]]
}

@test "hop-by-hop fields are removed both ways and Host is rewritten" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run raw "GET http://127.0.0.1:$UP/hop HTTP/1.1\r\nHost: evil.example\r\nConnection: X-Secret, close\r\nX-Secret: 1\r\nKeep-Alive: 5\r\nProxy-Authorization: Basic Zm9vOmJhcg==\r\nProxy-Connection: keep-alive\r\nTE: trailers\r\nUpgrade: websocket\r\nX-Keep: yes\r\n\r\n"
	[[ "$output" == *"GET /hop"* ]]
	[[ "$output" == *"Host: 127.0.0.1:$UP"* ]]
	[[ "$output" == *"X-Keep: yes"* ]]
	[[ "$output" != *"evil.example"* ]]
	[[ "$output" != *"X-Secret"* && "$output" != *"Proxy-Auth"* && "$output" != *"TE: "* ]]
	[[ "$output" != *"Upgrade"* && "$output" != *"Proxy-Connection"* && "$output" != *"Keep-Alive: 5"* ]]
	# the upstream's own hop-by-hop fields are gone from the response
	[[ "$output" != *"X-Drop"* && "$output" != *"Keep-Alive: timeout"* ]]
}

@test "requireHostMatch: 421 when Host names another authority" {
	settings "[\"127.0.0.1:$UP\"]" '[]' '"requireHostMatch": true'
	start_proxy
	run raw "GET http://127.0.0.1:$UP/m HTTP/1.1\r\nHost: other.example\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 421 "* ]]
	[[ "$output" == *"Host header does not match the request target"* ]]
	run raw "GET http://127.0.0.1:$UP/ok HTTP/1.1\r\nHost: 127.0.0.1:$UP\r\nConnection: close\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 200 "* ]]
}

@test "--auth: 407 without the right credentials" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy --auth user:secret
	run curl -sS -D - -o /dev/null -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[[ "$output" == *"407 Proxy Authentication Required"* ]]
	[[ "$output" == *'Proxy-Authenticate: Basic realm="srt"'* ]]
	run curl -sS -o /dev/null -w '%{http_code}' --proxy-user user:wrong -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 407 ]
	run curl -sS -o /dev/null -w '%{http_code}' --proxy-user user:secret -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 200 ]
	run curl -sS -p --proxy-user user:secret -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/t"
	[[ "$output" == *"GET /t"* ]]
	! grep -q secret /proc/$HPID/cmdline
}

@test "--audit allows what the policy would deny and logs it" {
	settings '["example.com"]'
	start_proxy --audit
	run curl -sS -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/audited"
	[[ "$output" == *"GET /audited"* ]]
	[ "$(logfield verdict)" = audit-deny ]
	[ "$(logfield reason)" = "host is not on the allow list" ]
	run raw "GET http://bad%host/ HTTP/1.1\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 403 "* ]]
}

@test "SIGHUP reloads the policy; an open tunnel keeps working; a bad file is refused" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	python3 "$HC" tunnel "$PP" "127.0.0.1:$UP" "$T/tunnel-open" "$T/reloaded" \
	    "GET /still-open HTTP/1.1\r\nHost: x\r\n\r\n" "$T/tunnel-result" &
	local cpid=$!
	for _ in $(seq 300); do [ -e "$T/tunnel-open" ] && break; sleep 0.1; done
	[ -e "$T/tunnel-open" ]
	settings '["example.org"]'
	kill -HUP "$HPID"
	wait_grep "policy reloaded" "$T/err"
	touch "$T/reloaded"
	wait "$cpid"
	grep -q "GET /still-open" "$T/tunnel-result"
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 403 ]
	echo '{ bad json' >"$T/s.json"
	kill -HUP "$HPID"
	wait_grep "reload failed, keeping the current policy" "$T/err"
	kill -0 "$HPID"
}

@test "SIGHUP with --policy-fd: the narrowed proxy reads the policy again from its descriptor" {
	settings "[\"127.0.0.1:$UP\"]"
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	settings '["example.org"]'
	srt-policy compile -s "$T/s.json" -o "$T/deny.bin"
	srt-httpd --policy-fd 3 -l "127.0.0.1:$PP" --log "$T/log" 2>"$T/err" 3<"$T/p.bin" &
	HPID=$!
	wait_listening "$PP"
	# The listener is open before the proxy narrows itself: wait for the narrowing.
	wait_grep "Seccomp:.2" "/proc/$HPID/status"
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 200 ]
	# The same file, new contents: what the descriptor reads now.
	cat "$T/deny.bin" >"$T/p.bin"
	kill -HUP "$HPID"
	for _ in $(seq 50); do grep -q "policy reloaded" "$T/err" && break; sleep 0.1; done
	grep -q "policy reloaded" "$T/err"
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 403 ]
	kill -0 "$HPID"
}

@test "SIGHUP with -p: the file is reopened by a narrowed opener that ends with the proxy" {
	settings "[\"127.0.0.1:$UP\"]"
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	srt-httpd -p "$T/p.bin" -l "127.0.0.1:$PP" --log "$T/log" 2>"$T/err" &
	HPID=$!
	wait_listening "$PP"
	opener=$(pgrep -P "$HPID")
	[ -n "$opener" ]
	wait_grep "Seccomp:.2" "/proc/$opener/status"
	grep -q "NoNewPrivs:.1" "/proc/$opener/status"
	# It holds nothing of the proxy's: no listener, no log.
	[ "$(ls "/proc/$opener/fd" | sort -n | tr '\n' ' ')" = "0 1 2 3 " ]
	# A writer replaces the policy by rename; the reload reads the new one.
	settings '["example.org"]'
	srt-policy compile -s "$T/s.json" -o "$T/p.new"
	mv "$T/p.new" "$T/p.bin"
	kill -HUP "$HPID"
	for _ in $(seq 50); do grep -q "policy reloaded" "$T/err" && break; sleep 0.1; done
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 403 ]
	rm "$T/p.bin"
	kill -HUP "$HPID"
	for _ in $(seq 50); do grep -q "reload failed" "$T/err" && break; sleep 0.1; done
	grep -q "reload failed, keeping the current policy: $T/p.bin: No such file or directory" "$T/err"
	kill "$HPID"
	wait "$HPID" || true
	HPID=
	for _ in $(seq 50); do kill -0 "$opener" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$opener" 2>/dev/null
}

@test "SIGTERM drains and exits 0; lifeline EOF exits" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	# One request and one tunnel served before the signal.
	run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 200 ]
	run curl -sS -o /dev/null -w '%{http_code}' -p -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = 200 ]
	kill -TERM "$HPID"
	# 0, not 159 (SIGSYS): the exit path stays within the seccomp filter, sanitizer
	# builds included.
	local rc=0
	wait "$HPID" || rc=$?
	[ "$rc" -eq 0 ]
	HPID=
	# The lifeline's only writer is the test's end of a FIFO: once the test closes it,
	# the proxy sees EOF.
	mkfifo "$T/life"
	exec 8<>"$T/life"
	srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" --lifeline-fd 9 \
	    9<"$T/life" 8>&- 2>"$T/err" &
	HPID=$!
	wait_listening "$PP"
	kill -0 "$HPID"
	exec 8>&-
	for _ in $(seq 60); do kill -0 "$HPID" 2>/dev/null || break; sleep 0.1; done
	! kill -0 "$HPID" 2>/dev/null || return 1
	HPID=
}

@test "connection cap: past --max-conns a 503, then service again" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy --max-conns 1
	python3 "$HC" hold "$PP" "$T/held" "$T/release" &
	local cpid=$!
	for _ in $(seq 50); do [ -e "$T/held" ] && break; sleep 0.1; done
	sleep 0.2
	run raw "GET http://127.0.0.1:$UP/ HTTP/1.1\r\n\r\n"
	[[ "${lines[0]}" == "HTTP/1.1 503 "* ]]
	touch "$T/release"
	wait "$cpid"
	# Service again once the proxy has seen the held connection close.
	for _ in $(seq 100); do
		run curl -sS -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
		[ "$output" = 200 ] && break
		sleep 0.1
	done
	[ "$output" = 200 ]
}

# Past the cap the 503 must reach a client whose request was already sent when the proxy
# accepted it: closing with that request unread would reset the connection and lose it.
@test "connection cap: the 503 reaches clients that sent their request at once" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy --max-conns 1
	run python3 "$HC" burst "$PP" "$UP" 30
	echo "$output"
	[ "${lines[${#lines[@]}-1]}" = "good 30" ]
}

# Slowloris: a head that trickles in byte by byte must still be complete within
# --head-timeout of its first byte, on a new connection and on a kept-alive one.
@test "slowloris: a head sent one byte at a time gets 408 within --head-timeout" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy --head-timeout 2
	run python3 "$HC" trickle "$PP" "$UP"
	echo "$output"
	[ "${lines[0]}" = "new HTTP/1.1 408 Request Timeout eof True" ]
	[ "${lines[1]}" = "kept HTTP/1.1 408 Request Timeout eof True" ]
	grep '"status":408' "$T/log" | grep -q '"reason":"request head timed out"'
	# The idle wait between requests is not the head timeout: an idle connection stays.
	run python3 "$HC" idle "$PP" 3
	[ "$output" = open ]
}

# With a low descriptor limit the default cap leaves room for two sockets per connection
# and a small pipe budget: every tunnel the cap admits must move its bytes, those that
# find no pipe through user space.
@test "low descriptor limit: every tunnel up to the cap moves data both ways" {
	kill "$UPID"; wait "$UPID" 2>/dev/null || true; UPID=
	python3 "$HU" tcp-echo "$UP" 3>&- &
	UPID=$!
	wait_listening "$UP"
	settings "[\"127.0.0.1:$UP\"]"
	(ulimit -n 256 && exec srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" -d) \
	    2>"$T/err" 3>&- &
	HPID=$!
	for _ in $(seq 50); do grep -q 'ready:' "$T/err" && break; sleep 0.1; done
	n=$(sed -n 's/.*up to \([0-9]*\) connections.*/\1/p' "$T/err")
	echo "cap: $n"
	[ "$n" -ge 40 ]
	run python3 "$HC" tunnels "$PP" "$UP" "$n"
	echo "$output"
	[ "$output" = "ok $n bad 0 unfinished 0" ]
	# Once the tunnels are closed, the proxy is back to its listener and a few pipes.
	for _ in $(seq 100); do [ "$(ls /proc/$HPID/fd | wc -l)" -lt 64 ] && break; sleep 0.1; done
	[ "$(ls /proc/$HPID/fd | wc -l)" -lt 64 ]
}

@test "a malformed request on one connection does not disturb another" {
	settings "[\"127.0.0.1:$UP\"]"
	start_proxy
	run python3 "$HC" interleave "$PP" "$UP"
	[ "$status" -eq 0 ]
	[ "$output" = ok ]
}

@test "bad usage and bad settings exit 2 with a message" {
	run srt-httpd
	[ "$status" -eq 2 ]
	[[ "$output" == *"srt-httpd: exactly one of -p, -s or --policy-fd is required"* ]]
	echo '{' >"$T/bad.json"
	run srt-httpd -s "$T/bad.json" -l "127.0.0.1:$PP"
	[ "$status" -eq 2 ]
	[[ "$output" == srt-httpd:* ]]
	run srt-httpd -s "$T/bad.json" -l "127.0.0.1:notaport"
	[ "$status" -eq 2 ]
	run srt-httpd -V
	[ "$status" -eq 0 ]
}

# The resolved-address guard needs names that resolve to chosen addresses: run proxy,
# upstream and client in a private network and mount namespace with our own /etc/hosts.
@test "resolved-address guard (own netns, own /etc/hosts)" {
	command -v unshare >/dev/null && command -v ip >/dev/null || skip "unshare/ip missing"
	unshare -m -n true 2>/dev/null || skip "cannot create namespaces"
	kill "$UPID"; wait "$UPID" 2>/dev/null || true; UPID=
	cat >"$T/hosts" <<'HOSTS'
127.0.0.1 localhost
127.0.0.1 loop.srt.test
169.254.169.254 meta.srt.test
10.9.9.9 listed.srt.test
192.0.2.10 own.srt.test
::1 loop6.srt.test
127.0.0.1 app.localhost
HOSTS
	cat >"$T/inner.sh" <<'SH'
set -u
ip link set lo up
ip addr add 192.0.2.10/32 dev lo
mount --bind "$T/hosts" /etc/hosts
python3 "$HU" echo "$UP" "$T/up.log" & up=$!
for _ in $(seq 50); do python3 "$NETPROBE" open 127.0.0.1 "$UP" 2>/dev/null && break; sleep 0.1; done
run_proxy() {
	srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" 2>>"$T/err" & hp=$!
	for _ in $(seq 50); do python3 "$NETPROBE" open 127.0.0.1 "$PP" 2>/dev/null && break; sleep 0.1; done
}
c() { curl -sS -m 10 -x "http://127.0.0.1:$PP" -D - "$@" 2>&1; echo; }
cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": ["*.srt.test", "localhost", "app.localhost"], "deniedDomains": [],
  "deniedResolvedAddresses": ["10.9.0.0/16"]},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
run_proxy
echo "== loop"; c "http://loop.srt.test:$UP/x"
echo "== loop6"; c "http://loop6.srt.test:$UP/x"
echo "== meta"; c "http://meta.srt.test/x"
echo "== listed"; c "http://listed.srt.test/x"
echo "== own"; c "http://own.srt.test:$UP/x"
echo "== localhost"; c "http://localhost:$UP/lh"
echo "== applocal"; c "http://app.localhost:$UP/app"
echo "== connect"; python3 "$HC" send "$PP" "CONNECT loop.srt.test:$UP HTTP/1.1\r\n\r\n"; echo
kill $hp; wait $hp
cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": ["*.srt.test", "127.0.0.1:$UP"], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
run_proxy
echo "== carveout"; c "http://loop.srt.test:$UP/carve"
kill $hp; wait $hp
kill $up
SH
	run env T="$T" UP="$UP" PP="$PP" HU="$HU" HC="$HC" PATH="$PATH" unshare -m -n bash "$T/inner.sh"
	echo "$output"
	block() { awk "/^== $1\$/{f=1;next} /^== /{f=0} f" <<<"$output"; }
	[[ "$(block loop)" == *"403 Forbidden"* ]]
	[[ "$(block loop)" == *"X-Proxy-Error: blocked-by-sandbox-runtime"* ]]
	[[ "$(block loop)" == *"Connection to loop.srt.test blocked: resolved to a loopback address"* ]]
	[[ "$(block loop6)" == *"resolved to a loopback address"* ]]
	[[ "$(block meta)" == *"Connection to meta.srt.test blocked: resolved to a link-local address"* ]]
	[[ "$(block listed)" == *"resolved to a listed address"* ]]
	[[ "$(block own)" == *"resolved to one of this host's addresses"* ]]
	[[ "$(block localhost)" == *"GET /lh"* ]]
	[[ "$(block applocal)" == *"GET /app"* ]]
	[[ "$(block connect)" == *"HTTP/1.1 403 resolved to a loopback address"* ]]
	[[ "$(block connect)" == *"blocked-by-sandbox-runtime"* ]]
	[[ "$(block carveout)" == *"GET /carve"* ]]
	grep -q '"host":"loop.srt.test".*"verdict":"deny".*"reason":"Connection to loop.srt.test blocked' "$T/log"
}

# The proxy reads the hosts file once, before it narrows itself: it cannot open it later.
@test "the hosts file is read at start (own netns, own /etc/hosts)" {
	command -v unshare >/dev/null && command -v ip >/dev/null || skip "unshare/ip missing"
	unshare -m -n true 2>/dev/null || skip "cannot create namespaces"
	kill "$UPID"; wait "$UPID" 2>/dev/null || true; UPID=
	printf '127.0.0.1 localhost\n127.0.0.1 early.srt.test\n' >"$T/hosts"
	cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": ["*.srt.test", "127.0.0.1:$UP"], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
	cat >"$T/inner.sh" <<'SH'
set -u
ip link set lo up
mount --bind "$T/hosts" /etc/hosts
python3 "$HU" echo "$UP" "$T/up.log" & up=$!
for _ in $(seq 50); do python3 "$NETPROBE" open 127.0.0.1 "$UP" 2>/dev/null && break; sleep 0.1; done
run_proxy() {
	srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" 2>>"$T/err" & hp=$!
	for _ in $(seq 50); do python3 "$NETPROBE" open 127.0.0.1 "$PP" 2>/dev/null && break; sleep 0.1; done
}
c() { curl -sS -m 10 -x "http://127.0.0.1:$PP" -o /dev/null -w '%{http_code}\n' "$@" 2>&1; }
run_proxy
echo "early $(c "http://early.srt.test:$UP/x")"
echo '127.0.0.1 late.srt.test' >>"$T/hosts"
echo "late $(c "http://late.srt.test:$UP/x")"
kill $hp; wait $hp
run_proxy
echo "restarted $(c "http://late.srt.test:$UP/x")"
kill $hp; wait $hp
kill $up
SH
	run env T="$T" UP="$UP" PP="$PP" HU="$HU" HC="$HC" PATH="$PATH" unshare -m -n bash "$T/inner.sh"
	echo "$output"
	[[ "$output" == *"early 200"* ]]
	[[ "$output" == *"late 502"* ]]
	[[ "$output" == *"restarted 200"* ]]
	grep -q '"host":"late.srt.test".*"verdict":"error".*"reason":"lookup of late.srt.test failed' "$T/log"
}
