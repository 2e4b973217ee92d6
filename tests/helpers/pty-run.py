#!/usr/bin/env python3
"""Runs a command on a pseudo-terminal of its own, as a user at a terminal would.

usage: pty-run.py [--intr-after TEXT] [--timeout SECONDS] -- CMD [ARGS...]

CMD leads a new session whose controlling terminal is a fresh pseudo-terminal, in its
foreground process group. What CMD writes to the terminal is copied to stdout (CR
dropped); "exit N" or "signal N" is printed when CMD ends.
  --intr-after TEXT  once TEXT appears in the output, the terminal is sent its interrupt
                     character (^C as typed), and "intr-to-end MS" is printed when CMD
                     ends: the milliseconds between the keystroke and its end.
  --timeout SECONDS  CMD's process group is killed after that long (default 20) and
                     "timeout" printed.
"""
import os
import pty
import select
import signal
import sys
import termios
import time


def main():
    args = sys.argv[1:]
    intr_after, timeout = None, 20.0
    while args and args[0] != '--':
        if args[0] == '--intr-after':
            intr_after = args[1].encode()
        elif args[0] == '--timeout':
            timeout = float(args[1])
        else:
            sys.exit('usage: pty-run.py [--intr-after TEXT] [--timeout S] -- CMD...')
        args = args[2:]
    cmd = args[1:]
    if not cmd:
        sys.exit('pty-run.py: no command')
    pid, master = pty.fork()
    if pid == 0:
        try:
            os.execvp(cmd[0], cmd)
        finally:
            os._exit(127)
    out = b''
    typed = None
    deadline = time.monotonic() + timeout
    status = None
    while status is None:
        left = deadline - time.monotonic()
        if left <= 0:
            os.killpg(pid, signal.SIGKILL)
            print('timeout')
            os.waitpid(pid, 0)
            break
        r, _, _ = select.select([master], [], [], min(left, 0.05))
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:        # EIO: no process holds the terminal any more
                data = b''
            out += data
            sys.stdout.write(data.replace(b'\r', b'').decode('latin-1'))
            sys.stdout.flush()
            if not data:
                time.sleep(0.01)
        if intr_after is not None and typed is None and intr_after in out:
            os.write(master, termios.tcgetattr(master)[6][termios.VINTR])
            typed = time.monotonic()
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
    if status is not None:
        # what is still buffered on the terminal
        while select.select([master], [], [], 0)[0]:
            try:
                data = os.read(master, 65536)
            except OSError:
                break
            if not data:
                break
            out += data
            sys.stdout.write(data.replace(b'\r', b'').decode('latin-1'))
        # what follows starts a line of its own, after the drained bytes too (an
        # echoed ^C read only here would otherwise run into "intr-to-end")
        if not out.replace(b'\r', b'').endswith(b'\n'):
            print()
        if typed is not None:
            print('intr-to-end %d' % ((time.monotonic() - typed) * 1000))
        if os.WIFEXITED(status):
            print('exit %d' % os.WEXITSTATUS(status))
        else:
            print('signal %d' % os.WTERMSIG(status))


main()
