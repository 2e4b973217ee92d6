#!/usr/bin/env bats
# srt and srt-launch: running commands, exit statuses, signals, environment, descriptors,
# settings handling, violations and cleanup (SPEC §2, §5).
load ../helpers
bats_require_minimum_version 1.5.0

# What the sandboxed command does to be refused (or allowed): see its usage.
RO="$BATS_TEST_DIRNAME/../helpers/refused-ops.py"

# scripts/deps installs the reference tool in build/ref; SRT_REF_CLI names another.
REF_CLI=${SRT_REF_CLI:-$BATS_TEST_DIRNAME/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js}

# Succeeds when the command fails ("! cmd" does not fail a bats test by itself).
not() {
	! "$@"
}

setup() {
	srt_setup
	mkdir -p "$T/ws" "$T/tmp" "$T/home"
	write_settings "$T/s.json"
	cd "$T/ws"
	# Each run's private TMPDIR is made under $T/tmp, so residue is visible there.
	export TMPDIR="$T/tmp" HOME="$T/home"
}

teardown() {
	cd /
	srt_teardown
}

# Wait (at most ~5 s) until no process runs whose command line contains $1.
gone() {
	local i
	for i in $(seq 50); do
		pgrep -f -- "$1" >/dev/null || return 0
		sleep 0.1
	done
	return 1
}

@test "srt -c runs the string with bash and returns its status" {
	run srt -s "$T/s.json" -c 'echo "hi $((6*7))"; exit 7'
	[ "$status" -eq 7 ]
	[ "$output" = "hi 42" ]
}

# What an agent's command written for bash uses: [[ ]], brace expansion, arrays,
# source, process substitution (which needs /dev/fd inside the sandbox). Run from $T/ws
# after bash_lib.
bash_lib() { echo 'f() { echo "sourced $1"; }' > "$T/ws/lib.sh"; }
BASH_ONLY='[[ 1 == 1 ]] && echo {a,b}
a=(x "y z" w); echo "${a[1]}|${#a[@]}"
source ./lib.sh; f ok
cat <(echo procsub) < <(echo in)
diff <(printf "1\n2\n") <(printf "1\n3\n") | grep -c "^[<>]"
echo "${BASH_VERSION:+bash}"'
BASH_ONLY_OUT='a b
y z|3
sourced ok
procsub
2
bash'

@test "-c runs bash: [[ ]], braces, arrays, source and <( ) work, in srt and srt-launch" {
	bash_lib
	run srt -s "$T/s.json" -c "$BASH_ONLY"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$output" = "$BASH_ONLY_OUT" ]
	run srt-launch -s "$T/s.json" -c "$BASH_ONLY"
	[ "$status" -eq 0 ]
	[ "$output" = "$BASH_ONLY_OUT" ]
	# /usr/bin/bash or /bin/bash, found before the sandbox starts
	run srt -s "$T/s.json" -c 'echo "$0"'
	[[ "$output" == /usr/bin/bash || "$output" == /bin/bash ]]
	# the argv form still runs no shell
	run -127 srt -s "$T/s.json" -- '[[' 1 == 1 ']]'
	[ "$status" -eq 127 ]
}

@test "-c: bash-only commands answer as under the reference tool" {
	[ -f "$REF_CLI" ] || skip "reference tool not installed ($REF_CLI)"
	command -v node >/dev/null && command -v rg >/dev/null && command -v socat >/dev/null ||
	    skip "the reference tool needs node, rg and socat"
	local -a cmds=(
		"$BASH_ONLY"
		'[[ abc =~ ^a(b)c$ ]] && echo "${BASH_REMATCH[1]}"; declare -A m=([k]=v); echo "${m[k]}"'
		'set -o pipefail; false | true; echo "pipefail $?"; printf -v x %03d 7; echo "$x" $'"'"'a\tb'"'"''
		'mapfile -t l < <(printf "1\n2\n3\n"); echo "${#l[@]} ${l[-1]}"; echo $((2**10)); exit 3'
		'shopt -s nullglob; f=(/nonexistent/*); echo "${#f[@]}"; type -t source; echo "${PIPESTATUS[0]}"'
	)
	local c a b bad=0
	bash_lib
	for c in "${cmds[@]}"; do
		a=$(srt -s "$T/s.json" -c "$c" 2>/dev/null; echo "status $?")
		b=$(node "$REF_CLI" --settings "$T/s.json" -c "$c" 2>/dev/null; echo "status $?")
		if [ "$a" != "$b" ]; then
			echo "differ on: $c"
			diff <(echo "$b") <(echo "$a") || true
			bad=1
		fi
	done
	[ "$bad" -eq 0 ]
	# and what srt says is bash's own answer, not the two agreeing on a failure
	[ "$(srt -s "$T/s.json" -c "${cmds[1]}")" = "$(printf 'b\nv')" ]
}

