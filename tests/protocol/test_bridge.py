"""`mcpctl run NAME` for a remote server: the stdio bridge, end to end on loopback.

Real parts only: `mcpctl run` as a process, the official SDK as the stdio client, the
SDK's and the npm everything server's Streamable HTTP, the real keyring, and a scripted
server (`bridge_server.py`) where a test must see exactly what was sent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import IO, Any

import pytest
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

from mcpctl.protocol.bridge_relay import EOF_GRACE
from mcpctl.protocol.http_wire import encode_header_value, message_headers
from mcpctl.protocol.param_headers import InvalidAnnotation, annotated_paths, mirrored
from tests.conftest import run_mcpctl
from tests.protocol.bridge_server import ASKED_ID, SESSION, Script, scripted_server
from tests.protocol.conftest import (
    HERE,
    SDK_SERVER,
    free_port,
    http_server,
    refusing_port,
    require_npm_server,
)
from tests.sdk_client import PASSED_ENV

MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
          "io.modelcontextprotocol/clientInfo": {"name": "test", "version": "1"},
          "io.modelcontextprotocol/clientCapabilities": {}}
INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {"roots": {}},
    "clientInfo": {"name": "test", "version": "1"}}}
INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}


def configure(user_config: Path, url: str, headers: str = "", kind: str = "http") -> None:
    user_config.parent.mkdir(parents=True, exist_ok=True)
    text = f'[servers.remote]\nurl = "{url}"\ntype = "{kind}"\n'
    user_config.write_text(text + (f"headers = {{ {headers} }}\n" if headers else ""))


class Bridged:
    """`mcpctl run NAME` as a process: JSON-RPC lines in, lines out, each wait bounded."""

    def __init__(self, root: Path, name: str = "remote", *, shell_prefix: str = "",
                 parser: str = "fast") -> None:
        """`shell_prefix`: shell commands run first, in the process that then execs
        mcpctl (`trap '' TERM`: mcpctl starts with SIGTERM ignored). `parser="typer"`:
        the workspace named twice, which `run`'s own parser leaves to typer's (the
        command then ends through the interpreter's exit, which waits for every thread
        not made a daemon)."""
        command = [sys.executable, "-m", "mcpctl", "run", name, "--workspace", str(root)]
        if parser == "typer":
            command += ["--workspace", str(root)]
        if shell_prefix:
            command = ["sh", "-c", f'{shell_prefix}; exec "$@"', "sh", *command]
        self.process = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=dict(os.environ))
        self.lines: queue.Queue[bytes | None] = queue.Queue()
        self.out: list[bytes] = []
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        stdout: IO[bytes] | None = self.process.stdout
        assert stdout is not None
        for line in stdout:
            self.out.append(line)
            self.lines.put(line)
        self.lines.put(None)

    def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def receive(self, timeout: float = 20) -> dict[str, Any]:
        line = self.lines.get(timeout=timeout)
        assert line is not None, "the bridge closed stdout"
        assert line.endswith(b"\n")
        message: dict[str, Any] = json.loads(line)
        return message

    def end_alone(self, timeout: float) -> tuple[int, str]:
        """Wait for the bridge to end by itself, stdin still open; then `finish` (also
        when the wait runs out, so that no bridge is left behind)."""
        try:
            self.process.wait(timeout)
        finally:
            code, err = self.finish()
        return code, err

    def finish(self, timeout: float = 20) -> tuple[int, str]:
        """Close stdin (unless the bridge ended itself) and collect exit code and stderr."""
        assert self.process.stdin is not None
        assert self.process.stderr is not None
        with contextlib.suppress(BrokenPipeError):
            self.process.stdin.close()
        code = self.process.wait(timeout)
        err = self.process.stderr.read().decode()
        self.process.stderr.close()
        self.reader.join(timeout)
        assert self.process.stdout is not None
        self.process.stdout.close()
        return code, err


def sdk_session(args: list[str], work: Callable[[ClientSession], Awaitable[Any]],
                **callbacks: Any) -> Any:
    """Start `mcpctl ARGS` under the official SDK's stdio client and run `work`."""

    async def main() -> Any:
        env = {key: os.environ[key] for key in PASSED_ENV if key in os.environ}
        params = StdioServerParameters(command=sys.executable, args=["-m", "mcpctl", *args],
                                       env=env)
        with open(os.devnull, "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write), \
                    ClientSession(read, write, **callbacks) as session:
                await session.initialize()
                return await work(session)

    return asyncio.run(main())


def texts(result: types.CallToolResult) -> list[str]:
    return [part.text for part in result.content if isinstance(part, types.TextContent)]


# --- the official SDK client, through the bridge, to real servers ----------------------


@pytest.mark.parametrize("mode", ["json", "sse"])
def test_sdk_client_lists_and_calls_tools_of_the_sdk_server(
        mode: str, user_config: Path, tmp_path: Path) -> None:
    port = free_port()
    with http_server([sys.executable, str(SDK_SERVER), "http", str(port), mode], port) as url:
        configure(user_config, url)

        async def work(session: ClientSession) -> tuple[list[str], list[str]]:
            listed = await session.list_tools()
            called = await session.call_tool("add", {"a": 2, "b": 40})
            return [tool.name for tool in listed.tools], texts(called)

        names, called = sdk_session(["run", "remote", "--workspace", str(tmp_path)], work)
    assert (names, called) == (["add", "shout"], ["42"])


def test_everything_server_samples_and_lists_roots_through_the_bridge(
        user_config: Path, tmp_path: Path) -> None:
    entry = require_npm_server("server-everything")
    port = free_port()
    asked: list[str] = []

    async def sample(context: Any, params: types.CreateMessageRequestParams
                     ) -> types.CreateMessageResult:
        content = params.messages[0].content
        asked.append(content.text if isinstance(content, types.TextContent) else "")
        return types.CreateMessageResult(role="assistant", model="scripted-model",
                                         content=types.TextContent(type="text", text="sampled"))

    async def roots(context: Any) -> types.ListRootsResult:
        root = types.Root.model_validate({"uri": "file:///bridge/root", "name": "r"})
        return types.ListRootsResult(roots=[root])

    async def work(session: ClientSession) -> tuple[int, list[str], list[str]]:
        listed = await session.list_tools()
        sampled = await session.call_tool("trigger-sampling-request", {"prompt": "hello"})
        rooted = await session.call_tool("get-roots-list", {})
        return len(listed.tools), texts(sampled), texts(rooted)

    with http_server(["node", str(entry), "streamableHttp"], port,
                     env={"PORT": str(port)}) as url:
        configure(user_config, url)
        count, sampled, rooted = sdk_session(
            ["run", "remote", "--workspace", str(tmp_path)], work,
            sampling_callback=sample, list_roots_callback=roots)
    assert asked == ["Resource trigger-sampling-request context: hello"]
    assert any('"model": "scripted-model"' in text or "sampled" in text for text in sampled)
    assert any("file:///bridge/root" in text for text in rooted)
    assert count >= 15


def test_everything_server_over_the_deprecated_http_sse_transport(
        user_config: Path, tmp_path: Path) -> None:
    entry = require_npm_server("server-everything")
    port = free_port()

    async def work(session: ClientSession) -> tuple[set[str], list[str]]:
        listed = await session.list_tools()
        echoed = await session.call_tool("echo", {"message": "through the old transport"})
        return {tool.name for tool in listed.tools}, texts(echoed)

    with http_server(["node", str(entry), "sse"], port, env={"PORT": str(port)}):
        configure(user_config, f"http://127.0.0.1:{port}/sse", kind="sse")
        names, echoed = sdk_session(["run", "remote", "--workspace", str(tmp_path)], work)
        configure(user_config, f"http://127.0.0.1:{port}/sse-nope", kind="sse")
        wrong = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)], stdin="")
    # The server registers some tools as the session starts, so how many are listed
    # by the first tools/list depends on timing; these are always there.
    assert {"echo", "get-sum", "get-env"} <= names
    assert echoed == ["Echo: through the old transport"]
    assert wrong.code == 6
    assert wrong.err.startswith("mcpctl: error: server 'remote': cannot open the event stream: "
                                "HTTP 404")


