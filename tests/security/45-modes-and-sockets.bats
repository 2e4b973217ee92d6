#!/usr/bin/env bats
# Escape battery, the write guard (issue #28, items 4 and 5): modes and names that outlive
# the run.
#   - S_ISUID and S_ISGID on a file: run by root, a command that leaves a set-user-ID
#     program in the work tree gives every local user root (and, run by anyone, that
#     user's account). No call may set them on a file that is not a directory: the chmod
#     family, open/creat and O_TMPFILE modes, mknod; nor a file capability (the
#     security.capability attribute). With the write guard the supervisor removes the
#     bits and the call succeeds without them (tar, cp -a and install of such a file
#     work); without it (--unguarded) the filter refuses them by argument.
#   - S_IWOTH: a work tree, a .git, its hooks or its config that every local user may
#     write (chmod 777 ., a clone made under umask 0) lets another user plant a hook or
#     a config that runs as this one (as root, when root runs srt). No mode the guard's
#     supervisor sets or makes carries it, on files and directories alike, sticky ones
#     included; the call succeeds without it. --unguarded is left alone: the filter
#     cannot tell a mode mkdir or open would make (before the umask) from one that
#     stays, and refusing chmod alone would close none of them.
#   - bind(2) makes a name like open(O_CREAT) does: a socketpair(AF_UNIX) socket (always
#     allowed) bound at .git/commondir breaks every later git command of the user's in
#     that repository, at .bashrc or .envrc it is a file the next shell or direnv reads.
#     Every call that makes a name goes through the same decision: bind, mknod of a FIFO
#     or a socket, a link of an O_TMPFILE file (through /proc/self/fd or AT_EMPTY_PATH),
#     renameat2's RENAME_WHITEOUT, symlink.
# Every attack only makes files in the test's own work tree; a set-user-ID program left
# by a failing sandbox is a copy of /bin/true, removed with the test's directory.
load helpers
load guard

# An unprivileged user for the test that runs srt as one (tests/launch/unpriv.bats
# does the same), removed after the file.
setup_file() {
	MODES_USER=""
	if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null &&
		command -v setpriv >/dev/null; then
		MODES_USER="srtm$$${RANDOM}"
		useradd -M -N -d /nonexistent -s /bin/sh "$MODES_USER" || MODES_USER=""
	fi
	export MODES_USER
}

teardown_file() {
	[ -n "${MODES_USER:-}" ] && userdel "$MODES_USER" 2>/dev/null
	return 0
}

# no_setid DIR: nothing below DIR but a directory carries S_ISUID or S_ISGID, and no file
# a capability.
no_setid() {
	local f
	while IFS= read -r f; do
		finding ESCAPED "a set-user-ID or set-group-ID file on the host: $f ($(stat -c %A "$f"))"
	done < <(find "$1" ! -type d -perm /6000)
	while IFS= read -r f; do
		finding ESCAPED "a file capability on the host: $f"
	done < <("$PY" "$MODEOP" caps "$1")
}

# mode_is PATH MODE: the host's file has exactly that mode (stat %a).
mode_is() {
	local now
	now=$(stat -c %a "$1" 2>/dev/null) || now=missing
	[ "$now" = "$2" ] || finding REFUSED "$1 has mode $now, not $2"
}

# The attack of the setuid tests, as steps: every way to give a file S_ISUID or S_ISGID,
# and a file capability.
setid_steps() {
	cat <<'SH'
cp /bin/true p-chmod && step chmod "chmod 4755 p-chmod"
cp /bin/true p-chmod-g && step chmod-g "chmod 2755 p-chmod-g"
cp /bin/true p-plus && step chmod-plus "chmod u+s,g+s p-plus"
cp /bin/true p-fchmod && step fchmod "\"$PY\" \"$MODEOP\" fchmod p-fchmod 4755"
cp /bin/true p-fchmodat && step fchmodat "\"$PY\" \"$MODEOP\" fchmodat p-fchmodat 6755"
cp /bin/true p-fchmodat2 && step fchmodat2 "\"$PY\" \"$MODEOP\" fchmodat2 p-fchmodat2 4755"
step create "\"$PY\" \"$MODEOP\" create p-create 6755"
step create-any "\"$PY\" \"$MODEOP\" create-any p-create-any 4755"
step tmpfile "\"$PY\" \"$MODEOP\" tmpfile . p-tmpfile 4755"
step mknod "\"$PY\" \"$MODEOP\" mknod p-mknod 2755"
cp /bin/true p-cap && step setcap "\"$PY\" \"$MODEOP\" setcap p-cap"
SH
}

