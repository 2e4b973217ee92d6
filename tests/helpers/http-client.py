#!/usr/bin/env python3
"""The clients tests/proxies/httpd.bats and control.bats drive srt-httpd on 127.0.0.1:PORT
with, for what curl cannot do (UP is the port of the test's upstream, on 127.0.0.1):

  http-client.py send PORT BYTES [--wait S] [--half-close] [--pad N] [--until-eof]
                      [--summary NEEDLE]
      sends BYTES (Python escapes such as \\r\\n and \\x00 allowed), followed by N bytes
      "X" with --pad, shuts its writing side with --half-close, then prints what comes
      back until the proxy closes or nothing comes for S seconds (3). With --until-eof
      the reply must end with the proxy's close: a reset prints "RESET after N bytes",
      a wait of S seconds "TIMEOUT after N bytes", and both exit 1. --summary prints
      "EOF", the reply's first line and whether NEEDLE is in it, in place of the reply
  http-client.py hold PORT READY RELEASE
      connects, creates the file READY, and keeps the connection until RELEASE exists
  http-client.py tunnel PORT HOST:PORT READY GO BYTES OUT
      opens a CONNECT tunnel to HOST:PORT (its 200 asserted), creates READY, waits (up to
      30 s) for the file GO, sends BYTES (escapes allowed) through the tunnel and writes
      the first reply read to the file OUT
  http-client.py burst PORT UP N
      holds one connection, then opens N more that each send a GET for UP at once, and
      prints "good K": K of them read a whole 503 "too many connections" to the close
  http-client.py trickle PORT UP
      sends a request head for UP one byte at a time, on a new connection, then on one
      that has had a request answered; prints for each "new"/"kept", the reply's first
      line, how the connection ended (eof, reset, open) and whether that took under 6 s
  http-client.py idle PORT SECONDS
      connects, sends nothing for SECONDS, then prints "open", "closed" or "data"
  http-client.py tunnels PORT UP N
      opens N CONNECT tunnels to UP at once, sends 1 MiB through each and reads its echo
      back, all at once; prints "ok A bad B unfinished C"
  http-client.py interleave PORT UP
      sends half a request head on one connection and garbage on a second, asserts the
      second gets a 400, finishes the first and asserts its reply; prints "ok"
  http-client.py slow-body PORT UP HOST BODY go|hold
      POSTs BODY to HOST:UP, the head first, then after 0.3 s the body's first 3 bytes,
      and with go its rest 0.2 s later; prints the reply (read until the close, or as
      much as its Content-Length says)
  http-client.py read-ahead PORT UP
      on one connection, a POST with a 5-byte body to localhost:UP, then 0.3 s after its
      reply's head a GET for 127.0.0.1:UP/x; prints the two replies' status lines
  http-client.py live-update PORT UP GO
      run in the sandbox, whose proxy is PORT: opens a tunnel to 127.0.0.1:UP, prints
      "tunnel:" and its status line, waits for the file GO, sends a GET for /old through
      it and prints "old tunnel:" and the reply's status line, then runs curl for
      http://127.0.0.1:UP/new (through the sandbox's proxy) and prints "new request:"
      and its status code
"""
import argparse
import os
import selectors
import socket
import sys
import time


def unescape(s):
    return s.encode("latin-1").decode("unicode_escape").encode("latin-1")


def connect(port):
    return socket.create_connection(("127.0.0.1", port))


def read_to_close(s):
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            return out
        out += d


def send(a):
    s = connect(a.port)
    s.sendall(unescape(a.bytes) + b"X" * a.pad)
    if a.half_close:
        s.shutdown(socket.SHUT_WR)
    s.settimeout(a.wait)
    out = b""
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except socket.timeout:
        if a.until_eof:
            print("TIMEOUT after %d bytes" % len(out))
            return 1
    except ConnectionResetError:
        if not a.until_eof:
            raise
        print("RESET after %d bytes" % len(out))
        return 1
    if a.summary is not None:
        print("EOF", out.split(b"\r\n")[0].decode(), a.summary.encode() in out)
    else:
        sys.stdout.write(out.decode("latin-1"))
    return 0


def hold(a):
    s = connect(a.port)
    open(a.ready, "w").close()
    while not os.path.exists(a.release):
        time.sleep(0.05)
    s.close()
    return 0


def tunnel(a):
    s = connect(a.port)
    s.sendall(b"CONNECT %s HTTP/1.1\r\n\r\n" % a.target.encode())
    s.settimeout(10)
    assert b"200" in s.recv(1024)
    open(a.ready, "w").close()
    for _ in range(600):
        if os.path.exists(a.go):
            break
        time.sleep(0.05)
    s.sendall(unescape(a.bytes))
    open(a.out, "wb").write(s.recv(65536))
    return 0


