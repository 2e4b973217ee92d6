#!/usr/bin/env bats
# network.tlsTerminate (issue #14): srt-httpd terminates the TLS of CONNECT tunnels with
# leaves of a CA, and the decrypted requests go on over TLS that verifies the real
# server. Real clients (curl, python3 requests, git, openssl s_client) to a real TLS
# server (nginx, with test CAs made here by openssl), through srt-httpd alone and under
# srt.
#
# Every test runs in network and mount namespaces of its own (tests/helpers/netns.sh, with
# the functions of tests/helpers/tls-ns.bash): only loopback is up, so a proxy that
# dialled where it should not finds nothing; a.test and b.test are 127.0.0.1.
load ../helpers

RS="$BATS_TEST_DIRNAME/../helpers/route-servers.py"
TLSH="$BATS_TEST_DIRNAME/../helpers/tls-ns.bash"
TLSC="$BATS_TEST_DIRNAME/../helpers/tls-clients.py"   # the Python clients: see its usage

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for network namespaces"
	command -v unshare >/dev/null || skip "unshare is missing"
	command -v nginx >/dev/null || skip "nginx is missing"
	srt_setup
	T=$(cd "$T" && pwd -P)
	cat >"$T/hosts" <<'HOSTS'
127.0.0.1	localhost
::1	localhost
127.0.0.1	a.test b.test c.test
HOSTS
}

teardown() {
	srt_teardown
}

# settings FILE [NETWORK-MEMBERS]: a.test, b.test and 127.0.0.1 allowed.
settings() {
	cat >"$1" <<JSON
{
  "network": { "allowedDomains": ["a.test", "b.test", "127.0.0.1"], "deniedDomains": []
    ${2:+, $2} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] }
}
JSON
}

# tls_settings FILE [MORE-TLS-MEMBERS] [MORE-NETWORK-MEMBERS]: termination with the test
# CA pair; the upstream's CA through extraCaCertPaths.
tls_settings() {
	settings "$1" "\"tlsTerminate\": {\"caCertPath\": \"$T/pki/mitm-ca.pem\", \"caKeyPath\": \"$T/pki/mitm-ca.key\", \"extraCaCertPaths\": [\"$T/pki/up-ca.pem\"] ${2:+, $2}} ${3:+, $3}"
}

# A bare git repository served by nginx (dumb HTTP) with one file f saying "content".
git_repo() {
	mkdir -p "$T/www"
	git init -q --bare "$T/www/repo.git"
	git -C "$T" clone -q "$T/www/repo.git" work 2>/dev/null
	(cd "$T/work" && echo content >f && git add f &&
	    git -c user.name=t -c user.email=t@t commit -qm one &&
	    git push -q origin HEAD:master) 2>/dev/null
	git -C "$T/www/repo.git" update-server-info
}

in_ns() {
	run timeout 120 unshare -m -n -- env T="$T" SRT_BIN="$SRT_BIN" RS="$RS" \
	    TLSC="$TLSC" REF_CLI=/nonexistent bash "$BATS_TEST_DIRNAME/../helpers/netns.sh" scenario "$1"
	echo "scenario status $status, output:" >&2
	printf '%s\n' "$output" >&2
	local f
	for f in decisions.log nginx.log nginx.err httpd.err servers.err; do
		[ -s "$T/$f" ] && { echo "--- $f" >&2; cat "$T/$f" >&2; }
	done
	return 0
}

CURL='curl -sS -m 20'

@test "srt-httpd terminates: curl, requests, git and s_client see the CA's leaf; each request judged and logged; bodies both ways; Set-Cookie stripped" {
	tls_settings "$T/s.json" "" '"stripResponseHeaders": ["set-cookie"]'
	git_repo
	head -c 3000000 /dev/urandom >"$T/www/blob"
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/s.json" 3129
P="--proxy http://127.0.0.1:3129 --cacert \$T/pki/mitm-ca.pem"
$CURL \$P https://a.test:8443/
$CURL -i \$P https://b.test:8443/hdr | tr -d '\r'
$CURL \$P https://a.test:8443/blob | md5sum
$CURL \$P -T "\$T/www/blob" https://a.test:8443/up/copy -o /dev/null -w 'put %{http_code}\n'
$CURL \$P -H 'Transfer-Encoding: chunked' -T "\$T/www/blob" https://a.test:8443/up/chunked -o /dev/null -w 'put %{http_code}\n'
md5sum <"\$T/www/up/copy"; md5sum <"\$T/www/up/chunked"
python3 "\$TLSC" requests https://a.test:8443/hdr --proxy http://127.0.0.1:3129 --verify "\$T/pki/mitm-ca.pem" --status
GIT_SSL_CAINFO="\$T/pki/mitm-ca.pem" https_proxy=http://127.0.0.1:3129 git clone -q https://a.test:8443/repo.git "\$T/clone" && cat "\$T/clone/f"
echo | openssl s_client -proxy 127.0.0.1:3129 -connect a.test:8443 -servername a.test 2>/dev/null | openssl x509 -noout -issuer -serial -ext subjectAltName
echo | openssl s_client -proxy 127.0.0.1:3129 -connect a.test:8443 -servername a.test 2>/dev/null | openssl x509 -noout -serial
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hello"* ]]
	[[ "$output" == *"host=b.test"* ]]
	[[ "$output" == *"X-Other: keep"* ]]
	[[ "$output" != *"Set-Cookie"* ]]
	sum=$(md5sum <"$T/www/blob")
	[ "$(grep -c -- "$sum" <<<"$output")" -eq 3 ]
	[ "$(grep -c '^put 201' <<<"$output")" -eq 2 ]
	[[ "$output" == *"requests 200 host=a.test"* ]]
	[[ "$output" == *"content"* ]]
	[[ "$output" == *"issuer=CN = mitm-ca"* ]]
	[[ "$output" == *"DNS:a.test"* ]]
	# The leaf is made once per host and kept: both handshakes saw the same serial.
	[ "$(grep '^serial=' <<<"$output" | sort -u | wc -l)" -eq 1 ]
	[ "$(grep -c '^serial=' <<<"$output")" -eq 2 ]
	# Every decrypted request has its own record; the CONNECTs say they were terminated.
	grep -q '"protocol":"https".*"host":"b.test","port":8443,"verdict":"allow".*"status":200' "$T/decisions.log"
	grep -q '"protocol":"connect".*"route":"tls-terminated"' "$T/decisions.log"
	grep -q '"protocol":"https".*"status":201' "$T/decisions.log"
	grep -q 'GET /repo.git/info/refs' "$T/nginx.log"
	grep -q '^b.test GET /hdr 200' "$T/nginx.log"
}

