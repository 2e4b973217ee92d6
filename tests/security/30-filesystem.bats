#!/usr/bin/env bats
# Escape battery, filesystem: reading what denyRead hides (symlinks, hard links,
# /proc/self/root, inherited descriptors, renamed ancestors, file handles) and writing
# what must stay read-only (mandatory denies that exist and that do not exist yet, at
# depth and in every write root, .git moved aside to plant hooks, configured denyWrite,
# the settings file itself). Writes are judged on the host after the run: whatever the
# command printed, the files outside must be as the test left them.
load helpers

# The tree every read test starts from. Secrets hold $SECRET; readable.txt does not.
read_layout() {
	mkdir -p "$T/secret" "$T/work/a/b" "$T/work/sdir"
	echo "$SECRET" >"$T/secret/key.txt"
	echo "$SECRET" >"$T/secretfile"
	echo "$SECRET" >"$T/work/private.txt"
	echo "$SECRET" >"$T/work/a/b/deep.txt"
	echo "$SECRET" >"$T/work/sdir/inner.txt"
	echo public >"$T/work/readable.txt"
	sec_settings '[]' '[]' \
		"[\"$T/secret\", \"$T/secretfile\", \"$T/work/private.txt\", \"$T/work/a/b/deep.txt\", \"$T/work/sdir\"]" \
		'["."]'
}

# Fails, naming each one, if any file given still or newly holds $SECRET on the host.
host_clean() {
	local f bad=0
	for f in "$@"; do
		if [ -e "$f" ] && grep -qs "$SECRET" "$f"; then
			echo "ESCAPED: $f holds the secret on the host" >&2
			bad=1
		fi
	done
	return "$bad"
}

@test "control: the probe reads a secret where nothing denies it" {
	need_srt
	read_layout
	run "$PROBE" read "$T/secretfile" "$SECRET"
	[ "$status" -eq 1 ]
	# Inside srt, a readable file is read: a BLOCKED below is the sandbox, not the probe.
	in_srt "$(printf '%q' "$PROBE") read readable.txt public"
	[ "$status" -eq 1 ]
	[[ "$output" == "ESCAPED "* ]]
}

@test "denyRead: direct reads of denied files and directories fail" {
	need_srt
	read_layout
	for f in "$T/secret/key.txt" "$T/secretfile" "$T/work/private.txt" \
		"$T/work/a/b/deep.txt" "$T/work/sdir/inner.txt"; do
		probe_blocked read "$f" "$SECRET"
	done
}

@test "symlinks: a link made inside a writable directory does not reach a denied file" {
	need_srt
	read_layout
	probe_blocked symlink "$T/secretfile" "$T/work/l1" "$SECRET"
	probe_blocked symlink "$T/secret/key.txt" "$T/work/l2" "$SECRET"
	probe_blocked symlink ../secretfile "$T/work/l3" "$SECRET"
	probe_blocked symlink private.txt "$T/work/l4" "$SECRET"
	probe_blocked symlink a/b/deep.txt "$T/work/l5" "$SECRET"
	probe_blocked symlink sdir/inner.txt "$T/work/l6" "$SECRET"
	# A directory link, then a read through it.
	in_srt "ln -s $(printf '%q' "$T/secret") l7 && $(printf '%q' "$PROBE") read l7/key.txt $SECRET"
	assert_blocked
}

@test "symlinks: links planted before the run do not reach denied files" {
	need_srt
	read_layout
	ln -s "$T/secretfile" "$T/work/pre1"
	ln -s "$T/secret" "$T/work/pre2"
	probe_blocked read "$T/work/pre1" "$SECRET"
	probe_blocked read "$T/work/pre2/key.txt" "$SECRET"
}

@test "symlinks: a denyRead entry spelled through a symlink hides the real file" {
	need_srt
	read_layout
	ln -s "$T/secret" "$T/alias"
	ln -s "$T/secretfile" "$T/alias-file"
	sec_settings '[]' '[]' "[\"$T/alias\", \"$T/alias-file\"]" '["."]'
	probe_blocked read "$T/secret/key.txt" "$SECRET"
	probe_blocked read "$T/secretfile" "$SECRET"
}

