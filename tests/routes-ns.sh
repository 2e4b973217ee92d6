#!/usr/bin/env bash
# Runs one scenario of tests/proxies/routes.bats inside the network and mount namespaces that
# `unshare -m -n` gave it: only loopback is up, so nothing started here (the proxies, the
# parent proxies, the reference tool) can reach any other network, whatever goes wrong;
# names resolve through $T/hosts, bound over /etc/hosts in this mount namespace only.
#
# usage: routes-ns.sh SCENARIO   ($T, $SRT_BIN, $RS, $REF_CLI from the environment)
# SCENARIO is sourced; it may call the functions below. Everything they start is stopped
# when the scenario ends.
set -u
scenario=$1
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
	echo "routes-ns.sh: $*" >&2
	exit 99
}

ip link set lo up || die "lo up"
if [ -f "$T/hosts" ]; then
	mount --bind "$T/hosts" /etc/hosts || die "bind $T/hosts"
fi
# The proxies read these; the scenario sets what it wants.
unset HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy ALL_PROXY all_proxy

wait_port() {
	local i
	for i in $(seq 100); do
		(exec 9<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
		sleep 0.05
	done
	die "nothing listens on port $1"
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

# shellcheck source=/dev/null
. "$scenario"
