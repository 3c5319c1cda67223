"""The MCP conversation: find the server's era, then list every tool.

Era detection follows 2026-07-28 basic/versioning and basic/transports/stdio
"Backward Compatibility": probe with `server/discover`; a result or a recognised
modern error means the stateless revision; any other error, or silence, means the
`initialize` handshake. Silence is not waited out twice: when the probe has had half
the first-answer budget, `initialize` is sent behind it on the same connection and
whichever era answers first wins, so a server that never answers fails after exactly
one timeout. A connection the probe spoiled (the server refuses the handshake with
-32022 after locking itself modern, or stops after answering the probe) is replaced
by a fresh one that hears only `initialize`.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Literal, Protocol
from urllib.parse import unquote, urlparse

from mcpctl import __version__
from mcpctl.protocol import jsonrpc
from mcpctl.protocol.jsonrpc import Json, Request, RpcError

MODERN_VERSIONS = ("2026-07-28",)  # newest first
LEGACY_VERSION = "2025-11-25"  # newest handshake version; offered in `initialize`
OLDEST_VERSION = "2024-11-05"
CLIENT_INFO = {"name": "mcpctl", "version": __version__}
MAX_PAGES = 200
MAX_INPUT_ROUNDS = 3
_META = "io.modelcontextprotocol/"
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")

Style = Literal["discover", "initialize"]


class ChannelError(Exception):
    """The connection failed; the message is a one-line diagnosis.

    `closed` marks a connection that ended after the server answered something,
    which a fresh connection may cure (see the module doc).
    """

    def __init__(self, message: str, *, closed: bool = False) -> None:
        super().__init__(message)
        self.closed = closed


class ProtocolError(Exception):
    """The server answered, but not in a way mcpctl can use; one-line diagnosis."""


class Channel(Protocol):
    opened_at: float
    first_answer_at: float | None
    protocol_version: str | None

    def start(self, method: str, params: Json | None) -> asyncio.Future[Json]: ...

    async def notify(self, method: str, params: Json | None = None) -> None: ...

    def stderr_tail(self) -> tuple[str, ...]: ...

    def stderr_head(self) -> tuple[str, ...]: ...

    async def aclose(self) -> None: ...

    def abort(self) -> None: ...


@dataclass(frozen=True)
class Options:
    timeout: float
    capabilities: frozenset[str]
    roots: tuple[str, ...]


@dataclass
class Handshake:
    style: Style
    protocol_version: str
    server_info: Json = field(default_factory=dict)
    capabilities: Json = field(default_factory=dict)
    instructions: str | None = None


class Respawn(Exception):
    """The connection is spoiled for the handshake; open a fresh one for `initialize`."""


# --- what we declare and answer --------------------------------------------------------


# Elicitation declared empty means form mode only (2025-11-25 client/elicitation);
# mcpctl declares both modes so a server shows every tool it has for such clients.
_CAPABILITY_SHAPES: dict[str, Json] = {"elicitation": {"form": {}, "url": {}}}


def client_capabilities(names: frozenset[str]) -> Json:
    return {name: _CAPABILITY_SHAPES.get(name, {}) for name in sorted(names)}


def request_handler(options: Options) -> Callable[[Request], Json]:
    """Answer what a server may ask during a listing (2025-11-25 client/roots, ping)."""

    def handle(request: Request) -> Json:
        if request.method == "ping":
            return jsonrpc.result_reply(request.id, {})
        if request.method == "roots/list" and "roots" in options.capabilities:
            return jsonrpc.result_reply(request.id, roots_result(options.roots))
        return jsonrpc.error_reply(
            request.id, jsonrpc.METHOD_NOT_FOUND, f"mcpctl does not support {request.method}"
        )

    return handle


def roots_result(uris: tuple[str, ...]) -> Json:
    roots = []
    for uri in uris:
        name = PurePosixPath(unquote(urlparse(uri).path)).name
        roots.append({"uri": uri, "name": name} if name else {"uri": uri})
    return {"roots": roots}


def _meta(version: str, options: Options) -> Json:
    """The per-request `_meta` every modern request carries (2026-07-28 schema.ts)."""
    return {
        f"{_META}protocolVersion": version,
        f"{_META}clientInfo": CLIENT_INFO,
        f"{_META}clientCapabilities": client_capabilities(options.capabilities),
    }


def _initialize_params(options: Options) -> Json:
    return {
        "protocolVersion": LEGACY_VERSION,
        "capabilities": client_capabilities(options.capabilities),
        "clientInfo": CLIENT_INFO,
    }


# --- waiting ---------------------------------------------------------------------------


async def _await(future: asyncio.Future[Json], deadline: float) -> Json:
    """The future's result; TimeoutError once `deadline` (monotonic) passes."""
    remaining = deadline - time.monotonic()
    done, _ = await asyncio.wait({future}, timeout=max(remaining, 0))
    if not done:
        raise TimeoutError
    return future.result()


