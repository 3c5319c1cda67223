"""The bridge at the edges of a session: a batch from the client, a JSON-RPC error in an
HTTP refusal, a stream that goes on after its answer, a server or a client that leaves.
Each test fails with one check of the bridge removed (structural mutants of issue 30,
planted by hand; each docstring names its own)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.processes import started
from tests.protocol.conftest import refusing_port
from tests.protocol.loopback_server import serving
from tests.protocol.test_bridge import Bridged, configure
from tests.protocol.test_http import Reply, send_reply, serve
from tests.protocol.test_sse_origin import INITIALIZE

__all__ = ["serve"]  # the fixture, used by name

JSON = {"Content-Type": "application/json"}
EVENTS = {"Content-Type": "text/event-stream"}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
HANDSHAKE = {"protocolVersion": "2025-06-18", "capabilities": {},
             "serverInfo": {"name": "s", "version": "1"}}


def answering(answer: Callable[[], Reply]) -> Callable[[str, str], Reply]:
    """A `serve` handler that reads nothing of the body: each POST's reply by its order."""
    return lambda method, path: answer() if method == "POST" else (405, {}, b"")


def test_each_message_of_a_batch_reaches_the_server_and_is_answered(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """A batch is sent one POST per message. Fails with the batch loop's send dropped."""
    posts: list[int] = []

    def answer() -> Reply:
        posts.append(1)
        result = HANDSHAKE if len(posts) == 1 else {"n": len(posts)}
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": len(posts),
                                      "result": result}).encode()

    configure(user_config, serve(answering(answer)))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["result"] == HANDSHAKE
    batch = [{"jsonrpc": "2.0", "id": 2, "method": "ping"},
             {"jsonrpc": "2.0", "id": 3, "method": "ping"}]
    assert bridge.process.stdin is not None
    bridge.process.stdin.write(json.dumps(batch).encode() + b"\n")
    bridge.process.stdin.flush()
    answers = [bridge.receive(), bridge.receive()]
    code, _ = bridge.finish()
    assert sorted(message["id"] for message in answers) == [2, 3]
    assert len(posts) == 3
    assert code == 0


@pytest.mark.parametrize("error", [
    {"code": -32602, "message": "unknown tool"},
    {"code": -32602, "message": "unknown tool", "data": {"tool": "x"}},
], ids=["without data", "with data"])
def test_a_json_rpc_error_in_a_refusal_reaches_the_client_as_the_server_wrote_it(
    serve: Callable[..., str], user_config: Path, tmp_path: Path, error: dict[str, Any]
) -> None:
    """HTTP 400 with a JSON-RPC error for the request: the client gets that error, no
    field added. Fails with `data` always written (null when the server gave none)."""
    posts: list[int] = []

    def answer() -> Reply:
        posts.append(1)
        if len(posts) == 1:
            return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": 1,
                                          "result": HANDSHAKE}).encode()
        return 400, JSON, json.dumps({"jsonrpc": "2.0", "id": 2, "error": error}).encode()

    configure(user_config, serve(answering(answer)))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    bridge.receive()
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "x", "arguments": {}}})
    answered = bridge.receive()
    bridge.finish()
    assert answered == {"jsonrpc": "2.0", "id": 2, "error": error}