@test "-c without bash runs /bin/sh and says so under -d; a bash others can write is never run" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace of its own"
	command -v unshare >/dev/null || skip "unshare missing"
	# In a mount namespace of the test's own: bash hidden (a character device is no
	# program), a copy in a directory only root may write (on a tmpfs over /mnt), and
	# a "bash" in a directory anyone may write, first on PATH.
	mkdir -p "$T/evil"
	printf '#!/bin/sh\necho EVIL\n' > "$T/evil/bash"
	chmod 755 "$T/evil/bash"
	chmod 777 "$T/evil"
	cat > "$T/ns.sh" <<'SH'
set -e
mount -t tmpfs -o mode=755 srt-test /mnt
mkdir /mnt/b
cp /usr/bin/bash /mnt/b/bash 2>/dev/null || cp /bin/bash /mnt/b/bash
for b in /usr/bin/bash /bin/bash; do [ ! -f "$b" ] || mount --bind /dev/null "$b"; done
export PATH="$T/evil:/mnt/b:$PATH"
echo "trusted: $(srt -s "$T/s.json" -c 'echo "$0 ${BASH_VERSION:+bash}"')"
chmod 775 /mnt/b
echo "group-writable: $(srt -d -s "$T/s.json" -c 'echo "$0 ${BASH_VERSION:+bash}"' 2>"$T/err")"
grep -- '-c: no bash installed' "$T/err"
chmod 755 /mnt/b
chmod 777 /mnt/b/bash
echo "file writable: $(srt -s "$T/s.json" -c 'echo "$0"')"
SH
	run unshare -m --propagation private sh "$T/ns.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"trusted: /mnt/b/bash bash"* ]]
	[[ "$output" == *"group-writable: /bin/sh "$'\n'* ]]
	[[ "$output" == *"srt: debug: -c: no bash installed: the string runs with /bin/sh"* ]]
	[[ "$output" == *"file writable: /bin/sh"* ]]
	[[ "$output" != *EVIL* ]]
}

@test "CMD ARGS are executed as given: no shell, no quoting" {
	run srt -s "$T/s.json" -- printf '%s|' 'a b' '$HOME' '*' "it's" ''
	[ "$status" -eq 0 ]
	[ "$output" = "a b|\$HOME|*|it's||" ]
}

@test "options after the command belong to the command" {
	run srt -s "$T/s.json" sh -c 'echo "$0 $1"' -d -s
	[ "$status" -eq 0 ]
	[ "$output" = "-d -s" ]
}

@test "a command killed by a signal gives 128+N" {
	run srt -s "$T/s.json" -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run srt -s "$T/s.json" -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
}

@test "a missing command gives 127, a non-executable one 126" {
	run -127 srt -s "$T/s.json" -- /nonexistent/cmd
	run -127 srt -s "$T/s.json" -- no-such-command-srt-test
	printf 'data\n' > "$T/ws/plain"
	run srt -s "$T/s.json" -- "$T/ws/plain"
	[ "$status" -eq 126 ]
}

@test "a command that cannot be run is named by srt, not its helper; a shell line hints at -c" {
	run -127 --separate-stderr srt -s "$T/s.json" -- no-such-command-srt-test
	[ "$stderr" = "srt: no-such-command-srt-test: command not found" ]
	# reference 0.0.83: quotes the one word and has bash look for it: "command not found",
	# 127. srt does not guess that a word is a command line: it says how to run one.
	run -127 --separate-stderr srt -s "$T/s.json" 'echo hi | tr a-z A-Z'
	[ "$stderr" = "srt: echo hi | tr a-z A-Z: command not found (a shell command line is run with -c STRING)" ]
	run -127 --separate-stderr srt-launch -s "$T/s.json" -- no-such-command-srt-test
	[ "$stderr" = "srt: no-such-command-srt-test: command not found" ]
	printf 'data\n' > "$T/ws/plain"
	run -126 --separate-stderr srt -s "$T/s.json" -- "$T/ws/plain"
	[ "$stderr" = "srt: $T/ws/plain: Permission denied" ]
}

@test "srt-seccomp's own refusals speak as srt: a denyRead path the host makes during the run" {
	cat > "$T/d.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/ws/.aws"],"allowWrite":["$T/ws"],"denyWrite":[]},
 "allowNestedUserNamespaces":true}
JSON
	timeout 60 srt -s "$T/d.json" -c "touch $T/ws/started; while :; do sleep 0.05; done" 2>"$T/err" 3>&- &
	pid=$!
	for i in $(seq 200); do [ -e "$T/ws/started" ] && break; sleep 0.05; done
	[ -e "$T/ws/started" ]
	# with nested user namespaces allowed a deny is watched (srt-seccomp(1)), not held
	# by Landlock nor by the supervisor: the run ends, and says so at the start
	grep -q "^srt: read deny $T/ws/.aws: not held for the whole run" "$T/err"
	mkdir "$T/ws/.aws"
	st=0
	wait "$pid" || st=$?
	[ "$st" -eq 125 ]
	grep -q "^srt: $T/ws/.aws: a denyRead path that did not exist when the run started" "$T/err"
	not grep -q "srt-seccomp:" "$T/err"
}