def test_stateless_requests_carry_the_modern_headers(user_config: Path, tmp_path: Path) -> None:
    """The SDK server checks `MCP-Protocol-Version`, `Mcp-Method` and `Mcp-Name` against
    the body (2026-07-28 "Server Validation"); a non-ASCII name travels base64-encoded."""
    port = free_port()
    with http_server([sys.executable, str(SDK_SERVER), "http", str(port)], port) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        bridge.send({"jsonrpc": "2.0", "id": 1, "method": "server/discover",
                     "params": {"_meta": MODERN}})
        discovered = bridge.receive()
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "shout", "arguments": {"text": "héllo"}, "_meta": MODERN}})
        shouted = bridge.receive()
        bridge.send({"jsonrpc": "2.0", "id": "x", "method": "tools/call", "params": {
            "name": "ünknown", "arguments": {}, "_meta": MODERN}})
        unknown = bridge.receive()
        code, err = bridge.finish()
    assert discovered["id"] == 1
    assert discovered["result"]["supportedVersions"] == ["2026-07-28"]
    assert shouted["result"]["content"] == [{"type": "text", "text": "HÉLLO"}]
    # Not -32020 (HeaderMismatch): the encoded Mcp-Name matched the body's name.
    assert unknown["id"] == "x"
    assert "ünknown" in json.dumps(unknown, ensure_ascii=False)
    assert -32020 not in (unknown.get("error") or {}).values()
    assert (code, err) == (0, "")


