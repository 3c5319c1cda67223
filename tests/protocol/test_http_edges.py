"""The probe's HTTP channels at their edges: header names, loopback names, the caps on
bodies, lines and streams, refusals of every shape, a notification that fails, the
session's end, and the probe's own plumbing (no url, `probe_many`'s options). Each
test was shown to fail with one structural mutant planted by hand, named in its
docstring."""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import ipaddress
import json
import logging
import queue
import socket
import ssl
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from mcpctl.model import Transport
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.http import HttpChannel, check_url, is_loopback
from mcpctl.protocol.http_wire import describe
from mcpctl.protocol.jsonrpc import NotJsonRpc, RpcError
from mcpctl.protocol.probe import (
    LaunchPlan,
    ProbeFailed,
    ProbeFailure,
    ProbeResult,
    probe_many,
)
from mcpctl.protocol.process import LIMITS, Limits
from mcpctl.protocol.session import ChannelError
from tests.protocol.conftest import (
    SCRIPTED,
    run_failure,
    run_probe,
    stdio_plan,
)
from tests.protocol.loopback_server import serving
from tests.protocol.test_http import send_reply

Json = dict[str, Any]
JSON = {"Content-Type": "application/json"}
EVENTS = {"Content-Type": "text/event-stream"}
SESSION = "session-9"
INFO = {"name": "edge", "version": "1"}
TOOLS = [{"name": "echo", "inputSchema": {"type": "object"}}]
WAIT = 30.0  # every wait a server makes is bounded by this
# An answer: (handler, HTTP verb, the JSON-RPC message posted, or {} for GET and DELETE).
Answer = Callable[[BaseHTTPRequestHandler, str, Json], None]


def body_of(message: Json) -> bytes:
    return json.dumps(message).encode()


def result(message: Json, value: Json) -> bytes:
    return body_of({"jsonrpc": "2.0", "id": message["id"], "result": value})


def error(message: Json, code: int, text: str) -> bytes:
    return body_of({"jsonrpc": "2.0", "id": message["id"],
                    "error": {"code": code, "message": text}})


def handshake_era(handler: BaseHTTPRequestHandler, verb: str, message: Json,
                  *, initialize: Json | None = None, session: str | None = None) -> None:
    """Answer as a handshake-era server: discover unknown, `initialize`, the tools."""
    method = message.get("method")
    if verb != "POST" or "id" not in message or method is None:
        send_reply(handler, (202, {}, b""))
    elif method == "initialize":
        extra = {"Mcp-Session-Id": session} if session else {}
        value = initialize or {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
                               "serverInfo": INFO}
        send_reply(handler, (200, {**JSON, **extra}, result(message, value)))
    elif method == "tools/list":
        send_reply(handler, (200, JSON, result(message, {"tools": TOOLS})))
    else:
        send_reply(handler, (200, JSON, error(message, -32601, "no such method")))


def stream(handler: BaseHTTPRequestHandler, status: int, headers: dict[str, str],
           data: bytes) -> None:
    """A reply without a length: its body ends where the connection does."""
    handler.send_response(status)
    for name, value in headers.items():
        handler.send_header(name, value)
    handler.end_headers()
    handler.wfile.write(data)
    handler.wfile.flush()
    handler.close_connection = True


@pytest.fixture
def serve() -> Iterator[Callable[[Answer], str]]:
    """Start loopback servers that hand each request to `answer`; yields their starter."""
    with contextlib.ExitStack() as servers:
        def start(answer: Answer) -> str:
            class Handler(BaseHTTPRequestHandler):
                def reply(self) -> None:
                    length = int(self.headers.get("Content-Length") or 0)
                    raw = self.rfile.read(length)
                    answer(self, self.command, json.loads(raw) if raw else {})

                do_GET = do_POST = do_DELETE = reply  # noqa: N815 - http.server's names

                def log_message(self, format: str, *args: object) -> None:
                    return

            return servers.enter_context(serving(Handler)) + "/mcp"

        yield start


def http_plan(url: str, timeout: float = 10.0, **fields: Any) -> LaunchPlan:
    return LaunchPlan("r", Transport.HTTP, url=url, timeout=timeout, **fields)


def sse_plan(url: str, timeout: float = 10.0, **fields: Any) -> LaunchPlan:
    return LaunchPlan("r", Transport.SSE, url=url, timeout=timeout, **fields)


def hold(handler: BaseHTTPRequestHandler, bound: float = WAIT) -> str:
    """Answer nothing until the client hangs up ("closed") or `bound` passes ("held")."""
    handler.close_connection = True
    handler.connection.settimeout(bound)
    try:
        return "closed" if handler.connection.recv(1) == b"" else "sent more"
    except TimeoutError:
        return "held"
    except OSError:
        return "closed"


