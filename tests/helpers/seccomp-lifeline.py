#!/usr/bin/env python3
"""Runs srt-seccomp --lifeline-fd as the launcher does, for tests/launch/seccomp.bats:

  seccomp-lifeline.py SECCOMP open     the command (sh: "started", its descriptors,
                                       then sleep 30) runs with the read end of a pipe
                                       as the lifeline; once it has started, the
                                       launcher's end is closed. Prints "started", "fds:
                                       ..." (the command's descriptors), what else it
                                       printed, "rc=N" and "fast" or "slow" (ended
                                       within 5 s of the close or not)
  seccomp-lifeline.py SECCOMP closed   the launcher's end closed before the start;
                                       prints what srt-seccomp printed and "rc=N"
Either way, a command still running 10 s later is killed: "still running", exit 1.
"""
import os
import subprocess
import sys
import time


def main(argv):
    if len(argv) != 3 or argv[2] not in ("open", "closed"):
        sys.stderr.write(__doc__)
        return 2
    seccomp, mode = argv[1], argv[2]
    r, w = os.pipe()
    if mode == "closed":
        os.close(w)
    p = subprocess.Popen([seccomp, "--lifeline-fd", str(r), "--", "sh", "-c",
                          "echo started; ls /proc/self/fd | tr '\\n' ' '; echo; exec sleep 30"],
                         pass_fds=(r,), stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    os.close(r)
    if mode == "open":
        print(p.stdout.readline().decode().strip())
        print("fds:", p.stdout.readline().decode().strip())
        t0 = time.time()
        os.close(w)
    try:
        rc = p.wait(timeout=10)
    except subprocess.TimeoutExpired:
        p.kill()
        print("still running")
        return 1
    print(p.stdout.read().decode().strip())
    print("rc=%d" % rc)
    if mode == "open":
        print("fast" if time.time() - t0 < 5 else "slow")
    return 0


sys.exit(main(sys.argv))
