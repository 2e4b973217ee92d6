#!/usr/bin/env bats
# Live policies (srt --control-fd) and the external decider (srt-httpd --decider-fd,
# --ask, srt proxy), with real programs: curl inside srt, srt-httpd on loopback, a
# decider in Python (tests/helpers/decider.py), an upstream on 127.0.0.1
# (tests/helpers/http-upstream.py head) and the clients curl cannot be
# (tests/helpers/http-client.py).

load ../helpers

HU="$BATS_TEST_DIRNAME/../helpers/http-upstream.py"
HC="$BATS_TEST_DIRNAME/../helpers/http-client.py"
bats_require_minimum_version 1.5.0

setup() {
	srt_setup
	UP=$(free_port)
	PP=$(free_port)
	mkdir -p "$T/w"
	python3 "$HU" head "$UP" &
	UPID=$!
	wait_listening "$UP"
	DPID=
	write_settings "$T/none.json"
	write_settings "$T/allow.json" "[\"127.0.0.1:$UP\"]"
	DECIDER="$BATS_TEST_DIRNAME/../helpers/decider.py"
}

teardown() {
	[ -n "${DPID:-}" ] && kill "$DPID" 2>/dev/null
	[ -n "${UPID:-}" ] && kill "$UPID" 2>/dev/null
	wait 2>/dev/null
	srt_teardown
}

# One settings document on one line.
oneline() { tr -d '\n' <"$1"; echo; }

# Wait (up to 10 s) until file $1 holds the text $2.
wait_for() {
	for _ in $(seq 100); do
		grep -qF -- "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "timed out waiting for '$2' in $1" >&2
	cat "$1" >&2
	return 1
}

# ---- --control-fd -------------------------------------------------------------------

@test "control: 403 before an update, 200 after it; a tunnel opened before keeps its verdict" {
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\"]"
	mkfifo "$T/ctl"
	srt -d -s "$T/s.json" --control-fd 7 -c "python3 '$HC' live-update 3128 $UP '$T/go'" 7<"$T/ctl" \
	    >"$T/out" 2>"$T/err" &
	local spid=$!
	exec 8>"$T/ctl"
	wait_for "$T/out" "tunnel:" || cat "$T/err"
	cat "$T/out"
	grep -q "tunnel: HTTP/1.1 200" "$T/out"
	oneline "$T/none.json" >&8 || { cat "$T/err"; false; }
	wait_for "$T/err" "control fd 7: policy updated"
	touch "$T/go"
	wait "$spid"
	exec 8>&-
	cat "$T/out"
	grep -q "old tunnel: HTTP/1.1 200" "$T/out"
	grep -q "new request: 403" "$T/out"

	# And the other way: refused, then allowed.
	rm -f "$T/go"
	cat >"$T/inside2.sh" <<SH
curl -s -o /dev/null -w 'before %{http_code}\n' --noproxy '' http://127.0.0.1:$UP/
while [ ! -e $T/go ]; do sleep 0.05; done
curl -s -o /dev/null -w 'after %{http_code}\n' --noproxy '' http://127.0.0.1:$UP/
SH
	mkfifo "$T/ctl2"
	srt -d -s "$T/none.json" --control-fd 5 -c "bash $T/inside2.sh" 5<"$T/ctl2" \
	    >"$T/out2" 2>"$T/err2" &
	spid=$!
	exec 8>"$T/ctl2"
	wait_for "$T/out2" "before"
	oneline "$T/allow.json" >&8
	wait_for "$T/err2" "control fd 5: policy updated"
	touch "$T/go"
	wait "$spid"
	exec 8>&-
	cat "$T/out2"
	grep -q "before 403" "$T/out2"
	grep -q "after 200" "$T/out2"
}

