#!/usr/bin/env bats
# The write-guard attacks (35-38) under the reference tool: which of them it survives,
# compared with what was recorded for its version 0.0.83 (tests/data/
# guard-reference-0.0.83.tsv, the table in README.md). Nothing of srt's own tests
# depends on this; it records the difference the issue asks for, and fails only when
# the reference (or this machine's git, kernel) behaves otherwise than recorded.
load helpers
load guard

@test "reference 0.0.83: the write-guard attacks it survives, as recorded" {
	[ -f "$REF_CLI" ] || skip "reference tool not installed ($REF_CLI)"
	command -v node >/dev/null && command -v rg >/dev/null && command -v socat >/dev/null ||
		skip "the reference tool needs node, rg and socat"
	local pkg version
	pkg=$(dirname "$(dirname "$REF_CLI")")/package.json
	version=$(sed -n 's/^ *"version": *"\([^"]*\)".*/\1/p' "$pkg")
	[ "$version" = 0.0.83 ] || skip "recorded for 0.0.83, installed: ${version:-unknown}"
	# What the reference does does not depend on how srt was built.
	[ "$(basename "$SRT_BUILD")" != san ] || skip "the reference's results were taken in the plain build's run"
	run "$SECDIR/guard-results" ref
	[ "$status" -eq 0 ]
	diff <(grep -v '^#' "$SECDIR/../data/guard-reference-0.0.83.tsv") <(printf '%s\n' "$output")
}