def test_an_error_after_the_answer_on_its_stream_is_not_made_a_second_answer(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """An error with a null id is given the request's id only while the request waits:
    after its answer, the stream's later messages are relayed as they are, so no
    request is answered twice. Fails with the stop after the answer dropped."""
    posts: list[int] = []
    late = {"jsonrpc": "2.0", "id": None, "error": {"code": -32603, "message": "late"}}

    def answer() -> Reply:
        posts.append(1)
        if len(posts) == 1:
            return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": 1,
                                          "result": HANDSHAKE}).encode()
        events = [{"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}, late]
        return 200, EVENTS, "".join(f"event: message\ndata: {json.dumps(event)}\n\n"
                                    for event in events).encode()

    configure(user_config, serve(answering(answer)))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    bridge.receive()
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
    first, second = bridge.receive(), bridge.receive()
    bridge.finish()
    assert first == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert second == late


def test_an_sse_server_that_closes_its_event_stream_ends_the_bridge(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """The deprecated transport carries every answer on the one GET stream: once the
    server closes it, the bridge ends and says so, its stdin still open. Fails (the
    bridge waits on stdin for ever) with the end after the stream dropped."""
    def answer(method: str, path: str) -> Reply:
        if method == "GET":  # the endpoint, then the stream ends with the reply
            return 200, EVENTS, b"event: endpoint\ndata: /messages\n\n"
        return 202, {}, b""

    configure(user_config, serve(answer).replace("/mcp", "/sse"), kind="sse")
    code, err = Bridged(tmp_path).end_alone(60)
    assert code != 0
    assert "server closed its event stream" in err


def test_an_sse_stream_refused_before_its_endpoint_sends_nothing_on(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """The event stream is refused (HTTP 500) after the client's `initialize` is queued:
    the bridge ends saying why and posts nothing, since there is no endpoint to post
    to. Planted: the end not checked once the wait for the endpoint was over
    (`bridge_sse.py:44`), and the queued request was posted to no url and answered
    with the library's error."""
    def answer(method: str, path: str) -> Reply:
        if method == "GET":
            threading.Event().wait(2)  # the client's line is read and queued by then
            return 500, {}, b"down"
        return 202, {}, b""

    configure(user_config, serve(answer).replace("/mcp", "/sse"), kind="sse")
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    code, err = bridge.end_alone(60)
    assert (code, bridge.out) == (6, [])
    assert err == "mcpctl: error: server 'remote': cannot open the event stream: " \
                  "HTTP 500: down\n"


class _Pushing:
    """A Streamable HTTP server whose GET stream sends one notification when told."""

    def __init__(self) -> None:
        self.push = threading.Event()
        self.listening = threading.Event()
        self.done = threading.Event()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                if "id" not in body:
                    send_reply(self, (202, {}, b""))
                    return
                send_reply(self, (200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                                         "result": HANDSHAKE}).encode()))

            def do_GET(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                self.wfile.flush()
                server.listening.set()
                if server.push.wait(60):
                    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
                    self.wfile.write(f"event: message\ndata: {json.dumps(note)}\n\n".encode())
                    self.wfile.flush()
                server.done.wait(60)

            def do_DELETE(self) -> None:
                send_reply(self, (200, {}, b""))

            def log_message(self, format: str, *args: object) -> None:
                return

        return Handler


@pytest.fixture
def pushing() -> Iterator[tuple[_Pushing, str]]:
    script = _Pushing()
    with serving(script.handler()) as base:
        try:
            yield script, f"{base}/mcp"
        finally:
            script.push.set()
            script.done.set()


def test_a_client_gone_when_the_server_pushes_on_its_stream_ends_the_bridge(
    pushing: tuple[_Pushing, str], user_config: Path, tmp_path: Path
) -> None:
    """The client closed its end of stdout; the server's next message on the GET stream
    finds nobody to read it, and the bridge ends, its stdin still open. Fails (the
    bridge waits on stdin for ever) with the end on a gone client dropped there."""
    script, url = pushing
    configure(user_config, url)
    argv = [sys.executable, "-m", "mcpctl", "run", "remote", "--workspace", str(tmp_path)]
    with started(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, env=dict(os.environ)) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        for message in (INITIALIZE, INITIALIZED):
            process.stdin.write(json.dumps(message).encode() + b"\n")
            process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        assert script.listening.wait(60), "the bridge never opened the GET stream"
        process.stdout.close()  # the client leaves, its writing end still open
        script.push.set()
        try:
            code = process.wait(60)
        finally:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.close()
    assert code == 0


@pytest.fixture
def silent_stream() -> Iterator[tuple[str, list[str | None]]]:
    """An SSE server whose event stream opens and stays open, naming no endpoint, and
    the `Accept` header of each request for it."""
    done = threading.Event()
    accepted: list[str | None] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            accepted.append(self.headers.get("Accept"))
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            self.wfile.write(b": no endpoint yet\n\n")
            self.wfile.flush()
            done.wait(60)

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        try:
            yield f"{base}/sse", accepted
        finally:
            done.set()


def test_an_sse_server_that_never_names_its_endpoint_ends_the_bridge_in_time(
    silent_stream: tuple[str, list[str | None]], user_config: Path, tmp_path: Path
) -> None:
    """The deprecated transport cannot send a message before the `endpoint` event: the
    bridge waits for it as long as the server's `timeout`, then ends and says so, its
    stdin still open. The stream is asked for as one (`Accept: text/event-stream`).
    Planted by hand: the wait without its timeout (the structural `bridge_sse.py:40`):
    the bridge waited for ever; the check of a wait that timed out left out (`:46`):
    the bridge went on with no endpoint; the header left out (`:55`)."""
    url, accepted = silent_stream
    configure(user_config, url, kind="sse")
    user_config.write_text(user_config.read_text() + "timeout = 1\n")
    code, err = Bridged(tmp_path).end_alone(30)
    assert code != 0
    assert "no endpoint event on the event stream within 1 s" in err
    assert accepted == ["text/event-stream"]


@pytest.mark.timeout(400)  # waits out the default 30 s
def test_with_no_timeout_of_its_own_the_bridge_waits_30_s_for_the_endpoint(
    silent_stream: tuple[str, list[str | None]], user_config: Path, tmp_path: Path
) -> None:
    """A url server without `timeout` gets the bridge's default, 30 s, for the `endpoint`
    event too. Planted: the default widened 16 times (`bridge_relay.py:55`), and the
    bridge waited until the server closed the stream a minute later."""
    url, _ = silent_stream
    configure(user_config, url, kind="sse")
    code, err = Bridged(tmp_path).end_alone(90)
    assert code != 0
    assert "no endpoint event on the event stream within 30 s" in err


def test_a_long_reply_that_is_not_json_rpc_is_quoted_to_200_characters(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """The bridge answers the request with an error quoting what the server sent, cut at
    200 characters. Planted by hand: the bound widened 16 times (the structural
    `bridge_relay.py:63`): the whole reply was quoted."""
    body = json.dumps({"note": "y" * 400})
    configure(user_config, serve(lambda method, path: (200, JSON, body.encode())))
    answer = _answer_to_initialize(tmp_path)
    message = answer["error"]["message"]
    assert message.startswith("mcpctl bridge: server sent something that is not JSON-RPC: ")
    assert message.endswith("y…")
    assert len(message) == len("mcpctl bridge: ") + 200 + 1


@pytest.fixture
def holding() -> Iterator[tuple[str, threading.Event, threading.Semaphore]]:
    """A Streamable HTTP server that answers `initialize` and holds every other request
    until the event is set; the semaphore is released once for each notification."""
    release = threading.Event()
    notified = threading.Semaphore(0)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if "id" not in body:
                send_reply(self, (202, {}, b""))
                notified.release()
                return
            if body["method"] != "initialize":
                release.wait(60)
            result = HANDSHAKE if body["method"] == "initialize" else {}
            send_reply(self, (200, JSON, json.dumps(
                {"jsonrpc": "2.0", "id": body["id"], "result": result}).encode()))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        try:
            yield f"{base}/mcp", release, notified
        finally:
            release.set()


def _answer_to_initialize(tmp_path: Path) -> dict[str, Any]:
    bridge = Bridged(tmp_path)
    try:
        bridge.send(INITIALIZE)
        return bridge.receive()
    finally:
        bridge.finish()


def _handshake(bridge: Bridged) -> None:
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)


def test_past_256_requests_in_flight_the_next_is_answered_at_once(
    holding: tuple[str, threading.Event, threading.Semaphore], user_config: Path,
    tmp_path: Path
) -> None:
    """At most 256 messages in flight (the documented bound): a request past it is
    answered by the bridge at once, never queued, a notification past it is dropped
    with a warning, and the ones held still get their answers. The bridge's own GET
    stream and the `initialized` notification count while they are open, so of 258
    requests two to four are refused. Planted by hand: the bound widened 16 times (the
    structural `bridge_relay.py:56`): every request went to the server, and no answer
    came before the server let them go; the warning dropped (`:186`)."""
    url, release, _ = holding
    configure(user_config, url)
    bridge = Bridged(tmp_path)
    try:
        _handshake(bridge)
        for number in range(2, 259):  # 257 requests
            bridge.send({"jsonrpc": "2.0", "id": number, "method": "tools/list"})
        bridge.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
        bridge.send({"jsonrpc": "2.0", "id": 259, "method": "tools/list"})
        # The server holds every request it got: what comes first is refusals, the
        # last of them 259's, sent after the notification (the bridge reads in order).
        early = [bridge.receive()]
        while early[-1]["id"] != 259 and len(early) < 5:
            early.append(bridge.receive())
        release.set()
        rest = [bridge.receive() for _ in range(258 - len(early))]
    finally:
        release.set()
        _, err = bridge.finish()
    refused = [message for message in [*early, *rest] if "error" in message]
    assert early[-1]["id"] == 259
    assert all(message in refused for message in early)
    assert 2 <= len(refused) <= 4, refused
    assert {message["error"]["message"] for message in refused} == {
        "mcpctl bridge: more than 256 messages in flight; try again"}
    assert sorted(message["id"] for message in [*early, *rest]) == list(range(2, 260))
    assert err == ("mcpctl: warning: server 'remote': more than 256 messages in flight; "
                   "one was dropped\n")


def test_a_reply_that_ends_without_the_answer_is_answered_by_the_bridge(
    serve: Callable[..., str], user_config: Path, tmp_path: Path
) -> None:
    """A Streamable HTTP reply holding only a notification: the bridge relays it, then
    answers the request itself, since no answer can come later. Planted by hand: the
    check of a reply that ended unanswered forced to return (the structural
    `bridge_relay.py:230`), or its error left out (`:233`): the client waited for ever."""
    note = {"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": "working"}}
    configure(user_config, serve(lambda method, path: (
        200, JSON, json.dumps(note).encode())))
    bridge = Bridged(tmp_path)
    try:
        bridge.send(INITIALIZE)
        relayed = bridge.receive()
        answer = bridge.receive()
    finally:
        bridge.finish()
    assert relayed == note
    assert answer == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32000,
        "message": "mcpctl bridge: the server ended its reply to initialize without an answer"}}


