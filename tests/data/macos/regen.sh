#!/bin/sh
# Generate the reference's macOS profile for every case in ./cases, in a fixture tree
# (fixture.sh) under a fresh /tmp/srtmacXXXXXX, with the tree's path written @ROOT@ and
# the log tag @TAG@.
#
#   regen.sh REFDIR            rewrite the goldens NAME.sb
#   regen.sh --check REFDIR    compare what the reference prints with the goldens
#
# REFDIR: the installed reference package (node_modules/@anthropic-ai/sandbox-runtime).
# Needs node. Only the outputs are committed, never the reference's code.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi
ref=${1:?usage: regen.sh [--check] REFDIR}
root=$(mktemp -d /tmp/srtmacXXXXXX)
trap 'rm -rf "$root"' EXIT
"$here/fixture.sh" "$root"
mkdir "$root/settings"
status=0
grep -v '^#' "$here/cases" | while read -r name cwd; do
	[ -n "$name" ] || continue
	sed "s|@ROOT@|$root|g" "$here/$name.json" > "$root/settings/$name.json"
	HOME="$root/home" node "$here/gen-profile.mjs" "$ref" "$root/settings/$name.json" \
	    "$root/$cwd" "$root" > "$root/$name.sb"
	if [ $check = 1 ]; then
		if ! cmp -s "$root/$name.sb" "$here/$name.sb"; then
			echo "regen: $name: the reference's profile differs from $name.sb" >&2
			diff "$here/$name.sb" "$root/$name.sb" >&2 || true
			exit 1
		fi
	else
		cp "$root/$name.sb" "$here/$name.sb"
	fi
done || status=1
exit $status
