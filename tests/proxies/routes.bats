#!/usr/bin/env bats
# Routes out of the proxies (issue #12): network.parentProxy and srt's own HTTP_PROXY /
# HTTPS_PROXY / NO_PROXY, network.mitmProxy, stripResponseHeaders, refuseOpaqueTunnels;
# srt-httpd and srt-socksd on their own, and under srt. The parents are real: a small
# proxy of our own (tests/helpers/route-servers.py, also as an https:// proxy with a test
# CA, and on a Unix socket as the inspection proxy) and Debian's tinyproxy. The last
# tests compare the environment fallback with the reference tool's.
#
# Every test runs in network and mount namespaces of its own (tests/helpers/netns.sh
# scenario), where only loopback is up: a proxy that dialled where it should not finds
# nothing there, and the servers that stand for the outside log every request, so a
# wrong route shows.
load ../helpers

RS="$BATS_TEST_DIRNAME/../helpers/route-servers.py"
REF_CLI=${SRT_REF_CLI:-$BATS_TEST_DIRNAME/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v unshare >/dev/null || skip "unshare is missing"
	srt_setup
	T=$(cd "$T" && pwd -P)
	cat >"$T/hosts" <<'HOSTS'
127.0.0.1	localhost
::1	localhost
127.0.0.1	a.test b.test direct.test x.direct.test loop.test
HOSTS
}

teardown() {
	srt_teardown
}

# settings FILE ALLOWED [NETWORK-MEMBERS]: a settings file allowing ALLOWED (a JSON array).
settings() {
	cat >"$1" <<JSON
{
  "network": { "allowedDomains": $2, "deniedDomains": [] ${3:+, $3} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] }
}
JSON
}

# Runs the scenario in $1 in namespaces of its own; sets $status and $output, and shows
# the servers' logs when the test fails.
in_ns() {
	run timeout 120 unshare -m -n -- env T="$T" SRT_BIN="$SRT_BIN" RS="$RS" \
	    REF_CLI="$REF_CLI" bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" scenario "$1"
	echo "scenario status $status, output:" >&2
	printf '%s\n' "$output" >&2
	local f
	for f in decisions.log parent.log origin.log httpd.err socksd.err servers.err; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	return 0
}

CURL='curl -sS -m 10'

@test "parentProxy.http: plain HTTP goes to the parent in absolute form; the route is logged" {
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:3128"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
httpd "\$T/s.json" 3129
$CURL -x http://127.0.0.1:3129 'http://a.test:8080/x?q=1'
echo "route=\$(last_decision route)"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /x?q=1 host=a.test:8080"* ]]
	[[ "$output" == *"route=parent http://127.0.0.1:3128"* ]]
	grep -qx 'P GET http://a.test:8080/x?q=1 auth=-' "$T/parent.log"
	grep -q 'parent proxy for plain HTTP: http://127.0.0.1:3128 (network.parentProxy.http)' \
	    "$T/httpd.err"
}

@test "parentProxy: CONNECT and SOCKS go through a CONNECT to the parent (https falls back to http)" {
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:3128"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
httpd "\$T/s.json" 3129
socksd "\$T/s.json" 1080
$CURL -p -x http://127.0.0.1:3129 http://a.test:8080/tunnel
$CURL --socks5-hostname 127.0.0.1:1080 http://a.test:8080/socks
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /tunnel host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /socks host=a.test:8080"* ]]
	[ "$(grep -c '^P CONNECT a.test:8080 auth=-$' "$T/parent.log")" -eq 2 ]
	[ "$(grep -c '"protocol":"connect".*"route":"parent http://127.0.0.1:3128"' "$T/decisions.log")" -eq 1 ]
	[ "$(grep -c '"protocol":"socks5".*"route":"parent http://127.0.0.1:3128"' "$T/decisions.log")" -eq 1 ]
}

@test "parentProxy: user:pass@ becomes Proxy-Authorization: Basic; wrong credentials give a 502 naming the parent" {
	settings "$T/good.json" '["a.test"]' \
	    '"parentProxy": {"http": "http://us%40r:p%3Ass@127.0.0.1:3128"}'
	settings "$T/bad.json" '["a.test"]' \
	    '"parentProxy": {"http": "http://us%40r:nope@127.0.0.1:3128"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P --auth 'us@r:p:ss'
httpd "\$T/good.json" 3129
httpd "\$T/bad.json" 3130
$CURL -x http://127.0.0.1:3129 http://a.test:8080/plain
$CURL -p -x http://127.0.0.1:3129 http://a.test:8080/tunnel
echo "== bad"
connect_raw 3130 a.test:8080
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /plain host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /tunnel host=a.test:8080"* ]]
	# base64("us@r:p:ss")
	grep -qx 'P GET http://a.test:8080/plain auth=Basic dXNAcjpwOnNz' "$T/parent.log"
	grep -qx 'P CONNECT a.test:8080 auth=Basic dXNAcjpwOnNz' "$T/parent.log"
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"* ]]
	[[ "$output" == *"X-Proxy-Error: parent-proxy-failed"* ]]
	[[ "$output" == *"parent proxy http://127.0.0.1:3128: refused CONNECT a.test:8080: HTTP/1.1 407 Proxy Authentication Required"* ]]
	# The credentials never reach a log or a message.
	! grep -q 'p:ss\|nope' "$T/decisions.log" "$T/httpd.err" || return 1
	[ "$(grep -c '/tunnel' "$T/origin.log")" -eq 1 ]
}

@test "noProxy: suffixes, .domain and ranges go direct (and meet the resolved-address guard); the rest through the parent" {
	settings "$T/s.json" '["a.test", "direct.test", "x.direct.test", "10.9.8.7", "localhost"]' \
	    '"parentProxy": {"http": "http://127.0.0.1:3128", "noProxy": "direct.test, 10.0.0.0/8"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
httpd "\$T/s.json" 3129
for u in http://a.test:8080/p http://direct.test:8080/d1 http://x.direct.test:8080/d2 \
    http://10.9.8.7:8080/d3 http://localhost:8080/d4; do
	curl -s -m 10 -x http://127.0.0.1:3129 "\$u" -o /dev/null -w "\$u %{http_code} " -D "\$T/h"
	echo "\$(last_decision route)"
done
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"http://a.test:8080/p 200 parent http://127.0.0.1:3128"* ]]
	# direct.test resolves to 127.0.0.1 here: direct, so the guard refuses it.
	[[ "$output" == *"http://direct.test:8080/d1 403 direct"* ]]
	[[ "$output" == *"http://x.direct.test:8080/d2 403 direct"* ]]
	grep -q '"host":"x.direct.test".*"reason":"Connection to x.direct.test blocked: resolved to a loopback address"' "$T/decisions.log"
	# 10.9.8.7 is in 10.0.0.0/8: direct, and nothing answers in this namespace.
	[[ "$output" == *"http://10.9.8.7:8080/d3 502 direct"* ]]
	# Loopback always goes direct (and localhost may resolve to loopback).
	[[ "$output" == *"http://localhost:8080/d4 200 direct"* ]]
	[ "$(wc -l <"$T/parent.log")" -eq 1 ]
}

