"""`mcpctl search`, `mcpctl outdated` and `mcpctl upgrade`: servers of an MCP registry."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context

if TYPE_CHECKING:
    from mcpctl.reports.registry import Listed, Row, Upgraded

RegistryOption = Annotated[
    str | None, typer.Option("--registry", help="The registry's base URL (default: [registry] "
                             "url in config.toml, else the official MCP Registry).")
]


def register(app: typer.Typer) -> None:
    app.command("search", help=(
        "List a registry's servers whose name holds TEXT: latest version, what adding "
        "one takes (package type, secrets, remote), description.\n\n"
        "Example: mcpctl search filesystem"))(search_command)
    app.command("outdated", help=(
        "Compare each server added with --from-registry with its registry's latest "
        "version.\n\nExample: mcpctl outdated --json"))(outdated_command)
    app.command("upgrade", help=(
        "Move a server added with --from-registry to its registry's latest version (or "
        "--to VERSION): only the pinned version changes; env, headers and secrets stay.\n\n"
        "Example: mcpctl upgrade everything"))(upgrade_command)


def search_command(
    text: Annotated[str, typer.Argument(help="Part of the server's name.")],
    limit: Annotated[int, typer.Option("--limit", min=1, max=10_000,
                                       help="At most this many servers.")] = 50,
    registry: RegistryOption = None,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> int:
    from mcpctl.reports.registry import search_report  # noqa: PLC0415

    report = search_report(context(workspace, config), text, limit, registry)
    return render.emit(report, as_json, _print_found)


def _print_found(listed: Listed) -> None:
    from mcpctl.reports.printable import printable  # noqa: PLC0415

    if not listed.servers:
        render.say(f"no servers found in {listed.registry}")
        return
    render.print_table(["NAME", "VERSION", "NEEDS", "DESCRIPTION"],
                       [[printable(s.name), printable(s.version), s.needs,
                         printable(s.description)] for s in listed.servers])


def outdated_command(
    registry: RegistryOption = None,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> int:
    from mcpctl.reports.registry import outdated_report  # noqa: PLC0415

    return render.emit(outdated_report(context(workspace, config), registry), as_json,
                       _print_outdated)


def _print_outdated(rows: list[Row]) -> None:
    if not rows:
        render.say("no servers were added from a registry")
        return
    render.print_table(["NAME", "SERVER", "CURRENT", "LATEST", "STATUS"],
                       [[r.name, r.server, r.current, r.latest or "?", r.status]
                        for r in rows])


def upgrade_command(
    name: Annotated[str, typer.Argument(help="A server added with --from-registry.")],
    to: Annotated[str | None, typer.Option("--to", help="This version instead of the "
                                           "latest.")] = None,
    registry: RegistryOption = None,
    config: ConfigOption = None,
    workspace: WorkspaceOption = None,
    as_json: JsonOption = False,
) -> int:
    from mcpctl.reports.registry import upgrade_report  # noqa: PLC0415

    report = upgrade_report(context(workspace, config), name, registry, to)
    return render.emit(report, as_json, _print_upgraded)


def _print_upgraded(upgraded: Upgraded) -> None:
    if upgraded.status == "current":
        render.say(f"{upgraded.name} is at {upgraded.new} already")
        return
    render.say(f"upgraded {upgraded.name}: {upgraded.old} -> {upgraded.new}")
    for change in upgraded.changes:
        render.say(f"  {change}")
