"""`mcpctl list` and `mcpctl show NAME`."""

from __future__ import annotations

from enum import StrEnum
from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.clients.precedence import RepoStarter
from mcpctl.config.merge import MergedServer
from mcpctl.model import Tier
from mcpctl.reports import listing
from mcpctl.reports.file_syntax import field_line
from mcpctl.reports.servers import Listing, ServerDetail, list_report, show_report
from mcpctl.trust.status import Status
from mcpctl.variables import references_in


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
    app.command("show")(show_command)


class ListedTier(StrEnum):
    """The tiers `list` merges; the client tier is `mcpctl clients`' (it was accepted
    here and listed nothing, issue 15)."""

    USER = "user"
    WORKSPACE = "workspace"


def list_command(
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
    tier: Annotated[
        ListedTier | None, typer.Option("--tier", help="Only this tier: user or workspace "
                                        "(what other clients start: mcpctl clients).")
    ] = None,
    needs_attention: Annotated[
        bool, typer.Option("--needs-attention",
                           help="Exit 1 when a workspace server is untrusted, changed or "
                                "unpinnable, or approved by name by another client "
                                "(for onboarding scripts and CI).")
    ] = False,
) -> int:
    """List every server that would run here, with its tier, state and source.

    Shadowed definitions are listed too, with what shadows them. States: user,
    trusted, untrusted, changed (with what changed), unpinnable (names more workspace
    code than mcpctl can pin), shadowed. COST is the last probe's (see: mcpctl cost),
    read without starting anything. Exit 3 when a config file or the trust store is
    invalid (the rest is still listed); with --needs-attention, exit 1 when a
    workspace server is untrusted, changed or unpinnable, or approved by name only
    by another client.

    Example: mcpctl list --workspace ~/src/project --json
    """

    report = list_report(context(workspace, config), Tier(tier) if tier else None,
                         needs_attention=needs_attention,
                         shown=render.display_path)
    return render.emit(report, as_json, _print_listing)


def _cost_cell(probe: dict[str, Any] | None) -> str:
    if probe is None:
        return "-"
    return (f"{probe['tokens']:,} tok, {probe['tools']} tools "
            f"({render.age(probe['age_seconds'])} ago)")


def _print_listing(listed: Listing) -> None:
    _print_rows(listed.rows, listed.probes)
    for definition, found in listed.starters.items_by_definition(listed.servers):
        for starter in found:
            render.warn(f"note: {render.display_path(definition.source.path)}:"
                        f"{definition.source.line}: {definition.name!r} is shadowed by "
                        f"the user tier here, but: {starter.why}")
    for name in listed.unguarded:
        render.warn(f"warning: Claude Code would start .mcp.json server {name!r} without "
                    "mcpctl's gate: it is not wired yet; run `mcpctl sync`")
    for approval in listed.weak:
        render.warn(f"warning: {render.display_path(approval.path)}:{approval.line}: "
                    f"{approval.message()}")


def _print_rows(rows: list[listing.Row], probes: dict[str, dict[str, Any] | None]) -> None:
    table: list[list[str]] = []
    for row in rows:
        source = f"{render.display_path(row.definition.source.path)}:{row.definition.source.line}"
        state = row.state
        if row.shadowed_by is not None:
            by = row.shadowed_by
            state = f"shadowed by {render.display_path(by.path)}:{by.line}"
        elif row.note:
            state = f"{row.state} ({row.note})"
        cost = "" if row.shadowed_by is not None else _cost_cell(probes.get(row.name))
        table.append([row.name, row.definition.source.tier.value, state,
                      row.definition.spec.transport.value,
                      listing.command_line(row.definition.spec), source, cost])
    if not table:
        render.say("no servers")
        return
    # print_table fits it to a terminal: COMMAND cut in the middle, NAME and SOURCE never.
    render.print_table(["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE", "COST"],
                       table)


def show_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Show everything about one server: each definition, which wins and why.

    Example: mcpctl show github --json
    """

    return render.emit(show_report(context(workspace, config), name), as_json, _print_detail)


def _print_detail(detail: ServerDetail) -> None:
    for row, status in zip(detail.rows, detail.statuses, strict=True):
        _print_definition(row, detail.server, status, detail.starters.of(row.definition))


def _print_definition(row: listing.Row, server: MergedServer, status: Status,
                      starters: list[RepoStarter]) -> None:
    spec = row.definition.spec
    source = row.definition.source
    render.say(f"{spec.name}  [{source.tier.value}] {render.display_path(source.path)}:"
               f"{source.line}")
    if row.shadowed_by is None:
        render.say(f"  state:     {row.state}{f' ({row.note})' if row.note else ''}")
        render.say(f"  wins:      {listing.why_wins(server)}")
    else:
        by = row.shadowed_by
        render.say(f"  state:     shadowed by {render.display_path(by.path)}:{by.line}")
        for starter in starters:
            render.say(f"  clients:   {starter.why}")
    render.say(f"  transport: {spec.transport.value}")
    for label, value in listing.spec_lines(spec):
        render.say(f"  {label + ':':<10} {value}")
    for key, value in spec.extra.items():
        render.say(f"  other:     {field_line(key, value, source.tier)}")
    refs = references_in(spec)
    if refs:
        render.say("  variables: " + ", ".join(f"{r.text} ({r.kind.value})" for r in refs))
    _print_trust(status)


def _print_trust(status: Status) -> None:
    render.say(f"  fingerprint: {status.fingerprint}")
    covers = f", {status.pins.describe()}" if status.pins is not None else ""
    render.say("    made of: transport, command, args, env pairs, cwd, envFile, url, "
               "header pairs" + covers + ("; names:" if status.files else ""))
    for path, digest in status.files:
        render.say(f"      {path} {digest}")
    if status.approval is not None:
        render.say(f"  approved:  {status.approval.approved_at} at "
                   f"{status.approval.fingerprint}")
    if status.changes:
        render.say("  changed since approval:")
        for change in status.changes:
            render.say(f"    {change}")
    render.say()
