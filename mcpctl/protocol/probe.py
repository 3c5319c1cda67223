"""Run a fully resolved server plan: speak MCP to it, list its tools, leave nothing behind.

The caller builds a `LaunchPlan` only for a server its trust gate approved, with
variables and secrets already substituted; this module never decides whether a
server may start.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpctl.credentials.redact import redact_prefix
from mcpctl.errors import ServerFailed
from mcpctl.model import Transport
from mcpctl.protocol.session import (
    Channel,
    ChannelError,
    Handshake,
    Options,
    ProtocolError,
    Respawn,
    Style,
    check_strict_json,
    legacy_only,
    list_tools,
    negotiate,
    request_handler,
)

DEFAULT_CAPABILITIES = frozenset({"roots"})
_DIAGNOSIS_CHARS = 1000  # a server's error message may be megabytes long


@dataclass(frozen=True)
class LaunchPlan:
    """A server ready to run: variables expanded, secrets substituted, trust checked."""

    name: str
    transport: Transport
    argv: tuple[str, ...] = ()  # stdio only
    env: Mapping[str, str] = field(default_factory=dict)  # the child's whole environment
    cwd: str | None = None
    url: str | None = None  # http and sse only
    headers: Mapping[str, str] = field(default_factory=dict)
    timeout: float = 30.0  # spawn (or connect) to first answer, and each request after
    roots: tuple[str, ...] = ()  # file:// URIs given to a server that asks roots/list
    # Values substituted from secrets and env vars: no diagnosis or stderr line shows them.
    secrets: tuple[str, ...] = ()


@dataclass(frozen=True)
class ProbeResult:
    name: str
    style: Style
    protocol_version: str
    server_info: Mapping[str, Any]
    capabilities: Mapping[str, Any]  # what the server declared
    client_capabilities: frozenset[str]  # what mcpctl declared
    tools: tuple[dict[str, Any], ...]  # as parsed from the wire, untouched
    first_answer: float  # seconds from spawn (or connect) to the first message
    elapsed: float
    stderr_tail: tuple[str, ...] = ()
    stderr_head: tuple[str, ...] = ()
    instructions: str | None = None


@dataclass(frozen=True)
class ProbeFailure:
    name: str
    diagnosis: str
    stderr_tail: tuple[str, ...]
    elapsed: float


class ProbeFailed(ServerFailed):
    def __init__(self, failure: ProbeFailure) -> None:
        super().__init__(f"{failure.name}: {failure.diagnosis}")
        self.failure = failure


async def probe(
    plan: LaunchPlan, *, capabilities: frozenset[str] = DEFAULT_CAPABILITIES,
    allow_insecure: bool = False,
) -> ProbeResult:
    """Probe one server; raises ProbeFailed. Cancelling it kills the server at once.

    Whatever goes wrong with this one server is its ProbeFailure, an mcpctl bug
    included, so probing many servers never loses the others' results.
    """
    options = Options(plan.timeout, capabilities, plan.roots)
    started = time.monotonic()
    channels: list[Channel] = []
    outcome: tuple[Handshake, list[dict[str, Any]]] | Exception
    try:
        outcome = await _converse(plan, options, allow_insecure, channels)
    except asyncio.CancelledError:
        await _abort(channels)
        raise
    except (ChannelError, ProtocolError, TimeoutError) as error:
        outcome = error
    except Exception as error:  # noqa: BLE001 - see the docstring
        outcome = _Unexpected(error, quote=not plan.headers)
    channel = channels[-1] if channels else None
    if channel is not None:
        await _close(channel)  # before reading stderr: it is drained until the pipe closes
    elapsed = time.monotonic() - started
    if isinstance(outcome, Exception) or channel is None:
        diagnosis = redact_prefix(_diagnosis(outcome, channel, options, plan.argv),
                                  plan.secrets, _DIAGNOSIS_CHARS)
        stderr = channel.stderr_tail() if channel else ()
        raise ProbeFailed(ProbeFailure(plan.name, diagnosis, stderr, elapsed))
    return _result(plan, options, channel, *outcome, elapsed=elapsed)


class _Unexpected(Exception):
    """An exception no layer below expected; its text only when no headers were sent
    (a library's text may quote one)."""

    def __init__(self, error: Exception, *, quote: bool) -> None:
        kind = type(error).__name__
        shown = f": {error}" if quote and str(error) else ""
        super().__init__(f"unexpected {kind} while probing{shown}")


def _result(
    plan: LaunchPlan, options: Options, channel: Channel, handshake: Handshake,
    tools: list[dict[str, Any]], *, elapsed: float,
) -> ProbeResult:
    answered = channel.first_answer_at or time.monotonic()
    return ProbeResult(
        name=plan.name, style=handshake.style, protocol_version=handshake.protocol_version,
        server_info=handshake.server_info, capabilities=handshake.capabilities,
        client_capabilities=options.capabilities, tools=tuple(tools),
        first_answer=answered - channel.opened_at, elapsed=elapsed,
        stderr_tail=channel.stderr_tail(), stderr_head=channel.stderr_head(),
        instructions=handshake.instructions,
    )


async def probe_many(
    plans: Sequence[LaunchPlan], *, capabilities: frozenset[str] = DEFAULT_CAPABILITIES,
    allow_insecure: bool = False, on_done: Callable[[str], None] | None = None,
) -> list[ProbeResult | ProbeFailure]:
    """Probe all plans concurrently; a failure is returned in its place, not raised.

    `on_done` hears each plan's name as its probe ends, in the order they end.
    """

    async def one(plan: LaunchPlan) -> ProbeResult | ProbeFailure:
        try:
            result: ProbeResult | ProbeFailure = await probe(
                plan, capabilities=capabilities, allow_insecure=allow_insecure)
        except ProbeFailed as error:
            result = error.failure
        if on_done is not None:
            on_done(plan.name)
        return result

    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(one(plan)) for plan in plans]
    return [task.result() for task in tasks]