@test "hard links: a denied file cannot be linked into a writable directory" {
	need_srt
	read_layout
	probe_blocked link "$T/secretfile" "$T/work/h1" "$SECRET"
	probe_blocked link "$T/work/private.txt" "$T/work/h2" "$SECRET"
	probe_blocked link "$T/work/a/b/deep.txt" "$T/work/h3" "$SECRET"
	probe_blocked link "$T/secret/key.txt" "$T/work/h4" "$SECRET"
	probe_blocked link "$T/work/sdir/inner.txt" "$T/work/h5" "$SECRET"
	# A link left behind would hand the secret to the next run, where h* is not denied.
	host_clean "$T"/work/h1 "$T"/work/h2 "$T"/work/h3 "$T"/work/h4 "$T"/work/h5
}

@test "/proc: /proc/self/root, /proc/1/root, /proc/self/cwd do not bypass denyRead" {
	need_srt
	read_layout
	probe_blocked read "/proc/self/root$T/secretfile" "$SECRET"
	probe_blocked read "/proc/self/root$T/secret/key.txt" "$SECRET"
	probe_blocked read "/proc/thread-self/root$T/work/private.txt" "$SECRET"
	probe_blocked read "/proc/1/root$T/secretfile" "$SECRET"
	probe_blocked read "/proc/1/cwd/private.txt" "$SECRET"
	probe_blocked read /proc/self/cwd/../secretfile "$SECRET"
	probe_blocked read "/proc/self/cwd/sdir/inner.txt" "$SECRET"
}

@test "inherited descriptors: a secret open in srt's caller does not reach the command" {
	need_srt
	read_layout
	# fd 8 is a directory, fd 9 a denied file: only 0, 1 and 2 may reach the command.
	run bash -c 'exec 8<"$T/secret" 9<"$T/secretfile"; cd "$T/work" &&
		exec timeout 30 "$SRT" -s "$T/srt.json" -c "$1 read /proc/self/fd/9 $SECRET" </dev/null' \
		_ "$(printf '%q' "$PROBE")"
	assert_blocked
	run bash -c 'exec 8<"$T/secret" 9<"$T/secretfile"; cd "$T/work" &&
		exec timeout 30 "$SRT" -s "$T/srt.json" -c "$1 read /proc/self/fd/8/key.txt $SECRET" </dev/null' \
		_ "$(printf '%q' "$PROBE")"
	assert_blocked
	run bash -c 'exec 8<"$T/secret" 9<"$T/secretfile"; cd "$T/work" &&
		exec timeout 30 "$SRT" -s "$T/srt.json" -c "$1 fds" </dev/null' \
		_ "$(printf '%q' "$PROBE")"
	assert_blocked
}

@test "leaked descriptors: the command holds nothing but 0, 1 and 2" {
	need_srt
	read_layout
	probe_blocked fds
	# With network rules too (the proxies and their sockets exist then).
	sec_settings '["example.com"]' '[]' "[\"$T/secretfile\"]" '["."]'
	probe_blocked fds
}

@test "rename: ancestors of denied paths inside a write root cannot be moved" {
	need_srt
	read_layout
	probe_blocked rename "$T/work/a" "$T/work/a2"
	probe_blocked rename "$T/work/a/b" "$T/work/a/b2"
	probe_blocked rename "$T/work/private.txt" "$T/work/p2"
	probe_blocked rename "$T/work/sdir" "$T/work/sdir2"
	# Moved or not, no spelling inside shows the secret; the host tree is intact.
	in_srt "mv a a2 2>/dev/null; mv a/b a/b3 2>/dev/null; mv sdir s3 2>/dev/null; cat a2/b/deep.txt a/b3/deep.txt a/b/deep.txt s3/inner.txt sdir/inner.txt 2>/dev/null | grep -q $SECRET && echo ESCAPED secret read after a rename || echo BLOCKED"
	assert_blocked
	[ -f "$T/work/a/b/deep.txt" ]
	[ -f "$T/work/sdir/inner.txt" ]
	[ ! -e "$T/work/a2" ]
	[ ! -e "$T/work/a/b3" ]
	[ ! -e "$T/work/s3" ]
}

