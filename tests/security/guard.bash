# Shared by the write-guard suites (tests/security/35-39, issue #10): load "helpers", then
# load "guard". Each test builds a real tree (git repositories made by the real git,
# dotfiles, a second write root standing for the home directory), runs an attack inside
# the sandbox as steps, then looks at the host: the files the attack aims at, and a victim
# step (the user's next `git status`, `git commit`, `git clone`, login or interactive
# shell) run on the host in a private mount and network namespace. Every payload only
# creates the marker file $T/pwned, outside every write root: if it exists after a
# victim step, the host ran the command's code.
#
# Nothing fails at the first problem: every check adds a finding to $T/findings, and
# `verdict` (the last line of each test) fails with all of them, one per line:
#	FINDING ESCAPED: ...	the host shows the attack's effect (code ran, a file changed)
#	FINDING ALLOWED: ...	a step that must be refused succeeded inside the sandbox
#	FINDING ERRNO: ...	it was refused, but not with EPERM as the contract says
#	FINDING NOT-ENDED: ...	the run should have ended with status 125 and did not
#	FINDING NO-WARNING: ...	srt -d did not warn as it must
#	FINDING REFUSED: ...	an ordinary operation that must keep working was refused
#	FINDING BROKEN: ...	the test itself could not do what it meant to
#
# GUARD_TOOL=ref runs the same attacks under the reference tool (node cli.js) instead of
# srt; 60-reference.bats does that to record which attacks the reference survives.
# The contract the tests check is /work/notes/wguard-spec.md, summarised in README.md.

: "${GUARD_TOOL:=srt}"
REF_CLI=${SRT_REF_CLI:-$SECDIR/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js}
FSOP="$SRT_TESTBIN/fs-op"
export GUARD_TOOL REF_CLI FSOP

# helpers.bash's setup, kept under another name: ours adds to it.
eval "sec_$(declare -f setup)"

setup() {
	sec_setup
	mkdir -p "$T/home"
	# Every program of the test, srt, git and the victims alike, sees this home only,
	# and no git configuration but the one the test writes.
	HOME=$T/home
	SETTINGS=$T/srt.json
	CWD=$T/work
	# A shell command, as text: planted scripts and start-up files hold it.
	# shellcheck disable=SC2089,SC2090
	PAYLOAD="touch '$T/pwned'"
	# shellcheck disable=SC2090
	export HOME SETTINGS CWD PAYLOAD
	export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=srt-test GIT_AUTHOR_EMAIL=t@srt.test \
		GIT_COMMITTER_NAME=srt-test GIT_COMMITTER_EMAIL=t@srt.test
	unset XDG_CONFIG_HOME GIT_DIR GIT_WORK_TREE GIT_COMMON_DIR GIT_INDEX_FILE \
		GIT_CONFIG_GLOBAL GIT_CONFIG GIT_CEILING_DIRECTORIES
	: >"$T/findings"
	: >"$T/log"
	: >"$T/kept"
	guard_steps >"$T/step.sh"
}

