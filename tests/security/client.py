#!/usr/bin/env python3
"""A raw client run inside the sandbox, to speak to the proxies byte by byte.

usage: client.py batch FILE
FILE holds one case a line, fields separated by tabs:
    http NAME PAYLOAD          raw bytes to the HTTP proxy (127.0.0.1:3128); the answer's
                               first line is printed
    http_all NAME PAYLOAD      the same; every status line of the answer is printed
    http_framed NAME PAYLOAD   the same; the answer is read as a client reads responses
                               (by Content-Length, chunked coding, else to the close) and
                               each is printed as "STATUS FRAMING BODY", separated by " | "
    socks NAME ATYP DEST PORT  no-auth SOCKS5 CONNECT through 127.0.0.1:1080 (ATYP 1, 3
                               or 4); "reply N" is printed (N the reply code)
    socks_cmd NAME CMD ATYP DEST PORT
                               the same with another command (2 BIND, 3 UDP ASSOCIATE)
PAYLOAD and DEST are written with Python escapes (\\r\\n, \\x00). The cases run in
parallel; the output is one line "CASE NAME: ANSWER" per case, in the file's order.
"""
import codecs
import re
import socket
import struct
import sys
from concurrent.futures import ThreadPoolExecutor

HTTP_PROXY = ('127.0.0.1', 3128)
SOCKS_PROXY = ('127.0.0.1', 1080)


def unescape(s):
    return codecs.decode(s.encode('latin-1'), 'unicode_escape').encode('latin-1')


def drain(s):
    s.settimeout(3.0)
    out = b''
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            out += d
    except (socket.timeout, ConnectionResetError):
        pass
    return out


def http(payload, every, framed=False):
    with socket.create_connection(HTTP_PROXY, timeout=5) as s:
        s.sendall(unescape(payload))
        out = drain(s)
    if framed:
        return responses(out)
    out = out.decode('latin-1')
    if every:
        return ' '.join(re.findall(r'HTTP/1\.[01] \d\d\d', out))
    return out.split('\n', 1)[0].rstrip('\r')


def responses(out):
    """The responses in out as a client would delimit them."""
    res = []
    while out:
        end = out.find(b'\r\n\r\n')
        if end < 0:
            res.append('garbage %r' % out)
            break
        lines = out[:end].split(b'\r\n')
        status = lines[0].split(b' ')[1].decode('latin-1') if b' ' in lines[0] else '?'
        fields = {}
        for line in lines[1:]:
            k, _, v = line.partition(b':')
            fields[k.strip().lower()] = v.strip()
        rest = out[end + 4:]
        if fields.get(b'transfer-encoding', b'').lower() == b'chunked':
            body, pos = b'', 0
            while True:
                eol = rest.find(b'\r\n', pos)
                if eol < 0:
                    break
                size = int(rest[pos:eol].split(b';')[0], 16)
                body += rest[eol + 2:eol + 2 + size]
                pos = eol + 2 + size + 2
                if size == 0:
                    break
            framing, out = 'chunked', rest[pos:]
        elif b'content-length' in fields:
            n = int(fields[b'content-length'])
            framing, body, out = 'length', rest[:n], rest[n:]
        else:
            framing, body, out = 'close', rest, b''
        res.append('%s %s %s' % (status, framing, body.decode('latin-1')))
    return ' | '.join(res)


def socks(atyp, dest, dport, cmd=1):
    atyp, dest, dport = int(atyp), unescape(dest), int(dport)
    with socket.create_connection(SOCKS_PROXY, timeout=5) as s:
        s.sendall(b'\x05\x01\x00')
        if s.recv(2) != b'\x05\x00':
            return 'reply no-method'
        if atyp == 1:
            a = socket.inet_pton(socket.AF_INET, dest.decode())
        elif atyp == 4:
            a = socket.inet_pton(socket.AF_INET6, dest.decode())
        else:
            a = bytes([len(dest)]) + dest
        s.sendall(bytes([5, int(cmd), 0, atyp]) + a + struct.pack('>H', dport))
        s.settimeout(5.0)
        try:
            r = s.recv(10)
        except (socket.timeout, ConnectionResetError):
            r = b''
    return 'reply %d' % r[1] if len(r) >= 2 else 'reply none'


def run(fields):
    try:
        if fields[0] == 'http':
            return http(fields[2], False)
        if fields[0] == 'http_all':
            return http(fields[2], True)
        if fields[0] == 'http_framed':
            return http(fields[2], False, True)
        if fields[0] == 'socks':
            return socks(*fields[2:5])
        if fields[0] == 'socks_cmd':
            return socks(*fields[3:6], cmd=fields[2])
        return 'bad case %r' % fields[0]
    except (OSError, ValueError, IndexError) as e:
        return 'client error: %s' % e


def main():
    if len(sys.argv) != 3 or sys.argv[1] != 'batch':
        sys.exit('usage: client.py batch FILE')
    with open(sys.argv[2], encoding='latin-1') as f:
        cases = [l.rstrip('\n').split('\t') for l in f if l.strip()]
    with ThreadPoolExecutor(max_workers=16) as pool:
        answers = list(pool.map(run, cases))
    for fields, answer in zip(cases, answers):
        print('CASE %s: %s' % (fields[1], answer))


main()
