#!/usr/bin/env bats
# make install and uninstall (PREFIX, DESTDIR, BINDIR, LIBEXECDIR, SBINDIR, MANDIR), and
# where srt takes its helpers from: LIBEXECDIR when it is the installed srt (its directory
# is the BINDIR it was built for), beside itself otherwise; never through PATH
# (srt-launch(1) FILES). The Debian package's layout is tests/package/deb.bats'.
load ../helpers
bats_require_minimum_version 1.5.0

ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

# make in the source tree, on the build being tested (build/ or build/san), without the
# jobserver of a `make check` that may be running this.
mk() {
	local san=
	[ "${SRT_BUILD##*/}" = san ] && san=SAN=1
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory -C "$ROOT" \
	    BUILD="$SRT_BUILD" $san "$@"
}

# Stand-ins for the three helpers in directory $1: each notes in $T/ran that it ran (when
# it can write there) and fails.
fake_helpers() {
	local h
	mkdir -p "$1"
	for h in srt-seccomp srt-httpd srt-socksd; do
		printf '#!/bin/sh\necho "%s" >> "%s/ran"\nexit 99\n' "$1/$h" "$T" > "$1/$h"
		chmod 755 "$1/$h"
	done
}

setup() {
	srt_setup
	mkdir -p "$T/ws" "$T/tmp" "$T/home"
	write_settings "$T/s.json"
	cd "$T/ws"
	export TMPDIR="$T/tmp" HOME="$T/home"
}

teardown() {
	cd /
	srt_teardown
}

# Through the proxy to a host that is not allowed: srt-httpd must start and refuse it.
PROBE='curl -s -m 5 -o /dev/null -w "code %{http_code}\n" -x http://localhost:3128 http://denied.example/'

@test "make install: programs in BINDIR, helpers in LIBEXECDIR, links in SBINDIR; uninstall removes them" {
	run mk install DESTDIR="$T/d"
	[ "$status" -eq 0 ]
	# The build's own PREFIX: nothing is compiled again.
	[[ "$output" != *" -c -o "* ]]
	d=$T/d/usr/local
	[ -x "$d/bin/srt-launch" ]
	[ -x "$d/bin/srt-policy" ]
	[ "$(readlink "$d/bin/srt")" = srt-launch ]
	for h in srt-seccomp srt-httpd srt-socksd; do
		[ -x "$d/libexec/srt/$h" ]
		[ ! -L "$d/libexec/srt/$h" ]
		[ ! -e "$d/bin/$h" ]
	done
	cmp "$d/libexec/srt/srt-seccomp" "$SRT_BIN/srt-seccomp"
	[ "$(readlink "$d/sbin/srt-httpd")" = ../libexec/srt/srt-httpd ]
	[ "$(readlink "$d/sbin/srt-socksd")" = ../libexec/srt/srt-socksd ]
	[ -x "$d/sbin/srt-httpd" ]
	[ ! -e "$d/sbin/srt-seccomp" ]
	[ -f "$d/share/man/man1/srt.1" ]
	[ -f "$d/share/man/man1/srt-launch.1" ]
	[ -f "$d/share/man/man5/srt-settings.5" ]
	[ -f "$d/share/man/man8/srt-httpd.8" ]
	# The Windows programs are not part of it (make install-win)
	[ ! -e "$d/share/man/man1/srt-win.1" ]
	run mk uninstall DESTDIR="$T/d"
	[ "$status" -eq 0 ]
	[ -z "$(find "$T/d" ! -type d)" ]
	[ ! -e "$d/libexec/srt" ]
}

@test "make install-win: srt.exe, srt-win.exe and the proxies side by side; none without cJSON's source" {
	local w=usr/local/share/srt-win p
	for p in srt-win srt srt-httpd srt-socksd; do
		[ -f "$ROOT/build/win/$p.exe" ] || skip "build/win/$p.exe is not built (make win)"
	done
	run mk install-win DESTDIR="$T/w"
	[ "$status" -eq 0 ]
	for p in srt-win srt srt-httpd srt-socksd; do
		cmp "$ROOT/build/win/$p.exe" "$T/w/$w/$p.exe"
	done
	[ -f "$T/w/usr/local/share/man/man1/srt-win.1" ]
	[ "$(find "$T/w" ! -type d | wc -l)" -eq 5 ]
	run mk uninstall-win DESTDIR="$T/w"
	[ "$status" -eq 0 ]
	[ -z "$(find "$T/w" ! -type d)" ]
	[ ! -e "$T/w/$w" ]
	# Without cJSON's source srt.exe cannot be made again (-W: as if its source had
	# changed): make says so and installs nothing, srt-win.exe included.
	run -2 --separate-stderr mk install-win DESTDIR="$T/x" CJSON_DIR="$T/none" \
	    -W srt-launch/windows/winmain.c
	[[ "$stderr" == *"no cJSON source in $T/none"*"run scripts/deps"* ]]
	[ ! -e "$T/x" ]
	# What the Debian package srt-win installs: srt-win.exe alone.
	run mk install-srt-win DESTDIR="$T/d"
	[ "$status" -eq 0 ]
	[ "$(cd "$T/d" && find . ! -type d | sort | tr '\n' ' ')" = "./usr/local/share/man/man1/srt-win.1 ./$w/srt-win.exe " ]
	run mk uninstall-win DESTDIR="$T/d"
	[ -z "$(find "$T/d" ! -type d)" ]
}

