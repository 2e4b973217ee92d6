#!/usr/bin/env bats
# The sandbox's own violations (issue #13): srt-seccomp's monitor reports what the
# sandbox refused by itself (a write the write guard or a read-only mount refused, a
# listing of a denied directory, a direct connection), srt-launch gathers the records
# into --violations FILE and srt's <sandbox_violations> block, with the proxies' denials.

bats_require_minimum_version 1.5.0
load helpers

setup() {
	srt_setup
	mkdir -p "$T/ws/sub" "$T/out" "$T/home" "$T/tmp"
	export HOME="$T/home" TMPDIR="$T/tmp" GIT_CONFIG_NOSYSTEM=1
	settings "$T/ws/s.json"
}

teardown() { srt_teardown; }

# settings FILE [EXTRA]: ws writable, ws/deny denied for writes, home/secret for reads.
settings() {
	cat >"$1" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/home/secret"],"allowWrite":["$T/ws"],
  "denyWrite":["$T/ws/deny"]}${2:+,$2}}
JSON
}

# The records of kind $2 in the violations file $1, one per line as "OP PATH (REASON)".
records() {
	python3 - "$1" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o["kind"] == sys.argv[2]:
        print("%s %s (%s)" % (o["operation"], o["path"], o["reason"]))
PY
}

@test "srt-seccomp alone: the monitor writes the same records to a descriptor" {
	mkdir -p "$T/w"
	run -0 bwrap --ro-bind / / --bind "$T/w" "$T/w" --dev /dev --proc /proc \
	    --unshare-pid --unshare-user --unshare-net --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP -- \
	    "$SRT_BIN/srt-seccomp" --violations-fd 3 -- sh -c "touch $T/w/ok; touch $T/out/no; mkdir $T/out/no2; mkdir $T/w/.git; true" \
	    3>"$T/v.jsonl"
	[ -e "$T/w/ok" ] && [ -d "$T/w/.git" ]
	run -0 records "$T/v.jsonl" file-write
	[ "$output" = "open $T/out/no (read-only file system)
mkdir $T/out/no2 (read-only file system)" ]
	# A descriptor not open for writing is refused before anything runs.
	run -125 "$SRT_BIN/srt-seccomp" --violations-fd 3 -- true 3<"$T/v.jsonl"
	[[ "$output" == *"--violations-fd 3: not open for writing"* ]]
}
