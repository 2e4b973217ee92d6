#!/usr/bin/env bats
# srt-seccomp: the filter (through the try-syscall probe and an evaluation of the emitted
# program), namespaces and /proc, capabilities, PID 1 (status relay, signals, reaping),
# unprivileged and bwrap runs, failures.
load ../helpers
bats_require_minimum_version 1.5.0

SECCOMP="$SRT_BIN/srt-seccomp"
PROBE="$SRT_TESTBIN/try-syscall"

# Every probe of a blocked call, with what srt-seccomp's default filter must answer
# (shared with the escape battery, tests/security/10-syscalls.bats).
BLOCKED_DEFAULT=$(cat "$BATS_TEST_DIRNAME/../data/seccomp-blocked.txt")

# Calls that must keep working under every variant of the filter.
ALLOWED='socket-inet: ok
socketpair-unix: ok
nr-minus1: errno=ENOSYS'

names() { printf '%s\n' "$1" | cut -d: -f1; }

# Runs the probe (options in $PROBE_OPTS) on the names in $1 (lines "NAME: ..."), behind
# the command prefix in $2...
probe_lines() {
	local list=$1
	shift
	# shellcheck disable=SC2046,SC2086
	TMPDIR="$T" timeout 30 "$@" "$PROBE" $PROBE_OPTS $(names "$list")
}

is_root() { [ "$(id -u)" -eq 0 ]; }
is_x86_64() { [ "$(uname -m)" = x86_64 ]; }

# A directory nobody can use, and a check that nobody can run the build.
nobody_ready() {
	is_root || skip "needs root to switch to nobody"
	command -v su >/dev/null || skip "no su"
	chmod 711 "$T"
	mkdir -m 1777 "$T/nb"
	su nobody -s /bin/sh -c "test -x '$SECCOMP' && test -x '$PROBE'" ||
		skip "nobody cannot reach $SRT_BUILD"
}

as_nobody() { su nobody -s /bin/sh -c "cd '$T/nb' && TMPDIR='$T/nb' $1"; }

# Evaluates the classic BPF program in file $1 for system calls read from stdin, one per
# line: "ARCH NR [ARG...] = ACTION", ACTION being ALLOW, KILL_PROCESS, ERRNO(n), ...
# Prints every line whose action differs, and fails if there is any (bpf-check.py).
bpf_check() {
	"$PYTHON" "$BATS_TEST_DIRNAME/../helpers/bpf-check.py" "$1"
}
PYTHON=$(command -v /usr/bin/python3 || command -v python3)

AUDIT_X86_64=0xc000003e
AUDIT_I386=0x40000003

# --- usage ------------------------------------------------------------------

@test "usage: --help exits 0, no command or a bad option exits 125" {
	run "$SECCOMP" --help
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: srt-seccomp "* ]]
	run "$SECCOMP"
	[ "$status" -eq 125 ]
	[[ "$output" == "srt-seccomp: no command given"* ]]
	run "$SECCOMP" --no-such-option -- true
	[ "$status" -eq 125 ]
	run "$SECCOMP" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "srt-seccomp "[0-9]* ]]
}

@test "usage: options end at the command" {
	run "$SECCOMP" sh -c 'echo "$1"' sh --allow-unix-sockets
	[ "$status" -eq 0 ]
	[ "$output" = "--allow-unix-sockets" ]
}

# --- the emitted program ----------------------------------------------------

@test "emit-bpf: writes a whole program, the same to a file and to stdout" {
	run "$SECCOMP" --emit-bpf "$T/f.bpf"
	[ "$status" -eq 0 ]
	size=$(stat -c %s "$T/f.bpf")
	[ "$size" -gt 64 ]
	[ $((size % 8)) -eq 0 ]
	"$SECCOMP" --emit-bpf - >"$T/g.bpf"
	cmp "$T/f.bpf" "$T/g.bpf"
	"$SECCOMP" --allow-unix-sockets --allow-nested-userns --emit-bpf "$T/a.bpf"
	! cmp -s "$T/f.bpf" "$T/a.bpf"
}

