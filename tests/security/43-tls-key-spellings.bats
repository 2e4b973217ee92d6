#!/usr/bin/env bats
# tlsTerminate under adversarial review (issue #14): the user's CA key (caKeyPath) is
# read-denied however the settings spell it, and the trust bundle and Java store the
# launcher writes in the run's TMPDIR cannot be replaced from inside. No network traffic.
load helpers

# A CA pair in $T/keys.
make_ca() {
	command -v openssl >/dev/null || skip "openssl missing"
	mkdir -p "$T/keys"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/keys/ca.key" -out "$T/keys/ca.pem" -days 2 -subj /CN=srt-review5-ca \
	    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	    2>/dev/null
	chmod 600 "$T/keys/ca.key"
}

# $1 caCertPath, $2 caKeyPath (as written in the settings), $3 allowWrite.
tls_settings() {
	sec_settings '["example.com"]' '[]' '[]' "${3:-[]}" '[]' '' \
	    ", \"tlsTerminate\": {\"caCertPath\": \"$1\", \"caKeyPath\": \"$2\"}"
}

KEYPROBE='if head -c 40 "$T/keys/ca.key" 2>/dev/null | grep -q "PRIVATE KEY"; then echo "ESCAPED ca key read"; else echo BLOCKED; fi'

@test "tlsTerminate: a relative caKeyPath is denied and the run starts" {
	need_srt
	make_ca
	# Relative to the launching directory ($T/work), as srt-launch reads it.
	tls_settings ../keys/ca.pem ../keys/ca.key
	in_srt "$KEYPROBE"
	assert_blocked
}

@test "tlsTerminate: a caKeyPath with .. after a link is denied and the run starts" {
	need_srt
	make_ca
	mkdir -p "$T/work/sub"
	ln -s "$T/keys" "$T/work/sub/kl"
	# The kernel follows kl before "..": the key is $T/keys/ca.key, not $T/work/sub/keys.
	tls_settings "$T/keys/ca.pem" "$T/work/sub/kl/../keys/ca.key"
	in_srt "$KEYPROBE"
	assert_blocked
}

@test "tlsTerminate: caKeyPath as a link into a write root: neither name nor a hard link reads it" {
	need_srt
	make_ca
	ln -s "$T/keys/ca.key" "$T/work/k.lnk"
	tls_settings "$T/keys/ca.pem" "$T/work/k.lnk" "[\"$T/keys\", \"$T/work\"]"
	in_srt 'for f in "$T/keys/ca.key" "$T/work/k.lnk"; do
		head -c 40 "$f" 2>/dev/null | grep -q "PRIVATE KEY" && echo "ESCAPED read $f"
	done
	ln "$T/keys/ca.key" "$T/work/hl" 2>/dev/null &&
	    head -c 40 "$T/work/hl" 2>/dev/null | grep -q "PRIVATE KEY" && echo "ESCAPED hard link"
	mv "$T/keys/ca.key" "$T/work/moved" 2>/dev/null &&
	    head -c 40 "$T/work/moved" 2>/dev/null | grep -q "PRIVATE KEY" && echo "ESCAPED renamed"
	echo BLOCKED'
	assert_blocked
	# The key is where it was, whole.
	grep -q "PRIVATE KEY" "$T/keys/ca.key"
}

@test "tlsTerminate: the trust bundle and Java store cannot be replaced from inside" {
	need_srt
	make_ca
	tls_settings "$T/keys/ca.pem" "$T/keys/ca.key"
	in_srt 'b=$SSL_CERT_FILE; j=${b%.pem}.p12
	[ -n "$b" ] && [ -f "$b" ] && [ -f "$j" ] || { echo "no bundle: $b"; exit 3; }
	cp "$b" "$TMPDIR/mine.pem"
	echo junk >"$TMPDIR/junk"
	echo x >>"$b" 2>/dev/null && echo "ESCAPED appended to the bundle"
	mv -f "$TMPDIR/junk" "$b" 2>/dev/null && echo "ESCAPED bundle renamed over"
	rm -f "$b" 2>/dev/null; [ -e "$b" ] || echo "ESCAPED bundle removed"
	mv -f "$TMPDIR/mine.pem" "$j" 2>/dev/null && echo "ESCAPED store renamed over"
	rm -f "$j" 2>/dev/null; [ -e "$j" ] || echo "ESCAPED store removed"
	: >"$j" 2>/dev/null && echo "ESCAPED store truncated"
	grep -q "BEGIN CERTIFICATE" "$b" && [ -s "$j" ] && echo BLOCKED'
	assert_blocked
}
