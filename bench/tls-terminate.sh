#!/usr/bin/env bash
# TLS termination benchmarks (issue #14), each against HTTPS straight from the same
# upstream, measured in the same run:
#   512 MiB download from a local nginx over HTTPS: direct vs through srt-httpd with
#   network.tlsTerminate (decrypted and encrypted again; target >= 0.5);
#   the same download by curl under srt and under the reference tool (their sandboxes
#   and proxies, each terminating), each against direct;
#   new HTTPS requests/s (curl --parallel, 20 at once, "Connection: close" so that every
#   request is a new TCP connection and TLS handshake, and through the proxy a new
#   CONNECT and a terminated handshake with the leaf already cached): direct vs through
#   srt-httpd (target >= 0.3).
# BENCH_ROUNDS (default 3) rounds, each the baseline then the proxy right after it (the
# machine is shared: load hits both sides of a ratio alike); the median of the
# per-round ratios is reported with their spread. BENCH_REQUESTS (default 2000) requests
# per request-rate sample. Prints numbers; not a test.
set -u
: "${SRT_BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
BIN=$SRT_BUILD/bin
for t in nginx curl openssl python3; do
	command -v "$t" >/dev/null || { echo "tls-terminate: $t not found, skipped"; exit 0; }
done
[ -x "$BIN/srt-httpd" ] || { echo "tls-terminate: $BIN/srt-httpd not built"; exit 1; }
D=$(mktemp -d "${TMPDIR:-/tmp}/srt-bench.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
	[ -f "$D/nginx.pid" ] && kill "$(cat "$D/nginx.pid")" 2>/dev/null
	wait 2>/dev/null
	rm -rf -- "$D"
}
trap cleanup EXIT
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
NG=$(port) HP=$(port)
mkdir -p "$D/www" "$D/tmp"
chmod 755 "$D" "$D/www"   # nginx workers run as an unprivileged user

# An upstream CA with a certificate for 127.0.0.1, and the CA srt-httpd terminates with.
for n in up-ca mitm-ca; do
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$D/$n.key" \
	    -out "$D/$n.pem" -days 2 -subj "/CN=$n" -addext basicConstraints=critical,CA:TRUE \
	    -addext keyUsage=critical,keyCertSign,cRLSign 2>/dev/null
done
printf 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$D/ext.cnf"
openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$D/srv.key" \
    -out "$D/srv.csr" -subj /CN=127.0.0.1 2>/dev/null
openssl x509 -req -in "$D/srv.csr" -CA "$D/up-ca.pem" -CAkey "$D/up-ca.key" -CAcreateserial \
    -out "$D/srv.pem" -days 2 -extfile "$D/ext.cnf" 2>/dev/null
