"""What every HTTP conversation with an MCP server shares: the url and header rules,
the request metadata headers, reading capped bodies and event streams, and turning
refusals and library errors into one-line messages that never quote a secret.

Used by the probe's channels (`http.py`) and by the stdio bridge (`bridge.py`), so
each rule has one implementation. Plain http is refused for hosts other than loopback
unless the caller allows it: config headers carry resolved secrets. The HTTP library's
own error text is never quoted for a request that carried config headers (it may quote
a header value).
"""

from __future__ import annotations

import base64
import contextlib
import ipaddress
import re
import ssl
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from mcpctl.credentials.redact import redact_prefix
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.jsonrpc import Json, NotJsonRpc, RpcError
from mcpctl.protocol.process import Limits
from mcpctl.protocol.session import ChannelError

if TYPE_CHECKING:
    import httpx

ERROR_BODY_BYTES = 64 * 1024
ACCEPT = "application/json, text/event-stream"
# RFC 9110 §5.1 token, and §5.5 field value as ASCII (httpx sends ASCII only): no line
# break or control character, no space at either end.
_HEADER_NAME = re.compile(r"[!#$%&'*+.^_`|~0-9A-Za-z-]+")
_HEADER_VALUE = re.compile(r"(?:[\x21-\x7e](?:[\t\x20-\x7e]*[\x21-\x7e])?)?")
# 2026-07-28 streamable-http "Standard Request Headers": the params key `Mcp-Name` mirrors.
NAME_PARAMS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
_SENTINEL = re.compile(r"=\?base64\?.*\?=", re.DOTALL)


def skip_httpx_cli() -> None:
    """Call before the first `import httpx`. Its `__init__` imports `httpx._main`, the
    `httpx` command (click, rich, pygments: two thirds of its import time, measured)
    only to offer `httpx.main`, which mcpctl never calls, and falls back to a stub on
    ImportError; an empty module in its place gives that ImportError."""
    if "httpx" not in sys.modules:
        sys.modules.setdefault("httpx._main", ModuleType("httpx._main"))


def tls_verify(url: str) -> ssl.SSLContext | bool:
    """What httpx's `verify` gets. For a plain http url no TLS ever happens (redirects
    are not followed; an SSE endpoint keeps the origin), so it gets a context without
    the CA bundle, whose loading is most of a client's start (measured); one that
    were used anyway would verify against nothing and fail closed."""
    if urlsplit(url).scheme == "http":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return True


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
    """`localhost`, a loopback address, or a `*.localhost` name that resolves to loopback
    addresses only. Such a name is loopback by convention, not by every resolver: one
    that asks DNS for it gets whatever DNS answers (issue 23, item 8), so it is resolved
    here, before anything is sent, and refused unless every address is loopback."""
    if host == "localhost":
        return True
    if host.endswith(".localhost"):
        return _resolves_to_loopback(host)
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _resolves_to_loopback(host: str) -> bool:
    import socket  # noqa: PLC0415 - only for a `*.localhost` name

    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError):
        return False
    try:
        return bool(found) and all(
            ipaddress.ip_address(str(info[4][0]).partition("%")[0]).is_loopback
            for info in found)
    except ValueError:
        return False


def origin(url: str) -> tuple[str, str | None, int | None]:
    """(scheme, host, port); a port that is not a number (an `endpoint` event's, say)
    is -1, which is no origin mcpctl was given (issue 23, item 7)."""
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        port = -1
    return parts.scheme, parts.hostname, port


def message_headers(
    message: Json | None, *, version: str | None, session_id: str | None
) -> dict[str, str]:
    """The headers one POST (or GET, for `None`) carries beside the config's: both
    revisions' request metadata, derived from the message itself."""
    headers = {"Accept": ACCEPT}
    version = meta_version(message) or version
    if version:
        headers["MCP-Protocol-Version"] = version
    method = message.get("method") if message else None
    if isinstance(method, str):
        headers["Mcp-Method"] = encode_header_value(method)
        params = message.get("params") if message else None
        name = params.get(NAME_PARAMS.get(method, "")) if isinstance(params, dict) else None
        if isinstance(name, str):
            headers["Mcp-Name"] = encode_header_value(name)
    if session_id is not None:
        headers["Mcp-Session-Id"] = session_id
    return headers


def encode_header_value(value: str) -> str:
    """2026-07-28 streamable-http "Value Encoding": a value HTTP cannot carry as plain
    ASCII, or one that looks like the sentinel itself, travels as `=?base64?…?=`."""
    if _HEADER_VALUE.fullmatch(value) and not _SENTINEL.fullmatch(value):
        return value
    return "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode() + "?="


def meta_version(message: Json | None) -> str | None:
    """The version a modern request names in `_meta`; the header must repeat it."""
    params = message.get("params") if message else None
    meta = params.get("_meta") if isinstance(params, dict) else None
    version = meta.get("io.modelcontextprotocol/protocolVersion") if isinstance(
        meta, dict) else None
    return version if isinstance(version, str) else None


def content_kind(reply: httpx.Response) -> str:
    kind: str = reply.headers.get("content-type", "")
    return kind.split(";", maxsplit=1)[0].strip().lower()


async def refusal(reply: httpx.Response, secrets: Sequence[str]) -> Exception:
    """The error an HTTP status of 300 or more means: a redirect (never followed: our
    headers may carry secrets), the JSON-RPC error in the body, or `HttpRefused`."""
    if 300 <= reply.status_code < 400:
        where = reply.headers.get("location", "elsewhere")
        return ChannelError(f"server redirected to {where}; put that url in the config")
    body = await read_all(reply, ERROR_BODY_BYTES, truncate=True)
    with contextlib.suppress(NotJsonRpc):
        for answer in jsonrpc.decode(body):
            if isinstance(answer, jsonrpc.Response) and answer.error is not None:
                return answer.error
    return HttpRefused(reply.status_code, body.decode("utf-8", errors="replace"), secrets)


async def read_all(reply: httpx.Response, cap: int, *, truncate: bool = False) -> bytes:
    body = bytearray()
    async for chunk in reply.aiter_bytes():
        body += chunk
        if len(body) > cap:
            if truncate:
                return bytes(body[:cap])
            raise ChannelError(f"server sent more than {cap} bytes in one reply")
    return bytes(body)


async def events(reply: httpx.Response, limits: Limits) -> AsyncIterator[tuple[str, str]]:
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


def describe(error: Exception, *, quote: bool) -> str:
    """One line for a failed request; the library's text only when `quote` (no config
    headers were sent): httpx quotes header values in some errors."""
    kind = type(error).__name__
    text = (str(error) or kind) if quote else (
        f"{kind} (the error text is not shown: it may quote a header value)")
    if "Timeout" in kind:
        return f"timed out talking to the server ({text})"
    return f"cannot reach the server: {text}"
