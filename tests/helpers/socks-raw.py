#!/usr/bin/env python3
"""A SOCKS5 client for the cases curl cannot produce (tests/proxies/socksd.bats), on
127.0.0.1:PORT; UP is the port of the test's upstream (an http.server on 127.0.0.1):

  socks-raw.py PORT HEXBYTES [--pieces] [--read N]
      sends the bytes (one at a time with small sleeps with --pieces), then prints what
      the proxy answered in hex ("EOF" appended when the proxy closed), reading at most
      N bytes (4096)
  socks-raw.py hex HOST PORT
      prints in hex a greeting (no authentication) and a CONNECT to the domain name HOST
      at PORT, as one would send them at once
  socks-raw.py ssh-refusal PORT HOST
      asks for HOST port 22 and sends an SSH identification; asserts the refusal the
      proxy answers with (a granted reply, its own SSH identification, then one
      well-formed SSH_MSG_DISCONNECT with language tag "") and prints its description
  socks-raw.py tunnel PORT UP READY
      opens a tunnel to localhost:UP, creates the file READY, waits (up to 30 s) for the
      file READY-go, then sends a GET for / and prints "tunnel", the proxy's reply in hex
      and whether the upstream's page ("hello from upstream") came through
  socks-raw.py burst PORT N
      holds one connection past its greeting, then sends N greetings at once on N more;
      prints "good K": K of them read the refusal 05ff to the close
  socks-raw.py trickle PORT
      sends a greeting offering 255 methods one byte every 0.2 s; prints how the
      connection ended (eof, reset, open) and whether that took under 6 s
"""
import os
import socket
import struct
import sys
import time


def connect(port, timeout=None):
    return socket.create_connection(("127.0.0.1", port), timeout=timeout)


def connect_request(host, port):
    h = host.encode()
    return b"\x05\x01\x00\x05\x01\x00\x03" + bytes([len(h)]) + h + port.to_bytes(2, "big")


def read_to_close(s, size):
    got = b""
    while True:
        c = s.recv(size)
        if not c:
            return got
        got += c


def send(argv):
    port, data = int(argv[1]), bytes.fromhex(argv[2])
    pieces = "--pieces" in argv
    want = int(argv[argv.index("--read") + 1]) if "--read" in argv else 4096
    s = connect(port, 10)
    if pieces:
        for b in data:
            s.sendall(bytes([b]))
            time.sleep(0.02)
    else:
        s.sendall(data)
    got = b""
    eof = False
    while len(got) < want:
        try:
            chunk = s.recv(want - len(got))
        except ConnectionResetError:
            eof = True
            break
        except socket.timeout:
            break
        if not chunk:
            eof = True
            break
        got += chunk
    print(got.hex() + (" EOF" if eof else ""))


def ssh_refusal(port, host):
    s = connect(port, 10)
    s.sendall(connect_request(host, 22))
    s.sendall(b"SSH-2.0-OpenSSH_test\r\n")
    got = read_to_close(s, 4096)
    assert got[:2] == b"\x05\x00" and got[2:12] == b"\x05\x00\x00\x01" + bytes(6), got[:12]
    rest = got[12:]
    ident = b"SSH-2.0-policy_refusal\r\n"
    assert rest.startswith(ident), rest
    pkt = rest[len(ident):]
    plen, pad = struct.unpack(">IB", pkt[:5])
    assert len(pkt) == 4 + plen and len(pkt) % 8 == 0 and 4 <= pad <= 11, (plen, pad)
    assert pkt[5] == 1 and struct.unpack(">I", pkt[6:10])[0] == 1
    dlen = struct.unpack(">I", pkt[10:14])[0]
    print(pkt[14:14 + dlen].decode())
    assert struct.unpack(">I", pkt[14 + dlen:18 + dlen])[0] == 0


def tunnel(port, up, ready):
    s = connect(port, 10)
    s.sendall(connect_request("localhost", up))
    r = b""
    while len(r) < 12:
        r += s.recv(12 - len(r))
    open(ready, "w").close()
    for _ in range(600):
        if os.path.exists(ready + "-go"):
            break
        time.sleep(0.05)
    s.sendall(b"GET / HTTP/1.0\r\n\r\n")
    data = read_to_close(s, 4096)
    print("tunnel", r.hex(), b"hello from upstream" in data)


def burst(port, n):
    held = connect(port)
    held.sendall(b"\x05\x01\x00")
    held.settimeout(5)
    assert held.recv(2) == b"\x05\x00"
    socks = []
    for _ in range(n):
        s = connect(port)
        s.sendall(b"\x05\x01\x00")
        socks.append(s)
    good = 0
    for s in socks:
        s.settimeout(5)
        got = b""
        try:
            got = read_to_close(s, 16)
        except (ConnectionResetError, socket.timeout) as e:
            print("client error:", repr(e), got.hex())
            continue
        if got == b"\x05\xff":
            good += 1
        else:
            print("unexpected:", got.hex())
    print("good", good)
    held.close()


def trickle(port):
    s = connect(port)
    s.settimeout(0.25)
    # A greeting offering 255 methods, one byte every 0.2 s: never complete in time.
    data = b"\x05\xff" + bytes(range(255))
    t0 = time.monotonic()
    i, how = 0, "open"
    while time.monotonic() - t0 < 15:
        try:
            s.sendall(data[i:i + 1])
            i += 1
            d = s.recv(16)
            if not d:
                how = "eof"
                break
        except socket.timeout:
            pass
        except (ConnectionResetError, BrokenPipeError):
            how = "reset"
            break
        time.sleep(0.2)
    print(how, time.monotonic() - t0 < 6)


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd.isdigit() and len(argv) >= 3:
        send(argv)
    elif cmd == "hex" and len(argv) == 4:
        print(connect_request(argv[2], int(argv[3])).hex())
    elif cmd == "ssh-refusal" and len(argv) == 4:
        ssh_refusal(int(argv[2]), argv[3])
    elif cmd == "tunnel" and len(argv) == 5:
        tunnel(int(argv[2]), int(argv[3]), argv[4])
    elif cmd == "burst" and len(argv) == 4:
        burst(int(argv[2]), int(argv[3]))
    elif cmd == "trickle" and len(argv) == 3:
        trickle(int(argv[2]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
