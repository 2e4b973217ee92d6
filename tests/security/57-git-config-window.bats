#!/usr/bin/env bats
# The window of a git config made by an open: in a git directory the command made, a
# config may be created by an open (cp -a or tar x of a repository) and is judged only
# when the run ends (wguard_why_cfg_new). Until then git run by the host in a directory
# that predates the run (an editor's, the agent's git status in the project directory)
# must find no way to it: no .git of any kind, commondir or gitdir, link or directory
# moved where a predating directory stood, predating directory moved into the command's
# repository, gitlink its git status enters; and once there is a way, no config by an
# open (sup_git_way_ok in srt-seccomp/sup_names.c). Each attack's witness is git run
# inside the run in the predating directory, which must not read the command's
# core.fsmonitor; the host's git status after the run is the victim. Each test failed
# before its change. As in 49 and 54: real git in srt with allowWrite ["."].
load helpers
load guard

# A linked worktree outside the project, in allowWrite: its .git file may go (as git
# worktree remove removes it), but no git directory made elsewhere may be moved in where
# it was (the plan names that .git: nothing is made there again). git in that worktree
# would read configuration the supervisor judges only when the run ends: a host's git
# status there during the run (an editor's) would run it. Seen refused already when
# written: it guards the directory rename, which sup_create_ok's check of removed
# pointers does not see.
@test "attack: a git directory made elsewhere, moved in where a worktree's .git file was" {
	need_tool
	srt_only
	repo_init "$T/work"
	git -C "$T/work" worktree add -q "$T/wts/wt" -b b1
	gsettings "[\".\", \"$T/wts\"]"
	attempt '
plant fsm.sh
step rm-pointer "rm '"$T"'/wts/wt/.git"
step prepare "mkdir -p '"$T"'/wts/gd/objects '"$T"'/wts/gd/refs && echo \"ref: refs/heads/b1\" >'"$T"'/wts/gd/HEAD && fsmon_config '"$T"'/wts/gd/config"
step moved-in "mv '"$T"'/wts/gd '"$T"'/wts/wt/.git"
step in-run "! git -C '"$T"'/wts/wt config core.fsmonitor"'
	allowed rm-pointer prepare in-run
	refused moved-in
	victim "git status in the worktree" "$T/wts/wt" git status
	verdict
}

# git init in the project directory, which was no repository: its config was made by an
# open like a clone's in a directory of the command's, judged only when the run ends;
# until then git in the project directory (the host's, an editor's) read and ran what
# the command wrote there. Now only by the judged rename, as git itself writes it.
@test "attack: git init in the project directory, then its config made anew by an open" {
	need_tool
	srt_only
	echo code >"$T/work/main.c"
	gsettings '["."]'
	attempt '
plant fsm.sh
step init "git init -q"
step rm-config "rm .git/config"
step by-open "fsmon_config .git/config"
step in-run "! git config core.fsmonitor"
step remote "git remote add origin ../elsewhere"
step commit "git add main.c && git -c user.email=a@b.c -c user.name=a commit -q -m first"'
	allowed init rm-config in-run remote commit
	refused by-open
	victim "git status" "$T/work" git status
	verdict
}

# The other ways for git in the project directory (no repository) to reach a git
# directory the command made, whose config made by an open waits to be judged when the
# run ends: a .git file naming it, the git directory moved in as .git, a .git made there
# with a commondir naming it. Each let git in the project directory read the command's
# core.fsmonitor in the run.
way_attack() {
	need_tool
	srt_only
	gsettings '["."]'
	attempt '
plant fsm.sh
git init -q fresh && rm fresh/.git/config && fsmon_config fresh/.git/config
step way "'"$1"'"
step in-run "! git config core.fsmonitor"'
	refused way
	allowed in-run
	victim "git status" "$T/work" git status
	verdict
}

@test "attack: a .git file in the project directory names a git directory whose config waits to be judged" {
	way_attack 'echo \"gitdir: \$PWD/fresh/.git\" >.git'
}

@test "attack: a git directory whose config waits to be judged, moved in as the project directory's .git" {
	way_attack 'mv fresh/.git .git'
}

@test "attack: a .git made in the project directory, its commondir naming a git directory whose config waits" {
	way_attack 'mkdir .git && echo \"ref: refs/heads/main\" >.git/HEAD && echo \"\$PWD/fresh/.git\" >.git/commondir'
}

@test "attack: a .git file in the project directory first, then a config by an open where it leads" {
	need_tool
	srt_only
	gsettings '["."]'
	attempt '
plant fsm.sh
step pointer "echo \"gitdir: \$PWD/fresh/.git\" >.git"
step init "git init -q fresh && rm fresh/.git/config"
step by-open "fsmon_config fresh/.git/config"
step in-run "! git config core.fsmonitor"
step judged "git -C fresh config user.name a"'
	allowed pointer init in-run judged
	refused by-open
	victim "git status" "$T/work" git status
	verdict
}

