#!/usr/bin/env bats
# srt-policy: check, compile, dump, match (single and batch), plan, usage.
load ../helpers
bats_require_minimum_version 1.5.0

# A settings file with allow and deny rules, ports, a reason and an IP literal.
rich() {
	cat >"$T/s.json" <<'JSON'
{
  "network": {
    "allowedDomains": ["example.com", "*.github.com:443", "1.2.3.4", "[::1]:8080"],
    "deniedDomains": ["bad.github.com", "*:22"],
    "deniedDomainReasons": { "*:22": "ssh is not allowed here" },
    "deniedResolvedAddresses": ["10.0.0.0/8"]
  },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": ["."], "denyWrite": [] },
  "mandatoryDenySearchDepth": 5
}
JSON
}

@test "check: a valid file exits 0 and prints nothing" {
	rich
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "check: an invalid entry is reported as FILE: PATH: message, exit 2" {
	write_settings "$T/s.json" '["http://example.com"]'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == "srt-policy: $T/s.json: network.allowedDomains[0]: "* ]]
}

@test "check: every problem gets its own line" {
	write_settings "$T/s.json" '["ok.example.com", "*.com", "a/b"]' '["*example.com"]'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"network.allowedDomains[1]: "* ]]
	[[ "$output" == *"network.allowedDomains[2]: "* ]]
	[[ "$output" == *"network.deniedDomains[0]: "* ]]
	[[ "$output" != *"network.allowedDomains[0]"* ]]
}

# Issue 31: entries taken as written that would protect another path than meant.
# reference 0.0.83: accepts every one of them ($HOME/.ssh then protects <cwd>/$HOME/.ssh).
@test "check: \$-expansions, ~user and white space at either end of a path are refused by entry" {
	cat >"$T/s.json" <<'JSON'
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["~/.ssh", "$HOME/.ssh", "~user/.aws", "/etc/shadow "],
  "allowWrite": ["${PWD}"], "denyWrite": [" .env"]}}
JSON
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 5 ]
	[[ "$output" == *"$T/s.json: filesystem.denyRead[1]: \"\$HOME/.ssh\": srt expands no shell variables"*"write the path out (\"~/\" for the home directory)"* ]]
	[[ "$output" == *"filesystem.denyRead[2]: \"~user/.aws\": only \"~\" and \"~/\" name the home directory"* ]]
	[[ "$output" == *"filesystem.denyRead[3]: \"/etc/shadow \": it ends with white space"* ]]
	[[ "$output" == *"filesystem.allowWrite[0]: \"\${PWD}\": srt expands no shell variables"* ]]
	[[ "$output" == *"filesystem.denyWrite[0]: \" .env\": it starts with white space"* ]]
	[[ "$output" != *"denyRead[0]"* ]]
	# srt refuses to run under it, with the same words
	run srt -s "$T/s.json" -c true
	[ "$status" -eq 125 ]
	[[ "$output" == *"filesystem.denyRead[1]: \"\$HOME/.ssh\""* ]]
	# a name that really is spelt so is written in the literal form
	cat >"$T/s.json" <<'JSON'
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": [{"path": "$HOME", "literal": true}], "allowWrite": [],
  "denyWrite": []}}
JSON
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
}

# reference 0.0.83: accepts "*.*.example.com" (it can match only a host holding a "*").
@test "check: a \"*\" past a leading \"*.\" is refused, as srt-settings(5) says" {
	write_settings "$T/s.json" '["*.example.com"]' '["*.*.example.com"]'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == "srt-policy: $T/s.json: network.deniedDomains[0]: \"*.*.example.com\": \"*\" is allowed only as \"*.\" before a domain"* ]]
	write_settings "$T/s.json" '["*.a.*.example.com:443"]'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"network.allowedDomains[0]: "* ]]
}

@test "check: helper-only keys are accepted with a warning, unknown keys refused" {
	cat >"$T/s.json" <<'JSON'
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []},
 "ripgrep": {"command": "rg"}}
