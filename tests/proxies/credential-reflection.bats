# Masked credentials reflected back (issue #28 item 8): a host that echoes or stores what
# it is sent must not hand a masked credential's real value back to the command. srt-httpd
# puts the real value into header fields, and into a body only in the fields
# injectBodyFields names (for the hosts injectHosts names); and it scrubs every response
# it reads in clear text of the value, in the forms an echo gives it back. Upstreams:
# helpers/echo-upstream.py, which knows the real value ($UP_SECRET) and hands it back in
# the ways such a service would; each scenario runs in a network namespace of its own
# (netns.sh cred for plain HTTP, netns.sh tls over terminated TLS).
#
# reference 0.0.83: LEAKED. Run with the same settings (allowPlaintextInject, injectHosts
# 127.0.0.1) against this upstream's /echo and /split: the command read the real value in
# the echoed Authorization field and form body (it substitutes in every body), and in
# /split's Location, Set-Cookie, X-Echo and chunked body (responses pass untouched).
load ../helpers

UP="$BATS_TEST_DIRNAME/../helpers/echo-upstream.py"
CC="$BATS_TEST_DIRNAME/../helpers/cred-clients.py"   # the Python clients: see its usage
P1=18951
P2=18952
P3=18953
SECRET=ghp_REALSECRET_0123456789abcdefXYZ
# A Basic authorization's value: base64 of "alice:S3cr3t-basic-password".
BASIC=YWxpY2U6UzNjcjN0LWJhc2ljLXBhc3N3b3Jk
BASIC_PW=S3cr3t-basic-password

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a network namespace"
	srt_setup
	T=$(cd "$T" && pwd -P)
}

teardown() { srt_teardown; }

# settings ENTRIES [EXTRA]: GH_TOKEN's entry fields (after name and mode) and more
# credentials keys; 127.0.0.1:$P1 and 127.0.0.2:$P2 allowed.
settings() {
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1","127.0.0.2:$P2"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true,
  "envVars":[{"name":"GH_TOKEN","mode":"mask"$1}${2:+,$2}]}}
JSON
}

in_ns() {
	run timeout 60 unshare -n -- env T="$T" UP="$UP" CC="$CC" P1=$P1 P2=$P2 GH_TOKEN="$SECRET" \
	    BASIC_AUTH="$BASIC" UP_SECRET="$SECRET" UP_BASIC="$BASIC" SRT_BIN="$SRT_BIN" \
	    bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" cred "$@"
	echo "status $status, output:" >&2
	printf '%s\n' "$output" >&2
	local f
	for f in up1.log up2.log; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	return 0
}

# No form of a real value in the command's output.
no_real() {
	[[ "$output" != *"$SECRET"* ]] || { echo "the real value came back" >&2; return 1; }
	[[ "$output" != *"$BASIC_PW"* && "$output" != *"$BASIC"* ]] ||
	    { echo "the Basic value came back" >&2; return 1; }
}

CURL="curl -sS -m 10 --noproxy ''"

@test "an echo host: the header carries the real value, the body keeps the sentinel, nothing real comes back" {
	settings ',"injectHosts":["127.0.0.1"]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "$CURL -H \"Authorization: token \$GH_TOKEN\" \
	    -H \"X-Api-Key: \$GH_TOKEN\" -H 'Accept-Encoding: gzip, br' \
	    -d \"t=\$GH_TOKEN\" http://127.0.0.1:$P1/echo; echo; echo \"exit \$?\"; \
	    $CURL -H \"Authorization: token \$GH_TOKEN\" -r 3-5 http://127.0.0.1:$P1/echo"
	[ "$status" -eq 0 ]
	no_real
	[[ "$output" == *"exit 0"* ]]
	# The echo shows a stand-in where the real value went.
	[[ "$output" == *"Authorization: token fake_value_"* ]]
	[[ "$output" == *"X-Api-Key: fake_value_"* ]]
	# The upstream got the real value in the fields, the sentinel in the body; it was
	# asked for the response whole and unencoded.
	grep -qx "Authorization: token $SECRET" "$T/up1.log"
	grep -qx "X-Api-Key: $SECRET" "$T/up1.log"
	grep -q "^t=fake_value_" "$T/up1.log"
	grep -qx "Accept-Encoding: identity" "$T/up1.log"
	# A Range would let the value come back in pieces: the response comes whole.
	[ "$(grep -c '^==== GET /echo' "$T/up1.log")" -eq 1 ]
	! grep -qi "^Range:" "$T/up1.log" || return 1
	[[ "$output" == *"GET /echo HTTP/1.1"* ]]
}