# The functions every attack script has (sourced inside the sandbox).
guard_steps() {
	cat <<'SH'
# step NAME CODE: runs CODE in a subshell; prints "STEP NAME ok", or "STEP NAME failed:"
# and what it printed (the refusal is judged outside by that text).
step() {
	local name=$1 out
	shift
	if out=$( (eval "$*") 2>&1); then
		echo "STEP $name ok"
	else
		echo "STEP $name failed: $(printf '%s' "$out" | tr '\n' ' ')"
	fi
}
# plant FILE: an executable script that runs the payload.
plant() {
	printf '#!/bin/sh\n%s\n' "$PAYLOAD" >"$1" && chmod +x "$1"
}
# fsmon_config FILE: git configuration naming the payload script fsm.sh of the cwd as
# core.fsmonitor (git runs it at every status).
fsmon_config() {
	printf '[core]\n\tfsmonitor = %s\n' "$PWD/fsm.sh" >>"$1"
}
# await NAME: waits (15 s at most) for the host's go-ahead $T/go-NAME.
await() {
	local i=0
	while [ ! -e "$T/go-$1" ] && [ $i -lt 1500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
}
SH
}

finding() {
	echo "FINDING $1: $2" >>"$T/findings"
}

# The tool under test must exist; anything else missing is a broken build.
need_tool() {
	if [ "$GUARD_TOOL" = ref ]; then
		[ -f "$REF_CLI" ] || skip "reference tool not installed ($REF_CLI)"
		if ! command -v node >/dev/null || ! command -v rg >/dev/null ||
			! command -v socat >/dev/null; then
			skip "the reference tool needs node, rg and socat"
		fi
	else
		need_srt
		[ -x "$FSOP" ] || { echo "fs-op missing: $FSOP" >&2; return 1; }
	fi
	command -v git >/dev/null || { echo "git not installed" >&2; return 1; }
}

# The preload that deletes files at bwrap's first mount (tests/preload/vanish-bwrap.c):
# from the build under test, or from this tree's build when that one has none.
vanish_so() {
	local so=$SRT_TESTBIN/vanish-bwrap.so
	[ -e "$so" ] || so=$SECDIR/../../build/tests/vanish-bwrap.so
	[ -e "$so" ] || { echo "vanish-bwrap.so not built: make $so" >&2; return 1; }
	echo "$so"
}

# For what only srt has (exit 125, its install directory, -d).
srt_only() {
	[ "$GUARD_TOOL" = srt ] || skip "about srt itself, nothing to compare"
}

# gsettings ALLOWWRITE [DENYWRITE] [DENYREAD] [MORE-FILESYSTEM] [MORE-TOP] [ALLOWEDDOMAINS]:
# settings in $SETTINGS (JSON arrays; MORE-* are members written as "k": v).
gsettings() {
	cat >"$SETTINGS" <<JSON
{
  "network": { "allowedDomains": ${6:-[]}, "deniedDomains": [] },
  "filesystem": { "denyRead": ${3:-[]}, "allowWrite": $1, "denyWrite": ${2:-[]}${4:+, $4} }${5:+, $5}
}
JSON
}

# A repository with one commit at $1, made on the host before the run.
repo_init() {
	git init -q -b main "$1" &&
		echo hello >"$1/README" &&
		git -C "$1" add README &&
		git -C "$1" commit -q -m init
}

# A repository $T/work whose submodule lib (from $T/lib-src) is checked out, with its git
# directory in .git/modules/lib; $1 = clone: instead, a clone of such a superproject that
# never initialised lib (lib/ is an empty directory, as after a plain `git clone`).
super_init() {
	repo_init "$T/lib-src" &&
		repo_init "$T/super" &&
		git -C "$T/super" -c protocol.file.allow=always submodule add -q "$T/lib-src" lib &&
		git -C "$T/super" commit -q -m lib || return 1
	if [ "${1:-}" = clone ]; then
		rmdir "$T/work" && git clone -q "$T/super" "$T/work"
	else
		rmdir "$T/work" && mv "$T/super" "$T/work" &&
			git -C "$T/work" -c protocol.file.allow=always submodule -q update --init
	fi
}

# tool_exec SCRIPT-FILE: runs `. SCRIPT-FILE` under the tool from $CWD with $SETTINGS
# (SETTINGS empty: no settings option, the tool finds ~/.srt-settings.json itself).
# $SRT_EXE names another srt (a copy of the installation).
tool_exec() {
	local -a opt=()
	cd "$CWD" || return 99
	if [ "$GUARD_TOOL" = ref ]; then
		[ -n "$SETTINGS" ] && opt=(--settings "$SETTINGS")
		exec timeout -k 10 60 node "$REF_CLI" "${opt[@]}" -c ". '$1'" </dev/null
	fi
	[ -n "$SETTINGS" ] && opt=(-s "$SETTINGS")
	exec timeout -k 10 60 "${SRT_EXE:-$SRT}" "${opt[@]}" -c ". '$1'" </dev/null
}

# attempt_script NAME SCRIPT: $T/attempt-NAME.sh, the attack script with the steps.
attempt_script() {
	{
		echo ". '$T/step.sh'"
		printf '%s\n' "$2"
		echo 'echo ATTEMPT DONE'
	} >"$T/attempt-$1.sh"
}

# attempt_start NAME SCRIPT: starts the attack script in the background; its output goes
# to $T/out-NAME and $T/err-NAME.
attempt_start() {
	local name=$1
	attempt_script "$name" "$2"
	rm -f "$T/go-$name"
	(tool_exec "$T/attempt-$name.sh") >"$T/out-$name" 2>"$T/err-$name" &
	echo $! >"$T/pid-$name"
	echo $! >>"$T/pids"
}

# attempt_wait NAME [ends]: waits for it; its output becomes the one the checks read
# ($T/out, $T/err) and its status is $ST. Without "ends", a run that did not reach the
# script's end is a finding.
attempt_wait() {
	local name=$1 pid
	pid=$(cat "$T/pid-$name")
	ST=0
	wait "$pid" || ST=$?
	# Reaped: teardown must not signal whatever reuses the number.
	sed -i "/^$pid\$/d" "$T/pids"
	cp "$T/out-$name" "$T/out"
	cp "$T/err-$name" "$T/err"
	log_run "$name"
	if [ "${2:-}" != ends ] && ! grep -q '^ATTEMPT DONE$' "$T/out"; then
		finding BROKEN "run $name did not reach the end of its script (status $ST)"
	fi
	if [ -e "$T/pwned" ]; then
		finding ESCAPED "the payload ran during run $name"
		rm -f "$T/pwned"
	fi
}

# log_run NAME: what the run left in $T/out and $T/err, with its status $ST, for the
# report of a failing test.
log_run() {
	{
		echo "--- run $1 under $GUARD_TOOL: status $ST; stdout:"
		cat "$T/out"
		echo "--- stderr:"
		cat "$T/err"
	} >>"$T/log"
}

# attempt SCRIPT: one run, start to end.
attempt() {
	attempt_start main "$1"
	attempt_wait main
}

# ready NAME: waits (15 s at most) until the run NAME has made $CWD/.ready-NAME.
ready() {
	local _
	for _ in $(seq 1500); do
		[ -e "$CWD/.ready-$1" ] && return 0
		sleep 0.01
	done
	finding BROKEN "run $1 never got ready"
}

# refused NAME... [-- TEXT]: each step was refused with TEXT (default EPERM's).
refused() {
	local want="Operation not permitted" n line names=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			want=$2
			break
		fi
		names+=("$1")
		shift
	done
	for n in "${names[@]}"; do
		line=$(grep -m1 "^STEP $n " "$T/out") || true
		case $line in
		"") finding BROKEN "step $n did not run" ;;
		"STEP $n ok") finding ALLOWED "step $n succeeded" ;;
		*"$want"*) ;;
		*) finding ERRNO "step $n, not \"$want\": ${line#STEP "$n" failed: }" ;;
		esac
	done
}

