# The client side of tests/proxies/sigv4.bats, run inside the sandbox: signs one request with
# the credentials in its environment (the sentinels srt gave it) by botocore's signers,
# sends it through $HTTP_PROXY with urllib, prints the status and the body.
#   sigv4-client.py SHAPE METHOD URL [BODY]
# SHAPE: header (SigV4Auth, service execute-api: the payload hash is signed, not sent),
# s3 (S3SigV4Auth: x-amz-content-sha256 is the body's hash), unsigned (UNSIGNED-PAYLOAD),
# streaming (x-amz-content-sha256: STREAMING-...), presigned (SigV4QueryAuth),
# sigv4a (an AWS4-ECDSA-P256-SHA256 field), chunked (s3, the body sent chunked).
#   sigv4-client.py check
# exits 0 when botocore can be imported (the suite is skipped without it), 1 otherwise.
import os, sys, urllib.error, urllib.request
if sys.argv[1:] == ["check"]:
    try:
        import botocore  # noqa: F401
    except ImportError:
        sys.exit(1)
    sys.exit(0)
from botocore.auth import S3SigV4Auth, SigV4Auth, SigV4QueryAuth
from botocore.awsrequest import AWSRequest
from botocore.config import Config
from botocore.credentials import Credentials

shape, method, url = sys.argv[1:4]
body = sys.argv[4].encode() if len(sys.argv) > 4 else b""
creds = Credentials(os.environ["AWS_ACCESS_KEY_ID"], os.environ["AWS_SECRET_ACCESS_KEY"],
                    os.environ.get("AWS_SESSION_TOKEN"))
req = AWSRequest(method=method, url=url, data=body or None)
if shape == "header":
    SigV4Auth(creds, "execute-api", "us-east-1").add_auth(req)
elif shape in ("s3", "chunked"):
    S3SigV4Auth(creds, "s3", "us-east-1").add_auth(req)
elif shape == "unsigned":
    req.context["client_config"] = Config(s3={"payload_signing_enabled": False})
    S3SigV4Auth(creds, "s3", "us-east-1").add_auth(req)
elif shape == "streaming":
    req.headers["X-Amz-Content-SHA256"] = "STREAMING-AWS4-HMAC-SHA256-PAYLOAD"
    SigV4Auth(creds, "s3", "us-east-1").add_auth(req)
elif shape == "presigned":
    SigV4QueryAuth(creds, "s3", "us-east-1", expires=60).add_auth(req)
elif shape == "sigv4a":
    req.headers["X-Amz-Date"] = "20240101T000000Z"
    req.headers["Authorization"] = ("AWS4-ECDSA-P256-SHA256 Credential=%s/20240101/s3/"
                                    "aws4_request, SignedHeaders=host;x-amz-date, "
                                    "Signature=3045" % creds.access_key)
p = req.prepare()
data = p.body
if shape == "chunked":
    data = iter([body[:3], body[3:]])   # urllib sends an iterable chunked
hdrs = {k: v for k, v in p.headers.items()}
if shape == "chunked":
    hdrs.pop("Content-Length", None)
    hdrs["Transfer-Encoding"] = "chunked"
r = urllib.request.Request(p.url, data=data, headers=hdrs, method=method)
try:
    with urllib.request.urlopen(r, timeout=20) as resp:
        print(resp.status, resp.read().decode())
except urllib.error.HTTPError as e:
    print(e.code, e.read().decode().strip())
