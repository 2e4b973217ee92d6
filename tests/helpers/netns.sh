#!/usr/bin/env bash
# Runs one test scenario inside the namespaces `unshare` gave it: only loopback is up (and
# the battery's test addresses on it), so nothing started here (the proxies, upstreams,
# parent proxies, the reference tool, the sandbox under attack) can reach any other
# network, whatever goes wrong. Everything it starts is stopped when the scenario ends.
# The one namespace helper of the test tree: the proxies' suites and the escape battery.
#
# usage: netns.sh scenario FILE   (unshare -m -n; $T, $SRT_BIN, $RS, $REF_CLI from the
#            environment) FILE is sourced and may call the functions below; names resolve
#            through $T/hosts, bound over /etc/hosts in this mount namespace only
#            (tests/proxies/routes.bats, and tls.bats with tests/helpers/tls-ns.bash).
#        netns.sh battery FILE    (unshare -m -n; $T, $SRT, $SECDIR, $PY from the
#            environment) the escape battery's network scenario (tests/security/
#            helpers.bash: in_netns). Addresses on lo: 127.0.0.1, ::1, 10.99.0.1 and
#            10.99.0.2 (ordinary addresses of "this host"), 169.254.169.254 and
#            100.100.100.200 (cloud metadata), 169.254.1.1 (link-local), fd00:ec2::254
#            (IPv6 metadata); names resolve through $T/hosts as above. FILE is sourced
#            and may call: upstream MODE ADDR PORT NAME (a server of $SECDIR/upstream.py
#            logging to $T/up-NAME.log), sandbox STRING (srt -s ${SETTINGS:-$T/srt.json}
#            -c STRING from $T/work); what it adds to pids is stopped at the end.
#        netns.sh KIND CMD...     (unshare -n; $T, $P1, $P2 [, $P3]) starts KIND's two
#            logging upstreams, 127.0.0.1:$P1 and 127.0.0.2:$P2 (another host, since
#            injectHosts name hosts, not ports), runs CMD, stops them. KIND is
#              cred   $UP, plain HTTP (tests/proxies/credentials.bats,
#                     credential-reflection.bats);
#              sigv4  sigv4-upstream.py, plain HTTP, verifying with the real AWS pair
#                     $AKID $SECRET $TOKEN (tests/proxies/sigv4.bats);
#              tls    ${UP:-sigv4-upstream.py} over HTTPS with a certificate of a test
#                     CA made in $T/pki (up-ca.pem), and a third over plain HTTP on
#                     127.0.0.1:$P3, each given $AKID $SECRET $TOKEN (sigv4.bats,
#                     credential-reflection.bats).
set -u
kind=$1
shift
pids=()

cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null
	done
}
trap cleanup EXIT

die() {
	echo "netns.sh: $*" >&2
	exit 99
}

# add_addresses ADDR/LEN...: each added to lo (IPv6 without duplicate address detection,
# so that it can be bound at once).
add_addresses() {
	local a
	for a in "$@"; do
		case $a in
		*:*) ip -6 addr add "$a" dev lo nodad || die "ip addr add $a" ;;
		*) ip addr add "$a" dev lo || die "ip addr add $a" ;;
		esac
	done
}

# bind_hosts: $T/hosts, if there is one, over /etc/hosts in this mount namespace only.
bind_hosts() {
	[ -f "$T/hosts" ] || return 0
	mount --bind "$T/hosts" /etc/hosts || die "bind $T/hosts"
}

