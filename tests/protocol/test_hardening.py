"""One bad server, url or header fails that probe alone, at once, and shows no secret."""

from __future__ import annotations

import json
import sys
import textwrap
import threading
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from mcpctl.model import Transport
from mcpctl.protocol.http import MAX_SERVER_REQUESTS, MAX_WAITING_ANSWERS
from mcpctl.protocol.probe import LaunchPlan
from mcpctl.protocol.process import STDERR_LINE_CHARS
from tests.protocol.conftest import (
    Hostile,
    refusing_port,
    run_failure,
    stdio_plan,
    survivors,
)

GHP = "ghp_" + "A1b2C3d4E5f6G7h8I9j0" * 2
PASSPHRASE = "correct-horse-battery-staple"  # no detector flags it: only its value can
HEADER_REFUSED = (
    "header 'Authorization' has a value HTTP cannot carry (a line break, a control or "
    "non-ASCII character, or a space at either end); check the config and any secret or "
    "variable it uses"
)

Json = dict[str, Any]
Respond = Callable[[Json], tuple[int, dict[str, str], Iterable[bytes]]]


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: object, client_address: object) -> None:
        return  # mcpctl hung up on purpose: not worth a traceback


@pytest.fixture
def loopback() -> Iterator[Callable[[Respond], str]]:
    """An HTTP/1.0 server on loopback whose replies may stream (no Content-Length)."""
    servers: list[_Server] = []

    def start(respond: Respond) -> str:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                status, headers, chunks = respond(body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                for chunk in chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                return

        server = _Server(("127.0.0.1", 0), Handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        servers.append(server)
        return f"http://127.0.0.1:{server.server_address[1]}/mcp"

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def not_found(body: Json) -> tuple[int, dict[str, str], Iterable[bytes]]:
    return 404, {}, [b"no such endpoint"]


def event(message: Json) -> bytes:
    return b"data: " + json.dumps(message).encode() + b"\n\n"


def ping(n: int) -> Json:
    return {"jsonrpc": "2.0", "id": f"ping-{n}", "method": "ping"}


# --- headers and urls (B1, C3) --------------------------------------------------------


@pytest.mark.parametrize("value", [f"Bearer {GHP}\r", f"Bearer {GHP}\n", f"Bearer {GHP} ",
                                   f"Bearer {GHP}\x00", "Bearer café-" + GHP])
def test_a_header_http_cannot_carry_is_refused_without_quoting_it(
    loopback: Callable[[Respond], str], value: str
) -> None:
    url = loopback(not_found)
    # At once: a probe that waited out this timeout would outlast the test's own bound.
    plan = LaunchPlan("r", Transport.HTTP, url=url, headers={"Authorization": value},
                      timeout=600)
    failure = run_failure(plan)
    assert failure.diagnosis == HEADER_REFUSED


def test_library_errors_are_not_quoted_when_headers_were_sent() -> None:
    with refusing_port() as port:
        url = f"http://127.0.0.1:{port}/mcp"
        with_headers = LaunchPlan("r", Transport.HTTP, url=url, timeout=5,
                                  headers={"Authorization": f"Bearer {GHP}"})
        assert run_failure(with_headers).diagnosis == (
            "cannot reach the server: ConnectError (the error text is not shown: it may "
            "quote a header value)")
        without = LaunchPlan("r", Transport.HTTP, url=url, timeout=5)
        assert run_failure(without).diagnosis == (
            "cannot reach the server: All connection attempts failed")


@pytest.mark.parametrize(("url", "diagnosis"), [
    ("http://[::1/mcp", "not a valid url: http://[::1/mcp (Invalid IPv6 URL)"),
    ("http://127.0.0.1:99999/mcp",
     "not a valid url: http://127.0.0.1:99999/mcp (Port out of range 0-65535)"),
    ("http://127.0.0.1:port/mcp",
     "not a valid url: http://127.0.0.1:port/mcp (Port could not be cast to integer value "
     "as 'port')"),
])
def test_a_url_that_cannot_be_parsed_fails_at_once(url: str, diagnosis: str) -> None:
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=url, timeout=600))
    assert failure.diagnosis == diagnosis