@test "the real server is verified: an unknown CA is a 502; extraCaCertPaths or the host roots make it trusted" {
	tls_settings "$T/s.json"
	settings "$T/noextra.json" "\"tlsTerminate\": {\"caCertPath\": \"$T/pki/mitm-ca.pem\", \"caKeyPath\": \"$T/pki/mitm-ca.key\"}"
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/s.json" 3129
httpd "\$T/noextra.json" 3130
httpd "\$T/noextra.json" 3131 SSL_CERT_FILE="\$T/pki/up-ca.pem"
$CURL --proxy http://127.0.0.1:3129 --cacert "\$T/pki/mitm-ca.pem" https://a.test:9443/ -o /dev/null -w 'rogue %{http_code}\n'
$CURL --proxy http://127.0.0.1:3130 --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ -o /dev/null -w 'noextra %{http_code}\n'
$CURL --proxy http://127.0.0.1:3131 --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ -o /dev/null -w 'roots %{http_code}\n'
$CURL --proxy http://127.0.0.1:3129 --cacert "\$T/pki/mitm-ca.pem" https://127.0.0.1:8443/ -o /dev/null -w 'ip %{http_code}\n'
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"rogue 502"* ]]
	[[ "$output" == *"noextra 502"* ]]
	[[ "$output" == *"roots 200"* ]]
	[[ "$output" == *"ip 200"* ]]
	grep -q 'certificate verify failed' "$T/decisions.log"
	! grep -q 'rogue' "$T/nginx.log"
}

@test "requireHostMatch: the leaf is the target's; a server name or Host naming another host gets 421; without it the leaf follows the SNI" {
	tls_settings "$T/pin.json" "" '"requireHostMatch": true'
	tls_settings "$T/free.json"
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/pin.json" 3129
httpd "\$T/free.json" 3130
python3 "\$TLSC" sni 3129 a.test:8443 b.test a.test:8443 "\$T/pki/mitm-ca.pem"
python3 "\$TLSC" sni 3129 a.test:8443 a.test b.test:8443 "\$T/pki/mitm-ca.pem"
python3 "\$TLSC" sni 3129 a.test:8443 a.test a.test:8443 "\$T/pki/mitm-ca.pem"
python3 "\$TLSC" sni 3130 a.test:8443 b.test b.test "\$T/pki/mitm-ca.pem"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"leaf=a.test status=HTTP/1.1 421 Misdirected Request body=TLS server name does not match the CONNECT target"* ]]
	[[ "$output" == *"leaf=a.test status=HTTP/1.1 421 Misdirected Request body=Host header does not match the request target"* ]]
	[[ "$output" == *"leaf=a.test status=HTTP/1.1 200 OK body=host=a.test"* ]]
	# Without requireHostMatch the leaf is the SNI's, and the request still goes to the
	# CONNECT target, with its name in Host.
	[[ "$output" == *"leaf=b.test status=HTTP/1.1 200 OK body=host=a.test"* ]]
	[ "$(grep -c '"verdict":"deny".*"status":421' "$T/decisions.log")" -eq 2 ]
}

@test "excludeDomains and non-TLS tunnels are opaque; refuseOpaqueTunnels refuses both" {
	tls_settings "$T/s.json" '"excludeDomains": ["b.test"]'
	tls_settings "$T/r.json" '"excludeDomains": ["b.test"]' '"refuseOpaqueTunnels": true'
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/s.json" 3129
httpd "\$T/r.json" 3130
$CURL --proxy http://127.0.0.1:3129 --cacert "\$T/pki/up-ca.pem" https://b.test:8443/ -o /dev/null -w 'excluded %{http_code}\n'
$CURL -p --proxy http://127.0.0.1:3129 http://a.test:8080/ -o /dev/null -w 'plain-in-tunnel %{http_code}\n'
$CURL --proxy http://127.0.0.1:3130 --cacert "\$T/pki/up-ca.pem" https://b.test:8443/ -o /dev/null -w 'refused-excluded %{http_code}\n'
$CURL -p --proxy http://127.0.0.1:3130 http://a.test:8080/ -o /dev/null -w 'refused-plain %{http_code}\n'
$CURL --proxy http://127.0.0.1:3130 --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ -o /dev/null -w 'terminated %{http_code}\n'
EOF
	in_ns "$T/case"
	[[ "$output" == *"excluded 200"* ]]
	[[ "$output" == *"plain-in-tunnel 200"* ]]
	[[ "$output" != *"refused-excluded 200"* ]]
	[[ "$output" != *"refused-plain 200"* ]]
	[[ "$output" == *"terminated 200"* ]]
	[ "$(grep -c '"verdict":"deny","rule":"refuseOpaqueTunnels"' "$T/decisions.log")" -eq 2 ]
}