@test "emit-bpf: the embedded programs are what libseccomp builds here, all four" {
	# srt-seccomp embeds programs made at build time (srt-seccomp/filter.c); the
	# generator is srt-seccomp linked with libseccomp, and must still agree byte for byte.
	gen="$SRT_BUILD/gen/srt-seccomp-gen"
	[ -x "$gen" ]
	for opts in "" "--allow-unix-sockets" "--allow-nested-userns" \
	    "--allow-unix-sockets --allow-nested-userns"; do
		# shellcheck disable=SC2086
		"$SECCOMP" $opts --emit-bpf "$T/embedded.bpf"
		# shellcheck disable=SC2086
		"$gen" $opts --emit-bpf "$T/built.bpf"
		cmp "$T/embedded.bpf" "$T/built.bpf"
	done
	# and they differ from each other
	"$SECCOMP" --emit-bpf "$T/a"
	"$SECCOMP" --allow-unix-sockets --emit-bpf "$T/b"
	"$SECCOMP" --allow-nested-userns --emit-bpf "$T/c"
	! cmp -s "$T/a" "$T/b" || return 1
	! cmp -s "$T/a" "$T/c" || return 1
	! cmp -s "$T/b" "$T/c"
}

@test "emit-bpf: the architecture is checked first; ia32 and x32 are killed, -1 passes" {
	is_x86_64 || skip "x86_64 only"
	"$SECCOMP" --emit-bpf "$T/f.bpf"
	# The first instruction loads seccomp_data.arch (offset 4).
	[ "$(od -An -tx1 -N8 "$T/f.bpf" | tr -d ' ')" = "2000000004000000" ]
	bpf_check "$T/f.bpf" <<EOF
$AUDIT_I386 20 = KILL_PROCESS
0xc00000b7 172 = KILL_PROCESS
$AUDIT_X86_64 $((0x40000000 + 39)) = KILL_PROCESS
$AUDIT_X86_64 $((0x40000000 + 41)) 1 = KILL_PROCESS
$AUDIT_X86_64 0xffffffff = ALLOW
$AUDIT_X86_64 39 = ALLOW
EOF
}

@test "emit-bpf: family and ioctl cmd are compared on their low 32 bits" {
	is_x86_64 || skip "x86_64 syscall numbers"
	"$SECCOMP" --emit-bpf "$T/f.bpf"
	# socket = 41, ioctl = 16, clone = 56, unshare = 272, clone3 = 435; EPERM = 1, ENOSYS = 38
	bpf_check "$T/f.bpf" <<EOF
$AUDIT_X86_64 41 1 = ERRNO(1)
$AUDIT_X86_64 41 $((1 << 32 | 1)) = ERRNO(1)
$AUDIT_X86_64 41 0xffffffff00000028 = ERRNO(1)
$AUDIT_X86_64 41 2 = ALLOW
$AUDIT_X86_64 41 $((1 << 32 | 2)) = ALLOW
$AUDIT_X86_64 16 0 0x5412 = ERRNO(1)
$AUDIT_X86_64 16 0 $((1 << 32 | 0x5412)) = ERRNO(1)
$AUDIT_X86_64 16 0 $((0xdead00000000 | 0x541c)) = ERRNO(1)
$AUDIT_X86_64 16 0 0x5401 = ALLOW
$AUDIT_X86_64 56 $((0x10000000 | 17)) = ERRNO(1)
$AUDIT_X86_64 56 17 = ALLOW
$AUDIT_X86_64 272 0x10020000 = ERRNO(1)
$AUDIT_X86_64 272 0x00020000 = ALLOW
$AUDIT_X86_64 435 = ERRNO(38)
EOF
	"$SECCOMP" --allow-unix-sockets --allow-nested-userns --emit-bpf "$T/a.bpf"
	bpf_check "$T/a.bpf" <<EOF
$AUDIT_X86_64 41 1 = ALLOW
$AUDIT_X86_64 41 40 = ERRNO(1)
$AUDIT_X86_64 56 $((0x10000000 | 17)) = ALLOW
$AUDIT_X86_64 435 = ALLOW
$AUDIT_X86_64 16 0 0x5412 = ERRNO(1)
$AUDIT_X86_64 $((0x40000000 + 39)) = KILL_PROCESS
EOF
}

