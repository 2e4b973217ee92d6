#!/usr/bin/env bats
# srt-win.exe itself, under Wine, for what Wine implements: usage and the JSON errors,
# the dry run, the runner (exit status, environment, and its kill-on-close job ending
# what the command started) and the acl calls reaching SetNamedSecurityInfoW with the
# plan's entries, each seen in the DACL Wine's server was given for its object (a
# server of the test's own traces its requests). Wine keeps no file security
# descriptor across opens and cannot create
# or log on as another account, so install, exec and the filters are not run here
# (tests/windows/srt-win.bats runs their logic against the fake).
#
# Last, srt's own Windows system layer (srt-launch/windows/winsys_win32.c, under the
# launch path of srt-launch/windows/winlaunch.c) through build/win/tests/winsys-drive.exe,
# with winprobe.exe as its child: loopback listeners, the explicit handle list, a listener
# handed over by its carrier (WSADuplicateSocketW; the real proxies on one are in
# tests/windows/proxies-wine.bats), the anonymous and private files, exit status, ending a
# child, the proxies' kill-on-close job, STATUS_CONTROL_C_EXIT told as 130. The runner's
# Ctrl-C runs on a console script(1) lends Wine.
#
# Then srt.exe itself: its flags and usage errors, the managed policy (which Wine's
# descriptors make srt.exe refuse), and, built without the managed layer, the settings
# errors as the Linux build words them and a run up to srt-win launch, which stops at
# the sandbox account Wine cannot create.
#
# One Wine prefix for the file, in its temp dir; Wine starts headless and its server is
# stopped at the end, so nothing is left running.
bats_require_minimum_version 1.5.0
load ../helpers

JP="$BATS_TEST_DIRNAME/../helpers/json-path.py"   # values out of srt-win's JSON

# jp DOC PATH: the value at PATH in the JSON text DOC (tests/helpers/json-path.py).
jp() { python3 "$JP" "$1" "$2"; }

setup_file() {
	export WINE WINESERVER_BIN EXE PROBE DRIVE SRTEXE SRTEXE_NM
	WINE=$(wine_bin) || WINE=
	WINESERVER_BIN=$(wineserver_bin) || WINESERVER_BIN=
	EXE="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/build/win/srt-win.exe"
	PROBE="$(dirname "$EXE")/tests/winprobe.exe"
	DRIVE="$(dirname "$EXE")/tests/winsys-drive.exe"
	SRTEXE="$(dirname "$EXE")/srt.exe"
	SRTEXE_NM="$(dirname "$EXE")/srt-nomanaged.exe"
	[ -n "$WINE" ] && [ -f "$EXE" ] && [ -f "$PROBE" ] || return 0
	wine_prefix
	# The first start makes the prefix (several seconds); the tests then reuse it.
	"$WINE" "$EXE" -V >/dev/null 2>&1 || true
}

teardown_file() {
	wine_stop
}

teardown() {
	# The child the last test leaves outside srt's job, if the test did not get to it.
	[ -z "${OUTSIDE:-}" ] || "$WINE" "$PROBE" kill "$OUTSIDE" 2>/dev/null || true
	srt_teardown
}

setup() {
	[ -n "$WINE" ] || skip "Wine is not installed (scripts/deps installs wine64)"
	[ -f "$EXE" ] && [ -f "$PROBE" ] || skip "build/win/srt-win.exe is not built (make win)"
	srt_setup
}

# The heartbeat's counter. The probe rewrites the file (fopen "w") every 50 ms, so a read
# can fall between the truncation and the write: read again until it holds a number.
beat_read() {
	local v i
	for i in $(seq 1 50); do
		v=$(tr -dc 0-9 <"$1" 2>/dev/null)
		[ -n "$v" ] && break
		sleep 0.01
	done
	echo "$v"
}

# Z:\... for a Linux path (Wine maps Z: to /).
winpath() {
	printf 'Z:%s' "${1//\//\\}"
}

