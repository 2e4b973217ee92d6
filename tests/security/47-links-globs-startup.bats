#!/usr/bin/env bats
# Escape battery, issue 28 items 6, 9 and 10: what a link inside a protected directory
# leads to (a file VS Code or git reads through it, a directory), a hard link to a file
# of a protected directory, a new name that a denyWrite glob matches (made by a write, a
# rename, a link, a mkdir), and a dangerous file the host deletes between srt's plan and
# bwrap's mounts (srt must run, and the name stay protected). Each attack's result under
# the reference tool (0.0.83, node cli.js, GUARD_TOOL=ref) is recorded above its test.
load helpers
load guard

# reference 0.0.83: ESCAPED (every step but the control's is allowed: each target is
# written, the chain re-pointed, the directory written and moved away)
@test "links in .vscode: the targets (relative, absolute, chained, a directory) stay read-only" {
	need_tool
	mkdir -p "$T/work/.vscode" "$T/work/conf" "$T/work/conf2" "$T/work/chain" "$T/work/dir"
	echo '{"version": "2.0.0"}' >"$T/work/conf/tasks.json"
	echo '{}' >"$T/work/conf2/abs.json"
	echo '{}' >"$T/work/chain/end.json"
	echo x >"$T/work/dir/f"
	ln -s ../conf/tasks.json "$T/work/.vscode/tasks.json"
	ln -s "$T/work/conf2/abs.json" "$T/work/.vscode/settings.json"
	ln -s ../chain/mid "$T/work/.vscode/launch.json"
	ln -s end.json "$T/work/chain/mid"
	ln -s ../dir "$T/work/.vscode/extensions"
	gsettings '["."]'
	keep "$T/work/conf/tasks.json" "$T/work/conf2/abs.json" "$T/work/chain/end.json" \
		"$T/work/chain/mid" "$T/work/dir/f" "$T/work/dir/new" "$T/work/dir"
	# shellcheck disable=SC2016
	attempt '
step relative "printf %s\\\\n \"{\\\"tasks\\\": [{\\\"command\\\": \\\"$PAYLOAD\\\", \\\"runOptions\\\": {\\\"runOn\\\": \\\"folderOpen\\\"}}]}\" >conf/tasks.json"
step relative-replace "echo pwn >conf/t2 && mv conf/t2 conf/tasks.json"
step absolute "echo pwn >conf2/abs.json"
step chained "echo pwn >chain/end.json"
step chain-link "rm chain/mid && ln -s ../conf/other.json chain/mid"
step directory "echo pwn >dir/f"
step directory-new "echo pwn >dir/new"
step directory-move "mv dir dir2"
step control "echo ok >conf/other.json && echo ok >chain/other.json && echo ok >conf2/x"'
	refused relative relative-replace absolute chained chain-link directory directory-new \
		directory-move
	allowed control
	verdict
}

# reference 0.0.83: ESCAPED (both scripts rewritten; the host's git commit runs the
# payload). srt's build before this change refused the .git/hooks one already
# (git_hook_links), not the .husky one.
@test "links in .git/hooks and .husky: the scripts they lead to cannot be rewritten" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/scripts" "$T/work/.husky"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/scripts/pre-commit"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/scripts/husky-pre-push"
	chmod +x "$T/work/scripts/pre-commit" "$T/work/scripts/husky-pre-push"
	ln -s ../../scripts/pre-commit "$T/work/.git/hooks/pre-commit"
	ln -s ../scripts/husky-pre-push "$T/work/.husky/pre-push"
	gsettings '["."]'
	keep "$T/work/scripts/pre-commit" "$T/work/scripts/husky-pre-push"
	attempt '
step hook-target "plant scripts/pre-commit"
step husky-target "plant scripts/husky-pre-push"
step control "echo ok >scripts/notes.txt"'
	refused hook-target husky-target
	allowed control
	victim "git commit runs the pre-commit hook" "$T/work" \
		git commit -q --allow-empty -m victim
	verdict
}

# reference 0.0.83: ESCAPED (the run starts; the other name is written, and
# .vscode/tasks.json with it)
@test "a hard link to a file in .vscode: the run is refused, naming it" {
	need_tool
	mkdir -p "$T/work/.vscode"
	echo '{}' >"$T/work/other.json"
	ln "$T/work/other.json" "$T/work/.vscode/tasks.json"
	echo '{}' >"$T/work/.vscode/settings.json"
	gsettings '["."]'
	keep "$T/work/other.json" "$T/work/.vscode/tasks.json"
	attempt_start main '
step other-name "echo pwn >other.json"'
	attempt_wait main ends
	if [ "$GUARD_TOOL" = srt ]; then
		[ "$ST" -eq 125 ] || finding NOT-ENDED "srt ran (status $ST) with a hard-linked .vscode/tasks.json"
		grep -q "$T/work/.vscode/tasks.json is protected.*hard link" "$T/err" ||
			finding NO-WARNING "the refusal does not name the file"
	fi
	verdict
}

