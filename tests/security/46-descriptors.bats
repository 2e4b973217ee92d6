#!/usr/bin/env bats
# Escape battery, the write guard (issue #28, items 2 and 3): what the command reaches
# through descriptors rather than names.
#   - /proc/self/fd/N is the process's descriptor table (its leader's), not the calling
#     thread's: a thread with a table of its own (unshare(CLONE_FILES)) must not get
#     the process's read-only descriptor reopened for writing because its own N was
#     opened for writing; /proc/thread-self/fd/N and /proc/PID/task/TID/fd/N are that
#     thread's table; /proc/PID/fd/N of another process is not followed at all;
#   - a directory srt is given as a descriptor (srt -c CMD <DIR; srt passes 0-2 only,
#     and the command copies it where it likes: 3<&0) was opened on the host, on the
#     host's mount, where the sandbox's read-only binds do not apply: names made,
#     changed, removed or renamed through it (/proc/self/fd/0/NAME, the *at calls with
#     it as dirfd, fchdir to it, chmod and xattrs on it) are decided as the same names
#     spelled directly: outside every write root, EROFS ("not in allowWrite"), and
#     inside one, allowed;
#   - what the user gives the command for writing stays the user's choice: >> out.txt
#     (in a write root or not), /dev/null, a pipe, process substitution, and reopening
#     that descriptor through /proc/self/fd/1.
# The host directory outside the write roots is the test's own $T/outside; the probe
# (fd-probe.py) only ever acts there and in the work tree.
load helpers
load guard

ROFS="Read-only file system"

# Like need_tool, without the C helpers this suite does not use.
need_fd_tool() {
	if [ "$GUARD_TOOL" = ref ]; then
		need_tool
		return
	fi
	[ -x "$SRT" ] || skip "srt is not built ($SRT missing)"
	command -v bwrap >/dev/null || { echo "bwrap not installed" >&2; return 1; }
	[ -x "$PY" ] || { echo "python3 missing" >&2; return 1; }
}

# fd_run NAME REDIRECTIONS: runs $T/attempt-NAME.sh (attempt_script) under the tool from
# $CWD with standard input /dev/null and then REDIRECTIONS (bash text, such as
# "<'$T/outside'"); $T/out, $T/err and $ST are what it left.
fd_run() {
	local name=$1 redir=$2 tool
	if [ "$GUARD_TOOL" = ref ]; then
		tool="node '$REF_CLI' --settings '$SETTINGS'"
	else
		tool="'$SRT' -s '$SETTINGS'"
	fi
	ST=0
	(cd "$CWD" && eval "exec timeout 60 $tool -c \". '$T/attempt-$name.sh'\" </dev/null $redir") \
		>"$T/out" 2>"$T/err" || ST=$?
	log_run "$name"
	grep -q '^ATTEMPT DONE$' "$T/out" || finding BROKEN "run $name did not reach the end (status $ST)"
}

# The host's directory outside every write root, with one file in it.
outside_dir() {
	mkdir -p "$T/outside"
	echo "original" >"$T/outside/data.txt"
	chmod 0644 "$T/outside/data.txt"
	chmod 0755 "$T/outside"
	gsettings '["."]'
}

# mode_kept PATH MODE: the host's PATH still has MODE (path_state does not look at a
# directory's mode).
mode_kept() {
	local now
	now=$(stat -c %a "$1")
	[ "$now" = "$2" ] || finding ESCAPED "mode of $1 changed on the host: $2 -> $now"
}

# --- item 2: the table the kernel uses ----------------------------------------------------

# The user gives a read-only file outside the write roots on standard input. A thread
# with its own table opens its own file for writing at 0, then /proc/self/fd/0: the
# kernel resolves that in the process's table (the file srt was given, read-only).
# reference 0.0.83: ESCAPED (nothing supervises the open: the file's mount is the host's).
@test "descriptors: /proc/self/fd/0 reopened for writing by a thread with a table of its own" {
	need_fd_tool
	outside_dir
	keep "$T/outside/data.txt"
	attempt_script main '
step own "\"$PY\" \"$FDP\" own-table 0 mine"'
	fd_run main "<'$T/outside/data.txt'"
	refused own -- "Permission denied"
	verdict
}

