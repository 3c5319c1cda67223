"""The trust status of a definition here and now: fingerprint, pin set, state, diff."""

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TypeAlias

from mcpctl.model import Definition, PinnedFile, Tier
from mcpctl.trust.fingerprint import fingerprint_of
from mcpctl.trust.state import (
    NO_MANIFEST,
    Approval,
    TrustState,
    approved_definition,
    diff,
    is_legacy,
    state_of,
)

if TYPE_CHECKING:  # pinning is for workspace servers: a user-tier status needs none of it
    from mcpctl.pinning.pin_set import PinSet
    from mcpctl.pinning.pinned_files import Lookups
    from mcpctl.pinning.workspace import Entry

Manifests: TypeAlias = "Callable[[str], Mapping[str, Entry] | None]"  # digest → approved files


def _no_manifests(_digest: str) -> "Mapping[str, Entry] | None":
    return None


class FileChange(NamedTuple):
    """One pinned file added, removed or modified since the approval."""

    path: str
    what: str  # modified, added, removed
    before: "Entry | None"
    after: "Entry | None"

    def stat(self) -> str:
        """The diffstat of one file: lines (newlines) before and after."""
        if self.before is None or self.what == "added":
            return f"{self.after.lines if self.after else 0} lines"
        if self.after is None or self.what == "removed":
            return f"{self.before.lines} lines"
        return f"{self.before.lines} → {self.after.lines} lines"


class Status(NamedTuple):
    """A definition's trust here and now: state, fingerprint, pins and what changed."""

    state: TrustState
    fingerprint: str
    files: list[PinnedFile]  # the headline: what the definition names, with digests
    approval: Approval | None = None
    changes: Sequence[str] = ()
    unpinned: str | None = None  # why it is UNPINNABLE: the first bound it passes
    pins: "PinSet | None" = None  # everything the approval covers (None: user tier)
    file_changes: Sequence[FileChange] = ()


def status_of(
    definition: Definition, root: Path, approvals: Mapping[str, Approval],
    environ: Mapping[str, str], home: Path | None, lookups: "Lookups | None" = None,
    manifests: Manifests = _no_manifests, ignored: Sequence[str] | None = None,
) -> Status:
    """`environ` and `home` are what the launch will expand with (the invocation's
    `Machine`): they decide which files are pinned, never the definition's values.
    One `lookups` serves every server of one command (one listing of the workspace).
    `ignored`: the folders to exclude (default: those the approval excludes)."""
    spec = definition.spec
    if definition.source.tier is Tier.USER:
        return Status(TrustState.USER, fingerprint_of(spec), [])
    from mcpctl.pinning.pin_set import pin_set  # noqa: PLC0415
    from mcpctl.pinning.pinned_files import Lookups  # noqa: PLC0415

    approval = approvals.get(spec.name)
    if ignored is None:
        ignored = () if approval is None or is_legacy(approval.definition) \
            else tuple(approval.definition.get("ignored", ()))
    pins = pin_set(spec, root, environ=environ, home=home,
                   lookups=lookups or Lookups(environ=environ), ignored=ignored)
    fingerprint = fingerprint_of(spec, pins)
    state = TrustState.UNPINNABLE if pins.unpinned else state_of(
        definition.source.tier, fingerprint, approval)
    headline = [(path, pins.files.get(path, "folder")) for path in pins.named]
    if approval is None or approval.fingerprint == fingerprint:
        return Status(state, fingerprint, headline, approval, [], pins.unpinned, pins)
    changes, file_changes = _changes(approval, pins, manifests, definition)
    return Status(state, fingerprint, headline, approval, changes, pins.unpinned, pins,
                  file_changes)


def _changes(approval: Approval, pins: "PinSet", manifests: Manifests,
             definition: Definition) -> tuple[list[str], list[FileChange]]:
    old = approval.definition
    now = approved_definition(definition.spec, pins)
    file_changes: list[FileChange] = []
    extra: list[str] = []
    # Across two kinds of set a file diff would list every file; the pinSet line says it.
    if not is_legacy(old) and old.get("manifest") != pins.digest \
            and old.get("pinSet") == pins.kind:
        memo_key = f"changes:{old.get('manifest')}:{pins.digest}"
        known = pins.memo.recall(memo_key) if pins.memo is not None else None
        if known is not None:  # this very change was reported from this cache before
            file_changes = _decoded(known)
        else:
            approved = manifests(str(old.get("manifest")))
            if approved is None:
                extra.append(NO_MANIFEST)
            else:
                file_changes = _file_changes(approved, pins)
                if pins.memo is not None and len(file_changes) <= _KEPT_CHANGES:
                    pins.memo.remember(memo_key, _encoded(file_changes))
    changes = diff(old, now, [(c.path, c.what) for c in file_changes]) + extra
    return changes or [
        "fingerprint differs (approved by another mcpctl version or edited store)"
    ], file_changes


_KEPT_CHANGES = 1000  # a longer report is computed again each time


def _file_changes(approved: "Mapping[str, Entry]", pins: "PinSet") -> list[FileChange]:
    """Every file added, removed or modified: one pass over both sets. A manifest keeps
    64 bits of each digest (`manifest.short`): compared as such."""
    from mcpctl.pinning.manifest import short  # noqa: PLC0415
    from mcpctl.pinning.pin_set import ABSENT  # noqa: PLC0415
    from mcpctl.pinning.workspace import changed_paths  # noqa: PLC0415

    absent = (ABSENT, short(ABSENT))
    before = {path: entry.digest if entry.digest.startswith("~") else short(entry.digest)
              for path, entry in approved.items() if entry.digest not in absent}
    after = {path: short(digest) for path, digest in pins.files.items() if digest != ABSENT}
    return [FileChange(path, what, approved.get(path), _entry(pins, path))
            for path, what in changed_paths(before, after)]


def _encoded(changes: Sequence[FileChange]) -> str:
    import json  # noqa: PLC0415

    return json.dumps([[c.path, c.what, c.before and list(c.before), c.after and list(c.after)]
                       for c in changes])


def _decoded(text: str) -> list[FileChange]:
    import json  # noqa: PLC0415

    from mcpctl.pinning.workspace import Entry  # noqa: PLC0415

    return [FileChange(path, what, before and Entry(*before), after and Entry(*after))
            for path, what, before, after in json.loads(text)]


def _entry(pins: "PinSet", path: str) -> "Entry | None":
    from mcpctl.pinning.workspace import Entry  # noqa: PLC0415

    if path not in pins.files:
        return None
    return pins.sizes.get(path) or Entry(pins.files[path])
