# Shared by the load and fault suites (tests/load/*.bats, run by `make check-load`).
# Every process a test starts is recorded in $T/pids and killed by pid in teardown. All
# traffic stays on 127.0.0.1. Load generator and upstream: tests/helpers/load-client.c and
# tests/helpers/load-upstream.c.

: "${SRT_BUILD:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/build}"
load ../helpers

LOAD_CLIENT="$SRT_TESTBIN/load-client"
LOAD_UPSTREAM="$SRT_TESTBIN/load-upstream"

setup() {
	srt_setup
	: >"$T/pids"
	[ -x "$LOAD_CLIENT" ] && [ -x "$LOAD_UPSTREAM" ] ||
		skip "load helpers not built ($SRT_TESTBIN)"
}

teardown() {
	load_kill_all
	srt_teardown
}

# Remember a pid for teardown.
load_track() {
	echo "$1" >>"$T/pids"
}

# TERM every tracked process, then KILL what is left after 3 s.
load_kill_all() {
	local p i
	[ -f "${T:-}/pids" ] || return 0
	for p in $(cat "$T/pids"); do
		kill -TERM "$p" 2>/dev/null || true
	done
	for i in $(seq 1 30); do
		local alive=0
		for p in $(cat "$T/pids"); do
			kill -0 "$p" 2>/dev/null && alive=1
		done
		[ "$alive" = 0 ] && return 0
		sleep 0.1
	done
	for p in $(cat "$T/pids"); do
		kill -KILL "$p" 2>/dev/null || true
	done
	return 0
}

# Raise this shell's descriptor limit (soft to hard, hard to $1 when allowed); print the
# soft limit in force.
load_raise_nofile() {
	ulimit -Hn "$1" 2>/dev/null || true
	ulimit -Sn "$(ulimit -Hn)" 2>/dev/null || true
	ulimit -Sn
}

# start_upstream NAME MODE [ARGS]: a load-upstream in the background; sets UP_PORT.
start_upstream() {
	local name=$1 i
	shift
	"$LOAD_UPSTREAM" -t 1800 "$@" >"$T/$name.port" 2>"$T/$name.err" 3>&- &
	load_track $!
	for i in $(seq 1 50); do
		[ -s "$T/$name.port" ] && break
		sleep 0.1
	done
	UP_PORT=$(head -1 "$T/$name.port")
	[ -n "$UP_PORT" ] || { echo "upstream $name did not start" >&2; cat "$T/$name.err" >&2; return 1; }
}

# Settings that allow the upstreams on 127.0.0.1 (IP literals are dialled without the
# resolved-address guard).
load_settings() {
	write_settings "$T/s.json" '["127.0.0.1"]'
}

# start_proxy httpd|socksd [ARGS]: the proxy in the background with $T/s.json, its log
# in $T/PROG.log; sets PROXY_PID and PROXY_PORT.
start_proxy() {
	local prog=srt-$1
	shift
	PROXY_PORT=$(free_port)
	"$SRT_BIN/$prog" -s "$T/s.json" -l "127.0.0.1:$PROXY_PORT" --log "$T/$prog.log" "$@" \
		>"$T/$prog.out" 2>"$T/$prog.err" 3>&- &
	PROXY_PID=$!
	load_track "$PROXY_PID"
	wait_listening "$PROXY_PORT" || { echo "$prog did not start" >&2; cat "$T/$prog.err" >&2; return 1; }
}

# A field of /proc/PID/status in kB (VmRSS, VmHWM).
proc_kb() {
	awk -v f="$2:" '$1 == f { print $2 }' "/proc/$1/status"
}

# Open descriptors of PID.
fd_count() {
	ls "/proc/$1/fd" | wc -l
}

# field NAME: the value of NAME=... in the load-client line in $output.
field() {
	printf '%s\n' "$output" | grep -E '^mode=' | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'
}

# Poll until fd_count PID <= N, at most SECONDS; prints the last count.
wait_fds_at_most() {
	local pid=$1 n=$2 secs=$3 i c
	for i in $(seq 1 $((secs * 10))); do
		c=$(fd_count "$pid")
		[ "$c" -le "$n" ] && break
		sleep 0.1
	done
	echo "$c"
}
