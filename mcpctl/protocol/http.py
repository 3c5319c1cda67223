"""Streamable HTTP, both revisions (2025-11-25 basic/transports; 2026-07-28
basic/transports/streamable-http): every message is its own POST, answered by JSON or
by an event stream scoped to that request.

The handshake style keeps the `Mcp-Session-Id` the server assigns and sends the
negotiated `MCP-Protocol-Version`; the stateless style sends the version from each
request's `_meta` and the method in `Mcp-Method`. Plain http is refused for hosts
other than loopback unless the caller allows it: config headers carry resolved
secrets. Redirects are not followed for the same reason, and the HTTP library's own
error text is never quoted for a request that carried config headers (it may quote a
header value). Every request's future is settled whatever goes wrong, and the requests
a server sends inside a stream are answered one at a time under a cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import re
import time
from collections import deque
from collections.abc import AsyncIterator, Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin, urlsplit

from mcpctl.credentials.redact import redact_prefix
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.jsonrpc import Json, NotJsonRpc, RequestHandler, RpcError
from mcpctl.protocol.process import LIMITS, Limits
from mcpctl.protocol.session import ChannelError

if TYPE_CHECKING:
    import httpx

_ERROR_BODY_BYTES = 64 * 1024
_CLOSE_TIMEOUT = 1.0
_QUOTE_CHARS = 80
# Requests a server may send us inside its replies (roots/list, ping): each answer is a
# POST of its own, so a flood would be a flood of connections.
MAX_SERVER_REQUESTS = 256  # per connection, in all
MAX_WAITING_ANSWERS = 32  # received, not yet answered
# RFC 9110 §5.1 token, and §5.5 field value as ASCII (httpx sends ASCII only): no line
# break or control character, no space at either end.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\t\x20-\x7e]*[\x21-\x7e])?)?")


class HttpRefused(RpcError):
    """An HTTP error status without a JSON-RPC error body."""

    def __init__(self, status: int, body: str, secrets: Sequence[str] = ()) -> None:
        snippet = redact_prefix(" ".join(body.split()), secrets, 120)
        super().__init__(0, f"HTTP {status}" + (f": {snippet}" if snippet else ""))
        self.status = status


def check_url(url: str, *, allow_insecure: bool) -> None:
    try:
        parts = urlsplit(url)
        hostname, _ = parts.hostname, parts.port
    except ValueError as error:  # "Invalid IPv6 URL", "Port out of range 0-65535"
        raise ChannelError(f"not a valid url: {url} ({error})") from None
    if parts.scheme not in ("http", "https") or not hostname:
        raise ChannelError(f"not an http(s) url: {url}")
    if parts.scheme == "http" and not allow_insecure and not is_loopback(hostname):
        raise ChannelError(
            f"refusing plain http to {hostname}: only loopback hosts may be reached "
            "without TLS (allow insecure to override)"
        )


def check_headers(headers: Mapping[str, str]) -> None:
    """Refuse what HTTP cannot carry before the library sees it: its error would quote
    the value, which may hold a resolved secret (a token with a trailing newline)."""
    for name, value in headers.items():
        if not _HEADER_NAME.fullmatch(name):
            raise ChannelError(f"header name {name!r} is not valid in HTTP")
        if not _HEADER_VALUE.fullmatch(value):
            raise ChannelError(
                f"header {name!r} has a value HTTP cannot carry (a line break, a control or "
                "non-ASCII character, or a space at either end); check the config and any "
                "secret or variable it uses"
            )


def is_loopback(host: str) -> bool:
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class HttpChannel:
    """A `session.Channel` to one MCP endpoint."""

    def __init__(
        self, url: str, headers: Mapping[str, str], timeout: float, handle: RequestHandler,
        *, allow_insecure: bool = False, limits: Limits = LIMITS, secrets: Sequence[str] = (),
    ) -> None:
        check_url(url, allow_insecure=allow_insecure)
        check_headers(headers)
        import httpx  # noqa: PLC0415 - only probing remote servers pays for it

        self._url = url
        self._timeout = timeout
        self._limits = limits
        self._secrets = tuple(secrets)
        self._quote_errors = not headers  # see the module doc
        self._answers: deque[Json] = deque()
        self._answering: asyncio.Task[None] | None = None
        self._server_requests = 0
        self._client = httpx.AsyncClient(
            headers=dict(headers), timeout=httpx.Timeout(timeout), follow_redirects=False
        )
        self._dispatcher = jsonrpc.Dispatcher(self._send_reply, handle)
        self._tasks: set[asyncio.Task[None]] = set()
        self.session_id: str | None = None
        self.protocol_version: str | None = None
        self.opened_at = time.monotonic()
        self.first_answer_at: float | None = None

    def start(self, method: str, params: Json | None) -> asyncio.Future[Json]:
        message, future = self._dispatcher.open(method, params)
        task = self._spawn(self._post(message, future))
        future.add_done_callback(lambda done: task.cancel() if done.cancelled() else None)
        return future

    async def notify(self, method: str, params: Json | None = None) -> None:
        try:
            await self._exchange(jsonrpc.notification(method, params))
        except RpcError as error:
            raise ChannelError(f"server refused {method}: {error.message}") from None
        except ChannelError:
            raise
        except Exception as error:  # noqa: BLE001 - any failure is the connection's
            raise ChannelError(self._describe(error)) from None

    def stderr_tail(self) -> tuple[str, ...]:
        return ()

    def stderr_head(self) -> tuple[str, ...]:
        return ()

    async def aclose(self) -> None:
        self.abort()
        if self.session_id is not None:
            # 2025-11-25 "Session Management": a client that is done SHOULD end it.
            with contextlib.suppress(Exception):
                await self._client.delete(
                    self._url, headers=self._headers(None), timeout=_CLOSE_TIMEOUT
                )
        await self._client.aclose()

    def abort(self) -> None:
        for task in self._tasks:
            task.cancel()
        self._dispatcher.fail_all(ChannelError("the connection was closed"))

    def _spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        task = asyncio.get_running_loop().create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        task.add_done_callback(_seen)
        return task

    async def _post(self, message: Json, future: asyncio.Future[Json]) -> None:
        # Whatever happens, the future is settled: an unsettled one would be waited
        # for until the timeout, and its task's error printed by asyncio at exit.
        try:
            await self._exchange(message, future)
        except (RpcError, ChannelError) as error:
            _settle(future, error)
        except Exception as error:  # noqa: BLE001 - see above
            _settle(future, ChannelError(self._describe(error)))
        else:
            _settle(future, ChannelError(
                f"server ended its reply to {message.get('method')} without an answer"
            ))

    def _send_reply(self, reply: Json) -> None:
        # Handshake-era servers ask (roots/list, ping) on the response stream and
        # take our answer as a POST of its own (2025-11-25 basic/transports). One task
        # posts the answers in order; a server that asks too much fails the connection.
        self._server_requests += 1
        if self._server_requests > MAX_SERVER_REQUESTS:
            raise self._overwhelmed(
                f"server sent more than {MAX_SERVER_REQUESTS} requests of its own; stopped")
        if len(self._answers) >= MAX_WAITING_ANSWERS:
            raise self._overwhelmed(
                f"server sent more than {MAX_WAITING_ANSWERS} requests of its own at once; "
                "stopped")
        self._answers.append(reply)
        if self._answering is None or self._answering.done():
            self._answering = self._spawn(self._answer_all())

    def _overwhelmed(self, message: str) -> ChannelError:
        failure = ChannelError(message)
        self._dispatcher.fail_all(failure)
        return failure

    async def _answer_all(self) -> None:
        while self._answers:
            reply = self._answers.popleft()
            with contextlib.suppress(Exception):
                await self._exchange(reply)

    def _describe(self, error: Exception) -> str:
        return _describe(error, quote=self._quote_errors)

    def _headers(self, message: Json | None) -> dict[str, str]:
        headers = {"Accept": "application/json, text/event-stream"}
        version = _meta_version(message) or self.protocol_version
        if version:
            headers["MCP-Protocol-Version"] = version
        if message and isinstance(message.get("method"), str):
            headers["Mcp-Method"] = message["method"]
        if self.session_id is not None:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    async def _exchange(self, message: Json, future: asyncio.Future[Json] | None = None) -> None:
        headers = {**self._headers(message), "Content-Type": "application/json"}
        body = jsonrpc.encode(message)
        async with self._client.stream("POST", self._url, content=body, headers=headers) as reply:
            if message.get("method") == "initialize" and "mcp-session-id" in reply.headers:
                self.session_id = reply.headers["mcp-session-id"]
            if reply.status_code == 202 or (future is None and reply.status_code < 300):
                return
            if reply.status_code >= 300:
                raise await self._refusal(reply)
            kind = reply.headers.get("content-type", "").split(";")[0].strip().lower()
            if kind == "text/event-stream":
                await self._read_events(reply, future)
            elif kind == "application/json":
                self._receive(await _read_all(reply, self._limits.max_total_bytes))
            else:
                raise ChannelError(f"unexpected content type {kind!r} from the server")

    async def _refusal(self, reply: httpx.Response) -> Exception:
        if 300 <= reply.status_code < 400:
            where = reply.headers.get("location", "elsewhere")
            return ChannelError(f"server redirected to {where}; put that url in the config")
        body = await _read_all(reply, _ERROR_BODY_BYTES, truncate=True)
        with contextlib.suppress(NotJsonRpc):
            for answer in jsonrpc.decode(body):
                if isinstance(answer, jsonrpc.Response) and answer.error is not None:
                    return answer.error
        return HttpRefused(reply.status_code, body.decode("utf-8", errors="replace"),
                           self._secrets)

    async def _read_events(
        self, reply: httpx.Response, future: asyncio.Future[Json] | None
    ) -> None:
        async for _, text in _events(reply, self._limits):
            self._receive(text.encode())
            if future is not None and future.done():
                return  # our answer came; the rest of the stream is not needed

    def _receive(self, body: bytes) -> None:
        try:
            messages = jsonrpc.decode(body)
        except NotJsonRpc as error:
            shown = redact_prefix(error.text, self._secrets, _QUOTE_CHARS)
            raise ChannelError(f"server sent something that is not JSON-RPC: {shown!r}") from None
        if self.first_answer_at is None:
            self.first_answer_at = time.monotonic()
        self._dispatcher.receive(messages)


class SseChannel(HttpChannel):
    """The deprecated HTTP+SSE transport (2024-11-05; 2026-07-28 streamable-http
    "HTTP+SSE Transport"): one GET stream names a POST endpoint in an `endpoint` event
    and then carries every reply as a `message` event."""

    def __init__(
        self, url: str, headers: Mapping[str, str], timeout: float, handle: RequestHandler,
        *, allow_insecure: bool = False, limits: Limits = LIMITS, secrets: Sequence[str] = (),
    ) -> None:
        super().__init__(url, headers, timeout, handle, allow_insecure=allow_insecure,
                         limits=limits, secrets=secrets)
        self._endpoint: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self._endpoint.add_done_callback(lambda done: done.cancelled() or done.exception())
        self._spawn(self._listen())

    async def _exchange(self, message: Json, future: asyncio.Future[Json] | None = None) -> None:
        endpoint = await self._endpoint
        headers = {**self._headers(message), "Content-Type": "application/json"}
        body = jsonrpc.encode(message)
        async with self._client.stream("POST", endpoint, content=body, headers=headers) as reply:
            if reply.status_code >= 300:
                raise await self._refusal(reply)
        if future is not None:
            await asyncio.wait({future})  # the answer comes on the event stream

    async def _listen(self) -> None:
        failure: ChannelError
        try:
            await self._read_stream()
            failure = ChannelError("server closed its event stream")
        except RpcError as error:
            failure = ChannelError(f"cannot open the event stream: {error.message}")
        except ChannelError as error:
            failure = error
        except Exception as error:  # noqa: BLE001 - every waiter must learn why
            failure = ChannelError(self._describe(error))
        if not self._endpoint.done():
            self._endpoint.set_exception(failure)
        self._dispatcher.fail_all(failure)

    async def _read_stream(self) -> None:
        import httpx  # noqa: PLC0415 - already imported by the channel itself

        # The stream may rightly be quiet for long: no read timeout; the session's
        # deadlines bound every wait.
        timeout = httpx.Timeout(self._timeout, read=None)
        async with self._client.stream("GET", self._url, timeout=timeout,
                                       headers={"Accept": "text/event-stream"}) as reply:
            if reply.status_code >= 300:
                raise await self._refusal(reply)
            async for kind, text in _events(reply, self._limits):
                if kind == "endpoint":
                    self._set_endpoint(text.strip())
                else:
                    self._receive(text.encode())

    def _set_endpoint(self, reference: str) -> None:
        endpoint = urljoin(self._url, reference)
        if _origin(endpoint) != _origin(self._url):
            # Our headers may carry secrets: they go to the origin the user named only.
            raise ChannelError(f"server named a message endpoint on another origin: {endpoint}")
        if not self._endpoint.done():
            self._endpoint.set_result(endpoint)


def _meta_version(message: Json | None) -> str | None:
    """The version a modern request names in `_meta`; the header must repeat it."""
    params = message.get("params") if message else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(
        meta, dict) else None
    return version if isinstance(version, str) else None


def _origin(url: str) -> tuple[str, str | None, int | None]:
    parts = urlsplit(url)
    return parts.scheme, parts.hostname, parts.port


async def _events(reply: httpx.Response, limits: Limits) -> AsyncIterator[tuple[str, str]]:
    """Server-sent events as (type, data); events without data (a stream's priming
    id, keep-alive comments) carry nothing and are skipped."""
    kind, data = "", []
    async for line in _lines(reply, limits):
        if line:
            field, _, value = line.partition(":")
            if field == "data":
                data.append(value.removeprefix(" "))
            elif field == "event":
                kind = value.removeprefix(" ")
            continue
        text = "\n".join(data)
        if text.strip():
            yield kind or "message", text
        kind, data = "", []


def _settle(future: asyncio.Future[Json], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _seen(task: asyncio.Task[None]) -> None:
    """Mark a background task's error as retrieved (its waiters were told already)."""
    if not task.cancelled():
        task.exception()


