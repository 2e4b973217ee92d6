#!/usr/bin/env python3
"""The supervisor's fast ways, attacked and compared with the kernel
(tests/security/55-supervisor-fast-path.bats). Each runs in the cwd:

  fast-way.py mkdir-race      mkdir of b and b/race-N by absolute paths, 1,000 times,
                              while a thread flips b between a directory and a link
                              to .git/hooks; prints MADE n EXISTS n
  fast-way.py creat-race      open(O_CREAT|O_WRONLY|O_TRUNC, 0755) of n, 1,000 times,
                              while a thread flips n between absent and a link to
                              .git/hooks/pre-commit; prints MADE n
  fast-way.py semantics BASE  in a new directory BASE: opens with O_CREAT and no
                              O_EXCL, and mkdirs of names there or not; one answer a
                              line (compared between the host and the sandbox)
  fast-way.py creat PATH      open(PATH, O_CREAT|O_WRONLY|O_TRUNC, 0644), closed
  fast-way.py nest            in a user and mount namespace of its own, .git/hooks
                              bound over ./a: mkdir and O_CREAT by absolute and
                              relative paths, then after chroot into a; one answer a
                              line (NO-NEST and why when no namespace can be made)
"""
import ctypes
import errno
import fcntl
import os
import sys
import threading


def mkdir_race():
    cwd = os.getcwd()
    stop = False
    def flip():
        # b: a directory, then a link to .git/hooks in its place, and back.
        while not stop:
            try:
                os.rename(cwd + "/b", cwd + "/b.d")
                os.symlink(cwd + "/.git/hooks", cwd + "/b.l")
                os.rename(cwd + "/b.l", cwd + "/b")
                os.unlink(cwd + "/b")
                os.rename(cwd + "/b.d", cwd + "/b")
            except OSError:
                pass
    t = threading.Thread(target=flip)
    t.start()
    made = exists = 0
    for i in range(1000):
        for p in (cwd + "/b", cwd + "/b/race-%d" % i):
            try:
                os.mkdir(p)
                made += 1
            except FileExistsError:
                exists += 1
            except OSError:
                pass
    stop = True
    t.join()
    print("MADE", made, "EXISTS", exists)


def creat_race():
    cwd = os.getcwd()
    stop = False
    def flip():
        # n: absent, then a link to .git/hooks/pre-commit, then absent again.
        while not stop:
            try:
                os.symlink(cwd + "/.git/hooks/pre-commit", cwd + "/n.l")
                os.rename(cwd + "/n.l", cwd + "/n")
                os.unlink(cwd + "/n")
            except OSError:
                pass
    t = threading.Thread(target=flip)
    t.start()
    made = 0
    for i in range(1000):
        try:
            fd = os.open(cwd + "/n", os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o755)
            os.write(fd, b"#!/bin/sh\n")
            os.close(fd)
            os.unlink(cwd + "/n")
            made += 1
        except OSError:
            pass
    stop = True
    t.join()
    print("MADE", made)


