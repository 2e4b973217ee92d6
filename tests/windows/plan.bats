#!/usr/bin/env bats
# Windows: srt-policy's ACE plan (plan --target windows).
bats_require_minimum_version 1.5.0
load ../helpers

@test "plan --target windows: one ACE per line, from -s and from -p alike" {
	mkdir -p "$T/proj/.git/hooks" "$T/home/.ssh"
	: >"$T/proj/.env"
	# The repository's missing config is a mandatory deny (beyond the reference on
	# Windows), for a placeholder; its hooks are denied by the settings already.
	cat >"$T/s.json" <<JSON
{"network": {"allowedDomains": [], "deniedDomains": []},
 "filesystem": {"denyRead": ["~/.ssh"], "allowRead": [], "allowWrite": ["."],
  "denyWrite": [".env", ".git/hooks"]},
 "windows": {"proxyPortRange": [61000, 61009]}}
JSON
	HOME="$T/home" srt-policy plan --target windows -s "$T/s.json" --cwd "$T/proj" >"$T/plan"
	cat >"$T/want" <<EOT
{"ace":"allow","path":"$T/proj","rights":["modify"],"inherit":"OICI"}
{"ace":"deny","path":"$T/proj","rights":["delete"],"inherit":""}
{"ace":"deny","path":"$T/home/.ssh","rights":["read"],"inherit":"OICI"}
{"ace":"deny","path":"$T/home","rights":["delete_child"],"inherit":""}
{"ace":"deny","path":"$T/proj/.env","rights":["write"],"inherit":""}
{"ace":"deny","path":"$T/proj","rights":["delete_child"],"inherit":""}
{"ace":"deny","path":"$T/proj/.git/hooks","rights":["write"],"inherit":"OICI"}
{"ace":"deny","path":"$T/proj/.git","rights":["delete_child"],"inherit":""}
{"ace":"deny","path":"$T/proj/.git","rights":["delete"],"inherit":""}
{"ace":"deny","path":"$T/proj/.git/config","rights":["write"],"inherit":""}
EOT
	diff -u "$T/want" "$T/plan"
	srt-policy compile -s "$T/s.json" -o "$T/p.bin"
	HOME="$T/home" srt-policy plan --target windows -p "$T/p.bin" --cwd "$T/proj" |
	    diff -u "$T/want" -
}

@test "plan --target windows: a settings file in a writable path is made read-only" {
	mkdir -p "$T/proj"
	write_settings "$T/proj/s.json"
	sed -i 's/"allowWrite": \[\]/"allowWrite": ["."]/' "$T/proj/s.json"
	run srt-policy plan --target windows -s "$T/proj/s.json" --cwd "$T/proj"
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "{\"ace\":\"deny\",\"path\":\"$T/proj\",\"rights\":[\"delete\"],\"inherit\":\"\"}" ]
	[ "${lines[2]}" = "{\"ace\":\"deny\",\"path\":\"$T/proj/s.json\",\"rights\":[\"write\"],\"inherit\":\"\"}" ]
}

@test "plan --target windows: an invalid settings file is an error" {
	echo '{"network": {}}' >"$T/bad.json"
	run srt-policy plan --target windows -s "$T/bad.json"
	[ "$status" -eq 2 ]
	[[ "$output" == *"network.allowedDomains: required field is missing"* ]]
}
