#!/usr/bin/env bats
# A repository an earlier run made (a clone, git init) is, in the next run, one that
# predates it: the user's. Removing it (rm -rf of the clone) must work: what it loses
# plants nothing git runs (git's hook samples, which git never runs; the hooks directory
# and the .git once empty; config, which the judged rename may already empty). With the
# write guard a hooks directory of samples only is not bound read-only, so the guard
# alone keeps every hook from being made there (by an open, a link, a hard link, a
# rename, a directory moved in), and a .git of the user's that went is not made again in
# the run. A hooks directory that holds a hook stays bound read-only. Real git in srt
# with allowWrite ["."]; the victim is the host's git commit (it runs pre-commit and
# post-commit) or git status.
load helpers
load guard

@test "workflow: rm -rf of a clone, of a nested repository and of a git init an earlier run made" {
	need_tool
	srt_only
	repo_init "$T/src"
	git clone -q "$T/src" "$T/work/c"
	git init -q "$T/work/i"
	mkdir -p "$T/work/n/deep" && repo_init "$T/work/n/deep/r"
	gsettings '["."]'
	attempt '
step rm-clone "rm -rf c && ! test -e c"
step rm-init "rm -r i && ! test -e i"
step rm-nested "rm -rf n && ! test -e n"'
	allowed rm-clone rm-init rm-nested
	no_violations
	verdict
}

# A repository with a linked worktree: rm -rf may take the .git's HEAD before its
# worktrees/NAME/gitdir and commondir (readdir's order), which go all the same.
@test "workflow: rm -rf of a repository with a linked worktree, the worktree's first" {
	need_tool
	srt_only
	repo_init "$T/work/r"
	git -C "$T/work/r" worktree add -q "$T/work/r-wt" -b wt
	gsettings '["."]'
	attempt '
step rm-wt "rm -rf r-wt && ! test -e r-wt"
step rm-r "rm -rf r && ! test -e r"'
	allowed rm-wt rm-r
	no_violations
	verdict
}

# The plan leaves a hooks directory of samples only to the guard: each way a hook could
# be made there is refused, and the host's git commit runs none.
@test "attack: a hook made in a hooks directory of git's samples, which is not bound read-only" {
	need_tool
	srt_only
	repo_init "$T/work/r"
	gsettings '["."]'
	attempt '
plant pay.sh
step by-open "plant r/.git/hooks/pre-commit"
step by-link "ln -s ../../../pay.sh r/.git/hooks/post-commit"
step by-hard-link "ln pay.sh r/.git/hooks/pre-commit"
step write-sample "cat pay.sh >r/.git/hooks/pre-commit.sample"
step rename-sample "mv r/.git/hooks/pre-commit.sample r/.git/hooks/pre-commit"
step dir-in "mkdir -p h2 && plant h2/pre-commit && mv r/.git/hooks r/.git/hooks.old"
step dir-exchange "\"\$FSOP\" exchange h2 r/.git/hooks"
step gone-then-dir "rm -rf r/.git/hooks && mv h2 r/.git/hooks"
step gone-then-link "ln -s ../../h2 r/.git/hooks"
step gone-then-mkdir "mkdir r/.git/hooks"'
	refused by-open by-link by-hard-link write-sample rename-sample dir-in dir-exchange \
		gone-then-dir gone-then-link gone-then-mkdir
	victim "git commit" "$T/work/r" git commit -q --allow-empty -m x
	verdict
}

# The user's .git that went is not made again in the run: not by mkdir (a git init), a
# .git file or link naming a git directory of the command's, a git directory moved in.
@test "attack: a .git made again where the user's went" {
	need_tool
	srt_only
	repo_init "$T/work/r"
	gsettings '["."]'
	attempt '
plant fsm.sh
git init -q mine && fsmon_config mine/.git/config
step rm "rm -rf r/.git"
step mkdir "mkdir r/.git"
step init "git init -q r"
step pointer "echo \"gitdir: ../mine/.git\" >r/.git"
step link "ln -s ../mine/.git r/.git"
step moved "mv mine/.git r/.git"
step in-run "! git -C r config core.fsmonitor"'
	allowed rm in-run
	refused mkdir init pointer link moved
	victim "git status" "$T/work/r" git status
	verdict
}

# With its config removed, the user's repository gets none by an open (where the host's
# git would read it before anything judged it); git's own rename is judged as ever.
@test "attack: the user's config removed, then made by an open" {
	need_tool
	srt_only
	repo_init "$T/work/r"
	gsettings '["."]'
	attempt '
plant fsm.sh
step rm "rm r/.git/config"
step by-open "fsmon_config r/.git/config"
step in-run "! git -C r config core.fsmonitor"
step by-git "git -C r config user.name someone"'
	allowed rm in-run by-git
	refused by-open
	victim "git status" "$T/work/r" git status
	verdict
}

# A hooks directory that holds a hook (husky's, the user's own) stays bound read-only:
# rm -rf cannot take it, and the hook is as it was.
@test "workflow: a repository whose hooks hold a hook is not removed, its hook kept" {
	need_tool
	srt_only
	repo_init "$T/work/r"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/r/.git/hooks/pre-commit"
	chmod +x "$T/work/r/.git/hooks/pre-commit"
	keep "$T/work/r/.git/hooks/pre-commit" "$T/work/r/.git/hooks"
	gsettings '["."]'
	attempt '
step rm "rm -rf r"
step hook "test -x r/.git/hooks/pre-commit"'
	allowed hook
	refused rm -- "Read-only file system"
	verdict
}
