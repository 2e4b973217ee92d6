#!/usr/bin/env bats
# srt: the filesystem rules of BEHAVIOR §4.3 under real commands, each scenario run in a
# fresh tree: reads and writes allowed and refused, mandatory denies at depth, symlink and
# hard-link tricks, renames of protected ancestors, placeholders removed afterwards.
# The last test runs every scenario under the reference tool too (when it is installed)
# and requires the same answers, except where SPEC §5 differs on purpose.
load ../helpers
bats_require_minimum_version 1.5.0

# scripts/deps installs it in build/ref when npm is there; SRT_REF_CLI names another.
REF_CLI=${SRT_REF_CLI:-$BATS_TEST_DIRNAME/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime/dist/cli.js}
# What the write-guard tests run inside: see its usage.
GUARDOPS="$BATS_TEST_DIRNAME/../helpers/guard-ops.py"

setup() {
	srt_setup
	export TMPDIR="$T/tmp"
	mkdir -p "$TMPDIR"
}

teardown() {
	cd /
	srt_teardown
}

mk_tree() {
	local f
	rm -rf "$T/t"
	mkdir -p "$T/t"
	cd "$T/t" || return 1
	mkdir -p ws/.git/hooks ws/sub/a/b/c ws/secret/pub ws/data ws/.vscode ws/sub/.vscode \
	    ws/sub/a/.vscode ws/d1/d2 out home/.cache
	for f in ws/f ws/.bashrc ws/.git/config ws/.git/hooks/pre-commit ws/sub/.bashrc \
	    ws/sub/a/.bashrc ws/sub/a/b/.bashrc ws/sub/a/b/c/.bashrc ws/secret/key \
	    ws/secret/pub/ok ws/data/x ws/.vscode/settings.json ws/sub/.vscode/s.json \
	    ws/sub/a/.vscode/s.json ws/d1/d2/file out/f home/.cache/c ws/.gitmodules \
	    ws/sub/a/b/.gitconfig; do
		echo data > "$f"
	done
	ln -s ../out/f ws/lnout
	ln -s .bashrc ws/lnrc
	touch -d '2000-01-01' "$T/stamp"
	cd ws
}

# The probe: one "OP:PATH RESULT" line per operation, run from ws/.
PROBE='for op in "$@"; do
	k=${op%%:*}; p=${op#*:}
	case $k in
	r) v=$(cat "$p" 2>/dev/null) && r="ok:${#v}" || r=no ;;
	w) (echo x >> "$p") 2>/dev/null && r=ok || r=no ;;
	c) (: > "$p") 2>/dev/null && r=ok || r=no ;;
	d) mkdir "$p" 2>/dev/null && r=ok || r=no ;;
	m) a=${p%%=*}; b=${p#*=}; mv "$a" "$b" 2>/dev/null && r=ok || r=no ;;
	h) a=${p%%=*}; b=${p#*=}; ln "$a" "$b" 2>/dev/null && r=ok || r=no ;;
	u) rm -f "$p" 2>/dev/null && [ ! -e "$p" ] && r=ok || r=no ;;
	esac
	echo "$op $r"
done'

# settings JSON: fs DENYREAD ALLOWWRITE DENYWRITE [EXTRA-FS-FIELDS] [EXTRA-TOP-FIELDS]
fs() {
	echo "{ \"network\": {\"allowedDomains\": [], \"deniedDomains\": []},
	  \"filesystem\": {\"denyRead\": ${1:-[]}, \"allowWrite\": ${2:-[]},
	  \"denyWrite\": ${3:-[]} ${4:+, $4}} ${5:+, $5} }"
}

# run_tool srt|ref SETTINGS OPS...: a fresh tree, the probe inside, then any empty file or
# directory the run left in the tree that the probe did not create (placeholders).
run_tool() {
	local tool=$1 s=$2 q="" o
	shift 2
	mk_tree
	printf '%s\n' "$s" > "$T/s.json"
	for o in "$@"; do q="$q '$o'"; done
	if [ "$tool" = srt ]; then
		HOME="$T/t/home" srt -s "$T/s.json" -c "set -- $q; $PROBE" 2>/dev/null
	else
		HOME="$T/t/home" node "$REF_CLI" --settings "$T/s.json" -c "set -- $q; $PROBE" 2>/dev/null
	fi
	find "$T/t" -newer "$T/stamp" -empty \( -type f -o -type d \) 2>/dev/null |
	    sed "s|^$T/t/|residue |" | sort
}

