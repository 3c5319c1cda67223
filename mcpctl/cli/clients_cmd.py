"""`mcpctl clients`, `import`, `export` and `sync`: other clients' configs (DESIGN §11)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.clients import CLIENT_IDS, ClientFormat, client_by_id
from mcpctl.errors import ExitCode, UsageError

if TYPE_CHECKING:
    from mcpctl.client_export import ExportReport
    from mcpctl.client_import import ImportReport
    from mcpctl.client_machine import Machine
    from mcpctl.client_view import ClientsView

SCHEMA_VERSION = 1
_KNOWN = ", ".join(CLIENT_IDS)

clients_app = typer.Typer(invoke_without_command=True)

NamesArgument = Annotated[
    list[str] | None, typer.Argument(help="Server names (default: all).", show_default=False)]
FileOption = Annotated[
    Path | None, typer.Option("--file", help="The client's file (default: where the client "
                              "keeps it on this OS).", dir_okay=False)]
ReplaceOption = Annotated[
    bool, typer.Option("--replace", help="Overwrite a different definition of the same name.")]
CommandOption = Annotated[
    str | None, typer.Option("--command", help="The command exported entries run (default: "
                             "[clients] command in config.toml, else mcpctl); an absolute "
                             "path helps clients started with a short PATH.")]


def register(app: typer.Typer) -> None:
    app.add_typer(clients_app, name="clients")
    app.command("import")(import_command)
    app.command("export")(export_command)
    app.command("sync")(sync_command)


def _client(client_id: str) -> ClientFormat:
    client = client_by_id(client_id)
    if client is None:
        raise UsageError(f"unknown client {client_id!r} (known: {_KNOWN})")
    return client


def _machine(workspace: Path | None, config: Path | None) -> Machine:
    from mcpctl.client_machine import Machine  # noqa: PLC0415

    ctx = context(workspace, config)
    return Machine.current(ctx.paths, ctx.config_file, ctx.root)


# ---- mcpctl clients ------------------------------------------------------------------

@clients_app.callback()
def clients_command(
    ctx: typer.Context,
    only: Annotated[
        list[str] | None, typer.Option("--client", help="Only this client (repeatable).")
    ] = None,
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Show what each AI client would start here, with provenance, and the names two
    clients define differently.

    Reads the files of claude-code, claude-desktop, cursor, vscode, codex, gemini and
    windsurf (read-only) and the repo files they read. `clients enable NAME` adds a
    client to `[clients] sync` for `mcpctl sync`. An entry that runs `mcpctl run NAME`
    starts the user tier's NAME. Exit 3 when a file cannot be read (the rest is still
    shown).

    Example: mcpctl clients --client claude-code --json
    """
    if ctx.invoked_subcommand is not None:
        return ExitCode.OK
    from mcpctl.client_view import load_clients_view  # noqa: PLC0415

    for client_id in only or []:
        _client(client_id)
    view = load_clients_view(_machine(workspace, config), tuple(only or ()))
    if as_json:
        render.print_json(_view_document(view))
    else:
        _print_view(view)
        for problem in view.problems:
            render.warn(f"{render.display_path(problem.path)}:{problem.line}:{problem.column}: "
                        f"error: {problem.message}")
    return ExitCode.INVALID_CONFIG if view.problems else ExitCode.OK


