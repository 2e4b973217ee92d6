#!/usr/bin/env bats
# Faults around the launcher: a proxy killed while the sandboxed command uses it, and srt
# itself killed with SIGKILL. Nothing may hang, no process of the run may survive it, and no
# temp directory or placeholder may stay behind.

load load

setup() {
	srt_setup
	: >"$T/pids"
	[ -x "$LOAD_UPSTREAM" ] || skip "load helpers not built ($SRT_TESTBIN)"
	[ -x "$SRT_BIN/srt" ] || skip "srt not built"
	command -v curl >/dev/null || skip "curl missing"
	mkdir -p "$T/tmp" "$T/work"
}

# Every descendant of PID, one per line.
descendants() {
	local c
	for c in $(ps -o pid= --ppid "$1" 2>/dev/null); do
		echo "$c"
		descendants "$c"
	done
}

# The pids of $@ that still run (a zombie does not count).
alive() {
	local p st
	for p in "$@"; do
		st=$(awk '{ print $3 }' "/proc/$p/stat" 2>/dev/null) || continue
		[ -n "$st" ] && [ "$st" != Z ] && echo "$p"
	done
	return 0
}

# Wait at most SECONDS for srt (pid $1) to exit; its status in SRT_STATUS, or 255 if it
# did not (then it is killed).
wait_srt() {
	local pid=$1 secs=$2 i
	for i in $(seq 1 $((secs * 10))); do
		kill -0 "$pid" 2>/dev/null || break
		[ "$(alive "$pid")" = "" ] && break
		sleep 0.1
	done
	if [ -n "$(alive "$pid")" ]; then
		SRT_STATUS=255
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
		return 0
	fi
	wait "$pid"
	SRT_STATUS=$?
}

# Wait at most SECONDS until $2... (pids) are all gone; print the survivors.
wait_gone() {
	local secs=$1 i left
	shift
	for i in $(seq 1 $((secs * 10))); do
		left=$(alive "$@")
		[ -z "$left" ] && break
		sleep 0.1
	done
	echo $left
}

