#!/usr/bin/env python3
"""mode-op: one file-system call with a mode or a name, for 45-modes-and-sockets.bats
(and calls of the kind in 38, 39 and 41).

Prints one line and exits accordingly, as tests/helpers/fs-op does:
	OP: ok			exit 0
	OP: <strerror>		exit 1 (the call failed)
	usage errors exit 2.

usage: mode-op OP ARGS...   (MODE in octal)
	chmod PATH MODE		chmod(2) of an existing file
	fchmod PATH MODE	fchmod(2) on a descriptor opened read-only
	fchmodat PATH MODE	fchmodat(AT_FDCWD, PATH, MODE)
	fchmodat2 PATH MODE	fchmodat2(AT_FDCWD, PATH, MODE, 0), by number (452)
	create PATH MODE	open(O_WRONLY|O_CREAT|O_EXCL, MODE)
	create-any PATH MODE	the same without O_EXCL
	tmpfile DIR NAME MODE	open(DIR, O_TMPFILE, MODE), linked at NAME
				through /proc/self/fd (linkat, AT_SYMLINK_FOLLOW)
	mknod PATH MODE		mknod(S_IFREG | MODE)
	setcap PATH		setxattr(PATH, security.capability, cap_setuid as a
				version 2 file capability, effective)
	bind PATH		a socketpair(AF_UNIX) socket bound at PATH
	socket-bind PATH	a socket(AF_UNIX) socket bound at PATH
	unix-echo PATH		a socket(AF_UNIX) server bound at PATH, a client of it,
				"hi" sent from one to the other (a failed assertion
				when it does not arrive)
	setxattr PATH NAME VALUE	setxattr(PATH, NAME, VALUE)
	acl-fd PATH MODE	fsetxattr(system.posix_acl_access) on a descriptor of
				PATH opened read-only: an access ACL of MODE's owner,
				group and other entries
	mknod-sock PATH		mknod(S_IFSOCK | 0600)
	link-empty DIR NAME	O_TMPFILE in DIR, linked at NAME with linkat(AT_EMPTY_PATH)
	whiteout FROM TO	renameat2(FROM, TO, RENAME_WHITEOUT)
and on the host, for a test's check (no OP line):
	caps DIR		prints every file below DIR that has a
				security.capability attribute

Only the paths given are touched; the tests name their own temp directory. The
standard library alone (ctypes for the calls Python has no wrapper for), so that the same
probe runs under every build and under the reference tool.
"""
import ctypes
import os
import socket
import stat
import struct
import sys

AT_FDCWD = -100
AT_EMPTY_PATH = 0x1000
AT_SYMLINK_FOLLOW = 0x400
NR_FCHMODAT2 = 452
RENAME_WHITEOUT = 1 << 2
libc = ctypes.CDLL(None, use_errno=True)


def check(rc):
    if rc < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))


def write_byte(fd):
    os.write(fd, b"x")


# No byte is written to a file made with a mode: a write by a process without
# CAP_FSETID would take S_ISUID and S_ISGID away itself, and hide what the mode did.
def op_create(path, mode, excl):
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_EXCL if excl else 0), mode)
    os.close(fd)


def op_tmpfile(d, name, mode):
    fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, mode)
    # (os.link calls link(2), which would link the /proc link itself: EXDEV.)
    check(libc.linkat(AT_FDCWD, b"/proc/self/fd/%d" % fd, AT_FDCWD, os.fsencode(name),
                      AT_SYMLINK_FOLLOW))
    os.close(fd)


def op_link_empty(d, name):
    fd = os.open(d, os.O_TMPFILE | os.O_WRONLY, 0o600)
    write_byte(fd)
    check(libc.linkat(fd, b"", AT_FDCWD, os.fsencode(name), AT_EMPTY_PATH))
    os.close(fd)


