#!/usr/bin/env bats
# The Windows launch path (srt-launch/windows/winlaunch.c), run on this host by
# build/tests/win-launch through the POSIX side of its system interface (winsys_posix.c):
# the real srt-httpd and srt-socksd on loopback ports of windows.proxyPortRange, and
# srt-win-fake (srt-win built against its recording fake, which runs commands for real) as
# srt-win, behind a wrapper that records its command line and the plan it was given.
# Nothing here runs on Windows.
load ../helpers
bats_require_minimum_version 1.5.0

setup() {
	srt_setup
	SW="$SRT_TESTBIN/srt-win-fake"
	[ -x "$SW" ] || skip "build/tests/srt-win-fake is not built (make check builds it)"
	S="$T/stub"
	mkdir -p "$S" "$T/work" "$T/home/.ssh" "$T/tmp"
	: >"$T/work/.env"
	export SRT_WIN_FAKE_DIR="$T/fake" STUB_DIR="$S" HOME="$T/home" TMPDIR="$T/tmp"
	mkdir -p "$SRT_WIN_FAKE_DIR"
	cat >"$S/srt-win" <<EOF
#!/bin/sh
printf '%s\0' "\$@" >"\$STUB_DIR/sw.argv"
prev=
for a; do [ "\$prev" = --plan ] && cp "\$a" "\$STUB_DIR/plan" && echo "\$a" >"\$STUB_DIR/plan.path"; prev=\$a; done
exec "$SW" "\$@"
EOF
	chmod +x "$S/srt-win"
	HOLDERS=()
	free_range 10
	"$SW" install --proxy-port-range "$LO-$HI" 2>/dev/null
	settings
}

teardown() {
	local p
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	srt_teardown
}

# LO and HI: N consecutive loopback ports free right now on 127.0.0.1 and ::1.
free_range() {
	read -r LO HI < <(python3 "$BATS_TEST_DIRNAME/../helpers/free-ports.py" "$1")
	[ -n "$LO" ]
}