def test_only_a_cancellation_cancels_a_request(
    holding: tuple[str, threading.Event, threading.Semaphore], user_config: Path,
    tmp_path: Path
) -> None:
    """A notification that names a request in flight without being
    `notifications/cancelled` leaves it running, and a cancellation of a request the
    bridge does not know is only sent on. Planted by hand: the method compared by its
    first 8 characters (the structural `bridge_relay.py:188`: every `notifications/…`
    cancelled request 2), and the cancellation of an unknown request forced (`:212`:
    an AttributeError ended the bridge)."""
    url, release, notified = holding
    configure(user_config, url)
    bridge = Bridged(tmp_path)
    try:
        _handshake(bridge)
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})
        bridge.send({"jsonrpc": "2.0", "method": "notifications/message",
                     "params": {"level": "info", "data": "x", "requestId": 2}})
        bridge.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 99}})
        for _ in range(3):  # `initialized` and both sent on: read, so already judged
            assert notified.acquire(timeout=30)
        release.set()
        answer = bridge.receive()
    finally:
        release.set()
        code, err = bridge.finish()
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {}}
    assert (code, err) == (0, "")


@pytest.mark.parametrize(("kind", "body"), [("application/xml", b"<x/>"),
                                            ("text/events", b"data: {}\n\n")])
