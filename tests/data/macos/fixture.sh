#!/bin/sh
# Build the tree the macOS profile goldens were generated in, under $1 (made of
# [A-Za-z0-9/_-] and not a link, so that its spelling is its real path):
#   home/          HOME
#   proj/          the usual cwd
#   "[WIP] dir"/   a directory whose name holds glob characters (also a cwd)
# Links, names with glob characters and existing or missing paths are what the profile
# builder looks at on disk.
set -eu
r=$1
mkdir -p "$r/home/.ssh" "$r/home/.aws" "$r/home/.npm/_logs" "$r/home/.config/app" \
    "$r/home/out" "$r/home/sock"
: > "$r/home/.ssh/id_rsa"
: > "$r/home/.aws/credentials"
ln -s ../proj "$r/home/link-to-proj"
mkdir -p "$r/proj/src/lib" "$r/proj/secrets/public" "$r/proj/build" "$r/proj/.git/hooks" \
    "$r/proj/pkgs" "$r/proj/[WIP] dir/notes" "$r/proj/a[b/c]d" "$r/proj/data"
: > "$r/proj/.env"
: > "$r/proj/.git/config"
: > "$r/proj/secrets/key.pem"
: > "$r/proj/secrets/public/ca.pem"
: > "$r/proj/src/a.ts"
: > "$r/proj/src/lib/b.ts"
: > "$r/proj/[WIP] dir/notes/todo.md"
ln -s ../home/.ssh "$r/proj/linkdir"
ln -s /nonexistent-srt-target "$r/proj/dangling"
for p in alpha beta gamma delta epsilon; do
	mkdir -p "$r/proj/pkgs/$p"
done
mkdir -p "$r/[WIP] dir/sub" "$r/other"
: > "$r/other/file"