@test "control: an invalid line is reported and changes nothing; filesystem changes are reported as not live" {
	cat >"$T/inside.sh" <<SH
while [ ! -e $T/go ]; do sleep 0.05; done
curl -s -o /dev/null -w 'after %{http_code}\n' --noproxy '' http://127.0.0.1:$UP/
touch $T/w/x 2>/dev/null && echo wrote || echo "write refused"
SH
	mkfifo "$T/ctl"
	srt -d -s "$T/none.json" --control-fd 6 -c "bash $T/inside.sh" 6<"$T/ctl" \
	    >"$T/out" 2>"$T/err" &
	local spid=$!
	exec 8>"$T/ctl"
	echo '{not json' >&8
	# Valid JSON that the schema refuses: allows the host, but must change nothing.
	echo "{\"network\":{\"allowedDomains\":[\"127.0.0.1:$UP\"]},\"filesystem\":{}}" >&8
	echo '' >&8
	wait_for "$T/err" "network.deniedDomains"
	# A valid line that changes only the filesystem: said to be ignored.
	cat >"$T/fs.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["$T/w"],"denyWrite":[]}}
JSON
	oneline "$T/fs.json" >&8
	wait_for "$T/err" "policy updated"
	touch "$T/go"
	wait "$spid"
	exec 8>&-
	cat "$T/out" "$T/err"
	[ "$(grep -c 'invalid settings on control fd 6: ignored' "$T/err")" -eq 2 ]
	grep -q "not applied while the command runs (only the network rules are live): filesystem" "$T/err"
	grep -q "after 403" "$T/out"
	grep -q "write refused" "$T/out"
	[ ! -e "$T/w/x" ]
}

@test "control: the channel ending before an update leaves the start policy; a bad descriptor is refused" {
	run srt -s "$T/allow.json" --control-fd 9 -c "curl -s -o /dev/null -w '%{http_code}' --noproxy '' http://127.0.0.1:$UP/" 9</dev/null
	[ "$status" -eq 0 ]
	[ "$output" = "200" ]
	run srt -s "$T/allow.json" --control-fd 2 -c true
	[ "$status" -eq 125 ]
	[[ "$output" == *"must be an integer file descriptor >= 3"* ]]
	run srt -s "$T/allow.json" --control-fd 9 -c true
	[ "$status" -eq 125 ]
	[[ "$output" == *"--control-fd 9 is not usable"* ]]
	run srt -s "$T/allow.json" --control-fd 9 -c true 9>"$T/wo"
	[ "$status" -eq 125 ]
	[[ "$output" == *"not open for reading"* ]]
}

@test "control: the descriptor does not reach the sandboxed command" {
	# The command's output alone: srt may warn about what it reads from /dev/zero, on
	# its standard error, before the command ends or not (seen once).
	run --separate-stderr srt -s "$T/none.json" --control-fd 7 \
	    -c 'ls /proc/self/fd | sort -n | tr "\n" " "' 7</dev/zero
	echo "$output"
	echo "stderr: $stderr"
	[ "$status" -eq 0 ]
	# 3 is ls's own directory.
	[ "$output" = "0 1 2 3 " ]
}

# ---- the decider ----------------------------------------------------------------------

# start_decider RULES [decider.py options] -- PROGRAM...: in the background, frames in $T/frames
start_decider() {
	local rules=$1
	shift
	python3 "$DECIDER" "$@" 2>"$T/derr" &
	DPID=$!
}