@test "wine: usage and the documented JSON errors" {
	run --separate-stderr "$WINE" "$EXE" bogus
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == '{"code":"usage","message":"srt-win: unknown subcommand \"bogus\""}' ]]
	run --separate-stderr "$WINE" "$EXE" acl grant --holder-pid 1
	[ "$status" -eq 2 ]
	[[ "$stderr" == '{"code":"usage","message":"srt-win: acl grant: --holder-pid and --sandbox-user-sid are required"}' ]]
	run --separate-stderr "$WINE" "$EXE" exec -- cmd.exe
	[ "$status" -eq 15 ]
	[[ "$stderr" == *'"code":"not_provisioned"'* ]]
	run "$WINE" "$EXE" install --dry-run --proxy-port-range 61000-61009
	[ "$status" -eq 0 ]
	[ "$(jp "$output" 'filters.#')" = 4 ]
	[ "$(jp "$output" filters.0.remote_ports)" = '[61000,61009]' ]
}

@test "wine: the runner relays the program's exit status and passes PATH and proxies only" {
	run "$WINE" "$EXE" runner -- "$(winpath "$PROBE")" exit 7
	[ "$status" -eq 7 ]
	SECRET=x run --separate-stderr "$WINE" "$EXE" runner --write-restricted-token \
	    --env 'PATH=C:\windows\system32' --env HTTPS_PROXY=http://127.0.0.1:60080 -- \
	    "$(winpath "$PROBE")" env
	[ "$status" -eq 0 ]
	[[ "$output" == *$'https_proxy=http://127.0.0.1:60080\r'* || "$output" == *$'https_proxy=http://127.0.0.1:60080'* ]]
	[[ "$output" == *'PATH=C:\windows\system32'* ]]
	[[ "$output" != *SECRET* ]]
	run "$WINE" "$EXE" runner -- "$(winpath "$PROBE")" args 'a b' '' 'q"x' 'tail\'
	[ "$status" -eq 0 ]
	[ "$(tr -d '\r' <<<"$output")" = $'[a b]\n[]\n[q"x]\n[tail\\]' ]
}

@test "wine: the runner tells a missing program (127) and one Windows cannot run (126)" {
	run -127 --separate-stderr "$WINE" "$EXE" runner -- "$(winpath "$T/nosuch.exe")"
	[[ "$stderr" == '{"code":"command_not_found","message":"srt-win: runner: '* ]]
	[[ "$stderr" == *'nosuch.exe: command not found: CreateProcessAsUserW '* ]]
	run -127 --separate-stderr "$WINE" "$EXE" runner -- srt-no-such-program
	# A file that is no program: ERROR_BAD_EXE_FORMAT.
	printf 'not a program\n' >"$T/bad.exe"
	run --separate-stderr "$WINE" "$EXE" runner -- "$(winpath "$T/bad.exe")"
	echo "status $status: $stderr"
	[ "$status" -eq 126 ]
	[[ "$stderr" == '{"code":"command_not_executable","message":"srt-win: runner: '*'bad.exe: cannot be run: '* ]]
}

# Wine gives a Ctrl-C (GenerateConsoleCtrlEvent) only to processes on a console, and
# makes one only on a terminal: script(1) lends it one. (Without it the call fails with
# ERROR_INVALID_ACCESS; Wine 8 fails CTRL_BREAK_EVENT with ERROR_INVALID_HANDLE even
# there, and ends a program without a handler with status 0, not
# STATUS_CONTROL_C_EXIT.)
@test "wine: a Ctrl-C on the console does not end the runner first; it relays the program's status" {
	command -v script >/dev/null || skip "script(1) is not installed (util-linux)"
	local p
	p=$(winpath "$PROBE")
	timeout 180 script -qec "$(printf '%q ' "$WINE" "$PROBE" ctrlc "$(winpath "$T/flag")" \
	    "$(winpath "$T/out")" "$(winpath "$EXE")" runner -- "$p" trapint \
	    "$(winpath "$T/flag")")" /dev/null >/dev/null 2>&1 </dev/null
	[ "$(tr -d '\r' <"$T/out")" = 7 ]
}