def semantics(base_arg):
    base = os.path.abspath(base_arg)
    os.makedirs(base)
    os.chdir(base)
    A = lambda p: base + "/" + p
    def r(name, f):
        try:
            print(name, "ok", f())
        except OSError as e:
            print(name, errno.errorcode.get(e.errno, e.errno))
    def op(p, fl, mode=0o666, data=b""):
        fd = os.open(p, fl, mode)
        os.write(fd, data) if data else None
        st = os.fstat(fd)
        fl = fcntl.fcntl(fd, fcntl.F_GETFL) & (os.O_ACCMODE | os.O_APPEND)
        os.close(fd)
        return "%o %d %o" % (st.st_mode, st.st_size, fl)
    os.umask(0o022)
    os.mkdir("dir")
    os.symlink(A("made-by-link"), "dangling")
    os.symlink(A("dir"), "dirlink")
    os.mkfifo("fifo")
    open("file", "w").write("hello\n")
    W = os.O_WRONLY | os.O_CREAT
    r("new-trunc", lambda: op(A("n1"), W | os.O_TRUNC, 0o644, b"x"))
    r("append-1", lambda: op(A("n2"), W | os.O_APPEND, 0o755, b"a"))
    r("append-2", lambda: op(A("n2"), W | os.O_APPEND, 0o755, b"b"))
    r("rdwr-new", lambda: op(A("n3"), os.O_RDWR | os.O_CREAT, 0o600))
    r("rdonly-new", lambda: op("n4", os.O_RDONLY | os.O_CREAT, 0o640))
    r("trunc-there", lambda: op(A("file"), W | os.O_TRUNC))
    r("dir", lambda: op(A("dir"), W))
    r("creat-directory", lambda: op(A("n5"), os.O_RDONLY | os.O_CREAT | os.O_DIRECTORY))
    r("dangling", lambda: op(A("dangling"), W, 0o640, b"l"))
    r("dangling-after", lambda: (os.path.islink(A("dangling")), open(A("made-by-link")).read()))
    r("nofollow-link", lambda: op(A("dirlink"), W | os.O_NOFOLLOW))
    r("fifo", lambda: op(A("fifo"), W | os.O_NONBLOCK))
    r("missing-dir", lambda: op(A("missing/f"), W))
    r("under-file", lambda: op(A("file/f"), W))
    os.umask(0o077)
    r("umask-077", lambda: op(A("n6"), W, 0o666))
    os.umask(0o022)
    for n in ("file", "dir", "dangling", "dirlink", "fifo", "dirlink/x", "new", "dir/x/y", "file/x"):
        r("mkdir-" + n, lambda: os.mkdir(A(n)))
    r("mkdir-rel", lambda: os.mkdir("dir"))
    r("ls", lambda: sorted(os.listdir(base)))
    r("n2", lambda: open(A("n2")).read())


def nest():
    libc = ctypes.CDLL(None, use_errno=True)
    C = os.getcwd()
    def r(n, f):
        try:
            print(n, "ok", f())
        except OSError as e:
            print(n, errno.errorcode.get(e.errno, e.errno))
    def chk(rc):
        if rc != 0:
            e = ctypes.get_errno()
            raise OSError(e, os.strerror(e))
        return rc
    if libc.unshare(0x10000000 | 0x00020000) != 0 or \
       libc.mount(b"none", b"/", None, 0x40000 | 0x4000, None) != 0 or \
       libc.mount((C + "/.git/hooks").encode(), (C + "/a").encode(), None, 0x1000, None) != 0:
        print("NO-NEST", os.strerror(ctypes.get_errno()))
        raise SystemExit(0)
    r("mkdir-abs-there", lambda: os.mkdir(C + "/a/pre-commit.sample"))
    r("mkdir-abs", lambda: os.mkdir(C + "/a/abs-dir"))
    r("creat-abs", lambda: os.close(os.open(C + "/a/abs-file", os.O_WRONLY | os.O_CREAT | os.O_TRUNC)))
    os.chdir(C + "/a")
    r("mkdir-rel", lambda: os.mkdir("rel-dir"))
    r("creat-rel", lambda: os.close(os.open("rel-file", os.O_WRONLY | os.O_CREAT)))
    r("chroot", lambda: chk(libc.chroot((C + "/a").encode())))
    os.chdir("/")
    r("mkdir-root", lambda: os.mkdir("/root-dir"))
    r("creat-root", lambda: os.close(os.open("/root-file", os.O_WRONLY | os.O_CREAT)))
    r("mkdir-root-there", lambda: os.mkdir("/pre-commit.sample"))


def creat(path):
    os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_TRUNC, 0o644))


def main(argv):
    if len(argv) == 3 and argv[1] == "creat":
        return creat(argv[2])
    if len(argv) == 2 and argv[1] == "mkdir-race":
        return mkdir_race()
    if len(argv) == 2 and argv[1] == "creat-race":
        return creat_race()
    if len(argv) == 3 and argv[1] == "semantics":
        return semantics(argv[2])
    if len(argv) == 2 and argv[1] == "nest":
        return nest()
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
