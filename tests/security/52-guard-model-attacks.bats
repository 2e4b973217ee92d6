#!/usr/bin/env bats
# Escape battery: attacks on the write guard's git model (issue #28) from its own side:
# what the end-of-run pointer check reads, against what the host's git reads. Each
# attack runs inside srt; then the user's next git command runs on the host (guard.bash:
# victim, in `unshare -m -n`) and must not run the payload.
load helpers
load guard

# A linked worktree's commondir through a link: "up/../.." reads, as text, as the
# repository's worktrees directory, but git resolves the link first (realpath), and up
# leads into a directory the command filled as it liked (a config with core.fsmonitor,
# objects and refs, no HEAD: never a git directory, so never judged). The user's git
# status in the worktree runs the fsmonitor.
# reference 0.0.83: ESCAPED (git status in the worktree ran the fsmonitor)
@test "a worktree's commondir through a link to a directory the command filled" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
plant fsm.sh
step worktree "git worktree add -q wt1 -b b1"
mkdir -p evil/a/b && cp -r .git/objects .git/refs .git/config evil/ && fsmon_config evil/config
step link "ln -s \"$PWD/evil/a/b\" .git/worktrees/wt1/up"
step replace "rm -f .git/worktrees/wt1/commondir && echo up/../.. >.git/worktrees/wt1/commondir"'
	allowed worktree
	victim "git status in the worktree" "$T/work/wt1" git status
	victim "git status in the repository" "$T/work" git status
	verdict
}

# The end-of-run check removes a pointer that leads elsewhere, as the command's user (no
# capability to override a mode): a worktree's commondir rewritten to a directory the
# command filled, and its directory then made read-only, could not be removed, and the
# user's git status in the worktree ran the fsmonitor.
# reference 0.0.83: ESCAPED (git status in the worktree ran the fsmonitor)
@test "a rewritten commondir in a directory made read-only before the run ends" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
plant fsm.sh
step worktree "git worktree add -q wt1 -b b1"
mkdir -p evil && cp -r .git/objects .git/refs .git/config evil/ && fsmon_config evil/config
step replace "rm -f .git/worktrees/wt1/commondir && echo \"$PWD/evil\" >.git/worktrees/wt1/commondir"
step ro "chmod 500 .git/worktrees/wt1"'
	allowed worktree replace ro
	victim "git status in the worktree" "$T/work/wt1" git status
	verdict
}

# A submodule's core.worktree, which the judge reads as text inside the superproject
# ("../../../lnk"), leads through a link the command made in the work tree to a
# directory outside every write root; git chdir()s through it. The user's git checkout
# of a branch the command made in the submodule's git directory writes its files there.
# The config that says so is taken away at the end of the run.
# reference 0.0.83: ESCAPED (the checkout wrote outside/planted)
@test "a submodule's core.worktree through a link to a directory outside the write roots" {
	need_tool
	super_init
	mkdir -p "$T/outside"
	gsettings '["."]'
	keep "$T/outside/planted"
	attempt '
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
m=.git/modules/lib
step email "git --git-dir=$m config user.email me@example.org"
step link "ln -s \"$T/outside\" lnk"
step worktree "git --git-dir=$m config core.worktree ../../../lnk"
step branch "b=\$(echo pwn | git --git-dir=$m hash-object -w --stdin) && t=\$(printf \"100644 blob %s\tplanted\n\" \$b | git --git-dir=$m mktree) && c=\$(git --git-dir=$m commit-tree -m x \$t) && git --git-dir=$m update-ref refs/heads/pwn \$c"'
	# The ordinary step the attack hides behind: the submodule's config changes.
	allowed email link branch
	grep -q "core.worktree that leads through a link" "$T/err" ||
		finding NO-WARNING "no violation for the submodule's config"
	victim "git checkout of the branch in the submodule" "$T/work/lib" git checkout -q pwn
	victim "git status in the submodule" "$T/work/lib" git status
	verdict
}

# A .git file outside the user's repositories named any .git directory, the user's other
# repositories' too: there the host's git runs that repository's hooks and configuration
# on the command's directory. With the user's husky set-up (core.hooksPath = .husky,
# relative to the work tree), the command's c1/.husky/pre-commit runs at the user's git
# commit in c1. The clone is the ordinary step beside it.
# reference 0.0.83: ESCAPED (git commit in c1 ran the command's pre-commit)
@test "a .git file in a new directory naming the user's other repository" {
	need_tool
	repo_init "$T/src"
	repo_init "$T/other"
	mkdir -p "$T/other/.husky" && printf '#!/bin/sh\nexit 0\n' >"$T/other/.husky/pre-commit" &&
		chmod +x "$T/other/.husky/pre-commit" && git -C "$T/other" add .husky &&
		git -C "$T/other" commit -q -m husky && git -C "$T/other" config core.hooksPath .husky
	mkdir -p "$T/src/.husky" && echo x >"$T/src/.husky/pre-commit" &&
		git -C "$T/src" add .husky && git -C "$T/src" commit -q -m husky
	gsettings '["."]'
	attempt '
step clone "git clone -q \"$T/src\" c2"
step pointer "mkdir c1 && echo \"gitdir: $T/other/.git\" >c1/.git"
step hook "mkdir -p c1/.husky && plant c1/.husky/pre-commit"'
	allowed clone
	victim "git commit in c1" "$T/work/c1" \
		git -c user.name=u -c user.email=u@x commit -q --allow-empty -m x
	verdict
}

# A rebase left stopped in the user's repository, with an exec step added to its list:
# the user's git rebase --continue on the host runs it. Written through the command's
# own descriptor (in place, or by sed -i's rename), it is looked at when the run ends.
# reference 0.0.83: ESCAPED (git rebase --continue ran the exec step)
@test "an exec step added to a stopped rebase in the user's repository" {
	need_tool
	repo_init "$T/work"
	echo two >>"$T/work/README" && git -C "$T/work" commit -qam two
	echo three >>"$T/work/README" && git -C "$T/work" commit -qam three
	gsettings '["."]'
	attempt '
export GIT_AUTHOR_NAME=a GIT_AUTHOR_EMAIL=a@b GIT_COMMITTER_NAME=a GIT_COMMITTER_EMAIL=a@b
plant evil.sh
step rebase-exec "GIT_SEQUENCE_EDITOR=true git rebase -q -i --exec true HEAD~2"
step rebase-edit "GIT_SEQUENCE_EDITOR=\"sed -i s/^pick/edit/\" git rebase -q -i HEAD~2"
step todo-sed "sed -i \"1i exec sh $PWD/evil.sh\" .git/rebase-merge/git-rebase-todo"
step todo-append "echo \"x sh $PWD/evil.sh\" >>.git/rebase-merge/git-rebase-todo"'
	allowed rebase-exec rebase-edit
	grep -q "a rebase step that runs a command" "$T/err" ||
		finding NO-WARNING "no violation for the rebase's steps"
	victim "git rebase --continue" "$T/work" \
		git -c user.name=u -c user.email=u@x -c core.editor=true rebase --continue
	verdict
}
