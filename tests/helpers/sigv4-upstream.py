# A plain-HTTP upstream for tests/proxies/sigv4.bats that checks AWS Signature Version 4 the
# way a service does, with its own signer (hmac, hashlib; nothing of srt's or botocore's):
#   sigv4-upstream.py PORT LOG ACCESS_KEY_ID SECRET [SESSION_TOKEN]
# With UP_TLS=CERT:KEY in the environment it speaks HTTPS with that pair; it listens on
# $UP_HOST (127.0.0.1 by default).
# Each request is logged ("OK" or "BAD why", the request line, its fields, its body) and
# answered 200 with a body an AWS client can parse, or 403.
import hashlib, hmac, http.server, os, re, ssl, sys, urllib.parse

PORT, LOG, AKID, SECRET = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
TOKEN = sys.argv[5] if len(sys.argv) > 5 else None
log = open(LOG, "ab", buffering=0)

STS = (b'<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">'
       b"<GetCallerIdentityResult><Arn>arn:aws:iam::123456789012:user/t</Arn>"
       b"<UserId>AIDAT</UserId><Account>123456789012</Account></GetCallerIdentityResult>"
       b"<ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>"
       b"</GetCallerIdentityResponse>")
S3_LIST = (b'<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult>'
           b"<Owner><ID>o</ID></Owner><Buckets><Bucket><Name>verified-bucket</Name>"
           b"<CreationDate>2020-01-01T00:00:00.000Z</CreationDate></Bucket></Buckets>"
           b"</ListAllMyBucketsResult>")


def enc(s, safe):
    return urllib.parse.quote(s, safe=safe)


def canonical_query(q):
    pairs = urllib.parse.parse_qsl(q, keep_blank_values=True)
    return "&".join(sorted(enc(k, "-_.~") + "=" + enc(v, "-_.~") for k, v in pairs))


def check(method, target, headers, body):
    auth = headers.get("Authorization", "")
    m = re.fullmatch(r"AWS4-HMAC-SHA256 Credential=([^/]+)/(\d{8})/([^/]+)/([^/]+)/aws4_request,"
                     r" ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})", auth)
    if not m:
        return "no SigV4 Authorization"
    akid, date, region, service, names, sig = m.groups()
    if akid != AKID:
        return "unknown access key id " + akid
    if TOKEN is not None and headers.get("X-Amz-Security-Token") != TOKEN:
        return "wrong security token"
    amz_date = headers.get("X-Amz-Date", "")
    if not amz_date.startswith(date):
        return "x-amz-date outside the scope"
    path, _, query = target.partition("?")
    uri = path if service == "s3" else enc(path, "/~")
    lines = []
    for n in names.split(";"):
        vals = headers.get_all(n) or []
        if not vals:
            return "signed header missing: " + n
        lines.append(n + ":" + ",".join(" ".join(v.split()) for v in vals))
    body_hash = hashlib.sha256(body).hexdigest()
    claimed = headers.get("X-Amz-Content-Sha256")
    if claimed not in (None, "UNSIGNED-PAYLOAD") and claimed != body_hash:
        return "x-amz-content-sha256 is not the body's hash"
    payload = claimed if claimed is not None else body_hash
    creq = "\n".join([method, uri, canonical_query(query)] + lines +
                     ["", names, payload])
    sts = "\n".join(["AWS4-HMAC-SHA256", amz_date, "/".join([date, region, service,
                     "aws4_request"]), hashlib.sha256(creq.encode()).hexdigest()])
    k = ("AWS4" + SECRET).encode()
    for part in (date, region, service, "aws4_request"):
        k = hmac.new(k, part.encode(), hashlib.sha256).digest()
    want = hmac.new(k, sts.encode(), hashlib.sha256).hexdigest()
    return None if hmac.compare_digest(want, sig) else "signature does not match"


class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_any(self):
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
        why = check(self.command, self.path, self.headers, body)
        log.write(("OK" if why is None else "BAD " + why).encode() + b"\n==== " +
                  self.requestline.encode() + b"\n" + bytes(self.headers) + body + b"\n")
        if why is None:
            out = STS if b"GetCallerIdentity" in body + self.path.encode() else \
                S3_LIST if self.path == "/" else b"ok"
            self.send_response(200)
        else:
            out = ("<Error><Code>SignatureDoesNotMatch</Code><Message>%s</Message></Error>"
                   % why).encode()
            self.send_response(403)
        self.send_header("Content-Type", "text/xml")
        self.send_header("Content-Length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    do_GET = do_POST = do_PUT = do_HEAD = do_DELETE = do_any

    def log_message(self, *a):
        pass


srv = http.server.ThreadingHTTPServer((os.environ.get("UP_HOST", "127.0.0.1"), PORT), H)
if os.environ.get("UP_TLS"):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(*os.environ["UP_TLS"].split(":"))
    srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
srv.serve_forever()
