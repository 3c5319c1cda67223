"""The guard: a client's own launch of a repo's server passes mcpctl's gate (DESIGN §11).

Claude Code starts a repo's `.mcp.json` servers itself, once approved by *name*. A
local-scope entry of the same name in `~/.claude.json` `projects[<git root>]` wins over
the project's entry, approved or not (measured with Claude Code 2.1.197), so for every
workspace in the trust store mcpctl writes, per `.mcp.json` server,

    {"type": "stdio", "command": "mcpctl", "args": ["run", "--workspace", ROOT, NAME]}

and Claude Code then starts the server through `mcpctl run`, whose gate refuses a
definition that changed since `mcpctl trust` (the refusal, naming `mcpctl trust`, goes
to stderr, which Claude Code keeps in its MCP log). The entry's shape is its marker, as
for exported entries; a local entry of the user's own is never touched (it wins over
the repo's anyway, so the repo's server does not start there).

Gemini CLI and Codex have no user-level way to replace a repo's server by name
(Gemini: only the system settings file; Codex: project layers win key by key, only
`-c` on each command line overrides), so they are not guarded (docs/design.md).

`plan_guards` is pure; `refresh_guards` reads the trust store and the repos' files and
writes `~/.claude.json` through `write_client_file`.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.clients.guarded import GUARDED_CLIENT, GUARDED_FILE, repo_server_names
from mcpctl.clients.table import ClientFormat, client_by_id, client_path, is_guard_run
from mcpctl.clients.write.export import ExportReport
from mcpctl.clients.write.plan import EntryChange, ExportPlan, Projects
from mcpctl.errors import McpctlError

if TYPE_CHECKING:
    from mcpctl.machine import Machine

_KEYS = frozenset({"type", "command", "args"})


def guard_entry(command: str, root: str, name: str) -> dict[str, Any]:
    """The local-scope entry that makes Claude Code start `name` through the gate."""
    return {"type": "stdio", "command": command, "args": ["run", "--workspace", root, name]}


def is_guard_entry(name: str, entry: Any) -> bool:
    """Is this an entry the guard wrote (`mcpctl run --workspace ROOT NAME`)?"""
    if not isinstance(entry, Mapping) or not set(entry) <= _KEYS:
        return False
    return entry.get("type", "stdio") == "stdio" and isinstance(entry.get("args"), list) \
        and is_guard_run(name, entry.get("command"), entry.get("args"))


@dataclass(frozen=True)
class Workspace:
    """A workspace in the trust store, as the guard sees it."""

    root: str  # the real path: the trust store's key and Claude Code's projects key
    repo_servers: tuple[str, ...]  # names in its .mcp.json
    own: frozenset[str] = frozenset()  # names the user tier defines for it alone


def plan_guards(workspaces: Collection[Workspace], projects: Projects,
                command: str) -> ExportPlan:
    """The guard entries to write, keep or remove in every project section (pure)."""
    changes: list[EntryChange] = []
    wanted: set[tuple[str, str]] = set()
    for workspace in sorted(workspaces, key=lambda w: w.root):
        existing = projects.get(workspace.root, {})
        for name in workspace.repo_servers:
            change = _guard_change(workspace, name, existing.get(name), command)
            if change.status in ("added", "updated", "unchanged"):
                wanted.add((workspace.root, name))
            changes.append(change)
    changes += [EntryChange(name, "removed", "no longer a trusted workspace's .mcp.json "
                            "server", workspace=root)
                for root, entries in sorted(projects.items())
                for name, entry in entries.items()
                if (root, name) not in wanted and is_guard_entry(name, entry)]
    return ExportPlan(changes)


def _guard_change(workspace: Workspace, name: str, current: Any,
                  command: str) -> EntryChange:
    root = workspace.root
    if name in workspace.own:
        return EntryChange(name, "skipped", "your own server for this workspace (the user "
                           "tier) is exported there and wins", workspace=root)
    if "${" in root:
        # Claude Code expands ${...} in args: the path would change meaning.
        return EntryChange(name, "skipped", "the folder's path holds '${', which Claude "
                           "Code would expand", workspace=root)
    desired = guard_entry(command, root, name)
    if current is None:
        return EntryChange(name, "added", "Claude Code starts it through mcpctl's gate",
                           desired, workspace=root)
    if current == desired:
        return EntryChange(name, "unchanged", workspace=root)
    if is_guard_entry(name, current):
        return EntryChange(name, "updated", "Claude Code starts it through mcpctl's gate",
                           desired, workspace=root)
    return EntryChange(name, "skipped", "your own local-scope entry of that name wins over "
                       "the repo's in Claude Code; left as it is", workspace=root)


@dataclass
class GuardReport(ExportReport):
    """The guard's wiring of Claude Code's file, reported like an export of it (its
    `diff` stays empty: the guard prints none)."""


def refresh_guards(machine: Machine, *, dry_run: bool = False) -> GuardReport | None:
    """Wire every trusted workspace's `.mcp.json` servers through the gate in Claude
    Code's file; None when Claude Code is not in `[clients] sync` (nothing is read).
    A file that cannot be read or written is the report's error, never raised."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    client = client_by_id(GUARDED_CLIENT)
    settings = read_client_settings(machine.config_file)
    if client is None or client.id not in settings.sync:
        return None
    report = GuardReport(client, client_path(machine, client))
    try:
        workspaces = _workspaces(machine)
        _write(machine, client, report, workspaces, settings.exported_command,
               dry_run=dry_run)
    except McpctlError as error:
        report.error = error
    return report


def _write(machine: Machine, client: ClientFormat, report: GuardReport,
           workspaces: list[Workspace], command: str, *, dry_run: bool) -> None:
    from mcpctl.clients.files import (  # noqa: PLC0415
        ATTEMPTS,
        client_text_or_none,
        write_client_file,
    )
    from mcpctl.clients.write.edit import apply_plan  # noqa: PLC0415
    from mcpctl.clients.write.parse import project_servers, read_document  # noqa: PLC0415

    def compute(old: str | None) -> str:
        data = read_document(client, old, report.path)
        report.plan = plan_guards(workspaces, project_servers(client, data), command)
        return apply_plan(client, old, report.plan, report.path, data)

    if dry_run:
        compute(client_text_or_none(report.path))
        return
    result = write_client_file(
        report.path, compute, backup_dir=machine.paths.data_dir / "backups" / client.id,
        lock_dir=machine.paths.cache_dir / "locks", now=lambda: datetime.now(UTC),
        attempts=ATTEMPTS + 2)
    report.path, report.written, report.backup = result.path, result.written, result.backup
    report.backup_secrets, report.backup_skipped = result.secrets_replaced, result.backup_skipped


def _workspaces(machine: Machine) -> list[Workspace]:
    """Every workspace in the trust store, with its `.mcp.json` server names."""
    from mcpctl.clients.write.export import user_servers  # noqa: PLC0415
    from mcpctl.config.user_config import workspace_key_of  # noqa: PLC0415
    from mcpctl.trust.store import read_store  # noqa: PLC0415

    own: dict[str, set[str]] = {}
    for spec in user_servers(machine.config_file).values():
        key = workspace_key_of(spec)
        if key is not None:
            own.setdefault(key, set()).add(spec.name)
    roots = sorted(read_store(machine.paths.trust_file)["workspaces"])
    return [Workspace(root, repo_server_names(Path(root) / GUARDED_FILE),
                      frozenset(own.get(root, ()))) for root in roots]
