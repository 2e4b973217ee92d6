#!/usr/bin/env bats
# `srt-policy plan --target linux` prints the arguments srt passes to bwrap, for the same
# settings, cwd, home and TMPDIR: the launcher only sends what lib's plan made
# (lib/sandbox/plan_linux_sandbox.c). bwrap-record, named as bwrapPath, stands in for bwrap: it
# records the words it was given (the --args contents in their place) and checks the
# descriptors they name, and runs nothing.
load ../helpers
bats_require_minimum_version 1.5.0

# Succeeds when the command fails ("! cmd" does not fail a bats test by itself).
not() {
	! "$@"
}

setup() {
	srt_setup
	REC="$SRT_TESTBIN/bwrap-record"
	[ -x "$REC" ] || { echo "bwrap-record not built: make $REC"; return 1; }
	mkdir -p "$T/ws/sub" "$T/ws/out" "$T/ws/.git/hooks" "$T/home/.ssh" "$T/home/.aws" \
	    "$T/tmp" "$T/other"
	: >"$T/ws/secret.txt"
	: >"$T/ws/sub/keep.txt"
	: >"$T/home/.ssh/id_test"
	export HOME="$T/home" TMPDIR="$T/tmp"
	cd "$T/ws"
}

teardown() {
	cd /
	srt_teardown
}

# settings FILE ROOT-FIELDS FILESYSTEM [NETWORK-FIELDS]: a settings file whose bwrap is
# the recorder; ROOT-FIELDS and NETWORK-FIELDS are extra JSON members (ending in ",").
settings() {
	cat >"$1" <<JSON
{ $2 "bwrapPath": "$REC",
  "network": { $4 "allowedDomains": [], "deniedDomains": [] },
  "filesystem": $3 }
JSON
}

# same_as_plan LAUNCH-WORDS -- PLAN-WORDS: run the launcher with LAUNCH-WORDS and the
# command "/bin/true the-command", then srt-policy plan --target linux with PLAN-WORDS
# and the run's TMPDIR: what bwrap received is the plan, then the command, byte for byte.
same_as_plan() {
	local launch=() plan=() tmp pt
	while [ "$1" != -- ]; do launch+=("$1"); shift; done
	shift
	plan=("$@")
	"${launch[@]}" /bin/true the-command >"$T/rec" 2>"$T/err" || true
	# bwrap-record exits 0 once it recorded and every descriptor checks out; srt then
	# fails (nothing ran): 125, "bwrap exited with status 0".
	grep -q "bwrap exited with status 0" "$T/err" || { cat "$T/err"; return 1; }
	# The run's private TMPDIR, gone again: made anew for the plan, which binds it
	# only when it exists (and not at all with filesystem.disabled).
	# (The plan is made for a stand-in directory and its name replaced: the run's own
	# is removed by its keeper, which may still be at it when srt has exited.)
	tmp=$(tr '\0' '\n' <"$T/rec" | grep -m1 -x "$(realpath "$T/tmp")/srt\.[A-Za-z0-9]*" || true)
	pt=$(realpath "$T")/plan-tmp.XXXXXX
	if [ -n "$tmp" ]; then
		mkdir "$pt"
		plan+=(--tmpdir "$pt")
	fi
	{ srt-policy "${plan[@]}"; printf '%s\0' /bin/true the-command; } |
	    if [ -n "$tmp" ]; then sed -z "s|${pt//./\\.}|$tmp|g"; else cat; fi >"$T/want"
	[ -z "$tmp" ] || rmdir "$pt"
	if ! cmp -s "$T/want" "$T/rec"; then
		diff <(tr '\0' '\n' <"$T/want") <(tr '\0' '\n' <"$T/rec") || true
		return 1
	fi
}

@test "plan = what srt passes to bwrap: reads, writes and their denies mixed, globs" {
	settings "$T/s.json" "" '{
	  "denyRead": ["~/.ssh", "secret.txt", "~/.aws/**"],
	  "allowRead": ["~/.ssh/id_test"],
	  "allowWrite": [".", "'"$T"'/other"],
	  "denyWrite": ["sub", "out/*.log", "~/.bashrc"] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	# the whole command line: namespaces, /proc and /dev, srt-seccomp and its options
	tr '\0' '\n' <"$T/rec" >"$T/words"
	grep -qx -- --unshare-pid "$T/words"
	grep -qx -- --dev "$T/words"
	grep -qx -- "$SRT_BIN/srt-seccomp" "$T/words"
	grep -qx -- --lifeline-fd "$T/words"
}

@test "plan = what srt passes to bwrap: a relative settings file, and a compiled policy" {
	settings "$T/ws/s.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }'
	same_as_plan srt -s s.json -- plan --target linux -s s.json
	# made absolute the same way, and kept read-only in the write root
	tr '\0' '\n' <"$T/rec" | grep -qx "$T/ws/s.json"
	srt-policy compile -s s.json -o "$T/ws/p.bin"
	same_as_plan srt-launch -p p.bin -- plan --target linux -p p.bin
	tr '\0' '\n' <"$T/rec" | grep -qx "$T/ws/p.bin"
}

@test "plan = what srt passes to bwrap: srt's own directory in a write root" {
	# The plan keeps the directory of the srt beside srt-policy read-only, as srt keeps
	# its own (lib/core/layout.c finds both).
	settings "$T/s.json" "" '{ "denyRead": [], "allowWrite": ["'"$SRT_BIN"'"], "denyWrite": [] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" | grep -A2 -x -- --ro-bind-try | grep -qx "$SRT_BIN"
}