@test "wine: the runner's job kills what the program started when the runner ends" {
	beat="$T/beat"
	"$WINE" "$EXE" runner -- "$(winpath "$PROBE")" tree "$(winpath "$beat")" 3>&- &
	runner=$!
	# Wait for the grandchild's heartbeat, and see it rise (Wine starts slowly on a
	# loaded machine: up to 180 s).
	for i in $(seq 1 1800); do
		[ "$(tr -dc 0-9 <"$beat" 2>/dev/null)" -ge 3 ] 2>/dev/null && break
		sleep 0.1
	done
	a=$(beat_read "$beat")
	sleep 0.5
	b=$(beat_read "$beat")
	[ "$b" -gt "$a" ]
	# The runner dies without a word: its job handle closes, and with it the job.
	kill -KILL "$runner"
	wait "$runner" 2>/dev/null || true
	sleep 1.5
	a=$(tr -dc 0-9 <"$beat")
	sleep 1
	b=$(tr -dc 0-9 <"$beat")
	[ "$a" = "$b" ]
	[ -z "$(ps -eo args | grep -F -- "$(winpath "$beat")" | grep -v grep)" ]
}

@test "wine: acl grant and revoke reach the API with the plan's entries" {
	mkdir -p "$T/proj" "$T/home/.ssh"
	: >"$T/proj/.env"
	cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [".env"]}}
JSON
	HOME="$T/home" srt-policy plan --target windows -s "$T/s.json" --cwd "$T/proj" |
	    sed 's#"path":"/\([^"]*\)"#"path":"Z:/\1"#; s#/#\\\\#g' >"$T/plan"
	grep -q '"path":"Z:\\\\' "$T/plan"
	"$WINE" "$(winpath "$PROBE")" hold "$(winpath "$T/holder")" 3>&- &
	hp=$!
	for i in $(seq 1 50); do [ -s "$T/holder" ] && break; sleep 0.1; done
	h=$(tr -d '\r\n' <"$T/holder")
	run --separate-stderr "$WINE" "$EXE" -d acl grant --holder-pid "$h" \
	    --sandbox-user-sid S-1-5-21-1000-2000-3000-1001 --json <"$T/plan"
	[ "$status" -eq 0 ]
	w=$(winpath "$T")
	sid=S-1-5-21-1000-2000-3000-1001
	# One DACL write per object, with exactly the plan's entry among the ones Wine
	# reports there: SetNamedSecurityInfoW where children inherit the change,
	# SetFileSecurityW (no walk of the tree beneath) where they do not.
	# The write root's own DELETE denied first (it cannot be moved away), then the
	# delete-child deny that keeps .env in place.
	grep -F "SetNamedSecurityInfoW $w\\proj: deny:$sid:0x00010000:- deny:$sid:0x00000040:- " <<<"$stderr"
	grep -F "SetNamedSecurityInfoW $w\\proj:" <<<"$stderr" | grep -F "allow:$sid:0x001301bf:OICI"
	grep -F "SetNamedSecurityInfoW $w\\home\\.ssh: deny:$sid:0x00000029:OICI" <<<"$stderr"
	grep -F "SetFileSecurityW $w\\home: deny:$sid:0x00000040:-" <<<"$stderr"
	grep -F "SetFileSecurityW $w\\proj\\.env: deny:$sid:0x000d0156:-" <<<"$stderr"
	[ "$(grep -c -E 'Set(NamedSecurityInfo|FileSecurity)W' <<<"$stderr")" -eq 4 ]
	[[ "$output" == *'"status":"granted"'* ]]
	# Wine forgets descriptors, so revoke (while the holder still runs) finds the
	# entries gone; it still reads each object and drops every record (six: the
	# root's DELETE deny is one).
	run --separate-stderr "$WINE" "$EXE" acl revoke --holder-pid "$h" \
	    --sandbox-user-sid S-1-5-21-1000-2000-3000-1001 --json
	kill "$hp"; wait "$hp" 2>/dev/null || true
	[ "$status" -eq 0 ]
	[ "$(grep -o '"status":"gone"' <<<"$output" | wc -l)" -eq 6 ]
	run "$WINE" "$EXE" acl list
	[ -z "$(tr -d '\r\n' <<<"$output")" ]
}

