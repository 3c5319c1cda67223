"""Trust status of a definition here and now: fingerprint, pinned files, state, diff."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcpctl.fingerprint import PinnedFile, fingerprint_of
from mcpctl.model import Definition, Tier
from mcpctl.pinned_files import pinned_files
from mcpctl.trust_state import Approval, TrustState, approved_definition, diff, state_of


@dataclass(frozen=True)
class Status:
    state: TrustState
    fingerprint: str
    files: list[PinnedFile]
    approval: Approval | None = None
    changes: list[str] = field(default_factory=list)


def status_of(definition: Definition, root: Path, approvals: Mapping[str, Approval]) -> Status:
    spec = definition.spec
    if definition.source.tier is Tier.USER:
        return Status(TrustState.USER, fingerprint_of(spec), [])
    files = pinned_files(spec, root)
    fingerprint = fingerprint_of(spec, files)
    approval = approvals.get(spec.name)
    state = state_of(definition.source.tier, fingerprint, approval)
    changes: list[str] = []
    if state is TrustState.CHANGED and approval is not None:
        changes = diff(approval.definition, approved_definition(spec, files)) or [
            "fingerprint differs (approved by another mcpctl version or edited store)"]
    return Status(state, fingerprint, files, approval, changes)
