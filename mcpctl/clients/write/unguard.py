"""`mcpctl guard --off`: take mcpctl's own guard out of Claude Code (issue 22 item 3).

`clients disable claude-code` leaves the guard where it is, because it fails closed:
the allowlist still blocks what mcpctl did not export, and each guard entry still
starts its repo server only through the gate. Taking it out is a step of its own, and
refused while claude-code is in `[clients] sync` (the next sync would write it back).
It removes exactly what mcpctl wrote and nothing of the user's:

- in `~/.claude/settings.json`, the `allowedMcpServers` entries of mcpctl's shape
  (`{"serverCommand": ["mcpctl", "run", …]}`); when they were the whole list the key
  goes too, since an empty list would block every server, the user's own included;
- in `~/.claude.json`, the guard entries (`mcpctl run --guard` with the name in `env`)
  of every project section; a local entry of the user's own is not one.

Afterwards Claude Code starts a repo's `.mcp.json` servers on its own approval again,
and mcpctl says "not guarded" for it. `plan_unguard` is pure.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from mcpctl.clients.guarded import GUARDED_CLIENT
from mcpctl.clients.table import client_by_id, client_path
from mcpctl.clients.write.guard import (
    AllowlistReport,
    GuardReport,
    _write_allowlist,
    _write_file,
    is_guard_entry,
    user_settings_path,
)
from mcpctl.clients.write.plan import EntryChange, ExportPlan, Projects
from mcpctl.errors import McpctlError, UsageError

if TYPE_CHECKING:
    from mcpctl.machine import Machine

OFF = "the guard is off"


def plan_unguard(projects: Projects) -> ExportPlan:
    """Remove every guard entry, in every project section; nothing else (pure)."""
    return ExportPlan([EntryChange(name, "removed", OFF, workspace=key)
                       for key in sorted(projects)
                       for name, entry in sorted(projects[key].items())
                       if is_guard_entry(name, entry)])


def remove_guard(machine: Machine, *, dry_run: bool = False) -> GuardReport:
    """Take the guard entries and mcpctl's allowlist entries out of Claude Code's files.
    A file that cannot be read or written is the report's error; the other file is
    still done."""
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415

    client = client_by_id(GUARDED_CLIENT)
    if client is None or client.id in read_client_settings(machine.config_file).sync:
        raise UsageError("claude-code is in [clients] sync, so the next sync would put the "
                         "guard back; first: mcpctl clients disable claude-code")
    report = GuardReport(client, client_path(machine, client))
    try:
        _remove_entries(machine, report, dry_run=dry_run)
    except McpctlError as error:
        report.error = error
    report.allowlist = AllowlistReport(client, user_settings_path(machine))
    if report.allowlist.path.exists():
        try:
            _write_allowlist(machine, report.allowlist, [], dry_run=dry_run, drop_empty=True)
        except McpctlError as error:
            report.allowlist.error = error
        report.allowlist.plan = ExportPlan([replace(change, reason=OFF)
                                            for change in report.allowlist.plan.changes])
    return report


def _remove_entries(machine: Machine, report: GuardReport, *, dry_run: bool) -> None:
    from mcpctl.clients.files import client_text_or_none  # noqa: PLC0415
    from mcpctl.clients.write.edit import apply_plan  # noqa: PLC0415
    from mcpctl.clients.write.parse import project_servers, read_document  # noqa: PLC0415

    client = report.client

    def compute(old: str | None) -> str:
        data: dict[str, Any] = read_document(client, old, report.path)
        report.plan = plan_unguard(project_servers(client, data))
        return apply_plan(client, old, report.plan, report.path, data)

    if dry_run or not report.path.exists():
        if report.path.exists():
            compute(client_text_or_none(report.path))
        return
    result = _write_file(machine, client, report.path, compute)
    report.path, report.written, report.backup = result.path, result.written, result.backup