# Issue 31 item 11: every plan entry, a file's deny included, reaches the object it
# names. srt-win sets each with SetNamedSecurityInfoW or SetFileSecurityW, which open the
# object by name and write the DACL through that handle; this Wine (8.0, its server built
# without xattr support: no user.wine.sd) keeps a descriptor only with the handle it was
# set through, so a later open (winprobe dacl, srt-win's own revoke) reads one made from
# the Unix mode, for the directories as for the file. What Wine can show is its server's
# record of each write: a server of the test's own, started with -d1, traces every
# set_security_object with the handle's object and the DACL it carried.
@test "wine: every plan entry, a file's deny included, is written to its object, and revoke takes it back" {
	[ -n "$WINESERVER_BIN" ] || skip "wineserver is not installed"
	mkdir -p "$T/proj/w" "$T/home/.ssh"
	echo secret >"$T/proj/w/secret.txt"
	cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["w/secret.txt", "~/.ssh"], "allowWrite": ["w"],
  "denyWrite": ["w/.env"]}}
JSON
	: >"$T/proj/w/.env"
	HOME="$T/home" srt-policy plan --target windows -s "$T/s.json" --cwd "$T/proj" >"$T/plan.linux"
	grep -qF "{\"ace\":\"deny\",\"path\":\"$T/proj/w/secret.txt\",\"rights\":[\"read\"]" "$T/plan.linux"
	sed 's#"path":"/\([^"]*\)"#"path":"Z:/\1"#; s#/#\\\\#g' "$T/plan.linux" >"$T/plan"
	sid=S-1-5-21-1000-2000-3000-1001
	# This test's own server, tracing requests; the next test starts a plain one.
	"$WINESERVER_BIN" -k 2>/dev/null || true
	"$WINESERVER_BIN" -w 2>/dev/null || true
	"$WINESERVER_BIN" -f -d1 2>"$T/trace" &
	sp=$!
	"$WINE" "$(winpath "$PROBE")" hold "$(winpath "$T/holder")" 3>&- &
	hp=$!
	for i in $(seq 1 100); do [ -s "$T/holder" ] && break; sleep 0.1; done
	h=$(tr -d '\r\n' <"$T/holder")
	run --separate-stderr "$WINE" "$EXE" acl grant --holder-pid "$h" --sandbox-user-sid "$sid" --json <"$T/plan"
	[ "$status" -eq 0 ]
	[[ "$output" != *'"status":"failed"'* ]]
	at=$(wc -l <"$T/trace")
	run python3 "$BATS_TEST_DIRNAME/../helpers-win/sdtrace.py" grant "$T/trace" "$T/plan.linux" "$sid"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^ok ' <<<"$output")" -eq "$(grep -c . "$T/plan.linux")" ]
	# Read back by a new open: all of the plan's entries, or (this Wine) none of them.
	held=0 none=0
	while read -r ace path mask inh; do
		run "$WINE" "$PROBE" dacl "$(winpath "$path")"
		[ "$status" -eq 0 ]
		if grep -qxF "$ace $sid $mask $inh" <<<"$(tr -d '\r' <<<"$output")"; then
			held=$((held + 1))
		elif [[ "$output" != *"$sid"* ]]; then
			none=$((none + 1))
		fi
	done < <(python3 "$BATS_TEST_DIRNAME/../helpers-win/sdtrace.py" expect "$T/plan.linux")
	n=$(grep -c . "$T/plan.linux")
	echo "read back: $held held, $none with no entry for the SID, of $n"
	[ "$held" -eq "$n" ] || [ "$none" -eq "$n" ]
	# Revoke (while the holder still runs) reads every object again, and what it writes
	# holds no entry for the SID.
	run --separate-stderr "$WINE" "$EXE" acl revoke --holder-pid "$h" --sandbox-user-sid "$sid" --json
	[ "$status" -eq 0 ]
	[[ "$output" != *'"status":"failed"'* ]]
	run python3 "$BATS_TEST_DIRNAME/../helpers-win/sdtrace.py" revoke "$T/trace:$at" "$T/plan.linux" "$sid"
	echo "$output"
	[ "$status" -eq 0 ]
	run "$WINE" "$EXE" acl list
	[ -z "$(tr -d '\r\n' <<<"$output")" ]
	kill "$hp"; wait "$hp" 2>/dev/null || true
	"$WINESERVER_BIN" -k 2>/dev/null || true
	wait "$sp" 2>/dev/null || true
}

