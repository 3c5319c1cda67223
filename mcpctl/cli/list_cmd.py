"""`mcpctl list` and `mcpctl show NAME`."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from mcpctl.cli import render
from mcpctl.cli.options import ConfigOption, JsonOption, WorkspaceOption, context
from mcpctl.clients.precedence import RepoStarter
from mcpctl.config.merge import MergedServer, find
from mcpctl.config.view import load_view
from mcpctl.errors import ConfigError, ExitCode, UsageError
from mcpctl.model import Tier
from mcpctl.reports import listing
from mcpctl.reports.list_extras import (
    last_probe,
    starters_document,
    starters_of,
    unguarded_here,
    weak_approvals_here,
)
from mcpctl.trust.state import NEEDS_ATTENTION
from mcpctl.trust.status import Status
from mcpctl.trust.view import TrustStates
from mcpctl.variables import references_in


def register(app: typer.Typer) -> None:
    app.command("list")(list_command)
    app.command("show")(show_command)


def list_command(
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
    tier: Annotated[
        Tier | None, typer.Option("--tier", help="Only this tier: user or workspace.")
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

    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file, frozenset({tier}) if tier else None)
    states = TrustStates(ctx.root, ctx.paths.trust_file)
    rows = list(listing.rows(view.servers, states.state_of))
    probes = {s.name: last_probe(ctx.paths, states, s) for s in view.servers}
    weak = weak_approvals_here(ctx.root, view.servers)
    starters = starters_of(view.servers, weak)
    unguarded = unguarded_here(ctx.paths, ctx.config_file, ctx.root, weak)
    problems = [*view.problems, *states.problems, *weak.problems]
    if as_json:
        render.print_json({
            "schema_version": listing.LIST_SCHEMA_VERSION,
            "workspace": str(view.root),
            "user_config": str(view.config_file),
            "servers": [{**listing.row_document(row),
                         "last_probe": probes[row.name] if row.shadowed_by is None else None,
                         **starters_document(starters.of(row.definition))}
                        for row in rows],
            "unguarded": unguarded,
            "weak_approvals": [{"server": a.server, "setting": a.setting, "path": str(a.path),
                                "line": a.line, "message": a.message()}
                               for a in weak.approvals],
            "problems": [listing.problem_document(p) for p in problems],
        })
    else:
        _print_rows(rows, probes)
        for definition, found in starters.items_by_definition(view.servers):
            for starter in found:
                render.warn(f"note: {render.display_path(definition.source.path)}:"
                            f"{definition.source.line}: {definition.name!r} is shadowed by "
                            f"the user tier here, but: {starter.why}")
        for name in unguarded:
            render.warn(f"warning: Claude Code would start .mcp.json server {name!r} without "
                        "mcpctl's gate: it is not wired yet; run `mcpctl sync`")
        for approval in weak.approvals:
            render.warn(f"warning: {render.display_path(approval.path)}:{approval.line}: "
                        f"{approval.message()}")
        render.warn_problems(problems)
    if problems:
        return ExitCode.INVALID_CONFIG
    attention = [f"{row.name} ({row.state})" for row in rows if row.state in NEEDS_ATTENTION]
    attention += [f"{a.server or 'every .mcp.json server'} (approved by name in "
                  f"{render.display_path(a.path)})" for a in weak.approvals]
    attention += [f"{name} (not guarded in Claude Code)" for name in unguarded]
    if needs_attention and attention:
        render.warn(f"{len(attention)} workspace server(s) need attention: " + ", ".join(attention)
                    + "; review with `mcpctl show NAME`, approve with `mcpctl trust NAME`")
        return ExitCode.FINDINGS
    return ExitCode.OK


def _cost_cell(probe: dict[str, Any] | None) -> str:
    if probe is None:
        return "-"
    return (f"{probe['tokens']:,} tok, {probe['tools']} tools "
            f"({render.age(probe['age_seconds'])} ago)")


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
    headers = ["NAME", "TIER", "STATE", "TRANSPORT", "COMMAND", "SOURCE", "COST"]
    fixed = sum(max(len(h), *(len(r[i]) for r in table)) + 2
                for i, h in enumerate(headers) if i != 4)
    limit = max(20, render.width() - fixed - 2)
    for line in table:
        line[4] = render.middle_truncate(line[4], limit)
    render.print_table(headers, table)


def show_command(
    name: Annotated[str, typer.Argument(help="Server name.")],
    workspace: WorkspaceOption = None,
    config: ConfigOption = None,
    as_json: JsonOption = False,
) -> int:
    """Show everything about one server: each definition, which wins and why.

    Example: mcpctl show github --json
    """

    ctx = context(workspace, config)
    view = load_view(ctx.root, ctx.config_file)
    server = find(view.servers, name)
    if server is None:
        if view.problems:
            render.warn_problems(view.problems)
            raise ConfigError(f"no server named {name!r} here, and {len(view.problems)} config "
                              "file problem(s) may hide it (see above)")
        raise UsageError(f"no server named {name!r} here (see: mcpctl list)")
    states = TrustStates(ctx.root, ctx.paths.trust_file)
    weak = weak_approvals_here(ctx.root, [server]) if server.shadowed else None
    starters = starters_of([server], weak)
    problems = [*view.problems, *states.problems]
    rows = list(listing.rows([server], states.state_of))
    if as_json:
        render.print_json({
            "schema_version": listing.LIST_SCHEMA_VERSION,
            "name": name,
            "why": listing.why_wins(server),
            "definitions": [{**listing.row_document(row),
                             **listing.trust_document(states.status(row.definition)),
                             **starters_document(starters.of(row.definition))}
                            for row in rows],
            "problems": [listing.problem_document(p) for p in problems],
        })
    else:
        for row in rows:
            _print_definition(row, server, states.status(row.definition),
                              starters.of(row.definition))
        render.warn_problems(problems)
    return ExitCode.INVALID_CONFIG if problems else ExitCode.OK


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
        render.say(f"  other:     {key} = {value!r}")
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
