#!/usr/bin/env python3
"""What the write guard's tests (tests/launch/fs.bats, tests/security/41, 55, 56) run
inside the sandbox: calls the guard judges, made the way a command would, some from
several threads or processes at once. Relative names are from the current directory,
which the tests set to their own temp tree; nothing else is touched.

  guard-ops.py acl-modes           makes f, d, d/new and g with ACLs that give others
                                   (and a named user) write: access ACLs on f and d by
                                   name, a default ACL on d, an access ACL on g through
                                   its descriptor (cp -a's way)
  guard-ops.py excl-probe          O_CREAT|O_EXCL opens by the cwd, by descriptors, after
                                   renames (the supervisor's fast way); prints one line
                                   of answers (ok or the errno's name) per step; waits
                                   for m2/moved (made from outside) after making
                                   sub/a/m/ready
  guard-ops.py create-fchmod DIR N N new files DIR/f0.. (O_CREAT|O_EXCL), each fchmod 644
  guard-ops.py mkdir-many DIR N    N directories DIR/d0..
  guard-ops.py flip LINK A B STOP  until STOP exists: LINK made a link to A, then to B
                                   (a link renamed over it), A renamed to A2 and back;
                                   prints "FLIPS N"
  guard-ops.py make-through STOP DIR...
                                   two threads make new files pwn-K-I-DIR in each DIR
                                   (600 rounds, O_CREAT|O_EXCL, mode 755), then STOP is
                                   made; prints "MADE N"
  guard-ops.py many-writers DIR THREADS FILES
                                   THREADS threads each make DIR/tK and in it FILES files
                                   fI ("K I" written to fI.tmp, chmod 640, renamed to
                                   fI); exits non-zero with the first errors
  guard-ops.py chdir-race A B N    a thread flips the process's cwd between A and B
                                   while N new files pwn-I are made by that relative name
                                   (O_CREAT|O_EXCL, mode 755); prints "MADE N"
  guard-ops.py nofile-hook HOOKS NAME PAYLOAD
                                   the sandbox's PID 1's RLIMIT_NOFILE lowered one step
                                   at a time while a script y running PAYLOAD is renamed
                                   to NAME in the directory HOOKS (held open): exit 0
                                   once a rename succeeds, 1 when one fails otherwise
                                   than with EMFILE (printed), or none succeeded
  guard-ops.py nofile-replace FROM TO
                                   TO removed, then the same with FROM renamed to TO
The nofile-* commands touch PID 1 only when it is srt-seccomp (the sandbox's own);
otherwise (the battery's self-test, no sandbox) they print so and exit 3.
Only errno, os and sys are imported up front: the supervisor's cost is measured on
create-fchmod and mkdir-many, and what runs in the sandbox loads no more than it needs.
"""
import errno
import os
import sys


def acl(*entries):
    import struct
    return struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, i)
                                           for t, p, i in entries)


def acl_modes():
    n = 0xffffffff
    open("f", "w").close()
    os.mkdir("d")
    os.setxattr("f", "system.posix_acl_access", acl((1, 6, n), (4, 6, n), (0x20, 6, n)))
    os.setxattr("d", "system.posix_acl_access", acl((1, 7, n), (4, 7, n), (0x20, 7, n)))
    os.setxattr("d", "system.posix_acl_default", acl((1, 7, n), (4, 7, n), (0x20, 7, n)))
    os.umask(0)
    os.close(os.open("d/new", os.O_WRONLY | os.O_CREAT, 0o666))
    g = os.open("g", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.setxattr(g, "system.posix_acl_access", acl((1, 6, n), (4, 6, n), (0x20, 6, n)))


def excl(p, d=None):
    try:
        os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o644, dir_fd=d))
        return "ok"
    except OSError as e:
        return errno.errorcode[e.errno]


def excl_mode(p, m):
    os.close(os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, m))
    return "%o" % (os.stat(p).st_mode & 0o7777)


def excl_probe():
    c = excl
    ws = os.getcwd()
    print("cwd f", c("fnew"), "cwd .profile", c(".profile"), "cwd hook", c(".git/hooks/x"))
    print("abs .profile", c(ws + "/.profile"), "abs f", c(ws + "/sub/fabs"))
    d = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)
    print("fd f", c("ffd", d), "fd a/.profile", c("a/.profile", d),
          "fd deep", c("a/b/.profile", d))
    n = os.open("sub/a/n", os.O_RDONLY | os.O_DIRECTORY)
    print("held", c(".profile", n))
    os.unlink("sub/a/n/.profile")
    os.rename("sub/a/n", "n2")
    print("moved", c(".profile", n), "moved f", c("g", n))
    os.chdir("n2")
    print("cwd moved", c(".bashrc"))
    os.chdir(ws + "/sub/a/b")
    print("cwd deep", c(".zshrc"))
    m = os.open(ws + "/sub/a/m", os.O_RDONLY | os.O_DIRECTORY)
    print("outside", c("x", m), c("ready", m))
    while not os.path.exists(ws + "/m2/moved"):
        os.sched_yield()
    print("moved outside", c(".profile", m))
    os.umask(0o022)
    a = excl_mode(ws + "/m022", 0o666)
    os.umask(0)
    print("modes", a, excl_mode(ws + "/m000", 0o666), excl_mode(ws + "/mset", 0o4755))


