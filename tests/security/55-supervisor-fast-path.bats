#!/usr/bin/env bats
# Escape battery: the supervisor's fast ways (srt-seccomp/sup_open.c, sup_meta.c,
# sup_read.c) attacked from inside. The fast way for O_CREAT|O_EXCL opens decides on a
# held directory's name and makes the file in that directory; a thread that changes the
# shared working directory meanwhile, a rename of the held directory and a hard link to
# a made file must not make a protected name, or pass a protected file off as the
# command's own. And where the supervisor holds a read deny itself, every open that can
# read (O_RDWR, O_RDONLY|O_CREAT too) is judged, not only the plain read-only ones.
load helpers
load guard

# A thread flips the process's working directory between a plain directory and the
# repository's .git/hooks while another makes new files there by a relative name
# (O_CREAT|O_EXCL, the fast way): whatever the order, nothing is made in .git/hooks.
@test "fast way: a thread's chdir to .git/hooks while another creates by a relative name" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	gsettings '["."]'
	attempt '
step race "\"$PY\" \"$GUARDOPS\" chdir-race a .git/hooks 1000"'
	allowed race
	ls "$T/work/.git/hooks" | grep -q '^pwn-' &&
		finding ESCAPED "made in .git/hooks: $(ls "$T/work/.git/hooks" | grep -c '^pwn-') files"
	ls "$T/work/a" | grep -q '^pwn-' || finding BROKEN "nothing was made in a"
	verdict
}

# The held working directory renamed by the command (a plain rename, then an exchange
# with a directory of the user's repository's parent), then a new file by a relative
# name: it is made where the directory is now, and judged there.
@test "fast way: the held working directory renamed and exchanged, then a new file" {
	need_tool
	repo_init "$T/work/repo"
	gsettings '["."]'
	keep "$T/work/repo/.git/hooks"
	attempt '
mkdir -p d/e && cd d/e
step first "echo x >f1"
step rename "mv ../../d ../../d2 && echo y >f2 && test -f \"$CWD/d2/e/f2\""
step exchange "mkdir -p \"$CWD/z\" && \"$FSOP\" exchange \"$CWD/d2\" \"$CWD/z\" && echo w >f3 && test -f \"$CWD/z/e/f3\""
step into-git "mv \"$CWD/z\" \"$CWD/repo/.git/hooks/z\""'
	allowed first rename exchange
	refused into-git
	verdict
}

# A file the fast way made, given a second name and its first one removed (one link
# again): a chmod on the descriptor is judged by the name it has now. The second name
# is ordinary here (the guard refuses a link at a protected name), so it must pass, and
# a file of the user's with a protected name, opened read-only, must still be refused.
@test "fast way: fchmod of a made file after a link and unlink, and of a protected file" {
	need_tool
	repo_init "$T/work"
	echo '# rc' >"$T/home/.bashrc"
	gsettings '[".", "~"]'
	keep "$T/home/.bashrc"
	attempt '
step own "exec 3>new && ln new other && rm new && chmod 600 /proc/self/fd/3 && \"$PY\" \"$FDP\" fchmod 3 640"
step rc "exec 3<\"$HOME/.bashrc\" && \"$PY\" \"$FDP\" fchmod 3 777"'
	allowed own
	refused rc
	verdict
}

