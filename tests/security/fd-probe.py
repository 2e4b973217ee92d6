#!/usr/bin/env python3
# fd-probe: one attack on the write guard through the command's descriptors, for
# 46-descriptors.bats. Prints "OP: ok" (exit 0) or "OP: <strerror>" (exit 1); a usage
# error exits 2. Every operation acts only on the descriptors and names it is given,
# which the test points at its own temp directory.
#
#   own-table N MINE      a thread with a descriptor table of its own
#                         (unshare(CLONE_FILES)) puts MINE, opened for writing, at N
#                         in its table, then opens /proc/self/fd/N for writing: the
#                         kernel reads the process's (the leader's) table, where N is
#                         what the caller was given
#   task-fd N MINE        a thread takes a table of its own, keeping N as it is; the
#                         leader then puts MINE, opened for writing, at N in the
#                         process's table and opens /proc/self/task/TID/fd/N (the
#                         thread's table) for writing
#   thread-self N MINE    the same, but the thread opens /proc/thread-self/fd/N
#   child-fd N            a child process holds N as it is; the parent opens
#                         /proc/CHILD/fd/N for writing
#   openat FD NAME        openat(FD, NAME, O_WRONLY|O_CREAT), one line written
#   mkdirat FD NAME       mkdirat(FD, NAME)
#   symlinkat FD NAME     symlinkat("target", FD, NAME)
#   mknodat FD NAME       mknodat(FD, NAME, S_IFIFO)
#   renameat FD A B       renameat(FD, A, FD, B)
#   linkat FD A B         linkat(FD, A, FD, B)
#   unlinkat FD NAME      unlinkat(FD, NAME)
#   rename-out FD NAME DEST  renameat(FD, NAME, AT_FDCWD, DEST)
#   rename-in FD SRC NAME    renameat(AT_FDCWD, SRC, FD, NAME)
#   link-in FD SRC NAME      linkat(AT_FDCWD, SRC, FD, NAME)
#   fchmod FD MODE        fchmod(FD, MODE) (octal)
#   chmod-proc FD MODE    chmod("/proc/self/fd/FD", MODE)
#   fchmod-at FD NAME MODE  fchmod(MODE) of FD/NAME opened read-only
#   fchown-at FD NAME     fchown(-1, its own group) of FD/NAME opened read-only
#   fsetxattr FD          fsetxattr(FD, "user.srt-test", "x")
#   tmpfile FD NAME       open(FD's directory, O_TMPFILE), then linkat it to FD/NAME
#   fchdir FD NAME        fchdir(FD), then open(NAME, O_WRONLY|O_CREAT)
#   bind FD NAME          bind an AF_UNIX socket to /proc/self/fd/FD/NAME
import ctypes
import os
import socket
import sys
import threading

CLONE_FILES = 0x400
libc = ctypes.CDLL(None, use_errno=True)


def unshare_files():
    if libc.unshare(CLONE_FILES) != 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def write_through(path):
    fd = os.open(path, os.O_WRONLY | os.O_TRUNC)
    try:
        os.write(fd, b"written through " + path.encode() + b"\n")
    finally:
        os.close(fd)


def put_writable(n, mine):
    fd = os.open(mine, os.O_WRONLY | os.O_CREAT, 0o644)
    os.dup2(fd, n)
    os.close(fd)


def own_table(n, mine):
    err = []

    def thread():
        try:
            unshare_files()
            put_writable(n, mine)
            write_through("/proc/self/fd/%d" % n)
        except OSError as e:
            err.append(e)
    t = threading.Thread(target=thread)
    t.start()
    t.join()
    if err:
        raise err[0]


def other_thread(n, mine, from_thread):
    err = []
    ready, done = threading.Event(), threading.Event()
    tid = []

    def thread():
        try:
            tid.append(threading.get_native_id())
            unshare_files()
        except OSError as e:
            err.append(e)
        ready.set()
        if from_thread and not err:
            done.wait(10)
            try:
                write_through("/proc/thread-self/fd/%d" % n)
            except OSError as e:
                err.append(e)
        else:
            done.wait(10)
    t = threading.Thread(target=thread)
    t.start()
    ready.wait(10)
    try:
        if not err:
            put_writable(n, mine)
            if not from_thread:
                write_through("/proc/self/task/%d/fd/%d" % (tid[0], n))
    except OSError as e:
        err.append(e)
    done.set()
    t.join()
    if err:
        raise err[0]


