"""How a Streamable HTTP bridge ends or goes on when a request fails: a session the
server forgot, a refused notification, a server that hangs up without a reply, a
request still held when stdin closes, a client gone before the answer, a broken event
stream; its bounds at the end (the DELETE, an answer's stream, messages in flight);
what it learns from the traffic it relays (the version, the tools' header annotations)
and from which messages only; and the hold on the client's other messages while
`initialize` is at the server, which only `initialize` begins or ends. Each test names
the bug it was shown to catch, planted by hand (structural mutants of issue 30)."""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.processes import started
from tests.protocol.loopback_server import serving
from tests.protocol.test_bridge import Bridged, configure
from tests.protocol.test_bridge_edges import EVENTS, HANDSHAKE, INITIALIZED, JSON
from tests.protocol.test_hardening import event
from tests.protocol.test_http import Reply, send_reply
from tests.protocol.test_http_edges import hold
from tests.protocol.test_sse_origin import INITIALIZE

SESSION = {"Mcp-Session-Id": "s-1"}
TOOLS_LIST = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
Route = Callable[[BaseHTTPRequestHandler, dict[str, Any]], Reply | None]
# Tools whose `x-mcp-header` annotations the bridge reads from `tools/list`: a valid one
# (a string parameter) and an invalid one (a number), which is left out with a warning.
REGIONAL = {"name": "route", "inputSchema": {"type": "object", "properties": {
    "region": {"type": "string", "x-mcp-header": "Region"}}}}
INVALID = {"name": "bad", "inputSchema": {"type": "object", "properties": {
    "ratio": {"type": "number", "x-mcp-header": "Ratio"}}}}


