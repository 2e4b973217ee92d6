# Sourced inside the sandbox by the network scenarios (40-network.bats), which then call
# cases_run. Each call below adds one case; cases_run runs them all with client.py and
# prints "CASE NAME: ANSWER" lines. Needs $PY and $SECDIR.
#   http NAME PAYLOAD		raw bytes to the HTTP proxy (Python escapes)
#   http_all NAME PAYLOAD	the same, every status line of the answer
#   http_framed NAME PAYLOAD	the same, every response as a client delimits it
#   socks NAME ATYP DEST PORT	SOCKS5 CONNECT through the SOCKS proxy
#   socks_cmd NAME CMD ATYP DEST PORT	another SOCKS5 command (2 BIND, 3 UDP ASSOCIATE)
CASES=${TMPDIR:-/tmp}/srt-cases.$$
: >"$CASES" || exit 1

http() { printf 'http\t%s\t%s\n' "$1" "$2" >>"$CASES"; }
http_all() { printf 'http_all\t%s\t%s\n' "$1" "$2" >>"$CASES"; }
http_framed() { printf 'http_framed\t%s\t%s\n' "$1" "$2" >>"$CASES"; }
socks() { printf 'socks\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" >>"$CASES"; }
socks_cmd() {
	printf 'socks_cmd\t%s\t%s\t%s\t%s\t%s\n' "$1" "$2" "$3" "$4" "$5" >>"$CASES"
}

cases_run() {
	"$PY" "$SECDIR/client.py" batch "$CASES"
	rm -f "$CASES"
}
