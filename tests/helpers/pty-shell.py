#!/usr/bin/env python3
"""Runs a shell command on a pseudo-terminal made for it (never the caller's terminal),
for the escape battery's terminal tests (tests/security/20-processes.bats):

  pty-shell.py DIR COMMAND         sh -c COMMAND from DIR, the new pseudo-terminal its
                                   controlling terminal, stdin, stdout and stderr; once
                                   no process holds the terminal any more, prints what
                                   it showed (CR dropped) and exits with COMMAND's status
"""
import os
import pty
import sys


def main(argv):
    if len(argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(argv[1])
        os.execv("/bin/sh", ["sh", "-c", argv[2]])
    out = b""
    while True:
        try:
            d = os.read(fd, 4096)
        except OSError:
            break
        if not d:
            break
        out += d
    _, st = os.waitpid(pid, 0)
    sys.stdout.write(out.decode("latin-1").replace("\r", ""))
    return os.waitstatus_to_exitcode(st)


sys.exit(main(sys.argv))
