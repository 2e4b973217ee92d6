#!/usr/bin/env python3
"""A stub server standing for the outside world in the security battery.

usage: upstream.py tcp|http|udp ADDR PORT NAME LOG READY
  tcp   sends "BANNER-NAME" on every connection, logs what the client sends
  http  answers every request with 200 and body "UPSTREAM-NAME", logs raw bytes and,
        for each request it parsed (Content-Length or chunked body), its head as
        "request b'...'"; to a path /resp-conn/NAME it answers with "Connection: NAME"
        (and a chunked body when NAME is transfer-encoding); to /resp-strip with fields
        for stripResponseHeaders (STRIP-* values to be removed, KEEP-* to be kept), in an
        interim 103, the head and a chunked body's trailer
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


def chunked_len(buf, pos):
    """End of a chunked body starting at pos in buf, or 0 while incomplete."""
    while True:
        eol = buf.find(b'\r\n', pos)
        if eol < 0:
            return 0
        size = int(buf[pos:eol].split(b';')[0] or b'0', 16)
        pos = eol + 2
        if size == 0:
            break
        pos += size + 2
    while True:     # trailer lines, then the empty line
        eol = buf.find(b'\r\n', pos)
        if eol < 0:
            return 0
        if eol == pos:
            return eol + 2
        pos = eol + 2


def head_len(buf):
    """(length of one complete request in buf or 0, its head) by its Content-Length or
    chunked body, the way a server reads it."""
    end = buf.find(b'\r\n\r\n')
    if end < 0:
        return 0, b''
    clen = 0
    chunked = False
    for line in buf[:end].split(b'\r\n')[1:]:
        k, _, v = line.partition(b':')
        k, v = k.strip().lower(), v.strip()
        if k == b'content-length' and v.isdigit():
            clen = int(v)
        if k == b'transfer-encoding' and v.lower() == b'chunked':
            chunked = True
    if chunked:
        try:
            total = chunked_len(buf, end + 4)
        except ValueError:
            total = len(buf)    # not chunked after all: take it all as one
        return total, buf[:end]
    total = end + 4 + clen
    return (total, buf[:end]) if len(buf) >= total else (0, b'')


def reply(head):
    """The answer to a request head."""
    body = b'UPSTREAM-' + name.encode()
    target = head.split(b' ', 2)[1] if head.count(b' ') >= 2 else b''
    if target == b'/resp-strip':
        # For stripResponseHeaders: every field named STRIP-* in some spelling (case,
        # '_' or '.' for '-', twice), in an interim 103 and in the chunked trailer too;
        # KEEP-* must get through.
        return (b'HTTP/1.1 103 Early Hints\r\nSet-Cookie: STRIP-early\r\n'
                b'X-Cli-Secret: STRIP-early2\r\n\r\n'
                b'HTTP/1.1 200 OK\r\nSet-Cookie: a=STRIP-1\r\nSET-COOKIE: b=STRIP-2\r\n'
                b'set-cookie: c=STRIP-3\r\nX-Cli-Secret: STRIP-4\r\nx_cli.SECRET: STRIP-5\r\n'
                b'X-Both: STRIP-6\r\nx-both: STRIP-7\r\nX-Policy_Only: STRIP-8\r\n'
                b'X-Other: KEEP-1\r\nX-Cli-Secrets: KEEP-2\r\n'
                b'X-' + b'L' * 300 + b': LONG-11\r\n'
                b'Trailer: Set-Cookie, X-Cli-Secret\r\n'
                b'Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n'
                b'Set-Cookie: t=STRIP-9\r\nX-Cli-Secret: STRIP-10\r\n\r\n'
                % (len(body), body))
    if target.startswith(b'/resp-conn/'):
        conn = target[len(b'/resp-conn/'):]
        if conn.lower() == b'transfer-encoding':
            return (b'HTTP/1.1 200 OK\r\nConnection: %s\r\n'
                    b'Transfer-Encoding: chunked\r\n\r\n%x\r\n%s\r\n0\r\n\r\n'
                    % (conn, len(body), body))
        return (b'HTTP/1.1 200 OK\r\nConnection: %s\r\nContent-Length: %d\r\n\r\n%s'
                % (conn, len(body), body))
    return (b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n'
            b'Content-Length: %d\r\n\r\n%s' % (len(body), body))


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
                n, head = head_len(buf)
                if n == 0:
                    break
                log('request %r' % head)
                buf = buf[n:]
                c.sendall(reply(head))
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
