"""stdio to Streamable HTTP: `mcpctl run NAME` for a remote server (issue 12 item 6).

A client that can only start stdio servers starts `mcpctl run NAME`; each JSON-RPC
message it writes on stdin (one per line) becomes a POST to the server, and every
message the server returns — a JSON body, or each event of the stream scoped to that
request, server-to-client requests and notifications included — is written to stdout
as one line. The client's answers to server requests are POSTed like anything else.
The bridge does not speak MCP itself: it mirrors each message's metadata into the
headers both revisions want (2025-11-25 `Mcp-Session-Id` and `MCP-Protocol-Version`
learnt from the handshake passing through; 2026-07-28 `MCP-Protocol-Version` from
`_meta`, `Mcp-Method`, `Mcp-Name`, and `Mcp-Param-*` for the tool parameters a
`tools/list` answer annotated with `x-mcp-header`, whose invalid tools it leaves out
of that answer as a client on HTTP must), opens the 2025-11-25 GET stream once the
session is initialized, and ends the session with DELETE when stdin closes. A server of the
deprecated HTTP+SSE transport (`type = "sse"`) is bridged the same way over its event
stream and POST endpoint (`SseBridge`).

Bounds: a stdin line and each reply are capped (`process.Limits`); connecting, writing
and waiting for a pooled connection are timed out; at most `MAX_IN_FLIGHT` POSTs run
at once (a request past it is answered with an error at once, never queued, so a
server waiting for the client's answer cannot deadlock it). How long a request may
run is the client's to bound, as with a stdio server: its cancellation closes that
request's stream, closing stdin ends everything after `EOF_GRACE`, and SIGTERM or
SIGHUP at once (the session is still ended).

A refusal no later message can cure (a redirect, 401/403, 404 for the endpoint or the
session, nothing listening) ends the bridge: the request gets a JSON-RPC error, stderr
one line, and the process exit 6. Every line the bridge writes itself is redacted with
the values the launch substituted, and the HTTP library's error text is never quoted
(the config's headers were sent; see `http_wire`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard
from urllib.parse import urljoin

from mcpctl.credentials.redact import redact_prefix
from mcpctl.errors import ExitCode, McpctlError, ServerFailed
from mcpctl.launch import Launch
from mcpctl.model import Transport
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.http_wire import (
    HttpRefused,
    check_headers,
    check_url,
    content_kind,
    describe,
    events,
    message_headers,
    origin,
    read_all,
    refusal,
    skip_httpx_cli,
    tls_verify,
)
from mcpctl.protocol.jsonrpc import Json, RpcError
from mcpctl.protocol.param_headers import InvalidAnnotation, Path, annotated_paths, mirrored
from mcpctl.protocol.process import LIMITS, Limits
from mcpctl.protocol.session import ChannelError

if TYPE_CHECKING:
    import httpx

DEFAULT_TIMEOUT = 30.0
MAX_IN_FLIGHT = 256
EOF_GRACE = 5.0  # for requests still running when stdin closes
CLOSE_TIMEOUT = 1.0  # for the DELETE that ends a session
DRAIN_SECONDS = 1.0  # for a stream to end after its answer
TRANSPORT_ERROR = -32000  # implementation-defined server error (JSON-RPC 2.0 §5.1)
INVALID_REQUEST = -32600
PARSE_ERROR = -32700
_QUOTE_CHARS = 200
_READ_CHUNK = 64 * 1024
_VERSION = re.compile(r"[\x21-\x7e]{1,64}")

Id = int | str


@dataclass(frozen=True)
class Remote:
    """A remote server ready to bridge: url and headers resolved, trust checked."""

    name: str
    url: str
    headers: Mapping[str, str]
    transport: Transport = Transport.HTTP
    timeout: float = DEFAULT_TIMEOUT  # connect, write, pool: never a reply (module doc)
    secrets: tuple[str, ...] = ()  # values no line of ours may show
    allow_insecure: bool = False
    limits: Limits = LIMITS


def remote_of(launch: Launch, secrets: tuple[str, ...], *, allow_insecure: bool) -> Remote:
    return Remote(launch.name, launch.url or "", dict(launch.headers), launch.transport,
                  launch.timeout or DEFAULT_TIMEOUT, secrets, allow_insecure)


def serve(remote: Remote, stdin_fd: int = 0, stdout_fd: int = 1) -> None:
    """Bridge until stdin closes; raises ServerFailed (exit 6) for a fatal refusal."""
    try:
        check_url(remote.url, allow_insecure=remote.allow_insecure)
        check_headers(remote.headers)
    except ChannelError as error:
        raise ServerFailed(f"server {remote.name!r}: {error}") from None
    failure, signum = asyncio.run(_serve(remote, stdin_fd, stdout_fd))
    if failure is not None:
        raise ServerFailed(f"server {remote.name!r}: {failure}")
    if signum is not None:
        raise BridgeStopped(signum)


class BridgeStopped(McpctlError):
    """SIGTERM or SIGHUP: the session was ended at once; exit 128 + the signal."""

    def __init__(self, signum: int) -> None:
        name = signal.Signals(signum).name
        super().__init__(f"stopped by {name}; the server's session was ended")
        self.exit_code = ExitCode.TERMINATED if name == "SIGTERM" else ExitCode.HANGUP


async def _serve(remote: Remote, stdin_fd: int, stdout_fd: int
                 ) -> tuple[str | None, int | None]:
    skip_httpx_cli()
    import httpx  # noqa: PLC0415 - only a remote server's bridge pays for it

    timeout = httpx.Timeout(remote.timeout, read=None)
    pool = httpx.Limits(max_connections=MAX_IN_FLIGHT + 1, max_keepalive_connections=16)
    async with httpx.AsyncClient(headers=dict(remote.headers), timeout=timeout, limits=pool,
                                 follow_redirects=False,
                                 verify=tls_verify(remote.url)) as client:
        kind = SseBridge if remote.transport is Transport.SSE else Bridge
        bridge = kind(remote, client, _writer(stdout_fd))
        lines: asyncio.Queue[bytes | None] = asyncio.Queue()
        _start_reader(stdin_fd, lines, remote.limits.max_line_bytes)
        _stop_on_signals(bridge)
        try:
            return await bridge.run(lines), bridge.stopped_by
        finally:
            await bridge.close()


def _stop_on_signals(bridge: Bridge) -> None:
    """A client that stops its server with SIGTERM (2026-07-28 transports/stdio
    "Shutdown") still gets its session ended; a signal set to be ignored stays so."""
    loop = asyncio.get_running_loop()
    for name in ("SIGTERM", "SIGHUP"):
        signum = getattr(signal, name, None)
        if signum is None or signal.getsignal(signum) is signal.SIG_IGN:
            continue
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(signum, bridge.stop, signum)


class _Fatal(Exception):
    """A refusal no later message can cure; the message is the one-line diagnosis."""


class ClientGone(Exception):
    """stdout is closed: nobody is left to answer."""


TOO_LONG = b"\0too-long"  # a stdin line past the cap; never valid JSON, so never a message


class Bridge:
    """One client's stdin and stdout, one Streamable HTTP endpoint."""

    ANSWERS_IN_REPLY = True  # each request's answer comes in its POST's reply

    def __init__(self, remote: Remote, client: httpx.AsyncClient,
                 write: Callable[[bytes], None]) -> None:
        self._remote = remote
        self._client = client
        self._write = write
        self._methods: dict[Id, str] = {}  # the client's requests not yet answered
        self._tool_params: dict[str, dict[Path, str]] = {}  # from tools/list: x-mcp-header
        self._posts: dict[Id, asyncio.Task[None]] = {}
        self._outgoing: set[asyncio.Task[None]] = set()  # notifications and answers
        self._tasks: set[asyncio.Task[None]] = set()
        self._ended: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._settled = asyncio.Event()  # set whenever a request is answered or given up
        # Open except while an `initialize` is in flight: what follows it needs the
        # session and version its answer brings, even from a client that does not wait.
        self._handshaken = asyncio.Event()
        self._handshaken.set()
        self._listening = False
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.stopped_by: int | None = None

    async def run(self, lines: asyncio.Queue[bytes | None]) -> str | None:
        """Forward every line until stdin closes or a fatal refusal; returns the latter."""
        loop = asyncio.get_running_loop()
        reading = loop.create_task(self._forward_all(lines))
        first: set[asyncio.Future[Any]] = {reading, self._ended}
        await asyncio.wait(first, return_when=asyncio.FIRST_COMPLETED)
        # stdin closed: the answers already asked for may still come, for a while, and
        # the client's last notifications and answers still go out.
        deadline = loop.time() + EOF_GRACE
        while self._busy() and loop.time() < deadline:
            self._settled.clear()
            settled = loop.create_task(self._settled.wait())
            waiting: set[asyncio.Future[Any]] = {settled, self._ended}
            await asyncio.wait(waiting, timeout=deadline - loop.time(),
                               return_when=asyncio.FIRST_COMPLETED)
            settled.cancel()
        reading.cancel()
        if reading.done() and not reading.cancelled() and reading.exception() is not None:
            raise reading.exception()  # type: ignore[misc] # an mcpctl bug: the handler logs it
        return self._ended.result() if self._ended.done() else None

    def stop(self, signum: int) -> None:
        self.stopped_by = signum
        self._end(None)

    def _busy(self) -> bool:
        return bool(self._methods or self._outgoing) and not self._ended.done()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=CLOSE_TIMEOUT)
        if self.session_id is not None:
            # 2025-11-25 "Session Management": a client that is done SHOULD end it.
            with contextlib.suppress(Exception):
                await self._client.delete(self._remote.url, headers=self._headers(None),
                                          timeout=CLOSE_TIMEOUT)

    async def _forward_all(self, lines: asyncio.Queue[bytes | None]) -> None:
        while (line := await lines.get()) is not None:
            self.forward(line)

    def forward(self, line: bytes) -> None:
        """One line from the client: each message in it goes to the server."""
        try:
            value = json.loads(line)
        except (ValueError, RecursionError):
            shown = "longer than the line cap" if line == TOO_LONG else "not JSON"
            self._answer_error(None, PARSE_ERROR, f"the message is {shown}")
            return
        if isinstance(value, dict):
            self._send(value, line)
        elif isinstance(value, list) and value:
            for item in value:  # a batch: each message its own POST (2025-11-25 has none)
                self._send(item, jsonrpc.encode(item) if isinstance(item, dict) else b"")
        else:
            self._answer_error(None, INVALID_REQUEST, "not a JSON-RPC message")

    def _send(self, message: Any, body: bytes) -> None:
        if not _is_message(message):
            self._answer_error(_id_of(message), INVALID_REQUEST, "not a JSON-RPC message")
            return
        method = message.get("method")
        request_id = message.get("id") if isinstance(method, str) else None
        if isinstance(method, str) and "id" in message and not _is_id(request_id):
            self._answer_error(None, INVALID_REQUEST, "a request id must be a string or integer")
            return
        if len(self._tasks) >= MAX_IN_FLIGHT:
            if _is_id(request_id):
                self._answer_error(request_id, TRANSPORT_ERROR,
                                   f"more than {MAX_IN_FLIGHT} messages in flight; try again")
            else:
                self._warn(f"more than {MAX_IN_FLIGHT} messages in flight; one was dropped")
            return
        if method == "notifications/cancelled":
            self._cancel(message.get("params"))
        if _is_id(request_id) and isinstance(method, str):
            if method == "initialize":
                self._handshaken.clear()
            self._methods[request_id] = method
            task = self._spawn(self._request(message, body, request_id))
            self._posts[request_id] = task
            task.add_done_callback(lambda _: self._posts.pop(request_id, None))
        else:
            task = self._spawn(self._other(message, body))
            self._outgoing.add(task)
            task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._outgoing.discard(task)
        self._settled.set()

    def _cancel(self, params: Any) -> None:
        """Closing a request's stream is the 2026-07-28 cancellation; the notification
        itself is still sent, as 2025-11-25 wants."""
        target = params.get("requestId") if isinstance(params, dict) else None
        task = self._posts.get(target) if _is_id(target) else None
        if task is not None:
            task.cancel()

    async def _request(self, message: Json, body: bytes, request_id: Id) -> None:
        try:
            await self._exchange(message, body, request_id)
        except _Fatal as fatal:
            self._answer_error(request_id, TRANSPORT_ERROR, str(fatal))
            self._end(str(fatal))
        except (ChannelError, RpcError) as error:
            self._answer_error(request_id, TRANSPORT_ERROR, _text(error))
        except ClientGone:
            self._end(None)
        except asyncio.CancelledError:
            self._forget(request_id)
            raise
        else:
            if not self.ANSWERS_IN_REPLY:
                return  # the answer comes on the event stream
            if request_id in self._methods:
                self._answer_error(request_id, TRANSPORT_ERROR, "the server ended its reply to "
                                   f"{message['method']} without an answer")
        self._forget(request_id)

    def _forget(self, request_id: Id) -> None:
        if self._methods.pop(request_id, None) == "initialize":
            self._handshaken.set()
        self._settled.set()

    async def _other(self, message: Json, body: bytes) -> None:
        """A notification or an answer to a server request: 202 is all that comes back."""
        try:
            await self._exchange(message, body, None)
        except _Fatal as fatal:
            self._end(str(fatal))
        except (ChannelError, RpcError) as error:
            what = message.get("method") or "an answer to a server request"
            self._warn(f"server did not accept {what}: {_text(error)}")
        except ClientGone:
            self._end(None)
        else:
            if message.get("method") == "notifications/initialized" and not self._listening:
                self._listening = True
                self._spawn(self._listen())

    async def _exchange(self, message: Json, body: bytes, request_id: Id | None) -> None:
        """POST one message; relay what comes back. Library errors become one line."""
        import httpx  # noqa: PLC0415 - already imported by `_serve`

        quote = not self._remote.headers  # see `http_wire.describe`
        try:
            await self._post(message, body, request_id)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise _Fatal(describe(error, quote=quote)) from None
        except httpx.HTTPError as error:
            raise ChannelError(describe(error, quote=quote)) from None

    async def _post(self, message: Json, body: bytes, request_id: Id | None) -> None:
        if message.get("method") != "initialize":
            await self._handshaken.wait()
        headers = {**self._headers(message), "Content-Type": "application/json"}
        url = self._remote.url
        async with self._client.stream("POST", url, content=body, headers=headers) as reply:
            if message.get("method") == "initialize" and "mcp-session-id" in reply.headers:
                self.session_id = reply.headers["mcp-session-id"]
            if reply.status_code >= 300:
                await self._refused(reply, request_id)
            elif request_id is not None and reply.status_code != 202:
                await self._relay_reply(reply, request_id)

    async def _relay_reply(self, reply: httpx.Response, request_id: Id) -> None:
        kind = content_kind(reply)
        if kind == "text/event-stream":
            stream = events(reply, self._remote.limits)
            async for _, text in stream:
                self._relay(text.encode(), request_id)
                if request_id not in self._methods:
                    break
            else:
                return
            # Answered (the client has it): the stream SHOULD end now (2026-07-28). Read
            # it to its end, so the connection goes back to the pool instead of being
            # closed (a new connection per call cost 15-20 ms, measured), but not for long.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(DRAIN_SECONDS):
                    async for _, text in stream:
                        self._relay(text.encode(), None)
        elif kind == "application/json":
            self._relay(await read_all(reply, self._remote.limits.max_total_bytes), request_id)
        else:
            raise ChannelError(f"unexpected content type {kind!r} from the server")

    async def _refused(self, reply: httpx.Response, request_id: Id | None) -> None:
        status = reply.status_code
        error = await refusal(reply, self._remote.secrets)
        if 300 <= status < 400 or status in (401, 403):
            raise _Fatal(_text(error) if status < 400 else f"server refused the request: "
                         f"{_http_text(status, error)}")
        if status == 404 and self.session_id is not None:
            raise _Fatal("server ended the session (HTTP 404); the client must start again")
        if isinstance(error, RpcError) and not isinstance(error, HttpRefused) \
                and request_id is not None:  # a JSON-RPC error body: the client's to read
            self._emit(_error_message(request_id, error))
            self._forget(request_id)
            return
        if status == 404:
            raise _Fatal(f"server refused the request: {_http_text(status, error)}")
        raise ChannelError(_http_text(status, error))

    async def _listen(self) -> None:
        """The 2025-11-25 GET stream, for what the server sends outside any request;
        405 (none offered, as every 2026-07-28 server) ends it quietly."""
        headers = {**self._headers(None), "Accept": "text/event-stream"}
        try:
            async with self._client.stream("GET", self._remote.url, headers=headers) as reply:
                if reply.status_code != 200 or content_kind(reply) != "text/event-stream":
                    return
                async for _, text in events(reply, self._remote.limits):
                    self._relay(text.encode(), None)
        except ClientGone:
            self._end(None)
        except Exception as error:  # noqa: BLE001 - the requests' own POSTs still work
            self._warn(f"the server's event stream ended: {_text(error)}")

    def _relay(self, body: bytes, request_id: Id | None) -> None:
        """Write each message of one body or event to stdout, one per line."""
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            value = None
        items = value if isinstance(value, list) and value else [value]
        if not all(_is_message(item) for item in items):
            shown = redact_prefix(body.decode("utf-8", "replace"), self._remote.secrets,
                                  _QUOTE_CHARS)
            raise ChannelError(f"server sent something that is not JSON-RPC: {shown!r}")
        patched = False
        for item in items:
            if _is_id(request_id) and item.get("id") is None and "error" in item:
                item["id"] = request_id  # a null-id error can only be about this request
                patched = True
            patched = self._observe(item) or patched
        if isinstance(value, dict) and not patched and b"\n" not in body and b"\r" not in body:
            self._write(body.strip() + b"\n")  # as the server sent it: no re-encoding
        else:
            for item in items:
                self._write(jsonrpc.encode(item))

    def _observe(self, message: Json) -> bool:
        """Learn from the answers passing through: the handshake's version, and which
        tool parameters go into headers. True when `message` was changed (a tool
        with invalid `x-mcp-header` annotations dropped from `tools/list`)."""
        request_id = message.get("id")
        if "method" in message or not _is_id(request_id):
            return False
        method = self._methods.pop(request_id, None)
        self._settled.set()
        result = message.get("result")
        if method == "initialize":
            self._handshaken.set()  # after the version below is learnt: same task
        if not isinstance(result, dict):
            return False
        if method == "initialize":
            version = result.get("protocolVersion")
            if isinstance(version, str) and _VERSION.fullmatch(version):
                self.protocol_version = version
        elif method == "tools/list" and isinstance(result.get("tools"), list):
            return self._learn_tools(result)
        return False

    def _learn_tools(self, result: Json) -> bool:
        kept = []
        for tool in result["tools"]:
            name = tool.get("name") if isinstance(tool, dict) else None
            try:
                paths = annotated_paths(tool.get("inputSchema")) if isinstance(tool, dict) else {}
            except InvalidAnnotation as invalid:
                self._warn(f"tool {name!r} left out of tools/list: {invalid}")
                continue
            if isinstance(name, str):
                self._tool_params[name] = paths
            kept.append(tool)
        changed = len(kept) != len(result["tools"])
        result["tools"] = kept
        return changed

    def _headers(self, message: Json | None) -> dict[str, str]:
        headers = message_headers(message, version=self.protocol_version,
                                  session_id=self.session_id)
        params = message.get("params") if message else None
        if message and message.get("method") == "tools/call" and isinstance(params, dict):
            paths = self._tool_params.get(params.get("name"))  # type: ignore[arg-type]
            headers.update(mirrored(paths or {}, params.get("arguments")))
        return headers

    def _emit(self, message: Json) -> None:
        try:
            self._write(jsonrpc.encode(message))
        except ClientGone:
            self._end(None)

    def _answer_error(self, request_id: Id | None, code: int, text: str) -> None:
        shown = redact_prefix(text, self._remote.secrets, _QUOTE_CHARS)
        self._emit({"jsonrpc": jsonrpc.JSONRPC, "id": request_id,
                    "error": {"code": code, "message": f"mcpctl bridge: {shown}"}})

    def _warn(self, text: str) -> None:
        shown = redact_prefix(text, self._remote.secrets, _QUOTE_CHARS)
        sys.stderr.write(f"mcpctl: warning: server {self._remote.name!r}: {shown}\n")
        sys.stderr.flush()

    def _end(self, failure: str | None) -> None:
        if not self._ended.done():
            shown = redact_prefix(failure, self._remote.secrets, _QUOTE_CHARS) \
                if failure is not None else None
            self._ended.set_result(shown)

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(self._crashed)
        return task

    def _crashed(self, task: asyncio.Task[None]) -> None:
        """Every expected failure is caught where it happens; anything else is an mcpctl
        bug, raised from `run` for the handler to log."""
        error = None if task.cancelled() else task.exception()
        if error is not None and not self._ended.done():
            self._ended.set_exception(error)