@test "decider: allow with header edits, deny with status and reason, need_body, timeout" {
	cat >"$T/rules.json" <<JSON
{"hosts":{
  "127.0.0.1":{"action":"allow","setHeaders":{"x-added":["one","two"],"user-agent":["edited"]},
               "removeHeaders":["x-secret"]},
  "localhost":{"action":"deny","status":451,"reason":"not for this task"},
  "127.0.0.3":{"silent":true},
  "127.0.0.4":{"need_body":5,"action":"deny","status":403,"reason":"body seen"}
}}
JSON
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\",\"localhost:$UP\",\"127.0.0.3:$UP\",\"127.0.0.4:$UP\"]"
	# Header sets on plain HTTP need --plaintext-header-set (the next test: refused
	# without it).
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3 --decider-timeout 400 \
	    --log "$T/log" --plaintext-header-set
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run curl -sS -x "http://127.0.0.1:$PP" -H 'X-Secret: s3' -H 'X-Keep: k' "http://127.0.0.1:$UP/a?q=1"
	[ "$status" -eq 0 ]
	echo "$output"
	[[ "$output" == *"GET /a?q=1 HTTP/1.1"* ]]
	[[ "$output" == *"x-added: one"* && "$output" == *"x-added: two"* ]]
	[[ "$output" == *"user-agent: edited"* ]]
	[[ "$output" != *"X-Secret"* && "$output" != *"curl/"* ]]
	[[ "$output" == *"X-Keep: k"* ]]
	grep -q '"t":"req","id":1,"method":"GET","host":"127.0.0.1","port":'"$UP"',"hostHeader":"127.0.0.1:'"$UP"'","path":"/a","query":"q=1"' "$T/frames"

	run curl -s -i -x "http://127.0.0.1:$PP" "http://localhost:$UP/"
	[[ "$output" == "HTTP/1.1 451 "* ]]
	[[ "$output" == *"not for this task"* ]]
	grep -q '"host":"localhost","port":'"$UP"',"rule":"decider","reason":"not for this task"' "$T/log" ||
	    grep -q '"reason":"not for this task"' "$T/log"

	# CONNECT is asked too, with its authority as the path.
	run curl -s -o /dev/null -w '%{http_connect}' -p -x "http://127.0.0.1:$PP" "http://localhost:$UP/"
	[ "$output" = "451" ]
	grep -q '"method":"CONNECT","host":"localhost","port":'"$UP"',"hostHeader":"localhost:'"$UP"'","path":"localhost:'"$UP"'"' "$T/frames"

	run curl -s -i -x "http://127.0.0.1:$PP" -d 'hello world' "http://127.0.0.4:$UP/"
	[[ "$output" == "HTTP/1.1 403 "* ]]
	grep -q '"action":"need_body","max":5' "$T/frames"
	grep -Eq '"t":"body","id":[0-9]+,"data":"(aGVsbG8=)?","cut":true' "$T/frames"

	# No verdict in time: refused 503, and the late silence does not hurt what follows.
	run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.3:$UP/"
	[[ "$output" == "HTTP/1.1 503 "* ]]
	[[ "$output" == *"decider timed out"* ]]
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = "200" ]
	# A host the policy denies is never asked.
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.9:$UP/"
	[ "$output" = "403" ]
	! grep -q '"host":"127.0.0.9"' "$T/frames"
}

# The rules of the plaintext-header-set tests: 127.0.0.1 allowed with a header set,
# localhost allowed with a removal only.
plaintext_rules() {
	cat >"$T/rules.json" <<JSON
{"hello":{"allowedDomains":["127.0.0.1:$UP","localhost:$UP","127.0.0.2:$UP"],"deniedDomains":[]},
 "hosts":{
  "127.0.0.1":{"action":"allow","setHeaders":{"x-added":["yes"]}},
  "localhost":{"action":"allow","removeHeaders":["x-secret"]},
  "127.0.0.2":{"action":"allow","cred":"svc","credential":"tok123"}
}}
JSON
}

@test "decider: an allow that sets headers on plain HTTP is refused 403 without --plaintext-header-set; removals alone go through" {
	plaintext_rules
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\",\"localhost:$UP\",\"127.0.0.2:$UP\"]"
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3 --log "$T/log"
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/set"
	echo "$output"
	[[ "$output" == "HTTP/1.1 403 "* ]]
	[[ "$output" == *"X-Proxy-Error: plaintext-header-set"* ]]
	[[ "$output" == *"--plaintext-header-set"* ]]
	[[ "$output" != *"x-added"* ]]
	# A credential is a header set (Authorization): refused the same way, never sent.
	run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.2:$UP/cred"
	echo "$output"
	[[ "$output" == "HTTP/1.1 403 "* ]]
	[[ "$output" == *"X-Proxy-Error: plaintext-header-set"* ]]
	[[ "$output" != *"tok123"* ]]
	# Removals alone are forwarded; the refusal is the decider's in the log.
	run curl -s -i -x "http://127.0.0.1:$PP" -H 'X-Secret: s3' "http://localhost:$UP/rm"
	echo "$output"
	[[ "$output" == "HTTP/1.1 200 "* ]]
	[[ "$output" == *"GET /rm HTTP/1.1"* && "$output" != *"X-Secret"* ]]
	grep '"rule":"decider"' "$T/log" | grep -q '"reason":"the decider'"'"'s allow sets headers'
	kill "$DPID"; wait "$DPID" 2>/dev/null || true; DPID=
	[ "$(grep -c '"t":"req"' "$T/frames")" -eq 3 ]
}

