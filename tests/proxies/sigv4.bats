# SigV4 re-signing of requests signed with a masked AWS key pair (issue #14 item 2), on
# srt-httpd's plain-HTTP path (allowPlaintextInject). The command holds sentinels and signs
# with them (botocore's signers, and the AWS CLI); the upstreams verify each signature
# with the real pair by a signer of their own (helpers/sigv4-upstream.py) and log "OK" or
# "BAD why". 127.0.0.1:$P1 is the pair's inject host, 127.0.0.2:$P2 is allowed but not
# an inject host. Every scenario runs in a network namespace of its own (netns.sh sigv4).
load ../helpers

CLIENT="$BATS_TEST_DIRNAME/../helpers/sigv4-client.py"
P1=18941
P2=18942
P3=18943
AKID=AKIAIOSFODNN7EXAMPLE
SECRET=wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY
TOKEN=FQoGZXIvYXdzEXAMPLEsessionTOKEN0123456789

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a network namespace"
	python3 "$CLIENT" check 2>/dev/null || skip "botocore is not installed"
	srt_setup
	T=$(cd "$T" && pwd -P)
}

teardown() { srt_teardown; }

# settings [POLICIES]: the AWS trio masked, injectable at 127.0.0.1 ($P1) only; the key id
# also in a body's field "key" (injectBodyFields), to see a body substituted, then hashed.
settings() {
	local inj='"injectHosts":["127.0.0.1"]'
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1","127.0.0.2:$P2"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{"allowPlaintextInject":true ${1:+,$1},
  "envVars":[{"name":"AWS_ACCESS_KEY_ID","mode":"mask",$inj,"injectBodyFields":["key"]},
   {"name":"AWS_SECRET_ACCESS_KEY","mode":"mask",$inj},
   {"name":"AWS_SESSION_TOKEN","mode":"mask",$inj}]}}
JSON
}

# in_ns COMMAND: srt runs COMMAND (sh -c) with the real pair in its environment.
in_ns() {
	run timeout 90 unshare -n -- env T="$T" P1=$P1 P2=$P2 AKID=$AKID SECRET=$SECRET \
	    TOKEN=$TOKEN AWS_ACCESS_KEY_ID=$AKID AWS_SECRET_ACCESS_KEY=$SECRET \
	    AWS_SESSION_TOKEN=$TOKEN SRT_BIN="$SRT_BIN" \
	    bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" sigv4 "$SRT_BIN/srt" -s "$T/s.json" -c \
	    "unset NO_PROXY no_proxy; $1"
	echo "status $status, output:" >&2
	printf '%s\n' "$output" >&2
	local f
	for f in up1.log up2.log; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	# The sandbox never saw the real secret or token.
	[[ "$output" != *"$SECRET"* && "$output" != *"$TOKEN"* ]]
}

C="python3 $CLIENT"

@test "sigv4: each re-signable shape is signed again with the real pair at the inject host" {
	settings
	in_ns "$C header POST http://127.0.0.1:$P1/api 'a=1'; \
	    $C s3 PUT http://127.0.0.1:$P1/b/k1 \"key=\$AWS_ACCESS_KEY_ID\"; \
	    $C chunked PUT http://127.0.0.1:$P1/b/k2 'chunked-body'; \
	    $C unsigned PUT http://127.0.0.1:$P1/b/k3 'unsigned-body'; \
	    $C s3 GET 'http://127.0.0.1:$P1/b?list-type=2&prefix=a%2Fb'"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^200 ok$' <<<"$output")" -eq 5 ]
	[ "$(grep -c '^OK$' "$T/up1.log")" -eq 5 ]
	! grep -q '^BAD' "$T/up1.log" || return 1
	# The body was substituted before it was hashed: the real key id went, and signed.
	grep -qx "key=$AKID" "$T/up1.log"
	grep -q "^X-Amz-Security-Token: $TOKEN\$" "$T/up1.log"
	grep -qi "^x-amz-content-sha256: UNSIGNED-PAYLOAD" "$T/up1.log"
	! grep -q fake_value_ "$T/up1.log"
}

@test "sigv4: not an inject host, the signature stays the sentinel's" {
	settings
	in_ns "$C s3 PUT http://127.0.0.2:$P2/b/k 'x'"
	[ "$status" -eq 0 ]
	[[ "$output" == *"403 <Error>"*"unknown access key id fake_value_"* ]]
	grep -q '^BAD unknown access key id fake_value_' "$T/up2.log"
	! grep -q "$AKID" "$T/up2.log" || return 1
	! grep -q "$TOKEN" "$T/up2.log"
}

