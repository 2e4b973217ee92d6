#!/usr/bin/env bats
# The Debian packages (make deb): built once for this suite, checked with lintian, then
# unpacked with dpkg -x into a fresh root and run from there, as an ordinary user, where
# they were built to be: in a mount namespace of the test's own, the unpacked /usr/bin,
# /usr/sbin, /usr/libexec, /usr/share/man and /usr/share/doc are laid over the system's
# (read-only overlays), so the compiled-in /usr/libexec/srt is the package's. The
# libraries come from the system, which is checked to satisfy the package's dependencies
# first. Nothing is installed into the system itself, and no maintainer script runs.
load ../helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# Why the whole suite skips, or empty. (A skip in setup_file is a failure to this bats:
# each test skips in setup instead.)
pkg_skip_reason() {
	if [ "${SRT_BUILD##*/}" = san ]; then
		echo "the package is built by make check, not again under SAN=1"
	elif ! command -v dpkg-buildpackage >/dev/null; then
		echo "dpkg-buildpackage is missing (dpkg-dev; scripts/deps installs it)"
	elif ! command -v dh >/dev/null; then
		echo "dh is missing (debhelper; scripts/deps installs it)"
	fi
}

setup_file() {
	export SRT_PKG_SKIP
	SRT_PKG_SKIP=$(pkg_skip_reason)
	[ -z "$SRT_PKG_SKIP" ] || return 0
	export PT
	PT=$(mktemp -d "${BATS_TMPDIR:-/tmp}/srt-pkg.XXXXXX")
	chmod 755 "$PT"
	# SRT_APPARMOR=yes: with the AppArmor profile whatever this release's AppArmor, so
	# that the profile's packaging is checked too (debian/rules).
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ROOT" deb \
	    DEBDIR="$PT/deb" SRT_APPARMOR=yes >"$PT/build.log" 2>&1 ||
	    { tail -40 "$PT/build.log" | sed 's/^/# /' >&3; return 1; }
	DEB=$(ls "$PT"/deb/srt_*.deb)
	export DEB
	mkdir "$PT/root"
	dpkg -x "$DEB" "$PT/root"
	if [ "$(id -u)" -eq 0 ] && command -v useradd >/dev/null; then
		export SRT_TUSER="srtp$$${RANDOM}"
		useradd -M -N -d /nonexistent -s /bin/sh "$SRT_TUSER"
	fi
}

teardown_file() {
	[ -n "${SRT_TUSER:-}" ] && pkill -KILL -u "$SRT_TUSER" 2>/dev/null
	[ -n "${SRT_TUSER:-}" ] && userdel "$SRT_TUSER" 2>/dev/null
	[ -n "${PT:-}" ] && rm -rf "$PT"
	return 0
}

setup() {
	[ -z "$SRT_PKG_SKIP" ] || skip "$SRT_PKG_SKIP"
	srt_setup
	chmod 755 "$T"
	mkdir -p "$T/ws" "$T/home" "$T/tmp"
	write_settings "$T/s.json"
	[ -n "${SRT_TUSER:-}" ] && chown -R "$SRT_TUSER" "$T"
	return 0
}

teardown() {
	srt_teardown
}

# What installed needs (called by the test itself: a skip inside "run" would not skip).
need_installed() {
	[ -n "${SRT_TUSER:-}" ] || skip "needs root to make a user and a mount namespace"
	command -v unshare >/dev/null && command -v setpriv >/dev/null ||
	    skip "needs unshare and setpriv (util-linux)"
	grep -qw overlay /proc/filesystems || skip "needs overlayfs"
}

