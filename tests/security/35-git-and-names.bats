#!/usr/bin/env bats
# Escape battery, the write guard (issue #10), git and names: what a command with write
# access to its git working directory can plant for the host's next git command (a
# commondir, a repository where none was, included configuration, init.templateDir, a
# hook's symlinked script), dangerous names that are symlinks, files that do not exist
# yet in a second write root (the home directory), and the names the old list missed.
# Each attack runs inside srt as steps that must be refused with EPERM; then the user's
# next command runs on the host (guard.bash: victim) and must not run the payload.
load helpers
load guard

# --- class 1: git reads more than .git/config and .git/hooks --------------------------

# commondir says where a git directory's config, hooks, objects and refs are: pointed at a
# directory the command made (a copy of objects and refs, so history looks intact), the
# user's git status takes core.fsmonitor from the command's config.
@test "git: .git/commondir written in the top repository" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.git/commondir"
	attempt '
plant fsm.sh
mkdir evil && cp -r .git/objects .git/refs .git/HEAD .git/config evil/ && fsmon_config evil/config
step commondir "echo ../evil >.git/commondir"'
	refused commondir
	victim "git status" "$T/work" git status
	verdict
}

# The same in a submodule's git directory: the superproject's git status recurses into
# lib and reads .git/modules/lib/commondir.
@test "git: commondir of a submodule's git directory (.git/modules/lib)" {
	need_tool
	super_init
	gsettings '["."]'
	keep "$T/work/.git/modules/lib/commondir"
	attempt '
plant fsm.sh
m=.git/modules/lib
mkdir evil && cp -r $m/objects $m/refs $m/HEAD $m/config evil/ && fsmon_config evil/config
step commondir "echo ../../../evil >$m/commondir"'
	refused commondir
	victim "git status in the superproject" "$T/work" git status
	victim "git status in the submodule" "$T/work/lib" git status
	verdict
}

# With only ./.git writable the command still has room: it makes its git directory inside
# .git and points commondir at it.
@test "git: commondir with only ./.git writable" {
	need_tool
	repo_init "$T/work"
	gsettings '[".git"]'
	keep "$T/work/.git/commondir"
	attempt '
printf "#!/bin/sh\n%s\n" "$PAYLOAD" >.git/fsm.sh && chmod +x .git/fsm.sh
mkdir .git/x && cp -r .git/objects .git/refs .git/HEAD .git/config .git/x/ &&
	printf "[core]\n\tfsmonitor = %s\n" "$PWD/.git/fsm.sh" >>.git/x/config
step commondir "echo x >.git/commondir"'
	refused commondir
	victim "git status" "$T/work" git status
	verdict
}

# A submodule cloned but never initialised leaves an empty lib/: a repository planted
# there with core.fsmonitor runs at the superproject's git status. Removing lib and
# making it again leaves a directory standing where one did: the same for the guard.
@test "planted repository: git init and core.fsmonitor in an uninitialised submodule" {
	need_tool
	super_init clone
	[ -d "$T/work/lib" ] && [ ! -e "$T/work/lib/.git" ]
	gsettings '["."]'
	keep "$T/work/lib/.git"
	attempt '
plant fsm.sh
step init-lib "git init -q lib && git -C lib config core.fsmonitor \"$PWD/fsm.sh\""
step remade-lib "rm -rf lib && git init -q lib && git -C lib config core.fsmonitor \"$PWD/fsm.sh\""'
	refused init-lib remade-lib
	victim "git status in the superproject" "$T/work" git status
	victim "git status in lib" "$T/work/lib" git status
	verdict
}

# The cwd is a subdirectory of the user's repository: a .git made there takes over every
# git command the user runs in it.
@test "planted repository: git init in a cwd that is a subdirectory of a repository" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/sub"
	echo data >"$T/work/sub/file"
	CWD=$T/work/sub
	gsettings '["."]'
	keep "$T/work/sub/.git"
	attempt '
plant fsm.sh
step init "git init -q && git config core.fsmonitor \"$PWD/fsm.sh\""
step init-dot "git init -q . && git config core.fsmonitor \"$PWD/fsm.sh\""'
	refused init init-dot
	victim "git status in sub" "$T/work/sub" git status
	verdict
}