@test "maxTunnels: past it 503 with X-Proxy-Error: too-many-tunnels; handshakeTimeoutMs closes a silent tunnel" {
	tls_settings "$T/s.json" '"maxTunnels": 1, "handshakeTimeoutMs": 400'
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/s.json" 3129
python3 "\$TLSC" hold-tunnels 3129
$CURL --proxy http://127.0.0.1:3129 --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ -o /dev/null -w 'after %{http_code}\n'
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"first HTTP/1.1 200 Connection Established"* ]]
	[[ "$output" == *"second HTTP/1.1 503 Service Unavailable"*"X-Proxy-Error: too-many-tunnels"* ]]
	# The silent tunnel was closed at its deadline, well before the 5 s the client waits.
	[[ "$output" =~ silent\ closed\ after\ [01]\.[0-9]\ s:\ b\'\' ]]
	[[ "$output" == *"after 200"* ]]
	grep -q '"reason":"no byte within handshakeTimeoutMs of the CONNECT"' "$T/decisions.log"
	grep -q '"verdict":"deny".*"reason":"too many TLS-terminated tunnels (maxTunnels)".*"status":503' "$T/decisions.log"
}

# pair SETTINGS SOCKS-PORT HTTP-PORT (in a case): srt-socksd and srt-httpd joined by a
# handoff channel as srt-launch joins them (tests/helpers/handoff-pair.py).
PAIR='pair() {
	python3 "$HP" pair "$SRT_BIN/srt-socksd" -s "$1" -l "127.0.0.1:$2" --log "$T/decisions.log" \
	    --handoff-fd HANDOFF_FD -d -- "$SRT_BIN/srt-httpd" -s "$1" -l "127.0.0.1:$3" \
	    --log "$T/decisions.log" --handoff-fd HANDOFF_FD -d 2>>"$T/httpd.err" &
	pids+=($!)
	wait_port "$2"
	wait_port "$3"
}'
HP="$BATS_TEST_DIRNAME/../helpers/handoff-pair.py"

@test "SOCKS CONNECTs carrying TLS are handed to srt-httpd and terminated; excluded hosts opaque; refuseOpaqueTunnels refuses the rest" {
	tls_settings "$T/s.json" '"excludeDomains": ["b.test"]' '"stripResponseHeaders": ["set-cookie"]'
	tls_settings "$T/r.json" '"excludeDomains": ["b.test"]' '"refuseOpaqueTunnels": true'
	cat >"$T/case" <<EOF
. "$TLSH"
HP="$HP"
$PAIR
tls_certs
nginx_tls
pair "\$T/s.json" 1081 3129
pair "\$T/r.json" 1082 3130
S="--socks5-hostname 127.0.0.1:1081"
$CURL \$S --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/
$CURL \$S --cacert "\$T/pki/mitm-ca.pem" -i https://a.test:8443/hdr | tr -d '\r'
$CURL -v \$S --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ 2>&1 | grep -i '^\*  *issuer:'
$CURL \$S --cacert "\$T/pki/up-ca.pem" https://b.test:8443/ -o /dev/null -w 'excluded %{http_code}\n'
$CURL -v \$S --cacert "\$T/pki/up-ca.pem" https://b.test:8443/ 2>&1 | grep -i '^\*  *issuer:' | sed 's/^/excluded /'
$CURL \$S http://a.test:8080/ -o /dev/null -w 'plain-over-socks %{http_code}\n'
R="--socks5-hostname 127.0.0.1:1082"
$CURL \$R --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/ -o /dev/null -w 'refuse-mode terminated %{http_code}\n'
$CURL \$R http://a.test:8080/ -o /dev/null -w 'refused-plain %{http_code}\n' || echo "refused-plain failed"
$CURL \$R --cacert "\$T/pki/up-ca.pem" https://b.test:8443/ -o /dev/null -w 'refused-excluded %{http_code}\n' || echo "refused-excluded failed"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	[[ "$output" == *"hello"* ]]
	[[ "$output" == *"host=a.test"* ]]
	[[ "$output" == *"X-Other: keep"* ]]
	[[ "$output" != *"Set-Cookie"* ]]
	# Terminated: the leaf is the CA's; excluded: the server's own.
	[[ "$output" =~ issuer:\ CN\ ?=\ ?mitm-ca ]]
	[[ "$output" =~ excluded\ \*\ +issuer:\ CN\ ?=\ ?up-ca ]]
	[[ "$output" == *"excluded 200"* ]]
	[[ "$output" == *"plain-over-socks 200"* ]]
	[[ "$output" == *"refuse-mode terminated 200"* ]]
	[[ "$output" == *"refused-plain failed"* ]]
	[[ "$output" == *"refused-excluded failed"* ]]
	# srt-socksd's record says where the tunnel went; srt-httpd's have the requests.
	grep -q '"protocol":"socks5".*"host":"a.test","port":8443,"verdict":"allow".*"route":"tls-terminated","status":0' "$T/decisions.log"
	grep -q '"protocol":"https".*"host":"a.test","port":8443,"verdict":"allow".*"status":200' "$T/decisions.log"
	grep -q '^a.test GET /hdr 200' "$T/nginx.log"
	# Refused under refuseOpaqueTunnels: the excluded host by srt-socksd, the tunnel
	# that carried no TLS by srt-httpd.
	[ "$(grep -c '"protocol":"socks5".*"verdict":"deny","rule":"refuseOpaqueTunnels"' "$T/decisions.log")" -eq 2 ]
	grep -q '"protocol":"socks5".*"host":"b.test","port":8443,"verdict":"deny","rule":"refuseOpaqueTunnels"' "$T/decisions.log"
	grep -q '"protocol":"socks5".*"host":"a.test","port":8080,"verdict":"deny","rule":"refuseOpaqueTunnels"' "$T/decisions.log"
}

