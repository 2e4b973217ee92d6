#!/usr/bin/env bats
# Escape battery, the write guard (issue #10): what an adversarial review of the guard
# (srt-seccomp's supervisor and lib/wguard) found still open. Each test is an attack the
# contract (the lead's design note, README.md) says must fail, written as in 35-38
# (guard.bash: steps inside, the host's files and the user's next command outside).
#   - a repository the command makes in a new directory is not its own once the user's
#     repository records it as a gitlink: the superproject's git status enters it;
#   - an existing .git file below the walk's depth (a submodule at deps/lib) can be
#     rewritten in place to point at a git directory the command made;
#   - the guard's questions to the file system (is this a git directory, does that name
#     exist) are asked by path from PID 1's root, and answer "no" when the command has
#     made the path unwalkable (chmod 0 of a directory on the way) while it holds a
#     descriptor below it, or when its open fails with EMFILE (PID 1's RLIMIT_NOFILE,
#     which the command may lower with prlimit), and the rename check skips what it
#     cannot open;
#   - with allowNestedUserNamespaces, a bind mount in the command's own mount namespace
#     gives the directory the supervisor holds a name of the command's choosing;
#   - the read-deny watch saw only the mount point's own directory (not a renamed
#     grandparent, not a link on the way) and nothing of a missing denyRead path the host
#     makes (which the command could make too); it must not start the command when it
#     cannot watch every directory it needs. Since issue #28 (item 7) a read deny holds
#     whatever the host does and the run goes on (51-read-deny-rotation.bats has the
#     reader in a loop);
#   - a lease on one of the command's files stalls the supervisor (every write of the
#     sandbox, and the watch) for the kernel's lease-break-time;
#   - a file the user redirects into srt can be reopened for writing through
#     /proc/self/fd; scripts that .claude/settings.json runs as hooks are writable;
#     calls on a descriptor (fchmod, an access ACL by fsetxattr) change protected files
#     the walk did not reach;
#   - srt's own bwrap is found through PATH, whose directories in a writable home are
#     not protected;
#   - a core dump is written by the kernel into a protected directory, and bind(2)
#     makes a socket at a protected name (allowAllUnixSockets).
load helpers
load guard

# --- git: a repository the superproject records ----------------------------------------

# git init in a new directory is allowed (the command's own repository, 39's control), and
# git add of that directory records a gitlink in the user's index (.git/index is not
# protected; git commit would do the same). The user's next git status in the superproject
# runs git status in every populated gitlink, with that repository's core.fsmonitor.
@test "a repository made in a new directory and added as a gitlink runs at the superproject's git status" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
plant fsm.sh
step newsub "git init -q newsub && git -C newsub config core.fsmonitor \"$PWD/fsm.sh\" && git -C newsub commit -q --allow-empty -m x"
step gitlink "git add newsub 2>/dev/null && git ls-files -s newsub | grep -q ^160000"'
	victim "git status in the superproject" "$T/work" git status
	verdict
}

# A submodule at a two-part path (deps/lib, vendor/x, third_party/y) has its .git file at
# the walk's third level, where the walk does not look: the pointer is not an exact
# path, and the guard's name rules refuse making a .git but not rewriting one. Pointed at
# a git directory the command made (a copy of the module's, with core.fsmonitor), the
# superproject's git status enters deps/lib with it.
@test "the .git file of a submodule at deps/lib rewritten in place" {
	need_tool
	repo_init "$T/lib-src"
	repo_init "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule add -q "$T/lib-src" deps/lib
	git -C "$T/super" commit -q -m lib
	rmdir "$T/work"
	mv "$T/super" "$T/work"
	[ -f "$T/work/deps/lib/.git" ]
	gsettings '["."]'
	keep "$T/work/deps/lib/.git"
	attempt '
plant fsm.sh
cp -r .git/modules/deps/lib evilgit && git config -f evilgit/config core.fsmonitor "$PWD/fsm.sh" &&
	git config -f evilgit/config core.worktree "$PWD/deps/lib"
step rewrite "echo \"gitdir: $PWD/evilgit\" >deps/lib/.git"'
	refused rewrite
	victim "git status in the superproject" "$T/work" git status
	victim "git status in deps/lib" "$T/work/deps/lib" git status
	verdict
}

