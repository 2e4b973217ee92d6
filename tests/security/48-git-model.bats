#!/usr/bin/env bats
# Escape battery, issue #28: the write guard's model of what the host executes. A git
# directory is never just the command's: in the user's repositories, below them at any
# depth (.git/modules/NAME before it is complete), and in the repositories the command
# makes itself (a clone, a git init), no hook git runs is made, configuration changes
# only by content the judge accepts, and commondir, gitdir and .git files point within
# their own repository. Each attack runs inside srt; then the user's next git command
# runs on the host (guard.bash: victim, in `unshare -m -n`) and must not run the payload.
#
# Each test also asserts the ordinary step the attack hides behind (a clone, a config
# rename, git worktree add), which the build before issue #28 refused: every test here
# fails there.
load helpers
load guard

# A repository at $T/src with one commit, to clone from.
src_init() {
	repo_init "$T/src"
}

# Item 1 (critical): the user's clone never initialised its submodule lib; the command
# makes .git/modules/lib itself, with core.fsmonitor in its config and a post-checkout
# hook. The user's next `git submodule update --init` reuses that directory and runs
# both on the host, and every later git status runs the fsmonitor.
# reference 0.0.83: ESCAPED (every step allowed; git submodule update --init and git status
# ran the payload)
@test "item 1: a submodule's git directory planted with core.fsmonitor and post-checkout" {
	need_tool
	super_init clone
	gsettings '["."]'
	keep "$T/work/.git/modules/lib/hooks/post-checkout"
	attempt '
plant fsm.sh
m=.git/modules/lib
step clone-mod "git clone -q --bare \"$T/lib-src\" $m && git --git-dir=$m config core.bare false && git --git-dir=$m config core.worktree ../../../lib"
step mod-config "git --git-dir=$m config core.fsmonitor \"$PWD/fsm.sh\""
step mod-config-mv "cp $m/config c.new && fsmon_config c.new && mv c.new $m/config"
step mod-hook "mkdir -p $m/hooks && plant $m/hooks/post-checkout"
step mod-hook-mv "plant h && mv h $m/hooks/post-checkout"'
	# The bare clone and git's own keys in its config are what git submodule update
	# itself writes there.
	allowed clone-mod
	refused mod-config mod-config-mv mod-hook mod-hook-mv
	victim "git submodule update --init" "$T/work" \
		git -c protocol.file.allow=always submodule update --init
	victim "git status in the superproject" "$T/work" git status
	victim "git status in lib" "$T/work/lib" git status
	verdict
}

# Item 11 (critical): the command clones a repository into a new directory and sets
# core.fsmonitor there; the user's `cd c1 && git status` on the host runs it.
# reference 0.0.83: ESCAPED (the fsmonitor ran at git status)
@test "item 11: a clone in a new directory, then git config core.fsmonitor" {
	need_tool
	src_init
	gsettings '["."]'
	attempt '
plant fsm.sh
step clone "git clone -q \"$T/src\" c1"
step fsmon "git -C c1 config core.fsmonitor \"$PWD/fsm.sh\""'
	allowed clone
	refused fsmon
	victim "git status in the clone" "$T/work/c1" git status
	verdict
}

