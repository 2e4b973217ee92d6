#!/usr/bin/env bash
# Runs a network scenario of the escape battery inside the private network and mount
# namespaces that `unshare -m -n` gave it (helpers.bash: in_netns). Nothing here can
# reach the host's network: the servers listen on addresses added to this namespace's
# loopback, and the hosts file is bind-mounted over /etc/hosts in this mount namespace
# only.
#
# usage: netns.sh SCENARIO	(SCENARIO is sourced; $T, $SRT, $SECDIR, $PY come from
#				the environment)
# Addresses on lo here: 127.0.0.1, ::1, 10.99.0.1 and 10.99.0.2 (ordinary addresses of
# "this host"), 169.254.169.254 and 100.100.100.200 (cloud metadata), 169.254.1.1
# (link-local), fd00:ec2::254 (IPv6 metadata).
# SCENARIO may call: upstream MODE ADDR PORT NAME (a server of upstream.py logging to
# $T/up-NAME.log), sandbox STRING (srt -s $T/srt.json -c STRING from $T/work).
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
	echo "netns.sh: $*" >&2
	exit 99
}

ip link set lo up || die "lo up"
for a in 10.99.0.1/32 10.99.0.2/32 169.254.169.254/32 100.100.100.200/32 169.254.1.1/32; do
	ip addr add "$a" dev lo || die "ip addr add $a"
done
ip -6 addr add fd00:ec2::254/128 dev lo nodad || die "ip addr add fd00:ec2::254"
if [ -f "$T/hosts" ]; then
	mount --bind "$T/hosts" /etc/hosts || die "bind $T/hosts"
fi

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

sandbox() {
	(cd "$T/work" && timeout 30 "$SRT" -s "${SETTINGS:-$T/srt.json}" -c "$1" </dev/null)
}

# shellcheck source=/dev/null
. "$scenario"
