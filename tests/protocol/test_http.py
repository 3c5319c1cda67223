"""HTTP rules that need a misbehaving server: a tiny one runs in a thread on loopback."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.http import check_url, is_loopback
from mcpctl.protocol.probe import LaunchPlan
from mcpctl.protocol.session import ChannelError
from tests.protocol.conftest import run_failure
from tests.protocol.loopback_server import serving

Reply = tuple[int, dict[str, str], bytes]


def send_reply(handler: BaseHTTPRequestHandler, reply: Reply) -> None:
    """Write `reply` (status, headers, body) as the whole answer, with its length."""
    status, headers, body = reply
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture
def serve() -> Iterator[Callable[[Callable[[str, str], Reply]], str]]:
    """Start a loopback server answering every request with `answer(method, path)`."""
    with contextlib.ExitStack() as servers:
        def start(answer: Callable[[str, str], Reply]) -> str:
            class Handler(BaseHTTPRequestHandler):
                def reply(self) -> None:
                    length = int(self.headers.get("Content-Length") or 0)
                    self.rfile.read(length)
                    send_reply(self, answer(self.command, self.path))

                do_GET = do_POST = do_DELETE = reply  # noqa: N815 - http.server's names

                def log_message(self, format: str, *args: object) -> None:
                    return

            return servers.enter_context(serving(Handler)) + "/mcp"

        yield start


@pytest.mark.parametrize(("host", "loopback"), [
    ("localhost", True), ("127.0.0.1", True), ("127.8.9.10", True),
    ("::1", True), ("10.0.0.1", False), ("example.com", False), ("localhost.example", False),
])
def test_loopback_hosts(host: str, loopback: bool) -> None:
    assert is_loopback(host) is loopback


def test_plain_http_rule() -> None:
    check_url("https://mcp.example.com/mcp", allow_insecure=False)
    check_url("http://localhost:8080/mcp", allow_insecure=False)
    check_url("http://mcp.example.com/mcp", allow_insecure=True)
    with pytest.raises(ChannelError, match=r"refusing plain http to 10\.1\.2\.3"):
        check_url("http://10.1.2.3/mcp", allow_insecure=False)


def test_not_an_http_url() -> None:
    plan = LaunchPlan("r", Transport.HTTP, url="ftp://127.0.0.1/mcp", timeout=2)
    assert run_failure(plan).diagnosis == "not an http(s) url: ftp://127.0.0.1/mcp"


def test_redirects_are_not_followed(serve: Callable[..., str]) -> None:
    url = serve(lambda method, path: (307, {"Location": "https://elsewhere.example/mcp"}, b""))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=2))
    assert failure.diagnosis == (
        "server redirected to https://elsewhere.example/mcp; put that url in the config"
    )


def test_a_reply_that_is_not_json_rpc(serve: Callable[..., str]) -> None:
    url = serve(lambda method, path: (200, {"Content-Type": "application/json"}, b'{"ok":1}'))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=2))
    assert failure.diagnosis == """server sent something that is not JSON-RPC: '{"ok":1}'"""


def test_unauthorized_is_reported_with_its_body(serve: Callable[..., str]) -> None:
    url = serve(lambda method, path: (401, {"Content-Type": "text/plain"}, b"bad  token\n"))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=2))
    assert failure.diagnosis == "server refused initialize: HTTP 401: bad token"


def test_sse_endpoint_on_another_origin_is_refused(serve: Callable[..., str]) -> None:
    stream = b"event: endpoint\ndata: https://collector.example/messages\n\n"
    url = serve(lambda method, path: (200, {"Content-Type": "text/event-stream"}, stream))
    failure = run_failure(LaunchPlan("r", Transport.SSE, url=url, timeout=2))
    assert failure.diagnosis == (
        "server named a message endpoint on another origin: https://collector.example/messages"
    )


def test_a_long_reply_that_is_not_json_rpc_is_quoted_to_80_characters(
        serve: Callable[..., str]) -> None:
    """Planted by hand: the quote's bound widened 16 times (the structural
    `http.py:51`): the whole 212-character reply was quoted."""
    body = json.dumps({"note": "x" * 200})
    url = serve(lambda method, path: (200, {"Content-Type": "application/json"}, body.encode()))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=2))
    assert failure.diagnosis == (
        f"server sent something that is not JSON-RPC: {body[:80] + '…'!r}")


@pytest.mark.parametrize(("kind", "body"), [("application/xml", b"<x/>"),
                                            ("text/events", b"data: {}\n\n")])
def test_a_reply_of_another_content_type_is_refused_by_its_type(
        serve: Callable[..., str], kind: str, body: bytes) -> None:
    """Only JSON and an event stream are MCP's replies; the type is compared whole.
    Planted by hand: any type read as JSON (the structural `http.py:192`, `if True`),
    or a type compared by its first 8 characters (`:190`, `:192`): the XML was quoted
    as not JSON-RPC, the other read as events; the refusal not raised (`:195`): the
    reply ended "without an answer"."""
    url = serve(lambda method, path: (200, {"Content-Type": kind}, body))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=2))
    assert failure.diagnosis == f"unexpected content type {kind!r} from the server"


def test_a_reply_that_ends_without_the_answer_fails_at_once(
        serve: Callable[..., str]) -> None:
    """A JSON reply holding only a notification: the request's answer will never come.
    Planted by hand: that end not settled (the structural `http.py:141`): the probe
    waited out its timeout instead."""
    note = b'{"jsonrpc": "2.0", "method": "notifications/message", "params": {}}'
    url = serve(lambda method, path: (200, {"Content-Type": "application/json"}, note))
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=10))
    assert failure.diagnosis == "server ended its reply to server/discover without an answer"


@pytest.mark.parametrize("stream", [b"event: endpoint\ndata: /messages\n\n", b"",
                                    b"event: endpoint\ndata: /messages\n\n" * 2],
                         ids=["after-the-endpoint", "before-it", "after-it-twice"])
def test_an_sse_stream_that_ends_fails_the_probe_at_once(
        serve: Callable[..., str], stream: bytes) -> None:
    """The deprecated transport answers only on its event stream: once the server ends
    it, every request waiting fails with that reason, not at the timeout. Planted by
    hand: the end not passed to the waiting requests (the structural `http.py:257`),
    or the endpoint's failure set though an endpoint was named (`:255` forced true: that
    error ended the listener before the requests were told): the probe waited out its
    timeout. An endpoint named twice keeps the first (`:280` forced true: the second
    failed the channel with another reason)."""
    def answer(method: str, path: str) -> Reply:
        if method == "GET":
            return 200, {"Content-Type": "text/event-stream"}, stream
        return 202, {}, b""

    failure = run_failure(LaunchPlan("r", Transport.SSE, url=serve(answer), timeout=10))
    assert failure.diagnosis == "server closed its event stream"


def test_an_sse_refusal_cut_inside_the_token_shows_none_of_it(
        serve: Callable[..., str]) -> None:
    """A server that refuses the event stream and echoes the token it was sent, so that
    the 120 characters quoted end inside it: the token is masked before the cut, since
    a cut one's first part is no longer the secret the last pass masks. Planted by
    hand: the SSE channel made without the plan's secrets (the structural
    `http.py:229`): the token's first 7 characters were shown."""
    token = "tok-4f9a2c7e1b"
    body = "a" * 112 + " " + token
    url = serve(lambda method, path: (401, {"Content-Type": "text/plain"}, body.encode()))
    plan = LaunchPlan("r", Transport.SSE, url=url, timeout=5,
                      headers={"Authorization": f"Bearer {token}"}, secrets=(token,))
    failure = run_failure(plan)
    assert failure.diagnosis.startswith("cannot open the event stream: HTTP 401: aaaa")
    assert token[:4] not in failure.diagnosis, failure.diagnosis