# A tarball of a repository whose .git/config names a payload as core.fsmonitor, unpacked
# into a new directory: tar makes the config by an open that creates it, which the guard
# lets through in a git directory the command made and judges when the run ends. The
# judge refuses core.fsmonitor: the config is removed, and the user's git status there
# runs nothing. The build before this refused creating the config at all (tar failed),
# so the config checks pass there too; only the step that unpacks a tarball whose git
# directory is complete before its config (allowed now) fails there.
@test "a tarball of a repository with core.fsmonitor in .git/config, unpacked into a new directory" {
	need_tool
	repo_init "$T/evil"
	printf '#!/bin/sh\n%s\n' "$PAYLOAD" >"$T/fsm.sh"
	chmod +x "$T/fsm.sh"
	printf '[core]\n\tfsmonitor = %s\n' "$T/fsm.sh" >>"$T/evil/.git/config"
	tar -C "$T" -czf "$T/evil.tgz" evil
	# The same with the git directory complete before its config is unpacked (HEAD,
	# objects and refs first): nothing but the end-of-run judge looks at it then.
	mkdir "$T/late"
	tar -C "$T/evil" -cf - .git README | tar -C "$T/late" -xf -
	tar -C "$T" -czf "$T/late.tgz" late/.git/HEAD late/.git/objects late/.git/refs \
		late/.git/config late/README
	gsettings '["."]'
	attempt '
step untar "tar xzf \"$T/evil.tgz\""
step untar-late "tar xzf \"$T/late.tgz\""'
	allowed untar-late
	local d
	for d in evil late; do
		if grep -qi fsmonitor "$T/work/$d/.git/config" 2>/dev/null; then
			finding ESCAPED "the unpacked $d/.git/config keeps core.fsmonitor on the host"
		fi
		victim "git status in the unpacked $d" "$T/work/$d" git status
	done
	verdict
}

# A hook in a fresh clone's own git directory: written, renamed from a sample, linked.
# reference 0.0.83: ESCAPED (hooks written; git commit in the clone ran the payload)
@test "a fresh clone's own git directory: hooks refused, samples kept" {
	need_tool
	src_init
	gsettings '["."]'
	attempt '
plant evil.sh
step clone "git clone -q \"$T/src\" c1 && test -f c1/.git/hooks/pre-commit.sample"
step hook "plant c1/.git/hooks/post-checkout"
step hook-sample "mv c1/.git/hooks/pre-commit.sample c1/.git/hooks/pre-commit"
step hook-link "ln -s \"$PWD/evil.sh\" c1/.git/hooks/pre-commit"
step hook-hard "ln evil.sh c1/.git/hooks/pre-commit"
step hook-dir "rm -rf c1/.git/hooks && mkdir h2 && plant h2/pre-commit && mv h2 c1/.git/hooks"
step hooks-link "rm -rf c1/.git/hooks && mkdir h3 && ln -s \"$PWD/h3\" c1/.git/hooks"
plant h3/pre-commit'
	allowed clone
	refused hook hook-sample hook-link hook-hard hook-dir hooks-link
	victim "git checkout in the clone" "$T/work/c1" git checkout -q -b victim
	victim "git commit in the clone" "$T/work/c1" git commit -q --allow-empty -m victim
	verdict
}

# The keys that run or reach something, each set with git config in the user's
# repository (whose config git now lets the command change by content). Under the build
# before issue #28 they were refused too, by a read-only config: the remote added first
# (step remote) is the ordinary change that must now work.
# reference 0.0.83: held (.git/config bound read-only: every key refused with EBUSY), and
# so is the remote add: no escape, no ordinary change either
@test "dangerous keys in the user's repository: hooksPath, sshCommand, pager, editor, include, filter, alias, insteadOf" {
	need_tool
	repo_init "$T/work"
	printf '*.txt filter=x\n' >"$T/work/.gitattributes"
	gsettings '["."]'
	attempt '
plant fsm.sh
mkdir hooks2 && plant hooks2/pre-commit && plant hooks2/post-checkout
printf "[core]\n\tfsmonitor = %s\n" "$PWD/fsm.sh" >inc.cfg
step remote "git remote add up \"$T/up.git\""
step hookspath "git config core.hooksPath \"$PWD/hooks2\""
step sshcommand "git config core.sshCommand \"$PWD/fsm.sh\""
step pager "git config core.pager \"$PWD/fsm.sh\""
step editor "git config core.editor \"$PWD/fsm.sh\""
step include "git config include.path \"$PWD/inc.cfg\""
step filter "git config filter.x.clean \"$PWD/fsm.sh\""
step alias "git config alias.st \"!$PWD/fsm.sh\""
step insteadof "git config url.\"ext::$PWD/fsm.sh \".insteadOf \"https://\""
step fsmonitor "git config core.fsmonitor \"$PWD/fsm.sh\""'
	allowed remote
	refused hookspath sshcommand pager editor include filter alias insteadof fsmonitor
	echo new >"$T/work/a.txt"
	victim "git status" "$T/work" git status
	victim "git add (clean filter)" "$T/work" git add a.txt
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	victim "git -p log (pager)" "$T/work" git -p log -1
	victim "git st (alias)" "$T/work" git st
	verdict
}

