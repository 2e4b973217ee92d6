#!/usr/bin/env python3
"""
What srt-win's DACL writes reached Wine with, from a wineserver request trace
(`wineserver -f -d1`): Wine keeps no file descriptor past the handle it was set through,
so its server's record of set_security_object is where every written entry can be seen.

  sdtrace.py grant TRACE PLAN SID     each plan entry is in the last DACL written to its
                                      object, explicit, with its mask and inheritance
  sdtrace.py revoke TRACE PLAN SID    each object was read, and no DACL written to it
                                      still holds an entry for SID

  sdtrace.py expect PLAN              each plan entry as winprobe dacl prints it:
                                      `ace PATH 0xMASK OICI|-`

TRACE may start at a given line: TRACE:N. PLAN is `srt-policy plan --target windows`
output with Linux paths. Prints one line per check, exits 1 if any failed.
"""
import json
import re
import sys

RIGHTS = {  # srt-win/ace.c: the mask each plan right becomes
    ("allow", "modify"): 0x1301BF,
    ("deny", "read"): 0x29,
    ("deny", "write"): 0xD0156,
    ("deny", "delete"): 0x10000,
    ("deny", "delete_child"): 0x40,
}
INHERITED = 0x10

OPEN = re.compile(r'^(\w+): create_file\(.*name=L"\\\\\?\?\\\\Z:([^"]*)"')
OPENED = re.compile(r'^(\w+): create_file\(\) = 0 \{ handle=(\w+)')
SET = re.compile(r'^(\w+): set_security_object\( handle=(\w+),.*dacl=\{(.*)\}\} \)$')
GET = re.compile(r'^(\w+): get_security_object\( handle=(\w+),')
ACE = re.compile(r'\{type=ACCESS_(ALLOWED|DENIED),flags=([0-9a-f]+),mask=([0-9a-f]+),'
                 r'sid=([^}]+)\}')


def plan_read(plan):
    with open(plan) as f:
        return [json.loads(x) for x in f if x.strip()]


def plan_mask(e):
    return sum(RIGHTS[e["ace"], r] for r in e["rights"])


def main():
    if sys.argv[1] == "expect":
        for e in plan_read(sys.argv[2]):
            print(e["ace"], e["path"], "0x%08x" % plan_mask(e),
                  "OICI" if e.get("inherit") == "OICI" else "-")
        return 0
    mode, trace, plan, sid = sys.argv[1:5]
    trace, _, start = trace.partition(":")
    pending, handles, writes, reads = {}, {}, {}, set()
    with open(trace, errors="replace") as f:
        for n, line in enumerate(f):
            if n < int(start or 0):
                continue
            line = line.rstrip("\n")
            if m := OPEN.match(line):
                pending[m[1]] = m[2].replace("\\\\", "/")
            elif (m := OPENED.match(line)) and m[1] in pending:
                handles[m[1], m[2]] = pending.pop(m[1])
            elif (m := SET.match(line)) and (m[1], m[2]) in handles:
                aces = [(t, int(fl, 16), int(mk, 16), s) for t, fl, mk, s in ACE.findall(m[3])]
                writes[handles[m[1], m[2]]] = [a for a in aces if not a[1] & INHERITED]
            elif (m := GET.match(line)) and (m[1], m[2]) in handles:
                reads.add(handles[m[1], m[2]])
    bad = 0
    entries = plan_read(plan)
    for e in entries:
        path = e["path"]
        want = ("DENIED" if e["ace"] == "deny" else "ALLOWED",
                3 if e.get("inherit") == "OICI" else 0,
                plan_mask(e), sid)
        if mode == "grant":
            ok = want in writes.get(path, [])
            print(f"{'ok' if ok else 'MISSING'} {path}: {want[0]} {want[1]} 0x{want[2]:x}"
                  f" in {writes.get(path)}")
        else:
            left = [a for a in writes.get(path, []) if a[3] == sid]
            ok = path in reads and not left
            print(f"{'ok' if ok else 'LEFT'} {path}: read {path in reads}, left {left}")
        bad += not ok
    return 1 if bad or not entries else 0


if __name__ == "__main__":
    sys.exit(main())
