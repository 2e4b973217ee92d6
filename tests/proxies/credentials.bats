# credentials with mode "mask" (issue #14 item 2) on srt-httpd's plain-HTTP path
# (allowPlaintextInject): the command sees sentinels, the upstreams' logs show where the
# real values went. Every scenario runs in a network namespace of its own (netns.sh cred).
load ../helpers

UP="$BATS_TEST_DIRNAME/../helpers/cred-upstream.py"
CC="$BATS_TEST_DIRNAME/../helpers/cred-clients.py"   # the Python clients: see its usage
P1=18931
P2=18932
SECRET=ghp_REALSECRET_0123456789abcdefXYZ
FSECRET=FILESECRET-0123456789

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a network namespace"
	srt_setup
	T=$(cd "$T" && pwd -P)
	printf 'machine x login u password %s\n' "$FSECRET" >"$T/netrc"
}

teardown() { srt_teardown; }

settings() {
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1","127.0.0.2:$P2"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{$1}}
JSON
}

in_ns() {
	run timeout 60 unshare -n -- env T="$T" UP="$UP" P1=$P1 P2=$P2 GH_TOKEN="$SECRET" \
	    SRT_BIN="$SRT_BIN" bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" cred "$@"
	echo "status $status, output:" >&2
	printf '%s\n' "$output" >&2
	local f
	for f in up1.log up2.log; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	return 0
}

CURL="curl -sS -m 10 --noproxy ''"

@test "a masked variable: the sandbox sees a sentinel, the inject host the real value" {
	# The body's field t is named (injectBodyFields): a body takes the value nowhere else
	# (tests/proxies/credential-reflection.bats).
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask",
	    "injectHosts":["127.0.0.1"],"injectBodyFields":["t"]}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "echo \"[\$GH_TOKEN]\"; \
	    grep -c $SECRET /proc/self/environ; \
	    $CURL -H \"Authorization: token \$GH_TOKEN\" -d \"t=\$GH_TOKEN\" \
	    http://127.0.0.1:$P1/a; echo; \
	    $CURL -H \"Authorization: token \$GH_TOKEN\" -d \"t=\$GH_TOKEN\" \
	    http://127.0.0.2:$P2/b; echo"
	[ "$status" -eq 0 ]
	[[ "$output" =~ \[fake_value_[0-9a-f-]{36}[a-z0-9_-]*\] ]]
	# Padded to the real value's length when that is longer than the base sentinel.
	s=$(grep -o 'fake_value_[a-z0-9_-]*' <<<"$output" | head -1)
	[ ${#s} -eq 47 ] || [ ${#s} -eq ${#SECRET} ]
	[[ "$output" != *"$SECRET"* ]]
	grep -qx "Authorization: token $SECRET" "$T/up1.log"
	grep -q "^t=$SECRET\$" "$T/up1.log"
	# Not an inject host: the sentinel stays a sentinel, in the header and the body.
	! grep -q "$SECRET" "$T/up2.log" || return 1
	grep -q "Authorization: token fake_value_" "$T/up2.log"
	grep -q "^t=fake_value_" "$T/up2.log"
}

@test "a masked file with extract: a masked copy, read-only; the real span goes out" {
	settings '"allowPlaintextInject":true,"files":[{"path":"'$T'/netrc","mode":"mask",
	    "extract":"password\\s+(\\S+)","injectHosts":["127.0.0.1"],
	    "injectBodyFields":["p"]}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "cat $T/netrc; \
	    echo x >>$T/netrc || echo not-writable; \
	    p=\$(awk '{print \$6}' $T/netrc); $CURL -d \"p=\$p\" http://127.0.0.1:$P1/f; echo"
	[ "$status" -eq 0 ]
	[[ "$output" == *"machine x login u password fake_value_"* ]]
	[[ "$output" == *not-writable* ]]
	[[ "$output" != *"$FSECRET"* ]]
	grep -q "^p=$FSECRET\$" "$T/up1.log"
	# The real file is untouched.
	grep -q "password $FSECRET\$" "$T/netrc"
}

