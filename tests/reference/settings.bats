#!/usr/bin/env bats
# srt: every settings file the reference runs on Linux runs under srt (issue 12 item 6).
# Each case runs under srt and, when it is installed, under the reference tool, and the
# two must give the same answers (as in tests/launch/fs.bats), except where SPEC §3
# says srt differs on purpose: unknown keys are errors, and a masked credential's extract
# pattern that srt cannot run as a POSIX expression is refused.
load ../helpers
bats_require_minimum_version 1.5.0

REF_PKG=${SRT_REF_PKG:-$BATS_TEST_DIRNAME/../../build/ref/node_modules/@anthropic-ai/sandbox-runtime}
REF_CLI=${SRT_REF_CLI:-$REF_PKG/dist/cli.js}

setup() {
	srt_setup
	export TMPDIR="$T/tmp"
	mkdir -p "$TMPDIR"
	HOMEDIR="$T/home"
	mkdir -p "$HOMEDIR/.aws/sub" "$HOMEDIR/.npm/_logs" "$HOMEDIR/.claude/debug" \
	    "$HOMEDIR/keys" "$T/ws"
	echo secret >"$HOMEDIR/.aws/credentials"
	echo conf >"$HOMEDIR/.aws/config"
	echo token >"$HOMEDIR/.netrc"
	echo a >"$HOMEDIR/keys/a.pem"
	echo c >"$HOMEDIR/keys/c.txt"
	echo f >"$T/ws/f"
	cd "$T/ws" || return 1
}

teardown() {
	cd /
	srt_teardown
}

have_ref() {
	[ -f "$REF_CLI" ] && command -v node >/dev/null && command -v rg >/dev/null &&
	    command -v socat >/dev/null
}

