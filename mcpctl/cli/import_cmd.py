"""`mcpctl import`: copy servers from a client's own config into the user tier (DESIGN §11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import (
    ConfigOption,
    FileOption,
    JsonOption,
    NamesArgument,
    ReplaceOption,
    WorkspaceOption,
    client_help,
    client_named,
    context,
)

if TYPE_CHECKING:
    from mcpctl.clients.importing import ImportReport


def register(app: typer.Typer) -> None:
    app.command("import")(import_command)


def import_command(
    source: Annotated[str, typer.Option("--from", help=client_help())],
    names: NamesArgument = None,
    replace: ReplaceOption = False,
    file: FileOption = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Copy servers from a client's own config into the user tier, like `mcpctl add`.

    Names are checked, secret-looking values go to the OS keyring, a server already
    defined the same way is `unchanged`, a different one is refused unless --replace.
    An entry using a client feature mcpctl cannot express is refused with the reason.
    Only the client's own files are read (Claude Code: ~/.claude.json, with this
    folder's local servers), never a repo's. Exit 1 when a server was refused.

    Example: mcpctl import --from claude-desktop github filesystem
    """
    from mcpctl.reports.client_tier import import_report  # noqa: PLC0415

    machine = context(workspace, config, creates_config=True)
    report = import_report(machine, client_named(source), names or [], replace=replace,
                           file=file)
    return render.emit(report, as_json, _print_import)


def _print_import(report: ImportReport) -> None:
    files = ", ".join(render.display_path(path) for path in report.files)
    render.say(f"from {report.client.title} ({files}) into "
               f"{render.display_path(report.config_file)}:")
    rows = []
    for result in report.results:
        detail = result.reason
        if result.secrets:
            detail = "secrets moved to the keyring: " + ", ".join(result.secrets)
        rows.append([result.status, result.name, detail])
    if rows:
        render.print_table(["STATUS", "NAME", "DETAIL"], rows)
    else:
        render.say("no servers to import")