@test "the real value is in no process of the sandbox and not in srt-httpd's environment" {
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask"}]'
	# The secret is spelled backwards in the command line, which is itself in /proc.
	rsecret=$(rev <<<"$SECRET")
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "ulimit -c; pat=\$(rev <<<$rsecret); \
	    for p in /proc/[0-9]*; do cat \$p/environ \$p/cmdline 2>/dev/null; done | \
	    grep -c -f <(echo \"\$pat\"); echo end"
	[ "$status" -eq 0 ]
	# Core dumps off, and not one process of the sandbox holds the value.
	[ "$output" = $'0\n0\nend' ]
	# srt-httpd (outside) does not have it in its environment either: it came by a pipe.
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask"}]'
	# srt-httpd starts at the sandbox's first connection to it.
	# Ours is srt's child (other runs on the host have their own).
	in_ns bash -c '"$SRT_BIN/srt" -s "$T/s.json" -c "curl -s -m 5 --noproxy \"\" \
	    http://127.0.0.1:$P1/x >/dev/null; sleep 8" & srt=$!;
	    for i in $(seq 60); do h=$(pgrep -P $srt -x srt-httpd) && break; sleep 0.1; done;
	    for p in $h; do tr "\0" "\n" <"/proc/$p/environ"; done | grep -c "^GH_TOKEN=";
	    [ -n "$h" ] && echo httpd-seen; kill $srt; wait'
	[[ "$output" == *httpd-seen* ]]
	[[ "$output" == 0* ]]
}

@test "settings: a mask needs a way back (allowPlaintextInject), and awsPairs name masks" {
	settings '"envVars":[{"name":"GH_TOKEN","mode":"mask"}]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *allowPlaintextInject* ]]
	settings '"allowPlaintextInject":true,"awsPairs":[{"accessKeyIdVar":"K",
	    "secretAccessKeyVar":"S"}]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *'does not name a credentials.envVars entry with mode "mask"'* ]]
	settings '"allowPlaintextInject":true,"envVars":[{"name":"T","mode":"mask",
	    "extract":"a(b+?)"}]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *lazy* ]]
	settings '"allowPlaintextInject":true,"envVars":[{"name":"T","mode":"mask",
	    "maskClaims":["sub"]}]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"maskClaims requires decode"* ]]
	# policy.bin has no place for masks: compile refuses and writes nothing.
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask"}]'
	run "$SRT_BIN/srt-policy" compile -s "$T/s.json" -o "$T/p.bin"
	[ "$status" -ne 0 ]
	[[ "$output" == *'credentials with mode "mask" cannot be compiled'* ]]
	[ ! -e "$T/p.bin" ]
}

@test "onExtractNoMatch: warn leaves the value, deny removes it, error stops the run" {
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask",
	    "extract":"nomatch=(x)","onExtractNoMatch":"deny"}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c 'echo "[${GH_TOKEN-unset}]"'
	[ "$status" -eq 0 ]
	[[ "$output" == *"[unset]"* ]]
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask",
	    "extract":"nomatch=(x)","onExtractNoMatch":"error"}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c 'echo ran'
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask",
	    "extract":"nomatch=(x)"}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c 'echo "[$GH_TOKEN]"'
	[ "$status" -eq 0 ]
	[[ "$output" == *UNPROTECTED* ]]
}

@test "a masked file under a read-denied directory stays denied; allowRead brings the mask" {
	mkdir "$T/sec"
	printf 'machine x login u password %s\n' "$FSECRET" >"$T/sec/netrc"
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1"],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/sec"],"allowWrite":[],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,"files":[{"path":"$T/sec/netrc","mode":"mask"}]}}
JSON
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "ls -A $T/sec | wc -l; cat $T/sec/netrc || echo no-file; \
	    ls -l /proc/self/fd/ | grep -c credmask; true"
	[ "$status" -eq 0 ]
	# The command's output, without the violation block srt adds after it.
	out=$(sed '/^<sandbox_violations>$/,$d' <<<"$output")
	grep -q "^deny file-read $T/sec " <<<"$output"
	# Its masked copy's descriptor went to bwrap all the same, and no further.
	[ "$(tail -1 <<<"$out")" = 0 ]
	[[ "$output" != *fake_value_* && "$output" != *"$FSECRET"* ]]
	[[ "$out" == *no-file* ]]
	[ "$(head -1 <<<"$out")" = 0 ]
	# The same file carved out of the denied directory: the command sees the mask.
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1"],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/sec"],"allowRead":["$T/sec/netrc"],"allowWrite":[],
  "denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,"files":[{"path":"$T/sec/netrc","mode":"mask"}]}}
JSON
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "cat $T/sec/netrc"
	[ "$status" -eq 0 ]
	[[ "$output" == fake_value_* ]]
	[[ "$output" != *"$FSECRET"* ]]
}

