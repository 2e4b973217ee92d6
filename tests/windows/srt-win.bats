#!/usr/bin/env bats
# srt-win's subcommands end to end on Linux: the program built natively against the
# recording fake of the Windows API (build/tests/srt-win-fake), which keeps DACLs,
# accounts, filters and the machine record in $SRT_WIN_FAKE_DIR. Paths are POSIX here.
bats_require_minimum_version 1.5.0
load ../helpers

SID=S-1-5-21-1-2-3-1001
JP="$BATS_TEST_DIRNAME/../helpers/json-path.py"   # values out of srt-win's JSON

# jp DOC PATH: the value at PATH in the JSON text DOC (tests/helpers/json-path.py).
jp() { python3 "$JP" "$1" "$2"; }

setup() {
	srt_setup
	SW="$SRT_TESTBIN/srt-win-fake"
	[ -x "$SW" ] || skip "build/tests/srt-win-fake is not built (make check builds it)"
	export SRT_WIN_FAKE_DIR="$T/fake"
	mkdir -p "$SRT_WIN_FAKE_DIR" "$T/proj/.git" "$T/home/.ssh"
	: >"$T/proj/.env"
	HOLDERS=()
}

teardown() {
	local p
	for p in "${HOLDERS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
	srt_teardown
}

# A holder process; its pid in $H.
hold() {
	sleep 300 &
	H=$!
	HOLDERS+=("$H")
}

plan() {
	cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["~/.ssh"], "allowRead": [], "allowWrite": ["."],
  "denyWrite": [".env", ".git/hooks"]}}
JSON
	HOME="$T/home" srt-policy plan --target windows -s "$T/s.json" --cwd "$T/proj" >"$T/plan"
}

# The fake's DACL line of a path ("" when it has no entries).
dacl() {
	grep -F "\"path\":\"$1\"," "$SRT_WIN_FAKE_DIR/dacl.jsonl" 2>/dev/null || true
}

install_fake() {
	"$SW" install "$@" 2>/dev/null
}

@test "srt-win: usage errors are exit 2 with one JSON line" {
	run --separate-stderr "$SW"
	[ "$status" -eq 2 ]
	[[ "${stderr_lines[0]}" == '{"code":"usage","message":"srt-win: no subcommand"}' ]]
	run --separate-stderr "$SW" acl grant --sandbox-user-sid "$SID"
	[ "$status" -eq 2 ]
	[[ "$stderr" == '{"code":"usage","message":"srt-win: acl grant: --holder-pid and --sandbox-user-sid are required"}' ]]
	run --separate-stderr "$SW" acl revoke --holder-pid 1 --sandbox-user-sid X-1
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'"code":"usage"'*'is not a SID'* ]]
	run --separate-stderr "$SW" install --proxy-port-range 60000-60065 --dry-run
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'invalid --proxy-port-range'* ]]
	run --separate-stderr "$SW" runner --env SECRET=1 -- true
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'only PATH and the proxy variables'* ]]
	run "$SW" --srt-win -V
	[ "$status" -eq 0 ]
	[[ "$output" == "srt-win "* ]]
}

@test "srt-win install --dry-run: the account, the group and the filters as JSON" {
	run "$SW" install --dry-run --sandbox-user sbx --proxy-port-range 61000-61009
	[ "$status" -eq 0 ]
	d=$output
	[ "$(jp "$d" account.name)" = sbx ]
	[ "$(jp "$d" account.member_of)" = '["sandbox-runtime-users"]' ]
	[ "$(jp "$d" group.name)" = sandbox-runtime-users ]
	[ "$(jp "$d" 'filters.*.action')" = '["permit","block","permit","block"]' ]
	[[ "$(jp "$d" filters.0.layer)" == *CONNECT_V4 ]]
	[[ "$(jp "$d" filters.2.layer)" == *CONNECT_V6 ]]
	[ "$(jp "$d" filters.0.remote_address)" = 127.0.0.0/8 ]
	[ "$(jp "$d" filters.2.remote_address)" = ::1/128 ]
	[ "$(jp "$d" filters.0.remote_ports)" = '[61000,61009]' ]
	[ "$(jp "$d" filters.1.remote_ports)" = '(absent)' ]
	[ "$(jp "$d" 'filters.*.user')" = '["sbx","sbx","sbx","sbx"]' ]
	[ "$(jp "$d" 'filters.*.persistent')" = '[true,true,true,true]' ]
	[ "$(jp "$d" filters.0.weight)" -gt "$(jp "$d" filters.1.weight)" ]
	[ ! -e "$SRT_WIN_FAKE_DIR/accounts" ]
	run "$SW" install --dry-run --allow-loopback
	[ "$(jp "$output" filters.1.remote_ports)" = '[2,65535]' ]
}