# Issue 31 item 7: srt-socksd answered "succeeded" and handed the tunnel over; srt-httpd's
# dial then met the resolved-address guard and could only close it, which curl reported
# as "Connection reset by peer" (56), like a network failure. Now srt-socksd judges the
# addresses before it answers, and refuses in SOCKS (02, not allowed by ruleset).
# reference 0.0.83: terminates no SOCKS tunnel (not comparable).
@test "SOCKS under tlsTerminate: a name the address guard refuses is refused in SOCKS, not reset after the handoff" {
	cat >"$T/case" <<EOF
. "$TLSH"
HP="$HP"
$PAIR
tls_certs
cat >"\$T/s.json" <<JSON
{ "network": { "allowedDomains": ["a.test"], "deniedDomains": [],
    "tlsTerminate": {"caCertPath": "\$T/pki/mitm-ca.pem", "caKeyPath": "\$T/pki/mitm-ca.key"} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] } }
JSON
pair "\$T/s.json" 1081 3129
S="--socks5-hostname 127.0.0.1:1081"
$CURL \$S --cacert "\$T/pki/mitm-ca.pem" https://a.test:8443/; echo "tls rc=\$?"
$CURL \$S http://a.test:8080/; echo "plain rc=\$?"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	# curl 97: the proxy refused the CONNECT (SOCKS reply 2), not 56 (reset)
	[[ "$output" == *"tls rc=97"* ]]
	[[ "$output" == *"plain rc=97"* ]]
	[[ "$output" == *"Can't complete SOCKS5 connection to a.test. (2)"* ]]
	[ "$(grep -c '"protocol":"socks5","client":"[^"]*","host":"a.test","port":\(8443\|8080\),"verdict":"deny","rule":"a.test","reason":"Connection to a.test blocked: resolved to a loopback address","route":null,"status":2' "$T/decisions.log")" -eq 2 ]
	! grep -q '"route":"tls-terminated"' "$T/decisions.log"
}

@test "srt-httpd --handoff-fd: malformed handoff messages are dropped and it goes on serving; a good one is terminated" {
	tls_settings "$T/s.json"
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
python3 "$HP" feed a.test 8443 "\$T/pki/mitm-ca.pem" -- "\$SRT_BIN/srt-httpd" -s "\$T/s.json" \
    -l 127.0.0.1:3129 --log "\$T/decisions.log" --handoff-fd HANDOFF_FD -d 2>>"\$T/httpd.err"
echo "feed exit \$?"
EOF
	in_ns "$T/case"
	[[ "$output" == *"feed exit 0"* ]]
	[[ "$output" == *"issuer mitm-ca"* ]]
	[[ "$output" == *"status HTTP/1.1 200 OK"* ]]
	[[ "$output" == *"hello"* ]]
	[[ "$output" == *"httpd alive True"* ]]
	# Too short and one byte too long: the wrong size.
	[ "$(grep -c 'handoff: malformed message dropped: wrong size' "$T/httpd.err")" -eq 2 ]
	for why in "no descriptor" "host not canonical" "the descriptor is not a stream socket" \
	    "not a handoff message"; do
		grep -q "handoff: malformed message dropped: $why" "$T/httpd.err"
	done
	grep -q '"protocol":"socks5","client":"127.0.0.1:1","host":"a.test","port":8443,"verdict":"allow".*"route":"tls-terminated"' "$T/decisions.log"
}

@test "SOCKS handoffs under abuse: refusals, failed and silent handshakes, a flood while srt-httpd is stopped or gone leak no slot or descriptor; srt-httpd keeps serving" {
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
cat >"\$T/sock.json" <<JSON
{ "network": { "allowedDomains": ["a.test", "b.test", "c.test", "127.0.0.1"], "deniedDomains": [],
    "tlsTerminate": {"caCertPath": "\$T/pki/mitm-ca.pem", "caKeyPath": "\$T/pki/mitm-ca.key",
      "extraCaCertPaths": ["\$T/pki/up-ca.pem"], "maxTunnels": 2, "handshakeTimeoutMs": 500} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] } }
JSON
# srt-httpd's policy no longer allows c.test (as after a reload srt-socksd has not had yet).
sed 's/, "c.test"//' "\$T/sock.json" >"\$T/http.json"
python3 "$HP" pair "\$SRT_BIN/srt-socksd" -s "\$T/sock.json" -l 127.0.0.1:1081 \
    --log "\$T/decisions.log" --handoff-fd HANDOFF_FD -- "\$SRT_BIN/srt-httpd" \
    -s "\$T/http.json" -l 127.0.0.1:3129 --max-conns 6 --log "\$T/decisions.log" \
    --handoff-fd HANDOFF_FD 2>>"\$T/httpd.err" &
pids+=(\$!)
wait_port 1081
wait_port 3129
spid=\$(ss -ltnpH 'sport = :1081' | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
hpid=\$(ss -ltnpH 'sport = :3129' | sed -n 's/.*pid=\([0-9]*\).*/\1/p')
[ -n "\$spid" ] && [ -n "\$hpid" ] || die "no pids"
nfd() { ls /proc/\$1/fd | wc -l; }
AB="python3 $BATS_TEST_DIRNAME/../helpers/socks-abuse.py 1081 \$T/pki/mitm-ca.pem"
\$AB good
s0=\$(nfd \$spid) h0=\$(nfd \$hpid)
\$AB errors
\$AB good
kill -STOP \$hpid
\$AB flood 400
kill -CONT \$hpid
sleep 1
\$AB good
kill -STOP \$hpid
\$AB flood 60 3 &
fl=\$!
sleep 1
kill -CONT \$hpid
wait \$fl
\$AB good
sleep 0.5
echo "fds socksd \$((\$(nfd \$spid) - s0)) httpd \$((\$(nfd \$hpid) - h0))"
kill \$hpid
sleep 0.5
\$AB flood 20
echo "httpd gone: socksd fds \$((\$(nfd \$spid) - s0))"
kill -0 \$spid && echo "socksd alive"
EOF
	in_ns "$T/case"
	[ "$status" -eq 0 ]
	for k in denied-by-httpd bad-hello silent; do
		[[ "$output" == *"$k replies [0] all closed True"* ]]
	done
	[ "$(grep -c '^good HTTP/1.1 200 OK' <<<"$output")" -eq 4 ]
	[[ "$output" == *"flood: closed by the proxies 60 of 60"* ]]
	[[ "$output" == *"fds socksd 0 httpd 0"* ]]
	[[ "$output" == *"httpd gone: socksd fds 0"* ]]
	[[ "$output" == *"socksd alive"* ]]
	# Each refusal is recorded: srt-httpd's own, a full queue and a gone srt-httpd.
	[ "$(grep -c '"protocol":"socks5".*"host":"c.test".*"verdict":"deny".*"reason":"host is not on the allow list"' "$T/decisions.log")" -eq 12 ]
	grep -q '"verdict":"error".*"reason":"srt-httpd did not take the tunnel: Resource temporarily unavailable"' "$T/decisions.log"
	grep -q '"verdict":"deny".*"reason":"too many TLS-terminated tunnels (maxTunnels)"' "$T/decisions.log"
	grep -q '"verdict":"error".*"reason":"srt-httpd did not take the tunnel: Broken pipe"' "$T/decisions.log"
}

@test "SOCKS under tlsTerminate: a service that speaks first (SMTP, FTP, MySQL banners) is reached as without termination" {
	# Found by the review of socks-tls: the handed-over tunnel waited for the client's
	# first bytes and was closed at handshakeTimeoutMs, so the banner never came; a
	# client silent for a second now goes on opaque.
	tls_settings "$T/s.json"
	cat >"$T/case" <<EOF
. "$TLSH"
HP="$HP"
$PAIR
tls_certs
pair "\$T/s.json" 1081 3129
"\$SRT_BIN/srt-socksd" -s "\$T/s.json" -l 127.0.0.1:1082 --log "\$T/decisions.log" &
pids+=(\$!)
wait_port 1082
python3 "\$TLSC" banner 1082 plain
python3 "\$TLSC" banner 1081 handed
EOF
	in_ns "$T/case"
	[[ "$output" == *"plain 0 220 banner ready"* ]]
	[[ "$output" == *"handed 0 220 banner ready"* ]]
}

@test "under srt: SOCKS tunnels carrying TLS are terminated (--socks5-hostname and ALL_PROXY), masked credentials substituted; refuseOpaqueTunnels refuses a plain one" {
	cat >"$T/s.json" <<JSON
{ "network": { "allowedDomains": ["a.test", "b.test", "127.0.0.1"], "deniedDomains": [],
    "tlsTerminate": {"extraCaCertPaths": ["$T/pki/up-ca.pem"]}, "refuseOpaqueTunnels": true },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] },
  "credentials": { "envVars": [{"name": "GH_TOKEN", "mode": "mask", "injectHosts": ["a.test"]}] } }
