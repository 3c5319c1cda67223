"""What `clients`, `clients enable|disable`, `import`, `export` and `sync` report."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from mcpctl.errors import ExitCode, UsageError
from mcpctl.machine import Machine
from mcpctl.reports.listing import source_document, spec_document
from mcpctl.reports.report import Report

if TYPE_CHECKING:
    from mcpctl.clients.guard_words import GuardState
    from mcpctl.clients.importing import ImportReport
    from mcpctl.clients.table import ClientFormat
    from mcpctl.clients.view import ClientsView
    from mcpctl.clients.write.export import ExportReport

SCHEMA_VERSION = 1


def clients_report(machine: Machine, only: Sequence[str]) -> Report[ClientsView]:
    """What each client would start here; exit 3 when a file cannot be read."""
    from mcpctl.clients.view import load_clients_view  # noqa: PLC0415

    view = load_clients_view(machine, tuple(only))
    return Report("clients", _view_body(view), view,
                  ExitCode.INVALID_CONFIG if view.problems else ExitCode.OK, view.problems,
                  version=SCHEMA_VERSION)


def _view_body(view: ClientsView) -> dict[str, Any]:
    return {
        "workspace": str(view.root),
        "clients": [{
            "id": report.client.id,
            "title": report.client.title,
            "files": [{"path": str(f.path), "scope": f.scope, "exists": f.exists}
                      for f in report.files],
            "sync": {"enabled": report.sync_enabled, "up_to_date": report.in_sync},
            **({"folder_trust": {"trusted": report.folder_trust.trusted,
                                 "reason": report.folder_trust.reason}}
               if report.folder_trust else {}),
            **({"guard": report.guard.document()} if report.guard else {}),
            "servers": [{
                "name": row.server.name,
                "scope": row.server.scope,
                "state": row.state,
                "shadowed_by": row.shadowed_by,
                "managed": row.server.managed,
                "unsupported": list(row.server.unsupported),
                "notes": list(row.server.notes),
                **spec_document(row.server.spec),
                "source": source_document(row.server.definition.source),
            } for row in report.rows],
        } for report in view.reports],
        "differences": [{
            "name": difference.name,
            "clients": [{"client": server.client, "scope": server.scope,
                         "managed": server.managed,
                         "source": source_document(server.definition.source)}
                        for server in difference.definitions],
        } for difference in view.differences],
    }


@dataclass(frozen=True)
class SyncSetting:
    client: str
    enabled: bool
    changed: bool
    config_file: Path


def sync_setting_report(machine: Machine, client: ClientFormat, *, enabled: bool
                        ) -> Report[SyncSetting]:
    """Add `client` to `[clients] sync` in config.toml, or take it out."""
    from mcpctl.clients.guarded import GUARDED_CLIENT  # noqa: PLC0415
    from mcpctl.clients.settings import set_sync  # noqa: PLC0415

    changed = set_sync(machine.config_file, client.id, enabled=enabled)
    body = {"client": client.id, "sync": enabled, "changed": changed,
            "path": str(machine.config_file)}
    # Disabling keeps the guard, which fails closed; removing it is its own step.
    kept = [] if enabled or client.id != GUARDED_CLIENT else [
        "note: Claude Code keeps mcpctl's guard (its allowlist entries and guard entries "
        "still refuse what mcpctl did not approve); to take them out: mcpctl guard --off"]
    return Report("clients-sync", body, SyncSetting(client.id, enabled, changed,
                                                    machine.config_file),
                  warnings=kept, version=SCHEMA_VERSION)


@dataclass(frozen=True)
class CommandSetting:
    command: str | None  # as set in config.toml, None for the default
    exported_command: str
    changed: bool
    asked_to_change: bool
    config_file: Path


def command_setting_report(machine: Machine, path: str | None, *, reset: bool
                           ) -> Report[CommandSetting]:
    """Show `[clients] command`, or set it (`path`) or forget it (`reset`)."""
    from mcpctl.clients.settings import read_client_settings, set_command  # noqa: PLC0415

    if path is not None and reset:
        raise UsageError("give a PATH or --reset, not both")
    changed = False
    if path is not None or reset:
        changed = set_command(machine.config_file, None if reset else path)
    settings = read_client_settings(machine.config_file)
    exported = settings.exported
    body = {"command": settings.command, "exported_command": exported.command,
            "changed": changed, "path": str(machine.config_file)}
    # What export and sync say of the default, said here too (stderr in both modes).
    said = [f"warning: {exported.warning}"] if exported.warning else []
    if exported.note:
        said.append(f"note: {exported.note}")
    return Report("clients-command", body, CommandSetting(
        settings.command, exported.command, changed, path is not None or reset,
        machine.config_file), warnings=said, version=SCHEMA_VERSION)


def import_report(machine: Machine, client: ClientFormat, names: Sequence[str], *,
                  replace: bool, file: Path | None) -> Report[ImportReport]:
    """Copy servers from a client's own file into the user tier."""
    from mcpctl.clients.importing import import_from_client  # noqa: PLC0415

    report = import_from_client(machine, client, names, replace=replace, file=file)
    body = {
        "client": report.client.id,
        "files": [str(path) for path in report.files],
        "config": str(report.config_file),
        "servers": [{
            "name": result.name,
            "status": result.status,
            "reason": result.reason,
            "secrets": list(result.secrets),
            "notes": list(result.server.notes) if result.server else [],
            "source": source_document(result.server.definition.source)
            if result.server else None,
        } for result in report.results],
    }
    code = ExitCode.OK
    if report.problems:
        code = ExitCode.INVALID_CONFIG
    elif any(result.status == "refused" for result in report.results):
        code = ExitCode.FINDINGS
    return Report("import", body, report, code, report.problems, version=SCHEMA_VERSION)


