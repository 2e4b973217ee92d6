#!/usr/bin/env bats
# The write guard (issue #10) must not be over-broad: what a build, an editor or git does
# in its own working tree keeps working under srt with the cwd writable. Every step here
# must succeed (a refusal is a finding, REFUSED), and the host must show the result.
# These pass on the build before the guard too; they hold the guard to the same.
load helpers
load guard

# host_is PATH CONTENT: the host's file holds exactly CONTENT.
host_is() {
	local got
	got=$(cat "$1" 2>/dev/null) || got="<missing>"
	[ "$got" = "$2" ] || finding REFUSED "on the host, $1 holds \"$got\", not \"$2\""
}

@test "control: ordinary files at any depth: create, append, truncate, chmod, utimes, rename, links, sed -i" {
	need_tool
	echo orig >"$T/work/README.txt"
	gsettings '["."]'
	attempt '
step create-deep "mkdir -p a/b/c/d/e/f && echo one >a/b/c/d/e/f/x.txt"
step append "echo two >>a/b/c/d/e/f/x.txt"
step truncate "truncate -s 4 a/b/c/d/e/f/x.txt"
step chmod "chmod 600 a/b/c/d/e/f/x.txt"
step utimes "touch -d 2001-01-01 a/b/c/d/e/f/x.txt"
step rename "mv a/b/c/d/e/f/x.txt a/b/y.txt"
step symlink "ln -s b/y.txt a/l"
step hardlink "ln a/b/y.txt a/h"
step through-link "echo three >>a/l"
step sed-i "sed -i s/one/uno/ a/b/y.txt"
step unlink "rm a/h"
step existing "echo more >>README.txt"
step top "echo top >top.txt && mv top.txt top2.txt"
step xattr "\"$PY\" \"$MODEOP\" setxattr top2.txt user.x y"
step dotfiles "echo x >.editorconfig && echo y >.gitignore && echo z >a/.prettierrc"'
	allowed create-deep append truncate chmod utimes rename symlink hardlink through-link \
		sed-i unlink existing top xattr dotfiles
	host_is "$T/work/a/b/y.txt" $'uno\nthree'
	host_is "$T/work/README.txt" $'orig\nmore'
	host_is "$T/work/top2.txt" top
	[ "$(readlink "$T/work/a/l")" = b/y.txt ] || finding REFUSED "a/l is not the link made"
	verdict
}

@test "control: mv and rm -rf of ordinary directories, cp -r, renameat2 between them" {
	need_tool
	mkdir -p "$T/work/tree/x/y"
	echo f >"$T/work/tree/x/y/f"
	gsettings '["."]'
	attempt '
step mv "mv tree tree2"
step mv-inner "mv tree2/x tree2/x2"
step mv-new "mkdir -p n/m && mv n n2"
step cp "cp -r tree2 tree3"
step exchange "\"$FSOP\" exchange tree2 tree3"
step noreplace "\"$FSOP\" noreplace n2 n3"
step rm-rf "rm -rf tree3"
step rmdir "rmdir n3/m n3"'
	allowed mv mv-inner mv-new cp exchange noreplace rm-rf rmdir
	host_is "$T/work/tree2/x2/y/f" f
	[ ! -e "$T/work/tree" ] && [ ! -e "$T/work/tree3" ] && [ ! -e "$T/work/n3" ] ||
		finding REFUSED "the host still has tree, tree3 or n3"
	verdict
}

# git writes objects, the index, refs, logs, packed-refs, HEAD, info/exclude: all its own.
@test "control: git add, commit, branch, tag, stash and gc in the cwd's repository" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
step add "echo change >>README && echo new >new.txt && git add README new.txt"
step commit "git commit -q -m change"
step branch "git checkout -q -b topic && git commit -q --allow-empty -m on-topic && git checkout -q main"
step tag "git tag v1"
step stash "echo x >>README && git stash -q && git stash pop -q && git checkout -q README"
step gc "git gc -q"
step exclude "echo \"*.tmp\" >>.git/info/exclude"'
	allowed add commit branch tag stash gc exclude
	host_is "$T/work/new.txt" new
	[ "$(git -C "$T/work" log -1 --format=%s main 2>&1)" = change ] ||
		finding REFUSED "main's last commit on the host is not the one made inside"
	git -C "$T/work" rev-parse -q --verify refs/heads/topic >/dev/null ||
		finding REFUSED "the branch topic is missing on the host"
	git -C "$T/work" rev-parse -q --verify refs/tags/v1 >/dev/null ||
		finding REFUSED "the tag v1 is missing on the host"
	verdict
}