# The same descriptor seen through each /proc path that names a table: the leader opens
# /proc/self/task/TID/fd/0 (the thread's own table, where 0 is still the read-only file)
# after it put its own writable file at 0 in the process's table; the thread opens
# /proc/thread-self/fd/0; the parent opens /proc/CHILD/fd/0 of a child holding the
# read-only file (a process's table that is not the caller's: refused).
# reference 0.0.83: thread-self ESCAPED; task-fd and child-fd fail with ENOENT there (its
# /proc does not show those numbers), not refused.
@test "descriptors: /proc/PID/task/TID/fd, /proc/thread-self/fd and another process's fd are their own tables" {
	need_fd_tool
	outside_dir
	keep "$T/outside/data.txt"
	attempt_script main '
step task "\"$PY\" \"$FDP\" task-fd 0 mine1"
step thread "\"$PY\" \"$FDP\" thread-self 0 mine2"
step child "\"$PY\" \"$FDP\" child-fd 0"'
	fd_run main "<'$T/outside/data.txt'"
	refused task thread child -- "Permission denied"
	verdict
}

# --- item 3: a directory given as a descriptor ----------------------------------------

# srt -c CMD <DIR: the names are made in the host's DIR through /proc/self/fd/0/.
# reference 0.0.83: ESCAPED (touch, mkdir, overwrite, rm and mv all succeed).
@test "descriptors: a directory on standard input, names made through /proc/self/fd/0/" {
	need_fd_tool
	outside_dir
	keep "$T/outside/x" "$T/outside/d" "$T/outside/data.txt" "$T/outside/moved"
	attempt_script main '
step touch "touch /proc/self/fd/0/x"
step mkdir "mkdir /proc/self/fd/0/d"
step write "echo changed >/proc/self/fd/0/data.txt"
step mv "mv /proc/self/fd/0/data.txt /proc/self/fd/0/moved"
step rm "rm -f /proc/self/fd/0/data.txt"'
	fd_run main "<'$T/outside'"
	if [ "$GUARD_TOOL" = srt ]; then
		refused touch mkdir write mv rm -- "$ROFS"
		grep -q "deny file-write $T/outside/x (not in allowWrite)" "$T/err" ||
			finding NO-WARNING "no violation line names $T/outside/x as not in allowWrite"
	fi
	verdict
}

