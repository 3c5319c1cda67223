"""A scripted Streamable HTTP MCP server (2025-11-25 style, with a session) on loopback,
in a thread, that records every request: what the bridge tests check the bridge sent.

- `initialize` answers with a session id; every later request must carry it (else 400).
- `tools/call` of `ask` asks the client `roots/list` on the request's event stream,
  waits for the answer (a POST of its own), then returns it as the tool's text.
- `tools/list` names `ask` and `bad`, whose `x-mcp-header` is invalid.
- GET opens the standalone stream and sends one `notifications/tools/list_changed`.
- With `token`, a request without `Authorization: Bearer <token>` gets 401 whose body
  quotes the header it received (a server that echoes secrets), and `status` forces
  every POST to fail with that status.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.protocol.test_http import send_reply

SESSION = "sess-7f3a"
ASKED_ID = "srv-1"


@dataclass
class Seen:
    method: str
    headers: dict[str, str]
    body: Any


HANDSHAKE_VERSIONS = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})


@dataclass
class Script:
    token: str | None = None
    status: int | None = None
    slow_notifications: float = 0.0  # seconds before a notification's 202
    seen: list[Seen] = field(default_factory=list)
    log: list[str] = field(default_factory=list)  # "POST method" on arrival, "202 method"
    answer: dict[str, Any] = field(default_factory=dict)
    answered: threading.Event = field(default_factory=threading.Event)
    stop: threading.Event = field(default_factory=threading.Event)

    def posts(self) -> list[Any]:
        return [seen.body for seen in self.seen if seen.method == "POST"]


def _tool_result(request_id: Any, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id,
            "result": {"content": [{"type": "text", "text": text}], "isError": False}}


TOOLS = {"tools": [
    {"name": "ask", "description": "Ask the client for its roots.",
     "inputSchema": {"type": "object"}},
    {"name": "bad", "description": "x-mcp-header on a number: invalid.",
     "inputSchema": {"type": "object", "properties": {
         "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}},
]}


def _handler(script: Script) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length))
            self._record(body)
            if not self._authorized():
                return
            if script.status is not None:
                moved = {"Location": "https://elsewhere.example/mcp"}
                self._send(script.status, b"no such endpoint", "text/plain",
                           moved if 300 <= script.status < 400 else None)
                return
            method = body.get("method")
            if method != "initialize" and self.headers.get("Mcp-Session-Id") != SESSION:
                self._send(400, b"missing session", "text/plain")
            elif method is None:  # the client's answer to our request
                script.answer = body
                script.answered.set()
                self._send(202, b"", None)
            elif "id" not in body:
                time.sleep(script.slow_notifications)
                script.log.append(f"202 {method}")
                self._send(202, b"", None)
            elif method == "initialize":
                # The version asked for, as a server that speaks it answers (Gemini CLI
                # asks for 2025-06-18 and drops a server that answers another).
                asked = (body.get("params") or {}).get("protocolVersion")
                version = asked if asked in HANDSHAKE_VERSIONS else "2025-11-25"
                self._json(200, {"jsonrpc": "2.0", "id": body["id"], "result": {
                    "protocolVersion": version, "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"}}},
                    {"Mcp-Session-Id": SESSION})
            elif method == "tools/list":
                self._json(200, {"jsonrpc": "2.0", "id": body["id"], "result": TOOLS})
            elif method == "ping":  # what Gemini CLI's `mcp list` sends after initialize
                self._json(200, {"jsonrpc": "2.0", "id": body["id"], "result": {}})
            elif method == "tools/call":
                self._ask(body["id"])
            else:
                self._json(200, {"jsonrpc": "2.0", "id": body["id"],
                                 "error": {"code": -32601, "message": "no such method"}})

        def do_GET(self) -> None:
            self._record(None)
            if not self._authorized():
                return
            self._stream_start()
            self._event({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
            script.stop.wait(30)

        def do_DELETE(self) -> None:
            self._record(None)
            self._send(200, b"", None)

        def _ask(self, request_id: Any) -> None:
            self._stream_start()
            self._event({"jsonrpc": "2.0", "id": ASKED_ID, "method": "roots/list"})
            if not script.answered.wait(20):
                return
            self._event(_tool_result(request_id, json.dumps(script.answer, sort_keys=True)))

        def _record(self, body: Any) -> None:
            headers = {name.lower(): value for name, value in self.headers.items()}
            script.seen.append(Seen(self.command, headers, body))
            script.log.append(f"{self.command} {(body or {}).get('method')}")

        def _authorized(self) -> bool:
            given = self.headers.get("Authorization", "")
            if script.token is None or given == f"Bearer {script.token}":
                return True
            self._send(401, f"invalid credentials: {given}".encode(), "text/plain")
            return False

        def _json(self, status: int, message: dict[str, Any],
                  headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(message).encode(), "application/json", headers)

        def _send(self, status: int, body: bytes, kind: str | None,
                  headers: dict[str, str] | None = None) -> None:
            typed = {"Content-Type": kind} if kind else {}
            send_reply(self, (status, {**typed, **(headers or {})}, body))

        def _stream_start(self) -> None:
            # HTTP/1.0: the stream's end is the connection's close.
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": priming\n\n")
            self.wfile.flush()

        def _event(self, message: dict[str, Any]) -> None:
            self.wfile.write(b"event: message\ndata: " + json.dumps(message).encode() + b"\n\n")
            self.wfile.flush()

        def log_message(self, format: str, *args: object) -> None:
            return

    return Handler


@contextmanager
def scripted_server(script: Script) -> Iterator[str]:
    """Serve `script` on 127.0.0.1 for the block; yields the endpoint's url."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(script))
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/mcp"
    finally:
        script.stop.set()
        script.answered.set()
        server.shutdown()
        server.server_close()