def test_listed_x_mcp_header_parameters_are_mirrored(user_config: Path, tmp_path: Path) -> None:
    """The SDK server refuses a call whose `Mcp-Param-Region` is missing or differs from
    the body (-32020). Before `tools/list` the bridge cannot know the annotation, and the
    refusal reaches the client, which (spec: SHOULD) lists tools and retries."""
    port = free_port()
    call = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "route", "arguments": {"region": "eu-wést", "query": "q"}, "_meta": MODERN}}
    argv = [sys.executable, str(HERE / "sdk_param_server.py"), str(port)]
    with http_server(argv, port) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        bridge.send(call)
        unlisted = bridge.receive()
        bridge.send({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                     "params": {"_meta": MODERN}})
        listed = bridge.receive()
        bridge.send(call)
        routed = bridge.receive()
        code, err = bridge.finish()
    assert unlisted["error"]["code"] == -32020
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["route"]
    assert routed["result"]["content"] == [{"type": "text", "text": "q runs in eu-wést"}]
    assert (code, err) == (0, "")


# --- what the bridge sends, seen by a scripted server ----------------------------------


def test_session_server_request_get_stream_and_delete(user_config: Path,
                                                      tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        bridge.send(INITIALIZE)
        initialized = bridge.receive()
        bridge.send(INITIALIZED)
        changed = bridge.receive()  # from the standalone GET stream
        bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                     "params": {"name": "ask", "arguments": {}}})
        asked = bridge.receive()
        answer = {"jsonrpc": "2.0", "id": ASKED_ID,
                  "result": {"roots": [{"uri": "file:///w", "name": "w"}]}}
        bridge.send(answer)
        called = bridge.receive()
        code, err = bridge.finish()
    assert initialized["result"]["serverInfo"] == {"name": "scripted", "version": "1"}
    assert changed == {"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}
    assert asked == {"jsonrpc": "2.0", "id": ASKED_ID, "method": "roots/list"}
    assert called["id"] == 2
    assert called["result"]["content"][0]["text"] == json.dumps(answer, sort_keys=True)
    assert (code, err) == (0, "")
    requests = [(seen.method, (seen.body or {}).get("method")) for seen in script.seen]
    assert sorted(requests[:4], key=str) == sorted([
        ("POST", "initialize"), ("POST", "notifications/initialized"), ("GET", None),
        ("POST", "tools/call")], key=str)
    assert requests[4:] == [("POST", None), ("DELETE", None)]
    after = script.seen[1:]
    assert {seen.headers.get("mcp-session-id") for seen in after} == {SESSION}
    assert {seen.headers.get("mcp-protocol-version") for seen in after} == {"2025-11-25"}
    assert "mcp-session-id" not in script.seen[0].headers
    call = next(seen for seen in script.seen if (seen.body or {}).get("method") == "tools/call")
    assert (call.headers["mcp-method"], call.headers["mcp-name"]) == ("tools/call", "ask")
    assert call.headers["accept"] == "application/json, text/event-stream"


def test_a_tool_with_an_invalid_annotation_is_left_out_of_tools_list(
        user_config: Path, tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        stdin = json.dumps(INITIALIZE) + "\n" + json.dumps(listing) + "\n"
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)], stdin=stdin)
    listed = json.loads(result.out.splitlines()[1])
    assert [tool["name"] for tool in listed["result"]["tools"]] == ["ask"]
    assert result.err == (
        "mcpctl: warning: server 'remote': tool 'bad' left out of tools/list: x-mcp-header "
        "of ratio is on a parameter that is not a string, integer or boolean\n")
    assert result.code == 0