# No .git at all: HEAD, objects/ and refs/ written straight into a directory make it a
# git directory that git finds before the real one; its config names the work tree and
# core.fsmonitor. HEAD comes last, the one that makes it a repository.
@test "planted repository: a bare layout (HEAD, objects, refs, config) written into a directory" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/sub"
	echo data >"$T/work/sub/file"
	gsettings '["."]'
	keep "$T/work/sub/HEAD"
	attempt '
plant fsm.sh
step layout "mkdir -p sub/objects sub/refs/heads &&
	printf \"[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tworktree = ..\n\" >sub/config &&
	fsmon_config sub/config && echo \"ref: refs/heads/main\" >sub/HEAD"'
	refused layout
	victim "git status in sub" "$T/work/sub" git status
	verdict
}

# A .git file (gitdir: ...) or a .git symlink in an existing directory sends git to a
# repository the command made in a new directory of another write root (its own to
# configure; inside the work tree it could not make one: 41-guard-indirect-routes).
@test "planted repository: .git as a file and as a symlink in an existing directory" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/sub" "$T/work/sub2" "$T/other"
	echo data >"$T/work/sub/file"
	echo data >"$T/work/sub2/file"
	gsettings "[\".\", \"$T/other\"]"
	keep "$T/work/sub/.git" "$T/work/sub2/.git"
	attempt '
plant fsm.sh
step evil "git init -q \"$T/other/evil\" && git -C \"$T/other/evil\" config core.fsmonitor \"$PWD/fsm.sh\""
step gitfile "echo \"gitdir: $T/other/evil/.git\" >sub/.git"
step gitlink "ln -s \"$T/other/evil/.git\" sub2/.git"'
	# Issue #28: the repository the command makes is git state too (its fsmonitor is
	# refused); a .git file is written by an open and judged by what it says once the
	# command is gone: pointing outside this repository, it is removed (keep above).
	refused evil gitlink
	grep -q "work/sub/.git" "$T/err" || finding NO-WARNING "no violation for sub/.git"
	victim "git status in sub" "$T/work/sub" git status
	victim "git status in sub2" "$T/work/sub2" git status
	verdict
}

# The repository's config includes files in the work tree (include.path, includeIf, and
# an included file that includes another), existing or not: whichever the command
# writes, git reads its core.fsmonitor.
@test "git: files reached through include.path, includeIf and includes of includes" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/conf"
	printf '[include]\n\tpath = b.inc\n' >"$T/work/conf/a.inc"
	git -C "$T/work" config --add include.path ../conf/a.inc
	git -C "$T/work" config --add include.path ../conf/d.inc
	git -C "$T/work" config "includeIf.gitdir:$T/work/.path" ../conf/c.inc
	gsettings '["."]'
	keep "$T/work/conf" "$T/work/conf/a.inc" "$T/work/conf/b.inc" "$T/work/conf/c.inc" \
		"$T/work/conf/d.inc" "$T/work/conf.old"
	attempt '
plant fsm.sh
step include-missing "fsmon_config conf/d.inc"
step include-if "fsmon_config conf/c.inc"
step include-of-include "fsmon_config conf/b.inc"
step include-existing "fsmon_config conf/a.inc"
step include-dir "mv conf conf.old && mkdir conf && fsmon_config conf/d.inc"'
	refused include-missing include-if include-of-include include-existing include-dir
	victim "git status" "$T/work" git status
	verdict
}

# core.hooksPath and core.fsmonitor set in an included file name a hooks directory and a
# script in the work tree: git runs what the command puts there.
@test "git: core.hooksPath and core.fsmonitor set in an included file" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/conf" "$T/work/tools"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/tools/fsmon"
	chmod +x "$T/work/tools/fsmon"
	printf '[core]\n\thooksPath = githooks\n\tfsmonitor = %s\n' "$T/work/tools/fsmon" \
		>"$T/work/conf/hooks.inc"
	git -C "$T/work" config include.path ../conf/hooks.inc
	gsettings '["."]'
	keep "$T/work/githooks" "$T/work/githooks/pre-commit" "$T/work/tools/fsmon"
	attempt '
step hook "mkdir -p githooks && plant githooks/pre-commit"
step fsmonitor "plant tools/fsmon"'
	refused hook fsmonitor
	victim "git status" "$T/work" git status
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

