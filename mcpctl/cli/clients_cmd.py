"""`mcpctl clients` (+ `enable`, `disable`): what each other client would start (DESIGN §11)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import (
    ConfigOption,
    JsonOption,
    WorkspaceOption,
    client_help,
    client_machine,
    client_named,
    context,
)
from mcpctl.errors import ExitCode

if TYPE_CHECKING:
    from mcpctl.clients.view import ClientsView

SCHEMA_VERSION = 1

clients_app = typer.Typer(invoke_without_command=True)

ClientArgument = Annotated[str, typer.Argument(help=client_help())]


def register(app: typer.Typer) -> None:
    app.add_typer(clients_app, name="clients")


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
    from mcpctl.clients.view import load_clients_view  # noqa: PLC0415

    for client_id in only or []:
        client_named(client_id)
    view = load_clients_view(client_machine(workspace, config), tuple(only or ()))
    if as_json:
        render.print_json(_view_document(view))
    else:
        _print_view(view)
        render.warn_problems(view.problems)
    return ExitCode.INVALID_CONFIG if view.problems else ExitCode.OK


def _view_document(view: ClientsView) -> dict[str, Any]:
    from mcpctl.reports.listing import problem_document, source_document, spec_document  # noqa: PLC0415

    return {
        "schema_version": SCHEMA_VERSION,
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
    from mcpctl.reports.listing import command_line  # noqa: PLC0415

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
        if report.folder_trust is not None and report.rows:  # no servers: nothing to say
            word = "trusted" if report.folder_trust.trusted else "not trusted: starts nothing"
            render.say(f"folder trust: {report.client.id} {word} ({report.folder_trust.reason})")
        if report.sync_enabled:
            state = {True: "up to date", False: "out of date (run: mcpctl sync)",
                     None: "cannot tell"}[report.in_sync]
            render.say(f"sync: {report.client.id} {state}")


@clients_app.command("enable")
def enable_command(
    client: ClientArgument,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Add a client to `[clients] sync` in config.toml, so `mcpctl sync` writes it.

    Example: mcpctl clients enable claude-code && mcpctl sync
    """
    return _set_sync(client, config, as_json, enabled=True)


@clients_app.command("disable")
def disable_command(
    client: ClientArgument,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Remove a client from `[clients] sync` (entries already exported stay).

    Example: mcpctl clients disable cursor
    """
    return _set_sync(client, config, as_json, enabled=False)


@clients_app.command("command")
def command_command(
    path: Annotated[str | None, typer.Argument(
        help="The command exported entries run (an absolute path for clients with a "
             "short PATH).")] = None,
    reset: Annotated[bool, typer.Option(
        "--reset", help="Forget the setting: the default applies again.")] = False,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Show or set the command that exported entries run (`[clients] command`).

    Without PATH, show it. The default is `mcpctl` when mcpctl is installed in a system
    folder every client's PATH has, else the absolute path of the running mcpctl (when a
    git work tree holds that, another mcpctl on PATH outside one, if there is any). Run
    `mcpctl sync` afterwards to rewrite the entries already exported.

    Example: mcpctl clients command ~/.local/bin/mcpctl && mcpctl sync
    """
    from mcpctl.clients.settings import read_client_settings, set_command  # noqa: PLC0415
    from mcpctl.errors import UsageError  # noqa: PLC0415

    if path is not None and reset:
        raise UsageError("give a PATH or --reset, not both")
    config_file = context(None, config).config_file
    changed = False
    if path is not None or reset:
        changed = set_command(config_file, None if reset else path)
    settings = read_client_settings(config_file)
    if as_json:
        render.print_json({"schema_version": SCHEMA_VERSION, "command": settings.command,
                           "exported_command": settings.exported_command, "changed": changed,
                           "path": str(config_file)})
    else:
        origin = "set in" if settings.command else "default; set one in"
        render.say(f"exported entries run: {settings.exported_command} ({origin} "
                   f"{render.display_path(config_file)})" + ("" if changed or not (
                       path or reset) else " (already so)"))
    return ExitCode.OK


def _set_sync(client_id: str, config: Path | None, as_json: bool, *, enabled: bool) -> int:
    from mcpctl.clients.settings import set_sync  # noqa: PLC0415

    client = client_named(client_id)
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
