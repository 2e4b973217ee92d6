#!/usr/bin/env bats
# The managed policy (srt-settings(5), MANAGED POLICY): a file at /etc/srt that user
# settings can narrow and never widen. Each test runs the real programs in a private mount
# namespace where an overlay over /etc (its writes land in the test's directory) holds a
# directory of the test's own bound at /etc/srt: the host's /etc is never written.
load ../helpers
bats_require_minimum_version 1.5.0

setup_file() {
	export UT=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-managed.XXXXXX")
	mkdir -p "$UT/www"
	echo hello-upstream > "$UT/www/index.html"
	UPORT=$(free_port)
	python3 -m http.server "$UPORT" --bind 127.0.0.1 --directory "$UT/www" \
	    >"$UT/www.log" 2>&1 &
	echo $! > "$UT/www.pid"
	export UPORT
	for i in $(seq 100); do curl -s "http://127.0.0.1:$UPORT/" >/dev/null && break; sleep 0.1; done
}

teardown_file() {
	[ -f "$UT/www.pid" ] && kill "$(cat "$UT/www.pid")" 2>/dev/null
	rm -rf "$UT"
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace of its own"
	command -v unshare >/dev/null || skip "unshare missing"
	srt_setup
	mkdir -p "$T/ws" "$T/tmp" "$T/upper" "$T/work" "$T/srt"
	chmod 755 "$T/upper" "$T/srt"
	export TMPDIR="$T/tmp"
	cd "$T/ws"
}

teardown() {
	cd /
	srt_teardown
}

# The managed file: a whole settings document, with root-level extras in $2.
managed() {
	local net=${1:-'"allowedDomains": [], "deniedDomains": []'} extra=${2:-} fs=${3:-}
	cat > "$T/srt/managed-settings.json" <<JSON
{ $extra
  "network": { $net },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] $fs } }
JSON
	chmod 644 "$T/srt/managed-settings.json"
}

# Run a shell script ($1) with the managed directory at /etc/srt.
in_managed() {
	cat > "$T/ns.sh" <<SH
set -e
mount -t overlay srt-test -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc
mkdir -p /etc/srt
mount --bind $T/srt /etc/srt
set +e
$1
SH
	unshare -m --propagation private bash "$T/ns.sh"
}

# curl inside, with NO_PROXY emptied (it names 127.0.0.1, which would bypass the proxy).
incurl() {
	echo "srt -s $1 -c 'NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/'"
}

@test "a user allow is ignored under allowManagedDomainsOnly, with a warning naming both files" {
	managed '"allowedDomains": ["managed.example"], "deniedDomains": []' \
	    '"allowManagedDomainsOnly": true,'
	write_settings "$T/u.json" "[\"127.0.0.1:$UPORT\"]"
	# Without the managed file the user's allow works: the control.
	run srt -s "$T/u.json" -c "NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = hello-upstream ]
	run in_managed "$(incurl "$T/u.json")"
	echo "$output"
	[[ "$output" != *hello-upstream* ]]
	[[ "$output" == *"$T/u.json: network.allowedDomains[0]: \"127.0.0.1:$UPORT\" is ignored: the managed policy /etc/srt/managed-settings.json sets allowManagedDomainsOnly"* ]]
	[[ "$output" == *"deny network-outbound 127.0.0.1:$UPORT (managed: host is not on the allow list)"* ]]
	# srt-policy match and the standalone proxy judge the same.
	run in_managed "srt-policy match -s $T/u.json 127.0.0.1 $UPORT"
	[ "$status" -eq 1 ]
	[[ "$output" == *"deny: managed: host is not on the allow list"* ]]
	run in_managed "srt-policy match -s $T/u.json managed.example 443"
	[ "$status" -eq 0 ]
	PP=$(free_port)
	run in_managed "srt-httpd -s $T/u.json -l 127.0.0.1:$PP --log $T/log 2>$T/err & pid=\$!
for i in \$(seq 50); do (exec 9<>/dev/tcp/127.0.0.1/$PP) 2>/dev/null && break; sleep 0.1; done
curl -sS -m 10 -x http://127.0.0.1:$PP http://127.0.0.1:$UPORT/
kill \$pid; wait \$pid"
	echo "$output"
	[[ "$output" != *hello-upstream* ]]
	grep -q '"verdict":"deny".*"reason":"managed: host is not on the allow list"' "$T/log"
	grep -q 'is ignored: the managed policy' "$T/err"
}

