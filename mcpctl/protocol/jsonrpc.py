"""JSON-RPC 2.0 messages as MCP uses them: building, parsing, and routing replies.

Messages stay plain dicts parsed by `json`, so a tool definition reaches the token
counter with exactly the keys, order and values the server sent (DESIGN §6).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeGuard

JSONRPC = "2.0"

METHOD_NOT_FOUND = -32601
# Codes the 2026-07-28 revision defines (schema.ts "MCP error codes"); one of them in
# reply to `server/discover` marks a modern server (basic/versioning).
HEADER_MISMATCH = -32020
MISSING_CLIENT_CAPABILITY = -32021
UNSUPPORTED_PROTOCOL_VERSION = -32022
MODERN_ERROR_CODES = frozenset(
    {HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION}
)

Json = dict[str, Any]


class RpcError(Exception):
    """An error object the server sent in reply to one of our requests."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"{message} (JSON-RPC error {code})")
        self.code = code
        self.message = message
        self.data = data


class NotJsonRpc(ValueError):
    """A line or body that is not a JSON-RPC message; `text` is what was received."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


@dataclass(frozen=True)
class Response:
    id: int | str
    result: Json | None
    error: RpcError | None


@dataclass(frozen=True)
class Request:
    id: int | str
    method: str
    params: Json


@dataclass(frozen=True)
class Notification:
    method: str
    params: Json


Message = Response | Request | Notification


def request(request_id: int, method: str, params: Json | None) -> Json:
    message: Json = {"jsonrpc": JSONRPC, "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


def notification(method: str, params: Json | None = None) -> Json:
    message: Json = {"jsonrpc": JSONRPC, "method": method}
    if params is not None:
        message["params"] = params
    return message


def result_reply(request_id: int | str, result: Json) -> Json:
    return {"jsonrpc": JSONRPC, "id": request_id, "result": result}


def error_reply(request_id: int | str, code: int, message: str) -> Json:
    return {"jsonrpc": JSONRPC, "id": request_id, "error": {"code": code, "message": message}}


def encode(message: Json) -> bytes:
    """One message, one line: compact JSON never contains a raw newline (stdio framing)."""
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


def decode(data: bytes | str) -> list[Message]:
    """Parse one line or body: a message, or a batch (array) of them."""
    text = data.decode("utf-8", errors="replace") if isinstance(data, bytes) else data
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        raise NotJsonRpc(text) from None
    items = value if isinstance(value, list) else [value]
    if not items:
        raise NotJsonRpc(text)
    return [_message(item, text) for item in items]


def _message(item: Any, text: str) -> Message:
    if not isinstance(item, dict) or item.get("jsonrpc") != JSONRPC:
        raise NotJsonRpc(text)
    params = item.get("params")
    params = params if isinstance(params, dict) else {}
    method = item.get("method")
    request_id = item.get("id")
    if isinstance(method, str):
        if _is_id(request_id):
            return Request(request_id, method, params)
        return Notification(method, params)
    if "result" in item and _is_id(request_id):
        result = item["result"]
        return Response(request_id, result if isinstance(result, dict) else {}, None)
    if isinstance(item.get("error"), dict):
        # An error with a null id answers a request the server could not read.
        return Response(request_id if _is_id(request_id) else "", None, _error(item["error"]))
    raise NotJsonRpc(text)


def _is_id(value: Any) -> TypeGuard[int | str]:
    return isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool))


def _error(error: Json) -> RpcError:
    code = error.get("code")
    message = error.get("message")
    return RpcError(
        code if isinstance(code, int) else 0,
        message if isinstance(message, str) else "error without a message",
        error.get("data"),
    )


RequestHandler = Callable[[Request], Json]


class Dispatcher:
    """Numbers our requests and routes every incoming message.

    Replies resolve the future of the request they answer; requests from the server
    are answered through `send` with whatever `handle` returns; notifications
    (list changes, logging, progress) need no answer and are dropped.
    """

    def __init__(self, send: Callable[[Json], None], handle: RequestHandler) -> None:
        self._send = send
        self._handle = handle
        self._pending: dict[int | str, asyncio.Future[Json]] = {}
        self._next_id = 0
        self.answered = False

    def open(self, method: str, params: Json | None) -> tuple[Json, asyncio.Future[Json]]:
        self._next_id += 1
        request_id = self._next_id
        future: asyncio.Future[Json] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future

        def forget(done: asyncio.Future[Json]) -> None:
            self._pending.pop(request_id, None)
            # Mark the outcome as seen: a request the session abandoned (a discover
            # probe overtaken by `initialize`) must not log "exception never retrieved".
            if not done.cancelled():
                done.exception()

        future.add_done_callback(forget)
        return request(request_id, method, params), future

    def receive(self, messages: list[Message]) -> None:
        self.answered = True
        for message in messages:
            if isinstance(message, Response):
                self._resolve(message)
            elif isinstance(message, Request):
                self._send(self._handle(message))

    def _resolve(self, response: Response) -> None:
        future = self._pending.get(response.id)
        if future is None and response.error is not None and len(self._pending) == 1:
            # A null-id error can only be about the one request in flight.
            future = next(iter(self._pending.values()))
        if future is None or future.done():
            return  # a late reply to a request we gave up on
        if response.error is not None:
            future.set_exception(response.error)
        else:
            future.set_result(response.result or {})

    def fail_all(self, error: BaseException) -> None:
        for future in list(self._pending.values()):
            if not future.done():
                future.set_exception(error)