# Lines of $1 that match $2, counted (bounded wait until at least $3 appear).
wait_lines() {
	local file=$1 re=$2 want=$3 secs=$4 i
	for i in $(seq 1 $((secs * 10))); do
		[ "$(grep -cE "$re" "$file" 2>/dev/null)" -ge "$want" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "srt: srt-httpd killed while the command runs -> connection errors, a report, no hang" {
	start_upstream http http
	write_settings "$T/s.json" '["127.0.0.1"]'
	# The command: curl through the proxy in a loop, each line "before|after CODE STATUS",
	# "after" once the test has killed the proxy; five "after" lines end it.
	cat >"$T/cmd.sh" <<SH
i=0 n=0
while [ \$i -lt 300 ]; do
	i=\$((i + 1))
	phase=before
	[ -e "$T/killed" ] && phase=after && n=\$((n + 1))
	code=\$(curl -sS --max-time 5 --noproxy '' -x "\$HTTP_PROXY" -o /dev/null \
		-w '%{http_code}' "http://127.0.0.1:$UP_PORT/" 2>/dev/null)
	echo "\$phase \$code \$?"
	[ \$n -ge 5 ] && break
	sleep 0.1
done
exit 0
SH
	(cd "$T/work" && TMPDIR="$T/tmp" exec "$SRT_BIN/srt" -s "$T/s.json" -c "sh '$T/cmd.sh'" \
		>"$T/cmd.out" 2>"$T/srt.err" 3>&-) &
	local srt=$! httpd procs
	load_track "$srt"
	wait_lines "$T/cmd.out" '^before 200 0$' 3 30 || {
		cat "$T/cmd.out" "$T/srt.err"
		false
	}
	httpd=$(ps -o pid= -o comm= --ppid "$srt" | awk '$2 == "srt-httpd" { print $1 }')
	[ -n "$httpd" ]
	procs=$(descendants "$srt")
	kill -KILL "$httpd"
	touch "$T/killed"
	wait_srt "$srt" 60
	echo "srt status $SRT_STATUS"
	cat "$T/cmd.out"
	cat "$T/srt.err"
	# srt did not hang.
	[ "$SRT_STATUS" -ne 255 ]
	# The command saw connection errors (refused, reset or empty reply), not timeouts of
	# a listener nobody serves.
	[ "$(grep -c '^after ' "$T/cmd.out")" -ge 5 ]
	! grep -qE '^after 200 ' "$T/cmd.out" || return 1
	! grep -E '^after ' "$T/cmd.out" | grep -qvE '^after 000 (7|52|56)$' || return 1
	# srt reported it.
	grep -qE 'srt-httpd' "$T/srt.err"
	echo "# after the kill the command saw: $(grep '^after ' "$T/cmd.out" | cut -d' ' -f2- | sort | uniq -c | tr -s ' \n' ' ')" >&3
	echo "# srt said: $(grep srt-httpd "$T/srt.err" | head -2 | tr '\n' ' ')(exit $SRT_STATUS)" >&3
	# Nothing of the run is left.
	[ -z "$(wait_gone 5 $procs)" ]
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "srt: SIGKILL of srt leaves no process, no temp directory, no placeholder" {
	local marker="srt-load-marker-$$-$RANDOM" srt procs left before
	start_upstream http http
	cat >"$T/s.json" <<JSON
{
  "network": { "allowedDomains": ["127.0.0.1"], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": ["$T/work"], "denyWrite": ["$T/work/absent.txt"] }
}
JSON
	before=$(cd "$T/work" && find . | sort)
	# Proxies in use, a child that left the session, and the command waiting.
	(cd "$T/work" && TMPDIR="$T/tmp" exec "$SRT_BIN/srt" -d -s "$T/s.json" -c "
		curl -sS --max-time 5 --noproxy '' -x \"\$HTTP_PROXY\" -o /dev/null \
			-w '%{http_code}\n' http://127.0.0.1:$UP_PORT/
		setsid sh -c 'sleep 120; : $marker' &
		echo started
		sleep 120
		: $marker" >"$T/cmd.out" 2>"$T/srt.err" 3>&-) &
	srt=$!
	load_track "$srt"
	wait_lines "$T/cmd.out" '^started$' 1 30 || {
		cat "$T/cmd.out" "$T/srt.err"
		false
	}
	sleep 0.5
	procs="$(descendants "$srt") $(pgrep -f "$marker" | grep -vx "$srt")"
	echo "processes of the run: $procs"
	echo "# $(echo $procs | wc -w) processes of the run, e.g. $(for p in $procs; do cat /proc/$p/comm 2>/dev/null; done | sort | uniq -c | tr -s ' \n' ' ')" >&3
	# The run has what must be cleaned: a private TMPDIR, a placeholder, the proxies.
	grep -q '^200$' "$T/cmd.out"
	[ -n "$(ls -A "$T/tmp")" ]
	grep -q 'placeholder' "$T/srt.err"
	[ -e "$T/work/absent.txt" ]
	[ "$(echo $procs | wc -w)" -ge 4 ]

	kill -KILL "$srt"
	wait "$srt" 2>/dev/null || true
	left=$(wait_gone 5 $procs)
	for p in $left; do
		echo "left: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)"
	done
	[ -z "$left" ]
	[ -z "$(pgrep -f "$marker")" ]
	# Temp files and placeholders: the janitor may need a moment after the kill.
	for i in $(seq 1 50); do
		[ -z "$(ls -A "$T/tmp")" ] && [ "$(cd "$T/work" && find . | sort)" = "$before" ] && break
		sleep 0.1
	done
	ls -la "$T/tmp" "$T/work"
	[ -z "$(ls -A "$T/tmp")" ]
	[ "$(cd "$T/work" && find . | sort)" = "$before" ]
}