@test "a managed deny beats a user allow, in srt, srt-launch -p and the proxies" {
	managed "\"allowedDomains\": [], \"deniedDomains\": [\"127.0.0.1:$UPORT\"],
	    \"deniedDomainReasons\": {\"127.0.0.1:$UPORT\": \"not on this network\"}"
	write_settings "$T/u.json" "[\"127.0.0.1:$UPORT\"]"
	run in_managed "$(incurl "$T/u.json")"
	echo "$output"
	[[ "$output" != *hello-upstream* ]]
	[[ "$output" == *"deny network-outbound 127.0.0.1:$UPORT (managed: not on this network)"* ]]
	# A policy compiled where there was no managed file is merged with it at launch.
	srt-policy compile -s "$T/u.json" -o "$T/u.bin"
	run in_managed "srt-launch -p $T/u.bin --violations $T/v.jsonl -c 'NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/'"
	[[ "$output" != *hello-upstream* ]]
	grep -q '"reason":"managed: not on this network"' "$T/v.jsonl"
	grep -q '"violation":"deny network-outbound 127.0.0.1:'"$UPORT"' (managed: not on this network)"' "$T/v.jsonl"
	run in_managed "srt-policy match -p $T/u.bin 127.0.0.1 $UPORT"
	[ "$status" -eq 1 ]
	[ "$output" = "deny: managed: not on this network (managed deniedDomains \"127.0.0.1:$UPORT\")" ]
	# and a user deny is not called managed
	write_settings "$T/d.json" "[]" "[\"127.0.0.2\"]"
	run in_managed "srt-policy match -s $T/d.json 127.0.0.2 80"
	[ "$output" = 'deny: host is on the deny list (deniedDomains "127.0.0.2")' ]
}

@test "user carve-outs (allowRead, allowWrite) from a denyRead are ignored under allowManagedReadPathsOnly" {
	mkdir -p "$T/secret/w"
	echo top > "$T/secret/key"
	echo fine > "$T/secret/ok.txt"
	echo written > "$T/secret/w/f"
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/secret"],"allowRead":["$T/secret/ok.txt"],"allowWrite":["$T/secret/w"],"denyWrite":[]}}
JSON
	# The carve-outs work when the managed file leaves allowRead to users: an allowRead
	# path, and an allowWrite path, which comes back readable and writable.
	managed
	run in_managed "srt -s $T/u.json -c 'cat $T/secret/ok.txt; cat $T/secret/key; cat $T/secret/w/f'"
	echo "$output"
	[[ "$output" == *fine* ]]
	[[ "$output" != *top* ]]
	[[ "$output" == *written* ]]
	managed '"allowedDomains": [], "deniedDomains": []' '"allowManagedReadPathsOnly": true,'
	run in_managed "srt -s $T/u.json -c 'cat $T/secret/ok.txt; cat $T/secret/key; cat $T/secret/w/f'"
	echo "$output"
	[[ "$output" != *fine* ]]
	[[ "$output" != *top* ]]
	[[ "$output" != *written* ]]
	[[ "$output" == *"filesystem.allowRead[0]: \"$T/secret/ok.txt\" is ignored"*"allowManagedReadPathsOnly"* ]]
	# The managed file's own allowWrite still comes back.
	managed '"allowedDomains": [], "deniedDomains": []' '"allowManagedReadPathsOnly": true,' \
	    ", \"allowWrite\": [\"$T/secret/w\"]"
	sed -i 's/"allowWrite": \[\], //' "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'cat $T/secret/w/f; cat $T/secret/ok.txt'"
	echo "$output"
	[[ "$output" == *written* ]]
	[[ "$output" != *fine* ]]
	# the same warning as the run before: shown once (srt(1), FILES)
	[[ "$output" != *"is ignored"* ]]
	# A managed denyRead applies to a user who denies nothing.
	write_settings "$T/none.json"
	managed '"allowedDomains": [], "deniedDomains": []' '' ", \"denyRead\": [\"$T/secret\"]"
	sed -i 's/"denyRead": \[\], //' "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/none.json -c 'cat $T/secret/key'"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"$T/secret/key: No such file or directory"* ]]
}

