#!/usr/bin/env bats
# The manual pages: each passes mandoc -Tlint -Wwarning (as make lint-man runs it), so a
# broken page fails make check. SRT_MAN_DIR names another directory of pages.
load ../helpers

@test "every man page is clean under mandoc -Tlint -Wwarning" {
	dir=${SRT_MAN_DIR:-$BATS_TEST_DIRNAME/../../man}
	n=0 bad=0
	for m in "$dir"/*.[158]; do
		[ -e "$m" ] || continue
		n=$((n + 1))
		out=$(mandoc -Tlint -Wwarning "$m" 2>&1) && [ -z "$out" ] && continue
		echo "${m##*/}: ${out:-mandoc failed}"
		bad=$((bad + 1))
	done
	echo "$n pages, $bad with warnings"
	[ "$n" -ge 7 ]
	[ "$bad" -eq 0 ]
}