# --- the guard's file-system questions fail open --------------------------------------

# The headline attack of issue #10 (.git/commondir in the top repository), through a
# descriptor the command opened on .git before it made its cwd unsearchable: PID 1 asks
# "is /…/work/.git a git directory" and "does /…/work/.git/HEAD exist" by path, gets
# EACCES, and takes both for "no"; the file is then made through the held descriptor.
@test ".git/commondir through a held descriptor while the cwd is mode 0" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.git/commondir"
	attempt '
plant fsm.sh
mkdir evil && cp -r .git/objects .git/refs .git/HEAD .git/config evil/ && fsmon_config evil/config
step direct "echo ../evil >.git/commondir"
step held "\"$FSOP\" held-write .git . commondir ../evil"'
	refused direct held
	victim "git status" "$T/work" git status
	verdict
}

# A repository below the walk's depth (a/b/.git: its hooks are protected by name only,
# with no read-only mount): a hook made through a descriptor held on hooks/ while a/ is
# mode 0. The user's next git commit there runs it.
@test "a hook in a nested repository through a held descriptor while its parent is mode 0" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	repo_init "$T/work/a/b"
	gsettings '["."]'
	keep "$T/work/a/b/.git/hooks/pre-commit"
	attempt '
step direct "printf \"#!/bin/sh\n%s\n\" \"$PAYLOAD\" >a/b/.git/hooks/pre-commit"
step held "\"$FSOP\" held-write a/b/.git/hooks a pre-commit \"$PAYLOAD\""'
	refused direct held
	victim "git commit in a/b" "$T/work/a/b" git commit -q --allow-empty -m victim
	verdict
}

# The bare layout of 35 (objects/, refs/, config, then HEAD in an existing directory),
# with HEAD made through a descriptor held on the directory while its parent is mode 0:
# "do objects and refs exist" is answered "no", so HEAD completes nothing.
@test "a bare layout whose HEAD is made through a held descriptor while the parent is mode 0" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/d/sub"
	echo data >"$T/work/d/sub/file"
	gsettings '["."]'
	keep "$T/work/d/sub/HEAD"
	attempt '
plant fsm.sh
mkdir -p d/sub/objects d/sub/refs/heads &&
	printf "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n" >d/sub/config &&
	fsmon_config d/sub/config
step direct "echo \"ref: refs/heads/main\" >d/sub/HEAD"
step held "\"$FSOP\" held-write d/sub d HEAD \"ref: refs/heads/main\""'
	refused direct held
	victim "git status in d/sub" "$T/work/d/sub" git status
	verdict
}

# PID 1 runs with the command's uid, and prlimit(2) on another process asks only for the
# same uids (not ptrace rights, which PID 1's non-dumpable state refuses): the command
# lowers PID 1's RLIMIT_NOFILE until what the rename holds fits and the guard's own
# open (is this a git directory?) fails with EMFILE, which the guard takes for "no".
# The hook of a nested repository is moved in (a rename needs no descriptor after the
# checks). The command raises the limit again each time; nothing else is needed.
@test "PID 1's RLIMIT_NOFILE lowered with prlimit, then a hook renamed into a nested repository" {
	need_tool
	srt_only
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	repo_init "$T/work/a/b"
	gsettings '["."]'
	keep "$T/work/a/b/.git/hooks/pre-commit"
	attempt '
step direct "printf \"#!/bin/sh\n%s\n\" \"$PAYLOAD\" >y && chmod +x y && mv y a/b/.git/hooks/pre-commit"
step emfile "\"$PY\" \"$GUARDOPS\" nofile-hook a/b/.git/hooks pre-commit \"$PAYLOAD\""'
	refused direct emfile
	victim "git commit in a/b" "$T/work/a/b" git commit -q --allow-empty -m victim
	verdict
}