# Without the write guard no supervisor holds or watches a read deny: said at the start.
# Before this change nothing was said.
@test "srt-launch --unguarded says that the read denies are not held during the run" {
	printf 'x\n' >"$T/ws/secret"
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/ws/secret"],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	run -0 --separate-stderr srt-launch --unguarded -s "$T/u.json" -- true
	[[ "$stderr" == *"--unguarded: the read denies are masked as the run starts, and not held after"*"$T/ws/secret"* ]]
	run -0 --separate-stderr srt-launch -s "$T/u.json" -- true
	[[ "$stderr" != *"not held after"* ]]
}

@test "srt refuses srt-launch's options with a reason, not a bare usage" {
	run -125 srt --violations "$T/v.jsonl" true
	[[ "${lines[0]}" == "srt: --violations FILE is an option of srt-launch, not of srt"* ]]
	run -125 srt --unguarded true
	[[ "${lines[0]}" == "srt: --unguarded is an option of srt-launch, not of srt"* ]]
	run -125 srt -p "$T/p.bin" true
	[[ "${lines[0]}" == "srt: -p POLICY is an option of srt-launch, not of srt"* ]]
	[ ! -e "$T/v.jsonl" ]
}

@test "no command: status 1 and a one-line reason, as the reference (its test/cli)" {
	run srt -s "$T/s.json"
	[ "$status" -eq 1 ]
	[[ "$output" == *"srt: no command specified"* ]]
	run srt-launch -s "$T/s.json"
	[ "$status" -eq 125 ]
	[[ "$output" == *"srt-launch: no command given"* ]]
	run srt -s "$T/s.json" -c 'true' extra
	[ "$status" -eq 125 ]
}

@test "a settings file named with -s that is missing, empty or invalid is an error" {
	run srt -s "$T/missing.json" -c true
	[ "$status" -eq 125 ]
	[[ "$output" == *"missing.json"* ]]
	: > "$T/empty.json"
	run srt -s "$T/empty.json" -c true
	[ "$status" -eq 125 ]
	echo '{"network": ' > "$T/bad.json"
	run srt -s "$T/bad.json" -c true
	[ "$status" -eq 125 ]
	echo '{"network":{"allowedDomains":["*.com"],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' > "$T/bad2.json"
	run srt -s "$T/bad2.json" -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" == *"network.allowedDomains[0]"* ]]
	[[ "$output" != *ran* ]]
	# An error in the settings leaves nothing behind (the output is the launcher's
	# message alone).
	mkdir "$T/runs"
	TMPDIR="$T/runs" run srt -s "$T/bad.json" -c true
	[ "$status" -eq 125 ]
	[ "${#lines[@]}" -eq 1 ]
	[ -z "$(ls -A "$T/runs")" ]
}

@test "a failure after bwrap started waiting for its options runs nothing and leaves nothing" {
	# bwrap is started before the plan and the temp directory (bwrap.c); a temp
	# directory that cannot be made fails the run after that: bwrap is killed before it
	# ever reads its options, and no sandbox, command or directory remains.
	token="srt-late-failure-$$-$RANDOM"
	TMPDIR=/proc run srt -s "$T/s.json" -c "echo ran; : $token"
	[ "$status" -eq 125 ]
	[[ "$output" == *"temp directory /proc/srt."* ]]
	[[ "$output" != *ran* ]]
	# Killed while it waits, bwrap says nothing; given an empty option list instead,
	# it would go on and fail to execute srt-seccomp in an empty root ("bwrap: ...").
	[[ "$output" != *bwrap* ]]
	not pgrep -f -- "$token"
	not pgrep -f -- "bwrap --args 4 -- .*$token"
}

@test "srt without -s: ~/.srt-settings.json, or the built-in defaults when it does not exist" {
	run srt -d -c 'echo ok; echo x > "$HOME/f" 2>/dev/null || echo refused'
	[ "$status" -eq 0 ]
	[[ "$output" == *"built-in defaults"* ]]
	[[ "$output" == *ok* ]]
	[[ "$output" == *refused* ]]
	[ ! -e "$HOME/f" ]
	# an existing default file is used, and an invalid one is an error
	cat > "$HOME/.srt-settings.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	run srt -c 'echo x > w && echo wrote'
	[ "$status" -eq 0 ]
	[ "$output" = wrote ]
	echo '[]' > "$HOME/.srt-settings.json"
	run srt -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
}

