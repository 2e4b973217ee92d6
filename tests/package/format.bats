#!/usr/bin/env bats
# The C sources are laid out as .clang-format says (issue #30): make check-format names
# every tracked C file that make format would change. clang-format 14 is the version the
# layout was written with (scripts/deps installs it); another lays some lines out
# otherwise, so the check needs that one, and a git checkout to list the sources.
load ../helpers

@test "every tracked C file is laid out as make format lays it out" {
	local top="$BATS_TEST_DIRNAME/../.."
	command -v clang-format-14 >/dev/null || skip "no clang-format-14 (scripts/deps installs it)"
	git -C "$top" rev-parse --git-dir >/dev/null 2>&1 || skip "not a git checkout"
	run make -C "$top" --no-print-directory check-format
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "check-format names a file laid out otherwise and fails" {
	local top="$BATS_TEST_DIRNAME/../.." f
	command -v clang-format-14 >/dev/null || skip "no clang-format-14 (scripts/deps installs it)"
	f="$BATS_TEST_TMPDIR/bad.c"
	printf 'int\nf(void)\n{\n  return 1;   }\n' >"$f"
	run make -C "$top" --no-print-directory check-format FORMAT_SRC="$f"
	[ "$status" -ne 0 ]
	[[ "$output" == *"bad.c: not laid out as make format does"* ]]
}
