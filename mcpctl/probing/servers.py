"""Probe servers here: gate, resolve, start, list tools, cache — for `cost` and `doctor`.

Every server passes `gate.admit` before anything is resolved or started; a refusal is
an outcome like a failure, never a start. Probes run concurrently, so the wall time
tracks the slowest server, not the sum. Without `refresh`, a server whose last probe
(same fingerprint, same declared capabilities) is cached is not started at all.

What a server says (stderr, a quoted stdout line, an error) is shown only through
`redact.redact`, with the values `probe_redaction.hidden_values` finds. SIGTERM or
SIGHUP while servers run stops them the way Ctrl-C does (`probe_signals`); the caller
then exits with 128 + the signal's number.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.config.merge import MergedServer
from mcpctl.credentials.keyring_store import get_secret
from mcpctl.credentials.redact import redact
from mcpctl.errors import McpctlError, TrustRefused
from mcpctl.launch import Launch, child_environment, resolve_launch
from mcpctl.machine import Machine
from mcpctl.model import Tier
from mcpctl.paths import Paths
from mcpctl.probing.redaction import hidden_values
from mcpctl.probing.signals import ProbingStopped, stopping_on_signals
from mcpctl.trust.gate import Admission, admit
from mcpctl.trust.view import TrustStates

if TYPE_CHECKING:  # asyncio sits behind the client; only probing imports it
    from mcpctl.probing.cache import CachedProbe
    from mcpctl.protocol.probe import LaunchPlan, ProbeResult

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
    secrets: tuple[str, ...] = ()  # what the launch substituted: never cached or shown

    @property
    def name(self) -> str:
        return self.server.name


def plan_for(
    launch: Launch, options: ProbeOptions, *, cwd: Path, environ: Mapping[str, str],
    secrets: Sequence[str] = (),
) -> LaunchPlan:
    """`cwd` is where a server without its own `cwd` runs (see `default_cwd`); `environ`
    is the one the launch was resolved with."""
    from mcpctl.protocol.probe import LaunchPlan  # noqa: PLC0415

    return LaunchPlan(
        # The program found once by resolve_launch: spawning it by name would search
        # PATH again and could fall through to a file nobody pinned.
        name=launch.name, transport=launch.transport,
        argv=(launch.program or launch.argv[0], *launch.argv[1:]) if launch.argv else (),
        env=child_environment(environ, launch), cwd=launch.cwd or str(cwd),
        url=launch.url, headers=launch.headers,
        timeout=options.timeout or launch.timeout or DEFAULT_TIMEOUT,
        roots=(launch.root.as_uri(),), secrets=tuple(secrets),
    )


def default_cwd(tier: Tier, root: Path, home: Path) -> Path:
    """Where a server without a `cwd` runs: the workspace root for the workspace's own
    (approved) servers, the home folder for the user's. A user-tier `python -m tool`
    or `npx tool` run in the workspace would pick up the repo's `tool.py` or
    `node_modules/.bin`: code nobody approved. The workspace is still their root."""
    if tier is Tier.WORKSPACE:
        return root
    return home if home.is_dir() else Path(os.sep)


def admit_all(servers: Sequence[MergedServer], machine: Machine,
              states: TrustStates | None = None) -> list[Outcome]:
    """One store read and one pass over the workspace for all of them (issue 10)."""
    states = states or TrustStates.on(machine)
    outcomes = []
    for server in servers:
        try:
            admission = admit(server, machine.root, machine.paths.trust_file,
                              environ=machine.environ, home=machine.home, states=states)
            outcomes.append(Outcome(server, admission=admission))
        except TrustRefused as refusal:
            outcomes.append(Outcome(server, refused=str(refusal)))
    return outcomes


def probe_admitted(
    outcomes: list[Outcome], machine: Machine, options: ProbeOptions,
    on_done: Callable[[str], None] | None = None,
) -> list[Outcome]:
    """Resolve and probe each admitted outcome in place; returns the same list."""
    paths = machine.paths
    from mcpctl.probing import cache as probe_cache  # noqa: PLC0415

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
        admission = outcome.admission
        try:
            launch = resolve_launch(admission, machine.environ, machine.home, get_secret)
        except TrustRefused as refusal:  # the resolved launch reaches an unapproved file
            outcome.admission, outcome.refused = None, str(refusal)
            continue
        except McpctlError as error:
            outcome.failed = redact(str(error), ())
            continue
        cwd = default_cwd(admission.definition.source.tier, admission.root, machine.home)
        secrets = hidden_values(admission.definition.spec, launch)
        outcome.secrets = tuple(secrets)
        runnable.append((outcome, plan_for(launch, options, cwd=cwd,
                                                  environ=machine.environ, secrets=secrets)))
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

    from mcpctl.protocol.probe import ProbeFailure, probe_many  # noqa: PLC0415

    received: list[int] = []

    async def run_all() -> list[ProbeResult | ProbeFailure]:
        with stopping_on_signals(received):
            return await probe_many([plan for _, plan in runnable],
                                    capabilities=options.capabilities,
                                    allow_insecure=options.allow_insecure, on_done=on_done)

    try:
        results = asyncio.run(run_all())
    except asyncio.CancelledError:
        if received:
            raise ProbingStopped(received[0]) from None
        raise
    for (outcome, _), result in zip(runnable, results, strict=True):
        if isinstance(result, ProbeFailure):
            outcome.failed = result.diagnosis
            outcome.stderr_tail = result.stderr_tail
        else:
            outcome.result = result


def _count_and_cache(outcome: Outcome, paths: Paths, options: ProbeOptions) -> None:
    if outcome.result is None or outcome.admission is None:
        return
    from mcpctl.probing import cache as probe_cache  # noqa: PLC0415
    from mcpctl.tokens.cost import tools_digest  # noqa: PLC0415
    from mcpctl.tokens.count import TOKENIZER, tool_tokens  # noqa: PLC0415

    result = outcome.result
    fingerprint = outcome.admission.status.fingerprint
    outcome.previous = probe_cache.load(paths, fingerprint, options.capabilities)
    outcome.probe = probe_cache.from_probe(
        fingerprint, result, [tool_tokens(tool) for tool in result.tools],
        tokenizer=TOKENIZER, digest=tools_digest(result.tools), probed_at=time.time(),
        secrets=outcome.secrets)
    probe_cache.save(paths, outcome.probe)
