# Shared by the escape battery (tests/security/*.bats): load "helpers" at the top.
# Every attempt runs inside srt and must be refused; the probe (escape-probe, try-syscall)
# says BLOCKED or ESCAPED, and where the outside world could show the effect (a file on
# the host, a server log, a signal received) the test looks there too.

: "${SRT_BUILD:=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/build}"
load ../helpers
bats_require_minimum_version 1.5.0

SRT="$SRT_BIN/srt"
PROBE="$SRT_TESTBIN/escape-probe"
TRY="$SRT_TESTBIN/try-syscall"
SECDIR="$BATS_TEST_DIRNAME"
# The system python: a per-user shim (pyenv) may want to write where the sandbox forbids.
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)
# What the tests run with "$PY" inside (and a few checks outside): see each one's usage.
MODEOP="$SECDIR/mode-op.py"
FDP="$SECDIR/fd-probe.py"
GUARDOPS="$SRT_TESTDIR/helpers/guard-ops.py"
READOPS="$SRT_TESTDIR/helpers/read-ops.py"
FASTWAY="$SRT_TESTDIR/helpers/fast-way.py"
export SRT PROBE TRY SECDIR PY MODEOP FDP GUARDOPS READOPS FASTWAY

setup() {
	srt_setup
	# Resolved so that paths match what srt sees after realpath.
	T=$(cd "$T" && pwd -P)
	mkdir -p "$T/work"
	: >"$T/pids"
	MARK=$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')
	SECRET="SRT-SECRET-$MARK"
	export T MARK SECRET
}

teardown() {
	local pid
	if [ -f "$T/pids" ]; then
		while read -r pid; do
			[ -n "$pid" ] && kill "$pid" 2>/dev/null
		done <"$T/pids"
	fi
	# System V segments a test made (they outlive their creator).
	if [ -f "$T/shmids" ]; then
		while read -r pid; do
			[ -n "$pid" ] && ipcrm -m "$pid" 2>/dev/null
		done <"$T/shmids"
	fi
	srt_teardown
}

# The program under test must exist; anything else missing is a broken build.
need_srt() {
	[ -x "$SRT" ] || skip "srt is not built ($SRT missing)"
	[ -x "$PROBE" ] || { echo "escape-probe missing: $PROBE" >&2; return 1; }
	[ -x "$TRY" ] || { echo "try-syscall missing: $TRY" >&2; return 1; }
	command -v bwrap >/dev/null || { echo "bwrap not installed" >&2; return 1; }
}

# Settings in $T/srt.json: $1 allowedDomains, $2 deniedDomains, $3 denyRead, $4 allowWrite,
# $5 denyWrite (JSON arrays), $6 extra top-level members (",\"k\": v", may be empty),
# $7 extra network members (same form).
sec_settings() {
	cat >"${SETTINGS:-$T/srt.json}" <<JSON
{
  "network": { "allowedDomains": ${1:-[]}, "deniedDomains": ${2:-[]}${7:-} },
  "filesystem": { "denyRead": ${3:-[]}, "allowWrite": ${4:-[]}, "denyWrite": ${5:-[]} }${6:-}
}
JSON
}

# Runs STRING under srt with $T/srt.json from $T/work, bounded in time; sets $status/$output.
in_srt() {
	run bash -c 'cd "$T/work" && exec timeout 30 "$SRT" -s "${SETTINGS:-$T/srt.json}" -c "$1" </dev/null' _ "$1"
}

# Asserts one probe verdict: srt ran the command (status 0) and it said BLOCKED. On an
# ESCAPED line the test fails with that line, which names what got through.
assert_blocked() {
	echo "srt status $status, output:" >&2
	printf '%s\n' "$output" >&2
	# Not anchored: on a terminal, an injected byte may precede the verdict.
	if grep -q 'ESCAPED ' <<<"$output"; then
		return 1
	fi
	[ "$status" -eq 0 ]
	grep -q 'BLOCKED' <<<"$output"
}

# Runs one escape-probe inside srt and asserts it was blocked.
probe_blocked() {
	local q="" a
	for a in "$@"; do
		q+=" $(printf '%q' "$a")"
	done
	in_srt "$(printf '%q' "$PROBE")$q"
	assert_blocked
}

# Starts an outside process labelled with $MARK (target.py); sets TPID, records it for
# teardown. The probes are given the marker with a '+' inside (see escape-probe.c).
target_start() {
	"$PY" "$SECDIR/target.py" "tgt$MARK" "$T/target.sig" "$T/target.pid" \
		</dev/null >/dev/null 2>&1 3>&- &
	echo $! >>"$T/pids"
	wait_file "$T/target.pid"
	TPID=$(cat "$T/target.pid")
	TMARK="tgt+$MARK"
}

# Waits up to 10 s for a file to appear.
wait_file() {
	local i
	for i in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.1
	done
	echo "timed out waiting for $1" >&2
	return 1
}

# Runs the script in $1 inside a network and mount namespace of its own
# (tests/helpers/netns.sh battery): loopback up, test addresses on it, $T/hosts over
# /etc/hosts, servers started there. Nothing it does reaches the host's network. Sets
# $status/$output.
in_netns() {
	run timeout 90 unshare -m -n -- bash "$SECDIR/../helpers/netns.sh" battery "$1"
}
