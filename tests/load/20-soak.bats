#!/usr/bin/env bats
# Soak: LOAD_SOAK_REQUESTS (default 1,000,000) plain HTTP requests through srt-httpd, 50 at a
# time, ten per keep-alive connection (so 100,000 connections are accepted and closed too),
# with the proxy's RSS sampled every 2 s. Every request must succeed, the RSS must not grow
# after the warm-up by more than LOAD_SOAK_GROWTH_KB (default 4 MiB), the peak must stay
# within 64 MiB, and the proxy's descriptors must come back to where they started.
# On this 2-core machine 1,000,000 requests take about 40 s.

load load

LOAD_SOAK_REQUESTS=${LOAD_SOAK_REQUESTS:-1000000}
LOAD_SOAK_GROWTH_KB=${LOAD_SOAK_GROWTH_KB:-4096}

@test "srt-httpd: $LOAD_SOAK_REQUESTS requests, no failure, RSS bounded, no descriptor leak" {
	local n=$LOAD_SOAK_REQUESTS cpid fds0 fds1 i
	load_settings
	start_upstream http http
	# The decision log of a million requests is ~450 MB: it goes to /dev/null here (the
	# lines are still built and written).
	PROXY_PORT=$(free_port)
	"$SRT_BIN/srt-httpd" -s "$T/s.json" -l "127.0.0.1:$PROXY_PORT" --log /dev/null \
		>"$T/httpd.out" 2>"$T/httpd.err" 3>&- &
	PROXY_PID=$!
	load_track "$PROXY_PID"
	wait_listening "$PROXY_PORT"
	sleep 0.2
	fds0=$(fd_count "$PROXY_PID")

	"$LOAD_CLIENT" -P "$PROXY_PORT" -U "$UP_PORT" -t 900 -k 10 requests "$n" 50 \
		>"$T/client.out" 2>"$T/client.err" 3>&- &
	cpid=$!
	load_track "$cpid"
	# One sample every 2 s while the client runs (bounded by its own -t 900).
	: >"$T/rss"
	for i in $(seq 1 460); do
		kill -0 "$cpid" 2>/dev/null || break
		proc_kb "$PROXY_PID" VmRSS >>"$T/rss"
		sleep 2
	done
	wait "$cpid" || true
	output=$(cat "$T/client.out")
	cat "$T/client.err"
	echo "# soak: $output" >&3
	[ "$(field ok)" = "$n" ]
	[ "$(field fail)" = 0 ]

	# Growth after the warm-up (the first fifth of the samples): the largest sample against
	# the first one after it.
	local ns warm base max hwm
	ns=$(wc -l <"$T/rss")
	[ "$ns" -ge 3 ]
	warm=$((ns / 5 + 1))
	base=$(sed -n "${warm}p" "$T/rss")
	max=$(tail -n +"$warm" "$T/rss" | sort -n | tail -1)
	hwm=$(proc_kb "$PROXY_PID" VmHWM)
	echo "# soak RSS: $ns samples, first $(head -1 "$T/rss") kB, after warm-up ${base} kB, max ${max} kB, last $(tail -1 "$T/rss") kB, VmHWM ${hwm} kB" >&3
	[ $((max - base)) -le "$LOAD_SOAK_GROWTH_KB" ]
	[ "$hwm" -le $((64 * 1024)) ]

	fds1=$(wait_fds_at_most "$PROXY_PID" "$fds0" 10)
	echo "# soak descriptors: $fds0 before, $fds1 after" >&3
	[ "$fds1" -le "$fds0" ]
	# Still serving.
	run "$LOAD_CLIENT" -P "$PROXY_PORT" -U "$UP_PORT" -t 30 requests 100 10
	[ "$status" -eq 0 ]
}