JSON
	run --separate-stderr srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	[[ "$stderr" == "srt-policy: warning: $T/s.json: ripgrep: "* ]]
	sed -i 's/"ripgrep"/"denyReads"/' "$T/s.json"
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == "srt-policy: $T/s.json: denyReads: "* ]]
}

@test "check: missing, empty and non-JSON files are errors" {
	run srt-policy check -s "$T/none.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/none.json"* ]]
	: >"$T/empty.json"
	run srt-policy check -s "$T/empty.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty"* ]]
	printf '{"network": [' >"$T/bad.json"
	run srt-policy check -s "$T/bad.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"JSON"* ]]
}

@test "check: -s defaults to ~/.srt-settings.json" {
	rich
	cp "$T/s.json" "$T/.srt-settings.json"
	HOME=$T run srt-policy check
	[ "$status" -eq 0 ]
	rm "$T/.srt-settings.json"
	HOME=$T run srt-policy check
	[ "$status" -eq 2 ]
	[[ "$output" == *"$T/.srt-settings.json"* ]]
}

@test "one rule for the home directory: a relative HOME is not used" {
	# Before, HOME=relhome made check read ./relhome/.srt-settings.json while plan
	# expanded "~" in it to the passwd entry's home.
	mkdir -p "$T/relhome"
	echo '{' >"$T/relhome/.srt-settings.json"
	pwhome=$(getent passwd "$(id -u)" | cut -d: -f6)
	cd "$T"
	HOME=relhome run srt-policy -d check
	[[ "$output" != *"relhome/.srt-settings.json"* ]]
	[[ "$output" == *"$pwhome/.srt-settings.json"* ]]
	[ -d "$pwhome" ] || skip "the passwd entry's home $pwhome does not exist"
	write_settings "$T/s.json"
	sed -i 's#"denyRead": \[\]#"denyRead": ["~"]#' "$T/s.json"
	# (--unguarded: with the guard srt-seccomp mounts the home's tmpfs, not bwrap)
	HOME=relhome run srt-policy plan --target linux --unguarded -s "$T/s.json" --shell
	[ "$status" -eq 0 ]
	[[ "$output" == *"--tmpfs $pwhome "* || "$output" == *"--tmpfs $pwhome" ]]
	[[ "$output" != *"relhome"* ]]
}

