"""The trust gate: the one function every path that could start a server calls.

Fails closed (DESIGN §1): a workspace server starts only when it is approved at its
exact current fingerprint. An unreadable store, an unexpected state, a shadowed
definition — all refuse. An `Admission` can only be made here, and launching takes
an `Admission`, so no code path can start a server without passing this gate.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.errors import TrustRefused
from mcpctl.model import Definition, Tier
from mcpctl.trust.state import TrustState
from mcpctl.trust.status import Status, status_of

if TYPE_CHECKING:  # the store and its view: only a workspace server reads them
    from mcpctl.config.merge import MergedServer
    from mcpctl.trust.view import TrustStates

_GATE_KEY = object()


class Admission:
    """Proof that the gate allowed this definition to start."""

    def __init__(self, definition: Definition, root: Path, status: Status, key: object) -> None:
        if key is not _GATE_KEY:
            raise TypeError("an Admission is made only by mcpctl.trust.gate.admit")
        self.definition = definition
        self.root = root
        self.status = status


def _refuse_a_repo_user_tier(definition: Definition, root: Path, home: Path) -> None:
    """The user tier starts as written, so its file must be the user's: a config.toml
    inside the workspace (`--config repo/cfg.toml` in a client entry the repo wrote) is
    the repo's to change after approval. A root that holds the home folder (`~`, `/`)
    is no repo's."""
    real_root = Path(os.path.realpath(root))
    source = Path(os.path.realpath(definition.source.path))
    if Path(os.path.realpath(home)).is_relative_to(real_root) \
            or not source.is_relative_to(real_root):
        return
    raise TrustRefused(f"server {definition.name!r} comes from {definition.source.path}, a "
                       f"user-tier file inside the workspace {root}, which the repo can "
                       "change; keep config.toml outside any checkout")


def admit(server: MergedServer, root: Path, trust_file: Path, *,
          environ: Mapping[str, str], home: Path, cache_dir: Path | None = None,
          states: TrustStates | None = None) -> Admission:
    """Allow the server's winning definition to start, or raise TrustRefused.

    `environ` and `home` (the invocation's `Machine`) must be what the launch will use:
    they decide which workspace files the definition reaches, and so its fingerprint.
    `cache_dir`: the digest cache's folder (None: hash everything).
    `states` shares one store read and one workspace pass among a command's servers.
    A workspace definition is admitted as a server of the folder its file is read for
    (`TrustStates.root_of`: from a subfolder, maybe not `root`, issue 22): its approvals,
    its pins, and the `Admission`'s root, where it starts and what it may reach.
    """
    definition = server.winner
    name = definition.name
    if definition.source.tier is Tier.USER:
        _refuse_a_repo_user_tier(definition, root, home)
        status = status_of(definition, root, {}, environ, home)
        return Admission(definition, root, status, _GATE_KEY)
    if definition.source.tier is not Tier.WORKSPACE:
        raise TrustRefused(f"server {name!r}: {definition.source.tier} servers are not started")
    if states is None or states.root != root or states.trust_file != trust_file:
        from mcpctl.trust.view import TrustStates  # noqa: PLC0415

        states = TrustStates(root, trust_file, environ=environ, home=home, cache_dir=cache_dir)
    if states.store_error is not None:
        raise TrustRefused(f"server {name!r} not started: {states.store_error}")
    status = states.status(definition)
    folder = states.root_of(definition)
    fix = f"mcpctl trust {name} --workspace {folder}"
    match status.state:
        case TrustState.TRUSTED:
            return Admission(definition, folder, status, _GATE_KEY)
        case TrustState.UNTRUSTED:
            raise TrustRefused(f"server {name!r} is untrusted: the workspace defines it at "
                               f"{definition.source.location()} and it was never approved; "
                               f"review and approve it with: {fix}")
        case TrustState.CHANGED:
            raise TrustRefused(f"server {name!r} changed since it was approved "
                               f"({'; '.join(status.changes)}); review the change with: {fix}")
        case TrustState.UNPINNABLE:
            raise TrustRefused(unpinnable_message(name, status.unpinned))
        case _:
            raise TrustRefused(f"server {name!r} is {status.state}; not started")


def unpinnable_message(name: str, reason: str | None) -> str:
    """Why an unpinnable server is neither started nor approved (`reason`: which bound)."""
    return (f"server {name!r} is unpinnable: mcpctl cannot pin all the workspace code it "
            f"could run ({reason}), so a swapped file could go unnoticed; it is not started "
            f"or approved until that changes (see: mcpctl show {name})")
