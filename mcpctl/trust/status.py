"""Trust status of a definition here and now: fingerprint, pinned files, state, diff."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from mcpctl.model import Definition, PinnedFile, Tier
from mcpctl.pinning.pinned_files import NO_ENVIRONMENT, Lookups, pinned_files, unpinned_reason
from mcpctl.trust.fingerprint import fingerprint_of
from mcpctl.trust.state import Approval, TrustState, approved_definition, diff, state_of


@dataclass(frozen=True)
class Status:
    state: TrustState
    fingerprint: str
    files: list[PinnedFile]
    approval: Approval | None = None
    changes: list[str] = field(default_factory=list)
    unpinned: str | None = None  # why it is UNPINNABLE: the first bound it passes


def status_of(
    definition: Definition, root: Path, approvals: Mapping[str, Approval],
    environ: Mapping[str, str] = NO_ENVIRONMENT, home: Path | None = None,
    lookups: Lookups | None = None,
) -> Status:
    """`environ` and `home` are what the launch will expand with (the invocation's
    `Machine`): they decide which files are pinned, never the definition's values.
    One `lookups` can serve every server of one command (see `pinned_files.Lookups`)."""
    spec = definition.spec
    if definition.source.tier is Tier.USER:
        return Status(TrustState.USER, fingerprint_of(spec), [])
    files = pinned_files(spec, root, environ=environ, home=home, lookups=lookups)
    fingerprint = fingerprint_of(spec, files)
    approval = approvals.get(spec.name)
    unpinned = unpinned_reason(files)
    state = TrustState.UNPINNABLE if unpinned else state_of(
        definition.source.tier, fingerprint, approval)
    changes: list[str] = []
    if approval is not None and approval.fingerprint != fingerprint:
        changes = diff(approval.definition, approved_definition(spec, files)) or [
            "fingerprint differs (approved by another mcpctl version or edited store)"]
    return Status(state, fingerprint, files, approval, changes, unpinned)
