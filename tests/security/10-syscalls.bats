#!/usr/bin/env bats
# Escape battery, system calls: what the seccomp stage must refuse, tried from inside a
# real srt sandbox (not the filter alone, which tests/launch/seccomp.bats covers): Unix and
# vsock sockets, io_uring, x32/ia32 entry, high bits in arguments, nested user
# namespaces, clone3, mount and the new mount API, TIOCSTI/TIOCLINUX.
load helpers

# What srt's sandbox must answer for each try-syscall probe (its filter's verdicts): the
# seccomp suite's table, plus the x32 entry, which kills the process.
EXPECT="$(cat "$BATS_TEST_DIRNAME/../data/seccomp-blocked.txt")
x32-getpid: signal=SIGSYS"

# Runs try-syscall on the names of the lines in $1 inside srt and compares line by line.
# A probe that says "ok" got through (ESCAPED); any other difference means the call was
# refused, but not by the sandbox's filter (e.g. a missing capability), which shows that
# the filter is not in place and is reported too.
try_in_srt() {
	local expect=$1 names line name want got bad=0
	names=$(cut -d: -f1 <<<"$expect" | tr '\n' ' ')
	sec_settings
	in_srt "TMPDIR=\$TMPDIR $(printf '%q' "$TRY") $names"
	echo "srt status $status, output:" >&2
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ] || return 1
	while IFS= read -r line; do
		name=${line%%:*}
		want=${line#*: }
		got=$(grep "^$name: " <<<"$output" | head -1)
		got=${got#*: }
		if [ "$got" = ok ]; then
			echo "ESCAPED: $name succeeded inside srt (want $want)" >&2
			bad=1
		elif [ "$got" != "$want" ]; then
			echo "NOT FILTERED: $name gave '${got:-nothing}', want $want" >&2
			bad=1
		fi
	done <<<"$expect"
	return "$bad"
}

@test "sockets: AF_UNIX and AF_VSOCK, also with high bits set in the family" {
	need_srt
	try_in_srt "$(grep -E '^socket-' <<<"$EXPECT")"
}

@test "io_uring: setup, enter and register are refused" {
	need_srt
	try_in_srt "$(grep -E '^io_uring' <<<"$EXPECT")"
}

@test "x32 ABI: a system call through the x32 bit kills the caller" {
	need_srt
	[ "$(uname -m)" = x86_64 ] || skip "x32 exists only on x86_64"
	try_in_srt "$(grep -E '^x32-' <<<"$EXPECT")"
}

@test "ia32 ABI: int 0x80 kills the caller where the kernel runs ia32 code" {
	need_srt
	[ "$(uname -m)" = x86_64 ] || skip "ia32 entry exists only on x86_64"
	# Outside, the call works where the kernel has ia32 emulation; inside it must not.
	outside=$(cd "$T" && TMPDIR="$T" "$TRY" ia32-getpid)
	if [ "$outside" = "ia32-getpid: ok" ]; then
		try_in_srt "ia32-getpid: signal=SIGSYS"
	else
		sec_settings
		in_srt "TMPDIR=\$TMPDIR $(printf '%q' "$TRY") ia32-getpid"
		[ "$status" -eq 0 ]
		[ "$output" != "ia32-getpid: ok" ]
	fi
}

@test "namespaces: unshare, clone and clone3 with CLONE_NEWUSER, setns, high bits" {
	need_srt
	try_in_srt "$(grep -E '^(unshare|clone|setns)' <<<"$EXPECT")"
}

@test "namespaces: no user namespace by any call (escape-probe userns)" {
	need_srt
	sec_settings
	probe_blocked userns
}

@test "namespaces: a nested bwrap cannot build a sandbox of its own" {
	need_srt
	sec_settings
	in_srt "bwrap --unshare-user --ro-bind / / /bin/true && echo ESCAPED nested bwrap ran || echo BLOCKED nested bwrap refused"
	assert_blocked
}

@test "mount: mount, umount2, pivot_root refused" {
	need_srt
	try_in_srt "$(grep -E '^(mount|umount2|pivot_root):' <<<"$EXPECT")"
}

@test "mount: the new mount API (open_tree, move_mount, fsopen, fsconfig, fsmount, fspick, mount_setattr)" {
	need_srt
	try_in_srt "$(grep -E '^(open_tree|move_mount|fs|mount_setattr)' <<<"$EXPECT")"
}

@test "mount: the mount command fails and leaves the tree as it was" {
	need_srt
	mkdir "$T/work/mnt"
	echo "$SECRET" >"$T/work/mnt/keep"
	sec_settings '[]' '[]' '[]' '["."]'
	# Should the mount ever work, it is undone at once.
	in_srt 'if mount -t tmpfs none mnt 2>/dev/null; then umount mnt; echo ESCAPED tmpfs mounted over mnt; elif [ -f mnt/keep ]; then echo BLOCKED mnt still the host directory; fi'
	assert_blocked
}

@test "keyrings: keyctl, add_key and request_key are refused" {
	need_srt
	try_in_srt "$(grep -E '^(keyctl|add_key|request_key):' <<<"$EXPECT")"
}

@test "terminal ioctls: TIOCSTI and TIOCLINUX on a pty of the command's own" {
	need_srt
	try_in_srt "$(grep -E '^tio' <<<"$EXPECT")"
}

@test "unix sockets: a listening socket outside (path and abstract) cannot be reached" {
	need_srt
	"$PY" "$SRT_TESTDIR/helpers/unix-listen.py" "$T/work/outside.sock" "srt-sec-$MARK" \
		"$T/unix.ready" 60 </dev/null >/dev/null 2>&1 3>&- &
	echo $! >>"$T/pids"
	wait_file "$T/unix.ready"
	# Control: the probe does reach both from outside the sandbox.
	run "$PROBE" unix "$T/work/outside.sock"
	[ "$status" -eq 1 ]
	sec_settings '[]' '[]' '[]' '["."]'
	probe_blocked unix "$T/work/outside.sock"
	probe_blocked unix "@srt-sec-$MARK"
}

@test "allowAllUnixSockets lifts the Unix socket rule only: the rest of the filter holds" {
	need_srt
	sec_settings '[]' '[]' '[]' '[]' '[]' '' ', "allowAllUnixSockets": true'
	try_in_srt "$(grep -vE '^socket-unix' <<<"$EXPECT")"
}