# <DIR: every call that takes a directory descriptor, with the inherited one (copied to
# 3 by the command's shell: Python will not start with a directory on standard input),
# as the directory of both names and of one of them (a rename or link between it and
# the work tree).
# reference 0.0.83: ESCAPED (every step in the host's directory alone succeeds; unlinkat
# finds nothing left to remove after renameat; between it and the work tree, EXDEV).
@test "descriptors: an inherited directory descriptor as the dirfd of openat, mkdirat, symlinkat, mknodat, renameat, linkat, unlinkat, O_TMPFILE, fchdir" {
	need_fd_tool
	outside_dir
	keep "$T/outside/x" "$T/outside/d" "$T/outside/l" "$T/outside/p" \
		"$T/outside/data.txt" "$T/outside/moved" "$T/outside/hard" "$T/outside/tmp" \
		"$T/outside/cwd" "$T/outside/planted" "$T/outside/linked"
	attempt_script main '
step openat "\"$PY\" \"$FDP\" openat 3 x 3<&0 </dev/null"
step mkdirat "\"$PY\" \"$FDP\" mkdirat 3 d 3<&0 </dev/null"
step symlinkat "\"$PY\" \"$FDP\" symlinkat 3 l 3<&0 </dev/null"
step mknodat "\"$PY\" \"$FDP\" mknodat 3 p 3<&0 </dev/null"
step linkat "\"$PY\" \"$FDP\" linkat 3 data.txt hard 3<&0 </dev/null"
step renameat "\"$PY\" \"$FDP\" renameat 3 data.txt moved 3<&0 </dev/null"
step renameout "\"$PY\" \"$FDP\" rename-out 3 data.txt stolen 3<&0 </dev/null"
step renamein "echo planted >mine && \"$PY\" \"$FDP\" rename-in 3 mine planted 3<&0 </dev/null"
step linkin "\"$PY\" \"$FDP\" link-in 3 mine linked 3<&0 </dev/null"
step tmpfile "\"$PY\" \"$FDP\" tmpfile 3 tmp 3<&0 </dev/null"
step fchdir "\"$PY\" \"$FDP\" fchdir 3 cwd 3<&0 </dev/null"
step unlinkat "\"$PY\" \"$FDP\" unlinkat 3 data.txt 3<&0 </dev/null"'
	fd_run main "<'$T/outside'"
	if [ "$GUARD_TOOL" = srt ]; then
		refused openat mkdirat symlinkat mknodat renameat linkat tmpfile fchdir \
			unlinkat -- "$ROFS"
	fi
	# Between the host's directory and the work tree the kernel says EXDEV first.
	for n in renameout renamein linkin; do
		if grep -q "^STEP $n ok" "$T/out"; then
			finding ALLOWED "step $n succeeded"
		fi
	done
	verdict
}

# Changes to what is there, through the inherited directory and the file given on
# standard input: fchmod, chmod through /proc/self/fd/N, an extended attribute, and
# fchmod (0666: writable by every local user) and fchown of a file opened read-only
# through the directory.
# reference 0.0.83: ESCAPED (every step succeeds on the host's directory and file).
@test "descriptors: fchmod, chmod through /proc/self/fd and fsetxattr on inherited descriptors" {
	need_fd_tool
	outside_dir
	keep "$T/outside/data.txt"
	attempt_script main '
step fchmod "\"$PY\" \"$FDP\" fchmod 3 0777 3<&0 </dev/null"
step chmoddir "\"$PY\" \"$FDP\" chmod-proc 3 0711 3<&0 </dev/null"
step fchmodat "\"$PY\" \"$FDP\" fchmod-at 3 data.txt 0666 3<&0 </dev/null"
step fchownat "\"$PY\" \"$FDP\" fchown-at 3 data.txt 3<&0 </dev/null"
step xattr "\"$PY\" \"$FDP\" fsetxattr 3 3<&0 </dev/null"'
	fd_run main "<'$T/outside'"
	cp "$T/out" "$T/out-dir"
	attempt_script file '
step chmodproc "\"$PY\" \"$FDP\" chmod-proc 0 0700"'
	fd_run file "<'$T/outside/data.txt'"
	cat "$T/out-dir" >>"$T/out"
	mode_kept "$T/outside" 755
	mode_kept "$T/outside/data.txt" 644
	if getfattr -n user.srt-test "$T/outside" >/dev/null 2>&1; then
		finding ESCAPED "an extended attribute was set on $T/outside"
	fi
	if [ "$GUARD_TOOL" = srt ]; then
		refused fchmod chmodproc chmoddir fchmodat fchownat -- "$ROFS"
		# A file system without user attributes says so instead: either way, none.
		line=$(grep -m1 '^STEP xattr ' "$T/out") || true
		case $line in
		*"$ROFS"* | *"Operation not supported"*) ;;
		*) finding ALLOWED "fsetxattr: $line" ;;
		esac
	fi
	verdict
}