# S_ISUID and S_ISGID (issue #28): without the write guard the filter refuses them by
# argument in every call that sets or makes a mode (fchmodat2, which libseccomp does not
# know, in the hand-written part before its program); with the guard the calls that can
# carry them go to the supervisor, which removes them (fchmod too, when it sets one),
# and bind(2) always goes there, AF_UNIX sockets allowed or not.
@test "emit-bpf: set-user-ID and set-group-ID modes refused by argument, or sent to the supervisor" {
	is_x86_64 || skip "x86_64 syscall numbers"
	# chmod 90, fchmod 91, fchmodat 268, fchmodat2 452, open 2, openat 257, creat 85,
	# mknod 133, mknodat 259, mkdir 83, openat2 437, bind 49; O_CREAT 0100,
	# O_TMPFILE|O_RDWR 020200002; EPERM 1, ENOSYS 38.
	"$SECCOMP" --emit-bpf "$T/f.bpf"
	bpf_check "$T/f.bpf" <<EOF
$AUDIT_X86_64 90 0 0o4755 = ERRNO(1)
$AUDIT_X86_64 90 0 0o2755 = ERRNO(1)
$AUDIT_X86_64 90 0 $((1 << 32 | 04755)) = ERRNO(1)
$AUDIT_X86_64 90 0 0o1777 = ALLOW
$AUDIT_X86_64 91 3 0o4644 = ERRNO(1)
$AUDIT_X86_64 91 3 0o755 = ALLOW
$AUDIT_X86_64 268 -100 0 0o6755 = ERRNO(1)
$AUDIT_X86_64 268 -100 0 0o644 = ALLOW
$AUDIT_X86_64 452 -100 0 0o4755 0x100 = ERRNO(1)
$AUDIT_X86_64 452 -100 0 0o2755 0 = ERRNO(1)
$AUDIT_X86_64 452 -100 0 0o755 0x100 = ALLOW
$AUDIT_X86_64 2 0 0o101 0o4755 = ERRNO(1)
$AUDIT_X86_64 2 0 0 0o4755 = ALLOW
$AUDIT_X86_64 2 0 0o101 0o644 = ALLOW
$AUDIT_X86_64 257 -100 0 0o301 0o2755 = ERRNO(1)
$AUDIT_X86_64 257 -100 0 0o20200002 0o4600 = ERRNO(1)
$AUDIT_X86_64 257 -100 0 0o2 0o4755 = ALLOW
$AUDIT_X86_64 257 -100 0 0o101 0o600 = ALLOW
$AUDIT_X86_64 85 0 0o4755 = ERRNO(1)
$AUDIT_X86_64 85 0 0o755 = ALLOW
$AUDIT_X86_64 133 0 0o104755 0 = ERRNO(1)
$AUDIT_X86_64 133 0 0o10644 0 = ALLOW
$AUDIT_X86_64 259 -100 0 0o102755 0 = ERRNO(1)
$AUDIT_X86_64 83 0 0o6755 = ALLOW
$AUDIT_X86_64 437 -100 0 0 24 = ERRNO(38)
$AUDIT_X86_64 49 3 0 110 = ALLOW
EOF
	"$SECCOMP" --with-guard --emit-bpf "$T/g.bpf"
	bpf_check "$T/g.bpf" <<EOF
$AUDIT_X86_64 91 3 0o4644 = USER_NOTIF
$AUDIT_X86_64 91 3 0o2600 = USER_NOTIF
$AUDIT_X86_64 91 3 0o644 = USER_NOTIF
$AUDIT_X86_64 93 3 0 0 = USER_NOTIF
$AUDIT_X86_64 90 0 0o4755 = USER_NOTIF
$AUDIT_X86_64 268 -100 0 0o644 = USER_NOTIF
$AUDIT_X86_64 452 -100 0 0o644 0 = ERRNO(38)
$AUDIT_X86_64 2 0 0o101 0o4755 = USER_NOTIF
$AUDIT_X86_64 133 0 0o104755 0 = USER_NOTIF
$AUDIT_X86_64 49 3 0 110 = USER_NOTIF
EOF
	"$SECCOMP" --with-guard --allow-unix-sockets --emit-bpf "$T/u.bpf"
	bpf_check "$T/u.bpf" <<EOF
$AUDIT_X86_64 49 3 0 110 = USER_NOTIF
$AUDIT_X86_64 91 3 0o4644 = USER_NOTIF
EOF
}

# --- the probe, with and without filters --------------------------------------

@test "probe control: without a filter no blocked call answers EPERM or ENOSYS" {
	# In a user namespace of its own the probe holds capabilities, so every answer
	# comes from the kernel proper: this is what the filtered runs are compared with.
	list=$(printf '%s\n' "$BLOCKED_DEFAULT")
	[ "$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)" = 0 ] ||
		list=$(printf '%s\n' "$list" | grep -v '^io_uring')
	PROBE_OPTS=--userns run -0 probe_lines "$list" env
	[ "${#lines[@]}" -eq "$(printf '%s\n' "$list" | wc -l)" ]
	! printf '%s\n' "$output" | grep -E 'errno=(EPERM|ENOSYS)|signal='
}