def handshake(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
    return 200, {**JSON, **SESSION}, json.dumps(
        {"jsonrpc": "2.0", "id": body["id"], "result": HANDSHAKE}).encode()


def accepted(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
    return 202, {}, b""


def answered(result: dict[str, Any]) -> Callable[[BaseHTTPRequestHandler, dict[str, Any]], Reply]:
    def answer(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                      "result": result}).encode()
    return answer


def region_header(seen: list[str | None]) -> Route:
    """A route that answers `{}` and keeps the request's `Mcp-Param-Region` header."""
    def record(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        seen.append(handler.headers["Mcp-Param-Region"])
        return answered({})(handler, body)
    return record


REFUSED_END = (6, "mcpctl: error: server 'remote': server refused the request: "
                  "HTTP 401: no entry\n")


def refused_while_ending(routed: Callable[[dict[str, Route]], str], user_config: Path,
                         tmp_path: Path, routes: dict[str, Route]) -> Bridged:
    """A bridge whose `notifications/initialized` is refused with 401, which ends it:
    returned once that notification is sent. `routes` add to the handshake's (a DELETE
    that holds, to keep the end's last moments open)."""
    configure(user_config, routed({
        "initialize": handshake,
        "notifications/initialized": lambda _, __: (401, {}, b"no entry"), **routes}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    return bridge


def listed(bridge: Bridged) -> dict[str, Any]:
    """The handshake, then `tools/list`: what the client got for the list."""
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    bridge.send(TOOLS_LIST)
    return bridge.receive()


@pytest.fixture
def routed() -> Iterator[Callable[[dict[str, Route]], str]]:
    """Serve POSTs by their JSON-RPC method (`ROUTES[method](handler, body)`; a route
    that returns None has answered by itself); GET is 405 and DELETE 200 unless routed
    as "GET" or "DELETE"."""
    with contextlib.ExitStack() as servers:
        def start(routes: dict[str, Route]) -> str:
            class Handler(BaseHTTPRequestHandler):
                def do_POST(self) -> None:
                    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                    reply = routes[body["method"]](self, body)
                    if reply is not None:
                        send_reply(self, reply)

                def do_GET(self) -> None:
                    route = routes.get("GET")
                    reply = route(self, {}) if route else (405, {}, b"")
                    if reply is not None:
                        send_reply(self, reply)

                def do_DELETE(self) -> None:
                    route = routes.get("DELETE")
                    reply = route(self, {}) if route else (200, {}, b"")
                    if reply is not None:
                        send_reply(self, reply)

                def log_message(self, format: str, *args: object) -> None:
                    return

            return servers.enter_context(serving(Handler)) + "/mcp"

        yield start


def test_a_session_the_server_forgot_ends_the_bridge(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """HTTP 404 to a request that carried a session: the server ended the session, and a
    bridge cannot start a new one for its client. The request is answered so, and the
    bridge ends saying so. Planted: that case dropped (`bridge_relay.py:319`), and the
    404 was an ordinary refusal ("server refused the request")."""
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": lambda _, __: (404, {}, b"")}))
    bridge = Bridged(tmp_path)
    answer = listed(bridge)
    code, err = bridge.end_alone(30)
    said = "server ended the session (HTTP 404); the client must start again"
    assert answer == {"jsonrpc": "2.0", "id": 2,
                      "error": {"code": -32000, "message": f"mcpctl bridge: {said}"}}
    assert (code, err) == (6, f"mcpctl: error: server 'remote': {said}\n")


def test_a_line_the_client_sends_while_the_bridge_ends_is_not_posted(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """Once a refusal has ended the bridge, it reads no more of the client's lines: a
    request sent while the bridge ends its session is never posted. Planted: the
    reading left running (`bridge_relay.py:129`), and the `tools/list` the client sent
    during the session's DELETE reached the server."""
    closing = threading.Event()
    posted = threading.Event()

    def listed_late(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        posted.set()
        return answered({"tools": []})(handler, body)

    def delete(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        closing.set()
        posted.wait(0.8)  # within the bridge's one second for the DELETE
        return 200, {}, b""

    bridge = refused_while_ending(routed, user_config, tmp_path,
                                  {"tools/list": listed_late, "DELETE": delete})
    assert closing.wait(20)
    with contextlib.suppress(BrokenPipeError):
        bridge.send(TOOLS_LIST)
    assert bridge.end_alone(30) == REFUSED_END
    assert not posted.is_set()


def test_a_sigterm_while_a_refused_bridge_ends_its_session_adds_nothing(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A bridge already ended by a refusal, told to stop while it ends its session,
    ends as it was going to: the refusal is what it says. Planted: the end set again
    when it was set already (`bridge_relay.py:431` taken always), and the signal's
    handler raised, which asyncio reported on stderr."""
    closing = threading.Event()
    signalled = threading.Event()

    def delete(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        closing.set()
        signalled.wait(0.8)  # within the bridge's one second for the DELETE
        return 200, {}, b""

    bridge = refused_while_ending(routed, user_config, tmp_path, {"DELETE": delete})
    assert closing.wait(20)
    bridge.process.send_signal(signal.SIGTERM)
    signalled.set()
    code, err = bridge.end_alone(30)
    assert "Exception in callback" not in err, err
    if code != -signal.SIGTERM:  # else it came after the loop had closed (a late signal)
        assert (code, err) == REFUSED_END


def test_a_session_end_the_server_never_answers_is_given_up_after_a_second(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """At its end the bridge ends the session with a DELETE, and waits one second for
    its answer (`CLOSE_TIMEOUT`) before it closes anyway. Planted: that second widened
    16 times (`bridge_relay.py:58`), and the server, holding the DELETE for 12 s, saw
    the bridge wait it out."""
    ends: queue.Queue[str] = queue.Queue()

    def never(handler: BaseHTTPRequestHandler, _: dict[str, Any]) -> None:
        ends.put(hold(handler, bound=12))

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted, "DELETE": never}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    assert bridge.finish(30) == (0, "")
    assert ends.get(timeout=30) == "closed"  # the bridge hung up; the server waited on


def test_an_answer_s_stream_held_open_after_it_is_let_go_after_a_second(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """An answer's event stream should end once the answer is sent; the bridge relays
    the answer and reads on for one second (`DRAIN_SECONDS`), then lets the stream go.
    Planted: that second widened 16 times (`bridge_relay.py:59`), and the server,
    holding the stream open for 12 s after the answer, saw the bridge wait it out."""
    ends: queue.Queue[str] = queue.Queue()
    tools = {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}

    def streamed(handler: BaseHTTPRequestHandler, _: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        handler.wfile.write(event(tools))
        handler.wfile.flush()
        ends.put(hold(handler, bound=12))

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": streamed}))
    bridge = Bridged(tmp_path)
    assert listed(bridge) == tools
    assert ends.get(timeout=30) == "closed"  # stdin still open: only the second ended it
    assert bridge.finish() == (0, "")


@pytest.mark.parametrize("parser", ["fast", "typer"])
def test_a_notification_refused_with_401_ends_the_bridge(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path,
    parser: str
) -> None:
    """A refusal that no later request can pass (401) ends the bridge even when it was
    a notification's, which has no answer to carry it, whichever parser read the line.
    Planted: the end dropped there (`bridge_relay.py:248`), and the bridge went on
    waiting on stdin; the reader of stdin made a non-daemon thread (`bridge_io.py:43`),
    and through typer the process waited on it at exit."""
    configure(user_config, routed({
        "initialize": handshake,
        "notifications/initialized": lambda _, __: (401, {}, b"no entry")}))
    bridge = Bridged(tmp_path, parser=parser)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    code, err = bridge.end_alone(30)
    assert (code, err) == (6, "mcpctl: error: server 'remote': server refused the request: "
                              "HTTP 401: no entry\n")


def test_a_server_that_hangs_up_without_a_reply_is_the_request_s_answer(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The connection closed with no reply at all: the library's error becomes the
    request's answer, and the bridge goes on. Planted: that error not turned into the
    answer (`bridge_relay.py:275`, the raise dropped): the request was answered as if
    the server had ended its reply without an answer; `quote=` dropped, a TypeError."""
    def hang_up(handler: BaseHTTPRequestHandler, _: dict[str, Any]) -> None:
        handler.close_connection = True

    configure(user_config, routed({"initialize": handshake,
                                   "notifications/initialized": accepted,
                                   "tools/list": hang_up}))
    bridge = Bridged(tmp_path)
    answer = listed(bridge)
    code, err = bridge.finish()
    assert (code, err) == (0, "")
    assert answer == {"jsonrpc": "2.0", "id": 2, "error": {
        "code": -32000, "message": "mcpctl bridge: cannot reach the server: Server "
                                   "disconnected without sending a response."}}


def test_a_request_held_when_stdin_closes_is_waited_for_5_s_only(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """After the client's EOF the answers already asked for may come for EOF_GRACE
    (5 s); a server that holds one longer does not hold the bridge, whatever its
    `timeout`. Planted: the grace's wait without its timeout (`bridge_relay.py:126`),
    and the bridge waited for the server's 40 s."""
    release = threading.Event()

    def held(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        release.wait(40)
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                      "result": {"tools": []}}).encode()

    configure(user_config, routed({"initialize": handshake,
                                   "notifications/initialized": accepted, "tools/list": held}))
    user_config.write_text(user_config.read_text() + "timeout = 120\n")
    bridge = Bridged(tmp_path)
    try:
        bridge.send(INITIALIZE)
        assert bridge.receive()["id"] == 1
        bridge.send(INITIALIZED)
        bridge.send(TOOLS_LIST)
        code, err = bridge.finish(timeout=25)
    finally:
        release.set()
    assert (code, err) == (0, "")


@pytest.mark.parametrize("hang_up", [False, True], ids=["its answer", "the bridge's error"])
def test_a_client_gone_before_an_answer_ends_the_bridge(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path,
    hang_up: bool
) -> None:
    """The client closed its end of stdout while a request was at the server; the
    answer (the server's, or the bridge's own when the server hangs up) finds nobody to
    read it, and the bridge ends, its stdin still open. Planted: the end on a gone
    client dropped in the request's task (`bridge_relay.py:225`), or where the bridge
    writes its own answer (`:418`), and the bridge waited on stdin."""
    release = threading.Event()

    def held(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply | None:
        release.wait(60)
        if hang_up:
            handler.close_connection = True
            return None
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                      "result": {"tools": []}}).encode()

    configure(user_config, routed({"initialize": handshake,
                                   "notifications/initialized": accepted, "tools/list": held}))
    argv = [sys.executable, "-m", "mcpctl", "run", "remote", "--workspace", str(tmp_path)]
    try:
        with started(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     stderr=subprocess.DEVNULL, env=dict(os.environ)) as process:
            assert process.stdin is not None
            assert process.stdout is not None
            for message in (INITIALIZE, INITIALIZED, TOOLS_LIST):
                process.stdin.write(json.dumps(message).encode() + b"\n")
                process.stdin.flush()
            assert json.loads(process.stdout.readline())["id"] == 1
            process.stdout.close()  # the client leaves, its writing end still open
            release.set()
            try:
                code = process.wait(60)
            finally:
                with contextlib.suppress(BrokenPipeError):
                    process.stdin.close()
    finally:
        release.set()
    assert code == 0


def test_an_event_stream_cut_off_is_warned_of_and_the_bridge_goes_on(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The GET stream (what the server sends outside any request) breaks off in the
    middle of a chunk: the bridge says so on stderr and its requests still work.
    Planted: the warning dropped (`bridge_relay.py:342`)."""
    def cut(handler: BaseHTTPRequestHandler, _: dict[str, Any]) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        handler.wfile.write(b"40\r\nevent: message\n")  # a chunk of 64 bytes, cut short
        handler.wfile.flush()
        handler.close_connection = True

    tools = {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted, "GET": cut,
        "tools/list": lambda _, __: (200, JSON, json.dumps(tools).encode())}))
    bridge = Bridged(tmp_path)
    answer = listed(bridge)
    code, err = bridge.finish()
    assert (code, answer) == (0, tools)
    assert err.startswith("mcpctl: warning: server 'remote': the server's event stream "
                          "ended: "), err


def test_only_the_initialized_notification_opens_the_get_stream(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The stream for what the server sends outside any request is asked for once the
    server has accepted `notifications/initialized`, not another notification. Planted:
    the method compared by its first 8 characters (`bridge_relay.py:255`), and the GET
    went out after `notifications/roots/list_changed`."""
    seen: list[str] = []
    got = threading.Event()

    def stream(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        seen.append("GET")
        got.set()
        return 405, {}, b""

    def ping(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        got.wait(2)  # a GET the notification wrongly opened comes at once
        seen.append("ping")
        return answered({})(handler, body)

    configure(user_config, routed({
        "initialize": handshake, "notifications/roots/list_changed": accepted,
        "notifications/initialized": accepted, "ping": ping, "GET": stream}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "ping"})
    assert bridge.receive()["id"] == 2
    bridge.send(INITIALIZED)
    assert got.wait(20)
    assert bridge.finish() == (0, "")
    assert seen == ["ping", "GET"]


def test_a_get_reply_that_is_not_an_event_stream_is_not_read(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The stream for what the server sends outside any request is read only when the
    GET's reply is an event stream; one of another type (`text/events`) offers none,
    whatever its body holds. Planted: that check dropped (`bridge_relay.py:335`), or
    the type compared by its first 8 characters, and the event in the body reached the
    client."""
    served = threading.Event()
    note = {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}

    def other(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        served.set()
        return 200, {"Content-Type": "text/events"}, event(note)

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted, "GET": other,
        "tools/list": answered({"tools": []})}))
    bridge = Bridged(tmp_path)
    assert listed(bridge)["id"] == 2
    assert served.wait(20)
    bridge.send({**TOOLS_LIST, "id": 3})
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 3, "result": {"tools": []}}
    assert bridge.finish() == (0, "")
    assert [json.loads(line).get("id") for line in bridge.out] == [1, 2, 3]


def test_a_server_request_with_the_id_of_a_client_request_is_not_its_answer(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The server's own request (a ping) may carry the id of the client's request it
    came with, as the two ids are each side's own: only the answer after it settles the
    client's `tools/list`, whose tools are then read (the invalid one left out).
    Planted: the check for a request dropped (`bridge_relay.py:372`), and the ping took
    the place of the answer, which was relayed unread, the invalid tool in it."""
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}

    def streamed(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        answer = {"jsonrpc": "2.0", "id": body["id"], "result": {"tools": [REGIONAL, INVALID]}}
        return 200, EVENTS, event(ping) + event(answer)

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": streamed}))
    bridge = Bridged(tmp_path)
    assert listed(bridge) == ping
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"tools": [REGIONAL]}}
    code, err = bridge.finish()
    assert (code, err) == (0, "mcpctl: warning: server 'remote': tool 'bad' left out of "
                              "tools/list: x-mcp-header of ratio is on a parameter that is "
                              "not a string, integer or boolean\n")


def test_a_tool_whose_name_is_not_a_string_lends_no_call_its_headers(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """Only a tool named by a string has its `x-mcp-header` annotations kept for the
    calls that name it: a call naming a number is sent without `Mcp-Param-*` headers.
    Planted: the name's type not checked (`bridge_relay.py:398` taken always), and a
    call naming 5 carried the header of the tool listed as 5."""
    numbered = {**REGIONAL, "name": 5}
    seen: list[str | None] = []
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": answered({"tools": [numbered]}), "tools/call": region_header(seen)}))
    bridge = Bridged(tmp_path)
    assert listed(bridge) == {"jsonrpc": "2.0", "id": 2, "result": {"tools": [numbered]}}
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                 "params": {"name": 5, "arguments": {"region": "eu"}}})
    assert bridge.receive()["id"] == 3
    assert bridge.finish() == (0, "")
    assert seen == [None]


def test_more_messages_than_may_be_in_flight_pass_one_after_another(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """At most 256 messages are in flight at once; a message done is no longer one, so
    300 requests, each sent once the one before is answered, all pass. Planted: a done
    task left among those in flight (`bridge_relay.py:439`), and the 257th message was
    refused as one too many."""
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "ping": answered({})}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    refused = []
    for number in range(2, 302):
        bridge.send({"jsonrpc": "2.0", "id": number, "method": "ping"})
        answer = bridge.receive()
        assert answer["id"] == number
        if answer.get("result") != {}:
            refused.append(number)
    assert bridge.finish() == (0, "")
    assert refused == []


def test_an_answer_slower_than_the_timeout_still_reaches_the_client(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The server's `timeout` bounds connecting, not how long a request may run: the
    client decides how long it waits for a tool. Planted: the client made without
    `read=None` (`bridge.py:85`), and a reply 6 s after a 2 s timeout became "timed out
    talking to the server"; the client made without the timeout at all (`:87`: httpx's
    default, 5 s for reading too), the same."""
    def slow(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        threading.Event().wait(6)
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                      "result": {"tools": []}}).encode()

    configure(user_config, routed({"initialize": handshake,
                                   "notifications/initialized": accepted, "tools/list": slow}))
    user_config.write_text(user_config.read_text() + "timeout = 2\n")
    bridge = Bridged(tmp_path)
    answer = listed(bridge)
    code, err = bridge.finish()
    assert (code, err) == (0, "")
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}


def test_a_header_name_http_cannot_carry_stops_the_bridge_before_it_connects(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """Planted: the bridge's check of the config's header names dropped (`bridge.py:53`):
    it started, and answered the client's first line itself."""
    reached: list[str] = []

    def seen(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        reached.append(body["method"])
        return handshake(_, body)

    configure(user_config, routed({"initialize": seen}), '"X Bad" = "v"')
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    code, err = bridge.end_alone(30)
    assert (code, err) == (6, "mcpctl: error: server 'remote': header name 'X Bad' is not "
                              "valid in HTTP\n")
    assert reached == []


def test_a_bridge_started_with_sigterm_ignored_keeps_it_ignored(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A client (or a shell before it) that starts its server with SIGTERM ignored means
    it to go on: the bridge installs no handler of its own then. Planted: that check
    dropped (`bridge.py:107`), and SIGTERM ended the session with 143."""
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": answered({"tools": []})}))
    bridge = Bridged(tmp_path, shell_prefix="trap '' TERM")
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.process.send_signal(signal.SIGTERM)
    bridge.send(INITIALIZED)
    bridge.send(TOOLS_LIST)
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert bridge.finish() == (0, "")


def test_an_answer_is_relayed_as_the_server_wrote_it_and_a_null_id_error_gets_the_id(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """An answer goes to the client byte for byte (a number past a float's precision
    stays as the server wrote it), and an error the server sent with a null id, which
    can only be about the request its reply carries, gets that request's id. Planted:
    every answer re-encoded (`bridge_relay.py:361`), and the number came back rounded;
    the null id left as it was (`:357`), and the client could not match the error."""
    exact = b'{"jsonrpc":"2.0","id":2,"result":{"tools":[],"pi":3.14159265358979323846264}}'
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": lambda _, __: (200, JSON, exact),
        "ping": lambda _, __: (200, JSON, b'{"jsonrpc":"2.0","id":null,'
                                          b'"error":{"code":-32603,"message":"no"}}')}))
    bridge = Bridged(tmp_path)
    listed(bridge)
    bridge.send({"jsonrpc": "2.0", "id": 5, "method": "ping"})
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 5,
                                "error": {"code": -32603, "message": "no"}}
    assert bridge.finish() == (0, "")
    assert bridge.out[1] == exact + b"\n"


# --- the hold while `initialize` is at the server ----------------------------------

LOOKALIKE = "initialization/status"  # not `initialize`, though its first 8 letters are


def test_a_request_that_only_begins_like_initialize_holds_nothing_back(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A request named like `initialize` for its first letters is an ordinary request:
    the requests after it go out at once, and its reply's session and version are not
    the session's. Planted: the method compared by its first 8 characters where the hold
    begins (`bridge_relay.py:192`), and the hold never ended, so `tools/list` was never
    sent; where a reply's session id is taken (`:283`), or its version learnt (`:381`),
    and `tools/list` went out with the lookalike's."""
    seen: list[tuple[str | None, str | None]] = []

    def lookalike(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        return 200, {**JSON, "Mcp-Session-Id": "other"}, json.dumps(
            {"jsonrpc": "2.0", "id": body["id"],
             "result": {"protocolVersion": "2099-01-01"}}).encode()

    def tools(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        seen.append((handler.headers["Mcp-Session-Id"], handler.headers["MCP-Protocol-Version"]))
        return answered({"tools": []})(handler, body)

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        LOOKALIKE: lookalike, "tools/list": tools}))
    bridge = Bridged(tmp_path)
    listed(bridge)
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": LOOKALIKE})
    assert bridge.receive()["id"] == 3
    bridge.send({**TOOLS_LIST, "id": 4})
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 4, "result": {"tools": []}}
    assert bridge.finish() == (0, "")
    assert seen == [("s-1", "2025-06-18")] * 2


def test_a_protocol_version_that_is_not_one_is_sent_on_by_no_request(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """The handshake's `protocolVersion` goes into the header of the requests after it
    only when a header can carry it as one token (visible ASCII, at most 64 characters).
    Planted: that check dropped (`bridge_relay.py:383` taken always), and `tools/list`
    carried "2025-11-25 beta" to the server."""
    seen: list[str | None] = []

    def initialize(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        return 200, {**JSON, **SESSION}, json.dumps(
            {"jsonrpc": "2.0", "id": body["id"],
             "result": {**HANDSHAKE, "protocolVersion": "2025-11-25 beta"}}).encode()

    def tools(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        seen.append(handler.headers["MCP-Protocol-Version"])
        return answered({"tools": []})(handler, body)

    configure(user_config, routed({
        "initialize": initialize, "notifications/initialized": accepted, "tools/list": tools}))
    bridge = Bridged(tmp_path)
    assert listed(bridge) == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert bridge.finish() == (0, "")
    assert seen == [None]


def test_methods_that_only_begin_like_tools_list_and_tools_call_are_relayed_as_they_are(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """Only `tools/list`'s answer is read for the tools' header annotations (a tool with
    invalid ones left out, with a warning), and only `tools/call` mirrors arguments into
    `Mcp-Param-*` headers: a method that shares their first 8 letters is relayed as it
    is. Planted: the method compared by its first 8 characters where an answer is read
    (`bridge_relay.py:385`), and the lookalike's answer lost a tool; where a call's
    headers are made (`:409`), and the lookalike carried `Mcp-Param-Region`."""
    seen: list[str | None] = []
    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": answered({"tools": [REGIONAL]}),
        "tools/listing": answered({"tools": [REGIONAL, INVALID]}),
        "tools/call": region_header(seen), "tools/callback": region_header(seen)}))
    bridge = Bridged(tmp_path)
    assert listed(bridge) == {"jsonrpc": "2.0", "id": 2, "result": {"tools": [REGIONAL]}}
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/listing"})
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 3,
                                "result": {"tools": [REGIONAL, INVALID]}}
    arguments = {"name": "route", "arguments": {"region": "eu"}}
    for number, method in enumerate(["tools/call", "tools/callback"], start=4):
        bridge.send({"jsonrpc": "2.0", "id": number, "method": method, "params": arguments})
        assert bridge.receive()["id"] == number
    assert bridge.finish() == (0, "")
    assert seen == ["eu", None]


def test_only_the_answer_to_initialize_releases_what_waits_for_it(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """While `initialize` is held at the server, a request that begins like it is
    cancelled: that ends no hold, and `tools/list` reaches the server only after the
    handshake's answer. Planted: the method compared by its first 8 characters where
    a request is forgotten (`bridge_relay.py:238`), and the cancelled lookalike let
    `tools/list` out while `initialize` was still at the server; where a POST waits for
    the handshake (`:278`), and the lookalike itself went out before its answer."""
    early = threading.Event()
    answered_initialize = threading.Event()

    def held_handshake(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        early.wait(5)  # let a premature `tools/list` arrive first, if one comes
        answered_initialize.set()
        return handshake(handler, body)

    def tools(_: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        if not answered_initialize.is_set():
            early.set()
        return 200, JSON, json.dumps({"jsonrpc": "2.0", "id": body["id"],
                                      "result": {"tools": []}}).encode()

    def lookalike(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        if not answered_initialize.is_set():
            early.set()
        return answered({})(handler, body)

    configure(user_config, routed({
        "initialize": held_handshake, "notifications/initialized": accepted,
        "notifications/cancelled": accepted, LOOKALIKE: lookalike, "tools/list": tools}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": LOOKALIKE})
    time.sleep(1)  # its task under way, waiting for the handshake (a task cancelled
    # before it starts never runs, and is never forgotten either)
    bridge.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                 "params": {"requestId": 3}})
    bridge.send(TOOLS_LIST)
    assert bridge.receive(30)["id"] == 1
    bridge.send(INITIALIZED)
    ids = {bridge.receive(30)["id"]}
    code, err = bridge.finish()
    assert (ids, code, err, early.is_set()) == ({2}, 0, "", False)


def test_an_initialize_the_client_cancels_ends_the_hold(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A client that cancels its `initialize` while the server holds it (the
    specification forbids it; a client may still) gets no answer to it, and its later
    requests go out. Planted: the cancelled request never forgotten
    (`bridge_relay.py:235`), and `tools/list` waited for ever behind the hold."""
    arrived = threading.Event()
    release = threading.Event()

    def held(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        arrived.set()
        release.wait(30)
        return handshake(handler, body)

    configure(user_config, routed({
        "initialize": held, "notifications/cancelled": accepted,
        "tools/list": answered({"tools": []})}))
    bridge = Bridged(tmp_path)
    try:
        bridge.send(INITIALIZE)
        assert arrived.wait(20)
        bridge.send({"jsonrpc": "2.0", "method": "notifications/cancelled",
                     "params": {"requestId": 1}})
        bridge.send(TOOLS_LIST)
        answer = bridge.receive()
    finally:
        release.set()
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert bridge.finish() == (0, "")
    assert [json.loads(line) for line in bridge.out] == [answer]  # none for `initialize`


@pytest.mark.parametrize("refusal", ["http", "json-rpc"])
def test_a_refused_initialize_ends_the_hold_too(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path,
    refusal: str
) -> None:
    """`initialize` refused, by HTTP 500 or by a JSON-RPC error: the error is the answer,
    and the messages after it go out. Planted: the hold's end dropped where a request is
    forgotten (`bridge_relay.py:239`), and `tools/list` waited for ever; the check that
    an answer has a result dropped (`:379`), and the error answer crashed the bridge."""
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -32600, "message": "not now"}}
    configure(user_config, routed({
        "initialize": lambda _, __: (500, {}, b"not now") if refusal == "http"
        else (200, JSON, json.dumps(error).encode()),
        "tools/list": answered({"tools": []})}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["error"]["message"].endswith("not now")
    bridge.send(TOOLS_LIST)
    assert bridge.receive() == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert bridge.finish() == (0, "")


def test_a_lookalike_s_answer_does_not_end_the_hold(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A lookalike sent before `initialize` is answered while `initialize` is held at the
    server: that answer ends no hold, and `tools/list` still waits for the handshake's.
    Planted: the method compared by its first 8 characters where an answer ends the hold
    (`bridge_relay.py:377`), and `tools/list` reached the server first."""
    arrived, early, done = threading.Event(), threading.Event(), threading.Event()

    def held_handshake(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        arrived.set()
        early.wait(5)
        done.set()
        return handshake(handler, body)

    def lookalike(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        arrived.wait(10)  # answered only once `initialize` is at the server
        return answered({})(handler, body)

    def tools(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        if not done.is_set():
            early.set()
        return answered({"tools": []})(handler, body)

    configure(user_config, routed({
        "initialize": held_handshake, "notifications/initialized": accepted,
        LOOKALIKE: lookalike, "tools/list": tools}))
    bridge = Bridged(tmp_path)
    bridge.send({"jsonrpc": "2.0", "id": 3, "method": LOOKALIKE})
    time.sleep(1)  # posted before `initialize` begins the hold
    bridge.send(INITIALIZE)
    bridge.send(TOOLS_LIST)
    ids = {bridge.receive(30)["id"] for _ in range(3)}
    code, err = bridge.finish()
    assert (ids, code, err, early.is_set()) == ({1, 2, 3}, 0, "", False)


def test_a_notification_the_server_holds_delays_the_next_request_by_timeout_only(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A request waits for the client's notifications sent before it to be accepted
    (`initialized` must reach the server before `tools/list`), but no longer than the
    server's `timeout`. Planted: that wait without its bound (`bridge_relay.py:268`),
    and `tools/list` waited for the notification the server held."""
    release = threading.Event()

    def held(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        release.wait(60)
        return 202, {}, b""

    configure(user_config, routed({"initialize": handshake, "notifications/initialized": held,
                                   "tools/list": answered({"tools": []})}))
    user_config.write_text(user_config.read_text() + "timeout = 1\n")
    bridge = Bridged(tmp_path)
    try:
        answer = listed(bridge)
    finally:
        release.set()
    assert answer == {"jsonrpc": "2.0", "id": 2, "result": {"tools": []}}
    assert bridge.finish() == (0, "")


def test_nothing_reaches_the_client_once_the_bridge_has_ended(
    routed: Callable[[dict[str, Route]], str], user_config: Path, tmp_path: Path
) -> None:
    """A refusal that ends the bridge (401 to a notification) cancels the requests still
    at the server: an answer that comes while the bridge closes is not relayed. Planted:
    the close's cancelling of them skipped (`bridge_relay.py:142`, `:143`), and the
    answer went out after the bridge had ended."""
    refused = threading.Event()

    def late(handler: BaseHTTPRequestHandler, body: dict[str, Any]) -> Reply:
        refused.wait(30)
        time.sleep(0.3)  # within the close's one second
        return answered({"tools": []})(handler, body)

    def refuse(_: BaseHTTPRequestHandler, __: dict[str, Any]) -> Reply:
        refused.set()
        return 401, {}, b"no entry"

    configure(user_config, routed({
        "initialize": handshake, "notifications/initialized": accepted,
        "tools/list": late, "notifications/roots/list_changed": refuse}))
    bridge = Bridged(tmp_path)
    bridge.send(INITIALIZE)
    assert bridge.receive()["id"] == 1
    bridge.send(INITIALIZED)
    bridge.send(TOOLS_LIST)
    time.sleep(0.5)  # `tools/list` at the server before the refusal
    bridge.send({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"})
    code, err = bridge.end_alone(30)
    assert (code, len(bridge.out)) == (6, 1)
    assert "HTTP 401: no entry" in err
