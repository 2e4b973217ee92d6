# A plain-HTTP upstream for tests/proxies/credentials.bats: logs each request (line, fields,
# de-chunked body) to the file named by argv[2] and answers "ok". It listens on port
# argv[1] of $UP_HOST (127.0.0.1 by default).
import http.server, os, sys
log = open(sys.argv[2], "ab", buffering=0)
class H(http.server.BaseHTTPRequestHandler):
    def do_any(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline(); break
                body += self.rfile.read(size); self.rfile.readline()
        log.write(b"==== " + self.requestline.encode() + b"\n" + bytes(self.headers) + body + b"\n")
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers(); self.wfile.write(b"ok")
    do_GET = do_POST = do_PUT = do_any
    def log_message(self, *a): pass
http.server.HTTPServer((os.environ.get("UP_HOST", "127.0.0.1"), int(sys.argv[1])), H).serve_forever()
