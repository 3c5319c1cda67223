"""The cross-client view: what every known client would start here (edge, read-only).

`mcpctl clients` shows it: each client's files and rows (`client_rows.py`), the names
clients start differently, for clients in `[clients] sync` whether their file is
what `mcpctl sync` would write, and what guards each (`guarded.guard_state`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from mcpctl.clients.guarded import BY_POLICY, GUARDED, GuardState, guard_state
from mcpctl.clients.load import ClientFile, ClientLoad, load_client
from mcpctl.clients.rows import ClientRow, Difference, ProjectState, client_rows, differences
from mcpctl.clients.table import CLIENTS, ClientFormat, client_path
from mcpctl.errors import McpctlError
from mcpctl.model import Problem, ServerSpec

if TYPE_CHECKING:
    from mcpctl.clients.folder_trust import FolderTrust
    from mcpctl.clients.settings import ClientSettings
    from mcpctl.machine import Machine


@dataclass
class ClientReport:
    client: ClientFormat
    files: list[ClientFile]
    rows: list[ClientRow]
    sync_enabled: bool = False
    in_sync: bool | None = None  # None: not synced, or cannot tell
    folder_trust: FolderTrust | None = None  # clients that start nothing untrusted
    guard: GuardState | None = None  # whether it starts a repo's servers only via the gate


@dataclass
class ClientsView:
    root: Path
    reports: list[ClientReport] = field(default_factory=list)
    differences: list[Difference] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def load_clients_view(machine: Machine, only: tuple[str, ...] = ()) -> ClientsView:
    """What every known client would start in `machine.root`, read-only."""
    from mcpctl.config.user_config import load_user_tier  # noqa: PLC0415

    view = ClientsView(machine.root)
    user = load_user_tier(machine.config_file)
    view.problems += user.problems
    user_specs = {d.name: d.spec for d in user.definitions}
    settings = _settings(machine, view)
    for client in (c for c in CLIENTS if not only or c.id in only):
        load = load_client(client, machine.root, machine.os_key, machine.environ, machine.home)
        view.problems += load.problems
        trust = _folder_trust(machine, client, view)
        folder_state = None if trust is None or trust.trusted else \
            f"not started: folder not trusted ({trust.reason})"
        report = ClientReport(client, load.files,
                              client_rows(load.servers, user_specs,
                                          _project_state(machine, load, view), folder_state),
                              client.id in settings.sync, folder_trust=trust,
                              guard=guard_state(client.id, synced=client.id in settings.sync,
                                                root=machine.root, home=machine.home,
                                                environ=machine.environ,
                                                os_key=machine.os_key))
        if report.guard is not None and report.guard.state in (GUARDED, BY_POLICY):
            report.rows = [_blocked(row) for row in report.rows]
        if report.sync_enabled and not user.problems:
            report.in_sync = _in_sync(machine, client, user_specs, settings.exported_command)
        view.reports.append(report)
    view.differences = differences({r.client.id: r.rows for r in view.reports}, user_specs)
    view.problems = list(dict.fromkeys(view.problems))
    return view


def _blocked(row: ClientRow) -> ClientRow:
    """Under the guard's allowlist a repo's own entry starts only when it is `mcpctl run
    --guard --key K` (measured: any other command line is not even configured; a repo
    cannot know the machine's key, so any K is taken at its word)."""
    from dataclasses import replace  # noqa: PLC0415

    from mcpctl.clients.guard_key import key_in, without_key  # noqa: PLC0415
    from mcpctl.clients.guarded import GUARD_ARGS  # noqa: PLC0415
    from mcpctl.clients.table import is_mcpctl_command  # noqa: PLC0415

    spec = row.server.spec
    if row.server.scope != "project" or row.shadowed_by is not None or (
            is_mcpctl_command(spec.command) and without_key(spec.args) == list(GUARD_ARGS)
            and key_in(spec.args) is not None):
        return row
    return replace(row, state="blocked by Claude Code's allowlist")


def _settings(machine: Machine, view: ClientsView) -> ClientSettings:
    from mcpctl.clients.settings import ClientSettings, read_client_settings  # noqa: PLC0415

    try:
        return read_client_settings(machine.config_file)
    except McpctlError as error:
        view.problems.append(Problem(machine.config_file, 1, 1, str(error)))
        return ClientSettings()


def _folder_trust(machine: Machine, client: ClientFormat,
                  view: ClientsView) -> FolderTrust | None:
    from mcpctl.clients.folder_trust import load_folder_trust  # noqa: PLC0415

    if not client.folder_trust:
        return None
    trust = load_folder_trust(machine.root, client_path(machine, client), machine.environ)
    view.problems += trust.problems
    return trust


def _project_state(machine: Machine, load: ClientLoad,
                   view: ClientsView) -> ProjectState | None:
    """Claude Code approves the repo's .mcp.json servers; other clients start them."""
    from mcpctl.clients.weak_approvals import load_weak_approvals  # noqa: PLC0415

    if load.client.project_key is None:
        return None
    project = {s.name for s in load.servers if s.scope == "project"}
    approvals = load_weak_approvals(machine.root, project, machine.environ, machine.home)
    view.problems += approvals.problems
    return approvals.state_of


def _in_sync(machine: Machine, client: ClientFormat, user_specs: Mapping[str, ServerSpec],
             command: str) -> bool | None:
    from mcpctl.clients.files import read_client_text  # noqa: PLC0415
    from mcpctl.clients.write.parse import (  # noqa: PLC0415
        project_servers,
        read_document,
        servers_of,
    )
    from mcpctl.clients.write.plan import plan_export  # noqa: PLC0415

    path = client_path(machine, client)
    text = read_client_text(path) if path.exists() else None
    if isinstance(text, Problem):
        return None
    try:
        data = read_document(client, text, path)
        existing = servers_of(client, data, path)
    except McpctlError:
        return None
    plan = plan_export(client, existing, [user_specs[n] for n in sorted(user_specs)], command,
                       replace=False, prune=True, projects=project_servers(client, data))
    return not plan.writes and not plan.conflicts
