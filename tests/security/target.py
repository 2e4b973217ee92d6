#!/usr/bin/env python3
"""An outside process for the security battery: a target the sandbox must not reach.

usage: target.py MARKER OUT READY
MARKER only labels the process (it is in its command line). Every SIGCONT that arrives
is recorded as a line in OUT. READY gets the pid once the handler is in place. The
process exits by itself after 120 s.
"""
import os
import signal
import sys
import time

marker, out, ready = sys.argv[1:4]


def on_cont(signum, frame):
    with open(out, 'a') as f:
        f.write('SIGCONT\n')


signal.signal(signal.SIGCONT, on_cont)
open(out, 'a').close()
with open(ready + '.tmp', 'w') as f:
    f.write('%d\n' % os.getpid())
os.rename(ready + '.tmp', ready)
deadline = time.time() + 120
while time.time() < deadline:
    time.sleep(0.2)
