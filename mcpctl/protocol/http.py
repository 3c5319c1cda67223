"""Streamable HTTP, both revisions (2025-11-25 basic/transports; 2026-07-28
basic/transports/streamable-http): every message is its own POST, answered by JSON or
by an event stream scoped to that request.

The handshake style keeps the `Mcp-Session-Id` the server assigns and sends the
negotiated `MCP-Protocol-Version`; the stateless style sends the version from each
request's `_meta` and the method in `Mcp-Method`. The url, header and error rules
(plain http only to loopback, no redirect followed, no library error text quoted when
config headers were sent) live in `http_wire`, shared with the stdio bridge. Every
request's future is settled whatever goes wrong, and the requests a server sends
inside a stream are answered one at a time under a cap.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Coroutine, Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from mcpctl.credentials.redact import redact_prefix
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.http_wire import (
    HttpRefused,
    check_headers,
    check_url,
    content_kind,
    describe,
    events,
    is_loopback,
    message_headers,
    origin,
    read_all,
    refusal,
    skip_httpx_cli,
    tls_verify,
)
from mcpctl.protocol.jsonrpc import Json, NotJsonRpc, RequestHandler, RpcError
from mcpctl.protocol.process import LIMITS, Limits
from mcpctl.protocol.session import ChannelError

if TYPE_CHECKING:
    import httpx

# Re-exported: the url rules are asked of this module by its callers and tests.
__all__ = ["HttpChannel", "HttpRefused", "SseChannel", "check_url", "is_loopback"]
_CLOSE_TIMEOUT = 1.0
_QUOTE_CHARS = 80
# Requests a server may send us inside its replies (roots/list, ping): each answer is a
# POST of its own, so a flood would be a flood of connections.
MAX_SERVER_REQUESTS = 256  # per connection, in all
MAX_WAITING_ANSWERS = 32  # received, not yet answered
class HttpChannel:
    """A `session.Channel` to one MCP endpoint."""

    def __init__(
        self, url: str, headers: Mapping[str, str], timeout: float, handle: RequestHandler,
        *, allow_insecure: bool = False, limits: Limits = LIMITS, secrets: Sequence[str] = (),
    ) -> None:
        check_url(url, allow_insecure=allow_insecure)
        check_headers(headers)
        skip_httpx_cli()
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
            headers=dict(headers), timeout=httpx.Timeout(timeout), follow_redirects=False,
            verify=tls_verify(url),
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
        return describe(error, quote=self._quote_errors)

    def _headers(self, message: Json | None) -> dict[str, str]:
        return message_headers(message, version=self.protocol_version,
                               session_id=self.session_id)

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
            kind = content_kind(reply)
            if kind == "text/event-stream":
                await self._read_events(reply, future)
            elif kind == "application/json":
                self._receive(await read_all(reply, self._limits.max_total_bytes))
            else:
                raise ChannelError(f"unexpected content type {kind!r} from the server")

    async def _refusal(self, reply: httpx.Response) -> Exception:
        return await refusal(reply, self._secrets)

    async def _read_events(
        self, reply: httpx.Response, future: asyncio.Future[Json] | None
    ) -> None:
        async for _, text in events(reply, self._limits):
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
            async for kind, text in events(reply, self._limits):
                if kind == "endpoint":
                    self._set_endpoint(text.strip())
                else:
                    self._receive(text.encode())

    def _set_endpoint(self, reference: str) -> None:
        endpoint = urljoin(self._url, reference)
        if origin(endpoint) != origin(self._url):
            # Our headers may carry secrets: they go to the origin the user named only.
            raise ChannelError(f"server named a message endpoint on another origin: {endpoint}")
        if not self._endpoint.done():
            self._endpoint.set_result(endpoint)


def _settle(future: asyncio.Future[Json], error: BaseException) -> None:
    if not future.done():
        future.set_exception(error)


def _seen(task: asyncio.Task[None]) -> None:
    """Mark a background task's error as retrieved (its waiters were told already)."""
    if not task.cancelled():
        task.exception()