# listening ADDR PORT: whether something listens there within five seconds.
listening() {
	local i
	for i in $(seq 100); do
		(exec 9<>"/dev/tcp/$1/$2") 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

wait_port() {
	listening 127.0.0.1 "$1" || die "nothing listens on port $1"
}

wait_path() {
	local i
	for i in $(seq 100); do
		[ -S "$1" ] && return 0
		sleep 0.05
	done
	die "no socket at $1"
}

# origin PORT NAME: the test origin server (route-servers.py) on 127.0.0.1:PORT.
origin() {
	python3 "$RS" origin --listen "127.0.0.1:$1" --name "$2" --log "$T/origin.log" \
	    2>>"$T/servers.err" &
	pids+=($!)
	wait_port "$1"
}

# real_origin PORT NAME DIR: files from DIR and git's smart HTTP under /git/ (for real
# clients: git, pip, npm), tests/helpers/real-origin.py on 127.0.0.1:PORT.
real_origin() {
	python3 "$(dirname "$RS")/real-origin.py" --listen "127.0.0.1:$1" --name "$2" \
	    --root "$3" --log "$T/origin.log" 2>>"$T/servers.err" &
	pids+=($!)
	wait_port "$1"
}

# parent PORT NAME [ARGS...]: the test parent proxy on 127.0.0.1:PORT.
parent() {
	local port=$1 name=$2
	shift 2
	python3 "$RS" parent --listen "127.0.0.1:$port" --name "$name" --log "$T/parent.log" \
	    "$@" 2>>"$T/servers.err" &
	pids+=($!)
	wait_port "$port"
}

# parent_unix PATH NAME [ARGS...]: the same on a Unix socket (an inspection proxy).
parent_unix() {
	local path=$1 name=$2
	shift 2
	python3 "$RS" parent --unix "$path" --name "$name" --log "$T/parent.log" "$@" \
	    2>>"$T/servers.err" &
	pids+=($!)
	wait_path "$path"
}

# tinyproxy PORT [USER:PASS]: Debian's tinyproxy as a parent on 127.0.0.1:PORT.
tinyproxy_on() {
	local conf="$T/tinyproxy-$1.conf"
	{
		echo "Port $1"
		echo "Listen 127.0.0.1"
		echo "Timeout 30"
		echo "Allow 127.0.0.1"
		echo "MaxClients 20"
		echo "LogFile \"$T/tinyproxy-$1.log\""
		echo "LogLevel Connect"
		[ -n "${2:-}" ] && echo "BasicAuth ${2%%:*} ${2#*:}"
	} >"$conf"
	tinyproxy -d -c "$conf" >>"$T/servers.err" 2>&1 &
	pids+=($!)
	wait_port "$1"
}

# httpd SETTINGS PORT [VAR=VALUE...]: srt-httpd with those settings on 127.0.0.1:PORT,
# the variables in its environment; decisions to $T/decisions.log, -d to $T/httpd.err.
httpd() {
	local s=$1 port=$2
	shift 2
	env "$@" "$SRT_BIN/srt-httpd" -s "$s" -l "127.0.0.1:$port" --log "$T/decisions.log" \
	    -d 2>>"$T/httpd.err" &
	pids+=($!)
	echo $! >"$T/httpd-$port.pid"
	wait_port "$port"
}

# socksd SETTINGS PORT [VAR=VALUE...]: srt-socksd the same way.
socksd() {
	local s=$1 port=$2
	shift 2
	env "$@" "$SRT_BIN/srt-socksd" -s "$s" -l "127.0.0.1:$port" --log "$T/decisions.log" \
	    -d 2>>"$T/socksd.err" &
	pids+=($!)
	wait_port "$port"
}

# connect_raw PORT TARGET: a CONNECT for TARGET sent to 127.0.0.1:PORT; prints the reply
# (curl shows no body of a refused CONNECT): a refusal whole, a 200 its head.
connect_raw() {
	python3 -c '
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=15)
s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (sys.argv[2], sys.argv[2])).encode())
out = b""
while True:
    if out.startswith(b"HTTP/1.1 200") and b"\r\n\r\n" in out:
        break
    d = s.recv(65536)
    if not d:
        break
    out += d
sys.stdout.write(out.decode("latin-1").replace("\r\n", "\n") + "\n")
' "$1" "$2"
}

# The last decision record's field (jq-free: python).
last_decision() {
	python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).read().splitlines()[-1]).get(sys.argv[2]))' \
	    "$T/decisions.log" "$1"
}

# log_upstream N PROGRAM ADDR PORT [ARG...]: a logging upstream (a Python program of
# tests/helpers) on ADDR:PORT, its log $T/upN.log; the caller's UP_TLS=CERT:KEY makes it
# speak HTTPS.
log_upstream() {
	local n=$1 prog=$2 addr=$3 port=$4
	shift 4
	UP_HOST=$addr python3 "$prog" "$port" "$T/up$n.log" "$@" &
	pids+=($!)
}