@test "default filter: every blocked call is refused, the rest works" {
	run -0 probe_lines "$BLOCKED_DEFAULT
$ALLOWED" "$SECCOMP" --
	[ "$output" = "$BLOCKED_DEFAULT
$ALLOWED" ]
}

@test "default filter: the emitted program alone refuses the mount API even with capabilities" {
	"$SECCOMP" --emit-bpf "$T/f.bpf"
	PROBE_OPTS="--userns --filter $T/f.bpf"
	run -0 probe_lines "$BLOCKED_DEFAULT
$ALLOWED" env
	[ "$output" = "$BLOCKED_DEFAULT
$ALLOWED" ]
}

@test "x32 system calls kill the process" {
	is_x86_64 || skip "x86_64 only"
	run -0 probe_lines "x32-getpid:" "$SECCOMP" --
	[ "$output" = "x32-getpid: signal=SIGSYS" ]
}

@test "ia32 system calls kill the process" {
	is_x86_64 || skip "x86_64 only"
	run -0 probe_lines "ia32-getpid:" env
	[ "$output" = "ia32-getpid: ok" ] || skip "this kernel runs no ia32 code ($output)"
	run -0 probe_lines "ia32-getpid:" "$SECCOMP" --
	[ "$output" = "ia32-getpid: signal=SIGSYS" ]
}

@test "--allow-unix-sockets: AF_UNIX works, AF_VSOCK and the rest stay refused" {
	expected=$(printf '%s\n' "$BLOCKED_DEFAULT" | sed -e 's/^socket-unix: .*/socket-unix: ok/' \
	    -e 's/^socket-unix-hibits: .*/socket-unix-hibits: ok/')
	run -0 probe_lines "$expected" "$SECCOMP" --allow-unix-sockets --
	[ "$output" = "$expected" ]
}

@test "--allow-nested-userns: namespaces and the mount API reach the kernel" {
	run -0 probe_lines "$BLOCKED_DEFAULT" "$SECCOMP" --allow-nested-userns --
	expected='socket-unix: errno=EPERM
socket-vsock: errno=EPERM
io_uring_setup: errno=EPERM
unshare-newuser: ok
unshare-newuser-hibits: errno=EINVAL
clone-newuser: ok
clone3: ok
setns: errno=EBADF
mount: errno=EFAULT
umount2: errno=EINVAL
open_tree: ok
mount_setattr: errno=EINVAL
tiocsti: errno=EPERM
tioclinux: errno=EPERM'
	while IFS= read -r want; do
		printf '%s\n' "$output" | grep -qxF "$want" || {
			echo "missing: $want"
			echo "$output"
			return 1
		}
	done <<<"$expected"
	# The rest need capabilities the command does not have: checked in a namespace.
	"$SECCOMP" --allow-nested-userns --emit-bpf "$T/a.bpf"
	PROBE_OPTS="--userns --filter $T/a.bpf"
	run -0 probe_lines "fsopen:
fsmount:
fspick:
move_mount:
pivot_root:" env
	! printf '%s\n' "$output" | grep -E 'EPERM|ENOSYS' || return 1
	printf '%s\n' "$output" | grep -qx 'fsopen: ok'
}

# --- process state ------------------------------------------------------------

@test "the command runs with NO_NEW_PRIVS, a filter and no capabilities" {
	run -0 "$SECCOMP" -- grep -E '^(NoNewPrivs|Seccomp|Cap(Inh|Prm|Eff|Bnd|Amb)):' /proc/self/status
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Seccomp:	2"* ]]
	for set in Inh Prm Eff Bnd Amb; do
		[[ "$output" == *"Cap$set:	0000000000000000"* ]]
	done
}

@test "the command is PID 2 under a PID 1 that is srt-seccomp, with a fresh /proc" {
	run -0 "$SECCOMP" -- sh -c 'echo $$; tr "\0" " " </proc/1/cmdline; echo; ls /proc | grep -c "^[0-9]*$"'
	[ "${lines[0]}" = 2 ]
	[[ "${lines[1]}" == *srt-seccomp* ]]
	# PID 1, the shell, ls and grep: nothing from outside.
	[ "${lines[2]}" -le 4 ]
}

@test "PID 1 is not dumpable: the command cannot read its memory or environment" {
	run "$SECCOMP" -- sh -c 'cat /proc/1/environ >/dev/null && echo readable'
	[ "$status" -ne 0 ]
	[[ "$output" == *"Permission denied"* ]]
	[[ "$output" != *readable* ]]
}

@test "/proc/sys stays read-only in the fresh /proc" {
	run -0 "$SECCOMP" -- awk '$5 == "/proc/sys" { print $6 }' /proc/self/mountinfo
	[[ "$output" == ro,* ]]
}

@test "the command stays in the caller's session; its process group only at a terminal" {
	# Fields 5 and 6 of stat are 0 when the group and session leaders live outside
	# the PID namespace, i.e. the command was not moved to a group or session of its own.
	# On a controlling terminal it stays in the caller's (foreground) group.
	run -0 python3 "$BATS_TEST_DIRNAME/../helpers/pty-run.py" -- \
	    "$SECCOMP" -- sh -c 'cut -d" " -f5,6 /proc/self/stat'
	echo "$output"
	[ "${lines[0]}" = "0 0" ]
	# Without one, it leads a group of its own (PID 2), for the SIGINT and SIGQUIT
	# PID 1 forwards to the whole group.
	run -0 setsid -w "$SECCOMP" -- sh -c 'cut -d" " -f5,6 /proc/self/stat'
	[ "$output" = "2 0" ]
}

@test "no descriptor of srt-seccomp's own reaches the command" {
	direct=$(sh -c 'ls /proc/$$/fd' | sort | tr '\n' ' ')
	run -0 "$SECCOMP" -- sh -c 'ls /proc/$$/fd'
	[ "$(printf '%s\n' "$output" | sort | tr '\n' ' ')" = "$direct" ]
}

# --- exit status and signals ----------------------------------------------------

@test "exit status is relayed: exit 7 gives 7, SIGKILL gives 137, SIGTERM 143" {
	run "$SECCOMP" -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
	run "$SECCOMP" -- sh -c 'kill -KILL $$'
	[ "$status" -eq 137 ]
	run "$SECCOMP" -- sh -c 'kill -TERM $$'
	[ "$status" -eq 143 ]
	run "$SECCOMP" -- true
	[ "$status" -eq 0 ]
}

@test "command not found gives 127, not executable 126, with srt-seccomp: CMD: strerror" {
	run -127 "$SECCOMP" -- srt-no-such-command
	[ "$output" = "srt-seccomp: srt-no-such-command: No such file or directory" ]
	printf 'echo hi\n' >"$T/noexec"
	chmod 644 "$T/noexec"
	run "$SECCOMP" -- "$T/noexec"
	[ "$status" -eq 126 ]
	[ "$output" = "srt-seccomp: $T/noexec: Permission denied" ]
}

# Waits for the line "ready" in $T/out, written by the command $pid runs once it can take
# the signal the test sends; the bound (30 s) only ends a run that never gets there.
wait_ready() {
	for _ in $(seq 600); do
		grep -q ready "$T/out" 2>/dev/null && return 0
		sleep 0.05
	done
	kill -KILL "$pid"
	echo "command never became ready"
	cat "$T/out"
	return 1
}

# Starts srt-seccomp in the background on a command that prints "ready" once its traps
# are set; waits for that line. Sets $pid. The last run's $T/out goes first: the
# background shell truncates it only when it gets to the redirection, and until then
# wait_ready would read that run's "ready": the signal would then reach that shell, or
# srt-seccomp before it blocks signals, which dies of it (128+N, no trap output).
start_bg() {
	rm -f "$T/out"
	"$SECCOMP" -- "$@" >"$T/out" 2>&1 &
	pid=$!
	wait_ready
}

# Waits (bounded) for $pid and sets $rc. The watchdog's sleep ends with it: bats would
# otherwise wait for that sleep (it holds the test's output) after every test here.
wait_bg() {
	(trap 'kill "$nap" 2>/dev/null; exit 0' TERM
	 sleep 10 & nap=$!
	 wait "$nap" && kill -KILL "$pid" 2>/dev/null) &
	local dog=$!
	rc=0
	wait "$pid" || rc=$?
	kill "$dog" 2>/dev/null || true
	wait "$dog" 2>/dev/null || true
}

@test "TERM, HUP, USR1 and USR2 reach the command" {
	for sig in TERM HUP USR1 USR2; do
		start_bg sh -c "trap 'echo got-$sig; exit 3' $sig; echo ready; while :; do sleep 0.05; done"
		kill -s "$sig" "$pid"
		wait_bg
		[ "$rc" -eq 3 ]
		grep -qx "got-$sig" "$T/out"
	done
}

@test "INT and QUIT sent to srt-seccomp reach the command" {
	# Background jobs start with INT and QUIT ignored: env resets them for the trap.
	for sig in INT QUIT; do
		start_bg env --default-signal="$sig" sh -c \
		    "trap 'echo got-$sig; exit 4' $sig; echo ready; while :; do sleep 0.05; done"
		kill -s "$sig" "$pid"
		wait_bg
		[ "$rc" -eq 4 ]
		grep -qx "got-$sig" "$T/out"
	done
}

@test "without a terminal, INT and QUIT reach the command's whole process group" {
	# bash waits for its child on SIGINT and ends only once the child died of it too;
	# on SIGQUIT it goes on after the child (as at a terminal) and prints the child's
	# status. Either shows that the signal reached the child as well as the shell.
	# The child says "ready" itself, so the signal is sent only once it runs; it dies
	# of the signal before or after its exec alike. If the signal reached only bash,
	# the child's sleep outlasts wait_bg, which kills the run (137).
	local sig t0 t1
	for sig in INT QUIT; do
		rm -f "$T/out"	# not the INT run's "ready" (see start_bg)
		setsid env --default-signal=INT,QUIT "$SECCOMP" -- \
		    bash -c 'sh -c "echo ready; exec sleep 60"; echo "after $?"' >"$T/out" 2>&1 &
		pid=$!
		wait_ready || return 1
		t0=${EPOCHREALTIME/[.,]/}
		kill -s "$sig" "$pid"
		wait_bg
		t1=${EPOCHREALTIME/[.,]/}
		echo "$sig: status $rc after $(( (t1 - t0) / 1000 )) ms: $(cat "$T/out")"
		if [ "$sig" = INT ]; then
			[ "$rc" -eq 130 ]
			! grep -q after "$T/out" || false
		else
			[ "$rc" -eq 0 ]
			grep -qx "after $((128 + $(kill -l QUIT)))" "$T/out"
		fi
	done
}

@test "on a terminal, ^C reaches the command in the foreground group" {
	command -v script >/dev/null || skip "no script(1)"
	# script(1) gives the command a terminal; the ^C written to it is turned into a
	# SIGINT for the foreground process group by the line discipline.
	# The ^C is typed only once the trap is in place (the script says so with a
	# file), however slowly a sanitizer build starts; then the script waits a
	# little longer to see that exactly one SIGINT arrived. script(1) runs the line
	# with $SHELL -c, which dash does not replace with the command: without the exec
	# that shell would sit in the foreground group too, and die of the ^C.
	cat >"$T/count-int.sh" <<SH
n=0
trap 'n=\$((n + 1))' INT
: >"$T/trap-set"
i=0
while [ \$i -lt 200 ] && [ \$n -eq 0 ]; do sleep 0.05; i=\$((i + 1)); done
sleep 0.5
echo "ints=\$n"
SH
	run -0 bash -c "{ i=0; while [ ! -e '$T/trap-set' ] && [ \$i -lt 400 ]; do sleep 0.05; i=\$((i + 1)); done
	    printf '\\003'; sleep 2; } |
	    timeout 30 script -qec 'exec $SECCOMP -- sh $T/count-int.sh' /dev/null"
	[[ "$output" == *"ints=1"* ]]
}

@test "an unhandled forwarded signal is relayed as 128+N" {
	start_bg sh -c 'echo ready; exec sleep 20'
	kill -TERM "$pid"
	wait_bg
	[ "$rc" -eq 143 ]
}

@test "orphans are adopted and reaped by PID 1: no zombie is left" {
	run -0 "$SECCOMP" -- sh -c '
		p=$(sh -c "sleep 0.3 >/dev/null 2>&1 & echo \$!")
		awk "/^PPid:/ { print \"ppid=\" \$2 }" /proc/$p/status
		i=0
		while [ -e /proc/$p ] && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		if [ -e /proc/$p ]; then echo "left: $(cut -d" " -f3 /proc/$p/stat)"; else echo gone; fi
		for s in /proc/[0-9]*/stat; do cut -d" " -f3 "$s" 2>/dev/null; done | grep -c Z || true'
	[ "${lines[0]}" = "ppid=1" ]
	[ "${lines[1]}" = gone ]
	[ "${lines[2]}" = 0 ]
}

@test "processes left behind are killed when the command exits" {
	mark="30.$RANDOM$RANDOM"
	run -0 "$SECCOMP" -- sh -c "sleep $mark >/dev/null 2>&1 & echo started"
	[ "$output" = started ]
	# PID 1 has exited, and the kernel killed its namespace with it.
	run pgrep -f "^sleep $mark\$"
	[ "$status" -eq 1 ]
}

# --- namespaces and who runs it ---------------------------------------------------

@test "root without namespaces: no user namespace, the host sysctl is left alone" {
	is_root || skip "needs root"
	# The initial user namespace maps every id to itself.
	[ "$(awk '{ print $1, $2, $3 }' /proc/self/uid_map)" = "0 0 4294967295" ] ||
		skip "not in the initial user namespace"
	before=$(cat /proc/sys/user/max_user_namespaces)
	run -0 "$SECCOMP" -- sh -c 'cat /proc/sys/user/max_user_namespaces; id -u'
	[ "${lines[0]}" = "$before" ]
	[ "${lines[1]}" = 0 ]
	[ "$(cat /proc/sys/user/max_user_namespaces)" = "$before" ]
}

@test "unprivileged: a user namespace of its own, same ids, max_user_namespaces 0" {
	nobody_ready
	run -0 as_nobody "'$SECCOMP' -- sh -c 'id -u; id -g; cat /proc/sys/user/max_user_namespaces; grep ^Seccomp: /proc/self/status'"
	[ "${lines[0]}" = "$(id -u nobody)" ]
	[ "${lines[1]}" = "$(id -g nobody)" ]
	[ "${lines[2]}" = 0 ]
	[ "${lines[3]}" = "Seccomp:	2" ]
}

@test "unprivileged: the default filter holds, and --allow-nested-userns leaves the limit alone" {
	nobody_ready
	run -0 as_nobody "'$SECCOMP' -- '$PROBE' $(names "$BLOCKED_DEFAULT" | tr '\n' ' ')"
	[ "$output" = "$BLOCKED_DEFAULT" ]
	run -0 as_nobody "'$SECCOMP' --allow-nested-userns -- sh -c 'cat /proc/sys/user/max_user_namespaces; \"$PROBE\" unshare-newuser'"
	[ "${lines[0]}" != 0 ]
	[ "${lines[1]}" = "unshare-newuser: ok" ]
}

bwrap_ready() {
	command -v bwrap >/dev/null || skip "no bwrap"
}

# bwrap as srt-launch runs it; extra bwrap options in $BWRAP_EXTRA.
in_bwrap() {
	# shellcheck disable=SC2086
	bwrap --ro-bind / / --dev /dev --proc /proc --bind "$T" "$T" --unshare-pid \
	    --unshare-user --cap-drop ALL $BWRAP_EXTRA -- "$@"
}

@test "inside bwrap, unprivileged: the refused unshare falls back to a user namespace" {
	bwrap_ready
	nobody_ready
	# shellcheck disable=SC2016
	run -0 as_nobody "bwrap --ro-bind / / --dev /dev --proc /proc --bind '$T/nb' '$T/nb' --unshare-pid --unshare-user --cap-drop ALL -- '$SECCOMP' -d -d -- sh -c 'echo \$\$; cat /proc/sys/user/max_user_namespaces; grep -E \"^(Seccomp|CapBnd):\" /proc/self/status; exit 7' 2>&1; echo rc=\$?"
	# the expected refusal is detail: a second -d
	[[ "$output" == *"creating a user namespace"* ]]
	[[ "$output" == *"own user namespace: yes"* ]]
	printf '%s\n' "$output" | grep -qx 2
	printf '%s\n' "$output" | grep -qx 0
	[[ "$output" == *"Seccomp:	2"* ]]
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	[[ "$output" == *"rc=7" ]]
	run -0 as_nobody "bwrap --ro-bind / / --dev /dev --proc /proc --bind '$T/nb' '$T/nb' --unshare-pid --unshare-user --cap-drop ALL -- '$SECCOMP' -- '$PROBE' $(names "$BLOCKED_DEFAULT" | tr '\n' ' ')"
	[ "$output" = "$BLOCKED_DEFAULT" ]
}

@test "inside bwrap as root with CAP_SYS_ADMIN and CAP_SETPCAP: all dropped before the command" {
	bwrap_ready
	is_root || skip "needs root"
	BWRAP_EXTRA="--cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP"
	run -0 in_bwrap "$SECCOMP" -- sh -c 'echo $$; grep -E "^Cap(Eff|Bnd):" /proc/self/status'
	[ "${lines[0]}" = 2 ]
	[ "${lines[1]}" = "CapEff:	0000000000000000" ]
	[ "${lines[2]}" = "CapBnd:	0000000000000000" ]
	run -0 in_bwrap "$SECCOMP" -- env TMPDIR="$T" "$PROBE" $(names "$BLOCKED_DEFAULT")
	[ "$output" = "$BLOCKED_DEFAULT" ]
}

@test "--pid1 inside bwrap as root: PID 1 itself, no nesting, /proc covered, all dropped" {
	bwrap_ready
	is_root || skip "needs root"
	BWRAP_EXTRA="--as-pid-1 --cap-add CAP_SYS_ADMIN --cap-add CAP_SETPCAP"
	run -0 in_bwrap "$SECCOMP" --pid1 -d -- sh -c 'echo $$; tr "\0" " " </proc/1/cmdline; echo
	    grep -E "^(NoNewPrivs|Seccomp|CapEff|CapBnd):" /proc/self/status
	    awk "\$5 == \"/proc/sys\" { print \$6 }" /proc/self/mountinfo | tail -1' 2>&1
	[[ "$output" == *"PID 1 already"* ]]
	[[ "$output" != *"namespaces ready"* ]]
	printf '%s\n' "$output" | grep -qx 2
	[[ "$output" == *"--pid1"* ]]
	[[ "$output" == *"NoNewPrivs:	1"* ]]
	[[ "$output" == *"Seccomp:	2"* ]]
	[[ "$output" == *"CapEff:	0000000000000000"* ]]
	[[ "$output" == *"CapBnd:	0000000000000000"* ]]
	printf '%s\n' "$output" | grep -q '^ro,'
	run -0 in_bwrap "$SECCOMP" --pid1 -- env TMPDIR="$T" "$PROBE" $(names "$BLOCKED_DEFAULT")
	[ "$output" = "$BLOCKED_DEFAULT" ]
	run in_bwrap "$SECCOMP" --pid1 -- sh -c 'exit 7'
	[ "$status" -eq 7 ]
}

@test "--pid1 refuses where it is not PID 1, or /proc is another namespace's" {
	run "$SECCOMP" --pid1 -- sh -c 'echo RAN'
	[ "$status" -eq 125 ]
	[[ "$output" == *"--pid1: this process is PID"*"not PID 1"* ]]
	[[ "$output" != *RAN* ]]
	is_root || skip "needs root for unshare -p"
	# PID 1 of a new namespace, but /proc is still the caller's.
	run unshare -p -f -- "$SECCOMP" --pid1 -- sh -c 'echo RAN'
	[ "$status" -eq 125 ]
	[[ "$output" == *"--pid1: /proc belongs to another PID namespace"* ]]
	[[ "$output" != *RAN* ]]
}

@test "--lifeline-fd: the command dies when the launcher's end closes, never starts after" {
	# the launcher's end closes while the command runs: the command is killed at once
	run -0 python3 "$BATS_TEST_DIRNAME/../helpers/seccomp-lifeline.py" "$SECCOMP" open
	[ "${lines[0]}" = started ]
	# the lifeline itself never reaches the command (ls's own descriptor is the 3)
	[ "${lines[1]}" = "fds: 0 1 2 3" ]
	[[ "$output" == *"rc=137"* ]]
	[[ "$output" == *fast* ]]
	# closed before the start: the command never runs
	run -0 python3 "$BATS_TEST_DIRNAME/../helpers/seccomp-lifeline.py" "$SECCOMP" closed
	[[ "$output" != *started* ]]
	[[ "$output" == *"the lifeline is closed (the launcher is gone, or ends the run): not starting"* ]]
	[[ "$output" == *"rc=125"* ]]
	# not a pipe's read end, or not a number: refused
	run "$SECCOMP" --lifeline-fd 1 -- echo RAN
	[ "$status" -eq 125 ]
	[[ "$output" != *RAN* ]]
	run "$SECCOMP" --lifeline-fd x -- echo RAN
	[ "$status" -eq 125 ]
	[[ "$output" == *"--lifeline-fd: not a descriptor number above 2: x"* ]]
}

@test "a failed step exits 125 with STEP: strerror and never runs the command" {
	bwrap_ready
	is_root || skip "needs root (uid 0 without capabilities cannot map itself)"
	run in_bwrap "$SECCOMP" -- touch "$T/ran"
	[ "$status" -eq 125 ]
	[[ "${lines[0]}" == "srt-seccomp: write /proc/self/uid_map: Operation not permitted" ]]
	[[ "$output" == *"CAP_SYS_ADMIN and CAP_SETPCAP"* ]]
	[ ! -e "$T/ran" ]
	# CAP_SYS_ADMIN without CAP_SETPCAP: the bounding set cannot be emptied.
	BWRAP_EXTRA="--cap-add CAP_SYS_ADMIN"
	run in_bwrap "$SECCOMP" -- touch "$T/ran"
	[ "$status" -eq 125 ]
	[ "$output" = "srt-seccomp: cap_drop_bound cap_sys_admin: Operation not permitted" ]
	[ ! -e "$T/ran" ]
}

@test "an unwritable --emit-bpf file exits 125 before the command runs" {
	run "$SECCOMP" --emit-bpf "$T/no/such/dir/f.bpf" -- touch "$T/ran"
	[ "$status" -eq 125 ]
	[ "$output" = "srt-seccomp: open $T/no/such/dir/f.bpf: No such file or directory" ]
	[ ! -e "$T/ran" ]
}