# Read denies the supervisor holds (a denied .env in a write root, where Landlock cannot
# hold): after the host replaces .env, an open for reading and writing, a read-only
# open with O_CREAT, or a descriptor opened for appending reopened for reading and
# writing through /proc, reads it unless it is judged as the plain read-only open is;
# and a file of the command's exchanged with it (RENAME_EXCHANGE) carries it off under
# the command's name, unless the new name's side of an exchange is judged as the old's.
@test "read hold: the host's new .env opened O_RDWR, O_RDONLY|O_CREAT, reopened, or exchanged" {
	need_tool
	echo "old-$SECRET" >"$CWD/.env"
	gsettings '["."]' '[]' '[".env"]'
	attempt_start r '
echo r >.ready-r
await r
step rdwr "\"$PY\" \"$READOPS\" open .env RDWR"
step creat "\"$PY\" \"$READOPS\" open .env RDONLY CREAT"
step reopen "exec 3>>.env && \"$PY\" \"$READOPS\" open /proc/self/fd/3 RDWR"
step exchange "echo mine >x && \"$FSOP\" exchange x .env && ! grep -q mine x && cat x"
step read "cat .env"'
	ready r
	echo "new-$SECRET-host" >"$CWD/.env.tmp"
	mv "$CWD/.env.tmp" "$CWD/.env"
	touch "$T/go-r"
	attempt_wait r
	refused rdwr creat reopen read -- "Permission denied"
	refused exchange
	grep -q "new-$SECRET" "$T/out" && finding ESCAPED "the new secret was read: $(grep -m1 -o "new-$SECRET[^ ']*" "$T/out")"
	verdict
}

# The directory that holds a held deny, renamed by the command after the host replaced
# the denied file in it: the host's file must not read under the directory's new name.
# (It passed before this branch's changes: the rename fails, EBUSY.)
@test "read hold: the directory of a replaced denied file renamed, then read" {
	need_tool
	mkdir -p "$CWD/sub"
	echo "old-$SECRET" >"$CWD/sub/.env"
	gsettings '["."]' '[]' '["sub/.env"]'
	attempt_start r '
echo r >.ready-r
await r
step parent "mv sub sub2 && cat sub2/.env"
step parent-exchange "mkdir -p z && \"$FSOP\" exchange z sub && cat z/.env"'
	ready r
	echo "new-$SECRET-host" >"$CWD/sub/.env.tmp"
	mv "$CWD/sub/.env.tmp" "$CWD/sub/.env"
	touch "$T/go-r"
	attempt_wait r
	# Refused either way: EBUSY (the mask's mount point) or EPERM.
	grep -E "^STEP parent(-exchange)? ok" "$T/out" && finding ALLOWED "the directory moved"
	grep -q "new-$SECRET" "$T/out" && finding ESCAPED "the new secret was read: $(grep -m1 -o "new-$SECRET[^ ']*" "$T/out")"
	verdict
}

# The fast way for a mkdir of a name that is there (sup_mkdir, res_found): EEXIST by a
# lookup through no link, from the root, outside /proc. A name that is there answers
# EEXIST whatever it is (a protected directory, a link to one, a dangling link, as the
# kernel's mkdir); a path through a link, in /proc/self/cwd, or one whose last name is
# new takes the full way and is judged; a name flipped between a directory and a link
# to .git/hooks while another thread makes directories below it by that path must not
# make one in .git/hooks.
@test "fast way: mkdir of a name that is there, a link, /proc/self/cwd, a name flipped meanwhile" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/a" "$T/work/b"
	gsettings '["."]'
	keep "$T/work/.git/hooks/x" "$T/work/.git/hooks/new" "$T/work/.git/hooks/p"
	attempt '
ln -s "$CWD/.git/hooks" hooks-link
ln -s "$CWD/.git/hooks/x" dangling
step there "mkdir \"$CWD/a\""
step hooks "mkdir \"$CWD/.git/hooks\""
step link "mkdir \"$CWD/hooks-link\""
step dangling "mkdir \"$CWD/dangling\""
step through-link "mkdir \"$CWD/hooks-link/new\""
step new "mkdir \"$CWD/.git/hooks/new\""
step proc-ok "cd a && mkdir /proc/self/cwd/c && test -d \"$CWD/a/c\""
step proc-hooks "cd .git/hooks && mkdir /proc/self/cwd/p"
step race "\"$PY\" \"$FASTWAY\" mkdir-race"'
	refused there hooks link dangling -- "File exists"
	refused through-link new proc-hooks
	allowed proc-ok race
	ls "$T/work/.git/hooks" | grep -q '^race-' &&
		finding ESCAPED "made in .git/hooks: $(ls "$T/work/.git/hooks" | grep -c '^race-') directories"
	ls "$T/work/b" "$T/work/b.d" 2>/dev/null | grep -q '^race-' || finding BROKEN "nothing was made in b"
	verdict
}

# The fast way for open(O_CREAT) without O_EXCL (npm's, tar's 'w'): made O_EXCL by the
# supervisor, so a name that is there takes the slow way. A link at the name (dangling,
# into .git/hooks; or to the user's .bashrc) is followed by the command's open and must
# be judged at its target; a name flipped between absent and such a link while another
# thread opens it O_CREAT|O_TRUNC must never make or truncate a file in .git/hooks; a
# new file and an existing one rewritten work.
@test "fast way: open O_CREAT without O_EXCL of a link, a name flipped to a link meanwhile" {
	need_tool
	repo_init "$T/work"
	echo '# rc' >"$T/home/.bashrc"
	gsettings '[".", "~"]'
	keep "$T/home/.bashrc" "$T/work/.git/hooks/pre-commit" "$T/work/.git/hooks/x"
	attempt '
ln -s "$CWD/.git/hooks/x" dangling
ln -s "$HOME/.bashrc" rc-link
step new "\"$PY\" \"$FASTWAY\" creat \"$CWD/new\" && test -f new"
step again "echo y >\"$CWD/new\" && test \"\$(cat new)\" = y"
step dangling "echo x >\"$CWD/dangling\""
step rc "echo x >\"$CWD/rc-link\""
step race "\"$PY\" \"$FASTWAY\" creat-race"'
	allowed new again race
	refused dangling rc
	[ -e "$T/work/.git/hooks/pre-commit" ] &&
		finding ESCAPED "made in .git/hooks: pre-commit"
	verdict
}

# The fast ways answer as the kernel would: one program's opens with O_CREAT and no
# O_EXCL (a new file with O_TRUNC, O_APPEND twice, a mode under umask 022 and 077, a
# directory: EISDIR, O_CREAT|O_DIRECTORY, a dangling link followed to make its target,
# a FIFO without a reader: ENXIO) and mkdir of names that are there (a file, a
# directory, links, a dangling one, through a link) or not, by absolute and relative
# paths: the same answers and the same files in the sandbox as on the host (in a
# private mount and network namespace, in a directory of the test's).
@test "fast way: O_CREAT without O_EXCL and mkdir answer as the kernel" {
	need_tool
	mkdir -p "$T/work" "$T/host"
	gsettings '["."]'
	unshare -m -n -- "$PY" "$FASTWAY" semantics "$T/host/t" >"$T/host.out" 2>&1
	attempt '
step sem "\"$PY\" \"$FASTWAY\" semantics \"$CWD/t\" >\"$CWD/in.out\" 2>&1"'
	allowed sem
	diff "$T/host.out" "$T/work/in.out" >"$T/diff" ||
		finding REFUSED "answers differ (< host, > sandbox): $(tr '\n' ' ' <"$T/diff")"
	verdict
}

# With nested user namespaces allowed (res_found and sup_open_fast are off then; an
# absolute path still skips res_view, from the root through no link), a mount namespace of
# the command's with .git/hooks bound over a directory of its own, then chroot into it:
# mkdir and open O_CREAT by absolute paths are judged and done in the sandbox's tree,
# where that path is the plain directory (or nothing the guard lets it make), by a
# relative path refused (the name is not what the command's call reaches); nothing is
# made in .git/hooks.
@test "fast way: a nested mount namespace and chroot do not move the absolute-path view" {
	need_tool
	srt_only
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	gsettings '["."]' '[]' '[]' '' '"allowNestedUserNamespaces": true'
	keep "$T/work/.git/hooks"
	attempt '
step nest "\"$PY\" \"$FASTWAY\" nest >nest.out"'
	allowed nest
	out=$T/work/nest.out
	grep -q '^NO-NEST' "$out" && skip "no nested user namespace here: $(grep '^NO-NEST' "$out")"
	for s in mkdir-rel creat-rel; do
		grep -q "^$s EPERM" "$out" || finding ALLOWED "$s: $(grep "^$s " "$out")"
	done
	for s in mkdir-root creat-root mkdir-root-there; do
		grep -q "^$s ok" "$out" && finding ALLOWED "$s: made outside the write roots"
	done
	[ -d "$T/work/a/abs-dir" ] && [ -f "$T/work/a/abs-file" ] ||
		finding BROKEN "abs-dir, abs-file not made in the sandbox's a: $(ls "$T/work/a" | tr '\n' ' ')"
	ls -A "$T/work/.git/hooks" | grep -qv '\.sample$' &&
		finding ESCAPED "made in .git/hooks: $(ls -A "$T/work/.git/hooks" | grep -v '\.sample$' | tr '\n' ' ')"
	verdict
}