# The settings: a filesystem policy worth a plan, the network allowlist $1, the windows
# block's extra members $2.
settings() {
	cat >"$T/s.json" <<JSON
{
  "network": { "allowedDomains": ${1:-[\"127.0.0.1\"]}, "deniedDomains": [] },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [".env"] },
  "windows": { "proxyPortRange": [$LO, $HI], "srtWin": { "path": "$S/srt-win" } ${2:-} }
}
JSON
}

# A listener on 127.0.0.1 (or ::1 with 6) port $1 until the test ends.
hold_port() {
	local host=127.0.0.1
	[ "${2:-}" = 6 ] && host=::1
	python3 "$NETPROBE" hold "$host" "$1" 120 &
	HOLDERS+=("$!")
	for i in $(seq 50); do
		python3 "$NETPROBE" open "$host" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

wlaunch() {
	(cd "$T/work" && exec "$SRT_TESTBIN/win-launch" -s "${SETTINGS:-$T/s.json}" "$@")
}

# Word N (from 1) of the recorded srt-win argv.
sw_arg() {
	local w
	mapfile -d '' -t w <"$S/sw.argv"
	printf '%s' "${w[$1 - 1]}"
}

# Nothing accepts on 127.0.0.1 port $1.
port_closed() {
	! (exec 9<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

@test "srt-win launch gets the plan srt-policy prints, the first ports of the range, the block" {
	settings '["127.0.0.1"]' ', "sandboxUser": "srt-sandbox", "backend": "srt-win",
	    "sublayerGuid": "6D1A5F0E-9C1B-4B43-8D77-53A7E0D1B001"'
	run -0 --separate-stderr wlaunch -c 'echo "$http_proxy $ftp_proxy"'
	[ "$output" = "http://127.0.0.1:$LO socks5h://127.0.0.1:$((LO + 1))" ]
	{ printf '%s\0' launch --plan "$(cat "$S/plan.path")" --http-port "$LO" \
	    --socks-port "$((LO + 1))" --proxy-port-range "$LO-$HI" --sandbox-user srt-sandbox \
	    --sublayer-guid 6D1A5F0E-9C1B-4B43-8D77-53A7E0D1B001 --backend srt-win --held-by
	} >"$T/want"
	head -c "$(wc -c <"$T/want")" "$S/sw.argv" | cmp - "$T/want"
	[ "$(sw_arg 17)" -gt 1 ]
	[ "$(sw_arg 18)" = -- ]
	[ "$(sw_arg 19)" = /bin/sh ]
	[ "$(sw_arg 20)" = -c ]
	[ "$(sw_arg 21)" = 'echo "$http_proxy $ftp_proxy"' ]
	# The plan is the one srt-policy prints for these settings, and it is gone now.
	srt-policy plan --target windows -s "$T/s.json" --cwd "$T/work" >"$T/policy-plan"
	[ -s "$T/policy-plan" ]
	cmp "$T/policy-plan" "$S/plan"
	grep -q "\"ace\":\"deny\",\"path\":\"$T/home/.ssh\"" "$S/plan"
	[ ! -e "$(cat "$S/plan.path")" ]
	[ -z "$(ls -A "$T/tmp")" ]
	# Without the block's members, srt-win is not asked to check them; a command without
	# -c goes as it is.
	settings
	run -0 --separate-stderr wlaunch -- printf '%s|' 'a b' "c'd"
	[ "$output" = "a b|c'd|" ]
	[ "$(sw_arg 8)" = --proxy-port-range ]
	[ "$(sw_arg 10)" = --held-by ]
	[ "$(tr '\0' '\n' <"$S/sw.argv" | tail -5 | tr '\n' ' ')" = "-- printf %s| a b c'd " ]
}

@test "a port taken on 127.0.0.1 or ::1 is skipped; an exhausted range fails, nothing left" {
	hold_port "$LO"
	python3 "$NETPROBE" v6 2>/dev/null &&
	    hold_port "$((LO + 1))" 6 || hold_port "$((LO + 1))"
	run -0 --separate-stderr wlaunch -c 'echo "$http_proxy $ftp_proxy"'
	[ "$output" = "http://127.0.0.1:$((LO + 2)) socks5h://127.0.0.1:$((LO + 3))" ]
	# Two ports in the range, both taken: nothing runs, no proxy stays, no file either.
	HI=$((LO + 2)) settings
	hold_port "$((LO + 2))"
	rm -f "$S/sw.argv"
	run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[ "$stderr" = "win-launch: windows.proxyPortRange $LO-$((LO + 2)): no port left free on 127.0.0.1 and ::1 for srt-httpd; free one or widen the range (and srt-win install --proxy-port-range to match)" ]
	[ ! -e "$S/ran" ]
	[ ! -e "$S/sw.argv" ]
	# One port left: srt-httpd gets it, srt-socksd has none.
	HI=$((LO + 3)) settings
	run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[[ "$stderr" == *"proxyPortRange $LO-$((LO + 3)): no port left free"*"for srt-socksd;"* ]]
	[ ! -e "$S/ran" ]
	port_closed "$((LO + 3))"
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "network: the command's traffic goes through the proxies and the policy decides" {
	echo hello >"$T/work/index.html"
	port=$(free_port)
	(cd "$T/work" && exec python3 -m http.server --bind 127.0.0.1 "$port" >/dev/null 2>&1) &
	HOLDERS+=("$!")
	wait_listening "$port"
	run -0 --separate-stderr wlaunch --violations "$T/v.jsonl" -c "
	    curl -sS http://127.0.0.1:$port/index.html
	    curl -s -o /dev/null -w '%{http_code}\n' http://denied.example/
	    curl -sS -x \"\$ftp_proxy\" http://127.0.0.1:$port/index.html
	    curl -s -x \"\$ftp_proxy\" http://denied.example/ || echo socks-refused"
	[ "${lines[0]}" = hello ]
	[ "${lines[1]}" = 403 ]
	[ "${lines[2]}" = hello ]
	[ "${lines[3]}" = socks-refused ]
	[[ "$stderr" == *"<sandbox_violations>"*"deny network-outbound denied.example:80 (host is not on the allow list)"* ]]
	[ "$(grep -c 'denied.example' "$T/v.jsonl")" -eq 2 ]
	# With nothing allowed the same fetch is refused.
	settings '[]'
	run -0 --separate-stderr wlaunch -c "curl -s -o /dev/null -w '%{http_code}\n' http://127.0.0.1:$port/index.html"
	[ "$output" = 403 ]
}

@test "windows.backend and windows.srtWin.path: clear errors, nothing runs" {
	settings '[]' ', "backend": "mxc"'
	run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[ "$stderr" = 'win-launch: windows.backend "mxc": srt has only the srt-win backend' ]
	sed "s|$S/srt-win|$T/none/srt-win|" "$T/s.json" >"$T/s2.json"
	sed -i 's/"backend": "mxc"//; s/} ,/}/' "$T/s2.json"
	SETTINGS="$T/s2.json" run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[ "$stderr" = "win-launch: $T/none/srt-win: no such program (windows.srtWin.path)" ]
	# A relative srtWin.path is refused, even where the working directory holds one.
	cp "$S/srt-win" "$T/work/srt-win"
	sed "s|$T/none/srt-win|srt-win|" "$T/s2.json" >"$T/s4.json"
	grep -q '"path": "srt-win"' "$T/s4.json"
	SETTINGS="$T/s4.json" run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[ "$stderr" = 'win-launch: windows.srtWin.path "srt-win" is not an absolute path: srt runs srt-win on the host, and would look a relative name up in the working directory, where the sandboxed command may write' ]
	# Without srtWin.path, srt-win is the one beside srt (here: build/bin, which has none).
	cat >"$T/s3.json" <<JSON
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] },
  "windows": { "proxyPortRange": [$LO, $HI] } }
JSON
	SETTINGS="$T/s3.json" run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[ "$stderr" = "win-launch: $SRT_BIN/srt-win: no such program (srt-win is looked for beside srt unless windows.srtWin.path names it)" ]
	[ ! -e "$S/ran" ]
	# srt-win's own refusal (settings that do not match its install) is its status.
	settings
	"$SW" install --force --proxy-port-range "$((LO + 1))-$HI" 2>/dev/null
	run -15 --separate-stderr wlaunch -c "touch '$S/ran'"
	[[ "$stderr" == *'"code":"install_mismatch"'* ]]
	[ ! -e "$S/ran" ]
	# ... and so is another sublayer than the install's.
	"$SW" install --force --proxy-port-range "$LO-$HI" 2>/dev/null
	settings '[]' ', "sublayerGuid": "00000000-0000-4000-8000-000000000001"'
	run -15 --separate-stderr wlaunch -c "touch '$S/ran'"
	[[ "$stderr" == *'the sublayer 00000000-0000-4000-8000-000000000001 but srt-win was installed for srt-sandbox'* ]]
	[ ! -e "$S/ran" ]
}

@test "a proxy that exits at start: nothing is launched, 125, its reason and ours on stderr" {
	# The proxies' directory: the real srt-socksd, and srt-httpd run with an option it
	# refuses, so that it exits during start-up as a broken one would.
	mkdir -p "$T/bin"
	ln -s "$SRT_BIN/srt-socksd" "$T/bin/srt-socksd"
	printf '#!/bin/sh\nexec "%s" --max-conns 0 "$@"\n' "$SRT_BIN/srt-httpd" >"$T/bin/srt-httpd"
	chmod +x "$T/bin/srt-httpd"
	SRT_BIN="$T/bin" run -125 --separate-stderr wlaunch -c "touch '$S/ran'"
	[[ "$stderr" == *'srt-httpd: --max-conns: 0 is not a number'* ]]
	[[ "$stderr" == *'srt-httpd exited at start (status 2); nothing was launched'* ]]
	[ ! -e "$S/ran" ]
	[ ! -e "$S/sw.argv" ]
	# The other proxy ended with the run, the ports are free, the plan is gone.
	port_closed "$LO"
	port_closed "$((LO + 1))"
	[ -z "$(ls -A "$T/tmp")" ]
	# The same proxies, working: the run goes through.
	rm "$T/bin/srt-httpd"
	ln -s "$SRT_BIN/srt-httpd" "$T/bin/srt-httpd"
	SRT_BIN="$T/bin" run -0 wlaunch -c "touch '$S/ran'"
	[ -e "$S/ran" ]
}

@test "exit status: the command's, 128+N for a signal, srt-win's 127 and 126 unchanged" {
	run -7 wlaunch -c 'exit 7'
	run -127 --separate-stderr wlaunch -- "$T/nosuch"
	[[ "$stderr" == *'"code":"command_not_found","message":"srt-win: runner: '"$T/nosuch"': command not found'* ]]
	printf 'echo hi\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	run -126 --separate-stderr wlaunch -- "$T/noexec"
	[[ "$stderr" == *'"code":"command_not_executable"'* ]]
	run -0 wlaunch -- true
	run -137 wlaunch -c 'kill -KILL $$'
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "SIGINT (Ctrl-C): passed on, and srt waits for the command's own status past --stop-ms" {
	env --default-signal=INT "$SRT_TESTBIN/win-launch" --stop-ms 500 -s "$T/s.json" \
	    -c "echo \$\$ >'$S/cmd.pid'; trap 'sleep 1.5; exit 7' INT; while :; do sleep 0.1; done" &
	pid=$!
	for i in $(seq 100); do [ -s "$S/cmd.pid" ] && break; sleep 0.05; done
	[ -s "$S/cmd.pid" ]
	HOLDERS+=("$(cat "$S/cmd.pid")")
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 7 ]
	port_closed "$LO"
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "SIGTERM: passed on; the proxies end, the plan goes, 128+15" {
	(cd "$T/work" && exec "$SRT_TESTBIN/win-launch" --stop-ms 1000 -s "$T/s.json" \
	    -c "echo \$\$ >'$S/cmd.pid'; exec sleep 30") &
	pid=$!
	for i in $(seq 100); do [ -s "$S/cmd.pid" ] && break; sleep 0.05; done
	[ -s "$S/cmd.pid" ]
	HOLDERS+=("$(cat "$S/cmd.pid")")
	wait_listening "$LO"
	wait_listening "$((LO + 1))"
	[ -n "$(ls -A "$T/tmp")" ]
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 143 ]
	port_closed "$LO"
	port_closed "$((LO + 1))"
	[ -z "$(ls -A "$T/tmp")" ]
}
