#!/usr/bin/env python3
"""A SOCKS5 client for the cases curl cannot produce (tests/proxies/socksd.bats).

  socks-raw.py PORT HEXBYTES [--pieces] [--read N]

sends the bytes to 127.0.0.1:PORT (one at a time with small sleeps with --pieces), then
prints what the proxy answered in hex ("EOF" appended when the proxy closed), reading at
most N bytes (4096)."""
import socket, sys, time
port, data = int(sys.argv[1]), bytes.fromhex(sys.argv[2])
pieces = "--pieces" in sys.argv
want = int(sys.argv[sys.argv.index("--read") + 1]) if "--read" in sys.argv else 4096
s = socket.create_connection(("127.0.0.1", port), timeout=10)
if pieces:
    for b in data:
        s.sendall(bytes([b])); time.sleep(0.02)
else:
    s.sendall(data)
got = b""
eof = False
while len(got) < want:
    try:
        chunk = s.recv(want - len(got))
    except ConnectionResetError:
        eof = True; break
    except socket.timeout:
        break
    if not chunk:
        eof = True; break
    got += chunk
print(got.hex() + (" EOF" if eof else ""))