def _open_session_and_ask(bridge: Bridged) -> dict[str, Any]:
    bridge.send(INITIALIZE)
    bridge.receive()
    bridge.send(INITIALIZED)
    bridge.receive()  # the GET stream's notification
    bridge.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                 "params": {"name": "ask", "arguments": {}}})
    return bridge.receive()


def test_stdin_eof_with_a_request_in_flight_waits_its_grace_then_ends_the_session(
        user_config: Path, tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        asked = _open_session_and_ask(bridge)  # never answered: the call stays open
        started = time.monotonic()
        # A bridge that never gave up on the call would outlast this bound (12x the grace).
        code, err = bridge.finish(timeout=12 * EOF_GRACE)
        waited = time.monotonic() - started
    assert asked["method"] == "roots/list"
    assert (code, err) == (0, "")
    assert waited >= EOF_GRACE  # a lower bound: load only lengthens the wait
    assert (script.seen[-1].method, script.seen[-1].headers["mcp-session-id"]) == (
        "DELETE", SESSION)


def test_sigterm_ends_the_session_at_once_and_exits_143(user_config: Path,
                                                       tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        _open_session_and_ask(bridge)
        bridge.process.send_signal(signal.SIGTERM)
        code, err = bridge.end_alone(EOF_GRACE)  # no grace: it ends at once
    assert (code, err) == (143, "mcpctl: error: stopped by SIGTERM; the server's session "
                                "was ended\n")
    assert script.seen[-1].method == "DELETE"


def test_cancelling_a_request_closes_its_stream(user_config: Path, tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        _open_session_and_ask(bridge)
        cancel = {"jsonrpc": "2.0", "method": "notifications/cancelled",
                  "params": {"requestId": 2, "reason": "user"}}
        bridge.send(cancel)
        # Nothing left to wait for, the call was given up: the bridge ends well before
        # its grace (idle: a tenth of a second), or this wait fails (TimeoutExpired).
        code, err = bridge.finish(timeout=EOF_GRACE)
    assert (code, err) == (0, "")
    assert cancel in script.posts()
    assert [json.loads(line).get("id") for line in bridge.out] == [1, None, ASKED_ID]


def test_a_notification_is_accepted_before_the_next_message_goes_out(
        user_config: Path, tmp_path: Path) -> None:
    """A client may write `notifications/initialized` and `tools/list` at once; sent as
    two POSTs in flight together, the list could reach the server first (the server
    here takes 0.5 s to accept a notification, so it would)."""
    script = Script(slow_notifications=0.5)
    with scripted_server(script) as url:
        configure(user_config, url)
        listing = {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}
        stdin = "".join(json.dumps(m) + "\n" for m in (INITIALIZE, INITIALIZED, listing))
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)], stdin=stdin)
    assert result.code == 0, result.err
    said = [json.loads(line) for line in result.out.splitlines()]
    assert [m["id"] for m in said if "id" in m] == [1, 2]
    # The GET stream's notification too, if it came before stdin's end closed everything:
    # that stream opens only once `initialized` is accepted, so under load it may not.
    assert [m["method"] for m in said if "id" not in m] in (
        [], ["notifications/tools/list_changed"])
    order = [entry for entry in script.log if entry != "GET None"]
    assert order == ["POST initialize", "POST notifications/initialized",
                     "202 notifications/initialized", "POST tools/list", "DELETE None"]


