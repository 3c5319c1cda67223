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

from mcpctl.clients.table import ClientFormat, exported_entry, is_managed
from mcpctl.model import ServerSpec

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
    desired = exported_entry(client, spec.name, command)
    if current is None:
        return EntryChange(spec.name, "added", entry=desired)
    if current == desired:
        return EntryChange(spec.name, "unchanged")
    if is_managed(client, spec.name, current):
        return EntryChange(spec.name, "updated", entry=desired)
    if replace:
        return EntryChange(spec.name, "replaced", "the old entry is in the backup",
                           entry=desired)
    if same_server is not None and same_server(spec.name, current, spec):
        return EntryChange(spec.name, "adopted", f"{client.title}'s own entry runs exactly "
                           "this server; it now launches through mcpctl (the old entry is in "
                           "the backup)", entry=desired)
    return EntryChange(spec.name, "conflict",
                       f"{client.title} defines {spec.name!r} itself; --replace makes it "
                       "launch through mcpctl (the old entry goes to the backup)")


def _pruned(client: ClientFormat, existing: Mapping[str, Any],
            wanted: Sequence[ServerSpec]) -> list[EntryChange]:
    """Removals: mcpctl's entries for servers no longer exported."""
    exportable = {spec.name for spec in wanted if not spec.is_remote}
    remote = {spec.name for spec in wanted if spec.is_remote}
    return [EntryChange(name, "removed", "now a remote server" if name in remote
                        else "no longer in the user tier")
            for name, current in existing.items()
            if name not in exportable and is_managed(client, name, current)]
