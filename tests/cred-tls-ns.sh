#!/usr/bin/env bash
# One scenario of the terminated-TLS tests of tests/proxies/sigv4.bats, in the network
# namespace `unshare -n` gave it (only loopback): a test PKI made with openssl(1) in
# $T/pki (an upstream CA and its server certificate for 127.0.0.1 and 127.0.0.2), two
# verifying upstreams over HTTPS (127.0.0.1:$P1, 127.0.0.2:$P2: another host, since
# injectHosts name hosts, not ports) and one over plain HTTP (127.0.0.1:$P3), all knowing the real AWS
# pair and logging what arrives; then "$@". $UP names another upstream program taking the
# same arguments (tests/proxies/credential-reflection.bats: helpers/echo-upstream.py).
set -u
ip link set lo up || exit 99
d="$T/pki"
mkdir -p "$d"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/up-ca.key" \
    -out "$d/up-ca.pem" -days 2 -subj /CN=up-ca -addext basicConstraints=critical,CA:TRUE \
    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null || exit 98
printf 'subjectAltName=IP:127.0.0.1,IP:127.0.0.2\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
    >"$d/ext.cnf"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$d/srv.key" \
    -out "$d/srv.csr" -subj /CN=127.0.0.1 2>/dev/null &&
openssl x509 -req -in "$d/srv.csr" -CA "$d/up-ca.pem" -CAkey "$d/up-ca.key" \
    -CAcreateserial -out "$d/srv.pem" -days 2 -extfile "$d/ext.cnf" 2>/dev/null || exit 98
up="${UP:-$(dirname "$0")/helpers/sigv4-upstream.py}"
UP_TLS="$d/srv.pem:$d/srv.key" python3 "$up" "$P1" "$T/up1.log" "$AKID" "$SECRET" $TOKEN &
u1=$!
UP_HOST=127.0.0.2 UP_TLS="$d/srv.pem:$d/srv.key" python3 "$up" "$P2" "$T/up2.log" "$AKID" "$SECRET" $TOKEN &
u2=$!
python3 "$up" "$P3" "$T/up3.log" "$AKID" "$SECRET" $TOKEN & u3=$!
trap 'kill $u1 $u2 $u3 2>/dev/null; wait $u1 $u2 $u3 2>/dev/null' EXIT
for a in 127.0.0.1:$P1 127.0.0.2:$P2 127.0.0.1:$P3; do
	for i in $(seq 50); do
		(exec 9<>"/dev/tcp/${a%:*}/${a#*:}") 2>/dev/null && break
		sleep 0.1
	done
done
"$@"