@test "srt-win install: elevates, creates the account and filters; a second install with other settings needs --force" {
	run "$SW" install --proxy-port-range 61000-61009
	[ "$status" -eq 0 ]
	grep -q '^run_elevated install' "$SRT_WIN_FAKE_DIR/calls.log"
	grep -q '^user srt-sandbox S-1-5-21' "$SRT_WIN_FAKE_DIR/accounts"
	grep -q '^member sandbox-runtime-users srt-sandbox' "$SRT_WIN_FAKE_DIR/accounts"
	[ "$(grep -c 'srt-win' "$SRT_WIN_FAKE_DIR/wfp")" -eq 4 ]
	grep -q 'permit loopback proxy ports v4|v4|permit|S-1-5-21-[0-9-]*|loopback=1|ports=61000-61009' "$SRT_WIN_FAKE_DIR/wfp"
	# The managed policy's directory, owned by Administrators with a protected DACL.
	grep -q "^managed_dir_make $SRT_WIN_FAKE_DIR/ProgramData/srt O:BA D:P(SY:FA)(BA:FA)(BU:RX)\$" \
	    "$SRT_WIN_FAKE_DIR/calls.log"
	[ -d "$SRT_WIN_FAKE_DIR/ProgramData/srt" ]
	run "$SW" status
	[ "$status" -eq 0 ]
	d=$output
	[ "$(jp "$d" user.user.exists)" = true ]
	[ "$(jp "$d" user.user.in_sandbox_group)" = true ]
	[ "$(jp "$d" user.cred_present)" = true ]
	[ "$(jp "$d" wfp.port_range)" = '[61000,61009]' ]
	[ "$(jp "$d" wfp.state)" = cannot-read ]
	[ "$(jp "$d" managed)" = \
	    "{\"dir\":\"$SRT_WIN_FAKE_DIR/ProgramData/srt\",\"dir_exists\":true,\"file_exists\":false}" ]
	echo '{}' >"$SRT_WIN_FAKE_DIR/ProgramData/srt/managed-settings.json"
	run -0 "$SW" status
	[ "$(jp "$output" managed.file_exists)" = true ]
	run --separate-stderr "$SW" install
	[ "$status" -eq 13 ]
	[[ "$stderr" == *'"code":"config_conflict"'* ]]
	run "$SW" install --force
	[ "$status" -eq 0 ]
	# A directory that exists is left as it is, with the organisation's file in it.
	[ "$(grep -c '^managed_dir_make ' "$SRT_WIN_FAKE_DIR/calls.log")" -eq 1 ]
	[ -f "$SRT_WIN_FAKE_DIR/ProgramData/srt/managed-settings.json" ]
	[ "$(grep -c 'ports=60080-60089' "$SRT_WIN_FAKE_DIR/wfp")" -eq 2 ]
	[ "$(grep -c 'ports=61000' "$SRT_WIN_FAKE_DIR/wfp")" -eq 0 ]
	SRT_WIN_FAKE_DECLINE=1 run --separate-stderr "$SW" uninstall
	[ "$status" -eq 10 ]
	[[ "$stderr" == *'"code":"cancelled"'* ]]
	run "$SW" uninstall
	[ "$status" -eq 0 ]
	run ! grep -q srt-sandbox "$SRT_WIN_FAKE_DIR/accounts"
	[ ! -s "$SRT_WIN_FAKE_DIR/wfp" ]
	# The organisation's policy outlives srt-win.
	[ -f "$SRT_WIN_FAKE_DIR/ProgramData/srt/managed-settings.json" ]
}