JSON
	cat >"$T/inside.sh" <<'SH'
curl -sS -m 20 --noproxy '' --socks5-hostname localhost:1080 https://a.test:8443/
curl -sS -m 20 --noproxy '' --socks5-hostname localhost:1080 -H "Authorization: token $GH_TOKEN" https://a.test:8443/hdr -o /dev/null -w 'cred %{http_code}\n'
curl -sS -m 20 -v --noproxy '' --socks5-hostname localhost:1080 https://a.test:8443/ 2>&1 | grep -i '^\*  *issuer:'
env -u HTTPS_PROXY -u https_proxy -u HTTP_PROXY -u http_proxy curl -sS -m 20 https://a.test:8443/ -w 'all_proxy %{http_code}\n' -o /dev/null
curl -sS -m 20 --noproxy '' --socks5-hostname localhost:1080 http://a.test:8080/ -o /dev/null -w 'plain %{http_code}\n' || echo "plain refused"
SH
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
GH_TOKEN=ghp_SOCKSREAL0123456789 "\$SRT_BIN/srt" -s "\$T/s.json" bash "\$T/inside.sh"
echo "srt exit \$?"
EOF
	in_ns "$T/case"
	[[ "$output" == *"srt exit 0"* ]]
	[[ "$output" == *"hello"* ]]
	# The sentinel the command sent became the real value inside the terminated TLS.
	[[ "$output" == *"cred 200"* ]]
	grep -q '^a.test GET /hdr 200 .* auth=token ghp_SOCKSREAL0123456789$' "$T/nginx.log"
	[[ "$output" =~ issuer:\ CN\ ?=\ ?srt\ TLS\ termination\ CA ]]
	[[ "$output" == *"all_proxy 200"* ]]
	[[ "$output" == *"plain refused"* ]]
	[[ "$output" != *"plain 200"* ]]
	[ "$(grep -c '^a.test GET / 200' "$T/nginx.log")" -eq 3 ]
}