@test "decider: srt proxy and srt --decider-fd refuse header sets on plain HTTP unless asked (--plaintext-header-set, allowPlaintextHeaderSet)" {
	plaintext_rules
	for flag in "" --plaintext-header-set; do
		: >"$T/frames"
		start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
		    srt proxy --decider-fd 3 --listen "127.0.0.1:$PP" $flag
		wait_listening "$PP"
		wait_for "$T/frames" '> {"t":"hello"'
		run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/p"
		echo "${flag:-none}: $output"
		if [ -z "$flag" ]; then
			[[ "$output" == "HTTP/1.1 403 "* ]]
			[[ "$output" == *"X-Proxy-Error: plaintext-header-set"* ]]
		else
			[[ "$output" == "HTTP/1.1 200 "* ]]
			[[ "$output" == *"x-added: yes"* ]]
		fi
		kill "$DPID"; wait "$DPID" 2>/dev/null || true; DPID=
		for _ in $(seq 50); do wait_listening "$PP" 2>/dev/null || break; sleep 0.1; done
	done
	# srt: the settings key, read when the proxy starts.
	for v in false true; do
		cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$UP"],"deniedDomains":[],"allowPlaintextHeaderSet":$v},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
		python3 "$DECIDER" "$T/rules.json" "$T/frames-$v" -- \
		    srt -s "$T/s.json" --decider-fd 3 -c "curl -s -i --noproxy '' http://127.0.0.1:$UP/s" \
		    >"$T/out-$v" 2>"$T/err-$v" || true
		cat "$T/out-$v" "$T/err-$v"
		! grep -q 'allowPlaintextHeaderSet' "$T/err-$v" || return 1
	done
	grep -q '^HTTP/1.1 403 ' "$T/out-false"
	grep -q 'X-Proxy-Error: plaintext-header-set' "$T/out-false"
	! grep -q 'x-added' "$T/out-false" || return 1
	grep -q '^HTTP/1.1 200 ' "$T/out-true"
	grep -q '^x-added: yes' "$T/out-true"
}

@test "decider: need_body waits for the body up to max, shows it (cut when longer) and sends it whole; a body that does not come is refused" {
	cat >"$T/rules.json" <<JSON
{"hosts":{
  "127.0.0.1":{"need_body":8,"action":"allow"},
  "localhost":{"need_body":100,"action":"allow","setHeaders":{"x-seen":["yes"]}}
}}
JSON
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\",\"localhost:$UP\"]"
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3 --decider-timeout 1500 \
	    --log "$T/log" --plaintext-header-set
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run python3 "$HC" slow-body "$PP" "$UP" 127.0.0.1 0123456789abcdef go
	echo "$output"
	[[ "$output" == "HTTP/1.1 200 "* ]]
	# Shown: the first 8 bytes, cut; sent upstream: all 16.
	grep -q '"t":"body","id":1,"data":"MDEyMzQ1Njc=","cut":true' "$T/frames"
	[[ "$output" == *"0123456789abcdef"* ]]
	# A chunked body shorter than max: shown whole, no cut; upstream gets it re-chunked.
	printf 'small body' >"$T/b"
	run curl -sS -x "http://127.0.0.1:$PP" -H 'Transfer-Encoding: chunked' --data-binary @"$T/b" "http://localhost:$UP/c"
	echo "$output"
	grep -q '"t":"body","id":2,"data":"c21hbGwgYm9keQ=="}' "$T/frames"
	[[ "$output" == *"x-seen: yes"* ]]
	[[ "$output" == *"small body"* ]]
	# The body stops coming: refused within the verdict timeout, nothing sent upstream.
	run python3 "$HC" slow-body "$PP" "$UP" 127.0.0.1 0123456789abcdef hold
	echo "$output"
	[[ "$output" == "HTTP/1.1 503 "* ]]
	[[ "$output" == *"the request body did not come within the verdict timeout"* ]]
	! grep -q '"t":"body","id":3' "$T/frames" || return 1
	# The link is still good.
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://localhost:$UP/"
	[ "$output" = "200" ]
}