@test "parentProxy: the resolved-address guard is not applied to what goes through the parent" {
	settings "$T/parent.json" '["loop.test"]' '"parentProxy": {"http": "http://127.0.0.1:3128"}'
	settings "$T/direct.json" '["loop.test"]'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
httpd "\$T/parent.json" 3129
httpd "\$T/direct.json" 3130
$CURL -x http://127.0.0.1:3129 http://loop.test:8080/via-parent
curl -s -m 10 -x http://127.0.0.1:3130 http://loop.test:8080/direct -w ' %{http_code}\n'
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /via-parent host=loop.test:8080"* ]]
	[[ "$output" == *"Connection to loop.test blocked: resolved to a loopback address"*" 403"* ]]
	! grep -q '/direct' "$T/origin.log"
}

@test "a parent that cannot be reached or refuses: 502 naming it and why, SOCKS 04, never a direct connection" {
	settings "$T/down.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:3999"}'
	settings "$T/refuse.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:3128"}'
	settings "$T/name.json" '["a.test"]' '"parentProxy": {"http": "http://nowhere.test:3128"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P --refuse 403
httpd "\$T/down.json" 3129
httpd "\$T/refuse.json" 3130
httpd "\$T/name.json" 3131
socksd "\$T/down.json" 1080
for p in 3129 3130 3131; do
	curl -s -m 10 -x http://127.0.0.1:\$p http://a.test:8080/plain -w ' %{http_code}\n'
	connect_raw \$p a.test:8080
done
curl -s -m 10 --socks5-hostname 127.0.0.1:1080 http://a.test:8080/socks; echo "socks exit \$?"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"parent proxy http://127.0.0.1:3999: connect to 127.0.0.1 port 3999 (127.0.0.1) failed: Connection refused"*" 502"* ]]
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"* ]]
	[[ "$output" == *"parent proxy http://127.0.0.1:3128: refused CONNECT a.test:8080: HTTP/1.1 403 Refused by P"* ]]
	# Plain HTTP through a refusing parent: its answer is the answer.
	[[ "$output" == *" 403"* ]]
	[[ "$output" == *"parent proxy http://nowhere.test:3128: lookup of nowhere.test failed"* ]]
	# curl: "Can't complete SOCKS5 connection ... (4)" is exit 97.
	[[ "$output" == *"socks exit 97"* ]]
	grep -q '"protocol":"socks5".*"verdict":"error".*"route":"parent http://127.0.0.1:3999","status":4' "$T/decisions.log"
	[ ! -s "$T/origin.log" ]
}

