#!/usr/bin/env python3
"""Reads values out of one JSON document for the suites' checks in bash (the JSON that
srt-win prints, in tests/windows/srt-win.bats and srt-win-wine.bats):

  json-path.py DOC PATH...

DOC is the document's text. For each PATH it prints one line: the value there, a string
as it is and anything else as compact JSON with its keys sorted (true, [61000,61009],
{"a":1,"b":false}), or "(absent)" when the document has nothing there. A PATH is names
of members and indexes into arrays, separated by ".": "filters.0.remote_ports". A "*"
takes the rest of the path in each element of an array and gives the array of what it
found ("filters.*.action"); "#" gives the number of elements of an array or object.
"""
import json
import sys


class Absent(Exception):
    pass


def walk(v, steps):
    if not steps:
        return v
    step, rest = steps[0], steps[1:]
    if step == "*" and isinstance(v, list):
        return [walk(x, rest) for x in v]
    if step == "#" and isinstance(v, (list, dict)) and not rest:
        return len(v)
    if isinstance(v, dict) and step in v:
        return walk(v[step], rest)
    if isinstance(v, list) and step.isdigit() and int(step) < len(v):
        return walk(v[int(step)], rest)
    raise Absent()


def show(v):
    if isinstance(v, str):
        return v
    return json.dumps(v, separators=(",", ":"), sort_keys=True)


def main(argv):
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    doc = json.loads(argv[1])
    for path in argv[2:]:
        try:
            print(show(walk(doc, path.split("."))))
        except Absent:
            print("(absent)")
    return 0


sys.exit(main(sys.argv))