# The rename check walks the directory being moved (sup_subtree) and skips, silently, a
# subdirectory it cannot open. With PID 1's open-file limit lowered so that the walk's
# first level fits but nothing more, a directory holding lib/.git (a repository the
# command made) replaces deps/, the parent of an uninitialised submodule (deps/lib):
# the .git at the second level is never looked at, and the superproject's git status
# enters deps/lib and runs its core.fsmonitor.
@test "a rename whose subtree walk skips what it cannot open plants a submodule's repository" {
	need_tool
	srt_only
	repo_init "$T/lib-src"
	repo_init "$T/super"
	git -C "$T/super" -c protocol.file.allow=always submodule add -q "$T/lib-src" deps/lib
	git -C "$T/super" commit -q -m lib
	rmdir "$T/work"
	git clone -q "$T/super" "$T/work"
	[ -d "$T/work/deps/lib" ] && [ ! -e "$T/work/deps/lib/.git" ]
	gsettings '["."]'
	keep "$T/work/deps/lib/.git"
	# The repository to move in cannot be made in the work tree at all now (a repository
	# inside one that predates the run): plant is refused first, and what follows must
	# then plant nothing either.
	attempt '
plant fsm.sh
mkdir X
step plant "git init -q X/lib && git -C X/lib config core.fsmonitor \"$PWD/fsm.sh\""
step direct "rm -rf deps && mv X deps"
step emfile "\"$PY\" \"$GUARDOPS\" nofile-replace X deps"'
	refused plant emfile
	victim "git status in the superproject" "$T/work" git status
	verdict
}

# The repository of the gitlink attack (the first test) made where a repository may be
# made (a second write root outside the work tree, or with git -C from there), then
# moved or copied into the work tree and recorded: the move is a rename across mounts
# (EXDEV), so mv copies, and the copy's .git is refused like git init's; a rename within
# one write root is refused by the rename's look at what it moves.
@test "a repository made in another write root, moved into the work tree and added as a gitlink" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/other"
	gsettings "[\".\", \"$T/other\"]"
	attempt '
plant fsm.sh
step outside "git init -q \"$T/other/evil\" && git -C \"$T/other/evil\" commit -q --allow-empty -m x"
step outside-cfg "git -C \"$T/other/evil\" config core.fsmonitor \"$PWD/fsm.sh\""
step move "mv \"$T/other/evil\" newsub"
step copy "cp -a \"$T/other/evil\" newsub2"
step inner-mv "mkdir -p \"$T/other/box\" && git init -q \"$T/other/box/r\" && mkdir d && mv \"$T/other/box\" d/box"
step gitlink "git add newsub newsub2 d 2>/dev/null && git ls-files -s | grep -q ^160000"'
	allowed outside
	# Issue #28: the command's own repository is judged too (its fsmonitor refused).
	refused outside-cfg move copy inner-mv
	victim "git status in the superproject" "$T/work" git status
	verdict
}

# --- nested user namespaces ------------------------------------------------------------

# allowNestedUserNamespaces lets the command mount in a namespace of its own; the write
# guard must still hold (its names do not depend on the mounts). A recursive bind of .git
# on alias/ makes the kernel's name for the directory the supervisor holds
# ".../work/alias", which is no git directory in PID 1's namespace: commondir is written
# into the real .git.
@test "allowNestedUserNamespaces, .git bound on another name in the command's mount namespace" {
	need_tool
	srt_only
	repo_init "$T/work"
	gsettings '["."]' '[]' '[]' '' '"allowNestedUserNamespaces": true'
	keep "$T/work/.git/commondir"
	attempt '
plant fsm.sh
mkdir evil && cp -r .git/objects .git/refs .git/HEAD .git/config evil/ && fsmon_config evil/config
mkdir alias
step direct "echo ../evil >.git/commondir"
step alias "\"$FSOP\" userns-bind .git alias commondir ../evil"'
	refused direct alias
	victim "git status" "$T/work" git status
	verdict
}

