#!/usr/bin/env bats
# The command-line cases of the reference tool's own test suite (its test/ directory),
# restated for srt: what a user of either tool sees. Where srt differs on purpose, srt(1)
# DIFFERENCES FROM THE REFERENCE says so and the case here checks srt's side.
# Not ported (not visible from the command line, or another platform's): the macOS
# Seatbelt, PTY and Windows files, the library-level unit files (quoting, glob expansion,
# bwrap argv records, mux/transparent proxy internals, update-config, control-fd protocol
# details covered by tests/proxies/control.bats), and the network cases that need the internet.
load ../helpers
bats_require_minimum_version 1.5.0

setup() {
	srt_setup
	mkdir -p "$T/home" "$T/tmp" "$T/ws"
	export HOME="$T/home" TMPDIR="$T/tmp"
	cd "$T/ws"
}

teardown() {
	cd /
	srt_teardown
}

# settings FILE FILESYSTEM-JSON [NETWORK-JSON] [EXTRA-TOP-LEVEL-JSON]
settings() {
	printf '{"filesystem": %s, "network": %s%s}\n' "$2" \
	    "${3:-{\"allowedDomains\": [], \"deniedDomains\": []\}}" "${4:+, $4}" > "$1"
}

# --- cli ------------------------------------------------------------------------------

@test "cli: no command at all is status 1 with a reason, with or without -d" {
	# reference 0.0.83: "No command specified", status 1 (srt before: usage, 125)
	run -1 --separate-stderr srt
	[[ "$stderr" == *"no command specified"* ]]
	[[ "$stderr" != *usage:* ]]
	run -1 --separate-stderr srt -d
	[[ "$stderr" == *"no command specified"* ]]
}

@test "cli: -c runs the string as given; words after -- are the command's own" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	run -0 srt -s "$T/s.json" -c 'echo "a  b" | tr a-z A-Z'
	[ "$output" = "A  B" ]
	run -0 srt -s "$T/s.json" -- printf '%s|' -c -d 'x y'
	[ "$output" = "-c|-d|x y|" ]
	run -3 srt -s "$T/s.json" -c 'exit 3'
}

@test "cli: --help and --version answer on standard output with status 0" {
	run -0 --separate-stderr srt --help
	[[ "$output" == usage:* ]]
	[[ "$output" == *--settings* && "$output" == *--debug* ]]
	run -0 srt --version
	[[ "$output" == "srt "* ]]
}

@test "cli: -c keeps quotes, JSON, pipes, expansions and command substitution for the shell" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	run -0 srt -s "$T/s.json" -c "echo '{\"a\": {\"b\": \"c d\"}}'"
	[ "$output" = '{"a": {"b": "c d"}}' ]
	run -0 srt -s "$T/s.json" -c 'echo "one two" | wc -w; echo "n=$(echo 1 2 3 | wc -w)"; echo "$HOME"'
	[ "${lines[0]}" = 2 ] && [ "${lines[1]}" = n=3 ] && [ "${lines[2]}" = "$HOME" ]
}

@test "cli: a command's words reach it unchanged: parentheses, quotes, backticks, \$VAR" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	local a
	for a in 'context (thread reply)' "it's a test" 'run `whoami` by hand' 'cost is $HOME' \
	    "said \"hi (there)\" - reply 'ok' now"; do
		run -0 srt -s "$T/s.json" printf '%s' "$a"
		[ "$output" = "$a" ] || { echo "changed: $a -> $output"; return 1; }
	done
	run -0 srt -s "$T/s.json" echo -n 'no newline'
	[ "$output" = 'no newline' ]
}

@test "cli: SRT_DEBUG turns on the debug log on standard error; without it there is none" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	SRT_DEBUG=true run -0 --separate-stderr srt -s "$T/s.json" echo test
	[ "$output" = test ]
	[[ "$stderr" == *"srt: debug:"* ]]
	run -0 --separate-stderr srt -s "$T/s.json" echo test
	[[ "$stderr" != *debug* ]]
}

# --- config validation ----------------------------------------------------------------

@test "config: a file that is not JSON, or has a wrong type, is refused and named" {
	printf '{"network": {' > "$T/bad.json"
	run -125 srt -s "$T/bad.json" -c true
	[[ "$output" == *bad.json* ]]
	settings "$T/type.json" '{"denyRead": "x", "allowWrite": [], "denyWrite": []}'
	run -125 srt -s "$T/type.json" -c true
	[[ "$output" == *filesystem.denyRead* ]]
}