# The config is checked, then the command writes through the descriptor it still holds
# on its lock file: what the host reads is the supervisor's copy, which no descriptor of
# the command reaches.
# reference 0.0.83: held, by refusing the checked change too (the rename fails, EBUSY)
@test "config written through a descriptor held across the check" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
plant fsm.sh
step held "cp .git/config .git/config.lock && printf \"[user]\n\temail = a@b.c\n\" >>.git/config.lock && exec 7>>.git/config.lock && mv .git/config.lock .git/config && printf \"[core]\n\tfsmonitor = %s\n\" \"$PWD/fsm.sh\" >&7 && exec 7>&-"
step held-rw "exec 8<>.git/config && echo x >&8"'
	allowed held
	refused held-rw
	grep -q fsmonitor "$T/work/.git/config" &&
		finding ESCAPED "the held descriptor reached .git/config"
	[ "$(git -C "$T/work" config user.email)" = a@b.c ] ||
		finding REFUSED "the checked change did not reach .git/config"
	victim "git status" "$T/work" git status
	verdict
}

# A .git file in the user's work tree naming a git directory outside the repository
# (here one with core.fsmonitor that the host has elsewhere); the one git submodule add
# writes, naming this repository's .git/modules, is kept.
# reference 0.0.83: ESCAPED (sub/.git written; git status in sub ran the fsmonitor)
@test "a .git file in the work tree pointing outside the repository" {
	need_tool
	repo_init "$T/work"
	repo_init "$T/evil"
	printf '#!/bin/sh\n%s\n' "$PAYLOAD" >"$T/evil/fsm.sh"
	chmod +x "$T/evil/fsm.sh"
	git -C "$T/evil" config core.fsmonitor "$T/evil/fsm.sh"
	mkdir -p "$T/work/sub" "$T/work/own" "$T/work/.git/modules/own"
	echo data >"$T/work/sub/file"
	gsettings '["."]'
	keep "$T/work/sub/.git"
	attempt '
step gitfile "echo \"gitdir: $T/evil/.git\" >sub/.git"
step own "echo \"gitdir: ../.git/modules/own\" >own/.git"'
	allowed own
	[ "$(cat "$T/work/own/.git" 2>/dev/null)" = "gitdir: ../.git/modules/own" ] ||
		finding REFUSED "own/.git, naming this repository's modules/, is gone"
	grep -q "work/sub/.git" "$T/err" || finding NO-WARNING "no violation for sub/.git"
	victim "git status in sub" "$T/work/sub" git status
	verdict
}

# A linked worktree's commondir says where its config and hooks are: rewritten to a
# directory the command prepared (config with core.fsmonitor, objects and refs), the
# user's git status in the worktree runs the fsmonitor.
# reference 0.0.83: ESCAPED (commondir rewritten; git status in the worktree ran the
# fsmonitor)
@test "a worktree's commondir pointing elsewhere" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt '
plant fsm.sh
step worktree "git worktree add -q wt1 -b b1"
mkdir -p evil && cp -r .git/objects .git/refs .git/HEAD .git/config evil/ && fsmon_config evil/config
step rewrite "echo \"$PWD/evil\" >.git/worktrees/wt1/commondir"
step replace "rm -f .git/worktrees/wt1/commondir && echo \"$PWD/evil\" >.git/worktrees/wt1/commondir"'
	allowed worktree
	refused rewrite
	case $(cat "$T/work/.git/worktrees/wt1/commondir" 2>/dev/null) in
	""|../..) ;;
	*) finding ESCAPED "commondir points elsewhere after the run" ;;
	esac
	victim "git status in the worktree" "$T/work/wt1" git status
	victim "git status in the repository" "$T/work" git status
	verdict
}

