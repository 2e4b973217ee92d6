#!/usr/bin/env bats
# Escape battery: a command that races itself (issue #29). A rename and a creation of
# the same name must be decided and done in order: two processes of one sandbox, one
# flipping a name between a plain directory and the repository's .git/hooks (a link
# renamed over it, the directory itself renamed away and back) while the other makes
# new files through that name from two threads, must never leave a file in .git/hooks.
# And an ordinary command with many threads making files at once must get all of them,
# with what it wrote; a command that ends while a process it left behind still writes
# must end the run.
load helpers
load guard

@test "a name flipped to .git/hooks by one process while another creates through it" {
	need_tool
	repo_init "$T/work"
	mkdir -p "$T/work/a"
	gsettings '["."]'
	attempt '
step race "\"$PY\" \"$GUARDOPS\" flip l a .git/hooks stop & \"$PY\" \"$GUARDOPS\" make-through stop l a a2; wait"'
	allowed race
	if ls "$T/work/.git/hooks" | grep -q '^pwn-'; then
		finding ESCAPED "made in .git/hooks: $(ls "$T/work/.git/hooks" | grep -c '^pwn-') files"
	fi
	ls "$T/work/a" | grep -q '^pwn-' || finding BROKEN "nothing was made in a"
	verdict
}

@test "a command's threads make, write, chmod and rename files at once" {
	need_tool
	mkdir -p "$T/work/out"
	gsettings '["."]'
	attempt '
step many "\"$PY\" \"$GUARDOPS\" many-writers out 8 250"'
	allowed many
	local k i bad=0
	for k in 0 1 2 3 4 5 6 7; do
		[ "$(ls "$T/work/out/t$k" | grep -c '^f[0-9]*$')" = 250 ] ||
			finding BROKEN "out/t$k: $(ls "$T/work/out/t$k" | wc -l) files, not 250"
		for i in 0 99 249; do
			[ "$(cat "$T/work/out/t$k/f$i" 2>/dev/null)" = "$k $i" ] || bad=$((bad + 1))
			[ "$(stat -c %a "$T/work/out/t$k/f$i" 2>/dev/null)" = 640 ] || bad=$((bad + 1))
		done
	done
	[ "$bad" = 0 ] || finding BROKEN "$bad files without their content or mode"
	verdict
}

# The command ends while a process it started in the background keeps making files:
# the supervisor stops, the run ends with the command's status, and nothing hangs.
@test "the run ends while a process left behind still writes" {
	need_tool
	gsettings '["."]'
	attempt '
step left "( i=0; while :; do : >x\$((i % 50)); i=\$((i + 1)); done ) >/dev/null 2>&1 & while [ ! -e x5 ]; do :; done"'
	allowed left
	[ "$ST" = 0 ] || finding BROKEN "the run ended with status $ST"
	verdict
}