@test "rename race: a loop moving an ancestor while another reads never shows the secret" {
	need_srt
	read_layout
	cat >"$T/work/race.sh" <<SH
i=0
while [ \$i -lt 200 ]; do mv a a2 2>/dev/null; mv a2 a 2>/dev/null; i=\$((i + 1)); done &
j=0
while [ \$j -lt 200 ]; do
	for f in a/b/deep.txt a2/b/deep.txt; do
		grep -qs $SECRET "\$f" && { echo "ESCAPED read \$f during the race"; exit 0; }
	done
	j=\$((j + 1))
done
wait
echo BLOCKED
SH
	in_srt 'sh race.sh'
	assert_blocked
	[ -f "$T/work/a/b/deep.txt" ]
}

@test "file handles: open_by_handle_at is refused" {
	need_srt
	read_layout
	probe_blocked handle "$T/work/readable.txt"
}

# --- writes ----------------------------------------------------------------

MAND_FILES='.bashrc .bash_profile .zshrc .zprofile .profile .gitconfig .gitmodules .ripgreprc .mcp.json'

# Runs the write attempts of $1 (a shell script) inside srt with allowWrite ["."] and more
# write roots in $2 (JSON array items, optional), then requires that every file under
# $T/work and $T/other still has its content and that nothing holds "pwned".
write_attempts() {
	cat >"$T/work/.attempts.sh" <<SH
$1
echo BLOCKED attempts done
SH
	sec_settings '[]' '[]' '[]' "[\".\"${2:+, $2}]"
	(cd "$T" && find work other -type f ! -name .attempts.sh -exec md5sum {} + 2>/dev/null | sort) \
		>"$T/before"
	in_srt 'sh .attempts.sh 2>/dev/null'
	echo "srt status $status, output:" >&2
	printf '%s\n' "$output" >&2
	[ "$status" -eq 0 ]
	grep -q 'BLOCKED attempts done' <<<"$output"
}

# After write_attempts: the files the test made are unchanged (but those matching the
# regex $MAY_CHANGE, which the policy lets the command write, and those matching $MAY_GO,
# which it may remove but not change), and $@ do not exist.
host_intact() {
	local f bad=0
	(cd "$T" && find work other -type f ! -name .attempts.sh -exec md5sum {} + 2>/dev/null | sort) \
		>"$T/after"
	while read -r f; do
		if [ ! -e "$T/$f" ] && [ ! -L "$T/$f" ] && [[ $f =~ ${MAY_GO:-^$} ]]; then
			continue
		fi
		echo "ESCAPED: changed or removed on the host: $f" >&2
		bad=1
	done < <(comm -23 "$T/before" "$T/after" | awk '{print $2}' | grep -Ev "${MAY_CHANGE:-^$}")
	if grep -rls pwned "$T/work" "$T/other" 2>/dev/null | grep -v '\.attempts\.sh$' >"$T/pwned"; then
		sed 's/^/ESCAPED: written on the host: /' "$T/pwned" >&2
		bad=1
	fi
	for f in "$@"; do
		if [ -e "$f" ] || [ -L "$f" ]; then
			echo "ESCAPED: created on the host: $f" >&2
			bad=1
		fi
	done
	return "$bad"
}

# Every way a command could change a file: append, truncate, replace, remove, rename,
# chmod, hard link then write.
attack_file() {
	local f=$1
	cat <<SH
echo pwned >>'$f'; echo pwned >'$f'
rm -f '$f.new'; echo pwned >'$f.new' && mv -f '$f.new' '$f'
rm -f '$f.new'
mv -f '$f' '$f.moved'; chmod 777 '$f'; rm -f '$f'
ln '$f' '$f.hl' && echo pwned >>'$f.hl'; rm -f '$f.hl'
SH
}

@test "mandatory denies: existing dotfiles in the cwd cannot be changed" {
	need_srt
	script=
	for f in $MAND_FILES; do
		echo "orig $f" >"$T/work/$f"
		script+=$(attack_file "$f")$'\n'
	done
	write_attempts "$script"
	host_intact
	for f in $MAND_FILES; do
		[ ! -e "$T/work/$f.moved" ] || { echo "ESCAPED: $f moved" >&2; false; }
	done
}