# More ways to such a git directory, each of which let git in a directory that predates
# the run read the command's core.fsmonitor in the run: the project directory made a
# git directory itself (bare, as git finds one) by a commondir naming it and a HEAD, in
# either order (the commondir was a way only in a git directory); a link, or a git
# directory moved in, where a subdirectory that predates the run stood (git run there
# follows the link; the moved config was noted anew and judged only at the end).
@test "attack: the project directory made a git directory by a commondir, then a HEAD" {
	way_attack 'echo \"\$PWD/fresh/.git\" >commondir && echo \"ref: refs/heads/main\" >HEAD'
}

@test "attack: the project directory made a git directory by a HEAD, then a commondir" {
	way_attack 'echo \"ref: refs/heads/main\" >HEAD && echo \"\$PWD/fresh/.git\" >commondir'
}

# way_in_attack WAY [DIR]: as way_attack, git in the subdirectory src that predates the
# run the witness (found at DIR once moved).
way_in_attack() {
	need_tool
	srt_only
	mkdir "$T/work/src"
	gsettings '["."]'
	attempt '
plant fsm.sh
git init -q fresh && rm fresh/.git/config && fsmon_config fresh/.git/config
git init -q --bare fb && rm -r fb/hooks fb/config && fsmon_config fb/config
step way "'"$1"'"
step in-run "! git -C '"${2:-src}"' config core.fsmonitor"'
	refused way
	allowed in-run
	victim "git status" "$T/work/${2:-src}" git status
	verdict
}

@test "attack: a link to a git directory's work tree whose config waits, where a directory that predates the run stood" {
	way_in_attack 'mv src src.old && ln -s fresh src'
}

@test "attack: a bare git directory whose config waits, moved where a directory that predates the run stood" {
	way_in_attack 'mv src src.old && mv fb src'
}

# The same by a rename onto the empty directory that predates the run, by an exchange
# with it, and by a hard link of a link: the walk of what moved in asked about its .git
# as if made in a directory of the command's (the one it came from), and a hard link was
# no link to it.
@test "attack: a git directory's work tree whose config waits, renamed onto an empty directory that predates the run" {
	way_in_attack 'mv -T fresh src'
}

@test "attack: a git directory's work tree whose config waits, exchanged with a directory that predates the run" {
	way_in_attack '\"\$FSOP\" exchange fresh src'
}

@test "attack: a link to a git directory's work tree whose config waits, exchanged with a directory that predates the run" {
	way_in_attack 'ln -s fresh lnk && \"\$FSOP\" exchange lnk src'
}

@test "attack: a hard link of a link to a git directory's work tree whose config waits, where a directory that predates the run stood" {
	way_in_attack 'ln -s fresh lnk && mv src src.old && ln -P lnk src'
}

# The directory that predates the run moved itself, into the work tree of such a git
# directory, or first into a directory of the command's that becomes one: git run in it
# (a shell's prompt, an editor's, whose working directory went along) found that git
# directory above it.
@test "attack: a directory that predates the run, moved into the work tree of a git directory whose config waits" {
	way_in_attack 'mv src fresh/src' fresh/src
}

@test "attack: a directory that predates the run, moved into a directory of the command's, which then gets a .git" {
	way_in_attack 'mkdir n && mv src n/src && mv fresh/.git n/.git' n/src
}

@test "attack: a directory that predates the run, moved into a directory of the command's, which then gets a commondir" {
	way_in_attack 'mkdir n && mv src n/src && echo \"ref: refs/heads/main\" >n/HEAD && echo \"\$PWD/fresh/.git\" >n/commondir' n/src
}

@test "attack: a directory that predates the run, moved into a directory of the command's, that one moved, then given a .git" {
	way_in_attack 'mkdir -p n/o && mv src n/o/src && mv n m && mv fresh/.git m/o/.git' m/o/src
}

# What those refusals leave alone: a directory that predates the run moved into a
# repository the command made (git init; git mv would do the same), with no config by an
# open waiting; git there works as before.
@test "workflow: a directory that predates the run moved into a repository the command made" {
	need_tool
	srt_only
	mkdir "$T/work/src"
	echo code >"$T/work/src/main.c"
	gsettings '["."]'
	attempt '
step init "git init -q n && mkdir n/sub"
step move "mv src n/sub/src"
step add "git -C n add sub/src/main.c && git -C n commit -q -m first"
step config "git -C n config user.name someone"'
	allowed init move add config
	no_violations
	victim "git status" "$T/work/n/sub/src" git status
	verdict
}

