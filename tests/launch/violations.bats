#!/usr/bin/env bats
# The sandbox's own violations (issue #13): srt-seccomp's monitor reports what the
# sandbox refused by itself (a write the write guard or a read-only mount refused, a
# listing of a denied directory, a direct connection), srt-launch gathers the records
# into --violations FILE and srt's <sandbox_violations> block, with the proxies' denials.

bats_require_minimum_version 1.5.0
load ../helpers

RO="$BATS_TEST_DIRNAME/../helpers/refused-ops.py"

setup() {
	srt_setup
	mkdir -p "$T/ws/sub" "$T/out" "$T/home" "$T/tmp"
	export HOME="$T/home" TMPDIR="$T/tmp" GIT_CONFIG_NOSYSTEM=1
	settings "$T/ws/s.json"
}

teardown() { srt_teardown; }

# settings FILE [EXTRA]: ws writable, ws/deny denied for writes, home/secret for reads.
settings() {
	cat >"$1" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/home/secret"],"allowWrite":["$T/ws"],
  "denyWrite":["$T/ws/deny"]}${2:+,$2}}
JSON
}

# The records of kind $2 in the violations file $1, one per line as "OP PATH (REASON)".
records() {
	python3 "$JSONL" print "$1" '%(operation)s %(path)s (%(reason)s)' kind="$2"
}