# allowAllUnixSockets: bind(2) is the supervisor's, and a socket's name through the
# inherited directory is a name made there.
# reference 0.0.83: ESCAPED (the socket is made in the host's directory).
@test "descriptors: allowAllUnixSockets, a socket bound through an inherited directory" {
	need_fd_tool
	outside_dir
	cat >"$SETTINGS" <<JSON
{
  "network": { "allowedDomains": [], "deniedDomains": [], "allowAllUnixSockets": true },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	keep "$T/outside/sock"
	attempt_script main '
step bind "\"$PY\" \"$FDP\" bind 3 sock 3<&0 </dev/null"'
	fd_run main "<'$T/outside'"
	if [ "$GUARD_TOOL" = srt ]; then
		refused bind -- "$ROFS"
	fi
	verdict
}

# --- what must keep working -----------------------------------------------------------

# A directory in the write root given as a descriptor is the sandbox's writable one:
# names made through it are made (decided as the names spelled directly).
@test "descriptors: a directory inside the write root, given as a descriptor, stays writable" {
	need_fd_tool
	srt_only
	gsettings '["."]'
	mkdir -p "$T/work/sub"
	attempt_script main '
step touch "touch /proc/self/fd/0/x"
step mkdir "mkdir /proc/self/fd/0/d"
step openat "\"$PY\" \"$FDP\" openat 3 y 3<&0 </dev/null"
step renameat "\"$PY\" \"$FDP\" renameat 3 y z 3<&0 </dev/null"
step unlinkat "\"$PY\" \"$FDP\" unlinkat 3 z 3<&0 </dev/null"'
	fd_run main "<'$T/work/sub'"
	allowed touch mkdir openat renameat unlinkat
	[ -f "$T/work/sub/x" ] || finding REFUSED "sub/x was not made"
	[ -d "$T/work/sub/d" ] || finding REFUSED "sub/d was not made"
	verdict
}

# What the user hands the command for writing is the user's choice, in a write root or
# not: >> redirections, /dev/null, a pipe, process substitution, and the same stdout
# reopened through /proc/self/fd/1 (tee /dev/stdout, cmd -o /dev/stdout).
@test "descriptors: >> out.txt in and outside the write root, /dev/null, a pipe, process substitution" {
	need_fd_tool
	srt_only
	outside_dir
	cd "$T/work"
	run bash -c 'exec timeout 60 "$SRT" -s "$SETTINGS" -c "echo inside" >>"$T/work/in.txt"'
	[ "$status" -eq 0 ] || finding REFUSED ">> in the write root: status $status"
	run bash -c 'exec timeout 60 "$SRT" -s "$SETTINGS" -c "echo outside; echo again >>/proc/self/fd/1" >>"$T/outside/out.txt"'
	[ "$status" -eq 0 ] || finding REFUSED ">> outside the write root: status $status"
	run bash -c 'exec timeout 60 "$SRT" -s "$SETTINGS" -c "echo null" >/dev/null'
	[ "$status" -eq 0 ] || finding REFUSED "> /dev/null: status $status"
	run bash -c 'exec timeout 60 "$SRT" -s "$SETTINGS" -c "echo piped; echo twice >/proc/self/fd/1" | cat >"$T/piped.txt"'
	[ "$status" -eq 0 ] || finding REFUSED "| cat: status $status"
	run bash -c 'exec timeout 60 "$SRT" -s "$SETTINGS" -c "echo subst" > >(cat >"$T/subst.txt")'
	[ "$status" -eq 0 ] || finding REFUSED "> >(cat): status $status"
	[ "$(cat "$T/work/in.txt")" = inside ] || finding REFUSED "in.txt: $(cat "$T/work/in.txt")"
	[ "$(cat "$T/outside/out.txt")" = "outside
again" ] || finding REFUSED "out.txt: $(cat "$T/outside/out.txt")"
	[ "$(cat "$T/piped.txt")" = "piped
twice" ] || finding REFUSED "piped.txt: $(cat "$T/piped.txt")"
	for _ in $(seq 100); do
		[ -s "$T/subst.txt" ] && break
		sleep 0.1
	done
	[ "$(cat "$T/subst.txt")" = subst ] || finding REFUSED "subst.txt: $(cat "$T/subst.txt")"
	verdict
}