@test "mandatory denies: existing .vscode, .idea, .claude, .git/hooks, .git/config" {
	need_srt
	mkdir -p "$T/work/.vscode" "$T/work/.idea" "$T/work/.claude/commands" \
		"$T/work/.claude/agents" "$T/work/.git/hooks" "$T/work/.git/refs"
	echo '{}' >"$T/work/.vscode/settings.json"
	echo '<x/>' >"$T/work/.idea/workspace.xml"
	echo 'cmd' >"$T/work/.claude/commands/c.md"
	echo 'agent' >"$T/work/.claude/agents/a.md"
	echo 'ref: refs/heads/main' >"$T/work/.git/HEAD"
	printf '[core]\n\tbare = false\n' >"$T/work/.git/config"
	echo '#!/bin/sh' >"$T/work/.git/hooks/post-merge"
	script=
	for f in .vscode/settings.json .idea/workspace.xml .claude/commands/c.md \
		.claude/agents/a.md .git/config .git/hooks/post-merge; do
		script+=$(attack_file "$f")$'\n'
	done
	script+='echo pwned >.vscode/tasks.json; echo pwned >.idea/new.xml
echo pwned >.claude/commands/evil.md; echo pwned >.claude/agents/evil.md
echo pwned >.git/hooks/pre-commit; chmod +x .git/hooks/pre-commit
mkdir .git/hooks/sub; ln -s /bin/sh .git/hooks/post-checkout
mv .vscode v2; mv .idea i2; mv .claude/commands c2; mv .git/hooks .git/h2
rm -rf .vscode .idea .claude/commands .git/hooks
git config --file .git/config core.hooksPath /tmp/pwned
'
	write_attempts "$script"
	# The user's config may go (the judged rename could empty it), never change.
	MAY_GO='^work/\.git/config$'
	host_intact "$T/work/.vscode/tasks.json" "$T/work/.idea/new.xml" \
		"$T/work/.claude/commands/evil.md" "$T/work/.claude/agents/evil.md" \
		"$T/work/.git/hooks/pre-commit" "$T/work/.git/hooks/sub" \
		"$T/work/.git/hooks/post-checkout" "$T/work/v2" "$T/work/i2" \
		"$T/work/.claude/c2" "$T/work/c2" "$T/work/.git/h2"
}

@test "mandatory denies: dotfiles that do not exist yet cannot be created" {
	need_srt
	script=
	for f in $MAND_FILES; do
		script+="echo pwned >'$f'; ln -s /tmp/x '$f.l' && mv -f '$f.l' '$f'; rm -f '$f.l'"$'\n'
	done
	write_attempts "$script"
	for f in $MAND_FILES; do
		# A placeholder may have been left; it must not hold anything or point anywhere.
		if [ -L "$T/work/$f" ] || [ -s "$T/work/$f" ]; then
			echo "ESCAPED: $f created on the host" >&2
			false
		fi
	done
	host_intact
}

@test "mandatory denies: .vscode, .idea, .claude, .git/hooks that do not exist yet" {
	need_srt
	mkdir -p "$T/work/.git"
	echo 'ref: refs/heads/main' >"$T/work/.git/HEAD"
	write_attempts '
mkdir -p .vscode .idea .claude/commands .claude/agents .git/hooks
echo pwned >.vscode/settings.json; echo pwned >.idea/workspace.xml
echo pwned >.claude/commands/evil.md; echo pwned >.claude/agents/evil.md
echo pwned >.git/hooks/pre-commit; echo pwned >.git/config
'
	host_intact "$T/work/.vscode/settings.json" "$T/work/.idea/workspace.xml" \
		"$T/work/.claude/commands/evil.md" "$T/work/.claude/agents/evil.md" \
		"$T/work/.git/hooks/pre-commit" "$T/work/.git/config"
}