# Run "$@" as the test user, in a mount namespace where the unpacked package lies over
# /usr; XPATH, when set, goes before PATH. Standard output and error are the caller's.
installed() {
	cat > "$T/enter" <<'SH'
set -e
for d in bin sbin libexec share/man share/doc; do
	mount -t overlay srt-pkg -o "lowerdir=$PT/root/usr/$d:/usr/$d" "/usr/$d"
done
cd "$T/ws"
exec setpriv --reuid="$SRT_TUSER" --regid=nogroup --clear-groups -- \
    env HOME="$T/home" TMPDIR="$T/tmp" PATH="${XPATH:-}/usr/bin:/bin" "$@"
SH
	T="$T" XPATH="${XPATH:-}" unshare -m sh "$T/enter" "$@"
}

@test "lintian: no error or warning on the .changes and its packages" {
	command -v lintian >/dev/null || skip "lintian is missing (scripts/deps installs it)"
	run lintian --fail-on error,warning -EvIL +pedantic "$PT"/deb/*.changes
	echo "$output" | grep -v '^N:' | sed 's/^/# /' >&3
	[ "$status" -eq 0 ]
	# What it checked: all three packages (srt-dbgsym is made by dh_strip).
	[ "$(ls "$PT"/deb/*.deb | wc -l)" -eq 3 ]
}

@test "the package: where each file goes, the dependencies, the AppArmor profile" {
	run dpkg-deb -c "$DEB"
	for f in usr/bin/srt-launch usr/bin/srt-policy usr/libexec/srt/srt-seccomp \
	    usr/libexec/srt/srt-httpd usr/libexec/srt/srt-socksd etc/apparmor.d/srt \
	    usr/share/man/man1/srt.1.gz usr/share/man/man8/srt-httpd.8.gz \
	    usr/share/man/man5/srt-settings.5.gz usr/share/doc/srt/examples/settings.json \
	    usr/share/doc/srt/copyright; do
		[[ "$output" == *" ./$f"* ]]
	done
	[[ "$output" == *" ./usr/bin/srt -> srt-launch"* ]]
	[[ "$output" == *" ./usr/sbin/srt-httpd -> ../libexec/srt/srt-httpd"* ]]
	[[ "$output" != *"srt-win"* ]]
	[[ "$(dpkg-deb -f "$DEB" Version)" == "$("$PT/root/usr/bin/srt-policy" -V | cut -d' ' -f2)"* ]]
	deps=$(dpkg-deb -f "$DEB" Depends)
	[[ "$deps" == *bubblewrap* ]]
	[[ "$deps" == *"libseccomp2 ("* ]]
	[[ "$deps" == *"libcjson1 ("* ]]
	[[ "$deps" == *"libc-ares2 ("* ]]
	# Every dependency is installed here, so that the unpacked programs below run with
	# what the package asks for and nothing else of the test's.
	IFS=, read -ra dep <<< "$deps"
	for d in "${dep[@]}"; do
		name=$(echo "$d" | sed 's/^ *//; s/ .*//')
		[[ "$(dpkg-query -W -f='${Status}' "$name" 2>/dev/null)" == *" installed" ]] ||
		    { echo "# not installed: $d" >&3; false; }
		if [[ "$d" == *"(>= "* ]]; then
			want=$(echo "$d" | sed 's/.*(>= *//; s/).*//')
			dpkg --compare-versions "$(dpkg-query -W -f='${Version}' "$name")" ge "$want"
		fi
	done
	# The profile is a conffile, loaded by the postinst (dh_apparmor) where AppArmor is.
	dpkg-deb -e "$DEB" "$T/ctl"
	grep -qx /etc/apparmor.d/srt "$T/ctl/conffiles"
	grep -q 'apparmor_parser -r -T -W "$APP_PROFILE"' "$T/ctl/postinst"
	cmp "$PT/root/etc/apparmor.d/srt" "$ROOT/debian/srt.apparmor"
	grep -q '^profile srt /usr/bin/srt-launch flags=(unconfined) {$' "$PT/root/etc/apparmor.d/srt"
	# srt-win: architecture-independent, the Windows program as data.
	w=$(ls "$PT"/deb/srt-win_*_all.deb)
	[ "$(dpkg-deb -f "$w" Architecture)" = all ]
	dpkg-deb -x "$w" "$T/w"
	[ "$(head -c 2 "$T/w/usr/share/srt-win/srt-win.exe")" = MZ ]
	[ -f "$T/w/usr/share/man/man1/srt-win.1.gz" ]
}

