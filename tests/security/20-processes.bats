#!/usr/bin/env bats
# Escape battery, processes: what lives outside the sandbox must be invisible and out of
# reach: ptrace, /proc/PID/mem, signals, kill -0; the sandbox's own PID 1 (srt-seccomp's
# reaper, which runs without the command's filter) must not be a way out either; the
# terminal the sandbox was started from must not take injected input (TIOCSTI).
# The outside process is target.py, started by the test, labelled with a random marker,
# recording every SIGCONT it gets; it is killed by pid in teardown.
load helpers

@test "control: outside any sandbox the probes do reach the target" {
	# Without this, a probe that can never succeed would make the tests below vacuous.
	need_srt
	target_start
	run "$PROBE" proc-scan "$TMARK"
	[ "$status" -eq 1 ]
	run "$PROBE" kill0 "$TPID" "$TMARK"
	[ "$status" -eq 1 ]
	run "$PROBE" signal "$TPID" "$TMARK"
	[ "$status" -eq 1 ]
	for i in $(seq 50); do grep -q SIGCONT "$T/target.sig" && break; sleep 0.1; done
	grep -q SIGCONT "$T/target.sig"
	if [ "$(id -u)" -eq 0 ]; then
		run "$PROBE" proc-mem "$TPID" "$TMARK"
		[ "$status" -eq 1 ]
		run "$PROBE" ptrace "$TPID" "$TMARK"
		[ "$status" -eq 1 ]
		kill -0 "$TPID"
	fi
}

@test "processes outside are not visible in /proc" {
	need_srt
	target_start
	sec_settings
	probe_blocked proc-scan "$TMARK"
}

@test "ptrace: attaching to a process outside fails" {
	need_srt
	target_start
	sec_settings
	probe_blocked ptrace "$TPID" "$TMARK"
}

@test "/proc/PID/mem: a process outside cannot be opened" {
	need_srt
	target_start
	sec_settings
	probe_blocked proc-mem "$TPID" "$TMARK"
}

@test "kill -0: a process outside cannot be probed" {
	need_srt
	target_start
	sec_settings
	probe_blocked kill0 "$TPID" "$TMARK"
	# The shell's own kill, as a command would use it.
	in_srt "kill -0 $TPID 2>/dev/null && [ -r /proc/$TPID/cmdline ] && grep -q 'tgt$MARK' /proc/$TPID/cmdline && echo ESCAPED kill -0 reached the target || echo BLOCKED"
	assert_blocked
}

@test "signals: SIGCONT does not reach a process outside" {
	need_srt
	target_start
	sec_settings
	probe_blocked signal "$TPID" "$TMARK"
	in_srt "kill -CONT $TPID 2>/dev/null; echo BLOCKED sent"
	assert_blocked
	# The target records any SIGCONT; give a late delivery time to show.
	sleep 0.5
	echo "target saw: $(cat "$T/target.sig")" >&2
	if grep -q SIGCONT "$T/target.sig"; then
		echo "ESCAPED: the outside target received SIGCONT" >&2
		false
	fi
	kill -0 "$TPID"
}

# Runs escape-probe $1 on PID 1 inside srt, once PID 1 is known to be srt-seccomp: on
# any other PID 1 (no PID namespace: the host's init) the test fails without probing.
reaper_probe() {
	in_srt "grep -q srt-seccomp /proc/1/cmdline || { echo 'PID 1 is not srt-seccomp'; exit 3; }
$(printf '%q' "$PROBE") $1 1 srt+-seccomp"
	assert_blocked
}

@test "the sandbox's PID 1 (the reaper) cannot be traced" {
	need_srt
	sec_settings
	reaper_probe ptrace
}

@test "the sandbox's PID 1 (the reaper) memory cannot be opened" {
	need_srt
	sec_settings
	reaper_probe proc-mem
}

@test "the sandbox's PID 1 (the reaper) descriptors cannot be opened" {
	need_srt
	sec_settings
	reaper_probe proc-fd
}

@test "the launcher, bwrap, the proxies and the test's processes are not visible in /proc" {
	need_srt
	target_start
	sec_settings
	# They all run outside the sandbox's PID namespace. The scan is a script so that its own command line names none of them.
	cat >"$T/work/scan.sh" <<'SH'
for p in /proc/[0-9]*; do
	a=$(tr '\0' '\n' <"$p/cmdline" 2>/dev/null | head -n 1)
	case "${a##*/}" in
	srt|srt-launch|srt-httpd|srt-socksd|bwrap|bats*|target.py|python3*)
		echo "ESCAPED visible: ${p#/proc/} $a" ;;
	esac
done
echo BLOCKED scan done
SH
	in_srt 'sh scan.sh'
	assert_blocked
}

# Runs $1 under srt with a pseudo-terminal the test creates (never the developer's
# terminal) as controlling terminal, stdin, stdout and stderr. Prints what the pty
# showed; exits with the command's status.
in_pty() {
	run timeout 40 "$PY" "$SRT_TESTDIR/helpers/pty-shell.py" "$T/work" "$1"
}

@test "TIOCSTI: no input can be pushed into the terminal srt was started from" {
	need_srt
	sec_settings
	# Control: outside the sandbox, on the test's pty, the same ioctl works (where the
	# kernel allows it at all); the pushed '#' goes to that pty only.
	in_pty "$(printf '%q' "$PROBE") tiocsti"
	echo "outside: $output" >&2
	[ "$(cat /proc/sys/dev/tty/legacy_tiocsti 2>/dev/null || echo 1)" = 0 ] ||
		grep -q 'ESCAPED TIOCSTI' <<<"$output"
	in_pty "timeout 30 $(printf '%q' "$SRT") -s $(printf '%q' "$T/srt.json") -c $(printf '%q' "$(printf '%q' "$PROBE") tiocsti")"
	assert_blocked
}

@test "the sandbox's PID 1 (the reaper) descriptors cannot be taken with pidfd_getfd" {
	need_srt
	sec_settings
	reaper_probe pidfd-getfd
}

@test "keyrings: a key in the session keyring srt was started from cannot be read" {
	need_srt
	sec_settings
	# The key lives in a new anonymous session keyring made for this test only.
	# Control: a process of that session, outside the sandbox, reads it.
	run "$PROBE" keyring-session "srtsec-$MARK" "$SECRET" "$PROBE" keyring "srtsec-$MARK" "$SECRET"
	[ "$status" -eq 1 ]
	run bash -c 'cd "$T/work" && exec timeout 30 "$PROBE" keyring-session "srtsec-$MARK" "$SECRET" \
		"$SRT" -s "$T/srt.json" -c "$1 keyring srtsec-$MARK $SECRET" </dev/null' _ \
		"$(printf '%q' "$PROBE")"
	assert_blocked
}

@test "System V IPC: a shared memory segment of the host cannot be read" {
	need_srt
	sec_settings
	key=$((0x${MARK:0:7} | 0x10000000))
	"$PROBE" shm-create "$key" "$SECRET" >>"$T/shmids"
	# Control: outside the sandbox, the same uid reads it.
	run "$PROBE" sysv-shm "$key" "$SECRET"
	[ "$status" -eq 1 ]
	probe_blocked sysv-shm "$key" "$SECRET"
}
