#!/usr/bin/env bash
# One scenario of tests/proxies/credentials.bats in the network namespace `unshare -n` gave
# it: only loopback, so nothing started here can reach another network whatever goes
# wrong. Starts two logging upstreams (127.0.0.1:$P1, 127.0.0.2:$P2: another host, since
# injectHosts name hosts, not ports), runs "$@", stops them.
set -u
ip link set lo up || exit 99
python3 "$UP" "$P1" "$T/up1.log" & u1=$!
UP_HOST=127.0.0.2 python3 "$UP" "$P2" "$T/up2.log" & u2=$!
trap 'kill $u1 $u2 2>/dev/null; wait $u1 $u2 2>/dev/null' EXIT
for i in $(seq 50); do
	(exec 9<>"/dev/tcp/127.0.0.1/$P1") 2>/dev/null && (exec 9<>"/dev/tcp/127.0.0.2/$P2") \
	    2>/dev/null && break
	sleep 0.1
done
"$@"