@test "wine: srt's winsys_win32 passes exactly the listed handles, relays status, ends its job" {
	[ -f "$DRIVE" ] || skip "build/win/tests/winsys-drive.exe is not built (make win)"
	# To files, not a pipe: the child left running outside the job holds them open.
	rc=0
	"$WINE" "$DRIVE" "$(winpath "$PROBE")" "$(winpath "$T/held")" "$(winpath "$T/outside")" \
	    >"$T/out" 2>"$T/err" 3>&- || rc=$?
	# What the drive said first: when it stops early (status 125), OUTSIDE is never made.
	cat "$T/out" "$T/err"
	echo "winsys-drive: status $rc"
	outside=
	[ ! -e "$T/outside" ] || outside=$(tr -dc 0-9 <"$T/outside")
	[ -z "$outside" ] || OUTSIDE=$outside
	[ "$rc" -eq 0 ]
	out=$(tr -d '\r' <"$T/out")
	# A port the system chose, then taken; both loopback addresses where Wine has ::1.
	grep -Ex 'listen: port( and ::1)?' <<<"$out"
	grep -qx 'again: 1' <<<"$out"
	# The child reads the anonymous file from its start, writes to the pipe, makes the
	# listening socket from its carrier, and has not the other inheritable handle srt
	# had open.
	grep -qx 'file: policy-bytes' <<<"$out"
	grep -qx 'pipe: written' <<<"$out"
	grep -qx 'socket: listening' <<<"$out"
	grep -qx 'other: not inherited' <<<"$out"
	grep -qx 'status: 0' <<<"$out"
	grep -qx 'from the pipe: pipe' <<<"$out"
	grep -qx 'then: 0' <<<"$out"
	grep -qx 'exit status: 7' <<<"$out"
	# STATUS_CONTROL_C_EXIT is told as srt on Linux tells a SIGINT: 128+2.
	grep -qx 'after Ctrl-C: 130' <<<"$out"
	grep -qx 'private file: made' <<<"$out"
	grep -qx 'removed: yes' <<<"$out"
	grep -qx 'killed: yes' <<<"$out"
	# The child in the job ended with the driver; the one outside it did not.
	held=$(tr -dc 0-9 <"$T/held")
	[ -n "$held" ]
	[ -n "$outside" ]
	sleep 1
	run "$WINE" "$PROBE" alive "$outside"
	[ "$(tr -d '\r' <<<"$output")" = alive ]
	"$WINE" "$PROBE" kill "$outside"
	OUTSIDE=
	run "$WINE" "$PROBE" alive "$held"
	[ "$(tr -d '\r' <<<"$output")" = gone ]
}

# srt.exe (srt-launch/windows/winmain.c): its command line, its settings errors, and a run
# as far as it goes here. The messages are the Linux build's, word for word
# ($SRT_BIN/srt).
srtexe() {
	"$WINE" "$SRTEXE" "$@"
}