def ask(url: str, limits: Limits | None = None) -> object:
    """What one `tools/list` request on a fresh channel came to: its result, or the
    text of its error."""
    async def scenario() -> object:
        channel = HttpChannel(url, {}, 10.0, lambda request: {}, limits=limits or LIMITS)
        try:
            future = channel.start("tools/list", None)
            done, _ = await asyncio.wait({future}, timeout=WAIT)
            assert done, "no outcome within the bound"
            failure = future.exception()
            return str(failure) if failure else future.result()
        finally:
            await channel.aclose()

    return asyncio.run(scenario())


SMALL = Limits(max_line_bytes=1024, max_total_bytes=4096)


# --- headers and hosts ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["X Team", "X-Team\n", "X:Team", "", "Tëam"])
def test_a_header_name_http_cannot_carry_is_refused_before_anything_is_sent(
        serve: Callable[[Answer], str], name: str) -> None:
    """Planted: the check of the header's name dropped (`http_wire.py:92`), or its
    raise (`:93`): the probe handed the name to the HTTP library, which failed with its
    own error (or sent the header)."""
    seen: list[str] = []

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        seen.append(verb)
        handshake_era(handler, verb, message)

    failure = run_failure(http_plan(serve(answer), headers={name: "blue"}))
    assert failure.diagnosis == f"header name {name!r} is not valid in HTTP"
    assert seen == []


@pytest.mark.parametrize("host", ["127.1", "2130706433", "0x7f.0.0.1"])
def test_a_loopback_address_only_the_resolver_reads_is_not_taken_as_loopback(
        host: str) -> None:
    """A host is loopback by its literal form; only `*.localhost` names are resolved.
    Planted: every host resolved (`http_wire.py:109` forced true): these numeric forms,
    which the C resolver reads as 127.0.0.1, passed as loopback."""
    assert is_loopback(host) is False
    with pytest.raises(ChannelError) as caught:
        check_url(f"http://{host}:8080/mcp", allow_insecure=False)
    assert str(caught.value) == (
        f"refusing plain http to {host}: only loopback hosts may be reached without TLS "
        "(allow insecure to override)")