# expect SETTINGS "OP RESULT"...: srt gives exactly these answers and leaves no residue
# beyond what the expectations list.
expect() {
	local s=$1 want ops=() l
	shift
	for l in "$@"; do
		[[ "$l" == residue* ]] || ops+=("${l% *}")
	done
	want=$(printf '%s\n' "$@")
	run run_tool srt "$s" "${ops[@]}"
	if [ "$output" != "$want" ]; then
		diff <(echo "$want") <(echo "$output") || true
		return 1
	fi
}

@test "default policy: everything readable, nothing writable" {
	expect "$(fs)" "r:f ok:4" "w:f no" "c:new no" "w:../out/f no" "w:../home/.cache/c no"
}

@test "allowWrite: writes inside, not outside; mandatory denies at depth 3 in the cwd" {
	expect "$(fs '[]' "[\"$T/t/ws\"]")" \
	    "w:f ok" "c:new ok" "w:../out/f no" \
	    "w:.bashrc no" "w:sub/.bashrc no" "w:sub/a/.bashrc no" "w:sub/a/b/.bashrc ok" \
	    "w:.git/config no" "c:.git/hooks/x no" "w:.vscode/settings.json no" \
	    "w:sub/.vscode/s.json no" "w:sub/a/.vscode/s.json ok" "w:.gitmodules no" \
	    "w:sub/a/b/.gitconfig ok" "c:.claude no" "c:.profile no" \
	    "residue ws/new"
}

@test "mandatoryDenySearchDepth 1 and 5" {
	expect "$(fs '[]' "[\"$T/t/ws\"]" '[]' '' '"mandatoryDenySearchDepth": 1')" \
	    "w:.bashrc no" "w:sub/.bashrc ok" "w:.vscode/settings.json no" "w:sub/.vscode/s.json ok"
	expect "$(fs '[]' "[\"$T/t/ws\"]" '[]' '' '"mandatoryDenySearchDepth": 5')" \
	    "w:sub/a/b/c/.bashrc no" "w:sub/a/.vscode/s.json no"
}

@test "mandatory denies cover every writable root, not only the cwd" {
	expect "$(fs '[]' "[\"$T/t/ws/sub\"]")" \
	    "w:sub/.bashrc no" "w:sub/a/.bashrc no" "w:sub/a/b/.bashrc no" \
	    "w:sub/a/b/c/.bashrc ok" "w:sub/.vscode/s.json no" "c:sub/n ok" "residue ws/sub/n"
}

@test "allowGitConfig opens .git/config, never .git/hooks" {
	expect "$(fs '[]' "[\"$T/t/ws\"]" '[]' '"allowGitConfig": true')" \
	    "w:.git/config ok" "c:.git/hooks/x no"
}

@test "denyRead of a directory with allowRead and allowWrite inside it" {
	expect "$(fs "[\"$T/t/ws/secret\"]" '[]' '[]' "\"allowRead\": [\"$T/t/ws/secret/pub\"]")" \
	    "r:secret/key no" "r:secret/pub/ok ok:4" "r:f ok:4"
	expect "$(fs "[\"$T/t/ws/secret\"]" "[\"$T/t/ws/secret/pub\"]")" \
	    "r:secret/key no" "c:secret/pub/new ok" "r:secret/pub/ok ok:4" \
	    "residue ws/secret/pub/new"
}

@test "denyRead of a file, and a glob in denyRead" {
	expect "$(fs "[\"$T/t/ws/data/x\"]")" "r:data/x no" "r:f ok:4"
	expect "$(fs "[\"$T/t/ws/secret/*\"]")" "r:secret/key no" "r:secret/pub/ok no" "r:f ok:4"
}

@test "denyWrite inside a writable root: existing and missing paths, placeholders removed" {
	expect "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/data\"]")" \
	    "w:data/x no" "c:data/new no" "w:f ok"
	expect "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/newdir/missing\"]")" \
	    "d:newdir no" "c:newdir/missing no" "w:f ok"
	[ ! -e "$T/t/ws/newdir" ]
}