# --- S_ISUID and S_ISGID ------------------------------------------------------------

# As root, with the work tree writable: each call succeeds and the file is left without
# the bits (fchmodat2 fails with ENOSYS, as every call the filter's libseccomp does not
# know; C libraries fall back to fchmodat); the file capability is refused.
# reference 0.0.83: ESCAPED (every call leaves its S_ISUID/S_ISGID, fchmodat2 included,
# and the command keeps CAP_SETFCAP: the file capability is set too)
@test "setuid: chmod, fchmod, fchmodat, fchmodat2, open, O_TMPFILE, mknod, file capabilities, as root" {
	need_tool
	[ "$(id -u)" -eq 0 ] || skip "the dangerous case is root's"
	gsettings '["."]'
	attempt "$(setid_steps)"
	allowed chmod chmod-g chmod-plus fchmod fchmodat create create-any tmpfile mknod
	refused setcap
	no_setid "$T/work"
	mode_is "$T/work/p-chmod" 755
	mode_is "$T/work/p-create" 755
	verdict
}

# tar and cp -a restore the modes they are given, install sets the one it is told: with
# the guard they work and say nothing (tar as root restores set-user-ID programs; it
# must not even warn), the
# files get every other bit of their mode, and a directory keeps its S_ISGID.
# reference 0.0.83: ESCAPED (tar, cp -a and install leave every S_ISUID/S_ISGID)
@test "setuid: tar x, cp -a and install -m 4755 of set-user-ID programs work, without the bits" {
	need_tool
	[ "$(id -u)" -eq 0 ] || skip "the dangerous case is root's"
	mkdir -p "$T/src/sub"
	cp /bin/true "$T/src/su" && chmod 4755 "$T/src/su"
	cp /bin/true "$T/src/sg" && chmod 2711 "$T/src/sg"
	echo plain >"$T/src/sub/f" && chmod 2775 "$T/src/sub"
	tar cf "$T/a.tar" -C "$T/src" .
	gsettings '["."]'
	attempt '
step tar "mkdir t1 && w=\$(tar xf \"$T/a.tar\" -C t1 2>&1) && { [ -z \"\$w\" ] || { echo \"tar warned: \$w\"; false; }; }"
step tar-p "mkdir t2 && tar xpf \"$T/a.tar\" -C t2 --same-owner"
step cp "cp -a \"$T/src\" c1"
step install "install -m 4755 /bin/true i1"
step install-g "install -m 2755 /bin/true i2"'
	allowed tar tar-p cp install install-g
	no_setid "$T/work"
	local d
	for d in t1 t2 c1; do
		mode_is "$T/work/$d/su" 755
		mode_is "$T/work/$d/sg" 711
		mode_is "$T/work/$d/sub" 2775
	done
	mode_is "$T/work/i1" 755
	mode_is "$T/work/i2" 755
	verdict
}