@test "injectBodyFields: the named form and JSON fields take the value, no other part of a body" {
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["t","client_secret"]'
	cat >"$T/inside.sh" <<'SH'
unset NO_PROXY no_proxy
c() { curl -sS -m 10 "$@"; echo; }
c -d "t=$GH_TOKEN&u=$GH_TOKEN&xt=$GH_TOKEN" http://127.0.0.1:$P1/echo
c -H 'Content-Type: application/json' --data-binary \
    "{\"client_secret\" : \"$GH_TOKEN\", \"note\": \"$GH_TOKEN\", \"x\": \"client_secret=$GH_TOKEN\"}" \
    http://127.0.0.1:$P1/echo
python3 "$CC" chunked-field http://127.0.0.1:$P1/echo
c -d "t=$GH_TOKEN" http://127.0.0.2:$P2/echo
SH
	in_ns "$SRT_BIN/srt" -s "$T/s.json" bash "$T/inside.sh"
	[ "$status" -eq 0 ]
	no_real
	[ "$(grep -c '^urllib 200' <<<"$output")" -eq 1 ]
	# A named form field, at the start of the body: real; the others: sentinels.
	grep -q "^t=$SECRET&u=fake_value_[a-z0-9_-]*&xt=fake_value_" "$T/up1.log"
	# A named JSON member: real; another member, or the name inside a string: not.
	grep -q "^{\"client_secret\" : \"$SECRET\", \"note\": \"fake_value_[a-z0-9_-]*\", \"x\": \"client_secret=fake_value_" "$T/up1.log"
	# Cut across chunks, still found.
	grep -qx "t=$SECRET&z=1" "$T/up1.log"
	# Another host than injectHosts: no body field takes it.
	grep -q "^t=fake_value_" "$T/up2.log"
	! grep -q "$SECRET" "$T/up2.log" || return 1
}

