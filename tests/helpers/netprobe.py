#!/usr/bin/env python3
"""The small network steps the suites take around the servers they start, one program
for all of them ($NETPROBE, set by tests/helpers.bash; `$NS python3 "$NETPROBE" ...`
runs one in another network namespace):

  netprobe.py open HOST PORT...        exit 0 when every PORT on HOST accepts a TCP
                                       connection (each tried once, at most a second),
                                       1 otherwise: the waits for a server call it in a loop
  netprobe.py v6                       exit 0 when ::1 can be bound (IPv6 loopback is up)
  netprobe.py hold HOST PORT SECONDS [reuse]
                                       listen on HOST:PORT (SO_REUSEADDR with reuse) for
                                       SECONDS, accepting nobody
  netprobe.py send PORT HEX FILE SECONDS
                                       connect to 127.0.0.1:PORT, send the bytes HEX,
                                       create FILE (the test waits for it), keep the
                                       connection SECONDS
"""
import socket
import sys
import time


def family(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "open" and len(argv) >= 4:
        try:
            for port in argv[3:]:
                socket.create_connection((argv[2], int(port)), timeout=1).close()
        except OSError:
            return 1
        return 0
    if cmd == "v6" and len(argv) == 2:
        try:
            socket.socket(socket.AF_INET6).bind(("::1", 0))
        except OSError:
            return 1
        return 0
    if cmd == "hold" and len(argv) in (5, 6):
        s = socket.socket(family(argv[2]))
        if argv[5:] == ["reuse"]:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((argv[2], int(argv[3])))
        s.listen(5)
        time.sleep(float(argv[4]))
        return 0
    if cmd == "send" and len(argv) == 6:
        s = socket.create_connection(("127.0.0.1", int(argv[2])))
        s.sendall(bytes.fromhex(argv[3]))
        open(argv[4], "w").close()
        time.sleep(float(argv[5]))
        return 0
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