class SseBridge(Bridge):
    """The deprecated HTTP+SSE transport (2024-11-05; 2026-07-28 streamable-http
    "HTTP+SSE Transport"): one GET stream names the POST endpoint in an `endpoint`
    event, then carries every message the server sends; a POST only says 202."""

    ANSWERS_IN_REPLY = False

    def __init__(self, remote: Remote, client: httpx.AsyncClient,
                 write: Callable[[bytes], None]) -> None:
        super().__init__(remote, client, write)
        self._endpoint = ""
        self._listening = True  # the stream is opened at start, not after the handshake

    async def run(self, lines: asyncio.Queue[bytes | None]) -> str | None:
        named = asyncio.Event()
        self._spawn(self._stream(named))
        waiting: set[asyncio.Future[Any]] = {asyncio.ensure_future(named.wait()), self._ended}
        done, _ = await asyncio.wait(waiting, timeout=self._remote.timeout,
                                     return_when=asyncio.FIRST_COMPLETED)
        for future in waiting - {self._ended}:
            future.cancel()
        if self._ended.done():
            return self._ended.result()
        if not done:
            return f"no endpoint event on the event stream within {self._remote.timeout:g} s"
        return await super().run(lines)

    async def _stream(self, named: asyncio.Event) -> None:
        import httpx  # noqa: PLC0415 - already imported by `_serve`

        try:
            async with self._client.stream("GET", self._remote.url,
                                           headers={"Accept": "text/event-stream"}) as reply:
                await self._check_stream(reply)
                async for kind, text in events(reply, self._remote.limits):
                    if kind == "endpoint":
                        self._set_endpoint(text.strip())
                        named.set()
                    else:
                        self._relay(text.encode(), None)
            self._end("server closed its event stream")
        except (_Fatal, ChannelError) as error:
            self._end(str(error))
        except httpx.HTTPError as error:
            self._end(describe(error, quote=not self._remote.headers))
        except ClientGone:
            self._end(None)

    async def _check_stream(self, reply: httpx.Response) -> None:
        if reply.status_code >= 300:
            error = await refusal(reply, self._remote.secrets)
            shown = _text(error) if reply.status_code < 400 \
                else _http_text(reply.status_code, error)
            raise _Fatal(f"cannot open the event stream: {shown}")

    def _set_endpoint(self, reference: str) -> None:
        endpoint = urljoin(self._remote.url, reference)
        if origin(endpoint) != origin(self._remote.url):
            # Our headers may carry secrets: they go to the origin the user named only.
            raise _Fatal(f"server named a message endpoint on another origin: {endpoint}")
        self._endpoint = endpoint

    async def _post(self, message: Json, body: bytes, request_id: Id | None) -> None:
        headers = {**self._headers(message), "Content-Type": "application/json"}
        async with self._client.stream("POST", self._endpoint, content=body,
                                       headers=headers) as reply:
            if reply.status_code >= 300:
                await self._refused(reply, request_id)


