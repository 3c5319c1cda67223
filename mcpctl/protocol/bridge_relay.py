"""The stdio bridge's relay for Streamable HTTP, both revisions: each client message a
POST, each message of the reply a line on stdout (see `bridge` for the whole picture).

It does not speak MCP: it derives each POST's metadata from the message (2025-11-25
`Mcp-Session-Id`, and `MCP-Protocol-Version` learnt from the handshake passing
through; 2026-07-28 `MCP-Protocol-Version` from `_meta`, `Mcp-Method`, `Mcp-Name`, and
`Mcp-Param-*` for the parameters a `tools/list` answer annotated with `x-mcp-header`,
whose invalid tools it leaves out of that answer, as a client on HTTP must). It opens
the 2025-11-25 GET stream once the session is initialized and ends the session with
DELETE when done.

Bounds: at most `MAX_IN_FLIGHT` POSTs at once (a request past it is answered with an
error at once, never queued, so a server waiting for the client's answer cannot
deadlock it). How long a request may run is the client's to bound, as with a stdio
server: its cancellation closes that request's stream, and closing stdin ends
everything after `EOF_GRACE`. A refusal no later message can cure (a redirect,
401/403, 404 for the endpoint or the session, nothing listening) ends the bridge
after answering the request with a JSON-RPC error. Every line written here is
redacted with the values the launch substituted.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import sys
from collections.abc import Callable, Coroutine, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

from mcpctl.credentials.redact import redact_prefix
from mcpctl.model import Transport
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.bridge_io import ClientGone
from mcpctl.protocol.http_wire import (
    HttpRefused,
    content_kind,
    describe,
    events,
    message_headers,
    read_all,
    refusal,
)
from mcpctl.protocol.jsonrpc import Json, RpcError
from mcpctl.protocol.lines import TOO_LONG
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
QUOTE_CHARS = 200
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


class Fatal(Exception):
    """A refusal no later message can cure; the message is the one-line diagnosis."""


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
        if not is_message(message):
            self._answer_error(_id_of(message), INVALID_REQUEST, "not a JSON-RPC message")
            return
        method = message.get("method")
        request_id = message.get("id") if isinstance(method, str) else None
        if isinstance(method, str) and "id" in message and not is_id(request_id):
            self._answer_error(None, INVALID_REQUEST, "a request id must be a string or integer")
            return
        if len(self._tasks) >= MAX_IN_FLIGHT:
            if is_id(request_id):
                self._answer_error(request_id, TRANSPORT_ERROR,
                                   f"more than {MAX_IN_FLIGHT} messages in flight; try again")
            else:
                self._warn(f"more than {MAX_IN_FLIGHT} messages in flight; one was dropped")
            return
        if method == "notifications/cancelled":
            self._cancel(message.get("params"))
        before = tuple(self._outgoing)
        if is_id(request_id) and isinstance(method, str):
            if method == "initialize":
                self._handshaken.clear()
            self._methods[request_id] = method
            task = self._spawn(self._request(message, body, request_id, before))
            self._posts[request_id] = task
            task.add_done_callback(lambda _: self._posts.pop(request_id, None))
        else:
            task = self._spawn(self._other(message, body, before))
            self._outgoing.add(task)
            task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._outgoing.discard(task)
        self._settled.set()

    def _cancel(self, params: Any) -> None:
        """Closing a request's stream is the 2026-07-28 cancellation; the notification
        itself is still sent, as 2025-11-25 wants."""
        target = params.get("requestId") if isinstance(params, dict) else None
        task = self._posts.get(target) if is_id(target) else None
        if task is not None:
            task.cancel()

    async def _request(self, message: Json, body: bytes, request_id: Id,
                       before: Sequence[asyncio.Task[None]]) -> None:
        try:
            await self._exchange(message, body, request_id, before)
        except Fatal as fatal:
            self._answer_error(request_id, TRANSPORT_ERROR, str(fatal))
            self._end(str(fatal))
        except (ChannelError, RpcError) as error:
            self._answer_error(request_id, TRANSPORT_ERROR, text_of(error))
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

    async def _other(self, message: Json, body: bytes,
                     before: Sequence[asyncio.Task[None]]) -> None:
        """A notification or an answer to a server request: 202 is all that comes back."""
        try:
            await self._exchange(message, body, None, before)
        except Fatal as fatal:
            self._end(str(fatal))
        except (ChannelError, RpcError) as error:
            what = message.get("method") or "an answer to a server request"
            self._warn(f"server did not accept {what}: {text_of(error)}")
        except ClientGone:
            self._end(None)
        else:
            if message.get("method") == "notifications/initialized" and not self._listening:
                self._listening = True
                self._spawn(self._listen())

    async def _exchange(self, message: Json, body: bytes, request_id: Id | None,
                        before: Sequence[asyncio.Task[None]]) -> None:
        """POST one message; relay what comes back. Library errors become one line."""
        import httpx  # noqa: PLC0415 - already imported by `_serve`

        if before:
            # The client's notifications and answers sent earlier are accepted first:
            # `notifications/initialized` must reach the server before `tools/list`
            # (POSTs in flight at once may arrive in any order). Not for long, though.
            await asyncio.wait(before, timeout=self._remote.timeout)
        quote = not self._remote.headers  # see `http_wire.describe`
        try:
            await self._post(message, body, request_id)
        except (httpx.ConnectError, httpx.ConnectTimeout) as error:
            raise Fatal(describe(error, quote=quote)) from None
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
            raise Fatal(text_of(error) if status < 400 else f"server refused the request: "
                         f"{http_text(status, error)}")
        if status == 404 and self.session_id is not None:
            raise Fatal("server ended the session (HTTP 404); the client must start again")
        if isinstance(error, RpcError) and not isinstance(error, HttpRefused) \
                and request_id is not None:  # a JSON-RPC error body: the client's to read
            self._emit(_error_message(request_id, error))
            self._forget(request_id)
            return
        if status == 404:
            raise Fatal(f"server refused the request: {http_text(status, error)}")
        raise ChannelError(http_text(status, error))

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
            self._warn(f"the server's event stream ended: {text_of(error)}")

    def _relay(self, body: bytes, request_id: Id | None) -> None:
        """Write each message of one body or event to stdout, one per line."""
        try:
            value = json.loads(body)
        except (ValueError, RecursionError):
            value = None
        items = value if isinstance(value, list) and value else [value]
        if not all(is_message(item) for item in items):
            shown = redact_prefix(body.decode("utf-8", "replace"), self._remote.secrets,
                                  QUOTE_CHARS)
            raise ChannelError(f"server sent something that is not JSON-RPC: {shown!r}")
        patched = False
        for item in items:
            if is_id(request_id) and item.get("id") is None and "error" in item:
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
        if "method" in message or not is_id(request_id):
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
        shown = redact_prefix(text, self._remote.secrets, QUOTE_CHARS)
        self._emit({"jsonrpc": jsonrpc.JSONRPC, "id": request_id,
                    "error": {"code": code, "message": f"mcpctl bridge: {shown}"}})

    def _warn(self, text: str) -> None:
        shown = redact_prefix(text, self._remote.secrets, QUOTE_CHARS)
        sys.stderr.write(f"mcpctl: warning: server {self._remote.name!r}: {shown}\n")
        sys.stderr.flush()

    def _end(self, failure: str | None) -> None:
        if not self._ended.done():
            shown = redact_prefix(failure, self._remote.secrets, QUOTE_CHARS) \
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


def is_id(value: Any) -> TypeGuard[Id]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _id_of(message: Any) -> Id | None:
    request_id = message.get("id") if isinstance(message, dict) else None
    return request_id if is_id(request_id) else None


def is_message(item: Any) -> TypeGuard[Json]:
    if not isinstance(item, dict) or item.get("jsonrpc") != jsonrpc.JSONRPC:
        return False
    return isinstance(item.get("method"), str) or "result" in item or "error" in item


def _error_message(request_id: Id, error: RpcError) -> Json:
    body: Json = {"code": error.code, "message": error.message}
    if error.data is not None:
        body["data"] = error.data
    return {"jsonrpc": jsonrpc.JSONRPC, "id": request_id, "error": body}


def text_of(error: Exception) -> str:
    return error.message if isinstance(error, RpcError) else str(error)


def http_text(status: int, error: Exception) -> str:
    text = text_of(error)
    return text if isinstance(error, HttpRefused) else f"HTTP {status}: {text}"