async def _read_all(reply: httpx.Response, cap: int, *, truncate: bool = False) -> bytes:
    body = bytearray()
    async for chunk in reply.aiter_bytes():
        body += chunk
        if len(body) > cap:
            if truncate:
                return bytes(body[:cap])
            raise ChannelError(f"server sent more than {cap} bytes in one reply")
    return bytes(body)


async def _lines(reply: httpx.Response, limits: Limits) -> AsyncIterator[str]:
    """Event-stream lines (any of CRLF, LF, CR ends one), each and all of them capped."""
    pending = bytearray()
    total = 0
    async for chunk in reply.aiter_bytes():
        total += len(chunk)
        if total > limits.max_total_bytes:
            raise ChannelError(f"server sent more than {limits.max_total_bytes} bytes in one reply")
        pending += chunk
        if b"\n" in chunk or b"\r" in chunk:
            # A CR at the very end may be the first half of a CRLF: hold it back.
            held = b"\r" if pending.endswith(b"\r") else b""
            text = bytes(pending[: len(pending) - len(held)])
            *lines, rest = text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            pending = bytearray(rest + held)
            for line in lines:
                yield line.decode("utf-8", errors="replace")
        if len(pending) > limits.max_line_bytes:
            cap = limits.max_line_bytes
            raise ChannelError(f"line longer than {cap} bytes in the event stream")
    if pending:
        yield pending.decode("utf-8", errors="replace")
    yield ""


def _describe(error: Exception, *, quote: bool) -> str:
    """One line for a failed request; the library's text only when `quote` (no config
    headers were sent): httpx quotes header values in some errors."""
    kind = type(error).__name__
    text = (str(error) or kind) if quote else (
        f"{kind} (the error text is not shown: it may quote a header value)")
    if "Timeout" in kind:
        return f"timed out talking to the server ({text})"
    return f"cannot reach the server: {text}"
