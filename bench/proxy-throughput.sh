#!/usr/bin/env bash
# Proxy benchmarks (SPEC §8), each against a baseline measured in the same run:
#   512 MiB download from a local nginx: direct vs CONNECT through srt-httpd (and SOCKS
#   through srt-socksd when it is built); new requests/s with ab -c 50 (no keep-alive),
#   direct vs through srt-httpd; idle RSS of srt-httpd. Prints ratios; not a test.
#   BENCH_ROUNDS (default 3) interleaved rounds, medians reported; BENCH_REQUESTS (default
#   20000) requests per ab run.
set -u
: "${SRT_BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
BIN=$SRT_BUILD/bin
for t in nginx curl ab python3; do
	command -v "$t" >/dev/null || { echo "proxy-throughput: $t not found, skipped"; exit 0; }
done
[ -x "$BIN/srt-httpd" ] || { echo "proxy-throughput: $BIN/srt-httpd not built"; exit 1; }
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
NG=$(port) HP=$(port) SP=$(port)
mkdir -p "$D/www" "$D/tmp"
chmod 755 "$D" "$D/www"   # nginx workers run as an unprivileged user
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
	sendfile on;
	server { listen 127.0.0.1:$NG; root $D/www; }
}
CONF
nginx -c "$D/nginx.conf" -p "$D" -e "$D/error.log" || { echo "nginx failed"; exit 1; }
cat >"$D/s.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:$NG"], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
"$BIN/srt-httpd" -s "$D/s.json" -l "127.0.0.1:$HP" --log /dev/null & pids+=($!)
hpid=$!
if [ -x "$BIN/srt-socksd" ]; then
	"$BIN/srt-socksd" -s "$D/s.json" -l "127.0.0.1:$SP" --log /dev/null & pids+=($!)
fi
sleep 0.5
speed() { curl -s -o /dev/null -w '%{speed_download}' "$@" "http://127.0.0.1:$NG/big"; }
ratio() { python3 -c "import sys; print('%.2f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$1" "$2"; }
mib() { python3 -c "import sys; print('%.0f' % (float(sys.argv[1]) / 1048576))" "$1"; }
# The median of the arguments.
median() { python3 -c "import sys, statistics; print(statistics.median(float(a) for a in sys.argv[1:]))" "$@"; }
# ROUNDS rounds, each measuring the baseline and then the proxy right after it, so that a
# change in the machine's load (it is shared) hits both sides of a ratio alike; the
# medians of the per-round ratios and speeds are reported.
ROUNDS=${BENCH_ROUNDS:-3}
N=${BENCH_REQUESTS:-20000}

rss=$(awk '/VmRSS/ {print $2}' "/proc/$hpid/status")
echo "srt-httpd idle RSS: ${rss} KiB"
echo "machine load before: $(cut -d' ' -f1-3 /proc/loadavg)"
ds=() ts=() ss=() rt=() rs=()
for r in $(seq 1 "$ROUNDS"); do
	d=$(speed)
	t=$(speed -p -x "http://127.0.0.1:$HP")
	ds+=("$d") ts+=("$t") rt+=("$(ratio "$t" "$d")")
	if [ -x "$BIN/srt-socksd" ]; then
		d=$(speed)
		s=$(speed --socks5-hostname "127.0.0.1:$SP")
		ss+=("$s") rs+=("$(ratio "$s" "$d")")
	fi
done
echo "download 512 MiB ($ROUNDS rounds): direct $(mib "$(median "${ds[@]}")") MiB/s, CONNECT $(mib "$(median "${ts[@]}")") MiB/s, ratio $(median "${rt[@]}") (per round: ${rt[*]}) (target >= 0.80)"
if [ -x "$BIN/srt-socksd" ]; then
	echo "download 512 MiB ($ROUNDS rounds): SOCKS $(mib "$(median "${ss[@]}")") MiB/s, ratio $(median "${rs[@]}") (per round: ${rs[*]})"
else
	echo "download 512 MiB: SOCKS skipped (srt-socksd not built)"
fi
rps() { ab -q -c 50 -n "$N" "$@" 2>/dev/null | awk '/Requests per second/ {print $4}'; }
dr=() pr=() ar=()
for r in $(seq 1 "$ROUNDS"); do
	d=$(rps "http://127.0.0.1:$NG/small")
	p=$(rps -X "127.0.0.1:$HP" "http://127.0.0.1:$NG/small")
	dr+=("${d:-0}") pr+=("${p:-0}") ar+=("$(ratio "${p:-0}" "${d:-1}")")
done
echo "ab -c 50 -n $N ($ROUNDS rounds): direct $(median "${dr[@]}") req/s, through srt-httpd $(median "${pr[@]}") req/s, ratio $(median "${ar[@]}") (per round: ${ar[*]}) (target >= 0.50)"
rss=$(awk '/VmRSS/ {print $2}' "/proc/$hpid/status")
echo "srt-httpd RSS after the runs: ${rss} KiB"
echo "machine load after: $(cut -d' ' -f1-3 /proc/loadavg)"
