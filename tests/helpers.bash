# Shared by every bats suite: load "../helpers" at the top of a .bats file (the suites
# are in tests/TOPIC/). SRT_BUILD is set by `make check` (build/ or build/san/); programs
# are in $SRT_BUILD/bin. SRT_TESTDIR is tests/ itself, found from this file, not from the
# suite's directory.

SRT_TESTDIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${SRT_BUILD:=$(cd "$SRT_TESTDIR/.." && pwd)/build}"
SRT_BIN="$SRT_BUILD/bin"
SRT_TESTBIN="$SRT_BUILD/tests"
SRT_DATA="$SRT_TESTDIR/data"
NETPROBE="$SRT_TESTDIR/helpers/netprobe.py"   # open, v6, hold, send: see its usage
JSONL="$SRT_TESTDIR/helpers/jsonl.py"         # field, valid, print: see its usage
PATH="$SRT_BIN:$PATH"
export SRT_TESTDIR SRT_BUILD SRT_BIN SRT_TESTBIN SRT_DATA NETPROBE JSONL

# A fresh temp tree per test, removed afterwards. Suites that define their own setup call
# srt_setup / srt_teardown from it.
srt_setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-test.XXXXXX")
	export T
	# srt remembers there which managed-policy warnings it has shown (srt(1)): each
	# test starts with none shown, and nothing is written to the user's home.
	export XDG_STATE_HOME="$T/state"
}

srt_teardown() {
	[ -n "${T:-}" ] && [ -d "$T" ] && rm -rf -- "$T"
	return 0
}

setup() { srt_setup; }
teardown() { srt_teardown; }