@dataclass(frozen=True)
class Exports:
    reports: list[ExportReport]
    dry_run: bool
    check: bool


def export_report(machine: Machine, client: ClientFormat, names: Sequence[str], *,
                  replace: bool, dry_run: bool, command: str | None, file: Path | None
                  ) -> Report[Exports]:
    """Write user-tier servers into one client's file; exit 1 on a conflict."""
    from mcpctl.clients.write.export import export_to_client  # noqa: PLC0415

    report = export_to_client(machine, client, list(names), replace=replace, dry_run=dry_run,
                              command=command, file=file)
    reports = [report]
    if file is None and report.error is None:
        reports += _allowlist_after_export(machine, client, dry_run=dry_run)
    reports += _claude_denials(machine, client.id, list(names), dry_run=dry_run)
    codes = [int(r.error.exit_code) for r in reports[1:] if r.error is not None]
    return _exports(reports, dry_run=dry_run, check=False,
                    code=max([ExitCode.FINDINGS if report.plan.conflicts else ExitCode.OK,
                              *codes]))


def _claude_denials(machine: Machine, client_id: str, names: list[str], *, dry_run: bool
                    ) -> list[ExportReport]:
    """Claude Code's deny rules for the tools that are off (issue 29): one more item
    when there is something to say."""
    if client_id != "claude-code":
        return []
    from mcpctl.clients.write.claude_denials import deny_in_claude  # noqa: PLC0415

    report = deny_in_claude(machine, names, dry_run=dry_run)
    return [report] if report.error or report.plan.changes else []


def _allowlist_after_export(machine: Machine, client: ClientFormat, *, dry_run: bool
                            ) -> list[ExportReport]:
    """The guard (its entries and Claude Code's allowlist), kept in step with what was
    just exported when it is on (issue 22): otherwise the new entry would be blocked
    until the next sync."""
    from mcpctl.clients.guarded import GUARDED_CLIENT  # noqa: PLC0415
    from mcpctl.clients.write.guard import refresh_guards  # noqa: PLC0415

    if client.id != GUARDED_CLIENT:
        return []
    guard = refresh_guards(machine, dry_run=dry_run)
    if guard is None:
        return []
    return [part for part in (guard, guard.allowlist)
            if part is not None and (part.error or part.plan.changes)]