# What comes after the managed layer runs srt.exe without one (srt-nomanaged.exe, the same
# objects with tests/helpers-win/managed_none.c): Wine owns every file by the Wine user,
# so srt.exe itself refuses to run here (the managed policy's test below).
srtexe_nm() {
	[ -f "$SRTEXE_NM" ] || { echo "$SRTEXE_NM is missing: make win builds it"; return 1; }
	"$WINE" "$SRTEXE_NM" "$@"
}

# make win builds srt.exe with srt-win.exe (which setup checks): one without the other
# is a broken build, not a reason to skip.
srtexe_built() {
	[ -f "$SRTEXE" ] || { echo "build/win/srt.exe is missing: make win builds it"; return 1; }
}

@test "wine: srt.exe --version, --help and its usage errors" {
	srtexe_built
	run -0 srtexe --version
	[ "$(tr -d '\r' <<<"$output")" = "srt $(make -s -C "$BATS_TEST_DIRNAME/../.." version)" ]
	run -0 srtexe --help
	[[ "$(tr -d '\r' <<<"${lines[0]}")" == 'usage: srt [options] (-c STRING | CMD [ARGS...])' ]]
	[[ "$output" != *--control-fd* ]]
	run -1 --separate-stderr srtexe
	[ "$(tr -d '\r' <<<"${stderr_lines[0]}")" = 'srt: no command specified: use -c STRING or CMD [ARGS...] (srt --help lists the options)' ]
	run -125 --separate-stderr srtexe -c 'echo hi' cmd.exe
	[ "$(tr -d '\r' <<<"${stderr_lines[0]}")" = 'srt: -c STRING and CMD ARGS exclude each other' ]
	# What hands srt a descriptor on Linux has no Windows counterpart yet: refused.
	for o in '--control-fd 3' '--decider-fd 3' '--ask'; do
		# shellcheck disable=SC2086
		run -125 --separate-stderr srtexe $o -c 'echo hi'
		[ "$(tr -d '\r' <<<"${stderr_lines[0]}")" = "srt: ${o%% *}: not supported on Windows yet" ]
	done
	run -125 --separate-stderr srtexe proxy --listen 127.0.0.1:0
	[ "$(tr -d '\r' <<<"$stderr")" = 'srt: srt proxy: not supported on Windows yet' ]
}

@test "wine: srt.exe reports settings errors as srt does on Linux" {
	srtexe_built
	cd "$T"
	cat >bad.json <<'JSON'
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] },
  "windows": { "backend": "bogus", "proxyPortRange": [61000] } }
JSON
	run -125 --separate-stderr "$SRT_BIN/srt" -s bad.json -c true
	linux=$stderr
	[[ "$linux" == *'windows.backend: expected "srt-win" or "mxc", got the string "bogus"'* ]]
	run -125 --separate-stderr srtexe_nm -s bad.json -c true
	[ "$(tr -d '\r' <<<"$stderr")" = "$linux" ]
	run -125 --separate-stderr "$SRT_BIN/srt" -s missing.json -c true
	linux=$stderr
	run -125 --separate-stderr srtexe_nm -s missing.json -c true
	[ "$(tr -d '\r' <<<"$stderr")" = "$linux" ]
	# A valid block that srt refuses at the run: the message of tests/windows/launch.bats.
	cat >"$T/mxc.json" <<'JSON'
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] },
  "windows": { "backend": "mxc" } }
JSON
	run -125 --separate-stderr srtexe_nm -s "$T/mxc.json" -c 'echo ran'
	[ "$(tr -d '\r' <<<"$stderr")" = 'srt: windows.backend "mxc": srt has only the srt-win backend' ]
	[ "$output" = "" ]
	# A name the plan cannot make absolute would leave the settings file unprotected
	# (the Windows spellings srt takes: tests/windows/paths-wine.bats).
	cp mxc.json rel.json
	sed -i 's/"mxc"/"srt-win"/' rel.json
	dev="\\\\?\\$(winpath "$T/rel.json")"
	run -125 --separate-stderr srtexe_nm -s "$dev" -c 'echo ran'
	[ "$(tr -d '\r' <<<"$stderr")" = "srt: $dev: cannot be made an absolute path for the sandbox's plan, which protects the settings file by its name: a UNC or device path (\\\\server\\share, \\\\?\\, \\\\.\\), which srt does not handle: write a drive path such as C:\\dir" ]
}