@test "an https:// parent: TLS with the certificate checked against SSL_CERT_FILE, by name and by address" {
	command -v openssl >/dev/null || skip "openssl is missing"
	(
		cd "$T" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
		    -subj /CN=srt-test-ca
		openssl req -newkey rsa:2048 -nodes -keyout srv.key -out srv.csr -subj /CN=localhost
		printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\n' >ext
		openssl x509 -req -in srv.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out srv.pem \
		    -days 2 -extfile ext
	) >/dev/null 2>&1
	[ -s "$T/srv.pem" ]
	settings "$T/name.json" '["a.test"]' '"parentProxy": {"https": "https://localhost:3443"}'
	settings "$T/addr.json" '["a.test"]' '"parentProxy": {"https": "https://127.0.0.1:3443"}'
	settings "$T/other.json" '["a.test"]' '"parentProxy": {"https": "https://a.test:3443"}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3443 PT --tls "\$T/srv.pem" "\$T/srv.key"
httpd "\$T/name.json" 3129 SSL_CERT_FILE="\$T/ca.pem"
httpd "\$T/addr.json" 3130 SSL_CERT_FILE="\$T/ca.pem"
socksd "\$T/name.json" 1080 SSL_CERT_FILE="\$T/ca.pem"
httpd "\$T/name.json" 3131
httpd "\$T/other.json" 3132 SSL_CERT_FILE="\$T/ca.pem"
$CURL -p -x http://127.0.0.1:3129 http://a.test:8080/by-name
$CURL -p -x http://127.0.0.1:3130 http://a.test:8080/by-address
$CURL --socks5-hostname 127.0.0.1:1080 http://a.test:8080/socks
for p in 3131 3132; do
	connect_raw \$p a.test:8080
done
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /by-name host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /by-address host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /socks host=a.test:8080"* ]]
	# The system's CAs do not know the test CA; the certificate does not name a.test.
	[[ "$output" == *"parent proxy https://localhost:3443: TLS: certificate verify failed: unable to get local issuer certificate"* ]]
	[[ "$output" == *"parent proxy https://a.test:3443: TLS: certificate verify failed: hostname mismatch"* ]]
	[ "$(grep -c 'HTTP/1.1 502 Bad Gateway' <<<"$output")" -eq 2 ]
	grep -q "TLS for parent proxies: CA certificates from $T/ca.pem" "$T/httpd.err"
	grep -q '"route":"parent https://localhost:3443"' "$T/decisions.log"
}

@test "an https:// parent carries 24 MiB each way intact, through CONNECT and SOCKS" {
	command -v openssl >/dev/null || skip "openssl is missing"
	(
		cd "$T" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 \
		    -subj /CN=srt-test-ca -addext subjectAltName=DNS:localhost
		cp ca.key srv.key
		cp ca.pem srv.pem
	) >/dev/null 2>&1
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"https": "https://localhost:3443"}'
	python3 "$RS" big-body 25165824 >"$T/want"
	cat >"$T/case" <<EOF
origin 8080 O
parent 3443 PT --tls "\$T/srv.pem" "\$T/srv.key"
httpd "\$T/s.json" 3129 SSL_CERT_FILE="\$T/ca.pem"
socksd "\$T/s.json" 1080 SSL_CERT_FILE="\$T/ca.pem"
$CURL -p -x http://127.0.0.1:3129 http://a.test:8080/big/25165824 -o "\$T/got-connect"
$CURL --socks5-hostname 127.0.0.1:1080 http://a.test:8080/big/25165824 -o "\$T/got-socks"
$CURL -p -x http://127.0.0.1:3129 -T "\$T/want" http://a.test:8080/sha256
$CURL --socks5-hostname 127.0.0.1:1080 -T "\$T/want" http://a.test:8080/sha256
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	cmp "$T/want" "$T/got-connect"
	cmp "$T/want" "$T/got-socks"
	[ "$(grep -c "^25165824 $(sha256sum <"$T/want" | cut -d' ' -f1)\$" <<<"$output")" -eq 2 ]
	[ "$(grep -c '^PT CONNECT a.test:8080' "$T/parent.log")" -eq 4 ]
}

@test "an https:// parent that stops reading: the TLS bridge gives up TLS_BRIDGE_CLOSE_MS after the forwarder closed it" {
	command -v openssl >/dev/null || skip "openssl is missing"
	command -v ss >/dev/null || skip "ss is missing"
	(
		cd "$T" || exit 1
		openssl req -x509 -newkey rsa:2048 -nodes -keyout srv.key -out srv.pem -days 2 \
		    -subj /CN=localhost -addext subjectAltName=DNS:localhost
	) >/dev/null 2>&1
	head -c $((64 << 20)) /dev/zero >"$T/big"
	# A parent that completes the handshake, reads nothing, answers after a while (the
	# request body has filled every buffer on the way by then), and never closes.
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"http": "https://localhost:3443"}'
	cat >"$T/case" <<EOF
python3 "\$RS" sink --listen 127.0.0.1:3443 --tls "\$T/srv.pem" "\$T/srv.key" 2>>"\$T/servers.err" &
pids+=(\$!)
wait_port 3443
httpd "\$T/s.json" 3129 SSL_CERT_FILE="\$T/srv.pem"
up() { ss -Htn state established '( dport = :3443 )' | wc -l; }
curl -sS -m 10 -x http://127.0.0.1:3129 -T "\$T/big" http://a.test:8080/up
sleep 1
echo "after the answer: \$(up)"
sleep 6
echo "later: \$(up)"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok"* ]]
	# The forwarder closed its end once the answer was in; the bridge still held bytes
	# of the body the parent never took, and dropped them (and the connection) once the
	# time was up.
	[[ "$output" == *"after the answer: 1"* ]]
	[[ "$output" == *"later: 0"* ]]
	grep -q "TLS bridge: the peer did not take the rest within 5000 ms of the close" \
	    "$T/httpd.err"
}