def test_stdin_eof_before_anything_sends_nothing(user_config: Path, tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)], stdin="")
    assert (result.code, result.out, result.err) == (0, "", "")
    assert script.seen == []


def test_bad_lines_are_answered_and_the_bridge_goes_on(user_config: Path,
                                                       tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        configure(user_config, url)
        stdin = "not json\n[]\n" + json.dumps({"id": 5, "method": "x"}) + "\n\n" + \
            json.dumps({"jsonrpc": "2.0", "id": {"k": 1}, "method": "ping"}) + "\n" + \
            json.dumps(INITIALIZE) + "\n"
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)], stdin=stdin)
    lines = [json.loads(line) for line in result.out.splitlines()]
    assert lines[:4] == [
        {"jsonrpc": "2.0", "id": None,
         "error": {"code": -32700, "message": "mcpctl bridge: the message is not JSON"}},
        {"jsonrpc": "2.0", "id": None,
         "error": {"code": -32600, "message": "mcpctl bridge: not a JSON-RPC message"}},
        {"jsonrpc": "2.0", "id": 5,
         "error": {"code": -32600, "message": "mcpctl bridge: not a JSON-RPC message"}},
        {"jsonrpc": "2.0", "id": None, "error": {  # never sent on: the id cannot be answered
            "code": -32600, "message": "mcpctl bridge: a request id must be a string or integer"}},
    ]
    assert lines[4]["result"]["protocolVersion"] == "2025-11-25"
    assert (len(lines), result.code, result.err) == (5, 0, "")
    assert [seen.method for seen in script.seen] == ["POST", "DELETE"]


# --- secrets ---------------------------------------------------------------------------


def _files_holding(root: Path, secret: str) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file() and not path.is_symlink()
            and secret.encode() in path.read_bytes()]


@pytest.mark.usefixtures("secret_service")
def test_header_secret_from_the_keyring_reaches_the_server_only(
        user_config: Path, tmp_path: Path) -> None:
    secret = f"tok-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    name = f"remote-{uuid.uuid4().hex[:8]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=secret + "\n").code == 0
    script = Script(token=secret)
    with scripted_server(script) as url:
        configure(user_config, url, f'Authorization = "Bearer ${{secret:{name}}}"')
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)],
                            stdin=json.dumps(INITIALIZE) + "\n")
    assert json.loads(result.out)["result"]["serverInfo"]["name"] == "scripted"
    assert (result.code, result.err) == (0, "")
    assert [seen.headers.get("authorization") for seen in script.seen] == [
        f"Bearer {secret}", f"Bearer {secret}"]  # the POST and the closing DELETE
    assert _files_holding(tmp_path, secret) == []


