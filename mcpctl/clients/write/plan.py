"""What `export` and `sync` do to each entry of a client's file (pure; DESIGN §11).

Every exported entry is `mcpctl run NAME`, so the client file never holds a secret,
and that shape is also how mcpctl recognises its own entries later (Codex rejects
unknown keys, so there is no marker key). An entry the client defines itself is a
conflict unless it holds exactly the server the user tier defines (it is then adopted:
see `adoption.py`) or the user asks to replace it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from mcpctl.clients.table import ClientFormat, exported_entry, is_managed, owned_keys
from mcpctl.model import ServerSpec
from mcpctl.variables import Kind, references_in

REMOTE_SKIPPED = ("a remote (url) server: clients connect to it themselves and "
                  "`mcpctl run` starts local servers only; add it to the client by hand")


@dataclass(frozen=True)
class EntryChange:
    name: str
    # added | updated | adopted | replaced | removed | unchanged | conflict | skipped
    status: str
    reason: str = ""
    entry: dict[str, Any] | None = None  # what is written (None with "removed")

    @property
    def writes(self) -> bool:
        return self.status in ("added", "updated", "adopted", "replaced", "removed")


@dataclass(frozen=True)
class ExportPlan:
    changes: list[EntryChange] = field(default_factory=list)

    @property
    def writes(self) -> bool:
        return any(change.writes for change in self.changes)

    @property
    def conflicts(self) -> list[EntryChange]:
        return [change for change in self.changes if change.status == "conflict"]


# Does the client's own entry (name, raw entry, user-tier spec) hold that very server?
SameServer = Callable[[str, Any, ServerSpec], bool]


def plan_export(client: ClientFormat, existing: Mapping[str, Any],
                wanted: Sequence[ServerSpec], command: str, *, replace: bool,
                prune: bool, same_server: SameServer | None = None) -> ExportPlan:
    """`wanted`: the user-tier servers to export. With `prune`, entries mcpctl exported
    earlier for servers no longer exportable are removed (sync). An entry of the
    client's own for which `same_server` holds is adopted instead of a conflict."""
    changes = [_change(client, existing.get(spec.name), spec, command, replace=replace,
                       same_server=same_server)
               for spec in wanted]
    if prune:
        changes += _pruned(client, existing, wanted)
    return ExportPlan(changes)


def _change(client: ClientFormat, current: Any, spec: ServerSpec, command: str, *,
            replace: bool, same_server: SameServer | None) -> EntryChange:
    if spec.is_remote:
        return EntryChange(spec.name, "skipped", REMOTE_SKIPPED)
    variables = [ref.name for ref in references_in(spec) if ref.kind is Kind.ENV]
    desired = exported_entry(client, spec.name, command, variables, spec.timeout)
    if current is None:
        return EntryChange(spec.name, "added", entry=desired)
    if is_managed(client, spec.name, current):
        kept = _users_own(client, current, desired)
        wanted = {**desired, **kept}
        if wanted == current:
            return EntryChange(spec.name, "unchanged")
        return EntryChange(spec.name, "updated", _kept_note(kept), entry=wanted)
    if replace or (same_server is not None and same_server(spec.name, current, spec)):
        off = _switched_off(client, current)
        note = "; kept switched off, as it was" if off else ""
        if replace:
            return EntryChange(spec.name, "replaced", "the old entry is in the backup" + note,
                               entry={**desired, **off})
        return EntryChange(spec.name, "adopted", f"{client.title}'s own entry runs exactly "
                           "this server; it now launches through mcpctl (the old entry is in "
                           "the backup)" + note, entry={**desired, **off})
    return EntryChange(spec.name, "conflict",
                       f"{client.title} defines {spec.name!r} itself; --replace makes it "
                       "launch through mcpctl (the old entry goes to the backup)")


def _users_own(client: ClientFormat, current: Mapping[str, Any],
               desired: Mapping[str, Any]) -> dict[str, Any]:
    """What the user set on mcpctl's entry in the client: kept on every update."""
    owned = owned_keys(client, desired)
    return {key: value for key, value in current.items() if key not in owned}


def _kept_note(kept: Mapping[str, Any]) -> str:
    return f"kept your {', '.join(sorted(kept))}" if kept else ""


def _switched_off(client: ClientFormat, current: Mapping[str, Any]) -> dict[str, Any]:
    """The client's off switch, when `current` is switched off: never switched back on."""
    if client.off_switch is None:
        return {}
    key, value = client.off_switch
    return {key: value} if current.get(key) == value else {}


def _pruned(client: ClientFormat, existing: Mapping[str, Any],
            wanted: Sequence[ServerSpec]) -> list[EntryChange]:
    """Removals: mcpctl's entries for servers no longer exported."""
    exportable = {spec.name for spec in wanted if not spec.is_remote}
    remote = {spec.name for spec in wanted if spec.is_remote}
    return [EntryChange(name, "removed", "now a remote server" if name in remote
                        else "no longer in the user tier")
            for name, current in existing.items()
            if name not in exportable and is_managed(client, name, current)]
