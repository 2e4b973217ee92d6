#!/usr/bin/env bats
# Issue #28, the other side of the write guard's model: the ordinary git and project
# work an agent does with allowWrite ["."] must work, and leave nothing the host's git
# runs. Each test runs real git (and tar) inside srt, checks the result on the host, and
# then runs the user's next git commands on the host (guard.bash: victim, in
# `unshare -m -n`): the payload marker must stay absent. Every test here failed before
# issue #28 (the build that refused .vscode in a new directory, git init in the project
# and every change to .git/config).
load helpers
load guard

# A project at $T/src that ships every editor and tool directory the dangerous names
# list, committed; $T/proj.tar holds the same tree.
project_init() {
	repo_init "$T/src" || return 1
	(
		cd "$T/src" || exit 1
		mkdir -p .vscode .idea .devcontainer .husky .claude/commands
		echo '{"version":"2.0.0","tasks":[]}' >.vscode/tasks.json
		echo '<project/>' >.idea/workspace.xml
		echo '{"name":"dev"}' >.devcontainer/devcontainer.json
		printf '#!/bin/sh\nnpm test\n' >.husky/pre-commit
		echo 'export FOO=1' >.envrc
		echo 'registry=https://registry.npmjs.org/' >.npmrc
		echo 'repos: []' >.pre-commit-config.yaml
		echo 'say hi' >.claude/commands/hi.md
		git add -A && git commit -q -m tools
	) || return 1
	tar -C "$T/src" --exclude=.git -cf "$T/proj.tar" .
}

# host_has FILE...: each exists on the host.
host_has() {
	local f
	for f in "$@"; do
		[ -e "$f" ] || finding REFUSED "missing on the host: $f"
	done
}

# The files project_init ships, under $1.
project_files() {
	echo "$1/.vscode/tasks.json" "$1/.idea/workspace.xml" \
		"$1/.devcontainer/devcontainer.json" "$1/.husky/pre-commit" "$1/.envrc" \
		"$1/.npmrc" "$1/.pre-commit-config.yaml" "$1/.claude/commands/hi.md"
}

@test "workflow: git clone of a project with .vscode, .idea, .husky, .envrc ... into a new directory" {
	need_tool
	project_init
	gsettings '["."]'
	attempt '
step clone "git clone -q \"$T/src\" c1"
step status "test -z \"\$(git -C c1 status --porcelain)\""
step test-run "cd c1 && cat .vscode/tasks.json .envrc >/dev/null"'
	allowed clone status test-run
	# shellcheck disable=SC2046
	host_has $(project_files "$T/work/c1")
	[ -z "$(git -C "$T/work/c1" status --porcelain 2>&1)" ] ||
		finding REFUSED "git status in the clone is not clean on the host"
	victim "git status in the clone" "$T/work/c1" git status
	victim "git commit in the clone" "$T/work/c1" git commit -q --allow-empty -m victim
	verdict
}

@test "workflow: tar x of such a project into a new directory" {
	need_tool
	project_init
	gsettings '["."]'
	attempt '
step untar "mkdir p1 && tar -C p1 -xf \"$T/proj.tar\""'
	allowed untar
	# shellcheck disable=SC2046
	host_has $(project_files "$T/work/p1")
	verdict
}

# A local repository copied whole into a new directory (cp -a), and a tarball of one
# unpacked: both make .git/config by an open that creates it, judged when the run ends.
# The build before this refused the config (EPERM: cp and tar failed).
@test "workflow: cp -a and tar x of a local repository into a new directory" {
	need_tool
	repo_init "$T/plain"
	tar -C "$T" -czf "$T/plain.tgz" plain
	gsettings '["."]'
	attempt '
step cpa "cp -a \"$T/plain\" cpa"
step untar "tar xzf \"$T/plain.tgz\""
step status "git -C cpa status >/dev/null && git -C plain status >/dev/null"'
	allowed cpa untar status
	local d
	for d in cpa plain; do
		[ -f "$T/work/$d/.git/config" ] ||
			finding REFUSED "$d/.git/config is missing on the host"
		[ -z "$(git -C "$T/work/$d" status --porcelain 2>&1)" ] ||
			finding REFUSED "git status in $d is not clean on the host"
		victim "git status in $d" "$T/work/$d" git status
	done
	verdict
}