@test "-p, -s and --policy-fd load the same way in every program, with the same messages" {
	cat >"$T/bad.json" <<'JSON'
{"network": {"allowedDomains": ["http://a.example", "ok.example"], "deniedDomains": [7]},
 "filesystem": {"denyRead": [], "allowWrite": [], "denyWrite": []}}
JSON
	run --separate-stderr srt-policy check -s "$T/bad.json"
	[ "$status" -eq 2 ]
	want=$(printf '%s\n' "$stderr" | sed 's/^srt-policy: //')
	[ "$(printf '%s\n' "$want" | wc -l)" -eq 2 ]
	for p in srt-httpd srt-socksd; do
		run --separate-stderr "$p" -s "$T/bad.json" -l 127.0.0.1:1
		[ "$status" -eq 2 ]
		[ "$(printf '%s\n' "$stderr" | sed "s/^$p: //")" = "$want" ]
	done
	run --separate-stderr srt-launch -s "$T/bad.json" -- true
	[ "$status" -eq 125 ]
	[ "$(printf '%s\n' "$stderr" | sed 's/^srt-launch: //')" = "$want" ]
	# A damaged image: the same message from -p and from --policy-fd.
	write_settings "$T/s.json"
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	truncate -s 100 "$T/p.bin"
	run --separate-stderr srt-policy match -p "$T/p.bin" example.com 443
	[ "$status" -eq 2 ]
	[[ "$stderr" == "srt-policy: $T/p.bin: truncated: "* ]]
	want=${stderr#srt-policy: }
	run --separate-stderr srt-httpd -p "$T/p.bin" -l 127.0.0.1:1
	[ "$status" -eq 2 ]
	[ "${stderr#srt-httpd: }" = "$want" ]
	run --separate-stderr srt-launch -p "$T/p.bin" -- true
	[ "$status" -eq 125 ]
	[ "${stderr#srt-launch: }" = "$want" ]
	run --separate-stderr srt-httpd --policy-fd 3 -l 127.0.0.1:1 3<"$T/p.bin"
	[ "$status" -eq 2 ]
	[ "${stderr#srt-httpd: }" = "policy.bin: ${want#"$T/p.bin: "}" ]
}

@test "compile, dump, compile gives identical bytes" {
	rich
	run srt-policy compile -s "$T/s.json" -o "$T/a.bin"
	[ "$status" -eq 0 ]
	srt-policy dump -p "$T/a.bin" >"$T/dump.json"
	grep -q '"mandatoryDenySearchDepth": 5' "$T/dump.json"
	grep -q '"ssh is not allowed here"' "$T/dump.json"
	srt-policy check -s "$T/dump.json"
	srt-policy compile -s "$T/dump.json" -o "$T/b.bin"
	cmp "$T/a.bin" "$T/b.bin"
	srt-policy compile -s "$T/s.json" -o "$T/c.bin"
	cmp "$T/a.bin" "$T/c.bin"
}

@test "filesystem.denyReadHold: a boolean, true by default, kept by compile, and false tells srt-seccomp" {
	hold() {
		cat >"$T/s.json" <<JSON
{
  "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": { "denyRead": ["~/.ssh"], "allowWrite": [], "denyWrite": []$1 }
}
JSON
	}
	hold ', "denyReadHold": "no"'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 2 ]
	[ "$output" = "srt-policy: $T/s.json: filesystem.denyReadHold: expected true or false, got the string \"no\"" ]
	hold ''
	srt-policy dump -s "$T/s.json" | grep -q '"denyReadHold": true'
	srt-policy plan --target linux -s "$T/s.json" --cwd "$T" | tr '\0' '\n' >"$T/plan"
	! grep -qx -- --no-read-hold "$T/plan"
	hold ', "denyReadHold": false'
	run srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	srt-policy dump -p "$T/p.bin" | grep -q '"denyReadHold": false'
	srt-policy plan --target linux -p "$T/p.bin" --cwd "$T" | tr '\0' '\n' >"$T/plan"
	grep -qx -- --no-read-hold "$T/plan"
}

@test "compile: invalid settings write nothing" {
	write_settings "$T/s.json" '["*"]'
	run srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	[ "$status" -eq 2 ]
	[ ! -e "$T/p.bin" ]
	[ "$(ls -A "$T")" = "s.json" ]
}

@test "compile: a failed rename leaves no temp file behind" {
	rich
	mkdir -p "$T/out/p.bin/sub"     # the target is a non-empty directory: rename fails
	run srt-policy compile -s "$T/s.json" -o "$T/out/p.bin"
	[ "$status" -eq 2 ]
	[[ "$output" == "srt-policy: $T/out/p.bin: rename: "* ]]
	[ "$(ls -A "$T/out")" = "p.bin" ]
}

@test "compile: an unwritable directory is an error, nothing left behind" {
	rich
	mkdir "$T/ro"
	chmod 555 "$T/ro"
	chmod 755 "$T"
	chmod 644 "$T/s.json"
	# root ignores directory permissions: run a copy of the program as nobody
	cp "$SRT_BIN/srt-policy" "$T/srt-policy"
	run su nobody -s /bin/sh -c "'$T/srt-policy' compile -s '$T/s.json' -o '$T/ro/p.bin'"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot create a temporary file in $T/ro"* ]]
	[ -z "$(ls -A "$T/ro")" ]
	run srt-policy compile -s "$T/s.json" -o "$T/missing/p.bin"
	[ "$status" -eq 2 ]
	[ ! -e "$T/missing" ]
}

@test "compile: an existing policy is replaced atomically" {
	rich
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	ino1=$(stat -c %i "$T/p.bin")
	write_settings "$T/s2.json" '["other.example.com"]'
	srt-policy compile -s "$T/s2.json" -o "$T/p.bin"
	[ "$(stat -c %i "$T/p.bin")" != "$ino1" ]
	run srt-policy match -p "$T/p.bin" other.example.com 443
	[ "$status" -eq 0 ]
	[ "$(ls -A "$T" | sort | tr '\n' ' ')" = "p.bin s.json s2.json " ]
}

@test "match: allow and deny answers and exit codes" {
	rich
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	# each answer names the entry that decided, as the settings spell it
	run srt-policy match -p "$T/p.bin" EXAMPLE.COM. 443
	[ "$status" -eq 0 ]
	[ "$output" = 'allow (allowedDomains "example.com")' ]
	run srt-policy match -p "$T/p.bin" api.github.com 443
	[ "$status" -eq 0 ]
	[ "$output" = 'allow (allowedDomains "*.github.com:443")' ]
	run srt-policy match -p "$T/p.bin" api.github.com 80
	[ "$status" -eq 1 ]
	[ "$output" = "deny: host is not on the allow list" ]
	run srt-policy match -p "$T/p.bin" bad.github.com 443
	[ "$status" -eq 1 ]
	[ "$output" = 'deny: host is on the deny list (deniedDomains "bad.github.com")' ]
	run srt-policy match -p "$T/p.bin" example.com 22
	[ "$status" -eq 1 ]
	[ "$output" = 'deny: ssh is not allowed here (deniedDomains "*:22")' ]
	run srt-policy match -p "$T/p.bin" 'bücher.example' 443
	[ "$status" -eq 1 ]
	[ "$output" = "deny: malformed host" ]
	run srt-policy match -p "$T/p.bin" 0x01020304 80
	[ "$status" -eq 0 ]
	run srt-policy match -p "$T/p.bin" 0:0:0:0:0:0:0:1 8080
	[ "$status" -eq 0 ]
	run srt-policy match -s "$T/s.json" github.com 443
	[ "$status" -eq 1 ]
	[ "$output" = "deny: host is not on the allow list" ]
}

@test "match: a bad port is an error" {
	rich
	for port in 0 65536 x 44x -1 '' ' 80' 080000; do
		run srt-policy match -s "$T/s.json" -- example.com "$port"
		[ "$status" -eq 2 ]
		[[ "$output" == "srt-policy: match: bad port"* ]]
	done
}

@test "match: a damaged or foreign policy is refused" {
	rich
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	head -c 120 "$T/p.bin" >"$T/short.bin"
	run srt-policy match -p "$T/short.bin" example.com 443
	[ "$status" -eq 2 ]
	[[ "$output" == "srt-policy: $T/short.bin: truncated: header says "*" bytes, file has 120" ]]
	run srt-policy dump -p "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad magic"* ]]
	cp "$T/p.bin" "$T/flip.bin"
	printf 'Z' | dd of="$T/flip.bin" bs=1 seek=200 conv=notrunc 2>/dev/null
	run srt-policy match -p "$T/flip.bin" example.com 443
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad checksum"* ]]
	: >"$T/empty.bin"
	run srt-policy dump -p "$T/empty.bin"
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty"* ]]
}