@test "mandatory denies: existing ones below the cwd, within the search depth" {
	need_srt
	mkdir -p "$T/work/sub/.git/hooks" "$T/work/a1/a2" "$T/work/sub/.vscode" "$T/work/sub2/.git"
	echo orig >"$T/work/sub/.bashrc"
	echo orig >"$T/work/a1/a2/.gitmodules"
	echo orig >"$T/work/a1/.mcp.json"
	echo '{}' >"$T/work/sub/.vscode/settings.json"
	echo 'ref: refs/heads/main' >"$T/work/sub/.git/HEAD"
	echo 'ref: refs/heads/main' >"$T/work/sub2/.git/HEAD"
	echo '#!/bin/sh' >"$T/work/sub/.git/hooks/pre-push"
	script=
	for f in sub/.bashrc a1/a2/.gitmodules a1/.mcp.json sub/.vscode/settings.json \
		sub/.git/hooks/pre-push; do
		script+=$(attack_file "$f")$'\n'
	done
	script+='echo pwned >sub/.git/hooks/pre-commit; echo pwned >sub/.vscode/tasks.json
mkdir -p sub2/.git/hooks; echo pwned >sub2/.git/hooks/pre-commit
mv sub/.git sub/.git-moved; mkdir -p sub/.git/hooks; echo pwned >sub/.git/hooks/post-merge
'
	write_attempts "$script"
	host_intact "$T/work/sub/.git/hooks/pre-commit" "$T/work/sub/.vscode/tasks.json" \
		"$T/work/sub2/.git/hooks/pre-commit" "$T/work/sub/.git-moved" \
		"$T/work/sub/.git/hooks/post-merge"
}

@test "mandatory denies: existing ones in a second write root, not the cwd" {
	need_srt
	mkdir -p "$T/other/.git/hooks" "$T/other/.vscode"
	echo orig >"$T/other/.bashrc"
	echo orig >"$T/other/.gitmodules"
	echo '{}' >"$T/other/.vscode/settings.json"
	echo 'ref: refs/heads/main' >"$T/other/.git/HEAD"
	echo '#!/bin/sh' >"$T/other/.git/hooks/update"
	o=$T/other
	script=
	for f in "$o/.bashrc" "$o/.gitmodules" "$o/.vscode/settings.json" \
		"$o/.git/hooks/update"; do
		script+=$(attack_file "$f")$'\n'
	done
	script+="echo pwned >'$o/.git/hooks/pre-commit'"$'\n'
	write_attempts "$script" "\"$T/other\""
	host_intact "$o/.git/hooks/pre-commit"
}

@test "mandatory denies: a dotfile that is a symlink protects where it points" {
	need_srt
	mkdir -p "$T/work/dotfiles"
	echo orig >"$T/work/dotfiles/bashrc"
	ln -s dotfiles/bashrc "$T/work/.bashrc"
	write_attempts "$(attack_file dotfiles/bashrc)
echo pwned >>.bashrc"
	host_intact
	[ "$(readlink "$T/work/.bashrc")" = dotfiles/bashrc ]
}

@test ".git moved aside: no hooks can be planted in a new .git" {
	need_srt
	mkdir -p "$T/work/.git/hooks" "$T/work/.git/objects"
	echo 'ref: refs/heads/main' >"$T/work/.git/HEAD"
	printf '[core]\n\tbare = false\n' >"$T/work/.git/config"
	sec_settings '[]' '[]' '[]' '["."]'
	probe_blocked rename "$T/work/.git" "$T/work/.git2"
	write_attempts '
mv .git .git2 && mkdir -p .git/hooks && echo pwned >.git/hooks/pre-commit
cp -r .git2/. .git/ 2>/dev/null; echo pwned >.git/config
mv .git/hooks .git/hooks-old && mkdir .git/hooks && echo pwned >.git/hooks/pre-commit
rm -rf .git; mkdir -p .git/hooks; echo pwned >.git/hooks/pre-commit
'
	# Only the hooks and the config are protected: HEAD may go with rm -rf, and so may
	# a repository of no hook, whole (config, the empty hooks directory, .git); but no
	# .git is made again where it was.
	MAY_GO='^work/\.git/(HEAD|config)$'
	host_intact "$T/work/.git2" "$T/work/.git/hooks-old" "$T/work/.git/hooks/pre-commit"
	[ ! -e "$T/work/.git" ] || { [ -d "$T/work/.git/hooks" ] && [ -f "$T/work/.git/config" ]; }
}

@test ".git as a file (a worktree) cannot be replaced by a directory" {
	need_srt
	echo "gitdir: $T/elsewhere/.git/worktrees/w" >"$T/work/.git"
	write_attempts '
echo pwned >>.git
rm -f .git; mkdir -p .git/hooks; echo pwned >.git/hooks/pre-commit
mv .git .git-file; mkdir -p .git/hooks; echo pwned >.git/hooks/pre-commit
'
	host_intact "$T/work/.git-file" "$T/work/.git/hooks/pre-commit"
	[ -f "$T/work/.git" ]
}

