"""From an admitted definition to what exactly runs: variables and secrets resolved.

Takes an `Admission`, which only the trust gate makes, so nothing reaches a process
without passing the gate. Expansion happens here and only here, when a server is
launched or probed (DESIGN §3).

Defence in depth for a workspace server: the files the *resolved* launch reaches
(argv, cwd, envFile, env values and the program on PATH, secrets included) are pinned
again, and any that is not in the approved set at the same digest refuses the launch —
whatever the status-time expansion could not see, and whatever changed since the gate.
A workspace server with no `cwd` starts at the workspace root, where its relative paths
were pinned, not wherever the client happened to start mcpctl.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from mcpctl.errors import TrustRefused
from mcpctl.model import PinnedFile, Tier, Transport
from mcpctl.pinning.pinned_files import pins_of, unpinned_reason
from mcpctl.pinning.reach import Reach
from mcpctl.syntax.env_file import read_env_file
from mcpctl.trust.gate import Admission, unpinnable_message
from mcpctl.variables import Context, expand


@dataclass(frozen=True)
class Launch:
    name: str
    transport: Transport
    argv: tuple[str, ...]
    env: Mapping[str, str]  # the server's own variables, resolved (not the whole environ)
    cwd: str | None
    url: str | None
    headers: Mapping[str, str]
    timeout: float | None
    root: Path


def resolve_launch(
    admission: Admission, environ: Mapping[str, str], home: Path,
    secret: Callable[[str], str | None],
) -> Launch:
    spec = admission.definition.spec
    context = Context(admission.root, home, environ, secret)

    def value(text: str, field: str) -> str:
        return expand(text, context, server=spec.name, field=field)

    # Relative paths of a repo's server are the repo's; a user-tier server's are the
    # user's (its home), never whatever repo mcpctl happens to run in.
    workspace = admission.definition.source.tier is Tier.WORKSPACE
    base = admission.root if workspace else home
    env: dict[str, str] = {}
    env_file = None
    if spec.env_file is not None:
        env_file = _absolute(value(spec.env_file, "envFile"), base)
        env.update(read_env_file(env_file))
    env.update({key: value(text, f"env {key}") for key, text in spec.env.items()})
    cwd = _absolute(value(spec.cwd, "cwd"), base) if spec.cwd is not None \
        else admission.root if workspace else None
    launch = Launch(
        name=spec.name,
        transport=spec.transport,
        argv=tuple(value(text, f"argv[{i}]") for i, text in enumerate(spec.argv()))
        if spec.command is not None else (),
        env=env,
        cwd=str(cwd) if cwd is not None else None,
        url=value(spec.url, "url") if spec.url is not None else None,
        headers={key: value(text, f"header {key}") for key, text in spec.headers.items()},
        timeout=spec.timeout,
        root=admission.root,
    )
    if workspace and launch.argv:
        path = launch.env.get("PATH", environ.get("PATH", os.defpath))
        reach = Reach(launch.argv, launch.cwd, str(env_file) if env_file else None,
                      launch.env, path)
        _refuse_unapproved_files(admission, pins_of(reach, admission.root))
    return launch


def _refuse_unapproved_files(admission: Admission, reached: list[PinnedFile]) -> None:
    """Every workspace file the resolved launch reaches must be approved at its digest."""
    name = admission.definition.name
    reason = unpinned_reason(reached)
    if reason is not None:
        raise TrustRefused(unpinnable_message(name, reason))
    approved = dict(admission.status.files)
    for path, digest in reached:
        if approved.get(path) != digest:
            why = "was not pinned when it was approved" if path not in approved \
                else "is not the content that was approved"
            raise TrustRefused(
                f"server {name!r} not started: its resolved command line reaches workspace "
                f"file {path}, which {why}; review it with: "
                f"mcpctl trust {name} --workspace {admission.root}")


def _absolute(path: str, root: Path) -> Path:
    candidate = Path(path).expanduser()
    return candidate if candidate.is_absolute() else root / candidate


def child_environment(environ: Mapping[str, str], launch: Launch) -> dict[str, str]:
    """The user's environment plus the server's resolved variables."""
    return {**environ, **launch.env}
