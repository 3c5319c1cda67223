"""`mcpctl clients` (+ `enable`, `disable`): what each other client would start (DESIGN §11)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import (
    ConfigOption,
    JsonOption,
    WorkspaceOption,
    client_help,
    client_named,
    context,
)
from mcpctl.errors import ExitCode

if TYPE_CHECKING:
    from mcpctl.clients.view import ClientsView
    from mcpctl.reports.client_tier import CommandSetting, SyncSetting

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
    from mcpctl.reports.client_tier import clients_report  # noqa: PLC0415

    if ctx.invoked_subcommand is not None:
        return ExitCode.OK
    for client_id in only or []:
        client_named(client_id)
    return render.emit(clients_report(context(workspace, config), only or []), as_json,
                       _print_view)


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
    from mcpctl.reports.client_tier import command_setting_report  # noqa: PLC0415

    report = command_setting_report(context(None, config, creates_config=True), path, reset=reset)
    return render.emit(report, as_json, _print_command)


def _print_command(setting: CommandSetting) -> None:
    origin = "set in" if setting.command else "default; set one in"
    render.say(f"exported entries run: {setting.exported_command} ({origin} "
               f"{render.display_path(setting.config_file)})"
               + ("" if setting.changed or not setting.asked_to_change else " (already so)"))


def _set_sync(client_id: str, config: Path | None, as_json: bool, *, enabled: bool) -> int:
    from mcpctl.reports.client_tier import sync_setting_report  # noqa: PLC0415

    machine = context(None, config, creates_config=True)
    report = sync_setting_report(machine, client_named(client_id), enabled=enabled)
    return render.emit(report, as_json, _print_setting)


def _print_setting(setting: SyncSetting) -> None:
    word = "enabled" if setting.enabled else "disabled"
    render.say(f"{word} sync for {setting.client} in {render.display_path(setting.config_file)}"
               + ("" if setting.changed else " (already so)"))
