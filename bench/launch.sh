#!/usr/bin/env bash
# Launch cost: `srt -c true` against bare `bwrap --unshare-all ... true`, interleaved in
# the same run, medians (target: at most 1.5 times the baseline), and the peak memory of the
# launcher and both proxies together while a command uses them (target: at most 8 MiB).
# Usage: bench/launch.sh [RUNS]   (SRT_BUILD: the build directory, default ./build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SRT_BUILD:-$here/build}/bin
runs=${1:-30}
command -v bwrap >/dev/null || { echo "launch: bwrap not found" >&2; exit 1; }
[ -x "$bin/srt" ] || { echo "launch: $bin/srt not built" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "launch: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/srt-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cwd" "$work/home"
cat > "$work/s.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
cd "$work/cwd"
export HOME="$work/home"

base_cmd() { bwrap --unshare-all --ro-bind / / --dev /dev --proc /proc true; }
srt_cmd() { "$bin/srt" -s "$work/s.json" -c true; }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# warm up the caches once each, then interleave so that both see the same load; the
# medians resist the outliers a shared machine produces
base_cmd; srt_cmd
: > "$work/base" ; : > "$work/srt"
# A pause after each command, outside the timing: what a command leaves running after it
# exits (srt's keeper tidying up, the kernel tearing a namespace down) must not land on
# the next command's clock.
for i in $(seq "$runs"); do
	# microseconds, read without forking: date(1) or $(...) would add a process
	# launch of their own to every sample
	t0=${EPOCHREALTIME/[.,]/}; base_cmd
	t1=${EPOCHREALTIME/[.,]/}
	sleep 0.05
	t2=${EPOCHREALTIME/[.,]/}; srt_cmd
	t3=${EPOCHREALTIME/[.,]/}
	sleep 0.05
	echo $((t1 - t0)) >> "$work/base"
	echo $((t3 - t2)) >> "$work/srt"
done
mb=$(median < "$work/base") ms=$(median < "$work/srt")
ratio=$(awk -v s="$ms" -v b="$mb" 'BEGIN { printf "%.2f", s / b }')
echo "launch: median of $runs: bare bwrap ${mb} us, srt -c true ${ms} us, ratio ${ratio}x" \
    "(target <= 1.5x; load average $(cut -d' ' -f1-3 /proc/loadavg))"

# Peak RSS (VmHWM) of srt and of the proxies it started, sampled while the command,
# having used both proxies, waits for the sample to be taken. The command can write only
# to its private TMPDIR, made under ours.
export TMPDIR="$work/t"
mkdir -p "$TMPDIR"
"$bin/srt" -s "$work/s.json" -c 'curl -s -m 5 -x http://localhost:3128 http://a.example/ >/dev/null
    curl -s -m 5 -x socks5h://localhost:1080 http://b.example/ >/dev/null
    : > "$TMPDIR/used"; sleep 2' 2>/dev/null &
pid=$!
for i in $(seq 200); do
	ls "$TMPDIR"/srt.*/used >/dev/null 2>&1 && break
	sleep 0.05
done
total=0 parts=""
for p in $pid $(pgrep -P "$pid" -f 'srt-(httpd|socksd)' || true); do
	kb=$(awk '/^VmHWM:/ { print $2 }' "/proc/$p/status" 2>/dev/null || true)
	name=$(tr '\0' '\n' < "/proc/$p/cmdline" 2>/dev/null | head -1 | sed 's|.*/||')
	total=$((total + ${kb:-0}))
	parts="$parts ${name:-?}=${kb:-?}KiB"
done
wait "$pid" || true
echo "launch: peak memory of launcher and proxies: $((total / 1024)).$(((total % 1024) * 10 / 1024)) MiB (${parts# }) (target <= 8 MiB)"