# allowed NAME...: each step succeeded.
allowed() {
	local n line
	for n in "$@"; do
		line=$(grep -m1 "^STEP $n " "$T/out") || true
		case $line in
		"") finding BROKEN "step $n did not run" ;;
		"STEP $n ok") ;;
		*) finding REFUSED "step $n: ${line#STEP "$n" failed: }" ;;
		esac
	done
}

# What the host has at a path: a link's target, a file's content, mode and time, a
# directory's inode (replaced by another directory, it changes).
path_state() {
	if [ -L "$1" ]; then
		echo "link:$(readlink "$1")"
	elif [ -f "$1" ]; then
		echo "file:$(md5sum <"$1" | cut -c1-32):$(stat -c '%a:%Y:%i' "$1")"
	elif [ -d "$1" ]; then
		echo "dir:$(stat -c '%i' "$1")"
	elif [ -e "$1" ]; then
		echo other
	else
		echo absent
	fi
}

# keep PATH...: these must be as they are now (existing or not) when the test ends.
keep() {
	local p
	for p in "$@"; do
		printf '%s\t%s\n' "$p" "$(path_state "$p")" >>"$T/kept"
	done
}

host_check() {
	local p s now
	while IFS=$'\t' read -r p s; do
		now=$(path_state "$p")
		[ "$now" = "$s" ] || finding ESCAPED "changed on the host: $p (was ${s%%:*}, now ${now%%:*})"
	done <"$T/kept"
}

# victim WHAT DIR CMD...: the user's next command, run on the host in DIR, in a private
# mount and network namespace, with the test's home; the payload must not have run.
victim() {
	local what=$1 dir=$2
	shift 2
	rm -f "$T/pwned"
	echo "--- victim: $what" >>"$T/victims"
	unshare -m -n -- bash -c 'cd "$1" && shift && exec timeout 20 "$@"' _ "$dir" "$@" \
		</dev/null >>"$T/victims" 2>&1 || true
	if [ -e "$T/pwned" ]; then
		finding ESCAPED "the host ran the command's code: $what"
		rm -f "$T/pwned"
	fi
}

# The user's interactive shell in DIR as the home directory (it reads DIR/.bashrc).
victim_bash() {
	victim "interactive bash with HOME=$1" "$1" env HOME="$1" bash -i -c true
}

# The last line of every test: fails with every finding, and what the runs printed.
verdict() {
	host_check
	if [ -e "$T/pwned" ]; then
		finding ESCAPED "the payload ran (marker $T/pwned exists)"
	fi
	if [ -s "$T/findings" ]; then
		cat "$T/log" >&2
		[ -s "$T/victims" ] && cat "$T/victims" >&2
		cat "$T/findings" >&2
		return 1
	fi
}

# viol_lines: the violation lines of the run (srt's <sandbox_violations> block).
viol_lines() {
	sed -n '/^<sandbox_violations>$/,/^<\/sandbox_violations>$/p' "$T/err" |
		grep '^deny ' || true
}

# no_violations: the run printed none.
no_violations() {
	if grep -q '<sandbox_violations>' "$T/err"; then
		finding REFUSED "violation lines on work that succeeded: $(viol_lines | tr '\n' '|')"
	fi
}

# has_line TEXT: a violation line holds TEXT.
has_line() {
	viol_lines | grep -qF -- "$1" || finding BROKEN "no violation line with: $1"
}