@test "tinyproxy as the parent, with and without BasicAuth, and noProxy" {
	command -v tinyproxy >/dev/null || skip "tinyproxy is missing (scripts/deps installs tinyproxy-bin)"
	settings "$T/open.json" '["a.test", "b.test"]' \
	    '"parentProxy": {"http": "http://127.0.0.1:8888", "noProxy": "b.test"}'
	settings "$T/auth.json" '["a.test"]' '"parentProxy": {"http": "http://srt:s3cret@127.0.0.1:8889"}'
	settings "$T/noauth.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:8889"}'
	cat >"$T/case" <<EOF
origin 8080 O
tinyproxy_on 8888
tinyproxy_on 8889 srt:s3cret
httpd "\$T/open.json" 3129
httpd "\$T/auth.json" 3130
httpd "\$T/noauth.json" 3131
socksd "\$T/auth.json" 1080
$CURL -x http://127.0.0.1:3129 http://a.test:8080/tiny-plain
$CURL -p -x http://127.0.0.1:3129 http://a.test:8080/tiny-tunnel
curl -s -m 10 -x http://127.0.0.1:3129 http://b.test:8080/direct -o /dev/null -w 'b.test %{http_code} '
echo "\$(last_decision route)"
$CURL -x http://127.0.0.1:3130 http://a.test:8080/auth-plain
$CURL -p -x http://127.0.0.1:3130 http://a.test:8080/auth-tunnel
$CURL --socks5-hostname 127.0.0.1:1080 http://a.test:8080/auth-socks
connect_raw 3131 a.test:8080
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	for p in tiny-plain tiny-tunnel auth-plain auth-tunnel auth-socks; do
		[[ "$output" == *"origin O: GET /$p host=a.test:8080"* ]]
	done
	[[ "$output" == *"b.test 403 direct"* ]]
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"*"parent proxy http://127.0.0.1:8889: refused CONNECT a.test:8080: HTTP/1.0 407"* ]]
	! grep -q '/direct' "$T/origin.log" || return 1
	grep -q 'CONNECT.*a.test:8080' "$T"/tinyproxy-8888.log
}

# fixtures DIR: what the real clients fetch: a git repository (smart HTTP), a wheel in a
# pip "simple" index, and an npm package with its registry document.
real_fixtures() {
	local d=$1 w
	mkdir -p "$d/git" "$d/simple/srtdemo" "$d/npm" "$T/src"
	git init -q -b main "$T/src/repo"
	echo "through the parent" >"$T/src/repo/README"
	git -C "$T/src/repo" add README
	git -C "$T/src/repo" -c user.name=t -c user.email=t@t commit -qm one
	git clone -q --bare "$T/src/repo" "$d/git/repo.git"
	python3 "$BATS_TEST_DIRNAME/../helpers/package-fixtures.py" write "$d"
}

@test "real clients: git (smart HTTP, by proxy and by SOCKS), pip and npm through srt and tinyproxy as the parent" {
	command -v tinyproxy >/dev/null || skip "tinyproxy is missing (scripts/deps installs tinyproxy-bin)"
	command -v git >/dev/null || skip "git is missing"
	[ -x "$(git --exec-path)/git-http-backend" ] || skip "git http-backend is missing"
	real_fixtures "$T/www"
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"http": "http://srt:s3cret@127.0.0.1:8888"}'
	cat >"$T/case" <<EOF
real_origin 8081 R "\$T/www"
tinyproxy_on 8888 srt:s3cret
httpd "\$T/s.json" 3129
socksd "\$T/s.json" 1080
export HOME="\$T/home" GIT_CONFIG_NOSYSTEM=1
mkdir -p "\$HOME"
git -c http.proxy=http://127.0.0.1:3129 clone -q http://a.test:8081/git/repo.git "\$T/c1" &&
    echo "git proxy: \$(cat "\$T/c1/README")"
git -c http.proxy=socks5h://127.0.0.1:1080 clone -q http://a.test:8081/git/repo.git "\$T/c2" &&
    echo "git socks: \$(cat "\$T/c2/README")"
if command -v pip3 >/dev/null; then
	pip3 --isolated --disable-pip-version-check -q install --root-user-action=ignore --no-deps --no-cache-dir \
	    --target "\$T/site" --index-url http://a.test:8081/simple/ --trusted-host a.test \
	    --proxy http://127.0.0.1:3129 srtdemo &&
	    echo "pip: \$(PYTHONPATH="\$T/site" python3 "$BATS_TEST_DIRNAME/../helpers/package-fixtures.py" where)"
else
	echo "pip: skipped"
fi
if command -v npm >/dev/null; then
	mkdir -p "\$T/np"
	npm install --prefix "\$T/np" --registry http://a.test:8081/npm/ \
	    --proxy http://127.0.0.1:3129 --cache "\$T/npm-cache" --no-audit --no-fund \
	    --no-update-notifier --loglevel=error srtdemo >/dev/null &&
	    echo "npm: \$(cd "\$T/np" && node -p 'require("srtdemo")')"
