#!/usr/bin/env python3
"""Finds a range of loopback ports nothing holds (tests/windows/launch.bats, for
windows.proxyPortRange; free_port in tests/helpers.bash, for every suite):

  free-ports.py N     prints "LO HI": N consecutive ports from 20000-29999, each of which
                      can be bound on 127.0.0.1 and on ::1 right now (on ::1 only where
                      IPv6 loopback is up); prints nothing when 200 tries found none
  free-ports.py one   prints one port of 127.0.0.1 the kernel picked as free (bound to
                      port 0, then let go)
"""
import random
import socket
import sys


def free(p):
    for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
        try:
            s = socket.socket(fam)
        except OSError:
            continue
        try:
            s.bind((host, p))
        except OSError as e:
            if fam == socket.AF_INET6 and e.errno == 99:
                continue
            return False
        finally:
            s.close()
    return True


def one():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])
    s.close()
    return 0


def main(argv):
    if len(argv) == 2 and argv[1] == "one":
        return one()
    if len(argv) != 2 or not argv[1].isdigit():
        sys.stderr.write(__doc__)
        return 2
    n = int(argv[1])
    for _ in range(200):
        lo = random.randrange(20000, 30000)
        if all(free(p) for p in range(lo, lo + n)):
            print(lo, lo + n - 1)
            break
    return 0


sys.exit(main(sys.argv))
