"""Probe servers here: gate, resolve, start, list tools, cache — for `cost` and `doctor`.

Every server passes `gate.admit` before anything is resolved or started; a refusal is
an outcome like a failure, never a start. Probes run concurrently, so the wall time
tracks the slowest server, not the sum. Without `refresh`, a server whose last probe
(same fingerprint, same declared capabilities) is cached is not started at all.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.errors import McpctlError, TrustRefused
from mcpctl.gate import Admission, admit
from mcpctl.launch import Launch, child_environment, resolve_launch
from mcpctl.merge import MergedServer
from mcpctl.paths import Paths

if TYPE_CHECKING:  # asyncio sits behind the client; only probing imports it
    from mcpctl.client.probe import LaunchPlan, ProbeResult
    from mcpctl.probe_cache import CachedProbe

DEFAULT_TIMEOUT = 30.0


@dataclass(frozen=True)
class ProbeOptions:
    capabilities: frozenset[str]
    timeout: float | None = None  # None: each server's own `timeout`, else DEFAULT_TIMEOUT
    allow_insecure: bool = False
    refresh: bool = True


@dataclass
class Outcome:
    server: MergedServer
    admission: Admission | None = None
    refused: str | None = None  # the gate's message
    failed: str | None = None  # resolving or probing failed
    stderr_tail: tuple[str, ...] = ()
    result: ProbeResult | None = None
    probe: CachedProbe | None = None  # this probe, as cached (or the cached one reused)
    previous: CachedProbe | None = None  # the probe before, for the tool diff
    from_cache: bool = False

    @property
    def name(self) -> str:
        return self.server.name


def _secret(name: str) -> str | None:
    from mcpctl.keyring_store import get_secret  # noqa: PLC0415 - only when referenced

    return get_secret(name)


def plan_for(launch: Launch, options: ProbeOptions) -> LaunchPlan:
    from mcpctl.client.probe import LaunchPlan  # noqa: PLC0415

    return LaunchPlan(
        name=launch.name, transport=launch.transport, argv=launch.argv,
        env=child_environment(os.environ, launch), cwd=launch.cwd or str(launch.root),
        url=launch.url, headers=launch.headers,
        timeout=options.timeout or launch.timeout or DEFAULT_TIMEOUT,
        roots=(launch.root.as_uri(),),
    )


def admit_all(servers: Sequence[MergedServer], root: Path, trust_file: Path) -> list[Outcome]:
    outcomes = []
    for server in servers:
        try:
            outcomes.append(Outcome(server, admission=admit(server, root, trust_file)))
        except TrustRefused as refusal:
            outcomes.append(Outcome(server, refused=str(refusal)))
    return outcomes


def probe_admitted(
    outcomes: list[Outcome], paths: Paths, options: ProbeOptions,
    on_done: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Resolve and probe each admitted outcome in place; returns the same list."""
    from mcpctl import probe_cache  # noqa: PLC0415

    runnable: list[tuple[Outcome, LaunchPlan]] = []
    for outcome in outcomes:
        if outcome.admission is None:
            continue
        if not options.refresh:
            cached = probe_cache.load(paths, outcome.admission.status.fingerprint,
                                      options.capabilities)
            if cached is not None:
                outcome.probe, outcome.from_cache = cached, True
                continue
        try:
            launch = resolve_launch(outcome.admission, os.environ, Path.home(), _secret)
        except McpctlError as error:
            outcome.failed = str(error)
            continue
        runnable.append((outcome, plan_for(launch, options)))
    if runnable:
        _probe_concurrently(runnable, options, on_done)
    for outcome in outcomes:
        _count_and_cache(outcome, paths, options)
    return outcomes


def _probe_concurrently(
    runnable: list[tuple[Outcome, LaunchPlan]], options: ProbeOptions,
    on_done: Callable[[str], None] | None,
) -> None:
    import asyncio  # noqa: PLC0415

    from mcpctl.client.probe import ProbeFailed, probe  # noqa: PLC0415

    async def one(outcome: Outcome, plan: LaunchPlan) -> None:
        try:
            outcome.result = await probe(plan, capabilities=options.capabilities,
                                         allow_insecure=options.allow_insecure)
        except ProbeFailed as error:
            outcome.failed = error.failure.diagnosis
            outcome.stderr_tail = error.failure.stderr_tail
        if on_done is not None:
            on_done(outcome.name)

    async def run_all() -> None:
        async with asyncio.TaskGroup() as group:
            for outcome, plan in runnable:
                group.create_task(one(outcome, plan))

    asyncio.run(run_all())


def _count_and_cache(outcome: Outcome, paths: Paths, options: ProbeOptions) -> None:
    if outcome.result is None or outcome.admission is None:
        return
    from mcpctl import probe_cache  # noqa: PLC0415
    from mcpctl.cost import tools_digest  # noqa: PLC0415
    from mcpctl.tokens import TOKENIZER, tool_tokens  # noqa: PLC0415

    result = outcome.result
    fingerprint = outcome.admission.status.fingerprint
    outcome.previous = probe_cache.load(paths, fingerprint, options.capabilities)
    outcome.probe = probe_cache.from_probe(
        fingerprint, result, [tool_tokens(tool) for tool in result.tools],
        tokenizer=TOKENIZER, digest=tools_digest(result.tools), probed_at=time.time())
    probe_cache.save(paths, outcome.probe)


def tools_of(outcome: Outcome) -> tuple[dict[str, Any], ...] | None:
    return outcome.probe.tools if outcome.probe is not None else None