@test "a CA pair that does not hold together: srt-httpd refuses to terminate (502), srt refuses to run (125)" {
	settings "$T/s.json" "\"tlsTerminate\": {\"caCertPath\": \"$T/pki/mitm-ca.pem\", \"caKeyPath\": \"$T/pki/up-ca.key\"}"
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
httpd "\$T/s.json" 3129
$CURL -i --proxy http://127.0.0.1:3129 https://a.test:8443/ 2>&1 | tr -d '\r' | grep -i -e '^HTTP' -e 'x-proxy-error'
"\$SRT_BIN/srt" -s "\$T/s.json" -c true 2>&1; echo "srt exit \$?"
EOF
	in_ns "$T/case"
	[[ "$output" == *"HTTP/1.1 502 Bad Gateway"* ]]
	[[ "$output" == *"X-Proxy-Error: tls-termination-unavailable"* ]]
	# srt names the settings file and both of the user's files, in the settings' words
	[[ "$output" == *"srt: $T/s.json: network.tlsTerminate: caCertPath $T/pki/mitm-ca.pem, caKeyPath $T/pki/up-ca.key: the CA key does not belong to the CA certificate"* ]]
	[[ "$output" == *"srt exit 125"* ]]
	grep -q 'the CA key does not belong to the CA certificate' "$T/httpd.err"
}

@test "under srt: an ephemeral CA; a read-only bundle named by every variable; curl, requests, git and node work; no key inside" {
	settings "$T/s.json" "\"tlsTerminate\": {\"extraCaCertPaths\": [\"$T/pki/extra.pem\", \"$T/pki/missing.pem\"]}"
	git_repo
	cat >"$T/inside.sh" <<'SH'
for v in SSL_CERT_FILE CURL_CA_BUNDLE REQUESTS_CA_BUNDLE NODE_EXTRA_CA_CERTS GIT_SSL_CAINFO PIP_CERT AWS_CA_BUNDLE CARGO_HTTP_CAINFO DENO_CERT CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE NIX_SSL_CERT_FILE; do
	[ "$(printenv $v)" = "$SSL_CERT_FILE" ] || echo "unset $v"
done
echo "keys $(grep -c 'PRIVATE KEY' "$SSL_CERT_FILE")"
grep -q "$(sed -n 2p "$T/pki/up-ca.pem")" "$SSL_CERT_FILE" && echo "extra cert in bundle"
(echo x >>"$SSL_CERT_FILE") 2>/dev/null || echo "bundle not writable"
rm -f "$SSL_CERT_FILE" 2>/dev/null || echo "bundle not removable"
grep -rl 'PRIVATE KEY' "$TMPDIR" 2>/dev/null | grep . && echo "a key in TMPDIR"
curl -sS -m 20 --noproxy '' --proxy http://localhost:3128 https://a.test:8443/
python3 "$TLSC" requests https://a.test:8443/hdr
git clone -q https://a.test:8443/repo.git "$TMPDIR/clone" && cat "$TMPDIR/clone/f"
# node (no proxy support of its own before 24): a CONNECT, then TLS that trusts
# NODE_EXTRA_CA_CERTS, read once at start.
command -v node >/dev/null && node -e '
const http = require("http"), https = require("https"), tls = require("tls");
http.request({host: "localhost", port: 3128, method: "CONNECT", path: "a.test:8443"})
  .on("connect", (res, sock) => {
    https.get({host: "a.test", port: 8443, path: "/",
        createConnection: () => tls.connect({socket: sock, servername: "a.test"})},
      r => { let b = ""; r.on("data", d => b += d);
        r.on("end", () => console.log("node", r.statusCode, b.trim(),
          r.socket.getPeerCertificate().issuer.CN)); })
     .on("error", e => console.log("node failed", e.code || e.message));
  }).on("error", e => console.log("node failed", e.message)).end();'
SH
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
cat "\$T/pki/up-ca.pem" "\$T/pki/up-ca.key" >"\$T/pki/extra.pem"
nginx_tls
env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt NODE_EXTRA_CA_CERTS= "\$SRT_BIN/srt" -s "\$T/s.json" bash "\$T/inside.sh"
echo "srt exit \$?"
EOF
	in_ns "$T/case"
	[[ "$output" == *"srt exit 0"* ]]
	[[ "$output" != *"unset "* ]]
	[[ "$output" == *"keys 0"* ]]
	[[ "$output" == *"extra cert in bundle"* ]]
	[[ "$output" == *"bundle not writable"* ]]
	[[ "$output" == *"bundle not removable"* ]]
	[[ "$output" != *"a key in TMPDIR"* ]]
	[[ "$output" == *"hello"* ]]
	[[ "$output" == *"requests host=a.test"* ]]
	[[ "$output" == *"content"* ]]
	[[ "$output" == *"node 200 hello srt TLS termination CA "* ]]
}

