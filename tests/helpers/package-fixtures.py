#!/usr/bin/env python3
"""The packages the real clients of tests/proxies/routes.bats fetch through the proxies
(served by real-origin.py as a.test:8081):

  package-fixtures.py write DIR   writes a pip "simple" index with one wheel (srtdemo 1.0)
                                  under DIR/simple/srtdemo, and an npm package (srtdemo
                                  1.0.0, its tarball and registry document) under DIR/npm
  package-fixtures.py where       imports the installed srtdemo wheel (PYTHONPATH names
                                  where pip put it) and prints its WHERE
"""
import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import zipfile

WHEEL_FILES = {
    'srtdemo/__init__.py': b'WHERE = "wheel through the parent"\n',
    'srtdemo-1.0.dist-info/METADATA': b'Metadata-Version: 2.1\nName: srtdemo\nVersion: 1.0\n',
    'srtdemo-1.0.dist-info/WHEEL':
        b'Wheel-Version: 1.0\nGenerator: t\nRoot-Is-Purelib: true\nTag: py3-none-any\n',
}
NPM_FILES = {
    'package/package.json': b'{"name":"srtdemo","version":"1.0.0","main":"index.js"}\n',
    'package/index.js': b'module.exports = "npm through the parent";\n',
}


def write_wheel(d):
    rec = ''.join('%s,sha256=%s,%d\n' % (
        n, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b'=').decode(), len(b))
        for n, b in WHEEL_FILES.items())
    rec += 'srtdemo-1.0.dist-info/RECORD,,\n'
    whl = 'srtdemo-1.0-py3-none-any.whl'
    with zipfile.ZipFile(os.path.join(d, 'simple/srtdemo', whl), 'w') as z:
        for n, b in WHEEL_FILES.items():
            z.writestr(n, b)
        z.writestr('srtdemo-1.0.dist-info/RECORD', rec)
    h = hashlib.sha256(open(os.path.join(d, 'simple/srtdemo', whl), 'rb').read()).hexdigest()
    open(os.path.join(d, 'simple/srtdemo/index.html'), 'w').write(
        '<html><body><a href="%s#sha256=%s">%s</a></body></html>\n' % (whl, h, whl))


def write_npm(d):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode='w:gz') as t:
        for n, b in NPM_FILES.items():
            i = tarfile.TarInfo(n)
            i.size = len(b)
            i.mode = 0o644
            t.addfile(i, io.BytesIO(b))
    tgz = buf.getvalue()
    open(os.path.join(d, 'npm/srtdemo-1.0.0.tgz'), 'wb').write(tgz)
    doc = {'name': 'srtdemo', 'dist-tags': {'latest': '1.0.0'},
           'versions': {'1.0.0': {
               'name': 'srtdemo', 'version': '1.0.0', 'main': 'index.js',
               'dist': {'tarball': 'http://a.test:8081/npm/srtdemo-1.0.0.tgz',
                        'shasum': hashlib.sha1(tgz).hexdigest(),
                        'integrity': 'sha512-' +
                        base64.b64encode(hashlib.sha512(tgz).digest()).decode()}}}}
    open(os.path.join(d, 'npm/srtdemo'), 'w').write(json.dumps(doc))


def main(argv):
    cmd = argv[1] if len(argv) > 1 else ''
    if cmd == 'write' and len(argv) == 3:
        write_wheel(argv[2])
        write_npm(argv[2])
        return 0
    if cmd == 'where' and len(argv) == 2:
        import srtdemo
        print(srtdemo.WHERE)
        return 0
    sys.stderr.write(__doc__)
    return 2


sys.exit(main(sys.argv))
