#!/usr/bin/env bats
# The README's "Use" recipes, run as written: each test takes a recipe's text from
# README.md (the block after `<!-- recipe: NAME -->`) and runs it, and the first test
# checks that srt(1) EXAMPLES holds the same text, so the docs and this test cannot drift.
# Network recipes run in a network namespace of their own (`unshare -n`: loopback only),
# where a hosts file names stub servers on loopback; nothing reaches the internet.
load ../helpers
bats_require_minimum_version 1.5.0

README=$BATS_TEST_DIRNAME/../../README.md
MAN=$BATS_TEST_DIRNAME/../../man/srt.1

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root for namespaces of its own"
	command -v unshare >/dev/null || skip "unshare is missing"
	srt_setup
	mkdir -p "$T/home" "$T/tmp" "$T/www/simple"
	export HOME="$T/home" TMPDIR="$T/tmp"
	echo stub > "$T/www/index.html"
	echo simple > "$T/www/simple/index.html"
	cd "$T/home"
}

teardown() {
	cd /
	srt_teardown
}

# recipe NAME [FILE]: the text of the fenced block after `<!-- recipe: NAME -->` in the
# README, or after `.\" recipe: NAME` in the man page's literal display (\e unescaped).
recipe() {
	if [ "${2:-$README}" = "$README" ]; then
		awk -v n="<!-- recipe: $1 -->" '
			$0 == n { f = 1; next }
			f == 1 && /^```/ { f = 2; next }
			f == 2 && /^```/ { exit }
			f == 2 { print }' "$README"
	else
		N=$1 awk 'BEGIN { n = ".\\\" recipe: " ENVIRON["N"] }
			$0 == n { f = 1; next }
			f == 1 && /^\.Bd -literal/ { f = 2; next }
			f == 2 && /^\.Ed/ { exit }
			f == 2 { sub(/^\\&/, ""); gsub(/\\e/, "\\"); print }' "$MAN"
	fi
}

# in_lab SCRIPT: run SCRIPT (bash) in a network namespace of its own, the stub hosts file
# over /etc/hosts, and a web server answering for every name in it from a second namespace
# behind a veth pair (198.18.0.0/24: neither loopback nor this host's, which the proxies
# refuse to reach).
in_lab() {
	cat > "$T/hosts" <<-HOSTS
	127.0.0.1 localhost
	198.18.0.2 github.com codeload.github.com
	198.18.0.3 registry.npmjs.org
	198.18.0.4 pypi.org files.pythonhosted.org
	198.18.0.5 evil.example
	HOSTS
	cat > "$T/web.sh" <<-SH
	while ! ip link show v1 >/dev/null 2>&1; do sleep 0.05; done
	ip link set lo up
	for a in 2 3 4 5; do ip addr add 198.18.0.\$a/24 dev v1; done
	ip link set v1 up
	exec python3 -m http.server 80 --bind 0.0.0.0 --directory "$T/www" 2>"$T/www.log"
	SH
	cat > "$T/lab.sh" <<-SH
	fail() { echo "lab: \$1 failed" >&2; exit 99; }
	ip link set lo up || fail "lo up"
	mount --bind "$T/hosts" /etc/hosts || fail "the hosts file"
	unshare -n bash "$T/web.sh" &
	web=\$!
	# The server's namespace exists once unshare has made it: v1 moved before that
	# would stay here, and the server would wait for it for ever.
	while [ "\$(readlink /proc/\$web/ns/net)" = "\$(readlink /proc/self/ns/net)" ]; do
		kill -0 \$web 2>/dev/null || fail "the server's namespace"
		sleep 0.05
	done
	ip link add v0 type veth peer name v1 || fail "the veth pair"
	ip link set v1 netns \$web || fail "moving v1"
	ip addr add 198.18.0.1/24 dev v0 && ip link set v0 up || fail "v0"
	for i in \$(seq 100); do (exec 9<>/dev/tcp/198.18.0.2/80) 2>/dev/null && break; sleep 0.1; done
	$1
	rc=\$?
	kill \$web; wait \$web 2>/dev/null
	exit \$rc
	SH
	timeout 300 unshare -m -n --propagation private bash "$T/lab.sh"
}

@test "every recipe in the README is in srt(1) EXAMPLES, word for word" {
	local n names
	names=$(sed -n 's/^<!-- recipe: \(.*\) -->$/\1/p' "$README")
	[ "$(wc -w <<<"$names")" -eq 7 ]
	for n in $names; do
		[ -n "$(recipe "$n")" ] || { echo "README: $n is empty"; return 1; }
		diff <(recipe "$n") <(recipe "$n" "$MAN") || { echo "drift: $n"; return 1; }
	done
}