@test "srt-win install: an account srt-win did not create is not taken over" {
	echo "user srt-sandbox S-1-5-21-7 pw" >"$SRT_WIN_FAKE_DIR/accounts"
	run --separate-stderr "$SW" install
	[ "$status" -eq 14 ]
	[[ "$stderr" == *'was not created by srt-win'* ]]
	SRT_WIN_FAKE_FAIL=wfp_install run --separate-stderr "$SW" install --sandbox-user other
	[ "$status" -eq 12 ]
}

@test "srt-win acl grant and revoke apply exactly the plan's entries" {
	plan
	hold
	run "$SW" acl grant --holder-pid "$H" --sandbox-user-sid "$SID" --json <"$T/plan"
	[ "$status" -eq 0 ]
	[[ "$output" == *"{\"path\":\"$T/proj/.git/hooks\",\"status\":\"created\"}"* ]]
	# The write root: neither it nor an entry in it can be removed or renamed (DELETE,
	# DELETE_CHILD denied on the object alone), beneath the inherited modify.
	[[ "$(dacl "$T/proj")" == *"\"aces\":[{\"ace\":\"deny\",\"sid\":\"$SID\",\"mask\":65536,\"flags\":0},{\"ace\":\"deny\",\"sid\":\"$SID\",\"mask\":64,\"flags\":0},{\"ace\":\"allow\",\"sid\":\"$SID\",\"mask\":1245631,\"flags\":3}]"* ]]
	# .git, the denied hooks' parent, cannot be renamed away either.
	[[ "$(dacl "$T/proj/.git")" == *"\"aces\":[{\"ace\":\"deny\",\"sid\":\"$SID\",\"mask\":64,\"flags\":0},{\"ace\":\"deny\",\"sid\":\"$SID\",\"mask\":65536,\"flags\":0}]"* ]]
	[[ "$(dacl "$T/home/.ssh")" == *"\"mask\":41,\"flags\":3"* ]]
	[[ "$(dacl "$T/proj/.env")" == *"\"mask\":852310,\"flags\":0"* ]]
	# The mandatory deny on the missing .git\config: a placeholder, write denied.
	[[ "$(dacl "$T/proj/.git/config")" == *"\"mask\":852310,\"flags\":0"* ]]
	[ -f "$T/proj/.git/hooks" ]
	[ -f "$T/proj/.git/config" ]
	[ "$("$SW" acl list | wc -l)" -eq 10 ]
	run "$SW" acl revoke --holder-pid "$H" --sandbox-user-sid "$SID" --json
	[ "$status" -eq 0 ]
	[ "$(grep -o '"status":"revoked"' <<<"$output" | wc -l)" -eq 10 ]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	[ ! -e "$T/proj/.git/hooks" ]
	[ ! -e "$T/proj/.git/config" ]
	[ -z "$("$SW" acl list)" ]
}

@test "srt-win acl: two holders share an entry; a crashed holder's entries go with the next command" {
	plan
	hold; a=$H
	hold; b=$H
	"$SW" acl grant --holder-pid "$a" --sandbox-user-sid "$SID" <"$T/plan"
	run "$SW" acl grant --holder-pid "$b" --sandbox-user-sid "$SID" --json <"$T/plan"
	[[ "$output" == *"{\"path\":\"$T/proj\",\"status\":\"held\"}"* ]]
	[ "$("$SW" acl list | wc -l)" -eq 20 ]
	kill "$a"; wait "$a" 2>/dev/null || true
	run "$SW" acl recover --json
	[ "$output" = '{"deadBrokers":1,"acesRevoked":0}' ]
	[ "$("$SW" acl list | wc -l)" -eq 10 ]
	[[ "$(dacl "$T/proj")" == *'"mask":1245631'* ]]
	kill "$b"; wait "$b" 2>/dev/null || true
	# Any acl command recovers first.
	hold
	echo '{"read":[]}' | "$SW" acl grant --holder-pid "$H" --sandbox-user-sid "$SID"
	[ -z "$("$SW" acl list)" ]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
}

