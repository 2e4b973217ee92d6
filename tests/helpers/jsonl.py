#!/usr/bin/env python3
"""Reads the JSON-lines logs the suites check (the proxies' --log, srt-launch's
--violations records), one program for all of them ($JSONL, set by tests/helpers.bash):

  jsonl.py field NAME              reads one JSON object on standard input and prints its
                                   field NAME as Python prints it ("null" for null)
  jsonl.py valid FILE              exit 0 when every line of FILE is JSON, 1 otherwise
  jsonl.py has FILE KEY...         exit 0 when every record of FILE has every KEY, 1 (and
                                   the missing keys printed) otherwise
  jsonl.py print FILE FORMAT [KEY=VALUE...]
                                   prints FORMAT % record (names as in "%(path)s") for
                                   each record of FILE whose fields KEY are VALUE
"""
import json
import sys


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "field" and len(argv) == 3:
        v = json.loads(sys.stdin.read())[argv[2]]
        print("null" if v is None else v)
        return 0
    if cmd == "valid" and len(argv) == 3:
        try:
            [json.loads(line) for line in open(argv[2])]
        except ValueError:
            return 1
        return 0
    if cmd == "has" and len(argv) >= 4:
        for line in open(argv[2]):
            missing = set(argv[3:]) - set(json.loads(line))
            if missing:
                print("missing:", " ".join(sorted(missing)))
                return 1
        return 0
    if cmd == "print" and len(argv) >= 4:
        where = [kv.split("=", 1) for kv in argv[4:]]
        for line in open(argv[2]):
            o = json.loads(line)
            if all(str(o.get(k)) == v for k, v in where):
                print(argv[3] % o)
        return 0
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