@test "sigv4: streaming, presigned and SigV4A are refused, with a violation line each" {
	settings
	in_ns "$C streaming PUT http://127.0.0.1:$P1/b/s 'x'; \
	    $C presigned GET http://127.0.0.1:$P1/b/p; \
	    $C sigv4a GET http://127.0.0.1:$P1/b/a"
	[ "$status" -eq 0 ]
	[[ "$output" == *"403 AWS SigV4 streaming request uses a masked credential but cannot be re-signed by the sandbox proxy; denied by policy. Set credentials.sigv4.streaming to \"passthrough\""* ]]
	[[ "$output" == *"403 AWS SigV4 presigned request"* ]]
	[[ "$output" == *"403 AWS SigV4 sigv4a request"* ]]
	# Nothing reached the upstream.
	[ ! -s "$T/up1.log" ]
	grep -q "^deny http-request PUT http://127.0.0.1:$P1/b/s (AWS SigV4 streaming request uses a masked credential" <<<"$output"
	# The presigned URL's query (its signature) is cut from the line.
	grep -q "^deny http-request GET http://127.0.0.1:$P1/b/p?… (AWS SigV4 presigned request" <<<"$output"
	! grep -q "deny http-request.*X-Amz-Signature" <<<"$output" || return 1
	grep -q "^deny http-request GET http://127.0.0.1:$P1/b/a (AWS SigV4 sigv4a request" <<<"$output"
}

@test "sigv4: passthrough sends those shapes on as they are (and they fail upstream)" {
	settings '"sigv4":{"streaming":"passthrough","presigned":"passthrough","sigv4a":"passthrough"}'
	in_ns "$C streaming PUT http://127.0.0.1:$P1/b/s 'x'; \
	    $C presigned GET http://127.0.0.1:$P1/b/p"
	[ "$status" -eq 0 ]
	[ "$(grep -c '^403 <Error>' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^BAD' "$T/up1.log")" -eq 2 ]
	! grep -q 'deny http-request' <<<"$output"
}

@test "sigv4: a signed header that is missing, or no x-amz-date, is refused" {
	settings
	# A signature that names a field the request does not carry.
	in_ns "auth=\"AWS4-HMAC-SHA256 Credential=\$AWS_ACCESS_KEY_ID/20240101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date;x-gone, Signature=00\"; \
	    curl -sS -m 10 -H \"Authorization: \$auth\" -H 'x-amz-date: 20240101T000000Z' \
	    http://127.0.0.1:$P1/m; echo; \
	    curl -sS -m 10 -H \"Authorization: \$auth\" http://127.0.0.1:$P1/m; echo; \
	    curl -sS -m 10 -H \"Authorization: AWS4-HMAC-SHA256 Credential=\$AWS_ACCESS_KEY_ID/x, Sig\" \
	    http://127.0.0.1:$P1/m; echo; \
	    ok=\"AWS4-HMAC-SHA256 Credential=\$AWS_ACCESS_KEY_ID/20240101/us-east-1/s3/aws4_request, SignedHeaders=host;x-amz-date, Signature=00\"; \
	    curl -sS -m 10 -H \"Authorization: \$ok\" -H 'x-amz-date: 20240101T000000Z' \
	    -H 'Content-Length: 67108865' --data-binary '' http://127.0.0.1:$P1/big; echo"
	[ "$status" -eq 0 ]
	[[ "$output" == *'signed header "x-gone" is missing; the proxy cannot re-sign it.'* ]]
	[[ "$output" == *"carries no x-amz-date header"* ]]
	[[ "$output" == *"Authorization header is malformed"* ]]
	# A literal payload hash over a body past the buffering limit: refused before a byte.
	[[ "$output" == *"the body exceeds the 67108864-byte buffering limit; denied."* ]]
	[ ! -s "$T/up1.log" ]
}

@test "sigv4: the AWS CLI (sts, s3api) through srt, verified upstream" {
	command -v aws >/dev/null || skip "the AWS CLI is not installed"
	settings
	in_ns "export AWS_CONFIG_FILE=/dev/null AWS_SHARED_CREDENTIALS_FILE=/dev/null; \
	    aws sts get-caller-identity --endpoint-url http://127.0.0.1:$P1 \
	    --region us-east-1 --output text; \
	    aws s3api list-buckets --endpoint-url http://127.0.0.1:$P1 --region us-east-1 \
	    --output text"
	[ "$status" -eq 0 ]
	[[ "$output" == *123456789012* ]]
	[[ "$output" == *verified-bucket* ]]
	[ "$(grep -c '^OK$' "$T/up1.log")" -eq 2 ]
	! grep -q '^BAD' "$T/up1.log"
}