def burst(a):
    held = connect(a.port)
    time.sleep(0.3)
    req = ("GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: x\r\n\r\n" % a.up).encode()
    socks = []
    for _ in range(a.n):
        s = connect(a.port)
        s.sendall(req)
        socks.append(s)
    good = 0
    for s in socks:
        s.settimeout(5)
        got = b""
        try:
            got = read_to_close(s)
        except (ConnectionResetError, socket.timeout) as e:
            print("client error:", repr(e), got[:40])
            continue
        if got.startswith(b"HTTP/1.1 503 ") and got.endswith(b"too many connections\n"):
            good += 1
        else:
            print("unexpected:", got[:60])
    print("good", good)
    held.close()
    return 0


def trickle_head(s, up):
    s.settimeout(0.25)
    data = ("GET http://127.0.0.1:%d/ HTTP/1.1\r\nHost: x\r\n" % up).encode() + \
        b"X-Pad: " + b"a" * 200
    got = b""
    t0 = time.monotonic()
    i = 0
    while time.monotonic() - t0 < 15:
        if i < len(data):
            try:
                s.sendall(data[i:i + 1])
            except OSError:
                break
            i += 1
        try:
            d = s.recv(4096)
            if not d:
                return got, time.monotonic() - t0, "eof"
            got += d
        except socket.timeout:
            pass
        except ConnectionResetError:
            return got, time.monotonic() - t0, "reset"
    return got, time.monotonic() - t0, "open"


def trickle(a):
    got, el, how = trickle_head(connect(a.port), a.up)
    print("new", got.split(b"\r\n")[0].decode(), how, el < 6)
    # Keep-alive: one complete request, then the next head trickles.
    s = connect(a.port)
    s.sendall(("GET http://127.0.0.1:%d/first HTTP/1.1\r\nHost: x\r\n\r\n" % a.up).encode())
    s.settimeout(5)
    r = b""
    while b"GET /first" not in r:
        r += s.recv(4096)
    got, el, how = trickle_head(s, a.up)
    print("kept", got.split(b"\r\n")[0].decode(), how, el < 6)
    return 0


def idle(a):
    s = connect(a.port)
    time.sleep(a.seconds)
    s.settimeout(0.5)
    try:
        print("closed" if s.recv(10) == b"" else "data")
    except socket.timeout:
        print("open")
    return 0


def tunnels(a):
    size = 1 << 20
    conns = []
    for _ in range(a.n):
        s = connect(a.port)
        s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: x\r\n\r\n" % a.up)
        conns.append(s)
    for s in conns:
        s.settimeout(10)
        h = b""
        while b"\r\n\r\n" not in h:
            d = s.recv(1)
            if not d:
                break
            h += d
        assert h.startswith(b"HTTP/1.1 200"), h
        s.setblocking(False)
    # Every tunnel sends 1 MiB and reads its echo, all at once.
    sel = selectors.DefaultSelector()
    st = {}
    for i, s in enumerate(conns):
        st[s] = [bytes([65 + i % 26]) * size, 0, 0]
        sel.register(s, selectors.EVENT_READ | selectors.EVENT_WRITE)
    bad = 0
    deadline = time.monotonic() + 60
    while st and time.monotonic() < deadline:
        for k, ev in sel.select(1):
            s = k.fileobj
            if s not in st:
                continue
            data, sent, got = st[s]
            if ev & selectors.EVENT_WRITE and sent < size:
                try:
                    sent += s.send(data[sent:sent + 65536])
                except BlockingIOError:
                    pass
            if ev & selectors.EVENT_READ:
                try:
                    d = s.recv(65536)
                except BlockingIOError:
                    d = None
                except ConnectionError:
                    d = b""
                if d == b"" or (d and d != data[:1] * len(d)):
                    bad += 1
                    sel.unregister(s)
                    del st[s]
                    continue
                if d:
                    got += len(d)
            if got >= size:
                sel.unregister(s)
                del st[s]
                continue
            st[s] = [data, sent, got]
            sel.modify(s, selectors.EVENT_READ | (selectors.EVENT_WRITE if sent < size else 0))
    print("ok", a.n - bad - len(st), "bad", bad, "unfinished", len(st))
    return 0


def interleave(a):
    x = connect(a.port)
    y = connect(a.port)
    x.sendall(b"GET http://127.0.0.1:%d/first HTTP/1.1\r\nHo" % a.up)
    y.sendall(b"\x00\x01\x02 junk\r\n\r\n")
    y.settimeout(5)
    assert y.recv(100).startswith(b"HTTP/1.1 400")
    x.sendall(b"st: x\r\nConnection: close\r\n\r\n")
    x.settimeout(5)
    out = read_to_close(x)
    assert b"GET /first" in out, out
    print("ok")
    return 0


