"""The stdio bridge over the deprecated HTTP+SSE transport (2024-11-05; 2026-07-28
streamable-http "HTTP+SSE Transport"): one GET stream, opened at start, names the POST
endpoint in an `endpoint` event (same origin only: the config's headers may carry
secrets), then carries every message the server sends; a POST only says 202."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any
from urllib.parse import urljoin

from mcpctl.protocol.bridge_io import ClientGone
from mcpctl.protocol.bridge_relay import Bridge, Fatal, Id, Remote, http_text, text_of
from mcpctl.protocol.http_wire import describe, events, origin, refusal
from mcpctl.protocol.jsonrpc import Json
from mcpctl.protocol.session import ChannelError

if TYPE_CHECKING:
    import httpx


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
        except (Fatal, ChannelError) as error:
            self._end(str(error))
        except httpx.HTTPError as error:
            self._end(describe(error, quote=not self._remote.headers))
        except ClientGone:
            self._end(None)

    async def _check_stream(self, reply: httpx.Response) -> None:
        if reply.status_code >= 300:
            error = await refusal(reply, self._remote.secrets)
            shown = text_of(error) if reply.status_code < 400 \
                else http_text(reply.status_code, error)
            raise Fatal(f"cannot open the event stream: {shown}")

    def _set_endpoint(self, reference: str) -> None:
        endpoint = urljoin(self._remote.url, reference)
        if origin(endpoint) != origin(self._remote.url):
            # Our headers may carry secrets: they go to the origin the user named only.
            raise Fatal(f"server named a message endpoint on another origin: {endpoint}")
        self._endpoint = endpoint

    async def _post(self, message: Json, body: bytes, request_id: Id | None) -> None:
        headers = {**self._headers(message), "Content-Type": "application/json"}
        async with self._client.stream("POST", self._endpoint, content=body,
                                       headers=headers) as reply:
            if reply.status_code >= 300:
                await self._refused(reply, request_id)
