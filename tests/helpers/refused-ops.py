#!/usr/bin/env python3
"""What the launch suites (tests/launch/violations.bats, launch.bats, net.bats) run in
the sandbox to be refused, ignoring each refusal (violations.bats reads the violation
records they leave):

  refused-ops.py writes CASES      for each line "PATH<TAB>NEW<TAB>REASON" of CASES, every
                                   write-like call on the existing PATH (open for writing,
                                   truncate, rename, link, unlink, chmod, chown, utimes)
                                   and on the missing NEW (create, mkdir, mkfifo,
                                   symlink), each three times; prints "ALLOWED OP PATH
                                   NEW" for a call that succeeded
  refused-ops.py relative          from a directory ws/sub next to ws/tothere (a link) and
                                   ws/sub/rc (a link to ../.bashrc): writes through
                                   relative paths, "..", a directory descriptor and links
  refused-ops.py create PATH       opens PATH for writing (a traceback when refused)
  refused-ops.py flood PREFIX N [--started FILE] [--time]
                                   creates FILE (when given), then N refused creations
                                   PREFIX-0 .. PREFIX-(N-1); prints "done", or with --time
                                   the seconds they took ("%.3f")
  refused-ops.py connect           TCP connections to 192.0.2.1:80 and [2001:db8::1]:443
                                   and a UDP datagram to 198.51.100.7:53, then a loopback
                                   connection; prints "CONNECTED ADDR", "SENT" or "refused
                                   ERRNO" for each, and "loopback ok"
  refused-ops.py connect-to HOST PORT [HOST PORT...]
                                   a TCP connection to each (IPv6 when HOST has a ":"),
                                   three seconds at most; prints "CONNECTED ADDR" or
                                   "failed ADDR ERRNO" for each
  refused-ops.py unix-socket       makes an AF_UNIX socket; prints "unix-ok" (a traceback
                                   when refused)
  refused-ops.py full-pipe SECCOMP N
                                   not run in the sandbox: runs "flood /usr/srt-flood N"
                                   under SECCOMP (srt-seccomp) --violations-fd in bwrap,
                                   the pipe's reader asleep until it ends; asserts the
                                   command ran whole and what the pipe held (whole records
                                   of what fitted, the last counting the ones left out);
                                   prints "R records, S.SSs"
Only os and sys are imported up front: what runs in the sandbox loads no more modules
than it needs, whose caches Python might try to write.
"""
import os
import sys


def attempt(f):
    try:
        f()
        return True
    except OSError:
        return False


def writes(cases):
    for line in open(cases):
        p, n, why = line.rstrip("\n").split("\t")
        d = os.path.dirname(p)
        ops = [
            ("open", lambda: os.close(os.open(p, os.O_WRONLY))),
            ("truncate", lambda: os.truncate(p, 0)),
            ("rename", lambda: os.rename(p, d + "/renamed")),
            ("link", lambda: os.link(p, d + "/linked")),
            ("unlink", lambda: os.unlink(p)),
            ("chmod", lambda: os.chmod(p, 0o600)),
            ("chown", lambda: os.chown(p, os.getuid(), os.getgid())),
            ("utimes", lambda: os.utime(p, None)),
            ("open", lambda: os.close(os.open(n, os.O_WRONLY | os.O_CREAT, 0o644))),
            ("mkdir", lambda: os.mkdir(n)),
            ("mknod", lambda: os.mkfifo(n)),
            ("symlink", lambda: os.symlink("/etc/passwd", n)),
        ]
        for op, f in ops:
            for _ in range(3):     # three times: still one record
                if attempt(f):
                    print("ALLOWED", op, p, n)


def relative():
    attempt(lambda: os.open("../.bashrc", os.O_WRONLY))                   # relative, ..
    attempt(lambda: os.mkdir("deeper/./../../deny"))                      # . and ..
    d = os.open("..", os.O_RDONLY | os.O_DIRECTORY)
    attempt(lambda: os.open(".profile", os.O_WRONLY | os.O_CREAT, dir_fd=d))  # a dirfd
    attempt(lambda: os.unlink("../tothere/x"))                            # through a link
    attempt(lambda: os.truncate("rc", 0))                                 # a link to it


def flood(prefix, n, started, timed):
    import time
    if started:
        open(started, "w").close()
    t = time.monotonic()
    for i in range(n):
        try:
            os.close(os.open("%s-%d" % (prefix, i), os.O_WRONLY | os.O_CREAT, 0o644))
        except OSError:
            pass
    print("%.3f" % (time.monotonic() - t) if timed else "done")


def connect():
    import socket
    for fam, addr in ((socket.AF_INET, ("192.0.2.1", 80)),
                      (socket.AF_INET6, ("2001:db8::1", 443))):
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(3)
        try:
            s.connect(addr)
            print("CONNECTED", addr)
        except OSError as e:
            print("refused", e.errno)
    u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        u.sendto(b"x", ("198.51.100.7", 53))
        print("SENT")
    except OSError as e:
        print("refused", e.errno)
    lst = socket.socket()
    lst.bind(("127.0.0.1", 0))
    lst.listen(1)
    socket.create_connection(lst.getsockname())
    print("loopback ok")


def connect_to(pairs):
    import socket
    for host, port in pairs:
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        addr = (host, int(port))
        s = socket.socket(fam)
        s.settimeout(3)
        try:
            s.connect(addr)
            print("CONNECTED", addr)
        except OSError as e:
            print("failed", addr, e.errno)


def unix_socket():
    import socket
    socket.socket(socket.AF_UNIX)
    print("unix-ok")


def full_pipe(seccomp, n):
    import json, subprocess, time
    r, w = os.pipe()
    start = time.monotonic()
    p = subprocess.run(["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
        "--unshare-pid", "--unshare-user", "--unshare-net", "--", seccomp,
        "--violations-fd", str(w), "--", "python3", os.path.abspath(__file__), "flood",
        "/usr/srt-flood", str(n)],
        pass_fds=(w,), stdout=subprocess.PIPE, timeout=100)
    took = time.monotonic() - start
    os.close(w)
    assert p.returncode == 0 and p.stdout == b"done\n", p
    data = b""
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        data += b
    lines = data.decode().splitlines()
    # What fitted in the pipe (64 KiB by default) came whole; the rest was dropped, and
    # counted in the last record, for which room was kept.
    assert 0 < len(lines) < 1000, len(lines)
    assert len(data) <= 65536, len(data)
    recs = [json.loads(line) for line in lines]
    assert all(o["kind"] == "file-write" for o in recs[:-1]), recs
    assert recs[-1]["kind"] == "left-out", recs[-1]
    assert recs[-1]["count"] == n - (len(recs) - 1), (recs[-1], len(recs))
    print("%d records, %.2fs" % (len(lines), took))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "writes" and len(argv) == 3:
        writes(argv[2])
    elif cmd == "relative" and len(argv) == 2:
        relative()
    elif cmd == "create" and len(argv) == 3:
        open(argv[2], "w")
    elif cmd == "flood" and len(argv) >= 4:
        opts = argv[4:]
        started = None
        if "--started" in opts:
            started = opts[opts.index("--started") + 1]
        flood(argv[2], int(argv[3]), started, "--time" in opts)
    elif cmd == "connect" and len(argv) == 2:
        connect()
    elif cmd == "connect-to" and len(argv) >= 4 and len(argv) % 2 == 0:
        connect_to(zip(argv[2::2], argv[3::2]))
    elif cmd == "unix-socket" and len(argv) == 2:
        unix_socket()
    elif cmd == "full-pipe" and len(argv) == 4:
        full_pipe(argv[2], int(argv[3]))
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