def test_a_localhost_name_is_loopback_only_when_every_address_is(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The names are answered by a stand-in for the system resolver (nothing leaves the
    process). Planted: the `*.localhost` rule dropped (`http_wire.py:109`), or its
    suffix shortened to ".localhos" (the same line): a name that resolves to loopback
    only was refused."""
    answers = {"api.localhost": ["127.0.0.1"], "v6.localhost": ["::1", "127.0.0.2"],
               "evil.localhost": ["10.0.0.1"], "half.localhost": ["127.0.0.1", "192.0.2.7"]}
    asked: list[str] = []

    def resolve(host: str, port: object, *args: object, **kwargs: object) -> list[Any]:
        asked.append(host)
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        return [(socket.AF_INET6 if ":" in address else socket.AF_INET, socket.SOCK_STREAM,
                 6, "", (address, 0)) for address in answers[host]]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    verdicts = {host: is_loopback(host) for host in [*answers, "gone.localhost"]}
    assert verdicts == {"api.localhost": True, "v6.localhost": True, "evil.localhost": False,
                        "half.localhost": False, "gone.localhost": False}
    assert is_loopback("localhost.example") is False
    assert asked == [*answers, "gone.localhost"]  # the other name was never resolved


# --- caps on what a reply may hold ----------------------------------------------------


def test_a_json_reply_over_the_cap_fails_its_request(serve: Callable[[Answer], str]) -> None:
    """Planted: the cap's check dropped (`http_wire.py:204`) or its raise (`:207`): the
    whole reply was read and answered the request; the cut forced for every reader
    (`:205` forced true): the cut reply was quoted as not JSON-RPC."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        send_reply(handler, (200, JSON, result(message, {"tools": [], "pad": "x" * 5000})))

    assert ask(serve(answer), SMALL) == "server sent more than 4096 bytes in one reply"


def test_an_event_stream_over_the_total_cap_fails_its_request(
        serve: Callable[[Answer], str]) -> None:
    """Many short lines, each under the line cap, more than the total cap in all.
    Planted: the total's check dropped (`http_wire.py:235`) or its raise (`:236`): the
    answer at the end of the stream was taken."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        answered = b"data: " + result(message, {"tools": []}) + b"\n\n"
        stream(handler, 200, EVENTS, b": keep-alive\n" * 400 + answered)

    assert ask(serve(answer), SMALL) == "server sent more than 4096 bytes in one reply"


def test_an_event_stream_line_over_the_cap_fails_its_request(
        serve: Callable[[Answer], str]) -> None:
    """Planted: the line's check dropped (`http_wire.py:246`) or its raise (`:248`):
    the long line was taken whole and the request failed later, for another reason."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        stream(handler, 200, EVENTS, b": " + b"x" * 2000)

    assert ask(serve(answer), SMALL) == "line longer than 1024 bytes in the event stream"


@pytest.mark.parametrize(("data", "note"), [
    (b": \xff\n\ndata: {answer}\n\n", "ok"),  # a comment line that is not UTF-8
    (b"data: {answer}", "ok"),  # the last line ends with the stream, not a newline
    (b'data: {"jsonrpc": "2.0", "id": 1, "result": {"note": "caf\xff"}}', "caf\ufffd"),
], ids=["bad-byte-in-a-line", "unterminated-last-line", "bad-byte-in-the-last-line"])
def test_an_event_stream_is_read_to_its_last_byte_and_bad_bytes_are_replaced(
        serve: Callable[[Answer], str], data: bytes, note: str) -> None:
    """Planted: the last line without a newline dropped (`http_wire.py:249`): the
    answer in it was lost; a line's bytes decoded strictly (`:245`, `:250`, the
    `errors` keyword dropped): the request failed with the codec's error."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        answered = result(message, {"note": "ok"})
        stream(handler, 200, EVENTS, data.replace(b"{answer}", answered))

    assert ask(serve(answer)) == {"note": note}


# --- refusals -------------------------------------------------------------------------


def refusing(status: int, body: bytes, kind: str = "text/plain") -> Answer:
    """A server that answers every POST with `status` and `body`."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        send_reply(handler, (status, {"Content-Type": kind}, body))

    return answer


def test_a_long_refusal_is_quoted_from_its_first_part(serve: Callable[[Answer], str]) -> None:
    """An error body over 64 KiB is cut there, not refused. Planted: the cut dropped
    (`http_wire.py:205`), or the refusal read without `truncate` (`:192`): the probe
    said the server sent too much instead of what it said."""
    words = ["denied"] * 20000
    failure = run_failure(http_plan(serve(refusing(401, " ".join(words).encode()))))
    assert failure.diagnosis == (
        "server refused initialize: HTTP 401: " + " ".join(words)[:120] + "…")


def test_a_json_rpc_error_past_64_kib_of_a_refusal_is_not_read(
        serve: Callable[[Answer], str]) -> None:
    """Only the first 64 KiB of a refusal are read: here all blanks. Planted: that
    bound widened 16 times (`http_wire.py:34`): the error after them was read and
    quoted."""
    rpc = body_of({"jsonrpc": "2.0", "id": None,
                   "error": {"code": -32001, "message": "token expired"}})
    failure = run_failure(http_plan(serve(refusing(401, b" " * 70000 + rpc, "application/json"))))
    assert failure.diagnosis == "server refused initialize: HTTP 401"


def test_a_refusal_holding_a_result_is_quoted_as_text(serve: Callable[[Answer], str]) -> None:
    """Planted: any message of a refusal's body taken as its error (`http_wire.py:195`
    forced true): a result has none, and the probe failed on raising nothing."""
    body = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
    failure = run_failure(http_plan(serve(refusing(500, body, "application/json"))))
    assert failure.diagnosis == f"server refused initialize: HTTP 500: {body.decode()}"


def test_a_refusal_that_is_not_utf8_is_quoted_with_replacements(
        serve: Callable[[Answer], str]) -> None:
    """Planted: the body decoded strictly (`http_wire.py:197`, the `errors` keyword
    dropped): the probe failed with the codec's error."""
    failure = run_failure(http_plan(serve(refusing(401, b"bad \xff token"))))
    assert failure.diagnosis == "server refused initialize: HTTP 401: bad \ufffd token"


def test_a_json_reply_that_is_not_utf8_is_quoted_as_not_json_rpc(
        serve: Callable[[Answer], str]) -> None:
    """Planted: a reply decoded strictly (`jsonrpc.py:100`, the `errors` keyword
    dropped): the probe failed with the codec's error."""
    failure = run_failure(http_plan(serve(refusing(200, b"\xff", "application/json"))))
    assert failure.diagnosis == "server sent something that is not JSON-RPC: '\ufffd'"


# --- the deprecated HTTP+SSE transport --------------------------------------------------


class SseServer:
    """One event stream naming `/messages`; each POST there is answered on the stream
    by `answer` (None: 202 and no event), or refused with `refuse` when set."""

    def __init__(self, answer: Callable[[Json], Json | None], refuse: bytes = b"",
                 delays: dict[str, float] | None = None) -> None:
        self.answer = answer
        self.refuse = refuse
        self.delays = delays or {}  # seconds before answering a method (a pause, no more)
        self.events: list[bytes] = []
        self.changed = threading.Condition()
        self.ended = False

    def __call__(self, handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        if verb == "GET":
            stream(handler, 200, EVENTS, b"event: endpoint\nid: 0\ndata: /messages\n\n")
            self.relay(handler)
            return
        if self.refuse:
            send_reply(handler, (401, {"Content-Type": "text/plain"}, self.refuse))
            return
        pause = self.delays.get(message.get("method", ""), 0.0)
        if "id" not in message:
            time.sleep(pause)
        send_reply(handler, (202, {}, b""))
        if "id" in message:
            time.sleep(pause)
        reply = self.answer(message)
        if reply is not None:
            with self.changed:
                count = len(self.events) + 1
                self.events.append(f"event: message\nid: {count}\ndata: ".encode()
                                   + body_of(reply) + b"\n\n")
                self.changed.notify_all()

    def relay(self, handler: BaseHTTPRequestHandler) -> None:
        sent = 0

        def more() -> bool:
            return self.ended or len(self.events) > sent

        while True:
            with self.changed:
                if not self.changed.wait_for(more, timeout=WAIT) or self.ended:
                    return
                pending = self.events[sent:]
            sent += len(pending)
            try:
                handler.wfile.write(b"".join(pending))
                handler.wfile.flush()
            except OSError:
                return

    def end(self) -> None:
        with self.changed:
            self.ended = True
            self.changed.notify_all()


def handshake_reply(message: Json) -> Json | None:
    """What a handshake-era server answers `message` with (None for a notification)."""
    method = message.get("method")
    if "id" not in message:
        return None
    if method == "initialize":
        return {"jsonrpc": "2.0", "id": message["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}}, "serverInfo": INFO}}
    if method == "tools/list":
        return {"jsonrpc": "2.0", "id": message["id"], "result": {"tools": TOOLS}}
    return {"jsonrpc": "2.0", "id": message["id"],
            "error": {"code": -32601, "message": "no such method"}}


@pytest.fixture
def sse_server(serve: Callable[[Answer], str]) -> Iterator[Callable[..., tuple[str, SseServer]]]:
    servers: list[SseServer] = []

    def start(answer: Callable[[Json], Json | None] = handshake_reply,
              refuse: bytes = b"", delays: dict[str, float] | None = None,
              ) -> tuple[str, SseServer]:
        server = SseServer(answer, refuse, delays)
        servers.append(server)
        return serve(server).replace("/mcp", "/sse"), server

    yield start
    for server in servers:
        server.end()


def test_sse_events_with_an_id_field_are_read_by_their_type(
        sse_server: Callable[..., tuple[str, SseServer]]) -> None:
    """Every event carries `id:` after its `event:` line. Planted: every field but
    `data` taken as the type (`http_wire.py:220` forced true): the endpoint event was
    read as a message, and its url quoted as not JSON-RPC."""
    url, _ = sse_server()
    result = run_probe(sse_plan(url))
    assert (result.server_info, result.tools) == (INFO, tuple(TOOLS))


def test_an_sse_message_endpoint_that_refuses_fails_the_probe_at_once(
        sse_server: Callable[..., tuple[str, SseServer]]) -> None:
    """Planted: the status of the POST to the endpoint not checked (`http.py:239`) or
    its refusal not raised (`:240`): the probe waited out its timeout for answers on
    the stream."""
    url, _ = sse_server(refuse=b"nope")
    failure = run_failure(sse_plan(url, timeout=3))
    assert failure.diagnosis == "server refused initialize: HTTP 401: nope"


# --- the session and the notification ---------------------------------------------------


def recording(seen: list[tuple[str, str]], *, session: str | None = None,
              special: dict[str, Answer] | None = None) -> Answer:
    """A handshake-era server recording (verb, method) of each request; a method in
    `special` (or "DELETE") is answered by its own function."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        method = message.get("method", "")
        seen.append((verb, method))
        own = (special or {}).get(verb if verb != "POST" else method)
        if own is not None:
            own(handler, verb, message)
        else:
            handshake_era(handler, verb, message, session=session)

    return answer


def test_no_session_is_ended_when_the_server_named_none(serve: Callable[[Answer], str]) -> None:
    """Planted: the session's DELETE sent whatever the server said (`http.py:111`
    forced true): a server that named no session was sent one."""
    seen: list[tuple[str, str]] = []
    result = run_probe(http_plan(serve(recording(seen))))
    assert result.tools == tuple(TOOLS)
    assert seen == [("POST", "server/discover"), ("POST", "initialize"),
                    ("POST", "notifications/initialized"), ("POST", "tools/list")]


def test_a_session_end_the_server_never_answers_is_given_up_after_a_second(
        serve: Callable[[Answer], str]) -> None:
    """The DELETE waits one second, not the plan's timeout. Planted: the DELETE sent
    without its own timeout (`http.py:115`, the `timeout` keyword dropped): the probe
    waited until the server gave up on it."""
    seen: list[tuple[str, str]] = []
    ends: queue.Queue[str] = queue.Queue()

    def never(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        ends.put(hold(handler, bound=15))

    url = serve(recording(seen, session=SESSION, special={"DELETE": never}))
    result = run_probe(http_plan(url, timeout=600))
    assert result.tools == tuple(TOOLS)
    assert seen[-1] == ("DELETE", "")
    assert ends.get(timeout=WAIT) == "closed"  # the probe hung up; the server waited on


def test_a_redirected_notification_fails_the_probe(serve: Callable[[Answer], str]) -> None:
    """Planted: a channel error of the notification swallowed (`http.py:99`, its
    `raise` dropped): the probe went on and listed the tools."""
    def moved(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        send_reply(handler, (307, {"Location": "http://127.0.0.1:9/elsewhere"}, b""))

    seen: list[tuple[str, str]] = []
    url = serve(recording(seen, special={"notifications/initialized": moved}))
    failure = run_failure(http_plan(url))
    assert failure.diagnosis == (
        "server redirected to http://127.0.0.1:9/elsewhere; put that url in the config")
    assert ("POST", "tools/list") not in seen


def test_a_notification_the_server_hangs_up_on_fails_the_probe(
        serve: Callable[[Answer], str]) -> None:
    """Planted: the library's error for the notification swallowed (`http.py:101`, its
    `raise` dropped): the probe went on and listed the tools."""
    def hang_up(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        handler.close_connection = True

    seen: list[tuple[str, str]] = []
    url = serve(recording(seen, special={"notifications/initialized": hang_up}))
    failure = run_failure(http_plan(url))
    assert failure.diagnosis == (
        "cannot reach the server: Server disconnected without sending a response.")
    assert ("POST", "tools/list") not in seen


def test_a_notification_never_answered_times_out_at_the_plans_timeout(
        serve: Callable[[Answer], str]) -> None:
    """The server waits 4.8 s for mcpctl to give up after its 1 s. Planted: timeouts
    described like any other failure (`http_wire.py:260`, the check dropped): "cannot
    reach the server"; the client made without the plan's timeout (`http.py:77`, the
    `timeout` keyword dropped): it waited the library's 5 s, and the server hung up
    first."""
    ends: queue.Queue[str] = queue.Queue()

    def never(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        ends.put(hold(handler, bound=4.8))

    url = serve(recording([], special={"notifications/initialized": never}))
    failure = run_failure(http_plan(url, timeout=1.0))
    assert failure.diagnosis == "timed out talking to the server (ReadTimeout)"
    assert ends.get(timeout=WAIT) == "closed"


def test_describe_tells_a_timeout_from_other_failures() -> None:
    """Planted: the check dropped (`http_wire.py:260`)."""
    import httpx  # noqa: PLC0415 - the channel's library, as the channel imports it

    assert describe(httpx.ReadTimeout("slow"), quote=True) == (
        "timed out talking to the server (slow)")
    assert describe(httpx.ConnectError("refused"), quote=False) == (
        "cannot reach the server: ConnectError (the error text is not shown: it may quote "
        "a header value)")


# --- the probe's own plumbing -----------------------------------------------------------


def test_a_plan_without_a_url_fails_with_that_reason() -> None:
    """Planted: the check dropped (`probe.py:191`) or its raise (`:192`): the channel
    was made with no url and failed on it unexpectedly; the failure's message left
    empty (`probe.py:83`, the `super().__init__` call dropped)."""
    plan = LaunchPlan("r", Transport.HTTP, timeout=5)
    with pytest.raises(ProbeFailed) as caught:
        run_probe(plan)
    assert caught.value.failure.diagnosis == "no url to connect to"
    assert str(caught.value) == "r: no url to connect to"


def test_the_servers_instructions_reach_the_result(serve: Callable[[Answer], str]) -> None:
    """Planted: the result made without them (`probe.py:142`, the keyword dropped)."""
    value = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
             "serverInfo": INFO, "instructions": "Call echo first."}

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        handshake_era(handler, verb, message, initialize=value)

    assert run_probe(http_plan(serve(answer))).instructions == "Call echo first."


def test_a_long_refusal_message_is_cut_to_1000_characters(
        serve: Callable[[Answer], str]) -> None:
    """Planted: the diagnosis's bound widened 16 times (`probe.py:37`): 5000 characters
    of the server's message were shown."""
    text = "no " * 2000

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        if message.get("method") == "initialize":
            send_reply(handler, (200, JSON, error(message, -32001, text)))
        else:
            handshake_era(handler, verb, message)

    failure = run_failure(http_plan(serve(answer)))
    assert failure.diagnosis == (f"server refused initialize: {text}")[:1000] + "…"


def test_probe_many_passes_its_options_to_each_probe(serve: Callable[[Answer], str]) -> None:
    """`127.1` is loopback to the resolver but not by the url rule, so only the caller's
    leave to use plain http reaches it. Planted: that leave not passed on by
    `probe_many` (`probe.py:158`, `allow_insecure` dropped), by `_open` (`probe.py:196`)
    or by the SSE channel to its base (`http.py:228`): both were refused; the
    capabilities not passed on (`probe.py:158`): the defaults were declared; the
    callback not called (`probe.py:161` dropped, `:162`): nothing was heard."""
    http_url = serve(handshake_era)
    sse_url = serve(lambda handler, verb, message: stream(handler, 200, EVENTS, b""))
    plans = [LaunchPlan("h", Transport.HTTP, url=http_url.replace("127.0.0.1", "127.1"),
                        timeout=10),
             LaunchPlan("s", Transport.SSE, url=sse_url.replace("127.0.0.1", "127.1"),
                        timeout=10)]
    heard: list[str] = []
    found = asyncio.run(probe_many(plans, capabilities=frozenset(), allow_insecure=True,
                                   on_done=heard.append))
    first, second = found
    assert isinstance(first, ProbeResult), first
    assert (first.tools, first.client_capabilities) == (tuple(TOOLS), frozenset())
    assert isinstance(second, ProbeFailure)
    assert second.diagnosis == "server closed its event stream"
    assert sorted(heard) == ["h", "s"]


# --- JSON-RPC on the wire -----------------------------------------------------------------


@pytest.mark.parametrize(("code", "diagnosis"), [
    (-32020, "server refused server/discover: modern only"),
    (-32021, "server refused server/discover: modern only"),
    (-32022, "server speaks protocol versions 2026-07-28; mcpctl speaks 2026-07-28 and "
             "2024-11-05 to 2025-11-25"),
])
def test_a_modern_error_to_discover_is_recognised_by_its_code(
        serve: Callable[[Answer], str], code: int, diagnosis: str) -> None:
    """Planted: each of the three codes widened 16 times (`jsonrpc.py:20`, `:21`,
    `:22`): the server was taken for a handshake-era one and listed."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        if message.get("method") == "server/discover":
            reply = {"jsonrpc": "2.0", "id": message["id"], "error": {
                "code": code, "message": "modern only", "data": {"supported": ["2026-07-28"]}}}
            send_reply(handler, (200, JSON, body_of(reply)))
        else:
            handshake_era(handler, verb, message)

    assert run_failure(http_plan(serve(answer))).diagnosis == diagnosis


def test_a_server_request_mcpctl_cannot_serve_is_answered_method_not_found(
        serve: Callable[[Answer], str]) -> None:
    """Asked inside the reply to `initialize`; the server lists its tools only once it
    has the answer. Planted: the code widened 16 times (`jsonrpc.py:17`)."""
    answers: list[Json] = []
    changed = threading.Condition()

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        method = message.get("method")
        if method is None and "id" in message:
            with changed:
                answers.append(message)
                changed.notify_all()
            send_reply(handler, (202, {}, b""))
        elif method == "initialize":
            ask = body_of({"jsonrpc": "2.0", "id": "s1", "method": "sampling/createMessage",
                           "params": {}})
            value = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": INFO}
            send_reply(handler, (200, EVENTS, b"data: " + ask + b"\n\ndata: "
                                 + result(message, value) + b"\n\n"))
        elif method == "tools/list":
            with changed:
                changed.wait_for(lambda: answers, timeout=WAIT)
            handshake_era(handler, verb, message)
        else:
            handshake_era(handler, verb, message)

    assert run_probe(http_plan(serve(answer))).tools == tuple(TOOLS)
    assert answers == [{"jsonrpc": "2.0", "id": "s1", "error": {
        "code": -32601, "message": "mcpctl does not support sampling/createMessage"}}]


def test_a_null_id_error_answers_the_one_request_still_open(
        serve: Callable[[Answer], str]) -> None:
    """`server/discover` was answered, so the error can only be about `initialize`.
    Planted: an answered request kept among the open ones (`jsonrpc.py:170`, the `pop`
    dropped): the error was dropped and the reply ended without an answer."""
    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        if message.get("method") == "initialize":
            reply = {"jsonrpc": "2.0", "id": None,
                     "error": {"code": -32700, "message": "Parse error"}}
            send_reply(handler, (200, JSON, body_of(reply)))
        else:
            handshake_era(handler, verb, message)

    failure = run_failure(http_plan(serve(answer)))
    assert failure.diagnosis == "server refused initialize: Parse error (-32700)"


def test_the_json_rpc_errors_read_as_their_text() -> None:
    """Planted: `RpcError`'s `super().__init__` call dropped (`jsonrpc.py:34`): its
    text was its arguments' tuple."""
    assert str(RpcError(-32601, "no such method")) == "no such method (JSON-RPC error -32601)"
    assert str(NotJsonRpc("hello")) == "hello"


def test_a_notification_carries_its_params() -> None:
    """Planted: the params left out (`jsonrpc.py:80`, the `if` dropped)."""
    assert jsonrpc.notification("notifications/progress", {"progress": 1}) == {
        "jsonrpc": "2.0", "method": "notifications/progress", "params": {"progress": 1}}


# --- what is cancelled leaves no error behind ---------------------------------------------


def asyncio_errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [record.getMessage() for record in caplog.records
            if record.name == "asyncio" and record.levelno >= logging.WARNING]


def test_a_request_given_up_on_leaves_no_error_behind(
        serve: Callable[[Answer], str], caplog: pytest.LogCaptureFixture) -> None:
    """`tools/list` is never answered: its request is cancelled at the timeout and its
    task at the close. Planted: the outcome of a cancelled request asked for
    (`jsonrpc.py:173` forced true), or a cancelled task's (`http.py:291` forced true):
    asyncio logged "Exception in callback" for the CancelledError."""
    def never(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        hold(handler)

    url = serve(recording([], special={"tools/list": never}))
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        failure = run_failure(http_plan(url, timeout=2))
    assert failure.diagnosis == "timed out after 2.0 s waiting for tools/list"
    assert asyncio_errors(caplog) == []


def test_an_sse_probe_leaves_no_error_behind(
        sse_server: Callable[..., tuple[str, SseServer]],
        caplog: pytest.LogCaptureFixture) -> None:
    """The event stream's task is cancelled when the probe closes the channel.
    Planted: a cancelled task's outcome asked for (`http.py:291` forced true): asyncio
    logged "Exception in callback" for the CancelledError."""
    url, _ = sse_server()
    with caplog.at_level(logging.WARNING, logger="asyncio"):
        result = run_probe(sse_plan(url))
    assert result.tools == tuple(TOOLS)
    assert asyncio_errors(caplog) == []


# --- streams, timing and stderr ------------------------------------------------------------


def test_a_reply_stream_is_closed_once_its_answer_came(serve: Callable[[Answer], str]) -> None:
    """`server/discover` is answered on an event stream the server then keeps open;
    it answers `initialize` only once mcpctl hung up on that stream. Planted: the
    stream read on after the answer (`http.py:205`, the `if` dropped): it stayed open
    and the server refused `initialize`."""
    discover_stream: list[str] = []
    hung_up = threading.Event()

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        method = message.get("method")
        if method == "server/discover":
            stream(handler, 200, EVENTS,
                   b"data: " + error(message, -32601, "no such method") + b"\n\n")
            discover_stream.append(hold(handler, bound=5))
            hung_up.set()
        elif method == "initialize":
            hung_up.wait(WAIT)
            if discover_stream == ["closed"]:
                handshake_era(handler, verb, message)
            else:
                send_reply(handler, (500, {}, b"the discover stream is still open"))
        else:
            handshake_era(handler, verb, message)

    assert run_probe(http_plan(serve(answer))).tools == tuple(TOOLS)
    assert discover_stream == ["closed"]


def test_a_stdio_servers_stderr_reaches_the_result() -> None:
    """Planted: the result made without the stderr's last or first lines
    (`probe.py:141`, either keyword dropped)."""
    code = ("import runpy, sys; sys.stderr.write('starting up\\n'); sys.stderr.flush(); "
            f"sys.argv = [{str(SCRIPTED)!r}]; runpy.run_path(sys.argv[0], run_name='__main__')")
    result = run_probe(stdio_plan(sys.executable, "-c", code, timeout=10))
    assert (result.stderr_head, result.stderr_tail) == (("starting up",), ("starting up",))


def self_signed(directory: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 signed by its own key: (certificate, key) files."""
    from cryptography import x509  # noqa: PLC0415 - keyring's Secret Service backend needs it
    from cryptography.hazmat.primitives import hashes, serialization  # noqa: PLC0415
    from cryptography.hazmat.primitives.asymmetric import ec  # noqa: PLC0415

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(x509.oid.NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    certificate = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name)
        .public_key(key.public_key()).serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(hours=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256()))
    cert_file, key_file = directory / "cert.pem", directory / "key.pem"
    cert_file.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                           serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


def test_https_is_verified_against_the_trusted_certificates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loopback server over TLS whose certificate is the one trusted one
    (`SSL_CERT_FILE`, which the HTTP library reads for default verification).
    Planted: every url given the context without certificates that plain http gets
    (`http_wire.py:59` forced true): the server's certificate could not be verified."""
    cert_file, key_file = self_signed(tmp_path)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert_file))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert_file, key_file)

    class Handler(BaseHTTPRequestHandler):
        def setup(self) -> None:
            self.request = context.wrap_socket(self.request, server_side=True)
            super().setup()

        def finish(self) -> None:
            super().finish()
            self.request.close()  # the TLS socket: the server closes only the one it made

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"]))
            handshake_era(self, "POST", json.loads(raw))

        def log_message(self, format: str, *args: object) -> None:
            return

    with serving(Handler) as base:
        url = base.replace("http://", "https://") + "/mcp"
        result = run_probe(http_plan(url))
    assert result.tools == tuple(TOOLS)


