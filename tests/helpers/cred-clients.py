#!/usr/bin/env python3
"""The Python clients tests/proxies/credentials.bats and credential-reflection.bats run in
the sandbox with a masked credential: the value they send is $GH_TOKEN there (the
sentinel srt gave them), through the proxy of their environment.

  cred-clients.py python-clients HOST:PORT
      a form POST of t=TOKEN with "Authorization: Bearer TOKEN" to /req by requests, then
      a PUT of u=TOKEN with "X-Token: TOKEN" to /urllib by urllib, its body chunked and
      cut inside the token; prints "requests STATUS BODY" and "urllib STATUS BODY"
  cred-clients.py chunked-field URL
      a PUT of t=TOKEN&z=1 to URL by urllib, its body chunked and cut inside the token;
      prints "urllib STATUS BODY"
  cred-clients.py b64-free VALUE
      reads base64 lines on standard input; exits 1 at the first whose decoded bytes
      hold VALUE, 0 when none does (what a client read holds no form of the value)
"""
import base64
import os
import sys
import urllib.request


def chunked_put(url, body, headers):
    """PUTs the pieces of body as chunks (urllib sends an iterable chunked); prints
    "urllib STATUS BODY"."""
    q = urllib.request.Request(url, data=iter(body), headers=headers, method="PUT")
    with urllib.request.urlopen(q, timeout=10) as resp:
        print("urllib", resp.status, resp.read().decode())


def python_clients(port):
    import requests
    tok = os.environ["GH_TOKEN"]
    r = requests.post("http://%s/req" % port, data={"t": tok},
                      headers={"Authorization": "Bearer " + tok}, timeout=10)
    print("requests", r.status_code, r.text)
    # A chunked body with the sentinel split across two chunks.
    chunked_put("http://%s/urllib" % port, [b"u=" + tok[:9].encode(), tok[9:].encode()],
                {"X-Token": tok})


def chunked_field(url):
    tok = os.environ["GH_TOKEN"]
    # A chunked body with the sentinel cut across two chunks.
    chunked_put(url, [b"t=" + tok[:9].encode(), tok[9:].encode() + b"&z=1"], {})


def b64_free(value):
    for line in sys.stdin:
        if value.encode() in base64.b64decode(line.strip()):
            return 1
    return 0


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ""
    if cmd == "python-clients" and len(argv) == 3:
        python_clients(argv[2])
        return 0
    if cmd == "chunked-field" and len(argv) == 3:
        chunked_field(argv[2])
        return 0
    if cmd == "b64-free" and len(argv) == 3:
        return b64_free(argv[2])
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
