#!/usr/bin/env bats
# srt-policy plan --target macos: the Seatbelt profile, rule for rule the reference's.
#
# tests/data/macos/ holds settings files (NAME.json, the fixture's path written @ROOT@)
# and the profile the reference printed for each (NAME.sb, regen.sh), generated in the
# tree fixture.sh builds. Here the same tree is built under a fresh /tmp/srtmacXXXXXX
# (the goldens name /tmp as an ancestor of the tree), srt prints its profile, and both are
# read with the strict reader (sbpl-rules): each must be well-formed, and their rules
# (action, operations, filter; log messages aside) must be the same, in the same order.
load ../helpers
bats_require_minimum_version 1.5.0

MAC="$BATS_TEST_DIRNAME/../data/macos"

setup() {
	srt_setup
	[ "$(cd /tmp && pwd -P)" = /tmp ] || skip "/tmp is a link here; the goldens need a real /tmp"
	R=$(mktemp -d /tmp/srtmacXXXXXX)
	"$MAC/fixture.sh" "$R"
	mkdir "$R/settings"
}

teardown() {
	[ -n "${R:-}" ] && [ -d "$R" ] && rm -rf -- "$R"
	srt_teardown
}

# srt's profile for case $1 from directory $2 into $R/$1.srt.sb
srt_profile() {
	sed "s|@ROOT@|$R|g" "$MAC/$1.json" >"$R/settings/$1.json"
	HOME="$R/home" srt-policy plan --target macos -s "$R/settings/$1.json" \
	    --cwd "$R/$2" >"$R/$1.srt.sb"
}

# Both profiles of case $1 as rule lines; the reference's with the tree's path put back.
rules_of_case() {
	sed "s|@ROOT@|$R|g" "$MAC/$1.sb" >"$R/$1.ref.sb"
	"$SRT_TESTBIN/sbpl-rules" "$R/$1.ref.sb" >"$R/$1.ref.rules"
	"$SRT_TESTBIN/sbpl-rules" "$R/$1.srt.sb" >"$R/$1.srt.rules"
}

@test "every golden case: srt's profile is well-formed and has the reference's rules" {
	local name cwd n=0 bad=""
	while read -r name cwd; do
		case "$name" in '' | '#'*) continue ;; esac
		n=$((n + 1))
		if ! srt_profile "$name" "$cwd" || ! rules_of_case "$name"; then
			bad="$bad $name(error)"
			continue
		fi
		if ! diff -u "$R/$name.ref.rules" "$R/$name.srt.rules" >"$R/$name.diff"; then
			bad="$bad $name"
			echo "--- $name: reference / +++ srt" >&3
			head -40 "$R/$name.diff" >&3
		fi
	done <"$MAC/cases"
	[ "$n" -ge 12 ]
	[ -z "$bad" ] || { echo "differing:$bad"; false; }
}

@test "the comparison sees a difference of one filter, one operation or one rule" {
	srt_profile read-globs proj
	rules_of_case read-globs
	cmp "$R/read-globs.ref.rules" "$R/read-globs.srt.rules"
	# A filter changed, an operation dropped, a rule dropped: each is seen.
	sed 's|(subpath "'"$R"'/home/.ssh")|(subpath "'"$R"'/home/.ssh/x")|' "$R/read-globs.srt.sb" >"$R/a.sb"
	sed 's|^(deny file-write-unlink file-write-create$|(deny file-write-unlink|' \
	    "$R/read-globs.srt.sb" >"$R/b.sb"
	grep -v '^(allow file-read-metadata\|^  (vnode-type DIRECTORY))$' \
	    "$R/read-globs.srt.sb" >"$R/c.sb"
	for f in a b c; do
		! cmp -s "$R/$f.sb" "$R/read-globs.srt.sb" || return 1
		"$SRT_TESTBIN/sbpl-rules" "$R/$f.sb" >"$R/$f.rules"
		! cmp -s "$R/$f.rules" "$R/read-globs.ref.rules" || return 1
	done
}

@test "the log tag is the only text the comparison leaves out" {
	srt_profile default proj
	grep -q '(with message "srt_plan"))$' "$R/default.srt.sb"
	sed 's/srt_plan/another_tag/' "$R/default.srt.sb" >"$R/t.sb"
	"$SRT_TESTBIN/sbpl-rules" "$R/default.srt.sb" >"$R/1.rules"
	"$SRT_TESTBIN/sbpl-rules" "$R/t.sb" >"$R/2.rules"
	cmp "$R/1.rules" "$R/2.rules"
}