@test "denyWrite: configured entries, existing or not, stay unwritten" {
	need_srt
	mkdir -p "$T/work/cfg"
	echo orig >"$T/work/ro.txt"
	echo orig >"$T/work/cfg/app.conf"
	sec_settings '[]' '[]' '[]' '["."]' \
		"[\"$T/work/ro.txt\", \"$T/work/cfg\", \"$T/work/notyet/file.txt\", \"$T/work/missing.txt\"]"
	cp "$T/srt.json" "$T/srt.keep"
	cat >"$T/work/.attempts.sh" <<SH
$(attack_file ro.txt)
$(attack_file cfg/app.conf)
echo pwned >cfg/new.conf; mv cfg cfg2; rm -rf cfg
mkdir -p notyet && echo pwned >notyet/file.txt
echo pwned >missing.txt
echo BLOCKED attempts done
SH
	(cd "$T" && find work -type f ! -name .attempts.sh -exec md5sum {} + | sort) >"$T/before"
	in_srt 'sh .attempts.sh 2>/dev/null'
	[ "$status" -eq 0 ]
	grep -q 'BLOCKED attempts done' <<<"$output"
	host_intact "$T/work/cfg/new.conf" "$T/work/cfg2" "$T/work/notyet/file.txt" \
		"$T/work/missing.txt"
}

@test "symlink out of a write root: writing through it does not reach outside" {
	need_srt
	mkdir -p "$T/outside"
	echo orig >"$T/outside/target.txt"
	ln -s "$T/outside" "$T/work/outlink"
	ln -s "$T/outside/target.txt" "$T/work/filelink"
	write_attempts '
echo pwned >>outlink/target.txt; echo pwned >outlink/new.txt
echo pwned >>filelink
'
	host_intact
	[ "$(cat "$T/outside/target.txt")" = orig ]
	[ ! -e "$T/outside/new.txt" ]
}

@test "settings: the settings file in a writable cwd cannot be rewritten" {
	need_srt
	SETTINGS=$T/work/srt.json
	export SETTINGS
	sec_settings '[]' '[]' "[\"$T/secretfile\"]" '["."]'
	echo "$SECRET" >"$T/secretfile"
	cp "$SETTINGS" "$T/srt.keep"
	in_srt 'printf "{\"network\":{\"allowedDomains\":[\"*.com\"],\"deniedDomains\":[]},\"filesystem\":{\"denyRead\":[],\"allowWrite\":[\"/\"],\"denyWrite\":[]}}" >srt.json
mv srt.json srt.old && printf "{}" >srt.json
rm -f srt.json
echo BLOCKED attempts done'
	[ "$status" -eq 0 ]
	cmp "$SETTINGS" "$T/srt.keep" || { echo "ESCAPED: the settings file was rewritten" >&2; false; }
	[ ! -e "$T/work/srt.old" ]
	# And the next run still enforces the original policy.
	probe_blocked read "$T/secretfile" "$SECRET"
}

@test "settings: the default ~/.srt-settings.json in a writable home cannot be rewritten" {
	need_srt
	mkdir -p "$T/home"
	echo "$SECRET" >"$T/secretfile"
	SETTINGS=$T/home/.srt-settings.json sec_settings '[]' '[]' "[\"$T/secretfile\"]" \
		"[\"$T/home\", \".\"]"
	cp "$T/home/.srt-settings.json" "$T/srt.keep"
	# No -s: srt finds the file through $HOME.
	run env HOME="$T/home" bash -c 'cd "$T/work" && exec timeout 30 "$SRT" -c "$1" </dev/null' _ \
		'printf "{}" >"$HOME/.srt-settings.json"; mv "$HOME/.srt-settings.json" "$HOME/old"; echo BLOCKED attempts done'
	echo "srt status $status, output: $output" >&2
	[ "$status" -eq 0 ]
	grep -q 'BLOCKED attempts done' <<<"$output"
	cmp "$T/home/.srt-settings.json" "$T/srt.keep" ||
		{ echo "ESCAPED: the settings file was rewritten" >&2; false; }
	[ ! -e "$T/home/old" ]
}