@test "make install honours MANDIR; another PREFIX, LIBEXECDIR or SYSCONFDIR compiles its path in again" {
	run mk install DESTDIR="$T/m" MANDIR=/opt/man
	[ "$status" -eq 0 ]
	[ -f "$T/m/opt/man/man1/srt.1" ]
	[ -f "$T/m/opt/man/man8/srt-socksd.8" ]
	[ ! -e "$T/m/usr/local/share/man" ]
	[ -x "$T/m/usr/local/libexec/srt/srt-httpd" ]
	# (-n: what it would do; building for another path here would change the build
	# under test. tests/package/deb.bats builds one for /usr and runs it.)
	run mk -n install DESTDIR="$T/p" PREFIX=/opt/srt LIBEXECDIR=/opt/srt/lib/srt
	[ "$status" -eq 0 ]
	[[ "$output" == *'#define SRT_BINDIR "/opt/srt/bin"'* ]]
	[[ "$output" == *'#define SRT_LIBEXECDIR "/opt/srt/lib/srt"'* ]]
	[[ "$output" == *'#define SRT_SYSCONFDIR "/etc"'* ]]
	# The Makefile spells a build directory inside the tree relative to it.
	local b=${SRT_BUILD#"$ROOT"/}
	[[ "$output" == *" -c -o $b/obj/lib/core/layout.o lib/core/layout.c"* ]]
	[[ "$output" == *"install -m 755 $b/bin/srt-seccomp $b/bin/srt-httpd $b/bin/srt-socksd $T/p/opt/srt/lib/srt"* ]]
	run mk install DESTDIR="$T/r" LIBEXECDIR=relative/dir
	[ "$status" -ne 0 ]
	[[ "$output" == *"LIBEXECDIR must be an absolute path"* ]]
	# The managed policy's directory is compiled in the same way, and is not under PREFIX.
	run mk -n install DESTDIR="$T/p" SYSCONFDIR=/opt/etc
	[ "$status" -eq 0 ]
	[[ "$output" == *'#define SRT_SYSCONFDIR "/opt/etc"'* ]]
	[[ "$output" == *" -c -o $b/obj/lib/core/managed.o lib/core/managed.c"* ]]
	run mk install DESTDIR="$T/r" SYSCONFDIR=etc
	[ "$status" -ne 0 ]
	[[ "$output" == *"SYSCONFDIR must be an absolute path"* ]]
}

@test "build tree: a helper on PATH ahead of srt's own is not the one executed" {
	fake_helpers "$T/fake"
	run env PATH="$T/fake:$PATH" srt -d -s "$T/s.json" -c "$PROBE"
	[ "$status" -eq 0 ]
	[[ "$output" == *"debug: helpers: from $SRT_BIN"* ]]
	[[ "$output" == *"debug: starting $SRT_BIN/srt-httpd"* ]]
	[[ "$output" == *"code 403"* ]]
	[[ "$output" == *"deny network-outbound denied.example:80"* ]]
	[ ! -e "$T/ran" ]
}

@test "installed: srt runs its helpers from LIBEXECDIR, never from PATH or from beside itself" {
	[ "$(id -u)" -eq 0 ] || skip "needs root for a private mount namespace"
	command -v unshare >/dev/null || skip "needs unshare (util-linux)"
	mk install DESTDIR="$T/d" >/dev/null
	# The tree is mounted over /usr/local in a mount namespace of the test's own, so that
	# the installed srt is where it was built to be.
	[ -d /usr/local ] || skip "no /usr/local to mount the installed tree over"
	fake_helpers "$T/fake"
	fake_helpers "$T/d/usr/local/bin"
	cat > "$T/run" <<SH
mount --bind "$T/d/usr/local" /usr/local || exit 90
cd "$T/ws" || exit 91
exec env PATH="$T/fake:/usr/local/bin:/usr/bin:/bin" srt -dd -s "$T/s.json" -c '$PROBE'
SH
	run unshare -m sh "$T/run"
	[ "$status" -eq 0 ]
	[[ "$output" == *"debug: helpers: from /usr/local/libexec/srt"* ]]
	[[ "$output" == *"debug: starting /usr/local/libexec/srt/srt-httpd"* ]]
	[[ "$output" == *"code 403"* ]]
	[[ "$output" == *"deny network-outbound denied.example:80"* ]]
	[ ! -e "$T/ran" ]
	# Both directories are srt's own, kept read-only inside (plan_ctx self_dirs).
	[[ "$output" == *"debug: write guard: /usr/local/bin (srt's own programs)"* ]]
	[[ "$output" == *"debug: write guard: /usr/local/libexec/srt (srt's own programs)"* ]]
	# The installed srt-policy names the srt-seccomp the srt beside it runs.
	cat > "$T/plan" <<SH
mount --bind "$T/d/usr/local" /usr/local || exit 90
cd "$T/ws" || exit 91
exec env PATH="/usr/local/bin:/usr/bin:/bin" srt-policy plan --target linux -s "$T/s.json" --shell
SH
	run unshare -m sh "$T/plan"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ "$output" == *" --ro-bind-fd 8 /usr/local/libexec/srt/srt-seccomp "* ]]
	[[ "$output" == *" -- /usr/local/libexec/srt/srt-seccomp --lifeline-fd 5 "* ]]
}
