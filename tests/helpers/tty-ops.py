#!/usr/bin/env python3
"""What tests/launch/tty.bats runs on the terminal, inside srt and outside it:

  tty-ops.py ready-sleep SECONDS   prints READY (flushed), then sleeps SECONDS: a Python
                                   command that a ^C reaches once it has started
  tty-ops.py set-nonblock          sets O_NONBLOCK on standard input's open file
                                   description (the terminal's, shared with the caller)
  tty-ops.py show-nonblock         prints NONBLOCK or BLOCKING: standard input's flag
"""
import fcntl
import os
import sys


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "ready-sleep" and len(argv) == 3:
        import time
        print("READY", flush=True)
        time.sleep(float(argv[2]))
    elif cmd == "set-nonblock" and len(argv) == 2:
        fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK)
    elif cmd == "show-nonblock" and len(argv) == 2:
        print("NONBLOCK" if fcntl.fcntl(0, fcntl.F_GETFL) & os.O_NONBLOCK else "BLOCKING")
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