# status_attack SETUP WAY: git status in the project directory enters a submodule its
# index records (git add of a repository): a git directory of the command's, whose
# config made by an open waits, reached so let git status there run its core.fsmonitor
# (fsm2.sh, which leaves "ran" in the project directory) during the run.
status_attack() {
	need_tool
	srt_only
	attempt '
printf "#!/bin/sh\ntouch \"%s/ran\"\n" "$PWD" >fsm2.sh && chmod +x fsm2.sh
cfg() { rm "$1" && printf "[core]\n\tfsmonitor = %s\n" "$PWD/fsm2.sh" >"$1"; }
'"$1"'
step way "'"$2"'"
step in-run "git status >/dev/null 2>&1; test ! -e ran"'
	refused way
	allowed in-run
	victim "git status" "$T/work" git status
	verdict
}

@test "attack: git init in the project directory while a config waits in a repository in it, then git add of it" {
	gsettings '["."]'
	status_attack 'git init -q sub && git -C sub commit -q --allow-empty -m x && cfg sub/.git/config' \
		'git init -q && git add sub'
}

@test "attack: git init in the project directory, then a config by an open in a repository in it, then git add of it" {
	gsettings '["."]'
	status_attack 'git init -q && git init -q sub && git -C sub commit -q --allow-empty -m x' \
		'cfg sub/.git/config && git add sub'
}

@test "attack: in the user's repository, a new submodule's .git file names a git directory elsewhere whose config waits" {
	repo_init "$T/work"
	mkdir "$T/other"
	gsettings "[\".\", \"$T/other\"]"
	status_attack 'git init -q '"$T"'/other/fresh && git -C '"$T"'/other/fresh commit -q --allow-empty -m x && cfg '"$T"'/other/fresh/.git/config' \
		'mkdir sub && echo \"gitdir: '"$T"'/other/fresh/.git\" >sub/.git && git add sub'
}

# The project directory's .git file (git init --separate-git-dir) names a git directory
# that is missing when the run starts, in a write root: the command made it, its config
# by an open judged only when the run ends, as any git directory of the command's; git in
# the project directory read it at once. Now it counts as the user's.
@test "attack: the project directory's .git file names a missing git directory, made with a config by an open" {
	need_tool
	srt_only
	mkdir "$T/other"
	git init -q --separate-git-dir="$T/other/x.git" "$T/work"
	rm -rf "$T/other/x.git"
	gsettings "[\".\", \"$T/other\"]"
	attempt '
plant fsm.sh
step remake "git init -q --bare '"$T"'/other/x.git"
step by-open "rm '"$T"'/other/x.git/config && fsmon_config '"$T"'/other/x.git/config"
step in-run "! git config core.fsmonitor"
step judged "git config user.name someone"'
	allowed remake in-run judged
	refused by-open
	victim "git status" "$T/work" git status
	verdict
}

# The same below the project directory: a work tree of the user's (its .git file, which
# the plan finds within the search depth) whose git directory is missing as the run
# starts. git status there (an editor's on that folder) read the command's config.
@test "attack: a nested work tree's .git file names a missing git directory, made with a config by an open" {
	need_tool
	srt_only
	mkdir -p "$T/other" "$T/work/d"
	git init -q --separate-git-dir="$T/other/y.git" "$T/work/d"
	rm -rf "$T/other/y.git"
	gsettings "[\".\", \"$T/other\"]"
	attempt '
plant fsm.sh
step remake "git init -q --bare '"$T"'/other/y.git"
step by-open "rm '"$T"'/other/y.git/config && fsmon_config '"$T"'/other/y.git/config"
step in-run "! git -C d config core.fsmonitor"
step judged "git -C d config user.name someone"'
	allowed remake in-run judged
	refused by-open
	victim "git status" "$T/work/d" git status
	verdict
}

# A directory that predates the run moved into one of the command's makes that one a
# holder (sup_hold_up), and the holders below a directory renamed are copied to its new
# name: copied with their duplicates, a holder renamed back and forth grew the list as
# Fibonacci's numbers (30 renames, over a million paths, the supervisor's memory and
# time with it; 45 would take the host's memory). The supervisor must not grow by them.
@test "attack: a directory that holds a predating one renamed back and forth" {
	need_tool
	srt_only
	mkdir -p "$T/work/P"
	gsettings '["."]'
	attempt '
step hold "mkdir x && mv P x/P"
rss0=$(awk "/^VmRSS/ { print \$2 }" /proc/1/status)
step renames "for i in \$(seq 15); do mv x y && mv y x || exit 1; done"
rss1=$(awk "/^VmRSS/ { print \$2 }" /proc/1/status)
echo "RSS $rss0 $rss1"'
	allowed hold renames
	read -r _ rss0 rss1 <<<"$(grep -m1 '^RSS ' "$T/out")" || true
	if [ -z "$rss1" ]; then
		finding BROKEN "the supervisor's VmRSS not read"
	elif [ $((rss1 - rss0)) -gt 32768 ]; then
		finding ESCAPED "the supervisor grew by $((rss1 - rss0)) kB in 30 renames"
	fi
	verdict
}
