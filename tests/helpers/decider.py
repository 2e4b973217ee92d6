#!/usr/bin/env python3
"""A decider for the tests: starts PROGRAM with one end of a socket pair as fd 3 (or two
pipes as fds 3 and 4 with --pipes), speaks the decider protocol on the other, and logs
every frame it reads or writes as one JSON line ("<" from the proxy, ">" to it).

  decider.py [--pipes] RULES LOG -- PROGRAM ARGS...

RULES is a JSON object: "hello" (the reply's lists: {"allowedDomains":[], ...}, or
"raw" bytes to send instead, as a string), and "hosts": host -> what to answer: a verdict
object without t and id ({"action":"allow","setHeaders":{...}}), or {"silent":true} for
no answer at all (the proxy's timeout), or {"garbage":"text"} for a malformed frame. A
host not listed is allowed. "need_body" in a host's rule first asks for the body, then
answers with the rest of the rule.
"""
import fcntl
import json
import os
import signal
import socket
import struct
import subprocess
import sys


def frame(obj):
    b = json.dumps(obj, separators=(',', ':')).encode()
    return struct.pack('>I', len(b)) + b


def main():
    args = sys.argv[1:]
    pipes = False
    if args[0] == '--pipes':
        pipes = True
        args = args[1:]
    rules = json.load(open(args[0]))
    # Kept above the descriptors the child is given.
    logf = os.fdopen(os.dup2(os.open(args[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT,
                                     0o644), 20), 'a', buffering=1)
    prog = args[3:]
    def high(fd):
        h = fcntl.fcntl(fd, fcntl.F_DUPFD, 30)
        os.close(fd)
        return h

    if pipes:
        p2d_r, p2d_w = map(high, os.pipe())        # proxy -> decider
        d2p_r, d2p_w = map(high, os.pipe())        # decider -> proxy
        os.dup2(d2p_r, 3)
        os.dup2(p2d_w, 4)
        child = subprocess.Popen(prog, pass_fds=(3, 4))
        os.close(3)
        os.close(4)
        os.close(d2p_r)
        os.close(p2d_w)
        rd = os.fdopen(p2d_r, 'rb', buffering=0)
        wr = os.fdopen(d2p_w, 'wb', buffering=0)
    else:
        a, b = socket.socketpair()
        os.dup2(b.fileno(), 3)
        child = subprocess.Popen(prog, pass_fds=(3,))
        os.close(3)
        b.close()
        rd = a.makefile('rb', buffering=0)
        wr = a.makefile('wb', buffering=0)

    # Stopped, the decider takes its proxy along: nothing outlives the test.
    def stop(*_):
        child.terminate()
        child.wait()
        sys.exit(0)
    signal.signal(signal.SIGTERM, stop)

    def send(data, obj=None):
        wr.write(data)
        wr.flush()
        logf.write('> ' + (json.dumps(obj, separators=(',', ':')) if obj is not None
                           else data[4:].decode('latin-1')) + '\n')

    def read_exact(n):
        out = b''
        while len(out) < n:
            d = rd.read(n - len(out))
            if not d:
                return None
            out += d
        return out

    pending_body = {}
    while True:
        head = read_exact(4)
        if head is None:
            break
        n = struct.unpack('>I', head)[0]
        body = read_exact(n)
        if body is None:
            break
        logf.write('< ' + body.decode() + '\n')
        msg = json.loads(body)
        if msg['t'] == 'hello':
            h = rules.get('hello', {'allowedDomains': [], 'deniedDomains': []})
            if 'raw' in h:
                raw = h['raw'].encode()
                send(struct.pack('>I', len(raw)) + raw)
            else:
                reply = {'t': 'hello', 'proto': 1}
                reply.update(h)
                send(frame(reply), reply)
            continue
        if msg['t'] == 'body':
            rule = pending_body.pop(msg['id'])
            v = {'t': 'verdict', 'id': msg['id']}
            v.update({k: x for k, x in rule.items() if k != 'need_body'})
            send(frame(v), v)
            continue
        rule = rules.get('hosts', {}).get(msg['host'], {'action': 'allow'})
        if rule.get('silent'):
            continue
        if 'garbage' in rule:
            g = rule['garbage'].encode()
            send(struct.pack('>I', len(g)) + g)
            continue
        if 'need_body' in rule:
            pending_body[msg['id']] = rule
            v = {'t': 'verdict', 'id': msg['id'], 'action': 'need_body',
                 'max': rule['need_body']}
            send(frame(v), v)
            continue
        v = {'t': 'verdict', 'id': msg['id']}
        v.update(rule)
        send(frame(v), v)
    logf.write('EOF\n')
    try:
        child.wait(timeout=10)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
    sys.exit(child.returncode)


if __name__ == '__main__':
    main()