# What must keep working: ordinary modes, and directories with S_ISGID. (git init
# --shared makes such directories too, but its core.sharedRepository lets the group
# write the repository, hooks included: the git configuration judge refuses it, which
# 48-git-model's keys cover.) Group write stays: only others' is removed.
# reference 0.0.83: all work.
@test "control: modes: tar x, cp -a, chmod 755, chmod g+s of a directory, mkdir -m 2775, group write" {
	need_tool
	mkdir -p "$T/src/d"
	printf '#!/bin/sh\n' >"$T/src/run" && chmod 755 "$T/src/run"
	echo data >"$T/src/d/data" && chmod 640 "$T/src/d/data"
	tar cf "$T/b.tar" -C "$T/src" .
	gsettings '["."]'
	attempt '
step tar "mkdir t && tar xf \"$T/b.tar\" -C t"
step cp "cp -a \"$T/src\" c"
step chmod "printf x >f && chmod 755 f"
step chmod-dir "mkdir g && chmod g+s g"
step mkdir-m "mkdir -m 2775 m"
step chmod-gw "printf x >h && chmod 664 h && mkdir k && chmod 775 k"
step umask-gw "umask 002 && mkdir u && printf x >u/v"'
	allowed tar cp chmod chmod-dir mkdir-m chmod-gw umask-gw
	mode_is "$T/work/t/run" 755
	mode_is "$T/work/t/d/data" 640
	mode_is "$T/work/c/run" 755
	mode_is "$T/work/c/d/data" 640
	mode_is "$T/work/f" 755
	mode_is "$T/work/g" 2755
	mode_is "$T/work/m" 2775
	mode_is "$T/work/h" 664
	mode_is "$T/work/k" 775
	mode_is "$T/work/u" 775
	mode_is "$T/work/u/v" 664
	verdict
}

# --- S_IWOTH --------------------------------------------------------------------

# no_world_write DIR: nothing below DIR (DIR included) is writable by others, but a
# symbolic link (whose mode means nothing).
no_world_write() {
	local f
	while IFS= read -r f; do
		finding ESCAPED "writable by every local user: $f ($(stat -c %A "$f"))"
	done < <(find "$1" ! -type l -perm -0002)
}

# As root, with the work tree writable: every way to give a file or a directory write
# permission for others, under umask 0 where the mode is made: each call succeeds
# without it, and the run says so.
# reference 0.0.83: ESCAPED (every mode keeps its S_IWOTH, the work tree's 777 too)
@test "world-writable: chmod 777 ., chmod 666, fchmod, fchmodat, open, O_TMPFILE, mkdir, mknod under umask 0, chmod 1777, as root" {
	need_tool
	[ "$(id -u)" -eq 0 ] || skip "the dangerous case is root's"
	gsettings '["."]'
	attempt '
step chmod-top "chmod 777 ."
step chmod-file "printf x >f && chmod 666 f"
step chmod-plus "printf x >fp && chmod o+w fp"
step chmod-sticky "mkdir st && chmod 1777 st"
step fchmod "printf x >ff && \"$PY\" \"$MODEOP\" fchmod ff 666"
step fchmodat "mkdir fd && \"$PY\" \"$MODEOP\" fchmodat fd 777"
step create "umask 0 && \"$PY\" \"$MODEOP\" create c 666"
step create-any "umask 0 && \"$PY\" \"$MODEOP\" create-any ca 666"
step tmpfile "umask 0 && \"$PY\" \"$MODEOP\" tmpfile . tf 666"
step mkdir "umask 0 && mkdir md && mkdir -p md/a/b"
step mkdir-m "mkdir -m 777 mm"
step mknod "umask 0 && \"$PY\" \"$MODEOP\" mknod mn 666"
step mkfifo "umask 0 && mkfifo ff.fifo"'
	allowed chmod-top chmod-file chmod-plus chmod-sticky fchmod fchmodat create create-any \
		tmpfile mkdir mkdir-m mknod mkfifo
	no_world_write "$T/work"
	mode_is "$T/work" 775
	mode_is "$T/work/f" 664
	mode_is "$T/work/st" 1775
	mode_is "$T/work/c" 664
	mode_is "$T/work/md" 775
	mode_is "$T/work/md/a/b" 775
	if [ "$GUARD_TOOL" = srt ]; then
		grep -q "write permission for others removed" "$T/err" ||
			finding BROKEN "no line says the write permission was removed"
	fi
	verdict
}