else
	echo "npm: skipped"
fi
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"git proxy: through the parent"* ]]
	[[ "$output" == *"git socks: through the parent"* ]]
	[[ "$output" == *"pip: wheel through the parent"* || "$output" == *"pip: skipped"* ]]
	[[ "$output" == *"npm: npm through the parent"* || "$output" == *"npm: skipped"* ]]
	# git's smart protocol: the ref advertisement, then a POST with a body, both through
	# the parent (tinyproxy logs each request it forwards).
	grep -q 'POST /git/repo.git/git-upload-pack host=a.test:8081' "$T/origin.log"
	grep -q 'GET http://a.test:8081/git/repo.git/info/refs' "$T/tinyproxy-8888.log"
	grep -q 'CONNECT a.test:8081' "$T/tinyproxy-8888.log"
	# Every request the clients made was allowed and left through the parent.
	! grep -v '"route":"parent http://127.0.0.1:8888"' "$T/decisions.log" || return 1
	[ "$(grep -c '"verdict":"allow"' "$T/decisions.log")" -ge 4 ]
}

@test "the environment: HTTP_PROXY and friends when parentProxy leaves a field out, field by field" {
	settings "$T/none.json" '["a.test", "b.test"]'
	settings "$T/https.json" '["a.test", "b.test"]' \
	    '"parentProxy": {"https": "http://127.0.0.1:3002"}'
	settings "$T/nonp.json" '["a.test", "b.test"]' '"parentProxy": {"noProxy": ""}'
	cat >"$T/case" <<EOF
origin 8080 O
parent 3001 P1
parent 3002 P2
parent 3003 P3
httpd "\$T/none.json" 4001 HTTP_PROXY=http://127.0.0.1:3001
httpd "\$T/none.json" 4002 HTTP_PROXY=http://127.0.0.1:3001 http_proxy=http://127.0.0.1:3002 https_proxy=127.0.0.1:3003
httpd "\$T/https.json" 4003 HTTP_PROXY=http://127.0.0.1:3001
httpd "\$T/none.json" 4004 HTTP_PROXY= http_proxy=http://127.0.0.1:3002
httpd "\$T/none.json" 4005 HTTP_PROXY=http://127.0.0.1:3001 NO_PROXY=b.test
httpd "\$T/nonp.json" 4006 HTTP_PROXY=http://127.0.0.1:3001 NO_PROXY=b.test
httpd "\$T/none.json" 4007 HTTP_PROXY=socks5://127.0.0.1:3001
for p in 4001 4002 4003 4004 4005 4006 4007; do
	: >"\$T/parent.log"
	curl -s -m 10 -x http://127.0.0.1:\$p http://a.test:8080/ -o /dev/null -w "\$p %{http_code} "
	curl -s -m 10 -p -x http://127.0.0.1:\$p http://a.test:8080/ -o /dev/null -w "%{http_connect} "
	curl -s -m 10 -x http://127.0.0.1:\$p http://b.test:8080/ -o /dev/null -w "%{http_code} "
	echo "[\$(cut -d' ' -f1,2 "\$T/parent.log" | tr '\n' ' ')]"
done
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	# HTTP_PROXY for everything (a tunnel falls back to it).
	[[ "$output" == *"4001 200 200 200 [P1 GET P1 CONNECT P1 GET ]"* ]]
	# Upper case first; https_proxy without a scheme is http://.
	[[ "$output" == *"4002 200 200 200 [P1 GET P3 CONNECT P1 GET ]"* ]]
	# The file's https, the environment's http.
	[[ "$output" == *"4003 200 200 200 [P1 GET P2 CONNECT P1 GET ]"* ]]
	# HTTP_PROXY set to nothing hides http_proxy: no parent, so direct, and the guard.
	[[ "$output" == *"4004 403 403 403 []"* ]]
	# NO_PROXY; and noProxy "" in the file turns it off.
	[[ "$output" == *"4005 200 200 403 [P1 GET P1 CONNECT ]"* ]]
	[[ "$output" == *"4006 200 200 200 [P1 GET P1 CONNECT P1 GET ]"* ]]
	# A URL of another scheme is ignored, with a warning.
	[[ "$output" == *"4007 403 403 403 []"* ]]
	grep -q 'warning: HTTP_PROXY: the parent proxy URL is ignored: only http:// and https:// proxies are supported' "$T/httpd.err"
}

