#!/usr/bin/env python3
"""Both ends of the MCP recipe's test (tests/docs/recipes.bats, "recipe mcp"):

  mcp-stub.py client CONFIG NAME
      runs the command line CONFIG (an .mcp.json) gives the server NAME, as an MCP client
      does, sends it one JSON-RPC request ("initialize", id 1) on its standard input and
      prints what it wrote to its standard output and error
  mcp-stub.py server
      a stand-in server (the recipe's notes_server.py is a copy of this file, run without
      arguments): answers one JSON-RPC request read from standard input with whether it
      runs under srt ($SANDBOX_RUNTIME) and whether it could open /etc/srt-recipe-probe
      for writing ("yes" or "no")
"""
import json
import os
import subprocess
import sys


def server():
    req = json.loads(sys.stdin.readline())
    try:
        open("/etc/srt-recipe-probe", "w")
        w = "yes"
    except OSError:
        w = "no"
    print(json.dumps({"jsonrpc": "2.0", "id": req["id"],
                      "result": {"sandboxed": os.environ.get("SANDBOX_RUNTIME"),
                                 "wrote_etc": w}}))
    return 0


def client(config, name):
    s = json.load(open(config))["mcpServers"][name]
    r = subprocess.run([s["command"]] + s["args"], capture_output=True, text=True,
                       input=json.dumps({"jsonrpc": "2.0", "id": 1,
                                         "method": "initialize"}) + "\n")
    print(r.stdout, r.stderr)
    return 0


def main(argv):
    if argv[1:] in ([], ["server"]):
        return server()
    if argv[1] == "client" and len(argv) == 4:
        return client(argv[2], argv[3])
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
