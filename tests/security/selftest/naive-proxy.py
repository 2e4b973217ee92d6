#!/usr/bin/env python3
"""A deliberately naive proxy for the battery's self-test: no policy, no parsing rigour.

usage: naive-proxy.py
Listens on 127.0.0.1:3128 (HTTP: absolute-form forwarded as received, CONNECT tunnels
anywhere) and 127.0.0.1:1080 (SOCKS5, any destination), in whatever network namespace
it is started. Never run it where its listeners are reachable by anything but the
self-test. Exits after 60 s.
"""
import select
import socket
import struct
import threading
import time
from urllib.parse import urlsplit


def pipe(a, b):
    socks = [a, b]
    try:
        while True:
            r, _, _ = select.select(socks, [], [], 3)
            if not r:
                return
            for s in r:
                d = s.recv(65536)
                if not d:
                    return
                (b if s is a else a).sendall(d)
    except OSError:
        pass
    finally:
        a.close()
        b.close()


def http(c):
    buf = b''
    while b'\r\n\r\n' not in buf:
        d = c.recv(65536)
        if not d:
            c.close()
            return
        buf += d
    line = buf.split(b'\r\n', 1)[0].decode('latin-1')
    method, target, _ = line.split(' ', 2)
    try:
        if method == 'CONNECT':
            host, port = target.rsplit(':', 1)
            u = socket.create_connection((host.strip('[]'), int(port)), timeout=3)
            c.sendall(b'HTTP/1.1 200 Connection Established\r\n\r\n')
            rest = buf.split(b'\r\n\r\n', 1)[1]
            if rest:
                u.sendall(rest)
        else:
            p = urlsplit(target)
            u = socket.create_connection((p.hostname, p.port or 80), timeout=3)
            u.sendall(buf)
    except (OSError, ValueError):
        c.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
        c.close()
        return
    pipe(c, u)


def socks(c):
    try:
        c.recv(3)
        c.sendall(b'\x05\x00')
        h = c.recv(4)
        if h[3] == 1:
            host = socket.inet_ntop(socket.AF_INET, c.recv(4))
        elif h[3] == 4:
            host = socket.inet_ntop(socket.AF_INET6, c.recv(16))
        else:
            host = c.recv(c.recv(1)[0]).split(b'\0')[0].decode('latin-1')
        port = struct.unpack('>H', c.recv(2))[0]
        u = socket.create_connection((host, port), timeout=3)
    except (OSError, IndexError, ValueError):
        c.sendall(b'\x05\x04\x00\x01' + bytes(6))
        c.close()
        return
    c.sendall(b'\x05\x00\x00\x01' + bytes(6))
    pipe(c, u)


def serve(port, handler):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    s.listen(64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handler, args=(c,), daemon=True).start()


for port, handler in ((3128, http), (1080, socks)):
    threading.Thread(target=serve, args=(port, handler), daemon=True).start()
time.sleep(60)