@test "mitmProxy: matching hosts (HTTP, CONNECT, SOCKS) go to the inspection proxy's Unix socket, after the allowlist" {
	settings "$T/s.json" '["*.inspect.test", "a.test"]' \
	    "\"parentProxy\": {\"http\": \"http://127.0.0.1:3128\"}, \"mitmProxy\": {\"socketPath\": \"$T/mitm.sock\", \"domains\": [\"*.inspect.test\", \"denied.inspect.test\"]}"
	settings "$T/gone.json" '["*.inspect.test"]' \
	    "\"mitmProxy\": {\"socketPath\": \"$T/nothing.sock\", \"domains\": [\"*.inspect.test\"]}"
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
parent_unix "\$T/mitm.sock" M
httpd "\$T/s.json" 3129
socksd "\$T/s.json" 1080
httpd "\$T/gone.json" 3130
$CURL -x http://127.0.0.1:3129 http://x.inspect.test:8080/m-plain
$CURL -p -x http://127.0.0.1:3129 http://y.inspect.test:8080/m-tunnel
$CURL --socks5-hostname 127.0.0.1:1080 http://z.inspect.test:8080/m-socks
$CURL -x http://127.0.0.1:3129 http://a.test:8080/p-plain
curl -s -m 10 -x http://127.0.0.1:3129 http://inspect.test:8080/denied -w ' %{http_code}\n'
connect_raw 3130 x.inspect.test:8080
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	for p in m-plain m-tunnel m-socks p-plain; do
		[[ "$output" == *"origin O: GET /$p"* ]]
	done
	grep -qx 'M GET http://x.inspect.test:8080/m-plain auth=-' "$T/parent.log"
	grep -qx 'M CONNECT y.inspect.test:8080 auth=-' "$T/parent.log"
	grep -qx 'M CONNECT z.inspect.test:8080 auth=-' "$T/parent.log"
	grep -qx 'P GET http://a.test:8080/p-plain auth=-' "$T/parent.log"
	[ "$(grep -c '^M ' "$T/parent.log")" -eq 3 ]
	# Not on the allowlist (inspect.test is not a subdomain of itself): refused first.
	[[ "$output" == *"Connection blocked by network allowlist"*" 403"* ]]
	! grep -q 'denied' "$T/parent.log" || return 1
	# The socket is not there: 502 naming it, and no other way out.
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"*"inspection proxy unix:$T/nothing.sock: connect failed: No such file or directory"* ]]
	[ "$(wc -l <"$T/origin.log")" -eq 4 ]
	grep -q "\"route\":\"mitm unix:$T/mitm.sock\"" "$T/decisions.log"
}

@test "stripResponseHeaders: the fields never reach the client, matched without case and with - _ . folded" {
	settings "$T/s.json" '["127.0.0.1"]' \
	    '"stripResponseHeaders": ["SET-COOKIE", "x-secret_token", "content-length"]'
	cat >"$T/case" <<'EOF'
origin 8080 O
httpd "$T/s.json" 3129
curl -sS -m 10 -x http://127.0.0.1:3129 http://127.0.0.1:8080/h -D -
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"X-Other: kept"* ]]
	[[ "$output" == *"Content-Length: 37"* ]]
	[[ "$output" == *"origin O: GET /h host=127.0.0.1:8080"* ]]
	! grep -qi 'cookie\|secret' <<<"$output"
}

@test "refuseOpaqueTunnels: every CONNECT (403) and every SOCKS CONNECT (01) refused and logged; plain HTTP goes on" {
	settings "$T/s.json" '["127.0.0.1", "a.test"]' '"refuseOpaqueTunnels": true'
	cat >"$T/case" <<'EOF'
origin 8080 O
httpd "$T/s.json" 3129
socksd "$T/s.json" 1080
connect_raw 3129 127.0.0.1:8080
curl -s -m 10 --socks5 127.0.0.1:1080 http://127.0.0.1:8080/s; echo "socks exit $?"
curl -sS -m 10 -x http://127.0.0.1:3129 http://127.0.0.1:8080/plain
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"HTTP/1.1 403 Forbidden"* ]]
	[[ "$output" == *"X-Proxy-Error: blocked-by-sandbox-runtime"* ]]
	[[ "$output" == *"this proxy does not tunnel CONNECTs it cannot inspect"* ]]
	# curl: "general SOCKS server failure" (reply 01) is exit 97.
	[[ "$output" == *"socks exit 97"* ]]
	[[ "$output" == *"origin O: GET /plain"* ]]
	[ "$(wc -l <"$T/origin.log")" -eq 1 ]
	grep -q '"protocol":"connect".*"verdict":"deny","rule":"refuseOpaqueTunnels"' "$T/decisions.log"
	grep -q '"protocol":"socks5".*"verdict":"deny","rule":"refuseOpaqueTunnels".*"status":1' "$T/decisions.log"
}

@test "SIGHUP: a new parent takes effect; a new inspection socket or a first https:// parent wants a restart" {
	settings "$T/s.json" '["a.test", "*.inspect.test"]' '"parentProxy": {"http": "http://127.0.0.1:3001"}'
	settings "$T/s2.json" '["a.test", "*.inspect.test"]' \
	    "\"parentProxy\": {\"http\": \"http://127.0.0.1:3002\", \"https\": \"https://localhost:3443\"}, \"mitmProxy\": {\"socketPath\": \"$T/m.sock\", \"domains\": [\"*.inspect.test\"]}"
	cat >"$T/case" <<EOF
origin 8080 O
parent 3001 P1
parent 3002 P2
parent_unix "\$T/m.sock" M
httpd "\$T/s.json" 3129
$CURL -x http://127.0.0.1:3129 http://a.test:8080/before
cp "\$T/s2.json" "\$T/s.json"
kill -HUP "\$(cat "\$T/httpd-3129.pid")" && sleep 0.5
$CURL -x http://127.0.0.1:3129 http://a.test:8080/after
curl -s -m 10 -x http://127.0.0.1:3129 http://x.inspect.test:8080/m -w ' %{http_code}\n'
connect_raw 3129 a.test:8080
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	grep -qx 'P1 GET http://a.test:8080/before auth=-' "$T/parent.log"
	grep -qx 'P2 GET http://a.test:8080/after auth=-' "$T/parent.log"
	grep -q 'mitmProxy.socketPath is .*m.sock, but srt-httpd connects only to the socket it started with (none)' "$T/httpd.err"
	grep -q 'an https:// parent proxy needs TLS, which was not set up when srt-httpd started' "$T/httpd.err"
	[[ "$output" == *"inspection proxy unix:$T/m.sock: mitmProxy was not configured when the proxy started"*" 502"* ]]
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"*"parent proxy https://localhost:3443: TLS is not available"* ]]
	! grep -q '^M ' "$T/parent.log"
}

