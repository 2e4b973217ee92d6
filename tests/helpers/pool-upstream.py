#!/usr/bin/env python3
"""The upstream of tests/proxies/httpd-reuse.bats (srt-httpd's idle connections kept for
reuse, srt-httpd/pool.c), on 127.0.0.1:PORT until killed:

  pool-upstream.py PORT LOG

It numbers its connections from 1 at their first request (probes that send nothing do
not count), answers each request with "conn N METHOD TARGET BODY-LENGTH" and logs to
LOG "N METHOD TARGET CONNECTION" ("-" for no Connection field), "N eof" when the client
closes, and the lines below. By target:
  /ka          keep-alive, framed by Content-Length (any other target too)
  /chunked     keep-alive, chunked
  /close-hdr   says Connection: close, and closes
  /http10      an HTTP/1.0 reply without keep-alive, and closes
  /extra       bytes after the reply (a whole second reply), in the same write
  /extra-later the same bytes 0.2 s after the reply ("N extra sent")
  /eof-later   closes its connection 0.3 s after a keep-alive reply ("N closed")
  /drop-next   a keep-alive reply; the next request on that connection is met with a
               close ("N dropped METHOD TARGET")
"""
import socket
import sys
import threading
import time

SMUGGLED = b'HTTP/1.1 200 OK\r\nX-Smuggled: 1\r\nContent-Length: 0\r\n\r\n'

lock = threading.Lock()
seq = [0]


def log(logf, line):
    with lock, open(logf, 'a') as lf:
        lf.write(line + '\n')


def handle(c, logf):
    f = c.makefile('rb')
    drop = False
    cid = 0
    while True:
        line = f.readline(65536)
        if not line:
            if cid:
                log(logf, '%d eof' % cid)
            break
        if not cid:
            with lock:
                seq[0] += 1
                cid = seq[0]
        hd = {}
        while True:
            h = f.readline(65536)
            if h in (b'\r\n', b'\n', b''):
                break
            k, v = h.decode('latin-1').split(':', 1)
            hd[k.strip().lower()] = v.strip()
        body = f.read(int(hd['content-length'])) if 'content-length' in hd else b''
        method, target = line.split()[0].decode(), line.split()[1].decode()
        if drop:
            log(logf, '%d dropped %s %s' % (cid, method, target))
            break
        log(logf, '%d %s %s %s' % (cid, method, target, hd.get('connection', '-')))
        out = b'conn %d %s %s %d\n' % (cid, method.encode(), target.encode(), len(body))
        if target == '/close-hdr':
            c.sendall(b'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n'
                      % len(out) + out)
            break
        if target == '/http10':
            c.sendall(b'HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n' % len(out) + out)
            break
        if target == '/chunked':
            c.sendall(b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n%x\r\n' % len(out)
                      + out + b'\r\n0\r\n\r\n')
            continue
        head = b'HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n' % len(out)
        if target == '/extra':
            # One write: the proxy reads the reply and what follows it together.
            out += SMUGGLED
        c.sendall(head if method == 'HEAD' else head + out)
        if target == '/extra-later':
            time.sleep(0.2)
            c.sendall(SMUGGLED)
            log(logf, '%d extra sent' % cid)
        elif target == '/eof-later':
            time.sleep(0.3)
            log(logf, '%d closed' % cid)
            break
        elif target == '/drop-next':
            drop = True
    c.close()


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    port, logf = int(argv[1]), argv[2]
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(('127.0.0.1', port))
    s.listen(64)
    while True:
        c, _ = s.accept()
        threading.Thread(target=handle, args=(c, logf), daemon=True).start()


sys.exit(main(sys.argv))