@test "srt-launch needs exactly one of -p and -s" {
	run srt-launch -c true
	[ "$status" -eq 125 ]
	run srt-launch -s "$T/s.json" -p "$T/p.bin" -c true
	[ "$status" -eq 125 ]
}

@test "srt-launch runs a compiled policy (-p) and a settings file (-s)" {
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	run srt-launch -p "$T/p.bin" -- sh -c 'echo via-policy'
	[ "$status" -eq 0 ]
	[ "$output" = via-policy ]
	run srt-launch -s "$T/s.json" -- echo via-settings
	[ "$status" -eq 0 ]
	[ "$output" = via-settings ]
	printf 'garbage' > "$T/bad.bin"
	run srt-launch -p "$T/bad.bin" -c true
	[ "$status" -eq 125 ]
}

@test "-V and -h" {
	run srt -V
	[ "$status" -eq 0 ]
	[[ "$output" == "srt "* ]]
	run srt-launch --version
	[[ "$output" == "srt-launch "* ]]
	run srt -h
	[ "$status" -eq 0 ]
	[[ "$output" == *usage:* ]]
}

@test "the environment inside: proxies without credentials, NO_PROXY, JVM options, SANDBOX_RUNTIME" {
	run srt -s "$T/s.json" -- env
	[ "$status" -eq 0 ]
	echo "$output" | grep -qx 'SANDBOX_RUNTIME=1'
	echo "$output" | grep -qx 'HTTP_PROXY=http://localhost:3128'
	echo "$output" | grep -qx 'https_proxy=http://localhost:3128'
	echo "$output" | grep -qx 'ALL_PROXY=http://localhost:3128'
	echo "$output" | grep -qx 'FTP_PROXY=socks5h://localhost:1080'
	echo "$output" | grep -qx 'RSYNC_PROXY=localhost:1080'
	echo "$output" | grep -q '^NO_PROXY=localhost,127.0.0.1,::1,'
	echo "$output" | grep -q '^JAVA_TOOL_OPTIONS=.*-Dhttp.proxyHost=localhost -Dhttp.proxyPort=3128'
	echo "$output" | grep -q '^JAVA_TOOL_OPTIONS=.*-DsocksProxyHost=localhost -DsocksProxyPort=1080'
	not grep -q '@localhost' <<< "$output"
}

@test "an inherited proxy variable is replaced, JAVA_TOOL_OPTIONS is extended" {
	HTTP_PROXY=http://user:secret@corp:8080 JAVA_TOOL_OPTIONS=-Xmx64m \
	    run srt -s "$T/s.json" -- env
	echo "$output" | grep -qx 'HTTP_PROXY=http://localhost:3128'
	not grep -q secret <<< "$output"
	echo "$output" | grep -q '^JAVA_TOOL_OPTIONS=-Xmx64m -Dhttp.proxyHost='
}

@test "GIT_SSH_COMMAND tunnels ssh through the SOCKS proxy with a program present inside" {
	command -v nc >/dev/null || skip "no nc"
	run srt -s "$T/s.json" -c 'echo "$GIT_SSH_COMMAND"'
	[ "$status" -eq 0 ]
	[[ "$output" == "ssh -o ControlMaster=no -o ControlPath=none -o ProxyCommand="* ]]
	tool=$(echo "$output" | sed -n "s/.*ProxyCommand='\([^ ]*\) .*/\1/p")
	[ -x "$tool" ]
	[[ "$output" == *"-X 5 -x localhost:1080 %h %p"* || "$output" == *"proxyport=3128"* ]]
}

@test "git.safeDirectories becomes GIT_CONFIG_* entries, continuing an existing count" {
	cat > "$T/g.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "git":{"safeDirectories":["$T/ws/"]}}
JSON
	GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0=me \
	    run srt -s "$T/g.json" -- env
	echo "$output" | grep -qx 'GIT_CONFIG_COUNT=3'
	echo "$output" | grep -qx 'GIT_CONFIG_KEY_0=user.name'
	echo "$output" | grep -qx "GIT_CONFIG_VALUE_1=$T/ws"
	echo "$output" | grep -qx "GIT_CONFIG_VALUE_2=$T/ws/\\*"
	GIT_CONFIG_COUNT=0 run srt -s "$T/g.json" -- env
	echo "$output" | grep -qx 'GIT_CONFIG_COUNT=0'
	not grep -q GIT_CONFIG_KEY <<< "$output"
}

