#!/usr/bin/env python3
"""Test servers for the route tests (tests/proxies/routes.bats): a parent HTTP proxy and an
origin server. Both only ever reach the loopback interface: the parent sends every
destination, whatever its name, to 127.0.0.1 at the destination's port.

  route-servers.py parent (--listen ADDR:PORT | --unix PATH) --name N --log FILE
                   [--auth USER:PASS] [--refuse CODE] [--tls CERT KEY] [--ready FILE]
  route-servers.py origin --listen ADDR:PORT --name N --log FILE [--ready FILE]
  route-servers.py sink --listen ADDR:PORT --tls CERT KEY
  route-servers.py big-body N

The parent logs one line per request: "N METHOD TARGET auth=VALUE" (VALUE is the
Proxy-Authorization it got, or "-"). CONNECT opens a tunnel (200, then bytes both ways);
an absolute-form request is sent on in origin form and the answer relayed. --auth makes
it answer 407 without those credentials, --refuse answers every request with CODE.

The origin answers every request with 200 and a body naming itself, the method, the
target and the Host it got, plus a few headers (Set-Cookie, X_Secret.Token, X-Other) for
the stripResponseHeaders tests; it logs "N METHOD TARGET host=HOST". Two targets differ:
GET /big/N answers N bytes of a fixed pattern (big_body), and a request with a body
to /sha256 answers the body's length and SHA-256.

The sink is a parent that stops reading: it completes each TLS handshake, reads nothing,
answers 200 "ok" 1.5 s later and never closes (a connection whose handshake fails, as
wait_port's probe, is just closed). big-body prints the origin's /big/N body.
"""
import argparse
import base64
import hashlib
import os
import socket
import ssl
import sys
import threading
import time


def log(path, line):
    with open(path, 'a') as f:
        f.write(line + '\n')


