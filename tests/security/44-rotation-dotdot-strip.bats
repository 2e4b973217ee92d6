#!/usr/bin/env bats
# Adversarial review of three changes: the CA key's read-deny watch under an absolute name
# (plan_read_entries), stripResponseHeaders and --strip-response-header folded in one loop
# (proxy_policy_routes), and the count of masked credential copies in the filesystem part
# (cred_files_settle).
#   - tlsTerminate.caKeyPath relative, with ".." after a link, as a link, in a directory:
#     the host rotating the key, re-pointing the link or swapping the directory during the
#     run must leave the new key unreadable, and the run go on (issue #28 item 7: it once
#     ended with 125, after the fact); other spellings, links, hard
#     links, descriptors and renames from inside read nothing; the run's key is in no
#     variable, descriptor, argument or file the command can reach;
#   - a response field either list strips, in any spelling, twice, in an interim answer
#     or a chunked trailer, never reaches the client; a reload keeps the option's names;
#   - several masked files beside denyRead, allowRead and denyWrite: every deny holds,
#     every copy masks, and the filesystem part srt -d reports is the one bwrap gets.
#   - denyRead, denyWrite and credentials.files spelled with ".." after a link must reach
#     the file the kernel opens, not only the one the folded text names.
# Network scenarios run in a namespace of their own (tests/helpers/netns.sh battery,
# unshare -m -n).
load helpers

# A CA pair in $T/keys. new_key FILE: another key standing for a rotation, made by the
# host during the run (a file that the command could read somewhere when the run started
# stays readable wherever the host moves it: srt-launch(1), "The write guard").
make_ca() {
	command -v openssl >/dev/null || skip "openssl missing"
	mkdir -p "$T/keys"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
	    -keyout "$T/keys/ca.key" -out "$T/keys/ca.pem" -days 2 -subj /CN=srt-review9-ca \
	    -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
	    2>/dev/null
	chmod 600 "$T/keys/ca.key"
}

new_key() {
	printf -- '-----BEGIN PRIVATE KEY-----\nNEWKEY-%s\n' "$MARK" >"$1"
}

# $1 caKeyPath as written in the settings, $2 allowWrite (default: none).
tls_settings() {
	sec_settings '["example.com"]' '[]' '[]' "${2:-[]}" '[]' '' \
	    ", \"tlsTerminate\": {\"caCertPath\": \"$T/keys/ca.pem\", \"caKeyPath\": \"$1\"}"
}

# held_start BEFORE AFTER: srt runs BEFORE from $T/work, prints READY, waits (15 s at
# most) for the host's $T/go, then runs AFTER and prints DONE. Returns once READY is
# out: the run has started.
held_start() {
	cat >"$T/held.sh" <<EOF
$1
echo READY
i=0
while [ ! -e "$T/go" ] && [ \$i -lt 1500 ]; do sleep 0.01; i=\$((i + 1)); done
$2
echo DONE
EOF
	# (bats runs this with errexit: the status is caught, not left to end the subshell.)
	(st=0; cd "$T/work" && timeout 30 "$SRT" -s "$T/srt.json" -c ". '$T/held.sh'" \
	    </dev/null >"$T/out" 2>"$T/err" || st=$?; echo "$st" >"$T/st") &
	HELD=$!
	echo "$HELD" >>"$T/pids"
	wait_grep '^READY$' "$T/out" || { cat "$T/err" >&2; return 1; }
}

# held_end: lets the command go on (after the watch had time to act), waits; $ST.
held_end() {
	sleep 0.5
	touch "$T/go"
	wait "$HELD" || true
	sed -i "/^$HELD\$/d" "$T/pids"
	ST=$(cat "$T/st")
	echo "srt status $ST; stdout:" >&2
	cat "$T/out" >&2
	echo "stderr:" >&2
	cat "$T/err" >&2
}

# The run went on to its end, and the command read neither key.
assert_held() {
	[ "$ST" -eq 0 ]
	! grep -q "NEWKEY-$MARK" "$T/out" || return 1
	! grep -q 'PRIVATE KEY' "$T/out" || return 1
	grep -q '^DONE$' "$T/out"
}