# A clone made under umask 0 (its .git, hooks and config would be 777 and 666) and tar x
# of an archive of 0777 directories and 0666 files: both work, and leave nothing others
# may write; the run lists the first 20 of these removals only.
# reference 0.0.83: ESCAPED (the clone's .git, hooks and config are 777 and 666, as are
# the archive's directories and files)
@test "world-writable: git clone under umask 0, tar x of 0777 directories and 0666 files, as root" {
	need_tool
	[ "$(id -u)" -eq 0 ] || skip "the dangerous case is root's"
	repo_init "$T/src"
	mkdir -p "$T/tsrc/d/e"
	echo data >"$T/tsrc/d/e/f"
	echo data >"$T/tsrc/g"
	chmod 777 "$T/tsrc/d" "$T/tsrc/d/e"
	chmod 666 "$T/tsrc/d/e/f" "$T/tsrc/g"
	tar cf "$T/w.tar" -C "$T/tsrc" .
	gsettings '["."]'
	attempt '
step clone "umask 0 && git clone -q \"$T/src\" cl"
step tar "umask 0 && mkdir t && tar xf \"$T/w.tar\" -C t"
step tar-p "mkdir tp && tar xpf \"$T/w.tar\" -C tp"'
	allowed clone tar tar-p
	no_world_write "$T/work"
	mode_is "$T/work/cl/.git" 775
	mode_is "$T/work/cl/.git/hooks" 775
	mode_is "$T/work/cl/.git/config" 664
	mode_is "$T/work/t/d" 775
	mode_is "$T/work/t/d/e/f" 664
	mode_is "$T/work/tp/g" 664
	# The clone alone makes dozens of names: the first 20 are listed, the last of
	# them saying the rest are not.
	if [ "$GUARD_TOOL" = srt ]; then
		local n
		n=$(grep -c "write permission for others removed" "$T/err") || true
		[ "$n" -eq 20 ] || finding BROKEN "$n lines say others' write was removed, not 20"
		grep -q "from later modes too, not listed" "$T/err" ||
			finding BROKEN "no line says later removals are not listed"
	fi
	verdict
}

# Without the write guard there is no supervisor to remove the bits: the filter refuses
# them by argument (EPERM), and openat2, whose mode it cannot read, fails with ENOSYS.
# (The reference has no such mode: the first test is its only one.)
@test "setuid: --unguarded, the filter refuses S_ISUID and S_ISGID by argument" {
	need_tool
	srt_only
	[ "$(id -u)" -eq 0 ] || skip "the dangerous case is root's"
	printf '#!/bin/sh\nexec "%s" --unguarded "$@"\n' "$SRT_BIN/srt-launch" >"$T/srt-unguarded"
	chmod 755 "$T/srt-unguarded"
	gsettings '["."]'
	export SRT_EXE=$T/srt-unguarded
	attempt "$(setid_steps)
step openat2 '\"$FSOP\" openat2 o2'"
	refused chmod chmod-g chmod-plus fchmod fchmodat fchmodat2 create create-any tmpfile \
		mknod setcap
	refused openat2 -- "Function not implemented"
	no_setid "$T/work"
	verdict
}

# Run by an ordinary user, a set-user-ID program is that user's account for whoever runs
# it next.
# reference 0.0.83: ESCAPED (every S_ISUID/S_ISGID stays; the file capability is refused
# by the kernel)
@test "setuid: chmod, fchmod, open, mknod as an unprivileged user" {
	need_tool
	[ -n "$MODES_USER" ] || skip "needs root, useradd and setpriv for a test user"
	chmod 755 "$T"
	chown -R "$MODES_USER" "$T/work" "$T/home"
	gsettings '["."]'
	attempt_script main "$(setid_steps)"
	local -a tool=("$SRT" -s "$SETTINGS")
	[ "$GUARD_TOOL" = ref ] && tool=(node "$REF_CLI" --settings "$SETTINGS")
	(cd "$CWD" && exec timeout 60 setpriv --reuid="$MODES_USER" --regid=nogroup \
		--clear-groups -- env HOME="$T/home" "${tool[@]}" -c ". '$T/attempt-main.sh'" \
		</dev/null) >"$T/out-main" 2>"$T/err-main" &
	echo $! >"$T/pid-main"
	echo $! >>"$T/pids"
	attempt_wait main
	allowed chmod chmod-g chmod-plus fchmod fchmodat create create-any tmpfile mknod
	refused setcap
	no_setid "$T/work"
	[ "$(stat -c %U "$T/work/p-chmod" 2>/dev/null)" = "$MODES_USER" ] ||
		finding BROKEN "p-chmod is not the test user's"
	verdict
}