@test "policy: a compiled policy in a writable cwd cannot be rewritten (srt-launch -p)" {
	need_srt
	[ -x "$SRT_BIN/srt-launch" ] && [ -x "$SRT_BIN/srt-policy" ] ||
		skip "srt-launch or srt-policy is not built"
	echo "$SECRET" >"$T/secretfile"
	sec_settings '[]' '[]' "[\"$T/secretfile\"]" '["."]'
	"$SRT_BIN/srt-policy" compile -s "$T/srt.json" -o "$T/work/policy.bin"
	cp "$T/work/policy.bin" "$T/policy.keep"
	run bash -c 'cd "$T/work" && exec timeout 30 "$SRT_BIN/srt-launch" -p policy.bin -c "$1" </dev/null' _ \
		'printf "x" >policy.bin; mv policy.bin old.bin; echo BLOCKED attempts done'
	echo "srt-launch status $status, output: $output" >&2
	[ "$status" -eq 0 ]
	cmp "$T/work/policy.bin" "$T/policy.keep" ||
		{ echo "ESCAPED: the policy file was rewritten" >&2; false; }
	[ ! -e "$T/work/old.bin" ]
}

@test "writes outside the write roots: /tmp, /var/tmp, /dev/shm, the parent, home" {
	need_srt
	sec_settings '[]' '[]' '[]' '["."]'
	f=srt-sec-$MARK
	in_srt "for d in /tmp /var/tmp /dev/shm $(printf '%q' "$T") \$HOME; do echo pwned >\"\$d/$f\"; done 2>/dev/null; echo BLOCKED attempts done"
	bad=0
	for d in /tmp /var/tmp /dev/shm "$T" "$HOME"; do
		if [ -e "$d/$f" ]; then
			echo "ESCAPED: written on the host: $d/$f" >&2
			rm -f -- "$d/$f"
			bad=1
		fi
	done
	[ "$status" -eq 0 ]
	grep -q 'BLOCKED attempts done' <<<"$output"
	[ "$bad" -eq 0 ]
}

@test "git: the hooks and config of a submodule's git directory (.git/modules/NAME)" {
	need_srt
	mkdir -p "$T/work/.git/hooks" "$T/work/.git/modules/lib/hooks" "$T/work/lib"
	echo 'ref: refs/heads/main' >"$T/work/.git/HEAD"
	printf '[core]\n\tbare = false\n' >"$T/work/.git/config"
	echo 'ref: refs/heads/main' >"$T/work/.git/modules/lib/HEAD"
	printf '[core]\n\tworktree = ../../../lib\n' >"$T/work/.git/modules/lib/config"
	echo "gitdir: ../.git/modules/lib" >"$T/work/lib/.git"
	# git runs these hooks, outside any sandbox, the next time it works in lib/.
	write_attempts '
echo pwned >.git/modules/lib/hooks/pre-commit; chmod +x .git/modules/lib/hooks/pre-commit
echo pwned >>.git/modules/lib/config
'
	host_intact "$T/work/.git/modules/lib/hooks/pre-commit"
}

@test "git: the directory core.hooksPath names (e.g. .husky) is protected like .git/hooks" {
	need_srt
	mkdir -p "$T/work/.git/hooks" "$T/work/.husky"
	echo 'ref: refs/heads/main' >"$T/work/.git/HEAD"
	printf '[core]\n\tbare = false\n\thooksPath = .husky\n' >"$T/work/.git/config"
	echo 'npm test' >"$T/work/.husky/pre-commit"
	# git runs .husky/pre-commit, outside any sandbox, at the next commit.
	write_attempts "$(attack_file .husky/pre-commit)
echo pwned >.husky/pre-push"
	host_intact "$T/work/.husky/pre-push"
}

@test "shell start-up files the mandatory list misses: .zshenv, .zlogin, .bash_login, .bash_logout" {
	need_srt
	# zsh reads .zshenv for every shell, interactive or not; bash reads .bash_login when
	# there is no .bash_profile: each runs the next shell started there, unsandboxed.
	script=
	for f in .zshenv .zlogin .bash_login .bash_logout; do
		echo "orig $f" >"$T/work/$f"
		script+=$(attack_file "$f")$'\n'
	done
	write_attempts "$script"
	host_intact
}
