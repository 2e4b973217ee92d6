#!/usr/bin/env bats
# srt as an unprivileged user (a user created for this suite and removed after it): the
# keeper then creates a user namespace together with the network namespace, and bwrap
# nests its own in it (SPEC §5.2).
load ../helpers
bats_require_minimum_version 1.5.0

# Succeeds when the command fails ("! cmd" does not fail a bats test by itself).
not() {
	! "$@"
}

setup_file() {
	[ "$(id -u)" -eq 0 ] || skip "needs root to create the test user"
	command -v useradd >/dev/null && command -v setpriv >/dev/null ||
	    skip "needs useradd and setpriv"
	export SRT_TUSER="srtt$$${RANDOM}"
	useradd -M -N -d /nonexistent -s /bin/sh "$SRT_TUSER"
	export UT=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-unpriv.XXXXXX")
	chmod 755 "$UT"
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
	[ -n "${UT:-}" ] && [ -f "$UT/www.pid" ] && kill "$(cat "$UT/www.pid")" 2>/dev/null
	[ -n "${SRT_TUSER:-}" ] && pkill -KILL -u "$SRT_TUSER" 2>/dev/null
	[ -n "${SRT_TUSER:-}" ] && userdel "$SRT_TUSER" 2>/dev/null
	[ -n "${UT:-}" ] && rm -rf "$UT"
	return 0
}

setup() {
	srt_setup
	mkdir -p "$T/ws" "$T/tmp" "$T/home"
	write_settings "$T/s.json"
	chown -R "$SRT_TUSER" "$T"
	chmod 755 "$T"
	cd "$T/ws"
}

teardown() {
	cd /
	srt_teardown
}

# Run as the test user, with its own HOME and TMPDIR in the test's tree. The exec makes a
# background "asuser ... &" the srt process itself (setpriv and env exec too), so that a
# signal sent to $! reaches srt.
asuser() {
	exec setpriv --reuid="$SRT_TUSER" --regid=nogroup --clear-groups -- \
	    env HOME="$T/home" TMPDIR="$T/tmp" PATH="$SRT_BIN:/usr/local/bin:/usr/bin:/bin" "$@"
}

# "run" calls its command in the same shell: give asuser's exec a subshell of its own.
bgrun() {
	("$@")
}

@test "unprivileged: the command runs as the user, statuses pass through" {
	uid=$(id -u "$SRT_TUSER")
	run bgrun asuser srt -s "$T/s.json" -c 'id -u; exit 9'
	[ "$status" -eq 9 ]
	[ "$output" = "$uid" ]
	run bgrun asuser srt -s "$T/s.json" -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run -127 bgrun asuser srt -s "$T/s.json" -- /nonexistent
	run bgrun asuser srt -s "$T/missing.json" -c true
	[ "$status" -eq 125 ]
}

@test "unprivileged: srt-seccomp nests a user namespace of its own, with the limit at 0" {
	# Not --pid1 (that is for root): the nested user namespace is where
	# user.max_user_namespaces can be set to 0.
	run -0 bgrun asuser srt -d -s "$T/s.json" -c 'cat /proc/sys/user/max_user_namespaces'
	[[ "$output" != *"--pid1"* ]]
	[[ "$output" == *"own user namespace: yes"* ]]
	printf "%s\n" "$output" | grep -qx 0
}

