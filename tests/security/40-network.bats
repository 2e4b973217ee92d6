#!/usr/bin/env bats
# Escape battery, network: direct TCP, UDP, IPv6 and DNS must go nowhere; the proxies
# must refuse what the policy denies however it is spelled: names resolving to loopback,
# link-local, metadata or this host's addresses, other spellings of denied addresses,
# Host-header swaps and absolute-URI tricks, ports the rule does not cover, request
# smuggling (CL+TE, duplicate CL, obs-fold, bare CR, Connection naming a framing field),
# NUL in SOCKS names.
# Every scenario runs in a network and mount namespace of its own (tests/helpers/netns.sh
# battery): the stub servers that stand for the outside listen on addresses of that
# namespace and log every connection, so an escape shows in their logs even when the
# answer looks right.
load helpers

# Names as the proxies resolve them (the scenario's /etc/hosts).
write_hosts() {
	cat >"$T/hosts" <<'HOSTS'
127.0.0.1	localhost
::1	localhost ip6-localhost
10.99.0.2	ok.srt.test
169.254.169.254	meta.srt.test
100.100.100.200	alimeta.srt.test
169.254.1.1	ll.srt.test
127.0.0.1	loop.srt.test
127.0.0.2	loop2.srt.test
::1	loop6.srt.test
10.99.0.1	self.srt.test
::ffff:169.254.169.254	mapped.srt.test
::ffff:127.0.0.1	mapped-loop.srt.test
fd00:ec2::254	meta6.srt.test
169.254.169.254	multi.srt.test
10.99.0.2	multi.srt.test
HOSTS
}

# The HTTP stub servers a scenario starts, by name; sourced into it.
UPSTREAMS='
upstream http 10.99.0.2 8080 ok
upstream http 169.254.169.254 8080 meta
upstream http 100.100.100.200 8080 alimeta
upstream http 169.254.1.1 8080 ll
upstream http 127.0.0.1 8080 loop
upstream http 10.99.0.1 8080 self
upstream http ::1 8080 loop6
upstream http fd00:ec2::254 8080 meta6
'

# Runs the in-sandbox case script $1 in a scenario with the servers of $UPSTREAMS (and
# $2, more scenario lines), with the settings already in $T/srt.json.
net_run() {
	write_hosts
	printf '%s\n' "SECDIR='$SECDIR' PY='$PY'" '. "$SECDIR/cases.sh"' "$1" cases_run \
		>"$T/work/cases"
	cat >"$T/scenario" <<SCN
$UPSTREAMS
${2:-}
sandbox 'sh cases'
echo "srt-status \$?"
SCN
	in_netns "$T/scenario"
	echo "scenario status $status, output:" >&2
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
	grep -q '^srt-status 0$' <<<"$output"
}