@test "match -: batch mode answers one line per query, in order" {
	rich
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	printf 'example.com\t443\nbad.github.com\t443\nx.github.com\t443\nexample.com\t22\n' \
	    >"$T/q"
	run srt-policy match -p "$T/p.bin" - <"$T/q"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "allow" ]
	[ "${lines[1]}" = "deny: host is on the deny list" ]
	[ "${lines[2]}" = "allow" ]
	[ "${lines[3]}" = "deny: ssh is not allowed here" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "match -: a malformed line gets an error line and the batch goes on" {
	rich
	printf 'example.com\t443\nno-tab-here\nexample.com\t0\nexample.com\t443\r\n' >"$T/q"
	run --separate-stderr srt-policy match -s "$T/s.json" - <"$T/q"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "allow" ]
	[ "${lines[1]}" = "error: line 2: expected HOST<TAB>PORT" ]
	[[ "${lines[2]}" == "error: line 3: bad port"* ]]
	[ "${lines[3]}" = "allow" ]
	[ "${#lines[@]}" -eq 4 ]
	[[ "$stderr" == *"malformed"* ]]
}

@test "match -: 100,000 queries, one answer each" {
	rich
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	awk 'BEGIN { for (i = 0; i < 100000; i++) printf "h%d.github.com\t%d\n", i, (i % 2) ? 443 : 80 }' >"$T/q"
	srt-policy match -p "$T/p.bin" - <"$T/q" >"$T/a"
	[ "$(wc -l <"$T/a")" -eq 100000 ]
	[ "$(grep -c '^allow$' "$T/a")" -eq 50000 ]
}