async def _first(futures: list[asyncio.Future[Json]], deadline: float) -> None:
    pending = [f for f in futures if not f.done()]
    if pending and len(pending) == len(futures):
        remaining = max(deadline - time.monotonic(), 0)
        done, _ = await asyncio.wait(pending, timeout=remaining, return_when="FIRST_COMPLETED")
        if not done:
            raise TimeoutError


# --- era detection ---------------------------------------------------------------------


def _modern_version(result: Json) -> str | None:
    offered = result.get("supportedVersions")
    offered = offered if isinstance(offered, list) else []
    return next((v for v in MODERN_VERSIONS if v in offered), None)


def _modern_handshake(version: str, result: Json) -> Handshake:
    meta = result.get("_meta")
    info = meta.get(f"{_META}serverInfo") if isinstance(meta, dict) else None
    capabilities = result.get("capabilities")
    instructions = result.get("instructions")
    return Handshake(
        "discover", version, info if isinstance(info, dict) else {},
        capabilities if isinstance(capabilities, dict) else {},
        instructions if isinstance(instructions, str) else None,
    )


def _discover_verdict(future: asyncio.Future[Json]) -> Handshake | None:
    """A modern handshake, or None when the server is to be treated as legacy."""
    error = future.exception()
    if error is None:
        result = future.result()
        version = _modern_version(result)
        # A discover answer naming no modern version is a legacy advertisement.
        return _modern_handshake(version, result) if version else None
    if isinstance(error, RpcError):
        if error.code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION:
            _check_legacy_listed(error)
            return None  # it also lists a handshake version: use that
        if error.code in jsonrpc.MODERN_ERROR_CODES:
            raise ProtocolError(f"server refused server/discover: {error.message}")
        return None
    raise error


def _check_legacy_listed(error: RpcError) -> None:
    """-32022: a modern server, usable only if it also lists a handshake version."""
    data = error.data if isinstance(error.data, dict) else {}
    supported = data.get("supported")
    supported = [v for v in supported if isinstance(v, str)] if isinstance(supported, list) else []
    if not any(_legacy_ok(v) for v in supported):
        raise ProtocolError(
            f"server speaks protocol versions {', '.join(supported) or '(none listed)'}; "
            f"mcpctl speaks {', '.join(MODERN_VERSIONS)} and {OLDEST_VERSION} to {LEGACY_VERSION}"
        )


def _legacy_ok(version: str) -> bool:
    return bool(_DATE.match(version)) and OLDEST_VERSION <= version < MODERN_VERSIONS[-1]


async def negotiate(channel: Channel, options: Options) -> Handshake:
    """Find the era on `channel`; raises Respawn when a fresh connection is needed."""
    first_deadline = channel.opened_at + options.timeout
    discover = channel.start("server/discover", {"_meta": _meta(MODERN_VERSIONS[0], options)})
    try:
        await _await(discover, channel.opened_at + options.timeout / 2)
    except TimeoutError:
        # Silence so far: `initialize` goes behind the probe; the first era to answer wins.
        return await _handshake_race(channel, options, first_deadline, discover)
    except ChannelError as error:
        raise Respawn if error.closed and channel.first_answer_at else error from None
    except RpcError:
        pass
    verdict = _discover_verdict(discover)
    if verdict is not None:
        return verdict
    deadline = max(first_deadline, time.monotonic() + options.timeout)
    return await _handshake_race(channel, options, deadline, None)


async def _handshake_race(
    channel: Channel, options: Options, deadline: float,
    discover: asyncio.Future[Json] | None,
) -> Handshake:
    init: asyncio.Future[Json] | None = channel.start("initialize", _initialize_params(options))
    while True:
        await _first([f for f in (discover, init) if f is not None], deadline)
        if discover is not None and discover.done():
            verdict = _settled_discover(discover)
            if verdict is not None:
                if init is not None:
                    init.cancel()
                return verdict
            discover = None  # not modern after all
        if init is not None and init.done():
            if not _locked_modern(init.exception()) or discover is None:
                return await _handshake(channel, init)
            init = None  # -32022 while the probe is pending: its answer decides
        if discover is None and init is None:
            raise Respawn  # locked modern, yet no usable modern version


def _locked_modern(error: BaseException | None) -> bool:
    return isinstance(error, RpcError) and error.code == jsonrpc.UNSUPPORTED_PROTOCOL_VERSION


def _settled_discover(discover: asyncio.Future[Json]) -> Handshake | None:
    if discover.cancelled() or isinstance(discover.exception(), ChannelError):
        return None
    return _discover_verdict(discover)


async def _handshake(channel: Channel, init: asyncio.Future[Json]) -> Handshake:
    error = init.exception()
    if _locked_modern(error):
        raise Respawn  # the probe locked this connection modern; the server is not
    if isinstance(error, ChannelError) and error.closed and channel.first_answer_at:
        raise Respawn
    if error is not None:
        raise _refused("initialize", error)
    return await _legacy_handshake(channel, init.result())