# upstream_pki: in $T/pki, a CA (up-ca) and its server certificate (srv) for 127.0.0.1
# and 127.0.0.2, made with openssl(1).
upstream_pki() {
	local d="$T/pki"
	mkdir -p "$d"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$d/up-ca.key" -out "$d/up-ca.pem" -days 2 -subj /CN=up-ca \
	    -addext basicConstraints=critical,CA:TRUE \
	    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null || return 1
	printf 'subjectAltName=IP:127.0.0.1,IP:127.0.0.2\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
	    >"$d/ext.cnf"
	openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/srv.key" \
	    -out "$d/srv.csr" -subj /CN=127.0.0.1 2>/dev/null &&
	openssl x509 -req -in "$d/srv.csr" -CA "$d/up-ca.pem" -CAkey "$d/up-ca.key" \
	    -CAcreateserial -out "$d/srv.pem" -days 2 -extfile "$d/ext.cnf" 2>/dev/null
}

# The escape battery's (netns.sh battery):
# upstream MODE ADDR PORT NAME: a server of $SECDIR/upstream.py on ADDR:PORT, logging to
# $T/up-NAME.log; returns once it says it is ready.
upstream() {
	local mode=$1 addr=$2 port=$3 name=$4 i
	rm -f "$T/up-$name.ready"
	"$PY" "$SECDIR/upstream.py" "$mode" "$addr" "$port" "$name" "$T/up-$name.log" \
		"$T/up-$name.ready" </dev/null >>"$T/up-$name.err" 2>&1 &
	pids+=($!)
	for i in $(seq 100); do
		[ -s "$T/up-$name.ready" ] && return 0
		sleep 0.1
	done
	die "upstream $name on $addr port $port did not start: $(cat "$T/up-$name.err")"
}

# sandbox STRING: srt runs STRING from $T/work, with $SETTINGS or $T/srt.json.
sandbox() {
	(cd "$T/work" && timeout 30 "$SRT" -s "${SETTINGS:-$T/srt.json}" -c "$1" </dev/null)
}

ip link set lo up || die "lo up"
here=$(dirname "$0")
case $kind in
scenario)
	bind_hosts
	# The proxies read these; the scenario sets what it wants.
	unset HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy ALL_PROXY all_proxy
	scenario=$1
	# shellcheck source=/dev/null
	. "$scenario"
	;;
battery)
	add_addresses 10.99.0.1/32 10.99.0.2/32 169.254.169.254/32 100.100.100.200/32 \
	    169.254.1.1/32 fd00:ec2::254/128
	bind_hosts
	scenario=$1
	# shellcheck source=/dev/null
	. "$scenario"
	;;
cred)
	log_upstream 1 "$UP" 127.0.0.1 "$P1"
	log_upstream 2 "$UP" 127.0.0.2 "$P2"
	listening 127.0.0.1 "$P1" && listening 127.0.0.2 "$P2"
	"$@"
	;;
sigv4)
	# An empty $TOKEN is no argument (no session token).
	log_upstream 1 "$here/sigv4-upstream.py" 127.0.0.1 "$P1" "$AKID" "$SECRET" ${TOKEN:+"$TOKEN"}
	log_upstream 2 "$here/sigv4-upstream.py" 127.0.0.2 "$P2" "$AKID" "$SECRET" ${TOKEN:+"$TOKEN"}
	listening 127.0.0.1 "$P1" && listening 127.0.0.2 "$P2"
	"$@"
	;;
tls)
	upstream_pki || exit 98
	up=${UP:-$here/sigv4-upstream.py} pair="$T/pki/srv.pem:$T/pki/srv.key"
	UP_TLS=$pair log_upstream 1 "$up" 127.0.0.1 "$P1" "$AKID" "$SECRET" ${TOKEN:+"$TOKEN"}
	UP_TLS=$pair log_upstream 2 "$up" 127.0.0.2 "$P2" "$AKID" "$SECRET" ${TOKEN:+"$TOKEN"}
	log_upstream 3 "$up" 127.0.0.1 "$P3" "$AKID" "$SECRET" ${TOKEN:+"$TOKEN"}
	listening 127.0.0.1 "$P1"; listening 127.0.0.2 "$P2"; listening 127.0.0.1 "$P3"
	"$@"
	;;
*)
	die "unknown kind $kind (scenario, battery, cred, sigv4, tls)"
	;;
esac
