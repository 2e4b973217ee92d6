#!/usr/bin/env python3
"""Reads what srt -d printed (tests/security/44-rotation-dotdot-strip.bats):

  debug-log.py fs-part LOG         LOG is the text srt -d wrote; prints "N LEN BINDS": N
                                   the count its plan line gives ("plan: N bwrap
                                   filesystem arguments"), LEN the number of bwrap
                                   arguments between the head (which ends with
                                   --json-status-fd and its number) and the tail (from
                                   the first --ro-bind-fd, srt-seccomp's binary), BINDS
                                   how many of those are --ro-bind-data; the same and the
                                   part itself on standard error. Exit 1 when a line is
                                   missing.
"""
import re
import shlex
import sys


def fs_part(log):
    n = re.search(r'plan: (\d+) bwrap filesystem arguments', log)
    a = re.search(r'bwrap arguments \(the options through --args \d+\): (.*?) '
                  r'--ro-bind-fd ', log)
    if not n or not a:
        print("no plan line or no bwrap arguments in the log", file=sys.stderr)
        return 1
    # The head ends with the status descriptor's number; the tail starts with
    # srt-seccomp's binary, bound from its descriptor.
    a = shlex.split(a.group(1))
    part = a[a.index('--json-status-fd') + 2:]
    print('fs part', n.group(1), len(part), part.count('--ro-bind-data'), file=sys.stderr)
    print(part, file=sys.stderr)
    print(n.group(1), len(part), part.count('--ro-bind-data'))
    return 0


def main(argv):
    if len(argv) == 3 and argv[1] == "fs-part":
        return fs_part(argv[2])
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
