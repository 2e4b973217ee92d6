"""A SOCKS5 client for the tests: one CONNECT, no authentication, by domain name."""
import socket
import struct


def socks_connect(port, host, dport, early=b"", timeout=10):
    """CONNECT to host:dport through the SOCKS5 proxy on 127.0.0.1:port, sending early
    right behind the request. Returns the socket and the reply's REP (None when the
    proxy closed before answering)."""
    s = socket.create_connection(("127.0.0.1", port), timeout=timeout)
    h = host.encode()
    s.sendall(b"\x05\x01\x00" + b"\x05\x01\x00\x03" + bytes([len(h)]) + h +
              struct.pack(">H", dport) + early)
    r = b""
    while len(r) < 12:
        d = s.recv(12 - len(r))
        if not d:
            break
        r += d
    # The method reply (2 bytes), then the request's: its REP is the fourth byte.
    return s, r[3] if len(r) >= 4 else None