# The control: a file with no other name in .vscode, and hard links elsewhere, run.
@test "control: hard links outside protected directories do not stop a run" {
	need_tool
	srt_only
	mkdir -p "$T/work/.vscode"
	echo '{}' >"$T/work/.vscode/tasks.json"
	echo x >"$T/work/a.txt"
	ln "$T/work/a.txt" "$T/work/b.txt"
	gsettings '["."]'
	attempt '
step write-a "echo y >a.txt"
step vscode "echo pwn >.vscode/tasks.json"'
	allowed write-a
	refused vscode
	verdict
}

# reference 0.0.83: ESCAPED (every step allowed, the existing old.pem written and
# renamed away too: the reference skips denyWrite globs on Linux)
@test "denyWrite globs: a new name that matches cannot be made" {
	need_tool
	mkdir -p "$T/work/sub/deep" "$T/work/certs" "$T/work/abs"
	echo old >"$T/work/old.pem"
	echo f >"$T/work/f.txt"
	gsettings '["."]' "[\"*.pem\", \"**/*.key\", \"certs/*.crt\", \"$T/work/abs/*.tok\", \"secret-*\"]"
	keep "$T/work/new.pem" "$T/work/old.pem" "$T/work/sub/a.key" "$T/work/sub/deep/b.key" \
		"$T/work/c.key" "$T/work/certs/new.crt" "$T/work/abs/new.tok" "$T/work/g.pem" \
		"$T/work/h.pem" "$T/work/s.pem" "$T/work/secret-dir" "$T/work/secret-file" \
		"$T/work/f.txt"
	attempt '
step new "echo pwn >new.pem"
step existing "echo pwn >old.pem"
step globstar-sub "echo pwn >sub/a.key"
step globstar-deep "echo pwn >sub/deep/b.key"
step globstar-top "echo pwn >c.key"
step in-dir "echo pwn >certs/new.crt"
step absolute "echo pwn >abs/new.tok"
step rename "echo pwn >t1 && mv t1 g.pem"
step link "echo pwn >t2 && ln t2 h.pem"
step symlink "ln -s f.txt s.pem"
step mkdir "mkdir secret-dir"
step mkdir-file "echo pwn >secret-file"
step rename-away "mv old.pem x.txt"
step control-sub-pem "echo ok >sub/ok.pem"
step control-other "echo ok >notes.txt && echo ok >certs/readme && mkdir keep-dir && echo ok >sub/x.keys"'
	refused new existing globstar-sub globstar-deep globstar-top in-dir absolute rename link \
		symlink mkdir mkdir-file rename-away
	allowed control-sub-pem control-other
	verdict
}

# reference 0.0.83: REFUSED TO RUN ("bwrap: Can't get type of source .../.bash_profile:
# No such file or directory", status 1), as srt's build before this change did with 125
@test "start-up race: a dangerous file the host deletes before bwrap mounts it" {
	need_tool
	local so
	so=$(vanish_so)
	echo '# profile' >"$T/work/.bash_profile"
	echo '# rc' >"$T/work/.envrc"
	mkdir -p "$T/work/.vscode"
	gsettings '["."]'
	export SRT_TEST_VANISH="$T/work/.bash_profile:$T/work/.envrc:$T/work/.vscode"
	# (srt under ASan would refuse a preload ahead of its runtime; the preload is for
	# bwrap, which ASan does not build: as tests/helpers.bash signal_before_sandbox.)
	local asan=${ASAN_OPTIONS-}
	export LD_PRELOAD=$so ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
	attempt_start main '
step make "echo \"$PAYLOAD\" >.bash_profile"
step make-dir "mkdir .vscode"
: >.ready-main
i=0
while [ ! -e .envrc ] && [ $i -lt 1500 ]; do sleep 0.01; i=$((i + 1)); done
step host-made "echo \"$PAYLOAD\" >>.envrc"
step host-made-replace "echo pwn >t && mv t .envrc"
step control "echo ok >notes.txt"'
	ready main
	unset LD_PRELOAD SRT_TEST_VANISH
	ASAN_OPTIONS=$asan
	echo '# host' >"$T/work/.envrc"
	keep "$T/work/.envrc" "$T/work/.bash_profile" "$T/work/.vscode"
	attempt_wait main
	[ "$ST" -eq 0 ] || finding REFUSED "the run did not start or failed (status $ST)"
	refused make make-dir host-made host-made-replace
	allowed control
	verdict
}