@test "srt: the proxies use parentProxy and srt's own HTTP_PROXY; refusals of opaque tunnels are violations" {
	settings "$T/s.json" '["a.test"]' '"parentProxy": {"http": "http://127.0.0.1:3128"}'
	settings "$T/env.json" '["a.test"]'
	settings "$T/opaque.json" '["a.test"]' '"refuseOpaqueTunnels": true'
	mkdir -p "$T/work"
	cat >"$T/case" <<EOF
origin 8080 O
parent 3128 P
cd "\$T/work"
"\$SRT_BIN/srt" -s "\$T/s.json" -c 'curl -sS -m 10 http://a.test:8080/in-sandbox; curl -sS -m 10 -p http://a.test:8080/in-tunnel'
HTTP_PROXY=http://127.0.0.1:3128 "\$SRT_BIN/srt" -s "\$T/env.json" -c 'echo "inside: \$HTTP_PROXY"; curl -sS -m 10 http://a.test:8080/from-env'
"\$SRT_BIN/srt" -s "\$T/opaque.json" -c 'curl -s -m 10 -p http://a.test:8080/x -o /dev/null -w "%{http_code}\n"; curl -s -m 10 --socks5-hostname localhost:1080 http://a.test:22/ ; true' 2>&1
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"origin O: GET /in-sandbox host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /in-tunnel host=a.test:8080"* ]]
	[[ "$output" == *"origin O: GET /from-env host=a.test:8080"* ]]
	# Inside, the proxy variables point at srt's own proxy, not at the parent.
	[[ "$output" == *"inside: http://localhost:3128"* ]]
	grep -qx 'P GET http://a.test:8080/from-env auth=-' "$T/parent.log"
	[[ "$output" == *"<sandbox_violations>"* ]]
	[[ "$output" == *"deny http-request CONNECT a.test:8080 (this proxy does not tunnel CONNECTs it cannot inspect)"* ]]
	[[ "$output" == *"deny socks-tunnel a.test:22 (refuseOpaqueTunnels)"* ]]
}

@test "srt-policy dump writes the routes back; check warns about a URL it will not use" {
	settings "$T/s.json" '[]' \
	    '"parentProxy": {"http": "socks5://127.0.0.1:1080", "noProxy": ""}, "stripResponseHeaders": ["set-cookie"], "refuseOpaqueTunnels": true, "mitmProxy": {"socketPath": "/run/i.sock", "domains": ["*.example.com"]}'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *"network.parentProxy.http: \"socks5://127.0.0.1:1080\": only http:// and https:// proxies are supported"* ]]
	srt-policy compile -s "$T/s.json" -o "$T/p.bin" 2>/dev/null
	run srt-policy dump -p "$T/p.bin"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"mitmProxy": {'*'"socketPath": "/run/i.sock"'* ]]
	[[ "$output" == *'"parentProxy": {'*'"http": "socks5://127.0.0.1:1080",'*'"noProxy": ""'* ]]
	[[ "$output" == *'"refuseOpaqueTunnels": true'* ]]
	[[ "$output" == *'"stripResponseHeaders": ['*'"set-cookie"'* ]]
}