@test "workflow: git init, add and commit in the project directory (no repository yet)" {
	need_tool
	echo code >"$T/work/main.c"
	gsettings '["."]'
	attempt '
step init "git init -q"
step add "git add main.c"
step commit "git commit -q -m first"'
	allowed init add commit
	[ "$(git -C "$T/work" log -1 --format=%s 2>&1)" = first ] ||
		finding REFUSED "the commit is missing on the host"
	victim "git status" "$T/work" git status
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

@test "workflow: in an existing repository, remote add, user.email, push -u to a local bare repository" {
	need_tool
	repo_init "$T/work"
	git init -q --bare "$T/up.git"
	gsettings "[\".\", \"$T/up.git\"]"
	attempt '
step remote "git remote add up \"$T/up.git\""
step email "git config user.email agent@example.com"
step push "git push -q -u up main"'
	allowed remote email push
	[ "$(git -C "$T/work" config branch.main.remote)" = up ] ||
		finding REFUSED "branch.main.remote is not set on the host"
	[ "$(git -C "$T/work" config user.email)" = agent@example.com ] ||
		finding REFUSED "user.email is not set on the host"
	victim "git status" "$T/work" git status
	victim "git fetch" "$T/work" git fetch -q up
	verdict
}

@test "workflow: git worktree add and git submodule add in an existing repository" {
	need_tool
	repo_init "$T/work"
	repo_init "$T/lib-src"
	gsettings '["."]'
	attempt '
step worktree "git worktree add -q wt1 -b b1"
step wt-status "git -C wt1 status --short"
step submodule "git -c protocol.file.allow=always submodule add -q \"$T/lib-src\" lib"
step commit "git commit -q -m lib"'
	allowed worktree wt-status submodule commit
	[ "$(cat "$T/work/lib/.git" 2>/dev/null)" = "gitdir: ../.git/modules/lib" ] ||
		finding REFUSED "lib/.git is not the submodule's pointer on the host"
	[ "$(git -C "$T/work/wt1" rev-parse --abbrev-ref HEAD 2>&1)" = b1 ] ||
		finding REFUSED "the worktree does not work on the host"
	victim "git status" "$T/work" git status
	victim "git status in the worktree" "$T/work/wt1" git status
	victim "git status in the submodule" "$T/work/lib" git status
	victim "git submodule update" "$T/work" git -c protocol.file.allow=always submodule update
	verdict
}

# A separate git directory may be called anything: the .git file the command leaves
# names it, and the host's git finds the repository through it.
@test "workflow: git clone and git init --separate-git-dir into new directories" {
	need_tool
	repo_init "$T/src"
	gsettings '["."]'
	attempt '
step clone "git clone -q --separate-git-dir=\"\$PWD/sep.git\" \"$T/src\" sepwt"
step init "git init -q --separate-git-dir=\"\$PWD/isep\" iwt"'
	allowed clone init
	[ "$ST" = 0 ] || finding REFUSED "the run ended with status $ST"
	local d
	for d in sepwt:sep.git iwt:isep; do
		[ "$(cat "$T/work/${d%%:*}/.git" 2>/dev/null)" = "gitdir: $T/work/${d#*:}" ] ||
			finding REFUSED "${d%%:*}/.git does not name ${d#*:} on the host"
		unshare -m -n -- git -C "$T/work/${d%%:*}" status >/dev/null 2>&1 ||
			finding REFUSED "git status in ${d%%:*} fails on the host"
	done
	victim "git status in the clone" "$T/work/sepwt" git status
	victim "git commit in the clone" "$T/work/sepwt" git commit -q --allow-empty -m victim
	verdict
}