# The answer of case $1 must match the extended regex $2.
case_is() {
	local line
	line=$(grep -m1 "^CASE $1: " <<<"$output")
	line=${line#CASE "$1": }
	if ! grep -Eq "$2" <<<"$line"; then
		echo "case $1: got '$line', want /$2/" >&2
		return 1
	fi
}

# A refusal by the proxy itself: 403, 400, 421... (a 502 means it dialed), or a SOCKS failure
# reply (anything but 0), or nothing at all (the connection closed).
REFUSED='^(HTTP/1\.[01] (400|403|405|411|413|414|421|431|501)|reply [1-9]|reply none|$)'

# Fails, naming them, if any of the servers named saw a connection or the bytes $TAINT.
servers_clean() {
	local n bad=0
	for n in "$@"; do
		if grep -q '^conn' "$T/up-$n.log" 2>/dev/null; then
			echo "ESCAPED: server '$n' was reached:" >&2
			cat "$T/up-$n.log" >&2
			bad=1
		fi
	done
	return "$bad"
}

ALL_BUT_OK='meta alimeta ll loop self loop6 meta6'

@test "control: the scenario's servers answer, and the proxy reaches an allowed one" {
	need_srt
	sec_settings '["*.srt.test", "10.99.0.2"]'
	net_run '
http allowed-http "GET http://ok.srt.test:8080/x HTTP/1.1\r\nHost: ok.srt.test:8080\r\nConnection: close\r\n\r\n"
http allowed-connect "CONNECT ok.srt.test:8080 HTTP/1.1\r\nHost: ok.srt.test:8080\r\n\r\n"
socks allowed-socks 3 ok.srt.test 8080' '
"$PROBE" tcp 169.254.169.254 8080 x >/dev/null; echo "outside-meta $?"'
	case_is allowed-http '^HTTP/1\.1 200'
	case_is allowed-connect '^HTTP/1\.[01] 200'
	case_is allowed-socks '^reply 0$'
	grep -q '^outside-meta 0$' <<<"$output"   # reachable from the scenario, no banner
	grep -q '^conn' "$T/up-meta.log"
	grep -q 'GET /x' "$T/up-ok.log"
}

@test "direct: TCP to loopback, this host, metadata and IPv6 goes nowhere" {
	need_srt
	sec_settings '["*.srt.test"]'
	write_hosts
	cat >"$T/scenario" <<'SCN'
upstream tcp 127.0.0.1 7001 t-loop
upstream tcp 10.99.0.1 7001 t-self
upstream tcp 169.254.169.254 7001 t-meta
upstream tcp ::1 7001 t-loop6
upstream tcp fd00:ec2::254 7001 t-meta6
# Control: from the scenario, outside the sandbox, the probe gets the banner.
"$PROBE" tcp 127.0.0.1 7001 BANNER-t-loop; echo "control $?"
rm -f "$T/up-t-loop.log"
for a in "127.0.0.1 t-loop" "10.99.0.1 t-self" "169.254.169.254 t-meta" "::1 t-loop6" \
    "fd00:ec2::254 t-meta6"; do
	set -- $a
	sandbox "$PROBE tcp $1 7001 BANNER-$2"; echo "srt-status $?"
done
SCN
	in_netns "$T/scenario"
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
	grep -q '^ESCAPED .* 127.0.0.1 port 7001$' <<<"$output"
	grep -q '^control 1$' <<<"$output"
	[ "$(grep -c '^BLOCKED' <<<"$output")" -eq 5 ]
	[ "$(grep -c '^srt-status 0$' <<<"$output")" -eq 5 ]
	servers_clean t-loop t-self t-meta t-loop6 t-meta6
}

@test "direct: UDP and DNS queries to any resolver address go nowhere" {
	need_srt
	sec_settings '["*.srt.test"]'
	write_hosts
	cat >"$T/scenario" <<'SCN'
upstream udp 127.0.0.1 53 u-loop
upstream udp 127.0.0.53 53 u-stub
upstream udp 10.99.0.1 53 u-self
upstream udp ::1 53 u-loop6
"$PROBE" udp 127.0.0.53 53 BANNER-u-stub; echo "control $?"
rm -f "$T/up-u-stub.log"
for a in "127.0.0.1 u-loop" "127.0.0.53 u-stub" "10.99.0.1 u-self" "::1 u-loop6"; do
	set -- $a
	sandbox "$PROBE udp $1 53 BANNER-$2"; echo "srt-status $?"
done
SCN
	in_netns "$T/scenario"
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
	grep -q '^control 1$' <<<"$output"
	[ "$(grep -c '^BLOCKED' <<<"$output")" -eq 4 ]
	[ "$(grep -c '^srt-status 0$' <<<"$output")" -eq 4 ]
	for n in u-loop u-stub u-self u-loop6; do
		! grep -q '^datagram' "$T/up-$n.log" || { cat "$T/up-$n.log" >&2; false; }
	done
}

@test "resolved-address guard: names of loopback, link-local, metadata and local addresses" {
	need_srt
	sec_settings '["*.srt.test", "10.99.0.2"]'
	cases=
	for n in meta alimeta ll loop loop2 loop6 self mapped mapped-loop meta6 multi; do
		cases+="http h-$n \"GET http://$n.srt.test:8080/ HTTP/1.1\\r\\nHost: $n.srt.test:8080\\r\\nConnection: close\\r\\n\\r\\n\"
http c-$n \"CONNECT $n.srt.test:8080 HTTP/1.1\\r\\nHost: $n.srt.test:8080\\r\\n\\r\\n\"
socks s-$n 3 $n.srt.test 8080
"
	done
	net_run "$cases"
	for n in meta alimeta ll loop loop2 loop6 self mapped mapped-loop meta6; do
		case_is "h-$n" "$REFUSED"
		case_is "c-$n" "$REFUSED"
		case_is "s-$n" "$REFUSED"
	done
	# multi.srt.test has a denied and an allowed address: only the allowed one is dialed.
	servers_clean $ALL_BUT_OK
}

@test "denied addresses in other spellings: decimal, octal, hex, short, IPv4-mapped" {
	need_srt
	sec_settings '["*.srt.test", "10.99.0.2"]' '["169.254.169.254", "127.0.0.1", "[::1]"]'
	cases=
	i=0
	for h in 169.254.169.254 2852039166 0251.0376.0251.0376 0xa9.0xfe.0xa9.0xfe 0xa9fea9fe \
		169.254.43518 0251.254.169.254 '[::ffff:169.254.169.254]' '[::ffff:a9fe:a9fe]' \
		'[0:0:0:0:0:ffff:a9fe:a9fe]' 169.254.169.254. 100.100.100.200 1684300000 \
		127.0.0.1 2130706433 0x7f000001 0177.0.0.1 127.1 '[::1]' '[0::1]' \
		'[::ffff:127.0.0.1]' 10.99.0.1 0xa630001 '[::ffff:10.99.0.1]'; do
		i=$((i + 1))
		cases+="http h$i \"GET http://$h:8080/ HTTP/1.1\\r\\nHost: $h:8080\\r\\nConnection: close\\r\\n\\r\\n\"
http c$i \"CONNECT $h:8080 HTTP/1.1\\r\\nHost: $h:8080\\r\\n\\r\\n\"
"
		h=${h#[}
		h=${h%]}
		cases+="socks s$i 3 $h 8080
"
	done
	cases+='socks a1 1 169.254.169.254 8080
socks a2 4 ::ffff:169.254.169.254 8080
socks a3 1 127.0.0.1 8080
socks a4 4 ::1 8080
socks a5 4 ::ffff:127.0.0.1 8080
socks a6 1 10.99.0.1 8080
socks a7 4 fd00:ec2::254 8080
socks a8 1 100.100.100.200 8080
'
	net_run "$cases"
	for j in $(seq "$i"); do
		case_is "h$j" "$REFUSED"
		case_is "c$j" "$REFUSED"
		case_is "s$j" "$REFUSED"
	done
	for j in $(seq 8); do
		case_is "a$j" "$REFUSED"
	done
	servers_clean $ALL_BUT_OK
}

@test "Host header swaps: the target, never the Host field, decides and is dialed" {
	need_srt
	sec_settings '["*.srt.test", "10.99.0.2"]'
	net_run '
http swap "GET http://ok.srt.test:8080/a HTTP/1.1\r\nHost: meta.srt.test:8080\r\nConnection: close\r\n\r\n"
http swap-ip "GET http://10.99.0.2:8080/b HTTP/1.1\r\nHost: 169.254.169.254:8080\r\nConnection: close\r\n\r\n"
http two-hosts "GET http://ok.srt.test:8080/c HTTP/1.1\r\nHost: ok.srt.test:8080\r\nHost: meta.srt.test:8080\r\nConnection: close\r\n\r\n"
http origin-form "GET / HTTP/1.1\r\nHost: meta.srt.test:8080\r\n\r\n"
http origin-form-ok "GET / HTTP/1.1\r\nHost: ok.srt.test:8080\r\n\r\n"
http connect-swap "CONNECT ok.srt.test:8080 HTTP/1.1\r\nHost: meta.srt.test:8080\r\n\r\nGET / HTTP/1.1\r\nHost: meta.srt.test:8080\r\n\r\n"
http userinfo "GET http://ok.srt.test@meta.srt.test:8080/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http userinfo2 "GET http://ok.srt.test:8080@169.254.169.254:8080/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http fragment "GET http://meta.srt.test:8080#@ok.srt.test/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http backslash "GET http://meta.srt.test:8080\x5c@ok.srt.test/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http pct-nul "GET http://meta.srt.test%00.ok.srt.test:8080/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http pct-host "GET http://meta%2esrt.test:8080/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http abs-connect "CONNECT http://meta.srt.test:8080/ HTTP/1.1\r\nHost: ok.srt.test:8080\r\n\r\n"
http forwarded "GET http://ok.srt.test:8080/d HTTP/1.1\r\nHost: ok.srt.test:8080\r\nX-Forwarded-Host: meta.srt.test:8080\r\nConnection: close\r\n\r\n"'
	case_is swap '^HTTP/1\.1 200'
	case_is swap-ip '^HTTP/1\.1 200'
	case_is origin-form "$REFUSED"
	case_is origin-form-ok "$REFUSED"
	for c in two-hosts userinfo userinfo2 fragment backslash pct-nul pct-host abs-connect; do
		case_is "$c" "$REFUSED"
	done
	servers_clean $ALL_BUT_OK
	# What the proxy forwarded (/a to /d; the tunnel's bytes are the client's own) names
	# only the allowed authority.
	if grep -E "^data b'GET /[a-d] " "$T/up-ok.log" | grep -iE '[^-]Host: (meta|169\.254)'; then
		echo "ESCAPED: a swapped Host field reached the upstream" >&2
		false
	fi
}

@test "requireHostMatch: an absolute URI whose Host field differs is refused" {
	need_srt
	sec_settings '["*.srt.test", "10.99.0.2"]' '[]' '[]' '[]' '[]' '' ', "requireHostMatch": true'
	net_run '
http mismatch "GET http://ok.srt.test:8080/m HTTP/1.1\r\nHost: meta.srt.test:8080\r\nConnection: close\r\n\r\n"
http mismatch-port "GET http://ok.srt.test:8080/p HTTP/1.1\r\nHost: ok.srt.test:8081\r\nConnection: close\r\n\r\n"
http mismatch-ip "GET http://10.99.0.2:8080/i HTTP/1.1\r\nHost: 169.254.169.254:8080\r\nConnection: close\r\n\r\n"
http match "GET http://ok.srt.test:8080/ok HTTP/1.1\r\nHost: ok.srt.test:8080\r\nConnection: close\r\n\r\n"'
	case_is mismatch "$REFUSED"
	case_is mismatch-port "$REFUSED"
	case_is mismatch-ip "$REFUSED"
	case_is match '^HTTP/1\.1 200'
	servers_clean $ALL_BUT_OK
	if grep -q 'GET /[mpi] ' "$T/up-ok.log"; then
		echo "ESCAPED: a mismatched request reached the upstream" >&2
		false
	fi
}

@test "ports: CONNECT, HTTP and SOCKS to a port the rule does not cover" {
	need_srt
	sec_settings '["ok.srt.test:8080", "10.99.0.2:8080"]'
	net_run '
http connect-ok "CONNECT ok.srt.test:8080 HTTP/1.1\r\nHost: ok.srt.test:8080\r\n\r\n"
http connect-other "CONNECT ok.srt.test:8081 HTTP/1.1\r\nHost: ok.srt.test:8081\r\n\r\n"
http connect-ip "CONNECT 10.99.0.2:8081 HTTP/1.1\r\nHost: 10.99.0.2:8081\r\n\r\n"
http connect-2ports "CONNECT ok.srt.test:8080:8081 HTTP/1.1\r\nHost: ok.srt.test:8080\r\n\r\n"
http connect-wrap "CONNECT ok.srt.test:73617 HTTP/1.1\r\nHost: ok.srt.test:73617\r\n\r\n"
http connect-lead0 "CONNECT ok.srt.test:08081 HTTP/1.1\r\nHost: ok.srt.test:08081\r\n\r\n"
http connect-plus "CONNECT ok.srt.test:+8081 HTTP/1.1\r\nHost: ok.srt.test:+8081\r\n\r\n"
http connect-noport "CONNECT ok.srt.test HTTP/1.1\r\nHost: ok.srt.test\r\n\r\n"
http get-other "GET http://ok.srt.test:8081/ HTTP/1.1\r\nHost: ok.srt.test:8081\r\nConnection: close\r\n\r\n"
http get-wrap "GET http://ok.srt.test:73617/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
http get-default "GET http://ok.srt.test/ HTTP/1.1\r\nHost: ok.srt.test\r\nConnection: close\r\n\r\n"
socks socks-other 3 ok.srt.test 8081
socks socks-ip 1 10.99.0.2 8081' '
upstream http 10.99.0.2 8081 okalt
upstream http 10.99.0.2 80 ok80
upstream http 10.99.0.2 8017 okwrap'
	case_is connect-ok '^HTTP/1\.[01] 200'
	for c in connect-other connect-ip connect-2ports connect-wrap connect-lead0 connect-plus \
		connect-noport get-other get-wrap get-default socks-other socks-ip; do
		case_is "$c" "$REFUSED"
	done
	servers_clean okalt ok80 okwrap $ALL_BUT_OK
}

@test "request smuggling: CL+TE, duplicate CL, obs-fold, bare CR, Connection: content-length" {
	need_srt
	sec_settings '["10.99.0.2"]'
	# The body of each hides a second request; it must never reach the upstream.
	S="GET /smuggled-$MARK HTTP/1.1\\r\\nHost: 10.99.0.2:8080\\r\\n\\r\\n"
	B="0\\r\\n\\r\\n$S"
	L=$(printf "$B" | wc -c)
	P="POST http://10.99.0.2:8080/p HTTP/1.1\\r\\nHost: 10.99.0.2:8080\\r\\n"
	# A Connection field naming a framing field or Host must not make the proxy drop it
	# while the body it frames goes on: a body holding a whole request (H, HL bytes)
	# reaches the upstream as the body of the request that carried it, or not at all.
	H="GET /hidden-$MARK HTTP/1.1\\r\\nHost: meta.srt.test:8080\\r\\n\\r\\n"
	HL=$(printf "$H" | wc -c)
	HX=$(printf '%x' "$HL")
	U="http://10.99.0.2:8080"
	V="HTTP/1.1\\r\\nHost: 10.99.0.2:8080\\r\\n"
	net_run "
http cl-te \"${P}Content-Length: $L\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n$B\"
http te-cl \"${P}Transfer-Encoding: chunked\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http dup-cl \"${P}Content-Length: 0\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http dup-cl-list \"${P}Content-Length: 0, $L\\r\\n\\r\\n$B\"
http obs-fold \"${P}Content-Length: $L\\r\\nX-A: a\\r\\n Transfer-Encoding: chunked\\r\\n\\r\\n$B\"
http obs-fold-cl \"${P}X-A: a\\r\\n Content-Length: $L\\r\\n\\r\\n$B\"
http bare-cr \"${P}X-A: a\\rTransfer-Encoding: chunked\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http te-space \"${P}Transfer-Encoding : chunked\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http cl-space \"${P}Content-Length : $L\\r\\n\\r\\n$B\"
http te-odd \"${P}Transfer-Encoding: xchunked\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http te-list \"${P}Transfer-Encoding: chunked, identity\\r\\nContent-Length: $L\\r\\n\\r\\n$B\"
http cl-plus \"${P}Content-Length: +$L\\r\\n\\r\\n$B\"
http cl-neg \"${P}Content-Length: -1\\r\\n\\r\\n$B\"
http after-400 \"GET http://10.99.0.2:8080/ HTTP/1.1\\r\\nHost: 10.99.0.2:8080\\r\\nContent-Length: 1\\r\\nContent-Length: 2\\r\\n\\r\\nGET http://meta.srt.test:8080/ HTTP/1.1\\r\\nHost: meta.srt.test:8080\\r\\n\\r\\n\"
http_all keepalive \"GET http://10.99.0.2:8080/k HTTP/1.1\\r\\nHost: 10.99.0.2:8080\\r\\n\\r\\nGET http://169.254.169.254:8080/k2 HTTP/1.1\\r\\nHost: 169.254.169.254:8080\\r\\n\\r\\nGET http://meta.srt.test:8080/k3 HTTP/1.1\\r\\nHost: meta.srt.test:8080\\r\\nConnection: close\\r\\n\\r\\n\"
http chunked-ok \"${P}Transfer-Encoding: chunked\\r\\nConnection: close\\r\\n\\r\\n3\\r\\nabc\\r\\n0\\r\\n\\r\\n\"
http conn-cl \"POST $U/conn-cl ${V}Content-Length: $HL\\r\\nConnection: content-length\\r\\n\\r\\n$H\"
http conn-cl-list \"POST $U/conn-cl-list ${V}Connection: close, Content-Length\\r\\nContent-Length: $HL\\r\\n\\r\\n$H\"
http conn-cl-second \"POST $U/conn-cl-second ${V}Connection: close\\r\\nContent-Length: 0$HL\\r\\nConnection: x-a,CONTENT-LENGTH\\r\\n\\r\\n$H\"
http conn-cl-10 \"POST $U/conn-cl-10 HTTP/1.0\\r\\nHost: 10.99.0.2:8080\\r\\nConnection: content-length\\r\\nContent-Length: $HL\\r\\n\\r\\n$H\"
http conn-te \"POST $U/conn-te ${V}Connection: transfer-encoding, close\\r\\nTransfer-Encoding: chunked\\r\\n\\r\\n$HX\\r\\n$H\\r\\n0\\r\\n\\r\\n\"
http conn-host \"POST $U/conn-host ${V}Connection: host, close\\r\\nContent-Length: $HL\\r\\n\\r\\n$H\"
http_framed resp-conn-cl \"GET $U/resp-conn/content-length ${V}\\r\\nGET $U/after ${V}Connection: close\\r\\n\\r\\n\"
http_framed resp-conn-te \"GET $U/resp-conn/transfer-encoding ${V}\\r\\nGET $U/after ${V}Connection: close\\r\\n\\r\\n\""
	for c in cl-te te-cl dup-cl dup-cl-list obs-fold obs-fold-cl bare-cr te-space cl-space \
		te-odd te-list cl-plus cl-neg after-400; do
		case_is "$c" '^(HTTP/1\.[01] 4[0-9][0-9]|$)'
	done
	case_is keepalive '^HTTP/1\.1 200 HTTP/1\.1 403( HTTP/1\.1 403)?$'
	case_is chunked-ok '^HTTP/1\.1 200'
	if grep -q "smuggled-$MARK" "$T/up-ok.log"; then
		echo "ESCAPED: a smuggled request reached the upstream:" >&2
		grep "smuggled-$MARK" "$T/up-ok.log" >&2
		false
	fi
	# Connection naming a framing field or Host: served with the body framed as the
	# client framed it (or refused), and Host always there.
	for c in conn-cl conn-cl-list conn-cl-second conn-cl-10 conn-te conn-host; do
		case_is "$c" '^HTTP/1\.[01] (200|400)'
	done
	if grep -E "^request b'[A-Z]+ /hidden-$MARK" "$T/up-ok.log" >&2; then
		echo "ESCAPED: a request hidden in a body reached the upstream as a request" >&2
		false
	fi
	for c in conn-cl conn-cl-list conn-cl-second conn-cl-10 conn-host; do
		if grep -q "^CASE $c: HTTP/1\.[01] 200" <<<"$output"; then
			grep -E "^request b'POST /$c HTTP/1\.1.*Content-Length: $HL(\\\\r|')" \
				"$T/up-ok.log" || { echo "$c: no Content-Length upstream" >&2; false; }
		fi
	done
	if grep -q "^CASE conn-te: HTTP/1\.1 200" <<<"$output"; then
		grep -E "^request b'POST /conn-te .*Transfer-Encoding: chunked" "$T/up-ok.log"
	fi
	if grep -q "^CASE conn-host: HTTP/1\.1 200" <<<"$output"; then
		grep -E "^request b'POST /conn-host .*Host: 10\.99\.0\.2:8080" "$T/up-ok.log"
	fi
	# The same named in a response: the client still sees its framing, and the next
	# response on the connection as a response of its own.
	case_is resp-conn-cl '^200 length UPSTREAM-ok \| 200 length UPSTREAM-ok$'
	case_is resp-conn-te '^200 chunked UPSTREAM-ok \| 200 length UPSTREAM-ok$'
	servers_clean $ALL_BUT_OK
}

@test "SOCKS: NUL in a name, names of denied addresses, BIND and UDP ASSOCIATE" {
	need_srt
	sec_settings '["*.ok.srt.test", "10.99.0.2"]' '["169.254.169.254"]'
	net_run '
socks nul-mid 3 "meta.srt.test\x00.ok.srt.test" 8080
socks nul-end 3 "meta.srt.test\x00" 8080
socks pct 3 "meta.srt.test%00.ok.srt.test" 8080
socks dec 3 2852039166 8080
socks mapped 3 "::ffff:169.254.169.254" 8080
socks trailing-dot 3 "meta.srt.test." 8080
socks upper 3 "META.SRT.TEST" 8080
socks ll6 4 fe80::1 8080
socks_cmd udp-associate 3 1 0.0.0.0 0
socks_cmd udp-associate-meta 3 1 169.254.169.254 8080
socks_cmd bind 2 1 169.254.169.254 8080'
	for c in nul-mid nul-end pct dec mapped trailing-dot upper ll6 udp-associate \
		udp-associate-meta bind; do
		case_is "$c" "$REFUSED"
	done
	servers_clean $ALL_BUT_OK
}