# init.templateDir in the global configuration: its hooks are copied into every
# repository the user clones or inits later, and run there (post-checkout at the clone).
@test "git: init.templateDir of the global configuration, and the global files themselves" {
	need_tool
	repo_init "$T/src"
	printf '[init]\n\ttemplateDir = %s\n' "$T/home/.git-templates" >"$T/home/.gitconfig"
	gsettings "[\".\", \"$T/home\"]"
	keep "$T/home/.git-templates" "$T/home/.gitconfig" "$T/home/.config/git/config"
	attempt '
step template "mkdir -p ~/.git-templates/hooks && plant ~/.git-templates/hooks/post-checkout"
mkdir -p tmpl/hooks && plant tmpl/hooks/post-checkout
step global "printf \"[init]\n\ttemplateDir = %s\n\" \"$PWD/tmpl\" >>~/.gitconfig"
step xdg "mkdir -p ~/.config/git && printf \"[init]\n\ttemplateDir = %s\n\" \"$PWD/tmpl\" >~/.config/git/config"'
	refused template global xdg
	victim "git clone" "$T" git clone -q "$T/src" "$T/victim-clone"
	verdict
}

# A hook that is a symlink to a script kept in the work tree (a common set-up): the
# script, and the directories leading to it, are the hook.
@test "git: a hook that is a symlink to a script in the work tree" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/scripts"
	printf '#!/bin/sh\nexit 0\n' >"$T/work/scripts/pre-commit.sh"
	chmod +x "$T/work/scripts/pre-commit.sh"
	ln -s ../../scripts/pre-commit.sh "$T/work/.git/hooks/pre-commit"
	gsettings '["."]'
	keep "$T/work/scripts" "$T/work/scripts/pre-commit.sh" "$T/work/scripts.old" \
		"$T/work/.git/hooks/pre-commit"
	attempt '
step target "plant scripts/pre-commit.sh"
step target-replace "plant x.sh && mv -f x.sh scripts/pre-commit.sh"
step target-dir "mv scripts scripts.old && mkdir scripts && plant scripts/pre-commit.sh"'
	refused target target-replace target-dir
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

# allowGitConfig: true opens .git/config (and config.worktree) and nothing else: hooks,
# commondir and planted repositories stay refused.
@test "git: allowGitConfig true opens .git/config only" {
	need_tool
	repo_init "$T/work"
	mkdir "$T/work/sub"
	echo data >"$T/work/sub/file"
	gsettings '["."]' '[]' '[]' '"allowGitConfig": true'
	keep "$T/work/.git/hooks/pre-commit" "$T/work/.git/commondir" "$T/work/sub/.git"
	attempt '
plant fsm.sh
mkdir evil && cp -r .git/objects .git/refs .git/HEAD .git/config evil/ && fsmon_config evil/config
step config "git config srt.test yes"
step hook "plant .git/hooks/pre-commit"
step commondir "echo ../evil >.git/commondir"
step planted "git init -q sub && git -C sub config core.fsmonitor \"$PWD/fsm.sh\""'
	allowed config
	refused hook commondir planted
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	victim "git status in sub" "$T/work/sub" git status
	verdict
}

# --- class 3: symlinked dangerous names ---------------------------------------------

# .bashrc -> dotfiles/bashrc: the link itself is the name the next shell opens; replacing
# it, writing its target, or moving the target's directory all plant start-up code.
@test "symlinks: .bashrc -> dotfiles/bashrc, the link, its target and the way to it" {
	need_tool
	mkdir "$T/work/dotfiles"
	echo '# rc' >"$T/work/dotfiles/bashrc"
	ln -s dotfiles/bashrc "$T/work/.bashrc"
	gsettings '["."]'
	keep "$T/work/.bashrc" "$T/work/dotfiles" "$T/work/dotfiles/bashrc" "$T/work/dotfiles.old"
	attempt '
step target "echo \"$PAYLOAD\" >>dotfiles/bashrc"
step relink "echo \"$PAYLOAD\" >evilrc && ln -sfn evilrc .bashrc"
step replace "rm -f .bashrc && echo \"$PAYLOAD\" >.bashrc"
step target-dir "mv dotfiles dotfiles.old && mkdir dotfiles && echo \"$PAYLOAD\" >dotfiles/bashrc"'
	refused target relink replace target-dir
	victim_bash "$T/work"
	verdict
}