# Over terminated TLS (network.tlsTerminate): no allowPlaintextInject needed there, and
# without it plain HTTP keeps the sentinels. $P1 and $P2 speak HTTPS with a certificate
# of a test CA srt-httpd is told to trust; $P3 is plain HTTP (netns.sh tls).
tls_settings() {
	local inj='"injectHosts":["127.0.0.1"]'
	cat >"$T/s.json" <<JSON
{"network":{"allowedDomains":["127.0.0.1:$P1","127.0.0.2:$P2","127.0.0.1:$P3"],
  "deniedDomains":[],"tlsTerminate":{"extraCaCertPaths":["$T/pki/up-ca.pem"]}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]},
 "credentials":{"envVars":[{"name":"GH_TOKEN","mode":"mask",$inj,"injectBodyFields":["t"]},
   {"name":"AWS_ACCESS_KEY_ID","mode":"mask",$inj,"injectBodyFields":["key"]},
   {"name":"AWS_SECRET_ACCESS_KEY","mode":"mask",$inj},
   {"name":"AWS_SESSION_TOKEN","mode":"mask",$inj}]}}
JSON
}

@test "terminated TLS: substitution and re-signing without allowPlaintextInject; plain HTTP keeps sentinels" {
	command -v openssl >/dev/null || skip "openssl is not installed"
	tls_settings
	GH=ghp_TLSREALTOKEN_0123456789abcdefghij
	run timeout 120 unshare -n -- env T="$T" P1=$P1 P2=$P2 P3=$P3 AKID=$AKID \
	    SECRET=$SECRET TOKEN=$TOKEN AWS_ACCESS_KEY_ID=$AKID AWS_SECRET_ACCESS_KEY=$SECRET \
	    AWS_SESSION_TOKEN=$TOKEN GH_TOKEN=$GH \
	    bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" tls "$SRT_BIN/srt" -s "$T/s.json" -c \
	    "unset NO_PROXY no_proxy; for u in https://127.0.0.1:$P1 https://127.0.0.2:$P2 \
	    http://127.0.0.1:$P3; do curl -sS -m 20 -H \"Authorization: token \$GH_TOKEN\" \
	    -d \"t=\$GH_TOKEN\" \$u/gh -o /dev/null -w '%{http_code}\n'; done; \
	    $C s3 PUT https://127.0.0.1:$P1/b/k \"key=\$AWS_ACCESS_KEY_ID\"; \
	    $C header POST https://127.0.0.1:$P1/api 'a=1'; \
	    $C s3 PUT http://127.0.0.1:$P3/b/plain 'x'; \
	    $C streaming PUT https://127.0.0.1:$P1/b/s 'x'"
	echo "status $status, output:" >&2
	printf '%s\n' "$output" >&2
	for f in up1.log up2.log up3.log; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	[ "$status" -eq 0 ]
	[[ "$output" != *"$SECRET"* && "$output" != *"$GH"* && "$output" != *"$TOKEN"* ]]
	# curl reached all three through srt (403: the verifier wants SigV4, and says so).
	[ "$(grep -c '^403$' <<<"$output")" -eq 3 ]
	# The inject host over TLS got the real token, in the header and the body.
	grep -qx "Authorization: token $GH" "$T/up1.log"
	grep -qx "t=$GH" "$T/up1.log"
	# Not an inject host; and plain HTTP without allowPlaintextInject: sentinels.
	! grep -q "$GH" "$T/up2.log" "$T/up3.log" || return 1
	grep -q "^t=fake_value_" "$T/up2.log"
	grep -q "^t=fake_value_" "$T/up3.log"
	# SigV4 over TLS: re-signed, verified; over plain HTTP: not.
	[ "$(grep -c '^200 ok$' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^OK$' "$T/up1.log")" -eq 2 ]
	grep -qx "key=$AKID" "$T/up1.log"
	grep -q '^BAD unknown access key id fake_value_' "$T/up3.log"
	! grep -q "$AKID" "$T/up3.log" || return 1
	grep -q "^deny http-request PUT https://127.0.0.1:$P1/b/s (AWS SigV4 streaming request" <<<"$output"
}