@pytest.mark.usefixtures("secret_service")
def test_a_server_echoing_the_rejected_token_does_not_make_the_bridge_print_it(
        user_config: Path, tmp_path: Path) -> None:
    """The 401 body quotes the Authorization header it got; the bridge quotes the body
    in its error. Unredacted, the token would reach the client's log."""
    secret = f"tok-{uuid.uuid4().hex}{uuid.uuid4().hex}"
    name = f"remote-{uuid.uuid4().hex[:8]}"
    assert run_mcpctl(["secret", "set", name, "--stdin"], stdin=secret + "\n").code == 0
    script = Script(token="the-right-one")
    with scripted_server(script) as url:
        configure(user_config, url, f'Authorization = "Bearer ${{secret:{name}}}"')
        bridge = Bridged(tmp_path)
        bridge.send(INITIALIZE)
        answer = bridge.receive()
        code, err = bridge.finish()
    assert [seen.headers.get("authorization") for seen in script.seen] == [f"Bearer {secret}"]
    assert code == 6
    assert err.count("\n") == 1
    assert err.startswith("mcpctl: error: server 'remote': server refused the request: "
                          "HTTP 401: invalid credentials: Bearer ")
    assert answer["error"]["code"] == -32000
    assert secret not in err
    assert secret not in b"".join(bridge.out).decode()
    assert secret[:12] not in err  # masked whole, not cut after a prefix


# --- refusals --------------------------------------------------------------------------


@pytest.mark.parametrize(("script", "message"), [
    (Script(token="needed"), "server refused the request: HTTP 401: invalid credentials:"),
    (Script(status=404), "server refused the request: HTTP 404: no such endpoint"),
    (Script(status=307), "server redirected to https://elsewhere.example/mcp; put that url "
                         "in the config"),
])
def test_a_refused_server_ends_the_bridge_with_exit_6(
        script: Script, message: str, user_config: Path, tmp_path: Path) -> None:
    with scripted_server(script) as url:
        configure(user_config, url)
        bridge = Bridged(tmp_path)
        bridge.send(INITIALIZE)
        answer = bridge.receive()
        code, err = bridge.end_alone(20)
    assert (code, err) == (6, f"mcpctl: error: server 'remote': {message}\n")
    assert answer == {"jsonrpc": "2.0", "id": 1,
                      "error": {"code": -32000, "message": f"mcpctl bridge: {message}"}}


def test_nothing_listening_exits_6(user_config: Path, tmp_path: Path) -> None:
    with refusing_port() as port:
        configure(user_config, f"http://127.0.0.1:{port}/mcp")
        result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)],
                            stdin=json.dumps(INITIALIZE) + "\n")
    assert result.code == 6
    assert result.err.startswith("mcpctl: error: server 'remote': cannot reach the server: ")
    assert result.err.count("\n") == 1


def test_plain_http_to_a_remote_host_is_refused_before_connecting(
        user_config: Path, tmp_path: Path) -> None:
    configure(user_config, "http://mcp.example.com/mcp")
    result = run_mcpctl(["run", "remote", "--workspace", str(tmp_path)],
                        stdin=json.dumps(INITIALIZE) + "\n")
    assert (result.code, result.out) == (6, "")
    assert result.err == (
        "mcpctl: error: server 'remote': refusing plain http to mcp.example.com: only "
        "loopback hosts may be reached without TLS (allow insecure to override)\n")


def test_an_untrusted_workspace_remote_is_never_contacted(tmp_path: Path) -> None:
    script = Script()
    with scripted_server(script) as url:
        root = tmp_path / "repo"
        (root / ".git").mkdir(parents=True)
        (root / ".mcp.json").write_text(json.dumps(
            {"mcpServers": {"remote": {"type": "http", "url": url}}}))
        refused = run_mcpctl(["run", "remote", "--workspace", str(root)],
                             stdin=json.dumps(INITIALIZE) + "\n")
        seen_before_trust = list(script.seen)
        assert run_mcpctl(["trust", "remote", "--yes", "--workspace", str(root)]).code == 0
        admitted = run_mcpctl(["run", "remote", "--workspace", str(root)],
                              stdin=json.dumps(INITIALIZE) + "\n")
    assert (refused.code, refused.out, seen_before_trust) == (4, "", [])
    assert "server 'remote' is untrusted" in refused.err
    assert (admitted.code, admitted.err) == (0, "")
    assert json.loads(admitted.out)["result"]["serverInfo"]["name"] == "scripted"