@test "config: domain entries with a scheme, a path or a misplaced wildcard are refused" {
	local d
	for d in 'https://example.com' 'example.com/path' 'ex*ample.com' '*'; do
		settings "$T/d.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' \
		    "{\"allowedDomains\": [\"$d\"], \"deniedDomains\": []}"
		run srt-policy check -s "$T/d.json"
		[ "$status" -ne 0 ] || { echo "accepted: $d"; return 1; }
	done
	settings "$T/ok.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' \
	    '{"allowedDomains": ["example.com", "*.example.org", "localhost:8080"], "deniedDomains": []}'
	run -0 srt-policy check -s "$T/ok.json"
}

# --- credentials and tlsTerminate.excludeDomains --------------------------------------

@test "credentials: a masked value excludeDomains keeps from every injectHosts entry is refused" {
	# reference 0.0.83: refused (srt before: accepted, the value never put back)
	settings "$T/c.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' \
	    '{"allowedDomains": ["api.example.com", "*.corp.test"], "deniedDomains": [],
	      "tlsTerminate": {"excludeDomains": ["*.corp.test"]}}' \
	    '"credentials": {"envVars": [{"name": "TOK", "mode": "mask",
	      "injectHosts": ["git.corp.test"]}]}'
	run -2 srt-policy check -s "$T/c.json"
	[[ "$output" == *'credentials.envVars[0].injectHosts[0]'*git.corp.test*excludeDomains* ]]
	TOK=x run -125 srt -s "$T/c.json" -c true
	[[ "$output" == *'credentials.envVars[0].injectHosts[0]'* ]]
	# A partial overlap is fine: the excluded host gets the sentinel.
	sed -i 's/"git.corp.test"/"git.corp.test", "api.example.com"/' "$T/c.json"
	run -2 srt-policy check -s "$T/c.json"
	sed -i 's/"\*\.corp\.test"\]}/"other.test"]}/' "$T/c.json"
	run -0 srt-policy check -s "$T/c.json"
}

@test "credentials: a masked value with no injectHosts and every allowed domain excluded is refused" {
	# reference 0.0.83: refused (srt before: accepted)
	settings "$T/c.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' \
	    '{"allowedDomains": ["api.example.com", "*.corp.test"], "deniedDomains": [],
	      "tlsTerminate": {"excludeDomains": ["api.example.com", "*.corp.test"]}}' \
	    '"credentials": {"files": [{"path": "~/.tok", "mode": "mask"}]}'
	run -2 srt-policy check -s "$T/c.json"
	[[ "$output" == *'credentials.files[0]'*'no injectHosts'*excludeDomains* ]]
	sed -i 's/"excludeDomains": \["api.example.com", /"excludeDomains": [/' "$T/c.json"
	run -0 srt-policy check -s "$T/c.json"
}

@test "credentials: a denied variable is absent inside, a denied file unreadable" {
	printf 'sekrit\n' > "$HOME/.tok"
	settings "$T/c.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' '' \
	    '"credentials": {"envVars": [{"name": "MY_TOKEN", "mode": "deny"}],
	      "files": [{"path": "~/.tok", "mode": "deny"}]}'
	MY_TOKEN=sekrit run srt -s "$T/c.json" -c 'echo "v=${MY_TOKEN-unset}"; cat ~/.tok'
	[[ "$output" == *v=unset* ]]
	[[ "$output" != *sekrit* ]]
}

