"""What `export` and `sync` do to each entry of a client's file (pure; DESIGN §11).

Every exported entry is `mcpctl run NAME` (for a remote server, `run` bridges stdio to
it with the headers from the keyring), so the client file never holds a secret,
and that shape is also how mcpctl recognises its own entries later (Codex rejects
unknown keys, so there is no marker key). An entry the client defines itself is a
conflict unless it holds exactly the server the user tier defines (it is then adopted:
see `adoption.py`) or the user asks to replace it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from dataclasses import replace as replace_field
from typing import Any

from mcpctl.clients.guard_key import key_in
from mcpctl.clients.table import TWEAKS, ClientFormat, exported_entry, is_managed, owned_keys
from mcpctl.config.user_config import workspace_key_of
from mcpctl.model import ServerSpec
from mcpctl.variables import Kind, references_in


@dataclass(frozen=True)
class EntryChange:
    """What an export does to one entry of a client's file, and why."""

    name: str
    # added | updated | adopted | replaced | removed | unchanged | conflict | skipped
    status: str
    reason: str = ""
    entry: dict[str, Any] | None = None  # what is written (None with "removed")
    # The project section it goes to (Claude Code's projects[<folder>]); None: the
    # client's own top-level servers.
    workspace: str | None = None

    @property
    def writes(self) -> bool:
        return self.status in ("added", "updated", "adopted", "replaced", "removed")


@dataclass(frozen=True)
class ExportPlan:
    """Every entry change an export would make to one client's file."""

    changes: list[EntryChange] = field(default_factory=list)

    @property
    def writes(self) -> bool:
        return any(change.writes for change in self.changes)

    @property
    def conflicts(self) -> list[EntryChange]:
        return [change for change in self.changes if change.status == "conflict"]


# Does the client's own entry (name, raw entry, user-tier spec) hold that very server?
SameServer = Callable[[str, Any, ServerSpec], bool]


# Per project folder (a real path), the client's entries there.
Projects = Mapping[str, Mapping[str, Any]]


def plan_export(client: ClientFormat, existing: Mapping[str, Any],
                wanted: Sequence[ServerSpec], command: str, *, replace: bool,
                prune: bool, same_server: SameServer | None = None,
                projects: Projects | None = None,
                filters: Mapping[str, Mapping[str, Any]] | None = None,
                key: str | None = None) -> ExportPlan:
    """`wanted`: the user-tier servers to export. With `prune`, entries mcpctl exported
    earlier for servers no longer exportable are removed (sync). An entry of the
    client's own for which `same_server` holds is adopted instead of a conflict.

    A per-workspace server goes to that project's section (`projects`, the client's
    entries there) of a client that has one, and is skipped by the others.

    `filters`: per server, the client's own tool-filter keys (`tool_filters.py`; None
    removes a key), which beat whatever the entry had there.

    `key`: the machine's guard key, after `run NAME` in a keyed client's entries
    (guard_key.py); an entry of mcpctl's without it is updated."""
    filters = filters or {}
    everywhere = [spec for spec in wanted if workspace_key_of(spec) is None]
    scoped = [spec for spec in wanted if workspace_key_of(spec) is not None]
    changes = [_change(client, existing.get(spec.name), spec, command, replace=replace,
                       same_server=same_server, tool_filter=filters.get(spec.name), key=key)
               for spec in everywhere]
    changes += [_scoped_change(client, spec, projects or {}, command, replace=replace,
                               same_server=same_server, tool_filter=filters.get(spec.name),
                               key=key)
                for spec in scoped]
    if prune:
        changes += _pruned(client, existing, everywhere, {spec.name for spec in scoped})
        if client.project_key is not None:
            changes += _pruned_projects(client, projects or {}, scoped)
    return ExportPlan(changes)


def _scoped_change(client: ClientFormat, spec: ServerSpec, projects: Projects,
                   command: str, *, replace: bool, same_server: SameServer | None,
                   tool_filter: Mapping[str, Any] | None = None,
                   key: str | None = None) -> EntryChange:
    folder = workspace_key_of(spec) or ""
    if client.project_key is None:
        return EntryChange(spec.name, "skipped", f"a server for one workspace ({folder}): "
                           f"{client.title} has no per-project section for the user's own "
                           "servers, and writing it for every folder would start it "
                           "everywhere")
    current = projects.get(folder, {}).get(spec.name)
    change = _change(client, current, spec, command, replace=replace,
                     same_server=same_server, tool_filter=tool_filter, key=key)
    return replace_field(change, workspace=folder)