def sync_report(machine: Machine, *, check: bool, dry_run: bool, replace: bool,
                command: str | None) -> Report[Exports]:
    """Bring every enabled client up to date, and the guard of this workspace's
    `.mcp.json` servers in Claude Code; the worst client's exit code wins."""
    from mcpctl.clients.write.export import sync_clients  # noqa: PLC0415
    from mcpctl.clients.write.guard import refresh_guards  # noqa: PLC0415
    from mcpctl.reports.tools import rebalance  # noqa: PLC0415

    if not (check or dry_run):  # the global budget takes in servers added since (issue 29)
        rebalance(machine)
    reports = sync_clients(machine, check=check, dry_run=dry_run, replace=replace,
                           command=command)
    guard = refresh_guards(machine, dry_run=check or dry_run)
    if guard is not None and (guard.error or guard.plan.changes):  # no workspace: no line
        reports.append(guard)
    if guard is not None and guard.allowlist is not None and (
            guard.allowlist.error or guard.allowlist.plan.changes):
        reports.append(guard.allowlist)
    if any(r.client.id == "claude-code" for r in reports):
        reports += _claude_denials(machine, "claude-code", [], dry_run=check or dry_run)
    codes = [int(r.error.exit_code) for r in reports if r.error is not None]
    if any(r.plan.conflicts or (check and r.plan.writes) for r in reports):
        codes.append(ExitCode.FINDINGS)
    exports = _exports(reports, dry_run=dry_run, check=check,
                       code=max(codes, default=ExitCode.OK))
    guards = _guards_after_sync(machine)
    if not guards:
        return exports
    said = [f"guard here: {state.client} {state.state} ({state.how}"
            + (f"; to guard it: {state.fix})" if state.fix else ")") for state in guards]
    return exports._replace(
        body={**exports.body, "guards": {state.client: state.document() for state in guards}},
        warnings=[*exports.warnings, *said])


def _guards_after_sync(machine: Machine) -> list[GuardState]:
    """What guards each enabled client that reads a repo's servers, in this workspace,
    from the files as they are now (after the sync, or unchanged by --check and
    --dry-run): said for a client only when a file it reads here defines servers (issue
    22 item 5), so `sync` never leaves a guard it does not have unsaid."""
    from mcpctl.clients.guarded import (  # noqa: PLC0415
        GUARDED_CLIENT,
        client_reading,
        guard_states_here,
    )
    from mcpctl.clients.settings import read_client_settings  # noqa: PLC0415
    from mcpctl.config.view import view_here  # noqa: PLC0415
    from mcpctl.config.workspace import folder_of  # noqa: PLC0415
    from mcpctl.model import Tier  # noqa: PLC0415

    enabled = [client for client in (GUARDED_CLIENT, "gemini", "codex")
               if client in read_client_settings(machine.config_file).sync]
    if not enabled:
        return []
    view = view_here(machine, frozenset({Tier.WORKSPACE}))
    reading = {client_reading(d.source.path, folder_of(d.source, machine.root))
               for server in view.servers for d in server.definitions}
    chosen = tuple(client for client in enabled if client in reading)
    return list(guard_states_here(machine, chosen).values()) if chosen else []


def guard_off_report(machine: Machine, *, dry_run: bool) -> Report[Exports]:
    """`guard --off`: mcpctl's guard taken out of Claude Code's two files, reported as
    sync reports them (issue 22 item 3)."""
    from mcpctl.clients.write.unguard import remove_guard  # noqa: PLC0415

    guard = remove_guard(machine, dry_run=dry_run)
    reports: list[ExportReport] = [guard, *([guard.allowlist] if guard.allowlist else [])]
    codes = [int(r.error.exit_code) for r in reports if r.error is not None]
    return _exports(reports, dry_run=dry_run, check=False, code=max(codes, default=ExitCode.OK))


def _exports(reports: list[ExportReport], *, dry_run: bool, check: bool, code: int
             ) -> Report[Exports]:
    # One command for all: export has one report, sync passes the same to every client.
    chosen = next((report.command for report in reports if report.command), None)
    warnings = [chosen.warning] if chosen and chosen.warning else []
    notes = [chosen.note] if chosen and chosen.note else []
    body = {"dry_run": dry_run or check, "command": chosen.command if chosen else None,
            "warnings": warnings, "notes": notes,
            "clients": [_export_document(r) for r in reports]}
    return Report("export", body, Exports(reports, dry_run, check), code,
                  warnings=[*(f"warning: {w}" for w in warnings), *(f"note: {n}" for n in notes)],
                  version=SCHEMA_VERSION)


def _export_document(report: ExportReport) -> dict[str, Any]:
    from mcpctl.clients.write.guard import AllowlistReport, GuardReport  # noqa: PLC0415

    return {
        "client": report.client.id,
        "guard": isinstance(report, GuardReport | AllowlistReport),
        "path": str(report.path),
        "written": report.written,
        "backup": str(report.backup) if report.backup else None,
        "up_to_date": report.error is None and not report.plan.writes
        and not report.plan.conflicts,
        "changes": [{"name": c.name, "status": c.status, "reason": c.reason,
                     **({"workspace": c.workspace} if c.workspace else {})}
                    for c in report.plan.changes],
        "diff": report.diff or None,
        "error": str(report.error) if report.error else None,
    }
