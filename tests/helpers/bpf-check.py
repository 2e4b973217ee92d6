#!/usr/bin/env python3
"""Evaluates a classic BPF program (a seccomp filter as srt-seccomp --emit-bpf writes it)
for system calls read from standard input, one per line (tests/launch/seccomp.bats):

  bpf-check.py FILE                each line "ARCH NR [ARG...] = ACTION" (numbers as
                                   Python reads them: 0x.. allowed), ACTION being ALLOW,
                                   KILL_PROCESS, KILL_THREAD, TRAP, LOG, USER_NOTIF or
                                   ERRNO(n); prints every line whose action differs
                                   ("CALL: got X, want Y") and exits 1 if there is any

Only the instructions libseccomp emits are known; another is an error (exit with its
opcode named).
"""
import struct
import sys

ACTIONS = {0x80000000: "KILL_PROCESS", 0: "KILL_THREAD", 0x00030000: "TRAP",
           0x7fff0000: "ALLOW", 0x7ffc0000: "LOG", 0x7fc00000: "USER_NOTIF"}


def run(ins, arch, nr, args):
    args = [a & 0xffffffffffffffff for a in args] + [0] * 6
    data = struct.pack("<IIQ6Q", nr & 0xffffffff, arch, 0, *args[:6])
    A = X = pc = 0
    mem = [0] * 16
    while True:
        code, jt, jf, k = ins[pc]
        pc += 1
        if code == 0x20: A = struct.unpack("<I", data[k:k + 4])[0]      # ld [k]
        elif code == 0x00: A = k                                          # ld #k
        elif code == 0x01: X = k                                          # ldx #k
        elif code == 0x60: A = mem[k]                                     # ld M[k]
        elif code == 0x61: X = mem[k]                                     # ldx M[k]
        elif code == 0x02: mem[k] = A                                     # st M[k]
        elif code == 0x03: mem[k] = X                                     # stx M[k]
        elif code == 0x54: A &= k                                         # and #k
        elif code == 0x44: A |= k                                         # or #k
        elif code == 0x07: X = A                                          # tax
        elif code == 0x87: A = X                                          # txa
        elif code == 0x05: pc += k                                        # ja
        elif code in (0x15, 0x25, 0x35, 0x45):                            # jeq jgt jge jset
            c = {0x15: A == k, 0x25: A > k, 0x35: A >= k, 0x45: (A & k) != 0}[code]
            pc += jt if c else jf
        elif code == 0x06:                                                # ret #k
            if k & 0xffff0000 == 0x00050000:
                return "ERRNO(%d)" % (k & 0xffff)
            return ACTIONS.get(k & 0xffff0000, hex(k))
        else:
            sys.exit("unknown BPF opcode %#x at %d" % (code, pc - 1))


def main(argv):
    if len(argv) != 2:
        sys.stderr.write(__doc__)
        return 2
    prog = open(argv[1], "rb").read()
    ins = [struct.unpack("<HBBI", prog[i:i + 8]) for i in range(0, len(prog), 8)]
    bad = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        call, want = (x.strip() for x in line.split("="))
        nums = [int(x, 0) for x in call.split()]
        got = run(ins, nums[0], nums[1], nums[2:])
        if got != want:
            print("%s: got %s, want %s" % (call, got, want))
            bad = 1
    return bad


sys.exit(main(sys.argv))