# .vscode -> shared/: a directory link; the editor reads tasks and settings through it.
# (No editor runs here: the host's files are the evidence.)
@test "symlinks: .vscode -> shared/, the link and the directory it names" {
	need_tool
	mkdir "$T/work/shared"
	echo '{}' >"$T/work/shared/settings.json"
	ln -s shared "$T/work/.vscode"
	gsettings '["."]'
	keep "$T/work/.vscode" "$T/work/shared" "$T/work/shared/settings.json" \
		"$T/work/shared/tasks.json"
	attempt '
step target-new "echo {} >shared/tasks.json"
step target-edit "echo x >>shared/settings.json"
step relink "mkdir evil && ln -sfn evil .vscode"
step replace "rm .vscode && mkdir .vscode && echo {} >.vscode/tasks.json"'
	refused target-new target-edit relink replace
	verdict
}

# proj/.git is a link to a git directory kept in another write root (x.git): its hooks and
# config are protected wherever they are reached from, and the link cannot be pointed at
# a repository the command made.
@test "symlinks: proj/.git -> x.git in another write root" {
	need_tool
	mkdir "$T/store"
	repo_init "$T/work/proj"
	mv "$T/work/proj/.git" "$T/store/x.git"
	ln -s "$T/store/x.git" "$T/work/proj/.git"
	gsettings "[\".\", \"$T/store\"]"
	keep "$T/work/proj/.git" "$T/store/x.git/hooks" "$T/store/x.git/hooks/pre-commit" \
		"$T/store/x.git/config"
	attempt '
plant fsm.sh
step hook "plant proj/.git/hooks/pre-commit"
step hook-direct "plant \"$T/store/x.git/hooks/pre-commit\""
step config "git -C proj config core.fsmonitor \"$PWD/fsm.sh\""
step evil "git init -q evil && git -C evil config core.fsmonitor \"$PWD/fsm.sh\""
step relink "ln -sfn \"$PWD/evil/.git\" proj/.git"'
	# Issue #28: a repository the command makes is judged too (its fsmonitor refused).
	refused hook hook-direct config relink evil
	victim "git status in proj" "$T/work/proj" git status
	victim "git commit in proj" "$T/work/proj" git commit -q --allow-empty -m victim
	verdict
}

# srt -s srt.json where srt.json is a link to conf/srt-real.json: both, and the
# directory on the way, hold the policy of every later run with the same option.
@test "symlinks: the settings file reached through a symlink" {
	need_tool
	mkdir "$T/work/conf"
	echo "$SECRET" >"$T/secretfile"
	SETTINGS=$T/work/conf/srt-real.json gsettings '["."]' '[]' "[\"$T/secretfile\"]"
	ln -s conf/srt-real.json "$T/work/srt.json"
	SETTINGS=$T/work/srt.json
	keep "$T/work/srt.json" "$T/work/conf" "$T/work/conf/srt-real.json" "$T/work/conf.old"
	attempt '
open="{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\".\"],\"denyWrite\":[]}}"
echo "$open" >open.json
step target "cat open.json >conf/srt-real.json"
step relink "ln -sfn open.json srt.json"
step target-dir "mv conf conf.old && mkdir conf && cp open.json conf/srt-real.json"'
	refused target relink target-dir
	# The next run with the same option still hides the secret.
	attempt 'cat "$T/secretfile" 2>/dev/null'
	if grep -q "$SECRET" "$T/out"; then
		finding ESCAPED "the next run read the secret the settings deny"
	fi
	verdict
}

# --- class 4: files that do not exist yet, in a second write root (the home) ----------

# Shell start-up files of a writable home that do not exist yet: bash -l reads
# .bash_login (no .bash_profile here), sh -l reads .profile, zsh reads .zshenv.
@test "home as a second write root: ~/.zshenv, ~/.bash_login, ~/.profile, ~/.claude/commands/x" {
	need_tool
	gsettings "[\".\", \"$T/home\"]"
	keep "$T/home/.zshenv" "$T/home/.bash_login" "$T/home/.profile" \
		"$T/home/.claude/commands" "$T/home/.claude/commands/x.md"
	attempt '
step zshenv "echo \"$PAYLOAD\" >~/.zshenv"
step bash-login "echo \"$PAYLOAD\" >~/.bash_login"
step profile "echo \"$PAYLOAD\" >~/.profile"
step claude-commands "mkdir -p ~/.claude/commands && echo x >~/.claude/commands/x.md"'
	refused zshenv bash-login profile claude-commands
	victim "a login bash" "$T/home" env HOME="$T/home" bash -l -c true
	victim "a login sh" "$T/home" env HOME="$T/home" sh -l -c true
	verdict
}