@test "decider: a malformed frame ends the link and every request is refused (fail closed)" {
	cat >"$T/rules.json" <<JSON
{"hosts":{"127.0.0.1":{"garbage":"{\"t\":\"verdict\",\"id\":1,\"action\":\"allow\",\"extra\":1}"}}}
JSON
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\"]"
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3 --log "$T/log"
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[[ "$output" == "HTTP/1.1 503 "* ]]
	run curl -s -i -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[[ "$output" == "HTTP/1.1 503 "* ]]
	[[ "$output" == *"request decider unavailable"* ]]
	# A hello that breaks the protocol: nothing is ever allowed.
	kill "$DPID"; wait "$DPID" 2>/dev/null || true
	echo '{"hello":{"raw":"{\"t\":\"hello\",\"proto\":2,\"allowedDomains\":[],\"deniedDomains\":[]}"}}' >"$T/r2.json"
	PP=$(free_port)
	start_decider "$T/r2.json" "$T/r2.json" "$T/frames2" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3 2>"$T/err2"
	wait_listening "$PP"
	wait_for "$T/frames2" '> {"t":"hello","proto":2'
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = "503" ]
}

@test "decider: srt proxy exchanges the reference's frames, byte for byte" {
	cat >"$T/rules.json" <<JSON
{"hello":{"allowedDomains":["127.0.0.1:$UP","*.example.com"],"deniedDomains":[]}}
JSON
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt proxy --decider-fd 3 --listen "127.0.0.1:$PP"
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	curl -s -o /dev/null -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	curl -s -o /dev/null -x "http://127.0.0.1:$PP" "http://127.0.0.2:$UP/"
	curl -s -o /dev/null -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/x?a=1" -H 'X-Foo: bar'
	sed "s/@UP@/$UP/g" "$SRT_DATA/decider/ref-frames.log" >"$T/want"
	# The reference's frames name curl's version; compare with this curl's.
	cv=$(curl --version | head -1 | cut -d' ' -f2)
	sed -i "s|curl/7.88.1|curl/$cv|" "$T/want"
	diff "$T/want" "$T/frames"
	# The decider going away stops the proxy, as the reference's.
	kill "$DPID"
	wait "$DPID" 2>/dev/null || true
	DPID=
	for _ in $(seq 100); do (exec 9<>"/dev/tcp/127.0.0.1/$PP") 2>/dev/null || break; sleep 0.1; done
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" != "200" ]
}

@test "decider: srt proxy refuses what it cannot do, as the reference's does" {
	run srt proxy --listen 127.0.0.1:1
	[ "$status" -eq 2 ]
	[[ "$output" == *"a decider is required"* ]]
	run srt proxy --decider-fd 3 --listen 10.1.2.3:8080
	[ "$status" -eq 2 ]
	[[ "$output" == *"--listen 10.1.2.3:8080: not a loopback address"* ]]
	run srt proxy --decider-fd 3
	[ "$status" -eq 2 ]
	run srt proxy --version --listen nonsense
	[ "$status" -eq 0 ]
	[[ "$output" == "srt-proxy "* ]]
}