@test "each refused call of each kind, under each rule, is reported once with its path and rule" {
	mkdir -p "$T/ws/deny" "$T/home/secret"
	: >"$T/ws/deny/f"
	: >"$T/ws/.bashrc"
	: >"$T/out/f"
	git init -q "$T/ws/repo"
	: >"$T/ws/repo/.git/hooks/post-commit"
	# RULE, an existing protected path, a missing one, the reason
	cat >"$T/cases" <<EOF
$T/ws/deny/f	$T/ws/deny/new	denyWrite $T/ws/deny
$T/ws/.bashrc	$T/ws/.zshrc	mandatory deny: shell start-up file; no setting lifts it: change it outside srt
$T/ws/repo/.git/hooks/post-commit	$T/ws/repo/.git/hooks/pre-commit	mandatory deny: git hooks; no setting lifts it: change it outside srt
$T/ws/s.json	$T/home/.srt-settings.json	settings file; no setting lifts it: change it outside srt
$T/out/f	$T/out/new	not in allowWrite
EOF
	cd "$T/ws"
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -- python3 "$RO" writes "$T/cases"
	[[ "$output" != *ALLOWED* ]]
	records "$T/v.jsonl" file-write | sort >"$T/got"
	while IFS=$'\t' read -r p n why; do
		d=${p%/*}
		link=$p
		# A read-only mount refuses the new name of a link; the guard, the old one.
		[ "$why" = "not in allowWrite" ] && link=$d/linked
		# utimes fails there too (ALLOWED above), but the kernel refuses a time
		# (EROFS): times never reach the supervisor, which reports (filter.c).
		for op in open truncate rename unlink chmod chown; do
			echo "$op $p ($why)"
		done
		echo "link $link ($why)"
		for op in open mkdir mknod symlink; do
			echo "$op $n ($why)"
		done
	done <"$T/cases" | sort >"$T/want"
	diff "$T/want" "$T/got"
	# Every record carries its line, and the command.
	python3 "$JSONL" print "$T/v.jsonl" '%(kind)s: %(violation)s' >"$T/lines"
	python3 "$JSONL" print "$T/v.jsonl" 'file-write: deny file-write %(path)s (%(reason)s)' |
	    diff - "$T/lines"
	python3 "$JSONL" print "$T/v.jsonl" '%(command)s' >"$T/commands"
	while IFS= read -r cmd; do
		[[ "$cmd" == "python3 $RO writes "* ]]
	done <"$T/commands"
}

@test "allowed writes are not reported, and srt prints no block" {
	cd "$T/ws"
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c 'mkdir -p a/b && echo x > a/b/f && mv a/b c && ln c/f c/g && ln -s f c/h && chmod 600 c/f && touch c/f && rm -r a c && git init -q fresh && git -C fresh commit -q --allow-empty -m x -c user.name=a -c user.email=a@a 2>/dev/null; mkfifo p && rm p; echo >/dev/null; echo done'
	[ "$output" = done ]
	[ -z "$stderr" ]
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -c 'touch ok; rm ok'
	[ ! -s "$T/v.jsonl" ]
	# Failures that are not the policy's (ENOENT, EEXIST, ENOTEMPTY, ENOTDIR) neither.
	mkdir -p "$T/ws/full"
	: >"$T/ws/full/f"
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v2.jsonl" -c 'mkdir no/such/dir; : > no/such/f; mkdir full; rmdir full; mv no/x y; touch full/f/g; ln -s x full/f; echo ran' 
	[[ "$output" == *"No such file"* && "$output" == *"File exists"* && "$output" == *"ran" ]]
	[ ! -s "$T/v2.jsonl" ]
	# ... while the same run with a refused write in it reports that one alone
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v2.jsonl" -c 'mkdir no/such/dir; mkdir full; touch deny 2>/dev/null; true'
	run -0 records "$T/v2.jsonl" file-write
	[ "$output" = "open $T/ws/deny (denyWrite $T/ws/deny)" ]
}

@test "relative paths, .., descriptors and links are reported by the absolute path reached" {
	mkdir -p "$T/ws/sub/deeper"
	: >"$T/ws/.bashrc"
	ln -s "$T/out" "$T/ws/tothere"
	ln -s ../.bashrc "$T/ws/sub/rc"
	cd "$T/ws/sub"
	: >"$T/out/x"
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -- python3 "$RO" relative
	run -0 records "$T/v.jsonl" file-write
	[ "$output" = "open $T/ws/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)
mkdir $T/ws/deny (denyWrite $T/ws/deny)
open $T/ws/.profile (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)
unlink $T/out/x (not in allowWrite)
truncate $T/ws/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)" ]
}

@test "srt's block holds the sandbox's lines with the proxies', sanitised; ignoreViolations filters them" {
	cd "$T/ws"
	: >.bashrc
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c "touch .bashrc; touch \$(printf '$T/out/a\\033[31mb\\342\\200\\256c'); curl -s -m 5 -x http://localhost:3128 http://denied.example/ >/dev/null; true"
	[[ "$stderr" == *"<sandbox_violations>
deny file-write $T/ws/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)
deny file-write $T/out/a [31mb c (not in allowWrite)
deny network-outbound denied.example:80 (host is not on the allow list)
</sandbox_violations>"* ]]
	settings "$T/ws/s.json" '"ignoreViolations":{"*":[".bashrc"],"touch":["/out/"]}'
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c "touch .bashrc; touch $T/out/z; mkdir deny; true"
	[[ "$stderr" != *"deny file-write $T/ws/.bashrc"* ]]
	[[ "$stderr" != *"deny file-write $T/out/z"* ]]
	[[ "$stderr" == *"deny file-write $T/ws/deny (denyWrite $T/ws/deny)"* ]]
	# the command-specific key matches the command only
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c "python3 '$RO' create '$T/out/z' 2>/dev/null; true"
	[[ "$stderr" == *"deny file-write $T/out/z (not in allowWrite)"* ]]
}

@test "a denied directory listed is reported as a read; its file read is not (a /dev/null mask)" {
	mkdir -p "$T/home/secret"
	echo hidden >"$T/home/secret/key"
	cd "$T/ws"
	run -0 srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -c "ls $T/home/secret; ls $T/home/secret; cat $T/home/secret/key 2>/dev/null; true"
	[[ "$output" != *hidden* ]]
	run -0 records "$T/v.jsonl" file-read
	[ "$output" = "open $T/home/secret (denyRead $T/home/secret)" ]
}

@test "100,000 refused writes: at most 1,000 lines, then the count left out; the command keeps its pace" {
	cd "$T/ws"
	loop=(python3 "$RO" flood /usr/srt-test 100000 --time)
	# srt-launch stopped for most of the run: the monitor's pipe holds a whole run's
	# lines, so none is dropped however slow it reads, and the command never waits.
	srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -- "${loop[@]}" --started started >"$T/with" &
	pid=$!
	for i in $(seq 300); do [ -e started ] && break; sleep 0.1; done
	kill -STOP "$pid"
	sleep 6
	kill -CONT "$pid"
	wait "$pid"
	with=$(cat "$T/with")
	[ "$(wc -l <"$T/v.jsonl")" -eq 1001 ]
	[ "$(grep -c '"kind":"file-write"' "$T/v.jsonl")" -eq 1000 ]
	tail -1 "$T/v.jsonl" >"$T/last"
	[ "$(python3 "$JSONL" print "$T/last" '%(kind)s %(count)s')" = "left-out 99000" ]
	[[ "$(python3 "$JSONL" print "$T/last" '%(violation)s')" == "(99000 more violations left out"* ]]
	run -0 srt-launch --no-fs-violations -s "$T/ws/s.json" -- "${loop[@]}"
	without=$output
	echo "# 100,000 refused opens: ${with}s with the monitor, ${without}s without" >&3
	# Bounded: the supervisor answers each call anyway; reporting adds a hash lookup.
	awk -v w="$with" -v o="$without" 'BEGIN { exit !(w < 60 && w < 3 * o + 1) }'
	# srt's block: the latest lines and the count
	run -0 --separate-stderr srt -s "$T/ws/s.json" -- "${loop[@]}"
	[[ "$stderr" == *"(900 earlier violations not shown)"*"deny file-write /usr/srt-test-999 (not in allowWrite)
(99000 more violations left out: at most 1000 are reported a run)
</sandbox_violations>"* ]]
}

@test "--no-fs-violations and noFsViolations turn the monitor off; the proxies' denials stay" {
	cd "$T/ws"
	: >.bashrc
	run -0 --separate-stderr srt --no-fs-violations -s "$T/ws/s.json" -c 'touch .bashrc; curl -s -m 5 -x http://localhost:3128 http://denied.example/ >/dev/null; true'
	[[ "$stderr" != *"file-write"* ]]
	[[ "$stderr" == *"deny network-outbound denied.example:80"* ]]
	run -0 srt-launch -d --no-fs-violations -s "$T/ws/s.json" -c true
	[[ "$output" == *"debug: bwrap arguments"* ]]
	[[ "$output" != *"--violations-fd"* ]]
	settings "$T/ws/s.json" '"noFsViolations":true'
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c 'touch .bashrc 2>/dev/null; true'
	[ -z "$stderr" ]
	run -0 srt-policy compile -s "$T/ws/s.json" -o "$T/p.bin"
	run -0 srt-policy dump -p "$T/p.bin"
	[[ "$output" == *'"noFsViolations": true'* ]]
	run -0 srt-launch -p "$T/p.bin" --violations "$T/v.jsonl" -c 'touch .bashrc; true'
	[[ "$output" == *"Operation not permitted"* ]]
	[ ! -s "$T/v.jsonl" ]
}

@test "a direct connection is reported and still fails (in a network namespace of its own)" {
	unshare -n true 2>/dev/null || skip "cannot make a network namespace here"
	cat >"$T/inner.sh" <<EOF
set -e
ip link set lo up
cd "$T/ws"
srt-launch -s "$T/ws/s.json" --violations "$T/v.jsonl" -- python3 "$RO" connect
EOF
	run -0 timeout 60 unshare -n -- bash "$T/inner.sh"
	[[ "$output" != *CONNECTED* && "$output" != *SENT* ]]
	[ "$(grep -c '^refused 101$' <<<"$output")" -eq 3 ]
	[[ "$output" == *"loopback ok"* ]]
	why="direct connection; only the proxies at localhost:3128 and :1080 are reachable"
	python3 "$JSONL" print "$T/v.jsonl" '%(operation)s %(protocol)s %(address)s %(port)s %(violation)s' |
	    sort >"$T/got"
	sort >"$T/want" <<EOF
connect tcp 192.0.2.1 80 deny network-outbound 192.0.2.1:80 ($why)
connect tcp 2001:db8::1 443 deny network-outbound [2001:db8::1]:443 ($why)
sendto udp 198.51.100.7 53 deny network-outbound 198.51.100.7:53 ($why)
EOF
	diff "$T/want" "$T/got"
}

@test "srt-seccomp alone: the monitor writes the same records to a descriptor" {
	mkdir -p "$T/w"
	run -0 bwrap --ro-bind / / --bind "$T/w" "$T/w" --dev /dev --proc /proc \
	    --unshare-pid --unshare-user --unshare-net --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP -- \
	    "$SRT_BIN/srt-seccomp" --violations-fd 3 -- sh -c "touch $T/w/ok; touch $T/out/no; mkdir $T/out/no2; mkdir $T/w/.git; true" \
	    3>"$T/v.jsonl"
	[ -e "$T/w/ok" ] && [ -d "$T/w/.git" ]
	run -0 records "$T/v.jsonl" file-write
	[ "$output" = "open $T/out/no (read-only file system)
mkdir $T/out/no2 (read-only file system)" ]
	# A descriptor not open for writing is refused before anything runs.
	run -125 "$SRT_BIN/srt-seccomp" --violations-fd 3 -- true 3<"$T/v.jsonl"
	[[ "$output" == *"--violations-fd 3: not open for writing"* ]]
}

@test "srt-seccomp alone, its reader asleep: a full pipe drops records, never the command's pace" {
	# A pipe nobody reads while 20,000 refused writes run: PID 1 must not wait on it.
	run -0 timeout 120 python3 "$RO" full-pipe "$SRT_BIN/srt-seccomp" 20000
	echo "# $output" >&3
}

@test "under a managed policy: its ignoreViolations joins the user's, its noFsViolations turns reports off" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a mount namespace of its own"
	command -v unshare >/dev/null || skip "unshare missing"
	mkdir -p "$T/srt" "$T/upper" "$T/work"
	chmod 755 "$T/upper" "$T/srt"
	# The managed directory at /etc/srt, in a mount namespace of the test's own; the
	# host's /etc is never written (an overlay, its writes in $T/upper).
	in_managed() {
		cat >"$T/managed-settings.json.tmp" <<JSON
{ $1 "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": [], "allowWrite": [], "denyWrite": [] } }
JSON
		mv "$T/managed-settings.json.tmp" "$T/srt/managed-settings.json"
		chmod 644 "$T/srt/managed-settings.json"
		cat >"$T/ns.sh" <<SH
set -e
mount -t overlay srt-test -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc
mkdir -p /etc/srt
mount --bind $T/srt /etc/srt
set +e
cd $T/ws
srt -s $T/ws/s.json -c 'touch .bashrc $T/out/m $T/out/u 2>/dev/null; true'
SH
		unshare -m --propagation private bash "$T/ns.sh"
	}
	settings "$T/ws/s.json" '"ignoreViolations":{"*":["/out/u"]}'
	run -0 --separate-stderr in_managed '"ignoreViolations": {"*": ["/out/m"]},'
	[[ "$stderr" == *"deny file-write $T/ws/.bashrc (mandatory deny: shell start-up file; no setting lifts it: change it outside srt)"* ]]
	[[ "$stderr" != *"$T/out/m"* ]]
	[[ "$stderr" != *"$T/out/u"* ]]
	run -0 --separate-stderr in_managed '"noFsViolations": true,'
	[[ "$stderr" != *"file-write"* ]]
	# the user's false does not turn them back on (either file may turn them off)
	settings "$T/ws/s.json" '"noFsViolations":false'
	run -0 --separate-stderr in_managed '"noFsViolations": true,'
	[[ "$stderr" != *"file-write"* ]]
	[ ! -e "$T/out/m" ] && [ ! -e "$T/out/u" ]
}

@test "an allowWrite entry missing at the start: warned once, and its refusals name it, not 'not in allowWrite'" {
	mkdir -p "$T/ws/logs"
	: >"$T/ws/logs/old.log"
	cd "$T/ws"
	cat >"$T/ws/s.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/home/secret"],"allowWrite":["~/.npm","logs/*.log","gone/*.txt"],
  "denyWrite":["$T/ws/deny"]}}
JSON
	# reference 0.0.83: the same refusals, and nothing said about why
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c 'mkdir -p ~/.npm/_cacache 2>/dev/null; echo b > logs/new.log 2>/dev/null; echo a >> logs/old.log; touch other 2>/dev/null; echo ran'
	[ "$output" = ran ]
	# one warning per entry that names nothing, before the command, in the settings' words
	[ "$(grep -c 'warning: filesystem.allowWrite' <<<"$stderr")" -eq 2 ]
	[[ "$stderr" == *'srt: warning: filesystem.allowWrite[0]: "~/.npm" does not exist: it stays read-only for this run (create it before the run)'* ]]
	[[ "$stderr" == *'srt: warning: filesystem.allowWrite[2]: "gone/*.txt" matches nothing'* ]]
	[[ "$stderr" == *"deny file-write $T/home/.npm (allowWrite ~/.npm did not exist when the run started)"* ]]
	[[ "$stderr" == *"deny file-write $T/ws/logs/new.log (allowWrite logs/*.log matches only what existed when the run started)"* ]]
	[[ "$stderr" == *"deny file-write $T/ws/other (not in allowWrite)"* ]]
	[ "$(cat "$T/ws/logs/old.log")" = a ]
	# made before the run, the entry is writable and nothing is said
	mkdir "$T/home/.npm"
	run -0 --separate-stderr srt -s "$T/ws/s.json" -c 'mkdir -p ~/.npm/_cacache && echo ran'
	[ "$output" = ran ]
	[[ "$stderr" != *'"~/.npm"'* ]]
	[[ "$stderr" != *sandbox_violations* ]]
}
