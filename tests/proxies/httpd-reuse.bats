#!/usr/bin/env bats
# srt-httpd: idle upstream connections kept for reuse (srt-httpd/pool.c). The upstream
# (tests/helpers/pool-upstream.py) numbers its connections and logs "CONN METHOD TARGET"
# per request, so each test can see which requests shared a connection.

load ../helpers
bats_require_minimum_version 1.5.0

setup() {
	srt_setup
	UP=$(free_port)
	PP=$(free_port)
	python3 "$BATS_TEST_DIRNAME/../helpers/pool-upstream.py" "$UP" "$T/up.log" 3>&- &
	UPID=$!
	wait_listening "$UP"
	HPID=
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\", \"localhost:$UP\"]"
	srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --log "$T/log" -d 2>"$T/err" 3>&- &
	HPID=$!
	for _ in $(seq 50); do grep -q 'ready:' "$T/err" && break; sleep 0.1; done
	grep -q 'ready:' "$T/err"
}

teardown() {
	[ -n "${HPID:-}" ] && kill "$HPID" 2>/dev/null
	[ -n "${UPID:-}" ] && kill "$UPID" 2>/dev/null
	wait 2>/dev/null
	srt_teardown
}

# GET (or -X METHOD ...) through the proxy, each call a new client connection.
get() { curl -sS -m 10 -x "http://127.0.0.1:$PP" "$@"; }
# The upstream connection number that served request line "$1 $2" (the last such).
conn_of() { awk -v m="$1" -v t="$2" '$2 == m && $3 == t { c = $1 } END { print c }' "$T/up.log"; }
fds() { find "/proc/$HPID/fd" -mindepth 1 -maxdepth 1 | wc -l; }

@test "requests from new client connections share one idle upstream connection" {
	for i in 1 2 3 4; do
		run -0 get "http://127.0.0.1:$UP/ka"
		[[ "$output" == "conn 1 GET /ka 0" ]]
	done
	run -0 get -I "http://127.0.0.1:$UP/ka"
	run -0 get -X OPTIONS "http://127.0.0.1:$UP/ka"
	run -0 get "http://127.0.0.1:$UP/chunked"
	run -0 get "http://127.0.0.1:$UP/ka"
	cat "$T/up.log"
	# Seven requests, one connection; the upstream saw no Connection field (HTTP/1.1
	# keep-alive) and the log has an allow line with status 200 for each.
	[ "$(wc -l <"$T/up.log")" -eq 8 ]
	[ "$(awk '$1 != 1' "$T/up.log" | wc -l)" -eq 0 ]
	[ "$(awk '$4 != "-"' "$T/up.log" | wc -l)" -eq 0 ]
	[ "$(grep -c '"verdict":"allow"' "$T/log")" -eq 8 ]
	[ "$(grep -c '"status":200' "$T/log")" -eq 8 ]
	grep -q 'over an idle connection' "$T/err"
}

@test "a request with a body, or another method, never goes over an idle connection" {
	run -0 get "http://127.0.0.1:$UP/ka"
	run -0 get -d 'abc' "http://127.0.0.1:$UP/ka"
	[[ "$output" == "conn 2 POST /ka 3" ]]
	run -0 get -X DELETE "http://127.0.0.1:$UP/ka"
	[[ "$output" == "conn 3 DELETE /ka 0" ]]
	run -0 get -X GET -H 'Content-Length: 2' -d 'xy' "http://127.0.0.1:$UP/ka"
	[[ "$output" == "conn 4 GET /ka 2" ]]
	# Each of them left its connection idle; a GET takes one of those.
	run -0 get "http://127.0.0.1:$UP/ka"
	[[ "$output" == "conn "[1-4]" GET /ka 0" ]]
}

@test "a connection is kept only after a clean exchange" {
	for t in close-hdr http10 extra extra-later eof-later; do
		run -0 get "http://127.0.0.1:$UP/$t"
		# Bytes that come after the connection went idle: the next request is sent
		# only once they have been written to the proxy.
		if [ "$t" = extra-later ]; then
			for _ in $(seq 50); do grep -q ' extra sent$' "$T/up.log" && break; sleep 0.1; done
			grep -q ' extra sent$' "$T/up.log"
		fi
		run -0 get -i "http://127.0.0.1:$UP/ka"
		echo "$t: $output"
		# The next request went over a connection of its own, and the bytes that
		# followed /extra's reply never reached anybody.
		[ "$(conn_of GET /ka)" -ne "$(conn_of GET "/$t")" ]
		[[ "$output" != *X-Smuggled* ]]
	done
	cat "$T/up.log"
	! grep -q dropped "$T/up.log"
}

@test "an idle connection closed under a request: the request is sent again, once" {
	run -0 get "http://127.0.0.1:$UP/drop-next"
	run -0 get "http://127.0.0.1:$UP/ka"
	cat "$T/up.log"
	[[ "$output" == "conn 2 GET /ka 0" ]]
	grep -qx '1 dropped GET /ka' "$T/up.log"
	grep -q 'was closed: dialling anew' "$T/err"
	[ "$(tail -1 "$T/log" | grep -c '"status":200')" -eq 1 ]
}

@test "a connection serves only the name it was dialled for, and not after a reload" {
	run -0 get "http://127.0.0.1:$UP/ka"
	run -0 get "http://localhost:$UP/ka"
	[[ "$output" == "conn 2 GET /ka 0" ]]
	run -0 get "http://localhost:$UP/ka"
	[[ "$output" == "conn 2 GET /ka 0" ]]
	kill -HUP "$HPID"
	for _ in $(seq 50); do grep -q 'policy reloaded' "$T/err" && break; sleep 0.1; done
	run -0 get "http://localhost:$UP/ka"
	[[ "$output" == "conn 3 GET /ka 0" ]]
	# A name the new policy denies gets its 403 before any connection is looked for.
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\"]"
	kill -HUP "$HPID"
	for _ in $(seq 50); do [ "$(grep -c 'policy reloaded' "$T/err")" -eq 2 ] && break; sleep 0.1; done
	run -0 get -o /dev/null -w '%{http_code}' "http://localhost:$UP/ka"
	[ "$output" = 403 ]
}

@test "idle connections are closed when the upstream closes them, after 4 s, and on SIGTERM" {
	local base
	base=$(fds)
	run -0 get "http://127.0.0.1:$UP/ka"
	[ "$(fds)" -eq $((base + 1)) ]
	# Closed by the upstream: the proxy notices and closes its end.
	run -0 get "http://localhost:$UP/eof-later"
	for _ in $(seq 100); do grep -q '^2 closed' "$T/up.log" && break; sleep 0.1; done
	for _ in $(seq 100); do [ "$(fds)" -eq $((base + 1)) ] && break; sleep 0.1; done
	[ "$(fds)" -eq $((base + 1)) ]
	# Idle for longer than 4 s: closed, and the upstream sees its EOF.
	sleep 4.2
	[ "$(fds)" -eq "$base" ]
	grep -qx '1 eof' "$T/up.log"
	# On SIGTERM the idle ones go at once and the proxy exits.
	run -0 get "http://127.0.0.1:$UP/ka"
	kill -TERM "$HPID"
	run -0 timeout 5 tail --pid="$HPID" -f /dev/null
	HPID=
	for _ in $(seq 20); do grep -qx '3 eof' "$T/up.log" && break; sleep 0.1; done
	grep -qx '3 eof' "$T/up.log"
}