READKEY='for f in "$K" "$T/keys/ca.key"; do head -c 200 "$f" 2>/dev/null; done'

@test "caKeyPath relative: the host rotating the key with mv: the new one is not read, the run goes on" {
	need_srt
	make_ca
	tls_settings ../keys/ca.key
	held_start "K=../keys/ca.key; $READKEY" "$READKEY"
	new_key "$T/keys/new.key"
	mv "$T/keys/new.key" "$T/keys/ca.key"
	held_end
	assert_held
}

@test "caKeyPath with .. after a link: the host rotating the key: the new one is not read" {
	need_srt
	make_ca
	mkdir -p "$T/work/sub"
	ln -s "$T/keys" "$T/work/sub/kl"
	tls_settings "$T/work/sub/kl/../keys/ca.key"
	held_start "K=$T/work/sub/kl/../keys/ca.key; $READKEY" "$READKEY"
	new_key "$T/keys/new.key"
	mv "$T/keys/new.key" "$T/keys/ca.key"
	held_end
	assert_held
}

@test "caKeyPath as a link: the host re-pointing it to a new key: not read" {
	need_srt
	make_ca
	ln -s "$T/keys/ca.key" "$T/work/k.lnk"
	tls_settings "$T/work/k.lnk"
	held_start "K=$T/work/k.lnk; $READKEY" "$READKEY"
	new_key "$T/keys/new.key"
	ln -sfn "$T/keys/new.key" "$T/work/k.lnk"
	held_end
	assert_held
}

@test "caKeyPath relative: the host renaming its directory and making another: not read" {
	need_srt
	make_ca
	tls_settings ../keys/ca.key
	held_start "K=../keys/ca.key; $READKEY" "$READKEY"
	mv "$T/keys" "$T/keys.old"
	mkdir "$T/keys"
	new_key "$T/keys/ca.key"
	held_end
	assert_held
}

@test "caKeyPath relative in a write root: other spellings, links, descriptors, renames read nothing" {
	need_srt
	make_ca
	mkdir "$T/work/keys" "$T/work/sub"
	mv "$T/keys/ca.key" "$T/work/keys/ca.key"
	tls_settings keys/ca.key "[\"$T/work\"]"
	in_srt 'K="$T/work/keys/ca.key"
	got() { grep -q "PRIVATE KEY" 2>/dev/null && echo "ESCAPED $1"; }
	for p in keys/ca.key ./keys//ca.key sub/../keys/ca.key "$T/work/./keys/ca.key" \
	    /proc/self/cwd/keys/ca.key /proc/self/root"$K" /proc/1/cwd/keys/ca.key; do
		head -c 100 "$p" 2>/dev/null | got "read $p"
	done
	ln -s "$K" sym && { head -c 100 sym 2>/dev/null | got "read through a link"; }
	ln -s ../keys sub/kl && { head -c 100 sub/kl/ca.key 2>/dev/null | got "read through a directory link"; }
	ln "$K" hard 2>/dev/null && { head -c 100 hard 2>/dev/null | got "read a hard link"; }
	cp "$K" copy 2>/dev/null && { head -c 100 copy | got "copied"; }
	"$PY" "$READOPS" read-at keys ca.key | got "read with openat from a directory descriptor"
	if mv keys moved 2>/dev/null; then
		head -c 100 moved/ca.key 2>/dev/null | got "read after renaming its directory"
		mv moved keys 2>/dev/null
	fi
	mv "$K" stolen 2>/dev/null && { head -c 100 stolen | got "renamed the key"; }
	echo BLOCKED'
	assert_blocked
	grep -q "PRIVATE KEY" "$T/work/keys/ca.key"
}