# How far a run goes under Wine: the settings, the ports of windows.proxyPortRange, the
# plan's private file, the proxies started, then srt-win launch, which stops at the
# sandbox account Wine cannot make (not_provisioned, 15), and srt exits with its status.
# srt-win starts only once both proxies said "ready" on their --ready-fd pipes: reaching
# it shows the Windows proxies took the handed-over handles.
@test "wine: srt.exe runs through to srt-win, with the ports of windows.proxyPortRange" {
	srtexe_built
	lo=$(free_port)
	cat >"$T/s.json" <<JSON
{ "network": { "allowedDomains": ["example.com"], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": ["$T/w"], "denyWrite": [] },
  "windows": { "proxyPortRange": [$lo, $((lo + 3))], "srtWin": { "path": "$(dirname "$EXE")/srt-win.exe" } } }
JSON
	mkdir "$T/w"
	run --separate-stderr srtexe_nm -d -s "$T/s.json" -c "echo ran> $(winpath "$T/w/ran")"
	err=$(tr -d '\r' <<<"$stderr")
	echo "$err"
	[ "$status" -eq 15 ]
	[[ "$err" == *"srt: debug: proxies on ports $lo and $((lo + 1)) of $lo-$((lo + 3))"* ]]
	[[ "$err" == *'"code":"not_provisioned"'* ]]
	[ ! -e "$T/w/ran" ]
	# The grant is kept: "$T/w" is taken on the working directory's drive, Z:, which
	# is also where the system resolves it.
	[[ "$err" != *"resolves outside itself"* ]]
	# The plan's file is gone with the run.
	plan=$(sed -n 's/^srt: debug: plan: \(.*\\srt-plan\..*\)$/\1/p' <<<"$err")
	[ -n "$plan" ]
	tmp=$("$WINE" cmd.exe /c echo %TEMP% 2>/dev/null | tr -d '\r')
	[ "${plan%\\*}" = "$tmp" ]
	run "$WINE" cmd.exe /c "if exist $plan (echo left) else (echo gone)"
	[ "$(tr -d '\r' <<<"$output")" = gone ]
	# srt-win missing: the same message as tests/windows/launch.bats's.
	sed -i "s|$(dirname "$EXE")/srt-win.exe|$T/none/srt-win|" "$T/s.json"
	run -125 --separate-stderr srtexe_nm -s "$T/s.json" -c 'echo ran'
	[ "$(tr -d '\r' <<<"$stderr")" = "srt: $T/none/srt-win: no such program (windows.srtWin.path)" ]
}

@test "wine: srt.exe stops with 125 when a proxy exits at start, before srt-win runs" {
	srtexe_built
	lo=$(free_port)
	# srt.exe takes the proxies from its own directory: a copy whose srt-httpd.exe is the
	# probe, which refuses the proxy's command line and exits 2.
	mkdir "$T/bin" "$T/w"
	cp "$SRTEXE_NM" "$T/bin/srt.exe"
	cp "$EXE" "$(dirname "$EXE")/srt-socksd.exe" "$T/bin/"
	cp "$PROBE" "$T/bin/srt-httpd.exe"
	cat >"$T/s.json" <<JSON
{ "network": { "allowedDomains": ["example.com"], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": ["$T/w"], "denyWrite": [] },
  "windows": { "proxyPortRange": [$lo, $((lo + 3))] } }
JSON
	run --separate-stderr "$WINE" "$T/bin/srt.exe" -s "$T/s.json" -c "echo ran> $(winpath "$T/w/ran")"
	err=$(tr -d '\r' <<<"$stderr")
	echo "$err"
	[ "$status" -eq 125 ]
	[[ "$err" == *'usage: winprobe'* ]]
	[[ "$err" == *'srt: srt-httpd exited at start (status 2); nothing was launched'* ]]
	[[ "$err" != *not_provisioned* ]]
	[ ! -e "$T/w/ran" ]
}

# The managed policy (lib/core/managed_win.c): %ProgramData% from the known folder, and each
# name from C:\ down checked by its owner and DACL. Wine keeps no security descriptor of
# its own for a file: it makes one from the Unix owner and mode, owned by the Wine user
# (S-1-5-21-0-0-0-1000, fixed in Wine's server) for what that user owns, so C:\ is
# O:S-1-5-21-0-0-0-1000 D:(A;OICI;FA;;;SY)(A;OICI;FA;;;<the user>)(A;OICI;0x1200a9;;;WD).
# A user owns the drive root: whether the file is there or not, srt.exe refuses to run,
# naming it, as srt on Linux refuses when a user owns /.
@test "wine: srt.exe reads the managed policy from the known folder and refuses a user's C:\\" {
	srtexe_built
	cat >"$T/s.json" <<'JSON'
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] },
  "windows": { "backend": "mxc" } }