def test_an_error_the_http_library_does_not_wrap_settles_the_request() -> None:
    """The IDNA codec raises its own error from inside the POST; the request must fail
    with it, not wait out the timeout with an orphaned task."""
    failure = run_failure(LaunchPlan("r", Transport.HTTP, url="https://xn--/mcp", timeout=600))
    assert failure.diagnosis == (
        "cannot reach the server: Malformed A-label, no Punycode eligible content found")


def test_an_unexpected_error_is_that_servers_failure(hostile: Hostile) -> None:
    plan = stdio_plan(sys.executable, "-c", "print('never')", "a\x00b", timeout=600)
    failure = run_failure(plan)
    assert failure.diagnosis == "unexpected ValueError while probing: embedded null byte"


# --- tool lists that are not strict JSON in UTF-8 (C2) ----------------------------------


def tools_server(hostile: Hostile, tools_json: str, info_json: str = '{"name": "h"}',
                 ) -> tuple[LaunchPlan, str]:
    """A handshake-era server answering tools/list with `tools_json` written raw."""
    return hostile(textwrap.dedent(f"""\
        for request in requests():
            if request["method"] == "initialize":
                sys.stdout.write('{{"jsonrpc":"2.0","id":%d,"result":{{"protocolVersion":'
                                 '"2025-11-25","capabilities":{{}},"serverInfo":{info_json}}}}}\\n'
                                 % request["id"])
                sys.stdout.flush()
            elif request["method"] == "tools/list":
                sys.stdout.write('{{"jsonrpc":"2.0","id":%d,"result":{{"tools":{tools_json}}}}}\\n'
                                 % request["id"])
                sys.stdout.flush()
            else:
                handshake_answer(request)
        """), timeout=5.0)


@pytest.mark.parametrize(("tools_json", "diagnosis"), [
    (r'[{"name":"ok"},{"name":"bad","description":"\\ud800"}]',
     r"tools/list: tool 2 'bad' holds a lone surrogate escape (such as \ud800) that is not "
     "valid Unicode text"),
    (r'[{"name":"\\udfff"}]',
     r"tools/list: tool 1 holds a lone surrogate escape (such as \ud800) that is not valid "
     "Unicode text"),
    ('[{"name":"n","inputSchema":{"type":"object","maximum":NaN}}]',
     "tools/list: tool 1 'n' holds NaN or Infinity, which JSON does not allow"),
    ('[{"name":"i","inputSchema":{"default":-Infinity}}]',
     "tools/list: tool 1 'i' holds NaN or Infinity, which JSON does not allow"),
])
def test_a_tool_list_that_is_not_strict_utf8_json_fails_the_probe(
    hostile: Hostile, tools_json: str, diagnosis: str
) -> None:
    plan, marker = tools_server(hostile, tools_json)
    assert run_failure(plan).diagnosis == diagnosis
    assert survivors(marker) == []


def test_server_info_that_is_not_utf8_fails_the_probe(hostile: Hostile) -> None:
    plan, _ = tools_server(hostile, "[]", info_json=r'{"name":"\\ud83d"}')
    assert run_failure(plan).diagnosis == (
        r"the server's serverInfo holds a lone surrogate escape (such as \ud800) that is not "
        "valid Unicode text")


# --- requests a server sends inside its HTTP replies (bounded) ------------------------


def test_a_burst_of_server_requests_fails_the_connection(
    loopback: Callable[[Respond], str]
) -> None:
    answered: list[str] = []

    def respond(body: Json) -> tuple[int, dict[str, str], Iterable[bytes]]:
        if "method" not in body:
            answered.append(body["id"])
            return 202, {}, []
        burst = b"".join(event(ping(n)) for n in range(100))
        return 200, {"Content-Type": "text/event-stream"}, [burst]

    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=loopback(respond), timeout=10))
    assert failure.diagnosis == (
        f"server sent more than {MAX_WAITING_ANSWERS} requests of its own at once; stopped")
    assert len(answered) <= MAX_WAITING_ANSWERS