@test "unprivileged: srt-policy plan --target linux is what srt passes to bwrap" {
	# bwrap-record stands in for bwrap (tests/launch/plan.bats): no capabilities
	# added, and srt-seccomp is not told it is PID 1.
	cat > "$T/r.json" <<JSON
{"bwrapPath":"$SRT_TESTBIN/bwrap-record","network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["~/.ssh"],"allowWrite":["."],"denyWrite":["$T/ws/ro"]}}
JSON
	mkdir -p "$T/ws/ro" "$T/home/.ssh"
	(asuser srt -s "$T/r.json" /bin/true the-command) >"$T/rec" 2>"$T/err" || true
	grep -q "bwrap exited with status 0" "$T/err"
	tmp=$(tr '\0' '\n' <"$T/rec" | grep -m1 -x "$(realpath "$T/tmp")/srt\.[A-Za-z0-9]*")
	mkdir "$tmp"
	{ (asuser srt-policy plan --target linux -s "$T/r.json" --tmpdir "$tmp"); \
	    printf '%s\0' /bin/true the-command; } >"$T/want"
	rmdir "$tmp"
	cmp "$T/want" "$T/rec"
	tr '\0' '\n' <"$T/rec" >"$T/words"
	grep -qx -- --unshare-user "$T/words"
	not grep -qx -- --cap-add "$T/words"
	not grep -qx -- --pid1 "$T/words"
}

@test "unprivileged: writes where allowed, refused elsewhere, mandatory denies hold" {
	cat > "$T/w.json" <<JSON
{"network":{"allowedDomains":[],"deniedDomains":[]},
 "filesystem":{"denyRead":["$T/ws/secret"],"allowWrite":["$T/ws"],"denyWrite":["$T/ws/ro"]}}
JSON
	mkdir -p "$T/ws/secret" "$T/ws/ro"
	echo s > "$T/ws/secret/k"
	echo rc > "$T/ws/.bashrc"
	chown -R "$SRT_TUSER" "$T/ws"
	run bgrun asuser srt -s "$T/w.json" -c 'echo x > new && echo new-ok; echo x >> .bashrc || echo rc-refused; echo x > ro/f || echo ro-refused; cat secret/k || echo secret-refused; echo x > "$HOME/h" || echo home-refused'
	[[ "$output" == *new-ok* ]]
	[[ "$output" == *rc-refused* ]]
	[[ "$output" == *ro-refused* ]]
	[[ "$output" == *secret-refused* ]]
	[[ "$output" == *home-refused* ]]
	[ "$(cat "$T/ws/.bashrc")" = rc ]
	[ ! -e "$T/home/h" ]
}

@test "unprivileged: the proxies reach an allowed upstream, others are refused, direct fails" {
	write_settings "$T/n.json" "[\"127.0.0.1:$UPORT\"]"
	run bgrun asuser srt -s "$T/n.json" -c "NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/; NO_PROXY= no_proxy= curl -sS -m 10 -x socks5h://localhost:1080 http://127.0.0.1:$UPORT/"
	[ "$status" -eq 0 ]
	[ "$output" = "hello-upstream
hello-upstream" ]
	run bgrun asuser srt -s "$T/s.json" -c "NO_PROXY= no_proxy= curl -sS -m 10 http://127.0.0.1:$UPORT/"
	[[ "$output" == *"Connection blocked by network allowlist"* ]]
	[[ "$output" == *"<sandbox_violations>"* ]]
	run bgrun asuser srt -s "$T/n.json" -c "curl -sS -m 5 --noproxy '*' http://127.0.0.1:$UPORT/"
	[ "$status" -ne 0 ]
	[[ "$output" != *hello-upstream* ]]
}

@test "unprivileged: a signal before the sandbox is up ends the run: 128+N, nothing left" {
	for sig in TERM INT HUP QUIT; do
		signal_before_sandbox "$sig" setpriv --reuid="$SRT_TUSER" --regid=nogroup \
		    --clear-groups -- env HOME="$T/home" TMPDIR="$T/tmp" \
		    PATH="$SRT_BIN:/usr/local/bin:/usr/bin:/bin" srt -s "$T/s.json"
	done
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "unprivileged: only 0, 1 and 2 reach the command; TMPDIR is private and removed" {
	run bgrun asuser srt -s "$T/s.json" -- ls /proc/self/fd
	[ "$(echo "$output" | tr '\n' ' ')" = "0 1 2 3 " ]
	run bgrun asuser srt -s "$T/s.json" -c 'echo x > "$TMPDIR/f" && echo "$TMPDIR"'
	[[ "$output" == "$T/tmp/srt."* ]]
	[ -z "$(ls -A "$T/tmp")" ]
}

@test "unprivileged: signals are forwarded; a killed srt takes the sandbox with it" {
	asuser srt -s "$T/s.json" -c "trap 'echo got; exit 4' TERM; echo ready; while :; do sleep 0.05; done" > "$T/out" 2>&1 &
	pid=$!
	for i in $(seq 100); do grep -q ready "$T/out" && break; sleep 0.05; done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 4 ]
	grep -q got "$T/out"

	token="srt-unpriv-$$-$RANDOM"
	asuser srt -s "$T/s.json" -c "sleep 60; : $token" &
	pid=$!
	for i in $(seq 100); do pgrep -f -- "sleep 60; : $token" >/dev/null && break; sleep 0.05; done
	pgrep -f -- "$token" >/dev/null
	kill -KILL "$pid"
	wait "$pid" || true
	for i in $(seq 100); do pgrep -f -- "$token" >/dev/null || break; sleep 0.1; done
	not pgrep -f -- "$token"
	for i in $(seq 50); do [ -z "$(ls -A "$T/tmp")" ] && break; sleep 0.1; done
	[ -z "$(ls -A "$T/tmp")" ]
	# nothing of the user's runs any more (a zombie waits for a reaping init only)
	for i in $(seq 100); do
		[ -z "$(ps -u "$SRT_TUSER" -o stat= | grep -v '^Z')" ] && break
		sleep 0.1
	done
	ps -u "$SRT_TUSER" -o pid,ppid,stat,args
	[ -z "$(ps -u "$SRT_TUSER" -o stat= | grep -v '^Z')" ]
}

# AppArmor cannot be had here, so both halves of Ubuntu's condition are stood in for, in a
# mount namespace of the test's own: the kernel's EPERM comes from a chroot (a chrooted
# process may not create a user namespace), and the sysctl is a file of the test's mounted
# over /proc/sys/kernel. What this checks is srt's side, from the failing step to the
# message; tests/unit/test_userns.c checks the message for each value and error.
@test "unprivileged: a user namespace refused (EPERM) while AppArmor's sysctl is 1: srt names it and the fix" {
	command -v unshare >/dev/null && command -v chroot >/dev/null ||
	    skip "needs unshare and chroot"
	mkdir -p "$T/sysk" "$T/root"
	cat > "$T/enter" <<SH
set -e
mount --rbind / "$T/root"
mount --bind "$T/sysk" "$T/root/proc/sys/kernel"
exec chroot "$T/root" setpriv --reuid="$SRT_TUSER" --regid=nogroup --clear-groups -- \
    env HOME="$T/home" TMPDIR="$T/tmp" PATH="$SRT_BIN:/usr/bin:/bin" \
    sh -c 'cd "$T/ws" && exec srt -s "$T/s.json" -c "echo ran"'
SH
	echo 1 > "$T/sysk/apparmor_restrict_unprivileged_userns"
	run unshare -m sh "$T/enter"
	[ "$status" -eq 125 ]
	[[ "$output" != *ran* ]]
	[[ "$output" == *"srt: network namespace: unshare(CLONE_NEWUSER|CLONE_NEWNET): Operation not permitted"* ]]
	[[ "$output" == *"srt: AppArmor restricts unprivileged user namespaces here (kernel.apparmor_restrict_unprivileged_userns is 1), and no AppArmor profile lets $SRT_BIN/srt-launch create them"* ]]
	[[ "$output" == *"apparmor_parser -r /etc/apparmor.d/srt"* ]]
	[[ "$output" == *"sysctl -w kernel.apparmor_restrict_unprivileged_userns=0"* ]]
	# The same refusal with the restriction off: AppArmor is not blamed.
	echo 0 > "$T/sysk/apparmor_restrict_unprivileged_userns"
	run unshare -m sh "$T/enter"
	[ "$status" -eq 125 ]
	[[ "$output" == *"Operation not permitted"* ]]
	[[ "$output" != *AppArmor* ]]
}
