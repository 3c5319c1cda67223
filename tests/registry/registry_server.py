"""A real MCP registry on loopback: the registry API's read side over captured server.json.

`GET /v0.1/servers` (`search` as a case-insensitive substring of the name, `version=latest`,
`limit`, `cursor`), `GET /v0.1/servers/{name}/versions` and
`GET /v0.1/servers/{name}/versions/{version}` (`latest` allowed), answered the way
the registry's OpenAPI description says: `{"servers": [{"server": …, "_meta": …}],
"metadata": {"nextCursor", "count"}}`. Published versions are kept in order; the last
one of a name is its latest. `faults` lets a test make it misbehave.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "registry"
OFFICIAL = "io.modelcontextprotocol.registry/official"


def fixture(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))
    return document


def all_fixtures() -> list[dict[str, Any]]:
    return [json.loads(path.read_text("utf-8")) for path in sorted(FIXTURES.glob("*.json"))]


@dataclass
class Registry:
    """What the loopback registry serves, and what it was asked."""

    published: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)
    cache_control: str | None = None
    etag: bool = False
    fault: str | None = None  # malformed | oversized | html | status500 | drip | truncated
    status: dict[str, str] = field(default_factory=dict)  # "name@version" → status
    url: str = ""

    def publish(self, *documents: dict[str, Any]) -> None:
        for document in documents:
            self.published.setdefault(document["name"], []).append(document)

    def response(self, document: dict[str, Any], latest: bool) -> dict[str, Any]:
        key = f"{document['name']}@{document['version']}"
        return {"server": document, "_meta": {OFFICIAL: {
            "status": self.status.get(key, "active"), "isLatest": latest,
            "publishedAt": "2025-10-01T00:00:00Z", "updatedAt": "2025-10-01T00:00:00Z"}}}


class _Handler(BaseHTTPRequestHandler):
    registry: Registry

    def log_message(self, format: str, *args: Any) -> None:
        return

    def do_GET(self) -> None:
        registry = self.registry
        registry.requests.append(self.path)
        parts = urlsplit(self.path)
        segments = [unquote(s) for s in parts.path.split("/") if s]
        if segments[:2] != ["v0.1", "servers"]:
            self._send(404, {"error": "Not found"})
            return
        if len(segments) == 2:
            self._list(parse_qs(parts.query))
        elif len(segments) == 4 and segments[3] == "versions":
            versions = registry.published.get(segments[2])
            if versions is None:
                self._send(404, {"error": "Server not found"})
                return
            items = [registry.response(d, d is versions[-1]) for d in reversed(versions)]
            self._send(200, {"servers": items, "metadata": {"count": len(items)}})
        elif len(segments) == 5 and segments[3] == "versions":
            self._one(segments[2], segments[4])
        else:
            self._send(404, {"error": "Not found"})

    def _list(self, query: dict[str, list[str]]) -> None:
        registry = self.registry
        text = query.get("search", [""])[0].lower()
        limit = min(int(query.get("limit", ["30"])[0]), 100)
        start = int(query.get("cursor", ["0"])[0])
        names = sorted(n for n in registry.published if text in n.lower())
        page = names[start:start + limit]
        items = [registry.response(registry.published[n][-1], True) for n in page]
        more = start + limit < len(names)
        metadata: dict[str, Any] = {"count": len(items)}
        if more:
            metadata["nextCursor"] = str(start + limit)
        self._send(200, {"servers": items, "metadata": metadata})

    def _one(self, name: str, version: str) -> None:
        versions = self.registry.published.get(name, [])
        if version == "latest":
            found = versions[-1:]
        else:
            found = [d for d in versions if d["version"] == version]
        if not found:
            self._send(404, {"error": "Server not found"})
            return
        self._send(200, self.registry.response(found[0], found[0] is versions[-1]))

    def _send(self, code: int, body: dict[str, Any]) -> None:
        registry = self.registry
        data = json.dumps(body).encode()
        kind = "application/json"
        if registry.fault == "malformed":
            data = data[: len(data) // 2]
        elif registry.fault == "oversized":
            data = b'{"servers": [' + b'{"server": {}},' * 400_000 + b'{}]}'
        elif registry.fault == "html":
            kind, data = "text/html", b"<html>captive portal</html>"
        elif registry.fault == "status500":
            code = 500
        tag = f'"{hashlib.sha256(data).hexdigest()[:16]}"'
        if registry.etag and self.headers.get("If-None-Match") == tag and code == 200:
            self.send_response(304)
            self.send_header("ETag", tag)
            self.end_headers()
            return
        self.send_response(code)
        self.send_header("Content-Type", kind)
        # truncated: the connection ends before the length announced.
        extra = 100 if registry.fault == "truncated" else 0
        self.send_header("Content-Length", str(len(data) + extra))
        if registry.cache_control:
            self.send_header("Cache-Control", registry.cache_control)
        if registry.etag:
            self.send_header("ETag", tag)
        self.end_headers()
        if registry.fault == "drip":  # a byte every 0.2 s: each read is quick, the whole is not
            try:
                for byte in (data * 10)[:1000]:
                    self.wfile.write(bytes([byte]))
                    self.wfile.flush()
                    time.sleep(0.2)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up: expected
                pass
            return
        self.wfile.write(data)


@contextmanager
def serving(registry: Registry) -> Iterator[Registry]:
    """The registry on 127.0.0.1 (a free port) for the block; `registry.url` is its base."""
    handler = type("Handler", (_Handler,), {"registry": registry})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    registry.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield registry
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def at_version(document: dict[str, Any], version: str) -> dict[str, Any]:
    """`document` as its publisher would publish it at `version` (server and packages);
    made for a test from a captured one, e.g. to match what tests/.npm holds."""
    made: dict[str, Any] = json.loads(json.dumps(document))
    made["version"] = version
    for package in made.get("packages", []):
        if "version" in package:
            package["version"] = version
    return made