@test "with a decider under srt: each decrypted request is asked with its SNI, not the CONNECT; edits reach the server; a deny is answered inside TLS; a non-TLS tunnel is asked; --ask remembers" {
	settings "$T/s.json" "\"tlsTerminate\": {\"extraCaCertPaths\": [\"$T/pki/up-ca.pem\"]}"
	cat >"$T/ask.json" <<JSON
{ "network": { "allowedDomains": ["b.test", "127.0.0.1"], "deniedDomains": [],
    "tlsTerminate": {"extraCaCertPaths": ["$T/pki/up-ca.pem"]} },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] } }
JSON
	cat >"$T/rules.json" <<'JSON'
{"hosts":{
  "a.test":{"action":"allow","cred":"svc","credential":"tok123","setHeaders":{"x-added":["yes"]}},
  "b.test":{"action":"deny","status":451,"reason":"not for this task"}
}}
JSON
	cat >"$T/inside.sh" <<'SH'
curl -sS -m 20 https://a.test:8443/hdr -H 'Authorization: Basic client' -o /dev/null -w 'a %{http_code}\n'
curl -s -m 20 -i https://b.test:8443/ | tr -d '\r' | grep -e '^HTTP' -e '^X-Proxy-Error' -e 'not for'
curl -sS -m 20 -p http://a.test:8080/ -o /dev/null -w 'opaque %{http_code}\n'
curl -s -m 20 -p http://b.test:8080/ -o /dev/null -w 'opaque-denied %{http_code}\n' || echo 'opaque-denied closed'
SH
	cat >"$T/inside-ask.sh" <<'SH'
for i in 1 2; do curl -sS -m 20 https://a.test:8443/ -o /dev/null -w 'ask %{http_code}\n'; done
curl -sS -m 20 https://b.test:8443/ -o /dev/null -w 'rule %{http_code}\n'
SH
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
python3 "$BATS_TEST_DIRNAME/../helpers/decider.py" "\$T/rules.json" "\$T/frames" -- \
    "\$SRT_BIN/srt" -s "\$T/s.json" --decider-fd 3 bash "\$T/inside.sh"
echo "srt exit \$?"
python3 "$BATS_TEST_DIRNAME/../helpers/decider.py" "\$T/rules.json" "\$T/frames-ask" -- \
    "\$SRT_BIN/srt" -s "\$T/ask.json" --decider-fd 3 --ask bash "\$T/inside-ask.sh"
echo "srt ask exit \$?"
EOF
	in_ns "$T/case"
	cat "$T/frames" "$T/frames-ask" >&2
	[[ "$output" == *"srt exit 0"* ]]
	[[ "$output" == *"a 200"* ]]
	[[ "$output" == *"HTTP/1.1 451 "* ]]
	[[ "$output" == *"X-Proxy-Error: blocked-by-decider"* ]]
	[[ "$output" == *"not for this task"* ]]
	# The decrypted request, with the server name its TLS named; never the CONNECT.
	grep -q '^< {"t":"req","id":1,"method":"GET","host":"a.test","port":8443,"hostHeader":"a.test:8443","sni":"a.test","path":"/hdr","headers":{' "$T/frames"
	grep -q '"t":"req","id":2,"method":"GET","host":"b.test","port":8443,.*"sni":"b.test","path":"/"' "$T/frames"
	! grep -q '"method":"CONNECT","host":"[ab].test","port":8443' "$T/frames" || return 1
	# A tunnel that turns out not to carry TLS is asked about as the CONNECT it is.
	[[ "$output" == *"opaque 200"* ]]
	[[ "$output" == *"opaque-denied closed"* ]]
	grep -q '"t":"req","id":3,"method":"CONNECT","host":"a.test","port":8080,"hostHeader":"a.test:8080","path":"a.test:8080"' "$T/frames"
	grep -q '"t":"req","id":4,"method":"CONNECT","host":"b.test","port":8080' "$T/frames"
	# The allow's credential replaced the client's Authorization on the way to the server.
	grep -q '^a.test GET /hdr 200 .* auth=Bearer tok123$' "$T/nginx.log"
	# --ask: a.test, on no list, asked once for both requests; b.test, allowed, not asked
	# (127.0.0.1 on the list lets names that resolve to it through the address guard).
	[[ "$output" == *"srt ask exit 0"* ]]
	[ "$(grep -c '^ask 200' <<<"$output")" -eq 2 ]
	[[ "$output" == *"rule 200"* ]]
	# b.test reached the server once: the --ask run's, which its rule allows; the
	# denied ones (HTTPS answered inside TLS, the opaque tunnel closed) never did.
	cat "$T/nginx.log" >&2
	[ "$(grep -c '^b.test' "$T/nginx.log")" -eq 1 ]
	[ "$(grep -c '"t":"req"' "$T/frames-ask")" -eq 1 ]
	grep -q '"t":"req","id":1,"method":"GET","host":"a.test",.*"sni":"a.test"' "$T/frames-ask"
}