@test "plan --target linux: NUL-separated bubblewrap arguments" {
	rich
	srt-policy plan --target linux -s "$T/s.json" --cwd "$T" >"$T/plan"
	tr '\0' '\n' <"$T/plan" >"$T/plan.txt"
	# The root bind is three arguments in a row.
	awk 'prev2 == "--ro-bind" && prev1 == "/" && $0 == "/" { found = 1 }
	     { prev2 = prev1; prev1 = $0 } END { exit !found }' "$T/plan.txt"
	[ "$(tail -c 1 "$T/plan" | od -An -tx1 | tr -d ' ')" = "00" ]
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	srt-policy plan --target linux -p "$T/p.bin" --cwd "$T" >"$T/plan2"
	tr '\0' '\n' <"$T/plan2" | grep -qx -- '--ro-bind'
}

@test "plan --shell: one shell-quoted line" {
	rich
	run srt-policy plan --target linux -s "$T/s.json" --cwd "$T" --shell
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *"--ro-bind / /"* ]]
	# The line is valid sh that gives back the NUL-separated words.
	srt-policy plan --target linux -s "$T/s.json" --cwd "$T" >"$T/nul"
	eval "set -- $output"
	printf '%s\0' "$@" | cmp - "$T/nul"
}

@test "plan: unknown targets are errors" {
	rich
	run srt-policy plan --target beos -s "$T/s.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown target"* ]]
}

@test "usage errors exit 2 with a usage line" {
	run srt-policy
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: srt-policy"* ]]
	run srt-policy frobnicate
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown subcommand"* ]]
	run srt-policy compile -s x.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: srt-policy compile"* ]]
	run srt-policy match -s x.json example.com
	[ "$status" -eq 2 ]
	run srt-policy match -s x.json a b c
	[ "$status" -eq 2 ]
	run srt-policy match -s x.json -p y.bin example.com 443
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot be used together"* ]]
	run srt-policy check --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option"* ]]
	run srt-policy dump
	[ "$status" -eq 2 ]
	[[ "$output" == *"-p or -s is required"* ]]
	run srt-policy dump --layers -o x.bin -s x.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"option -o does not apply here"* ]]
	run srt-policy check --layers
	[ "$status" -eq 2 ]
	[[ "$output" == *"option --layers does not apply here"* ]]
	run srt-policy plan -s x.json
	[ "$status" -eq 2 ]
	[[ "$output" == *"--target is required"* ]]
	run srt-policy check -s
	[ "$status" -eq 2 ]
	[[ "$output" == *"needs an argument"* ]]
}

@test "every program prints the one version the Makefile defines" {
	v=$(make -s -C "$BATS_TEST_DIRNAME/../.." version)
	[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	for p in srt-policy srt-httpd srt-socksd srt-launch srt srt-seccomp; do
		run "$p" -V
		[ "$status" -eq 0 ]
		[ "$output" = "$p $v" ]
	done
}

@test "-V, --version and -h" {
	run srt-policy -V
	[ "$status" -eq 0 ]
	[[ "$output" =~ ^srt-policy\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
	run srt-policy --version
	[ "$status" -eq 0 ]
	run srt-policy -h
	[ "$status" -eq 0 ]
	[[ "$output" == *"srt-policy match"* ]]
	run srt-policy match -h
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: srt-policy match"* ]]
}