@test "the reader refuses what is not a well-formed profile" {
	srt_profile default proj
	f="$R/default.srt.sb"
	head -c -2 "$f" >"$R/1.sb"                                    # unbalanced
	sed 's/(allow process-fork)/(allow process-forks)/' "$f" >"$R/2.sb"   # operation
	sed 's/(allow file-ioctl (literal "\/dev\/zero"))/(allow file-ioctl (literally "\/dev\/zero"))/' \
	    "$f" >"$R/3.sb"                                               # filter
	sed 's/localhost:3128/127.0.0.1:3128/' "$f" >"$R/4.sb"         # host Seatbelt refuses
	sed '1d' "$f" >"$R/5.sb"                                       # no (version 1)
	for i in 1 2 3 4 5; do
		! cmp -s "$R/$i.sb" "$f" || return 1
		run -1 "$SRT_TESTBIN/sbpl-rules" "$R/$i.sb"
		[[ "$output" == *"line "* ]]
	done
}

@test "the profile is the same every time, and -p gives what -s gives" {
	srt_profile write proj
	srt_profile write proj
	cp "$R/write.srt.sb" "$R/first.sb"
	srt_profile write proj
	cmp "$R/first.sb" "$R/write.srt.sb"
	srt-policy compile -s "$R/settings/write.json" -o "$R/write.bin"
	HOME="$R/home" srt-policy plan --target macos -p "$R/write.bin" --cwd "$R/proj" >"$R/p.sb"
	# The settings file is not in a write root: nothing of it in either profile.
	cmp "$R/p.sb" "$R/first.sb"
}

@test "the ports: 3128 and 1080 by default, the user's own proxies when set" {
	srt_profile default proj
	grep -qx '(allow network-outbound (remote ip "localhost:3128"))' "$R/default.srt.sb"
	grep -qx '(allow network-outbound (remote ip "localhost:1080"))' "$R/default.srt.sb"
	srt_profile ports-distinct proj
	grep -qx '(allow network-outbound (remote ip "localhost:18080"))' "$R/ports-distinct.srt.sb"
	grep -qx '(allow network-outbound (remote ip "localhost:11080"))' "$R/ports-distinct.srt.sb"
	! grep -q 'localhost:3128' "$R/ports-distinct.srt.sb" || return 1
	[ "$(grep -c '^(allow network' "$R/ports-distinct.srt.sb")" -eq 6 ]
}

@test "the macOS-only switches each add their rules, and only then" {
	srt_profile default proj
	srt_profile network proj
	for r in '(allow network-bind (local ip "\*:\*"))' \
	    '(allow system-socket (socket-domain AF_UNIX))' \
	    '(allow mach-lookup (global-name-prefix "com.example.service."))' \
	    '(allow mach-lookup (global-name "com.apple.trustd.agent"))' \
	    '(allow appleevent-send)' '(allow pseudo-tty)' \
	    "(allow network-bind (local unix-socket (subpath \"$R/home/sock/agent.sock\")))"; do
		grep -qxF "$r" "$R/network.srt.sb" || grep -qx "$r" "$R/network.srt.sb"
		! grep -qxF "$r" "$R/default.srt.sb" || return 1
	done
}

@test "srt keeps its settings file read-only where the command could write it" {
	sed "s|@ROOT@|$R|g" "$MAC/write.json" >"$R/proj/srt.json"
	HOME="$R/home" srt-policy plan --target macos -s "$R/proj/srt.json" --cwd "$R/proj" \
	    >"$R/in.sb"
	"$SRT_TESTBIN/sbpl-rules" "$R/in.sb" >"$R/in.rules"
	grep -qxF "deny file-write*	(subpath \"$R/proj/srt.json\")" "$R/in.rules"
	grep -qxF "deny file-write-unlink file-write-create	(subpath \"$R/proj/srt.json\")" \
	    "$R/in.rules"
	# Outside every write root it adds nothing.
	srt_profile write proj
	! grep -q 'srt.json' "$R/write.srt.sb"
}

@test "plan --target macos: usage errors" {
	srt_profile default proj
	run -2 srt-policy plan --target macos -s "$R/settings/default.json" --shell
	[[ "$output" == *"--shell applies to the linux target only"* ]]
	run -2 srt-policy plan --target macos -s "$R/settings/default.json" --cwd "$R/nonexistent"
	[[ "$output" == *"nonexistent"* ]]
	run -2 srt-policy plan --target macos -s "$R/settings/nonexistent.json"
}

@test "the reference still prints the goldens (needs node and build/ref)" {
	local ref
	ref="$BATS_TEST_DIRNAME/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime"
	command -v node >/dev/null || skip "node is not installed"
	[ -d "$ref/dist" ] || skip "the reference is not installed in build/ref"
	"$MAC/regen.sh" --check "$ref"
}