@test "srt-win acl grant: a holder that is not running, a bad plan, a failing Windows call" {
	plan
	run --separate-stderr "$SW" acl grant --holder-pid 999999 --sandbox-user-sid "$SID" <"$T/plan"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'"code":"holder_gone"'* ]]
	hold
	run --separate-stderr "$SW" acl grant --holder-pid "$H" --sandbox-user-sid "$SID" <<<'{"ace":"allow","path":"relative","rights":["read"],"inherit":""}'
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'"code":"bad_input","message":"srt-win: stdin line 1: not an absolute'* ]]
	SRT_WIN_FAKE_FAIL="dacl_set:$T/proj" run --separate-stderr "$SW" acl grant --holder-pid "$H" --sandbox-user-sid "$SID" <"$T/plan"
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'SetNamedSecurityInfoW'* ]]
	# What had been applied before the failure was taken back.
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	[ -z "$("$SW" acl list)" ]
	[ ! -e "$T/proj/.git/hooks" ]
}

@test "srt-win acl stamp and restore: denies only, kept while the holder's grants are" {
	hold
	run "$SW" acl stamp --holder-pid "$H" --sandbox-user-sid "$SID" --json <<<"{\"denyRead\":[\"$T/home/.ssh\"],\"denyWrite\":[\"$T/proj/.env\"]}"
	[ "$status" -eq 0 ]
	[[ "$(dacl "$T/home/.ssh")" == *'"mask":41'* ]]
	run --separate-stderr "$SW" acl stamp --holder-pid "$H" --sandbox-user-sid "$SID" <<<"{\"read\":[\"$T/proj\"]}"
	[ "$status" -eq 2 ]
	echo "{\"read\":[\"$T/proj\"]}" | "$SW" acl grant --holder-pid "$H" --sandbox-user-sid "$SID"
	run --separate-stderr "$SW" acl restore --holder-pid "$H" --sandbox-user-sid "$SID" --json
	[ "$status" -eq 2 ]
	[[ "$output" == *'"grantPending"'* ]]
	[[ "$(dacl "$T/home/.ssh")" == *'"mask":41'* ]]
	"$SW" acl revoke --holder-pid "$H" --sandbox-user-sid "$SID"
	run "$SW" acl restore --holder-pid "$H" --sandbox-user-sid "$SID" --json
	[ "$status" -eq 0 ]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
}

@test "srt-win acl grant --persistent keeps a write root for the group and its capability; forget removes it" {
	install_fake
	gsid=$(awk '$1 == "group" { print $3 }' "$SRT_WIN_FAKE_DIR/accounts")
	hold
	printf '%s\n' "{\"ace\":\"allow\",\"path\":\"$T/proj\",\"rights\":[\"modify\"],\"inherit\":\"OICI\"}" \
	    "{\"ace\":\"deny\",\"path\":\"$T/proj/.env\",\"rights\":[\"write\"],\"inherit\":\"\"}" |
	    "$SW" acl grant --persistent --holder-pid "$H" --sandbox-user-sid "$SID"
	line=$(dacl "$T/proj")
	[[ "$line" == *"\"sid\":\"$gsid\",\"mask\":1245631"* ]]
	[[ "$line" == *'"sid":"S-1-15-3-1024-'* ]]
	[[ "$line" != *"\"sid\":\"$SID\""* ]]
	# revoke leaves kept roots; a command writes there with its --write-root
	"$SW" acl revoke --holder-pid "$H" --sandbox-user-sid "$SID"
	[[ "$(dacl "$T/proj")" == *"$gsid"* ]]
	run "$SW" exec --write-root "$T/proj" -- true
	[ "$status" -eq 0 ]
	grep -q '^run_contained write_restricted=1 roots=1 ' "$SRT_WIN_FAKE_DIR/calls.log"
	run --separate-stderr "$SW" acl forget --all --json
	[ "$status" -eq 22 ]
	[[ "$output" == "{\"held_by\":[{\"pid\":$H,\"kind\":\"kept_root\",\"path\":\"$T/proj\"}]}" ]]
	run "$SW" acl forget "$T/proj" --json
	[ "$status" -eq 0 ]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	run "$SW" acl forget "$T/proj" --json
	[ "$output" = "[{\"path\":\"$T/proj\",\"status\":\"absent\"}]" ]
}

