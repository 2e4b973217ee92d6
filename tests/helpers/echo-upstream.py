# A plain-HTTP upstream for tests/proxies/credential-reflection.bats that hands back what it
# is sent, or the real value it knows ($UP_SECRET), in the ways a service that echoes or
# stores content would: it logs each request (line, fields, de-chunked body) to the file
# named by argv[2] and answers by path, on port argv[1] of $UP_HOST (127.0.0.1), over
# HTTPS with UP_TLS=CERT:KEY (further arguments are ignored: netns.sh tls passes some):
#   /echo    the request line, fields and body, framed by Content-Length
#   /split   the value in a chunked body, cut across chunks one byte apart, and in the
#            Location, Set-Cookie and a custom field
#   /length  the value in a body framed by Content-Length, sent in two writes cut inside it
#   /close   the value in a body that ends with the connection (HTTP/1.0 framing)
#   /b64     the value base64-encoded inside longer text, at each alignment, and what
#            $UP_BASIC (a Basic authorization's value) decodes to
#   /gzip    the value gzip-encoded, chunked, whatever Accept-Encoding asked for
import base64, gzip, http.server, os, ssl, sys, time

SECRET = os.environ["UP_SECRET"].encode()
log = open(sys.argv[2], "ab", buffering=0)


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def body(self):
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        if self.headers.get("Transfer-Encoding") == "chunked":
            body = b""
            while True:
                size = int(self.rfile.readline().strip(), 16)
                if size == 0:
                    self.rfile.readline()
                    break
                body += self.rfile.read(size)
                self.rfile.readline()
        return body

    def chunk(self, b):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(b), b))
        self.wfile.flush()

    def do_any(self):
        body = self.body()
        req = self.requestline.encode() + b"\n" + bytes(self.headers) + body
        log.write(b"==== " + req + b"\n")
        path = self.path.split("?")[0]
        if path == "/echo":
            self.send_response(200)
            self.send_header("Content-Length", str(len(req)))
            self.end_headers()
            self.wfile.write(req)
        elif path == "/split":
            self.send_response(200)
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Location", "/next?t=" + SECRET.decode())
            self.send_header("Set-Cookie", "s=" + SECRET.decode() + "; Path=/")
            self.send_header("X-Echo", SECRET.decode())
            self.end_headers()
            data = b"before " + SECRET + b" after\n"
            cut = 7 + len(SECRET) // 2
            self.chunk(data[:cut])
            self.chunk(data[cut:cut + 1])
            self.chunk(data[cut + 1:])
            self.wfile.write(b"0\r\n\r\n")
        elif path == "/length":
            data = b"value=" + SECRET + b"\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[:10])
            self.wfile.flush()
            time.sleep(0.2)     # two reads on the proxy's side, the value cut between
            self.wfile.write(data[10:])
        elif path == "/close":
            self.protocol_version = "HTTP/1.0"
            self.close_connection = True
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"closing " + SECRET + b"\n")
        elif path == "/b64":
            self.send_response(200)
            out = b""
            for pre in (b"", b"x", b"xy"):
                out += b"b64=" + base64.b64encode(pre + SECRET + b"!") + b"\n"
            # What a service that checks Basic credentials says back ($UP_BASIC: the
            # masked value of an Authorization: Basic field).
            if os.environ.get("UP_BASIC"):
                out += b"basic=" + base64.b64decode(os.environ["UP_BASIC"]) + b"\n"
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)
        elif path == "/gzip":
            z = gzip.compress(b"gz " + SECRET + b" gz\n")
            self.send_response(200)
            self.send_header("Content-Encoding", "gzip")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for i in range(0, len(z), 5):
                self.chunk(z[i:i + 5])
            self.wfile.write(b"0\r\n\r\n")
        else:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()

    do_GET = do_POST = do_PUT = do_any

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer((os.environ.get("UP_HOST", "127.0.0.1"),
                                       int(sys.argv[1])), H)
if os.environ.get("UP_TLS"):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*os.environ["UP_TLS"].split(":"))
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