@test "TMPDIR is private, writable, and removed after the run" {
	run srt -s "$T/s.json" -c 'echo "$TMPDIR"; mkdir "$TMPDIR/d" && echo x > "$TMPDIR/d/f" && chmod 000 "$TMPDIR/d" && ln -s / "$TMPDIR/root" && echo wrote'
	[ "$status" -eq 0 ]
	[[ "${lines[0]}" == "$T/tmp/srt."* ]]
	[ "${lines[1]}" = wrote ]
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "no descriptor but 0, 1 and 2 reaches the command" {
	exec 7</dev/null 8>"$T/leak"
	run srt -s "$T/s.json" -- ls /proc/self/fd
	exec 7<&- 8>&-
	[ "$status" -eq 0 ]
	# ls itself opens one for the directory it lists
	[ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 " ]
}

@test "the settings file is read-only inside when it lies in a writable root" {
	cat > "$T/ws/srt.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	run srt -s "$T/ws/srt.json" -c 'echo other > other && echo ok; echo evil >> srt.json && echo CHANGED; mv srt.json moved && echo MOVED'
	[[ "$output" == *ok* ]]
	[[ "$output" != *CHANGED* ]]
	[[ "$output" != *MOVED* ]]
	[ -e "$T/ws/srt.json" ]
	not grep -q evil "$T/ws/srt.json"
}

@test "SIGTERM, SIGINT, SIGHUP and SIGQUIT are forwarded to the command" {
	for sig in TERM INT HUP QUIT; do
		srt -s "$T/s.json" -c "trap 'echo got-$sig; exit 3' $sig; echo ready; while :; do sleep 0.05; done" > "$T/out.$sig" 2>&1 &
		pid=$!
		for i in $(seq 600); do grep -q ready "$T/out.$sig" && break; sleep 0.05; done
		grep -q ready "$T/out.$sig"
		kill -"$sig" "$pid"
		rc=0
		wait "$pid" || rc=$?
		[ "$rc" -eq 3 ]
		grep -q "got-$sig" "$T/out.$sig"
	done
}

@test "signals ignored when srt started are back to the default inside" {
	# A shell starting srt in the background ignores SIGINT and SIGQUIT; nohup ignores
	# SIGHUP. The command gets the default for all of them, and for SIGPIPE, which srt
	# ignores itself; nothing is ignored or blocked inside, with a seccomp stage or
	# without one (allowAllUnixSockets).
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	for f in s.json u.json; do
		run bash -c "trap '' INT QUIT HUP USR2 PIPE; exec '$SRT_BIN/srt' -s '$T/$f' -c 'grep -E \"^Sig(Ign|Blk):\" /proc/self/status'"
		echo "$f: $output"
		[ "$status" -eq 0 ]
		[[ "$output" == *"SigIgn:	0000000000000000"* ]]
		[[ "$output" == *"SigBlk:	0000000000000000"* ]]
	done
}

@test "a forwarded signal the command does not handle gives 128+N" {
	# sent once the command runs, so that srt forwards it rather than ending early
	srt -s "$T/s.json" -c 'echo ready; exec sleep 30' >"$T/out" &
	pid=$!
	for i in $(seq 600); do grep -q ready "$T/out" && break; sleep 0.05; done
	grep -q ready "$T/out"
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
}

@test "when srt is killed, the sandbox and the proxies die and nothing is left behind" {
	token="srt-test-token-$$-$RANDOM"
	write_settings "$T/n.json" '["127.0.0.1:9"]'
	srt -s "$T/n.json" -c "curl -s -m 1 -x http://localhost:3128 http://127.0.0.1:9/ >/dev/null; sleep 60; : $token" &
	pid=$!
	for i in $(seq 100); do pgrep -f -- "sleep 60; : $token" >/dev/null && break; sleep 0.05; done
	pgrep -f -- "$token" >/dev/null
	sleep 0.5
	kill -KILL "$pid"
	wait "$pid" || true
	gone "$token"
	gone "$SRT_BIN/srt-httpd --policy-fd"
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "when srt is killed, the keeper, which holds the namespace, removes the temp dir; nothing else is on the host" {
	# Missing protected paths are kept from being made by the write guard: nothing is
	# created for them on the host (the reference makes placeholders there).
	cat > "$T/p.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],
  "denyWrite":["$T/ws/not/there","$T/ws/gone.txt","$T/ws/deep/er/still"]}}
JSON
	token="srt-guard-kill-$$-$RANDOM"
	srt -s "$T/p.json" -c ": > \$TMPDIR/junk; mkdir -p deep/er 2>/dev/null || : > refused; sleep 60; : $token" &
	pid=$!
	for i in $(seq 200); do ls "$T"/tmp/srt.*/junk >/dev/null 2>&1 && [ -e "$T/ws/refused" ] && break; sleep 0.05; done
	ls "$T"/tmp/srt.*/junk
	# The way to a denied path could not be made, and nothing stands there.
	[ -e "$T/ws/refused" ]
	[ ! -e "$T/ws/not" ] && [ ! -e "$T/ws/gone.txt" ] && [ ! -e "$T/ws/deep" ]
	# The keeper (srt's child running srt-launch) holds the sandbox's network namespace
	# (bwrap is in it), so that once the sandbox is gone no other run's can take its
	# number before the keeper has looked for what is left in it.
	keeper="" sandbox_net=""
	for c in $(pgrep -P "$pid"); do
		case "$(readlink "/proc/$c/exe")" in
		*/srt-launch) keeper=$c ;;
		*/bwrap) sandbox_net=$(readlink "/proc/$c/ns/net") ;;
		esac
	done
	[ -n "$keeper" ] && [ -n "$sandbox_net" ]
	[ "$(readlink "/proc/$pid/ns/net")" != "$sandbox_net" ]
	for f in /proc/"$keeper"/fd/*; do readlink "$f"; done | grep -qxF -- "$sandbox_net"
	kill -KILL "$pid"
	wait "$pid" || true
	gone "$token"
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
	[ "$(ls -A "$T/ws")" = refused ]
}

@test "srt killed at any moment of its start leaves no sandbox running" {
	# bwrap arms --die-with-parent in its child only late in its set-up; the
	# sandbox's lifeline (srt-seccomp --lifeline-fd) covers the time before, and the
	# keeper's sweep (of the sandbox's network namespace) whatever is left; with
	# allowAllUnixSockets too, which runs srt-seccomp like any other setting.
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	for f in s.json u.json; do
		for d in 0.001 0.002 0.003 0.004 0.005 0.006 0.008 0.010 0.012 0.016 0.020 0.024; do
			token="srt-early-kill-$$-$f-$d-$RANDOM"
			srt -s "$T/$f" -c "sleep 30; : $token" >/dev/null 2>&1 &
			pid=$!
			sleep "$d"
			kill -KILL "$pid"
			wait "$pid" || true
			# (A leftover, killed here, holds none of our descriptors: it cannot
			# keep the suite waiting for it.)
			gone "$token" || {
				ps -eo pid,ppid,stat,wchan:20,cmd | grep -- "$token" >&2
				for p in $(pgrep -f -- "$token"); do kill -KILL "$p"; done
				false
			}
		done
	done
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
}

# Succeeds when process $1 has ended (gone, or a zombie not yet reaped).
dead() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ "${st%% *}" = Z ]
}

@test "the child making the network namespace dies with srt, wherever it is held" {
	# As root that child shares srt's memory; a launcher killed meanwhile has the
	# kernel clear its thread id there, and the child once hung for good on a lock that
	# records its owner by it (libnl's port map lock), reparented, holding srt's
	# stdout. A preloaded unshare() holds the child at its first step while srt is
	# killed: it must go with srt rather than carry on alone.
	so=$SRT_TESTBIN/hold-unshare.so
	token="srt-netns-child-$$-$RANDOM"
	SRT_TEST_HOLD_UNSHARE="$T/held" LD_PRELOAD=$so \
	    ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	    srt -s "$T/s.json" -c "sleep 30; : $token" >/dev/null 2>&1 &
	launcher=$!
	for i in $(seq 100); do [ -s "$T/held" ] && break; sleep 0.05; done
	read -r child < "$T/held"
	[ "$child" != "$launcher" ]
	[ "$(awk '/^PPid:/ { print $2 }' "/proc/$child/status")" = "$launcher" ]
	kill -KILL "$launcher"
	wait "$launcher" || true
	for i in $(seq 40); do dead "$child" && break; sleep 0.05; done
	dead "$child" || { kill -KILL "$child"; false; }
}

@test "SIGTERM or SIGINT before the sandbox is up ends the run: 128+N, nothing left, output closed" {
	# bwrap, held before it reports its child's pid, would once die of the forwarded
	# signal: its child then waited for it forever, reparented, holding srt's stdout,
	# the keeper was told there was nothing to clean, and srt spun on the violation
	# pipe that child still held (see signal_before_sandbox in helpers.bash).
	signal_before_sandbox TERM srt -s "$T/s.json"
	signal_before_sandbox INT srt -s "$T/s.json"
}

@test "SIGHUP or SIGQUIT before the sandbox is up ends the run: srt-launch, allowAllUnixSockets" {
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	signal_before_sandbox HUP srt-launch -s "$T/u.json"
	signal_before_sandbox QUIT srt-launch -s "$T/s.json"
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "after a normal run no proxy or temp dir remains, and a missing denied path was never made" {
	write_settings "$T/n.json" '["127.0.0.1:9"]'
	cat > "$T/p.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":["$T/ws/not/there"]}}
JSON
	run srt -s "$T/n.json" -c 'curl -s -m 2 -x http://localhost:3128 http://127.0.0.1:9/ >/dev/null; curl -s -m 2 -x socks5h://localhost:1080 http://127.0.0.1:9/ >/dev/null; true'
	[ "$status" -eq 0 ]
	not pgrep -f -- "$SRT_BIN/srt-httpd --policy-fd"
	not pgrep -f -- "$SRT_BIN/srt-socksd --policy-fd"
	run --separate-stderr srt -s "$T/p.json" -c 'mkdir not 2>/dev/null || echo refused'
	[ "$output" = refused ]
	# the refusal is explained after the command (the violation monitor)
	[[ "$stderr" == *"deny file-write $T/ws/not (mandatory deny: on the way to a protected path; no setting lifts it: change it outside srt)"* ]]
	[ ! -e "$T/ws/not" ]
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "violations: srt prints the block on stderr, honouring ignoreViolations" {
	run srt -s "$T/s.json" -c 'curl -s -m 5 -x http://localhost:3128 http://denied.example/ >/dev/null; echo done'
	[ "$status" -eq 0 ]
	[[ "$output" == *done* ]]
	[[ "$output" == *"<sandbox_violations>"*"deny network-outbound denied.example:80 (host is not on the allow list)"*"</sandbox_violations>"* ]]
	cat > "$T/i.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "ignoreViolations":{"*":["quiet.example"],"curl":["other.example"]}}
JSON
	run srt -s "$T/i.json" -c 'curl -s -m 5 -x http://localhost:3128 http://quiet.example/ >/dev/null; curl -s -m 5 -x socks5h://localhost:1080 http://other.example/ >/dev/null; curl -s -m 5 -x http://localhost:3128 http://loud.example/ >/dev/null; true'
	[[ "$output" != *quiet.example* ]]
	[[ "$output" != *other.example* ]]
	[[ "$output" == *"deny network-outbound loud.example:80"* ]]
	run srt -s "$T/s.json" -c 'echo clean'
	[ "$output" = clean ]
}

@test "violations: srt-launch -p prints the block as srt does; --violations - is standard error" {
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	run -0 --separate-stderr srt-launch -p "$T/p.bin" -c 'touch .bashrc 2>/dev/null; curl -s -m 5 -x http://localhost:3128 http://denied.example/ >/dev/null; echo done'
	[ "$output" = done ]
	[[ "$stderr" == *"<sandbox_violations>"*"deny file-write $T/ws/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)"*"</sandbox_violations>"* ]]
	[[ "$stderr" == *"<sandbox_violations>"*"deny network-outbound denied.example:80 (host is not on the allow list)"*"</sandbox_violations>"* ]]
	# "-" is standard error: JSON lines there, no block, and no file named "-"
	run -0 --separate-stderr srt-launch -p "$T/p.bin" --violations - -c 'touch .bashrc 2>/dev/null; echo done'
	[ "$output" = done ]
	[ ! -e "$T/ws/-" ]
	[[ "$stderr" != *sandbox_violations* ]]
	printf '%s\n' "$stderr" | grep '^{' | head -1 >"$T/first"
	[ "$(python3 "$JSONL" print "$T/first" '%(kind)s')" = file-write ]
	[[ "$(python3 "$JSONL" print "$T/first" '%(path)s')" == */ws/.bashrc ]]
}