# A repository the command makes in a new directory is its own: clone, init, commit, and
# its config and hooks, are writable to it.
@test "control: git clone of a local repository and git init into new directories" {
	need_tool
	repo_init "$T/src"
	mkdir -p "$T/src/lib/sub"
	echo code >"$T/src/lib/sub/code.c"
	git -C "$T/src" add lib
	git -C "$T/src" commit -q -m lib
	gsettings '["."]'
	attempt '
step clone "git clone -q \"$T/src\" clone1"
step own-config "git -C clone1 config user.name inside"
step own-hook "printf \"#!/bin/sh\nexit 0\n\" >clone1/.git/hooks/post-commit && chmod +x clone1/.git/hooks/post-commit"
step commit-in-clone "echo x >clone1/f && git -C clone1 add f && git -C clone1 commit -q -m f"
step clone-deep "mkdir -p deep/er && git clone -q \"$T/src\" deep/er/c2"
step init "git init -q newrepo && git -C newrepo commit -q --allow-empty -m first"
step init-bare "git init -q --bare new.git"'
	allowed clone own-config commit-in-clone clone-deep init init-bare
	# Issue #28: a clone's git directory is git state the host's git executes: no hook
	# (48-git-model.bats).
	refused own-hook
	host_is "$T/work/clone1/lib/sub/code.c" code
	host_is "$T/work/deep/er/c2/README" hello
	[ "$(git -C "$T/work/clone1" log -1 --format=%s 2>&1)" = f ] ||
		finding REFUSED "the commit in clone1 is missing on the host"
	verdict
}

@test "control: tar x of an archive with nested directories, links and modes" {
	need_tool
	mkdir -p "$T/tree/a/b/c/d" "$T/tree/e"
	echo deep >"$T/tree/a/b/c/d/file"
	echo top >"$T/tree/top"
	chmod 700 "$T/tree/e"
	ln -s a/b/c/d/file "$T/tree/link"
	ln "$T/tree/top" "$T/tree/e/hard"
	tar -C "$T/tree" -cf "$T/t.tar" .
	gsettings '["."]'
	attempt '
step tar-into-new "mkdir out && tar -C out -xf \"$T/t.tar\""
step tar-here "tar -xf \"$T/t.tar\""'
	allowed tar-into-new tar-here
	diff -r "$T/tree" "$T/work/out" >&2 || finding REFUSED "out/ differs from the archive's tree"
	host_is "$T/work/a/b/c/d/file" deep
	verdict
}

@test "control: /dev/null, /dev/stdout, process substitution, a fifo, TMPDIR" {
	need_tool
	gsettings '["."]'
	attempt '
step devnull "echo x >/dev/null && echo y >>/dev/null"
step stdout "echo x >/dev/stdout && echo y >/proc/self/fd/1 && echo z >/dev/stderr"
step procsubst "bash -c \"echo hello > >(cat >ps.txt); wait \\\$!\""
step fifo "mkfifo f && (echo via-fifo >f &) && read l <f && [ \"\$l\" = via-fifo ]"
step tmpdir "t=\$(mktemp) && echo x >\"\$t\" && rm \"\$t\" && d=\$(mktemp -d) && echo y >\"\$d/z\" && rm -r \"\$d\""'
	allowed devnull stdout procsubst fifo tmpdir
	host_is "$T/work/ps.txt" hello
	verdict
}

# The depth rule and the exact names: a .bashrc three levels down, .vscode two levels
# down, names that only look like protected ones, files of .claude/ that are not its
# settings, and a .claude directory made anew.
@test "control: names below the search depth and names that only look protected" {
	need_tool
	gsettings '["."]'
	attempt '
step deep-bashrc "mkdir -p s/a/b && echo x >s/a/b/.bashrc"
step deep-vscode "mkdir -p s/a/.vscode && echo {} >s/a/.vscode/x.json"
step lookalike "echo x >.bashrc.bak && echo y >bashrc && mkdir .vscode-old && echo z >.gitattributes"
step claude-dir "mkdir .claude && echo notes >.claude/notes.md"'
	allowed deep-bashrc deep-vscode lookalike claude-dir
	host_is "$T/work/s/a/b/.bashrc" x
	host_is "$T/work/.claude/notes.md" notes
	verdict
}
