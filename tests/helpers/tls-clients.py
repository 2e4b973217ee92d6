#!/usr/bin/env python3
"""The clients tests/proxies/tls.bats drives srt-httpd and srt-socksd with under
network.tlsTerminate, for what curl cannot do or to be a real Python client ($TLSC):

  tls-clients.py requests URL [--proxy PROXY] [--verify CAFILE] [--status]
      a GET with the requests library (its proxy and CA bundle from --proxy and
      --verify, else from the environment, as a program under srt finds them); prints
      "requests", with --status the reply's status, and the body, stripped
  tls-clients.py sni PORT TARGET SNI HOST CAFILE
      opens a CONNECT tunnel to TARGET through the proxy on 127.0.0.1:PORT, starts TLS in
      it naming SNI (trusting CAFILE, any name accepted), sends a GET for /hdr with Host:
      HOST; prints "leaf=SANS status=STATUS-LINE body=BODY"
  tls-clients.py hold-tunnels PORT
      opens a CONNECT tunnel to a.test:8443 and prints "first" and its status line, then
      a second ("second", its reply with "|" for each CRLF), then waits (up to 5 s) for a
      byte on the first, silent one; prints "silent closed after N s: READ" (b'' for a
      close, None for an error)
  tls-clients.py banner PORT LABEL
      a server on 127.0.0.1:2525 that greets each connection with "220 banner ready",
      and a SOCKS5 CONNECT to a.test:2525 through 127.0.0.1:PORT that sends nothing;
      prints LABEL, the reply's REP and what came within 3 s (or the error's name)
"""
import argparse
import socket
import ssl
import sys
import threading
import time


def requests_get(a):
    import requests
    kw = {}
    if a.proxy:
        kw["proxies"] = {"https": a.proxy}
    if a.verify:
        kw["verify"] = a.verify
    r = requests.get(a.url, **kw)
    if a.status:
        print("requests", r.status_code, r.text.strip())
    else:
        print("requests", r.text.strip())
    return 0


def connect_head(s, target):
    """Sends a CONNECT for target and reads its reply's head (to the close at worst)."""
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target, target)).encode())
    r = b""
    while b"\r\n\r\n" not in r:
        d = s.recv(4096)
        if not d:
            break
        r += d
    return r


def sni(a):
    s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
    s.sendall(("CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (a.target, a.target)).encode())
    r = b""
    while b"\r\n\r\n" not in r:
        r += s.recv(1)
    ctx = ssl.create_default_context(cafile=a.cafile)
    ctx.check_hostname = False
    t = ctx.wrap_socket(s, server_hostname=a.sni)
    san = [v for k, v in t.getpeercert()["subjectAltName"]]
    t.sendall(("GET /hdr HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % a.host).encode())
    out = b""
    while True:
        d = t.recv(65536)
        if not d:
            break
        out += d
    print("leaf=%s status=%s body=%s" % (",".join(san), out.split(b"\r\n")[0].decode(),
                                         out.split(b"\r\n\r\n", 1)[1].decode().strip()))
    return 0


def hold_tunnels(a):
    def tunnel():
        s = socket.create_connection(("127.0.0.1", a.port), timeout=10)
        return s, connect_head(s, "a.test:8443")
    t = time.time()
    s1, r1 = tunnel()
    print("first", r1.split(b"\r\n")[0].decode())
    s2, r2 = tunnel()
    print("second", r2.decode().replace("\r\n", "|"))
    s1.settimeout(5)
    try:
        d = s1.recv(1)
    except OSError:
        d = None
    print("silent closed after %.1f s: %r" % (time.time() - t, d))
    return 0


def banner(a):
    from socks5client import socks_connect
    srv = socket.socket()
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind(("127.0.0.1", 2525))
    srv.listen(4)

    def serve():
        while True:
            c, _ = srv.accept()
            c.sendall(b"220 banner ready\r\n")
    threading.Thread(target=serve, daemon=True).start()
    s, rep = socks_connect(a.port, "a.test", 2525)
    s.settimeout(3)
    try:
        d = s.recv(100)
    except OSError as e:
        d = type(e).__name__.encode()
    print(a.label, rep, d.decode().strip())
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("requests")
    c.add_argument("url")
    c.add_argument("--proxy")
    c.add_argument("--verify")
    c.add_argument("--status", action="store_true")
    c.set_defaults(run=requests_get)
    c = sub.add_parser("sni")
    c.add_argument("port", type=int)
    for name in ("target", "sni", "host", "cafile"):
        c.add_argument(name)
    c.set_defaults(run=sni)
    c = sub.add_parser("hold-tunnels")
    c.add_argument("port", type=int)
    c.set_defaults(run=hold_tunnels)
    c = sub.add_parser("banner")
    c.add_argument("port", type=int)
    c.add_argument("label")
    c.set_defaults(run=banner)
    a = p.parse_args()
    return a.run(a)


sys.exit(main())
