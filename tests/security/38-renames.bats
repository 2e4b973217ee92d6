#!/usr/bin/env bats
# Escape battery, the write guard (issue #10): renames, links and the other system calls
# that change a name. A directory that holds a protected path cannot be moved (that would
# take the protection away from the name the next reader opens), nor can the directories
# leading to a denyWrite entry; a protected file cannot gain a hard link; renameat2's
# RENAME_EXCHANGE cannot swap a command-made directory in for .git; openat2, mknod,
# truncate, chmod, utimes, xattrs and symlinks are judged like open and write; and a link
# flipped while a write goes through it cannot steer the write onto a protected name.
load helpers
load guard

# sub/ holds a repository (sub/.git), d/ holds .vscode, e/ holds .bashrc: moving any of
# them, or .vscode itself, leaves the protected name free to be made again.
@test "rename: directories that hold a protected file or directory" {
	need_tool
	repo_init "$T/work"
	repo_init "$T/work/sub"
	mkdir -p "$T/work/.vscode" "$T/work/d/.vscode" "$T/work/e"
	echo '{}' >"$T/work/.vscode/settings.json"
	echo '{}' >"$T/work/d/.vscode/settings.json"
	echo '# rc' >"$T/work/e/.bashrc"
	gsettings '["."]'
	keep "$T/work/sub" "$T/work/sub/.git" "$T/work/.vscode" "$T/work/d" "$T/work/e" \
		"$T/work/sub2" "$T/work/sub/git2" "$T/work/vs2" "$T/work/d2" "$T/work/e2"
	attempt '
step sub "mv sub sub2"
step sub-git "mv sub/.git sub/git2"
step vscode "mv .vscode vs2"
step vscode-holder "mv d d2"
step bashrc-holder "mv e e2"'
	refused sub sub-git vscode vscode-holder bashrc-holder
	verdict
}

# The directories between a write root and a denyWrite entry, existing file or missing
# one, cannot be renamed, removed or swapped out.
@test "rename: ancestors of denyWrite paths, existing or not" {
	need_tool
	mkdir -p "$T/work/d1/d2" "$T/work/n1"
	echo orig >"$T/work/d1/d2/file"
	gsettings '["."]' "[\"$T/work/d1/d2/file\", \"$T/work/n1/n2/missing\"]"
	keep "$T/work/d1" "$T/work/d1/d2" "$T/work/d1/d2/file" "$T/work/n1" \
		"$T/work/n1/n2/missing" "$T/work/d1x" "$T/work/d1/d2x" "$T/work/n1x"
	attempt '
step d1 "mv d1 d1x"
step d2 "mv d1/d2 d1/d2x"
step d1-remove "rm -rf d1"
step d1-exchange "mkdir z && \"$FSOP\" exchange z d1"
step n1 "mv n1 n1x"
step n1-remove "rmdir n1"
step n1-symlink "mkdir -p elsewhere/n2 && ln -s elsewhere lnk && \"$FSOP\" exchange lnk n1"
step missing "mkdir -p n1/n2 && echo pwned >n1/n2/missing"'
	refused d1 d2 d1-remove d1-exchange n1 n1-remove n1-symlink missing
	verdict
}

# A hard link gives a protected file a second, unprotected name (to write it through, or
# to find it in the next run); one made at a protected name plants it.
@test "hard links: to .bashrc, .git/config, a hook, a denyWrite file, and onto .profile" {
	need_tool
	repo_init "$T/work"
	echo '# rc' >"$T/work/.bashrc"
	echo orig >"$T/work/ro.txt"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/.git/hooks/pre-commit"
	gsettings '["."]' "[\"$T/work/ro.txt\"]"
	keep "$T/work/.bashrc" "$T/work/ro.txt" "$T/work/.git/config" \
		"$T/work/.git/hooks/pre-commit" "$T/work/.profile" \
		"$T/work/hl1" "$T/work/hl2" "$T/work/hl3" "$T/work/hl4"
	attempt '
step bashrc "ln .bashrc hl1"
step config "ln .git/config hl2"
step hook "ln .git/hooks/pre-commit hl3"
step denywrite "ln ro.txt hl4"
step onto "echo \"$PAYLOAD\" >e && ln e .profile"'
	refused bashrc config hook denywrite onto
	verdict
}

# renameat2(RENAME_EXCHANGE) swaps two names in one call: a directory the command made
# (with hooks and a config) for .git, a hooks directory for .git/hooks, a file for
# .git/config.
@test "RENAME_EXCHANGE: a new directory swapped with .git, .git/hooks, .git/config" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.git" "$T/work/.git/hooks" "$T/work/.git/config"
	attempt '
plant fsm.sh
mkdir newgit && cp -r .git/objects .git/refs .git/HEAD .git/index .git/config newgit/ &&
	fsmon_config newgit/config && mkdir newgit/hooks && plant newgit/hooks/pre-commit
mkdir h && plant h/pre-commit
cp .git/config c && fsmon_config c
step git "\"$FSOP\" exchange newgit .git"
step hooks "\"$FSOP\" exchange h .git/hooks"
step config "\"$FSOP\" exchange c .git/config"'
	refused git hooks config
	victim "git status" "$T/work" git status
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

# The other calls that make or change a name: openat2 (the contract: ENOSYS, callers
# fall back to openat), mknod (mkfifo), truncate, chmod, utimensat, setxattr, symlink.
@test "other system calls on protected names: openat2, mknod, truncate, chmod, utimes, xattr, symlink" {
	need_tool
	repo_init "$T/work"
	echo '# rc' >"$T/work/.bashrc"
	gsettings '["."]'
	keep "$T/work/.bashrc" "$T/work/.git/commondir" "$T/work/.zshenv" "$T/work/.mcp.json" \
		"$T/work/.git/hooks/pre-commit.sample"
	attempt '
step openat2 "\"$FSOP\" openat2 .git/commondir"
step mknod "mkfifo .zshenv"
step truncate "truncate -s 0 .bashrc"
step chmod "chmod 777 .bashrc"
step utimes "touch -d 2001-01-01 .bashrc"
step xattr "\"$PY\" \"$MODEOP\" setxattr .bashrc user.x y"
step symlink "ln -s /bin/true .mcp.json"
step hook-chmod "chmod +x .git/hooks/pre-commit.sample"'
	refused openat2 -- "Function not implemented"
	refused mknod truncate chmod utimes xattr symlink hook-chmod
	verdict
}

# A race: one loop flips the link x between deep/a/b (three levels down, where .bashrc
# is not protected) and the cwd, another appends to x/.bashrc for as long as the first
# runs. The guard resolves the path itself, once: no write may land in the cwd's .bashrc.
@test "rename race: a link flipped between a deep directory and the cwd while writing through it" {
	need_tool
	echo '# rc' >"$T/work/.bashrc"
	mkdir -p "$T/work/deep/a/b"
	gsettings '["."]'
	keep "$T/work/.bashrc"
	attempt '
(i=0; while [ $i -lt 100 ]; do ln -sfn deep/a/b x; ln -sfn . x; i=$((i + 1)); done; : >flipped) &
while [ ! -e flipped ]; do echo "$PAYLOAD" >>x/.bashrc; done 2>/dev/null
wait'
	victim_bash "$T/work"
	verdict
}