@test "ask: srt --ask sends hosts no rule decides to the decider and remembers its answer" {
	cat >"$T/rules.json" <<JSON
{"hosts":{"127.0.0.1":{"action":"allow"},"localhost":{"action":"deny","status":403,"reason":"the user said no"}}}
JSON
	write_settings "$T/s.json" "[]" "[\"127.0.0.5\"]"
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt -s "$T/s.json" --decider-fd 3 --ask -c "
	      for i in 1 2; do curl -s -o /dev/null -w 'ask %{http_code}\n' --noproxy '' http://127.0.0.1:$UP/; done
	      curl -s -o /dev/null -w 'no %{http_code}\n' --noproxy '' http://localhost:$UP/
	      curl -s -o /dev/null -w 'denied %{http_code}\n' --noproxy '' http://127.0.0.5:$UP/" \
	    >"$T/out"
	wait "$DPID"
	DPID=
	cat "$T/out" "$T/frames" "$T/derr"
	[ "$(grep -c 'ask 200' "$T/out")" -eq 2 ]
	grep -q 'no 403' "$T/out"
	grep -q 'denied 403' "$T/out"
	# Asked once for 127.0.0.1 (remembered), once for localhost, never for the deny list.
	[ "$(grep -c '"t":"req".*"host":"127.0.0.1"' "$T/frames")" -eq 1 ]
	[ "$(grep -c '"t":"req".*"host":"localhost"' "$T/frames")" -eq 1 ]
	! grep -q '"host":"127.0.0.5"' "$T/frames" || return 1
	grep -q 'deny network-outbound localhost:'"$UP"' (the user said no)' "$T/derr"
}

@test "decider: under srt the proxy starts with the run and the hello is answered before the command runs; a bad hello stops the run" {
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\"]"
	echo '{}' >"$T/rules.json"
	# The command touches no network: with the proxy started lazily there would be no
	# hello at all.
	python3 "$DECIDER" "$T/rules.json" "$T/frames" -- \
	    srt -s "$T/s.json" --decider-fd 3 -c "grep -c '^> {\"t\":\"hello\"' $T/frames" \
	    >"$T/seen" 2>"$T/derr" && st=0 || st=$?
	cat "$T/frames" "$T/derr" "$T/seen"
	[ "$st" -eq 0 ]
	[ "$(cat "$T/seen")" = 1 ]
	echo '{"hello":{"raw":"{\"t\":\"hello\",\"proto\":2,\"allowedDomains\":[],\"deniedDomains\":[]}"}}' >"$T/r2.json"
	python3 "$DECIDER" "$T/r2.json" "$T/frames2" -- \
	    srt -s "$T/s.json" --decider-fd 3 -c "echo the command ran" \
	    >"$T/out2" 2>"$T/derr2" && st=0 || st=$?
	cat "$T/out2" "$T/derr2"
	[ "$st" -eq 125 ]
	! grep -q 'the command ran' "$T/out2" || return 1
	grep -q 'refusing to run the command without the decider it asks for' "$T/derr2"
}

@test "decider: --decider-in and --decider-out (two pipes) work as one socket does" {
	write_settings "$T/s.json" "[\"127.0.0.1:$UP\"]"
	echo '{}' >"$T/rules.json"
	start_decider "$T/rules.json" --pipes "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-in 3 --decider-out 4 --log "$T/log"
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	[ "$output" = "200" ]
	grep -q '"t":"req","id":1' "$T/frames"
}

@test "control: an update cannot widen past the managed policy" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace of its own"
	command -v unshare >/dev/null || skip "unshare missing"
	mkdir -p "$T/srt" "$T/upper" "$T/work"
	chmod 755 "$T/srt" "$T/upper"
	cat >"$T/srt/managed-settings.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": ["127.0.0.1:$UP"],
  "deniedDomainReasons": {"127.0.0.1:$UP": "not on this network"}},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
	chmod 644 "$T/srt/managed-settings.json"
	mkfifo "$T/ctl"
	cat >"$T/ns.sh" <<SH