@test "credentials: denied files, directories and links are unreadable; the rest is not" {
	mkdir -p "$T/c/aws"
	echo 'machine h password hunter2' > "$T/c/netrc"
	echo 'hunter2' > "$T/c/aws/credentials"
	echo 'hunter2' > "$T/c/dot-netrc"; ln -s "$T/c/dot-netrc" "$T/c/linked-netrc"
	echo control-ok > "$T/c/control"
	settings "$T/c.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}' '' \
	    "\"credentials\": {\"files\": [{\"path\": \"$T/c/netrc\", \"mode\": \"deny\"},
	      {\"path\": \"$T/c/aws\", \"mode\": \"deny\"},
	      {\"path\": \"$T/c/linked-netrc\", \"mode\": \"deny\"}],
	      \"envVars\": [{\"name\": \"SRT_T_SECRET\", \"mode\": \"deny\"}]}"
	SRT_T_SECRET=s SRT_T_VISIBLE=visible run srt -s "$T/c.json" -c "
		cat $T/c/netrc $T/c/aws/credentials $T/c/linked-netrc $T/c/dot-netrc
		cat $T/c/control; printenv SRT_T_VISIBLE; printenv SRT_T_SECRET || echo unset"
	[[ "$output" != *hunter2* ]]
	[[ "$output" == *control-ok*visible*unset* ]]
}

# --- filesystem: allowRead inside denyRead, and the mount order ------------------------

@test "allowRead: a write path inside an allowRead path inside a denyRead stays writable" {
	# reference 0.0.83: "Read-only file system" (fixed later in the reference);
	# srt before: the same
	mkdir -p "$T/B/project/state" "$T/B/other"
	echo hidden > "$T/B/other/f"; echo seen > "$T/B/project/f"
	settings "$T/s.json" "{\"denyRead\": [\"$T/B\"], \"allowRead\": [\"$T/B/project\"],
	    \"allowWrite\": [\"$T/B/project/state\"], \"denyWrite\": []}"
	run -0 srt -s "$T/s.json" -c "echo ok > $T/B/project/state/probe; cat $T/B/project/f"
	[ "$output" = seen ]
	[ "$(cat "$T/B/project/state/probe")" = ok ]
	run srt -s "$T/s.json" -c "cat $T/B/other/f"
	[ "$status" -ne 0 ]
	[[ "$output" != *hidden* ]]
	run srt -s "$T/s.json" -c "touch $T/B/project/new"
	[ "$status" -ne 0 ]
	[ ! -e "$T/B/project/new" ]
}

@test "allowRead: a directory re-opened under a denied home is readable, its siblings not" {
	mkdir -p "$HOME/secret" "$HOME/tools"
	echo s > "$HOME/secret/k"; echo t > "$HOME/tools/t"
	settings "$T/s.json" '{"denyRead": ["~"], "allowRead": ["~/tools"], "allowWrite": [], "denyWrite": []}'
	run -0 srt -s "$T/s.json" -c 'cat ~/tools/t'
	[ "$output" = t ]
	run srt -s "$T/s.json" -c 'cat ~/secret/k'
	[ "$status" -ne 0 ]
	[[ "$output" != s* ]]
}

# --- path normalisation ---------------------------------------------------------------

@test "paths: ~, a trailing slash, . and .. in entries name the same place" {
	mkdir -p "$HOME/d" "$T/ws/w"
	echo s > "$HOME/d/f"
	settings "$T/s.json" '{"denyRead": ["~/x/../d/"], "allowWrite": ["./w/."], "denyWrite": []}'
	run srt -s "$T/s.json" -c "cat $HOME/d/f"
	[ "$status" -ne 0 ]
	run -0 srt -s "$T/s.json" -c "echo y > $T/ws/w/out"
	[ "$(cat "$T/ws/w/out")" = y ]
}

# --- symlinked deny paths -------------------------------------------------------------

@test "symlinks: a denyRead entry that is a link hides what it points to, by both names" {
	mkdir -p "$T/real"
	echo s > "$T/real/f"
	ln -s "$T/real" "$T/link"
	settings "$T/s.json" "{\"denyRead\": [\"$T/link\"], \"allowWrite\": [], \"denyWrite\": []}"
	run srt -s "$T/s.json" -c "cat $T/link/f"
	[[ "$output" != s* ]]
	run srt -s "$T/s.json" -c "cat $T/real/f"
	[[ "$output" != s* ]]
}

@test "symlinks: a denyWrite link inside allowWrite protects its target" {
	mkdir -p "$T/ws/w/real"
	ln -s real "$T/ws/w/link"
	settings "$T/s.json" "{\"denyRead\": [], \"allowWrite\": [\"$T/ws/w\"], \"denyWrite\": [\"$T/ws/w/link\"]}"
	run srt -s "$T/s.json" -c "echo x > $T/ws/w/real/f"
	[ "$status" -ne 0 ]
	[ ! -e "$T/ws/w/real/f" ]
}

@test "symlinks: a .claude that links to ../dotfiles: the run starts, writes through it are refused" {
	local area=$T/area
	mkdir -p "$area/proj" "$area/dotfiles/claude/commands"
	ln -s ../dotfiles/claude "$area/proj/.claude"
	settings "$T/s.json" "{\"denyRead\": [], \"allowWrite\": [\"$area\"],
	    \"denyWrite\": [\"$area/proj/.claude/commands\"]}"
	cd "$area/proj"
	run -0 srt -s "$T/s.json" -c 'echo started'
	[ "$output" = started ]
	run srt -s "$T/s.json" -c "echo evil > $area/proj/.claude/commands/evil.md"
	[ "$status" -ne 0 ] && [ ! -e "$area/dotfiles/claude/commands/evil.md" ]
	run -0 srt -s "$T/s.json" -c "echo ok > $area/proj/ok.txt"
	[ -f "$area/proj/ok.txt" ]
}

@test "symlinks: a .claude link cycle does not leave .claude/commands plantable" {
	local area=$T/area
	mkdir -p "$area/proj"
	ln -s "$area/proj/.claude-x" "$area/proj/.claude"
	ln -s "$area/proj/.claude" "$area/proj/.claude-x"
	settings "$T/s.json" "{\"denyRead\": [], \"allowWrite\": [\"$area\"],
	    \"denyWrite\": [\"$area/proj/.claude/commands\"]}"
	cd "$area/proj"
	run srt -s "$T/s.json" -c 'rm -f .claude && mkdir -p .claude/commands && echo planted > .claude/commands/planted.md'
	[ "$status" -ne 0 ]
	[ ! -e "$area/proj/.claude/commands/planted.md" ]
}

@test "symlinks: a dangling denyWrite link: writing through it does not make its target" {
	local area=$T/area
	mkdir -p "$area/proj"
	ln -s "$area/nowhere.json" "$area/proj/.mcp.json"
	settings "$T/s.json" "{\"denyRead\": [], \"allowWrite\": [\"$area\"],
	    \"denyWrite\": [\"$area/proj/.mcp.json\"]}"
	cd "$area/proj"
	run srt -s "$T/s.json" -c 'echo x > .mcp.json'
	[ "$status" -ne 0 ]
	[ ! -e "$area/nowhere.json" ]
}

# --- filesystem disabled --------------------------------------------------------------

@test "filesystem.disabled: writes anywhere the user can, the network still filtered" {
	printf '{"filesystem": {"disabled": true, "denyRead": [], "allowWrite": [], "denyWrite": []}, "network": {"allowedDomains": [], "deniedDomains": []}}\n' > "$T/s.json"
	run -0 srt -s "$T/s.json" -c "echo y > $HOME/outside"
	[ "$(cat "$HOME/outside")" = y ]
	run srt -s "$T/s.json" -c 'curl -fsS -o /dev/null -m 5 http://blocked.invalid/'
	[ "$status" -ne 0 ]
}

@test "filesystem.disabled: denyRead is ignored too; without disabled the same write fails" {
	mkdir -p "$T/d"; echo readable > "$T/d/r"
	printf '{"filesystem": {"disabled": true, "denyRead": ["%s"], "allowWrite": ["/nonexistent-w"], "denyWrite": []}, "network": {"allowedDomains": [], "deniedDomains": []}}\n' "$T/d" > "$T/s.json"
	run -0 srt -s "$T/s.json" -c "cat $T/d/r; echo w > $T/d/w"
	[ "$output" = readable ] && [ -f "$T/d/w" ]
	sed -i 's/"disabled": true/"disabled": false/; s|"denyRead": \["[^"]*"\]|"denyRead": []|' "$T/s.json"
	run srt -s "$T/s.json" -c "echo w > $T/d/w2"
	[ "$status" -ne 0 ] && [ ! -e "$T/d/w2" ]
}

# --- sandbox integration ----------------------------------------------------------------

@test "integration: writes outside allowWrite fail, inside succeed; TMPDIR is writable" {
	mkdir -p "$T/ws/w"
	settings "$T/s.json" "{\"denyRead\": [], \"allowWrite\": [\"$T/ws/w\"], \"denyWrite\": []}"
	run -0 srt -s "$T/s.json" -c "echo a > $T/ws/w/in; echo b > \"\$TMPDIR/t\"; cat \"\$TMPDIR/t\""
	[ "$output" = b ]
	run srt -s "$T/s.json" -c "echo a > $T/ws/out"
	[ "$status" -ne 0 ]
	[ ! -e "$T/ws/out" ]
	[[ "$output" == *"deny file-write $T/ws/out"* ]]
}

@test "integration: the network is the proxies' only: a direct connection fails, a denied host is reported" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	run srt -s "$T/s.json" -c 'curl -sS --noproxy "*" -m 5 http://198.18.0.1/'
	[ "$status" -ne 0 ]
	run srt -s "$T/s.json" -c 'curl -fsS -m 5 http://blocked.invalid/'
	[ "$status" -ne 0 ]
	[[ "$output" == *"deny network-outbound blocked.invalid:80"* ]]
	run srt -s "$T/s.json" -c 'echo "$HTTP_PROXY $SANDBOX_RUNTIME"'
	[[ "$output" == "http://localhost:"*" 1"* ]]
}

@test "integration: the sandbox has its own processes: the host's are not visible" {
	settings "$T/s.json" '{"denyRead": [], "allowWrite": [], "denyWrite": []}'
	run -0 srt -s "$T/s.json" -c "kill -0 $$ 2>/dev/null && echo seen || echo unseen"
	[ "$output" = unseen ]
}
