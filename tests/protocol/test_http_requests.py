"""What the probe's HTTP channels send a server, as the server saw it: the config's
headers on every request, the session the server named on every request after
`initialize`, a DELETE that ends the session when the probe is done, and the event
stream asked for as one (issue 30: each was shown to fail with the bug planted by
hand, named in its test)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.probe import LaunchPlan
from tests.protocol.conftest import run_failure, run_probe
from tests.protocol.loopback_server import serving
from tests.protocol.test_bridge_edges import JSON
from tests.protocol.test_http import send_reply

SESSION = "session-7"
RESULTS: dict[str, Any] = {
    "initialize": {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                   "serverInfo": {"name": "scripted", "version": "1"}},
    "tools/list": {"tools": [{"name": "echo", "inputSchema": {"type": "object"}}]},
}


class Seen:
    """Each request the server got: its method (HTTP, then JSON-RPC) and headers."""

    def __init__(self) -> None:
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.lock = threading.Lock()
        self.refusing = b""  # when set: each notification refused, HTTP 400 with this body

    def add(self, verb: str, method: str, headers: dict[str, str]) -> None:
        with self.lock:
            self.requests.append((verb, method, headers))


@pytest.fixture
def scripted() -> Iterator[tuple[str, Seen]]:
    """A Streamable HTTP server that names a session, answers in JSON and records."""
    seen = Seen()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            seen.add("POST", body.get("method", ""), dict(self.headers.items()))
            if "id" not in body or "method" not in body:
                send_reply(self, (400, {}, seen.refusing) if seen.refusing else (202, {}, b""))
                return
            answer: dict[str, Any] = {"jsonrpc": "2.0", "id": body["id"]}
            if body["method"] in RESULTS:
                answer["result"] = RESULTS[body["method"]]
            else:  # `server/discover` among them: the handshake is `initialize`
                answer["error"] = {"code": -32601, "message": "no such method"}
            extra = {"Mcp-Session-Id": SESSION} if body["method"] == "initialize" else {}
            send_reply(self, (200, {**JSON, **extra}, json.dumps(answer).encode()))

        def do_DELETE(self) -> None:
            seen.add("DELETE", "", dict(self.headers.items()))
            send_reply(self, (200, {}, b""))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        yield f"{base}/mcp", seen


def test_the_config_headers_and_the_session_reach_every_request(
        scripted: tuple[str, Seen]) -> None:
    """Planted by hand: the client made without the config's headers (the structural
    `http.py:77`): no request carried `Authorization`; the DELETE left out (`:111`):
    the server's session was never ended; the DELETE sent without the session's
    headers (`:115`): it named no session."""
    url, seen = scripted
    plan = LaunchPlan("r", Transport.HTTP, url=url, timeout=5,
                      headers={"Authorization": "Bearer t0ken", "X-Team": "blue"})
    result = run_probe(plan)
    assert [tool["name"] for tool in result.tools] == ["echo"]
    verbs = [(verb, method) for verb, method, _ in seen.requests]
    assert verbs == [("POST", "server/discover"), ("POST", "initialize"),
                     ("POST", "notifications/initialized"), ("POST", "tools/list"),
                     ("DELETE", "")]
    for _, _, headers in seen.requests:
        assert headers.get("Authorization") == "Bearer t0ken", verbs
        assert headers.get("X-Team") == "blue"
    sessions = [headers.get("Mcp-Session-Id") for _, _, headers in seen.requests]
    assert sessions == [None, None, SESSION, SESSION, SESSION]  # named by initialize


def test_a_refused_notification_fails_the_probe(scripted: tuple[str, Seen]) -> None:
    """`notifications/initialized` answered with an HTTP error: the server did not take
    the handshake, and the probe says so rather than going on. Planted by hand: the
    refusal not raised (the structural `http.py:97`): the probe listed the tools."""
    url, seen = scripted
    seen.refusing = b"not now"
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=5))
    assert failure.diagnosis == (
        "server refused notifications/initialized: HTTP 400: not now")
    assert [method for _, method, _ in seen.requests][-1] != "tools/list"


def test_the_probe_asks_for_the_sse_stream_as_one() -> None:
    """The deprecated transport's GET asks for an event stream. Planted by hand: the
    header left out (the structural `http.py:266`): httpx's `*/*` was sent."""
    accepted: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            accepted.append(self.headers.get("Accept"))
            send_reply(self, (200, {"Content-Type": "text/event-stream"}, b""))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        failure = run_failure(LaunchPlan("r", Transport.SSE, url=f"{base}/sse", timeout=5))
    assert failure.diagnosis == "server closed its event stream"
    assert accepted == ["text/event-stream"]