@test "a weaker option is refused unless the managed file allows it" {
	managed
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"allowAllUnixSockets":true},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
	[[ "$output" == *"$T/u.json: network.allowAllUnixSockets: not allowed by the managed policy /etc/srt/managed-settings.json"* ]]
	run in_managed "srt-policy check -s $T/u.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"network.allowAllUnixSockets: not allowed by the managed policy"* ]]
	# allowed by allowUserWeakerOptions, or set by the managed file itself
	managed '"allowedDomains": [], "deniedDomains": []' '"allowUserWeakerOptions": true,'
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	managed '"allowedDomains": [], "deniedDomains": [], "allowAllUnixSockets": true'
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# no managed file: the option is the user's
	run srt -s "$T/u.json" -c 'echo ran'
	[ "$status" -eq 0 ]
}

@test "filesystem.denyReadHold false is a weaker option: refused under a managed file unless it allows weaker ones" {
	managed
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[],"denyReadHold":false}}
JSON
	run in_managed "srt-policy check -s $T/u.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/u.json: filesystem.denyReadHold: not allowed by the managed policy"* ]]
	managed '"allowedDomains": [], "deniedDomains": []' '"allowUserWeakerOptions": true,'
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# the managed file's false is the one used
	managed '"allowedDomains": [], "deniedDomains": []' '' ', "denyReadHold": false'
	write_settings "$T/d.json"
	run in_managed "srt-policy dump -s $T/d.json"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"denyReadHold": false'* ]]
}

@test "mitmProxy in one file and tlsTerminate in the other: refused like the pair in one file" {
	local mitm='"mitmProxy": {"socketPath": "/run/inspect.sock", "domains": ["*.corp.example"]}'
	cat > "$T/tls.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],"tlsTerminate":{}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	cat > "$T/mitm.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[],$mitm},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	managed "\"allowedDomains\": [], \"deniedDomains\": [], $mitm"
	run in_managed "srt -s $T/tls.json -c 'echo ran'"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
	[[ "$output" == *"$T/tls.json: network.tlsTerminate: the managed policy /etc/srt/managed-settings.json sets network.mitmProxy: mitmProxy and tlsTerminate cannot be used together"* ]]
	run in_managed "srt-policy check -s $T/tls.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"mitmProxy and tlsTerminate cannot be used together"* ]]
	# the other way round, where the user may weaken the sandbox
	managed '"allowedDomains": [], "deniedDomains": [], "tlsTerminate": {}' \
	    '"allowUserWeakerOptions": true,'
	run in_managed "srt-httpd -s $T/mitm.json -l 127.0.0.1:0"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/mitm.json: network.mitmProxy: the managed policy /etc/srt/managed-settings.json sets network.tlsTerminate: mitmProxy and tlsTerminate cannot be used together"* ]]
	# each alone is accepted
	run in_managed "srt-policy check -s $T/tls.json"
	[ "$status" -eq 0 ]
}