@test "srt-win exec: runs as the sandbox account with PATH and the proxy variables only, relays the status" {
	run --separate-stderr "$SW" exec -- true
	[ "$status" -eq 15 ]
	[[ "$stderr" == *'"code":"not_provisioned"'* ]]
	install_fake
	SECRET=x run "$SW" exec --env https_proxy=http://127.0.0.1:60080 -- env
	[ "$status" -eq 0 ]
	[[ "$output" == *"https_proxy=http://127.0.0.1:60080"* ]]
	[[ "$output" == *"PATH=$PATH"* ]]
	[[ "$output" != *SECRET* && "$output" != *SRT_WIN_FAKE_DIR* && "$output" != *HOME=* ]]
	grep -q '^run_as_user srt-sandbox ' "$SRT_WIN_FAKE_DIR/calls.log"
	# exec always gives the runner the write-restricted token
	[ "$(grep -c '^run_contained write_restricted=1' "$SRT_WIN_FAKE_DIR/calls.log")" -eq 1 ]
	[ "$(grep -c '^run_contained' "$SRT_WIN_FAKE_DIR/calls.log")" -eq 1 ]
	run "$SW" exec --write-restricted-token -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run --separate-stderr "$SW" exec --allow-loopback -- true
	[ "$status" -eq 19 ]
	SRT_WIN_FAKE_FAIL=seclogon run --separate-stderr "$SW" exec -- true
	[ "$status" -eq 18 ]
	[[ "$stderr" == '{"code":"seclogon_disabled","state":"disabled",'* ]]
	SRT_WIN_FAKE_REMOTE=1 run --separate-stderr "$SW" exec -- true
	[ "$status" -eq 16 ]
	[[ "$stderr" == *'"code":"mapped_drive_cwd"'* ]]
}

@test "srt-win runner and exec: a program not found is 127, one that cannot be run 126, as shells" {
	run -127 --separate-stderr "$SW" runner -- "$T/nosuch"
	[ "$status" -eq 127 ]
	[[ "$stderr" == '{"code":"command_not_found","message":"srt-win: runner: '"$T/nosuch"': command not found: '* ]]
	run -127 --separate-stderr "$SW" runner -- srt-no-such-program-anywhere
	[ "$status" -eq 127 ]
	printf 'echo hi\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	run --separate-stderr "$SW" runner -- "$T/noexec"
	[ "$status" -eq 126 ]
	[[ "$stderr" == '{"code":"command_not_executable","message":"srt-win: runner: '"$T/noexec"': cannot be run: '* ]]
	# A Windows call that fails otherwise stays 1.
	SRT_WIN_FAKE_FAIL=run_contained run --separate-stderr "$SW" runner -- true
	[ "$status" -eq 1 ]
	[[ "$stderr" == *'"code":"spawn_failed"'* ]]
	# exec (and launch) relay the runner's status.
	install_fake
	run -127 --separate-stderr "$SW" exec -- "$T/nosuch"
	[ "$status" -eq 127 ]
	[[ "$stderr" == *'"code":"command_not_found"'* ]]
	run --separate-stderr "$SW" exec -- "$T/noexec"
	[ "$status" -eq 126 ]
}