def slow_body(a):
    body, host, up = a.body.encode(), a.host.encode(), str(a.up).encode()
    s = connect(a.port)
    s.sendall(b"POST http://%s:%s/p HTTP/1.1\r\nHost: %s:%s\r\nContent-Length: %d\r\n\r\n"
              % (host, up, host, up, len(body)))
    time.sleep(0.3)
    s.sendall(body[:3])
    if a.how == "go":
        time.sleep(0.2)
        s.sendall(body[3:])
    s.settimeout(10)
    out = b""
    while True:
        d = s.recv(65536)
        if not d:
            break
        out += d
        if b"\r\n\r\n" in out:
            head, _, rest = out.partition(b"\r\n\r\n")
            n = [int(f.split(b":")[1]) for f in head.split(b"\r\n")
                 if f.lower().startswith(b"content-length:")]
            if n and len(rest) >= n[0]:
                break
    print(out.decode("latin-1"))
    return 0


def read_ahead(a):
    c = connect(a.port)
    c.settimeout(5)
    c.sendall(("POST http://localhost:%d/ HTTP/1.1\r\nHost: localhost:%d\r\n"
               "Content-Length: 5\r\n\r\nhello" % (a.up, a.up)).encode())
    r = b""
    while b"\r\n\r\n" not in r:
        r += c.recv(65536)
    print(r.split(b"\r\n")[0].decode())
    time.sleep(0.3)
    c.sendall(("GET http://127.0.0.1:%d/x HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n"
               % (a.up, a.up)).encode())
    r = b""
    try:
        while b"ok" not in r:
            r += c.recv(65536)
    except Exception:
        pass
    print(r.split(b"\r\n")[0].decode())
    return 0


def live_update(a):
    import subprocess
    up = a.up
    # A tunnel opened while 127.0.0.1:UP is allowed ...
    s = connect(a.port)
    s.sendall(b"CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % (up, up))
    print("tunnel:", s.recv(4096).split(b"\r\n")[0].decode(), flush=True)
    while not os.path.exists(a.go):
        time.sleep(0.05)
    # ... keeps working after an update took the host away,
    s.sendall(b"GET /old HTTP/1.1\r\nHost: 127.0.0.1:%d\r\n\r\n" % up)
    print("old tunnel:", s.recv(4096).split(b"\r\n")[0].decode(), flush=True)
    # while a new request is judged by the update.
    r = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", "--noproxy", "",
                        "http://127.0.0.1:%d/new" % up], capture_output=True, text=True)
    print("new request:", r.stdout, flush=True)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("send")
    c.add_argument("port", type=int)
    c.add_argument("bytes")
    c.add_argument("--wait", type=float, default=3)
    c.add_argument("--half-close", action="store_true")
    c.add_argument("--pad", type=int, default=0)
    c.add_argument("--until-eof", action="store_true")
    c.add_argument("--summary")
    c.set_defaults(run=send)
    c = sub.add_parser("hold")
    c.add_argument("port", type=int)
    c.add_argument("ready")
    c.add_argument("release")
    c.set_defaults(run=hold)
    c = sub.add_parser("tunnel")
    c.add_argument("port", type=int)
    for name in ("target", "ready", "go", "bytes", "out"):
        c.add_argument(name)
    c.set_defaults(run=tunnel)
    for name, run, extra in (("burst", burst, "n"), ("trickle", trickle, None),
                             ("tunnels", tunnels, "n"), ("interleave", interleave, None)):
        c = sub.add_parser(name)
        c.add_argument("port", type=int)
        c.add_argument("up", type=int)
        if extra:
            c.add_argument(extra, type=int)
        c.set_defaults(run=run)
    c = sub.add_parser("slow-body")
    c.add_argument("port", type=int)
    c.add_argument("up", type=int)
    c.add_argument("host")
    c.add_argument("body")
    c.add_argument("how", choices=("go", "hold"))
    c.set_defaults(run=slow_body)
    for name, run, extra in (("read-ahead", read_ahead, None), ("live-update", live_update, "go")):
        c = sub.add_parser(name)
        c.add_argument("port", type=int)
        c.add_argument("up", type=int)
        if extra:
            c.add_argument(extra)
        c.set_defaults(run=run)
    c = sub.add_parser("idle")
    c.add_argument("port", type=int)
    c.add_argument("seconds", type=float)
    c.set_defaults(run=idle)
    a = p.parse_args()
    return a.run(a)


sys.exit(main())