@test "a managed file or directory others may write is refused with 125 and the reason" {
	managed
	write_settings "$T/u.json"
	chmod 664 "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	echo "$output"
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
	[[ "$output" == *"the managed policy cannot be trusted: the file /etc/srt/managed-settings.json is writable by its group (mode 0664)"* ]]
	chmod 644 "$T/srt/managed-settings.json"
	chmod 775 "$T/srt"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"the directory /etc/srt is writable by its group (mode 0775)"* ]]
	# the proxies and srt-policy refuse it too
	run in_managed "srt-policy check -s $T/u.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot be trusted"* ]]
	run in_managed "srt-httpd -s $T/u.json -l 127.0.0.1:$(free_port)"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot be trusted"* ]]
	# A file missing from a directory others may write: its absence is not trusted.
	rm "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"the directory /etc/srt is writable by its group"* ]]
	# Missing from a directory only root may write: no managed layer.
	chmod 755 "$T/srt"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 0 ]
	[ "$output" = ran ]
	# Not owned by root.
	managed
	chown 1:1 "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"is owned by uid 1, not by root"* ]]
	# A symbolic link is followed, and where it leads is checked: here into a directory
	# anyone may write ($BATS_TMPDIR, like /tmp).
	chown 0:0 "$T/srt/managed-settings.json"
	mv "$T/srt/managed-settings.json" "$T/real.json"
	ln -s "$T/real.json" "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"cannot be trusted"* ]]
	# An invalid managed file stops everything too.
	rm "$T/srt/managed-settings.json"
	echo '{"network": {}}' > "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo ran'"
	[ "$status" -eq 125 ]
	[[ "$output" == *"/etc/srt/managed-settings.json: network.allowedDomains: required field is missing"* ]]
}

@test "the managed file cannot be written inside the sandbox, even where /etc/srt is writable" {
	managed '"allowedDomains": [], "deniedDomains": []' '"allowUserWeakerOptions": true,'
	cp "$T/srt/managed-settings.json" "$T/orig.json"
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":["/etc/srt"],"denyWrite":[]}}
JSON
	run in_managed "srt -s $T/u.json -c 'echo x > /etc/srt/other && echo wrote-other
echo {} > /etc/srt/managed-settings.json && echo wrote-managed
mv /etc/srt/managed-settings.json /etc/srt/elsewhere && echo MOVED-IT
rm -f /etc/srt/managed-settings.json && echo REMOVED-IT'"
	echo "$output"
	[[ "$output" == *wrote-other* ]]
	[[ "$output" != *wrote-managed* ]]
	[[ "$output" != *MOVED-IT* ]]
	[[ "$output" != *REMOVED-IT* ]]
	cmp "$T/orig.json" "$T/srt/managed-settings.json"
	# With the filesystem unrestricted (a weaker option the managed file allows here).
	cat > "$T/d.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"disabled":true,"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	run in_managed "srt -s $T/d.json -c 'touch /etc/srt/other2 && echo wrote-other
echo {} > /etc/srt/managed-settings.json && echo wrote-managed'"
	echo "$output"
	[[ "$output" == *wrote-other* ]]
	[[ "$output" != *wrote-managed* ]]
	cmp "$T/orig.json" "$T/srt/managed-settings.json"
	# Where there is no managed file, none can be made: it would bound the next run.
	rm "$T/srt/managed-settings.json"
	run in_managed "srt -s $T/u.json -c 'echo {} > /etc/srt/managed-settings.json && echo made'"
	[[ "$output" != *made* ]]
	[ ! -e "$T/srt/managed-settings.json" ]
}