# A console's Ctrl-C, as the fake has it: SIGINT to srt-win, which keeps waiting and lets
# the command have it (on Windows the console gives it to both; the broker ends its
# console-less runner), then relays the command's status.
@test "srt-win runner and exec: a Ctrl-C does not end srt-win before the command; its status is relayed" {
	local sub pid rc
	install_fake
	for sub in runner exec; do
		rm -f "$T/cmd.pid"
		# (A background job of a script starts with SIGINT ignored: not these.)
		env --default-signal=INT "$SW" $sub -- sh -c "echo \$\$ >'$T/cmd.pid'; trap 'exit 7' INT; while :; do sleep 0.1; done" &
		pid=$!
		for i in $(seq 100); do [ -s "$T/cmd.pid" ] && break; sleep 0.05; done
		[ -s "$T/cmd.pid" ]
		HOLDERS+=("$(cat "$T/cmd.pid")")
		kill -INT "$pid"
		rc=0
		wait "$pid" || rc=$?
		echo "$sub: $rc"
		[ "$rc" -eq 7 ]
		! kill -0 "$(cat "$T/cmd.pid")" 2>/dev/null
	done
	# A command that does not handle it ends by it, and that is the status.
	rm -f "$T/cmd.pid"
	env --default-signal=INT "$SW" exec -- sh -c "echo \$\$ >'$T/cmd.pid'; exec sleep 30" &
	pid=$!
	for i in $(seq 100); do [ -s "$T/cmd.pid" ] && break; sleep 0.05; done
	HOLDERS+=("$(cat "$T/cmd.pid")")
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 130 ]
	grep -q '^console_keep$' "$SRT_WIN_FAKE_DIR/calls.log"
}

@test "srt-win exec: the command's own denies hold while it runs; --held-by ends it with its session" {
	install_fake
	run "$SW" exec --deny-read "$T/home/.ssh" -- cat "$SRT_WIN_FAKE_DIR/dacl.jsonl"
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"path\":\"$T/home/.ssh\""*'"mask":41'* ]]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	[ -z "$("$SW" acl list)" ]
	run --separate-stderr "$SW" exec --deny-write "$T/nowhere" -- true
	[ "$status" -eq 2 ]
	hold
	start=$SECONDS
	"$SW" exec --held-by "$H" -- sleep 30 3>&- & e=$!
	sleep 0.5
	kill "$H"
	rc=0; wait "$e" || rc=$?
	[ "$rc" -eq 26 ]
	[ $((SECONDS - start)) -lt 10 ]
}

@test "srt-win launch: the plan for the command's lifetime, proxies in the installed range" {
	install_fake
	plan
	run --separate-stderr "$SW" launch --plan "$T/plan" --http-port 3128 --socks-port 1080 -- true
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'inside the installed port range 60080-60089'* ]]
	run "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 -- sh -c "env; cat '$SRT_WIN_FAKE_DIR/dacl.jsonl'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"http_proxy=http://127.0.0.1:60080"* ]]
	[[ "$output" == *"ftp_proxy=socks5h://127.0.0.1:60081"* ]]
	[[ "$output" == *"\"path\":\"$T/proj\""*'"mask":1245631'* ]]
	grep -q '^run_contained write_restricted=1' "$SRT_WIN_FAKE_DIR/calls.log"
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	[ -z "$("$SW" acl list)" ]
	run "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 -- sh -c 'exit 3'
	[ "$status" -eq 3 ]
	# The settings' windows block must describe this install.
	run --separate-stderr "$SW" launch --plan "$T/plan" --http-port 61000 --socks-port 61001 \
	    --proxy-port-range 61000-61009 -- true
	[ "$status" -eq 15 ]
	[[ "$stderr" == *'"code":"install_mismatch"'* ]]
	run --separate-stderr "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 \
	    --proxy-port-range 60080-60089 --sandbox-user srt-sandbox --backend mxc -- true
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'srt has only the srt-win backend'* ]]
	run "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 \
	    --proxy-port-range 60080-60089 --sandbox-user srt-sandbox --backend srt-win -- true
	[ "$status" -eq 0 ]
	# The sublayer too (windows.sublayerGuid), whatever the case of its digits.
	run --separate-stderr "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 \
	    --sublayer-guid 00000000-0000-4000-8000-000000000001 -- true
	[ "$status" -eq 15 ]
	[[ "$stderr" == *'"code":"install_mismatch"'*'the sublayer 00000000-0000-4000-8000-000000000001 but'*'sublayer 6d1a5f0e-9c1b-4b43-8d77-53a7e0d1b001;'* ]]
	run "$SW" launch --plan "$T/plan" --http-port 60080 --socks-port 60081 \
	    --sublayer-guid 6D1A5F0E-9C1B-4B43-8D77-53A7E0D1B001 -- true
	[ "$status" -eq 0 ]
}

