#!/usr/bin/env bats
# Escape battery: the write guard's end-of-run pointer check (issue #28) when srt itself
# is killed. git writes a worktree's commondir through its own descriptor, so the
# supervisor notes it and judges what it says once the command is gone; an agent
# harness that times out sends srt SIGKILL, which must not skip that check.
load helpers
load guard

# helpers.bash's teardown, kept under another name: ours adds to it.
eval "sec_$(declare -f teardown)"

teardown() {
	if [ -n "${KUSER:-}" ]; then
		pkill -KILL -u "$KUSER" 2>/dev/null
		userdel "$KUSER" 2>/dev/null
	fi
	sec_teardown
}

# as_user CMD...: how to run CMD as the test's user $KUSER (none: as we are), in $AS.
as_user() {
	AS=()
	if [ -n "${KUSER:-}" ]; then
		AS=(setpriv --reuid="$KUSER" --regid=nogroup --clear-groups -- env HOME="$HOME")
	fi
}

# A worktree's commondir rewritten to a directory the command filled (a config with
# core.fsmonitor), then the command waits and srt is killed with SIGKILL. The sandbox's
# PID 1 still judges the pointer and takes it away before it ends; the user's git status
# in the worktree, on the host, must not run the fsmonitor. The command leaves 300
# processes behind, which PID 1 kills and reaps before it reads the pointers: the check
# then comes well after srt's death (without that, whether a killer from outside or the
# check came first was a race, which the check won now and then).
pointer_kill() {
	local reader srt_pid
	need_tool
	srt_only
	repo_init "$T/work"
	gsettings '["."]'
	attempt_script main '
plant fsm.sh
step worktree "git worktree add -q wt1 -b b1"
mkdir -p evil && cp -r .git/objects .git/refs .git/config evil/ && fsmon_config evil/config
step replace "rm -f .git/worktrees/wt1/commondir && echo \"$PWD/evil\" >.git/worktrees/wt1/commondir"
for i in $(seq 300); do sleep 600 & done
: >.ready-main
exec sleep 600'
	if [ -n "${KUSER:-}" ]; then
		chown -R "$KUSER" "$T"
		chmod 755 "$T"
	fi
	# Every process of the run (bwrap, srt-seccomp, the command, srt's keeper) holds
	# srt's stderr: its EOF says they are all gone.
	mkfifo "$T/err-fifo"
	timeout 30 cat "$T/err-fifo" >"$T/err" &
	reader=$!
	as_user
	# exec, and setpriv and env exec too: the background job is srt itself.
	(cd "$CWD" && exec "${AS[@]}" "$SRT" -s "$SETTINGS" -c ". '$T/attempt-main.sh'" \
		</dev/null >"$T/out" 2>"$T/err-fifo") &
	srt_pid=$!
	echo "$srt_pid" >>"$T/pids"
	ready main
	kill -KILL "$srt_pid"
	wait "$srt_pid" 2>/dev/null || true
	sed -i "/^$srt_pid\$/d" "$T/pids"
	ST=killed
	wait "$reader" || finding BROKEN "processes of the run still there 30 s after srt's SIGKILL"
	log_run main
	allowed worktree replace
	if grep -qs evil "$T/work/.git/worktrees/wt1/commondir"; then
		finding ESCAPED "the planted commondir stayed: $(cat "$T/work/.git/worktrees/wt1/commondir")"
	fi
	victim "git status in the worktree" "$T/work/wt1" "${AS[@]}" git status
	verdict
}

# reference 0.0.83: ESCAPED (it never checks a commondir, killed or not: see 48 and 52)
@test "SIGKILL of srt does not skip the end-of-run check of a planted commondir" {
	pointer_kill
}

# As a user srt-seccomp nests: PID 1 of its own PID namespace runs under a parent
# process of srt-seccomp (PID 1 of bwrap's), which must not kill it on the lifeline's end.
@test "SIGKILL of srt run by a user does not skip the end-of-run check of a planted commondir" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to create the test user"
	command -v useradd >/dev/null && command -v setpriv >/dev/null ||
		skip "needs useradd and setpriv"
	KUSER="srtk$$${RANDOM}"
	useradd -M -N -d /nonexistent -s /bin/sh "$KUSER"
	pointer_kill
}