@test "violations: srt-launch --violations appends JSON lines and prints no block" {
	echo '{"old":1}' > "$T/v.jsonl"
	run srt-launch -s "$T/s.json" --violations "$T/v.jsonl" -c 'curl -s -m 5 -x socks5h://localhost:1080 http://x.example:81/ >/dev/null; true'
	[ "$status" -eq 0 ]
	[[ "$output" != *sandbox_violations* ]]
	[ "$(wc -l < "$T/v.jsonl")" -eq 2 ]
	tail -1 "$T/v.jsonl" >"$T/last"
	[ "$(python3 "$JSONL" print "$T/last" '%(violation)s')" = "deny network-outbound x.example:81 (host is not on the allow list)" ]
	[ "$(python3 "$JSONL" print "$T/last" '%(protocol)s')" = socks5 ]
	run srt-launch -s "$T/s.json" --violations /nonexistent/dir/v -c true
	[ "$status" -eq 125 ]
}

@test "-d prints the policy, the plan, the bwrap arguments and the proxy start" {
	run srt -d -s "$T/s.json" -c 'curl -s -m 5 -x http://localhost:3128 http://d.example/ >/dev/null; true'
	[ "$status" -eq 0 ]
	[[ "$output" == *"debug: policy: compiled from $T/s.json"* ]]
	[[ "$output" == *"debug: plan: "* ]]
	[[ "$output" == *"debug: bwrap arguments"*"--unshare-pid"*"--unshare-user --cap-drop ALL"*"srt-seccomp"* ]]
	# srt-seccomp is the sandbox's pid 1: bwrap starts no reaper of its own
	[[ "$output" == *"debug: bwrap arguments"*" --as-pid-1 "*"srt-seccomp"* ]]
	[[ "$output" == *"debug: starting "*"srt-httpd"* ]]
	# run by root, srt-seccomp is told it is PID 1 already (--pid1) and does not nest
	if [ "$(id -u)" -eq 0 ]; then
		[[ "$output" == *"debug: bwrap arguments"*"srt-seccomp --lifeline-fd 5 --guard-fd 6 --violations-fd 7 --pid1 "* ]]
		[[ "$output" == *"srt-seccomp: debug: PID 1 already"* ]]
	fi
}

