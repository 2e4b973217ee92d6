#!/usr/bin/env python3
"""An origin for real clients (tests/proxies/routes.bats): files from a directory, and git's
smart HTTP protocol under /git/ by running git http-backend (a CGI program) per request.

  real-origin.py --listen ADDR:PORT --root DIR --name N --log FILE

DIR/git holds the repositories (exported without git-daemon-export-ok); every other
path is a file under DIR. One line is logged per request: "N METHOD PATH host=HOST".
It only ever listens on the address it is given; it dials nothing.
"""
import argparse
import http.server
import os
import subprocess
import sys


class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, fmt, *a):
        pass

    def note(self):
        with open(self.server.args.log, 'a') as f:
            f.write('%s %s %s host=%s\n' % (self.server.args.name, self.command, self.path,
                                            self.headers.get('Host')))

    def body(self):
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            out = b''
            while True:
                n = int(self.rfile.readline().split(b';')[0], 16)
                if n == 0:
                    while self.rfile.readline() not in (b'\r\n', b'\n', b''):
                        pass
                    return out
                out += self.rfile.read(n)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get('Content-Length') or 0))

    def git(self):
        path, _, query = self.path[len('/git'):].partition('?')
        data = self.body() if self.command == 'POST' else b''
        env = {
            'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
            'GIT_PROJECT_ROOT': os.path.join(self.server.args.root, 'git'),
            'GIT_HTTP_EXPORT_ALL': '1',
            'REQUEST_METHOD': self.command,
            'PATH_INFO': path,
            'QUERY_STRING': query,
            'REMOTE_ADDR': self.client_address[0],
            'CONTENT_TYPE': self.headers.get('Content-Type', ''),
            'CONTENT_LENGTH': str(len(data)),
            'HTTP_CONTENT_ENCODING': self.headers.get('Content-Encoding', ''),
            'GIT_PROTOCOL': self.headers.get('Git-Protocol', ''),
        }
        out = subprocess.run(['git', 'http-backend'], input=data, env=env,
                             capture_output=True).stdout
        head, _, payload = out.partition(b'\r\n\r\n')
        if not _:
            head, _, payload = out.partition(b'\n\n')
        status = 200
        fields = []
        for line in head.decode('latin-1').splitlines():
            k, _, v = line.partition(':')
            if k.lower() == 'status':
                status = int(v.split()[0])
            elif k:
                fields.append((k, v.strip()))
        self.send_response(status)
        for k, v in fields:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self):
        self.note()
        if self.path.startswith('/git/'):
            return self.git()
        return super().do_GET()

    def do_HEAD(self):
        self.note()
        return super().do_HEAD()

    def do_POST(self):
        self.note()
        if self.path.startswith('/git/'):
            return self.git()
        self.send_error(405)


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--listen', required=True)
    p.add_argument('--root', required=True)
    p.add_argument('--name', required=True)
    p.add_argument('--log', required=True)
    args = p.parse_args()
    host, port = args.listen.rsplit(':', 1)

    class Server(http.server.ThreadingHTTPServer):
        def finish_request(self, request, client_address):
            Handler(request, client_address, self, directory=args.root)

    srv = Server((host, int(port)), Handler)
    srv.args = args
    srv.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
