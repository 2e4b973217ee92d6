#!/usr/bin/env bats
# Faults under load: upstreams that reset mid-stream, slowloris clients, clients that vanish.
# The proxy must report the broken exchange to its client, keep serving everyone else, time
# out the slow, and leak no descriptor.

load load

# Head timeout the slowloris tests allow: Node's HTTP server (which the reference proxy
# runs on) drops a client that has not sent a complete head within 60 s (headersTimeout),
# and srt-socksd gives a SOCKS handshake 30 s. Slack for the 1 s drip interval and load.
LOAD_HEAD_TIMEOUT_S=${LOAD_HEAD_TIMEOUT_S:-60}
SLOW_N=500

@test "srt-httpd: upstream reset mid-response -> the client sees an error, others are served" {
	load_settings
	start_upstream http http -b 65536
	start_proxy httpd
	local fds0
	fds0=$(fd_count "$PROXY_PID")
	# Healthy traffic alongside the resets.
	"$LOAD_CLIENT" -P "$PROXY_PORT" -U "$UP_PORT" -b 65536 -t 60 requests 2000 20 \
		>"$T/good.out" 2>"$T/good.err" 3>&- &
	local gpid=$!
	load_track "$gpid"
	run "$LOAD_CLIENT" -P "$PROXY_PORT" -U "$UP_PORT" -b 65536 -p /rst -t 30 requests 50 5
	echo "$output"
	# Every one failed, as a cut-off body (EOF before Content-Length) or a reset.
	[ "$(field ok)" = 0 ]
	[ $(($(field eof) + $(field reset))) -eq 50 ]
	wait "$gpid" || true
	output=$(cat "$T/good.out")
	echo "$output"
	cat "$T/good.err"
	[ "$(field ok)" = 2000 ]
	[ "$(field fail)" = 0 ]
	[ "$(wait_fds_at_most "$PROXY_PID" "$fds0" 10)" -le "$fds0" ]
}

rst_tunnel_run() {
	local prog=$1 x=$2
	load_settings
	start_upstream echo echo
	start_proxy "$prog"
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -m 'RST!' -t 30 tunnels 200
	echo "$output"
	[ "$(field ok)" = 0 ]
	[ $(($(field eof) + $(field reset) + $(field mismatch))) -eq 200 ]
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 30 tunnels 500
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(field ok)" = 500 ]
}

@test "srt-httpd: upstream reset inside CONNECT tunnels -> clients see it, new tunnels work" {
	rst_tunnel_run httpd http
}

@test "srt-socksd: upstream reset inside SOCKS tunnels -> clients see it, new tunnels work" {
	rst_tunnel_run socksd socks
}

# SLOW_N slowloris clients, one byte a second, never finishing; meanwhile normal clients
# must be served, and every slow one must be closed by the proxy within the head timeout.
slowloris_run() {
	local prog=$1 x=$2 up=$3 limit=$((LOAD_HEAD_TIMEOUT_S + 15))
	load_settings
	start_upstream "$up" "$up"
	start_proxy "$prog"
	"$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -i 1000 -t "$limit" slowloris "$SLOW_N" \
		>"$T/slow.out" 2>"$T/slow.err" 3>&- &
	local spid=$!
	load_track "$spid"
	sleep 3
	if [ "$up" = http ]; then
		run "$LOAD_CLIENT" -P "$PROXY_PORT" -U "$UP_PORT" -t 30 requests 2000 20
	else
		run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 30 tunnels 500
	fi
	echo "$output"
	[ "$status" -eq 0 ]
	wait "$spid" || true
	output=$(cat "$T/slow.out")
	echo "$output"
	echo "# srt-$prog slowloris: $output" >&3
	[ "$(field connect)" = 0 ]
	[ "$(field refused)" = 0 ]
	[ "$(field closed)" = "$SLOW_N" ]
	[ "$(field still_open)" = 0 ]
}

@test "srt-httpd: slowloris clients are timed out, the others are served meanwhile" {
	slowloris_run httpd http http
}

@test "srt-socksd: slowloris clients are timed out, the others are served meanwhile" {
	slowloris_run socksd socks echo
}

# Clients that go away mid-exchange (FIN or RST after half a request, RST on a tunnel with
# data in flight) must leave no descriptor behind. The first round warms up what the proxy
# keeps on purpose (its pool of splice pipes), the second is measured against it.
vanish_run() {
	local prog=$1 x=$2 fds0 fds1
	load_settings
	start_upstream echo echo
	start_proxy "$prog"
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 60 vanish 3000 100
	echo "$output"
	[ "$status" -eq 0 ]
	sleep 1
	fds0=$(wait_fds_at_most "$PROXY_PID" 0 3)
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 60 vanish 3000 100
	echo "$output"
	[ "$status" -eq 0 ]
	# Allow the pool to hold a few more pipes than after round one (4 fds per 2 pipes).
	fds1=$(wait_fds_at_most "$PROXY_PID" $((fds0 + 8)) 15)
	echo "# srt-$prog after 3000 vanished clients: $fds0 fds; after 3000 more: $fds1" >&3
	[ "$fds1" -le $((fds0 + 8)) ]
	# A leak would grow with every round: a third round must not go beyond either.
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 60 vanish 3000 100
	[ "$status" -eq 0 ]
	fds1=$(wait_fds_at_most "$PROXY_PID" $((fds0 + 8)) 15)
	[ "$fds1" -le $((fds0 + 8)) ]
	run "$LOAD_CLIENT" -x "$x" -P "$PROXY_PORT" -U "$UP_PORT" -t 30 tunnels 200
	[ "$status" -eq 0 ]
}

@test "srt-httpd: vanishing clients leave no descriptor behind" {
	vanish_run httpd http
}

@test "srt-socksd: vanishing clients leave no descriptor behind" {
	vanish_run socksd socks
}
