#!/usr/bin/env bats
# Escape battery, the write guard (issue #10): the mandatory-deny walk must never fail
# open (past its budget of 200,000 entries srt refuses to run), and srt's own helpers
# must not be replaceable when srt is installed inside a write root: the proxies start
# when first used, so a replaced srt-httpd would run outside the sandbox in the same run.
load helpers
load guard

# A previous run padded a directory of the home (a second write root) with more entries
# than the walk reads; ~/.bashrc comes after them. The home is a tmpfs of this test's
# private mount namespace: it fills in half a second and vanishes with the namespace, and
# it lists entries by the order they were made in (newest or oldest first, by kernel): a
# rename makes one the newest, until the padded directory comes first.
@test "walk: a home padded past 200,000 entries: srt refuses to run (125), naming the setting" {
	need_tool
	gsettings "[\".\", \"$T/home\"]"
	attempt_script main '
echo RAN
step bashrc "echo \"$PAYLOAD\" >>~/.bashrc"'
	cat >"$T/scenario" <<'SH'
mount -t tmpfs -o mode=0755 tmpfs "$T/home" || exit 99
"$FSOP" pad "$T/home/pad" 200001 >/dev/null || exit 99
echo '# rc' >"$T/home/.bashrc"
pad_first() {
	ls -U -a "$T/home" | grep -m1 -x -e pad -e .bashrc | grep -qx pad
}
pad_first || { mv "$T/home/pad" "$T/home/pad.x" && mv "$T/home/pad.x" "$T/home/pad"; }
pad_first || { mv "$T/home/.bashrc" "$T/home/b.x" && mv "$T/home/b.x" "$T/home/.bashrc"; }
md5sum <"$T/home/.bashrc" >"$T/rc.before"
st=0
(tool_exec "$T/attempt-main.sh") >"$T/out" 2>"$T/err" || st=$?
echo "$st" >"$T/st"
md5sum <"$T/home/.bashrc" >"$T/rc.after"
# The victim: the user's next interactive shell, in the same namespace as the tmpfs.
cd "$T/home" && timeout 20 bash -i -c true </dev/null >/dev/null 2>&1
exit 0
SH
	export -f tool_exec
	run timeout 120 unshare -m -n -- bash "$T/scenario"
	[ "$status" -eq 0 ] || finding BROKEN "the scenario failed (status $status): $output"
	ST=$(cat "$T/st")
	log_run padded
	if [ "$ST" -ne 125 ]; then
		finding NOT-ENDED "srt ran with a walk past its budget: status $ST, not 125"
	fi
	if ! grep -q mandatoryDenySearchDepth "$T/err" || ! grep -q allowWrite "$T/err"; then
		finding NOT-ENDED "no message naming mandatoryDenySearchDepth and allowWrite"
	fi
	if grep -q '^RAN$' "$T/out"; then
		refused bashrc
	fi
	cmp -s "$T/rc.before" "$T/rc.after" ||
		finding ESCAPED "~/.bashrc changed on the host"
	[ ! -e "$T/pwned" ] || finding ESCAPED "the host ran the command's code: interactive bash"
	rm -f "$T/pwned"
	verdict
}

# The hosts file of the network scenario.
helper_hosts() {
	printf '127.0.0.1\tlocalhost\n10.99.0.2\tok.srt.test\n' >"$T/hosts"
}

# srt installed in a directory of the write root (a copy of build/bin): the command tries
# to replace srt-httpd before its first request, and the other helpers; the request then
# goes through the real srt-httpd, and the directory cannot be moved away either. The
# network part runs in a namespace of its own (tests/helpers/netns.sh battery) with the
# upstream on an address there, allowed by its literal too (it is one of that
# namespace's own addresses, which the resolved-address guard refuses otherwise).
@test "helpers: srt installed in a write root: srt-httpd cannot be replaced, the proxy is the real one" {
	need_tool
	srt_only
	command -v curl >/dev/null || skip "curl is not installed"
	cp -a "$SRT_BIN/." "$T/work/inst/"
	gsettings '["."]' '[]' '[]' '' '' '["ok.srt.test", "10.99.0.2"]'
	keep "$T/work/inst" "$T/work/inst/srt-httpd" "$T/work/inst/srt-socksd" \
		"$T/work/inst/srt-seccomp" "$T/work/inst/srt" "$T/work/inst.old"
	attempt_script main '
plant payload.sh
step replace "cat payload.sh >inst/srt-httpd"
step rename "cp payload.sh p2 && mv -f p2 inst/srt-httpd"
step remove "rm -f inst/srt-socksd"
step seccomp "cp payload.sh inst/srt-seccomp"
step request "curl -sS --max-time 10 http://ok.srt.test:8080/x | grep UPSTREAM-ok"
step dir "mv inst inst.old"'
	helper_hosts
	cat >"$T/scenario" <<SH
upstream http 10.99.0.2 8080 ok
st=0
sandbox ". '$T/attempt-main.sh'" >"$T/out" 2>"$T/err" || st=\$?
echo "\$st" >"$T/st"
SH
	SRT=$T/work/inst/srt in_netns "$T/scenario"
	[ "$status" -eq 0 ] || finding BROKEN "the scenario failed (status $status): $output"
	ST=$(cat "$T/st")
	log_run installed
	if [ -e "$T/pwned" ]; then
		finding ESCAPED "srt ran the command's srt-httpd outside the sandbox"
		rm -f "$T/pwned"
	fi
	grep -q '^ATTEMPT DONE$' "$T/out" || finding BROKEN "the command did not run to its end"
	refused replace rename remove seccomp dir
	allowed request
	verdict
}

# srt -d says so when the directory it runs its helpers from is writable inside; the
# build directory, outside every write root, draws no such warning.
@test "helpers: srt -d warns that its install directory is writable inside" {
	need_tool
	srt_only
	cp -a "$SRT_BIN/." "$T/work/inst/"
	gsettings '["."]'
	ST=0
	(cd "$T/work" && timeout 30 "$T/work/inst/srt" -d -s "$SETTINGS" -c true) \
		</dev/null >"$T/out" 2>"$T/err" || ST=$?
	log_run installed
	[ "$ST" -eq 0 ] || finding BROKEN "srt -d -c true failed with status $ST"
	grep -F "$T/work/inst" "$T/err" | grep -qi writable ||
		finding NO-WARNING "no warning that $T/work/inst is writable inside"
	ST=0
	(cd "$T/work" && timeout 30 "$SRT" -d -s "$SETTINGS" -c true) \
		</dev/null >"$T/out" 2>"$T/err" || ST=$?
	log_run build
	if grep -F "$SRT_BIN" "$T/err" | grep -qi writable; then
		finding BROKEN "a warning about $SRT_BIN, which is not writable inside"
	fi
	verdict
}