# --- the read-deny watch ----------------------------------------------------------------

# read_deny_after SCRIPT-ON-THE-HOST: a denyRead file read before and after the host runs
# the script; the second read must fail, and the run go on to its end (issue #28 item 7:
# the run once ended with 125 instead, which a reader in a loop could race).
read_deny_after() {
	attempt_start r '
cat "$DENIED" 2>/dev/null
echo r >.ready-r
await r
cat "$DENIED" 2>/dev/null
echo READ AGAIN'
	ready r
	eval "$1"
	touch "$T/go-r"
	attempt_wait r ends
	if grep -q "new-$SECRET" "$T/out"; then
		finding ESCAPED "the command read the new secret: $(grep "$SECRET" "$T/out")"
	fi
	if [ "$ST" -ne 0 ] || ! grep -q '^READ AGAIN$' "$T/out"; then
		finding REFUSED "the host's change ended the run (status $ST): $(head -c 300 "$T/err")"
	fi
}

# The host moves a directory two levels above the denied file and makes the path again
# (a secrets directory rotated as a whole: mv secrets secrets.old; mkdir; write). The
# watch looks at the file's own directory only, which moved along with its mask.
@test "denyRead file, the host renames a grandparent directory and makes the path again" {
	need_tool
	mkdir -p "$T/sec/prod"
	echo "old-$SECRET" >"$T/sec/prod/token"
	DENIED=$T/sec/prod/token
	export DENIED
	gsettings '["."]' '[]' "[\"$DENIED\"]"
	read_deny_after 'mv "$T/sec" "$T/sec.old" && mkdir -p "$T/sec/prod" &&
		echo "new-$SECRET" >"$T/sec/prod/token"'
	verdict
}

# Kubernetes' secret volumes (and tools built like them) rotate by swapping a symlink on
# the way: token -> ..data/token, ..data -> a new directory. The mask stays on the old
# target.
@test "denyRead file reached through a symlink the host swaps (..data, as Kubernetes does)" {
	need_tool
	mkdir -p "$T/sec/v1"
	echo "old-$SECRET" >"$T/sec/v1/token"
	ln -s v1 "$T/sec/..data"
	ln -s ..data/token "$T/sec/token"
	DENIED=$T/sec/token
	export DENIED
	gsettings '["."]' '[]' "[\"$DENIED\"]"
	read_deny_after 'mkdir "$T/sec/v2" && echo "new-$SECRET" >"$T/sec/v2/token" &&
		ln -s v2 "$T/sec/..tmp" && mv -T "$T/sec/..tmp" "$T/sec/..data"'
	verdict
}

# A denyRead path that does not exist when the run starts gets no mask and no watch
# (BEHAVIOR: missing path, nothing); the host makes it during the run (aws configure,
# a login that writes a token) and the command reads it.
@test "denyRead file missing at the start, made by the host during the run" {
	need_tool
	mkdir -p "$T/sec"
	DENIED=$T/sec/token
	export DENIED
	gsettings '["."]' '[]' "[\"$DENIED\"]"
	read_deny_after 'echo "new-$SECRET" >"$T/sec/token"'
	verdict
}

# A denyRead path missing at the start has no mask (nothing to mount on; the reference
# does nothing for it), so the guard keeps the command from making it, by any call, while
# the way to it may be made; and the watch, which ends the run when the host makes it,
# leaves the command's own directories alone: the run goes on to its end.
@test "denyRead path missing at the start, the command tries to make it" {
	need_tool
	gsettings '["."]' '[]' "[\"$T/work/later/token\", \"$T/work/gone\"]"
	keep "$T/work/later/token" "$T/work/gone"
	attempt '
step way "mkdir -p later"
step create "echo x >later/token"
step rename "echo x >t && mv t later/token"
step link "echo x >u && ln u later/token"
step symlink "ln -s /etc/hostname later/token"
step mkdir "mkdir gone"
step mkdir-under "mkdir -p gone/x"'
	allowed way
	refused create rename link symlink mkdir mkdir-under
	if [ "$ST" -ne 0 ]; then
		finding BROKEN "the run ended with status $ST"
	fi
	verdict
}