def op_setcap(path):
    # VFS_CAP_REVISION_2 | VFS_CAP_FLAGS_EFFECTIVE, then permitted/inheritable pairs.
    cap_setuid = 1 << 7
    value = struct.pack("<IIIII", 0x02000001, cap_setuid, 0, 0, 0)
    os.setxattr(path, "security.capability", value)


def op_bind(path):
    a, b = socket.socketpair(socket.AF_UNIX)
    try:
        a.bind(path)
    finally:
        a.close()
        b.close()


def op_socket_bind(path):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(path)
    finally:
        s.close()


def op_unix_echo(path):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path)
    s.listen(1)
    c = socket.socket(socket.AF_UNIX)
    c.connect(path)
    a, _ = s.accept()
    c.sendall(b"hi")
    assert a.recv(2) == b"hi"


def op_acl_fd(path, mode):
    # ACL_USER_OBJ, ACL_GROUP_OBJ, ACL_OTHER with the mode's three digits, no id.
    entries = ((1, mode >> 6 & 7), (4, mode >> 3 & 7), (0x20, mode & 7))
    acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, p, 0xffffffff)
                                          for t, p in entries)
    os.setxattr(os.open(path, os.O_RDONLY), "system.posix_acl_access", acl)


def caps(top):
    for d, _, files in os.walk(top):
        for f in files:
            p = os.path.join(d, f)
            try:
                os.getxattr(p, "security.capability", follow_symlinks=False)
                print(p)
            except OSError:
                pass


def op_fchmod(path, mode):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fchmod(fd, mode)
    finally:
        os.close(fd)


OPS = {
    "chmod": (2, lambda a: os.chmod(a[0], int(a[1], 8))),
    "fchmod": (2, lambda a: op_fchmod(a[0], int(a[1], 8))),
    "fchmodat": (2, lambda a: check(libc.fchmodat(AT_FDCWD, os.fsencode(a[0]),
                                                  int(a[1], 8), 0))),
    "fchmodat2": (2, lambda a: check(libc.syscall(NR_FCHMODAT2, AT_FDCWD,
                                                  os.fsencode(a[0]), int(a[1], 8), 0))),
    "create": (2, lambda a: op_create(a[0], int(a[1], 8), True)),
    "create-any": (2, lambda a: op_create(a[0], int(a[1], 8), False)),
    "tmpfile": (3, lambda a: op_tmpfile(a[0], a[1], int(a[2], 8))),
    "mknod": (2, lambda a: os.mknod(a[0], stat.S_IFREG | int(a[1], 8))),
    "setcap": (1, lambda a: op_setcap(a[0])),
    "bind": (1, lambda a: op_bind(a[0])),
    "socket-bind": (1, lambda a: op_socket_bind(a[0])),
    "unix-echo": (1, lambda a: op_unix_echo(a[0])),
    "setxattr": (3, lambda a: os.setxattr(a[0], a[1], os.fsencode(a[2]))),
    "acl-fd": (2, lambda a: op_acl_fd(a[0], int(a[1], 8))),
    "mknod-sock": (1, lambda a: os.mknod(a[0], stat.S_IFSOCK | 0o600)),
    "link-empty": (2, lambda a: op_link_empty(a[0], a[1])),
    "whiteout": (2, lambda a: check(libc.renameat2(AT_FDCWD, os.fsencode(a[0]), AT_FDCWD,
                                                   os.fsencode(a[1]), RENAME_WHITEOUT))),
}


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "caps":
        caps(sys.argv[2])
        return 0
    if len(sys.argv) < 2 or sys.argv[1] not in OPS or \
            len(sys.argv) - 2 != OPS[sys.argv[1]][0]:
        sys.stderr.write("usage: mode-op " + " | ".join(sorted(OPS)) + " ARGS...\n")
        return 2
    op = sys.argv[1]
    try:
        OPS[op][1](sys.argv[2:])
    except OSError as e:
        print("%s: %s" % (op, os.strerror(e.errno) if e.errno else str(e)))
        return 1
    print("%s: ok" % op)
    return 0


if __name__ == "__main__":
    sys.exit(main())