@test "recipe settings: GitHub, npm and PyPI reachable, other hosts not; project and caches writable" {
	recipe settings > "$T/settings.sh"
	run -0 bash -e "$T/settings.sh"
	[[ "$output" == *allow* ]]
	[ -d ~/.npm ] && [ -d ~/.cache/pip ]
	mkdir -p ~/proj
	run in_lab "cd $T/home/proj && srt -c '
		for h in github.com registry.npmjs.org pypi.org; do
			curl -fsS http://\$h/ >/dev/null && echo reached \$h
		done
		curl -fsS -m 5 http://evil.example/ || echo refused evil.example
		echo a > ~/.npm/a && echo b > ~/.cache/pip/b && echo c > here && echo wrote
		echo d > ~/elsewhere || echo refused elsewhere'"
	echo "$output"
	[[ "$output" == *"reached github.com"*"reached registry.npmjs.org"*"reached pypi.org"* ]]
	[[ "$output" == *"refused evil.example"* ]]
	[[ "$output" == *"wrote"*"refused elsewhere"* ]]
	[[ "$output" == *"deny network-outbound evil.example:80 (host is not on the allow list)"* ]]
	[ -f ~/proj/here ] && [ ! -e ~/elsewhere ]
}

@test "recipe agent-tool: the tool returns the output, the status and the violations" {
	bash -e <(recipe settings) >/dev/null
	recipe agent-tool > "$T/tool.py"
	mkdir -p ~/proj && cd ~/proj
	run -0 python3 "$T/tool.py"
	[[ "$output" == "exit status 1"* ]]
	[[ "$output" == *"hello from the sandbox"* ]]
	[[ "$output" == *"<sandbox_violations>"*"deny file-write $HOME/outside-the-project"* ]]
	[ ! -e ~/outside-the-project ]
}

@test "recipe clone-test: a project with .vscode and .envrc is cloned and tested" {
	bash -e <(recipe settings) >/dev/null
	mkdir -p "$T/up/.vscode"
	printf 'test:\n\t@echo tests passed\n' > "$T/up/Makefile"
	echo '{}' > "$T/up/.vscode/settings.json"
	echo 'export A=1' > "$T/up/.envrc"
	git -C "$T/up" init -q && git -C "$T/up" add -A &&
	    git -C "$T/up" -c user.name=t -c user.email=t@t commit -qm init
	recipe clone-test > "$T/clone.sh"
	grep -qx 'REPO=https://github.com/OWNER/PROJECT.git' "$T/clone.sh"
	sed -i "s|^REPO=.*|REPO=$T/up|" "$T/clone.sh"
	run -0 bash -e "$T/clone.sh"
	[[ "$output" == *"tests passed"* ]]
	[ -f ~/src/project/.vscode/settings.json ] && [ -f ~/src/project/.envrc ]
}

@test "recipe mcp: the client's command line runs the server in the sandbox over stdio" {
	bash -e <(recipe settings) >/dev/null
	recipe mcp > "$T/home/.mcp.json"
	# A stand-in server (tests/helpers/mcp-stub.py): answers one JSON-RPC request, and
	# says whether it could write outside the project; the stub's client starts it.
	cp "$BATS_TEST_DIRNAME/../helpers/mcp-stub.py" "$T/home/notes_server.py"
	run -0 python3 "$BATS_TEST_DIRNAME/../helpers/mcp-stub.py" client "$T/home/.mcp.json" notes
	[[ "$output" == *'"id": 1'*'"sandboxed": "1"'*'"wrote_etc": "no"'* ]]
	[ ! -e /etc/srt-recipe-probe ]
}

@test "recipe compile: one compiled policy, one srt-launch per step, stop at the first failure" {
	bash -e <(recipe settings) >/dev/null
	mkdir -p ~/proj && cd ~/proj
	printf 'lint:\n\t@echo lint ok > lint.out\ntest:\n\t@touch ~/escaped; false\n' > Makefile
	recipe compile > "$T/compile.sh"
	run bash "$T/compile.sh"
	[ "$status" -ne 0 ]
	[ -f ~/agent.policy ]
	[ "$(cat lint.out)" = "lint ok" ]
	[ ! -e ~/escaped ]
}

@test "recipe audit: the proxy alone logs each decision with its rule" {
	bash -e <(recipe settings) >/dev/null
	recipe audit > "$T/audit.sh"
	run in_lab "HOME=$HOME bash -e $T/audit.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'"host":"pypi.org","port":80,"verdict":"allow","rule":"pypi.org"'* ]]
	[[ "$output" == *'"status":200'* ]]
}

@test "recipe managed: the administrator's denies are merged and shown by layer" {
	bash -e <(recipe settings) >/dev/null
	mkdir -p "$T/upper" "$T/work"
	recipe managed > "$T/managed.sh"
	# sudo, as root: the command itself. /etc is an overlay in this mount namespace only.
	run unshare -m --propagation private bash -c "
		mount -t overlay srt-recipe -o lowerdir=/etc,upperdir=$T/upper,workdir=$T/work /etc || exit 99
		sudo() { \"\$@\"; }
		. $T/managed.sh
		srt-policy match pastebin.com 443; srt-policy match x.pastebin.com 443"
	echo "$output"
	[[ "$output" == *managed*'*.pastebin.com'* ]]
	[[ "$output" == *managed*gcloud* ]]
	[[ "$output" == *deny* ]]
	[ ! -e /etc/srt/managed-settings.json ] || ! grep -q pastebin /etc/srt/managed-settings.json
}