def _change(client: ClientFormat, current: Any, spec: ServerSpec, command: str, *,
            replace: bool, same_server: SameServer | None,
            tool_filter: Mapping[str, Any] | None = None,
            key: str | None = None) -> EntryChange:
    variables = [ref.name for ref in references_in(spec) if ref.kind is Kind.ENV]
    desired = exported_entry(client, spec.name, command, variables, spec.timeout, key)
    filter_keys = tuple(tool_filter or ())
    desired.update({k: v for k, v in (tool_filter or {}).items() if v is not None})
    if current is None:
        return EntryChange(spec.name, "added", entry=desired)
    if is_managed(client, spec.name, current):
        # A managed entry has no other key.
        kept = _tweaks(client, current, desired, filter_keys)
        wanted = {**desired, **kept}
        if wanted == current:
            return EntryChange(spec.name, "unchanged")
        rekeyed = key_in(desired["args"]) not in (None, key_in(current.get("args")))
        note = "; ".join(filter(None, ["now with this machine's guard key" if rekeyed
                                       else "", _kept_note(kept)]))
        return EntryChange(spec.name, "updated", note, entry=wanted)
    if _expanded_by_client(client, spec.name, current, desired):
        kept = _tweaks(client, current, desired)
        return EntryChange(spec.name, "updated", f"{client.title} had written the values of "
                           "its variables into its file; they are references again",
                           entry={**desired, **kept})
    if replace or (same_server is not None and same_server(spec.name, current, spec)):
        kept = _tweaks(client, current, desired, filter_keys)
        note = "; " + _kept_note(kept) if kept else ""
        if replace:
            return EntryChange(spec.name, "replaced", "the old entry is in the backup" + note,
                               entry={**desired, **kept})
        return EntryChange(spec.name, "adopted", f"{client.title}'s own entry runs exactly "
                           "this server; it now launches through mcpctl (the old entry is in "
                           "the backup)" + note, entry={**desired, **kept})
    return EntryChange(spec.name, "conflict",
                       f"{client.title} defines {spec.name!r} itself; --replace makes it "
                       "launch through mcpctl (the old entry goes to the backup)")


def _expanded_by_client(client: ClientFormat, name: str, current: Any,
                        desired: Mapping[str, Any]) -> bool:
    """mcpctl's own entry, but with each `${VAR}` of its `env` replaced by the value:
    Gemini CLI's `mcp add` rewrites its settings file with the placeholders expanded
    (measured with 0.61.0, issue 26), which puts a token in the file. Exactly the
    variables mcpctl forwards for this server, nothing else."""
    if not isinstance(current, Mapping) or not isinstance(current.get("env"), Mapping):
        return False
    wanted = desired.get("env")
    if not isinstance(wanted, Mapping) or set(current["env"]) != set(wanted):
        return False
    restored = {**current, "env": dict(wanted)}
    return is_managed(client, name, restored)


def _tweaks(client: ClientFormat, current: Mapping[str, Any],
            desired: Mapping[str, Any], filter_keys: Collection[str] = ()) -> dict[str, Any]:
    """The user's client-side settings of an entry (an off switch, a tool timeout): kept
    on every update and takeover, so a server switched off stays off. Never what it ran,
    nor a tool filter the user's `[tools.NAME]` policy decides (`filter_keys`)."""
    owned = owned_keys(client, [*desired, *filter_keys])
    return {key: value for key, value in current.items() if key in TWEAKS and key not in owned}


def _kept_note(kept: Mapping[str, Any]) -> str:
    return f"kept your {', '.join(sorted(kept))}" if kept else ""


def _pruned(client: ClientFormat, existing: Mapping[str, Any],
            wanted: Sequence[ServerSpec], scoped: Collection[str]) -> list[EntryChange]:
    """Removals: mcpctl's entries for servers no longer exported."""
    exported = {spec.name for spec in wanted}
    return [EntryChange(name, "removed", "now a server for one workspace" if name in scoped
                        else "no longer in the user tier")
            for name, current in existing.items()
            if name not in exported and is_managed(client, name, current)]


def _pruned_projects(client: ClientFormat, projects: Projects,
                     scoped: Sequence[ServerSpec]) -> list[EntryChange]:
    """Removals in project sections: mcpctl's entries there for servers that are no
    longer that workspace's own (moved or removed)."""
    kept = {(workspace_key_of(spec), spec.name) for spec in scoped}
    return [EntryChange(name, "removed", "no longer a server for this workspace in the user "
                        "tier", workspace=folder)
            for folder, entries in projects.items() for name, current in entries.items()
            if (folder, name) not in kept and is_managed(client, name, current)]