@test "srt proxy --ca-fd terminates: the decider sees the decrypted GET with its SNI, its header sets apply inside TLS; --strip-response-header; plain HTTP still refuses header sets" {
	cat >"$T/rules.json" <<'JSON'
{"hello":{"allowedDomains":["a.test","127.0.0.1"],"deniedDomains":[]},
 "hosts":{"a.test":{"action":"allow","setHeaders":{"x-added":["yes"]}}}}
JSON
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
# The CA as the reference takes it: key and certificate in one stream.
cat "\$T/pki/mitm-ca.key" "\$T/pki/mitm-ca.pem" >"\$T/pki/mitm-both.pem"
python3 "$BATS_TEST_DIRNAME/../helpers/decider.py" "\$T/rules.json" "\$T/frames" -- \
    env SSL_CERT_FILE="\$T/pki/up-ca.pem" sh -c 'exec "\$SRT_BIN/srt" proxy --decider-fd 3 \
    --listen 127.0.0.1:3199 --ca-fd 5 --strip-response-header set-cookie x-none 5<"\$T/pki/mitm-both.pem"' \
    2>"\$T/httpd.err" &
pids+=(\$!)
wait_port 3199
curl -sS -m 20 --cacert "\$T/pki/mitm-ca.pem" -x http://127.0.0.1:3199 -D - https://a.test:8443/hdr | tr -d '\r'
curl -s -m 20 -x http://127.0.0.1:3199 -D - http://a.test:8080/hdr | tr -d '\r'
EOF
	in_ns "$T/case"
	cat "$T/frames" >&2
	[[ "$output" == *"host=a.test"* ]]
	# The leaf is the CA's (curl trusted only it), Set-Cookie is gone, X-Other kept.
	[[ "$output" == *"X-Other: keep"* ]]
	[[ "$output" != *"Set-Cookie"* ]]
	grep -q '^< {"t":"req","id":1,"method":"GET","host":"a.test","port":8443,"hostHeader":"a.test:8443","sni":"a.test","path":"/hdr"' "$T/frames"
	! grep -q '"method":"CONNECT","host":"a.test","port":8443' "$T/frames" || return 1
	grep -q '^a.test GET /hdr 200 .* added=yes auth=' "$T/nginx.log"
	# Plain HTTP: the same allow is refused without --plaintext-header-set.
	[[ "$output" == *"HTTP/1.1 403 "* ]]
	[[ "$output" == *"X-Proxy-Error: plaintext-header-set"* ]]
	[ "$(grep -c '^a.test GET /hdr' "$T/nginx.log")" -eq 1 ]
}

@test "under srt: Java trusts the leaves through the PKCS#12 trust store JAVA_TOOL_OPTIONS names" {
	command -v java >/dev/null || skip "java is missing"
	settings "$T/s.json" "\"tlsTerminate\": {\"extraCaCertPaths\": [\"$T/pki/up-ca.pem\"]}"
	mkdir -p "$T/j"
	cat >"$T/j/Fetch.java" <<'JAVA'
import java.io.InputStream;
import java.net.URL;

public class Fetch {
	public static void main(String[] args) throws Exception {
		try (InputStream in = new URL(args[0]).openStream()) {
			System.out.println("java got " + new String(in.readAllBytes()).trim());
		} catch (Exception e) {
			System.out.println("java failed: " + e);
		}
	}
}
JAVA
	cat >"$T/inside.sh" <<'SH'
echo "options: $JAVA_TOOL_OPTIONS"
store=${JAVA_TOOL_OPTIONS##*-Djavax.net.ssl.trustStore=}
store=${store%% *}
[ -s "$store" ] && echo "store present"
(echo x >>"$store") 2>/dev/null || echo "store not writable"
keytool -list -keystore "$store" -storetype PKCS12 -noprompt </dev/null 2>/dev/null |
    grep -c trustedCertEntry | sed 's/^/trusted entries /'
java "$T/j/Fetch.java" https://a.test:8443/ 2>&1 | grep '^java'
# The JDK's own roots instead (a later -D wins): the run's CA is not among them.
cacerts=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")/lib/security/cacerts
java -Djavax.net.ssl.trustStore="$cacerts" -Djavax.net.ssl.trustStoreType=JKS \
    "$T/j/Fetch.java" https://a.test:8443/ 2>&1 | grep '^java' | sed 's/^/jdk roots: /'
SH
	cat >"$T/case" <<EOF
. "$TLSH"
tls_certs
nginx_tls
env SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt NODE_EXTRA_CA_CERTS= "\$SRT_BIN/srt" -s "\$T/s.json" bash "\$T/inside.sh"
echo "srt exit \$?"
# A TMPDIR with a space: the store's path is quoted in JAVA_TOOL_OPTIONS.
mkdir -p "\$T/a b"
env TMPDIR="\$T/a b" "\$SRT_BIN/srt" -s "\$T/s.json" bash -c \
    'java "\$0" https://a.test:8443/ 2>&1 | grep "^java" | sed "s/^/spaced: /"' "\$T/j/Fetch.java"
EOF
	in_ns "$T/case"
	[[ "$output" == *"srt exit 0"* ]]
	[[ "$output" == *"-Djavax.net.ssl.trustStoreType=PKCS12"* ]]
	[[ "$output" == *"store present"* ]]
	[[ "$output" == *"store not writable"* ]]
	# the run's CA, the host roots and extraCaCertPaths' certificate, each a trust anchor
	[[ "$output" =~ "trusted entries "([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -gt 2 ]
	[[ "$output" == *"java got hello"* ]]
	[[ "$output" == *"jdk roots: java failed: javax.net.ssl.SSLHandshakeException"* ]]
	[[ "$output" == *"spaced: java got hello"* ]]
}