def create_fchmod(d, n):
    for i in range(n):
        fd = os.open("%s/f%d" % (d, i), os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        os.fchmod(fd, 0o644)
        os.close(fd)


def mkdir_many(d, n):
    for i in range(n):
        os.mkdir("%s/d%d" % (d, i))


def flip(link, a, b, stop):
    tmp = link + ".tmp"
    n = 0
    while not os.path.exists(stop):
        for target in (a, b):
            try:
                os.symlink(target, tmp)
                os.rename(tmp, link)
            except OSError:
                pass
            try:
                os.unlink(tmp)
            except OSError:
                pass
        try:
            os.rename(a, a + "2")
            os.rename(a + "2", a)
        except OSError:
            pass
        n += 1
    print("FLIPS", n)


def make_through(stop, dirs):
    import threading
    made = [0, 0]

    def make(k):
        for i in range(600):
            for d in dirs:
                try:
                    os.close(os.open("%s/pwn-%d-%d-%s" % (d, k, i, d),
                                     os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o755))
                    made[k] += 1
                except OSError:
                    pass
    ts = [threading.Thread(target=make, args=(k,)) for k in (0, 1)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    open(stop, "w").close()
    print("MADE", sum(made))


def many_writers(top, threads, files):
    import threading
    errors = []

    def work(k):
        try:
            d = "%s/t%d" % (top, k)
            os.mkdir(d)
            for i in range(files):
                p = "%s/f%d" % (d, i)
                with open(p + ".tmp", "x") as f:
                    f.write("%d %d\n" % (k, i))
                os.chmod(p + ".tmp", 0o640)
                os.rename(p + ".tmp", p)
        except OSError as e:
            errors.append(repr(e))
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    if errors:
        raise SystemExit("errors: %s" % errors[:3])


def chdir_race(a, b, n):
    import threading
    a, b = os.path.abspath(a), os.path.abspath(b)
    stop = False

    def flip_cwd():
        while not stop:
            try:
                os.chdir(b)
                os.chdir(a)
            except OSError:
                pass
    t = threading.Thread(target=flip_cwd)
    t.start()
    made = 0
    for i in range(n):
        try:
            os.close(os.open("pwn-%d" % i, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o755))
            made += 1
        except OSError:
            pass
    stop = True
    t.join()
    print("MADE", made)


def pid1_is_ours():
    # Only the sandbox's own PID 1: run without a sandbox (the battery's self-test),
    # PID 1 is the host's init, which must never be touched.
    if open("/proc/1/comm").read().strip() != "srt-seccomp":
        print("PID 1 is not srt-seccomp: not touching it")
        sys.exit(3)


def nofile(prepare, rename):
    """Each step: prepare(), PID 1's RLIMIT_NOFILE set to n, rename(), the limit back."""
    import resource
    for n in range(3, 200):
        prepare()
        resource.prlimit(1, resource.RLIMIT_NOFILE, (n, 1024))
        try:
            rename()
            err = None
        except OSError as e:
            err = e
        resource.prlimit(1, resource.RLIMIT_NOFILE, (1024, 1024))
        if err is None:
            sys.exit(0)
        if err.errno != errno.EMFILE:
            print(err)
            sys.exit(1)
    sys.exit(1)


def nofile_hook(hooks, name, payload):
    pid1_is_ours()
    fd = os.open(hooks, os.O_RDONLY | os.O_DIRECTORY)

    def script():
        with open("y", "w") as f:
            f.write("#!/bin/sh\n%s\n" % payload)
        os.chmod("y", 0o755)
    nofile(script, lambda: os.rename("y", name, dst_dir_fd=fd))


def nofile_replace(src, dst):
    import shutil
    pid1_is_ours()
    shutil.rmtree(dst, ignore_errors=True)
    nofile(lambda: None, lambda: os.rename(src, dst))


def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ("", [])
    if cmd == "acl-modes" and not args:
        acl_modes()
    elif cmd == "excl-probe" and not args:
        excl_probe()
    elif cmd == "create-fchmod" and len(args) == 2:
        create_fchmod(args[0], int(args[1]))
    elif cmd == "mkdir-many" and len(args) == 2:
        mkdir_many(args[0], int(args[1]))
    elif cmd == "flip" and len(args) == 4:
        flip(*args)
    elif cmd == "make-through" and len(args) >= 2:
        make_through(args[0], args[1:])
    elif cmd == "many-writers" and len(args) == 3:
        many_writers(args[0], int(args[1]), int(args[2]))
    elif cmd == "chdir-race" and len(args) == 3:
        chdir_race(args[0], args[1], int(args[2]))
    elif cmd == "nofile-hook" and len(args) == 3:
        nofile_hook(*args)
    elif cmd == "nofile-replace" and len(args) == 2:
        nofile_replace(*args)
    else:
        sys.stderr.write(__doc__)
        return 2
    return 0


sys.exit(main(sys.argv))