chmod 644 "$D"/*.key

head -c $((512 << 20)) /dev/zero >"$D/www/big"
echo ok >"$D/www/small"
cat >"$D/nginx.conf" <<CONF
daemon on;
pid $D/nginx.pid;
error_log $D/error.log;
worker_processes 1;
events { worker_connections 4096; }
http {
	access_log off;
	client_body_temp_path $D/tmp; proxy_temp_path $D/tmp; fastcgi_temp_path $D/tmp;
	uwsgi_temp_path $D/tmp; scgi_temp_path $D/tmp;
	keepalive_requests 100000;
	server {
		listen 127.0.0.1:$NG ssl;
		ssl_certificate $D/srv.pem; ssl_certificate_key $D/srv.key;
		root $D/www;
	}
}
CONF
nginx -c "$D/nginx.conf" -p "$D" -e "$D/error.log" || { echo "nginx failed"; exit 1; }
cat >"$D/s.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:$NG"], "deniedDomains": [],
  "tlsTerminate": {"caCertPath": "$D/mitm-ca.pem", "caKeyPath": "$D/mitm-ca.key"}},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
SSL_CERT_FILE="$D/up-ca.pem" "$BIN/srt-httpd" -s "$D/s.json" -l "127.0.0.1:$HP" \
    --log /dev/null & pids+=($!)
hpid=$!
sleep 0.5

DIRECT=(--cacert "$D/up-ca.pem")
PROXY=(--cacert "$D/mitm-ca.pem" -x "http://127.0.0.1:$HP")
speed() { curl -s -o /dev/null -w '%{speed_download}' "$@" "https://127.0.0.1:$NG/big"; }
ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
mib() { python3 -c "import sys; print('%.0f' % (float(sys.argv[1]) / 1048576))" "$1"; }
median() { python3 -c "import sys, statistics; print(statistics.median(float(a) for a in sys.argv[1:]))" "$@"; }
spread() { python3 -c "import sys; v=[float(a) for a in sys.argv[1:]]; print('%.2f-%.2f' % (min(v), max(v)))" "$@"; }
# Requests per second: BENCH_REQUESTS new connections, 20 at once, one curl process.
rate() {
	local n=$1 t0 t1
	shift
	python3 -c "import sys; [print('url = \"https://127.0.0.1:%s/small\"\noutput = \"/dev/null\"' % sys.argv[1]) for _ in range(int(sys.argv[2]))]" \
	    "$NG" "$n" >"$D/urls"
	t0=$(date +%s.%N)
	curl -s --no-progress-meter --parallel --parallel-max 20 -H "Connection: close" "$@" \
	    -K "$D/urls" 2>/dev/null
	t1=$(date +%s.%N)
	python3 -c "import sys; print('%.0f' % (int(sys.argv[1]) / (float(sys.argv[3]) - float(sys.argv[2]))))" "$n" "$t0" "$t1"
}
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_REQUESTS:-2000}

echo "machine load before: $(cut -d' ' -f1-3 /proc/loadavg)"
# Warm the leaf cache (and check the path works) before measuring.
curl -sS -o /dev/null "${PROXY[@]}" "https://127.0.0.1:$NG/small" || { echo "proxy path failed"; exit 1; }
ds=() ts=() rt=()
for r in $(seq 1 "$ROUNDS"); do
	d=$(speed "${DIRECT[@]}")
	t=$(speed "${PROXY[@]}")
	ds+=("$d") ts+=("$t") rt+=("$(ratio "$t" "$d")")
done
echo "download 512 MiB over HTTPS ($ROUNDS rounds): direct $(mib "$(median "${ds[@]}")") MiB/s, terminated $(mib "$(median "${ts[@]}")") MiB/s, ratio median $(median "${rt[@]}") spread $(spread "${rt[@]}") (per round: ${rt[*]}) (target >= 0.50)"
# The same download by curl inside a sandbox, through the sandbox's own proxy with
# tlsTerminate (an ephemeral CA; the upstream's CA in extraCaCertPaths): srt, and the
# reference tool when it is there (BENCH_REF_CLI, else build/ref), each against direct
# in the same round.
REF_CLI=${BENCH_REF_CLI:-$SRT_BUILD/ref/node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js}
cat >"$D/sb.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1"], "deniedDomains": [],
  "tlsTerminate": {"extraCaCertPaths": ["$D/up-ca.pem"]}},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
IN="curl -s --noproxy '' -o /dev/null -w '%{http_code} %{speed_download}' https://127.0.0.1:$NG/big"
# The speed of a 200, else nothing.
ok200() { case $1 in "200 "*) echo "${1#200 }" ;; esac; }
ref=no
command -v node >/dev/null && [ -f "$REF_CLI" ] && ref=yes
if [ -x "$BIN/srt" ] && [ -n "$(ok200 "$(cd "$D" && "$BIN/srt" -s "$D/sb.json" -c "$IN" 2>/dev/null)")" ]; then
	ds=() ss=() fs=() rs=() rf=()
	for r in $(seq 1 "$ROUNDS"); do
		d=$(speed "${DIRECT[@]}")
		t=$(ok200 "$(cd "$D" && "$BIN/srt" -s "$D/sb.json" -c "$IN" 2>/dev/null)")
		ds+=("$d") ss+=("$t") rs+=("$(ratio "$t" "$d")")
		if [ "$ref" = yes ]; then
			# Its proxy checks the upstream against node's roots, which
			# extraCaCertPaths does not reach (it answers 502): node's own variable.
			f=$(ok200 "$(cd "$D" && NODE_EXTRA_CA_CERTS="$D/up-ca.pem" node "$REF_CLI" \
			    -s "$D/sb.json" -c "$IN" 2>/dev/null)")
			[ -n "$f" ] || { ref=failed; continue; }
			fs+=("$f") rf+=("$(ratio "$f" "$d")")
		fi
	done
	echo "download 512 MiB over HTTPS under a sandbox ($ROUNDS rounds): direct $(mib "$(median "${ds[@]}")") MiB/s, srt $(mib "$(median "${ss[@]}")") MiB/s, ratio median $(median "${rs[@]}") spread $(spread "${rs[@]}") (per round: ${rs[*]})"
	if [ "$ref" = yes ]; then
		echo "  the reference: $(mib "$(median "${fs[@]}")") MiB/s, ratio median $(median "${rf[@]}") spread $(spread "${rf[@]}") (per round: ${rf[*]})"
	else
		echo "  the reference: not measured ($ref: $REF_CLI)"
	fi
else
	echo "download under a sandbox: skipped (srt cannot run here)"
fi
dr=() pr=() ar=()
for r in $(seq 1 "$ROUNDS"); do
	d=$(rate "$N" "${DIRECT[@]}")
	p=$(rate "$N" "${PROXY[@]}")
	dr+=("$d") pr+=("$p") ar+=("$(ratio "$p" "$d")")
done
echo "new HTTPS requests/s ($N per sample, 20 at once, $ROUNDS rounds): direct $(median "${dr[@]}"), terminated $(median "${pr[@]}"), ratio median $(median "${ar[@]}") spread $(spread "${ar[@]}") (per round: ${ar[*]}) (target >= 0.30)"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$hpid/status")
echo "srt-httpd RSS after the runs: ${rss} KiB"
echo "machine load after: $(cut -d' ' -f1-3 /proc/loadavg)"
