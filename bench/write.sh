#!/usr/bin/env bash
# What the write guard costs (issue #10): write-heavy work inside srt with the cwd
# writable, guarded (every write-intent system call goes through srt-seccomp's
# supervisor) against the same run with --unguarded (today's mounts alone), and
# `srt -c true` the same way. Targets: at most 1.2x for the write-heavy runs, at most
# 1.1x for `srt -c true`.
#
# Each workload runs in pairs, unguarded then guarded, with fresh output directories
# made and removed outside the timing; the ratio is taken per pair and the median of
# the ratios is reported with its spread (the lowest and highest quarter), since this
# machine is shared and its load moves between pairs more than within one.
#
# Usage: bench/write.sh [PAIRS]   (SRT_BUILD: the build directory, default ./build)
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${SRT_BUILD:-$here/build}/bin
pairs=${1:-9}
[ -x "$bin/srt-launch" ] || { echo "write: $bin/srt-launch not built" >&2; exit 1; }
command -v git >/dev/null || { echo "write: git not found" >&2; exit 1; }
[ -n "${EPOCHREALTIME:-}" ] || { echo "write: needs bash 5 (EPOCHREALTIME)" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/srt-bench-write.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/cwd" "$work/home" "$work/data"
export HOME="$work/home" GIT_CONFIG_NOSYSTEM=1
cat > "$work/s.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$work/cwd"],"denyWrite":[]}}
JSON

# The data: 20,000 files of 100 bytes in 200 directories, as a tar archive; a git
# repository of 5,000 files in 50 directories, one commit.
python3 - "$work/data" <<'PY'
import os, sys
d = sys.argv[1]
for n, count in (("tree", 20000), ("repo", 5000)):
    per = 100
    for i in range(count):
        sub = os.path.join(d, n, "d%03d" % (i // per))
        os.makedirs(sub, exist_ok=True)
        with open(os.path.join(sub, "f%05d.txt" % i), "w") as f:
            f.write(("%d " % i).ljust(99, "x") + "\n")
PY
tar -C "$work/data" -cf "$work/data/tree.tar" tree
rm -rf "$work/data/tree"
git -C "$work/data/repo" init -q
git -C "$work/data/repo" add -A
git -C "$work/data/repo" -c user.name=b -c user.email=b@b commit -qm data

launch() {      # launch GUARD(0|1) COMMAND
	local g=$1
	shift
	if [ "$g" = 1 ]; then
		"$bin/srt-launch" -s "$work/s.json" -c "$*"
	else
		"$bin/srt-launch" --unguarded -s "$work/s.json" -c "$*"
	fi
}

untar() { launch "$1" "tar -C $work/cwd/out -xf $work/data/tree.tar"; }
clone() { launch "$1" "git clone -q --no-hardlinks $work/data/repo $work/cwd/out/c"; }
true_cmd() { launch "$1" true; }

# One workload: PAIRS pairs, the output directory fresh for each run, outside the clock.
measure() {
	local name=$1 fn=$2 i g t0 t1 base guard
	: > "$work/ratios"
	: > "$work/times"
	$fn 1 >/dev/null 2>&1 || true          # warm caches; and a guarded run must work
	rm -rf "$work/cwd/out"
	for i in $(seq "$pairs"); do
		for g in 0 1; do
			mkdir -p "$work/cwd/out"
			t0=${EPOCHREALTIME/[.,]/}
			$fn "$g" >/dev/null
			t1=${EPOCHREALTIME/[.,]/}
			rm -rf "$work/cwd/out"
			if [ "$g" = 0 ]; then base=$((t1 - t0)); else guard=$((t1 - t0)); fi
		done
		echo "$base $guard" >> "$work/times"
		awk -v a="$base" -v b="$guard" 'BEGIN { printf "%.4f\n", b / a }' >> "$work/ratios"
	done
	sort -n "$work/ratios" | awk -v name="$name" -v pairs="$pairs" '
	    { r[NR] = $1 }
	    END {
		q1 = r[int((NR + 3) / 4)]; med = r[int((NR + 1) / 2)]; q3 = r[int((3 * NR + 3) / 4)]
		printf "write: %-12s median ratio %.2fx of %d pairs (quartiles %.2f-%.2f, range %.2f-%.2f)", name, med, pairs, q1, q3, r[1], r[NR]
	    }'
	awk '{ a += $1; b += $2 } END { printf "; mean %.0f ms unguarded, %.0f ms guarded\n", a / NR / 1000, b / NR / 1000 }' "$work/times"
}

measure "untar 20000" untar
measure "clone 5000" clone
measure "srt -c true" true_cmd
echo "write: targets: untar and clone <= 1.2x, srt -c true <= 1.1x" \
    "(load average $(cut -d' ' -f1-3 /proc/loadavg))"
