#!/usr/bin/env python3
"""A host's Unix socket servers for the escape battery (tests/security/10-syscalls.bats)
to reach from inside the sandbox:

  unix-listen.py PATH NAME READY SECONDS
                                   listens at the path PATH and at the abstract name
                                   NAME (no leading NUL or @), writes "ready" to the file
                                   READY, then keeps both for SECONDS, accepting nobody
"""
import socket
import sys
import time


def main(argv):
    if len(argv) != 5:
        sys.stderr.write(__doc__)
        return 2
    a = socket.socket(socket.AF_UNIX)
    a.bind(argv[1])
    a.listen(4)
    b = socket.socket(socket.AF_UNIX)
    b.bind("\0" + argv[2])
    b.listen(4)
    open(argv[3], "w").write("ready")
    time.sleep(float(argv[4]))
    return 0


sys.exit(main(sys.argv))
