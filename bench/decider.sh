#!/usr/bin/env bash
# Decider and live-update benchmarks (issue #15), each against a baseline in the same run:
#   1. new requests/s with ab -c 50 (no keep-alive) through srt-httpd with a decider that
#      answers at once (tests/helpers/decider.py's protocol, in a lean Python loop),
#      against srt-httpd with the same static policy; paired rounds, each round's ratio,
#      their median and spread. Target >= 0.5.
#   2. ab -c 50 for 4 s inside srt while the policy is replaced 20 times over --control-fd (every
#      update keeps the host allowed): counts failed and non-2xx requests. Target 0.
# BENCH_ROUNDS (default 5) rounds; BENCH_REQUESTS (default 5000) requests per ab run.
set -u
trap '' PIPE
: "${SRT_BUILD:=$(cd "$(dirname "$0")/.." && pwd)/build}"
BIN=$SRT_BUILD/bin
for t in nginx ab python3; do
	command -v "$t" >/dev/null || { echo "decider: $t not found, skipped"; exit 0; }
done
ROUNDS=${BENCH_ROUNDS:-5}
N=${BENCH_REQUESTS:-5000}
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
NG=$(port) HS=$(port) HD=$(port)
mkdir -p "$D/www" "$D/tmp"
chmod 755 "$D" "$D/www"
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
	server { listen 127.0.0.1:$NG; root $D/www; }
}
CONF
nginx -c "$D/nginx.conf" -p "$D" -e "$D/error.log" || { echo "nginx failed"; exit 1; }
cat >"$D/s.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:$NG"], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
# The instant decider: reads each req, answers allow with its id, nothing else.
cat >"$D/instant.py" <<'PY'
import os, re, signal, socket, struct, subprocess, sys
a, b = socket.socketpair()
child = subprocess.Popen(sys.argv[1:] + ['--decider-fd', str(b.fileno())],
                         pass_fds=[b.fileno()])
b.close()
# Stopped, it takes its proxy along.
signal.signal(signal.SIGTERM, lambda *_: (child.terminate(), child.wait(), sys.exit(0)))
rd = a.makefile('rb')
idre = re.compile(rb'"id":(\d+)')
def send(s):
    a.sendall(struct.pack('>I', len(s)) + s)
n, = struct.unpack('>I', rd.read(4)); rd.read(n)
send(b'{"t":"hello","proto":1,"allowedDomains":[],"deniedDomains":[]}')
while True:
    h = rd.read(4)
    if len(h) < 4:
        break
    n, = struct.unpack('>I', h)
    m = idre.search(rd.read(n))
    send(b'{"t":"verdict","id":%s,"action":"allow"}' % m.group(1))
PY
"$BIN/srt-httpd" -s "$D/s.json" -l "127.0.0.1:$HS" --log /dev/null & pids+=($!)
python3 "$D/instant.py" "$BIN/srt-httpd" -s "$D/s.json" -l "127.0.0.1:$HD" --log /dev/null \
    & pids+=($!)
sleep 1
rps() {
	ab -q -c 50 -n "$N" -X "127.0.0.1:$1" "http://127.0.0.1:$NG/small" 2>/dev/null |
	    awk '/Requests per second/ { print $4 } /^Failed requests/ { if ($3 != 0) print "FAILED " $3 > "/dev/stderr" }'
}
ratios=()
echo "decider: $ROUNDS paired rounds of ab -c 50 -n $N (no keep-alive)"
for r in $(seq "$ROUNDS"); do
	# Alternate which goes first, so that neither always gets the warmer machine.
	if [ $((r % 2)) -eq 1 ]; then s=$(rps "$HS"); d=$(rps "$HD"); else d=$(rps "$HD"); s=$(rps "$HS"); fi
	ratio=$(python3 -c "print('%.2f' % ($d / $s))")
	ratios+=("$ratio")
	echo "  round $r: static $s req/s, decider $d req/s, ratio $ratio"
done
python3 -c "
import statistics, sys
r = [float(x) for x in sys.argv[1:]]
print('decider: median ratio %.2f (spread %.2f-%.2f) against the static policy; target >= 0.5'
      % (statistics.median(r), min(r), max(r)))" "${ratios[@]}"

# 2. Updates under load, inside srt.
cat >"$D/allow2.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:$NG", "example.com"], "deniedDomains": ["example.org"]},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
mkfifo "$D/ctl"
"$BIN/srt" -s "$D/s.json" --control-fd 3 -c \
    "ab -c 50 -t 4 -n 100000000 -X localhost:3128 http://127.0.0.1:$NG/small" 3<"$D/ctl" \
    >"$D/ab.out" 2>"$D/ab.err" &
spid=$!
exec 4>"$D/ctl"
sleep 0.3
for i in $(seq 20); do
	if [ $((i % 2)) -eq 1 ]; then f=$D/allow2.json; else f=$D/s.json; fi
	{ tr -d '\n' <"$f"; echo; } >&4 || break
	sleep 0.1
done
exec 4>&-
wait "$spid"
failed=$(awk '/^Failed requests/ { print $3 }' "$D/ab.out")
non2xx=$(awk '/^Non-2xx responses/ { print $3 }' "$D/ab.out")
complete=$(awk '/^Complete requests/ { print $3 }' "$D/ab.out")
echo "updates under load: 20 updates during $complete requests (ab -c 50 inside srt):" \
    "${failed:-?} failed, ${non2xx:-0} non-2xx; target 0"
