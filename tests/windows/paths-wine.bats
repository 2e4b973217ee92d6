#!/usr/bin/env bats
# srt.exe's Windows paths under Wine (lib/core/path_win.c behind path.c, srt-settings(5)
# "Windows paths"): the plan srt.exe writes for C:\ and ~\ entries, by their normalised
# names and ranked without regard to ASCII case; a settings file and a directory with
# non-ASCII names; a relative settings name against a Z:\ working directory; and the
# spellings srt refuses as settings errors.
#
# srt.exe hands its plan file to srt-win launch; here windows.srtWin.path names
# winprobe.exe, which prints the plan and exits 15 as srt-win does where no sandbox
# account exists, so the plan is read exactly as srt-win would get it.
#
# As in tests/windows/proxies-wine.bats, Wine's server runs in a network namespace with
# loopback only (srt.exe starts the proxies), where the host allows one. One Wine prefix
# for the file, in its temp dir; its server is stopped at the end.
bats_require_minimum_version 1.5.0
load ../helpers

setup_file() {
	export WINE WINESERVER_BIN SRTEXE PROBE NS= NSPID= PROFILE=
	WINE=$(wine_bin) || WINE=
	WINESERVER_BIN=$(wineserver_bin) || WINESERVER_BIN=
	# srt.exe without the managed layer (srt-nomanaged.exe, beside it): Wine owns every
	# file by the Wine user, so srt.exe itself refuses to run here
	# (tests/windows/srt-win-wine.bats).
	SRTEXE="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)/build/win/srt-nomanaged.exe"
	PROBE="$(dirname "$SRTEXE")/tests/winprobe.exe"
	[ -n "$WINE" ] && [ -f "$SRTEXE" ] && [ -f "$PROBE" ] || return 0
	wine_prefix
	wine_netns
	# The first start makes the prefix and its server (several seconds).
	PROFILE=$($NS "$WINE" cmd.exe /c echo %USERPROFILE% 2>/dev/null | tr -d '\r')
}

teardown_file() {
	wine_stop
}