def _is_id(value: Any) -> TypeGuard[Id]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_of(message: Any) -> Id | None:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if _is_id(request_id) else None


def _is_message(item: Any) -> TypeGuard[Json]:
    if not isinstance(item, dict) or item.get("jsonrpc") != jsonrpc.JSONRPC:
        return False
    return isinstance(item.get("method"), str) or "result" in item or "error" in item


def _error_message(request_id: Id, error: RpcError) -> Json:
    body: Json = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": jsonrpc.JSONRPC, "id": request_id, "error": body}


def _text(error: Exception) -> str:
    return error.message if isinstance(error, RpcError) else str(error)


def _http_text(status: int, error: Exception) -> str:
    text = _text(error)
    return text if isinstance(error, HttpRefused) else f"HTTP {status}: {text}"


def _writer(fd: int) -> Callable[[bytes], None]:
    """Whole lines to `fd`, blocking: a client that stops reading stalls its server,
    as with any stdio server. A closed pipe means the client left."""

    def write(data: bytes) -> None:
        view = memoryview(data)
        try:
            while view:
                view = view[os.write(fd, view):]
        except OSError:
            raise ClientGone from None

    return write


def _start_reader(fd: int, lines: asyncio.Queue[bytes | None], cap: int) -> None:
    """Read `fd` in a thread (works for pipes, terminals and files alike, and never
    holds a lock the interpreter needs at exit) and queue its lines; `None` is EOF."""
    loop = asyncio.get_running_loop()

    def put(item: bytes | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is gone: nobody listens
            loop.call_soon_threadsafe(lines.put_nowait, item)

    thread = threading.Thread(target=read_lines, args=(fd, put, cap), daemon=True)
    thread.start()


def read_lines(fd: int, put: Callable[[bytes | None], None], cap: int) -> None:
    """Split `fd` into lines, each scanned once; a line past `cap` becomes `TOO_LONG`
    and the rest of it is skipped."""
    pending = bytearray()
    skipping = False
    while True:
        try:
            chunk = os.read(fd, _READ_CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            break
        *done, rest = chunk.split(b"\n")
        for index, part in enumerate(done):
            line = bytes(pending) + part if index == 0 else part
            if index == 0:
                pending.clear()
                if skipping:
                    skipping = False
                    continue
            _put_line(line, put, cap)
        if not skipping:
            pending += rest
            if len(pending) > cap:
                put(TOO_LONG)
                skipping = True
                pending.clear()
    if pending and not skipping:
        _put_line(bytes(pending), put, cap)
    put(None)


def _put_line(line: bytes, put: Callable[[bytes | None], None], cap: int) -> None:
    line = line.rstrip(b"\r")
    if len(line) > cap:
        put(TOO_LONG)
    elif line.strip():
        put(line)
