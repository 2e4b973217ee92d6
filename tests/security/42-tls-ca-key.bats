#!/usr/bin/env bats
# tlsTerminate with the user's CA (caCertPath/caKeyPath): the CA's private key, which
# srt-httpd signs leaves with and the sandbox's trust bundle trusts, must not be readable
# by the sandboxed command (review finding; no network traffic).
load helpers

@test "tlsTerminate: caKeyPath is not readable inside the sandbox" {
	need_srt
	command -v openssl >/dev/null || skip "openssl missing"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/ca.key" -out "$T/ca.pem" -days 2 -subj /CN=srt-review-ca \
	    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	    2>/dev/null
	chmod 600 "$T/ca.key"
	sec_settings '["example.com"]' '[]' '[]' '[]' '[]' '' \
	    ", \"tlsTerminate\": {\"caCertPath\": \"$T/ca.pem\", \"caKeyPath\": \"$T/ca.key\"}"
	in_srt "if head -c 27 '$T/ca.key' 2>/dev/null | grep -q 'PRIVATE KEY'; then echo 'ESCAPED ca key read'; else echo BLOCKED; fi"
	assert_blocked
}