@test "a missing bwrap (bwrapPath) is srt's own failure" {
	cat > "$T/b.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},"bwrapPath":"/nonexistent/bwrap"}
JSON
	run srt -s "$T/b.json" -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" == *bwrap* ]]
	[[ "$output" != *ran* ]]
	[ -z "$(ls -A "$T/tmp")" ]
	sed "s|/nonexistent/bwrap|$(command -v bwrap)|" "$T/b.json" > "$T/b2.json"
	run srt -s "$T/b2.json" -c 'echo ran'
	[ "$output" = ran ]
}

@test "a bwrapPath that is a script (a wrapper of bwrap) runs, and no descriptor of it reaches the command" {
	# A script's interpreter cannot open the close-on-exec descriptor srt executes bwrap
	# by: before, "No such file or directory".
	printf '#!/bin/sh\n: > "%s/wrapped"\nexec %s "$@"\n' "$T" "$(command -v bwrap)" \
	    > "$T/bwrap-wrapper"
	chmod 755 "$T/bwrap-wrapper"
	sed "1s|{|{ \"bwrapPath\": \"$T/bwrap-wrapper\",|" "$T/s.json" > "$T/w.json"
	run srt -s "$T/w.json" -c 'echo ran; ls -l /proc/self/fd/'
	[ "$status" -eq 0 ]
	[[ "$output" == ran* ]]
	[ -e "$T/wrapped" ]
	[[ "$output" != *bwrap-wrapper* ]]
}