@test "a masked file that is read-denied itself stays denied; srt runs; its copy reaches no one" {
	printf 'machine x login u password %s\n' "$FSECRET" >"$T/netrc"
	printf 'other\n' >"$T/other"
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1"],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/netrc", "$T/other"],"allowWrite":[],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,"files":[{"path":"$T/netrc","mode":"mask"},
  {"path":"$T/other","mode":"mask","extract":"(other)"}]}}
JSON
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "cat $T/netrc || echo no-netrc; \
	    cat $T/other || echo no-other; ls -l /proc/self/fd/ | grep -c credmask; \
	    cat /dev/.srt-hidden-masked/* 2>/dev/null | wc -c; true"
	# Before the fix bwrap could not hide the copy's mount and srt exited 125.
	[ "$status" -eq 0 ]
	out=$(sed '/^<sandbox_violations>$/,$d' <<<"$output")
	[[ "$out" == *no-netrc* && "$out" == *no-other* ]]
	[[ "$output" != *fake_value_* && "$output" != *"$FSECRET"* ]]
	# No descriptor of a copy, and nothing to read where bwrap put them.
	[ "$(tail -2 <<<"$out")" = "$(printf '0\n0')" ]
}

@test "python clients (requests, urllib chunked) and injectHosts defaulting to allowedDomains" {
	# No injectHosts: every allowedDomains entry may receive the value in a header field,
	# as in the reference; never in a body (injectBodyFields needs injectHosts; issue #28
	# item 8: the reference puts it into bodies too).
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask"}]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "unset NO_PROXY no_proxy; \
	    python3 $CC python-clients 127.0.0.1:$P1 && python3 $CC python-clients 127.0.0.2:$P2"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^requests 200 ok$' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^urllib 200 ok$' <<<"$output")" -eq 2 ]
	[[ "$output" != *"$SECRET"* ]]
	for f in up1.log up2.log; do
		grep -qx "Authorization: Bearer $SECRET" "$T/$f"
		grep -qx "X-Token: $SECRET" "$T/$f"
		grep -q "^t=fake_value_" "$T/$f"
		grep -q "^u=fake_value_" "$T/$f"
		! grep -q "^[tu]=$SECRET" "$T/$f" || return 1
	done
}

@test "a body the decider read ahead (need_body) goes out substituted and framed by srt" {
	# The body's length changes with the real value, so srt re-frames it as chunked:
	# the bytes read ahead for the decider must go through the same substitution and
	# framing, or the upstream would parse the raw body as chunks and requests.
	settings '"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask",
	    "injectHosts":["127.0.0.1"],"injectBodyFields":["t"]}]'
	cat >"$T/rules.json" <<JSON
{"hosts":{"127.0.0.1":{"need_body":1000,"action":"allow"}}}
JSON
	in_ns python3 "$BATS_TEST_DIRNAME/../helpers/decider.py" "$T/rules.json" "$T/frames" -- \
	    "$SRT_BIN/srt" -s "$T/s.json" --decider-fd 3 -c "$CURL \
	    --data-binary \"t=\$GH_TOKEN&x=0\$(printf '\r\n\r\n')GET /smuggled HTTP/1.1\" \
	    http://127.0.0.1:$P1/a; echo"
	[ "$status" -eq 0 ]
	grep -q '"action":"need_body"' "$T/frames"
	# one request, whose body holds the real value, framed by srt
	[ "$(grep -c '^==== ' "$T/up1.log")" -eq 1 ]
	grep -q "^t=$SECRET&x=0" "$T/up1.log"
	grep -q "^Transfer-Encoding: chunked" "$T/up1.log"
	! grep -q "^==== GET /smuggled" "$T/up1.log"
}

@test "no allowedDomains and no injectHosts: masked all the same, never put back, with a warning (as the reference)" {
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,"envVars":[{"name":"GH_TOKEN","mode":"mask"}]}}
JSON
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c 'echo "[$GH_TOKEN]"; tr "\0" "\n" </proc/self/environ | grep -c REALSECRET; true'
	[ "$status" -eq 0 ]
	[ "$(tail -1 <<<"$output")" = 0 ]
	[[ "$output" == *"[fake_value_"* ]]
	[[ "$output" != *"$SECRET"* ]]
	[[ "$output" == *'"GH_TOKEN": no host may receive it'* ]]
}
