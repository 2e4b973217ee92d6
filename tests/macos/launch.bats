#!/usr/bin/env bats
# The macOS launch path (srt-launch/macos/macos.c), run on this host by
# build/tests/macos-launch with stubs in place of /usr/bin/sandbox-exec and /usr/bin/log:
# the sandbox-exec stub records its argv (the profile among it) and environment, then runs
# the command without a sandbox; the log stub records its argv and prints the lines a test
# gives it, the log tag put in, until it is stopped. The proxies are the real srt-httpd
# and srt-socksd.
load ../helpers
bats_require_minimum_version 1.5.0

setup() {
	srt_setup
	S="$T/stub"
	mkdir -p "$S" "$T/work"
	cat >"$S/sandbox-exec" <<'EOF'
#!/bin/sh
d=${STUB_DIR:?}
printf '%s\0' "$@" >"$d/sx.argv"
env >"$d/sx.env"
[ "$1" = -p ] || exit 99
printf '%s' "$2" >"$d/sx.profile"
shift 2
exec "$@"
EOF
	cat >"$S/log" <<'EOF'
#!/bin/sh
d=${STUB_DIR:?}
printf '%s\0' "$@" >"$d/log.argv"
echo $$ >"$d/log.pid"
trap 'echo stopped >"$d/log.stopped"; exit 0' TERM
tag=$(printf '%s' "$3" | sed 's/.*"\(.*\)")$/\1/')
echo "Filtering the log data using \"$3\""
if [ -n "${STUB_LINES:-}" ]; then
	sleep "${STUB_DELAY:-0}" & wait $!
	sed "s/@TAG@/$tag/g" "$STUB_LINES"
fi
while :; do sleep 1 & wait $!; done
EOF
	chmod +x "$S/sandbox-exec" "$S/log"
	export STUB_DIR="$S"
	write_settings "$T/s.json"
}

# macos-launch with the stubs, from $T/work; extra options before "--" go first.
mlaunch() {
	(cd "$T/work" && exec "$SRT_TESTBIN/macos-launch" --sandbox-exec "$S/sandbox-exec" \
	    --log "$S/log" --drain-ms 300 -s "${SETTINGS:-$T/s.json}" "$@")
}

# Word N (from 1) of the recorded sandbox-exec argv.
sx_arg() {
	local w
	mapfile -d '' -t w <"$S/sx.argv"
	printf '%s' "${w[$1 - 1]}"
}

@test "sandbox-exec gets -p PROFILE and the command as it was given, through execve" {
	run -0 mlaunch -- printf '%s|' 'a b' "c'd" '$HOME'
	[ "$output" = "a b|c'd|\$HOME|" ]
	[ "$(sx_arg 1)" = -p ]
	{ printf -- '-p\0'; cat "$S/sx.profile"; printf '\0%s' printf '%s|' 'a b' "c'd" '$HOME';
	  printf '\0'; } | cmp - "$S/sx.argv"
	run -0 mlaunch -c 'echo "$0: $((6 * 7))"'
	[ "$output" = "/bin/bash: 42" ]
	[ "$(sx_arg 3)" = /bin/bash ] && [ "$(sx_arg 4)" = -c ]
}

@test "the profile is well-formed and lets the command reach the two proxy ports only" {
	run -0 mlaunch -c true
	"$SRT_TESTBIN/sbpl-rules" "$S/sx.profile" >"$T/rules"
	http=$(sed -n 's|^HTTP_PROXY=http://localhost:\([0-9]*\)$|\1|p' "$S/sx.env")
	socks=$(sed -n 's|^FTP_PROXY=socks5h://localhost:\([0-9]*\)$|\1|p' "$S/sx.env")
	[ -n "$http" ] && [ -n "$socks" ] && [ "$http" != "$socks" ]
	grep '^allow network' "$T/rules" | sort >"$T/net"
	printf 'allow network-%s\t(%s ip "localhost:%s")\n' \
	    bind local "$http" inbound local "$http" outbound remote "$http" \
	    bind local "$socks" inbound local "$socks" outbound remote "$socks" | sort | cmp - "$T/net"
	# ... and the tag log stream filters on is the one in every deny's message.
	tag=$(tr '\0' '\n' <"$S/log.argv" | sed -n 's/^(eventMessage ENDSWITH "\(.*\)")$/\1/p')
	[[ "$tag" == SRT_*_SBX ]]
	grep -q "^(deny default (with message \"$tag\"))$" "$S/sx.profile"
	[ "$(grep -c 'with message' "$S/sx.profile")" -eq "$(grep -c "with message \"$tag\"" "$S/sx.profile")" ]
}