@test "allowAllUnixSockets runs srt-seccomp with AF_UNIX allowed; otherwise AF_UNIX sockets are refused" {
	command -v python3 >/dev/null || skip "no python3"
	run srt -s "$T/s.json" -- python3 "$RO" unix-socket
	[[ "$output" != *unix-ok* ]]
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},
 "filesystem":{"denyRead":[],"allowWrite":["$T/ws"],"denyWrite":[]}}
JSON
	run srt -d -s "$T/u.json" -- python3 "$RO" unix-socket
	[[ "$output" == *unix-ok* ]]
	# One launch sequence: srt-seccomp is there, only its AF_UNIX rule is off.
	[[ "$output" == *"-- $SRT_BIN/srt-seccomp "*"--allow-unix-sockets"* ]]
	[[ "$output" == *" --as-pid-1 "* ]]
	run -0 srt -s "$T/u.json" -c 'cat /proc/1/comm'
	[ "$output" = srt-seccomp ]
	# The rest of its filter holds: no user namespace, no io_uring, no TIOCSTI ...
	run srt -s "$T/u.json" -- unshare -U true
	[ "$status" -ne 0 ]
	run srt -s "$T/u.json" -- "$SRT_TESTBIN/try-syscall" io_uring_setup
	[[ "$output" == *EPERM* ]]
	# ... and the write guard.
	run srt -s "$T/u.json" -c "cd $T/ws && echo x > .bashrc"
	[ "$status" -ne 0 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[ ! -e "$T/ws/.bashrc" ]
}

@test "allowNestedUserNamespaces lets the command create a user namespace" {
	run srt -s "$T/s.json" -- unshare -U true
	[ "$status" -ne 0 ]
	cat > "$T/n.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},"allowNestedUserNamespaces":true}
JSON
	run srt -s "$T/n.json" -- unshare -U true
	[ "$status" -eq 0 ]
}

@test "enableWeakerNestedSandbox binds the host's /proc instead of a fresh one" {
	cat > "$T/w.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},"enableWeakerNestedSandbox":true}
JSON
	run srt -d -s "$T/w.json" -c 'echo ran'
	[[ "$output" == *"--bind /proc /proc"* ]]
	[[ "$output" != *"--proc /proc"* ]]
	run srt -d -s "$T/s.json" -c 'echo ran'
	[[ "$output" == *"--proc /proc"* ]]
}

@test "the sandbox has its own network: only loopback, direct connections fail" {
	port=$(free_port)
	python3 -m http.server "$port" --bind 127.0.0.1 --directory "$T/ws" >/dev/null 2>&1 &
	srv=$!
	for i in $(seq 100); do curl -s "http://127.0.0.1:$port/" >/dev/null && break; sleep 0.1; done
	run srt -s "$T/s.json" -c "curl -s -m 3 --noproxy '*' http://127.0.0.1:$port/ && echo reached; cat /proc/net/dev | tail -n +3 | cut -d: -f1"
	kill "$srv"
	[[ "$output" != *reached* ]]
	[ "$(echo "$output" | tr -d ' ' | sort -u | tr '\n' ' ')" = "lo " ]
}
