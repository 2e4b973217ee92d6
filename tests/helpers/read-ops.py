#!/usr/bin/env python3
"""Reads of a denied file, run inside the sandbox by the escape battery
(tests/security/44, 51, 55); every one only reads, and only the paths it is given:

  read-ops.py loop PATH LEAK READY STOP TICK
                                   reads PATH again and again until STOP exists; makes
                                   READY after the first try, removes TICK whenever it
                                   exists (the host's sign that a read came after its
                                   change), appends to LEAK what it read with "new-" in
                                   it; prints "READER TRIES READS LEAKS"
  read-ops.py open PATH FLAG...    os.open(PATH, the O_ FLAGs or'ed, e.g. RDWR, or RDONLY
                                   CREAT), then prints what read(2) gave (200 bytes at
                                   most, as Python prints bytes); a traceback when
                                   refused
  read-ops.py read-at DIR NAME     NAME opened read-only relative to a descriptor of the
                                   directory DIR (openat); writes its first 100 bytes,
                                   nothing when that is refused
"""
import os
import sys


def loop(path, leak, ready, stop, tick):
    tries = reads = leaks = 0
    with open(leak, "a") as out:
        while True:
            try:
                with open(path) as f:
                    s = f.read()
                if s:
                    reads += 1
                if "new-" in s:
                    leaks += 1
                    out.write(s)
                    out.flush()
            except OSError:
                pass
            tries += 1
            if tries == 1:
                open(ready, "w").close()
            if os.path.exists(tick):
                os.unlink(tick)
            if os.path.exists(stop):
                break
    print("READER", tries, reads, leaks)


def open_read(path, flags):
    f = 0
    for name in flags:
        f |= getattr(os, "O_" + name)
    print(os.read(os.open(path, f), 200))


def read_at(d, name):
    fd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fd = os.open(name, os.O_RDONLY, dir_fd=fd)
        sys.stdout.write(os.read(fd, 100).decode("latin-1"))
    except OSError:
        pass


def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if cmd == "loop" and len(args) == 5:
        loop(*args)
    elif cmd == "open" and len(args) >= 2:
        open_read(args[0], args[1:])
    elif cmd == "read-at" and len(args) == 2:
        read_at(*args)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