def test_server_requests_are_capped_in_all(loopback: Callable[[Respond], str]) -> None:
    """The server sends its next request only once mcpctl answered the last (an event,
    not a pause), so the cap, not the waiting-answers bound, is what trips.

    Under load the 256 round trips once took longer than half the probe's timeout, when
    mcpctl sends `initialize` behind a discovery still unanswered: this server refused
    that with a 404, and the test failed with "HTTP 404". The timeout is now the longest
    there is, so the fallback is never due within the test's own bound."""
    answered: list[str] = []
    changed = threading.Condition()

    def answered_more_than(count: int) -> bool:
        return len(answered) > count

    def respond(body: Json) -> tuple[int, dict[str, str], Iterable[bytes]]:
        if "method" not in body:
            with changed:
                answered.append(body["id"])
                changed.notify_all()
            return 202, {}, []
        if body["method"] != "server/discover":
            return 404, {}, []

        def one_at_a_time() -> Iterator[bytes]:
            for n in range(MAX_SERVER_REQUESTS + 50):
                yield event(ping(n))
                with changed:
                    # A bound so a lost answer ends the stream (idle: milliseconds).
                    if not changed.wait_for(partial(answered_more_than, n), timeout=60):
                        return

        return 200, {"Content-Type": "text/event-stream"}, one_at_a_time()

    failure = run_failure(LaunchPlan("r", Transport.HTTP, url=loopback(respond), timeout=600))
    # The documented cap, as a number: the bound widened 16 times (the structural
    # `http.py:54`) answered every request the flood sent.
    assert failure.diagnosis == "server sent more than 256 requests of its own; stopped"
    assert answered == [f"ping-{n}" for n in range(256)]


# --- what a server says is masked before it is cut (B2) ---------------------------------


def test_a_secret_in_stdout_pollution_is_masked_before_the_quote_is_cut() -> None:
    line = "x" * 70 + " " + PASSPHRASE
    plan = stdio_plan(sys.executable, "-c", f"print({line!r}); import time; time.sleep(30)")
    plan = LaunchPlan(plan.name, plan.transport, argv=plan.argv, env=plan.env,
                      timeout=5.0, secrets=(PASSPHRASE,))
    failure = run_failure(plan)
    assert failure.diagnosis == (
        f"stdout pollution: server printed '{'x' * 70} corr***' (not JSON-RPC) on stdout")


def test_stderr_lines_are_masked_before_they_are_cut() -> None:
    long_line = "y" * (STDERR_LINE_CHARS - 10) + " " + PASSPHRASE
    code = (f"import sys; sys.stderr.write({long_line!r} + '\\n'); "
            f"sys.stderr.write('token {GHP} and {PASSPHRASE}\\n'); sys.exit(1)")
    base = stdio_plan(sys.executable, "-c", code)
    plan = LaunchPlan(base.name, base.transport, argv=base.argv, env=base.env, timeout=5.0,
                      secrets=(PASSPHRASE,))
    failure = run_failure(plan)
    assert failure.diagnosis == "server exited with code 1 before answering"
    assert failure.stderr_tail == ("y" * (STDERR_LINE_CHARS - 10) + " corr***",
                                   "token ghp_*** and corr***")


def test_an_http_error_body_is_masked(loopback: Callable[[Respond], str]) -> None:
    body = f"token {PASSPHRASE} rejected; expected {GHP}".encode()
    url = loopback(lambda message: (401, {"Content-Type": "text/plain"}, [body]))
    # At once: a probe that waited out this timeout would outlast the test's own bound.
    plan = LaunchPlan("r", Transport.HTTP, url=url, timeout=600,
                      headers={"Authorization": f"Bearer {PASSPHRASE}"}, secrets=(PASSPHRASE,))
    failure = run_failure(plan)
    assert failure.diagnosis == (
        "server refused initialize: HTTP 401: token corr*** rejected; expected ghp_***")