@test "the run's CA key, the user's or an ephemeral one, is in no variable, argument, descriptor or file inside" {
	need_srt
	make_ca
	# What the command can reach of its own processes and the sandbox's PID 1 (their
	# variables, arguments, files and memfds held open; not pipes, its own output among
	# them), and of the run's TMPDIR, where the trust bundle is written.
	# (The pattern is put together at run time: the script is in the shell's own arguments.)
	local probe='k="PRIVATE"; k="$k KEY"
	for p in /proc/[0-9]*; do
		cat "$p/environ" "$p/cmdline" 2>/dev/null | grep -aq "$k" && echo "ESCAPED key in $p"
		for f in "$p"/fd/*; do
			[ -f "$f" ] || continue
			timeout 1 head -c 1000000 "$f" 2>/dev/null | grep -aq "$k" && echo "ESCAPED key in $f"
		done
	done
	grep -raq "$k" "$TMPDIR" 2>/dev/null && echo "ESCAPED key in TMPDIR"
	[ -s "$SSL_CERT_FILE" ] || echo "ESCAPED no trust bundle: the run is not terminating TLS"
	echo BLOCKED'
	tls_settings "$T/keys/ca.key"
	in_srt "$probe"
	assert_blocked
	sec_settings '["example.com"]' '[]' '[]' '[]' '[]' '' ', "tlsTerminate": {}'
	in_srt "$probe"
	assert_blocked
}

# --- stripResponseHeaders ---------------------------------------------------------------

# Fails naming any STRIP-* or LONG-* value in $output; KEEP-1 and KEEP-2 must be there
# ($1 times).
strip_check() {
	echo "output:" >&2
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
	! grep -a 'STRIP-\|LONG-' <<<"$output" || return 1
	[ "$(grep -c 'X-Other: KEEP-1' <<<"$output")" -eq "$1" ]
	[ "$(grep -c 'X-Cli-Secrets: KEEP-2' <<<"$output")" -eq "$1" ]
	[ "$(grep -c 'UPSTREAM-o' <<<"$output")" -eq "$1" ]
}

@test "stripResponseHeaders with --strip-response-header: no spelling of either list's names reaches the client" {
	need_srt
	command -v curl >/dev/null || skip "curl missing"
	cat >"$T/s.json" <<'JSON'
{"network": {"allowedDomains": ["127.0.0.1"], "deniedDomains": [],
  "stripResponseHeaders": ["set-cookie", "X-BOTH", "x.policy-only", "Set-Cookie"]},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
	# upstream.py's field of 302 bytes, X-LLL...: a name longer than srt-httpd's buffer.
	cat >"$T/scenario" <<'SCN'
upstream http 127.0.0.1 8080 o
L=x-$(printf 'l%.0s' $(seq 300))
"$(dirname "$SRT")/srt-httpd" -s "$T/s.json" -l 127.0.0.1:3129 --log "$T/decisions.log" \
    --strip-response-header X-CLI_SECRET --strip-response-header x-both \
    --strip-response-header "$L" 2>"$T/httpd.err" &
pids+=($!)
for i in $(seq 100); do (exec 9<>/dev/tcp/127.0.0.1/3129) 2>/dev/null && break; sleep 0.05; done
C="curl -sS -m 10 -x http://127.0.0.1:3129 -D - http://127.0.0.1:8080/resp-strip"
$C; echo
$C --http1.0; echo
# A reload: the option's names stay, the new policy's come, the old policy's go.
sed -i 's/"set-cookie", "X-BOTH", "x.policy-only", "Set-Cookie"/"x-other", "x_policy_only"/' "$T/s.json"
kill -HUP "${pids[-1]}"
for i in $(seq 100); do grep -q 'policy reloaded' "$T/httpd.err" && break; sleep 0.05; done
echo RELOADED
$C | tr -d '\r' | sed 's/=STRIP-\([123]\)$/=PASSED-\1/'; echo
SCN
	in_netns "$T/scenario"
	cat "$T/httpd.err" >&2
	grep -q 'policy reloaded' "$T/httpd.err"
	before=$(sed '/^RELOADED$/,$d' <<<"$output")
	after=$(sed '1,/^RELOADED$/d' <<<"$output")
	output=$before
	strip_check 2
	# After it: the old policy's Set-Cookie goes through (three, in the head only), the
	# new policy's X-Other and X-Policy_Only are stripped, the option's names still are.
	[ "$(grep -ci '^set-cookie: [abc]=PASSED-[123]$' <<<"$after")" -eq 3 ]
	! grep -a 'STRIP-\|KEEP-1\|LONG-' <<<"$after" || return 1
	grep -q 'X-Cli-Secrets: KEEP-2' <<<"$after"
	grep -q 'UPSTREAM-o' <<<"$after"
}

@test "stripResponseHeaders under srt: the sandboxed client sees none of the fields" {
	need_srt
	command -v curl >/dev/null || skip "curl missing"
	local L
	L=X-$(printf 'L%.0s' $(seq 300))
	sec_settings '["127.0.0.1"]' '[]' '[]' '[]' '[]' '' \
	    ", \"stripResponseHeaders\": [\"SET_COOKIE\", \"x-cli-secret\", \"X-Both\", \"x-policy-only\", \"x-both\", \"$L\"]"
	cat >"$T/scenario" <<'SCN'
upstream http 127.0.0.1 8080 o
sandbox "curl -sS -m 10 --noproxy '' -D - http://127.0.0.1:8080/resp-strip; echo;
    curl -sS -m 10 --noproxy '' --http1.0 -D - http://127.0.0.1:8080/resp-strip"
SCN
	in_netns "$T/scenario"
	strip_check 2
}

# --- masked credential files beside the read and write denies -----------------------------

@test "masked files beside denyRead, allowRead, denyWrite: every deny holds, every copy masks" {
	need_srt
	local F=FILESECRET-$MARK f
	mkdir -p "$T/sec" "$T/carve/in" "$T/dw" "$T/work/wsub"
	for f in n1 n2 n3; do
		printf 'machine x login u password %s-%s\n' "$F" "$f" >"$T/$f"
	done
	printf 'password %s-n4\n' "$F" >"$T/sec/n4"
	printf 'plain %s-sec\n' "$F" >"$T/sec/other"
	printf 'password %s-n5\n' "$F" >"$T/carve/in/n5"
	printf 'plain %s-carve\n' "$F" >"$T/carve/hidden"
	printf 'password %s-dr1\n' "$F" >"$T/dr1"
	printf 'plain %s-dr2\n' "$F" >"$T/dr2"
	printf 'password %s-n6\n' "$F" >"$T/work/wsub/n6"
	printf 'password %s-n7\n' "$F" >"$T/dw/n7"
	echo dw >"$T/dw/f"
	cat >"$T/srt.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:9"], "deniedDomains": []},
 "filesystem": {"denyRead": ["$T/sec", "$T/dr1", "$T/dr2", "$T/carve"],
  "allowRead": ["$T/carve/in"], "allowWrite": ["$T/work", "$T/dw"],
  "denyWrite": ["$T/dw/f", "$T/work/wsub", "$T/dw/n7"]},
 "credentials": {"allowPlaintextInject": true, "files": [
  {"path": "$T/n1", "mode": "mask", "extract": "password\\\\s+(\\\\S+)"},
  {"path": "$T/sec/n4", "mode": "mask"}, {"path": "$T/n2", "mode": "mask"},
  {"path": "$T/dr1", "mode": "mask"}, {"path": "$T/carve/in/n5", "mode": "mask"},
  {"path": "$T/n3", "mode": "mask", "extract": "password\\\\s+(\\\\S+)"},
  {"path": "$T/work/wsub/n6", "mode": "mask"}, {"path": "$T/dw/n7", "mode": "mask"}]}}
JSON
	run timeout 60 unshare -n -- bash -c 'ip link set lo up && cd "$T/work" &&
	    exec "$SRT" -d -s "$T/srt.json" -c "$1" </dev/null 2>"$T/debug"' _ '
	for f in n1 n2 n3 work/wsub/n6 dw/n7 carve/in/n5; do
		grep -q fake_value_ "$T/$f" || echo "ESCAPED $f is not masked"
	done
	for f in sec/n4 sec/other dr1 dr2 carve/hidden; do
		[ -s "$T/$f" ] 2>/dev/null && echo "ESCAPED $f is readable"
	done
	cat "$T/n1" "$T/n2" "$T/n3" "$T/sec/n4" "$T/sec/other" "$T/dr1" "$T/dr2" \
	    "$T/carve/in/n5" "$T/carve/hidden" "$T/work/wsub/n6" "$T/dw/n7" 2>/dev/null |
	    grep FILESECRET | sed "s/^/ESCAPED /"
	for f in dw/f work/wsub/new dw/n7 n1 carve/in/n5; do
		echo x 2>/dev/null >>"$T/$f" && echo "ESCAPED $f written"
	done
	echo ok >"$T/work/written" || echo "ESCAPED nothing writable: the test is broken"
	ls /proc/self/fd/ -l | grep -c credmask | sed "s/^/copies-held /"
	echo BLOCKED'
	cat "$T/debug" >&2
	assert_blocked
	grep -qx 'copies-held 0' <<<"$output"
	[ "$(cat "$T/work/written")" = ok ]
	grep -q "password $F-n1\$" "$T/n1"
	# The filesystem part srt -d counts is what lies between the head and the tail of
	# the bwrap arguments it prints, the copies' options included.
	parts=$("$PY" "$SRT_TESTDIR/helpers/debug-log.py" fs-part "$(cat "$T/debug")")
	read -r n len binds <<<"$parts"
	[ "$n" -eq "$len" ]
	# Six in the filesystem part: the copies of dr1 (a denied file) and of sec/n4 (in a
	# denied directory with nothing brought back) go to the sink in the tail, those masks
	# being srt-seccomp's, mounted after bwrap's.
	[ "$binds" -eq 6 ]
}

# --- a deny spelled with ".." after a link ---------------------------------------------

# $T/work/sub/kl -> $T/real: "sub/kl/../real/f" is $T/real/f to the kernel (the link is
# followed before the ".."), $T/work/sub/real/f to the text. The reference folds the text
# (its denyRead then fails to start bwrap, its denyWrite misses the file); srt denied
# only the folded name, which does not exist, and the file a reader opens stayed open.
dotdot_tree() {
	mkdir -p "$T/work/sub" "$T/real"
	ln -s "$T/real" "$T/work/sub/kl"
	echo "read-$SECRET" >"$T/real/r"
	echo "home-$SECRET" >"$T/real/h"
	echo keep >"$T/real/w"
	printf 'machine x login u password mask-%s\n' "$SECRET" >"$T/real/netrc"
	echo "cred-$SECRET" >"$T/real/c"
	mkdir -p "$T/home/sub"
	ln -s "$T/real" "$T/home/sub/kl"
}

@test "denyRead and denyWrite spelled with .. after a link deny the file the kernel opens" {
	need_srt
	dotdot_tree
	sec_settings '[]' '[]' "[\"sub/kl/../real/r\", \"~/sub/kl/../real/h\"]" "[\"$T\"]" \
	    "[\"$T/work/sub/kl/../real/w\"]"
	HOME=$T/home in_srt 'for f in sub/kl/../real/r "$T/real/r" "$HOME/sub/kl/../real/h" "$T/real/h"; do
		cat "$f" 2>/dev/null | grep -q SRT-SECRET && echo "ESCAPED read $f"
	done
	echo x 2>/dev/null >>sub/kl/../real/w && echo "ESCAPED wrote through the spelling"
	echo x 2>/dev/null >>"$T/real/w" && echo "ESCAPED wrote $T/real/w"
	echo BLOCKED'
	assert_blocked
	[ "$(cat "$T/real/w")" = keep ]
}

@test "credentials.files spelled with .. after a link: the mask and the deny reach the file the kernel opens" {
	need_srt
	dotdot_tree
	cat >"$T/srt.json" <<JSON
{"network": {"allowedDomains": ["127.0.0.1:9"], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []},
 "credentials": {"allowPlaintextInject": true, "files": [
  {"path": "$T/work/sub/kl/../real/netrc", "mode": "mask"},
  {"path": "sub/kl/../real/c", "mode": "deny"}]}}
JSON
	run timeout 60 unshare -n -- bash -c 'ip link set lo up && cd "$T/work" &&
	    exec "$SRT" -s "$T/srt.json" -c "$1" </dev/null' _ '
	for f in sub/kl/../real/netrc "$T/real/netrc" sub/kl/../real/c "$T/real/c"; do
		cat "$f" 2>/dev/null | grep -q SRT-SECRET && echo "ESCAPED read $f"
	done
	grep -q fake_value_ "$T/real/netrc" || echo "ESCAPED no mask over the file"
	echo BLOCKED'
	assert_blocked
}
