#!/usr/bin/env bats
# Escape battery, lifetime: nothing the command starts may outlive the run (a process
# left behind keeps whatever it can reach after the user thinks the sandbox is gone),
# whether srt ends normally or is killed; and srt's own clean-up on the host, which runs
# unsandboxed, must not be turned against the host by links the command left in its
# temporary directory.
load helpers

# Pids (one a line) of processes whose command line holds $1, on the host.
pids_with() {
	pgrep -f -- "$1" || true
}

# Fails if a process labelled $1 is still running after up to 5 s; kills it (by pid).
none_left() {
	local i left
	for i in $(seq 50); do
		left=$(pids_with "$1")
		[ -z "$left" ] && return 0
		sleep 0.1
	done
	echo "ESCAPED: still running after the run: $left" >&2
	# shellcheck disable=SC2086
	kill $left 2>/dev/null
	return 1
}

@test "a background process of the command does not outlive a normal run" {
	need_srt
	sec_settings
	# The label is split in the command so that only the started process carries it whole
	# (and the wait for both to run looks for it with a pattern that is not it).
	in_srt "setsid bash -c 'exec -a srtsec-\$1 sleep 30' _ $MARK </dev/null >/dev/null 2>&1 &
nohup bash -c 'exec -a srtsec2-\$1 sleep 30' _ $MARK </dev/null >/dev/null 2>&1 &
i=0
until { pgrep -f 'srtse[c]-$MARK' && pgrep -f 'srtse[c]2-$MARK'; } >/dev/null || [ \$i -ge 200 ]; do
	sleep 0.05; i=\$((i + 1))
done
echo BLOCKED started"
	[ "$status" -eq 0 ]
	none_left "srtsec-$MARK"
	none_left "srtsec2-$MARK"
}

@test "SIGKILL of srt leaves no process of the run behind" {
	need_srt
	sec_settings '["example.com"]'
	(cd "$T/work" && exec timeout 60 "$SRT" -s "$T/srt.json" -c \
		"bash -c 'exec -a srtsec-\$1 sleep 30' _ $MARK" </dev/null >"$T/srt.out" 2>&1 3>&-) &
	echo $! >>"$T/pids"
	for i in $(seq 100); do
		[ -n "$(pids_with "srtsec-$MARK")" ] && break
		sleep 0.1
	done
	[ -n "$(pids_with "srtsec-$MARK")" ] || { cat "$T/srt.out" >&2; false; }
	# Every process of the run: the descendants of timeout (srt, bwrap, the proxies...).
	tpid=$(tail -n 1 "$T/pids")
	tree=$(ps -e -o pid=,ppid= | awk -v top="$tpid" '
		{ parent[$1] = $2 }
		END {
			in_tree[top] = 1
			do {
				grew = 0
				for (p in parent)
					if (!(p in in_tree) && (parent[p] in in_tree)) { in_tree[p] = 1; grew = 1 }
			} while (grew)
			for (p in in_tree) if (p != top) print p
		}')
	echo "run:" $tree >&2
	# srt is the program timeout runs: kill it as the OOM killer or a user would.
	srt_pid=$(ps -o pid= --ppid "$tpid" | tr -d ' ' | head -n 1)
	[ -n "$srt_pid" ]
	kill -KILL "$srt_pid"
	left=
	for i in $(seq 50); do
		left=
		for p in $tree; do
			[ "$p" = "$srt_pid" ] && continue
			[ -d "/proc/$p" ] && [ "$(cut -d' ' -f3 "/proc/$p/stat" 2>/dev/null)" != Z ] && left+=" $p"
		done
		[ -z "$left" ] && break
		sleep 0.1
	done
	if [ -n "$left" ]; then
		for p in $left; do
			echo "ESCAPED: outlived srt: $p $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null)" >&2
		done
		# shellcheck disable=SC2086
		kill -KILL $left 2>/dev/null
		false
	fi
	none_left "srtsec-$MARK"
}

@test "srt's clean-up does not follow links the command left in its TMPDIR" {
	need_srt
	mkdir -p "$T/victim/sub"
	echo keep >"$T/victim/file"
	echo keep >"$T/victim/sub/file"
	sec_settings
	in_srt "cd \"\$TMPDIR\" && ln -s $(printf '%q' "$T/victim") l1 && mkdir d && ln -s $(printf '%q' "$T/victim") d/l2 &&
ln -s $(printf '%q' "$T/victim/file") l3 && ln -s $(printf '%q' "$T/victim/sub") l4 && echo \"BLOCKED tmp \$TMPDIR\""
	[ "$status" -eq 0 ]
	grep -q '^BLOCKED tmp ' <<<"$output"
	tmp=$(sed -n 's/^BLOCKED tmp //p' <<<"$output")
	[ "$(cat "$T/victim/file")" = keep ] || { echo "ESCAPED: clean-up removed $T/victim/file" >&2; false; }
	[ "$(cat "$T/victim/sub/file")" = keep ] || { echo "ESCAPED: clean-up removed $T/victim/sub/file" >&2; false; }
	# The private TMPDIR is not the host's own /tmp, and the clean-up did run (it is gone),
	# so the links above were in its way.
	[ -n "$tmp" ]
	[ "$tmp" != /tmp ]
	[ "$tmp" != /var/tmp ]
	[ "$tmp" != "${TMPDIR:-}" ]
	[ ! -e "$tmp" ] || { echo "TMPDIR $tmp was not removed" >&2; false; }
}
