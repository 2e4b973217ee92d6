# Shared by every bats suite: load "helpers" at the top of a .bats file.
# SRT_BUILD is set by `make check` (build/ or build/san/); programs are in $SRT_BUILD/bin.

: "${SRT_BUILD:=$(cd "$BATS_TEST_DIRNAME/.." && pwd)/build}"
SRT_BIN="$SRT_BUILD/bin"
SRT_TESTBIN="$SRT_BUILD/tests"
SRT_DATA="$BATS_TEST_DIRNAME/data"
PATH="$SRT_BIN:$PATH"
export SRT_BUILD SRT_BIN SRT_TESTBIN SRT_DATA

# A fresh temp tree per test, removed afterwards. Suites that define their own setup call
# srt_setup / srt_teardown from it.
srt_setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-test.XXXXXX")
	export T
}

srt_teardown() {
	[ -n "${T:-}" ] && [ -d "$T" ] && rm -rf -- "$T"
	return 0
}

setup() { srt_setup; }
teardown() { srt_teardown; }

# A loopback TCP port that nothing listens on right now.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# Wait (up to 5 s) until something accepts connections on 127.0.0.1 port $1.
wait_listening() {
	local port=$1 i
	for i in $(seq 1 50); do
		(exec 9<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# Write a minimal valid settings file to $1, with optional allowedDomains JSON array in $2.
write_settings() {
	local f=$1 allowed=${2:-[]} denied=${3:-[]}
	cat >"$f" <<JSON
{
  "network": { "allowedDomains": $allowed, "deniedDomains": $denied },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] }
}
JSON
}

# wait_grep PATTERN FILE: wait (up to 10 s) for a line matching the extended regular
# expression PATTERN in FILE. For logs written when something ends (a tunnel's record is
# written when the proxy sees it close, which can be just after the client exits).
wait_grep() {
	local i
	for i in $(seq 100); do
		grep -qE -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for /$1/ in $2" >&2
	cat "$2" >&2 2>/dev/null
	return 1
}