# The reference: its proxies under its CLI, with curl inside its sandbox, against the same
# parents; what each parent saw is compared with srt's run of the same case.
@test "side by side with the reference: parentProxy and the environment, field by field" {
	[ -f "$REF_CLI" ] || skip "the reference tool is not installed (scripts/deps)"
	command -v node >/dev/null || skip "node is missing"
	command -v socat >/dev/null && command -v rg >/dev/null || skip "the reference needs socat and rg"
	local c
	cat >"$T/cases" <<'EOF'
env-only||HTTP_PROXY=http://127.0.0.1:3001
file-http|"parentProxy": {"http": "http://127.0.0.1:3002"}|HTTP_PROXY=http://127.0.0.1:3001
file-http-env-https|"parentProxy": {"http": "http://127.0.0.1:3002"}|HTTPS_PROXY=http://127.0.0.1:3003
file-https-env-http|"parentProxy": {"https": "http://127.0.0.1:3002"}|HTTP_PROXY=http://127.0.0.1:3001
upper-first||HTTP_PROXY=http://127.0.0.1:3001 http_proxy=http://127.0.0.1:3002 https_proxy=http://127.0.0.1:3003
no-proxy||HTTP_PROXY=http://127.0.0.1:3001 NO_PROXY=b.test
file-no-proxy-empty|"parentProxy": {"noProxy": ""}|HTTP_PROXY=http://127.0.0.1:3001 NO_PROXY=b.test
credentials-bare||HTTP_PROXY=u%40x:p%3Aw@127.0.0.1:3001
EOF
	{
		echo 'origin 8080 O'
		echo 'parent 3001 P1'
		echo 'parent 3002 P2'
		echo 'parent 3003 P3'
		echo 'mkdir -p "$T/work" && cd "$T/work"'
		echo "PROBE='curl -s -m 10 http://a.test:8080/plain -o /dev/null; curl -s -m 10 -p http://a.test:8080/tunnel -o /dev/null; curl -s -m 10 http://b.test:8080/other -o /dev/null'"
		while IFS='|' read -r c net envs; do
			settings "$T/$c.json" '["a.test", "b.test"]' "$net"
			echo ": >\"\$T/parent.log\""
			echo "env $envs \"\$SRT_BIN/srt\" -s \"\$T/$c.json\" -c \"\$PROBE\" >/dev/null 2>&1"
			echo "sort \"\$T/parent.log\" | sed 's/^/$c srt /'"
			echo ": >\"\$T/parent.log\""
			echo "env $envs timeout 60 node \"\$REF_CLI\" --settings \"\$T/$c.json\" -c \"\$PROBE\" >/dev/null 2>&1"
			echo "sort \"\$T/parent.log\" | sed 's/^/$c ref /'"
		done <"$T/cases"
	} >"$T/case"
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	while IFS='|' read -r c _; do
		grep "^$c srt " <<<"$output" | sed "s/^$c srt //" >"$T/srt-$c"
		grep "^$c ref " <<<"$output" | sed "s/^$c ref //" >"$T/ref-$c"
		echo "case $c: srt [$(tr '\n' ';' <"$T/srt-$c")] ref [$(tr '\n' ';' <"$T/ref-$c")]" >&2
		[ -s "$T/ref-$c" ]
		# The reference sends "proxy-authorization" in lower case on plain HTTP.
		cmp <(tr 'A-Z' 'a-z' <"$T/srt-$c") <(tr 'A-Z' 'a-z' <"$T/ref-$c")
	done <"$T/cases"
}

@test "side by side with the reference: stripResponseHeaders and refuseOpaqueTunnels as a client sees them" {
	[ -f "$REF_CLI" ] || skip "the reference tool is not installed (scripts/deps)"
	command -v node >/dev/null || skip "node is missing"
	command -v socat >/dev/null && command -v rg >/dev/null || skip "the reference needs socat and rg"
	settings "$T/strip.json" '["a.test"]' \
	    '"parentProxy": {"http": "http://127.0.0.1:3001"}, "stripResponseHeaders": ["SET-COOKIE", "x-secret_token"]'
	settings "$T/opaque.json" '["a.test"]' \
	    '"parentProxy": {"http": "http://127.0.0.1:3001"}, "refuseOpaqueTunnels": true'
	mkdir -p "$T/work"
	# Which of the origin's headers arrive; then the three kinds of request under
	# refuseOpaqueTunnels: plain HTTP, CONNECT, SOCKS.
	cat >"$T/case" <<'EOF2'
origin 8080 O
parent 3001 P1
cd "$T/work"
STRIP='curl -s -m 10 -D - -o /dev/null http://a.test:8080/h | tr -d "\r" | cut -d: -f1 | tr A-Z a-z | grep -x "set-cookie\|set_cookie\|x_secret.token\|x-other" | sort | tr "\n" " "'
OPAQUE='curl -s -m 10 -o /dev/null -w "plain %{http_code} " http://a.test:8080/p; curl -s -m 10 -p -o /dev/null -w "connect %{http_connect} " http://a.test:8080/c; curl -s -m 10 --socks5-hostname localhost:1080 -o /dev/null http://a.test:8080/s; echo "socks exit $?"'
echo "strip srt: $("$SRT_BIN/srt" -s "$T/strip.json" -c "$STRIP" 2>/dev/null)"
echo "strip ref: $(timeout 60 node "$REF_CLI" --settings "$T/strip.json" -c "$STRIP" 2>/dev/null)"
echo "opaque srt: $("$SRT_BIN/srt" -s "$T/opaque.json" -c "$OPAQUE" 2>/dev/null)"
echo "opaque ref: $(timeout 60 node "$REF_CLI" --settings "$T/opaque.json" -c "$OPAQUE" 2>/dev/null)"
EOF2
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	local s r
	s=$(sed -n 's/^strip srt: //p' <<<"$output")
	r=$(sed -n 's/^strip ref: //p' <<<"$output")
	[ "$s" = "x-other " ]
	[ "$s" = "$r" ]
	s=$(sed -n 's/^opaque srt: //p' <<<"$output")
	r=$(sed -n 's/^opaque ref: //p' <<<"$output")
	[ "$s" = "plain 200 connect 403 socks exit 97" ]
	[ "$s" = "$r" ]
}