JSON
	refusal='srt: C:\ProgramData\srt\managed-settings.json: the managed policy cannot be trusted: the directory C:\ is owned by S-1-5-21-0-0-0-1000, not by SYSTEM, Administrators or TrustedInstaller; it and every directory above it must be owned by SYSTEM, Administrators or TrustedInstaller and changeable by nobody else'
	pd="$WINEPREFIX/drive_c/ProgramData"
	rm -rf "$pd/srt"
	# No file: its absence is not trusted either (the user could have removed it).
	run -125 --separate-stderr srtexe -d -s "$T/s.json" -c 'echo ran'
	err=$(tr -d '\r' <<<"$stderr")
	echo "$err"
	[[ "$err" == *'srt: debug: managed policy: ProgramData is C:\ProgramData (the known folder)'* ]]
	[ "$(grep -v '^srt: debug:' <<<"$err")" = "$refusal" ]
	[ "$output" = "" ]
	run -0 "$WINE" "$EXE" status
	[ "$(jp "$output" managed)" = '{"dir":"C:\\ProgramData\\srt","dir_exists":false,"file_exists":false}' ]
	# A file there: the same reason, before the file is opened.
	mkdir "$pd/srt"
	printf '{"allowManagedDomainsOnly":true,"network":{"allowedDomains":[],"deniedDomains":[]},"filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}' \
	    >"$pd/srt/managed-settings.json"
	run -125 --separate-stderr srtexe -s "$T/s.json" -c 'echo ran'
	[ "$(tr -d '\r' <<<"$stderr")" = "$refusal" ]
	run -0 "$WINE" "$EXE" status
	[ "$(jp "$output" managed)" = '{"dir":"C:\\ProgramData\\srt","dir_exists":true,"file_exists":true}' ]
	# The environment does not move it: a trusted-looking ProgramData of the user's own
	# is not asked.
	run -125 --separate-stderr env ProgramData='Z:\nowhere' ALLUSERSPROFILE='Z:\nowhere' \
	    "$WINE" "$SRTEXE" -d -s "$T/s.json" -c 'echo ran'
	err=$(tr -d '\r' <<<"$stderr")
	[[ "$err" == *'srt: debug: managed policy: ProgramData is C:\ProgramData (the known folder)'* ]]
	[ "$(grep -v '^srt: debug:' <<<"$err")" = "$refusal" ]
	rm -rf "$pd/srt"
}

@test "make win without cJSON's source says to run scripts/deps" {
	srtexe_built
	# With an object to make again (-W: as if its source had changed; nothing is
	# written): a build that is up to date needs no cJSON.
	run -2 --separate-stderr make -s -C "$BATS_TEST_DIRNAME/../.." -W srt-launch/windows/winmain.c \
	    build/win/srt.exe CJSON_DIR="$T/none"
	[[ "$stderr" == *"make win: no cJSON source in $T/none (srt.exe compiles Debian's): run scripts/deps"* ]]
}
