"""`mcpctl import`: copy servers from a client's own config into the user tier (DESIGN §11)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

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
)
from mcpctl.errors import ExitCode

if TYPE_CHECKING:
    from mcpctl.clients.importing import ImportReport

SCHEMA_VERSION = 1


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
    from mcpctl.clients.importing import import_from_client  # noqa: PLC0415

    client = client_named(source)
    report = import_from_client(context(workspace, config), client, names or [],
                                replace=replace, file=file)
    if as_json:
        render.print_json(_import_document(report))
    else:
        _print_import(report)
    if report.problems:
        return ExitCode.INVALID_CONFIG
    refused = any(result.status == "refused" for result in report.results)
    return ExitCode.FINDINGS if refused else ExitCode.OK


def _import_document(report: ImportReport) -> dict[str, Any]:
    from mcpctl.reports.listing import problem_document, source_document  # noqa: PLC0415

    return {
        "schema_version": SCHEMA_VERSION,
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
        "problems": [problem_document(problem) for problem in report.problems],
    }


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
    render.warn_problems(report.problems)
