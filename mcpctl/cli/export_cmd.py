"""`mcpctl export` and `sync`: write user-tier servers into clients' files (DESIGN §11)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import (
    ConfigOption,
    FileOption,
    JsonOption,
    NamesArgument,
    ReplaceOption,
    client_help,
    client_named,
    context,
)

if TYPE_CHECKING:
    from mcpctl.clients.write.export import ExportReport
    from mcpctl.reports.client_tier import Exports

CommandOption = Annotated[
    str | None, typer.Option("--command", help="The command exported entries run (default: "
                             "[clients] command in config.toml, else mcpctl); an absolute "
                             "path helps clients started with a short PATH.")]


def register(app: typer.Typer) -> None:
    app.command("export")(export_command)
    app.command("sync")(sync_command)


def export_command(
    target: Annotated[str, typer.Option("--to", help=client_help())],
    names: NamesArgument = None,
    replace: ReplaceOption = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the change as a unified diff; write "
                           "nothing.")
    ] = False,
    command: CommandOption = None,
    file: FileOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Write user-tier servers into a client's file as `mcpctl run NAME` entries.

    The client file then holds no secret: `mcpctl run` resolves them when the client
    starts the server. Everything else in the file is kept byte for byte; the write is
    atomic, the old file is backed up in mcpctl's data folder, and a file that does
    not parse is left alone. A name the client defines itself is a conflict (exit 1)
    unless --replace (or holds exactly the same server: it is adopted). A remote (url)
    server is exported too: `mcpctl run` bridges to it with the headers from the keyring.

    Example: mcpctl export --to cursor github --dry-run
    """
    from mcpctl.reports.client_tier import export_report  # noqa: PLC0415

    report = export_report(context(None, config), client_named(target), names or [],
                           replace=replace, dry_run=dry_run, command=command, file=file)
    return render.emit(report, as_json, show_exports)


def sync_command(
    check: Annotated[
        bool, typer.Option("--check", help="Write nothing; exit 1 when a client is out of "
                           "date.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the changes as unified diffs; write "
                           "nothing.")
    ] = False,
    replace: ReplaceOption = False,
    command: CommandOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Export the whole user tier to every client in `[clients] sync` of config.toml.

    Entries mcpctl exported earlier for servers since removed are removed. Enable a
    client with `mcpctl clients enable NAME`. Exit 1 on a conflict, or with --check
    when a client is out of date; a client whose file cannot be written is reported
    and the others are still synced.

    Example: mcpctl add github -- github-mcp-server stdio && mcpctl sync
    """
    from mcpctl.reports.client_tier import sync_report  # noqa: PLC0415

    report = sync_report(context(None, config), check=check, dry_run=dry_run, replace=replace,
                         command=command)
    return render.emit(report, as_json, show_exports)


def show_exports(exports: Exports) -> None:
    for report in exports.reports:
        if exports.dry_run and report.diff:
            render.say_block(report.diff.rstrip("\n"))
        _print_export(report, out=render.warn if exports.dry_run else render.say,
                      check=exports.check)


def _backup_note(report: ExportReport) -> str:
    if report.backup_skipped:
        return ", no backup (the old file held a secret mcpctl could not take out of it)"
    if report.backup is None:
        return ", new file"
    note = f", backup {render.display_path(report.backup)}"
    if report.backup_secrets:
        note += (f" with {report.backup_secrets} secret value(s) replaced by ${{secret:…}} "
                 "references")
    return note


def _print_export(report: ExportReport, *, out: Any, check: bool) -> None:
    where = render.display_path(report.path)
    if report.error is not None:
        render.warn(f"{report.client.id}: {where}: error: {report.error}")
        return
    if report.written:
        state = "written" + _backup_note(report)
    elif report.plan.writes or report.plan.conflicts:
        state = "out of date" if check else (
            "would change" if report.plan.writes else "conflicts")
    else:
        state = "up to date"
    from mcpctl.clients.write.guard import AllowlistReport, GuardReport  # noqa: PLC0415

    label = f"{report.client.id} guard" if isinstance(report, GuardReport) else \
        f"{report.client.id} allowlist" if isinstance(report, AllowlistReport) else \
        report.client.id
    out(f"{label}: {where} ({state})")
    for change in report.plan.changes:
        if change.status == "unchanged":
            continue
        where = f" (in {render.display_path(Path(change.workspace))} only)" if change.workspace \
            else ""
        out(f"  {change.status:<9} {change.name}{where}" + (f"  ({change.reason})"
                                                    if change.reason else ""))