def _view_document(view: ClientsView) -> dict[str, Any]:
    from mcpctl.listing import problem_document, source_document, spec_document  # noqa: PLC0415

    return {
        "schema_version": SCHEMA_VERSION,
        "workspace": str(view.root),
        "clients": [{
            "id": report.client.id,
            "title": report.client.title,
            "files": [{"path": str(f.path), "scope": f.scope, "exists": f.exists}
                      for f in report.files],
            "sync": {"enabled": report.sync_enabled, "up_to_date": report.in_sync},
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
        "problems": [problem_document(problem) for problem in view.problems],
    }


def _print_view(view: ClientsView) -> None:
    from mcpctl.listing import command_line  # noqa: PLC0415

    table = []
    for report in view.reports:
        for row in report.rows:
            server = row.server
            state = f"shadowed by {row.shadowed_by}" if row.shadowed_by else row.state
            source = f"{render.display_path(server.definition.source.path)}:" \
                     f"{server.definition.source.line}"
            table.append([report.client.id, server.name, server.scope, state,
                          command_line(server.spec), source])
    if table:
        render.print_table(["CLIENT", "NAME", "SCOPE", "STATE", "COMMAND", "SOURCE"], table)
    else:
        render.say("no servers in any client's files")
    for difference in view.differences:
        where = ", ".join(f"{s.client} ({'via mcpctl' if s.managed else s.scope})"
                          for s in difference.definitions)
        render.say(f"defined differently: {difference.name}: {where}")
    for report in view.reports:
        if report.sync_enabled:
            state = {True: "up to date", False: "out of date (run: mcpctl sync)",
                     None: "cannot tell"}[report.in_sync]
            render.say(f"sync: {report.client.id} {state}")


@clients_app.command("enable")
def enable_command(
    client: Annotated[str, typer.Argument(help=f"Client: {_KNOWN}.")],
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Add a client to `[clients] sync` in config.toml, so `mcpctl sync` writes it.

    Example: mcpctl clients enable claude-code && mcpctl sync
    """
    return _set_sync(client, config, as_json, enabled=True)


@clients_app.command("disable")
def disable_command(
    client: Annotated[str, typer.Argument(help=f"Client: {_KNOWN}.")],
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Remove a client from `[clients] sync` (entries already exported stay).

    Example: mcpctl clients disable cursor
    """
    return _set_sync(client, config, as_json, enabled=False)


def _set_sync(client_id: str, config: Path | None, as_json: bool, *, enabled: bool) -> int:
    from mcpctl.client_settings import set_sync  # noqa: PLC0415

    client = _client(client_id)
    config_file = context(None, config).config_file
    changed = set_sync(config_file, client.id, enabled=enabled)
    word = "enabled" if enabled else "disabled"
    if as_json:
        render.print_json({"schema_version": SCHEMA_VERSION, "client": client.id,
                           "sync": enabled, "changed": changed, "path": str(config_file)})
    else:
        render.say(f"{word} sync for {client.id} in {render.display_path(config_file)}"
                   + ("" if changed else " (already so)"))
    return ExitCode.OK


# ---- mcpctl import ---------------------------------------------------------------------

def import_command(
    source: Annotated[str, typer.Option("--from", help=f"Client: {_KNOWN}.")],
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
    from mcpctl.client_import import import_from_client  # noqa: PLC0415

    client = _client(source)
    report = import_from_client(_machine(workspace, config), client, names or [],
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
    from mcpctl.listing import problem_document, source_document  # noqa: PLC0415

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
    for problem in report.problems:
        render.warn(f"{render.display_path(problem.path)}:{problem.line}:{problem.column}: "
                    f"error: {problem.message}")


# ---- mcpctl export / sync ----------------------------------------------------------------

def export_command(
    target: Annotated[str, typer.Option("--to", help=f"Client: {_KNOWN}.")],
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
    unless --replace. Remote (url) servers are skipped: clients reach them directly.

    Example: mcpctl export --to cursor github --dry-run
    """
    from mcpctl.client_export import export_to_client  # noqa: PLC0415

    client = _client(target)
    report = export_to_client(_machine(None, config), client, names or [], replace=replace,
                              dry_run=dry_run, command=command, file=file)
    _show_exports([report], as_json, dry_run=dry_run, check=False)
    return ExitCode.FINDINGS if report.plan.conflicts else ExitCode.OK


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
    from mcpctl.client_export import sync_clients  # noqa: PLC0415

    reports = sync_clients(_machine(None, config), check=check, dry_run=dry_run,
                           replace=replace, command=command)
    _show_exports(reports, as_json, dry_run=dry_run, check=check)
    codes = [int(r.error.exit_code) for r in reports if r.error is not None]
    if any(r.plan.conflicts or (check and r.plan.writes) for r in reports):
        codes.append(ExitCode.FINDINGS)
    return max(codes, default=ExitCode.OK)


def _export_document(report: ExportReport) -> dict[str, Any]:
    return {
        "client": report.client.id,
        "path": str(report.path),
        "written": report.written,
        "backup": str(report.backup) if report.backup else None,
        "up_to_date": report.error is None and not report.plan.writes
        and not report.plan.conflicts,
        "changes": [{"name": c.name, "status": c.status, "reason": c.reason}
                    for c in report.plan.changes],
        "diff": report.diff or None,
        "error": str(report.error) if report.error else None,
    }


def _show_exports(reports: list[ExportReport], as_json: bool, *, dry_run: bool,
                  check: bool) -> None:
    if as_json:
        render.print_json({"schema_version": SCHEMA_VERSION, "dry_run": dry_run or check,
                           "clients": [_export_document(report) for report in reports]})
        return
    for report in reports:
        if dry_run and report.diff:
            render.say(report.diff.rstrip("\n"))
        _print_export(report, out=render.warn if dry_run else render.say, check=check)


def _print_export(report: ExportReport, *, out: Any, check: bool) -> None:
    where = render.display_path(report.path)
    if report.error is not None:
        render.warn(f"{report.client.id}: {where}: error: {report.error}")
        return
    if report.written:
        state = "written" + (f", backup {render.display_path(report.backup)}"
                             if report.backup else ", new file")
    elif report.plan.writes:
        state = "out of date" if check else "would change"
    else:
        state = "up to date"
    out(f"{report.client.id}: {where} ({state})")
    for change in report.plan.changes:
        if change.status == "unchanged":
            continue
        out(f"  {change.status:<9} {change.name}" + (f"  ({change.reason})"
                                                    if change.reason else ""))