def test_a_reply_of_another_content_type_is_refused_by_the_bridge(
    serve: Callable[..., str], user_config: Path, tmp_path: Path, kind: str, body: bytes
) -> None:
    """Only JSON and an event stream are read; the type is compared whole. Planted by
    hand: the type compared by its first 8 characters (the structural
    `bridge_relay.py:292`, `:307`): `text/events` was read as events and
    `application/xml` as JSON, each then quoted as not JSON-RPC."""
    configure(user_config, serve(lambda method, path: (200, {"Content-Type": kind}, body)))
    answer = _answer_to_initialize(tmp_path)
    assert answer == {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32000,
        "message": f"mcpctl bridge: unexpected content type {kind!r} from the server"}}


@pytest.mark.parametrize(("headers", "shown"), [
    ("", "All connection attempts failed"),
    ('Authorization = "Bearer t0ken"',
     "ConnectError (the error text is not shown: it may quote a header value)"),
], ids=["no headers", "a header"])
def test_an_sse_server_that_cannot_be_reached_ends_the_bridge_at_once(
    user_config: Path, tmp_path: Path, headers: str, shown: str
) -> None:
    """The event stream cannot be opened: the bridge ends with what went wrong, without
    waiting out the server's `timeout` for an `endpoint` event that cannot come; the
    library's text is shown only when no configured header could be quoted in it.
    Planted: the end on an HTTP error dropped (`bridge_sse.py:67`), and the bridge
    waited its 30 s and said no endpoint came; `quote=` dropped, a TypeError."""
    with refusing_port() as port:
        configure(user_config, f"http://127.0.0.1:{port}/sse", headers, kind="sse")
        user_config.write_text(user_config.read_text() + "timeout = 30\n")
        code, err = Bridged(tmp_path).end_alone(20)
    assert (code, err) == (6, f"mcpctl: error: server 'remote': cannot reach the server: "
                              f"{shown}\n")