@test "allowWrite spellings: ~, relative, trailing /**, a glob" {
	expect "$(fs '[]' '["~/.cache"]')" "w:../home/.cache/c ok" "c:../home/.cache/n ok" \
	    "w:f no" "residue home/.cache/n"
	expect "$(fs '[]' '["data"]')" "w:data/x ok" "c:data/n ok" "w:f no" "residue ws/data/n"
	expect "$(fs '[]' "[\"$T/t/ws/data/**\"]")" "w:data/x ok" "w:f no"
	expect "$(fs '[]' "[\"$T/t/ws/da*\"]")" "w:data/x ok" "w:f no"
}

@test "protected ancestors cannot be renamed away" {
	expect "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/d1/d2/file\"]")" \
	    "m:d1=d1x no" "m:d1/d2=d1/d2x no" "w:d1/d2/file no" "u:d1/d2/file no" \
	    "c:d1/new ok" "residue ws/d1/new"
	[ -e "$T/t/ws/d1/d2/file" ]
}

@test "symlink and hard-link tricks do not reach protected files" {
	expect "$(fs '[]' "[\"$T/t/ws\"]")" "w:lnout no" "w:lnrc no" "h:.bashrc=hl no" \
	    "u:lnrc ok" "w:f ok"
	[ "$(cat "$T/t/ws/.bashrc")" = data ]
	[ "$(cat "$T/t/out/f")" = data ]
}

@test "filesystem.disabled: no filesystem restriction" {
	expect "$(fs '[]' '[]' '[]' '"disabled": true')" "w:../out/f ok" "w:f ok"
}