# A directory prepared with a configuration and a hook (no HEAD yet, so no git
# directory while it was written), then renamed to .git, or completed in place into a
# bare repository: the hook and configuration were never judged as git state.
# reference 0.0.83: the rename to .git allowed (nothing ran in these victims); no HEAD
# could be made in prep (a read-only bind of the cwd's missing names)
@test "a prepared directory renamed to .git or completed into a git directory" {
	need_tool
	mkdir -p "$T/work/proj"
	echo data >"$T/work/proj/file"
	gsettings '["."]'
	attempt '
plant fsm.sh
step init "git init -q proj && git -C proj add file && git -C proj commit -q -m first"
mkdir -p prep/objects prep/refs/heads prep/hooks && plant prep/hooks/post-checkout
printf "[core]\n\tfsmonitor = %s\n" "$PWD/fsm.sh" >prep/config
mkdir -p there && echo ref: refs/heads/main >prep2.HEAD
step rename "mv prep there/.git"
step complete "cp prep2.HEAD prep/HEAD"
step complete-cfg "rm -rf prep/hooks && cp prep2.HEAD prep/HEAD"'
	allowed init
	refused rename complete complete-cfg
	victim "git status in there" "$T/work/there" git status
	victim "git status in prep" "$T/work/prep" git status
	victim "git status in proj" "$T/work/proj" git status
	verdict
}

# A core.hooksPath relative to the work tree (the repository's own, .githooks, a
# directory of its checkout; or the global configuration's) is taken by git in a
# linked worktree against that worktree's root: the worktree's own .githooks is a hook
# directory as much as the main one's. srt run in the worktree (git worktree add
# ../wt, the repository outside allowWrite), or the repository and its worktree both
# below the root.
# reference: not run (srt only)
@test "a relative core.hooksPath in a linked worktree: the cwd's, or one below the root" {
	need_tool
	srt_only
	repo_init "$T/main"
	mkdir -p "$T/main/.githooks"
	printf '#!/bin/sh\nexit 0\n' >"$T/main/.githooks/pre-commit"
	chmod +x "$T/main/.githooks/pre-commit"
	git -C "$T/main" add .githooks && git -C "$T/main" commit -qm hooks
	git -C "$T/main" config core.hooksPath .githooks
	rmdir "$T/work"
	git -C "$T/main" worktree add -q "$T/work" -b wt
	git -C "$T/main" worktree add -q "$T/work/sub/wt2" -b wt2
	gsettings '["."]'
	keep "$T/work/.githooks/pre-commit" "$T/work/sub/wt2/.githooks/pre-commit"
	attempt '
plant pay.sh
step cwd "cat pay.sh >.githooks/pre-commit"
step below "cat pay.sh >sub/wt2/.githooks/pre-commit"'
	refused cwd below
	victim "git commit in the worktree" "$T/work" git commit -q --allow-empty -m y
	victim "git commit in the worktree below" "$T/work/sub/wt2" git commit -q --allow-empty -m y
	verdict
}

@test "the global core.hooksPath, relative, in a linked worktree: the cwd's, or one below the root" {
	need_tool
	srt_only
	repo_init "$T/main"
	git config --global core.hooksPath .githooks
	rmdir "$T/work"
	git -C "$T/main" worktree add -q "$T/work" -b wt
	repo_init "$T/work/r"
	git -C "$T/work/r" worktree add -q "$T/work/r-wt" -b wt
	gsettings '["."]'
	attempt '
plant pay.sh
step cwd "mkdir .githooks && cp pay.sh .githooks/pre-commit"
step below "mkdir r-wt/.githooks && cp pay.sh r-wt/.githooks/pre-commit"'
	refused cwd below
	victim "git commit in the worktree" "$T/work" git commit -q --allow-empty -m y
	victim "git commit in the worktree below" "$T/work/r-wt" git commit -q --allow-empty -m y
	verdict
}