# outside_tmp PROGRAM: where the scripts below, which mount a /tmp of their own over the
# host's, reach PROGRAM: through the host's /tmp, which they first mount at /mnt/host-tmp,
# when PROGRAM lives under it (a checkout in /tmp), else where it is. Only its directory
# is resolved: srt is a link to srt-launch, and takes the reference's flags by its name.
outside_tmp() {
	local p
	p=$(cd -- "$(dirname -- "$1")" && pwd -P)/$(basename -- "$1") || return 1
	case $p in
	/tmp/*) echo "/mnt/host-tmp/${p#/tmp/}" ;;
	*) echo "$p" ;;
	esac
}

# settings JSON with these pieces: NETWORK-EXTRA FILESYSTEM-EXTRA ROOT-EXTRA (JSON members,
# each starting with ", " when given); a member given again replaces the default one, so
# that no key appears twice.
doc() {
	jq -cn --argjson n "{${1#, }}" --argjson f "{${2#, }}" --argjson r "{${3#, }}" \
	    '{network: ({allowedDomains: [], deniedDomains: []} + $n),
	      filesystem: ({denyRead: [], allowWrite: [], denyWrite: []} + $f)} + $r'
}

# The probe: one "OP:PATH RESULT" line per operation (r read, w append, e the value of an
# environment variable or "unset").
PROBE='for op in "$@"; do
	k=${op%%:*}; p=${op#*:}
	case $k in
	r) v=$(cat "$p" 2>/dev/null) && r="ok:${#v}" || r=no ;;
	w) (echo x >> "$p") 2>/dev/null && r=ok || r=no ;;
	e) r=$(printenv "$p" || echo unset) ;;
	esac
	echo "$op $r"
done'

# run_tool srt|ref SETTINGS OPS...: the probe inside, from $T/ws, with HOME=$HOMEDIR and
# two variables set: GH_TOKEN (a credential) and KEEP.
run_tool() {
	local tool=$1 q="" o
	printf '%s\n' "$2" >"$T/s.json"
	shift 2
	for o in "$@"; do q="$q '$o'"; done
	if [ "$tool" = srt ]; then
		HOME="$HOMEDIR" GH_TOKEN=ghp_x KEEP=1 srt -s "$T/s.json" -c "set -- $q; $PROBE" \
		    2>"$T/err"
	else
		HOME="$HOMEDIR" GH_TOKEN=ghp_x KEEP=1 node "$REF_CLI" --settings "$T/s.json" \
		    -c "set -- $q; $PROBE" 2>"$T/err"
	fi
}

# same SETTINGS EXPECTED OPS...: srt gives EXPECTED (lines, "\n"-joined), and so does the
# reference when it is installed.
same() {
	local s=$1 want=$2 a b
	shift 2
	a=$(run_tool srt "$s" "$@")
	if [ "$a" != "$want" ]; then
		echo "srt:"; cat "$T/err"
		diff <(echo "$want") <(echo "$a") || true
		return 1
	fi
	have_ref || return 0
	b=$(run_tool ref "$s" "$@")
	if [ "$b" != "$want" ]; then
		echo "the reference:"; cat "$T/err"
		diff <(echo "$want") <(echo "$b") || true
		return 1
	fi
}

@test "every field of the reference's schema: srt accepts what the reference accepts" {
	have_ref || skip "reference tool not installed ($REF_CLI)"
	local line name expect change out rc bad=0 n=0 nvalid=0
	# The reference's own validation over files made from its own schema, then srt's.
	node "$SRT_DATA/gen-schema-settings.mjs" "$(cd "$REF_PKG" && pwd)" --files "$T/docs"
	# One jq for the whole index (three a document took four minutes of the suite's
	# five): name, expect, change and the record, split at US (0x1f), which no field
	# holds (JSON writes control characters escaped).
	while IFS=$'\x1f' read -r name expect change line; do
		n=$((n + 1))
		rc=0
		out=$(srt-policy check -s "$T/docs/$name.json" 2>&1) || rc=$?
		if [ "$expect" = valid ]; then
			nvalid=$((nvalid + 1))
			# Refused only for a documented difference (srt-settings(5)): a field
			# not supported yet, an unknown key inside an object, mitmProxy with
			# tlsTerminate (the reference refuses the pair when it starts).
			if [ "$rc" -ne 0 ] && grep -v ': warning: ' <<<"$out" |
			    grep -v ' is not supported yet\|: unknown key\|mitmProxy and tlsTerminate cannot be used together' |
			    grep -q .; then
				echo "the reference accepts, srt refuses: $change"
				echo "$out"
				bad=1
			fi
		elif [ "$rc" -eq 0 ]; then
			echo "the reference refuses, srt accepts: $change ($(jq -c .issues <<<"$line"))"
			bad=1
		fi
	done < <(jq -r '[.name, .expect, .change, tojson] | join("\u001f")' "$T/docs/index.jsonl")
	echo "$n documents, $nvalid valid"
	[ "$n" -gt 1500 ] && [ "$nvalid" -gt 150 ]
	[ "$bad" -eq 0 ]
}

@test "the recorded schema vectors are what the installed reference says today" {
	have_ref || skip "reference tool not installed ($REF_CLI)"
	node "$SRT_DATA/gen-schema-settings.mjs" "$(cd "$REF_PKG" && pwd)" >"$T/now.jsonl"
	cmp "$T/now.jsonl" "$SRT_DATA/schema-settings.jsonl"
	node "$SRT_DATA/gen-jsregex.mjs" >"$T/re.jsonl"
	cmp "$T/re.jsonl" "$SRT_DATA/jsregex.jsonl"
}

@test "a windows block runs on Linux, with no effect" {
	local s
	s=$(doc "" "" ', "windows": {"backend": "srt-win", "sandboxUser": "sbx", "sublayerGuid": "8d4c6d3e-1f2a-4b5c-9d6e-7f8091a2b3c4", "proxyPortRange": [61000, 61009], "srtWin": {"path": "C:\\srt-win.exe"}}')
	same "$s" "$(printf 'r:f ok:1\nw:f no\ne:KEEP 1')" r:f w:f e:KEEP
	# The reference, when installed, ran last: it says nothing.
	if have_ref; then
		[ ! -s "$T/err" ] || { cat "$T/err"; false; }
	fi
	# srt says nothing of the block either: its standard error is the refused write's
	# violation (srt(1)), and only that.
	run_tool srt "$s" r:f w:f e:KEEP >/dev/null
	[ "$(cat "$T/err")" = "$(printf '<sandbox_violations>\ndeny file-write %s/ws/f (not in allowWrite)\n</sandbox_violations>' "$(cd "$T" && pwd -P)")" ] ||
	    { cat "$T/err"; false; }
}

@test "ambiguousRequestTarget (one warning line) and allowPlaintextHeaderSet (none: srt-httpd's) run" {
	local s
	s=$(doc ', "ambiguousRequestTarget": "normalize", "allowPlaintextHeaderSet": true')
	same "$s" "$(printf 'r:f ok:1\ne:KEEP 1')" r:f e:KEEP
	run_tool srt "$s" r:f >/dev/null
	[ "$(grep -c 'accepted and ignored' "$T/err")" -eq 1 ]
	grep -q '^srt: warning: .*network.ambiguousRequestTarget: accepted and ignored: it only changes what a filterRequest callback' "$T/err"
	! grep -q 'allowPlaintextHeaderSet' "$T/err" || return 1
	[ "$(wc -l <"$T/err")" -eq 1 ]
	# A value the reference refuses is refused.
	printf '%s\n' "$(doc ', "ambiguousRequestTarget": "loose"')" >"$T/bad.json"
	run -2 srt-policy check -s "$T/bad.json"
	[[ "$output" == *'network.ambiguousRequestTarget: expected "refuse", "asSpelled" or "normalize"'* ]]
}

@test "credentials envVars deny: the variable is gone, the rest stays" {
	local s
	s=$(doc "" "" ', "credentials": {"envVars": [{"name": "GH_TOKEN", "mode": "deny"}, {"name": "HTTPS_PROXY", "mode": "deny"}]}')
	same "$s" "$(printf 'e:GH_TOKEN unset\ne:KEEP 1')" e:GH_TOKEN e:KEEP
	# srt's own proxy variable survives a deny of that name (the reference's does too).
	run_tool srt "$s" e:HTTPS_PROXY >"$T/out"
	grep -q '^e:HTTPS_PROXY http://localhost:3128$' "$T/out"
	# Without the entry the variable is there (the probe can fail).
	same "$(doc)" "$(printf 'e:GH_TOKEN ghp_x')" e:GH_TOKEN
}

@test "credentials envVars deny: an inherited JAVA_TOOL_OPTIONS is not carried over" {
	local s out
	s=$(doc "" "" ', "credentials": {"envVars": [{"name": "JAVA_TOOL_OPTIONS", "mode": "deny"}]}')
	printf '%s\n' "$s" >"$T/s.json"
	out=$(JAVA_TOOL_OPTIONS=-Dsecret=1 srt -s "$T/s.json" -c 'printenv JAVA_TOOL_OPTIONS')
	[[ "$out" != *secret* && "$out" == *-Dhttp.proxyHost=localhost* ]]
	printf '%s\n' "$(doc)" >"$T/s.json"
	out=$(JAVA_TOOL_OPTIONS=-Dsecret=1 srt -s "$T/s.json" -c 'printenv JAVA_TOOL_OPTIONS')
	[[ "$out" == -Dsecret=1\ * ]]
	if have_ref; then
		printf '%s\n' "$s" >"$T/s.json"
		out=$(JAVA_TOOL_OPTIONS=-Dsecret=1 node "$REF_CLI" --settings "$T/s.json" \
		    -c 'printenv JAVA_TOOL_OPTIONS' 2>/dev/null)
		[[ "$out" != *secret* ]]
	fi
}

@test "credentials files deny: unreadable like denyRead, globs too, with no exception" {
	local s
	# A directory (allowRead and allowWrite inside it lift nothing), a file an allowRead
	# names, a glob; what they do not name stays readable.
	s=$(doc "" ", \"allowRead\": [\"~/.aws/config\", \"~/.netrc\"], \"allowWrite\": [\"$T/ws\", \"~/.aws/sub\"]" \
	    ', "credentials": {"files": [{"path": "~/.aws", "mode": "deny"}, {"path": "~/.netrc", "mode": "deny"}, {"path": "~/keys/*.pem", "mode": "deny"}]}')
	same "$s" "$(printf '%s\n' 'r:../home/.aws/credentials no' 'r:../home/.aws/config no' \
	    'w:../home/.aws/sub/x no' 'r:../home/.netrc no' 'r:../home/keys/a.pem no' \
	    'r:../home/keys/c.txt ok:1' 'w:f ok')" \
	    r:../home/.aws/credentials r:../home/.aws/config w:../home/.aws/sub/x \
	    r:../home/.netrc r:../home/keys/a.pem r:../home/keys/c.txt w:f
	# Above another read deny, still nothing of it comes back (f anew: both wrote to it).
	echo f >"$T/ws/f"
	s=$(doc "" ', "denyRead": ["~"], "allowRead": ["~/.aws"]' \
	    ', "credentials": {"files": [{"path": "~/.aws", "mode": "deny"}]}')
	same "$s" "$(printf '%s\n' 'r:../home/.aws/config no' 'r:f ok:1')" \
	    r:../home/.aws/config r:f
	# The same allowRead re-opens a plain denyRead (the probe can fail).
	s=$(doc "" ', "denyRead": ["~/.aws"], "allowRead": ["~/.aws/config"]')
	same "$s" "$(printf '%s\n' 'r:../home/.aws/config ok:4' 'r:../home/.aws/credentials no')" \
	    r:../home/.aws/config r:../home/.aws/credentials
}

@test "credentials under filesystem.disabled: files readable, variables still removed" {
	local s
	s=$(doc "" ', "disabled": true' ', "credentials": {"files": [{"path": "~/.netrc", "mode": "deny"}], "envVars": [{"name": "GH_TOKEN", "mode": "deny"}]}')
	same "$s" "$(printf '%s\n' 'r:../home/.netrc ok:5' 'e:GH_TOKEN unset')" \
	    r:../home/.netrc e:GH_TOKEN
}

@test "credentials mask: the variable holds a sentinel, as in the reference" {
	local s
	s=$(doc ', "allowedDomains": ["example.com"]' "" ', "credentials": {"envVars": [{"name": "GH_TOKEN", "mode": "mask"}], "allowPlaintextInject": true}')
	printf '%s\n' "$s" >"$T/s.json"
	run -0 env GH_TOKEN=ghp_x srt -s "$T/s.json" -c 'printenv GH_TOKEN'
	[[ "$output" == fake_value_* && "$output" != *ghp_x* ]]
	if have_ref; then
		run -0 env GH_TOKEN=ghp_x node "$REF_CLI" --settings "$T/s.json" -c 'printenv GH_TOKEN'
		[[ "$output" == fake_value_* ]]
	fi
	# Both refuse a mask with no way back into requests.
	s=$(doc ', "allowedDomains": ["example.com"]' "" ', "credentials": {"envVars": [{"name": "GH_TOKEN", "mode": "mask"}]}')
	printf '%s\n' "$s" >"$T/s.json"
	run -125 srt -s "$T/s.json" -c true
	[[ "$output" == *'credentials: masked credentials need a way back into requests'* ]]
	if have_ref; then
		run ! node "$REF_CLI" --settings "$T/s.json" -c true
		[[ "$output" == *'Credential masking requires network.tlsTerminate'* ]]
	fi
}

@test "credentials: a variable both masked and denied is gone, sentinel and all" {
	local s
	s=$(doc ', "allowedDomains": ["example.com"]' "" ', "credentials": {"envVars": [{"name": "GH_TOKEN", "mode": "mask"}, {"name": "GH_TOKEN", "mode": "deny"}], "allowPlaintextInject": true}')
	printf '%s\n' "$s" >"$T/s.json"
	run -0 env GH_TOKEN=ghp_x KEEP=1 srt -s "$T/s.json" -c 'printenv GH_TOKEN; echo "rc=$? KEEP=$KEEP"'
	[ "$output" = "rc=1 KEEP=1" ]
}

@test "SRT_DEBUG set to anything but empty is -d" {
	printf '%s\n' "$(doc)" >"$T/s.json"
	run -0 --separate-stderr env SRT_DEBUG=0 srt -s "$T/s.json" -c true
	[[ "$stderr" == *'srt: debug: '* ]]
	run -0 --separate-stderr env SRT_DEBUG= srt -s "$T/s.json" -c true
	[[ "$stderr" != *'debug'* ]]
	run -0 --separate-stderr env -u SRT_DEBUG srt -s "$T/s.json" -c true
	[[ "$stderr" != *'debug'* ]]
	if have_ref; then
		run -0 --separate-stderr env SRT_DEBUG=0 node "$REF_CLI" --settings "$T/s.json" -c true
		[[ "$stderr" == *'[SandboxDebug]'* ]]
		run -0 --separate-stderr env SRT_DEBUG= node "$REF_CLI" --settings "$T/s.json" -c true
		[[ "$stderr" != *'[SandboxDebug]'* ]]
	fi
}

@test "the reference's default writes: ~/.npm/_logs and ~/.claude/debug, unless read-denied" {
	same "$(doc)" "$(printf '%s\n' 'w:../home/.npm/_logs/l ok' 'w:../home/.claude/debug/d ok' 'w:../home/x no')" \
	    w:../home/.npm/_logs/l w:../home/.claude/debug/d w:../home/x
	same "$(doc "" ', "denyRead": ["~/.claude"]')" "$(printf '%s\n' 'w:../home/.npm/_logs/l ok' 'w:../home/.claude/debug/d no')" \
	    w:../home/.npm/_logs/l w:../home/.claude/debug/d
	same "$(doc "" ', "denyRead": ["~/.claude"], "allowRead": ["~/.claude/debug"]')" \
	    "$(printf '%s\n' 'w:../home/.claude/debug/d ok')" w:../home/.claude/debug/d
	same "$(doc "" ', "allowRead": ["~/.npm/_logs"]' ', "credentials": {"files": [{"path": "~/.npm", "mode": "deny"}]}')" \
	    "$(printf '%s\n' 'w:../home/.npm/_logs/l no' 'w:../home/.claude/debug/d ok')" \
	    w:../home/.npm/_logs/l w:../home/.claude/debug/d
}

@test "the reference's TMPDIR, /tmp/claude, is writable when it exists" {
	[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null || skip "needs root and unshare"
	printf '%s\n' "$(doc)" >"$T/s.json"
	# A /tmp of its own in a private mount namespace, the test's tree seen at /mnt and the
	# host's /tmp at /mnt/host-tmp (for programs there): the host's /tmp is not touched.
	mkdir "$T/host-tmp"
	local script='mount --bind "$0" /mnt && mount --bind /tmp /mnt/host-tmp &&
	    mount -t tmpfs tmpfs /tmp && mkdir /tmp/claude /tmp/other /tmp/t && cd / || exit 1
	    "$@" -c "echo x > /tmp/claude/f && echo claude-ok; (echo x > /tmp/other/f) 2>/dev/null && echo other-ok; true"'
	# srt's stderr (its violation block: the write to /tmp/other) goes to a file.
	run -0 env TMPDIR=/tmp/t unshare -m --propagation private sh -c "$script 2>/mnt/err" \
	    "$T" "$(outside_tmp "$SRT_BIN/srt")" -s /mnt/s.json
	[ "$output" = claude-ok ]
	grep -q "deny file-write /tmp/other/f (not in allowWrite)" "$T/err"
	if have_ref; then
		run -0 env TMPDIR=/tmp/t unshare -m --propagation private sh -c "$script" "$T" \
		    node "$(outside_tmp "$REF_CLI")" --settings /mnt/s.json
		[ "$(grep -v SandboxDebug <<<"$output")" = claude-ok ]
	fi
}

@test "/tmp/claude made by another user, or a link, is not writable (the reference grants it)" {
	[ "$(id -u)" -eq 0 ] && command -v unshare >/dev/null || skip "needs root and unshare"
	printf '%s\n' "$(doc)" >"$T/s.json"
	# Another user's /tmp/claude: he could swap what the command leaves there. A link
	# named /tmp/claude would widen the grant to where it points. The mounts are those of
	# the test above.
	mkdir "$T/host-tmp"
	local script='mount --bind "$0" /mnt && mount --bind /tmp /mnt/host-tmp &&
	    mount -t tmpfs tmpfs /tmp && mkdir /tmp/claude /tmp/mine /tmp/t &&
	    chown 65534 /tmp/claude && cd / || exit 1
	    "$@" -c "(echo x > /tmp/claude/f) 2>/dev/null && echo claude-ok; true" 2>/mnt/err1
	    rmdir /tmp/claude && ln -s /tmp/mine /tmp/claude &&
	    "$@" -c "(echo x > /tmp/claude/f) 2>/dev/null && echo link-ok; true" 2>/mnt/err2
	    chown -h 0 /tmp/claude; ls /tmp/mine'
	run -0 env TMPDIR=/tmp/t unshare -m --propagation private sh -c "$script" "$T" \
	    "$(outside_tmp "$SRT_BIN/srt")" -s /mnt/s.json
	[ -z "$output" ]
	# each refusal is the policy's, and srt says so
	grep -q "deny file-write /tmp/claude/f (not in allowWrite)" "$T/err1"
	grep -q "deny file-write /tmp/mine/f (not in allowWrite)\|deny file-write /tmp/claude/f" "$T/err2"
}
