#!/usr/bin/env bash
# One scenario of tests/proxies/sigv4.bats in the network namespace `unshare -n` gave it: only
# loopback. Starts two verifying upstreams (helpers/sigv4-upstream.py) that know the real
# key pair ($AKID, $SECRET, $TOKEN) on 127.0.0.1:$P1 and 127.0.0.2:$P2 (another host,
# since injectHosts name hosts, not ports), runs "$@", stops them.
set -u
ip link set lo up || exit 99
up="$(dirname "$0")/helpers/sigv4-upstream.py"
python3 "$up" "$P1" "$T/up1.log" "$AKID" "$SECRET" $TOKEN & u1=$!
UP_HOST=127.0.0.2 python3 "$up" "$P2" "$T/up2.log" "$AKID" "$SECRET" $TOKEN & u2=$!
trap 'kill $u1 $u2 2>/dev/null; wait $u1 $u2 2>/dev/null' EXIT
for i in $(seq 50); do
	(exec 9<>"/dev/tcp/127.0.0.1/$P1") 2>/dev/null && (exec 9<>"/dev/tcp/127.0.0.2/$P2") \
	    2>/dev/null && break
	sleep 0.1
done
"$@"