def test_a_servers_requests_are_answered_one_at_a_time(serve: Callable[[Answer], str]) -> None:
    """Two pings inside the reply to `initialize`; the server holds the first answer
    a second, watching for the second to arrive meanwhile, and lists its tools once
    both came. Planted: a new answering task for every request (`http.py:158` forced
    true): the second answer arrived while the first was held."""
    answered: list[str] = []
    in_flight = [0, 0]  # now, most at once
    changed = threading.Condition()

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        method = message.get("method")
        if method is None and "id" in message:
            with changed:
                answered.append(message["id"])
                in_flight[0] += 1
                in_flight[1] = max(in_flight)
                changed.notify_all()
                if message["id"] == "ping-0":
                    changed.wait_for(lambda: len(answered) > 1, timeout=1.0)
                in_flight[0] -= 1
            send_reply(handler, (202, {}, b""))
        elif method == "initialize":
            pings = b"".join(b"data: " + body_of({"jsonrpc": "2.0", "id": f"ping-{n}",
                                                  "method": "ping"}) + b"\n\n"
                             for n in range(2))
            value = {"protocolVersion": "2025-06-18", "capabilities": {}, "serverInfo": INFO}
            send_reply(handler, (200, EVENTS, pings + b"data: " + result(message, value)
                                 + b"\n\n"))
        elif method == "tools/list":
            with changed:
                changed.wait_for(lambda: len(answered) == 2, timeout=WAIT)
            handshake_era(handler, verb, message)
        else:
            handshake_era(handler, verb, message)

    assert run_probe(http_plan(serve(answer))).tools == tuple(TOOLS)
    assert (answered, in_flight[1]) == (["ping-0", "ping-1"], 1)


