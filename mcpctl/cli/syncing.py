"""After `add` and `remove`: bring the clients in `[clients] sync` up to date (issue 26).

A `claude mcp add` user expects the server in Claude Code at once, and a removed one
gone from it; so once clients are enabled, an edit of the user tier is synced to them
right away (`--no-sync` leaves them, and says `mcpctl sync` is then needed). What
happened is said on stderr, so the command's own output and its --json document stay
as they were; a client that could not be synced is a warning naming the fix, never a
failed edit: config.toml changed as asked either way.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcpctl.cli import render
from mcpctl.errors import McpctlError

if TYPE_CHECKING:
    from mcpctl.machine import Machine

CHANGED = ("added", "replaced", "removed")


def sync_after_edit(machine: Machine, status: str, *, no_sync: bool) -> None:
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    if status not in CHANGED:
        return
    try:
        enabled = read_client_settings(machine.config_file).sync
    except McpctlError:
        return  # a broken [clients] table is reported by sync itself
    if not enabled:
        return
    if no_sync:
        render.warn(f"note: {', '.join(enabled)} not updated (--no-sync); run `mcpctl sync`")
        return
    from mcpctl.clients.write.export import sync_clients  # noqa: PLC0415

    try:
        reports = sync_clients(machine, check=False, dry_run=False, replace=False)
    except McpctlError as error:
        render.warn(f"warning: clients not synced: {error}; run `mcpctl sync`")
        return
    for report in reports:
        where = render.display_path(report.path)
        if report.error is not None:
            render.warn(f"warning: {report.client.id}: {where} not synced: {report.error}; "
                        "run `mcpctl sync`")
        elif report.plan.conflicts:
            names = ", ".join(repr(change.name) for change in report.plan.conflicts)
            render.warn(f"warning: {report.client.id}: {where}: {names} defined by the client "
                        "itself, left as it is; `mcpctl sync --replace` replaces it")
        elif report.written:
            done = [f"{change.status} {change.name}" for change in report.plan.changes
                    if change.writes]
            render.warn(f"synced {report.client.id}: {where} ({', '.join(done)})")
