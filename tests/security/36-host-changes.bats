#!/usr/bin/env bats
# Escape battery, the write guard (issue #10), changes the host makes while a command
# runs. Linux detaches a mount whose dentry is unlinked or renamed over in another mount
# namespace, so protection mounted on single files does not survive the user's own git
# config (lock file and rename), a secret rotated with mv, git clean removing srt's
# placeholders, or a second run of srt cleaning up after itself. Each test holds the
# command at a point (it waits for $T/go-NAME), makes the change on the host, then lets
# the command try; the guard decides by name, and a read deny holds whatever the host does.
load helpers
load guard

# The user's `git config` (and `git push -u`, `git remote add`...) writes config.lock and
# renames it over .git/config while the command waits.
@test "host: the user's git config during the run, then the command writes .git/config" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	attempt_start a '
plant fsm.sh
echo r >.ready-a
await a
step append "fsmon_config .git/config"
step git-config "git config core.fsmonitor \"$PWD/fsm.sh\""'
	ready a
	git -C "$T/work" config user.name "Host User"
	touch "$T/go-a"
	attempt_wait a
	refused append git-config
	if grep -q fsmonitor "$T/work/.git/config"; then
		finding ESCAPED "the command's core.fsmonitor is in .git/config"
	fi
	victim "git status" "$T/work" git status
	verdict
}

# A denyRead file rotated on the host (`mv tmp token`, as credential helpers do) detaches
# its mask: the new file must stay unreadable all the same, and the run must go on (issue
# #28 item 7: ending it with 125, as srt once did, killed the user's command for a benign
# host action). The host writes the go-ahead only after the rotation.
@test "host: a denyRead file rotated with mv stays unreadable, and the run goes on" {
	need_tool
	mkdir "$T/secrets"
	echo "old-$SECRET" >"$T/secrets/token"
	gsettings '["."]' '[]' "[\"$T/secrets/token\"]"
	attempt_start r '
cat "$T/secrets/token" 2>/dev/null
echo r >.ready-r
await r
cat "$T/secrets/token" 2>/dev/null
echo READ AGAIN'
	ready r
	echo "new-$SECRET" >"$T/secrets/tmp"
	mv "$T/secrets/tmp" "$T/secrets/token"
	touch "$T/go-r"
	attempt_wait r ends
	if grep -q "$SECRET" "$T/out"; then
		finding ESCAPED "the command read the rotated secret: $(grep "$SECRET" "$T/out")"
	fi
	if [ "$ST" -ne 0 ] || ! grep -q '^READ AGAIN$' "$T/out"; then
		finding REFUSED "the rotation ended the run (status $ST): $(head -c 300 "$T/err")"
	fi
	verdict
}

# The user's `git clean -fdx` during the run removes every untracked file, placeholders
# of missing protected files included; then the command writes those names.
@test "host: git clean -fdx during the run, then the command writes .bashrc and hooks" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.bashrc" "$T/work/.profile" "$T/work/.vscode" \
		"$T/work/.git/hooks/pre-commit"
	attempt_start c '
echo r >.ready-c
await c
step bashrc "echo \"$PAYLOAD\" >>.bashrc"
step profile "echo \"$PAYLOAD\" >>.profile"
step vscode "mkdir -p .vscode && echo {} >.vscode/tasks.json"
step hook "plant .git/hooks/pre-commit"'
	ready c
	git -C "$T/work" clean -fdxq
	touch "$T/go-c"
	attempt_wait c
	refused bashrc profile vscode hook
	victim_bash "$T/work"
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}

# Two runs with the same settings at once: the first ends (and cleans up) while the
# second still runs; the second then writes the protected files that did not exist.
@test "host: two concurrent runs, the first ends, the second writes missing protected files" {
	need_tool
	repo_init "$T/work"
	gsettings '["."]'
	keep "$T/work/.bashrc" "$T/work/.profile" "$T/work/.mcp.json" "$T/work/.gitmodules" \
		"$T/work/.git/hooks/pre-commit"
	attempt_start one '
echo r >.ready-one
await one'
	ready one
	attempt_start two '
echo r >.ready-two
await two
step bashrc "echo \"$PAYLOAD\" >>.bashrc"
step profile "echo \"$PAYLOAD\" >>.profile"
step mcp "echo {} >.mcp.json"
step gitmodules "echo x >.gitmodules"
step hook "plant .git/hooks/pre-commit"'
	ready two
	touch "$T/go-one"
	attempt_wait one
	touch "$T/go-two"
	attempt_wait two
	refused bashrc profile mcp gitmodules hook
	victim_bash "$T/work"
	victim "git commit" "$T/work" git commit -q --allow-empty -m victim
	verdict
}
