#!/usr/bin/env python3
"""A stub server standing for the outside world in the security battery.

usage: upstream.py tcp|http|udp ADDR PORT NAME LOG READY
  tcp   sends "BANNER-NAME" on every connection, logs what the client sends
  http  answers every request head with 200 and body "UPSTREAM-NAME", logs raw bytes
  udp   answers every datagram with "BANNER-NAME", logs it
Every connection and every byte received is logged to LOG (one line each, repr form),
so a test can show that nothing reached it. READY is written once the socket is bound.
It exits by itself after 120 s, in case the test that started it never stops it.
"""
import socket
import sys
import threading
import time

mode, addr, port, name, logpath, ready = sys.argv[1:7]
port = int(port)
lock = threading.Lock()


def log(line):
    with lock, open(logpath, 'a') as f:
        f.write(line + '\n')


def head_len(buf):
    """Length of one complete request (head and Content-Length body) in buf, or 0."""
    end = buf.find(b'\r\n\r\n')
    if end < 0:
        return 0
    clen = 0
    for line in buf[:end].split(b'\r\n')[1:]:
        k, _, v = line.partition(b':')
        if k.strip().lower() == b'content-length' and v.strip().isdigit():
            clen = int(v.strip())
    total = end + 4 + clen
    return total if len(buf) >= total else 0


def serve_conn(c, peer):
    log('conn %s' % (peer,))
    c.settimeout(2.0)
    buf = b''
    try:
        if mode == 'tcp':
            c.sendall(b'BANNER-' + name.encode() + b'\n')
        while True:
            try:
                data = c.recv(65536)
            except socket.timeout:
                break
            if not data:
                break
            log('data %r' % data)
            if mode != 'http':
                continue
            buf += data
            while True:
                n = head_len(buf)
                if n == 0:
                    break
                buf = buf[n:]
                body = b'UPSTREAM-' + name.encode()
                c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n'
                          b'Content-Length: %d\r\n\r\n%s' % (len(body), body))
    except OSError as e:
        log('error %s' % e)
    finally:
        c.close()


def main():
    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
    kind = socket.SOCK_DGRAM if mode == 'udp' else socket.SOCK_STREAM
    s = socket.socket(fam, kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind((addr, port))
    if mode != 'udp':
        s.listen(64)
    open(logpath, 'a').close()
    with open(ready, 'w') as f:
        f.write('ready\n')
    deadline = time.time() + 120
    s.settimeout(1.0)
    while time.time() < deadline:
        try:
            if mode == 'udp':
                data, peer = s.recvfrom(65536)
                log('datagram %s %r' % (peer, data))
                s.sendto(b'BANNER-' + name.encode(), peer)
                continue
            c, peer = s.accept()
        except socket.timeout:
            continue
        threading.Thread(target=serve_conn, args=(c, peer), daemon=True).start()


main()
