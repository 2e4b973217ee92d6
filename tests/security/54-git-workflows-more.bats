#!/usr/bin/env bats
# Issue #28, what is left of it for the user: a refusal's violation line names the way
# forward (the setting that lifts it, or that none does), every refused git key gets a
# line of its own, ordinary git work that succeeds prints no violation line, and the
# removals of git worktree remove and git submodule deinit work. As in 49: real git in
# srt with allowWrite ["."], the host's next git commands run as the victim. Each test
# failed before its change.
load helpers
load guard

# viol_lines: the violation lines of the run (srt's <sandbox_violations> block).
viol_lines() {
	sed -n '/^<sandbox_violations>$/,/^<\/sandbox_violations>$/p' "$T/err" |
		grep '^deny ' || true
}

# no_violations: the run printed none.
no_violations() {
	if grep -q '<sandbox_violations>' "$T/err"; then
		finding REFUSED "violation lines on work that succeeded: $(viol_lines | tr '\n' '|')"
	fi
}

# has_line TEXT: a violation line holds TEXT.
has_line() {
	viol_lines | grep -qF -- "$1" || finding BROKEN "no violation line with: $1"
}

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