# No ~/.srt-settings.json yet and the home writable (under -s): one planted now is the
# policy of every later plain srt, which would then write where the default forbids.
@test "home as a second write root: a missing ~/.srt-settings.json, then a plain run" {
	need_tool
	mkdir "$T/outside"
	gsettings "[\".\", \"$T/home\"]"
	keep "$T/home/.srt-settings.json" "$T/outside/x"
	attempt '
open="{\"network\":{\"allowedDomains\":[],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\"$T/outside\"],\"denyWrite\":[]}}"
step create "echo \"\$open\" >~/.srt-settings.json"
step link "echo \"\$open\" >open.json && ln -sfn \"$PWD/open.json\" ~/.srt-settings.json"'
	refused create link
	# The later plain run (no -s): the default policy lets it write nothing here.
	SETTINGS='' attempt 'echo pwned >"$T/outside/x" 2>/dev/null'
	verdict
}

# --- class 6: the list of auto-run names --------------------------------------------

# Claude Code runs the hooks of .claude/settings.json and .claude/settings.local.json
# unsandboxed; .claude/ existing (it usually does) must not open them. Making a .claude
# directory stays possible; .claude as a link is not a directory.
@test "names: .claude/settings.json and .claude/settings.local.json, .claude existing or not" {
	need_tool
	mkdir -p "$T/work/.claude/commands" "$T/work/sub/.claude"
	echo '{}' >"$T/work/sub/.claude/settings.json"
	gsettings '["."]'
	keep "$T/work/.claude/settings.json" "$T/work/.claude/settings.local.json" \
		"$T/work/sub/.claude/settings.json"
	attempt '
hooks="{\"hooks\":{\"SessionStart\":[{\"hooks\":[{\"type\":\"command\",\"command\":\"$PAYLOAD\"}]}]}}"
step settings "echo \"\$hooks\" >.claude/settings.json"
step settings-local "echo \"\$hooks\" >.claude/settings.local.json"
step existing "echo x >>sub/.claude/settings.json"
step rename-in "echo \"\$hooks\" >s.json && mv s.json .claude/settings.local.json"
step mkdir-claude "mkdir sub2 && mkdir sub2/.claude"
step new-settings "echo \"\$hooks\" >sub2/.claude/settings.json"
step claude-link "mkdir sub3 elsewhere && ln -s ../elsewhere sub3/.claude"'
	# Issue #28: sub2 and sub3 are made during the run, the command's own: what is in
	# them is its files, like a clone's (the names hold in the user's directories).
	allowed mkdir-claude new-settings claude-link
	refused settings settings-local existing rename-in
	verdict
}

# Names added to the list: direnv runs .envrc, npm reads .npmrc (script-shell), sshd runs
# ~/.ssh/rc, ~/.local/bin is on a login PATH (Debian's .profile), and more home files.
# The depth rule still holds: a file three levels down is not protected.
@test "names: .envrc, .npmrc, ~/.ssh/rc, ~/.local/bin and other home files" {
	need_tool
	mkdir -p "$T/home/.ssh" "$T/work/sub/a/b"
	gsettings "[\".\", \"$T/home\"]"
	keep "$T/work/.envrc" "$T/work/.ENVRC" "$T/work/sub/a/.envrc" "$T/work/.npmrc" \
		"$T/home/.ssh/rc" "$T/home/.local/bin" "$T/home/.pam_environment" \
		"$T/home/.cargo/config.toml" "$T/home/.docker/config.json"
	attempt '
plant fsm.sh
step envrc "echo \"$PAYLOAD\" >.envrc"
step envrc-case "echo \"$PAYLOAD\" >.ENVRC"
step envrc-depth2 "echo \"$PAYLOAD\" >sub/a/.envrc"
step npmrc "echo \"script-shell=$PWD/fsm.sh\" >.npmrc"
step ssh-rc "echo \"$PAYLOAD\" >~/.ssh/rc"
step local-bin "mkdir -p ~/.local/bin && plant ~/.local/bin/ls"
step pam "echo x=y >~/.pam_environment"
step cargo "mkdir -p ~/.cargo && echo x >~/.cargo/config.toml"
step docker "mkdir -p ~/.docker && echo {} >~/.docker/config.json"
step envrc-depth3 "echo \"# deep\" >sub/a/b/.envrc"'
	refused envrc envrc-case envrc-depth2 npmrc ssh-rc local-bin pam cargo docker
	allowed envrc-depth3
	victim "ls on a PATH with ~/.local/bin" "$T/home" \
		env PATH="$T/home/.local/bin:/usr/bin:/bin" ls
	verdict
}