def test_a_flood_on_one_stream_fails_every_request_waiting(
        serve: Callable[[Answer], str]) -> None:
    """`server/discover` is left silent until `initialize` is sent behind it; then the
    discover stream floods with pings while `initialize` is never answered. The flood
    fails the connection, so `initialize` fails with it. Planted: the other requests not
    failed (`http.py:163`, the `fail_all` call dropped): the probe waited for
    `initialize` until its timeout."""
    initialize_sent = threading.Event()

    def answer(handler: BaseHTTPRequestHandler, verb: str, message: Json) -> None:
        method = message.get("method")
        if method == "server/discover":
            initialize_sent.wait(WAIT)
            flood = b"".join(b"data: " + body_of({"jsonrpc": "2.0", "id": f"ping-{n}",
                                                  "method": "ping"}) + b"\n\n"
                             for n in range(100))
            stream(handler, 200, EVENTS, flood)
            hold(handler)
        elif method == "initialize":
            initialize_sent.set()
            hold(handler)
        else:
            handshake_era(handler, verb, message)

    failure = run_failure(http_plan(serve(answer), timeout=12))
    assert failure.diagnosis == (
        "server sent more than 32 requests of its own at once; stopped")


def test_an_sse_stream_may_stay_quiet_longer_than_the_timeout(
        sse_server: Callable[..., tuple[str, SseServer]]) -> None:
    """Each request is answered within the 16 s timeout, but the notification takes
    10 s and `tools/list` 10 s more, so the event stream carries nothing for 20 s.
    Planted:
    the stream read with the plan's timeout (`http.py:264`, the `read` keyword dropped;
    `:265`, the stream's own `timeout` dropped): the stream timed out."""
    url, _ = sse_server(delays={"notifications/initialized": 10.0, "tools/list": 10.0})
    assert run_probe(sse_plan(url, timeout=16)).tools == tuple(TOOLS)