@test "plan = what srt passes to bwrap: allowAllUnixSockets" {
	settings "$T/s.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }' \
	    '"allowAllUnixSockets": true,'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" | grep -qx -- --allow-unix-sockets
}

@test "plan = what srt passes to bwrap: filesystem.denyReadHold false" {
	settings "$T/s.json" "" '{ "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [], "denyReadHold": false }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" | grep -qx -- --no-read-hold
}

@test "plan = what srt passes to bwrap: enableWeakerNestedSandbox" {
	settings "$T/s.json" '"enableWeakerNestedSandbox": true,' \
	    '{ "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	# the host's /proc, and srt-seccomp nests even as root
	tr '\0' '\n' <"$T/rec" >"$T/words"
	grep -qx -- --bind "$T/words"
	not grep -qx -- --proc "$T/words"
	not grep -qx -- --pid1 "$T/words"
}

@test "plan = what srt passes to bwrap: allowNestedUserNamespaces" {
	settings "$T/s.json" '"allowNestedUserNamespaces": true,' \
	    '{ "denyRead": [], "allowWrite": [], "denyWrite": ["~"] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" | grep -qx -- --allow-nested-userns
}

@test "plan = what srt passes to bwrap: tlsTerminate's trust bundle and Java's trust store, read-only" {
	settings "$T/s.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }' \
	    '"tlsTerminate": {},'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	# bound read-only over themselves, in the run's TMPDIR (srt-launch/common/ca.c writes
	# them)
	tr '\0' '\n' <"$T/rec" | grep -A1 -x -- --ro-bind |
	    grep -qx "$(realpath "$T/tmp")/srt\.[A-Za-z0-9]*/srt-ca-bundle\.pem"
	tr '\0' '\n' <"$T/rec" | grep -A1 -x -- --ro-bind |
	    grep -qx "$(realpath "$T/tmp")/srt\.[A-Za-z0-9]*/srt-ca-bundle\.p12"
}

@test "plan = what srt passes to bwrap: the violation monitor's pipe, and noFsViolations" {
	settings "$T/s.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" >"$T/words"
	# (bwrap-record checked that 7 is a pipe's write end)
	grep -A1 -x -- --violations-fd "$T/words" | grep -qx 7
	grep -A1 -x -- --ro-bind-fd "$T/words" | grep -qx 8
	settings "$T/s.json" '"noFsViolations": true,' \
	    '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }'
	same_as_plan srt -s "$T/s.json" -- plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" >"$T/words"
	not grep -qx -- --violations-fd "$T/words"
	grep -A1 -x -- --ro-bind-fd "$T/words" | grep -qx 7
	# srt-launch --no-fs-violations, without the setting, hands over what the setting does
	settings "$T/s2.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }'
	srt-launch --no-fs-violations -s "$T/s2.json" /bin/true the-command >"$T/rec2" \
	    2>/dev/null || true
	tr '\0' '\n' <"$T/rec2" >"$T/words2"
	not grep -qx -- --violations-fd "$T/words2"
	grep -A1 -x -- --ro-bind-fd "$T/words2" | grep -qx 7
}

@test "plan = what srt passes to bwrap: filesystem.disabled" {
	settings "$T/ws/s.json" "" \
	    '{ "disabled": true, "denyRead": [], "allowWrite": [], "denyWrite": [] }'
	same_as_plan srt -s s.json -- plan --target linux -s s.json
}

@test "plan = what srt passes to bwrap: -d, and srt-launch --unguarded" {
	settings "$T/s.json" "" '{ "denyRead": [], "allowWrite": ["."], "denyWrite": [] }'
	same_as_plan srt -d -s "$T/s.json" -- -d plan --target linux -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" | grep -qx -- -d
	# -d shows the same words, shell-quoted, with the command
	line=$(grep -m1 "debug: bwrap arguments (the options through --args 4): " "$T/err")
	tmp=$(tr '\0' '\n' <"$T/rec" | grep -m1 -x "$(realpath "$T/tmp")/srt\.[A-Za-z0-9]*")
	pt=$(realpath "$T")/plan-tmp.XXXXXX
	mkdir "$pt"
	want=$(srt-policy -d plan --target linux -s "$T/s.json" --tmpdir "$pt" --shell)
	rmdir "$pt"
	want=${want//"$pt"/$tmp}
	[ "${line#*): }" = "$want /bin/true the-command" ]
	# no write guard: no --guard-fd, and srt-seccomp's descriptor takes its number
	same_as_plan srt-launch --unguarded -s "$T/s.json" -- \
	    plan --target linux --unguarded -s "$T/s.json"
	tr '\0' '\n' <"$T/rec" >"$T/words"
	not grep -qx -- --guard-fd "$T/words"
	grep -A1 -x -- --ro-bind-fd "$T/words" | grep -qx 6
}

@test "the recorder fails on a broken descriptor contract" {
	# It must be able to fail: an --args descriptor that is not open, a --ro-bind-fd
	# that is another file.
	run "$REC" --args 9 -- x
	[ "$status" -eq 1 ]
	[[ "$output" == *"--args 9: not open"* ]]
	run "$REC" --ro-bind-fd 5 /bin/sh /bin/sh 5</etc/hostname
	[ "$status" -eq 1 ]
	[[ "$output" == *"the descriptor is another file"* ]]
	run "$REC" --lifeline-fd 3 -- x 3</dev/null 4</dev/null
	[ "$status" -eq 1 ]
	[[ "$output" == *"descriptor 4 was handed over but no argument names it"* ]]
}
