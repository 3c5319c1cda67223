"""The trust gate: the one function every path that could start a server calls.

Fails closed (DESIGN §1): a workspace server starts only when it is approved at its
exact current fingerprint. An unreadable store, an unexpected state, a shadowed
definition — all refuse. An `Admission` can only be made here, and launching takes
an `Admission`, so no code path can start a server without passing this gate.
"""

from __future__ import annotations

from pathlib import Path

from mcpctl.errors import TrustRefused
from mcpctl.merge import MergedServer
from mcpctl.model import Definition, Tier
from mcpctl.trust import Status, status_of
from mcpctl.trust_state import TrustState
from mcpctl.trust_store import TrustStoreError, approvals_in, read_store

_GATE_KEY = object()


class Admission:
    """Proof that the gate allowed this definition to start."""

    def __init__(self, definition: Definition, root: Path, status: Status, key: object) -> None:
        if key is not _GATE_KEY:
            raise TypeError("an Admission is made only by mcpctl.gate.admit")
        self.definition = definition
        self.root = root
        self.status = status


def admit(server: MergedServer, root: Path, trust_file: Path) -> Admission:
    """Allow the server's winning definition to start, or raise TrustRefused."""
    definition = server.winner
    name = definition.name
    if definition.source.tier is Tier.USER:
        return Admission(definition, root, status_of(definition, root, {}), _GATE_KEY)
    if definition.source.tier is not Tier.WORKSPACE:
        raise TrustRefused(f"server {name!r}: {definition.source.tier} servers are not started")
    try:
        approvals = approvals_in(read_store(trust_file), root)
    except TrustStoreError as error:
        raise TrustRefused(f"server {name!r} not started: {error}") from None
    status = status_of(definition, root, approvals)
    fix = f"mcpctl trust {name} --workspace {root}"
    match status.state:
        case TrustState.TRUSTED:
            return Admission(definition, root, status, _GATE_KEY)
        case TrustState.UNTRUSTED:
            raise TrustRefused(f"server {name!r} is untrusted: the workspace defines it at "
                               f"{definition.source.location()} and it was never approved; "
                               f"review and approve it with: {fix}")
        case TrustState.CHANGED:
            raise TrustRefused(f"server {name!r} changed since it was approved "
                               f"({'; '.join(status.changes)}); review the change with: {fix}")
        case _:
            raise TrustRefused(f"server {name!r} is {status.state}; not started")
