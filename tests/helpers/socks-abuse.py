#!/usr/bin/env python3
"""Adversarial SOCKS5 clients against srt-socksd handing CONNECTs to srt-httpd
(tests/proxies/tls.bats).

  socks-abuse.py PORT CAFILE errors      12 rounds of: a.test granted then closed by srt-httpd
      (c.test, which only srt-socksd allows), a ClientHello start then garbage, a client gone
      at once, a silent one; prints the replies and whether each was closed.
  socks-abuse.py PORT CAFILE good        TLS (verified with CAFILE) and GET / to a.test:8443.
  socks-abuse.py PORT CAFILE flood N [S] N CONNECTs to a.test:8443 held open; with S, after S
      seconds how many the proxies closed.
"""
import socket, ssl, sys, time
from socks5client import socks_connect
port, cafile = int(sys.argv[1]), sys.argv[2]

def socks(host, dport, early=b""):
    return socks_connect(port, host, dport, early)

def closed_within(s, t):
    s.settimeout(t)
    try:
        while True:
            d = s.recv(4096)
            if not d:
                return True
    except (socket.timeout, TimeoutError):
        return False
    except OSError:
        return True

mode = sys.argv[3]
if mode == "errors":
    res = {}
    for i in range(12):
        # Granted by srt-socksd's policy, denied by srt-httpd's: closed.
        s, rep = socks("c.test", 8443)
        res.setdefault("denied-by-httpd", []).append((rep, closed_within(s, 5)))
        s.close()
        # A ClientHello start, then garbage: the handshake fails, closed.
        s, rep = socks("a.test", 8443)
        s.sendall(b"\x16\x03\x01\x00\x05garbagegarbage")
        res.setdefault("bad-hello", []).append((rep, closed_within(s, 5)))
        s.close()
        # Gone at once after the reply.
        s, rep = socks("a.test", 8443)
        s.close()
        # Silent until the handshake deadline.
        s, rep = socks("a.test", 8443)
        res.setdefault("silent", []).append((rep, closed_within(s, 5)))
        s.close()
    for k, v in res.items():
        print(k, "replies", sorted(set(x[0] for x in v)), "all closed", all(x[1] for x in v))
elif mode == "good":
    s, rep = socks("a.test", 8443)
    ctx = ssl.create_default_context(cafile=cafile)
    t = ctx.wrap_socket(s, server_hostname="a.test")
    t.sendall(b"GET / HTTP/1.1\r\nHost: a.test:8443\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        d = t.recv(65536)
        if not d:
            break
        data += d
    print("good", data.split(b"\r\n")[0].decode())
elif mode == "flood":
    n = int(sys.argv[4])
    socks_ = []
    reps = {}
    for i in range(n):
        try:
            s, rep = socks("a.test", 8443)
        except OSError as e:
            reps["error " + type(e).__name__] = reps.get("error " + type(e).__name__, 0) + 1
            continue
        reps[rep] = reps.get(rep, 0) + 1
        socks_.append(s)
    print("flood replies", sorted(reps.items(), key=str), flush=True)
    if len(sys.argv) > 5:
        time.sleep(float(sys.argv[5]))
        print("flood: closed by the proxies", sum(closed_within(s, 0.01) for s in socks_), "of", len(socks_), flush=True)
    for s in socks_:
        s.close()