@test "srt-win wfp verify: a connect that gets through fails the check" {
	install_fake
	port=$(free_port)
	python3 "$NETPROBE" hold 127.0.0.1 "$port" 30 reuse &
	HOLDERS+=("$!")
	wait_listening "$port"
	run --separate-stderr "$SW" wfp verify --target "127.0.0.1:$port"
	[ "$status" -eq 3 ]
	[ "$output" = "{\"target\":\"127.0.0.1:$port\",\"egress_probe\":\"connected\",\"allow_loopback\":false}" ]
	[[ "$stderr" == *'"code":"wfp_fence_inactive"'* ]]
	run --separate-stderr "$SW" wfp verify --target "127.0.0.1:$port" --allow-loopback
	[ "$status" -eq 19 ]
	run "$SW" wfp status
	[[ "$output" == '{"state":"cannot-read","filters":0,'* ]]
}

@test "srt-win profile: tools granted, credentials beneath them denied, forget removes it" {
	install_fake
	mkdir -p "$T/home/AppData/Local/Programs/tool" "$T/home/.cargo" "$T/home/.aws" "$T/home/Documents"
	: >"$T/home/.cargo/credentials.toml"
	: >"$T/home/.gitconfig"
	gsid=$(awk '$1 == "group" { print $3 }' "$SRT_WIN_FAKE_DIR/accounts")
	HOME="$T/home" run "$SW" profile grant --json --include Documents
	[ "$status" -eq 0 ]
	[[ "$output" == *"\"granted\":[\"$T/home/AppData/Local/Programs\",\"$T/home/.cargo\",\"$T/home/.gitconfig\",\"$T/home/Documents\"]"* ]]
	[[ "$output" == *"\"denied\":[\"$T/home/.cargo/credentials.toml\"]"* ]]
	[[ "$(dacl "$T/home/.cargo")" == *"\"ace\":\"allow\",\"sid\":\"$gsid\",\"mask\":1179817,\"flags\":3"* ]]
	[[ "$(dacl "$T/home/.cargo/credentials.toml")" == *'"ace":"deny"'*'"mask":41'* ]]
	[ -z "$(dacl "$T/home/.aws")" ]
	HOME="$T/home" run "$SW" profile status
	[[ "$output" == '{"state":"current",'* ]]
	HOME="$T/home" run --separate-stderr "$SW" profile grant --include .aws/config
	[ "$status" -eq 2 ]
	# Granted again without the inclusion: Documents goes.
	HOME="$T/home" "$SW" profile grant --replace-includes
	[ -z "$(dacl "$T/home/Documents")" ]
	[[ "$(dacl "$T/home/.cargo")" == *'"ace":"allow"'* ]]
	HOME="$T/home" run "$SW" profile forget --json
	[ "$status" -eq 0 ]
	[ ! -s "$SRT_WIN_FAKE_DIR/dacl.jsonl" ]
	HOME="$T/home" run "$SW" profile status
	[[ "$output" == '{"state":"none",'* ]]
}

@test "srt-win user trust-ca: a certificate is added as the sandbox account; anything else is refused" {
	install_fake
	printf '%s\n' '-----BEGIN CERTIFICATE-----' 'MIIBAzCBqgIJAJVNiS0d' '-----END CERTIFICATE-----' >"$T/ca.pem"
	run "$SW" user trust-ca "$T/ca.pem"
	[ "$status" -eq 0 ]
	[[ "$output" == '{"ca_cert_thumb":"'*'"}' ]]
	grep -q '^run_as_user srt-sandbox ' "$SRT_WIN_FAKE_DIR/calls.log"
	echo 'not a certificate' >"$T/x.pem"
	run --separate-stderr "$SW" user trust-ca "$T/x.pem"
	[ "$status" -eq 2 ]
	[[ "$stderr" == *'"code":"bad_input"'* ]]
}