@test "srt-policy dump --layers shows each rule with the file it came from" {
	managed '"allowedDomains": ["github.com"], "deniedDomains": ["evil.example"],
	    "httpProxyPort": 3128' '"allowManagedDomainsOnly": true,' ', "denyWrite": [".env"]'
	sed -i 's/"denyWrite": \[\] , //' "$T/srt/managed-settings.json"
	cat > "$T/u.json" <<JSON
{"network":{"allowedDomains":["github.com","example.org"],"deniedDomains":["bad.example"],
  "requireHostMatch":true},
 "filesystem":{"denyRead":["~/.aws"],"allowWrite":["."],"denyWrite":[]}}
JSON
	run in_managed "srt-policy dump --layers -s $T/u.json 2>$T/err"
	echo "$output"
	[ "$status" -eq 0 ]
	M=/etc/srt/managed-settings.json U=$T/u.json
	expected="$M	allowManagedDomainsOnly	true
$M	network.allowedDomains	\"github.com\"
$M	network.deniedDomains	\"evil.example\"
$U	network.deniedDomains	\"bad.example\"
$M	network.httpProxyPort	3128
$U	network.requireHostMatch	true
$U	filesystem.denyRead	\"~/.aws\"
$U	filesystem.allowWrite	\".\"
$M	filesystem.denyWrite	\".env\""
	diff <(echo "$expected") <(echo "$output")
	grep -q 'network.allowedDomains\[1\]: "example.org" is ignored' "$T/err"
	# The same from the compiled policy, with the policy file as the user's layer.
	run in_managed "srt-policy compile -s $T/u.json -o $T/u.bin 2>/dev/null &&
srt-policy dump --layers -p $T/u.bin"
	[ "$status" -eq 0 ]
	[ "$output" = "${expected//$U/$T/u.bin}" ]
	# Without a managed file every line is the user's, and plain dump is unchanged.
	run srt-policy dump --layers -s "$T/u.json"
	[ "$status" -eq 0 ]
	[ "$(echo "$output" | cut -f1 | sort -u)" = "$T/u.json" ]
	run in_managed "srt-policy dump -s $T/u.json 2>/dev/null"
	[[ "$output" == *'"allowedDomains": ['*'"github.com"'*']'* ]]
	[[ "$output" != *example.org* ]]
	[[ "$output" != *allowManaged* ]]
}

# in_managed in a network namespace of its own too, with only loopback up: for the
# parent proxy tests, where a proxy that chose the wrong route could otherwise dial out.
in_managed_ns() {
	cat > "$T/ns.sh" <<SH
set -e
ip link set lo up
mount -t overlay srt-test -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc
mkdir -p /etc/srt
mount --bind $T/srt /etc/srt
unset HTTP_PROXY HTTPS_PROXY NO_PROXY http_proxy https_proxy no_proxy
set +e
$1
SH
	unshare -m -n --propagation private bash "$T/ns.sh"
}