async def legacy_only(channel: Channel, options: Options) -> Handshake:
    """The handshake alone, on a fresh connection (no probe before it)."""
    init = channel.start("initialize", _initialize_params(options))
    try:
        result = await _await(init, channel.opened_at + options.timeout)
    except RpcError as error:
        raise _refused("initialize", error) from None
    return await _legacy_handshake(channel, result)


async def _legacy_handshake(channel: Channel, result: Json) -> Handshake:
    version = result.get("protocolVersion")
    if not isinstance(version, str) or not _legacy_ok(version):
        raise ProtocolError(
            f"server answered initialize with protocol version {version!r}; "
            f"mcpctl speaks {OLDEST_VERSION} to {LEGACY_VERSION}"
        )
    channel.protocol_version = version
    # 2025-11-25 basic/lifecycle: the client MUST confirm before normal operation.
    await channel.notify("notifications/initialized")
    info = result.get("serverInfo")
    capabilities = result.get("capabilities")
    instructions = result.get("instructions")
    return Handshake(
        "initialize", version, info if isinstance(info, dict) else {},
        capabilities if isinstance(capabilities, dict) else {},
        instructions if isinstance(instructions, str) else None,
    )


def _refused(method: str, error: BaseException) -> Exception:
    if isinstance(error, RpcError):
        code = f" ({error.code})" if error.code else ""
        return ProtocolError(f"server refused {method}: {error.message}{code}")
    return error if isinstance(error, Exception) else ProtocolError(str(error))


# --- tools/list ------------------------------------------------------------------------


async def list_tools(channel: Channel, handshake: Handshake, options: Options) -> list[Json]:
    """Every tool, following `nextCursor` (an empty string is a cursor: 2026-07-28
    server/utilities/pagination) for at most MAX_PAGES pages."""
    tools: list[Json] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        params: Json = {} if cursor is None else {"cursor": cursor}
        result = await _tools_page(channel, handshake, options, params)
        page = result.get("tools")
        if not isinstance(page, list) or not all(isinstance(t, dict) for t in page):
            raise ProtocolError("tools/list result has no list of tool objects")
        for tool in page:
            check_strict_json(tool, _tool_label(tool, len(tools)))
            tools.append(tool)
        next_cursor = result.get("nextCursor")
        if next_cursor is None:
            return tools
        if not isinstance(next_cursor, str):
            raise ProtocolError(f"tools/list returned a non-string nextCursor {next_cursor!r}")
        cursor = next_cursor
    raise ProtocolError(f"tools/list still had more pages after {MAX_PAGES}; stopped")


def check_strict_json(value: object, what: str) -> None:
    """ProtocolError unless `value` is strict JSON in UTF-8, which is what mcpctl counts,
    caches and prints: Python's parser also takes NaN and Infinity, and a lone
    surrogate escape (`"\\ud800"`) that no UTF-8 text can hold."""
    try:
        json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ProtocolError(f"{what} holds a lone surrogate escape (such as \\ud800) that "
                            "is not valid Unicode text") from None
    except ValueError:
        raise ProtocolError(f"{what} holds NaN or Infinity, which JSON does not allow") from None
    except RecursionError:
        raise ProtocolError(f"{what} is nested too deeply") from None


def _tool_label(tool: Json, index: int) -> str:
    name = tool.get("name")
    named = isinstance(name, str) and name.isprintable() and len(name) <= 64
    return f"tools/list: tool {index + 1}" + (f" {name!r}" if named else "")


async def _tools_page(
    channel: Channel, handshake: Handshake, options: Options, params: Json
) -> Json:
    if handshake.style == "initialize":
        return await _call(channel, "tools/list", params or None, options)
    for _ in range(MAX_INPUT_ROUNDS):
        result = await _call(
            channel, "tools/list",
            {**params, "_meta": _meta(handshake.protocol_version, options)}, options,
        )
        if result.get("resultType", "complete") != "input_required":
            return result
        params = {**params, **_input_responses(result, options)}
    raise ProtocolError(f"server still wanted input after {MAX_INPUT_ROUNDS} rounds")


def _input_responses(result: Json, options: Options) -> Json:
    """Answer a multi round-trip request (2026-07-28 basic/patterns/mrtr): roots only."""
    requests = result.get("inputRequests")
    responses: Json = {}
    for key, wanted in (requests if isinstance(requests, dict) else {}).items():
        method = wanted.get("method") if isinstance(wanted, dict) else None
        if method != "roots/list" or "roots" not in options.capabilities:
            raise ProtocolError(f"server needs {method} input to list its tools")
        responses[key] = roots_result(options.roots)
    retry: Json = {"inputResponses": responses}
    if isinstance(result.get("requestState"), str):
        retry["requestState"] = result["requestState"]
    return retry


async def _call(channel: Channel, method: str, params: Json | None, options: Options) -> Json:
    future = channel.start(method, params)
    try:
        return await _await(future, time.monotonic() + options.timeout)
    except TimeoutError:
        future.cancel()
        waited = f"{options.timeout:.1f} s waiting for {method}"
        raise TimeoutError(f"timed out after {waited}") from None
    except RpcError as error:
        raise _refused(method, error) from None