def name_the_endpoint(handler: BaseHTTPRequestHandler) -> None:
    """Open an SSE stream on HANDLER and name `/messages` as its message endpoint."""
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.end_headers()
    handler.wfile.write(b"event: endpoint\ndata: /messages\n\n")
    handler.wfile.flush()


@pytest.fixture
def sse_refusing_posts() -> Iterator[str]:
    """An SSE server whose stream names its endpoint and stays open, and whose endpoint
    refuses every POST with HTTP 500 and a JSON-RPC error for the request."""
    done = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name_the_endpoint(self)
            done.wait(60)

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            error = {"jsonrpc": "2.0", "id": body.get("id"),
                     "error": {"code": -32000, "message": "down for now"}}
            send_reply(self, (500, JSON, json.dumps(error).encode()))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        try:
            yield f"{base}/sse"
        finally:
            done.set()


def test_an_sse_endpoint_that_refuses_a_post_is_answered_with_its_error(
    sse_refusing_posts: str, user_config: Path, tmp_path: Path
) -> None:
    """On the deprecated transport an answer comes on the stream, so a POST's own reply
    is read only for a refusal: an HTTP 500 carrying a JSON-RPC error reaches the client
    as that request's answer. Planted: the POST's status not checked
    (`bridge_sse.py:89`), and the client waited for an answer that never came."""
    configure(user_config, sse_refusing_posts, kind="sse")
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    answer = bridge.receive()
    bridge.finish()
    assert answer == {"jsonrpc": "2.0", "id": 1,
                      "error": {"code": -32000, "message": "down for now"}}


@pytest.fixture
def sse_pushing() -> Iterator[tuple[str, queue.Queue[dict[str, Any] | None]]]:
    """An SSE server that answers each request on its stream and sends there whatever
    the test puts in the queue (None ends the stream)."""
    stream: queue.Queue[dict[str, Any] | None] = queue.Queue()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            name_the_endpoint(self)
            while (message := stream.get(timeout=60)) is not None:
                self.wfile.write(f"event: message\ndata: {json.dumps(message)}\n\n".encode())
                self.wfile.flush()

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            if "id" in body:
                stream.put({"jsonrpc": "2.0", "id": body["id"], "result": HANDSHAKE})
            send_reply(self, (202, {}, b""))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        try:
            yield f"{base}/sse", stream
        finally:
            stream.put(None)


def test_a_client_gone_when_an_sse_server_pushes_ends_the_bridge(
    sse_pushing: tuple[str, queue.Queue[dict[str, Any] | None]], user_config: Path,
    tmp_path: Path
) -> None:
    """The deprecated transport's twin of the test above: the client has closed its end
    of stdout, the server's next event finds nobody to read it, and the bridge ends, its
    stdin still open. Planted: the end on a gone client dropped (`bridge_sse.py:69`),
    and the bridge waited on stdin."""
    url, stream = sse_pushing
    configure(user_config, url, kind="sse")
    argv = [sys.executable, "-m", "mcpctl", "run", "remote", "--workspace", str(tmp_path)]
    with started(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                 stderr=subprocess.DEVNULL, env=dict(os.environ)) as process:
        assert process.stdin is not None
        assert process.stdout is not None
        process.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        process.stdin.flush()
        assert json.loads(process.stdout.readline())["id"] == 1
        process.stdout.close()  # the client leaves, its writing end still open
        stream.put({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        try:
            code = process.wait(60)
        finally:
            with contextlib.suppress(BrokenPipeError):
                process.stdin.close()
    assert code == 0