@test "parentProxy and srt's own HTTP_PROXY: a user's way out, counted only where the managed file allows weaker options" {
	local rs="$BATS_TEST_DIRNAME/../helpers/route-servers.py"
	write_settings "$T/u.json" '["a.test"]'
	cat > "$T/up.json" <<JSON
{"network":{"allowedDomains":["a.test"],"deniedDomains":[],
  "parentProxy":{"http":"http://127.0.0.1:3001"}},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
	# Each case: a fresh srt-httpd on the current managed file, one request, and which
	# parent (P1 from the environment, P2 the managed file's) saw it.
	cat > "$T/case.sh" <<SH
for p in 3001:P1 3002:P2; do
	python3 "$rs" parent --listen 127.0.0.1:\${p%%:*} --name \${p#*:} --log "$T/parent.log" &
done
python3 "$rs" origin --listen 127.0.0.1:8080 --name O --log "$T/origin.log" &
for port in 3001 3002 8080; do
	for i in \$(seq 100); do (exec 9<>/dev/tcp/127.0.0.1/\$port) 2>/dev/null && break; sleep 0.1; done
done
one() {
	: > "$T/parent.log"
	HTTP_PROXY=http://127.0.0.1:3001 srt-httpd -s "\$1" -l 127.0.0.1:3129 2>"$T/httpd.err" &
	local pid=\$!
	for i in \$(seq 50); do curl -s -o /dev/null 127.0.0.1:3129 && break; sleep 0.1; done
	curl -s -m 10 -x http://127.0.0.1:3129 http://a.test:8080/x -o /dev/null -w "\$2 %{http_code} "
	echo "[\$(cut -d' ' -f1 "$T/parent.log" | tr '\n' ' ')]"
	kill \$pid; wait \$pid 2>/dev/null
	sed 's/^/  /' "$T/httpd.err"
}
rm -f "$T/srt/managed-settings.json"
one "$T/u.json" none
cat > "$T/srt/managed-settings.json" <<'JSON'
{"network":{"allowedDomains":["a.test"],"deniedDomains":[]},
 "filesystem":{"denyRead":[],"allowWrite":[],"denyWrite":[]}}
JSON
one "$T/u.json" strict
one "$T/up.json" strict-file
sed -i 's/^{/{"allowUserWeakerOptions":true,/' "$T/srt/managed-settings.json"
one "$T/u.json" weaker
sed -i 's/"deniedDomains":\[\]}/"deniedDomains":[],"parentProxy":{"http":"http:\/\/127.0.0.1:3002"}}/' "$T/srt/managed-settings.json"
one "$T/u.json" managed-parent
kill %1 %2 %3
SH
	chmod 644 "$T/srt/managed-settings.json" 2>/dev/null || true
	run in_managed_ns ". $T/case.sh"
	echo "$output"
	# No managed file: the environment's parent (the control).
	[[ "$output" == *"none 200 [P1 ]"* ]]
	# A managed file without allowUserWeakerOptions: HTTP_PROXY is ignored, said so, and
	# the request goes direct (a.test has no address here: 502), never to P1.
	[[ "$output" == *"strict 502 []"* ]]
	[[ "$output" == *"warning: HTTP_PROXY is ignored: the managed policy /etc/srt/managed-settings.json does not set allowUserWeakerOptions"* ]]
	# The same parent in the user's file is refused outright: nothing listens.
	[[ "$output" == *"strict-file 000 []"* ]]
	[[ "$output" == *"$T/up.json: network.parentProxy: not allowed by the managed policy /etc/srt/managed-settings.json"* ]]
	# allowUserWeakerOptions: the environment counts again.
	[[ "$output" == *"weaker 200 [P1 ]"* ]]
	# The managed file's own parent is the one used; the environment is not consulted.
	[[ "$output" == *"managed-parent 200 [P2 ]"* ]]
	[[ "$output" == *"warning: HTTP_PROXY is ignored: the managed policy /etc/srt/managed-settings.json sets network.parentProxy"* ]]
}

@test "the managed policy's warning is shown once for each set of warnings, again when it changes, always with -d" {
	managed '"allowedDomains": ["managed.example"], "deniedDomains": []' \
	    '"allowManagedDomainsOnly": true,'
	write_settings "$T/u.json" '["a.example"]'
	write_settings "$T/v.json" '["b.example"]'
	run in_managed "srt -s $T/u.json -c 'echo one'; srt -s $T/u.json -c 'echo two'; srt-launch -s $T/u.json -c 'echo three'"
	echo "$output"
	# reference 0.0.83: no managed policy warnings at all
	[ "$(grep -c 'is ignored: the managed policy' <<<"$output")" -eq 1 ]
	[[ "$output" == *"srt: warning: $T/u.json: network.allowedDomains[0]: \"a.example\" is ignored"*one*two*three* ]]
	# what was shown is a hash in a small file under XDG_STATE_HOME
	[ "$(wc -l < "$T/state/srt/managed-warned")" -eq 1 ]
	[ "$(stat -c %a "$T/state/srt")" = 700 ]
	# other settings, other warnings: shown, once; the first set is still remembered
	run in_managed "srt -s $T/v.json -c 'echo one'; srt -s $T/v.json -c 'echo two'; srt -s $T/u.json -c 'echo three'"
	echo "$output"
	[ "$(grep -c 'is ignored: the managed policy' <<<"$output")" -eq 1 ]
	[[ "$output" == *"\"b.example\" is ignored"*one*two*three* ]]
	# -d shows them every time
	run in_managed "srt -d -s $T/u.json -c true"
	[[ "$output" == *"\"a.example\" is ignored"* ]]
	# a state directory that cannot be written: shown on every run, the command still runs
	rm -rf "$T/state"
	: > "$T/state"
	run in_managed "srt -s $T/u.json -c 'echo one'; srt -s $T/u.json -c 'echo two'"
	[ "$(grep -c 'is ignored: the managed policy' <<<"$output")" -eq 2 ]
	[[ "$output" == *one*two* ]]
}
