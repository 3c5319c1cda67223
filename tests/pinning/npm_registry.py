"""A package registry on loopback serving one package, for attacks that move npm's
configuration into the workspace (`registry=` in a `.npmrc` the repo supplies)."""

from __future__ import annotations

import base64
import hashlib
import http.server
import io
import json
import tarfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager


def package_tarball(name: str, version: str, script: str) -> bytes:
    """A package archive whose bin `name` runs `script`."""
    files = {"package/package.json": json.dumps(
        {"name": name, "version": version, "bin": {name: "cli.js"}}).encode(),
        "package/cli.js": script.encode()}
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path, data in files.items():
            info = tarfile.TarInfo(path)
            info.size, info.mode = len(data), 0o755
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@contextmanager
def loopback_registry(name: str, version: str, script: str) -> Iterator[str]:
    """The registry's URL while it serves `name@version`."""
    tarball = package_tarball(name, version, script)
    integrity = "sha512-" + base64.b64encode(hashlib.sha512(tarball).digest()).decode()
    served: dict[str, bytes] = {}

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = served.get(self.path.split("?")[0])
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *_args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    served[f"/{name}/-/{name}-{version}.tgz"] = tarball
    served[f"/{name}"] = json.dumps({"name": name, "dist-tags": {"latest": version},
                                     "versions": {version: {
                                         "name": name, "version": version,
                                         "bin": {name: "cli.js"},
                                         "dist": {"tarball": f"{url}{name}/-/{name}-{version}.tgz",
                                                  "integrity": integrity}}}}).encode()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield url
    finally:
        server.shutdown()
        server.server_close()