async def _converse(
    plan: LaunchPlan, options: Options, allow_insecure: bool, channels: list[Channel]
) -> tuple[Handshake, list[dict[str, Any]]]:
    channels.append(await _open(plan, options, allow_insecure))
    try:
        handshake = await negotiate(channels[-1], options)
    except Respawn:
        await _close(channels.pop())
        channels.append(await _open(plan, options, allow_insecure))
        handshake = await legacy_only(channels[-1], options)
    check_strict_json(handshake.server_info, "the server's serverInfo")  # it is cached
    return handshake, await list_tools(channels[-1], handshake, options)


async def _open(plan: LaunchPlan, options: Options, allow_insecure: bool) -> Channel:
    handler = request_handler(options)
    if plan.transport is Transport.STDIO:
        from mcpctl.protocol.stdio import StdioChannel  # noqa: PLC0415 - keep imports lazy

        return await StdioChannel.open(plan.argv, plan.env, plan.cwd, handler,
                                       secrets=plan.secrets)
    if plan.url is None:
        raise ChannelError("no url to connect to")
    from mcpctl.protocol.http import HttpChannel, SseChannel  # noqa: PLC0415 - httpx is slow

    kind = SseChannel if plan.transport is Transport.SSE else HttpChannel
    return kind(plan.url, plan.headers, plan.timeout, handler, allow_insecure=allow_insecure,
                secrets=plan.secrets)


async def _abort(channels: list[Channel]) -> None:
    """Cancelled (Ctrl-C): SIGKILL at once, then reap, which takes milliseconds."""
    for channel in channels:
        channel.abort()
    with contextlib.suppress(asyncio.CancelledError):  # a second Ctrl-C: already killed
        for channel in channels:
            await channel.aclose()


async def _close(channel: Channel) -> None:
    try:
        await channel.aclose()
    except asyncio.CancelledError:
        channel.abort()
        raise


# Runners that fetch a package on first use: a cold cache can outlast the timeout.
_DOWNLOADERS = frozenset({"npx", "uvx", "bunx", "pnpx", "pipx", "docker", "podman"})


def _diagnosis(error: object, channel: Channel | None, options: Options,
               argv: Sequence[str] = ()) -> str:
    if not isinstance(error, Exception):
        return "no connection was opened"
    if isinstance(error, TimeoutError) and not str(error):
        first = not (channel and channel.first_answer_at)
        waited = "the first answer" if first else "the handshake"
        message = f"timed out after {options.timeout:.1f} s waiting for {waited}"
        runner = os.path.basename(argv[0]) if argv else ""
        if first and runner.removesuffix(".cmd").removesuffix(".exe") in _DOWNLOADERS:
            message += (f" ({runner}'s first start may be downloading the package: wait "
                        "longer with --timeout 180, or set `timeout = 180` on the server "
                        "in config.toml, or start it once by hand to fill the cache)")
        return message
    return str(error) or type(error).__name__
