#!/usr/bin/env python3
"""The TLS-termination handoff channel (lib/proxyd/handoff.h) for tests, as srt-launch makes it.

  handoff-pair.py pair SOCKSD-CMD... -- HTTPD-CMD...
      A SOCK_SEQPACKET socketpair; each command gets one end (the word HANDOFF_FD in
      it becomes its number). Runs both until SIGTERM, then stops them.

  handoff-pair.py feed HOST PORT CAFILE -- HTTPD-CMD...
      Starts the command with one end (HANDOFF_FD as above), then sends on the other end malformed
      messages (too short, one byte too long, no descriptor, a host not canonical, a
      pipe for a socket, garbage with a socket) and then a good one carrying one end of a
      stream socketpair, over which it speaks TLS (verified with CAFILE, server name
      HOST) and a GET / to HOST:PORT; prints "status LINE", "issuer NAME" and the body.
      Exit 0 if that worked.
"""
import os
import signal
import socket
import ssl
import struct
import subprocess
import sys


def msg(host, port, client=b"127.0.0.1:1"):
    return (b"SRh1" + struct.pack(">H", port) + bytes([len(host)]) +
            host.ljust(255, b"\0") + bytes([len(client)]) + client.ljust(63, b"\0"))


def spawn(cmd, end):
    # The word HANDOFF_FD in the command becomes the number of its end.
    n = end.fileno()
    return subprocess.Popen([str(n) if a == "HANDOFF_FD" else a for a in cmd],
                            close_fds=True, pass_fds=(n,))


def pair(argv):
    i = argv.index("--")
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    procs = [spawn(argv[:i], a), spawn(argv[i + 1:], b)]
    a.close()
    b.close()

    def stop(*_):
        for p in procs:
            if p.poll() is None:
                p.terminate()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for p in procs:
        p.wait()


def feed(argv):
    host, port, cafile = argv[0].encode(), int(argv[1]), argv[2]
    a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    p = spawn(argv[4:], b)
    b.close()
    try:
        junk_a, junk_b = socket.socketpair()
        r, w = os.pipe()
        good = msg(host, port)
        a.send(good[:100])                                          # too short
        a.sendmsg([good + b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                   struct.pack("i", junk_a.fileno()))])   # too long
        a.send(good)                                                 # no descriptor
        a.sendmsg([msg(b"A.TEST", port)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                            struct.pack("i", junk_a.fileno()))])
        a.sendmsg([good], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", r))])
        a.sendmsg([b"\xff" * len(good)], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                           struct.pack("i", junk_a.fileno()))])
        os.close(r)
        os.close(w)
        junk_a.close()
        junk_b.close()
        # Then a good one: srt-httpd must still be reading the channel.
        mine, theirs = socket.socketpair()
        a.sendmsg([good], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                            struct.pack("i", theirs.fileno()))])
        theirs.close()
        mine.settimeout(20)
        ctx = ssl.create_default_context(cafile=cafile)
        t = ctx.wrap_socket(mine, server_hostname=host.decode())
        issuer = dict(x[0] for x in t.getpeercert()["issuer"])
        print("issuer", issuer.get("commonName"))
        t.sendall(b"GET / HTTP/1.1\r\nHost: %s:%d\r\nConnection: close\r\n\r\n" %
                  (host, port))
        data = b""
        while True:
            d = t.recv(65536)
            if not d:
                break
            data += d
        head, _, body = data.partition(b"\r\n\r\n")
        print("status", head.split(b"\r\n")[0].decode())
        sys.stdout.write(body.decode(errors="replace"))
        ok = head.startswith(b"HTTP/1.1 200")
    finally:
        print("httpd alive", p.poll() is None)
        a.close()
        if p.poll() is None:
            p.terminate()
        p.wait()
    return 0 if ok else 1


if __name__ == "__main__":
    if sys.argv[1] == "pair":
        pair(sys.argv[2:])
    elif sys.argv[1] == "feed":
        sys.exit(feed(sys.argv[2:]))
    else:
        sys.exit("usage: handoff-pair.py pair|feed ...")
