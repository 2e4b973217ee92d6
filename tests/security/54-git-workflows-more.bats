#!/usr/bin/env bats
# Issue #28, what is left of it for the user: a refusal's violation line names the way
# forward (the setting that lifts it, or that none does), every refused git key gets a
# line of its own, ordinary git work that succeeds prints no violation line, and the
# removals of git worktree remove and git submodule deinit work. As in 49: real git in
# srt with allowWrite ["."], the host's next git commands run as the victim. Each test
# failed before its change.
load helpers
load guard

@test "violations: a mandatory deny's line names the way forward, a git config's names allowGitConfig" {
	need_tool
	srt_only
	repo_init "$T/work"
	mkdir "$T/work/.vscode"
	echo '{}' >"$T/work/.vscode/settings.json"
	gsettings '["."]'
	attempt '
step bashrc "echo x >.bashrc"
step envrc "echo x >.envrc"
step vscode "echo x >.vscode/tasks.json"
step hook "plant .git/hooks/pre-commit"
step cfg-in-place "echo x >>.git/config"
step commondir "echo .. >.git/commondir"'
	refused bashrc envrc vscode hook cfg-in-place commondir
	local none="no setting lifts it: change it outside srt" f
	for f in .bashrc .envrc .vscode/tasks.json .git/hooks/pre-commit .git/commondir; do
		has_line "$T/work/$f (mandatory deny: "
		viol_lines | grep -F "$T/work/$f (" | grep -qF "; $none)" ||
			finding BROKEN "the line of $f names no way forward: $(viol_lines | grep -F "$T/work/$f (")"
	done
	has_line "$T/work/.git/config (git configuration written in place"
	viol_lines | grep -F "$T/work/.git/config (" | grep -q "allowGitConfig" ||
		finding BROKEN "the line of .git/config does not name allowGitConfig"
	# Every mandatory deny's line says what to do.
	viol_lines | grep -F '(mandatory deny' | grep -v -e "; $none)" -e allowGitConfig |
		while read -r l; do finding BROKEN "no way forward: $l"; done
	victim "git status" "$T/work" git status
	verdict
}

@test "violations: each refused git key gets a line, in one config and across commands" {
	need_tool
	srt_only
	repo_init "$T/work"
	gsettings '["."]'
	# shellcheck disable=SC2016
	attempt '
step pager "git config core.pager \"$PAYLOAD\""
step editor "git config core.editor \"$PAYLOAD\""
step two "cp .git/config .git/config.lock && printf \"[alias]\\n\\tx = !sh\\n[core]\\n\\tsshCommand = sh\\n\" >>.git/config.lock && mv .git/config.lock .git/config || { rm -f .git/config.lock; false; }"
step email "git config user.email a@example.com"'
	refused pager editor two
	allowed email
	local k
	for k in core.pager core.editor alias.x core.sshCommand; do
		has_line "$T/work/.git/config (git configuration $k in $T/work/.git: "
	done
	victim "git status" "$T/work" git status
	victim "git log" "$T/work" git log -1
	verdict
}

@test "workflow: git stash, git init again and git gc in an existing repository print no violation" {
	need_tool
	srt_only
	repo_init "$T/work"
	git -C "$T/work" worktree add -q wt1 -b b1
	echo change >>"$T/work/README"
	gsettings '["."]'
	attempt '
step stash "git stash -q"
step pop "git stash pop -q"
step init "git init -q"
step gc "git gc -q"
step gc-prune "git gc -q --prune=now"'
	allowed stash pop init gc gc-prune
	no_violations
	grep -q change "$T/work/README" || finding REFUSED "the stash did not come back on the host"
	victim "git status" "$T/work" git status
	victim "git status in the worktree" "$T/work/wt1" git status
	verdict
}

# A worktree and a submodule made on the host before the run: their .git files and the
# worktree's commondir were bound read-only and refused to go.
@test "workflow: git worktree remove, git worktree prune and git submodule deinit -f" {
	need_tool
	srt_only
	super_init
	# (From the commit before the submodule's: a worktree holding the user's
	# .gitmodules, a dangerous name, cannot be removed.)
	git -C "$T/work" worktree add -q wt1 -b b1 HEAD~1
	git -C "$T/work" worktree add -q "$T/wt2" -b b2
	rm -rf "$T/wt2"
	gsettings '["."]'
	attempt '
step wt-remove "git worktree remove wt1"
step wt-prune "git worktree prune"
step deinit "git submodule deinit -q -f lib"
step list "test \"\$(git worktree list | wc -l)\" = 1"'
	allowed wt-remove wt-prune deinit list
	no_violations
	[ ! -e "$T/work/wt1" ] || finding REFUSED "wt1 is still there on the host"
	[ ! -e "$T/work/.git/worktrees" ] || finding REFUSED ".git/worktrees is still there"
	[ ! -e "$T/work/lib/.git" ] || finding REFUSED "lib/.git is still there on the host"
	[ -d "$T/work/lib" ] || finding REFUSED "lib is not an empty directory on the host"
	[ -z "$(git -C "$T/work" config --get-regexp '^submodule\.' 2>&1)" ] ||
		finding REFUSED "the submodule is still in .git/config"
	victim "git status" "$T/work" git status
	victim "git submodule update --init" "$T/work" git -c protocol.file.allow=always \
		submodule -q update --init
	victim "git status in the submodule" "$T/work/lib" git status
	victim "git worktree add" "$T/work" git worktree add -q "$T/wt3" -b b3
	victim "git status in the new worktree" "$T/wt3" git status
	verdict
}

# What may go may not come back otherwise: the pointers removed are not made again, and
# what a worktree's admin directory or a submodule's directory would run stays refused.
@test "attack: a worktree's or submodule's pointer removed, then made again to the command's repository" {
	need_tool
	srt_only
	super_init
	git -C "$T/work" worktree add -q wt1 -b b1
	gsettings '["."]'
	attempt '
git init -q evil && plant evil/.git/hooks/pre-commit && fsmon_config evil/.git/config && plant fsm.sh
step mv-pointer "mv wt1/.git wt1/moved"
step rm-pointer "rm wt1/.git"
step new-pointer "echo \"gitdir: $PWD/evil/.git\" >wt1/.git"
step rm-sub "rm lib/.git"
step new-sub "echo \"gitdir: $PWD/evil/.git\" >lib/.git"
step sub-dir "mkdir lib/.git"
step rm-common "rm .git/worktrees/wt1/commondir"
step new-common "echo \"$PWD/evil/.git\" >.git/worktrees/wt1/commondir"
step admin-objects "mkdir .git/worktrees/wt1/objects .git/worktrees/wt1/refs"
step admin-hook "mkdir -p .git/worktrees/wt1/hooks && plant .git/worktrees/wt1/hooks/pre-commit"
step admin-config "fsmon_config .git/worktrees/wt1/config"
step rm-hooks "rm -r .git/hooks"
step hooks-again "mkdir .git/hooks"
step moved-in "rm -rf wt1 && mkdir t && echo \"gitdir: $PWD/evil/.git\" >t/.git && mv t wt1"
step rm-modules "rm .gitmodules"
step new-modules "printf \"[submodule \\\"lib\\\"]\\n\\tpath = lib\\n\\turl = ../x\\n\\tupdate = !sh\\n\" >.gitmodules"'
	allowed rm-pointer rm-sub rm-common rm-hooks
	refused mv-pointer new-pointer new-sub sub-dir new-common admin-hook admin-config hooks-again \
		moved-in rm-modules new-modules
	[ ! -e "$T/work/.git/worktrees/wt1/hooks/pre-commit" ] ||
		finding ESCAPED "a hook in the worktree's admin directory"
	victim "git status" "$T/work" git status
	victim "git commit in the worktree" "$T/work/wt1" git commit -q --allow-empty -m victim
	victim "git status in the submodule" "$T/work/lib" git status
	victim "git submodule update" "$T/work" git -c protocol.file.allow=always submodule -q \
		update --init
	victim "git commit in the submodule" "$T/work/lib" git commit -q --allow-empty -m victim
	verdict
}

# refused the git directory in it as a nested one.
@test "workflow: git init --separate-git-dir in the project directory (no repository yet)" {
	need_tool
	srt_only
	echo code >"$T/work/main.c"
	gsettings '["."]'
	attempt '
step init "git init -q --separate-git-dir=\"\$PWD/sep.git\""
step add "git add main.c"
step commit "git commit -q -m first"
step hook "plant sep.git/hooks/pre-commit"
step fsmonitor "plant fsm.sh && git config core.fsmonitor \"\$PWD/fsm.sh\""'
	allowed init add commit
	refused hook fsmonitor
	[ "$(cat "$T/work/.git" 2>/dev/null)" = "gitdir: $T/work/sep.git" ] ||
		finding REFUSED ".git does not name sep.git on the host"
	[ "$(git -C "$T/work" log -1 --format=%s 2>&1)" = first ] ||
		finding REFUSED "the commit is missing on the host"
	victim "git status" "$T/work" git status
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

@test "attack: a .git file made in the project directory names the user's repository elsewhere" {
	need_tool
	srt_only
	repo_init "$T/other"
	gsettings "[\".\", \"$T/other\"]"
	attempt '
step pointer "echo \"gitdir: $T/other/.git\" >.git"
step hook "plant \"$T/other/.git/hooks/pre-commit\""'
	refused hook
	[ ! -e "$T/work/.git" ] || finding ESCAPED "the pointer to the user's repository stayed"
	victim "git status" "$T/work" git status
	verdict
}

# git submodule update --init in a clone an earlier run made (lib/ an empty directory
# that predates the run): git writes lib/.git naming the git directory by its absolute
# path, then rewrites it relative. The rewrite was refused as the .git of a directory
# that predates the run; git printed "BUG:" and ended with status 0, the pointer left
# absolute. A .git file the command made in the run it may rewrite, as it made it.
@test "workflow: git submodule update --init in a clone an earlier run made" {
	need_tool
	srt_only
	super_init clone
	gsettings '["."]'
	attempt '
step update "git -c protocol.file.allow=always submodule -q update --init"
step relative "grep -qx \"gitdir: ../.git/modules/lib\" lib/.git"
step status "git -C lib status --porcelain"'
	allowed update relative status
	no_violations
	victim "git status in the submodule" "$T/work/lib" git status
	verdict
}

# What it rewrites is checked as what it makes: a .git file the command made, rewritten
# to name a git directory of the command's, does not stay for the host's git.
@test "attack: a submodule's .git file the command made, rewritten to name the command's repository" {
	need_tool
	srt_only
	super_init clone
	mkdir "$T/other"
	gsettings "[\".\", \"$T/other\"]"
	attempt '
plant fsm.sh
step update "git -c protocol.file.allow=always submodule -q update --init"
git init -q '"$T"'/other/evil
step rewrite "echo \"gitdir: '"$T"'/other/evil/.git\" >lib/.git"
step config "rm '"$T"'/other/evil/.git/config && fsmon_config '"$T"'/other/evil/.git/config"
step in-run "! git -C lib config core.fsmonitor"'
	allowed update rewrite in-run
	refused config
	grep -q evil "$T/work/lib/.git" 2>/dev/null &&
		finding ESCAPED "lib/.git names the command's repository on the host"
	victim "git status in the submodule" "$T/work/lib" git status
	victim "git checkout in the submodule" "$T/work/lib" git checkout -q -
	verdict
}