# Every directory on the way to a watched denyRead path takes an inotify watch (the
# denies are watched with denyReadHold false, or nested user namespaces allowed:
# Landlock or the supervisor holds the others, readlock.c, sup_read.c). When they cannot
# all be had (the user's limit; here lowered in a user namespace of the test's own, the
# limit being per namespace), the command must not start: 125, with a message naming
# the limit. The same run without the lower limit starts (the control).
@test "the read-deny watch past the inotify limit: the command never starts" {
	need_tool
	srt_only
	unshare -Ur sh -c 'echo 4 >/proc/sys/user/max_inotify_watches' 2>/dev/null ||
		skip "no inotify limit of a user namespace's own"
	mkdir -p "$T/work/a/b/c/d"
	echo "$SECRET" >"$T/work/a/b/c/d/token"
	gsettings '["."]' '[]' "[\"$T/work/a/b/c/d/token\"]" '"denyReadHold": false'
	for limit in '' 4; do
		ST=0
		(cd "$CWD" && exec unshare -Ur sh -c '
[ -z "$1" ] || echo "$1" >/proc/sys/user/max_inotify_watches || exit 99
shift
exec "$@"' _ "$limit" timeout 60 "$SRT" -s "$SETTINGS" -c 'echo STARTED') \
			</dev/null >"$T/out" 2>"$T/err" || ST=$?
		log_run "limit=${limit:-none}"
		if [ -z "$limit" ]; then
			grep -q '^STARTED$' "$T/out" ||
				finding BROKEN "the control run did not start (status $ST)"
			continue
		fi
		if grep -q '^STARTED$' "$T/out"; then
			finding ALLOWED "the command started without its watch"
		fi
		if [ "$ST" -ne 125 ]; then
			finding NOT-ENDED "the run ended with status $ST, not 125"
		fi
		if ! grep -q 'max_user_watches' "$T/err"; then
			finding NOT-ENDED "no message about the inotify limit"
		fi
	done
	verdict
}

# The reader in a loop racing the host's rotation, which this file once checked for the
# run's end with 125 (a documented race), is 51-read-deny-rotation.bats now: the deny
# holds without a race, and the run goes on.

# --- the supervisor's own availability ---------------------------------------------------

# One thread serves every write of the sandbox and the watch. A read lease on a file of
# the command's own makes PID 1's open of it for writing wait until the lease is broken
# (lease-break-time, 45 s by default): meanwhile no other write is served and no lost
# read deny is noticed.
@test "a lease on the command's own file stalls every other write of the sandbox" {
	need_tool
	srt_only
	gsettings '["."]'
	echo x >"$T/work/leased"
	keep "$T/work/.bashrc"
	# A run with no guard has nothing to stall: it must show first that it is guarded.
	attempt '
step guarded "echo x >.bashrc"
step other-write "\"$FSOP\" lease-stall leased other"'
	refused guarded
	if grep -q '^STEP other-write failed:.*waited' "$T/out"; then
		finding STALLED "$(grep -o 'open(other) waited [0-9.]* s' "$T/out")"
	else
		allowed other-write
	fi
	verdict
}

# --- reopening through /proc -------------------------------------------------------------

# The user runs srt with a file outside every write root on standard input
# (srt -c 'tool' <data). The command opens /proc/self/fd/0 for writing: the supervisor
# reopens the object for it, although the descriptor was read-only and the file lies in
# no write root.
@test "standard input redirected from a file outside the write roots, reopened for writing" {
	need_tool
	srt_only
	mkdir -p "$T/outside"
	echo "original" >"$T/outside/data.txt"
	gsettings '["."]'
	keep "$T/outside/data.txt"
	attempt_script main '
step reopen "echo overwritten >/proc/self/fd/0"'
	(cd "$CWD" && exec timeout 60 "$SRT" -s "$SETTINGS" -c ". '$T/attempt-main.sh'" \
		<"$T/outside/data.txt") >"$T/out" 2>"$T/err" || true
	ST=0
	log_run main
	grep -q '^STEP reopen ' "$T/out" || finding BROKEN "step reopen did not run"
	if grep -q '^STEP reopen ok' "$T/out"; then
		finding ALLOWED "step reopen succeeded"
	fi
	verdict
}

# --- names the list misses -----------------------------------------------------------

# Claude Code runs the commands .claude/settings.json names as hooks outside any sandbox
# (its documentation keeps them in .claude/hooks/ and names them through
# $CLAUDE_PROJECT_DIR); the settings file is protected, the scripts it runs are not.
@test "the script a protected .claude/settings.json runs as a hook" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/.claude/hooks"
	cat >"$T/work/.claude/settings.json" <<'JSON'
{"hooks": {"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/format.sh"}]}]}}
JSON
	printf '#!/bin/sh\nexit 0\n' >"$T/work/.claude/hooks/format.sh"
	chmod +x "$T/work/.claude/hooks/format.sh"
	gsettings '["."]'
	keep "$T/work/.claude/hooks/format.sh"
	attempt '