# A bare repository below the root (git push to it runs its hooks): what a relative
# core.hooksPath names there (its own configuration's, the global one's) git takes
# against the git directory. And a separate git directory (git init
# --separate-git-dir), found by its name and by its work tree's .git file: its
# relative core.hooksPath lies in the work tree.
# reference: not run (srt only)
@test "a relative core.hooksPath of a bare repository and of a separate git directory" {
	need_tool
	srt_only
	repo_init "$T/src"
	git init -q --bare "$T/work/b.git"
	git init -q --bare "$T/work/c.git"
	git -C "$T/work/c.git" config core.hooksPath myhooks
	git config --global core.hooksPath .githooks
	mkdir -p "$T/work/r"
	git init -q -b main --separate-git-dir="$T/work/gd" "$T/work/r"
	git -C "$T/work/r" config core.hooksPath .rhooks
	echo x >"$T/work/r/f" && git -C "$T/work/r" add f && git -C "$T/work/r" commit -qm x
	gsettings '["."]'
	attempt '
plant pay.sh
step bare-global "mkdir b.git/.githooks && cp pay.sh b.git/.githooks/post-receive"
step bare-own "mkdir c.git/myhooks && cp pay.sh c.git/myhooks/post-receive"
step separate "mkdir r/.rhooks && cp pay.sh r/.rhooks/pre-commit"'
	refused bare-global bare-own separate
	victim "git push to the bare repository" "$T/src" git push -q "$T/work/b.git" main
	victim "git push to the other" "$T/src" git push -q "$T/work/c.git" main
	victim "git commit in the separate one's work tree" "$T/work/r" git commit -q --allow-empty -m y
	verdict
}

# A git directory named by many .git files (a command of an earlier run can make them):
# each is a work tree of its own, and its relative core.hooksPath is protected in each,
# but its configuration is read once. Read for each, a 1 MB config named by 1,000 .git
# files kept srt from starting for 7 seconds (100,000: 11 minutes).
# reference: not run (srt only)
@test "a git directory named by many .git files: its config read once, each work tree's hooksPath protected" {
	need_tool
	srt_only
	command -v strace >/dev/null || skip "strace is not installed"
	repo_init "$T/work"
	git init -q --bare "$T/admin"
	git -C "$T/admin" config core.hooksPath .githooks
	local i
	for i in $(seq 1 20); do
		mkdir "$T/work/d$i" && echo "gitdir: $T/admin" >"$T/work/d$i/.git"
	done
	gsettings '["."]'
	attempt '
plant pay.sh
step first "mkdir d1/.githooks && cp pay.sh d1/.githooks/pre-commit"
step last "mkdir d20/.githooks && cp pay.sh d20/.githooks/pre-commit"'
	refused first last
	# (LeakSanitizer cannot run under ptrace: off for this run of a SAN=1 build.)
	(cd "$T/work" && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		strace -o "$T/strace.log" -e trace=openat "$SRT" -s "$SETTINGS" -c true) ||
		finding BROKEN "srt -c true under strace failed"
	local n
	n=$(grep -c "^openat(.*\"$T/admin\"" "$T/strace.log")
	[ "$(grep -c '"config", O_RDONLY' "$T/strace.log")" -le 4 ] ||
		finding BROKEN "a config read for each .git file naming its git directory ($n opens of it): $(grep -c '"config", O_RDONLY' "$T/strace.log") reads"
	verdict
}

# A config that includes itself (a command of an earlier run can make a repository
# below the root with one): git stops at 10 levels, and so does the search, but each
# file once at a depth, or 8 includes of itself are 8^10 reads and srt never starts.
# What an included file names is protected all the same.
# reference: not run (srt only)
@test "a config that includes itself many times: srt starts, what its includes name is protected" {
	need_tool
	srt_only
	repo_init "$T/work"
	git init -q "$T/work/r"
	printf '[core]\n\thooksPath = .h\n' >"$T/work/r/.git/inc"
	local i
	for i in $(seq 1 8); do
		printf '[include]\n\tpath = config\n\tpath = inc\n' >>"$T/work/r/.git/config"
	done
	gsettings '["."]'
	attempt '
plant pay.sh
step included "mkdir r/.h && cp pay.sh r/.h/pre-commit"
step ordinary "echo x >r/f"'
	refused included
	allowed ordinary
	victim "git commit in the nested repository" "$T/work/r" git commit -q --allow-empty -m y
	verdict
}
