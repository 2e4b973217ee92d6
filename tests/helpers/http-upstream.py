#!/usr/bin/env python3
"""The upstreams tests/proxies/httpd.bats and control.bats put behind srt-httpd, on
127.0.0.1:PORT until killed:

  http-upstream.py echo PORT LOG   an HTTP/1.1 server that answers every request with its
                                   method and target, its fields and its (de-chunked)
                                   body as text, and appends the request line to LOG.
                                   Its answers carry hop-by-hop fields of its own
                                   (Connection: keep-alive, X-Drop; X-Drop; Keep-Alive),
                                   framed by Content-Length (no body to HEAD); /close is
                                   answered with Connection: close, unframed, and closed
  http-upstream.py head PORT       an HTTP/1.1 server that answers every request with the
                                   request line and fields it received and its body
                                   (de-chunked), framed by Content-Length
  http-upstream.py record PORT FILE
                                   records in FILE the bytes of the first connection
                                   that sends any (until 3 s pass, or it closes, or 1 s
                                   passes without bytes after a head), answering each
                                   read with "ok" once a head has come; then exits
  http-upstream.py big PORT        answers whatever arrives first on a connection with
                                   the big body (below) framed by Content-Length, all in
                                   one write, then closes (a connection that sends
                                   nothing, as wait_listening's probe, is just closed)
  http-upstream.py tcp-echo PORT   sends back every byte each connection sends, without
                                   ever blocking on one of them (tunnels under load)
  http-upstream.py big-body        prints the big body: bytes 0..255 repeated, 6 MiB
"""
import selectors
import socket
import sys
import threading
import time

BIG_BODY = bytes(range(256)) * (6 * 4096)


def listener(port, backlog):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(backlog)
    return s


def readline(f):
    return f.readline(65536)


def echo_http(c, logf):
    f = c.makefile("rb")
    while True:
        line = readline(f)
        if not line:
            break
        heads = []
        while True:
            h = readline(f)
            if h in (b"\r\n", b"\n", b""):
                break
            heads.append(h.decode("latin-1").rstrip("\r\n"))
        body = b""
        hd = {h.split(":", 1)[0].strip().lower(): h.split(":", 1)[1].strip() for h in heads}
        if "content-length" in hd:
            body = f.read(int(hd["content-length"]))
        elif hd.get("transfer-encoding", "").lower() == "chunked":
            while True:
                n = int(readline(f).split(b";")[0], 16)
                if n == 0:
                    readline(f)
                    break
                body += f.read(n)
                readline(f)
        with open(logf, "a") as lf:
            lf.write(line.decode("latin-1").rstrip("\r\n") + "\n")
        method, target = line.split()[0].decode(), line.split()[1].decode()
        out = ("%s %s\n" % (method, target)).encode() + \
            "".join(h + "\n" for h in heads).encode("latin-1") + b"\n" + body
        if target == "/close":
            c.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nX-Up: 1\r\n\r\n" + out)
            break
        extra = b"Connection: keep-alive, X-Drop\r\nX-Drop: 1\r\nKeep-Alive: timeout=5\r\n"
        head = b"HTTP/1.1 200 OK\r\n" + extra + b"Content-Length: %d\r\n\r\n" % len(out)
        c.sendall(head if method == "HEAD" else head + out)
    c.close()


def serve_echo(port, logf):
    s = listener(port, 64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo_http, args=(c, logf), daemon=True).start()


def echo_head(c):
    f = c.makefile("rb")
    while True:
        line = f.readline(65536)
        if not line:
            break
        heads = []
        while True:
            h = f.readline(65536)
            if h in (b"\r\n", b"\n", b""):
                break
            heads.append(h.decode("latin-1").rstrip("\r\n"))
        hd = {h.split(":", 1)[0].strip().lower(): h.split(":", 1)[1].strip() for h in heads}
        body = f.read(int(hd["content-length"])) if "content-length" in hd else b""
        while hd.get("transfer-encoding") == "chunked":
            n = int(f.readline(), 16)
            body += f.read(n)
            f.readline()
            if n == 0:
                break
        out = line + "".join(h + "\n" for h in heads).encode("latin-1") + b"\n" + body
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(out) + out)
    c.close()


def serve_head(port):
    s = listener(port, 64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=echo_head, args=(c,), daemon=True).start()


def record(port, path):
    s = listener(port, 1)
    got = b""
    while not got:                  # wait_listening's probe connects and sends nothing
        c, _ = s.accept()
        c.settimeout(1.0)
        end = time.time() + 3
        while time.time() < end:
            try:
                b = c.recv(65536)
            except socket.timeout:
                if b"\r\n\r\n" in got:
                    break
                continue
            if not b:
                break
            got += b
            if b"\r\n\r\n" in got:
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                time.sleep(0.5)
    open(path, "wb").write(got)


def serve_big(port):
    s = listener(port, 4)
    while True:
        c, _ = s.accept()
        try:
            if c.recv(65536):
                c.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(BIG_BODY)
                          + BIG_BODY)
        except OSError:
            pass
        c.close()


def serve_tcp_echo(port):
    sel = selectors.DefaultSelector()
    lst = listener(port, 512)
    lst.setblocking(False)
    sel.register(lst, selectors.EVENT_READ)
    pend = {}
    while True:
        for k, ev in sel.select():
            if k.fileobj is lst:
                c, _ = lst.accept()
                c.setblocking(False)
                pend[c] = b""
                sel.register(c, selectors.EVENT_READ)
                continue
            c = k.fileobj
            if ev & selectors.EVENT_READ:
                try:
                    d = c.recv(65536)
                except ConnectionError:
                    d = b""
                if not d:
                    sel.unregister(c)
                    c.close()
                    pend.pop(c, None)
                    continue
                pend[c] += d
            if pend.get(c):
                try:
                    n = c.send(pend[c])
                except BlockingIOError:
                    n = 0
                pend[c] = pend[c][n:]
            sel.modify(c, selectors.EVENT_READ | (selectors.EVENT_WRITE if pend[c] else 0))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "echo" and len(argv) == 4:
        serve_echo(int(argv[2]), argv[3])
    elif cmd == "head" and len(argv) == 3:
        serve_head(int(argv[2]))
    elif cmd == "record" and len(argv) == 4:
        record(int(argv[2]), argv[3])
    elif cmd == "big" and len(argv) == 3:
        serve_big(int(argv[2]))
    elif cmd == "tcp-echo" and len(argv) == 3:
        serve_tcp_echo(int(argv[2]))
    elif cmd == "big-body" and len(argv) == 2:
        sys.stdout.buffer.write(BIG_BODY)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
