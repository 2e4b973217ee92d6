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
	cat >"$T/work/flip.py" <<'PY'
import os
n = 0
while not os.path.exists("stop"):
    for target in ("a", ".git/hooks"):
        try:
            os.symlink(target, "l.tmp")
            os.rename("l.tmp", "l")
        except OSError:
            pass
        try:
            os.unlink("l.tmp")
        except OSError:
            pass
    try:
        os.rename("a", "a2")
        os.rename("a2", "a")
    except OSError:
        pass
    n += 1
print("FLIPS", n)
PY
	cat >"$T/work/make.py" <<'PY'
import os, threading
made = [0, 0]
def make(k):
    for i in range(600):
        for d in ("l", "a", "a2"):
            try:
                os.close(os.open("%s/pwn-%d-%d-%s" % (d, k, i, d),
                                 os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o755))
                made[k] += 1
            except OSError:
                pass
ts = [threading.Thread(target=make, args=(k,)) for k in (0, 1)]
for t in ts:
    t.start()
for t in ts:
    t.join()
open("stop", "w").close()
print("MADE", sum(made))
PY
	attempt '
step race "\"$PY\" flip.py & \"$PY\" make.py; wait"'
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
	cat >"$T/work/many.py" <<'PY'
import os, threading
errors = []
def work(k):
    try:
        d = "out/t%d" % k
        os.mkdir(d)
        for i in range(250):
            p = "%s/f%d" % (d, i)
            with open(p + ".tmp", "x") as f:
                f.write("%d %d\n" % (k, i))
            os.chmod(p + ".tmp", 0o640)
            os.rename(p + ".tmp", p)
    except OSError as e:
        errors.append(repr(e))
ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
for t in ts:
    t.start()
for t in ts:
    t.join()
if errors:
    raise SystemExit("errors: %s" % errors[:3])
PY
	attempt '
step many "\"$PY\" many.py"'
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