# A loopback TCP port that nothing listens on right now.
free_port() {
	python3 "$SRT_TESTDIR/helpers/free-ports.py" one
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

# signal_before_sandbox SIG CMD...: runs CMD... -c 'sleep 30; : TOKEN' (srt or srt-launch
# with its options, behind any wrapper that executes it) with bwrap held just before it
# reports its child's pid (tests/preload/hold-bwrap.c), sends srt SIG in that window,
# and checks what must follow: srt exits 128+N within 5 s without spinning, a reader of
# its standard output sees EOF, and no process of the run is left (any leftover is shown,
# killed by pid, and fails the check). srt is found as the held bwrap's parent.
signal_before_sandbox() {
	local sig=$1 num token d held out rc bw launcher reader run i left
	shift
	num=$(kill -l "$sig")
	token="srt-early-signal-$sig-$$-$RANDOM"
	d=$(mktemp -d "$T/early.XXXXXX")
	chmod 777 "$d"
	held=$d/held out=$d/out
	mkfifo -m 666 "$out"
	timeout 15 cat "$out" >/dev/null &
	reader=$!
	(
		export SRT_TEST_HOLD_BWRAP=$held LD_PRELOAD=$SRT_TESTBIN/hold-bwrap.so \
		    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
		TIMEFORMAT='%3U %3S'
		rc=0
		{ time "$@" -c "sleep 30; : $token" >"$out" 2>"$d/err"; } 2>"$d/cpu" || rc=$?
		echo "$rc" >"$d/rc"
	) &
	run=$!
	for i in $(seq 200); do [ -s "$held" ] && break; sleep 0.05; done
	read -r bw <"$held" 2>/dev/null || {
		echo "bwrap was never held" >&2
		cat "$d/err" >&2
		for i in $(pgrep -f -- "$token") $reader; do kill -KILL "$i"; done
		return 1
	}
	launcher=$(awk '/^PPid:/ { print $2 }' "/proc/$bw/status")
	echo "bwrap $bw held, srt $launcher: SIG$sig" >&2
	[ "$(cat "/proc/$launcher/comm")" = srt ] || [ "$(cat "/proc/$launcher/comm")" = srt-launch ]
	kill -"$sig" "$launcher"
	for i in $(seq 50); do kill -0 "$run" 2>/dev/null || break; sleep 0.1; done
	for i in $(seq 50); do kill -0 "$reader" 2>/dev/null || break; sleep 0.1; done
	for i in $(seq 50); do pgrep -f -- "$token" >/dev/null || break; sleep 0.1; done
	left=$(pgrep -f -- "$token" | tr '\n' ' ')
	if [ -n "$left" ] || kill -0 "$run" 2>/dev/null || kill -0 "$reader" 2>/dev/null; then
		echo "left behind after SIG$sig (srt $launcher, reader $reader):" >&2
		ps -o pid,ppid,stat,pcpu,wchan:20,cmd -p "${left// /,}$launcher,$reader" >&2
		for i in $left $launcher $reader; do kill -KILL "$i" 2>/dev/null; done
		wait "$run" "$reader" 2>/dev/null
		return 1
	fi
	wait "$reader" || { echo "the reader of srt's output did not see EOF" >&2; return 1; }
	wait "$run" || true
	rc=$(cat "$d/rc")
	echo "srt exited $rc, CPU (user, system): $(cat "$d/cpu")" >&2
	cat "$d/err" >&2
	[ "$rc" -eq $((128 + num)) ]
	awk '{ exit !($1 + $2 < 1) }' "$d/cpu"
}

# --- Wine (tests/windows/*-wine.bats) ----------------------------------------------------
# Debian's wine64 and its server, where they are.
wine_bin() {
	command -v wine64 2>/dev/null || { [ -x /usr/lib/wine/wine64 ] && echo /usr/lib/wine/wine64; }
}

wineserver_bin() {
	command -v wineserver 2>/dev/null || { [ -x /usr/lib/wine/wineserver64 ] &&
	    echo /usr/lib/wine/wineserver64; }
}

# A Wine prefix of the test file's own, in its temp dir, never the host's.
# Wine turns a Unix argument into UTF-16 by the locale's character set: a UTF-8 one, or
# a non-ASCII name (tests/windows/paths-wine.bats) reaches the program mangled (CI runs
# under env -i, no LANG).
wine_prefix() {
	export WINEPREFIX="$BATS_FILE_TMPDIR/prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
	export LC_ALL=C.UTF-8
	unset DISPLAY WAYLAND_DISPLAY
}

# A network namespace with loopback only, held by a sleeper; NS is the command prefix
# that enters it (and NSPID the sleeper), both empty where the host allows none. Wine
# makes sockets in its server, so the server must start in there: what a Wine program
# then dials can reach loopback only. With HOSTS, a mount namespace too, where that file
# is /etc/hosts.
wine_netns() {
	local hosts=${1:-}
	NS= NSPID=
	if [ -n "$hosts" ]; then
		unshare -n -m true 2>/dev/null || return 0
		unshare -n -m --propagation private sh -c 'mount --bind "$1" /etc/hosts &&
		    ip link set lo up && exec sleep 3600' sh "$hosts" </dev/null >/dev/null 2>&1 &
		NSPID=$!
		NS="nsenter --net=/proc/$NSPID/ns/net --mount=/proc/$NSPID/ns/mnt"
	else
		unshare -n true 2>/dev/null || return 0
		unshare -n sh -c 'ip link set lo up && exec sleep 3600' </dev/null >/dev/null 2>&1 &
		NSPID=$!
		NS="nsenter --net=/proc/$NSPID/ns/net"
	fi
	# Joined once lo is up in it.
	for _ in $(seq 1 50); do
		$NS ip -o link show lo 2>/dev/null | grep -q UP && break
		sleep 0.1
	done
}

# teardown_file: the prefix's server stopped (in its namespace), the sleeper ended.
wine_stop() {
	[ -n "${WINESERVER_BIN:-}" ] && [ -n "${WINEPREFIX:-}" ] && ${NS:-} "$WINESERVER_BIN" -k 2>/dev/null
	[ -n "${NSPID:-}" ] && kill "$NSPID" 2>/dev/null
	return 0
}