@test "the same answers as the reference tool, scenario by scenario" {
	[ -f "$REF_CLI" ] || skip "reference tool not installed ($REF_CLI)"
	command -v node >/dev/null && command -v rg >/dev/null && command -v socat >/dev/null ||
	    skip "the reference tool needs node, rg and socat"
	local all="r:f w:f c:new w:.bashrc w:sub/.bashrc w:sub/a/.bashrc w:sub/a/b/.bashrc
	    w:sub/a/b/c/.bashrc w:.git/config c:.git/hooks/x w:.vscode/settings.json
	    w:sub/.vscode/s.json w:sub/a/.vscode/s.json w:../out/f w:.gitmodules
	    w:sub/a/b/.gitconfig c:.claude c:.profile"
	local -a names=() settings=() opss=()
	add() { names+=("$1"); settings+=("$2"); opss+=("$3"); }
	add default "$(fs)" "$all"
	add allowWrite-cwd "$(fs '[]' "[\"$T/t/ws\"]")" "$all"
	add allowGitConfig "$(fs '[]' "[\"$T/t/ws\"]" '[]' '"allowGitConfig": true')" \
	    "w:.git/config c:.git/hooks/x"
	add denyRead-allowRead "$(fs "[\"$T/t/ws/secret\"]" '[]' '[]' \
	    "\"allowRead\": [\"$T/t/ws/secret/pub\"]")" "r:secret/key r:secret/pub/ok r:f"
	add denyRead-file "$(fs "[\"$T/t/ws/data/x\"]")" "r:data/x r:f"
	add denyRead-glob "$(fs "[\"$T/t/ws/secret/*\"]")" "r:secret/key r:secret/pub/ok r:f"
	add denyWrite-dir "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/data\"]")" "w:data/x c:data/new w:f"
	add denyWrite-missing "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/newdir/missing\"]")" \
	    "d:newdir c:newdir/missing w:f"
	add allowWrite-home "$(fs '[]' '["~/.cache"]')" "w:../home/.cache/c c:../home/.cache/n w:f"
	add allowWrite-rel "$(fs '[]' '["data"]')" "w:data/x c:data/n w:f"
	add allowWrite-globstar "$(fs '[]' "[\"$T/t/ws/data/**\"]")" "w:data/x c:data/n w:f"
	add rename-ancestor "$(fs '[]' "[\"$T/t/ws\"]" "[\"$T/t/ws/d1/d2/file\"]")" \
	    "m:d1=d1x m:d1/d2=d1/d2x w:d1/d2/file c:d1/new u:d1/d2/file"
	add symlinks "$(fs '[]' "[\"$T/t/ws\"]")" "w:lnout w:lnrc u:lnrc c:newln h:.bashrc=hl"
	add denyRead-allowWrite-inside "$(fs "[\"$T/t/ws/secret\"]" "[\"$T/t/ws/secret/pub\"]")" \
	    "r:secret/key c:secret/pub/new r:secret/pub/ok"
	add disabled "$(fs '[]' '[]' '[]' '"disabled": true')" "w:../out/f w:f"
	add depth1 "$(fs '[]' "[\"$T/t/ws\"]" '[]' '' '"mandatoryDenySearchDepth": 1')" \
	    "w:.bashrc w:sub/.bashrc w:.vscode/settings.json w:sub/.vscode/s.json"
	add depth5 "$(fs '[]' "[\"$T/t/ws\"]" '[]' '' '"mandatoryDenySearchDepth": 5')" \
	    "w:sub/a/b/c/.bashrc w:sub/a/.vscode/s.json"
	local i a b bad=0
	for i in "${!names[@]}"; do
		# shellcheck disable=SC2086
		a=$(run_tool srt "${settings[$i]}" ${opss[$i]})
		# shellcheck disable=SC2086
		b=$(run_tool ref "${settings[$i]}" ${opss[$i]})
		if [ "$a" != "$b" ]; then
			echo "scenario ${names[$i]}: srt and the reference differ"
			diff <(echo "$b") <(echo "$a") || true
			bad=1
		fi
	done
	# Deliberate differences (SPEC §5): a glob in allowWrite works on Linux, and the
	# mandatory denies are searched under every writable root, not only the cwd.
	a=$(run_tool srt "$(fs '[]' "[\"$T/t/ws/da*\"]")" w:data/x)
	b=$(run_tool ref "$(fs '[]' "[\"$T/t/ws/da*\"]")" w:data/x)
	[ "$a" = "w:data/x ok" ] && [ "$b" = "w:data/x no" ] || { echo "glob: $a / $b"; bad=1; }
	a=$(run_tool srt "$(fs '[]' "[\"$T/t/ws/sub\"]")" w:sub/a/b/.bashrc)
	b=$(run_tool ref "$(fs '[]' "[\"$T/t/ws/sub\"]")" w:sub/a/b/.bashrc)
	[ "$a" = "w:sub/a/b/.bashrc no" ] && [ "$b" = "w:sub/a/b/.bashrc ok" ] ||
	    { echo "writable roots: $a / $b"; bad=1; }
	[ "$bad" -eq 0 ]
}

# An access ACL sets a mode (cp -a copies one onto every file it makes); a default ACL
# gives its entries to every file made in the directory. Write for others, or for a
# named user, through either is what S_IWOTH is in a mode: removed, the call succeeds.
@test "ACLs: write for others or a named user removed from access and default ACLs" {
	mkdir -p "$T/w"
	printf '%s\n' "$(fs '[]' "[\"$T/w\"]")" >"$T/s.json"
	cd "$T/w"
	run -0 bash -c "srt-launch -s '$T/s.json' -c 'python3 \"$GUARDOPS\" acl-modes' </dev/null 2>&1 | cat"
	echo "$output"
	[ "$(stat -c %a f)" = 664 ]
	[ "$(stat -c %a d)" = 775 ]
	[ "$(stat -c %a d/new)" = 664 ]
	# cp -a's way: fsetxattr on the descriptor of a file it just made
	[ "$(stat -c %a g)" = 664 ]
	[[ "$output" == *"write permission for others removed"* ]]
}

# The supervisor's fast way for O_CREAT|O_EXCL (srt-seccomp sup_open_fast): a directory
# held from an earlier call, found again by the cwd or descriptor the call names, must
# still be where the guard thinks it is. sub/a/n predates the run (a directory the
# command made is its own, and takes any name). The probe: guard-ops.py excl-probe.
@test "O_CREAT|O_EXCL opens decide by where the directory is now: cwd, descriptor, after a rename" {
	mk_tree
	mkdir "$T/t/ws/sub/a/n" "$T/t/ws/sub/a/m"
	printf '%s\n' "$(fs '[]' "[\"$T/t/ws\"]")" > "$T/s.json"
	# A rename from outside the sandbox, when the command has made sub/a/m/ready.
	(while [ ! -e "$T/t/ws/sub/a/m/ready" ]; do sleep 0.05; done
	 mv "$T/t/ws/sub/a/m" "$T/t/ws/m2" && touch "$T/t/ws/m2/moved") &
	local out
	out=$(srt -s "$T/s.json" -c "python3 '$GUARDOPS' excl-probe" 2>/dev/null)
	echo "$out"
	mapfile -t lines <<< "$out"
	[ "${lines[0]}" = "cwd f ok cwd .profile EPERM cwd hook EPERM" ]
	[ "${lines[1]}" = "abs .profile EPERM abs f ok" ]
	[ "${lines[2]}" = "fd f ok fd a/.profile EPERM fd deep ok" ]
	[ "${lines[3]}" = "held ok" ]
	[ "${lines[4]}" = "moved EPERM moved f ok" ]
	[ "${lines[5]}" = "cwd moved EPERM" ]
	[ "${lines[6]}" = "cwd deep ok" ]
	[ "${lines[7]}" = "outside ok ok" ]
	[ "${lines[8]}" = "moved outside EPERM" ]
	[ ! -e "$T/t/ws/m2/.profile" ]
	# others' write and set-user-ID removed whatever way the open takes
	[ "${lines[9]}" = "modes 644 664 755" ]
	[ -f "$T/t/ws/n2/g" ] && [ ! -e "$T/t/ws/n2/.profile" ] && [ ! -e "$T/t/ws/.profile" ]
}

# sup_pid SRT-PID: srt-seccomp's PID among the descendants of the srt run.
sup_pid() {
	local want=$1 i p c
	for i in $(seq 100); do
		for p in /proc/[0-9]*; do
			c=$(cat "$p/comm" 2>/dev/null) || continue
			[ "$c" = srt-seccomp ] || continue
			# one of ours: an ancestor is the srt run
			local a=${p#/proc/}
			while [ -n "$a" ] && [ "$a" -gt 1 ]; do
				[ "$a" = "$want" ] && { echo "${p#/proc/}"; return 0; }
				a=$(awk '{ print $4 }' "/proc/$a/stat" 2>/dev/null)
			done
		done
		sleep 0.05
	done
	return 1
}

# sup_cost MAX OP DIR: the mean of the supervisor's own system calls per decision (poll
# and receive included, strace -c) while the command runs guard-ops.py OP DIR 300 (300
# decisions and a few of the shell's), from ws; fails above MAX.
sup_cost() {
	local run sup st
	mk_tree
	printf '%s\n' "$(fs '[]' "[\"$T/t/ws\"]")" > "$T/s.json"
	mkdir -p "$T/t/ws/many"
	srt -s "$T/s.json" -c "while [ ! -e '$T/t/ws/go' ]; do sleep 0.05; done
	    python3 '$GUARDOPS' '$2' '$3' 300" 2>/dev/null &
	run=$!
	sup=$(sup_pid "$run")
	strace -f -c -qq -o "$T/strace" -p "$sup" &
	st=$!
	sleep 1         # strace attached: it says nothing when it is
	touch "$T/t/ws/go"
	wait "$run"
	kill -INT "$st" 2>/dev/null || true
	wait "$st" || true
	[ "$(ls "$T/t/ws/many" | wc -l)" -eq 300 ]
	# Decisions: one poll each (the supervisor's loop).
	run awk -v max="$1" '$NF == "poll" { p = $4 } $NF == "total" { t = $4 }
	    END { printf "%d decisions, %.2f calls each\n", p, t / p
		exit !(p >= 300 && t / p <= max) }' "$T/strace"
	echo "$output"
	[ "$status" -eq 0 ]
}

@test "the supervisor's own system calls: at most 8.5 per decision for new files and their modes" {
	command -v strace >/dev/null || skip "strace not installed"
	# 12.2 before the fast way (sup_open_fast), 8.3 with it
	sup_cost 8.5 create-fchmod many
}

@test "the supervisor's own system calls: at most 12 per mkdir by an absolute path" {
	command -v strace >/dev/null || skip "strace not installed"
	# 15.2 before the root was held and the directory named by its path as written
	sup_cost 12 mkdir-many "$T/t/ws/many"
}