step rewrite "printf \"#!/bin/sh\n%s\n\" \"$PAYLOAD\" >.claude/hooks/format.sh"
step replace "printf \"#!/bin/sh\n%s\n\" \"$PAYLOAD\" >f && chmod +x f && mv f .claude/hooks/format.sh"'
	refused rewrite replace
	# What Claude Code does after the next edit, on the host.
	victim "Claude Code's PostToolUse hook" "$T/work" env CLAUDE_PROJECT_DIR="$T/work" \
		sh -c '"$CLAUDE_PROJECT_DIR"/.claude/hooks/format.sh'
	verdict
}

# A core dump is a file the kernel makes, not a system call of the command: with
# kernel.core_pattern "core" (a relative name, this host's and many distributions'
# default when no crash handler is installed) it lands in the crashing process's working
# directory. The command raises its own RLIMIT_CORE, works in a protected directory
# without a read-only mount (the hooks of a repository below the walk's depth), and
# crashes: a 0600 file appears there, past the guard (and, large enough, fills the disk).
@test "a core dump made by the kernel in a protected directory" {
	need_tool
	case $(cat /proc/sys/kernel/core_pattern) in
	/* | "|"*) skip "core dumps do not go to the working directory here" ;;
	esac
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	repo_init "$T/work/a/b"
	gsettings '["."]'
	keep "$T/work/a/b/.git/hooks/core" "$T/work/a/b/.git/hooks/core.1"
	attempt '
step direct "echo x >a/b/.git/hooks/core"
(cd a/b/.git/hooks && ulimit -c unlimited && sh -c "kill -SEGV \$\$") 2>/dev/null
echo crashed'
	refused direct
	ls "$T/work/a/b/.git/hooks/" | grep -q '^core' &&
		finding ESCAPED "a core file in a/b/.git/hooks: $(ls "$T/work/a/b/.git/hooks/" | grep '^core')"
	verdict
}

# bind(2) of an AF_UNIX socket makes a name in the file system, and is no call the filter
# sends to the supervisor. With allowAllUnixSockets (which the guard is to hold under as
# well), the command makes a socket at .git/commondir (the user's next git command dies:
# "failed to read .git/commondir") and at .bashrc.
@test "allowAllUnixSockets, a socket bound at .git/commondir and .bashrc" {
	need_tool
	srt_only
	repo_init "$T/work"
	# gsettings has no place for a network member: the file whole.
	cat >"$SETTINGS" <<JSON
{
  "network": { "allowedDomains": [], "deniedDomains": [], "allowAllUnixSockets": true },
  "filesystem": { "denyRead": [], "allowWrite": ["."], "denyWrite": [] }
}
JSON
	keep "$T/work/.git/commondir" "$T/work/.bashrc"
	attempt '
step commondir "\"$PY\" \"$MODEOP\" socket-bind .git/commondir"
step bashrc "\"$PY\" \"$MODEOP\" socket-bind .bashrc"'
	refused commondir bashrc
	verdict
}

# --- srt's own bwrap ----------------------------------------------------------------------

# srt finds bwrap through PATH (helpers.c, as the reference does). With the home directory
# a write root and a PATH directory in it before /usr/bin (~/.cargo/bin, ~/go/bin, ~/bin,
# pyenv's shims: every Rust user's PATH), the command plants bwrap there; the next srt
# runs it, outside any sandbox. Only ~/.local/bin is in the guard's list.
@test "a bwrap planted in a PATH directory of a writable home runs at srt's next start" {
	need_tool
	srt_only
	command -v cc >/dev/null || skip "no C compiler for the planted bwrap"
	local real
	real=$(command -v bwrap)
	repo_init "$T/work"
	mkdir -p "$HOME/.cargo/bin"
	printf '#include <fcntl.h>\n#include <unistd.h>\nint main(int c, char **v) { (void)c; close(open("%s", O_WRONLY | O_CREAT, 0644)); execv("%s", v); return 127; }\n' \
		"$T/pwned" "$real" >"$T/fakebw.c"
	cc -o "$T/work/fakebw" "$T/fakebw.c"
	gsettings "[\".\", \"$HOME\"]"
	keep "$HOME/.cargo/bin/bwrap"
	PATH=$HOME/.cargo/bin:$PATH
	export PATH
	attempt '
step bwrap "cp fakebw \"$HOME/.cargo/bin/bwrap\""'
	refused bwrap
	# The user's next run, with the same PATH.
	attempt 'echo second run'
	verdict
}

# --- calls on a descriptor ---------------------------------------------------------------

# A repository below the walk's depth (a/b) whose pre-commit hook the user disabled with
# chmod -x, the work tree writable.
disabled_nested_hook() {
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	repo_init "$T/work/a/b"
	printf '#!/bin/sh\n%s\n' "$PAYLOAD" >"$T/work/a/b/.git/hooks/pre-commit"
	chmod 644 "$T/work/a/b/.git/hooks/pre-commit"
	gsettings '["."]'
	keep "$T/work/a/b/.git/hooks/pre-commit"
}

# fchmod, fchown, fsetxattr and futimens act on a descriptor and are not supervised; a
# descriptor opened read-only (not supervised either) is enough. Where a protected file has
# no read-only mount (a repository below the walk's depth: a/b/.git), its mode changes:
# here a hook the user disabled with chmod -x is enabled again for the next git commit.
@test "fchmod through a read-only descriptor enables a disabled hook of a nested repository" {
	need_tool
	disabled_nested_hook
	attempt '
step chmod "chmod 755 a/b/.git/hooks/pre-commit"
step fchmod "\"$PY\" \"$MODEOP\" fchmod a/b/.git/hooks/pre-commit 755"'
	refused chmod fchmod
	victim "git commit in a/b" "$T/work/a/b" git commit -q --allow-empty -m victim
	verdict
}

# The same through fsetxattr: an access ACL is a mode (the kernel sets the mode bits from
# its owner, group and other entries), and cp -a sets one on every file it copies, which
# makes fsetxattr one of its two supervised calls per file (issue #29 asked whether it
# could go to the kernel: the filter cannot read the attribute's name, so no). An ACL of
# rwxr-xr-x set through a read-only descriptor would enable the disabled hook.
@test "an access ACL set through a read-only descriptor enables a disabled hook of a nested repository" {
	need_tool
	disabled_nested_hook
	attempt '
step acl "\"$PY\" \"$MODEOP\" acl-fd a/b/.git/hooks/pre-commit 755"'
	refused acl
	victim "git commit in a/b" "$T/work/a/b" git commit -q --allow-empty -m victim
	verdict
}