setup() {
	[ -n "$WINE" ] || skip "Wine is not installed (scripts/deps installs wine64)"
	[ -f "$SRTEXE" ] && [ -f "$PROBE" ] || skip "build/win/srt-nomanaged.exe is not built (make win)"
	srt_setup
	# Each test's own directory on Wine's C: drive, C:\tN.
	C="$WINEPREFIX/drive_c/t$BATS_TEST_NUMBER"
	CW="C:\\t$BATS_TEST_NUMBER"
	# The home directory as Windows spells it (%USERPROFILE%) and as Linux finds it.
	[[ "$PROFILE" == 'C:\users\'* ]]
	HOMEDIR="$WINEPREFIX/drive_c/users/${PROFILE#C:\\users\\}"
}

teardown() {
	srt_teardown
}

# $1 with each "\" doubled, as JSON writes it.
jesc() {
	local s=${1//\\/\\\\}
	printf '%s' "$s"
}

# A JSON string holding the Windows path $1.
js() {
	printf '"%s"' "$(jesc "$1")"
}

# One line of the plan: allow|deny, the Windows path, the rights (JSON), the inheritance.
ace() {
	printf '{"ace":"%s","path":"%s","rights":[%s],"inherit":"%s"}\n' "$1" "$(jesc "$2")" \
	    "$3" "$4"
}

# The settings file $1 with this filesystem block, srt-win being winprobe.exe.
settings() {
	cat >"$1" <<JSON
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": $2,
  "windows": { "srtWin": { "path": "Z:$PROBE" } } }
JSON
}

# srt.exe -s $1 up to its stand-in srt-win: the plan in $plan, stderr in $err.
srtexe_plan() {
	run --separate-stderr $NS "$WINE" "$SRTEXE" -s "$1" -c 'echo ran'
	plan=$(tr -d '\r' <<<"$output")
	err=$(tr -d '\r' <<<"$stderr")
	echo "status $status"
	echo "$err"
	echo "$plan"
}

@test "wine: srt.exe plans C:\\ and ~\\ entries by their normalised names, ranked whatever their case" {
	mkdir -p "$C/Repo/.git/hooks/sub" "$C/Repo/src" "$C/Repo/docs" "$HOMEDIR/.ssh" \
	    "$HOMEDIR/work$BATS_TEST_NUMBER"
	touch "$C/Repo/src/key.pem" "$C/Repo/src/a.c"
	cd "$T"
	settings s.json "{ \"allowRead\": [$(js "$CW\\Repo\\src\\..\\\\docs\\."),
	    $(js "$CW\\Repo\\src\\**")],
	  \"allowWrite\": [$(js "$CW\\Repo"), \"~/work$BATS_TEST_NUMBER\",
	    $(js "${CW,,}/repo/.git/hooks/sub")],
	  \"denyRead\": [\"~\\\\\\\\.ssh\", $(js "$CW/repo/SRC/*.PEM")],
	  \"denyWrite\": [$(js "${CW,,}\\repo\\.git\\hooks"), $(js "${CW^^}\\REPO\\missing\\new")] }"
	cat s.json
	# Named as Linux spells it: on the working directory's drive, Z:.
	srtexe_plan "$T/s.json"
	[ "$status" -eq 15 ]
	R=$CW\\Repo
	want=$(ace allow "$R\\docs" '"read","execute"' OICI
	    ace allow "$R\\src" '"read","execute"' OICI
	    ace allow "$R\\.git\\hooks\\sub" '"read","execute"' OICI
	    ace allow "$R" '"modify"' OICI
	    ace deny "$R" '"delete"' ''
	    ace allow "$PROFILE\\work$BATS_TEST_NUMBER" '"modify"' OICI
	    ace deny "$PROFILE\\work$BATS_TEST_NUMBER" '"delete"' ''
	    ace deny "$PROFILE\\.ssh" '"read"' OICI
	    ace deny "$PROFILE" '"delete_child"' ''
	    ace deny "$R\\src\\key.pem" '"read"' ''
	    ace deny "$R\\src" '"delete_child"' ''
	    ace deny "$R\\src" '"delete"' ''
	    ace deny "$R" '"delete_child"' ''
	    ace deny "$R\\.git\\hooks" '"write"' OICI
	    ace deny "$R\\.git" '"delete_child"' ''
	    ace deny "$R\\.git" '"delete"' ''
	    ace deny "$R\\missing\\new" '"write"' ''
	    ace deny "$R\\missing" '"delete_child"' ''
	    ace deny "$R\\missing" '"delete"' ''
	    ace deny "$R\\.git\\config" '"write"' '')
	# The write grant beneath the denyWrite (spelled in other case) reads only; the
	# missing deny spelled in upper case is named from its existing ancestor, as the
	# disk spells it, and lies inside C:\tN\Repo, so it is kept; the glob matches
	# names without regard to case, from the drive's root; "\**" stands for its
	# directory. The repository's missing config is a mandatory deny, for a
	# placeholder.
	diff <(echo "$want") <(echo "$plan")
}

@test "wine: srt.exe reads a settings file and plans a directory by non-ASCII names" {
	mkdir -p "$C/Répo-日本"
	cd "$T"
	settings 'réglages-日本.json' "{ \"denyRead\": [], \"allowWrite\": [$(js "$CW\\répo-日本")],
	  \"denyWrite\": [$(js "$CW\\RÉPO-日本\\new")] }"
	srtexe_plan 'réglages-日本.json'
	[ "$status" -eq 15 ]
	# The missing deny, "É" where the disk has "é" (beyond the ASCII fold), is named
	# from the directory's final name, so it lies inside the grant and is kept.
	want=$(ace allow "$CW\\Répo-日本" '"modify"' OICI
	    ace deny "$CW\\Répo-日本" '"delete"' ''
	    ace deny "$CW\\Répo-日本\\new" '"write"' ''
	    ace deny "$CW\\Répo-日本" '"delete_child"' '')
	diff <(echo "$want") <(echo "$plan")
}

@test "wine: srt.exe protects a settings file named relative to a Z:\\ working directory" {
	mkdir "$T/w"
	cd "$T/w"
	settings rel.json '{ "denyRead": [], "allowWrite": ["."], "denyWrite": ["sub\\\\x"] }'
	srtexe_plan rel.json
	[ "$status" -eq 15 ]
	Z="Z:$(tr / '\\' <<<"$T")\\w"
	want=$(ace allow "$Z" '"modify"' OICI
	    ace deny "$Z" '"delete"' ''
	    ace deny "$Z\\sub\\x" '"write"' ''
	    ace deny "$Z\\sub" '"delete_child"' ''
	    ace deny "$Z\\sub" '"delete"' ''
	    ace deny "$Z" '"delete_child"' ''
	    ace deny "$Z\\rel.json" '"write"' '')
	diff <(echo "$want") <(echo "$plan")
}

@test "wine: srt.exe refuses the Windows spellings it does not take, naming each entry (125)" {
	cd "$T"
	cat >bad.json <<'JSON'
{ "network": { "allowedDomains": [], "deniedDomains": [] },
  "filesystem": {
    "denyRead": ["\\\\server\\share\\x", "\\\\?\\C:\\x", {"path": "C:\\Repo\\.git.", "literal": true}],
    "allowWrite": ["C:foo", "C:\\Repo\\.git \\hooks"],
    "denyWrite": ["C:\\a\\f.txt:s", "C:\\a\\NUL.txt", "C:\\PROGRA~1\\x", "C:\\a|b"] },
  "credentials": { "files": [ { "path": "~\\x.", "mode": "deny" } ] } }
JSON
	run -125 --separate-stderr $NS "$WINE" "$SRTEXE" -s "$T/bad.json" -c 'echo ran'
	err=$(tr -d '\r' <<<"$stderr")
	echo "$err"
	[ "$output" = "" ]
	n='is not a path srt takes on this system'
	unc='a UNC or device path (\\server\share, \\?\, \\.\), which srt does not handle: write a drive path such as C:\dir'
	dot='a name ends in a dot or a space, which Windows strips (".git." is ".git"): write the name without them'
	want="srt: $T/bad.json: filesystem.denyRead[0]: $(js '\\server\share\x') $n: $unc
srt: $T/bad.json: filesystem.denyRead[1]: $(js '\\?\C:\x') $n: $unc
srt: $T/bad.json: filesystem.denyRead[2]: $(js 'C:\Repo\.git.') $n: $dot
srt: $T/bad.json: filesystem.allowWrite[0]: \"C:foo\" $n: a drive-relative path (C:dir is relative to that drive's own working directory): write C:\dir
srt: $T/bad.json: filesystem.allowWrite[1]: $(js 'C:\Repo\.git \hooks') $n: $dot
srt: $T/bad.json: filesystem.denyWrite[0]: $(js 'C:\a\f.txt:s') $n: a \":\" past the drive names an alternate data stream (name:stream), which srt does not handle
srt: $T/bad.json: filesystem.denyWrite[1]: $(js 'C:\a\NUL.txt') $n: a name is a DOS device (CON, PRN, AUX, NUL, COM1-9, LPT1-9), which Windows opens in any directory
srt: $T/bad.json: filesystem.denyWrite[2]: $(js 'C:\PROGRA~1\x') $n: a name has the shape of an 8.3 short name (GIT~1), another spelling of a long one: write the long name
srt: $T/bad.json: filesystem.denyWrite[3]: $(js 'C:\a|b') $n: a name holds a character Windows does not allow in one (< > \" | or a control character)
srt: $T/bad.json: credentials.files[0].path: $(js '~\x.') $n: $dot"
	diff <(echo "$want") <(echo "$err")
}