@test "the environment points at the proxies; TMPDIR is private, writable, then removed" {
	run -0 mlaunch -c 'echo "$TMPDIR"; touch "$TMPDIR/x" && echo wrote'
	tmp=${lines[0]}
	[ "${lines[1]}" = wrote ]
	[[ "$tmp" == /*/srt.* ]]
	[ ! -e "$tmp" ]
	grep -qx "TMPDIR=$tmp" "$S/sx.env"
	grep -qx 'SANDBOX_RUNTIME=1' "$S/sx.env"
	grep -qx "NO_PROXY=localhost,127.0.0.1,::1,169.254.0.0/16,10.0.0.0/8,172.16.0.0/12,192.168.0.0/16" "$S/sx.env"
	grep -q '^JAVA_TOOL_OPTIONS=.*-Djava.net.preferIPv4Stack=true$' "$S/sx.env"
	"$SRT_TESTBIN/sbpl-rules" "$S/sx.profile" | grep -qxF "allow file-write*	(subpath \"$tmp\")"
}

@test "exit status: the command's, 128+N for a signal, 127 and 126 for a command not run" {
	run -7 mlaunch -c 'exit 7'
	run -137 mlaunch -c 'kill -KILL $$'
	run -127 mlaunch -- no-such-command-srt
	[[ "$output" == *"no-such-command-srt: command not found"* ]]
	printf '#!/bin/sh\n' >"$T/work/noexec"
	run -126 mlaunch -- ./noexec
	run -127 mlaunch -c 'no-such-command-srt'
}

@test "sandbox violations from log stream are reported like the proxies' denials" {
	cat >"$T/lines" <<'EOF'
2025-01-02 10:11:12.345 E  kernel[0:1a2b] (Sandbox) Sandbox: bash(4242) deny(1) file-write-create /Users/me/proj/.bashrc
@TAG@
2025-01-02 10:11:12.346 E  kernel[0:1a2b] Sandbox: mDNSResponder(99) deny(1) network-outbound /private/var/run/mDNSResponder
2025-01-02 10:11:12.347 E  kernel[0:1a2b] Sandbox: cat(4243) deny(1) file-read-data /Users/me/.ssh/id_rsa @TAG@
2025-01-02 10:11:12.348 E  kernel[0:1a2b] Sandbox: git(4244) deny(1) file-write-unlink /Users/me/proj/.git/hooks/pre-commit
EOF
	cat >"$T/s.json" <<'JSON'
{
  "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] },
  "ignoreViolations": { "*": ["/.git/hooks/"] }
}
JSON
	STUB_LINES="$T/lines" run -0 --separate-stderr mlaunch --violations "$T/v.jsonl" -c true
	[ "$stderr" = "<sandbox_violations>
deny file-write-create /Users/me/proj/.bashrc
deny file-read-data /Users/me/.ssh/id_rsa
</sandbox_violations>" ]
	[ "$(wc -l <"$T/v.jsonl")" -eq 2 ]
	grep -q '"violation":"deny file-write-create /Users/me/proj/.bashrc","command":"true"' "$T/v.jsonl"
	# log stream was stopped once the command had ended.
	[ "$(cat "$S/log.stopped")" = stopped ]
	! kill -0 "$(cat "$S/log.pid")" 2>/dev/null
}

@test "lines log stream prints after the command ended are read, for a bounded time" {
	printf 'Sandbox: sh(1) deny(1) file-write-data /late/file\n' >"$T/lines"
	STUB_LINES="$T/lines" STUB_DELAY=0.5 run -0 --separate-stderr \
	    mlaunch --drain-ms 3000 --quiet-ms 1500 -c true
	[[ "$stderr" == *"deny file-write-data /late/file"* ]]
	# Quiet for --quiet-ms: the line that comes later than that is not waited for.
	start=$(date +%s%N)
	STUB_LINES="$T/lines" STUB_DELAY=2 run -0 --separate-stderr \
	    mlaunch --drain-ms 3000 --quiet-ms 200 -c true
	[[ "$stderr" != *"/late/file"* ]]
	[ $(( ($(date +%s%N) - start) / 1000000 )) -lt 1500 ]
}

@test "network: allowed through the proxy, denied with a violation line (own netns)" {
	unshare -n true 2>/dev/null || skip "cannot make a network namespace here"
	cat >"$T/s.json" <<'JSON'
{
  "network": { "allowedDomains": ["127.0.0.1"], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	echo hello >"$T/work/index.html"
	cat >"$T/netns.sh" <<'EOF'
set -eu
ip link set lo up
cd "$T/work"
python3 -m http.server --bind 127.0.0.1 18931 >/dev/null 2>&1 &
srv=$!
for i in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/18931) 2>/dev/null && break; sleep 0.1; done
rc=0
"$SRT_TESTBIN/macos-launch" --sandbox-exec "$S/sandbox-exec" --log "$S/log" --drain-ms 100 \
    -s "$T/s.json" -c 'curl -sS http://127.0.0.1:18931/index.html;
	curl -s -o /dev/null -w "%{http_code}\n" http://denied.example/;
	curl -s -o /dev/null -w "%{http_code}\n" -x "" http://127.0.0.1:18931/ || echo direct-ok' || rc=$?
kill $srv
exit $rc
EOF
	T="$T" S="$S" run -0 --separate-stderr unshare -n bash "$T/netns.sh"
	[ "${lines[0]}" = hello ]
	[ "${lines[1]}" = 403 ]
	[[ "$stderr" == *"deny network-outbound denied.example:80 (host is not on the allow list)"* ]]
}

@test "only descriptors 0, 1 and 2 reach the command" {
	exec 9</dev/null
	run -0 mlaunch -c 'ls /proc/self/fd'
	exec 9<&-
	# 0, 1, 2 and the directory ls reads.
	[ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 " ]
}

@test "signals reach the command; everything is stopped and removed after it" {
	(cd "$T/work" && exec "$SRT_TESTBIN/macos-launch" --sandbox-exec "$S/sandbox-exec" \
	    --log "$S/log" -s "$T/s.json" -c 'echo "$TMPDIR" >"$STUB_DIR/tmp"; exec sleep 30') &
	pid=$!
	for i in $(seq 100); do [ -s "$S/tmp" ] && [ -s "$S/log.pid" ] && break; sleep 0.05; done
	[ -s "$S/tmp" ]
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	[ ! -e "$(cat "$S/tmp")" ]
	[ "$(cat "$S/log.stopped")" = stopped ]
}

@test "the user's own proxies: their ports in the profile and the environment" {
	cat >"$T/s.json" <<'JSON'
{
  "network": { "allowedDomains": [], "deniedDomains": [], "httpProxyPort": 18080, "socksProxyPort": 11080 },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	run -0 mlaunch -c true
	grep -qx 'HTTP_PROXY=http://localhost:18080' "$S/sx.env"
	grep -qx 'FTP_PROXY=socks5h://localhost:11080' "$S/sx.env"
	"$SRT_TESTBIN/sbpl-rules" "$S/sx.profile" | grep '^allow network' | sort >"$T/net"
	printf 'allow network-%s\t(%s ip "localhost:%s")\n' \
	    bind local 18080 inbound local 18080 outbound remote 18080 \
	    bind local 11080 inbound local 11080 outbound remote 11080 | sort | cmp - "$T/net"
}

@test "no sandbox-exec: srt fails (125) and runs nothing; no log: it runs, with a warning" {
	run -125 "$SRT_TESTBIN/macos-launch" --sandbox-exec "$T/none" --log "$S/log" \
	    -s "$T/s.json" -c 'touch "$STUB_DIR/ran"'
	[[ "$output" == *"$T/none"* ]]
	[ ! -e "$S/ran" ]
	run -0 "$SRT_TESTBIN/macos-launch" --sandbox-exec "$S/sandbox-exec" --log "$T/none" \
	    -s "$T/s.json" -c 'touch "$STUB_DIR/ran"'
	[ -e "$S/ran" ]
	[[ "$output" == *"will not be reported"* ]]
}