@test "what comes back is scrubbed: cut across chunks and reads, close-delimited, in fields, base64, a Basic value decoded" {
	settings ',"injectHosts":["127.0.0.1"]' \
	    '{"name":"BASIC_AUTH","mode":"mask","injectHosts":["127.0.0.1"]}'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "$CURL -i http://127.0.0.1:$P1/split; \
	    echo \"split \$?\"; $CURL -i http://127.0.0.1:$P1/length; echo \"length \$?\"; \
	    $CURL http://127.0.0.1:$P1/close; echo \"close \$?\"; \
	    $CURL -H \"Authorization: Basic \$BASIC_AUTH\" http://127.0.0.1:$P1/b64; \
	    echo \"b64 \$?\""
	[ "$status" -eq 0 ]
	no_real
	# Every body arrived whole, framed as it said (curl fails on a short one).
	for w in split length close b64; do
		[[ "$output" == *"$w 0"* ]]
	done
	[[ "$output" == *"before fake_value_"*" after"* ]]
	[[ "$output" =~ Content-Length:\ ([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -eq $((6 + ${#SECRET} + 1)) ]
	[[ "$output" == *"value=fake_value_"* ]]
	[[ "$output" == *"closing fake_value_"* ]]
	grep -q "^Location: /next?t=fake_value_" <<<"$output"
	grep -q "^Set-Cookie: s=fake_value_" <<<"$output"
	grep -q "^X-Echo: fake_value_" <<<"$output"
	# The base64 forms, decoded, hold no real value; the Basic value's decoded form and
	# its password are stand-ins.
	[ "$(grep -c '^b64=' <<<"$output")" -eq 3 ]
	grep '^b64=' <<<"$output" | cut -c5- | python3 "$CC" b64-free "$SECRET"
	grep -q '^basic=\*\*\*\*' <<<"$output"
	# The upstream did get the Basic value.
	grep -qx "Authorization: Basic $BASIC" "$T/up1.log"
}

@test "an encoded response from a host that may receive the value is refused (502): identity was asked for" {
	settings ',"injectHosts":["127.0.0.1"]'
	in_ns "$SRT_BIN/srt" -s "$T/s.json" -c "$CURL --compressed \
	    -H \"Authorization: token \$GH_TOKEN\" http://127.0.0.1:$P1/gzip \
	    -w 'code %{http_code}\n'"
	no_real
	[[ "$output" == *"code 502"* ]]
	grep -qx "Accept-Encoding: identity" "$T/up1.log"
	grep -qx "Authorization: token $SECRET" "$T/up1.log"
}

@test "settings: injectBodyFields is checked, and needs injectHosts" {
	settings ',"injectBodyFields":["t"]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *'credentials.envVars[0].injectBodyFields: injectBodyFields needs injectHosts'* ]]
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":[]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *'credentials.envVars[0].injectBodyFields: injectBodyFields is empty'* ]]
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["a b","t","t",3]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *'injectBodyFields[0]: "a b" is not a body field name'* ]]
	[[ "$output" == *'injectBodyFields[2]: "t" is listed twice'* ]]
	[[ "$output" == *'injectBodyFields[3]'* ]]
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":"t"'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *'credentials.envVars[0].injectBodyFields'* ]]
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["t","client_secret","a.b-c_d"]'
	run "$SRT_BIN/srt-policy" check -s "$T/s.json"
	[ "$status" -eq 0 ]
}

@test "terminated TLS: an echo over HTTPS hands back no real value; a plain-HTTP fetch from the same host is scrubbed too" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1","127.0.0.2:$P2","127.0.0.1:$P3"],
  "deniedDomains":[],"tlsTerminate":{"extraCaCertPaths":["$T/pki/up-ca.pem"]}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{"envVars":[{"name":"GH_TOKEN","mode":"mask","injectHosts":["127.0.0.1"],
   "injectBodyFields":["t"]}]}}
JSON
	run timeout 120 unshare -n -- env T="$T" P1=$P1 P2=$P2 P3=$P3 UP="$UP" \
	    UP_SECRET="$SECRET" GH_TOKEN="$SECRET" AKID=x SECRET=x TOKEN= \
	    bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" tls "$SRT_BIN/srt" -s "$T/s.json" -c \
	    "unset NO_PROXY no_proxy; curl -sS -m 20 -H \"Authorization: token \$GH_TOKEN\" \
	    -d \"t=\$GH_TOKEN\" https://127.0.0.1:$P1/echo; echo; \
	    curl -sS -m 20 -i https://127.0.0.1:$P1/split; echo \"tls split \$?\"; \
	    curl -sS -m 20 http://127.0.0.1:$P3/length; echo \"plain length \$?\""
	echo "status $status, output:" >&2
	printf '%s\n' "$output" >&2
	for f in up1.log up3.log; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	[ "$status" -eq 0 ]
	[[ "$output" != *"$SECRET"* ]]
	grep -qx "Authorization: token $SECRET" "$T/up1.log"
	grep -qx "t=$SECRET" "$T/up1.log"
	[[ "$output" == *"Authorization: token fake_value_"* ]]
	[[ "$output" == *"t=fake_value_"* ]]
	[[ "$output" == *"before fake_value_"*" after"* ]]
	[[ "$output" == *"tls split 0"* ]]
	[[ "$output" == *"value=fake_value_"* ]]
	[[ "$output" == *"plain length 0"* ]]
}

@test "injectBodyFields: a field's pattern inside another field, or in the other syntax, takes no value" {
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["t"]'
	cat >"$T/inside.sh" <<'SH'
unset NO_PROXY no_proxy
c() { curl -sS -m 10 "$@"; echo; }
# A JSON string holding a form field: the value of "note", not a field t.
c -H 'Content-Type: application/json' --data-binary "{\"note\": \"a&t=$GH_TOKEN\"}" \
    http://127.0.0.1:$P1/echo
# A JSON key that ends in "t but is not t.
c -H 'Content-Type: application/json' --data-binary "{\"x\\\"t\": \"$GH_TOKEN\"}" \
    http://127.0.0.1:$P1/echo
# A form value that looks like a JSON member.
c --data-binary "note=\"t\":\"$GH_TOKEN" http://127.0.0.1:$P1/echo
# Multipart: a part named note holding "&t=".
c -F "note=&t=$GH_TOKEN" http://127.0.0.1:$P1/echo
SH
	in_ns "$SRT_BIN/srt" -s "$T/s.json" bash "$T/inside.sh"
	[ "$status" -eq 0 ]
	no_real
	[ "$(grep -c 'fake_value_' "$T/up1.log")" -ge 4 ]
	! grep -q "$SECRET" "$T/up1.log" || return 1
}

# From an attacker's read (the body is matched as bytes, in the one media type named):
@test "injectBodyFields: a JSON body in a charset where +AFw- is a backslash: the key k\\\"t is not t" {
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["t"]'
	cat >"$T/inside.sh" <<'SH'
unset NO_PROXY no_proxy
# UTF-7: +AFw- decodes to "\", so an upstream that honours the charset reads the key k\"t.
curl -sS -m 10 -H 'Content-Type: application/json; charset=utf-7' \
    --data-binary "{\"k+AFw-\"t\": \"$GH_TOKEN\"}" http://127.0.0.1:$P1/echo
SH
	in_ns "$SRT_BIN/srt" -s "$T/s.json" bash "$T/inside.sh"
	[ "$status" -eq 0 ]
	no_real
	grep -q 'fake_value_' "$T/up1.log"
	! grep -q "$SECRET" "$T/up1.log" || return 1
}

@test "injectBodyFields: a Content-Type listing a form type first and a +json type last is no JSON body" {
	settings ',"injectHosts":["127.0.0.1"],"injectBodyFields":["t"]'
	cat >"$T/inside.sh" <<'SH'
unset NO_PROXY no_proxy
c() { curl -sS -m 10 "$@"; echo; }
# PHP cuts the type at ";", "," or " ": it reads a form whose field a is {"t":"..."}.
c -H 'Content-Type: application/x-www-form-urlencoded, application/a+json' \
    --data-binary "a={\"t\":\"$GH_TOKEN\"}" http://127.0.0.1:$P1/echo
c -H 'Content-Type: application/x-www-form-urlencoded application/a+json' \
    --data-binary "a={\"t\":\"$GH_TOKEN\"}" http://127.0.0.1:$P1/echo
SH
	in_ns "$SRT_BIN/srt" -s "$T/s.json" bash "$T/inside.sh"
	[ "$status" -eq 0 ]
	no_real
	[ "$(grep -c 'fake_value_' "$T/up1.log")" -ge 2 ]
	! grep -q "$SECRET" "$T/up1.log" || return 1
}