@test "installed: srt -c true, srt-policy check and man srt as an ordinary user" {
	need_installed
	run installed srt -c 'echo "in $(id -u)"; true'
	[ "$status" -eq 0 ]
	[ "$output" = "in $(id -u "$SRT_TUSER")" ]
	run installed srt -d -s "$T/s.json" -c true
	[ "$status" -eq 0 ]
	[[ "$output" == *"debug: helpers: from /usr/libexec/srt"* ]]
	run installed srt-policy check -s "$T/s.json"
	[ "$status" -eq 0 ]
	run installed srt-policy check -s /usr/share/doc/srt/examples/settings.json
	[ "$status" -eq 0 ]
	echo '{"network":{"allowedDomains":["bad domain"]}}' > "$T/bad.json"
	chmod 644 "$T/bad.json"
	run installed srt-policy check -s "$T/bad.json"
	[ "$status" -eq 2 ]
	command -v man >/dev/null || skip "man is missing (man-db; scripts/deps installs it)"
	run installed man -w srt
	[ "$status" -eq 0 ]
	[ "$output" = /usr/share/man/man1/srt.1.gz ]
	run installed env MANPAGER=cat MANWIDTH=80 man srt
	[ "$status" -eq 0 ]
	[[ "$output" == *"srt-launch(1)"* ]]
	[[ "$output" == *APPARMOR* ]]
	run installed env MANPAGER=cat man 8 srt-httpd
	[ "$status" -eq 0 ]
	[[ "$output" == *"/usr/libexec/srt/srt-httpd"* ]]
}

@test "installed: a helper on PATH ahead of the installed one is not executed" {
	need_installed
	mkdir -p "$T/fake"
	for h in srt-seccomp srt-httpd srt-socksd; do
		printf '#!/bin/sh\necho ran > "%s/ran"\nexit 99\n' "$T" > "$T/fake/$h"
		chmod 755 "$T/fake/$h"
	done
	chown -R "$SRT_TUSER" "$T/fake"
	XPATH="$T/fake:" run installed srt -d -s "$T/s.json" -c \
	    'curl -s -m 5 -o /dev/null -w "code %{http_code}\n" -x http://localhost:3128 http://denied.example/'
	[ "$status" -eq 0 ]
	[[ "$output" == *"debug: starting /usr/libexec/srt/srt-httpd"* ]]
	[[ "$output" == *"code 403"* ]]
	[[ "$output" == *"deny network-outbound denied.example:80"* ]]
	[ ! -e "$T/ran" ]
}

@test "the AppArmor profile parses with an AppArmor 4 parser" {
	# SRT_APPARMOR_PARSER and SRT_APPARMOR_BASE name a parser and its /etc/apparmor.d
	# (abi/4.0, tunables) where the system's are older or missing.
	p=${SRT_APPARMOR_PARSER:-$(command -v apparmor_parser || true)}
	base=${SRT_APPARMOR_BASE:-/etc/apparmor.d}
	[ -n "$p" ] || skip "no apparmor_parser here"
	v=$("$p" --version | sed -n '1s/.*version \([0-9.]*\).*/\1/p')
	dpkg --compare-versions "$v" ge 4.0 ||
	    skip "apparmor_parser $v predates the userns rule (4.0)"
	run "$p" --config-file=/dev/null -Q -K --base "$base" -I "$base" \
	    "$PT/root/etc/apparmor.d/srt"
	[ "$status" -eq 0 ]
	sed 's/userns,/usrns,/' "$PT/root/etc/apparmor.d/srt" > "$T/broken"
	run "$p" --config-file=/dev/null -Q -K --base "$base" -I "$base" "$T/broken"
	[ "$status" -ne 0 ]
}