set -e
mount -t overlay srt-test -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc
mkdir -p /etc/srt
mount --bind $T/srt /etc/srt
set +e
srt -d -s $T/none.json --control-fd 7 -c "while [ ! -e $T/go ]; do sleep 0.05; done
  curl -s -w ' %{http_code}\n' --noproxy '' http://127.0.0.1:$UP/" 7<$T/ctl >$T/out 2>$T/err
SH
	unshare -m --propagation private bash "$T/ns.sh" &
	local spid=$!
	exec 8>"$T/ctl"
	oneline "$T/allow.json" >&8
	wait_for "$T/err" "control fd 7: policy updated"
	touch "$T/go"
	wait "$spid"
	exec 8>&-
	cat "$T/out" "$T/err"
	grep -q "403" "$T/out"
	grep -q "deny network-outbound 127.0.0.1:$UP (managed: not on this network)" "$T/err"
}

@test "decider: srt proxy merges the decider's lists with the managed policy" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace of its own"
	command -v unshare >/dev/null || skip "unshare missing"
	mkdir -p "$T/srt" "$T/upper" "$T/work"
	chmod 755 "$T/srt" "$T/upper"
	cat >"$T/srt/managed-settings.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": ["127.0.0.1:$UP"]},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
	chmod 644 "$T/srt/managed-settings.json"
	cat >"$T/rules.json" <<JSON
{"hello":{"allowedDomains":["127.0.0.1:$UP"],"deniedDomains":[]}}
JSON
	# The hello allows 127.0.0.1:$UP, the managed file denies it: the deny holds, and
	# the decider is not even asked.
	cat >"$T/ns.sh" <<SH
set -e
mount -t overlay srt-test -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc
mkdir -p /etc/srt
mount --bind $T/srt /etc/srt
exec python3 "$DECIDER" "$T/rules.json" "$T/frames" -- srt proxy --decider-fd 3 \
    --listen "127.0.0.1:$PP"
SH
	unshare -m --propagation private bash "$T/ns.sh" 2>"$T/derr" &
	DPID=$!
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	run curl -s -o /dev/null -w '%{http_code}' -x "http://127.0.0.1:$PP" "http://127.0.0.1:$UP/"
	cat "$T/frames" "$T/derr"
	[ "$output" = 403 ]
	! grep -q '"t":"req"' "$T/frames"
}

@test "decider: a body read ahead for a refused request is not sent with the next one" {
	# One client connection: a POST whose body the decider reads and then refuses,
	# then a GET the decider allows. The upstream records the bytes it gets: the GET's
	# head alone, with nothing of the refused request's body or its framing after it.
	local RP
	RP=$(free_port)
	python3 "$HU" record "$RP" "$T/got" &
	local rpid=$!
	wait_listening "$RP"
	cat >"$T/rules.json" <<JSON
{"hosts":{"localhost":{"need_body":100,"action":"deny","status":403,"reason":"no"},
  "127.0.0.1":{"action":"allow"}}}
JSON
	write_settings "$T/s.json" "[\"127.0.0.1:$RP\",\"localhost:$RP\"]"
	start_decider "$T/rules.json" "$T/rules.json" "$T/frames" -- \
	    srt-httpd -s "$T/s.json" -l "127.0.0.1:$PP" --decider-fd 3
	wait_listening "$PP"
	wait_for "$T/frames" '> {"t":"hello"'
	python3 "$HC" read-ahead "$PP" "$RP" >"$T/client"
	wait "$rpid" || true
	cat "$T/client"; od -c "$T/got" | tail -5
	grep -q "^HTTP/1.1 403" "$T/client"
	grep -q "^HTTP/1.1 200" "$T/client"
	# the GET's head, ending the bytes: no chunk terminator or body after it
	got=$(cat "$T/got"; echo .)
	got=${got%.}
	[[ "$got" == "GET /x "* ]]
	[[ "$got" == *$'\r\n\r\n' ]]
	[[ "$got" != *$'\r\n\r\n'*$'\r\n\r\n' ]]
	[[ "$got" != *hello* ]]
}