class Conn:
    """A socket with what was read past the last head kept for the next read."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b''

    def head(self):
        while b'\r\n\r\n' not in self.buf:
            d = self.sock.recv(65536)
            if not d:
                return None, None
            self.buf += d
        head, _, self.buf = self.buf.partition(b'\r\n\r\n')
        lines = head.decode('latin-1').split('\r\n')
        return lines[0], lines[1:]

    def read(self, n):
        while len(self.buf) < n:
            d = self.sock.recv(65536)
            if not d:
                break
            self.buf += d
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def rest(self):
        out, self.buf = self.buf, b''
        return out


def header(heads, name):
    for h in heads:
        k, _, v = h.partition(':')
        if k.strip().lower() == name:
            return v.strip()
    return None


def pipe(a, b):
    try:
        while True:
            d = a.recv(65536)
            if not d:
                break
            b.sendall(d)
    except OSError:
        pass
    try:
        b.shutdown(socket.SHUT_WR)
    except OSError:
        pass


def parent_conn(c, args):
    f = Conn(c)
    line, heads = f.head()
    if line is None:
        c.close()
        return
    method, target = line.split()[0], line.split()[1]
    got = header(heads, 'proxy-authorization')
    log(args.log, '%s %s %s auth=%s' % (args.name, method, target, got or '-'))
    if args.refuse:
        c.sendall(b'HTTP/1.1 %d Refused by %s\r\nContent-Length: 0\r\n\r\n'
                  % (args.refuse, args.name.encode()))
        c.close()
        return
    if args.auth:
        want = 'Basic ' + base64.b64encode(args.auth.encode()).decode()
        if got != want:
            c.sendall(b'HTTP/1.1 407 Proxy Authentication Required\r\n'
                      b'Proxy-Authenticate: Basic realm="parent"\r\nContent-Length: 0\r\n\r\n')
            c.close()
            return
    if method == 'CONNECT':
        port = int(target.rsplit(':', 1)[1])
        try:
            u = socket.create_connection(('127.0.0.1', port), timeout=5)
        except OSError:
            c.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
            c.close()
            return
        u.settimeout(None)
        c.sendall(b'HTTP/1.1 200 Connection established\r\n\r\n')
        t = threading.Thread(target=pipe, args=(u, c), daemon=True)
        t.start()
        # Bytes the client sent behind its CONNECT head.
        early = f.rest()
        if early:
            u.sendall(early)
        pipe(c, u)
        t.join()
        c.close()
        u.close()
        return
    if not target.startswith('http://'):
        c.sendall(b'HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n')
        c.close()
        return
    rest = target[7:]
    auth, _, path = rest.partition('/')
    port = int(auth.rsplit(':', 1)[1]) if ':' in auth.rsplit(']', 1)[-1] else 80
    body = b''
    if header(heads, 'content-length'):
        body = f.read(int(header(heads, 'content-length')))
    try:
        u = socket.create_connection(('127.0.0.1', port), timeout=5)
    except OSError:
        c.sendall(b'HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n')
        c.close()
        return
    fwd = [h for h in heads if h and not h.lower().startswith(('proxy-', 'connection'))]
    u.sendall(('%s /%s HTTP/1.1\r\n' % (method, path)).encode() +
              ''.join(h + '\r\n' for h in fwd).encode('latin-1') +
              b'Connection: close\r\n\r\n' + body)
    pipe(u, c)
    c.close()
    u.close()


def big_body(n):
    """n bytes of a pattern no shift or loss of a block goes unnoticed in."""
    block = bytes(range(251)) * 4
    return (block * (n // len(block) + 1))[:n]


# The sink's connections, kept open until it is killed.
held = []


def sink_conn(c, args):
    held.append(c)
    time.sleep(1.5)
    c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n')


def origin_conn(c, args):
    f = Conn(c)
    while True:
        line, heads = f.head()
        if line is None:
            break
        method, target = line.split()[0], line.split()[1]
        got = b''
        if header(heads, 'content-length'):
            got = f.read(int(header(heads, 'content-length')))
        if target.startswith('/big/') or target == '/sha256':
            log(args.log, '%s %s %s host=%s' % (args.name, method, target,
                                                header(heads, 'host')))
            body = (big_body(int(target[5:])) if target.startswith('/big/') else
                    ('%d %s\n' % (len(got), hashlib.sha256(got).hexdigest())).encode())
            c.sendall(b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n' % len(body) + body)
            continue
        log(args.log, '%s %s %s host=%s' % (args.name, method, target, header(heads, 'host')))
        body = ('origin %s: %s %s host=%s\n' % (args.name, method, target,
                                                header(heads, 'host'))).encode()
        c.sendall(b'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: id=1\r\n'
                  b'set_cookie: id=2\r\nX_Secret.Token: s3cret\r\nX-Other: kept\r\n'
                  b'Content-Length: %d\r\n\r\n' % len(body) + body)
        if (header(heads, 'connection') or '').lower() == 'close':
            break
    c.close()


def tls_then(ctx, c, handler, args):
    """The sink's handshake, in the connection's own thread; a failed one is closed."""
    try:
        t = ctx.wrap_socket(c, server_side=True)
    except (ssl.SSLError, OSError):
        c.close()
        return
    handler(t, args)


def main():
    if sys.argv[1:2] == ['big-body'] and len(sys.argv) == 3:
        sys.stdout.buffer.write(big_body(int(sys.argv[2])))
        return 0
    p = argparse.ArgumentParser()
    p.add_argument('mode', choices=['parent', 'origin', 'sink'])
    p.add_argument('--listen')
    p.add_argument('--unix')
    p.add_argument('--name')
    p.add_argument('--log')
    p.add_argument('--auth')
    p.add_argument('--refuse', type=int)
    p.add_argument('--tls', nargs=2)
    p.add_argument('--ready')
    args = p.parse_args()
    if args.mode != 'sink' and not (args.name and args.log):
        p.error('--name and --log are required for a parent or an origin')
    if args.unix:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if os.path.exists(args.unix):
            os.unlink(args.unix)
        s.bind(args.unix)
    else:
        host, port = args.listen.rsplit(':', 1)
        host = host.strip('[]')
        s = socket.socket(socket.AF_INET6 if ':' in host else socket.AF_INET)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind((host, int(port)))
    s.listen(64)
    ctx = None
    if args.tls:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.tls[0], args.tls[1])
    if args.ready:
        with open(args.ready, 'w') as f:
            f.write('ready\n')
    handler = {'parent': parent_conn, 'origin': origin_conn, 'sink': sink_conn}[args.mode]
    while True:
        c, _ = s.accept()
        if ctx is not None and args.mode == 'sink':
            # The handshake in the connection's own thread, as the accepts go on.
            threading.Thread(target=tls_then, args=(ctx, c, handler, args),
                             daemon=True).start()
            continue
        if ctx is not None:
            try:
                c = ctx.wrap_socket(c, server_side=True)
            except (ssl.SSLError, OSError) as e:
                log(args.log, '%s TLS-FAILED %s' % (args.name, e))
                c.close()
                continue
        threading.Thread(target=handler, args=(c, args), daemon=True).start()


if __name__ == '__main__':
    sys.exit(main())