def child_fd(n):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(w)
        os.read(r, 1)
        os._exit(0)
    os.close(r)
    try:
        write_through("/proc/%d/fd/%d" % (pid, n))
    finally:
        os.close(w)
        os.waitpid(pid, 0)


def op(name, args):
    a = args
    if name == "own-table" and len(a) == 2:
        own_table(int(a[0]), a[1])
    elif name == "task-fd" and len(a) == 2:
        other_thread(int(a[0]), a[1], False)
    elif name == "thread-self" and len(a) == 2:
        other_thread(int(a[0]), a[1], True)
    elif name == "child-fd" and len(a) == 1:
        child_fd(int(a[0]))
    elif name == "openat" and len(a) == 2:
        fd = os.open(a[1], os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=int(a[0]))
        os.write(fd, b"made through a descriptor\n")
        os.close(fd)
    elif name == "mkdirat" and len(a) == 2:
        os.mkdir(a[1], dir_fd=int(a[0]))
    elif name == "symlinkat" and len(a) == 2:
        os.symlink("target", a[1], dir_fd=int(a[0]))
    elif name == "mknodat" and len(a) == 2:
        os.mkfifo(a[1], dir_fd=int(a[0]))
    elif name == "renameat" and len(a) == 3:
        os.rename(a[1], a[2], src_dir_fd=int(a[0]), dst_dir_fd=int(a[0]))
    elif name == "linkat" and len(a) == 3:
        os.link(a[1], a[2], src_dir_fd=int(a[0]), dst_dir_fd=int(a[0]),
                follow_symlinks=False)
    elif name == "rename-out" and len(a) == 3:
        os.rename(a[1], a[2], src_dir_fd=int(a[0]))
    elif name == "rename-in" and len(a) == 3:
        os.rename(a[1], a[2], dst_dir_fd=int(a[0]))
    elif name == "link-in" and len(a) == 3:
        os.link(a[1], a[2], dst_dir_fd=int(a[0]), follow_symlinks=False)
    elif name == "unlinkat" and len(a) == 2:
        os.unlink(a[1], dir_fd=int(a[0]))
    elif name == "fchmod" and len(a) == 2:
        os.chmod(int(a[0]), int(a[1], 8))
    elif name == "chmod-proc" and len(a) == 2:
        os.chmod("/proc/self/fd/%d" % int(a[0]), int(a[1], 8))
    elif name in ("fchmod-at", "fchown-at") and len(a) == (3 if name == "fchmod-at" else 2):
        fd = os.open(a[1], os.O_RDONLY, dir_fd=int(a[0]))
        try:
            if name == "fchmod-at":
                os.chmod(fd, int(a[2], 8))
            else:
                os.chown(fd, -1, os.fstat(fd).st_gid)
        finally:
            os.close(fd)
    elif name == "fsetxattr" and len(a) == 1:
        os.setxattr(int(a[0]), "user.srt-test", b"x")
    elif name == "tmpfile" and len(a) == 2:
        fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o644, dir_fd=int(a[0]))
        os.write(fd, b"made through a descriptor\n")
        os.link("/proc/self/fd/%d" % fd, a[1], dst_dir_fd=int(a[0]),
                follow_symlinks=True)
        os.close(fd)
    elif name == "fchdir" and len(a) == 2:
        os.fchdir(int(a[0]))
        fd = os.open(a[1], os.O_WRONLY | os.O_CREAT, 0o644)
        os.close(fd)
    elif name == "bind" and len(a) == 2:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind("/proc/self/fd/%d/%s" % (int(a[0]), a[1]))
        s.close()
    else:
        print("usage: fd-probe OP ARGS... (see the header)", file=sys.stderr)
        sys.exit(2)


def main():
    if len(sys.argv) < 2:
        op("", [])
    name = sys.argv[1]
    try:
        op(name, sys.argv[2:])
    except OSError as e:
        print("%s: %s" % (name, e.strerror))
        return 1
    print("%s: ok" % name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