# --- pure pieces -----------------------------------------------------------------------


@pytest.mark.parametrize(("value", "encoded"), [  # 2026-07-28 "Value Encoding" table
    ("us-west1", "us-west1"),
    ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
    (" padded ", "=?base64?IHBhZGRlZCA=?="),
    ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
    ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
])
def test_header_values_are_encoded_as_the_spec_says(value: str, encoded: str) -> None:
    assert encode_header_value(value) == encoded


def test_request_metadata_headers_follow_the_body() -> None:
    message = {"jsonrpc": "2.0", "id": 1, "method": "resources/read",
               "params": {"uri": "file:///a b/ü", "_meta": MODERN}}
    assert message_headers(message, version="2025-11-25", session_id=None) == {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2026-07-28",
        "Mcp-Method": "resources/read",
        "Mcp-Name": "=?base64?ZmlsZTovLy9hIGIvw7w=?=",
    }
    assert message_headers(None, version="2025-11-25", session_id="s") == {
        "Accept": "application/json, text/event-stream",
        "MCP-Protocol-Version": "2025-11-25", "Mcp-Session-Id": "s"}


def test_annotated_paths_follow_properties_only() -> None:
    schema = {"type": "object", "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "where": {"type": "object", "properties": {
            "zone": {"type": "integer", "x-mcp-header": "Zone"}}},
        "x-mcp-header": {"type": "string"},  # a property named so, not an annotation
    }}
    assert annotated_paths(schema) == {("region",): "Region", ("where", "zone"): "Zone"}
    arguments = {"region": "eu", "where": {"zone": 7}}
    assert mirrored(annotated_paths(schema), arguments) == {
        "Mcp-Param-Region": "eu", "Mcp-Param-Zone": "7"}
    assert mirrored(annotated_paths(schema), {"region": None, "where": 3}) == {}
    assert mirrored({("on",): "On"}, {"on": True}) == {"Mcp-Param-On": "true"}
    # JSON's safe integers only: past them a number has no one text (the structural
    # `param_headers.py:24`, the bound widened, mirrored 2**53).
    assert mirrored({("n",): "N"}, {"n": -(2**53 - 1)}) == {"Mcp-Param-N": "-9007199254740991"}
    assert mirrored({("n",): "N"}, {"n": 2**53}) == {}
    assert mirrored({("n",): "N"}, {"n": 1.5}) == {}  # `:110`: mirrored as it was
    # A schema that is not an object (`true`, or text holding the keyword's name) has no
    # annotation (`:40`: read as one, a TypeError).
    assert annotated_paths({"properties": {"a": True, "b": "x-mcp-header"}}) == {}


@pytest.mark.parametrize(("schema", "reason"), [
    ({"properties": {"a": {"type": "number", "x-mcp-header": "A"}}}, "not a string"),
    ({"properties": {"a": {"type": "string", "x-mcp-header": ""}}}, "not an HTTP header"),
    ({"properties": {"a": {"type": "string", "x-mcp-header": "A b"}}}, "not an HTTP header"),
    ({"properties": {"a": {"type": "string", "x-mcp-header": "Id"},
                     "b": {"type": "string", "x-mcp-header": "ID"}}}, "used twice"),
    ({"properties": {"a": {"type": "array", "items": {
        "type": "string", "x-mcp-header": "A"}}}}, "reached through"),
    ({"anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]},
     "reached through"),
    # Only `properties` itself holds names (`param_headers.py:77`: compared by 8
    # characters, `propertiesX` did too and its annotation went uncounted).
    ({"propertiesX": {"x-mcp-header": "A"}}, "reached through"),
])
def test_invalid_annotations_are_refused(schema: dict[str, Any], reason: str) -> None:
    with pytest.raises(InvalidAnnotation, match=reason):
        annotated_paths(schema)