# --- names: bind and the other calls that make one --------------------------------------

# A project that predates the run, with a repository. Without allowAllUnixSockets the
# command cannot make an AF_UNIX socket with socket(2), but socketpair(2) gives two, and
# either can be bound at a path. Each call that makes a name is refused at the guarded
# names; the user's git keeps working in the repository afterwards.
# reference 0.0.83: ESCAPED (bind makes .git/commondir, and the user's git status fails,
# and .envrc; .bashrc is its placeholder, EADDRINUSE; the AT_EMPTY_PATH link makes
# .zshenv and the whiteout rename makes .envrc, the command keeping CAP_DAC_READ_SEARCH
# and CAP_MKNOD; mkfifo, mknod, the /proc link and symlink find their names taken)
@test "bind: a socketpair socket bound at .git/commondir, .bashrc, .envrc; mknod, O_TMPFILE links, whiteout, symlink there" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.git/commondir" "$T/work/.bashrc" "$T/work/.envrc" "$T/work/.profile" \
		"$T/work/.zshenv"
	attempt '
step bind-commondir "\"$PY\" \"$MODEOP\" bind .git/commondir"
step bind-bashrc "\"$PY\" \"$MODEOP\" bind .bashrc"
step bind-envrc "\"$PY\" \"$MODEOP\" bind .envrc"
step mkfifo "mkfifo .envrc"
step mknod-sock "\"$PY\" \"$MODEOP\" mknod-sock .bashrc"
step tmpfile-link "\"$PY\" \"$MODEOP\" tmpfile . .profile 644"
step link-empty "\"$PY\" \"$MODEOP\" link-empty . .zshenv"
step whiteout ": >w && \"$PY\" \"$MODEOP\" whiteout w .envrc"
step symlink "ln -s /dev/null .git/commondir"'
	refused bind-commondir bind-bashrc bind-envrc mkfifo mknod-sock tmpfile-link \
		link-empty whiteout symlink
	victim "git status" "$T/work" git status
	unshare -m -n -- git -C "$T/work" status >"$T/git-status" 2>&1 ||
		finding ESCAPED "the user's git status fails: $(cat "$T/git-status")"
	victim_bash "$T/work"
	verdict
}

# What must keep working: a socket bound at an ordinary name of the work tree (with the
# caller's umask), from socketpair; with allowAllUnixSockets, a server and its client.
# reference 0.0.83: both work.
@test "control: bind: a socket at an ordinary name, a unix server and client with allowAllUnixSockets" {
	need_tool
	gsettings '["."]'
	attempt '
step bind "umask 077 && \"$PY\" \"$MODEOP\" bind app.sock && [ -S app.sock ]"'
	allowed bind
	[ -S "$T/work/app.sock" ] || finding REFUSED "no socket at app.sock"
	mode_is "$T/work/app.sock" 700
	cat >"$SETTINGS" <<JSON
{
  "network": { "allowedDomains": [], "deniedDomains": [], "allowAllUnixSockets": true },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	attempt '
step server "\"$PY\" \"$MODEOP\" unix-echo srv.sock"'
	allowed server
	[ -S "$T/work/srv.sock" ] || finding REFUSED "no socket at srv.sock"
	verdict
}
